package picture

import (
	"fmt"
	"slices"
)

// BuildBanks lays out one warp-level shared instruction pass by pass. The
// passes come with the accesses (BankAccess.Pass): the memory analysis
// (perf/memory) assigns them with the rules calibrated on sm_90 (a group
// of the lanes whose accesses make 128 bytes, two adjacent load groups
// merged into one pass when no bank holds two distinct words, stores
// never merged, one pass per ldmatrix/stmatrix matrix). Within a pass
// each bank serves one distinct 4-byte word per wavefront, so a pass
// takes as many wavefronts as the most distinct words one bank holds;
// threads that read the same word share it (broadcast). An access wider
// than 4 bytes covers its consecutive words (banks). acc may be in any
// order; threads without an access are left out.
func BuildBanks(title, instr string, acc []BankAccess) *BankMap {
	m := &BankMap{Title: title, Instr: instr, Accesses: acc}
	for _, a := range acc {
		m.Bytes = max(m.Bytes, a.Bytes)
		m.Phases = max(m.Phases, a.Pass+1)
	}
	type user struct {
		first, n int
	}
	for ph := range m.Phases {
		// bank -> word -> threads sharing it
		words := [Banks]map[int64]*user{}
		any := false
		for _, a := range acc {
			if a.Pass != ph {
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
