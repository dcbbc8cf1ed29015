package gemmasync_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
)

// planOf lowers an agreement program and returns its first call's plan as
// "key = value" lines, fields indented.
func planOf(t *testing.T, prog string) string {
	t.Helper()
	res := analyze(t, filepath.Join(progDir, prog), "sm_100a")
	d := res.Kernels[0].Calls[0]
	if d.Result == nil {
		t.Fatalf("%s: not lowered: %+v", prog, d.Declined)
	}
	var b strings.Builder
	var walk func(items []dispatch.PlanItem, indent string)
	walk = func(items []dispatch.PlanItem, indent string) {
		for _, it := range items {
			b.WriteString(indent + it.Key + " = " + it.Value + "\n")
			walk(it.Fields, indent+"  ")
		}
	}
	walk(d.Result.Plan, "")
	return b.String()
}

func wantLines(t *testing.T, plan string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(plan, l+"\n") {
			t.Errorf("plan lacks %q:\n%s", l, plan)
		}
	}
}

func TestPlanDenseF16(t *testing.T) {
	p := planOf(t, "g001_dense_f16_m128.py")
	wantLines(t, p,
		"instruction = tcgen05.mma.cta_group::1.kind::f16",
		"mma shape = M=128 N=64 K=16 per instruction (cta_group::1)",
		"instructions = 4 = 1 (M) x 1 (N) x 4 (K), issued by one thread",
		"cta_group = 1",
		"instruction descriptor = 0x08100010",
		"  c_format [4,6) = 1 (F32)",
		"  a_major [15] = 0 (K-major)",
		"  n_dim = N>>3 [17,23) = 8 (N=64)",
		"  m_dim = M>>4 [24,29) = 8 (M=128)",
		"A smem descriptor = 0x4000404000400000",
		"  leading_byte_offset [16,30) = 64 (1024 bytes)",
		"  stride_byte_offset [32,46) = 64 (1024 bytes)",
		"  layout_type [61,64) = 2 (SWIZZLE_128B)",
		"  swizzle atom = SWIZZLE_128B_ATOM, K-major, dtype 16-bit",
	)
}

func TestPlanTransposedAndPair(t *testing.T) {
	// MN-major operands: both major bits set; the descriptors' LBO/SBO as the reference encodes them.
	p := planOf(t, "g003_dense_f16_transposed.py")
	wantLines(t, p, "  a_major [15] = 1 (MN-major)", "  b_major [16] = 1 (MN-major)",
		"  swizzle atom = SWIZZLE_128B_ATOM, MN-major, dtype 16-bit")
	// cta_group 2: M = 256 per instruction, 128 columns of B per CTA.
	p = planOf(t, "g005_dense_cta_group2.py")
	wantLines(t, p,
		"instruction = tcgen05.mma.cta_group::2.kind::f16",
		"mma shape = M=256 N=256 K=16 per instruction (cta_group::2: M=128 rows and N=128 columns of B per CTA)",
		"  m_dim = M>>4 [24,29) = 16 (M=256)",
		"  n_dim = N>>3 [17,23) = 32 (N=256)",
	)
	p = planOf(t, "g004_dense_warp_elect.py")
	wantLines(t, p, "instructions = 2 = 1 (M) x 1 (N) x 2 (K), issued by one elected lane of the warp (elect.sync)",
		"  layout_type [61,64) = 4 (SWIZZLE_64B)")
}

func TestPlanBlockScaled(t *testing.T) {
	p := planOf(t, "g020_blockscaled_fp8_sfid.py")
	wantLines(t, p,
		"instruction = tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X",
		"instruction descriptor (block-scaled) = 0x08900000 (encoded at run time, scale-factor ids 0); per MMA the ids are patched to sf_id = 0, 1, 2, 3",
		"  scale_format [23] = 1 (E8M0)",
		"scale factors = SFA float8_e8m0fnu [128 x 4], SFB float8_e8m0fnu [64 x 4] in tmem, 1 per MMA k-step (sf_mma_k)",
	)
	p = planOf(t, "g022_blockscaled_nvfp4.py")
	wantLines(t, p,
		"instruction = tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
		"mma shape = M=128 N=128 K=64 per instruction (cta_group::1)",
		"  scale_format [23] = 0 (E4M3)",
	)
}

