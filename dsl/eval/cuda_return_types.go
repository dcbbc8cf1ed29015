package eval

import "github.com/tilels/tilels/ir"

// cudaReturnTypes are the value types of the T.cuda intrinsics that return
// one: the dtype each passes to call_intrin in the reference's
// backend/cuda/op.py (0.27.0.post1; the same in 0.26.0 where the
// intrinsic exists). A call of one assigned to a name in a kernel body
// declares a scalar of that type, as TVMScript's bind does; without it
// the value stayed an untyped expression that each use repeated, and a
// later reassignment in a nested block declared a new scalar there
// (mega_moe.py's combine loop: `mask = total_mask` ... `mask ^= ...`).
var cudaReturnTypes = map[string]ir.DataType{
	"cuda.any_sync":                        ir.Int32,
	"cuda.ballot_sync":                     ir.UInt32,
	"cuda.bfloat1622float2":                {Code: ir.UInt, Bits: 64},
	"cuda.bfloat162float":                  ir.Float32,
	"cuda.clock64":                         {Code: ir.UInt, Bits: 64},
	"cuda.cvta_generic_to_shared":          ir.UInt32,
	"cuda.fadd2_rn":                        {Code: ir.UInt, Bits: 64},
	"cuda.fdividef":                        ir.Float32,
	"cuda.ffs_u32":                         ir.Int32,
	"cuda.float22bfloat162_rn":             ir.UInt32,
	"cuda.float22bfloat162_rn_from_float2": ir.UInt32,
	"cuda.float2_x":                        ir.Float32,
	"cuda.float2_y":                        ir.Float32,
	"cuda.float_as_uint":                   ir.UInt32,
	"cuda.fmul2_rn":                        {Code: ir.UInt, Bits: 64},
	"cuda.fp8x4_e4m3_from_float4":          ir.UInt32,
	"cuda.get_tmem_addr":                   ir.UInt32,
	"cuda.half2float":                      ir.Float32,
	"cuda.hmax2":                           ir.UInt32,
	"cuda.hmin2":                           ir.UInt32,
	"cuda.make_float2":                     {Code: ir.UInt, Bits: 64},
	"cuda.reduce_add_sync_u32":             ir.UInt32,
	"cuda.reduce_min_sync_u32":             ir.UInt32,
	"cuda.smem_addr_from_uint64":           ir.UInt32,
	"cuda.syncthreads_and":                 {Code: ir.Int, Bits: 64},
	"cuda.syncthreads_or":                  {Code: ir.Int, Bits: 64},
	"cuda.thread_rank":                     ir.Int32,
	"cuda.uint_as_float":                   ir.Float32,
}
