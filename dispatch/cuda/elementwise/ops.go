package elementwise

// The elementwise op registry (spec §4.4 "Op registry"): one ewiseOpSpec
// per op in TVM's ALL_OPS, in its order (zero, fill, reciprocal, sqrt, exp,
// exp2, log2, silu, add, sub, mul, fdiv, maximum, cast, fma). There is no
// `minimum`: TVM registers none at any revision.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/elementwise/
// ops/{__init__,unary,binary,cast,fma}.py and vec_emit/{binary_f32x2,
// cast_vec2,fma_f32x2}.py at PRE abe2526b3e; `log2` comes from SEED
// 981cdce66b (PRE lacks it; the spec lists it).
//
// A spec says how to read the call (Parse → dst, srcs, extras), how to
// compute one element (Compute → an ir.Expr the emitters cast to the dst
// dtype), which extras are legal (CheckExtras, unary ops only) and which
// packed vector implementations exist (VecImpls, widest first). Parse
// declines carry TVM's message verbatim ("both inputs are constants",
// "non-commutative op sub cannot have constant lhs", ...), spanned at the
// argument to change.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// ewiseSrc is one source operand: a buffer region or a scalar expression
// (TVM SrcSpec; index_fn is never set by any parse, so it is not modelled).
type ewiseSrc struct {
	Region *ir.Region // nil for a scalar
	Scalar ir.Expr
	Arg    int // argument index in the tile call (for spans)
}

// ewiseExtras are the per-op extras of a plan (TVM Plan.extras).
type ewiseExtras struct {
	// Unary ops: scale (any scalar, nil when absent), the bias when it is
	// a FloatImm, and whether a region bias became the second src.
	Scale      ir.Expr
	BiasConst  *ir.FloatImm
	HasBiasBuf bool
	// Binary ops: config["rounding_mode"], "" when absent.
	Rounding string
}

// ewisePlan is a parsed elementwise call (TVM Plan).
type ewisePlan struct {
	Dst    *ir.Region
	Srcs   []ewiseSrc
	Extras ewiseExtras
}

// ewiseOperand is one buffer-region operand with its argument index.
type ewiseOperand struct {
	R   *ir.Region
	Arg int
}

// operands is TVM buffer_regions: dst, then every region src in order.
func (p *ewisePlan) operands() []ewiseOperand {
	out := []ewiseOperand{{p.Dst, 0}}
	for _, s := range p.Srcs {
		if s.Region != nil {
			out = append(out, ewiseOperand{s.Region, s.Arg})
		}
	}
	return out
}

// ewiseLaneArg is one source of a packed call: a scalar (both lanes), or a
// buffer with the per-lane indices (TVM's `(Buffer, lane_indices)` tuple).
type ewiseLaneArg struct {
	Scalar ir.Expr
	Buf    *ir.Buffer
	Lanes  [][]ir.Expr
}

// ewiseVecImpl is a packed implementation of VecLen consecutive elements
// (TVM VecImpl).
type ewiseVecImpl struct {
	Name   string
	VecLen int64
	// Applies is "" when the impl fits the plan, else TVM's reason.
	Applies func(c *dispatch.Call, p *ewisePlan) string
	// Emit returns the call expression for one chunk.
	Emit func(dst *ir.Buffer, dstLanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, span source.Span) ir.Expr
	// Emit027, when set, is the chunk as 0.27.0.post1 writes it: statements
	// (vec_emit returns None and emits them itself).
	Emit027 func(dst *ir.Buffer, dstLanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, span source.Span) []ir.Stmt
}

// ewiseEmit is vec_emit._emit_vec: one chunk of impl as the call's release
// writes it.
func ewiseEmit(c *dispatch.Call, impl *ewiseVecImpl, dst *ir.Buffer, dstLanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) ir.Stmt {
	if impl.Emit027 != nil && c.Target.Release >= release.R027 {
		return &ir.Block{Stmts: impl.Emit027(dst, dstLanes, srcs, ex, sp), Span: sp}
	}
	return &ir.Evaluate{X: impl.Emit(dst, dstLanes, srcs, ex, sp), Span: sp}
}

