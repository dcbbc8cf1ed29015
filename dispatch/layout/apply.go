package layout

import "fmt"

// floorDiv and floorMod are TVM's floordiv/floormod (round towards −∞).
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m != 0 && ((m < 0) != (b < 0)) {
		m += b
	}
	return m
}

// SplitCoord splits a linear index into mixed-radix digits over exts, last
// extent fastest; the first digit is not reduced modulo its extent (§2.4).
func SplitCoord(x int64, exts []int64) []int64 {
	c := make([]int64, len(exts))
	for i := len(exts) - 1; i >= 0; i-- {
		if i == 0 {
			c[0] = x
			break
		}
		c[i] = floorMod(x, exts[i])
		x = floorDiv(x, exts[i])
	}
	return c
}

// FlattenCoord is the row-major linear index of coord in shape (§2.4).
func FlattenCoord(coord, shape []int64) int64 {
	var f int64
	for i, c := range coord {
		f = f*shape[i] + c
	}
	return f
}

// Apply maps a coordinate through l (§2.4): one linear index, or one digit
// per shard iter. The result holds every shard axis and every offset axis.
// It panics when len(coord) is neither 1 nor len(l.Shard).
func (l *TileLayout) Apply(coord ...int64) map[*Axis]int64 {
	if len(coord) != len(l.Shard) {
		if len(coord) != 1 {
			panic(fmt.Sprintf("layout: Apply got %d coordinates for %d shard iters", len(coord), len(l.Shard)))
		}
		coord = SplitCoord(coord[0], l.Extents())
	}
	res := make(map[*Axis]int64, len(l.Shard)+len(l.Offset))
	for i, it := range l.Shard {
		res[it.Axis] += coord[i] * it.Stride
	}
	for a, v := range l.Offset {
		res[a] += v
	}
	return res
}

// ApplyAxis is Apply(x)[a] for one linear index x, without the map
// (gemm_async's atom match applies a shared tile to each of its elements:
// a map per element was 57 % of a keystroke's analysis of FlashMLA's
// sparse_prefill_head128_phase1.py).
func (l *TileLayout) ApplyAxis(x int64, a *Axis) int64 {
	var r int64
	for i := len(l.Shard) - 1; i >= 0; i-- {
		it := l.Shard[i]
		d := x // the first digit keeps what is left (SplitCoord)
		if i > 0 {
			d = floorMod(x, it.Extent)
			x = floorDiv(x, it.Extent)
		}
		if it.Axis == a {
			r += d * it.Stride
		}
	}
	return r + l.Offset[a]
}

// AxisRun is ApplyAxis over consecutive linear indices: Reset(x), then
// Value is ApplyAxis(x, a) and Next moves to x+1, carrying the digits
// instead of dividing for each index (tryAtom walks a shared tile's rows
// this way). The zero AxisRun is unusable; make one with NewAxisRun.
type AxisRun struct {
	t      *TileLayout
	a      *Axis
	digits []int64
	val    int64
	x      int64
	plain  bool // an extent is not positive: ApplyAxis at each index
}

// NewAxisRun returns a run of t's values on axis a, at index 0.
func NewAxisRun(t *TileLayout, a *Axis) *AxisRun {
	r := &AxisRun{t: t, a: a, digits: make([]int64, len(t.Shard))}
	for _, it := range t.Shard[min(1, len(t.Shard)):] {
		r.plain = r.plain || it.Extent <= 0
	}
	r.Reset(0)
	return r
}

// Reset moves the run to index x.
func (r *AxisRun) Reset(x int64) {
	r.x, r.val = x, r.t.ApplyAxis(x, r.a)
	if r.plain {
		return
	}
	for i := len(r.t.Shard) - 1; i >= 0; i-- {
		if i == 0 {
			r.digits[0] = x
			break
		}
		r.digits[i] = floorMod(x, r.t.Shard[i].Extent)
		x = floorDiv(x, r.t.Shard[i].Extent)
	}
}

// Value is ApplyAxis at the run's index.
func (r *AxisRun) Value() int64 { return r.val }

// Next moves the run to the next index.
func (r *AxisRun) Next() {
	r.x++
	if r.plain {
		r.val = r.t.ApplyAxis(r.x, r.a)
		return
	}
	for i := len(r.t.Shard) - 1; i >= 0; i-- {
		it := &r.t.Shard[i]
		r.digits[i]++
		if it.Axis == r.a {
			r.val += it.Stride
		}
		if i == 0 || r.digits[i] < it.Extent {
			return
		}
		r.digits[i] = 0 // carry
		if it.Axis == r.a {
			r.val -= it.Extent * it.Stride
		}
	}
}

