package gemmasync

import (
	"math/rand/v2"
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
)

// sfLayoutMatchesByApply is sfLayoutMatches as it was written first, the
// reference's evaluation at every (row, k) through Apply: the oracle of
// TestSFLayoutMatches.
func sfLayoutMatchesByApply(l *layout.TileLayout, rows, kTotal, sfK int64) bool {
	ok := true
	ev := func(r, k int64) (int64, int64) {
		m := l.Apply(r*kTotal + k)
		for a, v := range m {
			if a != layout.TLane && a != layout.TCol && v != 0 {
				ok = false
			}
		}
		return m[layout.TLane], m[layout.TCol]
	}
	for r := range rows {
		for k := range kTotal {
			ol, oc := ev(r/32*32, k/sfK*sfK)
			tl, tc := ev(r, k)
			if tl != ol+r%32 || tc != oc+k%sfK {
				ok = false
			}
		}
	}
	return ok
}

// TestSFLayoutMatches: the walk by axis runs answers as the evaluation
// through Apply does, on scale-factor layouts built as the reference's
// direct sum (which match) and on random changes of them (most of which
// do not): a stride, an extent split, an offset, another axis.
func TestSFLayoutMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	axes := []*layout.Axis{layout.TLane, layout.TCol, layout.M}
	pick := func() *layout.Axis { return axes[rng.IntN(len(axes))] }
	var matched, refused int
	for range 3000 {
		rows := int64(32 * (1 + rng.IntN(4)))
		sfK := int64([]int{1, 2, 4}[rng.IntN(3)])
		kTotal := sfK * int64(1+rng.IntN(4))
		// The direct sum over the domain [rows/32, 32, kTotal/sf, sf].
		shard := []layout.Iter{
			layout.It(rows/32, int64(rng.IntN(3))*32, layout.TLane),
			layout.It(32, 1, layout.TLane),
			layout.It(kTotal/sfK, int64(rng.IntN(3))*sfK, layout.TCol),
			layout.It(sfK, 1, layout.TCol),
		}
		var offset map[*layout.Axis]int64
		switch rng.IntN(6) {
		case 0: // a stride changed, maybe of another axis
			i := rng.IntN(len(shard))
			shard[i] = layout.It(shard[i].Extent, int64(rng.IntN(4)), pick())
		case 1: // an offset
			offset = map[*layout.Axis]int64{pick(): int64(rng.IntN(3))}
		case 2: // the outer iterators swapped
			shard[0], shard[2] = layout.It(shard[2].Extent, shard[2].Stride, shard[2].Axis), layout.It(shard[0].Extent, shard[0].Stride, shard[0].Axis)
		case 3: // a zero extent (the first digit keeps what is left)
			shard[0] = layout.It(0, shard[0].Stride, shard[0].Axis)
		}
		l := layout.NewTile(shard, []layout.Iter{layout.It(4, 32, layout.TLane)}, offset)
		want := sfLayoutMatchesByApply(l, rows, kTotal, sfK)
		if got := sfLayoutMatches(l, rows, kTotal, sfK); got != want {
			t.Fatalf("%s rows=%d K=%d sf=%d: matched %v, want %v", l, rows, kTotal, sfK, got, want)
		}
		if want {
			matched++
		} else {
			refused++
		}
	}
	if matched < 300 || refused < 300 {
		t.Errorf("the random layouts matched %d times and were refused %d times: too few of one", matched, refused)
	}
}