// ewiseOpSpec describes one elementwise op (TVM OpSpec).
type ewiseOpSpec struct {
	Name  string
	Parse func(c *dispatch.Call) (*ewisePlan, *dispatch.Decline)
	// Compute builds one element from the source values (scalar srcs as
	// given, region srcs as loads); the caller casts it to dst.
	Compute func(vals []ir.Expr, ex ewiseExtras, dst ir.DataType, span source.Span) ir.Expr
	// CheckExtras is nil or returns "" when the extras fit compute, the
	// widest dtype of the operands.
	CheckExtras func(ex ewiseExtras, compute ir.DataType) string
	VecImpls    []ewiseVecImpl // widest first
	// Releases are the wheels that register the op (log2 and maximum
	// arrived in 0.26); the zero Set is every release.
	Releases release.Set
}

// ewiseOps is TVM ALL_OPS, in registration order.
var ewiseOps = []*ewiseOpSpec{
	ewiseUnary("zero", func(v []ir.Expr, _ ewiseExtras, _ ir.DataType, sp source.Span) ir.Expr {
		return &ir.FloatImm{Value: 0, Type: ir.Float32, Span: sp} // Python 0.0; the cast types it
	}),
	ewiseUnary("fill", func(v []ir.Expr, _ ewiseExtras, _ ir.DataType, _ source.Span) ir.Expr { return v[0] }),
	ewiseUnary("reciprocal", func(v []ir.Expr, _ ewiseExtras, _ ir.DataType, sp source.Span) ir.Expr {
		x := v[0]
		return ewiseBin(ir.Div, &ir.FloatImm{Value: 1, Type: ewiseTypeOf(x), Span: sp}, x, sp)
	}),
	ewiseUnary("sqrt", ewiseWithBiasScale(ir.OpSqrt)),
	ewiseUnary("exp", ewiseWithBiasScale(ir.OpExp)),
	ewiseUnary("exp2", ewiseWithBiasScale(ir.OpExp2)),
	since026(ewiseUnary("log2", ewiseWithBiasScale(ir.OpLog2))),
	ewiseUnary("silu", ewiseSilu),
	ewiseBinary("add", ir.Add, ewiseF32x2Impl("add")),
	ewiseBinary("sub", ir.Sub, ewiseF32x2Impl("sub")),
	ewiseBinary("mul", ir.Mul, ewiseF32x2Impl("mul")),
	ewiseBinary("fdiv", ir.Div),
	since026(ewiseBinary("maximum", ir.Max)),
	{Name: "cast", Parse: ewiseParseCast, Compute: func(v []ir.Expr, _ ewiseExtras, _ ir.DataType, _ source.Span) ir.Expr { return v[0] },
		VecImpls: []ewiseVecImpl{ewiseCastVec2Impl}},
	{Name: "fma", Parse: ewiseParseFma, Compute: func(v []ir.Expr, _ ewiseExtras, _ ir.DataType, sp source.Span) ir.Expr {
		return ewiseBin(ir.Add, ewiseBin(ir.Mul, v[0], v[1], sp), v[2], sp)
	}, VecImpls: []ewiseVecImpl{ewiseFmaF32x2Impl}},
}

// since026 marks an op the 0.25 wheel does not register.
func since026(s *ewiseOpSpec) *ewiseOpSpec {
	s.Releases = release.From(release.R026)
	return s
}

// ---- parse ----

// ewiseDst reads args[0]; the Tx facade guarantees a region, so anything
// else is reported with the facade's message.
func ewiseDst(c *dispatch.Call) (*ir.Region, *dispatch.Decline) {
	if r, ok := c.Region(0); ok {
		return r, nil
	}
	return nil, c.Declinef(c.ArgSpan(0), "Tx.%s is tile-only and expects `dst` to be a Buffer or BufferRegion; use T.%s for expression/builtin calls", c.Op(), c.Op())
}

