package layout

import (
	"errors"
	"fmt"
)

// Tile tiles inner with outer (§2.8, TVM Layout.tile): both are
// canonicalized and grouped (outer by outerShape, inner by innerShape);
// every outer shard iter's stride is multiplied by inner's span on the same
// axis; the shard interleaves [outer group d, inner group d] per dim;
// replica = inner's then outer's; offsets are summed; the result is
// canonicalized. outer must be a *TileLayout. A ComposeLayout inner tiles
// its tile (the identity over innerShape when that tile is trivial) and
// keeps its swizzle.
func Tile(inner, outer Layout, outerShape, innerShape []int64) (Layout, error) {
	o, ok := outer.(*TileLayout)
	if !ok {
		return nil, fmt.Errorf("tile: outer layout must be a TileLayout, got %s", outer)
	}
	switch in := inner.(type) {
	case *TileLayout:
		return tileTile(in, o, outerShape, innerShape)
	case *ComposeLayout:
		base := in.Tile
		if isTrivialRaw(base) {
			base = Identity(innerShape)
		}
		t, err := tileTile(base, o, outerShape, innerShape)
		if err != nil {
			return nil, err
		}
		if !t.onlyM() {
			return nil, fmt.Errorf("tile: swizzled layout %s tiled by %s must map only to axis m", inner, outer)
		}
		c := *in
		c.Tile = t
		return &c, nil
	}
	panic(fmt.Sprintf("layout: unknown layout type %T", inner))
}

func tileTile(inner, outer *TileLayout, outerShape, innerShape []int64) (*TileLayout, error) {
	if len(outerShape) != len(innerShape) {
		return nil, errors.New("Outer and inner shape size must match")
	}
	og, oseps, err := Group(canonTile(outer, true), outerShape)
	if err != nil {
		return nil, err
	}
	ig, iseps, err := Group(canonTile(inner, true), innerShape)
	if err != nil {
		return nil, err
	}
	span := map[*Axis]int64{}
	for _, it := range ig.Shard {
		if _, ok := span[it.Axis]; !ok {
			span[it.Axis] = SpanOf(ig, it.Axis)
		}
	}
	t := &TileLayout{Offset: cloneOffset(ig.Offset)}
	for d := range outerShape {
		for _, it := range og.Shard[oseps[d]:oseps[d+1]] {
			if s, ok := span[it.Axis]; ok {
				it.Stride *= s
			}
			t.Shard = append(t.Shard, it)
		}
		t.Shard = append(t.Shard, ig.Shard[iseps[d]:iseps[d+1]]...)
	}
	t.Replica = append(append(t.Replica, ig.Replica...), og.Replica...)
	for a, v := range og.Offset {
		t.Offset[a] += v
	}
	return canonTile(t, true), nil
}

// TileTo tiles l up to toShape, reading l as a layout of curShape: it is
// Tile(l, S[to/cur], to/cur, cur) (§2.8). Unlike TVM (which floor-divides)
// it reports an error unless every toShape[i] is a multiple of curShape[i].
func TileTo(l Layout, toShape, curShape []int64) (Layout, error) {
	if len(toShape) != len(curShape) {
		return nil, fmt.Errorf("tile_to: shape %s and %s differ in rank", shapeString(toShape), shapeString(curShape))
	}
	ts := make([]int64, len(toShape))
	for i := range toShape {
		if curShape[i] <= 0 || toShape[i]%curShape[i] != 0 {
			return nil, fmt.Errorf("tile_to: shape %s is not a multiple of %s", shapeString(toShape), shapeString(curShape))
		}
		ts[i] = toShape[i] / curShape[i]
	}
	return Tile(l, RowMajor(ts...), ts, curShape)
}
