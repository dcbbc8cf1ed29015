package lower

import (
	"slices"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// TestHintLabels checks the readable and terse inlay hint labels of the
// op families the LSP scenarios do not show, on golden programs: each
// file's calls must include the label.
func TestHintLabels(t *testing.T) {
	for _, tc := range []struct{ file, readable, terse string }{
		{"arch_below_variant", "→ ldgsts, 8-wide async, 2 rounds", "→ ldgsts ×2 ·8"},
		{"r27_dsmem_mapa", "→ dsmem, 1 bulk copy of 512 bytes", "→ dsmem · cp.async.bulk.shared::cluster.s…"},
		{"old_dialect_gemm", "→ tmem<->local, tmem -> local, 32x32b", "→ tmem<->local · tmem -> local"},
		{"r27_tcgen05_cp_shapes", "→ smem->tmem, shape 128x128b", "→ smem->tmem · tcgen05.cp.cta_group::1.128x128b"},
		{"r27_packed_f32x2", "→ local, serial per thread", "→ local · thread-wise serial reduction"},
		{"r26_permute_direct", "→ warp_xor_swizzle, scalar, 4 rounds", "→ warp_xor_swizzle ×4 ·1"},
		{"ewise_reg_thread", "→ reg, 2-wide, 16 rounds", "→ reg ×16 ·2"},
		{"trn_reduce", "→ reduction, nki.tensorreduce max in two stages, 1 block", "→ reduction · nki.tensorreduce max in two sta…"},
	} {
		ar, err := txtar.ParseFile("testdata/" + tc.file + ".txtar")
		if err != nil {
			t.Fatal(err)
		}
		var readable, terse []string
		for _, f := range ar.Files {
			if f.Name != "kernel.py" {
				continue
			}
			res := Analyze(source.NewFile(f.Name, f.Data), Options{})
			for _, k := range res.Kernels {
				for _, d := range k.Calls {
					l, tip := Hint(k, []*dispatch.Decision{d}, HintReadable)
					readable = append(readable, l)
					tl, tip2 := Hint(k, []*dispatch.Decision{d}, HintTerse)
					terse = append(terse, tl)
					if tip == "" || tip != tip2 {
						t.Errorf("%s: tooltips %q and %q", tc.file, tip, tip2)
					}
				}
			}
		}
		if !slices.Contains(readable, tc.readable) {
			t.Errorf("%s: no readable hint %q in %q", tc.file, tc.readable, readable)
		}
		if !slices.Contains(terse, tc.terse) {
			t.Errorf("%s: no terse hint %q in %q", tc.file, tc.terse, terse)
		}
	}
}