// ewiseArg returns args[i], or nil when the call has fewer arguments.
func ewiseArg(c *dispatch.Call, i int) ir.Expr {
	if i < len(c.Tile.Args) {
		return c.Tile.Args[i]
	}
	return nil
}

// ewiseIsRegionNode reports an *ir.Region, even a malformed one.
func ewiseIsRegionNode(e ir.Expr) bool {
	_, ok := e.(*ir.Region)
	return ok
}

func ewiseIsRegion(e ir.Expr) (*ir.Region, bool) {
	r, ok := e.(*ir.Region)
	return r, ok && r != nil && r.Buf != nil
}

// ewisePyTypeName is Python's type(x).__name__ for an argument.
func ewisePyTypeName(e ir.Expr) string {
	if e == nil {
		return "NoneType"
	}
	return fmt.Sprintf("%T", e)[len("*ir."):]
}

func ewiseUnary(name string, compute func([]ir.Expr, ewiseExtras, ir.DataType, source.Span) ir.Expr) *ewiseOpSpec {
	return &ewiseOpSpec{Name: name, Parse: ewiseParseUnary, Compute: compute, CheckExtras: ewiseCheckUnaryExtras}
}

// ewiseParseUnary is TVM _parse_unary: [dst, src, bias?, scale?]. A missing
// (nil) src is dst, the Tx facade's default.
func ewiseParseUnary(c *dispatch.Call) (*ewisePlan, *dispatch.Decline) {
	dst, d := ewiseDst(c)
	if d != nil {
		return nil, d
	}
	p := &ewisePlan{Dst: dst}
	src := ewiseArg(c, 1)
	switch r, ok := ewiseIsRegion(src); {
	case src == nil:
		p.Srcs = append(p.Srcs, ewiseSrc{Region: dst, Arg: 0})
	case ok:
		p.Srcs = append(p.Srcs, ewiseSrc{Region: r, Arg: 1})
	case !ewiseIsRegionNode(src):
		p.Srcs = append(p.Srcs, ewiseSrc{Scalar: src, Arg: 1})
	default:
		return nil, c.Declinef(c.ArgSpan(1), "unsupported src type %s", ewisePyTypeName(src))
	}
	bias, scale := ewiseArg(c, 2), ewiseArg(c, 3)
	p.Extras.Scale = scale
	if f, ok := bias.(*ir.FloatImm); ok {
		p.Extras.BiasConst = f
	}
	if r, ok := ewiseIsRegion(bias); ok {
		p.Srcs = append(p.Srcs, ewiseSrc{Region: r, Arg: 2})
		p.Extras.HasBiasBuf = true
	}
	return p, nil
}

// ewiseCheckUnaryExtras is TVM _check_unary_extras.
func ewiseCheckUnaryExtras(ex ewiseExtras, compute ir.DataType) string {
	if ex.Scale != nil {
		if t := ewiseTypeOf(ex.Scale); t != compute {
			return fmt.Sprintf("scale dtype %s != compute dtype %s", t, compute)
		}
	}
	if ex.BiasConst != nil && ex.BiasConst.Type != compute {
		return fmt.Sprintf("bias_const dtype %s != compute dtype %s", ex.BiasConst.Type, compute)
	}
	return ""
}

// ewiseWithBiasScale is TVM _with_bias_scale: op(x*scale + bias).
func ewiseWithBiasScale(op string) func([]ir.Expr, ewiseExtras, ir.DataType, source.Span) ir.Expr {
	return func(v []ir.Expr, ex ewiseExtras, _ ir.DataType, sp source.Span) ir.Expr {
		x := v[0]
		if ex.Scale != nil {
			x = ewiseBin(ir.Mul, x, ex.Scale, sp)
		}
		switch {
		case ex.HasBiasBuf:
			x = ewiseBin(ir.Add, x, v[1], sp)
		case ex.BiasConst != nil:
			x = ewiseBin(ir.Add, x, ex.BiasConst, sp)
		}
		return ewiseMath(op, x, sp)
	}
}

