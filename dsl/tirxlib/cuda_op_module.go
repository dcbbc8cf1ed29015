package tirxlib

import (
	"strings"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

// tvm.backend.cuda.op, the module of backend/cuda/op.py (0.26 and later),
// whose cuda_<name> functions T.cuda.<name> wraps: `from
// tvm.backend.cuda.op import cuda_func_call` (paged_mqa_logits_fp4.py)
// reaches T.cuda.func_call. The descriptor packers are T.cuda.tcgen05.* and
// T.cuda.wgmma.* as script.py namespaces them. Only the names op.py
// defines (0.27.0.post1) resolve here.

const cudaOpPath = "tvm.backend.cuda.op"

var cudaOpNames = strings.Fields(`cuda_iket_mark cuda_iket_range_start cuda_iket_range_end
cuda_iket_range_push cuda_iket_range_pop cuda_iket_sentinel_token cuda_iket_official_event
cuda_func_call cuda_warp_reduce cuda_warp_sum cuda_warp_max cuda_warp_min cuda_cta_reduce
cuda_cta_sum cuda_cta_max cuda_cta_min cuda_warp_sync cuda_cta_sync cuda_grid_sync
cuda_cluster_sync cuda_thread_rank cuda_half2float cuda_bfloat162float cuda_float22half2
cuda_trap_when_assert_failed cuda_runtime_instr_desc cuda_half8tofloat8 cuda_float8tohalf8
cuda_wait_until cuda_mbarrier_wait cuda_mbarrier_wait_acquire_cluster cuda_elect_sync
cuda_mov_sreg cuda_wgmma_encode_matrix_descriptor cuda_wgmma_noop_barrier
cuda_tcgen05_encode_matrix_descriptor cuda_tcgen05_encode_instr_descriptor
cuda_tcgen05_encode_instr_descriptor_block_scaled cuda_atomic_add cuda_thread_fence
cuda_warpgroup_sync cuda_syncthreads_and cuda_syncthreads_or cuda_nano_sleep cuda_printf
cuda_ldg cuda_fdividef cuda_get_tmem_addr cuda_cvta_generic_to_shared
cuda_smem_addr_from_uint64 cuda_sm100_2sm_leader_smem_addr cuda_any_sync cuda_uint_as_float
cuda_float_as_uint cuda_ballot_sync cuda_ffs_u32 cuda_reduce_add_sync_u32
cuda_reduce_min_sync_u32 cuda_clock64 cuda_make_float2 cuda_float2_x cuda_float2_y
cuda_fmul2_rn cuda_fadd2_rn cuda_float22bfloat162_rn cuda_float22bfloat162_rn_from_float2
cuda_bfloat1622float2 cuda_hmin2 cuda_hmax2 cuda_fp8x4_e4m3_from_float4 cuda_atomic_cas`)

var cudaOpSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range cudaOpNames {
		m[n] = true
	}
	return m
}()

func cudaOpAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if !cudaOpSet[name] {
		return nil, false
	}
	path := "cuda." + strings.TrimPrefix(name, "cuda_")
	for _, ns := range []string{"tcgen05_", "wgmma_"} {
		if rest, ok := strings.CutPrefix(name, "cuda_"+ns); ok {
			path = "cuda." + strings.TrimSuffix(ns, "_") + "." + rest
		}
	}
	return &eval.IntrinsicV{Base: eval.Base{At: span}, Path: path}, true
}
