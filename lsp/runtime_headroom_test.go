package lsp

import "testing"

// TestHeadroomPercent: a small live heap may grow by gcHeadroom before the
// next collection (at most maxGCPercent), a large one by gcPercent.
func TestHeadroomPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, gcPercent},
		{4 << 20, maxGCPercent}, // 64 MiB over 4 MiB would be 1600 %
		{16 << 20, 400},         // 64 MiB over 16 MiB
		{32 << 20, 200},         // 64 MiB over 32 MiB
		{64 << 20, gcPercent},   // 100 %
		{512 << 20, gcPercent},  // never below gcPercent
		{20 << 20, 320},         // the production keystroke's live heap
	} {
		if got := headroomPercent(c.live); got != c.want {
			t.Errorf("headroomPercent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
