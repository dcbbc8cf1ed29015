// Package ir holds the data types of TIRx programs as tilels sees them: the
// evaluated kernel (buffers, scope ids, tile calls) and its lowered form (loops,
// stores, intrinsic calls). It is data only, like esbuild's js_ast: the
// evaluator (dsl/eval) builds it, the dispatcher (dispatch) replaces each
// TileCall by a lowered Block, and codegen prints it.
//
// Invariant: every node carries a source.Span into the whole .py file; nodes
// synthesized by lowering carry the span of the Tx call they came from.
// Invariant: *Var and *Buffer have pointer identity; two distinct pointers are
// two distinct variables even when their names are equal (printers uniquify).
package ir

import (
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/release"
)

// Node is any IR node.
type Node interface{ Pos() source.Span }

// Expr is a scalar expression.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// ---- expressions ----

// IntImm is an integer constant.
type IntImm struct {
	Value int64
	Type  DataType
	Span  source.Span
}

// FloatImm is a floating-point constant.
type FloatImm struct {
	Value float64
	Type  DataType
	Span  source.Span
}

// StringImm is a string constant (used by intrinsic arguments).
type StringImm struct {
	Value string
	Span  source.Span
}

// Var is a scalar variable: a loop variable, a scope id, a let-bound value.
type Var struct {
	Name string
	Type DataType
	Span source.Span
}

// BinOp is a binary operator.
type BinOp uint8

const (
	Add BinOp = iota + 1
	Sub
	Mul
	FloorDiv // Python //, TIR floordiv (C '/' on non-negative ints)
	FloorMod // Python %, TIR floormod
	Div      // true division (floats)
	Min
	Max
	EQ
	NE
	LT
	LE
	GT
	GE
	And // logical
	Or  // logical
	BitAnd
	BitOr
	BitXor
	Shl
	Shr
)

// Mirrored is the comparison op with its operands swapped (a < b is
// b > a); other ops are returned as they are.
func (op BinOp) Mirrored() BinOp {
	switch op {
	case LT:
		return GT
	case LE:
		return GE
	case GT:
		return LT
	case GE:
		return LE
	}
	return op
}

// Negated is the comparison that holds where op does not (a < b: a >=
// b); other ops are returned as they are.
func (op BinOp) Negated() BinOp {
	switch op {
	case LT:
		return GE
	case LE:
		return GT
	case GT:
		return LE
	case GE:
		return LT
	case EQ:
		return NE
	case NE:
		return EQ
	}
	return op
}

// Binary is a binary operation.
type Binary struct {
	Op   BinOp
	A, B Expr
	Span source.Span
}

// Not is a logical negation.
type Not struct {
	X    Expr
	Span source.Span
}

// Neg is an arithmetic negation.
type Neg struct {
	X    Expr
	Span source.Span
}

// Load reads one element of a buffer (indices are logical, per buffer dim).
type Load struct {
	Buf     *Buffer
	Indices []Expr
	Span    source.Span
}

// Call is a call of an intrinsic or builtin: math ("sqrt"), casts handled by
// Cast, CUDA helpers ("tvm_builtin_copy_128b"), PTX wrappers, T.cuda.* syncs.
// Op names are documented by the code that creates them; codegen knows how to
// print each.
type Call struct {
	Op   string
	Args []Expr
	Type DataType // result type; invalid for void
	Span source.Span
}

// Cast converts X to To.
type Cast struct {
	To   DataType
	X    Expr
	Span source.Span
}

// Select is a ternary (cond ? a : b).
type Select struct {
	Cond, A, B Expr
	Span       source.Span
}

// AddressOf is the address of a buffer element (&buf[indices]); with FlatIndex
// set, Indices holds one flat element offset into the buffer's storage.
type AddressOf struct {
	Buf       *Buffer
	Indices   []Expr
	FlatIndex bool
	Span      source.Span
}

// BufferData is the raw data pointer of a buffer (buf.data).
type BufferData struct {
	Buf  *Buffer
	Span source.Span
}

// Region is a rectangular region of a buffer: per dim [Min, Min+Extent).
// It appears as a tile-call argument.
type Region struct {
	Buf    *Buffer
	Min    []Expr
	Extent []Expr
	Span   source.Span
}

