package copyasync

// copy_async/tmem<->local: Blackwell tensor memory <-> registers with
// tcgen05.ld / tcgen05.st at warpgroup scope, priority 10.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy_async/
// tcgen05_ldst.py (apache-tvm 0.25.0.post1); 0.26.0's TMEM window
// resolution is tcgen05_ldst_026.go.
//
// Predicates (TVM's names and messages): validate_copy_op
// ("validate_copy_op failed"), exec_scope (warpgroup only: "unsupported
// exec_scope {k}") and storage_scope ("unsupported memory scopes src={s}
// dst={d}; allowed: tmem->local, local->tmem").
//
// Lowering (copy_tmem_local_impl): the register buffer's layout is matched
// against tcgen05_atom_layout(shape, (rows, cols), dtype) for the .16x64b,
// .16x128b and .16x256b atoms (rows 64 or 128); a match issues
// tcgen05.{ld,st}.<shape>.x<num> once per 16-row slab (row 0, and row 16
// for 128 rows), else the .32x32b path issues one
// tcgen05.{ld,st}.32x32b.x<width/elem_per_32b> over 128 lanes. The TMEM
// buffer's datapath (layout D (128, W) or F (64, W) scattered) must suit
// the atom. No wait is issued (TVM leaves tcgen05.wait::ld / wait::st to
// the caller), and 16-bit data is not .pack::16b'ed: two elements share a
// 32-bit TMEM cell. TVM's assertions are raised as AssertionError, its
// ValueErrors with their texts.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var TmemLocal = dispatch.Variant{
	Op: "copy_async", Name: "tmem<->local", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{
		{Name: "validate_copy_op", Check: common.IsValidCopy},
		{Name: "exec_scope", Check: common.ExecScopeIn("", "warpgroup")},
		{Name: "storage_scope", Check: common.ScopeAllowed(tmemLocalPairs)},
	},
	Emit: emitTmemLocal,
}

var tmemLocalPairs = []common.ScopePair{{Src: "tmem", Dst: "local"}, {Src: "local", Dst: "tmem"}}

// tcgen05ColFactor is TVM _TCGEN05_COL_FACTOR_FP32: the 32-bit TMEM
// columns of one .16x*b atom per repetition, in probing order.
var tcgen05ColFactor = []struct {
	shape  string
	factor int64
}{{"16x64b", 2}, {"16x128b", 4}, {"16x256b", 8}}

// tcgen05Reps are the .x<num> counts tcgen05_atom_layout accepts.
var tcgen05Reps = map[string]int64{"32x32b": 128, "16x64b": 128, "16x128b": 64, "16x256b": 32}

func assertTVM(ok bool) {
	if !ok {
		dispatch.Raise("AssertionError", "")
	}
}

// ldstPlan is what one tmem<->local call issues.
type ldstPlan struct {
	load       bool
	shape      string
	num        int64 // .x<num>
	regs       int64 // 32-bit registers per thread per instruction
	slabs      int64 // instructions (16-row slabs; 1 for .32x32b)
	datapath   string
	col        ir.Expr // TMEM column of the first instruction, 32-bit units
	regBase    ir.Expr // first register (32-bit units) of the local storage
	regStride  int64   // registers between two slabs
	rowBase    int64   // TMEM row of the first slab (16: a Layout F upper half, 0.26)
	elemBits   int
	bytesMoved int64
}

