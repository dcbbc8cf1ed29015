package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

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

func txModuleAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if sc, ok := txScopes[name]; ok {
		return &eval.TxNSV{Base: eval.Base{At: span}, Scope: sc, Label: name}, true
	}
	if isTileOp(name) {
		return &eval.TxOpV{Base: eval.Base{At: span}, Op: name, Scope: "thread", NameSpan: span}, true
	}
	if name == "compose_op" {
		return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "Tx.compose_op"}, true
	}
	return nil, false
}

func txAttr(ev *eval.Evaluator, ns *eval.TxNSV, name string, nameSpan, span source.Span, quiet bool) eval.Value {
	if isTileOp(name) {
		return &eval.TxOpV{Base: eval.Base{At: span}, Op: name, Scope: ns.Scope, NameSpan: nameSpan}
	}
	if quiet {
		return nil
	}
	ev.Errorf(nameSpan, eval.CodeUnknownOp, "'Tx.%s.%s' is not a tile primitive; the 'Tx.%s.' scope prefix applies only to tile primitives", ns.Label, name, ns.Label)
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
	v    eval.Value
	span source.Span
}

// tileCall emits a TileCall for Tx.<scope>.<op>(...).
func tileCall(ev *eval.Evaluator, f *eval.TxOpV, c *eval.Call) eval.Value {
	label := "Tx." + f.Op
	if f.Scope != "thread" || strings.Contains(ev.Text(c.FnSpan), ".thread.") {
		label = "Tx." + f.Scope + "." + f.Op
	}
	if !ev.RequireKernel(c, label) {
		return eval.Poison(c.At)
	}
	if ev.ComposeOp > 0 { // trn_compose.go
		return composedTileCall(ev, c, label)
	}
	ev.CheckSurfaceName("Tx.", f.Op, c.FnSpan, "") // release_surface.go
	sig, known := tileSigs[f.Op]
	tc := &ir.TileCall{Op: f.Op, Scope: f.Scope, Span: c.At, OpSpan: c.FnSpan}
	bound := map[string]tileArg{}
	var generic []tileArg
	dispatchSpan := source.NoSpan // the dispatch= value expression
	for i, a := range c.Args {
		switch {
		case known && i < len(sig.params):
			bound[sig.params[i]] = tileArg{a, c.ArgSpans[i]}
		case known && i == len(sig.params): // workspace
		case known && i == len(sig.params)+1:
			bound["dispatch"] = tileArg{a, c.ArgSpans[i]}
			dispatchSpan = c.ArgSpans[i]
		case known:
			return ev.Errorf(c.ArgSpans[i], eval.CodeType, "%s() takes %d positional arguments but %d were given", label, len(sig.params)+2, len(c.Args))
		default:
			generic = append(generic, tileArg{a, c.ArgSpans[i]})
		}
	}
	ok := true
	for _, k := range c.Kwargs {
		switch {
		case k.Name == "**":
			ev.NeedConcrete(k.V, k.At, label+"'s keyword arguments")
			ok = false
		case known && slices.Contains(sig.params, k.Name):
			if _, dup := bound[k.Name]; dup {
				ev.Errorf(k.At, eval.CodeType, "%s() got multiple values for argument '%s'", label, k.Name)
				ok = false
				continue
			}
			bound[k.Name] = tileArg{k.V, k.At}
		case k.Name == "dispatch":
			bound["dispatch"] = tileArg{k.V, k.At}
			dispatchSpan = k.Vspan
		case k.Name == "workspace":
			trnWorkspace(ev, tc, k) // trn_workspace.go
		case k.Name == "scope":
		default:
			if cv, good := configValue(ev, k, label); good {
				tc.Config = append(tc.Config, cv)
			} else if cv.Key == "" {
				ok = false
			}
		}
	}
	if d, has := bound["dispatch"]; has {
		switch x := d.v.(type) {
		case *eval.StrV:
			tc.Dispatch, tc.DispatchSpan = x.V, dispatchSpan
		case *eval.NoneV:
		default:
			if eval.IsErr(x) {
				ev.NeedConcrete(x, d.span, label+"'s dispatch")
			} else {
				ev.Errorf(d.span, eval.CodeType, "dispatch must be a variant name string, got %s", eval.Describe(x))
			}
			ok = false
		}
	}
	if !ok {
		return eval.Poison(c.At)
	}
	if !known {
		for _, a := range generic {
			e, good := lenientOperand(ev, a)
			if !good {
				return eval.Poison(c.At)
			}
			tc.Args = append(tc.Args, e)
			tc.ArgSpans = append(tc.ArgSpans, a.span)
		}
		if checkOperandLayouts(ev, tc) {
			ev.EmitStmt(tc)
		}
		return &eval.NoneV{Base: eval.Base{At: c.At}}
	}
	for i := 0; i < sig.required; i++ {
		if _, has := bound[sig.params[i]]; !has {
			return ev.Errorf(c.At, eval.CodeType, "%s() missing required argument '%s'", label, sig.params[i])
		}
	}
	// Builder-side validation (tile.py _validate_tile_call): dst, and src
	// where the op needs it, must be a Buffer or BufferRegion.
	if d, has := bound["dst"]; has && !requireBuffer(ev, f.Op, "dst", d) {
		return eval.Poison(c.At)
	}
	switch f.Op {
	case "cast", "max", "min", "permute_layout", "silu", "copy", "copy_async":
		if src, has := bound["src"]; has && !requireBuffer(ev, f.Op, "src", src) {
			return eval.Poison(c.At)
		}
	case "sqrt", "exp", "exp2", "log2", "reciprocal":
		if src, has := bound["src"]; has {
			if _, none := src.v.(*eval.NoneV); !none && !requireBuffer(ev, f.Op, "src", src) {
				return eval.Poison(c.At)
			}
		}
	}
	for i, p := range sig.params {
		a, has := bound[p]
		if !has || eval.IsNoneV(a.v) {
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
			e, good = tileOperand(ev, a, label, p, !regionOnly)
		} else {
			e, good = lenientOperand(ev, a)
		}
		if !good {
			return eval.Poison(c.At)
		}
		tc.Args = append(tc.Args, e)
		tc.ArgSpans = append(tc.ArgSpans, a.span)
	}
	if f.Op == "copy" || f.Op == "copy_async" {
		// A gather4 copy_async reads four source rows the region does not
		// show (tirxlib/builder_tirx.go).
		g4, _ := c.Kw("gather4")
		if eval.IsNoneV(g4) {
			g4 = nil
		}
		if !checkCopy(ev, tc, f.Op, g4) {
			return eval.Poison(c.At)
		}
	}
	if checkOperandLayouts(ev, tc) {
		ev.EmitStmt(tc)
	}
	return &eval.NoneV{Base: eval.Base{At: c.At}}
}

