package memory_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestCachedConcurrent analyses the kernels of the benchmark corpus (each
// example kernel repeated about twenty times) from an empty cache on
// eight goroutines, so that copies of a kernel meet while its first copy
// is being analysed (Cached then waits for it), and compares every
// kernel's figures with memory.Analyze's.
func TestCachedConcurrent(t *testing.T) {
	for _, lazy := range []bool{false, true} {
		t.Run(keyMode(lazy), func(t *testing.T) {
			defer memory.SetLazyKeys(memory.LazyKeys())
			memory.SetLazyKeys(lazy)
			cachedConcurrent(t)
		})
	}
}

// keyMode names a subtest of the cache tests: every kernel keyed (the
// language server) or lazy keys (`tilels --lower`).
func keyMode(lazy bool) string {
	if lazy {
		return "lazy"
	}
	return "keyed"
}

func cachedConcurrent(t *testing.T) {
	ks := corpusKernels(t, 3000)
	if len(ks) < 100 {
		t.Fatalf("%d kernels", len(ks))
	}
	want := make([]string, len(ks))
	for i, k := range ks {
		want[i] = kernelText(memory.Analyze(k.Lowered, k.Launch), k)
	}
	for round := range 3 {
		memory.ResetCache()
		got := make([]string, len(ks))
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(ks); i += 8 {
					got[i] = kernelText(memory.Cached(ks[i].Lowered, ks[i].Launch), ks[i])
				}
			}()
		}
		wg.Wait()
		for i := range ks {
			if got[i] != want[i] {
				t.Errorf("round %d kernel %s: the cached figures differ:\n%s\nwant\n%s", round, ks[i].Name, got[i], want[i])
			}
		}
	}
}

// TestLazyKeys checks what lazy keys spare and keep: kernels analysed once
// are not keyed, a kernel whose preKey another shares keys both (the
// benchmark corpus repeats each example under other names), copies are
// restored from the cache (their figures shared), and every figure equals
// memory.Analyze's.
func TestLazyKeys(t *testing.T) {
	ks := corpusKernels(t, 600)
	lazyKeysBounded(t, ks)
	defer memory.SetLazyKeys(memory.LazyKeys())
	memory.SetLazyKeys(true)
	memory.ResetCache()
	defer memory.ResetCache()
	seen := map[string]bool{}
	var once []*lower.Kernel // one kernel per preKey
	for _, k := range ks {
		if pk := memory.PreKey(k.Lowered, k.Launch); !seen[pk] {
			seen[pk] = true
			once = append(once, k)
		}
	}
	if len(once) < 5 || len(once) == len(ks) {
		t.Fatalf("%d kernels, %d preKeys: no repeats to restore", len(ks), len(once))
	}
	for _, k := range once {
		if got, want := kernelText(memory.Cached(k.Lowered, k.Launch), k), kernelText(memory.Analyze(k.Lowered, k.Launch), k); got != want {
			t.Fatalf("%s: lazy figures differ:\n%s\nwant\n%s", k.Name, got, want)
		}
	}
	if keyed, unkeyed := memory.CacheKeys(); keyed != 0 || unkeyed != min(len(once), memory.MaxUnkeyed) {
		t.Fatalf("after %d kernels of distinct preKeys: %d keyed, %d unkeyed; want 0 and %d", len(once), keyed, unkeyed, min(len(once), memory.MaxUnkeyed))
	}
	for _, k := range ks {
		got := memory.Cached(k.Lowered, k.Launch)
		if g, w := kernelText(got, k), kernelText(memory.Analyze(k.Lowered, k.Launch), k); g != w {
			t.Fatalf("%s: figures differ:\n%s\nwant\n%s", k.Name, g, w)
		}
	}
	keyed, unkeyed := memory.CacheKeys()
	if keyed == 0 || keyed >= len(ks) {
		t.Fatalf("%d entries for %d kernels of %d preKeys", keyed, len(ks), len(once))
	}
	restored := 0
	for _, k := range ks {
		a, b := memory.Cached(k.Lowered, k.Launch), memory.Cached(k.Lowered, k.Launch)
		for _, d := range k.Calls {
			if a.Calls[d.Call] != nil && a.Calls[d.Call] == b.Calls[d.Call] {
				restored++
			}
		}
	}
	if restored == 0 {
		t.Fatalf("no figures restored from the cache (%d keyed, %d unkeyed)", keyed, unkeyed)
	}
}

// lazyKeysBounded checks that lazy keys keep at most MaxUnkeyed kernels
// unkeyed (each keeps its code alive): ks's kernels made distinct by
// their launch's dynamic shared memory.
func lazyKeysBounded(t *testing.T, ks []*lower.Kernel) {
	defer memory.SetLazyKeys(memory.LazyKeys())
	memory.SetLazyKeys(true)
	memory.ResetCache()
	defer memory.ResetCache()
	n := 2*memory.MaxUnkeyed + 3
	for i := range n {
		k := ks[i%len(ks)]
		l := k.Launch
		l.DynamicSmem = int64(1 + i) // another preKey (and key) each
		memory.Cached(k.Lowered, l)
	}
	if keyed, unkeyed := memory.CacheKeys(); keyed != 0 || unkeyed != memory.MaxUnkeyed {
		t.Fatalf("after %d distinct kernels: %d keyed, %d unkeyed; want 0 and %d", n, keyed, unkeyed, memory.MaxUnkeyed)
	}
}

