package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"regexp"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Derived buffer views of tvm/tirx/_buffer_view.py: Buffer.permute(*dims),
// Buffer.rearrange(pattern, **sizes) and Buffer.chunk(spec)[picks].
//
// permute reorders the buffer's dimensions: the layout is grouped by the
// shape and its groups permuted (a swizzle is kept around the permuted
// tile). rearrange is view(*axis sizes) . permute(order) . view(*merged
// sizes), as the reference composes it; tilels declares only the final
// buffer (the intermediate ones are not observable). chunk(spec)[picks]
// is the region buf[translated], a chunk index i of a dimension cut in n
// becoming the slice [i*size, (i+1)*size). Views keep the storage of the
// buffer: its data, element offset and, for tensor memory, its
// allocated_addr column (_redecl).

// ChunkV is the ChunkIndexer Buffer.chunk(spec) returns.
type ChunkV struct {
	eval.Base
	Buf  *ir.Buffer
	Spec []int64 // chunk count per dimension, 0 for None
}

func (*ChunkV) TypeName() string { return "ChunkIndexer" }

// bufferViewAttr returns the view methods of this file, nil for others.
func bufferViewAttr(ev *eval.Evaluator, buf *ir.Buffer, name string) eval.Value {
	switch name {
	case "permute":
		return eval.Method("Buffer.permute", func(ev *eval.Evaluator, c *eval.Call) eval.Value { return bufferPermuteCall(ev, buf, c) })
	case "rearrange":
		return eval.Method("Buffer.rearrange", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			ev.CheckSurfaceName("Buffer.", name, c.FnSpan, "") // 0.26+ (release_surface.go)
			return bufferRearrange(ev, buf, c)
		})
	case "chunk":
		return eval.Method("Buffer.chunk", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			ev.CheckSurfaceName("Buffer.", name, c.FnSpan, "")
			return bufferChunk(ev, buf, c)
		})
	case "with_dtype": // buffer.go
		return eval.Method("Buffer.with_dtype", func(ev *eval.Evaluator, c *eval.Call) eval.Value { return bufferWithDtype(ev, buf, c) })
	case "tile": // buffer_view_tile.go
		return eval.Method("Buffer.tile", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			ev.CheckSurfaceName("Buffer.", name, c.FnSpan, "")
			return bufferTile(ev, buf, c)
		})
	}
	return nil
}

// declDerivedView declares the view of buf with shape and layout l.
func declDerivedView(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call, shape []int64, l layout.Layout, def string) eval.Value {
	name, nameSpan := ev.HintName(c, def)
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: shape, Dtype: buf.Dtype, Scope: buf.Scope,
		Layout: l, ElemOffset: buf.ElemOffset, Base: buf, Kind: ir.DeclBuffer, Span: c.At}
	ev.AddBufferSite(nb, nameSpan, c.At, source.NoSpan)
	emitView(ev, nb)
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: nb}
}

// emitView declares the view nb of nb.Base. A view of tensor memory at an
// allocated_addr is, as the reference's _redecl makes it, a buffer of its
// own (no data pointer) at the same column; any other view shares the
// base's data.
func emitView(ev *eval.Evaluator, nb *ir.Buffer) {
	if b := nb.Base; b != nil && b.Scope == "tmem" && b.AllocatedAddr != nil {
		nb.AllocatedAddr, nb.Base, nb.Kind, nb.ElemOffset = b.AllocatedAddr, nil, ir.AllocBuffer, 0
		nb.Data = &ir.Var{Name: nb.Name, Type: ir.HandleT, Span: nb.Span}
		ev.EmitStmt(&ir.Alloc{Buf: nb, Span: nb.Span})
		return
	}
	ev.EmitStmt(&ir.Decl{Buf: nb, Span: nb.Span})
}

// permuteLayout is _buffer_view.permute's layout surgery.
func permuteLayout(l layout.Layout, shape []int64, perm []int) (layout.Layout, error) {
	tile, comp := l, (*layout.ComposeLayout)(nil)
	if c, ok := l.(*layout.ComposeLayout); ok {
		tile, comp = c.Tile, c
	}
	t, ok := tile.(*layout.TileLayout)
	if !ok {
		return nil, errString("layout " + layoutString(l) + " can not be permuted")
	}
	g, seps, err := layout.Group(t, shape)
	if err != nil {
		return nil, err
	}
	out := layout.PermuteByGroups(g, seps, perm)
	if comp == nil {
		return out, nil
	}
	return layout.NewCompose(comp.PerElement, comp.SwizzleLen, comp.AtomLen, comp.SwizzleInner, out)
}

type errString string

func (e errString) Error() string { return string(e) }

func layoutString(l layout.Layout) string {
	if s, ok := l.(interface{ String() string }); ok {
		return s.String()
	}
	return "?"
}

