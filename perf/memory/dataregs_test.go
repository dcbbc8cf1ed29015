package memory_test

import (
	"testing"

	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestDataRegs compares the figures of every golden and testdata kernel
// (and the corpus under $TILELS_BENCH_DIR) analysed with data registers
// executed only for the accesses inside their expressions and with every
// register element kept: they must agree fact by fact, the step count
// included (and some kernels must have data registers). Inert loops,
// found among data registers, are executed in both (TestInertLoops
// compares them).
func TestDataRegs(t *testing.T) {
	defer memory.SetInertRule(memory.SetInertRule(false))
	kernels, withData := 0, 0
	eachKernel(t, func(name string, k *lower.Kernel) {
		kernels++
		fast, slow := withAndWithout(k, memory.SetDataRegs)
		if a, b := loopText(fast, k), loopText(slow, k); a != b {
			t.Errorf("%s kernel %s: data registers differ:\n%s\nkeeping every register:\n%s", name, k.Name, a, b)
		}
		if memory.DataRegisters(k.Lowered) != "[]" {
			withData++
		}
	})
	t.Logf("%d kernels, %d with data registers", kernels, withData)
	if withData == 0 {
		t.Error("no kernel has data registers")
	}
}

// TestDataRegsScan: which register allocations dataRegisters finds data.
func TestDataRegsScan(t *testing.T) {
	src := kernel("1", `    acc = T.alloc_buffer((4,), "float32", scope="local")
    idx = T.alloc_buffer((1,), "int32", scope="local")
    pick = T.alloc_buffer((1,), "int32", scope="local")
    row = T.alloc_buffer((1,), "int32", scope="local")
    idx[0] = tid
    pick[0] = 1
    row[0] = 2
    for i in range(4):
        acc[i] = A[idx[0], i] * 2.0
    if pick[0] > 0:
        acc[0] = acc[1] + acc[2]
    r: T.int32 = row[0]
    S[r, tid] = acc[0]
`)
	res, _ := analyze(t, src)
	got := memory.DataRegisters(res.Kernels[0].Lowered)
	want := "[acc]" // idx is an index, pick a condition, row a scalar that is one
	if got != want {
		t.Errorf("data registers %s, want %s", got, want)
	}
}
