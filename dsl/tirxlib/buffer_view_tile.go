package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"
	"slices"

	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Buffer.tile(dim, factors) / Buffer.tile((dim, factors), ...) and its
// TileIndexer (tvm/tirx/_buffer_view.py, 0.26+): tile(0, (-1, 4, 4))[:, w, :]
// splits dimension 0 into the factors (one may be -1, inferred), drops
// every factor picked by an index (int or runtime value) and merges the
// kept ones back into one dimension when two or more are kept, so a warp
// picks its rows of a tile with the rank preserved. The reference composes
// view(split) . _view_drop(index) ... . view(merge); tilels does the same
// layout surgery (viewDrop / viewDropRuntime of buffer_view.go) and
// declares only the final view. Specs apply from the highest dimension
// down, as the reference sorts them.

// TileIndexerV is the TileIndexer Buffer.tile(...) returns.
type TileIndexerV struct {
	eval.Base
	Buf   *ir.Buffer
	Specs []tileSpec
}

type tileSpec struct {
	dim     int
	factors []int64
}

func (*TileIndexerV) TypeName() string { return "TileIndexer" }

// bufferTile is Buffer.tile(*specs).
func bufferTile(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call) eval.Value {
	if len(c.Kwargs) > 0 {
		return ev.Errorf(c.At, eval.CodeType, "Buffer.tile takes no keyword arguments")
	}
	if e := eval.FirstErr(c.Args...); e != nil {
		return ev.NeedConcrete(e, e.Span(), "Buffer.tile's specs")
	}
	if buf.RuntimeDim() >= 0 {
		return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: fmt.Sprintf("%s%s` of `%s`.tile", eval.DynShapePrefix, eval.Clip(eval.ExprString(buf.ShapeExpr[buf.RuntimeDim()]), 60), buf.Name)}
	}
	specs := c.Args
	if len(specs) > 0 {
		if _, ok := eval.ToInt(specs[0]); ok && !eval.IsSeq(specs[0]) {
			if len(specs) != 2 {
				return ev.Errorf(c.At, eval.CodeType, "tile(dim, factors) takes a dim and a factors tuple")
			}
			specs = []eval.Value{&eval.TupleV{Base: eval.Base{At: c.At}, Elts: specs}}
		}
	}
	var out []tileSpec
	for _, s := range specs {
		if !eval.IsSeq(s) || len(eval.SeqElts(s)) != 2 {
			return ev.Errorf(s.Span(), eval.CodeType, "tile: each spec must be (dim, factors), got %s", eval.Repr(s))
		}
		pair := eval.SeqElts(s)
		d, ok := eval.ToInt(pair[0])
		if !ok {
			return ev.Errorf(pair[0].Span(), eval.CodeType, "tile: dim must be an integer, got %s", eval.Describe(pair[0]))
		}
		nd := int64(len(buf.Shape))
		if d < 0 {
			d += nd
		}
		if d < 0 || d >= nd {
			return ev.Errorf(pair[0].Span(), eval.CodeType, "tile: dim %d out of range for buffer of rank %d", d, nd)
		}
		for _, o := range out {
			if o.dim == int(d) {
				return ev.Errorf(s.Span(), eval.CodeType, "tile: dim %d tiled more than once", d)
			}
		}
		if !eval.IsSeq(pair[1]) || len(eval.SeqElts(pair[1])) < 1 {
			return ev.Errorf(pair[1].Span(), eval.CodeType, "tile: factors for dim %d must be a non-empty tuple", d)
		}
		var fs []int64
		for _, f := range eval.SeqElts(pair[1]) {
			if eval.IsErr(f) {
				return ev.NeedConcrete(f, f.Span(), "a Buffer.tile factor")
			}
			n, ok := eval.ToInt(f)
			if !ok {
				return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "Buffer.tile with a runtime factor"}
			}
			fs = append(fs, n)
		}
		out = append(out, tileSpec{int(d), fs})
	}
	return &TileIndexerV{eval.Base{At: c.At}, buf, out}
}