// ewiseSilu is x / (1 + exp(0 - x)); silu ignores bias and scale.
func ewiseSilu(v []ir.Expr, _ ewiseExtras, _ ir.DataType, sp source.Span) ir.Expr {
	x := v[0]
	t := ewiseTypeOf(x)
	one := &ir.FloatImm{Value: 1, Type: t, Span: sp}
	zero := &ir.FloatImm{Value: 0, Type: t, Span: sp}
	return ewiseBin(ir.Div, x, ewiseBin(ir.Add, one, ewiseMath(ir.OpExp, ewiseBin(ir.Sub, zero, x, sp), sp), sp), sp)
}

// ewiseCommutative are the binary ops whose operands may swap.
var ewiseCommutative = map[string]bool{"add": true, "mul": true, "maximum": true}

func ewiseBinary(name string, op ir.BinOp, impls ...ewiseVecImpl) *ewiseOpSpec {
	return &ewiseOpSpec{
		Name:  name,
		Parse: ewiseParseBinary,
		Compute: func(v []ir.Expr, _ ewiseExtras, _ ir.DataType, sp source.Span) ir.Expr {
			return ewiseBin(op, v[0], v[1], sp)
		},
		VecImpls: impls,
	}
}

// ewiseParseBinary is TVM _parse_binary_for: a constant moves to the rhs and a
// broadcast (smaller) region to the rhs, when the op commutes.
func ewiseParseBinary(c *dispatch.Call) (*ewisePlan, *dispatch.Decline) {
	dst, d := ewiseDst(c)
	if d != nil {
		return nil, d
	}
	if len(c.Tile.Args) < 3 {
		dispatch.Raise("IndexError", "Array index out of range")
	}
	op := c.Op()
	a := ewiseSrc{Arg: 1}
	b := ewiseSrc{Arg: 2}
	var aOK, bOK bool
	a.Region, aOK = ewiseIsRegion(c.Tile.Args[1])
	b.Region, bOK = ewiseIsRegion(c.Tile.Args[2])
	if !aOK {
		a.Region, a.Scalar = nil, c.Tile.Args[1]
	}
	if !bOK {
		b.Region, b.Scalar = nil, c.Tile.Args[2]
	}
	switch {
	case !aOK && !bOK:
		return nil, c.Declinef(c.Span(), "both inputs are constants")
	case !aOK:
		if !ewiseCommutative[op] {
			return nil, c.Declinef(c.ArgSpan(1), "non-commutative op %s cannot have constant lhs", op)
		}
		a, b = b, a
	default:
		if bOK {
			na, bad, ok := common.ProdExprs(a.Region.Extent)
			if !ok {
				return nil, ewiseNonConst(c, a.Arg, bad)
			}
			nb, bad, ok := common.ProdExprs(b.Region.Extent)
			if !ok {
				return nil, ewiseNonConst(c, b.Arg, bad)
			}
			if na < nb {
				if !ewiseCommutative[op] {
					return nil, c.Declinef(c.ArgSpan(2), "non-commutative op %s cannot swap to broadcast", op)
				}
				a, b = b, a
			}
		}
	}
	p := &ewisePlan{Dst: dst, Srcs: []ewiseSrc{a, b}}
	if v, ok := c.Config("rounding_mode"); ok && v != nil {
		p.Extras.Rounding = ewiseConfigString(v)
	}
	return p, nil
}

func ewiseConfigString(v ir.Expr) string {
	if s, ok := v.(*ir.StringImm); ok {
		return s.Value
	}
	return dispatch.ExprText(v)
}

func ewiseNonConst(c *dispatch.Call, arg int, e ir.Expr) *dispatch.Decline {
	return c.Declinef(c.ArgSpan(arg), "non-constant region extent %s", dispatch.ExprText(e))
}

