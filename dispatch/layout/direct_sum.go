package layout

import "fmt"

// DirectSum is TVM TileLayout.direct_sum(left, left_shape, right_shape)
// called on right (src/tirx/ir/layout/tile_direct_sum_ops.cc): both
// layouts are canonicalized and grouped by their shapes, and the result
// interleaves, for each dimension i, left's group i then right's group i,
// without scaling left's strides by right's span (unlike Tile). Replicas
// concatenate (left's first) and offsets add per axis; the result is
// canonicalized.
func DirectSum(right, left *TileLayout, leftShape, rightShape []int64) (*TileLayout, error) {
	if len(leftShape) != len(rightShape) {
		return nil, fmt.Errorf("Left and right shape size must match for direct sum")
	}
	gl, ls, err := Group(CanonicalTile(left), leftShape)
	if err != nil {
		return nil, err
	}
	gr, rs, err := Group(CanonicalTile(right), rightShape)
	if err != nil {
		return nil, err
	}
	var shard []Iter
	for i := range leftShape {
		shard = append(shard, gl.Shard[ls[i]:ls[i+1]]...)
		shard = append(shard, gr.Shard[rs[i]:rs[i+1]]...)
	}
	replica := append(append([]Iter(nil), gl.Replica...), gr.Replica...)
	off := map[*Axis]int64{}
	for a, v := range gl.Offset {
		off[a] += v
	}
	for a, v := range gr.Offset {
		off[a] += v
	}
	return CanonicalTile(NewTile(shard, replica, off)), nil
}
