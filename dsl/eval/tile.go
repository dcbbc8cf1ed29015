package eval

import (
	"fmt"

	"github.com/tilels/tilels/dsl/diag"
	"slices"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// tileOps are the Tx tile primitives (tvm/tirx/script/tile.py
// _SCOPED_TILE_OP_NAMES at SEED, which adds log2 to PRE's list).
var tileOps = []string{
	"add", "binary_chain", "binary_reduce", "cast", "copy", "copy_async", "exp", "exp2", "log2",
	"fdiv", "fill", "fma", "gemm", "gemm_async", "max", "maximum", "memset", "min", "minimum",
	"mul", "permute_layout", "reciprocal", "reduce_negate", "select", "silu", "sqrt", "sub",
	"sum", "unary_reduce", "zero",
}

// txScopes maps Tx scope namespaces to their execution scope.
var txScopes = map[string]string{
	"cluster": "cluster", "cta": "cta", "wg": "warpgroup", "warpgroup": "warpgroup",
	"warp": "warp", "thread": "thread",
}

func isTileOp(name string) bool { return slices.Contains(tileOps, name) }

func txNames() []string {
	names := append([]string(nil), tileOps...)
	for s := range txScopes {
		names = append(names, s)
	}
	slices.Sort(names)
	return names
}

func txModuleAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if sc, ok := txScopes[name]; ok {
		return &TxNSV{base{span}, sc, name}, true
	}
	if isTileOp(name) {
		return &TxOpV{base: base{span}, Op: name, Scope: "thread", NameSpan: span}, true
	}
	if name == "compose_op" {
		return &OpaqueV{base{span}, "Tx.compose_op"}, true
	}
	return nil, false
}

func (ev *evaluator) txAttr(ns *TxNSV, name string, nameSpan, span source.Span, quiet bool) Value {
	if isTileOp(name) {
		return &TxOpV{base: base{span}, Op: name, Scope: ns.Scope, NameSpan: nameSpan}
	}
	if quiet {
		return nil
	}
	ev.errorf(nameSpan, CodeUnknownOp, "'Tx.%s.%s' is not a tile primitive; the 'Tx.%s.' scope prefix applies only to tile primitives", ns.Label, name, ns.Label)
	return nil
}

// tileSig is the positional signature of a tile primitive (spec §1.5);
// required parameters come first.
type tileSig struct {
	params   []string
	required int
}

var tileSigs = map[string]tileSig{
	"copy":           {[]string{"dst", "src"}, 2},
	"copy_async":     {[]string{"dst", "src"}, 2},
	"zero":           {[]string{"dst", "src"}, 1},
	"reciprocal":     {[]string{"dst", "src"}, 1},
	"silu":           {[]string{"dst", "src"}, 1},
	"cast":           {[]string{"dst", "src"}, 1},
	"sqrt":           {[]string{"dst", "src", "bias", "scale"}, 1},
	"exp":            {[]string{"dst", "src", "bias", "scale"}, 1},
	"exp2":           {[]string{"dst", "src", "bias", "scale"}, 1},
	"log2":           {[]string{"dst", "src", "bias", "scale"}, 1},
	"fill":           {[]string{"dst", "value"}, 2},
	"memset":         {[]string{"dst", "value"}, 2},
	"add":            {[]string{"dst", "src1", "src2"}, 3},
	"sub":            {[]string{"dst", "src1", "src2"}, 3},
	"mul":            {[]string{"dst", "src1", "src2"}, 3},
	"fdiv":           {[]string{"dst", "src1", "src2"}, 3},
	"maximum":        {[]string{"dst", "src1", "src2"}, 3},
	"minimum":        {[]string{"dst", "src1", "src2"}, 3},
	"fma":            {[]string{"dst", "src", "scale", "bias"}, 4},
	"sum":            {[]string{"dst", "src", "axes", "accum"}, 2},
	"max":            {[]string{"dst", "src", "axes", "accum"}, 1},
	"min":            {[]string{"dst", "src", "axes", "accum"}, 1},
	"permute_layout": {[]string{"dst", "src"}, 2},
	// gemm: D = A*B*alpha + C*beta (tirx.py gemm).
	"gemm": {[]string{"D", "A", "B", "C", "transpose_A", "transpose_B", "alpha", "beta"}, 4},
	// gemm_async: Args keep all eight slots; SFA/SFB nil means a regular
	// (non-block-scaled) MMA, whose reference op has six args
	// (C, A, B, transA, transB, accum).
	"gemm_async": {[]string{"C", "A", "B", "SFA", "SFB", "transA", "transB", "accum"}, 3},
	// Trainium compose ops (tirx.py; dispatch/trn/compose_op).
	"unary_reduce":  {[]string{"unary_output", "reduce_output", "unary_input", "unary_op", "reduce_op", "bias", "scale", "reduce_axes"}, 5},
	"binary_reduce": {[]string{"binary_output", "reduce_output", "binary_input1", "binary_input2", "binary_op", "reduce_op", "reduce_axes"}, 6},
	"binary_chain":  {[]string{"output", "data", "operand0", "operand1", "op0", "op1", "reverse1"}, 6},
	"reduce_negate": {[]string{"output", "input", "reduce_op", "reduce_axes", "accum"}, 3},
}

