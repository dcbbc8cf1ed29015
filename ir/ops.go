package ir

// Intrinsic operation names used in Call.Op. The dispatcher and the evaluator
// create these; codegen prints each one (CUDA: a helper function emitted once
// per file plus a call; TIRx text: the T.* spelling given here). Argument
// conventions are part of the contract and are listed per op.
const (
	// OpCopyBytes copies N bytes between two naturally aligned pointers
	// (seed form, spec §5.3a). Args: dst ptr, src ptr, IntImm N (1,2,4,8,16,32).
	// CUDA: tvm_builtin_copy_{8N}b(dst, src). TIRx: T.cuda.copy_bytes(dst, src, N).
	OpCopyBytes = "cuda.copy_bytes"

	// OpPointerOffset is a typed pointer plus an element offset (spec §5.3b).
	// Args: ptr (an *AddressOf), offset Expr.
	// CUDA: tvm_builtin_pointer_offset(ptr, off). TIRx: T.tvm_builtin_pointer_offset(ptr, off).
	OpPointerOffset = "tvm_builtin_pointer_offset"

	// Synchronisation (spec §1.7). No args except OpWarpgroupSync (IntImm barrier id).
	OpCTASync       = "cuda.cta_sync"       // __syncthreads();
	OpWarpSync      = "cuda.warp_sync"      // __syncwarp();
	OpWarpgroupSync = "cuda.warpgroup_sync" // bar.sync id, 128;

	// mbarrier and async-proxy ops (spec §1.7, §5.4). Pointers are *AddressOf.
	OpMbarrierInit         = "ptx.mbarrier.init"             // Args: bar ptr, count
	OpMbarrierArriveExpect = "ptx.mbarrier.arrive.expect_tx" // Args: bar ptr, bytes
	OpMbarrierArrive       = "ptx.mbarrier.arrive"           // Args: bar ptr
	OpMbarrierTryWait      = "ptx.mbarrier.try_wait"         // Args: bar ptr, phase (blocking spin)
	OpFenceProxyAsync      = "ptx.fence.proxy_async"         // Args: StringImm space ("shared::cta")
	OpFenceMbarrierInit    = "ptx.fence.mbarrier_init"       // no args; fence.mbarrier_init.release.cluster
	OpElectSync            = "ptx.elect_sync"                // no args; returns int32 (1 in the elected lane)
	// OpFilter is T.filter(var, pred) (tirx.filter), a bool thread-set
	// filter in an if condition; the dispatch pass narrows by it and
	// rewrites it to pred.
	OpFilter = "filter"
	// The bulk and cp.async group ops keep the DSL's spelling
	// (T.ptx.cp_async.bulk.commit_group()); wait_group() without an
	// argument waits for all groups (n = 0, filled in by the evaluator).
	OpCpAsyncBulkCommit = "ptx.cp_async.bulk.commit_group"
	OpCpAsyncBulkWait   = "ptx.cp_async.bulk.wait_group" // Args: IntImm n
	OpCpAsyncCommit     = "ptx.cp_async.commit_group"
	OpCpAsyncWait       = "ptx.cp_async.wait_group" // Args: IntImm n

	// OpCpAsync is one cp.async (LDGSTS) global -> shared transfer.
	// Args: dst smem ptr, src global ptr, IntImm cp_size in bytes (4, 8, 16).
	// PTX: cp.async.{ca|cg}.shared.global [dst], [src], cp_size; (cg for 16).
	OpCpAsync = "ptx.cp_async"

	// OpPredGuard wraps the trailing argument of a T.ptx[...] chain call
	// that the reference passes as pred= (the instruction guarded by @p),
	// where the chain also has an optional operand the argument would
	// otherwise fill (cp.async's src-size). Args: the predicate (uint32).
	OpPredGuard = "ptx.pred_guard"

	// TMA bulk tensor copies (spec §4.5.4, §5.5). Coordinates are int32
	// expressions in CUDA order (innermost first), one per descriptor dim.
	//
	// OpCpAsyncBulkTensorG2C: global -> shared::cluster, completing on an
	// mbarrier. Args: IntImm rank, dst smem ptr, mbar ptr, *TensorMapAddr,
	// cta_mask Expr (multicast iff not a constant with <= 1 bit set),
	// IntImm cta_group (-1 = omit `.cta_group::N`), StringImm cache_hint (or, 0.26+, the uint64 policy expression)
	// ("" = none), then rank coords.
	OpCpAsyncBulkTensorG2C = "ptx.cp_async.bulk.tensor.g2c"
	// OpCpAsyncBulkTensorG2CGather4 is G2C's .tile::gather4 form (sm_100a,
	// rank 2, 0.26+ tma_explicit gather4=): the G2C arguments with rank 2
	// and five coordinates, the column then the four rows.
	OpCpAsyncBulkTensorG2CGather4 = "ptx.cp_async.bulk.tensor.g2c_gather4"
	// OpCpAsyncBulkTensorS2G: shared::cta -> global, bulk_group completion.
	// Args: IntImm rank, src smem ptr, *TensorMapAddr, StringImm cache_hint,
	// then rank coords.
	OpCpAsyncBulkTensorS2G = "ptx.cp_async.bulk.tensor.s2g"
	// OpCpAsyncBulkTensorS2GReduce is S2G with an in-place reduction.
	// Args: IntImm rank, src smem ptr, *TensorMapAddr, StringImm cache_hint,
	// StringImm op ("add", "min", "max", ...), then rank coords.
	OpCpAsyncBulkTensorS2GReduce = "ptx.cp_async.bulk.tensor.s2g_reduce"
	// OpPrefetchTensormap prefetches a descriptor. Args: *TensorMapAddr.
	OpPrefetchTensormap = "ptx.prefetch_tensormap"

	// OpLdmatrix loads 8x8 b16 matrices from shared memory into registers.
	// Args: IntImm num (1,2,4), IntImm trans (0/1), smem ptr, register ptr
	// (num 32-bit registers per thread). PTX: ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16
	OpLdmatrix = "ptx.ldmatrix"
	// OpStmatrix stores 8x8 b16 matrices from registers to shared memory (sm_90).
	// Args: IntImm num, IntImm trans, smem ptr, register ptr.
	OpStmatrix = "ptx.stmatrix"

	// OpCastVec2 converts two packed elements (spec §4.4 cast_vec2).
	// Args: dst ptr, src ptr, StringImm src dtype, StringImm dst dtype.
	OpCastVec2 = "cuda.cast_vec2"
	// OpPackedF32x2 is a packed f32x2 arithmetic op (sm_100).
	// Args: StringImm op ("add","sub","mul","fma"), StringImm rounding ("rz"),
	// dst ptr, then 2 (or 3 for fma) sources, each a ptr to 2 floats or, for
	// a scalar operand, an f32 expression used for both lanes (TVM
	// make_float2(s, s); emitted by dispatch/cuda/elementwise/ops.go).
	OpPackedF32x2 = "ptx.f32x2"

	// Math (result type = Call.Type; printed sqrtf/hsqrt/... by type).
	OpSqrt = "sqrt"
	OpExp  = "exp"
	OpExp2 = "exp2"
	OpLog2 = "log2"
)