func emitTmemLocal(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	dst, src := c.Dst(), c.Src()
	var tmemR, localR *ir.Region
	load := false
	switch {
	case src.Buf.Scope == "tmem" && dst.Buf.Scope == "local":
		load, tmemR, localR = true, src, dst
	case src.Buf.Scope == "local" && dst.Buf.Scope == "tmem":
		tmemR, localR = dst, src
	default:
		dispatch.Raise("ValueError", "Unsupported src scope %s and dst scope %s", src.Buf.Scope, dst.Buf.Scope)
	}
	_, tmemR = foldStagedTmem(c, tmemR.Buf, tmemR) // tcgen05_ldst_window.go (0.26+)
	tb, lb := tmemR.Buf, localR.Buf
	assertTVM(tb.Layout != nil && lb.Layout != nil && tb.Dtype == lb.Dtype && tb.AllocatedAddr != nil)
	bits := lb.Dtype.Bits
	if bits > 32 || bits == 0 {
		dispatch.Raise("ZeroDivisionError", "integer division or modulo by zero")
	}
	epb := int64(32 / bits)
	if c.Target.Release >= release.R026 {
		// 0.26: tcgen05_ldst_026.go.
		assertTVM(len(lb.Shape) == 2)
		if classifyDatapathB026(tb) {
			p := planDatapathB026(c, tmemR, localR, lb, epb) // tcgen05_ldst_b.go
			p.load, p.elemBits = load, bits
			return buildLdSt(c, p, tb, lb), nil
		}
		argIdx := 0
		if load {
			argIdx = 1
		}
		lmin, lext := regionStartsExtents(c, localR)
		var p *ldstPlan
		if shape, num, rows, ok := matchAtomLayout(lb); ok {
			p = plan16xNb026(c, argIdx, tmemR, lb, shape, num, rows, epb, lmin, lext)
		} else {
			p = plan32x32b026(c, argIdx, tmemR, lb, epb, lmin, lext)
		}
		p.load, p.elemBits = load, bits
		return buildLdSt(c, p, tb, lb), nil
	}
	assertTVM(len(lb.Shape) == 2 && len(tb.Shape) == 2)
	tmin, text := regionStartsExtents(c, tmemR)
	lmin, lext := regionStartsExtents(c, localR)

	var p *ldstPlan
	if shape, num, rows, ok := matchAtomLayout(lb); ok {
		p = plan16xNb(tb, lb, shape, num, rows, epb, tmin, text, lmin, lext)
	} else {
		p = plan32x32b(tb, lb, epb, tmin, text, lmin, lext)
	}
	p.load, p.elemBits = load, bits
	return buildLdSt(c, p, tb, lb), nil
}

// regionStartsExtents returns the region's starts and constant extents
// (TVM get_st_extent; a symbolic extent fails TVM's integer checks).
func regionStartsExtents(c *dispatch.Call, r *ir.Region) ([]ir.Expr, []int64) {
	mins := make([]ir.Expr, len(r.Extent))
	exts := make([]int64, len(r.Extent))
	for d := range r.Extent {
		mins[d] = common.Zero
		if d < len(r.Min) && r.Min[d] != nil {
			mins[d] = r.Min[d]
		}
		e, ok := ir.ConstInt(r.Extent[d])
		if !ok {
			dispatch.Raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'PrimExpr'")
		}
		exts[d] = e
	}
	return mins, exts
}

func isZero(e ir.Expr) bool { v, ok := ir.ConstInt(e); return ok && v == 0 }

// plan32x32b is TVM _emit_32x32b_path.
func plan32x32b(tb, lb *ir.Buffer, epb int64, tmin []ir.Expr, text []int64, lmin []ir.Expr, lext []int64) *ldstPlan {
	dp := checkTmemForAtom(tb, "32x32b", 128)
	assertTVM(lb.Shape[0] == 128 && tb.Shape[0] == 128)
	width := lext[1]
	if width%epb != 0 {
		dispatch.Raise("ValueError", "Width %d is not valid for tcgen05.ld/st with shape 32x32b", width)
	}
	num := width / epb
	if num < 1 || num > 128 || num&(num-1) != 0 {
		dispatch.Raise("ValueError", "Width %d is not valid for tcgen05.ld/st with shape 32x32b", width)
	}
	if !layout.Equal(layout.CanonicalTile(layout.ToTile(tb.Layout)), tmemDLayout(tb.Shape[1])) {
		dispatch.Raise("ValueError", "StructuralEqual check failed: tmem layout %s is not %s", tb.Layout, tmemDLayout(tb.Shape[1]))
	}
	assertTVM(isZero(tmin[0]) && text[0] == 128 && isZero(lmin[0]) && lext[0] == 128)
	assertTVM(common.Divisible(tmin[1], epb))
	assertTVM(text[1] == width)
	return &ldstPlan{shape: "32x32b", num: num, regs: num, slabs: 1, datapath: dp,
		col: ir.DivE(tmin[1], common.Cst(epb)), regBase: ir.DivE(lmin[1], common.Cst(epb)),
		bytesMoved: 128 * width * int64(lb.Dtype.Bits) / 8}
}