func requireBuffer(ev *eval.Evaluator, op, arg string, a tileArg) bool {
	switch a.v.(type) {
	case *eval.BufferV, *eval.RegionV:
		return true
	}
	if eval.IsErr(a.v) {
		ev.NeedConcrete(a.v, a.span, "Tx."+op+"'s "+arg)
		return false
	}
	ev.Errorf(a.span, eval.CodeType, "Tx.%s is tile-only and expects `%s` to be a Buffer or BufferRegion; use T.%s for expression/builtin calls", op, arg, op)
	return false
}

// tileOperand converts a bound argument: buffers become full regions,
// regions stay, scalars (when allowed) become expressions.
func tileOperand(ev *eval.Evaluator, a tileArg, label, param string, scalarOK bool) (ir.Expr, bool) {
	switch x := a.v.(type) {
	case *eval.BufferV:
		return fullRegion(x.B, a.span), true
	case *eval.RegionV:
		return x.R, true
	}
	if eval.IsErr(a.v) {
		ev.NeedConcrete(a.v, a.span, label+" operands")
		return nil, false
	}
	if scalarOK {
		if e, ok := ev.ToIR(a.v, ir.DataType{}); ok {
			return e, true
		}
	}
	what := "a buffer region"
	if scalarOK {
		what = "a buffer region or a scalar"
	}
	if param == "" {
		ev.Errorf(a.span, eval.CodeType, "%s operand must be %s, got %s", label, what, eval.Describe(a.v))
	} else {
		ev.Errorf(a.span, eval.CodeType, "%s `%s` must be %s, got %s", label, param, what, eval.Describe(a.v))
	}
	return nil, false
}

