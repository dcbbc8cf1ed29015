package cuda

import copyasync "github.com/tilels/tilels/dispatch/cuda/copy_async"
import cudacopy "github.com/tilels/tilels/dispatch/cuda/copy"
import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Tests of copy_async/tma: the PRE goldens of spec §6.5 (rows 81–100, from
// test_tma.py::test_copy_tma_codegen), the other test_tma.py cases, the
// §4.5.6 worked plans, the config handling, and a simulation of the TMA
// hardware that checks every plan moves exactly the copied region.

// tmaCase is one copy_async(dst, src, dispatch="tma") call.
type tmaCase struct {
	row    int
	name   string
	dtype  string // "" = float16
	s2g    bool
	gShape []int64
	gReg   [][2]int64 // nil: the whole buffer
	gLay   func(t testing.TB) layout.Layout
	sShape []int64
	sReg   [][2]int64
	sLay   func(t testing.TB) layout.Layout
	// cfg is the call's config; g2s calls get an mbar unless cfg has one
	// or holds the marker key "no-mbar" (removed before the call).
	cfg    []ir.KV
	target dispatch.Target // zero: sm_90a

	enc    []int64 // the integers of cuTensorMapEncodeTiled after (map, dtype)
	issues int64   // 0: 1
	// coords (CUDA order) and smem (flat element offset of the shared
	// pointer) of issue it; nil: all zero / 0.
	coords func(it int64) []int64
	smem   func(it int64) int64
	axes   []string // Result.TMA.IssueAxes, when set
	// err is the exact reason of the tma row when the call must not lower.
	err string
	// encoderReject pins the plans that the runtime encoder (or the PTX
	// alignment rules) would reject: PRE checks structure only (§4.5.3).
	encoderReject bool
	// direct calls the emitter without the predicates, as test_tma.py
	// calls copy_tma_impl (the dispatcher rejects the call).
	direct bool
	// promoted is the descriptor dtype when L3 promotes it.
	promoted string
	// vals are the values the simulation gives every free variable of
	// the regions (symbolic starts).
	vals  []int64
	build func(k *kb) // replaces the default kernel when set
}

func rm(shape ...int64) func(testing.TB) layout.Layout {
	return func(testing.TB) layout.Layout { return layout.RowMajor(shape...) }
}

func rmCanon(shape ...int64) func(testing.TB) layout.Layout {
	return func(testing.TB) layout.Layout { return layout.CanonicalTile(layout.RowMajor(shape...)) }
}

func spec(s string) func(testing.TB) layout.Layout {
	return func(t testing.TB) layout.Layout {
		l, err := layout.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

// mma is PRE mma_shared_layout(dtype, mode, shape).
func mma(dtype string, mode int, shape ...int64) func(testing.TB) layout.Layout {
	return func(t testing.TB) layout.Layout {
		dt, _ := ir.ParseDType(dtype)
		l, err := layout.MMASharedLayout(dt.Bits, mode, shape, false)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

// atom32x512 is mma_atom_layout(f16, 3).tile_to((16,256), (8,64)).tile_to((32,512), (16,256)).
func atom32x512(t testing.TB) layout.Layout {
	l := mustTileTo(t, layout.MMAAtomLayout(16, 3), []int64{16, 256}, []int64{8, 64})
	return mustTileTo(t, l, []int64{32, 512}, []int64{16, 256})
}

func str(s string) ir.Expr { return &ir.StringImm{Value: s} }

func kv(key string, v ir.Expr) ir.KV { return ir.KV{Key: key, Value: v} }

// tmaCall appends Tx.copy_async(dst, src, dispatch=d, **cfg) at thread scope.
func (k *kb) tmaCall(dst, src *ir.Region, d string, cfg ...ir.KV) *ir.TileCall {
	sp := k.span()
	dst.Span, src.Span = k.span(), k.span()
	for i := range cfg {
		cfg[i].Span = k.span()
	}
	tc := &ir.TileCall{Op: "copy_async", Scope: "thread", Args: []ir.Arg{dst, src}, Dispatch: d, Config: cfg,
		Span: sp, OpSpan: sp, ArgSpans: []source.Span{dst.Span, src.Span}}
	k.add(tc)
	return tc
}

// build is the kernel of a case: 128 threads, `if tid == 0:` around the
// copy, an mbarrier for g2s.
func (c tmaCase) buildKernel(k *kb) {
	if c.build != nil {
		c.build(k)
		return
	}
	dtype := c.dtype
	if dtype == "" {
		dtype = "float16"
	}
	tid := k.ctaKernel(128)
	a := k.buf("A", "global", dtype, "", c.gShape...)
	if c.gLay != nil {
		withLayout(a, c.gLay(k.t))
	}
	s := k.buf("A_smem", "shared.dyn", dtype, "", c.sShape...)
	if c.sLay != nil {
		withLayout(s, c.sLay(k.t))
	}
	cfg := slices.Clone(c.cfg)
	if !c.s2g {
		bar := k.buf("bar", "shared", "uint64", "", 1)
		if !slices.ContainsFunc(cfg, func(x ir.KV) bool { return x.Key == "mbar" || x.Key == "no-mbar" }) {
			cfg = append(cfg, kv("mbar", &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}}))
		}
		cfg = slices.DeleteFunc(cfg, func(x ir.KV) bool { return x.Key == "no-mbar" })
	}
	gr, sr := full(a), full(s)
	if c.gReg != nil {
		gr = sub(a, c.gReg...)
	}
	if c.sReg != nil {
		sr = sub(s, c.sReg...)
	}
	k.ifThen(cmpE(ir.EQ, tid, 0))
	if c.s2g {
		k.tmaCall(gr, sr, "tma", cfg...)
	} else {
		k.tmaCall(sr, gr, "tma", cfg...)
	}
	k.end()
}

func (c tmaCase) lower(t testing.TB) *dispatch.Output {
	k := newKernel(t)
	c.buildKernel(k)
	target := c.target
	if target.Kind == "" {
		target = dispatch.DefaultTarget()
	}
	return dispatch.Lower(k.fn, target, Variants())
}

// encodeArgs is the integer tail of TVM's cuTensorMapEncodeTiled call.
func encodeArgs(m *ir.TensorMap) []int64 {
	out := []int64{int64(m.Rank)}
	out = append(out, m.GlobalDims...)
	out = append(out, m.GlobalStrides...)
	out = append(out, m.Box...)
	out = append(out, m.ElemStrides...)
	out = append(out, int64(m.Interleave), int64(m.Swizzle), int64(m.L2Promotion), int64(m.OOBFill))
	if m.ForceDType >= 0 {
		out = append(out, int64(m.ForceDType))
	}
	return out
}

// tmaIssue is one executed bulk-tensor instruction.
type tmaIssue struct {
	op     string
	smem   int64   // flat element offset of the shared pointer
	coords []int64 // CUDA order
	m      *ir.TensorMap
	args   []ir.Expr
}

// runIssues executes the issue loop of a lowered TMA body.
func runIssues(body *ir.Block, bind map[*ir.Var]int64) ([]tmaIssue, error) {
	if len(body.Stmts) != 1 {
		return nil, fmt.Errorf("body has %d statements, want one loop", len(body.Stmts))
	}
	loop, ok := body.Stmts[0].(*ir.For)
	if !ok || loop.Kind != ir.Unrolled || len(loop.Body.Stmts) != 1 {
		return nil, fmt.Errorf("body is not one unrolled loop of one statement: %s", blockText(body))
	}
	ev, ok := loop.Body.Stmts[0].(*ir.Evaluate)
	if !ok {
		return nil, fmt.Errorf("loop body is %T", loop.Body.Stmts[0])
	}
	call := ev.X.(*ir.Call)
	first := map[string]int{ir.OpCpAsyncBulkTensorG2C: 7, ir.OpCpAsyncBulkTensorS2G: 4, ir.OpCpAsyncBulkTensorS2GReduce: 5}
	nc, ok := first[call.Op]
	if !ok {
		return nil, fmt.Errorf("unexpected op %s", call.Op)
	}
	in := &interp{vars: map[*ir.Var]int64{}}
	for v, x := range bind {
		in.vars[v] = x
	}
	rank := in.eval(call.Args[0])
	if int64(len(call.Args)-nc) != rank {
		return nil, fmt.Errorf("%d coordinates for rank %d", len(call.Args)-nc, rank)
	}
	mapArg := 3
	if call.Op != ir.OpCpAsyncBulkTensorG2C {
		mapArg = 2
	}
	ma, ok := call.Args[mapArg].(*ir.TensorMapAddr)
	if !ok {
		return nil, fmt.Errorf("argument %d is %T, want *ir.TensorMapAddr", mapArg, call.Args[mapArg])
	}
	ptr, ok := call.Args[1].(*ir.AddressOf)
	if !ok || !ptr.FlatIndex || len(ptr.Indices) != 1 {
		return nil, fmt.Errorf("shared pointer is not a flat address: %s", dispatch.ExprText(call.Args[1]))
	}
	var out []tmaIssue
	for it := range in.eval(loop.Extent) {
		in.vars[loop.Var] = it
		is := tmaIssue{op: call.Op, smem: in.eval(ptr.Indices[0]), m: ma.Map, args: call.Args}
		for _, c := range call.Args[nc:] {
			is.coords = append(is.coords, in.eval(c))
		}
		out = append(out, is)
	}
	return out, nil
}

// tmaRowReason returns the reason of the tma attempt of a decision.
func tmaRowReason(d *dispatch.Decision) string {
	for _, r := range d.Declined {
		if r.Variant == "tma" {
			return r.Reason
		}
	}
	return ""
}

func checkTMACase(t testing.TB, c tmaCase) (errs []string) {
	defer func() {
		if r := recover(); r != nil {
			errs = append(errs, fmt.Sprintf("panic: %v", r))
		}
	}()
	bad := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }
	out := c.lower(t)
	if len(out.Decisions) != 1 {
		return []string{fmt.Sprintf("%d decisions", len(out.Decisions))}
	}
	d := out.Decisions[0]
	if c.err != "" {
		if d.Variant != "" {
			bad("variant %q selected, want the tma row %q", d.Variant, c.err)
		}
		if got := tmaRowReason(d); got != c.err {
			bad("tma reason %q, want %q", got, c.err)
		}
		return errs
	}
	r, maps := d.Result, out.Func.TensorMaps
	if c.direct {
		// test_tma.py calls copy_tma_impl itself; through the dispatcher
		// the call is not a valid copy (its non-unit extents differ).
		if got := tmaRowReason(d); got != "not a valid copy op" {
			bad("through Lower: tma reason %q, want the validate_copy_op rejection", got)
		}
		call := dispatch.NewCall(d.Call, dispatch.DefaultTarget(), 128)
		var dec *dispatch.Decline
		if r, dec = copyasync.EmitTMA(call); dec != nil {
			return append(errs, "direct emit declined: "+dec.Reason)
		}
		maps = r.TensorMaps
	} else if d.Variant != "tma" || r == nil || r.TMA == nil {
		return []string{fmt.Sprintf("variant %q, want tma:\n%s", d.Variant, d.Explanation.TableCompact())}
	}
	m := r.TMA.Map
	if c.enc != nil && !slices.Equal(encodeArgs(m), c.enc) {
		bad("encode %v, want %v", encodeArgs(m), c.enc)
	}
	dtype := c.dtype
	if dtype == "" {
		dtype = "float16"
	}
	if c.promoted != "" {
		dtype = c.promoted
	}
	if m.DType.String() != dtype || m.Name != "A_ptr_tensormap" || m.Buf.Name != "A" {
		bad("map %s of %s, dtype %s", m.Name, m.Buf.Name, m.DType)
	}
	if len(maps) != 1 || maps[0] != m || len(r.TensorMaps) != 1 {
		bad("lowered func has %d tensor maps, result %d", len(maps), len(r.TensorMaps))
	}
	want := c.issues
	if want == 0 {
		want = 1
	}
	if r.TMA.Issues != want || r.Outer != want || r.Threads != 1 || r.Vec != 0 {
		bad("issues %d outer %d threads %d vec %d, want %d issues", r.TMA.Issues, r.Outer, r.Threads, r.Vec, want)
	}
	dir := "g2s"
	if c.s2g {
		dir = "s2g"
	}
	if r.TMA.Direction != dir {
		bad("direction %s, want %s", r.TMA.Direction, dir)
	}
	if c.axes != nil && !slices.Equal(r.TMA.IssueAxes, c.axes) {
		bad("issue axes %q, want %q", r.TMA.IssueAxes, c.axes)
	}
	if c.vals != nil {
		return errs // coordinates depend on the variables: see TestTMASemantics
	}
	issues, err := runIssues(r.Body, nil)
	if err != nil {
		return append(errs, err.Error())
	}
	if int64(len(issues)) != want {
		bad("loop runs %d issues, want %d", len(issues), want)
	}
	for it, is := range issues {
		wc := make([]int64, m.Rank)
		if c.coords != nil {
			wc = c.coords(int64(it))
		}
		var ws int64
		if c.smem != nil {
			ws = c.smem(int64(it))
		}
		if !slices.Equal(is.coords, wc) || is.smem != ws {
			bad("issue %d: coords %v smem %d, want %v %d", it, is.coords, is.smem, wc, ws)
			break
		}
	}
	return errs
}

// tmaRowCases are the PRE goldens of spec §6.5 (test_tma.py ids).
func tmaRowCases() []tmaCase {
	full8x256 := func(row int, name, dtype string, mode int, enc ...int64) tmaCase {
		return tmaCase{row: row, name: name, dtype: dtype, gShape: []int64{8, 256}, sShape: []int64{8, 256},
			gLay: rm(8, 256), sLay: mma(dtype, mode, 8, 256), enc: enc}
	}
	multiphase := func(row int, name, dtype string, s2g bool, mode int, enc ...int64) tmaCase {
		return tmaCase{row: row, name: name, dtype: dtype, s2g: s2g, gShape: []int64{3, 8, 256},
			gReg: [][2]int64{{0, 1}, {0, 8}, {0, 256}}, gLay: rm(3, 8, 256), sShape: []int64{8, 256},
			sLay: mma(dtype, mode, 8, 256), enc: enc}
	}
	cs := []tmaCase{
		full8x256(81, "g2s-2d-8x256", "float16", 3, 3, 64, 8, 4, 512, 128, 64, 8, 4, 1, 1, 1, 0, 3, 2, 0),
		full8x256(81, "g2s-2d-8x256-bf16", "bfloat16", 3, 3, 64, 8, 4, 512, 128, 64, 8, 4, 1, 1, 1, 0, 3, 2, 0),
		full8x256(82, "g2s-2d-8x256-swizzle2", "float16", 2, 3, 32, 8, 8, 512, 64, 32, 8, 8, 1, 1, 1, 0, 2, 2, 0),
		full8x256(83, "g2s-2d-8x256-swizzle1", "float16", 1, 3, 16, 8, 16, 512, 32, 16, 8, 16, 1, 1, 1, 0, 1, 2, 0),
		full8x256(84, "g2s-2d-8x256-swizzle0", "float16", 0, 2, 256, 8, 512, 256, 8, 1, 1, 0, 0, 2, 0),
		full8x256(85, "g2s-2d-8x256-int8", "int8", 3, 3, 128, 8, 2, 256, 128, 128, 8, 2, 1, 1, 1, 0, 3, 2, 0),
		full8x256(85, "g2s-2d-8x256-uint8", "uint8", 3, 3, 128, 8, 2, 256, 128, 128, 8, 2, 1, 1, 1, 0, 3, 2, 0),
		full8x256(85, "g2s-2d-8x256-fp8e4m3", "float8_e4m3fn", 3, 3, 128, 8, 2, 256, 128, 128, 8, 2, 1, 1, 1, 0, 3, 2, 0),
		full8x256(85, "g2s-2d-8x256-fp8e5m2", "float8_e5m2", 3, 3, 128, 8, 2, 256, 128, 128, 8, 2, 1, 1, 1, 0, 3, 2, 0),
		full8x256(86, "g2s-2d-8x256-fp32", "float32", 3, 3, 32, 8, 8, 1024, 128, 32, 8, 8, 1, 1, 1, 0, 3, 2, 0),
		{row: 87, name: "g2s-3d-shared-64x256", gShape: []int64{64, 256}, gLay: rm(64, 256),
			sShape: []int64{3, 64, 256}, sReg: [][2]int64{{1, 2}, {0, 64}, {0, 256}}, sLay: mma("float16", 3, 3, 64, 256),
			enc:  []int64{3, 64, 64, 4, 512, 128, 64, 64, 4, 1, 1, 1, 0, 3, 2, 0},
			smem: func(int64) int64 { return 16384 }},
		{row: 88, name: "g2s-2d-32x512-atom", gShape: []int64{32, 512}, gLay: rm(32, 512),
			sShape: []int64{32, 512}, sLay: atom32x512,
			enc:    []int64{5, 64, 8, 4, 4, 2, 1024, 128, 8192, 512, 64, 8, 4, 2, 2, 1, 1, 1, 1, 1, 0, 3, 2, 0},
			issues: 2, coords: func(it int64) []int64 { return []int64{0, 0, 0, it * 2, 0} },
			smem: func(it int64) int64 { return it * 8192 },
			axes: []string{"extent 2: smem +8192, coord dim 3 +2"}},
		{row: 89, name: "g2s-2d-partial-8192", gShape: []int64{8192, 8192}, gReg: [][2]int64{{0, 128}, {0, 64}}, gLay: rm(8192, 8192),
			sShape: []int64{128, 64}, sLay: mma("float16", 3, 128, 64),
			enc: []int64{2, 8192, 8192, 16384, 64, 128, 1, 1, 0, 3, 2, 0}},
		{row: 90, name: "g2s-edge-partial-offset", gShape: []int64{128, 64}, gReg: [][2]int64{{64, 88}, {0, 64}}, gLay: rmCanon(128, 64),
			sShape: []int64{2, 2, 24, 64}, sReg: [][2]int64{{0, 1}, {0, 1}, {0, 24}, {0, 64}}, sLay: mma("float16", 3, 2, 2, 24, 64),
			enc:    []int64{2, 64, 128, 128, 64, 24, 1, 1, 0, 3, 2, 0},
			coords: func(int64) []int64 { return []int64{0, 64} }},
		{row: 91, name: "g2s-3d-full-contiguous", gShape: []int64{4, 32, 64}, gLay: rm(4, 32, 64),
			sShape: []int64{4, 32, 64}, sLay: rm(4, 32, 64),
			enc: []int64{3, 64, 32, 4, 128, 4096, 64, 32, 4, 1, 1, 1, 0, 0, 2, 0}},
		{row: 92, name: "g2s-3d-stride-gap-outer", gShape: []int64{8, 32, 64}, gLay: rm(8, 32, 64),
			sShape: []int64{8, 32, 64}, sLay: spec("S[(8,32,64):(4096,64,1)]"),
			enc:    []int64{3, 64, 32, 8, 128, 4096, 64, 32, 1, 1, 1, 1, 0, 0, 2, 0},
			issues: 8, coords: func(it int64) []int64 { return []int64{0, 0, it} },
			smem: func(it int64) int64 { return it * 4096 },
			axes: []string{"extent 8: smem +4096, coord dim 2 +1"}},
		{row: 93, name: "g2s-4d-reorder-a", gShape: []int64{2, 128, 8, 64}, gReg: [][2]int64{{0, 1}, {0, 128}, {0, 1}, {0, 64}},
			gLay: rmCanon(2, 128, 8, 64), sShape: []int64{1, 1, 128, 64}, sLay: mma("float16", 3, 1, 1, 128, 64),
			enc: []int64{4, 64, 128, 8, 2, 1024, 128, 131072, 64, 128, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0}},
		multiphase(94, "g2s-multiphase-3x8x256", "float16", false, 3, 4, 64, 8, 4, 3, 512, 128, 4096, 64, 8, 4, 1, 1, 1, 1, 1, 0, 3, 2, 0),
		multiphase(94, "s2g-multiphase-3x8x256", "float16", true, 3, 4, 64, 8, 4, 3, 512, 128, 4096, 64, 8, 4, 1, 1, 1, 1, 1, 0, 3, 2, 0),
		{row: 95, name: "g2s-transpose-32x64", gShape: []int64{32, 64}, gLay: rm(32, 64),
			sShape: []int64{32, 64}, sLay: spec("S[(32,64):(1,32)]"),
			enc:    []int64{2, 64, 32, 128, 1, 1, 1, 1, 0, 0, 2, 0},
			issues: 2048, coords: func(it int64) []int64 { return []int64{it % 64, it / 64} },
			smem: func(it int64) int64 { return it%64*32 + it/64 },
			axes: []string{"extent 32: smem +1, coord dim 1 +1", "extent 64: smem +32, coord dim 0 +1"},
			// 2-byte boxes: boxDim[0]·2 % 16 != 0 (spec §4.5.6).
			encoderReject: true},
		{row: 96, name: "g2s-non-prefix-compact-elides", gShape: []int64{16, 16, 128, 128}, gReg: [][2]int64{{3, 4}, {4, 5}, {0, 128}, {0, 128}},
			gLay: spec("S[(16,16,128,128):(131072,128,1024,1)]"), sShape: []int64{128, 128}, sLay: rm(128, 128),
			enc:    []int64{4, 128, 128, 16, 16, 2048, 256, 262144, 128, 128, 1, 1, 1, 1, 1, 1, 0, 0, 2, 0},
			coords: func(int64) []int64 { return []int64{0, 0, 4, 3} }},
		{row: 97, name: "g2s-oob-nan", gShape: []int64{128, 64}, gReg: [][2]int64{{120, 136}, {0, 64}}, gLay: rm(128, 64),
			sShape: []int64{16, 64}, sLay: mma("float16", 3, 16, 64), cfg: []ir.KV{kv("oob", str("nan"))},
			enc:    []int64{2, 64, 128, 128, 64, 16, 1, 1, 0, 3, 2, 1},
			coords: func(int64) []int64 { return []int64{0, 120} }},
		{row: 98, name: "g2s-fa4-q", gShape: []int64{1, 2048, 32, 128}, gReg: [][2]int64{{0, 1}, {0, 32}, {0, 4}, {0, 128}},
			gLay: rm(1, 2048, 32, 128), sShape: []int64{2, 128, 128}, sReg: [][2]int64{{0, 1}, {0, 128}, {0, 128}},
			sLay: mma("float16", 3, 2, 128, 128), direct: true,
			enc: []int64{5, 64, 32, 2048, 2, 1, 256, 8192, 128, 0, 64, 4, 32, 2, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0}},
		multiphase(99, "s2g-multiphase-3x8x256-fp32", "float32", true, 3, 4, 32, 8, 8, 3, 1024, 128, 8192, 32, 8, 8, 1, 1, 1, 1, 1, 0, 3, 2, 0),
		{row: 100, name: "reject-unknown-oob", s2g: true, gShape: []int64{3, 8, 256}, gReg: [][2]int64{{0, 1}, {0, 8}, {0, 256}},
			gLay: rm(3, 8, 256), sShape: []int64{8, 256}, sLay: mma("float16", 3, 8, 256), cfg: []ir.KV{kv("oob", str("bogus"))},
			err: "Unsupported TMA oob mode: 'bogus'. Expected None, 'zero', or 'nan'."},
		{row: 100, name: "reject-g2s-nan-on-non-float", dtype: "int8", gShape: []int64{128, 64}, gReg: [][2]int64{{120, 136}, {0, 64}},
			gLay: rm(128, 64), sShape: []int64{16, 64}, sLay: rm(16, 64), cfg: []ir.KV{kv("oob", str("nan"))},
			err: "TMA oob='nan' requires a floating-point dtype"},
		{row: 100, name: "reject-s2g-nan-on-non-float", dtype: "int8", s2g: true, gShape: []int64{2, 128, 64}, gReg: [][2]int64{{0, 1}, {0, 128}, {0, 64}},
			gLay: rm(2, 128, 64), sShape: []int64{128, 64}, sLay: rm(128, 64), cfg: []ir.KV{kv("oob", str("nan"))},
			err: "TMA oob='nan' requires a floating-point dtype"},
	}
	return cs
}

// tmaExtraCases are the other test_tma.py codegen cases (not in §6.5).
func tmaExtraCases() []tmaCase {
	multiphase := func(name, dtype string, s2g bool, mode int, enc ...int64) tmaCase {
		return tmaCase{name: name, dtype: dtype, s2g: s2g, gShape: []int64{3, 8, 256},
			gReg: [][2]int64{{0, 1}, {0, 8}, {0, 256}}, gLay: rm(3, 8, 256), sShape: []int64{8, 256},
			sLay: mma(dtype, mode, 8, 256), enc: enc}
	}
	phase5 := func(name string, s2g bool) tmaCase {
		return tmaCase{name: name, s2g: s2g, gShape: []int64{5, 64, 256}, gReg: [][2]int64{{0, 1}, {0, 64}, {0, 256}},
			gLay: rm(5, 64, 256), sShape: []int64{64, 256}, sLay: mma("float16", 3, 64, 256),
			enc: []int64{4, 64, 64, 4, 5, 512, 128, 32768, 64, 64, 4, 1, 1, 1, 1, 1, 0, 3, 2, 0}}
	}
	phase7 := func(name string, s2g bool) tmaCase {
		return tmaCase{name: name, s2g: s2g, gShape: []int64{7, 32, 512}, gReg: [][2]int64{{0, 1}, {0, 32}, {0, 512}},
			gLay: rm(7, 32, 512), sShape: []int64{32, 512}, sLay: atom32x512,
			enc:    []int64{5, 64, 8, 8, 4, 7, 1024, 128, 8192, 32768, 64, 8, 4, 2, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0},
			issues: 4, coords: func(it int64) []int64 { return []int64{0, 0, it % 2 * 4, it / 2 * 2, 0} },
			smem: func(it int64) int64 { return it * 4096 }}
	}
	fa4kv := func(name string) tmaCase {
		return tmaCase{name: name, gShape: []int64{1, 2048, 8, 128}, gReg: [][2]int64{{0, 1}, {0, 128}, {0, 1}, {0, 128}},
			gLay: rm(1, 2048, 8, 128), sShape: []int64{3, 128, 128}, sReg: [][2]int64{{0, 1}, {0, 128}, {0, 128}},
			sLay: mma("float16", 3, 3, 128, 128),
			enc:  []int64{5, 64, 2048, 2, 8, 1, 2048, 128, 256, 0, 64, 128, 2, 1, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0}}
	}
	s2gOOB := func(name string, fill int64, cfg ...ir.KV) tmaCase {
		return tmaCase{name: name, s2g: true, gShape: []int64{2, 128, 64}, gReg: [][2]int64{{0, 1}, {0, 128}, {0, 64}},
			gLay: rm(2, 128, 64), sShape: []int64{128, 64}, sLay: mma("float16", 3, 128, 64), cfg: cfg,
			enc: []int64{3, 64, 128, 2, 128, 16384, 64, 128, 1, 1, 1, 1, 0, 3, 2, fill}}
	}
	return []tmaCase{
		{name: "g2s-edge-4d-shared-128x64", gShape: []int64{128, 64}, gLay: rmCanon(128, 64),
			sShape: []int64{2, 2, 128, 64}, sReg: [][2]int64{{0, 1}, {0, 1}, {0, 128}, {0, 64}}, sLay: mma("float16", 3, 2, 2, 128, 64),
			enc: []int64{2, 64, 128, 128, 64, 128, 1, 1, 0, 3, 2, 0}},
		{name: "g2s-edge-large-region", gShape: []int64{256, 64}, gReg: [][2]int64{{128, 256}, {0, 64}}, gLay: rmCanon(256, 64),
			sShape: []int64{256, 64}, sReg: [][2]int64{{0, 128}, {0, 64}}, sLay: mma("float16", 3, 256, 64),
			enc: []int64{2, 64, 256, 128, 64, 128, 1, 1, 0, 3, 2, 0}, coords: func(int64) []int64 { return []int64{0, 128} }},
		{name: "g2s-partial-3d-shared-a", gShape: []int64{128, 256}, gReg: [][2]int64{{0, 32}, {0, 64}}, gLay: rmCanon(128, 256),
			sShape: []int64{6, 128, 64}, sReg: [][2]int64{{0, 1}, {0, 32}, {0, 64}}, sLay: mma("float16", 3, 6, 128, 64),
			enc: []int64{2, 256, 128, 512, 64, 32, 1, 1, 0, 3, 2, 0}},
		{name: "g2s-partial-3d-shared-b", gShape: []int64{256, 512}, gReg: [][2]int64{{0, 64}, {0, 64}}, gLay: rmCanon(256, 512),
			sShape: []int64{4, 256, 64}, sReg: [][2]int64{{1, 2}, {0, 64}, {0, 64}}, sLay: mma("float16", 3, 4, 256, 64),
			enc: []int64{2, 512, 256, 1024, 64, 64, 1, 1, 0, 3, 2, 0}, smem: func(int64) int64 { return 16384 }},
		{name: "g2s-3d-partial-contiguous", gShape: []int64{8, 16, 128}, gReg: [][2]int64{{0, 4}, {0, 16}, {0, 128}}, gLay: rm(8, 16, 128),
			sShape: []int64{4, 16, 128}, sLay: rm(4, 16, 128),
			enc: []int64{3, 128, 16, 8, 256, 4096, 128, 16, 4, 1, 1, 1, 0, 0, 2, 0}},
		{name: "g2s-4d-reorder-b", gShape: []int64{4, 64, 4, 128}, gReg: [][2]int64{{0, 1}, {0, 64}, {0, 1}, {0, 128}},
			gLay: rmCanon(4, 64, 4, 128), sShape: []int64{1, 1, 64, 128}, sLay: mma("float16", 3, 1, 1, 64, 128),
			enc: []int64{5, 64, 64, 2, 4, 4, 1024, 128, 256, 65536, 64, 64, 2, 1, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0}},
		{name: "g2s-multidim-4d-a", gShape: []int64{2, 2, 128, 64}, gReg: [][2]int64{{0, 1}, {0, 1}, {0, 128}, {0, 64}},
			gLay: rmCanon(2, 2, 128, 64), sShape: []int64{128, 64}, sLay: mma("float16", 3, 128, 64),
			enc: []int64{4, 64, 128, 2, 2, 128, 16384, 32768, 64, 128, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0}},
		{name: "g2s-multidim-4d-b", gShape: []int64{4, 64, 4, 128}, gReg: [][2]int64{{0, 1}, {0, 64}, {0, 1}, {0, 128}},
			gLay: rmCanon(4, 64, 4, 128), sShape: []int64{64, 128}, sLay: mma("float16", 3, 64, 128),
			enc: []int64{5, 64, 64, 2, 4, 4, 1024, 128, 256, 65536, 64, 64, 2, 1, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0}},
		phase5("g2s-multiphase-5x64x256", false),
		phase7("g2s-multiphase-7x32x512-atom", false),
		{name: "g2s-transpose-64x32", gShape: []int64{64, 32}, gLay: rm(64, 32), sShape: []int64{64, 32}, sLay: spec("S[(64,32):(1,64)]"),
			enc: []int64{2, 32, 64, 64, 1, 1, 1, 1, 0, 0, 2, 0}, issues: 2048,
			coords: func(it int64) []int64 { return []int64{it % 32, it / 32} }, smem: func(it int64) int64 { return it%32*64 + it/32 },
			encoderReject: true},
		{name: "g2s-transpose-partial-region", gShape: []int64{128, 64}, gReg: [][2]int64{{0, 64}, {0, 64}}, gLay: rm(128, 64),
			sShape: []int64{64, 64}, sLay: spec("S[(64,64):(1,64)]"),
			enc: []int64{2, 64, 128, 128, 1, 1, 1, 1, 0, 0, 2, 0}, issues: 4096,
			coords: func(it int64) []int64 { return []int64{it % 64, it / 64} }, smem: func(it int64) int64 { return it%64*64 + it/64 },
			encoderReject: true},
		{name: "g2s-transpose-partial-offset", gShape: []int64{128, 64}, gReg: [][2]int64{{64, 128}, {0, 32}}, gLay: rm(128, 64),
			sShape: []int64{64, 32}, sLay: spec("S[(64,32):(1,64)]"),
			enc: []int64{2, 64, 128, 128, 1, 1, 1, 1, 0, 0, 2, 0}, issues: 2048,
			coords: func(it int64) []int64 { return []int64{it % 32, it/32 + 64} }, smem: func(it int64) int64 { return it%32*64 + it/32 },
			encoderReject: true},
		{name: "g2s-oob-zero", gShape: []int64{128, 64}, gReg: [][2]int64{{120, 136}, {0, 64}}, gLay: rm(128, 64),
			sShape: []int64{16, 64}, sLay: mma("float16", 3, 16, 64), cfg: []ir.KV{kv("oob", str("zero"))},
			enc: []int64{2, 64, 128, 128, 64, 16, 1, 1, 0, 3, 2, 0}, coords: func(int64) []int64 { return []int64{0, 120} }},
		fa4kv("g2s-fa4-k"),
		fa4kv("g2s-fa4-v"),
		phase5("s2g-multiphase-5x64x256", true),
		phase7("s2g-multiphase-7x32x512-atom", true),
		multiphase("s2g-multiphase-3x8x256-swizzle2", "float16", true, 2, 4, 32, 8, 8, 3, 512, 64, 4096, 32, 8, 8, 1, 1, 1, 1, 1, 0, 2, 2, 0),
		multiphase("s2g-multiphase-3x8x256-swizzle0", "float16", true, 0, 3, 256, 8, 3, 512, 4096, 256, 8, 1, 1, 1, 1, 0, 0, 2, 0),
		multiphase("s2g-multiphase-3x8x256-int8", "int8", true, 3, 4, 128, 8, 2, 3, 256, 128, 2048, 128, 8, 2, 1, 1, 1, 1, 1, 0, 3, 2, 0),
		{name: "s2g-keeps-multidim-coords", dtype: "bfloat16", s2g: true, gShape: []int64{1024, 4, 1024},
			gReg: [][2]int64{{128, 256}, {1, 2}, {32, 64}}, gLay: spec("S[(1024,4,1024):(4096,1024,1)]"),
			sShape: []int64{128, 32}, sLay: spec("S[(128,32):(32,1)]"),
			coords: func(int64) []int64 { return []int64{32, 128, 1} }},
		s2gOOB("s2g-oob-none", 0),
		s2gOOB("s2g-oob-zero", 0, kv("oob", str("zero"))),
		s2gOOB("s2g-oob-nan", 1, kv("oob", str("nan"))),
	}
}

func TestTMATable(t *testing.T) {
	cases := tmaRowCases()
	rows := make([]tableRow, len(cases))
	for i, c := range cases {
		rows[i] = tableRow{c.row, c.name}
	}
	checkTable(t, "tma §6.5 rows 81-100", rows, func(i int) []string { return checkTMACase(t, cases[i]) }, nil)

	extra := tmaExtraCases()
	rows = make([]tableRow, len(extra))
	for i, c := range extra {
		rows[i] = tableRow{1000 + i, c.name}
	}
	checkTable(t, "tma other test_tma.py cases", rows, func(i int) []string { return checkTMACase(t, extra[i]) }, nil)

	own := tmaOwnCases()
	rows = make([]tableRow, len(own))
	for i, c := range own {
		rows[i] = tableRow{2000 + i, c.name}
	}
	checkTable(t, "tma tilels cases", rows, func(i int) []string { return checkTMACase(t, own[i]) }, nil)
}

// tmaOwnCases are tilels cases: merge and promotion, symbolic starts,
// multi-iter global groups, the no-smem-group path, and every failure of
// the planner and the emitter.
func tmaOwnCases() []tmaCase {
	gmemCompose := func(t testing.TB) layout.Layout { return mustCompose(t, 3, 3, 3, "S[(8,2,32):(32,256,1)]") }
	return []tmaCase{
		// L3 merge: byte stride 8 is not 16-aligned, the two full dims merge.
		{name: "merge-uint8-4x8", dtype: "uint8", gShape: []int64{4, 8}, sShape: []int64{4, 8},
			enc: []int64{1, 32, 32, 1, 0, 0, 2, 0}},
		// L3 promotion: merging 4x100 uint8 needs box 400 > 256; promoted
		// to uint16 it merges to 200 (spec §4.5.3 step 3).
		{name: "promote-uint8-4x100", dtype: "uint8", gShape: []int64{4, 100}, sShape: []int64{4, 100},
			enc: []int64{1, 200, 200, 1, 0, 0, 2, 0}, promoted: "uint16"},
		// PRE does not check box <= 256 (the runtime encoder does).
		{name: "box-over-256-accepted", dtype: "uint8", gShape: []int64{2, 512}, sShape: []int64{2, 512},
			enc: []int64{2, 512, 2, 512, 512, 2, 1, 1, 0, 0, 2, 0}, encoderReject: true},
		// Innermost box 128 > the 64-element 128B atom for every prefix but
		// j = 0: one element per issue.
		{name: "swizzle-atom-exceeded-falls-to-j0", gShape: []int64{8, 128}, sShape: []int64{8, 128},
			sLay: func(t testing.TB) layout.Layout { return mustCompose(t, 3, 3, 3, "S[8,128]") },
			enc:  []int64{2, 128, 8, 256, 1, 1, 1, 1, 0, 3, 2, 0}, issues: 1024,
			coords: func(it int64) []int64 { return []int64{it % 128, it / 128} },
			smem:   func(it int64) int64 { return it/128*128 + it%128 }, encoderReject: true},
		// Rows 4..7 of A into rows 0..3 of a 128B-swizzled tile: the four
		// 64-column chunks are not contiguous in the half-height slice.
		{name: "half-tile-rows", gShape: []int64{8, 256}, gReg: [][2]int64{{4, 8}, {0, 256}},
			sShape: []int64{8, 256}, sReg: [][2]int64{{0, 4}, {0, 256}}, sLay: mma("float16", 3, 8, 256),
			enc: []int64{2, 256, 8, 512, 64, 4, 1, 1, 0, 3, 2, 0}, issues: 4,
			coords: func(it int64) []int64 { return []int64{64 * it, 4} }, smem: func(it int64) int64 { return 512 * it },
			axes: []string{"extent 4: smem +512, coord dim 0 +64"}},
		// Multi-iter global group: S[(4,16):(32,1)] over a 64-element
		// buffer; [16:48) is 2 outer steps of 16.
		{name: "multi-iter-gmem-split", gShape: []int64{64}, gReg: [][2]int64{{16, 48}}, gLay: spec("S[(4,16):(32,1)]"),
			sShape: []int64{32}, enc: []int64{2, 16, 4, 64, 16, 2, 1, 1, 0, 0, 2, 0},
			coords: func(int64) []int64 { return []int64{0, 1} }},
		{name: "multi-iter-gmem-misaligned", gShape: []int64{64}, gReg: [][2]int64{{8, 40}}, gLay: spec("S[(4,16):(32,1)]"),
			sShape: []int64{32}, err: "TMA multi-iter gmem group requires copy_start % 16 == 0; got copy_start=8"},
		{name: "multi-iter-gmem-ext", gShape: []int64{64}, gReg: [][2]int64{{16, 40}}, gLay: spec("S[(4,16):(32,1)]"),
			sShape: []int64{24}, err: "TMA multi-iter gmem group requires copy_ext % 16 == 0; got copy_ext=24"},
		// Every extent 1: box-1 dims only.
		{name: "single-element", gShape: []int64{4, 4}, gReg: [][2]int64{{1, 2}, {2, 3}}, sShape: []int64{1, 1},
			enc: []int64{2, 4, 4, 8, 1, 1, 1, 1, 0, 0, 2, 0}, coords: func(int64) []int64 { return []int64{2, 1} }, encoderReject: true},
		{name: "single-element-column-major", gShape: []int64{4, 4}, gReg: [][2]int64{{1, 2}, {2, 3}}, gLay: spec("S[(4,4):(1,4)]"),
			sShape: []int64{1, 1}, err: "TMA plan (no smem groups) failed hardware check: TMA innermost dim must have unit stride; got 4"},
		{name: "column-major-global", gShape: []int64{8, 8}, gLay: spec("S[(8,8):(1,8)]"), sShape: []int64{8, 8},
			err: "TMA plan: all chain prefix lengths rejected; last reason: TMA innermost dim must have unit stride; got 8"},
		// Symbolic starts (the hgemm pattern of test_copy_tma_symbolic_dimension
		// and testdata/examples/copy_tma.py).
		{name: "symbolic-stage", build: func(k *kb) {
			tid := k.ctaKernel(128)
			a := k.buf("A", "global", "float16", "", 3, 8, 256)
			s := withLayout(k.buf("A_smem", "shared.dyn", "float16", "", 8, 256), mma("float16", 3, 8, 256)(k.t))
			bar := k.buf("bar", "shared", "uint64", "", 1)
			stage := &ir.Var{Name: "stage", Type: ir.Int32}
			k.ifThen(cmpE(ir.EQ, tid, 0))
			gr := &ir.Region{Buf: a, Min: []ir.Expr{stage, ir.Const(0), ir.Const(0)}, Extent: []ir.Expr{ir.Const(1), ir.Const(8), ir.Const(256)}}
			k.tmaCall(full(s), gr, "tma", kv("mbar", &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}}))
			k.end()
		}, enc: []int64{4, 64, 8, 4, 3, 512, 128, 4096, 64, 8, 4, 1, 1, 1, 1, 1, 0, 3, 2, 0}, vals: []int64{0, 1, 2}},
		{name: "symbolic-pipeline-slot", build: func(k *kb) {
			tid := k.ctaKernel(128)
			a := k.buf("A", "global", "float16", "", 64, 256)
			s := withLayout(k.buf("A_smem", "shared.dyn", "float16", "", 2, 64, 64), mustCompose(k.t, 3, 3, 3, "S[(2,64,64):(4096,64,1)]"))
			bar := k.buf("bar", "shared", "uint64", "", 1)
			ks := &ir.Var{Name: "ks", Type: ir.Int32}
			k.ifThen(cmpE(ir.EQ, tid, 0))
			gr := &ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0), ir.MulE(ks, ir.Const(64))}, Extent: []ir.Expr{ir.Const(64), ir.Const(64)}}
			sr := &ir.Region{Buf: s, Min: []ir.Expr{ks, ir.Const(0), ir.Const(0)}, Extent: []ir.Expr{ir.Const(1), ir.Const(64), ir.Const(64)}}
			k.tmaCall(sr, gr, "tma", kv("mbar", &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}}))
			k.end()
		}, enc: []int64{2, 256, 64, 512, 64, 64, 1, 1, 0, 3, 2, 0}, vals: []int64{0, 1}},
		// A 64-column chunk of a 64x256 MMA tile at a loop-variable start:
		// the column dimension is two layout iters, (4):(4096) and (64):(1),
		// and j*64 selects whole chunks (the reference-agreement corpus
		// found tilels declining it).
		{name: "symbolic-mma-column-chunk", build: func(k *kb) {
			tid := k.ctaKernel(128)
			a := k.buf("A", "global", "float16", "", 64, 256)
			s := withLayout(k.buf("A_smem", "shared.dyn", "float16", "", 64, 256), mma("float16", 3, 64, 256)(k.t))
			bar := k.buf("bar", "shared", "uint64", "", 1)
			j := &ir.Var{Name: "j", Type: ir.Int32}
			k.ifThen(cmpE(ir.EQ, tid, 0))
			lo := ir.MulE(j, ir.Const(64))
			gr := &ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0), lo}, Extent: []ir.Expr{ir.Const(64), ir.Const(64)}}
			sr := &ir.Region{Buf: s, Min: []ir.Expr{ir.Const(0), lo}, Extent: []ir.Expr{ir.Const(64), ir.Const(64)}}
			k.tmaCall(sr, gr, "tma", kv("mbar", &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}}))
			k.end()
		}, enc: []int64{2, 256, 64, 512, 64, 64, 1, 1, 0, 3, 2, 0}, vals: []int64{0, 1, 2, 3}},
		// Emitter failures.
		{name: "global-compose-layout", gShape: []int64{8, 64}, gLay: gmemCompose, sShape: []int64{8, 64},
			err: "ValueError: TMA gmem layout must be a TileLayout; got ComposeLayout"},
		{name: "shared-thread-axis", gShape: []int64{32, 8}, sShape: []int64{32, 8}, sLay: spec("S[(32,8):(1@laneid,1)]"),
			err: "ValueError: TMA shared layout must be pure memory; saw non-memory axis laneid in S[(32,8):(1@laneid,1)]"},
		{name: "mbar-missing", gShape: []int64{8, 64}, sShape: []int64{8, 64}, cfg: []ir.KV{kv("no-mbar", ir.Const(1))},
			err: "ValueError: mbar is not set in config"},
		{name: "cta-mask-on-s2g", s2g: true, gShape: []int64{8, 64}, sShape: []int64{8, 64}, cfg: []ir.KV{kv("cta_mask", ir.Const(3))},
			err: "AssertionError: cta_mask is only supported for global to shared copy"},
		{name: "tma-dtype-tf32", dtype: "float32", gShape: []int64{8, 32}, sShape: []int64{8, 32}, cfg: []ir.KV{kv("tma_dtype", str("tf32"))},
			enc: []int64{2, 32, 8, 128, 32, 8, 1, 1, 0, 0, 2, 0, 11}},
		{name: "tma-dtype-unknown", dtype: "float32", gShape: []int64{8, 32}, sShape: []int64{8, 32}, cfg: []ir.KV{kv("tma_dtype", str("bogus"))},
			err: "Unsupported tma_dtype='bogus'; expected one of ['tf32', 'tfloat32']"},
		{name: "tma-dtype-not-float32", gShape: []int64{8, 32}, sShape: []int64{8, 32}, cfg: []ir.KV{kv("tma_dtype", str("tfloat32"))},
			err: "tma_dtype='tfloat32' requires a float32 descriptor; got float16"},
		{name: "oob-not-a-string", gShape: []int64{8, 32}, sShape: []int64{8, 32}, cfg: []ir.KV{kv("oob", ir.Const(5))},
			err: "Unsupported TMA oob mode: 5. Expected None, 'zero', or 'nan'."},
		{name: "nan-on-fp8", dtype: "float8_e4m3fn", gShape: []int64{8, 32}, sShape: []int64{8, 32}, cfg: []ir.KV{kv("oob", str("nan"))},
			err: "TMA oob='nan' requires a floating-point dtype"},
	}
}

