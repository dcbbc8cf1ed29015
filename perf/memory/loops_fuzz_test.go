package memory_test

import (
	"fmt"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// FuzzLoopSkip builds a loop from its inputs (a serial for loop nvcc does
// not unroll, an unroll loop or a counted while loop; one lane, a half
// warp or the whole warp; shared and global accesses at indices that
// move by a constant, wrap, or permute the iteration's bits by an XOR)
// and checks that skipping iterations (loops.go, whiles.go) gives the
// figures, the elided accesses and the step count of executing every
// iteration. The seeds run in plain go test; each is a kernel of one of
// the rules.
func FuzzLoopSkip(f *testing.F) {
	// kind, lanes, row (S), arow (A), col, second, trips, start, step
	f.Add(uint8(0), uint8(0), uint8(2), uint8(3), uint8(0), uint8(0), uint16(300), uint8(0), uint8(1)) // one lane, a swizzle, serial
	f.Add(uint8(0), uint8(0), uint8(1), uint8(2), uint8(1), uint8(1), uint16(300), uint8(0), uint8(1)) // one lane, two accesses of S
	f.Add(uint8(0), uint8(2), uint8(2), uint8(2), uint8(2), uint8(0), uint16(300), uint8(0), uint8(1)) // every lane, a swizzle
	f.Add(uint8(1), uint8(0), uint8(2), uint8(3), uint8(0), uint8(0), uint16(200), uint8(0), uint8(1)) // one lane, an unroll loop
	f.Add(uint8(2), uint8(2), uint8(1), uint8(1), uint8(1), uint8(0), uint16(590), uint8(3), uint8(4)) // a counted while, translated
	f.Add(uint8(2), uint8(0), uint8(2), uint8(0), uint8(0), uint8(0), uint16(400), uint8(1), uint8(3)) // a counted while, one lane, a swizzle
	f.Add(uint8(2), uint8(1), uint8(3), uint8(1), uint8(1), uint8(1), uint16(250), uint8(0), uint8(2)) // a counted while, half a warp
	f.Add(uint8(0), uint8(2), uint8(1), uint8(1), uint8(1), uint8(0), uint16(320), uint8(0), uint8(1)) // every lane, translated
	f.Fuzz(func(t *testing.T, kind, lanes, row, arow, col, second uint8, trips uint16, start, step uint8) {
		src := fuzzLoop(kind, lanes, row, arow, col, second, trips, start, step)
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		if res.HasErrors() || len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Skipf("not lowered: %v\n%s", res.Diags, src)
		}
		k := res.Kernels[0]
		fast, slow := withAndWithout(k, memory.SetLoopDedup)
		if a, b := loopText(fast, k), loopText(slow, k); a != b {
			t.Errorf("skipping iterations differs:\n%s\nexecuting every iteration:\n%s\nkernel:\n%s", a, b, src)
		}
	})
}

// fuzzLoop is FuzzLoopSkip's kernel (see kernel: 32 threads, A a 32x32
// float32 global buffer, S a shared one).
func fuzzLoop(kind, lanes, row, arow, col, second uint8, trips uint16, start, step uint8) string {
	n := int(trips)%600 + 1
	rows := []string{
		"(i * 7 + 3) % 32",              // wraps
		"i // 16",                       // moves every 16 iterations (past S's 32 rows: the model checks no bounds)
		"((i % 8) ^ (i // 8 % 4)) % 32", // an XOR of the iteration's bits
		"(i * i) % 32",                  // no period
	}
	cols := []string{"0", "tid", "(tid * 2 + i) % 32"}
	r := rows[int(row)%len(rows)]
	c := cols[int(col)%len(cols)]
	body := fmt.Sprintf("S[%s, %s] = A[%s, %s]\n", r, c, rows[int(arow)%len(rows)], c)
	switch second % 3 {
	case 1:
		body += fmt.Sprintf("A[1, %s] = S[%s, 0] + S[%s, 1]\n", c, rows[(int(row)+2)%len(rows)], r)
	case 2:
		body += fmt.Sprintf("A[%s, 2] = S[3, %s]\n", rows[(int(row)+3)%len(rows)], c)
	}
	var loop string
	ind := "        "
	switch kind % 3 {
	case 0:
		loop = fmt.Sprintf("    for i in T.serial(%d):\n", max(n, 257))
	case 1:
		loop = fmt.Sprintf("    for i in range(%d):\n", min(n, 256))
	case 2:
		loop = fmt.Sprintf("    i: T.int32 = %d\n    while i < %d:\n", start%8, n)
		body += fmt.Sprintf("i = i + %d\n", step%7+1)
	}
	guard := ""
	switch lanes % 3 {
	case 0:
		guard = "    if tid == 0:\n"
	case 1:
		guard = "    if tid < 16:\n"
	}
	if guard != "" {
		loop = indent(loop, "    ")
		ind += "    "
	}
	out := guard + loop
	for _, l := range splitLines(body) {
		out += ind + l + "\n"
	}
	// what the loop stored is read after it (stores nothing reads are
	// elided), and after a while loop, at its index
	after := "    T.cuda.cta_sync()\n    A[4, tid] = S[tid, 5]\n"
	if kind%3 == 2 {
		after += "    A[5, tid] = S[tid * i % 32, 0]\n"
	}
	return kernel("1", out+after)
}

func indent(s, by string) string {
	out := ""
	for _, l := range splitLines(s) {
		out += by + l + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
