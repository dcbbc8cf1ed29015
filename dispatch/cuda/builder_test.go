package cuda

import (
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// kb builds small ir.Funcs for tests: scope ids, buffers and tile calls,
// with fake but distinct spans so diagnostics can be located.
type kb struct {
	t     testing.TB
	fn    *ir.Func
	stack []*ir.Block // innermost last
	pos   source.Pos
}

func newKernel(t testing.TB) *kb {
	body := &ir.Block{Span: source.NoSpan}
	k := &kb{t: t, fn: &ir.Func{Name: "kernel", Host: &ir.Block{}, Body: body, Span: source.Span{Start: 0, End: 100000}}, pos: 10}
	k.stack = []*ir.Block{body}
	return k
}

// span returns a fresh, distinct span.
func (k *kb) span() source.Span {
	s := source.Span{Start: k.pos, End: k.pos + 5}
	k.pos += 10
	return s
}

func (k *kb) add(s ir.Stmt) { b := k.stack[len(k.stack)-1]; b.Stmts = append(b.Stmts, s) }

// scope declares a scope id; no extents means deferred.
func (k *kb) scope(kind ir.ScopeIDKind, ext ...int64) *ir.Var {
	v := &ir.Var{Name: string(kind), Type: ir.Int32, Span: k.span()}
	k.add(&ir.ScopeID{Kind: kind, Vars: []*ir.Var{v}, Extents: ext, Span: v.Span})
	return v
}

// Kernel headers of the seed tests.
func (k *kb) warpKernel() {
	k.scope(ir.CTAID, 1)
	k.scope(ir.LaneID, 32)
	k.scope(ir.ThreadID, 32)
}

func (k *kb) wgKernel() {
	k.scope(ir.CTAID, 1)
	k.scope(ir.WarpgroupID, 1)
	k.scope(ir.WarpIDInWG, 4)
	k.scope(ir.LaneID, 32)
	k.scope(ir.ThreadIDInWG, 128)
}

func (k *kb) ctaKernel(threads int64) *ir.Var {
	k.scope(ir.CTAID, 1)
	return k.scope(ir.ThreadID, threads)
}

// kernelFor declares the header for a scope family with n threads.
func (k *kb) kernelFor(scope string, n int64) {
	switch scope {
	case "warp":
		if n == 32 {
			k.warpKernel()
			return
		}
	case "warpgroup":
		if n == 128 {
			k.wgKernel()
			return
		}
	}
	k.ctaKernel(n)
}

// buf declares a buffer; spec is a layout in the §2.3 mini-language,
// "" for the default row-major layout, "none" for no layout.
func (k *kb) buf(name, scope, dtype, spec string, shape ...int64) *ir.Buffer {
	dt, ok := ir.ParseDType(dtype)
	if !ok {
		k.t.Fatalf("bad dtype %q", dtype)
	}
	b := &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: scope, Span: k.span()}
	b.Data = &ir.Var{Name: name + "_ptr", Type: ir.HandleT, Span: b.Span}
	switch spec {
	case "":
		b.Layout = layout.RowMajor(shape...)
	case "none":
	default:
		l, err := layout.Parse(spec)
		if err != nil {
			k.t.Fatalf("layout %q: %v", spec, err)
		}
		b.Layout = l
	}
	if scope == "global" {
		b.Kind = ir.ParamBuffer
		k.fn.Params = append(k.fn.Params, &ir.Param{Var: b.Data, Buf: b, Span: b.Span})
	} else {
		b.Kind = ir.AllocBuffer
		k.add(&ir.Alloc{Buf: b, Span: b.Span})
	}
	return b
}

// withLayout sets a layout built in Go.
func withLayout(b *ir.Buffer, l layout.Layout) *ir.Buffer { b.Layout = l; return b }

// full is the whole buffer as a region.
func full(b *ir.Buffer) *ir.Region {
	r := &ir.Region{Buf: b}
	for _, e := range b.Shape {
		r.Min = append(r.Min, ir.Const(0))
		r.Extent = append(r.Extent, ir.Const(e))
	}
	return r
}

// sub is buf[lo0:hi0, lo1:hi1, ...].
func sub(b *ir.Buffer, bounds ...[2]int64) *ir.Region {
	r := &ir.Region{Buf: b}
	for _, bd := range bounds {
		r.Min = append(r.Min, ir.Const(bd[0]))
		r.Extent = append(r.Extent, ir.Const(bd[1]-bd[0]))
	}
	return r
}

// copyCall appends Tx.<scope>.copy(dst, src[, dispatch=...]).
func (k *kb) copyCall(scope string, dst, src *ir.Region, dispatch string, cfg ...ir.KV) *ir.TileCall {
	sp := k.span()
	dst.Span, src.Span = k.span(), k.span()
	tc := &ir.TileCall{Op: "copy", Scope: scope, Args: []ir.Arg{dst, src}, Dispatch: dispatch, Config: cfg,
		Span: source.Span{Start: sp.Start, End: src.Span.End + 1}, OpSpan: sp,
		ArgSpans: []source.Span{dst.Span, src.Span}}
	if dispatch != "" {
		tc.Config = append(tc.Config, ir.KV{Key: "dispatch", Value: &ir.StringImm{Value: dispatch}, Span: k.span()})
	}
	k.add(tc)
	return tc
}

// ifThen opens `if cond:`; end closes it.
func (k *kb) ifThen(cond ir.Expr) {
	b := &ir.Block{Span: k.span()}
	k.add(&ir.If{Cond: cond, Then: b, Span: b.Span})
	k.stack = append(k.stack, b)
}

func (k *kb) end() { k.stack = k.stack[:len(k.stack)-1] }

func cmpE(op ir.BinOp, v *ir.Var, c int64) ir.Expr {
	return &ir.Binary{Op: op, A: v, B: ir.Const(c), Span: source.NoSpan}
}

// mustCompose builds Compose(p,sw,at, tile).
func mustCompose(t testing.TB, p, sw, at int, tile string) *layout.ComposeLayout {
	c, err := layout.NewCompose(p, sw, at, true, layout.MustParseTile(tile))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustTileTo(t testing.TB, l layout.Layout, to, cur []int64) layout.Layout {
	r, err := layout.TileTo(l, to, cur)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustMMA is mma_shared_layout(dtype, mode, shape) at PRE (mode 0 is
// row-major).
func mustMMA(t testing.TB, dtype string, mode int, shape ...int64) layout.Layout {
	dt, ok := ir.ParseDType(dtype)
	if !ok {
		t.Fatalf("dtype %q", dtype)
	}
	l, err := layout.MMASharedLayout(int(dt.Bits), mode, shape, false)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
