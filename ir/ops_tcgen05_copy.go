package ir

// Intrinsics of the copy_async variants smem->tmem (tcgen05.cp),
// tmem<->local (tcgen05.ld / tcgen05.st) and dsmem (cp.async.bulk
// shared::cta -> shared::cluster). Printed to CUDA by
// codegen/cuda/ops_tcgen05_copy.go; the TIRx printer spells each T.<op>(...).
const (
	// OpTcgen05Cp is one tcgen05.cp (shared memory -> tensor memory, async).
	// Args: taddr (uint32: the TMEM address, column offset included),
	// desc (uint64 shared-memory matrix descriptor), StringImm shape
	// ("32x128b"), IntImm cta_group (1 or 2), StringImm multicast ("warpx4").
	// PTX: tcgen05.cp.cta_group::N.<shape>.<multicast> [taddr], desc;
	OpTcgen05Cp = "ptx.tcgen05.cp"

	// OpTcgen05Ld / OpTcgen05St are one tcgen05.ld / tcgen05.st (tensor
	// memory <-> registers, async; no wait is issued: the caller waits with
	// tcgen05.wait::ld / wait::st).
	// Args: StringImm shape ("32x32b", "16x64b", "16x128b", "16x256b"),
	// IntImm num (the .x repetition count), taddr (uint32), IntImm row
	// offset (TMEM lanes), col offset (32-bit TMEM columns), then one
	// pointer per 32-bit register (AddressOf a register buffer element).
	// PTX: tcgen05.{ld,st}.sync.aligned.<shape>.x<num>.b32
	OpTcgen05Ld = "ptx.tcgen05.ld"
	OpTcgen05St = "ptx.tcgen05.st"

	// The descriptor ops the smem->tmem lowering also uses,
	// OpTcgen05EncodeMatrixDesc and OpSmemDescAdd16B, are shared with
	// gemm_async: declared in ops_gemm_async.go, printed by its table.

	// OpMapSharedRank maps a shared::cta address of this CTA to the
	// shared::cluster address of the same variable in CTA rank of the
	// cluster (mapa.u64). Type uint64. Args: pointer, rank (uint32).
	OpMapSharedRank = "ptx.map_shared_rank"

	// OpCpAsyncBulkS2C is one cp.async.bulk.shared::cluster.shared::cta
	// with mbarrier::complete_tx::bytes on the destination CTA's barrier.
	// Args: dst (uint64 shared::cluster address), src (shared::cta
	// pointer), size in bytes (a multiple of 16), mbar (uint64
	// shared::cluster address). Needs sm_90.
	OpCpAsyncBulkS2C = "ptx.cp_async.bulk.s2c"
)