func (e *IntImm) Pos() source.Span     { return e.Span }
func (e *FloatImm) Pos() source.Span   { return e.Span }
func (e *StringImm) Pos() source.Span  { return e.Span }
func (e *Var) Pos() source.Span        { return e.Span }
func (e *Binary) Pos() source.Span     { return e.Span }
func (e *Not) Pos() source.Span        { return e.Span }
func (e *Neg) Pos() source.Span        { return e.Span }
func (e *Load) Pos() source.Span       { return e.Span }
func (e *Call) Pos() source.Span       { return e.Span }
func (e *Cast) Pos() source.Span       { return e.Span }
func (e *Select) Pos() source.Span     { return e.Span }
func (e *AddressOf) Pos() source.Span  { return e.Span }
func (e *BufferData) Pos() source.Span { return e.Span }
func (e *Region) Pos() source.Span     { return e.Span }

func (*IntImm) exprNode()     {}
func (*FloatImm) exprNode()   {}
func (*StringImm) exprNode()  {}
func (*Var) exprNode()        {}
func (*Binary) exprNode()     {}
func (*Not) exprNode()        {}
func (*Neg) exprNode()        {}
func (*Load) exprNode()       {}
func (*Call) exprNode()       {}
func (*Cast) exprNode()       {}
func (*Select) exprNode()     {}
func (*AddressOf) exprNode()  {}
func (*BufferData) exprNode() {}
func (*Region) exprNode()     {}

// ---- buffers ----

// BufferKind says how a buffer came to be.
type BufferKind uint8

const (
	ParamBuffer BufferKind = iota + 1 // T.match_buffer on a kernel parameter
	AllocBuffer                       // T.alloc_buffer / alloc_shared / alloc_local (device)
	DeclBuffer                        // T.decl_buffer: a view over existing storage
)

// Buffer is a multi-dimensional array in some memory scope.
type Buffer struct {
	Name  string // Python name, e.g. "A_smem"
	Data  *Var   // data pointer; for parameters the handle name ("A_ptr")
	Shape []int64
	// ShapeExpr is nil for a static shape. A buffer over a runtime size
	// (T.match_buffer(h, (n, 256)) with n a kernel scalar or n = T.int32())
	// has ShapeExpr[d] set where dimension d is a runtime value; Shape[d]
	// is then 0 and means nothing: code that needs the extent of a buffer
	// dimension checks RuntimeDim first and declines ("not modelled: ...").
	// Its Layout is nil (see dispatch/cuda/common ReadRegion).
	ShapeExpr []Expr
	Dtype     DataType
	// Scope is "global", "shared", "shared.dyn", "local" or "tmem".
	Scope string
	// Layout is nil for layout=None; "default" becomes RowMajor(Shape).
	Layout layout.Layout
	// ElemOffset is the element offset of a decl_buffer view into Base.
	ElemOffset int64
	// ElemOffsetExpr is the runtime part of the element offset (a view at
	// a runtime index, buf.sub[i]; decl_buffer(..., byte_offset=i * 16) in
	// a device loop): the offset is ElemOffset + ElemOffsetExpr. Nil when
	// the offset is static.
	ElemOffsetExpr Expr
	// Base is the buffer whose storage a DeclBuffer views (nil otherwise).
	Base *Buffer
	// OffsetInSwizzle marks a view whose runtime element offset
	// (ElemOffsetExpr) lies inside its layout's swizzle: Buffer.sub at a
	// runtime index whose stride is not a multiple of the swizzle's
	// period, which TVM folds into the swizzled tile's offset. Only a TMA
	// transfer, which addresses the view's start and leaves the swizzle to
	// the hardware, models it (InsideSwizzle; tirxlib/buffer_view.go).
	OffsetInSwizzle bool
	// PtrBase and PtrOffset place a DeclBuffer whose data is a pointer
	// variable (T.decl_buffer(..., data=p) with p: T.let =
	// T.reinterpret(PointerType(...), smem.ptr_to([off]))) in the storage
	// that pointer points into: PtrBase is that allocation or parameter
	// (a root: no Base, no PtrBase, no element offset) and PtrOffset the
	// pointer's byte offset into it. Set only when both are static; the
	// printers and codegen use Data, only the memory analysis reads them.
	PtrBase   *Buffer
	PtrOffset int64
	// AllocatedAddr is the allocated_addr= of a tensor-memory buffer (the
	// TMEM address tcgen05.alloc wrote), nil when not given.
	AllocatedAddr Expr
	Kind          BufferKind
	Span          source.Span // the declaration (match_buffer / alloc / decl call)
}

