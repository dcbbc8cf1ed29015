package gemm_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/cuda/gemm"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// Programs are written as TVM's tests write them (tests/python/tirx/operator/
// tile_primitive/cuda/gemm/test_gemm_mma_m16n8k_.py): register fragments with
// the m16n8 lane maps; every expected text below is the reference's
// (apache-tvm 0.25.0.post1, checked with scripts/agreement/ref_lower.py).

const header = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid, warpid

D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])
A_K8 = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
B_K8 = TileLayout(S[(4, 2, 8):(1 @ laneid, 1, 4 @ laneid)])
`

// kernel wraps body (one line per statement, 4-space indented) in a
// one-warp kernel with A (16×16 f16), B (16×8 f16), C and D (16×8 f32)
// register fragments unless the body declares its own.
func kernel(name, prologue, body string) string {
	return "\n\n@T.prim_func\ndef " + name + "():\n    T.device_entry()\n    T.cta_id([1])\n" + prologue +
		"    A = T.alloc_buffer((16, 16), \"float16\", scope=\"local\", layout=A_FRAG)\n" +
		"    B = T.alloc_buffer((16, 8), \"float16\", scope=\"local\", layout=B_FRAG)\n" +
		"    C = T.alloc_buffer((16, 8), \"float32\", scope=\"local\", layout=D_FRAG)\n" +
		"    D = T.alloc_buffer((16, 8), \"float32\", scope=\"local\", layout=D_FRAG)\n" + body
}

const warp = "    T.warp_id([1])\n    lane = T.lane_id([32])\n"

func analyze(t *testing.T, src string) *lower.Result {
	t.Helper()
	res := lower.Analyze(source.NewFile("gemm_test.py", []byte(header+src)), lower.Options{Arch: "sm_90a", Reference: "0.25"})
	if len(res.Kernels) == 0 {
		t.Fatalf("no kernel: %v", res.Diags)
	}
	return res
}

func onlyCall(t *testing.T, res *lower.Result) *dispatch.Decision {
	t.Helper()
	var calls []*dispatch.Decision
	for _, k := range res.Kernels {
		calls = append(calls, k.Calls...)
	}
	if len(calls) != 1 {
		t.Fatalf("want 1 tile call, got %d (diags %v)", len(calls), res.Diags)
	}
	return calls[0]
}

func TestRegistration(t *testing.T) {
	vs := gemm.Variants()
	if len(vs) != 1 {
		t.Fatalf("want 1 gemm variant, got %d", len(vs))
	}
	v := vs[0]
	if v.Op != "gemm" || v.Name != "mma.m16n8k*" || v.Target != "cuda" || v.Priority != 10 {
		t.Errorf("variant = %s %q %s prio %d", v.Op, v.Name, v.Target, v.Priority)
	}
	var preds []string
	for _, p := range v.When {
		preds = append(preds, p.Name)
	}
	if got := strings.Join(preds, ","); got != "full_active_lanes,no_replica" {
		t.Errorf("predicates = %s", got)
	}
}

func TestDeclines(t *testing.T) {
	cases := []struct {
		name, prologue, body, want string
	}{
		{"alpha", warp, "    Tx.warp.gemm(D, A, B, C, alpha=2.0)\n",
			"declined — gemm mma supports only alpha=1, got alpha=T.float32(2.0)"},
		{"alpha_int", warp, "    Tx.warp.gemm(D, A, B, C, alpha=2)\n",
			"declined — gemm mma supports only alpha=1, got alpha=2"},
		{"beta", warp, "    Tx.warp.gemm(D, A, B, C, beta=0.5)\n",
			"declined — gemm mma supports only beta in {0, 1}, got beta=T.float32(0.5)"},
		{"narrowed", warp, "    if lane < 16:\n        Tx.warp.gemm(D, A, B, C)\n",
			"rejected: full_active_lanes — active laneid is [0, 16), need full [0, 32)"},
		{"f32", warp, "    A2 = T.alloc_buffer((16, 16), \"float32\", scope=\"local\", layout=A_FRAG)\n" +
			"    B2 = T.alloc_buffer((16, 8), \"float32\", scope=\"local\", layout=B_FRAG)\n    Tx.warp.gemm(D, A2, B2, C)\n",
			"declined — no mma instruction fits M=16, N=8, K=16, dtypes=('float32', 'float32', 'float32', 'float32')"},
		{"shared", warp, "    A_s = T.alloc_buffer((16, 16), \"float16\", scope=\"shared\")\n    Tx.warp.gemm(D, A_s, B, C)\n",
			"declined — gemm mma requires A in register (local) scope, got shared"},
		{"three_d", warp, "    A3 = T.alloc_buffer((2, 16, 16), \"float16\", scope=\"local\", layout=TileLayout(S[(2, 2, 8, 2, 4, 2):(8, 2, 4 @ laneid, 4, 1 @ laneid, 1)]))\n" +
			"    Tx.warp.gemm(D, A3, B, C)\n",
			"declined — gemm mma expects 2D A, got non-unit extents [2, 16, 16]"},
		{"k_mismatch", warp, "    B8 = T.alloc_buffer((8, 8), \"float16\", scope=\"local\", layout=B_K8)\n    Tx.warp.gemm(D, A, B8, C)\n",
			"exception — AssertionError: gemm mma: A K=16 != B K=8"},
		{"cut_region", warp, "    DD = T.alloc_buffer((16, 16), \"float32\", scope=\"local\", layout=A_FRAG)\n" +
			"    Tx.warp.gemm(DD[0:16, 4:12], A, B, DD[0:16, 4:12])\n",
			"declined — gemm mma: cannot slice C layout to its region"},
		{"b_row_lanes", warp, "    BR = T.alloc_buffer((16, 8), \"float16\", scope=\"local\", layout=TileLayout(S[(16, 2, 4):(2 @ laneid, 1 @ laneid, 1)]))\n" +
			"    Tx.warp.gemm(D, A, BR, C)\n",
			"declined — no mma instruction fits M=16, N=8, K=16, dtypes=('float16', 'float16', 'float32', 'float32')"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := onlyCall(t, analyze(t, kernel(c.name, c.prologue, c.body)))
			if d.Variant != "" {
				t.Fatalf("selected %s, want no variant", d.Variant)
			}
			if len(d.Explanation.Attempts) != 1 {
				t.Fatalf("attempts = %d", len(d.Explanation.Attempts))
			}
			if got := strings.Join(d.Explanation.Attempts[0].Messages, "; "); got != c.want {
				t.Errorf("message\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestLowersK16 checks the single-tile m16n8k16 lowering: D cleared, one
// mma on D's, A's and B's registers in PTX order, the helper's PTX.
func TestLowersK16(t *testing.T) {
	res := analyze(t, kernel("k16", warp, "    Tx.warp.gemm(D, A, B, C)\n"))
	d := onlyCall(t, res)
	if d.Variant != "mma.m16n8k*" {
		t.Fatalf("variant %q, declined %v", d.Variant, d.Declined)
	}
	cu, err := lower.CUDA(res.Kernels, lower.Options{Arch: "sm_90a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "`,
		`"{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"`,
		"d_local_ptr[0] = 0.0f;\n", "d_local_ptr[3] = 0.0f;\n",
		"ptx_mma_m16n8k16_row_col_float32_float16_float16_float32((&(d_local_ptr[0])), (&(d_local_ptr[1])), (&(d_local_ptr[2])), (&(d_local_ptr[3])), " +
			"(&(a_local_ptr[0])), (&(a_local_ptr[2])), (&(a_local_ptr[4])), (&(a_local_ptr[6])), (&(b_local_ptr[0])), (&(b_local_ptr[2])), " +
			"(&(d_local_ptr[0])), (&(d_local_ptr[1])), (&(d_local_ptr[2])), (&(d_local_ptr[3])));",
	} {
		if !strings.Contains(cu, want) {
			t.Errorf("CUDA lacks %q", want)
		}
	}
	if strings.Contains(cu, "c_local") {
		t.Error("beta = 0 must not read C")
	}
	tir := lower.TIRx(res.Kernels)
	if !strings.Contains(tir, `T.ptx.mma("m16n8k16", "row", "col", "float32", "float16", "float16", "float32"`) {
		t.Errorf("TIRx lacks T.ptx.mma:\n%s", tir)
	}
	plan := map[string]string{}
	for _, p := range d.Result.Plan {
		plan[p.Key] = p.Value
	}
	for k, want := range map[string]string{
		"instruction":  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
		"mma per warp": "1 = 1×1 output tiles × 1 K steps",
		"A fragment":   "4 b32 registers per mma (8 float16 per thread in all)",
		"B fragment":   "2 b32 registers per mma (4 float16 per thread in all)",
	} {
		if plan[k] != want {
			t.Errorf("plan %s = %q, want %q", k, plan[k], want)
		}
	}
}

