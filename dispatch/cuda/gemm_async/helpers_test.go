package gemmasync

import (
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
)

// Python set reprs of the reference's "SFA K extent=... must be in {...}":
// expected strings printed by CPython (3.11, the reference venv's).
func TestPySetRepr(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want string
	}{
		{[]int64{1, 2, 8}, "{8, 1, 2}"},
		{[]int64{2, 8, 32}, "{8, 2, 32}"},
		{[]int64{1, 4, 16}, "{16, 1, 4}"},
		{[]int64{4, 16, 64}, "{16, 64, 4}"},
		{[]int64{2, 4, 16}, "{16, 2, 4}"},
		{[]int64{1, 8, 32}, "{8, 1, 32}"},
		{[]int64{4, 32, 128}, "{32, 4, 128}"},
		{[]int64{2, 16, 64}, "{16, 2, 64}"},
		{[]int64{1, 1, 4}, "{1, 4}"},
		{[]int64{4, 4, 4}, "{4}"},
		{[]int64{1, 16, 64}, "{16, 1, 64}"},
	} {
		if got := pySetRepr(c.in); got != c.want {
			t.Errorf("pySetRepr(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// chooseMMATile against _choose_mma_tile's rules.
func TestChooseMMATile(t *testing.T) {
	for _, c := range []struct{ m, n, cg, nMin, wm, wn int64 }{
		{128, 64, 1, 8, 128, 64},
		{64, 64, 1, 8, 64, 64},
		{192, 64, 1, 8, 64, 64}, // 192 % 128 != 0
		{128, 512, 1, 8, 128, 256},
		{128, 264, 1, 8, 128, 88},
		{128, 256, 2, 16, 128, 256},
		{64, 128, 2, 16, 64, 128},
	} {
		m, n := chooseMMATile(c.m, c.n, c.cg, c.nMin)
		if m != c.wm || n != c.wn {
			t.Errorf("chooseMMATile(%d, %d, %d) = (%d, %d), want (%d, %d)", c.m, c.n, c.cg, m, n, c.wm, c.wn)
		}
	}
}

// radixIters rebuilds an atom grid dim from its offsets.
func TestRadixIters(t *testing.T) {
	its, ok := radixIters([]int64{0, 512, 1024, 1536}, 512)
	if !ok || len(its) != 1 || its[0] != layout.It(4, 1, layout.M) {
		t.Errorf("uniform: %v %v", its, ok)
	}
	its, ok = radixIters([]int64{0, 512, 4096, 4608}, 512)
	if !ok || len(its) != 2 || its[0] != layout.It(2, 8, layout.M) || its[1] != layout.It(2, 1, layout.M) {
		t.Errorf("two iters: %v %v", its, ok)
	}
	if _, ok := radixIters([]int64{0, 512, 1536}, 512); ok {
		t.Errorf("non-affine offsets accepted")
	}
}
