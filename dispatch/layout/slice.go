package layout

import "fmt"

// Slice restricts l, read as a layout of the logical shape, to region
// ([begin, end) per dim) and returns a layout of the region's shape (§2.7):
// canonicalize (threads fused), Group by shape, SlicePerGroup each group,
// concatenate; replica and offsets are kept and the region's offsets added.
// It returns (nil, nil) when the region is not representable, and an error
// when the lengths differ, a range is empty or out of bounds, or grouping
// fails. A ComposeLayout slices its tile (the identity over shape when the
// tile is trivial) and keeps its swizzle.
//
// PRE TVM dropped l's own offsets here; HEAD keeps them, and so does this
// implementation (the spec's "start from g.offset").
func Slice(l Layout, shape []int64, region [][2]int64) (Layout, error) {
	if len(shape) != len(region) {
		return nil, fmt.Errorf("shape and region must have the same length: %d vs %d", len(shape), len(region))
	}
	for d, r := range region {
		if r[0] < 0 || r[1] <= r[0] || r[1] > shape[d] {
			return nil, fmt.Errorf("region [%d, %d) of dim %d is empty or outside extent %d", r[0], r[1], d, shape[d])
		}
	}
	switch l := l.(type) {
	case *TileLayout:
		t, err := sliceTile(l, shape, region)
		if t == nil {
			return nil, err
		}
		return t, nil
	case *ComposeLayout:
		base := l.Tile
		if isTrivialRaw(base) {
			base = Identity(shape)
		}
		t, err := sliceTile(base, shape, region)
		if t == nil {
			return nil, err
		}
		c := *l
		c.Tile = t
		return &c, nil
	}
	panic(fmt.Sprintf("layout: unknown layout type %T", l))
}

// SliceTile is Slice for a TileLayout.
func SliceTile(l *TileLayout, shape []int64, region [][2]int64) (*TileLayout, error) {
	r, err := Slice(l, shape, region)
	if r == nil {
		return nil, err
	}
	return r.(*TileLayout), nil
}

func sliceTile(l *TileLayout, shape []int64, region [][2]int64) (*TileLayout, error) {
	canon := canonTile(l, true)
	g, seps, err := Group(canon, shape)
	if err != nil {
		return nil, err
	}
	// Each group yields at most one iter more than it has.
	out, shard := newTileCap(len(g.Shard) + len(shape))
	out.Shard, out.Replica, out.Offset = shard, g.Replica, cloneOffset(g.Offset)
	for d := range shape {
		var ok bool
		out.Shard, ok = slicePerGroup(out.Shard, g.Shard[seps[d]:seps[d+1]], region[d][0], region[d][1]-region[d][0], out.Offset)
		if !ok {
			return nil, nil
		}
	}
	return out, nil
}

// slicePerGroup slices [begin, begin+ext) of one group's iters (§2.7
// SlicePerGroup). It appends the new shard iters to dst and adds the
// offsets to off, or returns ok = false (dst and off are then garbage).
func slicePerGroup(dst, group []Iter, begin, ext int64, off map[*Axis]int64) ([]Iter, bool) {
	sh := canonShard(group)
	m := len(sh)
	if m == 0 {
		return nil, false
	}
	var bufB, bufD [8]int64
	B, d0 := bufB[:0], bufD[:0]
	if m > len(bufB) {
		B, d0 = make([]int64, 0, m), make([]int64, 0, m)
	}
	B, d0 = B[:m], d0[:m]
	acc := int64(1)
	for k := m - 1; k >= 0; k-- {
		B[k] = acc
		var ok bool
		if acc, ok = mulOK(acc, sh[k].Extent); !ok || acc <= 0 {
			return nil, false
		}
	}
	for k := range m {
		if m == 1 {
			d0[k] = floorDiv(begin, B[k])
		} else {
			d0[k] = floorMod(floorDiv(begin, B[k]), sh[k].Extent)
		}
		off[sh[k].Axis] += d0[k] * sh[k].Stride
	}
	if m == 1 {
		return append(dst, Iter{ext, sh[0].Stride, sh[0].Axis}), true
	}
	rem := ext
	piv := m - 1
	for ; piv >= 0; piv-- {
		if d0[piv] != 0 || rem%sh[piv].Extent != 0 {
			break
		}
		rem /= sh[piv].Extent
	}
	peeled := sh[piv+1:]
	if piv < 0 {
		if rem != 1 {
			return nil, false
		}
		return append(dst, peeled...), true
	}
	e, s, a := sh[piv].Extent, sh[piv].Stride, sh[piv].Axis
	if d0[piv]+rem <= e {
		return append(append(dst, Iter{rem, s, a}), peeled...), true
	}
	// Wrap-around: two halves straddling the boundary of the next-outer
	// iter. TVM (and §2.7) test d0[piv-1]+1 <= e[piv-1]; when it is equal the
	// second half carries into iter piv-2 and TVM returns a layout with wrong
	// addresses (e.g. S[(3,2,4):(4,2@a,-1@a)] sliced at [15,17)). This
	// implementation requires the strict inequality and returns nil there;
	// valid regions are otherwise unaffected.
	c := rem / 2
	if rem%2 == 0 && d0[piv]+c == e && (piv == 0 || d0[piv-1]+1 < sh[piv-1].Extent) &&
		(piv == 0 || sh[piv-1].Axis == a) {
		var outer int64
		if piv > 0 {
			outer = sh[piv-1].Stride
		}
		delta := outer - (e-c)*s
		return append(append(dst, Iter{2, delta, a}, Iter{c, s, a}), peeled...), true
	}
	return nil, false
}