// strictOps are the ops of spec §1.5, whose operands are checked strictly;
// the other tile primitives convert what they can and pass nil otherwise.
var strictOps = map[string]bool{
	"copy": true, "copy_async": true, "zero": true, "reciprocal": true, "silu": true, "cast": true,
	"sqrt": true, "exp": true, "exp2": true, "log2": true, "fill": true, "add": true, "sub": true,
	"mul": true, "fdiv": true, "maximum": true, "minimum": true, "fma": true,
}

// tileArg is one bound tile-primitive argument.
type tileArg struct {
	v    Value
	span source.Span
}

// tileCall emits a TileCall for Tx.<scope>.<op>(...).
func (ev *evaluator) tileCall(f *TxOpV, c *call) Value {
	label := "Tx." + f.Op
	if f.Scope != "thread" || strings.Contains(ev.text(c.fnSpan), ".thread.") {
		label = "Tx." + f.Scope + "." + f.Op
	}
	if !ev.requireKernel(c, label) {
		return poison(c.span)
	}
	if ev.composeOp > 0 { // lib_trn_compose.go
		return ev.composedTileCall(c, label)
	}
	ev.checkSurfaceName("Tx.", f.Op, c.fnSpan, "") // release_surface.go
	sig, known := tileSigs[f.Op]
	tc := &ir.TileCall{Op: f.Op, Scope: f.Scope, Span: c.span, OpSpan: c.fnSpan}
	bound := map[string]tileArg{}
	var generic []tileArg
	dispatchSpan := source.NoSpan // the dispatch= value expression
	for i, a := range c.args {
		switch {
		case known && i < len(sig.params):
			bound[sig.params[i]] = tileArg{a, c.argSpans[i]}
		case known && i == len(sig.params): // workspace
		case known && i == len(sig.params)+1:
			bound["dispatch"] = tileArg{a, c.argSpans[i]}
			dispatchSpan = c.argSpans[i]
		case known:
			return ev.errorf(c.argSpans[i], CodeType, "%s() takes %d positional arguments but %d were given", label, len(sig.params)+2, len(c.args))
		default:
			generic = append(generic, tileArg{a, c.argSpans[i]})
		}
	}
	ok := true
	for _, k := range c.kwargs {
		switch {
		case k.name == "**":
			ev.needConcrete(k.v, k.span, label+"'s keyword arguments")
			ok = false
		case known && slices.Contains(sig.params, k.name):
			if _, dup := bound[k.name]; dup {
				ev.errorf(k.span, CodeType, "%s() got multiple values for argument '%s'", label, k.name)
				ok = false
				continue
			}
			bound[k.name] = tileArg{k.v, k.span}
		case k.name == "dispatch":
			bound["dispatch"] = tileArg{k.v, k.span}
			dispatchSpan = k.vspan
		case k.name == "workspace":
			ev.trnWorkspace(tc, k) // lib_trn_workspace.go
		case k.name == "scope":
		default:
			if cv, good := ev.configValue(k, label); good {
				tc.Config = append(tc.Config, cv)
			} else if cv.Key == "" {
				ok = false
			}
		}
	}
	if d, has := bound["dispatch"]; has {
		switch x := d.v.(type) {
		case *StrV:
			tc.Dispatch, tc.DispatchSpan = x.V, dispatchSpan
		case *NoneV:
		default:
			if isErr(x) {
				ev.needConcrete(x, d.span, label+"'s dispatch")
			} else {
				ev.errorf(d.span, CodeType, "dispatch must be a variant name string, got %s", describe(x))
			}
			ok = false
		}
	}
	if !ok {
		return poison(c.span)
	}
	if !known {
		for _, a := range generic {
			e, good := ev.lenientOperand(a)
			if !good {
				return poison(c.span)
			}
			tc.Args = append(tc.Args, e)
			tc.ArgSpans = append(tc.ArgSpans, a.span)
		}
		if ev.checkOperandLayouts(tc) {
			ev.emitStmt(tc)
		}
		return &NoneV{base{c.span}}
	}
	for i := 0; i < sig.required; i++ {
		if _, has := bound[sig.params[i]]; !has {
			return ev.errorf(c.span, CodeType, "%s() missing required argument '%s'", label, sig.params[i])
		}
	}
	// Builder-side validation (tile.py _validate_tile_call): dst, and src
	// where the op needs it, must be a Buffer or BufferRegion.
	if d, has := bound["dst"]; has && !ev.requireBuffer(f.Op, "dst", d) {
		return poison(c.span)
	}
	switch f.Op {
	case "cast", "max", "min", "permute_layout", "silu", "copy", "copy_async":
		if src, has := bound["src"]; has && !ev.requireBuffer(f.Op, "src", src) {
			return poison(c.span)
		}
	case "sqrt", "exp", "exp2", "log2", "reciprocal":
		if src, has := bound["src"]; has {
			if _, none := src.v.(*NoneV); !none && !ev.requireBuffer(f.Op, "src", src) {
				return poison(c.span)
			}
		}
	}
	for i, p := range sig.params {
		a, has := bound[p]
		if !has || isNoneV(a.v) {
			switch {
			case p == "src" && i == 1 && f.Op != "sum" && f.Op != "permute_layout":
				a, has = bound["dst"], true // src defaults to dst
			default:
				tc.Args = append(tc.Args, nil)
				tc.ArgSpans = append(tc.ArgSpans, source.NoSpan)
				continue
			}
		}
		var e ir.Expr
		good := true
		if strictOps[f.Op] || p == "dst" || p == "src" {
			regionOnly := p == "dst" || p == "src"
			e, good = ev.tileOperand(a, label, p, !regionOnly)
		} else {
			e, good = ev.lenientOperand(a)
		}
		if !good {
			return poison(c.span)
		}
		tc.Args = append(tc.Args, e)
		tc.ArgSpans = append(tc.ArgSpans, a.span)
	}
	if f.Op == "copy" || f.Op == "copy_async" {
		// A gather4 copy_async reads four source rows the region does not
		// show (lib_builder_tirx.go).
		g4, _ := c.kw("gather4")
		if isNoneV(g4) {
			g4 = nil
		}
		if !ev.checkCopy(tc, f.Op, g4) {
			return poison(c.span)
		}
	}
	if ev.checkOperandLayouts(tc) {
		ev.emitStmt(tc)
	}
	return &NoneV{base{c.span}}
}

