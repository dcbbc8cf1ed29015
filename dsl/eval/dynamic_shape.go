package eval

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Buffers whose shape has a runtime dimension (T.match_buffer(h,
// (seq_len, 128)) over a kernel parameter, DeepGEMM's mqa_logits and
// rmsnorm's batch_size). TVM keeps such shapes symbolic; tilels' buffers,
// layouts and dispatch predicates take static shapes, so it does not
// model them. Rather than a silent poison, the name is bound to an opaque
// value whose path says what is missing: every tile call (or other use
// that needs it) then reports "not modelled: dynamic buffer dimension
// `seq_len` of `q`" at itself, once per call, instead of vanishing.

// dynShapePrefix starts the path of such a value (see dynamicShapeWhy).
const dynShapePrefix = "dynamic buffer dimension `"

// unbuiltBuffer is the value of a buffer declaration whose shape could not
// be converted (the reason is reported): an opaque value naming the
// runtime dimension when that was the reason, else poison.
func unbuiltBuffer(shape Value, name string, span source.Span) Value {
	if dim := dynamicDim(shape); dim != "" {
		return &OpaqueV{base{span}, fmt.Sprintf("%s%s` of `%s`", dynShapePrefix, dim, name)}
	}
	return poison(span)
}

// dynamicDim returns the text of the first runtime dimension of a buffer
// shape, "" when it has none.
func dynamicDim(shape Value) string {
	var elts []Value
	if _, ok := toInt(shape); ok {
		return ""
	}
	if isSeq(shape) {
		elts = seqElts(shape)
	} else {
		elts = []Value{shape}
	}
	for _, e := range elts {
		if _, ok := toInt(e); ok {
			continue
		}
		if x, ok := e.(*ExprV); ok {
			return clip(ExprString(x.E), 60)
		}
	}
	return ""
}

// dynamicShapeWhy returns "dynamic buffer dimension `d` of `b`" when path
// is (or is derived from) an unbuilt buffer's path, else "".
func dynamicShapeWhy(path string) string {
	if !strings.HasPrefix(path, dynShapePrefix) {
		return ""
	}
	// prefix + dim + "` of `" + name + "`" + what was derived from it.
	rest := path[len(dynShapePrefix):]
	i := strings.Index(rest, "` of `")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(rest[i+len("` of `"):], '`')
	if j < 0 {
		return ""
	}
	return path[:len(dynShapePrefix)+i+len("` of `")+j+1]
}

// ---- buffers over a runtime outer dimension ----
//
// T.match_buffer(h, (n, 256)) (and a `q: T.Buffer((n, 256), ...)`
// parameter) where n is a kernel scalar parameter or a `n = T.int32()`
// declared in the body is a global buffer whose outermost extent is known
// only at launch. TVM keeps the extent symbolic and makes n a kernel
// argument; so does tilels: the buffer gets ir.Buffer.ShapeExpr, n becomes
// an (implicit) scalar parameter, and since the strides of a row-major
// buffer do not depend on its outermost extent, tile calls whose region
// has static extents dispatch on the region (dispatch/cuda/common
// ReadRegion). What needs more (an inner runtime dimension, whose
// strides depend on it; a runtime extent that is an expression rather
// than a variable; an explicit layout=) stays "not modelled".

// paramShapeArg is shapeArg for the shape of a buffer declaration; a
// kernel parameter buffer (param) may have a runtime outermost dimension,
// returned in shapeExpr (nil when the shape is static).
func (ev *evaluator) paramShapeArg(v Value, span source.Span, param bool) (shape []int64, shapeExpr []ir.Expr, ok bool) {
	if !param || ev.kern == nil || !isSeq(v) {
		shape, ok = ev.shapeArg(v, span)
		return shape, nil, ok
	}
	elts := seqElts(v)
	vr, isVar := runtimeOuterDim(elts)
	if !isVar {
		shape, ok = ev.shapeArg(v, span)
		return shape, nil, ok
	}
	// Convert the static rest with the runtime dimension replaced by 1
	// (checked, never stored: Shape[0] stays 0).
	rest := append([]Value{&IntV{base{span}, 1}}, elts[1:]...)
	shape, ok = ev.shapeArg(&TupleV{base{span}, rest}, span)
	if !ok {
		return nil, nil, false
	}
	shape[0] = 0
	shapeExpr = make([]ir.Expr, len(shape))
	shapeExpr[0] = vr
	ev.implicitParam(vr)
	return shape, shapeExpr, true
}

// runtimeOuterDim reports whether the first element of a shape is a
// runtime integer variable (and no other element is a runtime value).
func runtimeOuterDim(elts []Value) (*ir.Var, bool) {
	if len(elts) == 0 {
		return nil, false
	}
	x, ok := elts[0].(*ExprV)
	if !ok {
		return nil, false
	}
	vr, ok := x.E.(*ir.Var)
	if !ok || (vr.Type.Code != ir.Int && vr.Type.Code != ir.UInt) {
		return nil, false
	}
	for _, e := range elts[1:] {
		if _, ok := toInt(e); !ok {
			return nil, false
		}
	}
	return vr, true
}

// implicitParam makes vr a scalar launch argument of the kernel unless it
// is one already (a `n: T.int32` parameter).
func (ev *evaluator) implicitParam(vr *ir.Var) {
	fn := ev.kern.k.Func
	for _, p := range fn.Params {
		if p.Var == vr {
			return
		}
	}
	fn.Params = append(fn.Params, &ir.Param{Var: vr, Implicit: true, Span: vr.Span})
}

// runtimeShapeBuffer finishes a buffer with a runtime outer dimension: it
// takes no layout= (its Layout stays nil: the default row-major layout
// over a runtime extent is what dispatch reads from the region).
func (ev *evaluator) runtimeShapeBuffer(buf *ir.Buffer, lv Value, span source.Span) *ir.Buffer {
	if lv != nil {
		if s, ok := lv.(*StrV); !ok || s.V != "default" {
			ev.warnf(span, CodeUnresolved, "not modelled: layout= on buffer `%s` with runtime dimension `%s`", buf.Name, ExprString(buf.ShapeExpr[0]))
			return nil
		}
	}
	return buf
}

// runtimeShapePlain declines the match_buffer arguments a buffer with a
// runtime dimension does not model (strides=, elem_offset=).
func (ev *evaluator) runtimeShapePlain(c *call, buf *ir.Buffer) bool {
	for _, kw := range []string{"strides", "elem_offset"} {
		if v := c.arg(-1, kw); v != nil {
			if _, none := v.(*NoneV); !none {
				ev.warnf(c.argSpan(-1, kw), CodeUnresolved, "not modelled: %s= on buffer `%s` with runtime dimension `%s`", kw, buf.Name, ExprString(buf.ShapeExpr[0]))
				return false
			}
		}
	}
	return true
}

// runtimeDim reports whether dimension d of buf has a runtime extent.
func runtimeDim(buf *ir.Buffer, d int) bool {
	return d < len(buf.ShapeExpr) && buf.ShapeExpr[d] != nil
}

// dimExtent is the extent of dimension d of buf as an expression.
func dimExtent(buf *ir.Buffer, d int, span source.Span) ir.Expr {
	if runtimeDim(buf, d) {
		return buf.ShapeExpr[d]
	}
	return &ir.IntImm{Value: buf.Shape[d], Type: ir.Int32, Span: span}
}

// runtimeShapeOps are the tile primitives whose variants dispatch on an
// operand over a buffer with a runtime outer dimension: the synchronous
// copy (gmem_smem, reg, fallback and the forced vector copies read only
// the region's extents and the buffer's inner strides).
var runtimeShapeOps = map[string]bool{"copy": true}

// runtimeShapeOperand reports (and returns false for) a region operand on
// a buffer with a runtime dimension that tc's variants do not model.
func (ev *evaluator) runtimeShapeOperand(tc *ir.TileCall, r *ir.Region, sp source.Span) bool {
	d := r.Buf.RuntimeDim()
	if runtimeShapeOps[tc.Op] {
		return true
	}
	what := "Tx." + tc.Op
	if tc.Op == "copy_async" {
		what = "Tx.copy_async (TMA, cp.async)"
	}
	ev.warnf(sp, CodeUnresolved, "not modelled: %s over buffer `%s` with runtime dimension `%s`", what, r.Buf.Name, clip(ExprString(r.Buf.ShapeExpr[d]), 60))
	return false
}

// runtimeShapeAttr is the attribute name of a buffer with a runtime
// dimension where it differs from a static buffer's: its shape holds the
// runtime extent, and its layout and views (which need static extents)
// are opaque values that report "not modelled" where used. nil: as for
// a static buffer.
func runtimeShapeAttr(buf *ir.Buffer, name string, span source.Span) Value {
	switch name {
	case "shape":
		out := make([]Value, len(buf.Shape))
		for i, s := range buf.Shape {
			out[i] = &IntV{base{span}, s}
			if runtimeDim(buf, i) {
				out[i] = &ExprV{base: base{span}, E: buf.ShapeExpr[i]}
			}
		}
		return &TupleV{base{span}, out}
	case "layout", "local", "view", "sub", "permute":
		d := buf.RuntimeDim()
		return &OpaqueV{base{span}, fmt.Sprintf("%s%s` of `%s`.%s", dynShapePrefix, clip(ExprString(buf.ShapeExpr[d]), 60), buf.Name, name)}
	}
	return nil
}
