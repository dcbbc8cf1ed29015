package lower

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// TestParallelDeterministic checks that concurrent dispatch (Analyze) and
// concurrent printing (CUDA) give exactly the sequential results: the same
// diagnostics, decisions and .cu text with one P and with several.
func TestParallelDeterministic(t *testing.T) {
	src := bigFile(t, 1000)
	run := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res := Analyze(source.NewFile("big.py", src), Options{})
		var b strings.Builder
		for _, d := range res.Diags {
			fmt.Fprintln(&b, d)
		}
		for _, k := range res.Kernels {
			fmt.Fprintln(&b, k.Name, len(k.Diags))
			for _, d := range k.Calls {
				fmt.Fprintln(&b, d.Variant, d.Explanation.TableCompact())
			}
		}
		cu, err := CUDA(res.Kernels, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(cu)
		return b.String()
	}
	want := run(1)
	for _, procs := range []int{2, 4} {
		if got := run(procs); got != want {
			t.Errorf("GOMAXPROCS=%d: output differs from the sequential run", procs)
		}
	}
}

func TestParallelPanics(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var ran [8]bool
	defer func() {
		if r := recover(); r != "boom 3" {
			t.Errorf("recovered %v, want the panic of the lowest index, boom 3", r)
		}
		for i, ok := range ran {
			if !ok {
				t.Errorf("f(%d) did not run", i)
			}
		}
	}()
	parallel(len(ran), func(i int) {
		ran[i] = true
		if i == 3 || i == 6 {
			panic(fmt.Sprintf("boom %d", i))
		}
	})
}

// TestPipe checks that every value handed to a pipe is run once, with
// one P and with several, and that panics come back by value.
func TestPipe(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var ran [100]atomic.Int32
			p := newPipe(func(i int) {
				ran[i].Add(1)
				if i%40 == 7 {
					panic(fmt.Sprint("boom ", i))
				}
			})
			for i := range ran {
				p.add(i)
			}
			panics := p.wait()
			for i := range ran {
				if n := ran[i].Load(); n != 1 {
					t.Errorf("GOMAXPROCS=%d: f(%d) ran %d times", procs, i, n)
				}
			}
			if len(panics) != 3 || panics[7] != "boom 7" || panics[47] != "boom 47" || panics[87] != "boom 87" {
				t.Errorf("GOMAXPROCS=%d: panics %v", procs, panics)
			}
		}()
	}
}
