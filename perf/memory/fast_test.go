package memory

import (
	"math/rand/v2"
	"testing"
)

// randomEvent returns a warp access whose per-lane addresses follow one of
// the patterns lowered code makes (strided, swizzled, broadcast, row
// blocks, random) with a random active mask.
func randomEvent(r *rand.Rand, k kind, width int64) event {
	e := event{k: k, width: width, bytes: width, mask: 0xffffffff}
	switch r.IntN(4) {
	case 0:
		e.mask = r.Uint32() | 1
	case 1:
		e.mask = 1<<(1+r.IntN(31)) - 1
	}
	stride := width << r.IntN(6)
	base := int64(r.IntN(64)) * width
	for i := range int64(32) {
		switch r.IntN(5) {
		case 0:
			e.addr[i] = base + i*stride
		case 1:
			e.addr[i] = base + ((i&^7)+((i&7)^int64(r.IntN(8))))*width
		case 2:
			e.addr[i] = base
		case 3:
			e.addr[i] = base + (i%8)*128 + (i/8)*width
		default:
			e.addr[i] = int64(r.IntN(256)) * width
		}
		e.src[i] = int64(r.IntN(1024)) * width
		if r.IntN(2) == 0 {
			e.src[i] = i * width * int64(1+r.IntN(4))
		}
	}
	return e
}

// TestCpAsyncSectorsFast compares the fixed-size cp.async pass counting
// (copies of at most 16 bytes) with the general one on generated patterns.
func TestCpAsyncSectorsFast(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for n := range 20000 {
		w := []int64{4, 8, 16}[n%3]
		e := randomEvent(r, cpAsync, w)
		n1, i1 := cpAsyncSectors(&e)
		n2, i2 := cpAsyncSectorsWide(&e)
		if n1 != n2 || i1 != i2 {
			t.Fatalf("width %d mask %#x addr %v src %v: fast %d/%d, general %d/%d", w, e.mask, e.addr, e.src, n1, i1, n2, i2)
		}
	}
}