// corpusKernels lowers the benchmark corpus of lines lines (each example
// kernel repeated under other names) and returns its lowered kernels.
func corpusKernels(t *testing.T, lines int) []*lower.Kernel {
	big, err := benchcorpus.Build("../../testdata/examples", lines)
	if err != nil {
		t.Fatal(err)
	}
	res := lower.Analyze(source.NewFile("big.py", []byte(big)), lower.Options{})
	var ks []*lower.Kernel
	for _, k := range res.Kernels {
		if k.Lowered != nil {
			ks = append(ks, k)
		}
	}
	return ks
}

// TestLazyKeysGiveUp checks that kernels of one preKey whose first
// analysis gave up at once (a loop over a runtime extent before anything
// else) are analysed without keys, which would cost more than such an
// analysis, and that their figures are memory.Analyze's; and that
// kernels whose first analysis ran are keyed as before.
func TestLazyKeysGiveUp(t *testing.T) {
	defer memory.SetLazyKeys(memory.LazyKeys())
	memory.SetLazyKeys(true)
	defer memory.ResetCache()
	const early = `    for i in range(n):
        S[tid, COL] = A[tid, i]
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`
	const ran = `    for i in range(32):
        S[tid, COL] = A[tid, i]
    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`
	for _, tc := range []struct {
		name  string
		body  string
		keyed bool
	}{{"gave up", early, false}, {"ran", ran, true}} {
		memory.ResetCache()
		var ks []*lower.Kernel
		for _, col := range []string{"0", "1", "2"} {
			ks = append(ks, oneKernel(t, tc.name, kernel("1", strings.ReplaceAll(tc.body, "COL", col))))
		}
		if memory.PreKey(ks[0].Lowered, ks[0].Launch) != memory.PreKey(ks[1].Lowered, ks[1].Launch) {
			t.Fatalf("%s: the kernels' preKeys differ", tc.name)
		}
		for _, k := range append(ks, ks...) {
			if got, want := kernelText(memory.Cached(k.Lowered, k.Launch), k), kernelText(memory.Analyze(k.Lowered, k.Launch), k); got != want {
				t.Fatalf("%s: figures differ:\n%s\nwant\n%s", tc.name, got, want)
			}
		}
		if keyed, _ := memory.CacheKeys(); (keyed > 0) != tc.keyed {
			t.Errorf("%s: %d cache entries; keyed: want %v", tc.name, keyed, tc.keyed)
		}
	}
}

// TestKeyMisses: with lazy keys, a preKey whose first keyed kernels find
// nothing in the cache (cases whose constants move their addresses:
// flash_attention4.py's grid) stops being keyed after MaxKeyMisses of
// them, and its later kernels are analysed without keys, with the same
// figures; a preKey whose keys find figures stays keyed.
func TestKeyMisses(t *testing.T) {
	defer memory.SetLazyKeys(memory.LazyKeys())
	memory.SetLazyKeys(true)
	defer memory.ResetCache()
	kernelAt := func(col int) *lower.Kernel {
		src := kernel("1", strings.ReplaceAll(`    A[tid, COL] = A[tid, COL + 1] * 2.0
`, "COL", string(rune('0'+col))))
		res, _ := analyze(t, src)
		return res.Kernels[0]
	}
	check := func(k *lower.Kernel) {
		t.Helper()
		if got, want := kernelText(memory.Cached(k.Lowered, k.Launch), k), kernelText(memory.Analyze(k.Lowered, k.Launch), k); got != want {
			t.Fatalf("figures differ:\n%s\nwant\n%s", got, want)
		}
	}
	// distinct figures: k0 unkeyed, k1 keys both, k1..k3 miss, the rest
	// are not keyed
	memory.ResetCache()
	for col := range 7 {
		check(kernelAt(col))
	}
	if keyed, _ := memory.CacheKeys(); keyed != 1+memory.MaxKeyMisses {
		t.Errorf("7 kernels of distinct figures: %d keyed, want %d", keyed, 1+memory.MaxKeyMisses)
	}
	// copies: every keyed kernel after the first pair finds its figures
	memory.ResetCache()
	for range 3 {
		for col := range 2 {
			check(kernelAt(col))
		}
	}
	if keyed, _ := memory.CacheKeys(); keyed != 2 {
		t.Errorf("3 copies of 2 kernels: %d keyed, want 2", keyed)
	}
	// a hit before the misses keeps the preKey keyed
	memory.ResetCache()
	for _, col := range []int{0, 0, 1, 2, 3, 4, 5} {
		check(kernelAt(col))
	}
	if keyed, _ := memory.CacheKeys(); keyed != 6 {
		t.Errorf("a copy, then 5 distinct kernels: %d keyed, want 6", keyed)
	}
}