// ewiseParseCast is TVM _parse_cast.
func ewiseParseCast(c *dispatch.Call) (*ewisePlan, *dispatch.Decline) {
	dst, d := ewiseDst(c)
	if d != nil {
		return nil, d
	}
	src, ok := ewiseIsRegion(ewiseArg(c, 1))
	if !ok {
		return nil, c.Declinef(c.ArgSpan(1), "cast src must be a buffer region")
	}
	return &ewisePlan{Dst: dst, Srcs: []ewiseSrc{{Region: src, Arg: 1}}}, nil
}

// ewiseParseFma is TVM _parse_fma: [dst, a, b, c], each a region or a scalar.
func ewiseParseFma(c *dispatch.Call) (*ewisePlan, *dispatch.Decline) {
	dst, d := ewiseDst(c)
	if d != nil {
		return nil, d
	}
	p := &ewisePlan{Dst: dst}
	for i := 1; i < 4 && i < len(c.Tile.Args); i++ {
		if r, ok := ewiseIsRegion(c.Tile.Args[i]); ok {
			p.Srcs = append(p.Srcs, ewiseSrc{Region: r, Arg: i})
		} else {
			p.Srcs = append(p.Srcs, ewiseSrc{Scalar: c.Tile.Args[i], Arg: i})
		}
	}
	return p, nil
}

// ---- dtypes ----

// ewiseTypeOf is the dtype of a scalar expression (TVM scalar_dtype).
func ewiseTypeOf(e ir.Expr) ir.DataType {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Type
	case *ir.FloatImm:
		return e.Type
	case *ir.Var:
		return e.Type
	case *ir.Load:
		return e.Buf.Dtype
	case *ir.Call:
		return e.Type
	case *ir.Cast:
		return e.To
	case *ir.Neg:
		return ewiseTypeOf(e.X)
	case *ir.Not:
		return ir.BoolT
	case *ir.Select:
		return ewiseTypeOf(e.A)
	case *ir.ThreadIndex:
		return ir.Int32
	case *ir.Binary:
		switch e.Op {
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or:
			return ir.BoolT
		}
		// A literal operand takes the other side's type (TVM's binary
		// operator conversion).
		if ewiseIsImm(e.A) && !ewiseIsImm(e.B) {
			return ewiseTypeOf(e.B)
		}
		return ewiseTypeOf(e.A)
	}
	return ir.DataType{}
}

func ewiseIsImm(e ir.Expr) bool {
	switch e.(type) {
	case *ir.IntImm, *ir.FloatImm:
		return true
	}
	return false
}

// computeDtype is TVM compute_dtype_of: the widest dtype (in bits) among
// dst, region srcs and scalar srcs; dst wins ties.
func (p *ewisePlan) computeDtype() ir.DataType {
	w := p.Dst.Buf.Dtype
	for _, s := range p.Srcs {
		t := ewiseSrcType(s)
		if t.Bits > w.Bits {
			w = t
		}
	}
	return w
}

func ewiseSrcType(s ewiseSrc) ir.DataType {
	if s.Region != nil {
		return s.Region.Buf.Dtype
	}
	return ewiseTypeOf(s.Scalar)
}

// ---- expression helpers ----

func ewiseBin(op ir.BinOp, a, b ir.Expr, sp source.Span) ir.Expr {
	return &ir.Binary{Op: op, A: a, B: b, Span: sp}
}

// ewiseMath is T.sqrt/exp/exp2/log2(x): the result has x's dtype, which
// picks sqrtf or hsqrt in codegen (spec §5.2).
func ewiseMath(op string, x ir.Expr, sp source.Span) ir.Expr {
	return &ir.Call{Op: op, Args: []ir.Expr{x}, Type: ewiseTypeOf(x), Span: sp}
}

// ewiseCast is T.cast(e, dt): e itself when it already has dt; a float
// literal is retyped.
func ewiseCast(e ir.Expr, dt ir.DataType, sp source.Span) ir.Expr {
	if f, ok := e.(*ir.FloatImm); ok {
		return &ir.FloatImm{Value: f.Value, Type: dt, Span: f.Span}
	}
	if ewiseTypeOf(e) == dt {
		return e
	}
	return &ir.Cast{To: dt, X: e, Span: sp}
}

// ---- packed implementations (vec_emit/) ----

