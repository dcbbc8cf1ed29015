package ir

// Intrinsics of the synchronous gemm lowering (dispatch/cuda/gemm).
const (
	// OpPTXMma is one warp-level mma.sync.aligned of the m16n8k* family
	// (TVM T.ptx.mma). Args:
	//   0 StringImm shape ("m16n8k16", "m16n8k8"),
	//   1 StringImm A layout ("row"), 2 StringImm B layout ("col"),
	//   3..6 StringImm dtypes of D, A, B, C ("float32", "float16", "bfloat16"),
	//   7 *Tuple of D register addresses (one f32 each, PTX order),
	//   8 *Tuple of A register addresses (one b32 = two packed 16-bit elements each),
	//   9 *Tuple of B register addresses (b32 each),
	//   10 *Tuple of C register addresses (f32 each).
	// Every address is an *AddressOf into the calling thread's registers.
	// CUDA: ptx_mma_<shape>_row_col_<d>_<a>_<b>_<c>(d..., a..., b..., c...), a
	// helper around the inline PTX (sm_80+). TIRx: T.ptx.mma(...).
	OpPTXMma = "ptx.mma"
)
