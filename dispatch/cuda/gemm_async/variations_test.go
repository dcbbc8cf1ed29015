package gemmasync_test

// Decisions and lowered MMAs of gemm_async/tcgen05 on variations of one
// kernel, against the reference: every expected decline text and every
// expected MMA call line below was produced by the reference release
// (scripts/agreement/ref_lower.py on the same programs, arch sm_100a).

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

const variationTemplate = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, TLane, TCol
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer(ASHAPE, "ADT", scope="shared", layout=mma_shared_layout("ADT", ASW, ASHAPE))
    B_smem = T.alloc_buffer(BSHAPE, "BDT", scope="shared", layout=mma_shared_layout("BDT", BSW, BSHAPE))
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 512) : (1 @ TLane, 1 @ TCol)]))
    a_tmem = T.decl_buffer((128, 128), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                           layout=TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)]))
    sfa = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=64,
                        layout=TileLayout(SFLAYOUT))
    sfb = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=68,
                        layout=TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid == 0:
        CALL
`

type variation struct {
	name                    string
	aShape, aDtype          string
	aSwizzle                int
	bShape, bDtype          string
	bSwizzle                int
	sfLayout, call, decline string
}

func (v variation) source() string {
	r := strings.NewReplacer("ASHAPE", v.aShape, "ADT", v.aDtype, "ASW", string(rune('0'+v.aSwizzle)),
		"BSHAPE", v.bShape, "BDT", v.bDtype, "BSW", string(rune('0'+v.bSwizzle)), "SFLAYOUT", v.sfLayout, "CALL", v.call)
	return r.Replace(variationTemplate)
}

var variations = []variation{
	{"a_cta3", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :], cta_group=3)", "AssertionError: tcgen05 schedule expected cta_group=1 or 2, got 3"},
	{"b_unaligned_k", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, 4:36], B_smem[:, 4:36])", "ValueError: gemm_async: contiguous-axis slice start 4 is not 16B-aligned (=8 elements, dtype float16). A sub-atom contiguous slice must start on a 16B boundary; otherwise keep that axis full and split on a stride/outer axis instead (lay the operand out MN-major)."},
	{"c_m96", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[0:96, 0:64], A_smem[0:96, :], B_smem[:, :])", "AssertionError: tcgen05: M_total=96 (M=96, cta_group=1) not divisible by any valid descriptor M (valid: [128, 64])"},
	{"d_ts_transA", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], a_tmem[:, 0:64], B_smem[:, :], transA=True)", "AssertionError: tcgen05 schedule: transA must be False when A is in tmem"},
	{"e_n12", "(128, 64)", "float16", 3, "(16, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:12], A_smem[:, :], B_smem[0:12, :])", "ValueError: gemm_async: no MMA SMEM descriptor matches region shape [12, 64] for dtype float16. The buffer is physically SWIZZLE_128B_ATOM-swizzled (contiguous atom = 64 elements / 128 B); the region's layout does not tile it."},
	{"f_mixed_dtype", "(128, 64)", "float16", 3, "(64, 64)", "bfloat16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :])", "AssertionError: tcgen05 schedule expect A_type and B_type to be the same, got A_type=float16, B_type=bfloat16"},
	{"g_bn_mismatch", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:128], A_smem[:, :], B_smem[:, :])", "AssertionError: tcgen05: B_N=64 * cta_group=1=64 doesn't match N=128"},
	{"h_three_dims", "(2, 128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :, :], B_smem[:, :])", "AssertionError: Expected exactly 2 non-unit dims in A_extent [2, 128, 64]"},
	{"i_sf_k_extent", "(128, 128)", "float8_e4m3fn", 3, "(64, 128)", "float8_e4m3fn", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :], SFA=sfa[:, 0:2], SFB=sfb[0:64, :])", "AssertionError: tcgen05: SFA K extent=2 must be in {16, 1, 4}"},
	{"j_sf_layout", "(128, 128)", "float8_e4m3fn", 3, "(64, 128)", "float8_e4m3fn", 3, "S[(128, 4) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :], SFA=sfa[:, :], SFB=sfb[0:64, :])", ""},
	{"k_sf_rows", "(128, 128)", "float8_e4m3fn", 3, "(64, 128)", "float8_e4m3fn", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :], SFA=sfa[:, :], SFB=sfb[0:32, :])", "AssertionError: tcgen05: SFB rows=32 must be >= N=64"},
	{"l_sf_dtype_bs", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :], SFA=sfa[:, :], SFB=sfb[0:64, :])", "AssertionError: tcgen05 block-scaled schedule expected A_type in ['float4_e2m1fn', 'float8_e4m3fn'], got float16"},
	// SFB sliced to 16 rows (< 32): the reference's direct-sum check divides by rows/32 = 0.
	{"s_sf_rows16", "(128, 128)", "float8_e4m3fn", 3, "(16, 128)", "float8_e4m3fn", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:16], A_smem[:, :], B_smem[:, :], SFA=sfa[:, :], SFB=sfb[0:16, :])", "InternalError: Check failed: pb->value != 0 (0 vs. 0) : Divide by zero"},
	{"n_desci", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, :], B_smem[:, :], descI=tmem_addr[0])", ""},
	{"o_row_offset", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[0:64, 0:64], A_smem[64:128, :], B_smem[:, :])", ""},
	{"p_row_offset4", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[0:64, 0:64], A_smem[4:68, :], B_smem[:, :])", ""},
	{"q_n_sub", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:32], A_smem[:, :], B_smem[32:64, :])", ""},
	{"r_k_tail_transB", "(128, 64)", "float16", 3, "(64, 64)", "float16", 3, "S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]", "Tx.gemm_async(tmem[:, 0:64], A_smem[:, 0:32], B_smem[16:48, :], transB=True)", ""},
}

// referenceMMAs are the reference's MMA call lines (its descA/descB cells
// renamed descA_ptr/descB_ptr, as tilels names them).
var referenceMMAs = map[string][]string{
	"n_desci": {
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 0), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 0), tmem_addr_ptr[0], (bool)0, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 2), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 2), tmem_addr_ptr[0], (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 4), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 4), tmem_addr_ptr[0], (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 6), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 6), tmem_addr_ptr[0], (bool)1, 0, 0, 0, 0);",
	},
	"o_row_offset": {
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 512), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 0), (uint)68157456, (bool)0, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 514), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 2), (uint)68157456, (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 516), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 4), (uint)68157456, (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 518), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 6), (uint)68157456, (bool)1, 0, 0, 0, 0);",
	},
	"p_row_offset4": {
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 32), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 0), (uint)68157456, (bool)0, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 34), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 2), (uint)68157456, (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 36), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 4), (uint)68157456, (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 38), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 6), (uint)68157456, (bool)1, 0, 0, 0, 0);",
	},
	"q_n_sub": {
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 0), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 256), (uint)134742032, (bool)0, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 2), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 258), (uint)134742032, (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 4), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 260), (uint)134742032, (bool)1, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 6), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 262), (uint)134742032, (bool)1, 0, 0, 0, 0);",
	},
	"r_k_tail_transB": {
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 0), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 128), (uint)135331856, (bool)0, 0, 0, 0, 0);",
		"ptx_tcgen05_mma_cta_1_kind_f16_SS(tvm_builtin_cuda_get_tmem_addr(tmem_addr_ptr[0], 0, 0), tvm_builtin_smem_desc_add_16B_offset(descA_ptr[0], 2), tvm_builtin_smem_desc_add_16B_offset(descB_ptr[0], 256), (uint)135331856, (bool)1, 0, 0, 0, 0);",
	},
}

func TestVariationsAgainstReference(t *testing.T) {
	for _, v := range variations {
		t.Run(v.name, func(t *testing.T) {
			res := lower.Analyze(source.NewFile(v.name+".py", []byte(v.source())), lower.Options{Arch: "sm_100a", Reference: "0.25"})
			if len(res.Kernels) != 1 || len(res.Kernels[0].Calls) != 1 {
				t.Fatalf("want one kernel with one call; diags %v", res.Diags)
			}
			d := res.Kernels[0].Calls[0]
			if v.decline != "" {
				if d.Variant != "" {
					t.Fatalf("selected %s, want the decline %q", d.Variant, v.decline)
				}
				if len(d.Declined) != 1 || d.Declined[0].Reason != v.decline {
					t.Fatalf("declines %+v, want %q", d.Declined, v.decline)
				}
				return
			}
			if d.Variant != "tcgen05" {
				t.Fatalf("variant %q (declines %+v)", d.Variant, d.Declined)
			}
			want, ok := referenceMMAs[v.name]
			if !ok {
				return
			}
			cu, err := lower.CUDA(res.Kernels, lower.Options{Arch: "sm_100a"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(cu, "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "ptx_tcgen05_mma_") {
					got = append(got, l)
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("MMA calls differ from the reference's:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
		})
	}
}
