package picture

import (
	"fmt"
	"slices"
)

// BuildBanks lays out one warp-level shared instruction with the textbook
// rules: the access width decides the phases (4 bytes or less: the whole
// warp at once; 8 bytes: two half warps; 16 bytes: four quarter warps);
// within a phase each bank serves one distinct 4-byte word per wavefront,
// so a phase takes as many wavefronts as the most distinct words one bank
// holds; threads that read the same word share it (broadcast). A thread's
// phase is (Thread % 32) / (32 / Phases). An access wider than 4 bytes
// covers its consecutive words (banks). acc may be in any order; threads
// without an access are left out.
func BuildBanks(title, instr string, acc []BankAccess) *BankMap {
	m := &BankMap{Title: title, Instr: instr, Phases: 1, Accesses: acc}
	for _, a := range acc {
		m.Bytes = max(m.Bytes, a.Bytes)
	}
	switch {
	case m.Bytes > 8:
		m.Phases = 4
	case m.Bytes > 4:
		m.Phases = 2
	}
	per := 32 / m.Phases
	type user struct {
		first, n int
	}
	for ph := range m.Phases {
		// bank -> word -> threads sharing it
		words := [Banks]map[int64]*user{}
		any := false
		for _, a := range acc {
			if (a.Thread%32)/per != ph {
				continue
			}
			any = true
			n := max(int64(a.Bytes), 1)
			for w := a.Addr / 4; w <= (a.Addr+n-1)/4; w++ {
				b := int(w % Banks)
				if words[b] == nil {
					words[b] = map[int64]*user{}
				}
				u := words[b][w]
				if u == nil {
					words[b][w] = &user{first: a.Thread, n: 1}
					continue
				}
				u.n++
				u.first = min(u.first, a.Thread)
			}
		}
		if !any {
			continue
		}
		m.Ideal++
		depth := 1
		sorted := [Banks][]int64{}
		for b := range Banks {
			for w := range words[b] {
				sorted[b] = append(sorted[b], w)
			}
			slices.Sort(sorted[b])
			depth = max(depth, len(sorted[b]))
		}
		m.Ways = max(m.Ways, depth)
		for k := range depth {
			wf := Wavefront{Phase: ph}
			for b := range Banks {
				c := BankCell{Thread: -1}
				if k < len(sorted[b]) {
					w := sorted[b][k]
					u := words[b][w]
					c = BankCell{Thread: u.first, Word: w, Threads: u.n, Conflict: len(sorted[b]) > 1}
				}
				wf.Banks[b] = c
			}
			m.Wavefronts = append(m.Wavefronts, wf)
		}
	}
	m.Conflicts = len(m.Wavefronts) - m.Ideal
	return m
}

// Summary is the bank map in one line: wavefronts against the ideal.
func (m *BankMap) Summary() string {
	s := fmt.Sprintf("%d wavefront", len(m.Wavefronts))
	if len(m.Wavefronts) != 1 {
		s += "s"
	}
	s += fmt.Sprintf(" (ideal %d)", m.Ideal)
	if m.Ways > 1 {
		s += fmt.Sprintf(", %d-way bank conflict", m.Ways)
	} else {
		s += ", no bank conflict"
	}
	return s
}

// countWavefronts is BuildBanks' wavefront count and ideal without the
// layout, for ranking a call's instructions: one small array, no maps.
func countWavefronts(acc []BankAccess) (total, ideal int) {
	bytes := 0
	for _, a := range acc {
		bytes = max(bytes, a.Bytes)
	}
	phases := 1
	switch {
	case bytes > 8:
		phases = 4
	case bytes > 4:
		phases = 2
	}
	per := 32 / phases
	var words [Banks][]int64
	for ph := range phases {
		for b := range words {
			words[b] = words[b][:0]
		}
		any := false
		for _, a := range acc {
			if (a.Thread%32)/per != ph {
				continue
			}
			any = true
			n := max(int64(a.Bytes), 1)
			for w := a.Addr / 4; w <= (a.Addr+n-1)/4; w++ {
				b := w % Banks
				if !slices.Contains(words[b], w) {
					words[b] = append(words[b], w)
				}
			}
		}
		if !any {
			continue
		}
		ideal++
		depth := 1
		for b := range words {
			depth = max(depth, len(words[b]))
		}
		total += depth
	}
	return total, ideal
}
