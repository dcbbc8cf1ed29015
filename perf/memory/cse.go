package memory

// Redundant-load elimination, as nvcc -O2 does it: a thread that loads
// the same global bytes again, with no store to that buffer, no barrier
// or other intrinsic and no runtime loop iteration in between, reuses the
// value it holds in registers (measured: two Tx.copy calls of one global
// row into two register tiles issue the LDGs once; ncu's global load
// requests are half the source's loads). The kernel parameters are
// __restrict__ (codegen), so a store to another buffer keeps the value.
//
// Shared loads likewise (measured): a warp's repeated load of the same
// shared bytes with no store to that buffer by the thread and no barrier
// in between is issued once (narrowed_subcta: the four copies of one W_s
// row to A in a `for i in range(4)` are one LDS.128; silu's two reads of
// each X_s element are one LDS.128 per bundle, v_ewise_f32_shared_math).
// A shared store, cp.async or stmatrix into the buffer ends its loads'
// availability: another thread's store needs a barrier to be seen.
//
// A warp-level load is redundant when an earlier one of the same root
// buffer, width, active lanes and per-lane addresses is still available.

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// availKey indexes the available loads; addr0 is the first active
// lane's address.
type availKey struct {
	buf   *ir.Buffer
	width int64
	mask  uint32
	addr0 int64
}

// redundant reports whether e need not be issued (a repeated global load)
// and updates the available loads.
func (m *machine) redundant(e *event) bool {
	switch e.k {
	case globalLoad, sharedLoad:
		k := availKey{e.buf, e.width, e.mask, e.addr[firstLane(e.mask)]}
		for _, a := range m.avail[k] {
			if a == e.addr {
				return true
			}
		}
		if m.avail == nil {
			m.avail = map[availKey][]lanes{}
		}
		m.avail[k] = append(m.avail[k], e.addr)
	case globalStore, sharedStore, cpAsync, stmatrix:
		for k := range m.avail {
			if k.buf == e.buf {
				delete(m.avail, k)
			}
		}
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
	if len(m.avail) > 0 {
		clear(m.avail)
	}
}

// pureMath reports whether c is a math function of its operands (sqrt,
// exp2, a cast reinterpretation: an op outside the ptx./cuda./tvm_
// namespaces with no buffer pointer argument): it touches no memory and
// is no barrier, so loads stay available across it (silu's
// x / (1 + exp(-x)) reads x once).
func pureMath(c *ir.Call) bool {
	if strings.Contains(c.Op, ".") || strings.HasPrefix(c.Op, "tvm_") || c.Op == "address_of" {
		return false
	}
	for _, a := range c.Args {
		if bufferOf(a) != nil {
			return false
		}
	}
	return true
}