// InsideSwizzle reports whether b, or a buffer it views, has a runtime
// offset inside its swizzle (OffsetInSwizzle).
func (b *Buffer) InsideSwizzle() bool {
	for x := b; x != nil; x = x.Base {
		if x.OffsetInSwizzle {
			return true
		}
	}
	return false
}

// RuntimeDim returns the first dimension whose extent is a runtime value
// (ShapeExpr), -1 when the shape is static.
func (b *Buffer) RuntimeDim() int {
	for d, e := range b.ShapeExpr {
		if e != nil {
			return d
		}
	}
	return -1
}

// NumElements is the product of Shape (meaningless when RuntimeDim >= 0).
func (b *Buffer) NumElements() int64 {
	n := int64(1)
	for _, e := range b.Shape {
		n *= e
	}
	return n
}

// ---- statements ----

// Block is a statement list.
type Block struct {
	Stmts []Stmt
	Span  source.Span
}

// ForKind is the kind of a loop.
type ForKind uint8

const (
	Serial ForKind = iota
	Unrolled
	Vectorized
)

func (k ForKind) String() string {
	switch k {
	case Unrolled:
		return "unroll"
	case Vectorized:
		return "vectorized"
	}
	return "serial"
}

// For is a counted loop: Var in [Min, Min+Extent).
type For struct {
	Var    *Var
	Min    Expr // nil means 0
	Extent Expr
	Kind   ForKind
	// Unroll is the loop's unroll pragma, from T.serial(..., unroll=...)
	// or the annotations {"disable_unroll": True} and {"pragma_unroll":
	// v}: 0 none; UnrollFull, `#pragma unroll`; 1, `#pragma unroll 1`
	// (nvcc keeps the loop: disable_unroll); n > 1, `#pragma unroll n`.
	Unroll int64
	Body   *Block
	Span   source.Span
}

// UnrollFull is For.Unroll of a loop annotated pragma_unroll: True.
const UnrollFull = -1

// While is a while loop.
type While struct {
	Cond Expr
	Body *Block
	Span source.Span
}

// If is a conditional; Else may be nil.
type If struct {
	Cond       Expr
	Then, Else *Block
	Span       source.Span
}

// Store writes one element of a buffer.
type Store struct {
	Buf     *Buffer
	Indices []Expr
	Value   Expr
	Span    source.Span
}

// Evaluate evaluates X for its effect (an intrinsic call).
type Evaluate struct {
	X    Expr
	Span source.Span
}

// Let binds Var to Value for the rest of the enclosing block (x: T.let = e,
// or a plain Python assignment of a device expression).
type Let struct {
	Var   *Var
	Value Expr
	// Mutable marks a scalar declared with a type annotation (phase: T.int32)
	// or re-assigned later; codegen declares it once and assigns.
	Mutable bool
	Span    source.Span
}

// Assign re-assigns a mutable scalar declared by a Let.
type Assign struct {
	Var   *Var
	Value Expr
	Span  source.Span
}

// Alloc allocates Buf (alloc_buffer, alloc_shared, alloc_local, or a
// staging buffer introduced by lowering).
type Alloc struct {
	Buf  *Buffer
	Span source.Span
}

// Decl declares Buf as a view (decl_buffer).
type Decl struct {
	Buf  *Buffer
	Span source.Span
}

// ScopeKind names a scope-id declaration.
type ScopeIDKind string

