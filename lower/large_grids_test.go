package lower

import (
	"os"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// TestLargeGridHover: testdata/memory/large_grids.py's grids of 128 and
// 256 CTAs. The three the CTA proof counts exactly say their CTAs and no
// more; uneven_persistent, whose tile loop runs as many times as the
// CTA's index says (CTAs 0 to 43 twice, the others once), counted from
// CTA 0 and CTA 44, says it is an estimate and how it was counted, in the
// hover and in the text output, with the figures Nsight Compute measured
// (300 shared stores: lower/testdata/ncu/measured.txt).
func TestLargeGridHover(t *testing.T) {
	src, err := os.ReadFile("../testdata/memory/large_grids.py")
	if err != nil {
		t.Fatal(err)
	}
	f := source.NewFile("large_grids.py", src)
	res := Analyze(f, Options{})
	want := map[string]string{
		"translated":        "(one launch, 256 CTAs; source",
		"cluster_leader":    "(one launch, 256 CTAs; source",
		"even_persistent":   "(one launch, 128 CTAs; source",
		"uneven_persistent": "(one launch, 256 CTAs: 2 executed, the others counted by how many times they run its loop; source: model, nvcc's merging of neighbouring accesses modelled)\n\n_an estimate: a loop runs as many times as the CTA's index says (a persistent schedule): CTA 0 counts for the 44 CTAs that run it 2 times, CTA 44 for the 212 that run it 1 time; the CTAs that run it the same number of times are not proven to count alike_\n\n- shared store: 300 instructions",
	}
	seen := 0
	for _, k := range res.Kernels {
		w, ok := want[k.Name]
		if !ok || len(k.Calls) == 0 {
			continue
		}
		seen++
		h := MemoryHover(k, k.Calls[0].Call)
		if !strings.Contains(h, w) {
			t.Errorf("%s: hover %q, want it to contain %q", k.Name, h, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d kernels seen", seen, len(want))
	}
	if text := ExplainMemory(res, Options{}); !strings.Contains(text, "(256 CTAs counted from 2 executed, an estimate: a loop runs as many times") {
		t.Errorf("the text output does not say uneven_persistent is an estimate:\n%s", text)
	}
}