// plan16xNb is TVM _emit_16xnb_path.
func plan16xNb(tb, lb *ir.Buffer, shape string, num, rows, epb int64, tmin []ir.Expr, text []int64, lmin []ir.Expr, lext []int64) *ldstPlan {
	factor := map[string]int64{"16x64b": 2, "16x128b": 4, "16x256b": 8}[shape]
	perSlab := map[string]int64{"16x64b": num, "16x128b": 2 * num, "16x256b": 4 * num}[shape]
	slabs := rows / 64
	widthElems := factor * num * epb
	assertTVM(lb.Shape[0] == rows)
	assertTVM(lb.Shape[1] == widthElems)
	dp := checkTmemForAtom(tb, "16x*b", rows)
	if dp == "F" {
		assertTVM(tb.Shape[0] == 64)
	} else {
		assertTVM(tb.Shape[0] == 128)
		if dp == "" && !layout.Equal(layout.CanonicalTile(layout.ToTile(tb.Layout)), tmemDLayout(tb.Shape[1])) {
			dispatch.Raise("ValueError", "StructuralEqual check failed: tmem layout %s is not %s", tb.Layout, tmemDLayout(tb.Shape[1]))
		}
	}
	assertTVM(isZero(lmin[0]) && lext[0] == rows && isZero(tmin[0]) && text[0] == rows)
	assertTVM(lext[1] == text[1])
	sliceW := lext[1]
	assertTVM(widthElems%sliceW == 0)
	numEff := num * sliceW / widthElems
	regsEff := perSlab * sliceW / widthElems
	assertTVM(common.Divisible(tmin[1], epb))
	assertTVM(common.Divisible(lmin[1], epb))
	// local_reg_base = local_col_off * regs_per_thread_per_slab // width_elems
	regBase := ir.DivE(ir.MulE(lmin[1], common.Cst(perSlab)), common.Cst(widthElems))
	return &ldstPlan{shape: shape, num: numEff, regs: regsEff, slabs: slabs, datapath: dp,
		col: ir.DivE(tmin[1], common.Cst(epb)), regBase: regBase, regStride: perSlab,
		bytesMoved: rows * sliceW * int64(lb.Dtype.Bits) / 8}
}

// buildLdSt emits the instructions of p: slab s reads registers
// regBase + s*regStride + [0, regs) of the thread's register storage
// viewed as uint32, at TMEM row 16*s.
func buildLdSt(c *dispatch.Call, p *ldstPlan, tb, lb *ir.Buffer) *dispatch.Result {
	span := c.Span()
	op := ir.OpTcgen05St
	if p.load {
		op = ir.OpTcgen05Ld
	}
	epb := int64(32 / p.elemBits)
	var stmts []ir.Stmt
	for s := range p.slabs {
		args := []ir.Expr{&ir.StringImm{Value: p.shape, Span: span}, common.Cst(p.num), tb.AllocatedAddr,
			common.Cst(p.rowBase + 16*s), p.col}
		for i := range p.regs {
			reg := ir.AddE(p.regBase, common.Cst(s*p.regStride+i))
			args = append(args, &ir.AddressOf{Buf: lb, Indices: []ir.Expr{ir.SimplifyIndex(ir.MulE(reg, common.Cst(epb)))},
				FlatIndex: true, Span: span})
		}
		stmts = append(stmts, &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: span}, Span: span})
	}
	instr := fmt.Sprintf("tcgen05.%s.sync.aligned.%s.x%d.b32", map[bool]string{true: "ld", false: "st"}[p.load], p.shape, p.num)
	dir := "local -> tmem"
	if p.load {
		dir = "tmem -> local"
	}
	dp := p.datapath
	if dp == "" {
		dp = "untagged (128, W):(1@TLane, 1@TCol)"
	}
	plan := []dispatch.PlanItem{
		{Key: "direction", Value: dir},
		{Key: "instruction", Value: instr},
		{Key: "shape", Value: p.shape},
		{Key: "repetitions", Value: fmt.Sprintf("x%d", p.num)},
		{Key: "instructions", Value: fmt.Sprintf("%d per warp (%s)", p.slabs, slabRows(p))},
		{Key: "registers per thread", Value: fmt.Sprintf("%d x 32-bit per instruction, from register %s", p.regs, dispatch.ExprText(p.regBase))},
		{Key: "tmem", Value: fmt.Sprintf("column %s (32-bit units), datapath %s", dispatch.ExprText(p.col), dp)},
		{Key: "bytes moved", Value: fmt.Sprintf("%d", p.bytesMoved)},
		{Key: "completion", Value: "async: wait with tcgen05.wait::" + map[bool]string{true: "ld", false: "st"}[p.load] + " (not issued)"},
	}
	return &dispatch.Result{Body: &ir.Block{Stmts: stmts, Span: span}, Outer: p.slabs, Threads: 128, Plan: plan,
		Notes: []string{instr + " per warp of the warpgroup; no tcgen05.wait is issued"}}
}

