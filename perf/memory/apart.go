package memory

import (
	"math/bits"

	"github.com/tilels/tilels/ir"
)

// Kernels carve one shared allocation into views (T.decl_buffer at an
// element offset): rmsnorm.py's x_smem and sum_sq_smem share one dynamic
// buffer, a GEMM's stage tiles, its epilogue tile and its mbarriers
// another. From warp to warp their accesses move by different amounts
// (a warp's tile rows move by a row block, its barrier or partial sum by
// a word or not at all), which the warp proof's rule of one shift per
// shared root refused: two accesses that move by different amounts may
// meet in one warp (a redundant load, a forwarded store, two stores
// merged into one wider one) and not in the next.
//
// The proof may instead give each view of a root its own shift (one per
// view in each segment between barriers, any across them: rmsnorm.py's
// partial sums move by a word a warp where each warp writes its own and
// by nothing where all read the first); the root is then split, and the
// run of warps is counted as translations only when the machine,
// executing the run's first warp, finds that views that move by
// different shifts keep apart in every warp of the run: no 16-byte chunk
// holds bytes of two of them.
// Merged runs lie within one 16-byte chunk, and redundant loads and
// forwarded stores meet only overlapping bytes, so views that never
// share a chunk never meet, and each view's own accesses move together.
// The machine keeps, per view, the hull of the bytes the executed warp's
// accesses touch (a skipped loop unit extends it by the units' shift:
// the hull holds the skipped accesses too, which are translations of the
// executed unit's); warp start+j's hull is the executed one stretched by
// j times the view's least and greatest shifts. When a hull meets
// another's, or an access names a view the proof did not see, the run's
// other warps are executed. In a run whose warps are translations of
// the warp a period before (2 or 4), each residue's executed warp keeps
// its hulls, and the check covers that residue's warps: one residue may
// execute its warps while the other counts as translations.
// TestDedupViews, TestDedupViewsPeriod and TestDedupBarrierSegments have
// one kernel per case.

// apartCheck collects the executed warp's hulls of the split roots'
// views (machine.apart while a run's first warp executes).
type apartCheck struct {
	views map[*ir.Buffer]shiftSpan // view -> bytes per warp
	roots map[*ir.Buffer]bool      // the split roots
	hulls map[*ir.Buffer]byteHull
	bad   bool // an access of a split root with no view shift
	// all is set while the first warp of a run not proven yet executes:
	// every shared view's hull is kept, and settle then checks those of
	// the roots the proof splits; viewless holds the shared roots that
	// an access reached with no view.
	all      bool
	viewless map[*ir.Buffer]bool
	// skips counts the skipped calls (loops.go: an inner loop's skip
	// inside a unit)
	skips int
	// oneLane holds the global roots whose events must each be one
	// lane's 16 aligned bytes (a run's shiftProof.oneLane; every global
	// root while collecting), manyLanes those with one that is not
	oneLane, manyLanes map[*ir.Buffer]bool
}

// newApartCollect returns a check that keeps every shared view's hull,
// for a proof made after the warp executed (settle).
func newApartCollect() *apartCheck {
	return &apartCheck{hulls: map[*ir.Buffer]byteHull{}, all: true, viewless: map[*ir.Buffer]bool{}}
}

// settle gives a collecting check the views the proof split roots by.
func (a *apartCheck) settle(views map[*ir.Buffer]shiftSpan) {
	a.all, a.views, a.roots = false, views, map[*ir.Buffer]bool{}
	for v := range views {
		a.roots[rootOf(v)] = true
	}
	for r := range a.viewless {
		if a.roots[r] {
			a.bad = true
		}
	}
	for v := range a.hulls {
		if _, ok := views[v]; !ok && a.roots[rootOf(v)] {
			a.bad = true // a view of a split root the proof did not see
		}
	}
}

// byteHull is the bytes [lo, hi) a view's accesses touched (set: any did).
type byteHull struct {
	lo, hi int64
	set    bool
}

func newApartCheck(views map[*ir.Buffer]shiftSpan) *apartCheck {
	a := &apartCheck{views: views, roots: map[*ir.Buffer]bool{}, hulls: make(map[*ir.Buffer]byteHull, len(views))}
	for v := range views {
		a.roots[rootOf(v)] = true
	}
	return a
}

// note adds e's bytes to its view's hull.
func (a *apartCheck) note(e *event) {
	if e.buf != nil && scopeOf(e.buf) == "global" && (a.all || a.oneLane[e.buf]) && !oneLane16(e) {
		if a.manyLanes == nil {
			a.manyLanes = map[*ir.Buffer]bool{}
		}
		a.manyLanes[e.buf] = true
	}
	switch {
	case e.buf == nil:
		return
	case a.all:
		if scopeOf(e.buf) != "shared" {
			return
		}
		if e.view == nil {
			a.viewless[e.buf] = true
			return
		}
	case !a.roots[e.buf]:
		return
	default:
		if _, ok := a.views[e.view]; !ok || e.view == nil {
			a.bad = true
			return
		}
	}
	if e.k == tma {
		a.bad = true // (no addresses: never a split root's)
		return
	}
	a.hulls[e.view] = a.hulls[e.view].with(e, 0)
}

