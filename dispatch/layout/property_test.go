package layout

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// source yields small choices; property tests draw from math/rand, the fuzz
// target from its input bytes.
type source interface{ intn(n int) int }

type randSource struct{ r *rand.Rand }

func (s randSource) intn(n int) int { return s.r.IntN(n) }

type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) intn(n int) int {
	if s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i])
	s.i++
	return v % n
}

func pick[T any](s source, xs ...T) T { return xs[s.intn(len(xs))] }

var genAxes = []*Axis{M, M, M, Laneid, Warpid, WidInWG, TidInWG, Wgid, TCol}

// genTile draws a small TileLayout; memOnly restricts it to axis m.
func genTile(s source, memOnly bool) *TileLayout {
	axis := func() *Axis {
		if memOnly {
			return M
		}
		return pick(s, genAxes...)
	}
	t := &TileLayout{Offset: map[*Axis]int64{}}
	for range 1 + s.intn(4) {
		t.Shard = append(t.Shard, Iter{pick[int64](s, 1, 2, 3, 4, 8, 2, 4), pick[int64](s, 1, 2, 4, 8, 16, 64, 100, 0, 3, -1), axis()})
	}
	for range s.intn(3) / 2 {
		t.Replica = append(t.Replica, Iter{pick[int64](s, 2, 3), pick[int64](s, 1, 4, 32), axis()})
	}
	for range s.intn(3) {
		t.Offset[axis()] += pick[int64](s, 0, 1, 5, 32, -2)
	}
	return t
}

func genLayout(s source) Layout {
	if s.intn(4) == 0 {
		p, sw := s.intn(4), s.intn(4)
		at := sw + s.intn(3)
		t := genTile(s, true)
		if s.intn(3) == 0 {
			t = RowMajor(int64(1) << (p + sw + at))
		}
		return &ComposeLayout{PerElement: p, SwizzleLen: sw, AtomLen: at, SwizzleInner: s.intn(4) != 0, Tile: t}
	}
	return genTile(s, false)
}

// genShape factors n into 1..3 dims.
func genShape(s source, n int64) []int64 {
	var shape []int64
	for range s.intn(3) {
		var divs []int64
		for d := int64(1); d <= n; d++ {
			if n%d == 0 {
				divs = append(divs, d)
			}
		}
		d := divs[s.intn(len(divs))]
		shape = append(shape, d)
		n /= d
	}
	return append(shape, n)
}

func genRegion(s source, shape []int64) [][2]int64 {
	r := make([][2]int64, len(shape))
	for d, e := range shape {
		b := int64(s.intn(int(e)))
		r[d] = [2]int64{b, b + 1 + int64(s.intn(int(e-b)))}
	}
	return r
}

// nz drops zero entries: an axis absent from an Apply result reads as 0.
func nz(m map[*Axis]int64) map[*Axis]int64 {
	out := map[*Axis]int64{}
	for a, v := range m {
		if v != 0 {
			out[a] = v
		}
	}
	return out
}

// project rewrites an Apply result of l onto the axes Canonicalize(l, true)
// fuses to: fusion is linear in the stride, so it maps values the same way.
func project(l *TileLayout, m map[*Axis]int64) map[*Axis]int64 {
	stripped := &TileLayout{Replica: l.Replica, Offset: map[*Axis]int64{}}
	for _, it := range l.Shard {
		if it.Extent != 1 {
			stripped.Shard = append(stripped.Shard, it)
		}
	}
	if len(stripped.Shard) == 0 && len(l.Shard) > 0 {
		stripped.Shard = []Iter{{1, 1, l.Shard[0].Axis}}
	}
	for a, v := range l.Offset {
		if v != 0 {
			stripped.Offset[a] = v
		}
	}
	inner, outer, ok, err := GetScope(stripped)
	if !ok || err != nil {
		return nz(m)
	}
	out := map[*Axis]int64{}
	for a, v := range m {
		f := fuse(Iter{1, v, a}, inner, outer)
		out[f.Axis] += f.Stride
	}
	return nz(out)
}