// lenientOperand converts an operand of a tile primitive outside spec
// §1.5: regions, scalars and strings convert; anything else (tuples of
// axes, lambdas) becomes nil.
func lenientOperand(ev *eval.Evaluator, a tileArg) (ir.Expr, bool) {
	switch x := a.v.(type) {
	case *eval.BufferV:
		return fullRegion(x.B, a.span), true
	case *eval.RegionV:
		return x.R, true
	case *eval.StrV:
		return &ir.StringImm{Value: x.V, Span: a.span}, true
	case *eval.TupleV:
		return tupleOperand(ev, x.Elts, a)
	case *eval.ListV:
		return tupleOperand(ev, x.Elts, a)
	}
	if eval.IsErr(a.v) {
		ev.NeedConcrete(a.v, a.span, "a tile primitive operand")
		return nil, false
	}
	if e, ok := ev.ToIR(a.v, ir.DataType{}); ok {
		return e, true
	}
	return nil, true
}

// tupleOperand converts a tuple or list operand of scalars (a reduction's
// axes) into an *ir.Tuple; an element that is not a scalar makes the
// whole operand unknown (nil), as for any other lenient operand.
func tupleOperand(ev *eval.Evaluator, elts []eval.Value, a tileArg) (ir.Expr, bool) {
	t := &ir.Tuple{Elems: make([]ir.Expr, 0, len(elts)), Span: a.span}
	for _, v := range elts {
		if eval.IsErr(v) {
			ev.NeedConcrete(v, a.span, "a tile primitive operand")
			return nil, false
		}
		e, ok := ev.ToIR(v, ir.DataType{})
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
		r.Extent[i] = eval.DimExtent(b, i, span)
	}
	return r
}

// configValue converts one config keyword argument. ok is false when the
// value cannot be represented; Key is empty when an error was reported.
func configValue(ev *eval.Evaluator, k eval.Kwarg, label string) (ir.KV, bool) {
	kv := ir.KV{Key: k.Name, Span: k.At}
	switch x := k.V.(type) {
	case *eval.NoneV:
		return kv, false // an absent option
	case *eval.StrV:
		kv.Value = &ir.StringImm{Value: x.V, Span: x.At}
		return kv, true
	case *eval.BufferV:
		kv.Value = &ir.BufferData{Buf: x.B, Span: x.At}
		return kv, true
	case *eval.RegionV:
		kv.Value = x.R
		return kv, true
	case *eval.DTypeV:
		kv.Value = &ir.StringImm{Value: x.DT.String(), Span: x.At}
		return kv, true
	case *eval.ListV, *eval.TupleV:
		// a sequence (gather4=[...], src_selector=[(pred, buf)]) is stored
		// as a tuple: variants that do not read the key ignore it, as the
		// reference ignores config keys it does not know
		if t, bad := configSeq(ev, k.V); bad == nil {
			kv.Value = t
			return kv, true
		} else if eval.IsErr(bad) {
			ev.NeedConcrete(bad, k.At, label+"'s "+k.Name)
			return ir.KV{}, false
		}
	}
	if eval.IsErr(k.V) {
		ev.NeedConcrete(k.V, k.At, label+"'s "+k.Name)
		return ir.KV{}, false
	}
	if e, ok := ev.ToIR(k.V, ir.DataType{}); ok {
		kv.Value = e
		return kv, true
	}
	if !ev.Halted {
		ev.Report(diag.Diagnostic{Span: k.At, Severity: diag.Information, Code: eval.CodeType,
			Message: fmt.Sprintf("%s config `%s` has a value of type %s that tilels cannot represent; the call is not dispatched", label, k.Name, k.V.TypeName())})
	}
	// Without the option the call would mean something else: drop it.
	return ir.KV{}, false
}