// TestTMASemantics simulates the TMA hardware on every plan of the tables
// (independently of the goldens): each issue copies its box, at the issued
// coordinates, element by element between global memory (descriptor dims
// and byte strides; out-of-bounds elements are filled) and consecutive
// shared bytes from the issued pointer, in box order (dim 0 fastest), with
// the swizzle applied to the shared byte address as the hardware does
// (bits [7, 7+mode) XORed into bits [4, 4+mode)). Every element of the
// copied region must land at the shared address its layout (swizzle
// included) gives it, paired with the right global address (or the fill
// when the region leaves the buffer), and nothing else may be written. It
// also checks the runtime encoder's rules (spec §5.5) and the 128-byte
// shared alignment, and pins the plans that break them (PRE checks
// structure only).
func TestTMASemantics(t *testing.T) {
	var cases []tmaCase
	cases = append(cases, tmaRowCases()...)
	cases = append(cases, tmaExtraCases()...)
	cases = append(cases, tmaOwnCases()...)
	sims := 0
	for _, c := range cases {
		if c.err != "" {
			continue
		}
		out := c.lower(t)
		d := out.Decisions[0]
		r := d.Result
		if c.direct {
			var dec *dispatch.Decline
			if r, dec = copyasync.EmitTMA(dispatch.NewCall(d.Call, dispatch.DefaultTarget(), 128)); dec != nil {
				t.Errorf("%s: %s", c.name, dec.Reason)
				continue
			}
		}
		if r == nil {
			t.Errorf("%s: not lowered", c.name)
			continue
		}
		free := regionVars(d.Call)
		vals := c.vals
		if len(free) == 0 {
			vals = []int64{0}
		}
		for _, v := range vals {
			bind := map[*ir.Var]int64{}
			for _, x := range free {
				bind[x] = v
			}
			viol, err := simulateTMA(d.Call, r, bind)
			if err != nil {
				t.Errorf("%s (vars=%d): %v", c.name, v, err)
				continue
			}
			sims++
			if (len(viol) > 0) != c.encoderReject {
				t.Errorf("%s: encoder/alignment violations %q, want rejected=%v", c.name, viol, c.encoderReject)
			}
		}
	}
	t.Logf("simulated %d TMA copies", sims)
}