func isNoneV(v Value) bool {
	_, ok := v.(*NoneV)
	return ok
}

func (ev *evaluator) requireBuffer(op, arg string, a tileArg) bool {
	switch a.v.(type) {
	case *BufferV, *RegionV:
		return true
	}
	if isErr(a.v) {
		ev.needConcrete(a.v, a.span, "Tx."+op+"'s "+arg)
		return false
	}
	ev.errorf(a.span, CodeType, "Tx.%s is tile-only and expects `%s` to be a Buffer or BufferRegion; use T.%s for expression/builtin calls", op, arg, op)
	return false
}

// tileOperand converts a bound argument: buffers become full regions,
// regions stay, scalars (when allowed) become expressions.
func (ev *evaluator) tileOperand(a tileArg, label, param string, scalarOK bool) (ir.Expr, bool) {
	switch x := a.v.(type) {
	case *BufferV:
		return fullRegion(x.B, a.span), true
	case *RegionV:
		return x.R, true
	}
	if isErr(a.v) {
		ev.needConcrete(a.v, a.span, label+" operands")
		return nil, false
	}
	if scalarOK {
		if e, ok := ev.toIR(a.v, ir.DataType{}); ok {
			return e, true
		}
	}
	what := "a buffer region"
	if scalarOK {
		what = "a buffer region or a scalar"
	}
	if param == "" {
		ev.errorf(a.span, CodeType, "%s operand must be %s, got %s", label, what, describe(a.v))
	} else {
		ev.errorf(a.span, CodeType, "%s `%s` must be %s, got %s", label, param, what, describe(a.v))
	}
	return nil, false
}

