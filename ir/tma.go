package ir

import "github.com/tilels/tilels/dsl/source"

// TensorMap is a CUtensorMap that the host encodes with
// cuTensorMapEncodeTiled before the launch and passes to the kernel by value
// as `const __grid_constant__ CUtensorMap <Name>` (spec §4.5.4, §5.5). The
// TMA variant creates one per distinct descriptor (TVM's
// "tensormap:..." cache key); every device use refers to it through a
// *TensorMapAddr.
//
// All arrays are in CUDA order, innermost dimension first, exactly as
// cuTensorMapEncodeTiled takes them: GlobalDims, Box and ElemStrides have
// Rank entries, GlobalStrides has Rank-1 (bytes; dimension 0's stride is the
// element size and is implicit).
type TensorMap struct {
	// Name is the kernel parameter's name: "<global data var>_tensormap".
	// Printers make it unique within a kernel.
	Name string
	// Buf is the global buffer; its data pointer (plus Buf.ElemOffset) is
	// the descriptor's base address.
	Buf *Buffer
	// DType is the descriptor's element type after promotion: the buffer's
	// dtype, or uint16/uint32/uint64 when L3 promoted it (spec §4.5.3).
	DType DataType
	Rank  int

	GlobalDims    []int64
	GlobalStrides []int64
	// GlobalDimExprs, when not nil, has Rank entries: a non-nil entry is a
	// global dimension known only at launch (a runtime extent of Buf,
	// ir.Buffer.ShapeExpr, over the kernel's scalar parameters), which the
	// host launcher computes; GlobalDims holds 0 there.
	GlobalDimExprs []Expr
	Box            []int64
	ElemStrides    []int64

	// Interleave, Swizzle, L2Promotion and OOBFill are the CUtensorMap enum
	// values (0 = NONE; swizzle 1/2/3 = 32B/64B/128B; L2 2 = 128B;
	// OOBFill 1 = NAN_REQUEST_ZERO_FMA).
	Interleave, Swizzle, L2Promotion, OOBFill int
	// ForceDType is a CUtensorMapDataType that overrides the one derived
	// from DType (11 = TFLOAT32), or -1.
	ForceDType int

	// Key is the dedup key (TVM's tensormap cache key).
	Key string
	// Span is the copy_async call that first needed the descriptor.
	Span source.Span
}

// TensorMapAddr is the generic address of a tensor-map kernel parameter
// (TVM T.address_of(tensor_map)); CUDA prints
// ((unsigned long long)(&(A_ptr_tensormap))).
type TensorMapAddr struct {
	Map  *TensorMap
	Span source.Span
}

func (e *TensorMapAddr) Pos() source.Span { return e.Span }
func (*TensorMapAddr) exprNode()          {}
