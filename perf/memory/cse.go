package memory

// Redundant-load elimination, as nvcc -O2 does it: a thread that loads
// the same global bytes again, with no store to that buffer, no barrier
// or other intrinsic and no runtime loop iteration in between, reuses the
// value it holds in registers (measured: two Tx.copy calls of one global
// row into two register tiles issue the LDGs once; ncu's global load
// requests are half the source's loads). The kernel parameters are
// __restrict__ (codegen), so a store to another buffer keeps the value.
//
// A warp-level load is redundant when an earlier one of the same root
// buffer, width, active lanes and per-lane addresses is still available.

// redundant reports whether e need not be issued (a repeated global load)
// and updates the available loads.
func (m *machine) redundant(e *event) bool {
	switch e.k {
	case globalLoad:
		for _, a := range m.avail {
			if a.buf == e.buf && a.width == e.width && a.mask == e.mask && a.addr == e.addr {
				return true
			}
		}
		c := *e
		m.avail = append(m.avail, &c)
	case globalStore:
		keep := m.avail[:0]
		for _, a := range m.avail {
			if a.buf != e.buf {
				keep = append(keep, a)
			}
		}
		m.avail = keep
	case tma:
		m.forget()
	}
	return false
}

// forget drops the available loads: at a barrier or other intrinsic, at
// each iteration of a loop nvcc does not unroll, and at a new warp.
func (m *machine) forget() { m.avail = m.avail[:0] }
