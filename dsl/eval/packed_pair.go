package eval

import "github.com/tilels/tilels/ir"

// PackedPairV is a two-lane vector of 16-bit floats (a "bfloat16x2" or
// "float16x2" value: T.reinterpret("bfloat16x2", bits)), which tilels'
// scalar IR holds as its 32-bit pattern: lane 0 in the low half, as TVM's
// vector lanes are laid out. T.Shuffle reads a lane as a scalar of Elem,
// or packs two such scalars into a pair (tirxlib's tShuffle), and
// T.reinterpret of a pair to a 32-bit type is its bits
// (sparse_decode_head64.py's e4m3 dequantization).
type PackedPairV struct {
	Base
	Bits ir.Expr     // uint32
	Elem ir.DataType // bfloat16 or float16
}

func (*PackedPairV) TypeName() string { return "PrimExpr" }

// PackedPairElem is the lane type of a two-lane 16-bit float dtype name,
// ok false for any other name.
func PackedPairElem(name string) (ir.DataType, bool) {
	switch name {
	case "bfloat16x2":
		return ir.DataType{Code: ir.BFloat, Bits: 16}, true
	case "float16x2":
		return ir.DataType{Code: ir.Float, Bits: 16}, true
	}
	return ir.DataType{}, false
}

// VectorV is the value of Buffer.vload(indices, dtype="<t>x<n>"): n
// consecutive elements of the buffer from indices, each loaded into a
// scalar when the vload evaluates (so that the loads happen where the
// vector load does). T.Shuffle([v], [i]) is lane i
// (paged_mqa_logits_fp8.py's float32x4 weight loads).
type VectorV struct {
	Base
	Lanes []ir.Expr
	Elem  ir.DataType
}

func (*VectorV) TypeName() string { return "PrimExpr" }
