package layout

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// shapeString prints a shape the way TVM prints an Array: "[8, 256]".
func shapeString(shape []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(s, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// Group splits l's shard iters so that consecutive runs multiply exactly to
// each shape[d], row-major (§2.6, TVM Group). It returns the grouped layout
// and seps, len(shape)+1 indices with seps[0] = 0: group d is
// Shard[seps[d]:seps[d+1]] (empty only when an earlier iter already closed
// it, e.g. shape[d] == 1 after an exact boundary). Replica and offsets are
// kept. The error reads "layout L can not be grouped by shape [a, b]".
func Group(l *TileLayout, shape []int64) (*TileLayout, []int, error) {
	g, seps, ok := TryGroup(l, shape)
	if !ok {
		return nil, nil, fmt.Errorf("layout %s can not be grouped by shape %s", l, shapeString(shape))
	}
	return g, seps, nil
}

// TryGroup is Group reporting failure as ok = false (§2.6).
func TryGroup(l *TileLayout, shape []int64) (*TileLayout, []int, bool) {
	for _, s := range shape {
		if s <= 0 {
			return nil, nil, false
		}
	}
	idx := 0
	p := int64(1)
	// Group into stack buffers and allocate only the result, in one piece:
	// TryGroup was the largest allocator of BenchmarkDispatch3000 (13% of
	// its allocations, three per call, failed attempts included); now
	// 76.3k → 69.9k allocs/op.
	var outBuf [16]Iter
	var sepBuf [8]int
	out := outBuf[:0]
	seps := append(sepBuf[:0], 0)
	for _, it := range l.Shard {
		e, s := it.Extent, it.Stride
		if e <= 0 {
			return nil, nil, false
		}
		var ok bool
		if p, ok = mulOK(p, e); !ok {
			return nil, nil, false
		}
		for idx < len(shape) && p%shape[idx] == 0 {
			c := p / shape[idx]
			if e%c != 0 {
				return nil, nil, false
			}
			out = append(out, Iter{e / c, s * c, it.Axis})
			e, p = c, c
			idx++
			seps = append(seps, len(out))
		}
		if e != 1 {
			if idx >= len(shape) {
				return nil, nil, false
			}
			out = append(out, Iter{e, s, it.Axis})
		}
	}
	if idx != len(shape) {
		return nil, nil, false
	}
	// Replica and offsets are shared with l (layouts are immutable):
	// cloning them was 6% of BenchmarkDispatch3000 allocations.
	t, shard, sp := newGrouped(len(out), len(seps))
	copy(shard, out)
	copy(sp, seps)
	t.Shard, t.Replica, t.Offset = shard, l.Replica, sharedOffset(l)
	return t, sp, true
}

// grouped4 and grouped8 hold a grouped layout, its shard and its seps in
// one allocation.
type grouped4 struct {
	t    TileLayout
	its  [4]Iter
	seps [4]int
}

type grouped8 struct {
	t    TileLayout
	its  [8]Iter
	seps [8]int
}

// newGrouped returns a layout, a shard of n iters and m seps, in one
// allocation when they are small (the slices are capacity-limited).
func newGrouped(n, m int) (*TileLayout, []Iter, []int) {
	switch {
	case n <= 4 && m <= 4:
		g := &grouped4{}
		return &g.t, g.its[:n:n], g.seps[:m:m]
	case n <= 8 && m <= 8:
		g := &grouped8{}
		return &g.t, g.its[:n:n], g.seps[:m:m]
	}
	return &TileLayout{}, make([]Iter, n), make([]int, m)
}

// sharedOffset is l.Offset for a result that shares it (never nil).
func sharedOffset(l *TileLayout) map[*Axis]int64 {
	if l.Offset == nil {
		return map[*Axis]int64{}
	}
	return l.Offset
}

func cloneOffset(m map[*Axis]int64) map[*Axis]int64 {
	c := make(map[*Axis]int64, len(m))
	for a, v := range m {
		c[a] = v
	}
	return c
}

// GroupMany groups l by the minimal common refinement of the cumulative
// (outer-to-inner) product boundaries of every shape and of l's own shard
// (SEED TVM GroupMany, used by tma_auto). It returns the refined layout
// (every original iter split into consecutive pieces, strides scaled) and,
// per shape, len(shape)+1 separators into its shard with Group's
// convention. Errors carry TVM's "group_many ..." messages.
func GroupMany(l *TileLayout, shapes [][]int64) (*TileLayout, [][]int, error) {
	if len(shapes) == 0 {
		return nil, nil, fmt.Errorf("group_many requires at least one shape")
	}
	if len(l.Shard) == 0 {
		// TVM returns separators past the end of the (empty) shard here.
		return nil, nil, fmt.Errorf("group_many requires a layout with shard iters")
	}
	seqs := make([][]int64, 0, len(shapes)+1)
	for si, shape := range shapes {
		if len(shape) == 0 {
			return nil, nil, fmt.Errorf("group_many shape %d must not be empty", si)
		}
		b := []int64{1}
		p := int64(1)
		for di, e := range shape {
			if e <= 0 {
				return nil, nil, fmt.Errorf("group_many cannot prove cumulative boundary order for shape %d at dimension %d: %d <= %d", si, di, p, p*e)
			}
			var ok bool
			if p, ok = mulOK(p, e); !ok {
				return nil, nil, fmt.Errorf("group_many: shape %d overflows int64", si)
			}
			b = append(b, p)
		}
		seqs = append(seqs, b)
	}
	lb := []int64{1}
	p := int64(1)
	for i, it := range l.Shard {
		if it.Extent <= 0 {
			return nil, nil, fmt.Errorf("group_many cannot prove cumulative boundary order for layout iter %d: %d <= %d", i, p, p*it.Extent)
		}
		var ok bool
		if p, ok = mulOK(p, it.Extent); !ok {
			return nil, nil, fmt.Errorf("group_many: layout size overflows int64")
		}
		lb = append(lb, p)
	}
	total := seqs[0][len(seqs[0])-1]
	for si := 1; si < len(seqs); si++ {
		if t := seqs[si][len(seqs[si])-1]; t != total {
			return nil, nil, fmt.Errorf("group_many cannot prove equal total products for shape 0 and shape %d: %d vs %d", si, total, t)
		}
	}
	if p != total {
		return nil, nil, fmt.Errorf("group_many cannot prove that the layout and shapes have equal total products: %d vs %d", p, total)
	}
	seqs = append(seqs, lb)

	// Boundary classes: distinct values, ascending, with the largest
	// multiplicity any one sequence gives them.
	type class struct {
		value  int64
		counts []int
	}
	var classes []class
	find := func(v int64) int {
		for i := range classes {
			if classes[i].value == v {
				return i
			}
		}
		return -1
	}
	for si, seq := range seqs {
		for _, v := range seq {
			ci := find(v)
			if ci < 0 {
				ci = len(classes)
				for i := range classes {
					if v < classes[i].value {
						ci = i
						break
					}
				}
				classes = slices.Insert(classes, ci, class{v, make([]int, len(seqs))})
			}
			classes[ci].counts[si]++
		}
	}
	starts := make([]int, len(classes))
	mult := make([]int, len(classes))
	var common []int64
	for i, c := range classes {
		starts[i] = len(common)
		mult[i] = slices.Max(c.counts)
		for range mult[i] {
			common = append(common, c.value)
		}
	}
	refined := make([]int64, 0, len(common))
	for i := 1; i < len(common); i++ {
		if common[i]%common[i-1] != 0 {
			return nil, nil, fmt.Errorf("group_many has incompatible cumulative boundaries: %d does not divide %d", common[i-1], common[i])
		}
		refined = append(refined, common[i]/common[i-1])
	}
	positions := func(seq []int64, si int) ([]int, error) {
		seen := make([]int, len(classes))
		pos := make([]int, 0, len(seq))
		prev := 0
		for bi, v := range seq {
			ci := find(v)
			at := starts[ci] + seen[ci]
			seen[ci]++
			if bi == 0 {
				at = starts[ci]
			}
			if bi == len(seq)-1 {
				at = starts[ci] + mult[ci] - 1
			}
			if bi > 0 && at <= prev {
				return nil, fmt.Errorf("group_many could not preserve repeated boundary %d for sequence %d", v, si)
			}
			prev = at
			pos = append(pos, at)
		}
		return pos, nil
	}
	lpos, err := positions(lb, len(seqs)-1)
	if err != nil {
		return nil, nil, err
	}
	shard := make([]Iter, 0, len(refined))
	for i, it := range l.Shard {
		start, end := lpos[i], lpos[i+1]
		if start >= end {
			return nil, nil, fmt.Errorf("group_many cannot preserve layout iter %d", i)
		}
		for q := start; q < end; q++ {
			shard = append(shard, Iter{refined[q], it.Stride * (common[end] / common[q+1]), it.Axis})
		}
	}
	seps := make([][]int, len(shapes))
	for si := range shapes {
		if seps[si], err = positions(seqs[si], si); err != nil {
			return nil, nil, err
		}
	}
	return &TileLayout{Shard: shard, Replica: slices.Clone(l.Replica), Offset: cloneOffset(l.Offset)}, seps, nil
}

// PermuteDims reorders the shard: result.Shard[i] = l.Shard[perm[i]]
// (§2.6). It panics unless perm is a permutation of len(l.Shard) indices.
func PermuteDims(l *TileLayout, perm []int) *TileLayout {
	if len(perm) != len(l.Shard) {
		panic("layout: perm must have the same length as the number of dimensions in the layout")
	}
	seen := make([]bool, len(perm))
	t, shard := newTileCap(len(perm)) // one allocation, see canonTile
	shard = shard[:len(perm)]
	for i, p := range perm {
		if p < 0 || p >= len(perm) || seen[p] {
			panic(badPerm(perm))
		}
		seen[p] = true
		shard[i] = l.Shard[p]
	}
	t.Shard, t.Replica, t.Offset = shard, l.Replica, sharedOffset(l) // shared, see TryGroup
	return t
}

// badPerm is the panic message for an invalid perm. It formats a copy:
// formatting perm itself made every caller's perm, and the scratch slices
// here, escape to the heap (BenchmarkDispatch3000: 61.9k → 60.5k
// allocs/op).
func badPerm(perm []int) string {
	return fmt.Sprintf("layout: invalid perm %v", slices.Clone(perm))
}

// PermuteByGroups reorders whole groups (seps as returned by Group): the
// result's group i is l's group perm[i] (§2.6). It panics unless perm is a
// permutation of len(seps)-1 indices.
func PermuteByGroups(l *TileLayout, seps []int, perm []int) *TileLayout {
	n := len(seps) - 1
	if len(perm) != n {
		panic(badPerm(perm))
	}
	seen := make([]bool, n)
	flat := make([]int, 0, len(l.Shard))
	for _, g := range perm {
		if g < 0 || g >= n || seen[g] {
			panic(badPerm(perm))
		}
		seen[g] = true
		for k := seps[g]; k < seps[g+1]; k++ {
			flat = append(flat, k)
		}
	}
	return PermuteDims(l, flat)
}

// mulOK multiplies non-negative a and b, reporting overflow.
func mulOK(a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}
