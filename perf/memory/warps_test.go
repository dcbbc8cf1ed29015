package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

func figText(f *memory.Figures) string {
	if f == nil {
		return "nil"
	}
	in := func(i *memory.Instruction) string {
		if i == nil {
			return "nil"
		}
		return fmt.Sprintf("%s %d %s %v %d/%d cta %d warp %d banks %v lanes %v", i.Kind, i.Width, i.Buf, i.Span, i.Wavefronts, i.Ideal,
			i.CTA, i.Warp, i.Banks, i.Lanes)
	}
	return fmt.Sprintf("%+v %+v %+v %+v %+v %+v %+v %+v %q %d %v | %s | %s | %s", f.SharedLoad, f.SharedStore, f.Ldmatrix, f.Stmatrix,
		f.GlobalLoad, f.GlobalStore, f.CpAsync, f.TMA, f.Unknown, f.CTAs, f.Scaled, in(f.Worst), in(f.WorstGlobal), in(f.FirstShared))
}

func kernelText(m *memory.Kernel, k *lower.Kernel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %s\nbody %s\n", figText(m.Total), figText(m.Body))
	for _, d := range k.Calls {
		fmt.Fprintf(&b, "call %v %s\n", d.Call.Span, figText(m.Calls[d.Call]))
	}
	return b.String()
}

// TestWarpDedup compares the analysis that counts translated warps once
// (warps.go) with executing every warp, fact by fact, on every kernel of
// lower's golden programs and of the 3,000-line benchmark corpus, and
// checks that the proof covers some of them.
func TestWarpDedup(t *testing.T) {
	srcs := dedupSources(t)
	kernels, covered, afterWarp0 := 0, 0, 0
	for name, src := range srcs {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			kernels++
			if first, n := memory.WarpsCovered(k.Lowered, k.Launch); n > first+1 {
				covered++
				if first > 0 {
					afterWarp0++
				}
			}
			memory.SetWarpDedup(true)
			fast := kernelText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetWarpDedup(false)
			slow := kernelText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetWarpDedup(true)
			if fast != slow {
				t.Errorf("%s kernel %s: counting warp 0 for the covered warps differs:\n%s\nexecuting every warp:\n%s", name, k.Name, fast, slow)
			}
		}
	}
	t.Logf("%d kernels, %d with translated warps (%d from warp 1 on)", kernels, covered, afterWarp0)
	if covered == 0 || afterWarp0 == 0 {
		t.Error("no kernel's warps proven translations of warp 0, or none of warp 1")
	}
}
