package ir

// Intrinsics of the reduction lowering (dispatch/cuda/reduction), named as
// the reference's TIR names them; codegen/cuda/ops_reduction.go prints them.
const (
	// OpWarpShuffleXor is T.tvm_warp_shuffle_xor(mask, value, lane_mask,
	// width, warp_size): value read from lane (lane ^ lane_mask) within
	// groups of width lanes. Args: mask (uint32), value, IntImm lane_mask,
	// IntImm width, IntImm warp_size (32). Type: the value's.
	// CUDA: __shfl_xor_sync(mask, value, lane_mask, width).
	OpWarpShuffleXor = "tvm_warp_shuffle_xor"

	// OpWarpActivemask is T.tvm_warp_activemask(): the mask of the lanes
	// executing it. No args; Type uint32. CUDA: __activemask().
	OpWarpActivemask = "tvm_warp_activemask"

	// OpCudaWarpReduce is T.cuda.warp_reduce(value, op, width): a butterfly
	// shuffle-xor reduction over groups of width adjacent lanes, every lane
	// of a group getting the result. Args: value, StringImm op ("sum",
	// "max", "min"), IntImm width (2..32, a power of two). Type: the
	// value's. CUDA: tvm_builtin_cuda_warp_reduce_<op>_<width>(value), a
	// template helper of log2(width) __shfl_xor_sync(0xFFFFFFFF, ...) steps
	// with masks width/2, ..., 1.
	OpCudaWarpReduce = "cuda.warp_reduce"

	// OpPtxAddF32x2 is T.ptx.add_f32x2(d_addr, a, b, rounding, ftz, sat)
	// (sm_100): two float32 additions in one instruction, a and b each two
	// floats packed in 64 bits (OpCudaMakeFloat2), the pair written through
	// d_addr. Args: *AddressOf d, a, b, StringImm rounding ("rn"), IntImm
	// ftz (0/1), IntImm sat (0). PTX: add.<rnd>[.ftz].f32x2 d, a, b.
	OpPtxAddF32x2 = "ptx.add_f32x2"

	// OpCudaMakeFloat2 is T.cuda.make_float2(x, y): two float32 packed in a
	// 64-bit value (x low). Args: x, y. Type uint64.
	OpCudaMakeFloat2 = "cuda.make_float2"

	// OpPtxReduce3MaxF32 and OpPtxReduce3MinF32 are T.ptx.reduce3_max_f32 /
	// reduce3_min_f32(a, b, c) (sm_100): the three-input max.f32 / min.f32.
	// Args: three float32 values. Type float32.
	OpPtxReduce3MaxF32 = "ptx.reduce3_max_f32"
	OpPtxReduce3MinF32 = "ptx.reduce3_min_f32"
)
