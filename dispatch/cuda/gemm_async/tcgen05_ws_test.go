package gemmasync_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TestWeightStationaryMMAs: the .ws forms lower to tcgen05.mma.ws with the
// operands the reference gives them. The expected (D column, A and B
// descriptor offsets, instruction descriptor, enable_input_d) of every MMA
// are the 0.26.0 wheel's CUDA for the same programs
// (scripts/agreement/ref_lower.py): under the Layout-E fold each N tile
// of N_mma = 256 moves D by 128 columns, after the region's start.
func TestWeightStationaryMMAs(t *testing.T) {
	for _, c := range []struct {
		prog, form string
		want       []string // "dcol a b idesc enable"
	}{
		{"g030_ws_batched_c.py", "ss", []string{
			"0 0 0 69206032 false", "0 2 2 69206032 true", "0 4 4 69206032 true", "0 6 6 69206032 true"}},
		{"g034_ws_batched_c_wide.py", "ss", []string{
			"32 0 0 71303184 false", "32 2 2 71303184 true", "32 4 4 71303184 true", "32 6 6 71303184 true",
			"160 0 2048 71303184 false", "160 2 2050 71303184 true", "160 4 2052 71303184 true", "160 6 2054 71303184 true"}},
		{"g032_ws_ts_batched_a.py", "ts", []string{
			"0 t0 0 69207184 false", "0 t8 2 69207184 true"}},
	} {
		res := analyze(t, filepath.Join(progDir, c.prog), "sm_100a")
		cu, err := lowerCUDA(res)
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		call := regexp.MustCompile(`tvm_builtin_ptx_tcgen05_mma_ws_cta_group_1_kind_f16_` + c.form + `\(\(\(uint32_t\)(?:\(tmem_addr_ptr\[0\] \+ \(\(unsigned int\)(\d+)u\)\)|tmem_addr_ptr\[0\])\), ` +
			`(?:tvm_builtin_smem_desc_add_16B_offset\(descA_ptr\[0\], (\d+)\)|\(\(uint32_t\)(?:\(tmem_addr_ptr\[0\] \+ \(\(unsigned int\)(\d+)u\)\)|tmem_addr_ptr\[0\])\)), ` +
			`tvm_builtin_smem_desc_add_16B_offset\(descB_ptr\[0\], (\d+)\), \(\(unsigned int\)(\d+)u\), \(uint32_t\)\((true|false)\), 0\);`)
		var got []string
		for _, m := range call.FindAllStringSubmatch(cu, -1) {
			d, a := m[1], m[2]
			if d == "" {
				d = "0"
			}
			if c.form == "ts" {
				a = "t" + m[3]
				if m[3] == "" {
					a = "t0"
				}
			}
			got = append(got, strings.Join([]string{d, a, m[4], m[5], m[6]}, " "))
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: MMAs\n%s\nwant\n%s", c.prog, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		if !strings.Contains(cu, `"{\n.reg .pred ps0;\nsetp.ne.b32 ps0, %4, 0;\ntcgen05.mma.ws.cta_group::1.kind::f16 [%0], `) {
			t.Errorf("%s: no tcgen05.mma.ws instruction with its predicate in the CUDA", c.prog)
		}
	}
}

// TestWeightStationaryByRelease: 0.25 has no .ws forms (a batched C is its
// 2-D assertion); 0.26 and 0.27 lower it with the .ws instruction.
func TestWeightStationaryByRelease(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(progDir, "g030_ws_batched_c.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"0.25", "0.26", "0.27"} {
		res := lower.Analyze(source.NewFile("g030.py", src), lower.Options{Arch: "sm_100a", Reference: ref})
		d := res.Kernels[0].Calls[0]
		if ref == "0.25" {
			if d.Variant != "" || len(d.Declined) != 1 || d.Declined[0].Reason != "AssertionError: Only 2D C, A, B are supported for gemm" {
				t.Errorf("0.25: variant %q, declines %+v", d.Variant, d.Declined)
			}
			continue
		}
		if d.Variant != "tcgen05" || d.Result == nil || len(d.Result.Plan) == 0 || d.Result.Plan[0].Value != "tcgen05.mma.ws.cta_group::1.kind::f16" {
			t.Errorf("%s: variant %q, result %+v", ref, d.Variant, d.Result)
		}
	}
}

// TestExplicitTile: config mma_m/mma_n (0.26 and later) sets the
// instruction tile: M = 128, N = 256 in four MMAs of N = 64 per k-step,
// D columns 0, 64, 128, 192 (the 0.26.0 wheel's CUDA for g035); 0.25
// ignores the keys and issues one MMA of N = 256 per k-step.
func TestExplicitTile(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(progDir, "g035_explicit_tile.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ref  string
		cols []string
	}{
		{"0.27", []string{"0", "64", "128", "192"}},
		{"0.25", []string{"0"}},
	} {
		res := lower.Analyze(source.NewFile("g035.py", src), lower.Options{Arch: "sm_100a", Reference: c.ref})
		cu, err := lowerCUDA(res)
		if err != nil {
			t.Fatalf("%s: %v", c.ref, err)
		}
		mma := regexp.MustCompile(`ptx_tcgen05_mma_cta_1_kind_f16_SS\((?:tvm_builtin_cuda_get_tmem_addr\(tmem_addr_ptr\[0\], 0, (\d+)\)|tmem_addr_ptr\[0\] \+ \(\(unsigned int\)(\d+)u\)|tmem_addr_ptr\[0\]),`)
		var cols []string
		for i, m := range mma.FindAllStringSubmatch(cu, -1) {
			if i%4 != 0 {
				continue // the k-steps of one N tile
			}
			col := m[1] + m[2]
			if col == "" {
				col = "0"
			}
			cols = append(cols, col)
		}
		if strings.Join(cols, " ") != strings.Join(c.cols, " ") {
			t.Errorf("%s: N tiles at D columns %v, want %v", c.ref, cols, c.cols)
		}
	}
}
