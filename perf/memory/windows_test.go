package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestWindowKeys compares windows's integer-key rule (windowKeys, with
// one lane standing for all when every access is the same in all its
// lanes) with sorting the chunks themselves (windowsSorted) on random
// units: roots, shifts, masks, widths, addresses in every lane or one
// address for all, and roots with loads available at entry.
func TestWindowKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	roots := []*ir.Buffer{{Name: "S", Scope: "shared"}, {Name: "T", Scope: "shared"}, {Name: "A", Scope: "global"}}
	m := &machine{}
	compared, failed := 0, 0
	for range 20000 {
		sk := &loopSkip{rec: &recBuf{}, block: 1 + rng.Int64N(4), shift: map[*ir.Buffer]int64{}}
		for _, r := range roots {
			switch rng.IntN(6) {
			case 0: // absent: the unit does not move it
			case 1:
				sk.shift[r] = 8 // not whole chunks
			default:
				sk.shift[r] = 16 * (1 + rng.Int64N(8)) * (1 - 2*rng.Int64N(2))
			}
		}
		if rng.IntN(8) == 0 {
			sk.availAt = roots[rng.IntN(len(roots)):][:1]
		}
		uniform := rng.IntN(2) == 0
		mask := uint32(1<<32 - 1)
		if rng.IntN(3) == 0 {
			mask = rng.Uint32() | 1
		}
		for range 1 + rng.IntN(6) {
			e := event{k: []kind{sharedLoad, sharedStore, globalLoad}[rng.IntN(3)], mask: mask,
				width: []int64{4, 8, 16}[rng.IntN(3)], buf: roots[rng.IntN(len(roots))]}
			if e.k == globalLoad {
				e.buf = roots[2]
			} else if e.buf == roots[2] {
				e.buf = roots[0]
			}
			if !uniform && rng.IntN(4) == 0 {
				e.mask = rng.Uint32()
			}
			a := rng.Int64N(4096) &^ (e.width - 1)
			for l := range e.addr {
				e.addr[l] = a
				if !uniform {
					e.addr[l] = a + rng.Int64N(8)*e.width
				}
			}
			sk.rec.ops = append(sk.rec.ops, recOp{op: recEvent, i: int32(len(sk.rec.evs))})
			sk.rec.evs = append(sk.rec.evs, e)
		}
		n := sk.block * (3 + rng.Int64N(12))
		got, done := m.windowKeys(sk, n)
		if !done {
			continue
		}
		compared++
		if want := m.windowsSorted(sk, n); got != want {
			t.Fatalf("windowKeys %v, windowsSorted %v (uniform %v):\n%+v\nshift %v", got, want, uniform, sk.rec.evs, sk.shift)
		}
		if !got {
			failed++
		}
	}
	if compared < 19000 || failed == 0 || failed == compared {
		t.Errorf("%d units compared, %d refused: the cases do not cover both answers", compared, failed)
	}
}
