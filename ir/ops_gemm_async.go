package ir

// Intrinsics of the gemm_async lowering (Blackwell tcgen05 UMMA, sm_100a).
// Names are the reference's TIR op names; argument conventions below.
const (
	// OpTcgen05EncodeMatrixDesc fills a shared-memory matrix descriptor
	// (SmemDescriptor: version 1, lbo_mode 0, base_offset 0).
	// Args: desc ptr (*AddressOf of a local uint64), smem ptr (*AddressOf),
	// ldo, sdo (16-byte units), IntImm swizzle mode (0 none, 1 32B, 2 64B,
	// 3 128B, 4 128B_base32B).
	// CUDA: tvm_builtin_ptx_tcgen05_encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle).
	// Shared with the tcgen05 copies (smem->tmem).
	OpTcgen05EncodeMatrixDesc = "ptx.tcgen05.encode_matrix_descriptor"

	// OpSmemDescAdd16B adds a 16-byte-unit offset to the low 32 bits of a
	// matrix descriptor (the start address field). Args: desc (uint64
	// expression), offset (int32). Type: uint64.
	// CUDA: tvm_builtin_smem_desc_add_16B_offset(desc, offset). Shared with
	// the tcgen05 copies.
	OpSmemDescAdd16B = "cuda.smem_desc_add_16B_offset"

	// OpSmemDescLoUniform makes a matrix descriptor's low word (its start
	// address) the value of lane 0 of the warp: 0.25's and 0.26's
	// smem_desc_make_lo_uniform_, a shuffle of the low 32 bits with the
	// full mask, after a warp-scope gemm_async encodes its descriptors at
	// the buffer's definition. Args: desc ptr (*AddressOf of a local
	// uint64). No value.
	// CUDA: smem_desc_make_lo_uniform_(desc).
	OpSmemDescLoUniform = "cuda.smem_desc_make_lo_uniform"

	// OpPtxShflSyncIdxB32 is 0.27's T.ptx.shfl_sync.idx.b32(d, a, lane,
	// clamp, membermask): shfl.sync.idx.b32 d, a, lane, clamp, membermask
	// (0.27 writes the descriptor shuffle above as mov.b64 {lo, hi}, desc;
	// this; mov.b64 desc, {lo, hi}). d is a register load written through
	// a reference; the others are uint32. No value.
	// CUDA: tvm_builtin_ptx_shfl_sync_idx_b32(d, a, lane, clamp, mask).
	OpPtxShflSyncIdxB32 = "ptx.shfl.sync.idx.b32"

	// OpGetTmemAddr is a tensor-memory address moved by (row, col): the
	// lane in bits [16,32), the 32-bit column in [0,16), each wrapping at
	// 16 bits. Args: addr (uint32), row, col (int32). Type: uint32.
	// CUDA: tvm_builtin_cuda_get_tmem_addr(addr, row, col).
	OpGetTmemAddr = "cuda.get_tmem_addr"

	// OpTcgen05MMA is one tcgen05.mma (dense).
	// Args: StringImm kind ("f16", "tf32", "f8f6f4", "i8"), IntImm
	// cta_group (1, 2), IntImm use_a_tmem (0: A is a smem descriptor, 1: a
	// tmem address), d tmem addr (uint32), a operand (uint64 descriptor or
	// uint32 tmem addr), b descriptor (uint64), instruction descriptor
	// (uint32), enable_input_d (bool: accumulate into D).
	// CUDA: ptx_tcgen05_mma_cta_<g>_kind_<kind>_<SS|TS>(d, a, b, idesc,
	// enable, 0 x (4 cta_group 1 | 8 cta_group 2) disable-output-lane masks).
	OpTcgen05MMA = "ptx.tcgen05.mma"

	// OpTcgen05MMABlockScale is one tcgen05.mma ... .block_scale.
	// Args: StringImm kind ("mxf8f6f4", "mxf4", "mxf4nvf4"), IntImm
	// scale_vec (1, 2, 4; 0 when the scale-factor dtype fits no vector size),
	// IntImm cta_group, IntImm use_a_tmem, d, a, b, idesc, enable_input_d,
	// sfa tmem addr, sfb tmem addr (uint32).
	// CUDA: ptx_tcgen05_mma_block_scaled_cta_<g>_kind_<kind>_scale_vec_<v>_<SS|TS>(...).
	OpTcgen05MMABlockScale = "ptx.tcgen05.mma.block_scale"

	// OpTcgen05EncodeInstrDescBlockScaled fills a block-scaled instruction
	// descriptor (scale-factor ids 0). Args: desc ptr (*AddressOf of a local
	// uint32), StringImm kind, IntImm cta_group, M, N, K (the instruction
	// shape, checked by the printer as the reference's encoder checks it),
	// a_format, b_format, s_format, trans_a, trans_b.
	// CUDA: ptx_tcgen05_encode_instr_descriptor_block_scaled(desc, M, N,
	// a_format, b_format, s_format, trans_a, trans_b, false, false, false).
	OpTcgen05EncodeInstrDescBlockScaled = "ptx.tcgen05.encode_instr_descriptor_block_scaled"

	// OpRuntimeInstrDesc patches both scale-factor ids of a block-scaled
	// instruction descriptor: *desc = (*desc & ~0x60000030) | (sf_id << 29)
	// | (sf_id << 4). Args: desc ptr (*AddressOf), sf_id (uint32).
	// CUDA: tvm_builtin_cuda_runtime_instr_desc(desc, sf_id).
	OpRuntimeInstrDesc = "cuda.runtime_instr_desc"
)
