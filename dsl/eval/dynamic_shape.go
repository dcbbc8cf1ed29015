package eval

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Buffers whose shape has a runtime dimension (T.match_buffer(h,
// (seq_len, 128)) over a kernel parameter, DeepGEMM's mqa_logits and
// rmsnorm's batch_size). TVM keeps such shapes symbolic; tilels' buffers,
// layouts and dispatch predicates take static shapes, so it does not
// model them. Rather than a silent poison, the name is bound to an opaque
// value whose path says what is missing: every tile call (or other use
// that needs it) then reports "not modelled: dynamic buffer dimension
// `seq_len` of `q`" at itself, once per call, instead of vanishing.

// DynShapePrefix starts the path of such a value (see dynamicShapeWhy).
const DynShapePrefix = "dynamic buffer dimension `"

// unbuiltBuffer is the value of a buffer declaration whose shape could not
// be converted (the reason is reported): an opaque value naming the
// runtime dimension when that was the reason, else poison.
func UnbuiltBuffer(shape Value, name string, span source.Span) Value {
	if dim := dynamicDim(shape); dim != "" {
		return &OpaqueV{Base{span}, fmt.Sprintf("%s%s` of `%s`", DynShapePrefix, dim, name)}
	}
	return Poison(span)
}

// UnbuiltParamBuffer is UnbuiltBuffer for a T.match_buffer of the handle
// parameter data: the opaque value's `.data` is still that pointer, so
// that a flat view over it builds (T.decl_buffer((n * stride,), ...,
// data=logits.data): mqa_logits_fp8.py's output, a match_buffer of two
// runtime dimensions written through a one-dimensional view).
func (ev *Evaluator) UnbuiltParamBuffer(shape Value, name string, span source.Span, data *ir.Var) Value {
	v := UnbuiltBuffer(shape, name, span)
	if o, ok := v.(*OpaqueV); ok && ev.Kern != nil {
		if ev.Kern.unbuiltData == nil {
			ev.Kern.unbuiltData = map[*OpaqueV]ir.Expr{}
		}
		ev.Kern.unbuiltData[o] = data
	}
	return v
}

// dynamicDim returns the text of the first runtime dimension of a buffer
// shape, "" when it has none.
func dynamicDim(shape Value) string {
	var elts []Value
	if _, ok := ToInt(shape); ok {
		return ""
	}
	if IsSeq(shape) {
		elts = SeqElts(shape)
	} else {
		elts = []Value{shape}
	}
	for _, e := range elts {
		if _, ok := ToInt(e); ok {
			continue
		}
		if x, ok := e.(*ExprV); ok {
			return Clip(ExprString(x.E), 60)
		}
	}
	return ""
}

// dynamicShapeWhy returns "dynamic buffer dimension `d` of `b`" when path
// is (or is derived from) an unbuilt buffer's path, else "".
func dynamicShapeWhy(path string) string {
	if !strings.HasPrefix(path, DynShapePrefix) {
		return ""
	}
	// prefix + dim + "` of `" + name + "`" + what was derived from it.
	rest := path[len(DynShapePrefix):]
	i := strings.Index(rest, "` of `")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(rest[i+len("` of `"):], '`')
	if j < 0 {
		return ""
	}
	return path[:len(DynShapePrefix)+i+len("` of `")+j+1]
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
//
// A view (view: T.decl_buffer over a data pointer) may have a runtime
// outermost dimension over any integer values of the kernel, its own
// scalars included: its extent is never allocated nor encoded on the host
// (mqa_logits_fp8.py's `T.decl_buffer((aligned_sl * logits_stride,), ...,
// data=logits.data)`, aligned_sl a scalar of the body). Tile calls that
// would encode it in a tensor map decline (RuntimeShapeOperand).
func (ev *Evaluator) ParamShapeArg(v Value, span source.Span, param bool) (shape []int64, shapeExpr []ir.Expr, ok bool) {
	return ev.shapeArgOf(v, span, param, false)
}

// ViewShapeArg is ParamShapeArg for a view (T.decl_buffer).
func (ev *Evaluator) ViewShapeArg(v Value, span source.Span) (shape []int64, shapeExpr []ir.Expr, ok bool) {
	if v != nil && !IsSeq(v) {
		if _, isExpr := v.(*ExprV); isExpr {
			v = &TupleV{Base{span}, []Value{v}} // decl_buffer(n, ...)
		}
	}
	return ev.shapeArgOf(v, span, false, true)
}

func (ev *Evaluator) shapeArgOf(v Value, span source.Span, param, view bool) (shape []int64, shapeExpr []ir.Expr, ok bool) {
	if !param && !view || ev.Kern == nil || !IsSeq(v) {
		shape, ok = ev.ShapeArg(v, span)
		return shape, nil, ok
	}
	elts := SeqElts(v)
	d, ext, isRuntime := ev.runtimeOuterDim(elts, view)
	if !isRuntime {
		shape, ok = ev.ShapeArg(v, span)
		return shape, nil, ok
	}
	// Convert the static rest with the runtime dimension replaced by 1
	// (checked, never stored: Shape[d] stays 0).
	rest := append([]Value(nil), elts...)
	rest[d] = &IntV{Base{span}, 1}
	shape, ok = ev.ShapeArg(&TupleV{Base{span}, rest}, span)
	if !ok {
		return nil, nil, false
	}
	shape[d] = 0
	shapeExpr = make([]ir.Expr, len(shape))
	shapeExpr[d] = ext
	if vr, ok := ext.(*ir.Var); ok && !view {
		ev.implicitParam(vr)
	}
	return shape, shapeExpr, true
}

// runtimeOuterDim returns the index and value of the first element of a
// shape when it is a runtime integer value (and no other element is one)
// that the kernel can compute at launch: a variable (a scalar parameter,
// or n = T.int32(), which becomes one) or an expression over scalar
// parameters ((b + 1,) , ((b - 1) * stride_b + topk,)). Static extents 1
// may precede it ((1, seq_len_kv), DeepGEMM's scale-factor rows): their
// strides, which depend on it, multiply index 0 only, so the buffer
// addresses like one with a runtime outermost dimension.
// A view's (view) may be over any integer values of the kernel.
func (ev *Evaluator) runtimeOuterDim(elts []Value, view bool) (int, ir.Expr, bool) {
	d := 0
	for d < len(elts) {
		if n, ok := ToInt(elts[d]); !ok || n != 1 {
			break
		}
		d++
	}
	if d >= len(elts) {
		return 0, nil, false
	}
	x, ok := elts[d].(*ExprV)
	if !ok {
		return 0, nil, false
	}
	for _, e := range elts[d+1:] {
		if _, ok := ToInt(e); !ok {
			return 0, nil, false
		}
	}
	if vr, ok := x.E.(*ir.Var); ok {
		return d, vr, isIntType(vr.Type)
	}
	if view {
		return d, x.E, intArith(x.E)
	}
	return d, x.E, ev.overParams(x.E)
}

// intArith reports whether e is integer arithmetic over integer variables
// and constants (no load, no call).
func intArith(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.IntImm:
		return true
	case *ir.Var:
		return isIntType(x.Type)
	case *ir.Binary:
		switch x.Op {
		case ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.FloorMod, ir.Min, ir.Max:
			return intArith(x.A) && intArith(x.B)
		}
	case *ir.Cast:
		return isIntType(x.To) && intArith(x.X)
	}
	return false
}

func isIntType(t ir.DataType) bool { return t.Code == ir.Int || t.Code == ir.UInt }

// overParams reports whether e is an integer expression whose variables
// are all scalar parameters of the kernel.
func (ev *Evaluator) overParams(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.IntImm:
		return true
	case *ir.Var:
		if !isIntType(x.Type) {
			return false
		}
		for _, p := range ev.Kern.K.Func.Params {
			if p.Var == x && p.Buf == nil {
				return true
			}
		}
		return false
	case *ir.Binary:
		switch x.Op {
		case ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.FloorMod:
			return ev.overParams(x.A) && ev.overParams(x.B)
		}
	case *ir.Cast:
		// T.cast(num_sequences, "int64") * HV * 128 * 128
		// (gdn_prefill_sm100.py's flat state buffers): an integer cast
		return isIntType(x.To) && ev.overParams(x.X)
	}
	return false
}

// implicitParam makes vr a scalar launch argument of the kernel unless it
// is one already (a `n: T.int32` parameter).
func (ev *Evaluator) implicitParam(vr *ir.Var) {
	fn := ev.Kern.K.Func
	for _, p := range fn.Params {
		if p.Var == vr {
			return
		}
	}
	fn.Params = append(fn.Params, &ir.Param{Var: vr, Implicit: true, Span: vr.Span})
	// a bind line's value for it: the launch the memory figures count
	if v, ok := ev.Kern.consts[vr.Name]; ok {
		if n, isInt := v.(*IntV); isInt {
			fn.LaunchArgs = append(fn.LaunchArgs, ir.LaunchArg{Var: vr, Value: n.V})
		} else if !IsErr(v) {
			ev.Report(diag.Errorf(vr.Span, CodeDirective, "a launch value binds an integer scalar to an integer: `%s` is %s, given %s", vr.Name, vr.Type, Describe(v)))
		}
	}
}

// runtimeShapeBuffer finishes a buffer with a runtime outer dimension: it
// takes no layout= (its Layout stays nil: the default row-major layout
// over a runtime extent is what dispatch reads from the region).
func (ev *Evaluator) RuntimeShapeBuffer(buf *ir.Buffer, lv Value, span source.Span) *ir.Buffer {
	if lv != nil {
		if s, ok := lv.(*StrV); !ok || s.V != "default" {
			ev.Warnf(span, CodeUnresolved, "not modelled: layout= on buffer `%s` with runtime dimension `%s`", buf.Name, ExprString(buf.ShapeExpr[buf.RuntimeDim()]))
			return nil
		}
	}
	return buf
}

// runtimeShapePlain declines the match_buffer arguments a buffer with a
// runtime dimension does not model (strides=, elem_offset=).
//
// A view (ir.DeclBuffer) takes elem_offset= (and byte_offset=): its
// storage is another buffer's, the offset only moves its origin.
func (ev *Evaluator) RuntimeShapePlain(c *Call, buf *ir.Buffer) bool {
	kws := []string{"strides", "elem_offset"}
	if buf.Kind == ir.DeclBuffer {
		kws = kws[:1]
	}
	for _, kw := range kws {
		if v := c.Arg(-1, kw); v != nil {
			if _, none := v.(*NoneV); !none {
				ev.Warnf(c.ArgSpan(-1, kw), CodeUnresolved, "not modelled: %s= on buffer `%s` with runtime dimension `%s`", kw, buf.Name, ExprString(buf.ShapeExpr[buf.RuntimeDim()]))
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
func DimExtent(buf *ir.Buffer, d int, span source.Span) ir.Expr {
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
func (ev *Evaluator) RuntimeShapeOperand(tc *ir.TileCall, r *ir.Region, sp source.Span) bool {
	d := r.Buf.RuntimeDim()
	if runtimeShapeOps[tc.Op] {
		if d == 0 && runtimeExtentModelled(r.Buf) {
			return true
		}
		ev.Warnf(sp, CodeUnresolved, "not modelled: Tx.%s over buffer `%s` with runtime extent `%s` (whether the reference's layout slicing can group it depends on its arithmetic analyzer)", tc.Op, r.Buf.Name, Clip(ExprString(r.Buf.ShapeExpr[d]), 60))
		return false
	}
	if tc.Op == "copy_async" && ev.Opts.Release >= release.R026 && (tc.Dispatch == "tma_auto" || tc.Dispatch == "tma_explicit") && ev.overParams(r.Buf.ShapeExpr[d]) {
		// 0.26+ TMA plans descriptors over a runtime outer extent
		// (dispatch/cuda/copy_async/tma_runtime_dim.go).
		return true
	}
	what := "Tx." + tc.Op
	if tc.Op == "copy_async" {
		what = "Tx.copy_async (TMA, cp.async)"
	}
	ev.Warnf(sp, CodeUnresolved, "not modelled: %s over buffer `%s` with runtime dimension `%s`", what, r.Buf.Name, Clip(ExprString(r.Buf.ShapeExpr[d]), 60))
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
			out[i] = &IntV{Base{span}, s}
			if runtimeDim(buf, i) {
				out[i] = &ExprV{Base: Base{span}, E: buf.ShapeExpr[i]}
			}
		}
		return &TupleV{Base{span}, out}
	case "layout", "local", "view", "sub", "permute":
		d := buf.RuntimeDim()
		return &OpaqueV{Base{span}, fmt.Sprintf("%s%s` of `%s`.%s", DynShapePrefix, Clip(ExprString(buf.ShapeExpr[d]), 60), buf.Name, name)}
	}
	return nil
}

// implicitNote marks an implicit scalar parameter in the kernel dump.
func implicitNote(p *ir.Param) string {
	if p.Implicit {
		return " (implicit)"
	}
	return ""
}

// runtimeShapeList prints a shape with its runtime extents.
func runtimeShapeList(p *printer, buf *ir.Buffer) string {
	parts := make([]string, len(buf.Shape))
	for i, x := range buf.Shape {
		parts[i] = strconv.FormatInt(x, 10)
		if runtimeDim(buf, i) {
			parts[i] = p.expr(buf.ShapeExpr[i])
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// runtimeExtentModelled reports whether tilels knows what the reference's
// layout slicing does with the runtime extent of buf (measured on the
// 0.25 release, see dispatch/cuda/common/runtime_shape.go): an int32
// extent of a rank-1 buffer, an int32 variable or product of variables
// and constants, or a uint32 one (which the reference cannot group). A
// sum, difference or quotient of a multi-dimensional buffer groups or not
// depending on the analyzer's rewriting (n+1 does, n+64 does not), and an
// int64 extent gives int64 offsets: not modelled.
func runtimeExtentModelled(buf *ir.Buffer) bool {
	d := buf.RuntimeDim()
	if d < 0 {
		return true
	}
	e := buf.ShapeExpr[d]
	if unsignedExpr(e) {
		return true
	}
	if !int32Expr(e) {
		return false
	}
	return len(buf.Shape) == 1 || productExpr(e)
}

func unsignedExpr(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Var:
		return x.Type.Code == ir.UInt
	case *ir.IntImm:
		return x.Type.Code == ir.UInt
	case *ir.Binary:
		return unsignedExpr(x.A) || unsignedExpr(x.B)
	}
	return false
}

// int32Expr reports whether every leaf of e is an int32.
func int32Expr(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Var:
		return x.Type == ir.Int32
	case *ir.IntImm:
		return x.Type == ir.Int32 || !x.Type.IsValid()
	case *ir.Binary:
		return int32Expr(x.A) && int32Expr(x.B)
	}
	return false
}

// productExpr reports whether e is a product of variables and positive
// constants.
func productExpr(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Var:
		return true
	case *ir.IntImm:
		return x.Value > 0
	case *ir.Binary:
		return x.Op == ir.Mul && productExpr(x.A) && productExpr(x.B)
	}
	return false
}

// ShapeDims returns the extents of buf as text, a runtime extent as its
// expression ("batch_size"), for hovers and outlines.
func ShapeDims(buf *ir.Buffer) []string {
	dims := make([]string, len(buf.Shape))
	for i, n := range buf.Shape {
		dims[i] = strconv.FormatInt(n, 10)
		if runtimeDim(buf, i) {
			dims[i] = ExprString(buf.ShapeExpr[i])
		}
	}
	return dims
}