// tileIndex is TileIndexer.__getitem__(picks).
func tileIndex(ev *eval.Evaluator, t *TileIndexerV, idx []eval.Value, e *syntax.Subscript) eval.Value {
	sp := e.Loc
	for _, x := range idx {
		if eval.IsErr(x) {
			return x
		}
	}
	buf := t.Buf
	if buf.Scope == "tmem" {
		return &eval.OpaqueV{Base: eval.Base{At: sp}, Path: "Buffer.tile of a tensor-memory buffer"}
	}
	if buf.Layout == nil && ev.Kern != nil && ev.Kern.BadLayout[buf] {
		return eval.Poison(sp) // the layout's failure is reported
	}
	n := 0
	for _, s := range t.Specs {
		n += len(s.factors)
	}
	if len(idx) != n {
		return ev.Errorf(sp, eval.CodeType, "tile: split into %d factor(s) but %d index(es) given (int/Expr picks, ':' keeps)", n, len(idx))
	}
	type group struct {
		spec  tileSpec
		picks []eval.Value
	}
	var groups []group
	pos := 0
	for _, s := range t.Specs {
		groups = append(groups, group{s, idx[pos : pos+len(s.factors)]})
		pos += len(s.factors)
	}
	slices.SortStableFunc(groups, func(a, b group) int { return b.spec.dim - a.spec.dim })
	isKeep := func(v eval.Value) bool {
		s, ok := v.(*eval.SliceV)
		return ok && eval.IsNoneV(s.Lo) && eval.IsNoneV(s.Hi) && eval.IsNoneV(s.Step)
	}
	cur := viewStep{shape: buf.Shape, lay: buf.Layout, off: buf.ElemOffset, dyn: buf.ElemOffsetExpr}
	for _, g := range groups {
		dim, picks := g.spec.dim, g.picks
		keep := 0
		for _, p := range picks {
			if _, isSlice := p.(*eval.SliceV); isSlice && !isKeep(p) {
				return ev.Errorf(p.Span(), eval.CodeType, "tile: a factor slice must be ':' (keep whole); got a sub-slice")
			}
			if isKeep(p) {
				keep++
			}
		}
		if keep == len(picks) {
			return ev.Errorf(sp, eval.CodeType, "tile: dim %d picks no factor (all ':'); a chunk must pick at least one factor. Use .view / .chunk for a pure reshape.", dim)
		}
		split := append(append(append([]int64(nil), cur.shape[:dim]...), g.spec.factors...), cur.shape[dim+1:]...)
		shape, err := inferViewShape(cur.shape, split)
		if err != "" {
			return ev.Errorf(sp, eval.CodeShapeMismatch, "%s", err)
		}
		cur.shape = shape
		for i := len(picks) - 1; i >= 0; i-- {
			p := picks[i]
			if isKeep(p) {
				continue
			}
			if x, ok := p.(*eval.ExprV); ok {
				var why string
				if cur, why, err = viewDropRuntime(cur, buf, dim+i, x.E); why != "" {
					return &eval.OpaqueV{Base: eval.Base{At: sp}, Path: why}
				}
			} else if k, ok := eval.ToInt(p); ok {
				cur, err = viewDrop(cur, buf, dim+i, k)
			} else {
				return ev.Errorf(p.Span(), eval.CodeType, "tile: a pick must be an integer, an expression or ':', got %s", eval.Describe(p))
			}
			if err != "" {
				return ev.Errorf(p.Span(), eval.CodeType, "%s", err)
			}
		}
		if keep >= 2 {
			merged := append(append(append([]int64(nil), cur.shape[:dim]...), -1), cur.shape[dim+keep:]...)
			if cur.shape, err = inferViewShape(cur.shape, merged); err != "" {
				return ev.Errorf(sp, eval.CodeShapeMismatch, "%s", err)
			}
		}
	}
	return declView(ev, buf, buf.Name+"_tile", cur, sp)
}

// inferViewShape is Buffer.view's shape inference: one -1 takes the rest
// of the element count; otherwise the counts must agree.
func inferViewShape(old, shape []int64) ([]int64, string) {
	shape = append([]int64(nil), shape...)
	total, known, neg := int64(1), int64(1), -1
	for _, s := range old {
		total *= s
	}
	for i, s := range shape {
		if s == -1 && neg < 0 {
			neg = i
			continue
		}
		known *= s
	}
	if neg >= 0 && known != 0 {
		shape[neg] = total / known
		return shape, ""
	}
	if known != total {
		return nil, fmt.Sprintf("The shape of the buffer %s and the new shape %s are not compatible", eval.ShapeStr(old), eval.ShapeStr(shape))
	}
	return shape, ""
}