// ewiseF32x2Impl is TVM BINARY_F32X2_IMPLS[op]: {add,sub,mul}.<rm>.ftz.f32x2
// on sm_100+.
func ewiseF32x2Impl(op string) ewiseVecImpl {
	return ewiseVecImpl{
		Name: op + "_f32x2", VecLen: 2,
		Emit027: func(dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) []ir.Stmt {
			return ewisePackedF32x2Stmts(op, dst, lanes, srcs, ex, sp)
		},
		Applies: func(c *dispatch.Call, p *ewisePlan) string {
			if p.Dst.Buf.Dtype != ir.Float32 {
				return "dst dtype not f32"
			}
			if c.Target.SMVersion() < 100 {
				return "sm version < 100"
			}
			if len(p.Srcs) != 2 {
				return "binary requires 2 srcs"
			}
			for _, s := range p.Srcs {
				if s.Region == nil && ewiseTypeOf(s.Scalar) != ir.Float32 {
					return "scalar src dtype not f32"
				}
				if s.Region != nil && s.Region.Buf.Dtype != ir.Float32 {
					return "buffer src dtype not f32"
				}
			}
			return ""
		},
		Emit: func(dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) ir.Expr {
			return ewisePackedF32x2(op, dst, lanes, srcs, ex, sp)
		},
	}
}

// ewiseFmaF32x2Impl is TVM FMA_F32X2_IMPL: fma.<rm>.ftz.f32x2 on sm_100+.
var ewiseFmaF32x2Impl = ewiseVecImpl{
	Name: "fma_f32x2", VecLen: 2,
	Emit027: func(dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) []ir.Stmt {
		return ewisePackedF32x2Stmts("fma", dst, lanes, srcs, ex, sp)
	},
	Applies: func(c *dispatch.Call, p *ewisePlan) string {
		if p.Dst.Buf.Dtype != ir.Float32 {
			return "dst dtype not f32"
		}
		if c.Target.SMVersion() < 100 {
			return "sm version < 100"
		}
		if len(p.Srcs) != 3 {
			return "fma requires 3 srcs"
		}
		a := p.Srcs[0]
		if a.Region == nil {
			return "fma 'a' must be a buffer (no scalar-a packed FMA)"
		}
		if a.Region.Buf.Dtype != ir.Float32 {
			return "src a dtype not f32"
		}
		for _, s := range p.Srcs[1:] {
			if s.Region == nil && ewiseTypeOf(s.Scalar) != ir.Float32 {
				return "scalar b/c dtype not f32"
			}
			if s.Region != nil && s.Region.Buf.Dtype != ir.Float32 {
				return "buffer b/c dtype not f32"
			}
		}
		return ""
	},
	Emit: func(dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) ir.Expr {
		return ewisePackedF32x2("fma", dst, lanes, srcs, ex, sp)
	},
}

// ewisePackedF32x2 is ir.OpPackedF32x2: op, rounding (default "rz"; .ftz is
// implied), &dst[lane 0], then per source &src[lane 0] or the scalar.
func ewisePackedF32x2(op string, dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) ir.Expr {
	rm := ex.Rounding
	if rm == "" {
		rm = "rz"
	}
	args := []ir.Expr{
		&ir.StringImm{Value: op, Span: sp},
		&ir.StringImm{Value: rm, Span: sp},
		&ir.AddressOf{Buf: dst, Indices: lanes[0], Span: sp},
	}
	for _, s := range srcs {
		if s.Buf == nil {
			args = append(args, s.Scalar)
			continue
		}
		args = append(args, &ir.AddressOf{Buf: s.Buf, Indices: s.Lanes[0], Span: sp})
	}
	return &ir.Call{Op: ir.OpPackedF32x2, Args: args, Span: sp}
}