// Apply maps a coordinate through the tile and swizzles its "m" output
// (§2.9). Multi-digit coordinates (one per tile shard iter) are accepted
// too, which TVM leaves unimplemented. It panics when the tile maps to an
// axis other than "m" (NewCompose and Parse reject such tiles).
func (c *ComposeLayout) Apply(coord ...int64) map[*Axis]int64 {
	r := c.Tile.Apply(coord...)
	m := r[M]
	if len(r) > 1 || len(r) == 1 && !hasKey(r, M) {
		panic("layout: ComposeLayout tile must map only to axis m, got " + c.Tile.String())
	}
	return map[*Axis]int64{M: c.SwizzleAddr(m)}
}

func hasKey(m map[*Axis]int64, a *Axis) bool { _, ok := m[a]; return ok }

// ApplyShape maps coord, interpreted against the logical shape, through l
// (§2.4, TVM Layout.apply(*coord, shape=...)). For a TileLayout it tries
// Group(l, shape) and splits each coord[d] against its own group's extents,
// else flattens and splits against the shard extents; both give the same
// numbers for in-range coordinates. A ComposeLayout flattens first. It
// panics when len(coord) != len(shape).
func ApplyShape(l Layout, coord, shape []int64) map[*Axis]int64 {
	if len(coord) != len(shape) {
		panic(fmt.Sprintf("layout: ApplyShape got %d coordinates for shape of rank %d", len(coord), len(shape)))
	}
	if t, ok := l.(*TileLayout); ok {
		if digits, g, ok := digitsByGroup(t, coord, shape); ok {
			return g.Apply(digits...)
		}
	}
	return l.Apply(FlattenCoord(coord, shape))
}

// ShapeApplier returns the function coord -> ApplyShape(l, coord,
// shape)[a], with the grouping of l against shape done once and no map
// per coordinate, for callers that apply one layout to many coordinates
// of one shape (a swizzle's per-thread offsets): grouping again per
// coordinate was 8 % of `tilels --lower` on the 3,000-line benchmark
// file. The function it returns is not safe for concurrent use; it
// panics like ApplyShape.
func ShapeApplier(l Layout, shape []int64, a *Axis) func(coord []int64) int64 {
	if t, ok := l.(*TileLayout); ok {
		if g, seps, ok := TryGroup(t, shape); ok {
			exts := g.Extents()
			digits := make([]int64, len(g.Shard))
			off := g.Offset[a]
			return func(coord []int64) int64 {
				if len(coord) != len(shape) {
					panic(fmt.Sprintf("layout: ApplyShape got %d coordinates for shape of rank %d", len(coord), len(shape)))
				}
				for d := range shape {
					splitCoordInto(digits[seps[d]:seps[d+1]], coord[d], exts[seps[d]:seps[d+1]])
				}
				r := off
				for i, it := range g.Shard {
					if it.Axis == a {
						r += digits[i] * it.Stride
					}
				}
				return r
			}
		}
	}
	return func(coord []int64) int64 { return ApplyShape(l, coord, shape)[a] }
}

// splitCoordInto is SplitCoord(x, exts) written into c (len(exts)).
func splitCoordInto(c []int64, x int64, exts []int64) {
	for i := len(exts) - 1; i >= 0; i-- {
		if i == 0 {
			c[0] = x
			break
		}
		c[i] = floorMod(x, exts[i])
		x = floorDiv(x, exts[i])
	}
}

// DigitsForShape returns, for each shard iter of the grouped layout, the
// digit that iter takes when coord is interpreted against shape, plus the
// grouped layout those digits index (TVM Layout.apply_to_shape). When
// grouping fails it falls back to flatten+split against l's own shard and
// returns l itself.
func DigitsForShape(l *TileLayout, coord, shape []int64) ([]int64, *TileLayout) {
	if d, g, ok := digitsByGroup(l, coord, shape); ok {
		return d, g
	}
	return SplitCoord(FlattenCoord(coord, shape), l.Extents()), l
}

func digitsByGroup(l *TileLayout, coord, shape []int64) ([]int64, *TileLayout, bool) {
	g, seps, ok := TryGroup(l, shape)
	if !ok {
		return nil, nil, false
	}
	digits := make([]int64, len(g.Shard))
	exts := g.Extents()
	for d := range shape {
		if seps[d] == seps[d+1] {
			continue
		}
		copy(digits[seps[d]:seps[d+1]], SplitCoord(coord[d], exts[seps[d]:seps[d+1]]))
	}
	return digits, g, true
}

// Size is the product of the shard extents on axis, or of all shard
// extents when axis is nil (§2.4). A ComposeLayout answers for its tile.
func Size(l Layout, axis *Axis) int64 {
	t := tileOf(l)
	n := int64(1)
	for _, it := range t.Shard {
		if axis == nil || it.Axis == axis {
			n *= it.Extent
		}
	}
	return n
}

