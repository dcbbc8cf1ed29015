package cuda

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Expressions print fully parenthesised, TVM style: every compound
// expression is wrapped in ( ) except at the top of a statement, an index
// or an argument, so C precedence never matters.

// top prints e without outer parentheses.
func (k *kernel) top(e ir.Expr) string {
	s, _ := k.exprRaw(e)
	return s
}

// expr prints e, parenthesised when compound.
func (k *kernel) expr(e ir.Expr) string {
	s, compound := k.exprRaw(e)
	if compound {
		return "(" + s + ")"
	}
	return s
}

var cBinOp = map[ir.BinOp]string{
	ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.FloorDiv: "/", ir.FloorMod: "%", ir.Div: "/",
	ir.EQ: "==", ir.NE: "!=", ir.LT: "<", ir.LE: "<=", ir.GT: ">", ir.GE: ">=",
	ir.And: "&&", ir.Or: "||", ir.BitAnd: "&", ir.BitOr: "|", ir.BitXor: "^",
	ir.Shl: "<<", ir.Shr: ">>",
}

// exprRaw returns e's text and whether it is compound (needs parentheses
// when nested).
func (k *kernel) exprRaw(e ir.Expr) (string, bool) {
	switch e := e.(type) {
	case nil:
		k.fail("nil expression")
		return "0", false
	case *ir.IntImm:
		return intLit(e.Value, e.Type), false
	case *ir.FloatImm:
		return floatLit(e.Value, e.Type), false
	case *ir.StringImm:
		return strconv.Quote(e.Value), false
	case *ir.Var:
		return k.varName(e), false
	case *ir.ThreadIndex:
		return k.threadIndex(e.Axis), false
	case *ir.Binary:
		return k.binary(e)
	case *ir.Not:
		return "!" + k.expr(e.X), true
	case *ir.Neg:
		return "-" + k.expr(e.X), true
	case *ir.Load:
		return k.access(e.Buf, e.Indices), false
	case *ir.Call:
		return k.call(e), false
	case *ir.Cast:
		return k.cast(e), false
	case *ir.Select:
		return k.expr(e.Cond) + " ? " + k.expr(e.A) + " : " + k.expr(e.B), true
	case *ir.AddressOf:
		if e.FlatIndex {
			if len(e.Indices) != 1 {
				k.fail("flat address of %s with %d indices", bufNameOf(e.Buf), len(e.Indices))
				return "nullptr", false
			}
			off := e.Indices[0]
			if e.Buf != nil && e.Buf.Kind == ir.ParamBuffer && e.Buf.ElemOffset != 0 {
				off = ir.AddE(off, ir.Const(e.Buf.ElemOffset))
			}
			return "(&(" + k.bufPtr(e.Buf) + "[" + k.top(off) + "]))", false
		}
		return "(&(" + k.access(e.Buf, e.Indices) + "))", false
	case *ir.BufferData:
		return k.bufPtr(e.Buf), false
	case *ir.TensorMapAddr:
		return k.tensorMapAddr(e), false
	case *ir.Region:
		k.fail("buffer region %s outside a tile call", bufNameOf(e.Buf))
		return "0", false
	}
	k.fail("unsupported expression %T", e)
	return "0", false
}

func bufNameOf(b *ir.Buffer) string {
	if b == nil {
		return "<nil>"
	}
	return b.Name
}

func (k *kernel) binary(e *ir.Binary) (string, bool) {
	t := typeOf(e.A)
	if !t.IsValid() {
		t = typeOf(e.B)
	}
	half := t.Code == ir.BFloat || (t.Code == ir.Float && t.Bits == 16)
	switch e.Op {
	case ir.Min, ir.Max:
		fn := "min"
		if e.Op == ir.Max {
			fn = "max"
		}
		if half {
			fn = "__h" + fn
		}
		return fn + "(" + k.top(e.A) + ", " + k.top(e.B) + ")", false
	case ir.FloorDiv:
		if t.IsFloat() {
			fn := "floorf"
			if t.Bits == 64 {
				fn = "floor"
			}
			if half {
				fn = "hfloor"
			}
			return fn + "(" + k.expr(e.A) + " / " + k.expr(e.B) + ")", false
		}
	case ir.FloorMod:
		if t.IsFloat() {
			k.fail("floor modulo of %s values", t)
			return "0", false
		}
	}
	op, ok := cBinOp[e.Op]
	if !ok {
		k.fail("unknown binary operator %d", e.Op)
		return "0", false
	}
	return k.expr(e.A) + " " + op + " " + k.expr(e.B), true
}

