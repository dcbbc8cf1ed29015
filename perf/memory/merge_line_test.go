package memory

import (
	"math/rand/v2"
	"testing"
)

// TestLaneLines: interleavedOn decides on the events' lines what
// interleaved decides lane by lane, for events of one mask whose lanes
// lie on lines of one stride or of several, or on none.
func TestLaneLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	masks := []uint32{0xffffffff, 1, 1 << 31, 0x0000ffff, 0x55555555, 0x80000001, 0x00f000f0}
	strides := []int64{0, 1, 2, 4, 8, 16, 128, -4}
	ev := func(mask uint32, width int64) event {
		e := event{mask: mask, width: width}
		base := r.Int64N(64) * 2
		s := strides[r.IntN(len(strides))]
		off := r.IntN(4) == 0 // off its line in one lane
		for i := range 32 {
			e.addr[i] = base + int64(i)*s
			if off && r.IntN(8) == 0 {
				e.addr[i] += r.Int64N(7) - 3
			}
		}
		return e
	}
	lines := 0
	for range 20000 {
		mask := masks[r.IntN(len(masks))]
		w := []int64{1, 2, 4, 8}[r.IntN(4)]
		first, last, q := ev(mask, w), ev(mask, w), ev(mask, w)
		if r.IntN(3) == 0 {
			// q follows last, or interleaves with the run
			for i := range 32 {
				q.addr[i] = last.addr[i] + w*int64(r.IntN(3))
			}
		}
		if lineOf(&first).ok && lineOf(&last).ok && lineOf(&q).ok {
			lines++
		}
		p := []event{first, last, q}
		if got, want := interleavedOn(p, make([]laneLine, 3), 0, 1, 2), interleaved(&first, &last, &q); got != want {
			t.Fatalf("interleavedOn %v, interleaved %v: mask %#x width %d\nfirst %v\nlast  %v\nq     %v", got, want, mask, w, first.addr, last.addr, q.addr)
		}
	}
	if lines < 5000 {
		t.Errorf("only %d of the cases had three lines", lines)
	}
}