const (
	CTAID          ScopeIDKind = "cta_id"
	ClusterID      ScopeIDKind = "cluster_id"
	CTAIDInCluster ScopeIDKind = "cta_id_in_cluster"
	ThreadID       ScopeIDKind = "thread_id"
	WarpID         ScopeIDKind = "warp_id"
	WarpgroupID    ScopeIDKind = "warpgroup_id"
	WarpIDInWG     ScopeIDKind = "warp_id_in_wg"
	LaneID         ScopeIDKind = "lane_id"
	ThreadIDInWG   ScopeIDKind = "thread_id_in_wg"
)

// ScopeID is a scope-id declaration such as `tid = T.thread_id([128])`.
// Extents are nil when deferred (inferred from siblings); Vars has one Var
// per dimension (or a single Var for one dimension).
type ScopeID struct {
	Kind    ScopeIDKind
	Vars    []*Var
	Extents []int64
	Span    source.Span
	// Dynamic holds the extents when they are runtime values (a kernel
	// parameter: T.cta_id([n])); Extents is nil then. TVM keeps them as
	// symbolic launch extents.
	Dynamic []Expr
	// Unresolved is set when the evaluator could not compute the extents
	// (a value tilels does not model; it reported why at the extents):
	// Extents and Dynamic are nil, and the kernel's launch may be unknown.
	Unresolved bool
}

// Arg is a tile-call argument: a *Region, a *Tuple or any scalar Expr.
type Arg = Expr

// Tuple is a Python tuple or list operand of a tile call (a reduction's
// axes=(0, 1)) or config value (gather4=[...]); its elements are Exprs. It
// appears only in a TileCall's arguments and config, never inside lowered
// code.
type Tuple struct {
	Elems []Expr
	Span  source.Span
}

func (e *Tuple) Pos() source.Span { return e.Span }
func (*Tuple) exprNode()          {}

// KV is one config entry of a tile call (**kwargs), in source order.
type KV struct {
	Key   string
	Value Expr // IntImm, FloatImm, StringImm, *Var, *BufferData, ...
	Span  source.Span
}

// TileCall is a Tx.<scope>.<op>(...) call before lowering.
type TileCall struct {
	Op       string // "copy", "copy_async", "sqrt", "add", ...
	Scope    string // "thread", "warp", "warpgroup", "cta", "cluster"
	Args     []Arg  // in op_call.args order (see spec §1.5)
	Config   []KV
	Dispatch string // forced variant, "" when absent
	// DispatchSpan is the expression that gave Dispatch (the string
	// literal of `dispatch="tma"`); NoSpan when absent.
	DispatchSpan source.Span
	// Span is the whole call; OpSpan the `Tx.warp.copy` callee.
	Span, OpSpan source.Span
	// ArgSpans are the spans of the written arguments (for diagnostics).
	ArgSpans []source.Span
}

// Lowered is what a TileCall became: the chosen variant and its body. The
// dispatcher replaces a TileCall by a Lowered in the lowered function.
type Lowered struct {
	Call    *TileCall
	Variant string
	Body    *Block
	Span    source.Span
}

// Break leaves the innermost device loop (For or While).
type Break struct{ Span source.Span }

// Continue goes to the next iteration of the innermost device loop.
type Continue struct{ Span source.Span }

// Comment is a comment line in printed IR (used sparingly).
type Comment struct {
	Text string
	Span source.Span
	// LeftOut marks, instead of a comment, a statement of the kernel
	// the evaluation left out (an eval/unresolved warning) that may
	// access memory: a buffer element, a T.ptx, T.cuda or Tx call. Text
	// is the statement's; printers skip it, and the memory figures of
	// the code around it are unknown where it is reached.
	LeftOut bool
}

func (s *Block) Pos() source.Span    { return s.Span }
func (s *For) Pos() source.Span      { return s.Span }
func (s *While) Pos() source.Span    { return s.Span }
func (s *If) Pos() source.Span       { return s.Span }
func (s *Store) Pos() source.Span    { return s.Span }
func (s *Evaluate) Pos() source.Span { return s.Span }
func (s *Let) Pos() source.Span      { return s.Span }
func (s *Assign) Pos() source.Span   { return s.Span }
func (s *Alloc) Pos() source.Span    { return s.Span }
func (s *Decl) Pos() source.Span     { return s.Span }
func (s *ScopeID) Pos() source.Span  { return s.Span }
func (s *TileCall) Pos() source.Span { return s.Span }
func (s *Lowered) Pos() source.Span  { return s.Span }
func (s *Comment) Pos() source.Span  { return s.Span }
func (s *Break) Pos() source.Span    { return s.Span }
func (s *Continue) Pos() source.Span { return s.Span }

