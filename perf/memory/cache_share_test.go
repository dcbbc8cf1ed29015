package memory_test

import (
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// instrs lists the instructions of m's figures (total, body, then each
// call of k in order), four per figure, nil where a figure has none.
func instrs(m *memory.Kernel, k *lower.Kernel) []*memory.Instruction {
	var out []*memory.Instruction
	add := func(f *memory.Figures) {
		if f == nil {
			out = append(out, nil, nil, nil, nil)
			return
		}
		out = append(out, f.Worst, f.WorstGlobal, f.FirstShared, f.Misaligned)
	}
	add(m.Total)
	add(m.Body)
	for _, d := range k.Calls {
		add(m.Calls[d.Call])
	}
	return out
}

// TestCachedSharing checks that figures restored from the cache (a
// kernel's second copy) share an instruction exactly where the analysis
// shares it (a kernel's total names one of its calls' instructions), that
// Where places each restored instruction at the kernel's own access and
// buffer, and that restored figures are shared cache entries that equal
// the analysis's.
func TestCachedSharing(t *testing.T) {
	for _, lazy := range []bool{false, true} {
		t.Run(keyMode(lazy), func(t *testing.T) {
			defer memory.SetLazyKeys(memory.LazyKeys())
			memory.SetLazyKeys(lazy)
			cachedSharing(t)
		})
	}
}

func cachedSharing(t *testing.T) {
	big, err := benchcorpus.Build("../../testdata/examples", 3000)
	if err != nil {
		t.Fatal(err)
	}
	res := lower.Analyze(source.NewFile("big.py", []byte(big)), lower.Options{})
	memory.ResetCache()
	shared, restored := 0, 0
	for _, k := range res.Kernels {
		if k.Lowered == nil {
			continue
		}
		fresh := memory.Analyze(k.Lowered, k.Launch)
		_ = memory.Cached(k.Lowered, k.Launch) // the first copy fills the cache
		got := memory.Cached(k.Lowered, k.Launch)
		want := instrs(fresh, k)
		have := instrs(got, k)
		if len(want) != len(have) {
			t.Fatalf("%s: %d instructions, want %d", k.Name, len(have), len(want))
		}
		for i := range want {
			if (want[i] == nil) != (have[i] == nil) {
				t.Fatalf("%s: instruction %d: %v, want %v", k.Name, i, have[i], want[i])
			}
			if want[i] == nil {
				continue
			}
			restored++
			hs, hb := got.Where(have[i])
			ws, wb := fresh.Where(want[i])
			if hs != ws || hb != wb || !hs.IsValid() || wb == nil {
				t.Errorf("%s: instruction %d names %v %p, want %v %p", k.Name, i, hs, hb, ws, wb)
			}
			if have[i].Span.IsValid() || have[i].Buffer != nil {
				t.Errorf("%s: restored instruction %d keeps a position of its own (%v %p): only Where places it", k.Name, i, have[i].Span, have[i].Buffer)
			}
			for j := range i {
				if (want[j] == want[i]) != (have[j] == have[i]) {
					t.Errorf("%s: instructions %d and %d: shared %v, want %v", k.Name, j, i, have[j] == have[i], want[j] == want[i])
				}
				if want[j] == want[i] {
					shared++
				}
			}
		}
		// figures without instructions are the same entry in both copies
		again := memory.Cached(k.Lowered, k.Launch)
		for _, d := range k.Calls {
			f, g := got.Calls[d.Call], again.Calls[d.Call]
			if f != g {
				t.Errorf("%s: restored figures copied", k.Name)
			}
			if f != nil && fresh.Calls[d.Call] != nil && f.SharedLoad != fresh.Calls[d.Call].SharedLoad {
				t.Errorf("%s: restored shared loads %v, want %v", k.Name, f.SharedLoad, fresh.Calls[d.Call].SharedLoad)
			}
		}
	}
	if restored == 0 || shared == 0 {
		t.Fatalf("%d instructions restored, %d shared: nothing checked", restored, shared)
	}
}
