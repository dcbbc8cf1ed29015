// Package tirx prints a (lowered or not) ir.Func as Python-like TVMScript
// text, the shape of spec §4.1 "Expected lowered IR":
//
//	@T.prim_func
//	def kernel(A_ptr: T.handle):
//	    # launch: grid=(1, 1, 1), block=(32, 1, 1)
//	    A = T.match_buffer(A_ptr, (32, 32), "float32", layout=T.TileLayout(T.S[(32, 32):(32, 1)]))
//	    T.device_entry()
//	    tid = T.lane_id([32])
//	    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=None)
//	    # Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32]) -> gmem_smem
//	    for f in range(8):
//	        T.cuda.copy_bytes(T.tvm_builtin_pointer_offset(T.address_of(A_smem[0]), f * 128 + tid * 4), ...)
//
// Contract: Print accepts any well-formed ir.Func (before or after dispatch)
// and never fails; a malformed node prints as a visible placeholder
// ("<nil>", "<bad ...>") instead of panicking.
//
// Invariants:
//   - Output is deterministic: names are uniquified in first-use order
//     (a duplicate name gets _1, _2, ...; see names.go).
//   - Expressions are parenthesised by Python precedence, minimally: the
//     text parses back to the same tree.
//   - An ir.Lowered prints as one comment line "# Tx.<scope>.<op>(args) ->
//     <variant>" followed by its body at the same indentation; an
//     unlowered ir.TileCall prints as the original Tx call.
//   - Each of Func.TensorMaps prints, before T.device_entry(), as TVM's host
//     init: a T.tvm_stack_alloca'd handle and its
//     T.call_packed("runtime.cuTensorMapEncodeTiled", ...) (spec §4.5.4);
//     ir.TensorMapAddr prints as T.address_of(<map>).
//   - Intrinsic calls print as "T." + Call.Op (ops are named after their
//     TVMScript spelling in ir/ops.go), casts as T.Cast, selects as T.Select,
//     ir.ThreadIndex as TVM's _axis_decl spells it (T.lane_id(), threadIdx.x, ...), flat addresses
//     (AddressOf.FlatIndex) with a single index.
package tirx