func slabRows(p *ldstPlan) string {
	if p.shape == "32x32b" {
		return "lanes 0..31 of each warp's slab"
	}
	if p.slabs == 2 {
		return "rows 0..15 and 16..31 of each warp's slab"
	}
	return "rows 0..15 of each warp's slab"
}

// tmemDLayout is TileLayout(S[(128, cols):(1@TLane, 1@TCol)]) canonical:
// TMEM datapath layout D.
func tmemDLayout(cols int64) *layout.TileLayout {
	return layout.CanonicalTile(layout.NewTile([]layout.Iter{layout.It(128, 1, layout.TLane), layout.It(cols, 1, layout.TCol)}, nil, nil))
}

// tmemFLayout is tmem_datapath_layout("F", 64, cols) canonical: rows
// 16*w + r at lane 32*w + r.
func tmemFLayout(cols int64) *layout.TileLayout {
	return layout.CanonicalTile(layout.NewTile([]layout.Iter{layout.It(4, 32, layout.TLane), layout.It(16, 1, layout.TLane),
		layout.It(cols, 1, layout.TCol)}, nil, nil))
}

// classifyTmemDatapath is TVM _classify_tmem_datapath.
func classifyTmemDatapath(tb *ir.Buffer) string {
	if tb.Layout == nil || len(tb.Shape) < 2 {
		return ""
	}
	l := layout.CanonicalTile(layout.ToTile(tb.Layout))
	switch tb.Shape[0] {
	case 128:
		if layout.Equal(l, tmemDLayout(tb.Shape[1])) {
			return "D"
		}
	case 64:
		if layout.Equal(l, tmemFLayout(tb.Shape[1])) {
			return "F"
		}
	}
	return ""
}

// checkTmemForAtom is TVM _check_tmem_layout_for_atom.
func checkTmemForAtom(tb *ir.Buffer, atom string, fragRows int64) string {
	dp := classifyTmemDatapath(tb)
	if dp == "" {
		return ""
	}
	ok := dp == "D" || atom == "16x*b" && fragRows == 64
	if !ok {
		dispatch.Raise("ValueError", "tcgen05 dispatch: TMEM buffer with datapath='%s' is incompatible with atom='%s' (frag_rows=%d). "+
			"See PTX ISA §9.7.16.10.5 for datapath/atom pairings; the buffer was allocated via tmem_pool.alloc(..., datapath='%s').",
			dp, atom, fragRows, dp)
	}
	return dp
}

// matchAtomLayout is TVM _match_tcgen05_atom_layout: the .16x*b atom whose
// tcgen05_atom_layout(shape, (rows, cols), dtype) equals the register
// buffer's layout (canonical forms), with its rep and rows.
func matchAtomLayout(lb *ir.Buffer) (shape string, num, rows int64, ok bool) {
	if len(lb.Shape) != 2 || lb.Layout == nil {
		return "", 0, 0, false
	}
	rows, cols := lb.Shape[0], lb.Shape[1]
	if rows != 64 && rows != 128 {
		return "", 0, 0, false
	}
	if _, isTile := lb.Layout.(*layout.TileLayout); !isTile {
		return "", 0, 0, false
	}
	have := layout.CanonicalTile(lb.Layout.(*layout.TileLayout))
	for _, f := range tcgen05ColFactor {
		cand, ok := tcgen05AtomLayout(f.shape, rows, cols, lb.Dtype.Bits)
		if !ok || !layout.Equal(have, layout.CanonicalTile(cand)) {
			continue
		}
		return f.shape, cols / (f.factor * int64(32/lb.Dtype.Bits)), rows, true
	}
	return "", 0, 0, false
}

// tcgen05AtomLayout is TVM tcgen05_atom_layout(shape, (rows, cols), dtype)
// for the .16x*b shapes (the same construction as the DSL's
// tcgen05_atom_layout, dsl/eval/layoutlib.go): the warpgroup register tile
// of tcgen05.{ld,st}.<shape>.x<n>, n = cols / (factor * pack).
func tcgen05AtomLayout(shape string, rows, cols int64, bits int) (*layout.TileLayout, bool) {
	if bits != 16 && bits != 32 {
		return nil, false
	}
	pack := int64(32 / bits)
	var factor int64
	for _, f := range tcgen05ColFactor {
		if f.shape == shape {
			factor = f.factor * pack
		}
	}
	if factor == 0 || cols%factor != 0 {
		return nil, false
	}
	n := cols / factor
	if n < 1 || n > tcgen05Reps[shape] || n&(n-1) != 0 {
		return nil, false
	}
	return layout.Tcgen05Atom16(shape, rows, n, pack), true
}
