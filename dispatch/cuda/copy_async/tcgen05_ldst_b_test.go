package copyasync_test

import (
	"strings"
	"testing"
)

// TestDatapathB: a Layout B accumulator (cta_group::2 M=64) moves as one
// physical .32x32b transfer of N/2 registers per thread (0.26 and later),
// the registers the fragment's cells 0..N/2-1 in order, at the buffer's
// address; the refusals are the reference's texts (recorded from the
// 0.26.0 and 0.27.0.post1 wheels on the same programs).
func TestDatapathB(t *testing.T) {
	l := lowerProgram(t, "c036_")
	if len(l.calls) != 2 {
		t.Fatalf("%d calls", len(l.calls))
	}
	for i, want := range []string{"tcgen05.ld.sync.aligned.32x32b.x64.b32", "tcgen05.st.sync.aligned.32x32b.x64.b32"} {
		d := l.calls[i]
		if d.Variant != "tmem<->local" {
			t.Fatalf("call %d: variant %q (%+v)", i, d.Variant, d.Declined)
		}
		if it, _ := planValue(d, "instruction"); it.Value != want {
			t.Errorf("call %d: instruction %q, want %q", i, it.Value, want)
		}
	}
	var regs []string
	for i := range 64 {
		regs = append(regs, "(&(R_ptr["+itoa(i)+"]))")
	}
	wantContains(t, "CUDA", l.cuda,
		"tvm_builtin_ptx_tcgen05_ld_32x32b_x64("+strings.Join(regs, ", ")+", tmem_addr_ptr[0], 0, 0)",
		"tvm_builtin_ptx_tcgen05_st_32x32b_x64(tmem_addr_ptr[0], 0, 0, "+strings.Join(regs, ", ")+")")
	lhs := "T.TileLayout(T.S[(4, 2, 8, 16, 4, 2):(32 @ Axis.tid_in_wg, 2, 4 @ Axis.tid_in_wg, 4, 1 @ Axis.tid_in_wg, 1)])"
	rhs := "T.TileLayout(T.S[(64, 2, 64):(1 @ Axis.tid_in_wg, 64 @ Axis.tid_in_wg, 1)])"
	for prefix, reason := range map[string]string{
		"c037_": "ValueError: datapath B copy must cover the full (64, N) TMEM buffer",
		"c039_": "ValueError: datapath B (.cta_group::2 M=64) fragment must be (64, N); a 128-row .32x32b fragment reads the wrong region. " +
			"Got rows=128. Allocate it with T.alloc_tcgen05_ldst_frag('32x32b', (64, N), 'float32').",
		"c040_": "ValueError: datapath B readback expects an fp32 fragment (32-bit cells), got dtype=dtype('float16')",
		"c038_": "ValueError: datapath B (.cta_group::2 M=64) requires a matching Layout B register fragment. Allocate it with " +
			"T.alloc_tcgen05_ldst_frag('32x32b', (64, N), 'float32'); a .16x*b fragment reads the wrong physical lanes and columns. " +
			"(fragment layout mismatch: StructuralEqual check failed, caused by lhs at <root>.shard[0].extent.value:\n" +
			"Access path: <root>.shard[0].extent.value\nNote: The underlined object is the nearest visible parent of this path.\n\n" +
			lhs + "\n" + strings.Repeat("^", len(lhs)) + "\nand rhs at <root>.shard[0].extent.value:\n" +
			"Access path: <root>.shard[0].extent.value\nNote: The underlined object is the nearest visible parent of this path.\n\n" +
			rhs + "\n" + strings.Repeat("^", len(rhs)) + ")",
	} {
		d := lowerProgram(t, prefix).calls[0]
		got := ""
		for _, r := range d.Declined {
			if r.Variant == "tmem<->local" {
				got = r.Reason
			}
		}
		if d.Variant != "" || got != reason {
			t.Errorf("%s: variant %q, tmem<->local declined with\n%s\nwant\n%s", prefix, d.Variant, got, reason)
		}
	}
}