import (
	"fmt"
	"github.com/tilels/tilels/internal/names"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Print renders fn as TVMScript text. launch, when not the zero value, is
// shown as a comment line at the top of the body.
func Print(fn *ir.Func, launch ir.Launch) string {
	p := &printer{names: names.New(pyReservedSet)}
	p.fn(fn, launch)
	return p.b.String()
}

// CallString renders a tile call as it was written, e.g.
// `Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])`, using the Python names
// of buffers and variables as they are (not uniquified), e.g. for a
// diagnostic or a hover.
func CallString(c *ir.TileCall) string {
	p := &printer{}
	return p.tileCall(c)
}

// ExprString renders one expression with raw (not uniquified) names.
func ExprString(e ir.Expr) string {
	p := &printer{}
	return p.expr(e)
}

var pyReserved = []string{
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
	"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield", "T", "Tx", "range",
}

var pyReservedSet = names.Reserved(pyReserved...)

type printer struct {
	b      strings.Builder
	indent int
	names  *names.Namer // nil: raw names

	// inCall counts the tile calls being printed; calls records the
	// bytes of each top-level one (PrintMap).
	inCall int
	calls  []CallLines
}

// CallLines is where PrintMap printed one top-level tile call's lowering:
// its "# Tx...(...) -> variant" comment and its body, lines [Start, End)
// (0-based, End exclusive). Call is the tile call's span. A tile call
// nested in another's lowering is part of the outer call's lines.
type CallLines struct {
	Call       source.Span
	Start, End int
}

// PrintMap is Print, with where each top-level tile call's lowering is in
// the text, in printing order.
func PrintMap(fn *ir.Func, launch ir.Launch) (string, []CallLines) {
	p := &printer{names: names.New(pyReservedSet)}
	p.fn(fn, launch)
	s := p.b.String()
	at, line := 0, 0
	lineOf := func(off int) int {
		line += strings.Count(s[at:off], "\n")
		at = off
		return line
	}
	for i := range p.calls {
		p.calls[i].Start = lineOf(p.calls[i].Start)
		p.calls[i].End = lineOf(p.calls[i].End)
	}
	return s, p.calls
}

func (p *printer) name(key any, want string) string {
	if p.names == nil {
		return names.Sanitize(want)
	}
	return p.names.Name(key, want)
}

func (p *printer) line(format string, args ...any) {
	p.b.WriteString(strings.Repeat("    ", p.indent))
	fmt.Fprintf(&p.b, format, args...)
	p.b.WriteByte('\n')
}

func (p *printer) fn(fn *ir.Func, launch ir.Launch) {
	if fn == nil {
		p.line("# <nil function>")
		return
	}
	var params []string
	for _, prm := range fn.Params {
		if !prm.Implicit {
			params = append(params, p.param(prm))
		}
	}
	p.line("@T.prim_func")
	p.line("def %s(%s):", names.Sanitize(fn.Name), strings.Join(params, ", "))
	p.indent++
	if launch != (ir.Launch{}) {
		ls := launchString(launch)
		if launch.GridExpr != [3]ir.Expr{} {
			// A runtime grid (T.cta_id([n])): its extents, not 0.
			g := make([]string, 3)
			for i, e := range launch.GridExpr {
				g[i] = strconv.FormatInt(launch.Grid[i], 10)
				if e != nil {
					g[i] = p.expr(e)
				}
			}
			ls = strings.Replace(ls, dims(launch.Grid), "("+strings.Join(g, ", ")+")", 1)
		}
		p.line("# launch: %s", ls)
	}
	for _, prm := range fn.Params {
		if prm != nil && prm.Implicit { // n = T.int32(), bound by a buffer shape
			p.line("%s = T.%s()", p.name(prm.Var, varName(prm.Var)), prm.Var.Type)
		}
	}
	for _, prm := range fn.Params {
		if prm == nil || prm.Buf == nil {
			continue
		}
		b := prm.Buf
		args := []string{p.name(prm.Var, varName(prm.Var)), shapeString(b.Shape), strconv.Quote(b.Dtype.String())}
		if b.RuntimeDim() >= 0 {
			args[1] = p.runtimeShape(b)
		} else {
			args = append(args, "layout="+LayoutString(b.Layout))
		}
		if b.ElemOffset != 0 {
			args = append(args, fmt.Sprintf("elem_offset=%d", b.ElemOffset))
		}
		p.line("%s = T.match_buffer(%s)", p.name(b, b.Name), strings.Join(args, ", "))
	}
	if fn.Host != nil {
		p.stmts(fn.Host.Stmts)
	}
	for _, m := range fn.TensorMaps {
		p.tensorMapInit(m)
	}
	p.line("T.device_entry()")
	if fn.Body != nil {
		p.stmts(fn.Body.Stmts)
	}
	p.indent--
}

func varName(v *ir.Var) string {
	if v == nil {
		return "v"
	}
	return v.Name
}

func (p *printer) param(prm *ir.Param) string {
	if prm == nil || prm.Var == nil {
		return "<bad param>"
	}
	n := p.name(prm.Var, prm.Var.Name)
	if prm.TensorMap {
		return n + ": T.TensorMap()"
	}
	if prm.Buf != nil || prm.Var.Type.Code == ir.Handle {
		return n + ": T.handle"
	}
	return n + ": T." + prm.Var.Type.String()
}

func launchString(l ir.Launch) string {
	s := fmt.Sprintf("grid=%s, block=%s", dims(l.Grid), dims(l.Block))
	if l.Cluster != [3]int64{1, 1, 1} && l.Cluster != [3]int64{} {
		s += ", cluster=" + dims(l.Cluster)
	}
	if l.DynamicSmem != 0 {
		s += fmt.Sprintf(", dynamic_smem=%d", l.DynamicSmem)
	}
	return s
}

func dims(d [3]int64) string { return fmt.Sprintf("(%d, %d, %d)", d[0], d[1], d[2]) }

// runtimeShape prints the shape of a buffer with a runtime dimension
// (its layout is the default one over that shape, not printed).
func (p *printer) runtimeShape(b *ir.Buffer) string {
	parts := make([]string, len(b.Shape))
	for i, e := range b.Shape {
		parts[i] = strconv.FormatInt(e, 10)
		if i < len(b.ShapeExpr) && b.ShapeExpr[i] != nil {
			parts[i] = p.expr(b.ShapeExpr[i])
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func shapeString(shape []int64) string {
	parts := make([]string, len(shape))
	for i, e := range shape {
		parts[i] = strconv.FormatInt(e, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// LayoutString prints a layout as a TVMScript constructor:
// T.TileLayout(T.S[(8, 4):(4@laneid, 1)] + T.R[(2,):(4@warpid,)] + 5@warpid + 3),
// T.ComposeLayout(p, sw, at, <tile>[, swizzle_inner=False]), or None.
func LayoutString(l layout.Layout) string {
	switch l := l.(type) {
	case nil:
		return "None"
	case *layout.TileLayout:
		if l == nil {
			return "None"
		}
		return "T.TileLayout(" + tileSpec(l) + ")"
	case *layout.ComposeLayout:
		if l == nil {
			return "None"
		}
		s := fmt.Sprintf("T.ComposeLayout(%d, %d, %d, T.TileLayout(%s)", l.PerElement, l.SwizzleLen, l.AtomLen, tileSpec(l.Tile))
		if !l.SwizzleInner {
			s += ", swizzle_inner=False"
		}
		return s + ")"
	}
	return fmt.Sprintf("<bad layout %T>", l)
}

func tileSpec(l *layout.TileLayout) string {
	if l == nil {
		return "<nil tile>"
	}
	s := "T.S" + iters(l.Shard)
	if len(l.Replica) > 0 {
		s += " + T.R" + iters(l.Replica)
	}
	// Offsets: m first, then other axes by name (deterministic).
	var axes []*layout.Axis
	for a := range l.Offset {
		axes = append(axes, a)
	}
	sortAxes(axes)
	for _, a := range axes {
		s += " + " + strideStr(l.Offset[a], a)
	}
	return s
}

func sortAxes(axes []*layout.Axis) {
	key := func(a *layout.Axis) string {
		if a == layout.M {
			return ""
		}
		return a.Name
	}
	for i := 1; i < len(axes); i++ {
		for j := i; j > 0 && key(axes[j]) < key(axes[j-1]); j-- {
			axes[j], axes[j-1] = axes[j-1], axes[j]
		}
	}
}

func iters(its []layout.Iter) string {
	ext := make([]string, len(its))
	str := make([]string, len(its))
	for i, it := range its {
		ext[i] = strconv.FormatInt(it.Extent, 10)
		str[i] = strideStr(it.Stride, it.Axis)
	}
	if len(its) == 1 {
		return "[(" + ext[0] + ",):(" + str[0] + ",)]"
	}
	return "[(" + strings.Join(ext, ", ") + "):(" + strings.Join(str, ", ") + ")]"
}

func strideStr(s int64, a *layout.Axis) string {
	if a == nil || a == layout.M {
		return strconv.FormatInt(s, 10)
	}
	return strconv.FormatInt(s, 10) + "@" + a.Name
}

// ---- statements ----

// printed reports whether s prints (a statement the evaluation left out
// does not: ir.Comment.LeftOut).
func printed(s ir.Stmt) bool {
	c, ok := s.(*ir.Comment)
	return !ok || !c.LeftOut
}

func (p *printer) stmts(ss []ir.Stmt) {
	for _, s := range ss {
		p.stmt(s)
	}
}

func (p *printer) body(b *ir.Block) {
	p.indent++
	if b == nil || !slices.ContainsFunc(b.Stmts, printed) {
		p.line("pass")
	} else {
		p.stmts(b.Stmts)
	}
	p.indent--
}

func (p *printer) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case nil:
		p.line("<nil stmt>")
	case *ir.Block:
		if s != nil {
			p.stmts(s.Stmts)
		}
	case *ir.For:
		v := p.name(s.Var, varName(s.Var))
		fn := "range"
		switch s.Kind {
		case ir.Unrolled:
			fn = "T.unroll"
		case ir.Vectorized:
			fn = "T.vectorized"
		}
		kw := ""
		switch {
		case s.Unroll == 1:
			kw = ", unroll=False"
		case s.Unroll == ir.UnrollFull:
			kw = ", unroll=True"
		case s.Unroll > 1:
			kw = fmt.Sprintf(", unroll=%d", s.Unroll)
		}
		if kw != "" && s.Kind == ir.Serial {
			fn = "T.serial"
		} else if kw != "" {
			kw = fmt.Sprintf(", annotations={%q: %s}", "pragma_unroll", strings.TrimPrefix(kw, ", unroll="))
			if s.Unroll == 1 {
				kw = `, annotations={"disable_unroll": True}`
			}
		}
		if s.Min == nil {
			p.line("for %s in %s(%s%s):", v, fn, p.expr(s.Extent), kw)
		} else if lo, ok := ir.ConstInt(s.Min); ok && lo == 0 {
			p.line("for %s in %s(%s%s):", v, fn, p.expr(s.Extent), kw)
		} else {
			p.line("for %s in %s(%s, %s%s):", v, fn, p.expr(s.Min), p.expr(ir.AddE(s.Min, s.Extent)), kw)
		}
		p.body(s.Body)
	case *ir.While:
		p.line("while %s:", p.expr(s.Cond))
		p.body(s.Body)
	case *ir.If:
		p.line("if %s:", p.expr(s.Cond))
		p.body(s.Then)
		if s.Else != nil {
			p.line("else:")
			p.body(s.Else)
		}
	case *ir.Store:
		p.line("%s = %s", p.access(s.Buf, s.Indices, false), p.expr(s.Value))
	case *ir.Evaluate:
		p.line("%s", p.expr(s.X))
	case *ir.Let:
		v := p.name(s.Var, varName(s.Var))
		if s.Mutable && s.Var != nil {
			p.line("%s: T.%s = %s", v, s.Var.Type.String(), p.expr(s.Value))
		} else {
			p.line("%s = %s", v, p.expr(s.Value))
		}
	case *ir.Assign:
		p.line("%s = %s", p.name(s.Var, varName(s.Var)), p.expr(s.Value))
	case *ir.Alloc:
		b := s.Buf
		if b == nil {
			p.line("<bad alloc>")
			return
		}
		p.line("%s = T.alloc_buffer(%s, %s, scope=%s, layout=%s)", p.name(b, b.Name),
			shapeString(b.Shape), strconv.Quote(b.Dtype.String()), strconv.Quote(b.Scope), LayoutString(b.Layout))
	case *ir.Decl:
		b := s.Buf
		if b == nil {
			p.line("<bad decl>")
			return
		}
		data := "None"
		switch {
		case b.Base != nil:
			data = p.name(b.Base, b.Base.Name) + ".data"
		case b.Data != nil:
			data = p.name(b.Data, b.Data.Name)
		}
		shape := shapeString(b.Shape)
		if b.RuntimeDim() >= 0 {
			shape = p.runtimeShape(b)
		}
		args := []string{shape, strconv.Quote(b.Dtype.String()), "data=" + data}
		switch {
		case b.ElemOffsetExpr != nil:
			args = append(args, "elem_offset="+p.expr(ir.SimplifyIndex(ir.AddE(b.ElemOffsetExpr, ir.Const(b.ElemOffset)))))
		case b.ElemOffset != 0:
			args = append(args, fmt.Sprintf("elem_offset=%d", b.ElemOffset))
		}
		args = append(args, "scope="+strconv.Quote(b.Scope), "layout="+LayoutString(b.Layout))
		note := ""
		if b.OffsetInSwizzle {
			// (TVM folds this offset into the swizzled tile's m offset)
			note = "  # elem_offset lies inside the swizzle"
		}
		p.line("%s = T.decl_buffer(%s)%s", p.name(b, b.Name), strings.Join(args, ", "), note)
	case *ir.ScopeID:
		vs := make([]string, len(s.Vars))
		for i, v := range s.Vars {
			vs[i] = p.name(v, varName(v))
		}
		ext := ""
		if s.Extents != nil {
			es := make([]string, len(s.Extents))
			for i, e := range s.Extents {
				es[i] = strconv.FormatInt(e, 10)
			}
			ext = "[" + strings.Join(es, ", ") + "]"
		} else if s.Dynamic != nil {
			es := make([]string, len(s.Dynamic))
			for i, e := range s.Dynamic {
				es[i] = p.expr(e)
			}
			ext = "[" + strings.Join(es, ", ") + "]"
		}
		call := fmt.Sprintf("T.%s(%s)", s.Kind, ext)
		if len(vs) == 0 {
			p.line("%s", call)
		} else {
			p.line("%s = %s", strings.Join(vs, ", "), call)
		}
	case *ir.TileCall:
		p.line("%s", p.tileCall(s))
	case *ir.Lowered:
		call := "<nil call>"
		if s.Call != nil {
			call = p.tileCall(s.Call)
		}
		start := p.b.Len()
		variant := s.Variant
		if variant == "" && s.Call != nil {
			variant = "not lowered (see its error)" // as the CUDA printer says it
		}
		p.line("# %s -> %s", call, variant)
		p.inCall++
		if s.Body == nil || len(s.Body.Stmts) == 0 {
			p.line("pass")
		} else {
			p.stmts(s.Body.Stmts)
			if onlyComments(s.Body.Stmts) { // a plan that is not printed (Trainium)
				p.line("pass")
			}
		}
		p.inCall--
		if p.inCall == 0 && s.Call != nil {
			p.calls = append(p.calls, CallLines{Call: s.Call.Span, Start: start, End: p.b.Len()})
		}
	case *ir.Break:
		p.line("break")
	case *ir.Continue:
		p.line("continue")
	case *ir.Comment:
		if s.LeftOut {
			break // (a statement left out: not code)
		}
		for _, l := range strings.Split(s.Text, "\n") {
			p.line("# %s", l)
		}
	default:
		p.line("<bad stmt %T>", s)
	}
}

func (p *printer) tileCall(c *ir.TileCall) string {
	var args []string
	for _, a := range c.WrittenArgs() {
		args = append(args, p.expr(a))
	}
	for _, kv := range c.Config {
		args = append(args, kv.Key+"="+p.expr(kv.Value))
	}
	if c.Dispatch != "" {
		args = append(args, "dispatch="+strconv.Quote(c.Dispatch))
	}
	callee := "Tx."
	if c.Scope != "" {
		callee += c.Scope + "."
	}
	return callee + c.Op + "(" + strings.Join(args, ", ") + ")"
}

// ---- expressions ----

// Python precedence levels (higher binds tighter).
const (
	precOr = 1 + iota
	precAnd
	precNot
	precCmp
	precBitOr
	precBitXor
	precBitAnd
	precShift
	precAdd
	precMul
	precUnary
	precAtom
)

var binInfo = map[ir.BinOp]struct {
	tok  string
	prec int
}{
	ir.Add: {"+", precAdd}, ir.Sub: {"-", precAdd},
	ir.Mul: {"*", precMul}, ir.FloorDiv: {"//", precMul}, ir.FloorMod: {"%", precMul}, ir.Div: {"/", precMul},
	ir.EQ: {"==", precCmp}, ir.NE: {"!=", precCmp}, ir.LT: {"<", precCmp}, ir.LE: {"<=", precCmp},
	ir.GT: {">", precCmp}, ir.GE: {">=", precCmp},
	ir.And: {"and", precAnd}, ir.Or: {"or", precOr},
	ir.BitAnd: {"&", precBitAnd}, ir.BitOr: {"|", precBitOr}, ir.BitXor: {"^", precBitXor},
	ir.Shl: {"<<", precShift}, ir.Shr: {">>", precShift},
}

func (p *printer) expr(e ir.Expr) string {
	s, _ := p.exprPrec(e)
	return s
}

// wrap returns e's text, parenthesised when its precedence is below min.
func (p *printer) wrap(e ir.Expr, min int) string {
	s, prec := p.exprPrec(e)
	if prec < min {
		return "(" + s + ")"
	}
	return s
}

func (p *printer) exprPrec(e ir.Expr) (string, int) {
	switch e := e.(type) {
	case nil:
		return "None", precAtom
	case *ir.IntImm:
		return intImm(e)
	case *ir.FloatImm:
		return fmt.Sprintf("T.%s(%s)", e.Type, pyFloat(e.Value)), precAtom
	case *ir.StringImm:
		return pyQuote(e.Value), precAtom
	case *ir.Var:
		if e == nil {
			return "<nil var>", precAtom
		}
		return p.name(e, e.Name), precAtom
	case *ir.Binary:
		switch e.Op {
		case ir.Min:
			return "T.min(" + p.expr(e.A) + ", " + p.expr(e.B) + ")", precAtom
		case ir.Max:
			return "T.max(" + p.expr(e.A) + ", " + p.expr(e.B) + ")", precAtom
		}
		info, ok := binInfo[e.Op]
		if !ok {
			return fmt.Sprintf("<bad binop %d>(%s, %s)", e.Op, p.expr(e.A), p.expr(e.B)), precAtom
		}
		left, right := info.prec, info.prec+1
		switch {
		case info.prec == precCmp:
			left = precCmp + 1 // comparisons chain in Python: parenthesise nested ones
		case info.prec >= precBitOr && info.prec <= precShift:
			// Correct but unreadable without parentheses (a ^ a >> 3 & 56):
			// bitwise operands that are other operators get them.
			left, right = precAtom, precAtom
			if a, ok := e.A.(*ir.Binary); ok && a.Op == e.Op {
				left = info.prec
			}
		}
		return p.wrap(e.A, left) + " " + info.tok + " " + p.wrap(e.B, right), info.prec
	case *ir.Not:
		return "not " + p.wrap(e.X, precNot), precNot
	case *ir.Neg:
		return "-" + p.wrap(e.X, precUnary), precUnary
	case *ir.Load:
		return p.access(e.Buf, e.Indices, false), precAtom
	case *ir.Call:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = p.expr(a)
		}
		return "T." + e.Op + "(" + strings.Join(args, ", ") + ")", precAtom
	case *ir.Cast:
		return "T.Cast(" + strconv.Quote(e.To.String()) + ", " + p.expr(e.X) + ")", precAtom
	case *ir.Select:
		return "T.Select(" + p.expr(e.Cond) + ", " + p.expr(e.A) + ", " + p.expr(e.B) + ")", precAtom
	case *ir.AddressOf:
		return "T.address_of(" + p.access(e.Buf, e.Indices, e.FlatIndex) + ")", precAtom
	case *ir.BufferData:
		if e.Buf == nil {
			return "<nil buffer>.data", precAtom
		}
		return p.name(e.Buf, e.Buf.Name) + ".data", precAtom
	case *ir.Region:
		return p.region(e), precAtom
	case *ir.Tuple:
		parts := make([]string, len(e.Elems))
		for i, x := range e.Elems {
			parts[i] = p.expr(x)
		}
		if len(parts) == 1 {
			return "(" + parts[0] + ",)", precAtom
		}
		return "(" + strings.Join(parts, ", ") + ")", precAtom
	case *ir.ThreadIndex:
		return threadIndexText(e.Axis), precAtom
	case *ir.TensorMapAddr:
		if e.Map == nil {
			return "T.address_of(<nil tensormap>)", precAtom
		}
		return "T.address_of(" + p.name(e.Map, e.Map.Name) + ")", precAtom
	}
	return fmt.Sprintf("<bad expr %T>", e), precAtom
}

func intImm(e *ir.IntImm) (string, int) {
	prec := precAtom
	if e.Value < 0 {
		prec = precUnary
	}
	v := strconv.FormatInt(e.Value, 10)
	switch e.Type {
	case ir.Int32, ir.DataType{}:
		return v, prec
	case ir.BoolT:
		if e.Value != 0 {
			return "True", precAtom
		}
		return "False", precAtom
	}
	return "T." + e.Type.String() + "(" + v + ")", precAtom
}

func pyFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return `"nan"`
	case math.IsInf(v, 1):
		return `"inf"`
	case math.IsInf(v, -1):
		return `"-inf"`
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".en") {
		s += ".0"
	}
	return s
}

func pyQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (p *printer) access(buf *ir.Buffer, idx []ir.Expr, flat bool) string {
	if buf == nil {
		return "<nil buffer>"
	}
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = p.expr(x)
	}
	_ = flat // a flat address prints its single element offset as the only index
	return p.name(buf, buf.Name) + "[" + strings.Join(parts, ", ") + "]"
}

func (p *printer) region(r *ir.Region) string {
	if r.Buf == nil {
		return "<nil buffer>[]"
	}
	parts := make([]string, len(r.Min))
	for i := range r.Min {
		var ext ir.Expr = ir.Const(1)
		if i < len(r.Extent) {
			ext = r.Extent[i]
		}
		parts[i] = p.expr(r.Min[i]) + ":" + p.expr(ir.AddE(r.Min[i], ext))
	}
	return p.name(r.Buf, r.Buf.Name) + "[" + strings.Join(parts, ", ") + "]"
}

// threadIndexText spells a thread index the way TVM's _axis_decl builds it
// (spec §3.4): tx is the threadIdx.x launch variable, the others are the
// scope-id builtins. Unknown axes fall back to T.thread_index("<axis>").
func threadIndexText(axis string) string {
	switch axis {
	case "tx":
		return "threadIdx.x"
	case "laneid":
		return "T.lane_id()"
	case "warpid":
		return "T.warp_id()"
	case "wgid":
		return "T.warpgroup_id()"
	case "tid_in_wg":
		return "T.thread_id_in_wg()"
	case "wid_in_wg":
		return "T.warp_id_in_wg()"
	case "bx", "by", "bz":
		return "blockIdx." + axis[1:]
	}
	return "T.thread_index(" + strconv.Quote(axis) + ")"
}

// TensorMapInit returns the host statements that encode m (see
// tensorMapInit), for hovers that show one call's descriptor.
func TensorMapInit(m *ir.TensorMap) string {
	p := &printer{}
	p.tensorMapInit(m)
	return p.b.String()
}

// tensorMapInit prints the host statements that encode a tensor map
// before the launch (spec §4.5.4): a stack-allocated CUtensorMap and the
// runtime.cuTensorMapEncodeTiled call, arguments in CUDA order (innermost
// first) exactly as TVM's TMA lowering passes them:
//
//	A_ptr_tensormap: T.handle("tensormap") = T.tvm_stack_alloca("tensormap", 1)
//	T.call_packed("runtime.cuTensorMapEncodeTiled", A_ptr_tensormap, "float16", 3, A.data,
//	              64, 8, 4, 512, 128, 64, 8, 4, 1, 1, 1, 0, 3, 2, 0)
//
// The base is the buffer's data plus its element offset
// (T.handle_add_byte_offset, as TVM's later revisions print it).
func (p *printer) tensorMapInit(m *ir.TensorMap) {
	if m == nil {
		p.line("<nil tensormap>")
		return
	}
	n := p.name(m, m.Name)
	p.line("%s: T.handle(\"tensormap\") = T.tvm_stack_alloca(\"tensormap\", 1)", n)
	args := []string{`"runtime.cuTensorMapEncodeTiled"`, n, strconv.Quote(m.DType.String()), strconv.Itoa(m.Rank), p.mapBase(m.Buf)}
	for i, v := range [][]int64{m.GlobalDims, m.GlobalStrides, m.Box, m.ElemStrides} {
		for j, x := range v {
			if i == 0 && j < len(m.GlobalDimExprs) && m.GlobalDimExprs[j] != nil {
				args = append(args, p.expr(m.GlobalDimExprs[j])) // a runtime extent
				continue
			}
			args = append(args, strconv.FormatInt(x, 10))
		}
	}
	for _, x := range []int{m.Interleave, m.Swizzle, m.L2Promotion, m.OOBFill} {
		args = append(args, strconv.Itoa(x))
	}
	if m.ForceDType >= 0 {
		args = append(args, strconv.Itoa(m.ForceDType))
	}
	p.line("T.call_packed(%s)", strings.Join(args, ", "))
}

// mapBase prints a tensor map's global address: the data of the buffer
// (or of the parameter buffer it views) plus the element offsets in bytes.
func (p *printer) mapBase(b *ir.Buffer) string {
	if b == nil {
		return "<nil buffer>.data"
	}
	// ElemOffset counts from the start of the data (TVM's elem_offset,
	// which a view of a view carries through): the view's own offset is
	// the whole offset from the root's .data, the raw handle. A parameter
	// at an elem_offset (its match_buffer's) is its own root.
	off := b.ElemOffset * int64(b.Dtype.Bytes())
	var dyn ir.Expr
	if b.ElemOffsetExpr != nil {
		dyn = ir.MulE(b.ElemOffsetExpr, ir.Const(int64(b.Dtype.Bytes())))
	}
	for b.Base != nil {
		b = b.Base
	}
	if dyn != nil {
		return fmt.Sprintf("T.handle_add_byte_offset(%s, %s)", p.name(b, b.Name)+".data", p.expr(ir.SimplifyIndex(ir.AddE(dyn, ir.Const(off)))))
	}
	data := p.name(b, b.Name) + ".data"
	if off == 0 {
		return data
	}
	return fmt.Sprintf("T.handle_add_byte_offset(%s, %d)", data, off)
}

func onlyComments(ss []ir.Stmt) bool {
	for _, s := range ss {
		if _, ok := s.(*ir.Comment); !ok {
			return false
		}
	}
	return true
}