// SpanOf is 1 + Σ(e−1)·s over shard and replica iters plus Σ offsets, all
// restricted to axis, or to memory axes when axis is nil (§2.4). A
// ComposeLayout answers for its tile.
func SpanOf(l Layout, axis *Axis) int64 {
	t := tileOf(l)
	match := func(a *Axis) bool { return (axis == nil && a.IsMemory()) || a == axis }
	s := int64(1)
	for _, it := range t.Shard {
		if match(it.Axis) {
			s += (it.Extent - 1) * it.Stride
		}
	}
	for _, it := range t.Replica {
		if match(it.Axis) {
			s += (it.Extent - 1) * it.Stride
		}
	}
	for a, v := range t.Offset {
		if match(a) {
			s += v
		}
	}
	return s
}

func tileOf(l Layout) *TileLayout {
	switch l := l.(type) {
	case *TileLayout:
		return l
	case *ComposeLayout:
		return l.Tile
	}
	panic(fmt.Sprintf("layout: unknown layout type %T", l))
}

// Storage drops every shard iter, replica iter and offset on a thread axis:
// the per-thread register footprint (§2.4). A ComposeLayout keeps its
// swizzle and strips its tile.
func Storage(l Layout) Layout {
	switch l := l.(type) {
	case *TileLayout:
		return storageTile(l)
	case *ComposeLayout:
		c := *l
		c.Tile = storageTile(l.Tile)
		return &c
	}
	panic(fmt.Sprintf("layout: unknown layout type %T", l))
}

func storageTile(l *TileLayout) *TileLayout {
	t := &TileLayout{Offset: map[*Axis]int64{}}
	for _, it := range l.Shard {
		if !it.Axis.IsThread() {
			t.Shard = append(t.Shard, it)
		}
	}
	for _, it := range l.Replica {
		if !it.Axis.IsThread() {
			t.Replica = append(t.Replica, it)
		}
	}
	for a, v := range l.Offset {
		if !a.IsThread() {
			t.Offset[a] = v
		}
	}
	return t
}

// HasThreadAxis reports whether some shard iter is on a thread axis.
func (l *TileLayout) HasThreadAxis() bool {
	for _, it := range l.Shard {
		if it.Axis.IsThread() {
			return true
		}
	}
	return false
}

// HasMemoryAxis reports whether some shard iter is on a memory axis.
func (l *TileLayout) HasMemoryAxis() bool {
	for _, it := range l.Shard {
		if it.Axis.IsMemory() {
			return true
		}
	}
	return false
}

// IsMemoryOnly reports whether no shard iter, replica iter or offset is on
// a thread axis.
func (l *TileLayout) IsMemoryOnly() bool {
	for _, it := range l.Shard {
		if it.Axis.IsThread() {
			return false
		}
	}
	for _, it := range l.Replica {
		if it.Axis.IsThread() {
			return false
		}
	}
	for a := range l.Offset {
		if a.IsThread() {
			return false
		}
	}
	return true
}

// isTrivialRaw is TVM TileLayoutNode::IsTrivial on l as given: at most one
// shard iter, on a memory axis with stride 1, no replica, no offset entry.
func isTrivialRaw(l *TileLayout) bool {
	if len(l.Shard) > 1 {
		return false
	}
	if len(l.Shard) == 1 && (!l.Shard[0].Axis.IsMemory() || l.Shard[0].Stride != 1) {
		return false
	}
	return len(l.Replica) == 0 && len(l.Offset) == 0
}

// IsTrivial reports whether the canonical form of a TileLayout has at most
// one shard iter, on a memory axis with stride 1, and no replica or offset
// (§2.5). A ComposeLayout is never trivial (TVM Layout.is_trivial).
func IsTrivial(l Layout) bool {
	t, ok := l.(*TileLayout)
	if !ok {
		return false
	}
	return isTrivialRaw(canonTile(t, true))
}

// Equal reports structural equality: same kind, same swizzle parameters,
// same shard and replica sequences, same offset maps (a zero offset entry
// differs from a missing one, as in TVM's structural equality).
func Equal(a, b Layout) bool {
	switch a := a.(type) {
	case *TileLayout:
		b, ok := b.(*TileLayout)
		return ok && tileEqual(a, b)
	case *ComposeLayout:
		b, ok := b.(*ComposeLayout)
		return ok && a.PerElement == b.PerElement && a.SwizzleLen == b.SwizzleLen &&
			a.AtomLen == b.AtomLen && a.SwizzleInner == b.SwizzleInner && tileEqual(a.Tile, b.Tile)
	}
	return false
}

func tileEqual(a, b *TileLayout) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !itersEqual(a.Shard, b.Shard) || !itersEqual(a.Replica, b.Replica) || len(a.Offset) != len(b.Offset) {
		return false
	}
	for ax, v := range a.Offset {
		if w, ok := b.Offset[ax]; !ok || w != v {
			return false
		}
	}
	return true
}

func itersEqual(a, b []Iter) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