// TestLowersTiledK8 checks a 2×2×3 grid of bf16 m16n8k8 tiles with beta = 1:
// D starts from C, 12 mma (one per output tile and K step), 2 A and 1 B
// register per mma.
func TestLowersTiledK8(t *testing.T) {
	src := "\n\n@T.prim_func\ndef grid():\n    T.device_entry()\n    T.cta_id([1])\n" + warp +
		"    A = T.alloc_buffer((32, 24), \"bfloat16\", scope=\"local\", layout=A_K8.tile_to([32, 24], [16, 8]))\n" +
		"    B = T.alloc_buffer((24, 16), \"bfloat16\", scope=\"local\", layout=B_K8.tile_to([24, 16], [8, 8]))\n" +
		"    C = T.alloc_buffer((32, 16), \"float32\", scope=\"local\", layout=D_FRAG.tile_to([32, 16], [16, 8]))\n" +
		"    D = T.alloc_buffer((32, 16), \"float32\", scope=\"local\", layout=D_FRAG.tile_to([32, 16], [16, 8]))\n" +
		"    Tx.warp.gemm(D, A, B, C, beta=1.0)\n"
	res := analyze(t, src)
	d := onlyCall(t, res)
	if d.Variant != "mma.m16n8k*" {
		t.Fatalf("variant %q, declined %v", d.Variant, d.Declined)
	}
	cu, err := lower.CUDA(res.Kernels, lower.Options{Arch: "sm_90a"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(cu, "ptx_mma_m16n8k8_row_col_float32_bfloat16_bfloat16_float32(("); n != 12 {
		t.Errorf("%d mma calls, want 12", n)
	}
	for _, want := range []string{
		`"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "`,
		`"{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"`,
		"d_local_ptr[0] = c_local_ptr[0];",
		// the second output tile (n = 1) starts at D's and C's register 4.
		"d_local_ptr[4] = c_local_ptr[4];",
	} {
		if !strings.Contains(cu, want) {
			t.Errorf("CUDA lacks %q", want)
		}
	}
	for _, p := range d.Result.Plan {
		if p.Key == "mma per warp" && p.Value != "12 = 2×2 output tiles × 3 K steps" {
			t.Errorf("mma per warp = %q", p.Value)
		}
	}
}

// TestScopes: the variant is chosen at cta and warpgroup scope when every
// warp is active (intra warpid/wid_in_wg × laneid, all full).
func TestScopes(t *testing.T) {
	for _, c := range []struct{ prologue, call string }{
		{"    T.warp_id([4])\n    T.lane_id([32])\n    T.thread_id([128])\n", "Tx.cta.gemm"},
		{"    T.warpgroup_id([1])\n    T.warp_id_in_wg([4])\n    T.lane_id([32])\n    T.thread_id([128])\n", "Tx.wg.gemm"},
	} {
		d := onlyCall(t, analyze(t, kernel("scoped", c.prologue, "    "+c.call+"(D, A, B, D)\n")))
		if d.Variant != "mma.m16n8k*" {
			t.Errorf("%s: variant %q, declined %v", c.call, d.Variant, d.Declined)
		}
	}
}

// TestSymbolicRegion: a K loop's A[:, kt*16:kt*16+16] and B[kt*16:kt*16+16, :]
// are sliced as at 0 plus the loop's register offset (kt times 8 A and 4 B
// elements), as the reference's symbolic slice gives; with C = D and beta = 1
// the init copies are no-ops, left out as the reference's simplifier does.
func TestSymbolicRegion(t *testing.T) {
	src := "\n\n@T.prim_func\ndef kloop():\n    T.device_entry()\n    T.cta_id([1])\n" + warp +
		"    A = T.alloc_buffer((16, 32), \"float16\", scope=\"local\", layout=A_FRAG.tile_to([16, 32], [16, 16]))\n" +
		"    B = T.alloc_buffer((32, 8), \"float16\", scope=\"local\", layout=B_FRAG.tile_to([32, 8], [16, 8]))\n" +
		"    D = T.alloc_buffer((16, 8), \"float32\", scope=\"local\", layout=D_FRAG)\n" +
		"    for kt in range(2):\n        Tx.warp.gemm(D, A[:, kt * 16:kt * 16 + 16], B[kt * 16:kt * 16 + 16, :], D, beta=1.0)\n"
	res := analyze(t, src)
	d := onlyCall(t, res)
	if d.Variant != "mma.m16n8k*" {
		t.Fatalf("variant %q, declined %v", d.Variant, d.Declined)
	}
	cu, err := lower.CUDA(res.Kernels, lower.Options{Arch: "sm_90a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(&(a_local_ptr[(kt * 2) * 4])), (&(a_local_ptr[((kt * 2) * 4) + 2])), (&(a_local_ptr[((kt * 2) * 4) + 4])), (&(a_local_ptr[((kt * 2) * 4) + 6]))",
		"(&(b_local_ptr[(kt * 2) * 2])), (&(b_local_ptr[((kt * 2) * 2) + 2]))",
	} {
		if !strings.Contains(cu, want) {
			t.Errorf("CUDA lacks %q", want)
		}
	}
	var offs []string
	for _, it := range d.Result.Plan {
		if strings.HasSuffix(it.Key, "register offset") {
			offs = append(offs, it.Key+": "+it.Value)
		}
	}
	if got := strings.Join(offs, "; "); got != "A register offset: ((kt * 2) * 4) (the region's start is symbolic); B register offset: ((kt * 2) * 2) (the region's start is symbolic)" {
		t.Errorf("plan offsets: %s", got)
	}
	// C is D (beta = 1): D accumulates in place, with no copy of C into D.
	if strings.Contains(cu, "c_local") || strings.Contains(cu, "d_local_ptr[0] =") {
		t.Errorf("C is D: want no C view and no D init:\n%s", cu)
	}
}
