package picture

import "testing"

// warp builds the accesses of lanes 0..31 with addr(lane) and bytes, in
// the passes of the groups the width makes (32 lanes for 4 bytes or less,
// 16 for 8, 8 for 16), none merged: perf/memory assigns the passes (and
// merges load groups) in the analysis; BuildBanks draws what it is given.
func warp(bytes int, addr func(l int) int64) []BankAccess {
	group := 32
	switch {
	case bytes > 8:
		group = 8
	case bytes > 4:
		group = 16
	}
	var out []BankAccess
	for l := range 32 {
		out = append(out, BankAccess{Thread: l, Addr: addr(l), Bytes: bytes, Pass: l / group})
	}
	return out
}

func TestBuildBanks(t *testing.T) {
	cases := []struct {
		name                    string
		acc                     []BankAccess
		wavefronts, ideal, ways int
		phases                  int
	}{
		// fp32 row of a 32x32 tile: 32 consecutive words, one per bank.
		{"row fp32", warp(4, func(l int) int64 { return int64(4 * l) }), 1, 1, 1, 1},
		// fp32 column of a 32x32 tile: every word in bank 0.
		{"column fp32", warp(4, func(l int) int64 { return int64(128 * l) }), 32, 1, 32, 1},
		// stride 2 words: 2-way.
		{"stride 2", warp(4, func(l int) int64 { return int64(8 * l) }), 2, 1, 2, 1},
		// padded column (33 words per row): conflict-free.
		{"padded column", warp(4, func(l int) int64 { return int64(132 * l) }), 1, 1, 1, 1},
		// every lane the same word: one broadcast wavefront.
		{"broadcast", warp(4, func(l int) int64 { return 64 }), 1, 1, 1, 1},
		// 64-bit contiguous: two half warps, 2 wavefronts, no conflict.
		{"64-bit row", warp(8, func(l int) int64 { return int64(8 * l) }), 2, 2, 1, 2},
		// 128-bit contiguous: four quarter warps.
		{"128-bit row", warp(16, func(l int) int64 { return int64(16 * l) }), 4, 4, 1, 4},
		// 128-bit with a 256-byte stride: in a quarter warp every lane
		// hits banks 0-3 at a different word, 8-way per phase.
		{"128-bit stride 256", warp(16, func(l int) int64 { return int64(256 * l) }), 32, 4, 8, 4},
		// 16-bit elements, two lanes per word: one wavefront.
		{"fp16 row", warp(2, func(l int) int64 { return int64(2 * l) }), 1, 1, 1, 1},
		// A merged pair of load groups: 64-bit (l/2)*8, both half warps
		// in pass 0 (128 distinct bytes): one wavefront.
		{"merged 64-bit pair", merged(warp(8, func(l int) int64 { return int64(l / 2 * 8) })), 1, 1, 1, 1},
	}
	for _, c := range cases {
		m := BuildBanks("t", "i", c.acc)
		if len(m.Wavefronts) != c.wavefronts || m.Ideal != c.ideal || m.Ways != c.ways || m.Phases != c.phases {
			t.Errorf("%s: %d wavefronts, ideal %d, %d-way, %d phases; want %d, %d, %d-way, %d phases",
				c.name, len(m.Wavefronts), m.Ideal, m.Ways, m.Phases, c.wavefronts, c.ideal, c.ways, c.phases)
		}
		if m.Conflicts != len(m.Wavefronts)-m.Ideal {
			t.Errorf("%s: conflicts %d", c.name, m.Conflicts)
		}
	}
	// The column: wavefront k serves thread k's word in bank 0 only, and
	// marks it as a conflict.
	m := BuildBanks("t", "i", warp(4, func(l int) int64 { return int64(128 * l) }))
	for k, wf := range m.Wavefronts {
		if c := wf.Banks[0]; c.Thread != k || !c.Conflict || c.Word != int64(32*k) {
			t.Errorf("column wavefront %d bank 0: %+v", k, c)
		}
		if wf.Banks[1].Thread != -1 {
			t.Errorf("column wavefront %d bank 1 not idle: %+v", k, wf.Banks[1])
		}
	}
	// The broadcast: one cell shared by 32 threads, the lowest first.
	b := BuildBanks("t", "i", warp(4, func(l int) int64 { return 64 }))
	if c := b.Wavefronts[0].Banks[16]; c.Thread != 0 || c.Threads != 32 || c.Conflict {
		t.Errorf("broadcast bank 16: %+v", c)
	}
	// A 128-bit access covers four consecutive banks.
	q := BuildBanks("t", "i", warp(16, func(l int) int64 { return int64(16 * l) }))
	for bank := range 4 {
		if c := q.Wavefronts[1].Banks[bank]; c.Thread != 8 {
			t.Errorf("128-bit phase 1 bank %d: %+v, want thread 8", bank, c)
		}
	}
}

// merged puts every access in pass 0.
func merged(acc []BankAccess) []BankAccess {
	for i := range acc {
		acc[i].Pass = 0
	}
	return acc
}
