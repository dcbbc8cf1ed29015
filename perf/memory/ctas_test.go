package memory_test

import (
	"fmt"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestCTADedup compares the analysis that counts translated CTAs once
// (ctas.go) with executing every CTA, fact by fact (the misaligned access
// included), on every kernel of lower's golden programs, the
// programs of testdata (the Nsight Compute agreement ones) and the 3,000-line benchmark corpus, and
// checks that the proof covers some multi-CTA kernels and refuses some.
func TestCTADedup(t *testing.T) {
	srcs := dedupSources(t)
	multi, covered := 0, 0
	for name, src := range srcs {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			g := k.Launch.Grid
			if n := g[0] * g[1] * g[2]; n <= 1 || n > memory.MaxCTAs {
				continue
			}
			multi++
			if memory.CTAsCovered(k.Lowered, k.Launch) {
				covered++
			}
			fast := ctaText(memory.Analyze(k.Lowered, k.Launch), k)
			old := memory.SetCTADedup(false)
			slow := ctaText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetCTADedup(old)
			if fast != slow {
				t.Errorf("%s kernel %s: counting CTA 0 for the covered CTAs differs:\n%s\nexecuting every CTA:\n%s", name, k.Name, fast, slow)
			}
		}
	}
	t.Logf("%d kernels of 2 to %d CTAs, %d with translated CTAs", multi, memory.MaxCTAs, covered)
	if covered == 0 || covered == multi {
		t.Errorf("the CTA proof covers %d of %d multi-CTA kernels: it is never used, or never refuses", covered, multi)
	}
}

func ctaText(m *memory.Kernel, k *lower.Kernel) string {
	s := kernelText(m, k)
	mis := func(f *memory.Figures) string {
		if f == nil || f.Misaligned == nil {
			return "-"
		}
		i := f.Misaligned
		return fmt.Sprintf("%s %d %s %v lanes %v", i.Kind, i.Width, i.Buf, i.Span, i.Lanes)
	}
	s += "misaligned " + mis(m.Total)
	for _, d := range k.Calls {
		s += " " + mis(m.Calls[d.Call])
	}
	return s
}
