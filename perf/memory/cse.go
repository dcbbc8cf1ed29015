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

import "github.com/tilels/tilels/ir"

// availKey indexes the available loads of one buffer; addr0 is the first
// active lane's address.
type availKey struct {
	width int64
	mask  uint32
	addr0 int64
}

// redundant reports whether e need not be issued (a repeated global load)
// and updates the available loads.
func (m *machine) redundant(e *event) bool {
	switch e.k {
	case globalLoad:
		k := availKey{e.width, e.mask, e.addr[firstLane(e.mask)]}
		bm := m.avail[e.buf]
		as := bm[k]
		for i := range as {
			if as[i] == e.addr {
				return true
			}
		}
		if bm == nil {
			if m.avail == nil {
				m.avail = map[*ir.Buffer]map[availKey][]lanes{}
			}
			bm = map[availKey][]lanes{}
			m.avail[e.buf] = bm
		}
		bm[k] = append(as, e.addr)
	case globalStore:
		// the buffer's loads, not every buffer's: a thread's copy loop
		// that stores after each load was quadratic
		clear(m.avail[e.buf])
	case tma:
		m.forget()
	}
	return false
}

func firstLane(mask uint32) int {
	for i := range 32 {
		if mask&(1<<i) != 0 {
			return i
		}
	}
	return 0
}

// forget drops the available loads: at a barrier or other intrinsic, at
// each iteration of a loop nvcc does not unroll, and at a new warp.
func (m *machine) forget() {
	for _, bm := range m.avail { // the maps stay, for the next loads
		if len(bm) > 0 {
			clear(bm)
		}
	}
}