// configSeq converts a list or tuple config value into an *ir.Tuple of
// scalars, strings, buffer data pointers, regions and nested tuples; bad
// is the first element it cannot represent.
func configSeq(ev *eval.Evaluator, v eval.Value) (t *ir.Tuple, bad eval.Value) {
	var elts []eval.Value
	switch x := v.(type) {
	case *eval.ListV:
		elts = x.Elts
	case *eval.TupleV:
		elts = x.Elts
	}
	t = &ir.Tuple{Elems: make([]ir.Expr, 0, len(elts)), Span: v.Span()}
	for _, e := range elts {
		var x ir.Expr
		switch y := e.(type) {
		case *eval.ListV, *eval.TupleV:
			sub, b := configSeq(ev, e)
			if b != nil {
				return nil, b
			}
			x = sub
		case *eval.StrV:
			x = &ir.StringImm{Value: y.V, Span: y.At}
		case *eval.BufferV:
			x = &ir.BufferData{Buf: y.B, Span: y.At}
		case *eval.RegionV:
			x = y.R
		default:
			var ok bool
			if x, ok = ev.ToIR(e, ir.DataType{}); !ok {
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
func checkCopy(ev *eval.Evaluator, tc *ir.TileCall, name string, gather4 eval.Value) bool {
	dst, ok1 := tc.Args[0].(*ir.Region)
	src, ok2 := tc.Args[1].(*ir.Region)
	if !ok1 || !ok2 {
		return true
	}
	if ev.Opts.Release == release.R025 {
		// 0.25's builder (tirx.py copy/copy_async) checks nothing: a copy
		// between regions of different shapes reaches the dispatcher,
		// whose validate_copy_op declines every variant. From 0.26 the
		// builder's _check_copy_regions_match raises the errors below.
		return checkCopyDtype(ev, tc, dst, src, name)
	}
	if tc.Dispatch == "tma_auto" || tc.Dispatch == "tma_explicit" {
		db, dok := payloadBits(dst)
		sb, sok := payloadBits(src)
		if gather4 != nil {
			if !checkGather4(ev, tc, src, gather4) { // library.go
				return false
			}
			sb *= 4
		}
		if dok && sok && db != sb {
			ev.Errorf(tc.Span, eval.CodeShapeMismatch, "%s: dst payload %d bits != src payload %d bits; TMA operands must transfer the same total number of bytes", name, db, sb)
			return false
		}
		return true
	}
	de, se := squeeze(dst.Extent), squeeze(src.Extent)
	same := len(de) == len(se)
	for i := 0; same && i < len(de); i++ {
		same = eval.ProveEqual(de[i], se[i])
	}
	if !same {
		ev.Errorf(tc.Span, eval.CodeShapeMismatch, "%s: dst region shape %s != src region shape %s; copy operands must cover identical regions - reshape via buffer views (unflatten/select/narrow/...) instead",
			name, pyStrList(de), pyStrList(se))
		return false
	}
	return checkCopyDtype(ev, tc, dst, src, name)
}

// checkCopyDtype: the reference's builder checks shapes only (tirx.py
// _check_copy_regions); its variants move bits, so a copy between element
// types of one width (uint8 storage of float8 scale factors, TMA's
// byte-oriented copies) is a plain copy. tilels keeps refusing a copy
// between widths, which no variant could lower.
func checkCopyDtype(ev *eval.Evaluator, tc *ir.TileCall, dst, src *ir.Region, name string) bool {
	if dst.Buf.Dtype != src.Buf.Dtype && dst.Buf.Dtype.Bits != src.Buf.Dtype.Bits {
		ev.Errorf(tc.Span, eval.CodeDtype, "%s: dst dtype %s != src dtype %s; copy does not convert, use Tx.cast", name, dst.Buf.Dtype, src.Buf.Dtype)
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
		parts[i] = "'" + eval.ExprString(e) + "'"
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
func checkOperandLayouts(ev *eval.Evaluator, tc *ir.TileCall) bool {
	ok := true
	seen := map[*ir.Buffer]bool{}
	for i, a := range tc.Args {
		r, isRegion := a.(*ir.Region)
		if isRegion && ev.Kern.BadLayout[r.Buf] {
			// The layout did not evaluate (reported there): a dispatch
			// result for a buffer without its layout would be wrong.
			return false
		}
		if isRegion && r.Buf.InsideSwizzle() {
			sp := r.Span
			if i < len(tc.ArgSpans) && tc.ArgSpans[i].IsValid() {
				sp = tc.ArgSpans[i]
			}
			if !ev.InsideSwizzleOperand(tc, r, sp) { // (eval/kernel.go)
				return false
			}
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
			if !ev.RuntimeShapeOperand(tc, r, sp) {
				ok = false
			}
			continue
		}
		ev.Errorf(sp, eval.CodeMissingLayout, "buffer `%s` has no layout (declared with layout=None); Tx.%s needs one", r.Buf.Name, tc.Op)
		ok = false
	}
	return ok
}

// txScope is the scope a Tx.<name> namespace stands for.
func txScope(name string) (string, bool) {
	sc, ok := txScopes[name]
	return sc, ok
}
