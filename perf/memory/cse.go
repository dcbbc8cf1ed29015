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
	"math"
	"strings"

	"github.com/tilels/tilels/ir"
)

// availKey indexes the available loads of one buffer: addr0 is the first
// active lane's address, wm the width (bytes a lane) and the active
// lanes' mask as width<<32 | mask (16 bytes: a generic 24-byte key's
// hash was a tenth of an element-wise kernel's map accesses).
type availKey struct {
	addr0 int64
	wm    uint64
}

func keyOf(e *event) availKey {
	return availKey{e.addr[firstLane(e.mask)], uint64(e.width)<<32 | uint64(e.mask)}
}

func (k availKey) width() int64 { return int64(k.wm >> 32) }
func (k availKey) mask() uint32 { return uint32(k.wm) }

// redundant reports whether e need not be issued (a repeated global load)
// and updates the available loads.
func (m *machine) redundant(e *event) bool {
	if len(m.ghosts) > 0 {
		m.ghostTouch(e) // loops.go
	}
	switch e.k {
	case globalLoad, sharedLoad:
		k := keyOf(e)
		bs := m.availOf(e.buf)
		i, ok := bs.idx[k]
		if ok {
			as := bs.ents[i].list
			for j := range as {
				if as[j] == e.addr {
					return true
				}
			}
		}
		bs.put(m, k, i, ok, e)
	case sharedStore:
		if m.forwards(e) {
			break
		}
		fallthrough
	case globalStore, cpAsync, stmatrix:
		// the buffer's loads, not every buffer's: a thread's copy loop
		// that stores after each load was quadratic
		if bs := m.avail[e.buf]; bs != nil {
			m.dropLoads(bs)
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
	if m.rec != nil {
		m.record(recForget, nil)
	}
	clear(m.ghosts)
	for _, bs := range m.availUsed { // the sets stay, for the next loads
		if len(bs.ents) > 0 {
			m.dropLoads(bs)
		}
		bs.listed = false
	}
	m.availUsed = m.availUsed[:0]
}

// maxFreeLoads bounds the lists of loads a machine keeps for reuse.
const maxFreeLoads = 256

// dropLoads empties bs, keeping its lists (256 bytes a load) for the
// next loads: a warp's loads are forgotten at every barrier and store,
// and their lists were most of the simulation's allocation.
func (m *machine) dropLoads(bs *availSet) {
	for i := range bs.ents {
		if l := bs.ents[i].list; cap(l) > 0 && len(m.loadsFree) < maxFreeLoads {
			m.loadsFree = append(m.loadsFree, l[:0])
		}
	}
	clear(bs.ents)
	bs.ents = bs.ents[:0]
	clear(bs.idx)
	bs.ranged = false
}

// availSet is the available loads of one root buffer: ents holds them by
// key, idx indexes ents (a slice, not a map: forwards scans every entry
// at a store, and a map's iteration was a tenth of an element-wise
// kernel's analysis). When ranged, every active lane of every load reads
// bytes in [lo, hi): a shared store outside that range overlaps none of
// them (forwards).
type availSet struct {
	idx    map[availKey]int32
	ents   []availEntry
	ranged bool
	lo, hi int64
	buf    *ir.Buffer // the root buffer whose loads these are
	listed bool       // in machine.availUsed
}

// availEntry is the available loads of one key. [lo, hi) holds the bytes
// the active lanes of list[:n] read (forwards extends it lazily; a load
// dropped from the list leaves it larger than need be, never smaller).
type availEntry struct {
	k      availKey
	list   []lanes
	lo, hi int64
	n      int
}

// availOf returns b's available loads, made empty when b has none.
func (m *machine) availOf(b *ir.Buffer) *availSet {
	bs := m.avail[b]
	if bs == nil {
		if m.avail == nil {
			m.avail = map[*ir.Buffer]*availSet{}
		}
		if n := len(m.availFree); n > 0 {
			bs, m.availFree = m.availFree[n-1], m.availFree[:n-1]
		} else {
			bs = &availSet{idx: map[availKey]int32{}}
		}
		bs.buf = b
		m.avail[b] = bs
	}
	return bs
}

// put adds e's addresses to the loads of key k, which are ents[i] when
// ok.
func (bs *availSet) put(m *machine, k availKey, i int32, ok bool, e *event) {
	if len(bs.ents) == 0 {
		bs.ranged = false
		if !bs.listed {
			bs.listed = true
			m.availUsed = append(m.availUsed, bs)
		}
	} else if bs.ranged {
		lo, hi := byteRange(&e.addr, e.width, e.mask)
		bs.lo, bs.hi = min(bs.lo, lo), max(bs.hi, hi)
	}
	if ok {
		bs.ents[i].list = append(bs.ents[i].list, e.addr)
		return
	}
	bs.idx[k] = int32(len(bs.ents))
	bs.ents = append(bs.ents, availEntry{k: k, list: append(m.freeLoads(), e.addr), lo: math.MaxInt64, hi: math.MinInt64})
}

// extend makes en's range cover every load of its list.
func (en *availEntry) extend() {
	for ; en.n < len(en.list); en.n++ {
		lo, hi := byteRange(&en.list[en.n], en.k.width(), en.k.mask())
		en.lo, en.hi = min(en.lo, lo), max(en.hi, hi)
	}
}

// setRange computes lo and hi from the loads.
func (bs *availSet) setRange() {
	bs.lo, bs.hi = math.MaxInt64, math.MinInt64
	for i := range bs.ents {
		en := &bs.ents[i]
		en.extend()
		bs.lo, bs.hi = min(bs.lo, en.lo), max(bs.hi, en.hi)
	}
	bs.ranged = true
}

// byteRange is the bytes [lo, hi) the lanes of mask access at a, w bytes
// a lane (lo >= hi for no lane).
func byteRange(a *lanes, w int64, mask uint32) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for i := range 32 {
		if mask&(1<<i) != 0 {
			lo, hi = min(lo, a[i]), max(hi, a[i]+w)
		}
	}
	return lo, hi
}

// freeLoads returns an empty list of loads (nil when none is kept).
func (m *machine) freeLoads() []lanes {
	n := len(m.loadsFree)
	if n == 0 {
		return nil
	}
	l := m.loadsFree[n-1]
	m.loadsFree[n-1] = nil
	m.loadsFree = m.loadsFree[:n-1]
	return l
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

// maxForwardTrips is the most iterations of the loops around a shared
// store whose value nvcc keeps in registers for the thread's later loads
// of the same bytes: a fully unrolled nest. Measured: cta_gmem_smem_regions'
// regions_thread stores U_s in an 8-iteration loop and loads it back
// after two other copies with no barrier: no LDS for U_s (the STS stay);
// its 256- and 128-iteration I_s and H_s copies (unrolled by 4, not
// fully) load every byte back with LDS.128.
const maxForwardTrips = 32

// forwards handles a shared store that nvcc can forward to the thread's
// later loads (one in a fully unrolled nest): the available loads it
// overlaps end, and its bytes become available (a later load of exactly
// them is not issued). Inline-asm st.shared/ld.shared pairs too: ptxas
// sees plain PTX (widths_cache_hints w128_shared: the vec_128b store of
// A_s[tid] and the vec_128b load of it back are STS.128 alone). It
// reports false for a store it does not handle.
func (m *machine) forwards(e *event) bool {
	if max(m.trips, 1) > maxForwardTrips {
		return false
	}
	bs := m.availOf(e.buf)
	if len(bs.ents) > 0 {
		if !bs.ranged {
			bs.setRange()
		}
		// a fully unrolled copy nest stores each chunk once: past the
		// loads' bytes, no list needs a look (the scan of every list at
		// every store was a third of cases_configs_chain's analysis),
		// nor past one key's bytes
		if lo, hi := byteRange(&e.addr, e.width, e.mask); lo < bs.hi && bs.lo < hi {
			j := 0
			for i := range bs.ents {
				en := &bs.ents[i]
				en.extend()
				if en.lo < hi && lo < en.hi {
					// in place, by index: a range over the list copied
					// each 256-byte load, kept or not
					list := en.list
					keep := list[:0]
					for i := range list {
						if !overlaps(&list[i], en.k.width(), en.k.mask(), e) {
							if len(keep) != i {
								list[len(keep)] = list[i]
							}
							keep = list[:len(keep)+1]
						}
					}
					if len(keep) == 0 {
						delete(bs.idx, en.k)
						if len(m.loadsFree) < maxFreeLoads {
							m.loadsFree = append(m.loadsFree, keep)
						}
						continue
					}
					en.list, en.n = keep, len(keep)
				}
				if j != i {
					bs.ents[j] = *en
					bs.idx[en.k] = int32(j)
				}
				j++
			}
			clear(bs.ents[j:])
			bs.ents = bs.ents[:j]
		}
	}
	k := keyOf(e)
	i, ok := bs.idx[k]
	bs.put(m, k, i, ok, e)
	return true
}

// overlaps reports whether a lane of both masks accesses bytes of a (w
// bytes a lane) that e writes.
func overlaps(a *lanes, w int64, mask uint32, e *event) bool {
	both := mask & e.mask
	for i := range 32 {
		if both&(1<<i) != 0 && a[i] < e.addr[i]+e.width && e.addr[i] < a[i]+w {
			return true
		}
	}
	return false
}

// redundantPeek reports whether redundant would find load e available,
// changing nothing.
func (m *machine) redundantPeek(e *event) bool {
	if len(m.ghosts) > 0 {
		m.materializeAll(e.buf)
	}
	k := keyOf(e)
	var as []lanes
	if bs := m.avail[e.buf]; bs != nil {
		if i, ok := bs.idx[k]; ok {
			as = bs.ents[i].list
		}
	}
	for i := range as {
		if as[i] == e.addr {
			return true
		}
	}
	return false
}
