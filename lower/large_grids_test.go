package lower

import (
	"os"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// TestLargeGridHover: testdata/memory/large_grids.py's grids of 128 and
// 256 CTAs. The three the CTA proof counts exactly say their CTAs and no
// more; uneven_persistent, counted as CTA 0 multiplied, says it is an
// estimate and why (its tile loop runs as many times as the CTA's index
// says; CTA 0 runs it twice, the launch 300 times in all), in the hover
// and in the text output.
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
		"uneven_persistent": "(one launch, 256 CTAs: CTA 0 executed, counts multiplied; source: model, nvcc's merging of neighbouring accesses modelled)\n\n_an estimate: a loop runs as many times as the CTA's index says (a persistent schedule): CTA 0 runs it 2 times, so the figures count 512 of its iterations where the launch runs 300 (+71 %)_\n\n",
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
	if text := ExplainMemory(res, Options{}); !strings.Contains(text, "(CTA 0 x 256, an estimate: a loop runs as many times") {
		t.Errorf("the text output does not say uneven_persistent is an estimate:\n%s", text)
	}
}