// lenientOperand converts an operand of a tile primitive outside spec
// §1.5: regions, scalars and strings convert; anything else (tuples of
// axes, lambdas) becomes nil.
func (ev *evaluator) lenientOperand(a tileArg) (ir.Expr, bool) {
	switch x := a.v.(type) {
	case *BufferV:
		return fullRegion(x.B, a.span), true
	case *RegionV:
		return x.R, true
	case *StrV:
		return &ir.StringImm{Value: x.V, Span: a.span}, true
	case *TupleV:
		return ev.tupleOperand(x.Elts, a)
	case *ListV:
		return ev.tupleOperand(x.Elts, a)
	}
	if isErr(a.v) {
		ev.needConcrete(a.v, a.span, "a tile primitive operand")
		return nil, false
	}
	if e, ok := ev.toIR(a.v, ir.DataType{}); ok {
		return e, true
	}
	return nil, true
}

// tupleOperand converts a tuple or list operand of scalars (a reduction's
// axes) into an *ir.Tuple; an element that is not a scalar makes the
// whole operand unknown (nil), as for any other lenient operand.
func (ev *evaluator) tupleOperand(elts []Value, a tileArg) (ir.Expr, bool) {
	t := &ir.Tuple{Elems: make([]ir.Expr, 0, len(elts)), Span: a.span}
	for _, v := range elts {
		if isErr(v) {
			ev.needConcrete(v, a.span, "a tile primitive operand")
			return nil, false
		}
		e, ok := ev.toIR(v, ir.DataType{})
		if !ok {
			return nil, true
		}
		t.Elems = append(t.Elems, e)
	}
	return t, true
}

func fullRegion(b *ir.Buffer, span source.Span) *ir.Region {
	r := &ir.Region{Buf: b, Min: make([]ir.Expr, len(b.Shape)), Extent: make([]ir.Expr, len(b.Shape)), Span: span}
	for i := range b.Shape {
		r.Min[i] = &ir.IntImm{Value: 0, Type: ir.Int32, Span: span}
		r.Extent[i] = dimExtent(b, i, span)
	}
	return r
}