// typeOf infers the type of e (invalid when unknown).
func typeOf(e ir.Expr) ir.DataType {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Type
	case *ir.FloatImm:
		return e.Type
	case *ir.Var:
		return e.Type
	case *ir.ThreadIndex:
		return ir.Int32
	case *ir.Binary:
		switch e.Op {
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or:
			return ir.BoolT
		}
		if t := typeOf(e.A); t.IsValid() {
			return t
		}
		return typeOf(e.B)
	case *ir.Not:
		return ir.BoolT
	case *ir.Neg:
		return typeOf(e.X)
	case *ir.Load:
		if e.Buf != nil {
			return e.Buf.Dtype
		}
	case *ir.Call:
		if e.Type.IsValid() || len(e.Args) == 0 {
			return e.Type
		}
		return typeOf(e.Args[0])
	case *ir.Cast:
		return e.To
	case *ir.Select:
		if t := typeOf(e.A); t.IsValid() {
			return t
		}
		return typeOf(e.B)
	case *ir.AddressOf, *ir.BufferData:
		return ir.HandleT
	case *ir.TensorMapAddr:
		return ir.DataType{Code: ir.UInt, Bits: 64}
	}
	return ir.DataType{}
}

// intLit prints an integer constant of type t.
func intLit(v int64, t ir.DataType) string {
	switch t.Code {
	case ir.Bool:
		if v != 0 {
			return "true"
		}
		return "false"
	case ir.UInt:
		if t.Bits == 64 {
			return "((uint64_t)" + strconv.FormatUint(uint64(v), 10) + "ULL)"
		}
		return "((" + t.CType() + ")" + strconv.FormatUint(uint64(v), 10) + "u)"
	case ir.Int:
		switch t.Bits {
		case 64:
			s := strconv.FormatInt(v, 10)
			if v > math.MaxInt32 || v < math.MinInt32 {
				s += "LL"
			}
			return "((int64_t)" + s + ")"
		case 8, 16:
			return "((" + t.CType() + ")" + int32Lit(v) + ")"
		}
	}
	return int32Lit(v)
}

func int32Lit(v int64) string {
	switch {
	case v == math.MinInt32:
		return "(-2147483647 - 1)"
	case v < 0:
		return "(" + strconv.FormatInt(v, 10) + ")"
	}
	return strconv.FormatInt(v, 10)
}

// floatLit prints a floating-point constant of type t; 16- and 8-bit types
// are a cast of a float literal.
func floatLit(v float64, t ir.DataType) string {
	if t.Code == ir.Float && t.Bits == 64 {
		switch {
		case math.IsNaN(v):
			return "__longlong_as_double(0x7ff8000000000000LL)"
		case math.IsInf(v, 1):
			return "__longlong_as_double(0x7ff0000000000000LL)"
		case math.IsInf(v, -1):
			return "__longlong_as_double((long long)0xfff0000000000000ULL)"
		}
		return paren(cFloat(v, 64))
	}
	var s string
	switch {
	case math.IsNaN(v):
		s = "__int_as_float(0x7fc00000)"
	case math.IsInf(v, 1):
		s = "__int_as_float(0x7f800000)"
	case math.IsInf(v, -1):
		s = "__int_as_float((int)0xff800000u)"
	default:
		s = cFloat(v, 32) + "f"
	}
	if t.Code == ir.Float && t.Bits == 32 || !t.IsValid() {
		return paren(s)
	}
	return "((" + t.CType() + ")" + s + ")"
}

