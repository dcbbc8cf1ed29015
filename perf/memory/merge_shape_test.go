package memory

import (
	"math/rand/v2"
	"testing"
)

// TestLaneShapes: interleavedOn decides on the events' bases what
// interleaved decides lane by lane, for events of one mask that are
// translations of one another (on a line of one stride, or of any shape:
// a swizzle's) or not, in a table with room for their shapes or full.
func TestLaneShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	masks := []uint32{0xffffffff, 1, 1 << 31, 0x0000ffff, 0x55555555, 0x80000001, 0x00f000f0}
	var shapes [4]lanes // offsets that are not lines: swizzled rows, matrices' rows
	for k := range shapes {
		for i := range 32 {
			shapes[k][i] = int64((i%8)*16^(i/8)*32) + int64(k*4*(i%3))
		}
	}
	ev := func(mask uint32, width int64, shape int) event {
		e := event{mask: mask, width: width}
		base := r.Int64N(64) * 2
		for i := range 32 {
			e.addr[i] = base + shapes[shape][i]
		}
		if r.IntN(4) == 0 {
			e.addr[r.IntN(32)] += r.Int64N(7) - 3 // off its shape in one lane
		}
		return e
	}
	same := 0
	for n := range 20000 {
		mask := masks[r.IntN(len(masks))]
		w := []int64{1, 2, 4, 8}[r.IntN(4)]
		k := r.IntN(len(shapes))
		shape := func() int {
			if r.IntN(4) == 0 {
				return r.IntN(len(shapes))
			}
			return k
		}
		first, last, q := ev(mask, w, shape()), ev(mask, w, shape()), ev(mask, w, shape())
		if r.IntN(3) == 0 {
			// q follows last, or interleaves with the run
			for i := range 32 {
				q.addr[i] = last.addr[i] + w*int64(r.IntN(3))
			}
		}
		p := []event{first, last, q}
		tab := make([]lanes, 0, maxShapes)
		if n%10 == 0 {
			tab = tab[:maxShapes] // full: no shape is placed
		}
		sh := make([]laneShape, 3)
		if got, want := interleavedOn(p, sh, &tab, 0, 1, 2), interleaved(&first, &last, &q); got != want {
			t.Fatalf("interleavedOn %v, interleaved %v: mask %#x width %d\nfirst %v\nlast  %v\nq     %v", got, want, mask, w, first.addr, last.addr, q.addr)
		}
		if sh[2].id > 0 && sh[1].id == sh[2].id && sh[0].id == sh[2].id {
			same++
		}
	}
	if same < 5000 {
		t.Errorf("only %d of the cases had one shape", same)
	}
}
