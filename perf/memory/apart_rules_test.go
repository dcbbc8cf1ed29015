package memory

import (
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestApartRules checks apartCheck on hand-made hulls: views that move
// by different shifts meet when their 16-byte chunks do in some warp of
// the run, and a skipped loop unit extends a view's hull by the units'
// shift (a pipeline whose stage alternates leaves its largest address in
// a skipped unit, not in the iterations executed after the skip).
func TestApartRules(t *testing.T) {
	root := &ir.Buffer{Name: "buf", Scope: "shared"}
	x := &ir.Buffer{Name: "X", Scope: "shared", Base: root}
	y := &ir.Buffer{Name: "Y", Scope: "shared", Base: root, ElemOffset: 100}
	ev := func(v *ir.Buffer, addr, width int64) *event {
		e := &event{k: sharedStore, mask: 1, width: width, buf: root, view: v}
		e.addr[0] = addr
		return e
	}
	for _, c := range []struct {
		name   string
		xs, ys int64 // bytes per warp
		x, y   [2]int64
		skipK  int64 // units of 32 bytes skipped (x's root)
		warps  int64
		apart  bool
	}{
		{"apart in every warp", 512, 4, [2]int64{0, 496}, [2]int64{4096, 4128}, 0, 8, true},
		{"meet in warp 7", 512, 4, [2]int64{0, 496}, [2]int64{3600, 3632}, 0, 8, false},
		{"apart over 7 warps", 512, 4, [2]int64{0, 496}, [2]int64{3600, 3632}, 0, 7, true},
		{"one 16-byte chunk", 0, 4, [2]int64{0, 4}, [2]int64{12, 16}, 0, 2, false},
		{"chunks apart", 0, 16, [2]int64{0, 12}, [2]int64{16, 20}, 0, 2, true},
		{"a skipped unit reaches Y", 0, 4, [2]int64{0, 428}, [2]int64{496, 500}, 6, 2, false},
		{"the skipped units stop short", 0, 4, [2]int64{0, 428}, [2]int64{640, 644}, 6, 2, true},
	} {
		a := newApartCheck(map[*ir.Buffer]shiftSpan{x: {lo: c.xs, hi: c.xs}, y: {lo: c.ys, hi: c.ys}})
		a.note(ev(x, c.x[0], 4))
		a.note(ev(x, c.x[1], 4))
		a.note(ev(y, c.y[0], 4))
		a.note(ev(y, c.y[1], 4))
		if c.skipK > 0 {
			unit := []event{*ev(x, c.x[0], 4), *ev(x, c.x[1], 4)}
			a.skipped(map[*ir.Buffer]int64{root: 32}, c.skipK, unit, false)
		}
		if got := a.apartIn(c.warps); got != c.apart {
			t.Errorf("%s: apart %v, want %v (hulls %v)", c.name, got, c.apart, a.hulls)
		}
	}
	// a view that moves by 0 in one segment and by 16 bytes in another:
	// warp w's hull reaches 16 w bytes further (X, at 0..32 in warp 0,
	// reaches Y at 128 in warp 7, not in warp 6); one that moves by 0
	// and 4 keeps to its chunk as Y does not move
	for _, c := range []struct {
		name  string
		span  shiftSpan
		warps int64
		apart bool
	}{
		{"a span reaches Y in warp 7", shiftSpan{lo: 0, hi: 16}, 8, false},
		{"a span apart over 7 warps", shiftSpan{lo: 0, hi: 16}, 7, true},
		{"a span moving down", shiftSpan{lo: -16, hi: 0}, 8, true},
	} {
		a := newApartCheck(map[*ir.Buffer]shiftSpan{x: c.span, y: {}})
		a.note(ev(x, 0, 4))
		a.note(ev(x, 28, 4))
		a.note(ev(y, 128, 4))
		if got := a.apartIn(c.warps); got != c.apart {
			t.Errorf("%s: apart %v, want %v (hulls %v)", c.name, got, c.apart, a.hulls)
		}
	}
	// an access of a split root through a view the proof did not see
	a := newApartCheck(map[*ir.Buffer]shiftSpan{x: {}, y: {lo: 4, hi: 4}})
	a.note(ev(&ir.Buffer{Name: "Z", Scope: "shared", Base: root}, 0, 4))
	if a.apartIn(2) {
		t.Error("an unknown view: apart")
	}
	// a loop unit that moves the root by several shifts
	a = newApartCheck(map[*ir.Buffer]shiftSpan{x: {}, y: {lo: 4, hi: 4}})
	a.note(ev(x, 0, 4))
	a.skipped(map[*ir.Buffer]int64{root: noShift}, 3, []event{*ev(x, 0, 4)}, false)
	if a.apartIn(2) {
		t.Error("a skipped unit with no shift: apart")
	}
	// a view the skipped units do not access keeps its hull: Y (at 64)
	// stretched by the two units' 64 bytes would reach W (at 120), which
	// moves by another shift from warp to warp; an inner loop's skip
	// inside the unit (nested) leaves the unit's events short of its
	// bytes, and every view of the root is stretched
	w := &ir.Buffer{Name: "W", Scope: "shared", Base: root, ElemOffset: 200}
	for _, nested := range []bool{false, true} {
		a = newApartCheck(map[*ir.Buffer]shiftSpan{x: {}, y: {}, w: {lo: 4, hi: 4}})
		a.note(ev(x, 0, 4))
		a.note(ev(y, 64, 4))
		a.note(ev(w, 120, 4))
		a.skipped(map[*ir.Buffer]int64{root: 32}, 2, []event{*ev(x, 0, 4)}, nested)
		if got := a.apartIn(2); got == nested {
			t.Errorf("nested %v: apart %v (hulls %v)", nested, got, a.hulls)
		}
		if h := a.hulls[x]; h.lo != 0 || h.hi != 68 {
			t.Errorf("nested %v: X's hull %v, want [0, 68)", nested, h)
		}
	}
}