// with returns h grown by the bytes e's lanes touch, moved by d bytes.
func (h byteHull) with(e *event, d int64) byteHull {
	n := e.width
	switch e.k {
	case ldmatrix, stmatrix:
		n = 16 // a lane's address is one 16-byte row
	case cpAsync:
		n = e.bytes
	}
	for l := range 32 {
		if e.mask&(1<<l) == 0 {
			continue
		}
		lo, hi := e.addr[l]+d, e.addr[l]+d+max(n, 1)
		if !h.set {
			h = byteHull{lo, hi, true}
			continue
		}
		h.lo, h.hi = min(h.lo, lo), max(h.hi, hi)
	}
	return h
}

// skipped extends the hulls by k loop units after the unit whose events
// are unit, the j-th moving each root by j times shift[root] bytes (a
// root absent from shift: the loop does not touch it; noShift: the
// units do not translate it, and nothing is proven). Only the views the
// unit accesses grow, by the unit's own bytes moved: a view the loop
// does not touch keeps its hull (sparse_prefill's mask words and
// exchange buffer, carved from the pool that a loop's stores to another
// view move by 512 bytes a unit, grew with every skip until they met).
// When an inner loop skipped units inside the unit (nested), the
// unit's events do not hold the bytes of those, and every view of a
// root the loop moves is stretched by k shifts instead.
func (a *apartCheck) skipped(shift map[*ir.Buffer]int64, k int64, unit []event, nested bool) {
	a.skips++
	if nested {
		for v, h := range a.hulls {
			s, ok := shift[rootOf(v)]
			if !ok || !h.set {
				continue
			}
			if s == noShift {
				a.bad = true
				return
			}
			if s > 0 {
				h.hi += s * k
			} else {
				h.lo += s * k
			}
			a.hulls[v] = h
		}
		return
	}
	for i := range unit {
		e := &unit[i]
		if e.buf == nil || e.view == nil || e.k == tma {
			continue
		}
		h, ok := a.hulls[e.view]
		if !ok || !h.set {
			continue // (not a view the check keeps)
		}
		s, ok := shift[e.buf]
		if !ok {
			continue
		}
		if s == noShift {
			a.bad = true
			return
		}
		a.hulls[e.view] = h.with(e, s).with(e, s*k)
	}
}

// apartIn reports whether the views that move by different shifts keep
// to disjoint 16-byte chunks in warps start+0 .. start+n-1.
func (a *apartCheck) apartIn(n int64) bool {
	if a.bad {
		return false
	}
	type span struct {
		v  *ir.Buffer
		h  byteHull
		sh shiftSpan
	}
	var ss []span
	for v, sh := range a.views {
		if h := a.hulls[v]; h.set {
			ss = append(ss, span{v, h, sh})
		}
	}
	for i := range ss {
		for j := i + 1; j < len(ss); j++ {
			x, y := ss[i], ss[j]
			if x.sh.lo == x.sh.hi && x.sh == y.sh || rootOf(x.v) != rootOf(y.v) {
				continue // they move together
			}
			// warp w's hull: the bytes moved by w times each shift the
			// view moves by in one of its segments
			for w := range n {
				x0, x1 := floorDiv(x.h.lo+w*x.sh.lo, 16), floorDiv(x.h.hi-1+w*x.sh.hi, 16)
				y0, y1 := floorDiv(y.h.lo+w*y.sh.lo, 16), floorDiv(y.h.hi-1+w*y.sh.hi, 16)
				if x0 <= y1 && y0 <= x1 {
					return false
				}
			}
		}
	}
	return true
}

// oneLane16 reports whether e is a global load or store by one lane of
// 16 bytes at an address aligned to 16: one request of one sector,
// never misaligned, wherever a multiple of 16 bytes moves it (and
// nothing merges into it: 16 bytes is the widest access).
func oneLane16(e *event) bool {
	if (e.k != globalLoad && e.k != globalStore) || bits.OnesCount32(e.mask) != 1 || e.width != 16 {
		return false
	}
	return e.addr[bits.TrailingZeros32(e.mask)]%16 == 0
}

// oneLaneOK reports whether every event of the roots (a run's
// shiftProof.oneLane) was one lane's 16 aligned bytes in the warp the
// check saw (nil: none to check).
func (a *apartCheck) oneLaneOK(roots []*ir.Buffer) bool {
	if len(roots) == 0 {
		return true
	}
	if a == nil {
		return false
	}
	for _, r := range roots {
		if a.manyLanes[r] || !a.all && !a.oneLane[r] {
			return false
		}
	}
	return true
}
