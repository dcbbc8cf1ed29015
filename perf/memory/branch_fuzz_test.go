package memory_test

import (
	"fmt"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// FuzzLoopBranch builds a loop whose body branches on its variable (an
// ordering, an equality, one side of an and/or with a thread condition, a
// comparison of two sides that both move with it: opaque.go's singular
// branches) and checks that skipping iterations gives the figures of
// executing every one. The seeds run in plain go test.
func FuzzLoopBranch(f *testing.F) {
	// cond, a, trips, kind, elseArm
	f.Add(uint8(0), uint8(0), uint16(300), uint8(0), false)  // i > 0
	f.Add(uint8(2), uint8(10), uint16(300), uint8(0), true)  // i < n - 10, with an else
	f.Add(uint8(7), uint8(2), uint16(300), uint8(0), false)  // m0 + i < m0 + 2
	f.Add(uint8(8), uint8(0), uint16(300), uint8(0), false)  // i > 0 and tid == 0
	f.Add(uint8(9), uint8(3), uint16(200), uint8(1), true)   // i < n - 3 or tid < 16, an unroll loop
	f.Add(uint8(4), uint8(5), uint16(300), uint8(0), false)  // i == 5
	f.Add(uint8(11), uint8(1), uint16(300), uint8(0), false) // i > 1 and i % 3 == 0
	f.Fuzz(func(t *testing.T, cond, a uint8, trips uint16, kind uint8, elseArm bool) {
		src := fuzzBranchLoop(cond, a, trips, kind, elseArm)
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		if res.HasErrors() || len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Skipf("not lowered: %v\n%s", res.Diags, src)
		}
		k := res.Kernels[0]
		fast, slow := withAndWithout(k, memory.SetLoopDedup)
		if x, y := loopText(fast, k), loopText(slow, k); x != y {
			t.Errorf("skipping iterations differs:\n%s\nexecuting every iteration:\n%s\nkernel:\n%s", x, y, src)
		}
	})
}

// fuzzBranchLoop is FuzzLoopBranch's kernel (see kernel: 32 threads, A a
// 32x32 float32 global buffer, S a shared one).
func fuzzBranchLoop(cond, a uint8, trips uint16, kind uint8, elseArm bool) string {
	n := int(trips)%600 + 1
	loop := fmt.Sprintf("    for i in T.serial(%d):\n", max(n, 257))
	if kind%2 == 1 {
		n = min(n, 256)
		loop = fmt.Sprintf("    for i in range(%d):\n", n)
	} else {
		n = max(n, 257)
	}
	x, b := int(a)%16, n-1-int(a)%16
	conds := []string{
		fmt.Sprintf("i > %d", x),
		fmt.Sprintf("i >= %d", x),
		fmt.Sprintf("i < %d", b),
		fmt.Sprintf("i <= %d", b),
		fmt.Sprintf("i == %d", x),
		fmt.Sprintf("i != %d", b),
		fmt.Sprintf("%d < i", x),
		fmt.Sprintf("m0 + i < m0 + %d", x),
		fmt.Sprintf("i > %d and tid == 0", x),
		fmt.Sprintf("i < %d or tid < 16", b),
		fmt.Sprintf("i == %d and tid %% 2 == 0", x),
		fmt.Sprintf("i > %d and i %% 3 == 0", x),
		fmt.Sprintf("m0 - i > m0 - %d", b),
	}
	c := conds[int(cond)%len(conds)]
	body := "        A[0, tid] = S[0, tid] + A[1, tid]\n" +
		"        if " + c + ":\n" +
		"            S[1, tid] = A[2, tid]\n"
	if elseArm {
		body += "        else:\n            A[3, (tid * 2) % 32] = S[2, tid]\n"
	}
	pre := "    m0: T.let = 6\n"
	after := "    T.cuda.cta_sync()\n    A[4, tid] = S[tid, 5]\n"
	return kernel("1", pre+loop+body+after)
}