func coords(shape []int64, f func(c []int64) bool) {
	c := make([]int64, len(shape))
	for {
		if !f(c) {
			return
		}
		d := len(shape) - 1
		for ; d >= 0; d-- {
			c[d]++
			if c[d] < shape[d] {
				break
			}
			c[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// checkProperties verifies the algebra's laws on one layout; it returns the
// first violation.
func checkProperties(l Layout, s source) error {
	t := tileOf(l)
	size := Size(l, nil)
	memTile := t.IsMemoryOnly()
	if _, ok := l.(*ComposeLayout); ok && !memTile {
		return nil
	}
	// String/Parse round trip.
	back, err := Parse(l.String())
	if err != nil || !Equal(back, l) {
		return fmt.Errorf("round trip of %s: %s", l, show(back, err))
	}
	canon := Canonicalize(l, true)
	if back, err := Parse(canon.String()); err != nil || !Equal(back, canon) {
		return fmt.Errorf("round trip of canonical %s: %s", canon, show(back, err))
	}
	// Idempotent, except that a lone unit iter is re-created with stride 1
	// after fusion scaled it (as in TVM).
	if again := Canonicalize(canon, true); !Equal(again, canon) && Size(canon, nil) != 1 {
		return fmt.Errorf("canonicalize of %s not idempotent: %s then %s", l, canon, again)
	}
	// ApplyAxis is Apply's value on one axis, past the size too.
	for x := range size + 3 {
		whole := t.Apply(x)
		for _, a := range genAxes {
			if got, want := t.ApplyAxis(x, a), whole[a]; got != want {
				return fmt.Errorf("%s.ApplyAxis(%d, %s) = %d, Apply gives %d", t, x, a, got, want)
			}
		}
	}
	// an AxisRun steps through the same values, from below 0 too
	for _, a := range []*Axis{M, Laneid, TCol} {
		r := NewAxisRun(t, a)
		for _, start := range []int64{0, -3, size / 2} {
			r.Reset(start)
			for x := start; x < size+3; x++ {
				if got, want := r.Value(), t.ApplyAxis(x, a); got != want {
					return fmt.Errorf("%s: AxisRun from %d at %d on %s = %d, ApplyAxis gives %d", t, start, x, a, got, want)
				}
				r.Next()
			}
		}
	}
	// Canonicalize preserves Apply (exactly without fusion; through the
	// fusion projection with it).
	raw := Canonicalize(l, false)
	ct := tileOf(canon)
	for x := range size {
		want := nz(l.Apply(x))
		if got := nz(raw.Apply(x)); !maps.Equal(got, want) {
			return fmt.Errorf("Canonicalize(%s, false) = %s differs at %d: %s vs %s", l, raw, x, showMap(got), showMap(want))
		}
		if got, want := nz(canon.Apply(x)), project(t, l.Apply(x)); !maps.Equal(got, want) {
			return fmt.Errorf("Canonicalize(%s) = %s differs at %d: %s vs %s", l, canon, x, showMap(got), showMap(want))
		}
	}
	if c, ok := l.(*ComposeLayout); ok {
		for x := range size {
			if got, want := c.Apply(x)[M], c.SwizzleAddr(c.Tile.Apply(x)[M]); got != want {
				return fmt.Errorf("%s.Apply(%d) = %d, want %d", c, x, got, want)
			}
		}
		seen := map[int64]bool{}
		for m := range c.Period() {
			a := c.SwizzleAddr(m)
			if a < 0 || a >= c.Period() || seen[a] {
				return fmt.Errorf("%s: swizzle is not a permutation of its period at %d", c, m)
			}
			seen[a] = true
		}
	}
	shape := genShape(s, size)
	// Group: same mapping, groups multiply to the shape; group-first apply
	// equals flatten+split.
	if g, seps, ok := TryGroup(t, shape); ok {
		for d := range shape {
			if p := prod(g.Extents()[seps[d]:seps[d+1]]); p != shape[d] {
				return fmt.Errorf("Group(%s, %v) = %s: group %d has size %d", t, shape, g, d, p)
			}
		}
		for x := range size {
			if got, want := nz(g.Apply(x)), nz(t.Apply(x)); !maps.Equal(got, want) {
				return fmt.Errorf("Group(%s, %v) = %s differs at %d", t, shape, g, x)
			}
		}
	}
	var bad error
	applyM := ShapeApplier(l, shape, M)
	coords(shape, func(c []int64) bool {
		got, want := nz(ApplyShape(l, c, shape)), nz(l.Apply(FlattenCoord(c, shape)))
		if !maps.Equal(got, want) {
			bad = fmt.Errorf("ApplyShape(%s, %v, %v) = %s, flatten gives %s", l, c, shape, showMap(got), showMap(want))
		}
		if m := applyM(c); bad == nil && m != ApplyShape(l, c, shape)[M] {
			bad = fmt.Errorf("ShapeApplier(%s, %v, m)(%v) = %d, ApplyShape gives %s", l, shape, c, m, showMap(got))
		}
		for a := range got {
			if n := ShapeApplier(l, shape, a)(c); bad == nil && n != got[a] {
				bad = fmt.Errorf("ShapeApplier(%s, %v, %s)(%v) = %d, ApplyShape gives %s", l, shape, a, c, n, showMap(got))
			}
		}
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	// GroupMany: a refinement with the same mapping.
	shape2 := genShape(s, size)
	if g, seps, err := GroupMany(t, [][]int64{shape, shape2}); err == nil {
		for si, sh := range [][]int64{shape, shape2} {
			for d := range sh {
				if p := prod(g.Extents()[seps[si][d]:seps[si][d+1]]); p != sh[d] {
					return fmt.Errorf("GroupMany(%s, %v, %v) = %s %v: shape %d group %d has size %d", t, shape, shape2, g, seps, si, d, p)
				}
			}
		}
		for x := range size {
			if got, want := nz(g.Apply(x)), nz(t.Apply(x)); !maps.Equal(got, want) {
				return fmt.Errorf("GroupMany(%s, %v, %v) = %s differs at %d", t, shape, shape2, g, x)
			}
		}
	}
	// Slice: every element of the region maps like the canonical layout at
	// the shifted coordinate.
	region := genRegion(s, shape)
	sl, err := Slice(l, shape, region)
	// Ill-formed scopes skip global fusion but SlicePerGroup may still fuse
	// one group (as in TVM); only well-formed layouts obey the law.
	_, _, _, scopeErr := GetScope(l)
	if err == nil && sl != nil && scopeErr == nil {
		rshape := make([]int64, len(shape))
		for d, r := range region {
			rshape[d] = r[1] - r[0]
		}
		if got := Size(sl, nil); got != prod(rshape) {
			return fmt.Errorf("Slice(%s, %v, %v) = %s has size %d", l, shape, region, sl, got)
		}
		ref := canon
		if c, ok := l.(*ComposeLayout); ok && isTrivialRaw(c.Tile) {
			cc := *c
			cc.Tile = Identity(shape)
			ref = &cc
		}
		coords(rshape, func(c []int64) bool {
			shifted := make([]int64, len(c))
			for d := range c {
				shifted[d] = c[d] + region[d][0]
			}
			got, want := nz(ApplyShape(sl, c, rshape)), nz(ApplyShape(ref, shifted, shape))
			if !maps.Equal(got, want) {
				bad = fmt.Errorf("Slice(%s, %v, %v) = %s: at %v got %s, want %s", l, shape, region, sl, c, showMap(got), showMap(want))
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
		if st, ok := sl.(*TileLayout); ok && !itersEqual(st.Replica, ct.Replica) {
			return fmt.Errorf("Slice(%s) = %s changed the replica", l, sl)
		}
	}
	// Tile (memory-only TileLayouts): tiled(o·inner + i) = outer(o)·span + inner(i).
	if it, ok := l.(*TileLayout); ok && memTile {
		outer := genTile(s, true)
		if Size(outer, nil)*size > 4096 {
			return nil
		}
		oshape := genShape(s, Size(outer, nil))
		ishape := genShape(s, size)
		for len(oshape) < len(ishape) {
			oshape = append([]int64{1}, oshape...)
		}
		for len(ishape) < len(oshape) {
			ishape = append([]int64{1}, ishape...)
		}
		tl, err := Tile(it, outer, oshape, ishape)
		if err != nil {
			return nil
		}
		// Outer strides scale by inner's span on m only if inner's shard
		// uses m (TVM BuildSpanMap).
		span := int64(1)
		for _, x := range CanonicalTile(it).Shard {
			if x.Axis == M {
				span = SpanOf(CanonicalTile(it), M)
			}
		}
		full := make([]int64, len(oshape))
		for d := range full {
			full[d] = oshape[d] * ishape[d]
		}
		coords(full, func(c []int64) bool {
			o, i := make([]int64, len(c)), make([]int64, len(c))
			for d := range c {
				o[d], i[d] = c[d]/ishape[d], c[d]%ishape[d]
			}
			om := ApplyShape(outer, o, oshape)[M] - outer.Offset[M]
			want := om*span + outer.Offset[M] + ApplyShape(it, i, ishape)[M]
			if got := ApplyShape(tl, c, full)[M]; got != want {
				bad = fmt.Errorf("Tile(%s, %s, %v, %v) = %s: at %v got %d want %d", it, outer, oshape, ishape, tl, c, got, want)
			}
			return bad == nil
		})
		return bad
	}
	return nil
}

func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		s := randSource{r}
		l := genLayout(s)
		if err := checkProperties(l, s); err != nil {
			t.Fatal(err)
		}
	}
}