// configValue converts one config keyword argument. ok is false when the
// value cannot be represented; Key is empty when an error was reported.
func (ev *evaluator) configValue(k kwarg, label string) (ir.KV, bool) {
	kv := ir.KV{Key: k.name, Span: k.span}
	switch x := k.v.(type) {
	case *NoneV:
		return kv, false // an absent option
	case *StrV:
		kv.Value = &ir.StringImm{Value: x.V, Span: x.span}
		return kv, true
	case *BufferV:
		kv.Value = &ir.BufferData{Buf: x.B, Span: x.span}
		return kv, true
	case *RegionV:
		kv.Value = x.R
		return kv, true
	case *DTypeV:
		kv.Value = &ir.StringImm{Value: x.DT.String(), Span: x.span}
		return kv, true
	case *ListV, *TupleV:
		// a sequence (gather4=[...], src_selector=[(pred, buf)]) is stored
		// as a tuple: variants that do not read the key ignore it, as the
		// reference ignores config keys it does not know
		if t, bad := ev.configSeq(k.v); bad == nil {
			kv.Value = t
			return kv, true
		} else if isErr(bad) {
			ev.needConcrete(bad, k.span, label+"'s "+k.name)
			return ir.KV{}, false
		}
	}
	if isErr(k.v) {
		ev.needConcrete(k.v, k.span, label+"'s "+k.name)
		return ir.KV{}, false
	}
	if e, ok := ev.toIR(k.v, ir.DataType{}); ok {
		kv.Value = e
		return kv, true
	}
	if !ev.halted {
		ev.report(diag.Diagnostic{Span: k.span, Severity: diag.Information, Code: CodeType,
			Message: fmt.Sprintf("%s config `%s` has a value of type %s that tilels cannot represent; the call is not dispatched", label, k.name, k.v.TypeName())})
	}
	// Without the option the call would mean something else: drop it.
	return ir.KV{}, false
}

// configSeq converts a list or tuple config value into an *ir.Tuple of
// scalars, strings, buffer data pointers, regions and nested tuples; bad
// is the first element it cannot represent.
func (ev *evaluator) configSeq(v Value) (t *ir.Tuple, bad Value) {
	var elts []Value
	switch x := v.(type) {
	case *ListV:
		elts = x.Elts
	case *TupleV:
		elts = x.Elts
	}
	t = &ir.Tuple{Elems: make([]ir.Expr, 0, len(elts)), Span: v.Span()}
	for _, e := range elts {
		var x ir.Expr
		switch y := e.(type) {
		case *ListV, *TupleV:
			sub, b := ev.configSeq(e)
			if b != nil {
				return nil, b
			}
			x = sub
		case *StrV:
			x = &ir.StringImm{Value: y.V, Span: y.span}
		case *BufferV:
			x = &ir.BufferData{Buf: y.B, Span: y.span}
		case *RegionV:
			x = y.R
		default:
			var ok bool
			if x, ok = ev.toIR(e, ir.DataType{}); !ok {
				return nil, e
			}
		}
		t.Elems = append(t.Elems, x)
	}
	return t, nil
}

// checkCopy runs the builder-side copy checks: region shapes (SEED
// _check_copy_regions_match, exact text), payload bytes for TMA variants,
// and dtypes (what every dispatch variant's validate_copy_op requires).
func (ev *evaluator) checkCopy(tc *ir.TileCall, name string, gather4 Value) bool {
	dst, ok1 := tc.Args[0].(*ir.Region)
	src, ok2 := tc.Args[1].(*ir.Region)
	if !ok1 || !ok2 {
		return true
	}
	if ev.opts.Release == release.R025 {
		// 0.25's builder (tirx.py copy/copy_async) checks nothing: a copy
		// between regions of different shapes reaches the dispatcher,
		// whose validate_copy_op declines every variant. From 0.26 the
		// builder's _check_copy_regions_match raises the errors below.
		return ev.checkCopyDtype(tc, dst, src, name)
	}
	if tc.Dispatch == "tma_auto" || tc.Dispatch == "tma_explicit" {
		db, dok := payloadBits(dst)
		sb, sok := payloadBits(src)
		if gather4 != nil {
			if !ev.checkGather4(tc, src, gather4) { // lib_builder_tirx.go
				return false
			}
			sb *= 4
		}
		if dok && sok && db != sb {
			ev.errorf(tc.Span, CodeShapeMismatch, "%s: dst payload %d bits != src payload %d bits; TMA operands must transfer the same total number of bytes", name, db, sb)
			return false
		}
		return true
	}
	de, se := squeeze(dst.Extent), squeeze(src.Extent)
	same := len(de) == len(se)
	for i := 0; same && i < len(de); i++ {
		same = proveEqual(de[i], se[i])
	}
	if !same {
		ev.errorf(tc.Span, CodeShapeMismatch, "%s: dst region shape %s != src region shape %s; copy operands must cover identical regions - reshape via buffer views (unflatten/select/narrow/...) instead",
			name, pyStrList(de), pyStrList(se))
		return false
	}
	return ev.checkCopyDtype(tc, dst, src, name)
}