// regionVars lists the variables of the call's region starts.
func regionVars(tc *ir.TileCall) []*ir.Var {
	var out []*ir.Var
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Var:
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		case *ir.Binary:
			walk(e.A)
			walk(e.B)
		}
	}
	for _, a := range tc.Args {
		if r, ok := a.(*ir.Region); ok {
			for _, m := range r.Min {
				walk(m)
			}
		}
	}
	return out
}

// hwSwizzle is the TMA swizzle of a shared byte address: the 16-byte
// chunk bits [4, 4+mode) are XORed with the row bits [7, 7+mode).
func hwSwizzle(addr int64, mode int) int64 {
	if mode == 0 {
		return addr
	}
	mask := int64(1)<<mode - 1
	return addr ^ ((addr >> 7 & mask) << 4)
}

// simulateTMA runs the lowered TMA copy and compares the shared bytes it
// writes (or reads, for s2g) with the copy's meaning. It returns the
// runtime-rule violations of the descriptor and issues.
func simulateTMA(tc *ir.TileCall, r *dispatch.Result, bind map[*ir.Var]int64) ([]string, error) {
	dst, src := tc.Args[0].(*ir.Region), tc.Args[1].(*ir.Region)
	g, s := src, dst
	if src.Buf.Scope != "global" {
		g, s = dst, src
	}
	issues, err := runIssues(r.Body, bind)
	if err != nil {
		return nil, err
	}
	m := issues[0].m
	if m != r.TMA.Map {
		return nil, fmt.Errorf("the call uses map %p, the result describes %p", m, r.TMA.Map)
	}
	eb, be := int64(m.DType.Bytes()), int64(s.Buf.Dtype.Bytes())
	stride := append([]int64{eb}, m.GlobalStrides...)
	const fill = -1
	got := map[int64]int64{} // shared byte → global byte (or fill)
	for _, is := range issues {
		base := (s.Buf.ElemOffset + is.smem) * be
		n := int64(1)
		for _, b := range m.Box {
			n *= b
		}
		for lin := range n {
			rem, oob := lin, false
			gaddr := g.Buf.ElemOffset * be
			for i := range m.Rank {
				c := is.coords[i] + rem%m.Box[i]
				rem /= m.Box[i]
				if c < 0 || c >= m.GlobalDims[i] {
					oob = true
				}
				gaddr += c * stride[i]
			}
			phys := hwSwizzle(base+lin*eb, m.Swizzle)
			for j := int64(0); j < eb; j += be {
				v := gaddr + j
				if oob {
					v = fill
				}
				if old, dup := got[phys+j]; dup && old != v {
					return nil, fmt.Errorf("shared byte %d written twice (%d, %d)", phys+j, old, v)
				}
				got[phys+j] = v
			}
		}
	}

	// The meaning: dst[c] = src[c] over the region, non-unit dims paired.
	in := &interp{vars: bind}
	start := func(r *ir.Region) []int64 {
		out := make([]int64, len(r.Min))
		for i, x := range r.Min {
			out[i] = in.eval(x)
		}
		return out
	}
	// Elements pair in row-major order of the non-unit dims (the same
	// dims on both sides for a valid copy; fa4-q pairs 32x4x128 with
	// 128x128, as test_tma.py does).
	gIdx, sIdx := cudacopy.NonUnitDims(g), cudacopy.NonUnitDims(s)
	exts := func(r *ir.Region, idx []int) []int64 {
		var out []int64
		for _, i := range idx {
			e, _ := ir.ConstInt(r.Extent[i])
			out = append(out, e)
		}
		return out
	}
	gExts, sExts := exts(g, gIdx), exts(s, sIdx)
	total := int64(1)
	for _, e := range gExts {
		total *= e
	}
	want := map[int64]int64{}
	for flat := range total {
		gc, sc := start(g), start(s)
		for k, dg := range layout.SplitCoord(flat, gExts) {
			gc[gIdx[k]] += dg
		}
		for k, dg := range layout.SplitCoord(flat, sExts) {
			sc[sIdx[k]] += dg
		}
		var gaddr int64 = fill
		inside := true
		for d, c := range gc {
			if c < 0 || c >= g.Buf.Shape[d] {
				inside = false
			}
		}
		if inside {
			ge, err := physical(g.Buf, gc, 1)
			if err != nil {
				return nil, err
			}
			gaddr = (g.Buf.ElemOffset + ge[0].off) * be
		}
		se, err := physical(s.Buf, sc, 1)
		if err != nil {
			return nil, err
		}
		want[(s.Buf.ElemOffset+se[0].off)*be] = gaddr
	}
	var missing, wrong, extra []string
	for k, v := range want {
		switch gv, ok := got[k]; {
		case !ok:
			missing = append(missing, fmt.Sprint(k))
		case gv != v:
			wrong = append(wrong, fmt.Sprintf("%d: global %d, want %d", k, gv, v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && k%be == 0 {
			extra = append(extra, fmt.Sprint(k))
		}
	}
	if len(missing)+len(wrong)+len(extra) > 0 {
		sort.Strings(missing)
		sort.Strings(wrong)
		sort.Strings(extra)
		return nil, fmt.Errorf("%d shared elements missing (e.g. %s), %d wrong (e.g. %s), %d extra (e.g. %s)",
			len(missing), head(missing), len(wrong), head(wrong), len(extra), head(extra))
	}
	return tmaRuntimeViolations(m, issues, be), nil
}

// tmaRuntimeViolations checks the rules of cuTensorMapEncodeTiled and the
// bulk-tensor instruction that PRE's planner does not (spec §5.5).
func tmaRuntimeViolations(m *ir.TensorMap, issues []tmaIssue, be int64) []string {
	var v []string
	eb := int64(m.DType.Bytes())
	if m.Rank < 1 || m.Rank > 5 {
		v = append(v, fmt.Sprintf("rank %d", m.Rank))
	}
	for _, d := range m.GlobalDims {
		if d <= 0 || d > 1<<32 {
			v = append(v, fmt.Sprintf("global dim %d", d))
		}
	}
	for _, s := range m.GlobalStrides {
		if s < 0 || s%16 != 0 || s >= 1<<40 {
			v = append(v, fmt.Sprintf("global stride %d", s))
		}
	}
	for _, b := range m.Box {
		if b < 1 || b > 256 {
			v = append(v, fmt.Sprintf("box %d", b))
		}
	}
	if inner := m.Box[0] * eb; inner%16 != 0 {
		v = append(v, fmt.Sprintf("inner box %d bytes", inner))
	} else if m.Swizzle > 0 && inner > 16<<m.Swizzle {
		v = append(v, fmt.Sprintf("inner box %d bytes > swizzle span", inner))
	}
	for _, is := range issues {
		if is.smem*be%128 != 0 {
			v = append(v, fmt.Sprintf("shared address %d bytes not 128-aligned", is.smem*be))
			break
		}
	}
	return v
}

// TestTMAPredicates checks the two predicates' rows: both are evaluated,
// with TVM's names and messages.
func TestTMAPredicates(t *testing.T) {
	const scopeMsg = `unsupported exec_scope T.ExecScope("warp"), expected single thread`
	cases := []struct {
		name      string
		scope     string
		dtype     string // of the shared buffer
		reason    string
		messages  []string
		forceName string
	}{
		{"warp scope", "warp", "float16", scopeMsg, []string{"rejected: single_thread — " + scopeMsg}, "tma"},
		{"dtype mismatch", "thread", "float32", "not a valid copy op", []string{"rejected: validate_copy_op — not a valid copy op"}, "tma"},
		{"both", "warp", "float32", "not a valid copy op; " + scopeMsg,
			[]string{"rejected: validate_copy_op — not a valid copy op", "rejected: single_thread — " + scopeMsg}, "tma"},
		// 0.26 and later: tma_auto and tma_explicit, with
		// validate_tma_copy_op in place of validate_copy_op.
		{"tma_auto", "warp", "float16", scopeMsg, []string{"rejected: single_thread — " + scopeMsg}, "tma_auto"},
		{"tma_explicit", "warp", "float32", scopeMsg, []string{"rejected: single_thread — " + scopeMsg}, "tma_explicit"},
		{"tma_auto local", "thread", "local", "not a global<->shared TMA copy",
			[]string{"rejected: validate_tma_copy_op — not a global<->shared TMA copy"}, "tma_auto"},
	}
	for _, c := range cases {
		k := newKernel(t)
		k.ctaKernel(32)
		a := k.buf("A", "global", "float16", "", 8, 64)
		scope, dtype := "shared", c.dtype
		if dtype == "local" {
			scope, dtype = "local", "float16"
		}
		s := k.buf("A_smem", scope, dtype, "", 8, 64)
		tc := k.tmaCall(full(s), full(a), c.forceName)
		tc.Scope = c.scope
		target := dispatch.DefaultTarget()
		if c.forceName != "tma" {
			target.Release = release.R027
		}
		out := dispatch.Lower(k.fn, target, Variants())
		d := out.Decisions[0]
		var row *dispatch.Rejection
		for i := range d.Declined {
			if d.Declined[i].Variant == c.forceName {
				row = &d.Declined[i]
			}
		}
		if d.Variant != "" || row == nil || row.Outcome != dispatch.Rejected || row.Reason != c.reason || !slices.Equal(row.Messages, c.messages) {
			t.Errorf("%s: variant %q, tma row %+v", c.name, d.Variant, row)
		}
	}
	// Without dispatch=, ldgsts (priority 20) comes first; tma is tried
	// after it and lowers the call when ldgsts does not apply.
	vs := dispatch.NewRegistry(Variants()).Variants("copy_async", "cuda")
	var names []string
	for _, v := range vs {
		names = append(names, fmt.Sprintf("%s/%d", v.Name, v.Priority))
	}
	if i := slices.Index(names, "tma/10"); i < 0 || !slices.Contains(names[:i], "ldgsts/20") {
		t.Errorf("copy_async order %v: want ldgsts/20 before tma/10", names)
	}
	// 0.27: no tma; tma_auto and tma_explicit after ldgsts.
	names = nil
	for _, v := range dispatch.NewRegistry(Variants()).VariantsIn("copy_async", dispatch.Target{Kind: "cuda", Release: release.R027}) {
		names = append(names, fmt.Sprintf("%s/%d", v.Name, v.Priority))
	}
	if slices.Contains(names, "tma/10") || slices.Index(names, "tma_auto/10") < slices.Index(names, "ldgsts/20") {
		t.Errorf("0.27 copy_async order %v: want ldgsts/20 before tma_auto/10, no tma", names)
	}
}

// tmaTwoCalls lowers a kernel with two copies of A (8x256 fp16) into a
// 128B-swizzled tile, regions r1 and r2 of A.
func tmaTwoCalls(t *testing.T, target dispatch.Target, r1, r2 [][2]int64, cfg ...ir.KV) *dispatch.Output {
	k := newKernel(t)
	tid := k.ctaKernel(128)
	a := k.buf("A", "global", "float16", "", 8, 256)
	s := withLayout(k.buf("A_smem", "shared.dyn", "float16", "", 8, 256), mma("float16", 3, 8, 256)(t))
	bar := k.buf("bar", "shared", "uint64", "", 1)
	k.ifThen(cmpE(ir.EQ, tid, 0))
	for _, r := range [][][2]int64{r1, r2} {
		sr := sub(s, [2]int64{0, r[0][1] - r[0][0]}, [2]int64{0, 256})
		k.tmaCall(sr, sub(a, r...), "tma", append(slices.Clone(cfg), kv("mbar", &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}}))...)
	}
	k.end()
	out := dispatch.Lower(k.fn, target, Variants())
	for i, d := range out.Decisions {
		if d.Variant != "tma" {
			t.Fatalf("call %d: %q\n%s", i, d.Variant, d.Explanation.TableCompact())
		}
	}
	return out
}

// TestTMATensorMapDedup: identical descriptors are created once per Lower
// run (TVM's cache key); a different box is a second descriptor.
func TestTMATensorMapDedup(t *testing.T) {
	whole := [][2]int64{{0, 8}, {0, 256}}
	out := tmaTwoCalls(t, dispatch.DefaultTarget(), whole, whole)
	d0, d1 := out.Decisions[0].Result, out.Decisions[1].Result
	if len(d0.TensorMaps) != 1 || len(d1.TensorMaps) != 0 || d0.TMA.Map != d1.TMA.Map || len(out.Func.TensorMaps) != 1 {
		t.Errorf("identical calls: maps %d and %d, same=%v, func has %d", len(d0.TensorMaps), len(d1.TensorMaps), d0.TMA.Map == d1.TMA.Map, len(out.Func.TensorMaps))
	}
	const key = "tensormap:A_ptr#0:float16:3:('4', '8', '64'):('128', '512'):('4', '8', '64'):3:0:-1"
	if d0.TMA.Map.Key != key {
		t.Errorf("key %q, want %q", d0.TMA.Map.Key, key)
	}
	is, err := runIssues(d1.Body, nil)
	if err != nil || is[0].m != d0.TMA.Map {
		t.Errorf("second call does not use the first map: %v", err)
	}

	out = tmaTwoCalls(t, dispatch.DefaultTarget(), whole, [][2]int64{{4, 8}, {0, 256}})
	d0, d1 = out.Decisions[0].Result, out.Decisions[1].Result
	if len(d1.TensorMaps) != 1 || d0.TMA.Map == d1.TMA.Map || len(out.Func.TensorMaps) != 2 {
		t.Fatalf("different boxes: func has %d maps", len(out.Func.TensorMaps))
	}
	// Rows 4..7 into rows 0..3 of the tile: the 4 column chunks of the
	// half-height tile are 4 issues of a rank-2 box.
	if got := d1.TMA.Map.Box; !slices.Equal(got, []int64{64, 4}) || d1.TMA.Issues != 4 {
		t.Errorf("second box %v, %d issues", got, d1.TMA.Issues)
	}
	if is, _ := runIssues(d1.Body, nil); !slices.Equal(is[1].coords, []int64{64, 4}) || is[1].smem != 512 {
		t.Errorf("second call, issue 1: coords %v smem %d", is[1].coords, is[1].smem)
	}

	// A new Lower run starts with an empty cache.
	out = tmaTwoCalls(t, dispatch.DefaultTarget(), whole, whole)
	if len(out.Decisions[0].Result.TensorMaps) != 1 {
		t.Errorf("a second Lower run reuses the first run's descriptor")
	}
}

// TestTMAPrefetch: prefetch_tensormap=True puts `if warpid == 0:
// prefetch.tensormap` at the kernel start once per descriptor; without
// threadIdx.x the call declines.
func TestTMAPrefetch(t *testing.T) {
	whole := [][2]int64{{0, 8}, {0, 256}}
	out := tmaTwoCalls(t, dispatch.DefaultTarget(), whole, whole, kv("prefetch_tensormap", &ir.IntImm{Value: 1, Type: ir.BoolT}))
	m := out.Decisions[0].Result.TMA.Map
	if len(out.Decisions[0].Result.Init) != 1 || len(out.Decisions[1].Result.Init) != 0 {
		t.Fatalf("init statements %d and %d, want 1 and 0", len(out.Decisions[0].Result.Init), len(out.Decisions[1].Result.Init))
	}
	var found []*ir.If
	for _, s := range out.Func.Body.Stmts {
		if f, ok := s.(*ir.If); ok && len(f.Then.Stmts) == 1 {
			if ev, ok := f.Then.Stmts[0].(*ir.Evaluate); ok {
				if c, ok := ev.X.(*ir.Call); ok && c.Op == ir.OpPrefetchTensormap {
					found = append(found, f)
				}
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d prefetch statements at the kernel start, want 1:\n%s", len(found), blockText(out.Func.Body))
	}
	cond, ok := found[0].Cond.(*ir.Binary)
	ti, isTI := cond.A.(*ir.ThreadIndex)
	call := found[0].Then.Stmts[0].(*ir.Evaluate).X.(*ir.Call)
	addr, isAddr := call.Args[0].(*ir.TensorMapAddr)
	if !ok || cond.Op != ir.EQ || !isTI || ti.Axis != "warpid" || !copyasync.TmaIsZero(cond.B) || !isAddr || addr.Map != m {
		t.Errorf("prefetch statement: if %s: %s", dispatch.ExprText(found[0].Cond), dispatch.ExprText(call))
	}

	// False: nothing.
	out = tmaTwoCalls(t, dispatch.DefaultTarget(), whole, whole, kv("prefetch_tensormap", &ir.IntImm{Value: 0, Type: ir.BoolT}))
	if len(out.Decisions[0].Result.Init) != 0 {
		t.Errorf("prefetch_tensormap=False added init statements")
	}

	// No threadIdx.x launch parameter.
	k := newKernel(t)
	a := k.buf("A", "global", "float16", "", 8, 256)
	s := withLayout(k.buf("A_smem", "shared.dyn", "float16", "", 8, 256), mma("float16", 3, 8, 256)(t))
	tc := k.tmaCall(full(s), full(a), "tma", kv("mbar", ir.Const(0)), kv("prefetch_tensormap", ir.Const(1)))
	c := dispatch.NewCall(tc, dispatch.DefaultTarget(), 128)
	c.LaunchTags = map[string]bool{"blockIdx.x": true}
	if res, d := copyasync.EmitTMA(c); res != nil || d == nil || d.Reason != "tma prefetch_tensormap requires warp_id_in_cta launch param" {
		t.Errorf("no threadIdx.x: %v %v", res, d)
	}
	if _, ok := c.CacheGet(m.Key); ok {
		t.Errorf("a declined call registered its descriptor")
	}
}

// TestTMAConfigArgs checks the call arguments: the ir/ops.go conventions,
// cta_group's default per target, cta_mask (multicast), cache_hint, mbar,
// and use_tma_reduce.
func TestTMAConfigArgs(t *testing.T) {
	mbar := func(k *kb) ir.Expr {
		return &ir.AddressOf{Buf: k.buf("bar", "shared", "uint64", "", 1), Indices: []ir.Expr{ir.Const(0)}}
	}
	type argCase struct {
		name   string
		target dispatch.Target
		s2g    bool
		cfg    func(k *kb) []ir.KV
		op     string
		check  func(args []ir.Expr) string
	}
	g2c := ir.OpCpAsyncBulkTensorG2C
	intArg := func(i int, want int64) func([]ir.Expr) string {
		return func(args []ir.Expr) string {
			if v, ok := ir.ConstInt(args[i]); !ok || v != want {
				return fmt.Sprintf("argument %d is %s, want %d", i, dispatch.ExprText(args[i]), want)
			}
			return ""
		}
	}
	strArg := func(i int, want string) func([]ir.Expr) string {
		return func(args []ir.Expr) string {
			if s, ok := args[i].(*ir.StringImm); !ok || s.Value != want {
				return fmt.Sprintf("argument %d is %s, want %q", i, dispatch.ExprText(args[i]), want)
			}
			return ""
		}
	}
	all := func(fs ...func([]ir.Expr) string) func([]ir.Expr) string {
		return func(args []ir.Expr) string {
			for _, f := range fs {
				if e := f(args); e != "" {
					return e
				}
			}
			return ""
		}
	}
	sm100 := dispatch.Target{Kind: "cuda", Arch: "sm_100a"}
	cases := []argCase{
		{"g2c defaults sm_90a", dispatch.DefaultTarget(), false, func(k *kb) []ir.KV { return []ir.KV{kv("mbar", mbar(k))} }, g2c,
			all(intArg(0, 3), intArg(4, 0), intArg(5, -1), strArg(6, ""))},
		{"cta_group default sm_100a", sm100, false, func(k *kb) []ir.KV { return []ir.KV{kv("mbar", mbar(k))} }, g2c, intArg(5, 1)},
		{"cta_group=2", dispatch.DefaultTarget(), false, func(k *kb) []ir.KV {
			return []ir.KV{kv("mbar", mbar(k)), kv("cta_group", ir.Const(2))}
		}, g2c, intArg(5, 2)},
		{"cta_mask multicast", sm100, false, func(k *kb) []ir.KV {
			return []ir.KV{kv("mbar", mbar(k)), kv("cta_mask", ir.Const(3))}
		}, g2c, all(intArg(4, 3), intArg(5, 1))},
		{"cache_hint", dispatch.DefaultTarget(), false, func(k *kb) []ir.KV {
			return []ir.KV{kv("mbar", mbar(k)), kv("cache_hint", str("evict_last"))}
		}, g2c, strArg(6, "evict_last")},
		{"mbar passes through", dispatch.DefaultTarget(), false, func(k *kb) []ir.KV { return []ir.KV{kv("mbar", mbar(k))} }, g2c,
			func(args []ir.Expr) string {
				if a, ok := args[2].(*ir.AddressOf); !ok || a.Buf.Name != "bar" {
					return "mbar argument " + dispatch.ExprText(args[2])
				}
				return ""
			}},
		{"s2g", dispatch.DefaultTarget(), true, func(*kb) []ir.KV { return nil }, ir.OpCpAsyncBulkTensorS2G,
			all(intArg(0, 3), strArg(3, ""))},
		{"s2g cache_hint", dispatch.DefaultTarget(), true, func(*kb) []ir.KV { return []ir.KV{kv("cache_hint", str("evict_first"))} },
			ir.OpCpAsyncBulkTensorS2G, strArg(3, "evict_first")},
		{"s2g reduce", dispatch.DefaultTarget(), true, func(*kb) []ir.KV { return []ir.KV{kv("use_tma_reduce", str("add"))} },
			ir.OpCpAsyncBulkTensorS2GReduce, all(intArg(0, 3), strArg(3, ""), strArg(4, "add"))},
	}
	for _, c := range cases {
		k := newKernel(t)
		k.ctaKernel(128)
		a := k.buf("A", "global", "float16", "", 8, 256)
		s := withLayout(k.buf("A_smem", "shared.dyn", "float16", "", 8, 256), mma("float16", 3, 8, 256)(t))
		cfg := c.cfg(k)
		if c.s2g {
			k.tmaCall(full(a), full(s), "tma", cfg...)
		} else {
			k.tmaCall(full(s), full(a), "tma", cfg...)
		}
		out := dispatch.Lower(k.fn, c.target, Variants())
		d := out.Decisions[0]
		if d.Result == nil {
			t.Errorf("%s: not lowered\n%s", c.name, d.Explanation.TableCompact())
			continue
		}
		is, err := runIssues(d.Result.Body, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if is[0].op != c.op {
			t.Errorf("%s: op %s, want %s", c.name, is[0].op, c.op)
		}
		if e := c.check(is[0].args); e != "" {
			t.Errorf("%s: %s", c.name, e)
		}
	}
}

// TestTMAWorkedPlans checks the plans of spec §4.5.5/§4.5.6 through the
// Result a hover shows, and the simplified issue-loop expressions.
func TestTMAWorkedPlans(t *testing.T) {
	byName := map[string]tmaCase{}
	for _, c := range append(tmaRowCases(), tmaOwnCases()...) {
		byName[c.name] = c
	}
	cases := []struct {
		name      string
		partition string
		notes     []string
		coords    string // the coordinate arguments, CUDA order
		ptr       string
	}{
		{"g2s-2d-8x256", "tma g2s 3d box [64, 8, 4], 1 issue(s)",
			[]string{"tma descriptor: rank 3, float16, dims [64, 8, 4], strides [512, 128] B, box [64, 8, 4], swizzle 128B",
				"tma issue axes: none (one instruction)"}, "0, 0, 0", "&A_smem[0]"},
		{"g2s-transpose-32x64", "tma g2s 2d box [1, 1], 2048 issue(s)",
			[]string{"tma descriptor: rank 2, float16, dims [64, 32], strides [128] B, box [1, 1], swizzle none",
				"tma issue axes (outer to inner, CUDA dims): extent 32: smem +1, coord dim 1 +1; extent 64: smem +32, coord dim 0 +1"},
			"(loop_vars % 64), (loop_vars // 64)", "&A_smem[((loop_vars // 64) + ((loop_vars % 64) * 32))]"},
		{"g2s-2d-32x512-atom", "tma g2s 5d box [64, 8, 4, 2, 2], 2 issue(s)",
			[]string{"tma descriptor: rank 5, float16, dims [64, 8, 4, 4, 2], strides [1024, 128, 8192, 512] B, box [64, 8, 4, 2, 2], swizzle 128B",
				"tma issue axes (outer to inner, CUDA dims): extent 2: smem +8192, coord dim 3 +2"},
			"0, 0, 0, (loop_vars * 2), 0", "&A_smem[(loop_vars * 8192)]"},
		{"g2s-3d-stride-gap-outer", "tma g2s 3d box [64, 32, 1], 8 issue(s)", nil, "0, 0, loop_vars", "&A_smem[(loop_vars * 4096)]"},
		{"promote-uint8-4x100", "tma g2s 1d box [200], 1 issue(s)",
			[]string{"tma descriptor: rank 1, uint16, dims [200], strides [] B, box [200], swizzle none",
				"tma element promoted from uint8 to uint16 to merge contiguous dims"}, "0", "&A_smem[0]"},
		{"symbolic-stage", "tma g2s 4d box [64, 8, 4, 1], 1 issue(s)", nil, "0, 0, 0, stage", "&A_smem[0]"},
		{"symbolic-pipeline-slot", "tma g2s 2d box [64, 64], 1 issue(s)", nil, "(ks * 64), 0", "&A_smem[(ks * 4096)]"},
	}
	for _, c := range cases {
		tc, ok := byName[c.name]
		if !ok {
			t.Fatalf("no case %s", c.name)
		}
		d := tc.lower(t).Decisions[0]
		r := d.Result
		if r == nil {
			t.Errorf("%s: not lowered", c.name)
			continue
		}
		if r.Partition != c.partition {
			t.Errorf("%s: partition %q, want %q", c.name, r.Partition, c.partition)
		}
		for _, n := range c.notes {
			if !slices.Contains(r.Notes, n) {
				t.Errorf("%s: notes %q lack %q", c.name, r.Notes, n)
			}
		}
		call := r.Body.Stmts[0].(*ir.For).Body.Stmts[0].(*ir.Evaluate).X.(*ir.Call)
		var cs []string
		for _, a := range call.Args[7:] {
			cs = append(cs, dispatch.ExprText(a))
		}
		if got := strings.Join(cs, ", "); got != c.coords {
			t.Errorf("%s: coordinates %s, want %s", c.name, got, c.coords)
		}
		if got := dispatch.ExprText(call.Args[1]); got != c.ptr {
			t.Errorf("%s: pointer %s, want %s", c.name, got, c.ptr)
		}
	}
}