// ewisePackedF32x2Stmts is 0.27.0.post1's vec_emit binary_f32x2 /
// fma_f32x2: .f32x2 operands are .b64 register pairs, so each source pair
// is packed by mov.b64 into an unnamed uint64 local scalar, the
// instruction T.ptx["<op>.<rm>.ftz.f32x2"](r0, r0, r1[, r2]) runs in place
// on the first, and mov.b64 unpacks it into the two dst lanes.
func ewisePackedF32x2Stmts(op string, dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, ex ewiseExtras, sp source.Span) []ir.Stmt {
	rm := ex.Rounding
	if rm == "" {
		rm = "rz"
	}
	u64 := ir.DataType{Code: ir.UInt, Bits: 64}
	zero := []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: sp}}
	var out []ir.Stmt
	regs := make([]ir.Expr, len(srcs))
	for i := range srcs {
		b := &ir.Buffer{Name: "", Shape: []int64{1}, Dtype: u64, Scope: "local", Layout: layout.RowMajor(1), Kind: ir.AllocBuffer, Span: sp}
		out = append(out, &ir.Alloc{Buf: b, Span: sp})
		regs[i] = &ir.Load{Buf: b, Indices: zero, Span: sp}
	}
	lane := func(s ewiseLaneArg, k int) ir.Expr {
		if s.Buf == nil {
			return s.Scalar
		}
		return &ir.Load{Buf: s.Buf, Indices: s.Lanes[k], Span: sp}
	}
	ev := func(name string, args ...ir.Expr) ir.Stmt {
		return &ir.Evaluate{X: &ir.Call{Op: name, Args: args, Span: sp}, Span: sp}
	}
	for i, s := range srcs {
		out = append(out, ev(ir.OpPtxMovB64, regs[i], lane(s, 0), lane(s, 1)))
	}
	out = append(out, ev("ptx."+op+"."+rm+".ftz.f32x2", append([]ir.Expr{regs[0]}, regs...)...))
	out = append(out, ev(ir.OpPtxMovB64, &ir.Load{Buf: dst, Indices: lanes[0], Span: sp}, &ir.Load{Buf: dst, Indices: lanes[1], Span: sp}, regs[0]))
	return out
}

// ewiseCastVec2Pairs are the (src, dst) pairs with a CUDA pair intrinsic.
var ewiseCastVec2Pairs = map[[2]ir.DataType]string{
	{ir.Float32, ir.Float16}: "__float22half2_rn",
	{ir.Float16, ir.Float32}: "__half22float2",
	{ir.BF16, ir.Float32}:    "__bfloat1622float2",
	{ir.Float32, ir.BF16}:    "__float22bfloat162_rn",
}

// ewiseCastVec2Impl is TVM CAST_VEC2_IMPL: tvm_builtin_cast_{src}x2_{dst}x2.
var ewiseCastVec2Impl = ewiseVecImpl{
	Name: "cast_vec2", VecLen: 2,
	Applies: func(_ *dispatch.Call, p *ewisePlan) string {
		if len(p.Srcs) != 1 || p.Srcs[0].Region == nil {
			return "cast requires 1 buffer src"
		}
		s, d := p.Srcs[0].Region.Buf.Dtype, p.Dst.Buf.Dtype
		if _, ok := ewiseCastVec2Pairs[[2]ir.DataType{s, d}]; !ok {
			return fmt.Sprintf("no vec2 intrinsic for %s->%s", s, d)
		}
		return ""
	},
	Emit: func(dst *ir.Buffer, lanes [][]ir.Expr, srcs []ewiseLaneArg, _ ewiseExtras, sp source.Span) ir.Expr {
		src := srcs[0]
		if src.Buf == nil {
			dispatch.Raise("AssertionError", "cast vec2 src must be a buffer")
		}
		return &ir.Call{Op: ir.OpCastVec2, Args: []ir.Expr{
			&ir.AddressOf{Buf: dst, Indices: lanes[0], Span: sp},
			&ir.AddressOf{Buf: src.Buf, Indices: src.Lanes[0], Span: sp},
			&ir.StringImm{Value: src.Buf.Dtype.String(), Span: sp},
			&ir.StringImm{Value: dst.Dtype.String(), Span: sp},
		}, Span: sp}
	},
}