func TestLoweredTextTS(t *testing.T) {
	// A in tensor memory: the TS form, its tmem address moving 8 columns
	// (16 f16 per k-step, two per 32-bit column) from column 32.
	res := analyze(t, filepath.Join(progDir, "g008_dense_ts_tmem_a.py"), "sm_100a")
	cu, err := lowerCUDA(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ptx_tcgen05_mma_cta_1_kind_f16_TS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 32), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 0), (uint)135266320, (bool)0, 0, 0, 0, 0);",
		"tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 56)",
		`"tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, "`,
	} {
		if !strings.Contains(cu, want) {
			t.Errorf("CUDA lacks %q", want)
		}
	}
	if strings.Contains(cu, "descA") {
		t.Errorf("a TS MMA encodes no A descriptor")
	}
}

// Symbolic region starts: the reference's arguments (its CUDA, modulo
// parentheses) for a loop-selected accumulator and stage, and for a
// loop-selected scale-factor column (address k / 4, sf_id k % 4).
func TestSymbolicStarts(t *testing.T) {
	for prog, wants := range map[string][]string{
		"g013_dense_tmem_stage_columns.py": {
			"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, s * 64), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], s * 1024), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], s * 512), (uint)135266320, (bool)0, 0, 0, 0, 0);",
			"tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], (s * 1024) + 6), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], (s * 512) + 6)",
			"if (tvm_builtin_elect_one_sync()) {",
		},
		"g024_blockscaled_fp8_sf_loop.py": {
			"tvm_builtin_cuda_runtime_instr_desc((&(descI_local_ptr[0])), ((unsigned int)(k % 4)));",
			"tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], k * 2), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], k * 2), descI_local_ptr[0], k > 0, 64 + (k / 4), 68 + (k / 4));",
		},
	} {
		res := analyze(t, filepath.Join(progDir, prog), "sm_100a")
		cu, err := lowerCUDA(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(cu, w) {
				t.Errorf("%s: CUDA lacks %q", prog, w)
			}
		}
	}
}

func TestPlanPerInstruction(t *testing.T) {
	// Stage 1 of A (8192 elements = 1024 x 16 B), stage 2 of B, C at column 256.
	p := planOf(t, "g002_dense_bf16_stage_offset.py")
	wantLines(t, p,
		"per instruction = 4 MMAs (descriptor offsets in 16-byte units)",
		"  (m0,n0,k0) = A +1024, B +2048, D lane 0 col 256",
		"  (m0,n0,k3) = A +1030, B +2054, D lane 0 col 256",
	)
	p = planOf(t, "g008_dense_ts_tmem_a.py")
	wantLines(t, p, "  (m0,n0,k1) = A tmem col 40, B +2, D lane 0 col 0")
	// N = 512: two N = 256 instructions per k-step, the second at column 256.
	p = planOf(t, "g011_dense_n512_k128.py")
	wantLines(t, p, "per instruction = 16 MMAs (descriptor offsets in 16-byte units)", "  (m0,n1,k0) = A +0, B +2048, D lane 0 col 256")
}

func TestPlanTwoByTwo(t *testing.T) {
	p := planOf(t, "g006_dense_cta_group2_m64.py")
	wantLines(t, p,
		"mma shape = M=128 N=128 K=16 per instruction (cta_group::2: M=64 rows and N=64 columns of B per CTA; 2x2 datapath: D lanes 0-63 and 64-127, 64 tmem columns per instruction)",
		"  m_dim = M>>4 [24,29) = 8 (M=128)",
	)
}