// paren wraps negative literals so that "a - -1.0f" never reads as "--".
func paren(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

func cFloat(v float64, bits int) string {
	s := strconv.FormatFloat(v, 'g', -1, bits)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// cast prints ((T)x). Conversions between two different narrow float kinds
// (half, bfloat16, fp8) go through float: CUDA has no direct constructor
// for every pair.
func (k *kernel) cast(e *ir.Cast) string {
	from := typeOf(e.X)
	x := k.expr(e.X)
	if from == e.To {
		return x
	}
	if narrowFloat(from) && narrowFloat(e.To) && from.Code != e.To.Code {
		x = "((float)" + x + ")"
	}
	return "((" + scalarCType(e.To) + ")" + x + ")"
}

func narrowFloat(t ir.DataType) bool { return t.IsFloat() && t.Bits < 32 }

// ---- calls ----

func (k *kernel) args(es []ir.Expr) string {
	parts := make([]string, len(es))
	for i, a := range es {
		parts[i] = k.top(a)
	}
	return strings.Join(parts, ", ")
}

func (k *kernel) wantArgs(c *ir.Call, n int) bool {
	if len(c.Args) != n {
		k.fail("%s takes %d arguments, got %d", c.Op, n, len(c.Args))
		return false
	}
	return true
}

func (k *kernel) constArg(c *ir.Call, i int) (int64, bool) {
	v, ok := ir.ConstInt(c.Args[i])
	if !ok {
		k.fail("%s: argument %d must be an integer constant", c.Op, i+1)
	}
	return v, ok
}

func (k *kernel) stringArg(c *ir.Call, i int) (string, bool) {
	s, ok := c.Args[i].(*ir.StringImm)
	if !ok {
		k.fail("%s: argument %d must be a string constant", c.Op, i+1)
		return "", false
	}
	return s.Value, true
}

// callHelper records h and prints a call of it.
func (k *kernel) callHelper(h *helper, args []ir.Expr) string {
	k.use(h)
	return h.name + "(" + k.args(args) + ")"
}

func (k *kernel) call(c *ir.Call) string {
	outer := k.atCall
	k.atCall = c.Span
	defer func() { k.atCall = outer }()
	switch c.Op {
	case "address_of":
		// the address of a T.TensorMap() parameter (a uint64, as
		// tirx.address_of of a handle is in tvm/tirx/op.py)
		if v, ok := c.Args[0].(*ir.Var); ok && len(c.Args) == 1 && k.tmParams[v] {
			return "((unsigned long long)(&(" + k.params[v] + ")))"
		}
		if v, ok := c.Args[0].(*ir.Var); ok && len(c.Args) == 1 && c.Type == ir.HandleT && v.Type.Code != ir.Handle {
			// a mutable scalar (x: T.uint32, a one-element local
			// buffer in TVM), which the kernel declares as a local
			return "(&(" + k.varName(v) + "))"
		}
	case ir.OpCopyBytes:
		if !k.wantArgs(c, 3) {
			return ""
		}
		n, ok := k.constArg(c, 2)
		if !ok {
			return ""
		}
		h, ok := copyHelper(n)
		if !ok {
			k.fail("%s of %d bytes (want 1, 2, 4, 8, 16 or 32)", c.Op, n)
			return ""
		}
		return k.callHelper(h, c.Args[:2])
	case ir.OpPointerOffset:
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(pointerOffsetHelper, c.Args)
	case ir.OpCTASync:
		return "__syncthreads()"
	case ir.OpWarpSync:
		return "__syncwarp()"
	case ir.OpWarpgroupSync:
		if !k.wantArgs(c, 1) {
			return ""
		}
		return k.callHelper(warpgroupSyncHelper, c.Args)
	case ir.OpMbarrierInit:
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(mbarrierInitHelper, c.Args)
	case ir.OpMbarrierArriveExpect:
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(mbarrierExpectTxHelper, c.Args)
	case ir.OpMbarrierArrive:
		if !k.wantArgs(c, 1) {
			return ""
		}
		return k.callHelper(mbarrierArriveHelper, c.Args)
	case ir.OpMbarrierTryWait:
		if !k.wantArgs(c, 2) {
			return ""
		}
		return k.callHelper(mbarrierTryWaitHelper, c.Args)
	case ir.OpFenceProxyAsync:
		space := ""
		if len(c.Args) > 1 {
			k.fail("%s takes at most 1 argument, got %d", c.Op, len(c.Args))
			return ""
		}
		if len(c.Args) == 1 {
			s, ok := k.stringArg(c, 0)
			if !ok {
				return ""
			}
			space = s
		}
		h, ok := fenceProxyAsyncHelper(space)
		if !ok {
			k.fail("%s: unknown state space %q", c.Op, space)
			return ""
		}
		return k.callHelper(h, nil)
	case ir.OpElectSync:
		if !k.wantArgs(c, 0) {
			return ""
		}
		return k.callHelper(electSyncHelper, nil)
	case ir.OpFenceMbarrierInit:
		if !k.wantArgs(c, 0) {
			return ""
		}
		return k.callHelper(fenceMbarrierInitHelper, nil)
	case ir.OpCpAsyncBulkCommit:
		return k.callHelper(cpAsyncBulkCommitHelper, nil)
	case ir.OpCpAsyncCommit:
		return k.callHelper(cpAsyncCommitHelper, nil)
	case ir.OpCpAsyncBulkWait, ir.OpCpAsyncWait:
		if !k.wantArgs(c, 1) {
			return ""
		}
		n, ok := k.constArg(c, 0)
		if !ok {
			return ""
		}
		h := cpAsyncWaitHelper
		if c.Op == ir.OpCpAsyncBulkWait {
			h = cpAsyncBulkWaitHelper
		}
		k.use(h)
		return fmt.Sprintf("%s<%d>()", h.name, n)
	case ir.OpLdmatrix, ir.OpStmatrix:
		if !k.wantArgs(c, 4) {
			return ""
		}
		num, ok1 := k.constArg(c, 0)
		trans, ok2 := k.constArg(c, 1)
		if !ok1 || !ok2 {
			return ""
		}
		h, ok := matrixHelper(c.Op == ir.OpStmatrix, num, trans != 0)
		if !ok {
			k.fail("%s of %d matrices (want 1, 2 or 4)", c.Op, num)
			return ""
		}
		return k.callHelper(h, c.Args[2:])
	case ir.OpCastVec2:
		if !k.wantArgs(c, 4) {
			return ""
		}
		src, ok1 := k.stringArg(c, 2)
		dst, ok2 := k.stringArg(c, 3)
		if !ok1 || !ok2 {
			return ""
		}
		h, ok := castVec2Helper(src, dst)
		if !ok {
			k.fail("%s from %s to %s is not supported", c.Op, src, dst)
			return ""
		}
		return k.callHelper(h, c.Args[:2])
	case ir.OpPackedF32x2:
		if len(c.Args) < 5 {
			k.fail("%s takes at least 5 arguments, got %d", c.Op, len(c.Args))
			return ""
		}
		op, ok1 := k.stringArg(c, 0)
		rnd, ok2 := k.stringArg(c, 1)
		if !ok1 || !ok2 {
			return ""
		}
		want := 5
		if op == "fma" {
			want = 6
		}
		if !k.wantArgs(c, want) {
			return ""
		}
		// A source that is not an address is a scalar for both lanes.
		var scalar []bool
		for _, a := range c.Args[3:] {
			_, isPtr := a.(*ir.AddressOf)
			scalar = append(scalar, !isPtr)
		}
		h, ok := packedF32x2Helper(op, rnd, scalar)
		if !ok {
			k.fail("%s: unsupported op %q with rounding %q", c.Op, op, rnd)
			return ""
		}
		return k.callHelper(h, c.Args[2:])
	case ir.OpSqrt, ir.OpExp, ir.OpExp2, ir.OpLog2:
		if !k.wantArgs(c, 1) {
			return ""
		}
		return k.math(c)
	case ir.OpCpAsync, ir.OpPrefetchTensormap, ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4, ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce:
		return k.tmaCall(c)
	}
	if x, ok := extOps[c.Op]; ok {
		return x.print(k, c)
	}
	if s, ok := k.printTcgen05User(c); ok {
		return s
	}
	if s, ok := k.printUserOp(c); ok {
		return s
	}
	k.fail("unknown intrinsic %q", c.Op)
	return ""
}

// math prints a unary math call by its type (spec §5.2): f32 sqrtf/expf/
// exp2f/log2f, f16 and bf16 hsqrt/hexp/hexp2/hlog2, f64 unsuffixed.
func (k *kernel) math(c *ir.Call) string {
	t, x, ok := k.unaryOperand(c)
	if !ok {
		return ""
	}
	switch {
	case t.Code == ir.Float && t.Bits == 32:
		return c.Op + "f(" + x + ")"
	case t.Code == ir.Float && t.Bits == 64:
		return c.Op + "(" + x + ")"
	case t.Code == ir.BFloat, t.Code == ir.Float && t.Bits == 16:
		return "h" + c.Op + "(" + x + ")"
	}
	k.fail("%s of %s values", c.Op, t)
	return ""
}