// checkCopyDtype: the reference's builder checks shapes only (tirx.py
// _check_copy_regions); its variants move bits, so a copy between element
// types of one width (uint8 storage of float8 scale factors, TMA's
// byte-oriented copies) is a plain copy. tilels keeps refusing a copy
// between widths, which no variant could lower.
func (ev *evaluator) checkCopyDtype(tc *ir.TileCall, dst, src *ir.Region, name string) bool {
	if dst.Buf.Dtype != src.Buf.Dtype && dst.Buf.Dtype.Bits != src.Buf.Dtype.Bits {
		ev.errorf(tc.Span, CodeDtype, "%s: dst dtype %s != src dtype %s; copy does not convert, use Tx.cast", name, dst.Buf.Dtype, src.Buf.Dtype)
		return false
	}
	return true
}

func squeeze(exts []ir.Expr) []ir.Expr {
	var out []ir.Expr
	for _, e := range exts {
		if n, ok := ir.ConstInt(e); ok && n == 1 {
			continue
		}
		out = append(out, e)
	}
	return out
}

func pyStrList(es []ir.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = "'" + ExprString(e) + "'"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func payloadBits(r *ir.Region) (int64, bool) {
	n := int64(r.Buf.Dtype.Bits)
	for _, e := range r.Extent {
		x, ok := ir.ConstInt(e)
		if !ok {
			return 0, false
		}
		n *= x
	}
	return n, true
}

// checkOperandLayouts reports region operands whose buffer was declared
// with layout=None: every dispatch variant needs a layout. It returns
// false when it reported one.
func (ev *evaluator) checkOperandLayouts(tc *ir.TileCall) bool {
	ok := true
	seen := map[*ir.Buffer]bool{}
	for i, a := range tc.Args {
		r, isRegion := a.(*ir.Region)
		if isRegion && ev.kern.badLayout[r.Buf] {
			// The layout did not evaluate (reported there): a dispatch
			// result for a buffer without its layout would be wrong.
			return false
		}
		if !isRegion || r.Buf.Layout != nil || seen[r.Buf] || strings.HasPrefix(r.Buf.Scope, "trn.") {
			// A Trainium buffer's layout=None is the reference's own value:
			// its dispatcher decides the call (dispatch/trn raises "Invalid
			// layout" as the reference's InstructionGenerator does).
			continue
		}
		seen[r.Buf] = true
		sp := r.Span
		if i < len(tc.ArgSpans) && tc.ArgSpans[i].IsValid() {
			sp = tc.ArgSpans[i]
		}
		if r.Buf.RuntimeDim() >= 0 { // dynamic_shape.go
			if !ev.runtimeShapeOperand(tc, r, sp) {
				ok = false
			}
			continue
		}
		ev.errorf(sp, CodeMissingLayout, "buffer `%s` has no layout (declared with layout=None); Tx.%s needs one", r.Buf.Name, tc.Op)
		ok = false
	}
	return ok
}