func (*Block) stmtNode()    {}
func (*For) stmtNode()      {}
func (*While) stmtNode()    {}
func (*If) stmtNode()       {}
func (*Store) stmtNode()    {}
func (*Evaluate) stmtNode() {}
func (*Let) stmtNode()      {}
func (*Assign) stmtNode()   {}
func (*Alloc) stmtNode()    {}
func (*Decl) stmtNode()     {}
func (*ScopeID) stmtNode()  {}
func (*TileCall) stmtNode() {}
func (*Lowered) stmtNode()  {}
func (*Comment) stmtNode()  {}
func (*Break) stmtNode()    {}
func (*Continue) stmtNode() {}

// ---- functions ----

// Param is one kernel parameter: a handle bound by match_buffer (Buf set) or
// a scalar (Var only).
type Param struct {
	Var *Var
	Buf *Buffer
	// Implicit marks a scalar the kernel declares in its body (n =
	// T.int32()) and binds through a buffer shape: a launch argument that
	// is not in the Python signature (TVM makes it one too).
	Implicit bool
	// TensorMap marks a parameter annotated T.TensorMap(): a CUDA
	// tensor-map descriptor the host encodes, which the kernel takes by
	// value (`const __grid_constant__ CUtensorMap`); Var is its handle.
	TensorMap bool
	Span      source.Span
}

// Func is one @T.prim_func kernel.
type Func struct {
	Name   string
	Params []*Param
	// Host holds statements before T.device_entry() other than match_buffer.
	Host *Block
	// Body is the device code (after T.device_entry()).
	Body *Block
	Span source.Span
	// NameSpan is the span of the function name in `def name(`.
	NameSpan source.Span
	// TensorMaps are the descriptors the host encodes before the launch,
	// in first-use order (set by the dispatcher for TMA copies; each one is
	// also a trailing kernel parameter).
	TensorMaps []*TensorMap
	// HostMaps are the descriptors the kernel's own host code encodes,
	// by the T.tvm_stack_alloca("tensormap", 1) handle it encodes into
	// (T.call_packed("runtime.cuTensorMapEncodeTiled", handle, ...) with
	// static operands): what hand-written TMA (T.ptx["cp.async.bulk.
	// tensor..."](T.address_of(handle), ...)) moves. Nothing prints them.
	HostMaps map[*Var]*TensorMap
	// LaunchArgs are the values a `# tilels: bind` line above the kernel
	// gives its integer scalar parameters: the launch the memory figures
	// count. The code keeps the parameters.
	LaunchArgs []LaunchArg
	// LaunchData are the contents a bind line gives integer buffer
	// parameters (`# tilels: bind cu_seqlens=[0, 512, 1536]`): the data
	// of the launch the memory figures count, which the kernel's loads
	// of them read (a varlen kernel's sequence offsets).
	LaunchData []LaunchDatum
	// Release is the reference release the kernel was evaluated under:
	// what the printers model where the releases differ (codegen/cuda:
	// 0.27's block-scaled encoder takes the dense K=96 of sm_103a).
	Release release.Release
}

// LaunchArg is one integer scalar parameter's value for the launch counted.
type LaunchArg struct {
	Var   *Var
	Value int64
}

// LaunchDatum is one integer buffer parameter's contents for the launch
// counted, its elements in row-major order from the first.
type LaunchDatum struct {
	Buf    *Buffer
	Values []int64
}

// WrittenArgs returns the call's arguments without the trailing ones left
// at their defaults (nil): what a user would write, for printing.
func (c *TileCall) WrittenArgs() []Arg {
	n := len(c.Args)
	for n > 0 && c.Args[n-1] == nil {
		n--
	}
	return c.Args[:n]
}
