package ir

// Intrinsics of apache-tvm 0.27.0.post1's packed float32 pairs: 0.27
// writes each .f32x2 instruction with explicit register-pair moves around
// it (reduction/sm100_packed.py, elementwise/vec_emit), and the three-input
// max/min as a statement writing its destination. The .f32x2 arithmetic
// itself is the T.ptx string op ("ptx.add.rn.ftz.f32x2",
// "ptx.fma.rz.ftz.f32x2", ...; codegen/cuda/ops_user_misc.go).
const (
	// OpPtxMovB64 is T.ptx.mov.b64: with a 64-bit last argument
	// (d0, d1, a) it unpacks a into two 32-bit registers
	// (mov.b64 {d0, d1}, a); otherwise (d, a0, a1) it packs a0, a1 into
	// the 64-bit d (mov.b64 d, {a0, a1}). Destinations are register loads
	// (written through a reference). No value.
	OpPtxMovB64 = "ptx.mov.b64"

	// OpPtxMax3F32 and OpPtxMin3F32 are 0.27's T.ptx["max.f32"](d, a, b, c)
	// / "min.f32" with three sources (sm_100): d = max(a, b, c). d is a
	// register load written through a reference. No value.
	OpPtxMax3F32 = "ptx.max3.f32"
	OpPtxMin3F32 = "ptx.min3.f32"
)

// Shared-memory loads and stores of 0.26.0's warp_xor_swizzle "direct"
// path (T.ptx.ld(ptr, "uint32", "b32", space="shared") and
// T.ptx.st(ptr, v, space="shared", ptx_type="b32")).
const (
	// OpPtxLdSharedPlain is ld.shared.b<bits> of the address Args[0]; Type
	// uint32 or uint64 gives the width.
	OpPtxLdSharedPlain = "ptx.ld.plain.shared"
	// OpPtxStSharedPlain is st.shared.b<bits> [Args[0]], Args[1] (uint32 or
	// uint64). No value.
	OpPtxStSharedPlain = "ptx.st.plain.shared"
)

// 0.27.0.post1's dsmem copy (copy_async/dsmem.py): the remote addresses are
// written by mapa.u64 into a local scratch, then the bulk copy is the T.ptx
// string op with uint32 operands.
const (
	// OpPtxMapaU64 is T.ptx.mapa.u64(d, a, rank): d = the address a in CTA
	// rank's shared window (cluster space). d is a uint64 register load.
	OpPtxMapaU64 = "ptx.mapa.u64"
	// OpCpAsyncBulkS2CStr is T.ptx["cp.async.bulk.shared::cluster.shared::cta.
	// mbarrier::complete_tx::bytes"](dst, src, size, mbar): dst and mbar
	// uint32 cluster addresses, src a generic shared pointer (converted),
	// size in bytes.
	OpCpAsyncBulkS2CStr = "ptx.cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
)