func viewPrecheck(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call, what string) bool {
	if !ev.RequireKernel(c, what) {
		return false
	}
	if buf.Layout == nil {
		if !ev.Kern.BadLayout[buf] {
			ev.Errorf(c.At, eval.CodeMissingLayout, "buffer `%s` has no layout; %s needs one", buf.Name, what)
		}
		return false
	}
	return true
}

func bufferPermuteCall(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call) eval.Value {
	if !viewPrecheck(ev, buf, c, "Buffer.permute") {
		return eval.Poison(c.At)
	}
	if e := eval.FirstErr(c.Args...); e != nil {
		return ev.NeedConcrete(e, e.Span(), "Buffer.permute dims")
	}
	var perm []int
	for i, a := range c.Args {
		n, ok := ev.IntArg(a, c.ArgSpans[i], "dim")
		if !ok {
			return eval.Poison(c.At)
		}
		perm = append(perm, int(n))
	}
	if len(perm) != len(buf.Shape) || !isPerm(perm) {
		return ev.Errorf(c.At, eval.CodeType, "Buffer.permute dims %v are not a permutation of the %d dimensions of `%s`", perm, len(buf.Shape), buf.Name)
	}
	l, err := permuteLayout(buf.Layout, buf.Shape, perm)
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	shape := make([]int64, len(perm))
	for i, d := range perm {
		shape[i] = buf.Shape[d]
	}
	return declDerivedView(ev, buf, c, shape, l, buf.Name+"_view")
}

func isPerm(p []int) bool {
	seen := make([]bool, len(p))
	for _, d := range p {
		if d < 0 || d >= len(p) || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

var rearrangeGroup = regexp.MustCompile(`\(([^)]*)\)|(\S+)`)

func rearrangeGroups(side string) [][]string {
	var out [][]string
	for _, m := range rearrangeGroup.FindAllStringSubmatch(strings.TrimSpace(side), -1) {
		if m[0][0] == '(' {
			out = append(out, strings.Fields(m[1]))
		} else {
			out = append(out, []string{m[2]})
		}
	}
	return out
}

// bufferRearrange is Buffer.rearrange(pattern, /, **sizes).
func bufferRearrange(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call) eval.Value {
	if !viewPrecheck(ev, buf, c, "Buffer.rearrange") {
		return eval.Poison(c.At)
	}
	// rearrange(pattern=_UNSET, /, **sizes): a pattern= keyword is taken
	// when no positional pattern is given.
	var pv eval.Value
	var pspan source.Span
	kwargs := c.Kwargs
	switch {
	case len(c.Args) > 1:
		return ev.PyErrorf(c.At, "Buffer.rearrange() takes from 1 to 2 positional arguments but %d were given", len(c.Args)+1)
	case len(c.Args) == 1:
		pv, pspan = c.Args[0], c.ArgSpans[0]
	default:
		for i, k := range c.Kwargs {
			if k.Name == "pattern" {
				pv, pspan = k.V, k.Vspan
				kwargs = append(append([]eval.Kwarg(nil), c.Kwargs[:i]...), c.Kwargs[i+1:]...)
				break
			}
		}
		if pv == nil {
			return ev.PyErrorf(c.At, "Buffer.rearrange() missing required argument: 'pattern'")
		}
	}
	pattern, ok := ev.StrArg(pv, pspan, "pattern")
	if !ok {
		return eval.Poison(c.At)
	}
	sizes := map[string]int64{}
	for _, k := range kwargs {
		n, ok := ev.IntArg(k.V, k.Vspan, "rearrange size "+k.Name)
		if !ok {
			return eval.Poison(c.At)
		}
		sizes[k.Name] = n
	}
	fail := func(format string, args ...any) eval.Value { return ev.Errorf(c.At, eval.CodeType, format, args...) }
	lhsS, rhsS, found := strings.Cut(pattern, "->")
	if !found || strings.Contains(rhsS, "->") {
		return fail("rearrange: pattern must contain '->', got %s", eval.PyQuote(pattern))
	}
	lhs, rhs := rearrangeGroups(lhsS), rearrangeGroups(rhsS)
	if len(lhs) != len(buf.Shape) {
		return fail("rearrange: lhs has %d groups but buffer has %d dims (pattern %s, shape %s)", len(lhs), len(buf.Shape), eval.PyQuote(pattern), eval.ShapeList(buf.Shape))
	}
	axisSize := map[string]int64{}
	for i, group := range lhs {
		dim := buf.Shape[i]
		product := int64(1)
		var unknown []string
		for _, a := range group {
			if n, has := sizes[a]; has {
				product *= n
				axisSize[a] = n
			} else {
				unknown = append(unknown, a)
			}
		}
		switch len(unknown) {
		case 0:
			if product != dim {
				return fail("rearrange: group %s product %d != dim %d", pyNameList(group), product, dim)
			}
		case 1:
			if product == 0 || dim%product != 0 {
				return fail("rearrange: dim %d not divisible by known product %d in group %s", dim, product, pyNameList(group))
			}
			axisSize[unknown[0]] = dim / product
		default:
			return fail("rearrange: group %s has >1 unknown axis; give sizes= for all but one", pyNameList(group))
		}
	}
	flatL, flatR := slices.Concat(lhs...), slices.Concat(rhs...)
	if sl, sr := slices.Sorted(slices.Values(flatL)), slices.Sorted(slices.Values(flatR)); !slices.Equal(sl, sr) {
		return fail("rearrange: lhs axes %s != rhs axes %s (pattern %s)", pyNameList(flatL), pyNameList(flatR), eval.PyQuote(pattern))
	}
	split := make([]int64, len(flatL))
	for i, a := range flatL {
		split[i] = axisSize[a]
	}
	perm := make([]int, len(flatR))
	for i, a := range flatR {
		perm[i] = slices.Index(flatL, a)
	}
	if !isPerm(perm) {
		return fail("rearrange: an axis is repeated in pattern %s", eval.PyQuote(pattern))
	}
	l, err := permuteLayout(buf.Layout, split, perm)
	if err != nil {
		return fail("%v", err)
	}
	merged := make([]int64, len(rhs))
	for i, group := range rhs {
		merged[i] = 1
		for _, a := range group {
			merged[i] *= axisSize[a]
		}
	}
	return declDerivedView(ev, buf, c, merged, l, buf.Name+"_view")
}

func pyNameList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = eval.PyQuote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// bufferChunk is Buffer.chunk(spec): spec is a per-dimension tuple of
// None or a positive chunk count.
func bufferChunk(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "chunk", 1, "spec") {
		return eval.Poison(c.At)
	}
	if !eval.IsSeq(c.Args[0]) {
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "chunk: spec must be a per-dim tuple, got %s", eval.Repr(c.Args[0]))
	}
	elts := eval.SeqElts(c.Args[0])
	if len(elts) != len(buf.Shape) {
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "chunk: spec length %d != buffer rank %d", len(elts), len(buf.Shape))
	}
	spec := make([]int64, len(elts))
	for d, e := range elts {
		if eval.IsNoneV(e) {
			continue
		}
		if eval.IsErr(e) {
			return ev.NeedConcrete(e, c.ArgSpans[0], "chunk spec")
		}
		n, ok := eval.ToInt(e)
		if _, isBool := e.(*eval.BoolV); !ok || isBool || n < 1 {
			return ev.Errorf(c.ArgSpans[0], eval.CodeType, "chunk: spec[%d] must be None or a positive int, got %s", d, eval.Repr(e))
		}
		spec[d] = n
	}
	return &ChunkV{eval.Base{At: c.At}, buf, spec}
}

// chunkIndex is ChunkIndexer.__getitem__(picks).
func chunkIndex(ev *eval.Evaluator, ch *ChunkV, idx []eval.Value, e *syntax.Subscript) eval.Value {
	if len(idx) == 1 && eval.IsSeq(idx[0]) {
		idx = eval.SeqElts(idx[0])
	}
	if len(idx) > len(ch.Spec) {
		return ev.Errorf(e.Index.Span(), eval.CodeType, "chunk: %d indices for a rank-%d spec", len(idx), len(ch.Spec))
	}
	out := make([]eval.Value, len(idx))
	for d, pick := range idx {
		count := ch.Spec[d]
		if count == 0 {
			out[d] = pick
			continue
		}
		if _, isSlice := pick.(*eval.SliceV); isSlice {
			return ev.Errorf(e.Index.Span(), eval.CodeType, "chunk: chunked dim %d takes a chunk index, not a slice; got %s", d, eval.Repr(pick))
		}
		if eval.IsErr(pick) {
			return ev.NeedConcrete(pick, e.Index.Span(), "a chunk index")
		}
		size := ch.Buf.Shape[d] / count
		sp := pick.Span()
		if n, ok := eval.ToInt(pick); ok {
			out[d] = &eval.SliceV{Base: eval.Base{At: sp}, Lo: &eval.IntV{Base: eval.Base{At: sp}, V: n * size}, Hi: &eval.IntV{Base: eval.Base{At: sp}, V: (n + 1) * size}, Step: &eval.NoneV{Base: eval.Base{At: sp}}}
			continue
		}
		x, ok := ev.IndexExpr(pick)
		if !ok {
			return ev.Errorf(e.Index.Span(), eval.CodeType, "chunk index must be an integer, got %s", eval.Describe(pick))
		}
		lo := ir.MulE(x, ir.Const(size))
		out[d] = &eval.SliceV{Base: eval.Base{At: sp}, Lo: &eval.ExprV{Base: eval.Base{At: sp}, E: lo}, Hi: &eval.ExprV{Base: eval.Base{At: sp}, E: ir.AddE(lo, ir.Const(size))}, Step: &eval.NoneV{Base: eval.Base{At: sp}}}
	}
	return ev.BufferIndex(&eval.BufferV{Base: eval.Base{At: ch.At}, B: ch.Buf}, out, e)
}
