package layout

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// GetScope returns the (inner, outer) execution-scope pair of a layout
// (§2.10, TVM TileLayoutNode::GetScope). ok is false when no shard iter is
// on a thread axis. Every thread axis of the shard, replica and offsets
// contributes subscope → scope; inner is the innermost subscope and outer
// is where the chain inner → scope → ... leaves the map. Errors carry TVM's
// text: "Ill-formed tile layout: conflicting scopes for <subscope>" and
// "Ill-formed tile layout: disconnected scope chain" (also reported for a
// cyclic chain, e.g. bx with tx, where TVM loops forever). A ComposeLayout
// answers for its tile.
func GetScope(l Layout) (inner, outer ScopeKind, ok bool, err error) {
	return tileScope(tileOf(l))
}

func tileScope(l *TileLayout) (inner, outer ScopeKind, ok bool, err error) {
	if !l.HasThreadAxis() {
		return ScopeNone, ScopeNone, false, nil
	}
	var chain [Thread + 1]ScopeKind // subscope → scope; ScopeNone = absent
	n := 0
	var conflict error
	visit := func(a *Axis) {
		if !a.IsThread() || conflict != nil {
			return
		}
		if inner == ScopeNone || inner.Higher(a.subscope) {
			inner = a.subscope
		}
		switch chain[a.subscope] {
		case ScopeNone:
			chain[a.subscope] = a.scope
			n++
		case a.scope:
		default:
			conflict = fmt.Errorf("Ill-formed tile layout: conflicting scopes for %s", a.subscope)
		}
	}
	for _, it := range l.Shard {
		visit(it.Axis)
	}
	for _, it := range l.Replica {
		visit(it.Axis)
	}
	// Offsets in axis order, sorted in a stack buffer (sortedAxes
	// allocated on every Canonicalize of a thread layout).
	var buf [8]*Axis
	axes := buf[:0]
	for a := range l.Offset {
		axes = append(axes, a)
	}
	slices.SortFunc(axes, axisCmp)
	for _, a := range axes {
		visit(a)
	}
	if conflict != nil {
		return ScopeNone, ScopeNone, false, conflict
	}
	outer = inner
	count := 0
	for chain[outer] != ScopeNone && count <= n {
		outer = chain[outer]
		count++
	}
	if count != n {
		return ScopeNone, ScopeNone, false, errors.New("Ill-formed tile layout: disconnected scope chain")
	}
	return inner, outer, true, nil
}

// fuse is the CUDA axis fuser of §2.1: given the whole layout's (inner,
// outer) scope pair it rewrites an iter onto a coarser thread axis.
func fuse(it Iter, inner, outer ScopeKind) Iter {
	switch it.Axis {
	case Warpid:
		if inner == Thread && outer == CTA {
			return Iter{it.Extent, it.Stride * 32, Tx}
		}
	case Laneid:
		if inner == Thread && outer == Warpgroup {
			return Iter{it.Extent, it.Stride, TidInWG}
		}
		if inner == Thread && outer == CTA {
			return Iter{it.Extent, it.Stride, Tx}
		}
	case Wgid:
		if inner == Thread && outer == CTA {
			return Iter{it.Extent, it.Stride * 128, Tx}
		}
		if inner == Warp && outer == CTA {
			// sic: TVM keeps the axis wgid (should be warpid) with stride×4.
			return Iter{it.Extent, it.Stride * 4, Wgid}
		}
	case TidInWG:
		if inner == Thread && outer == CTA {
			return Iter{it.Extent, it.Stride, Tx}
		}
	case WidInWG:
		if inner == Thread && outer == Warpgroup {
			return Iter{it.Extent, it.Stride * 32, TidInWG}
		}
		if inner == Thread && outer == CTA {
			return Iter{it.Extent, it.Stride * 32, Tx}
		}
		if inner == Warp && outer == CTA {
			return Iter{it.Extent, it.Stride, Warpid}
		}
	}
	return it
}

// Canonicalize returns the canonical form of l (§2.5): RemoveUnitIters,
// RemoveZeroOffsets, FuseAxesByScope (only when fuseThreads, i.e. a CUDA
// target is active; dispatch always passes true), FuseContiguousShardIters,
// SortReplicaIters. A ComposeLayout canonicalizes its tile and keeps its
// swizzle (SEED). The result is a fresh value.
//
// Deviations from TVM, both invisible to well-formed inputs:
//   - replica iters are sorted by (axis order, stride, extent) instead of a
//     structural hash, so equality and printing are deterministic;
//   - fused offsets that land on the same axis are summed (TVM overwrites
//     one with the other);
//   - a layout whose GetScope fails is not thread-fused (TVM aborts).
func Canonicalize(l Layout, fuseThreads bool) Layout {
	switch l := l.(type) {
	case *TileLayout:
		return canonTile(l, fuseThreads)
	case *ComposeLayout:
		c := *l
		c.Tile = canonTile(l.Tile, fuseThreads)
		return &c
	}
	panic(fmt.Sprintf("layout: unknown layout type %T", l))
}

// CanonicalTile is Canonicalize for a TileLayout with thread fusion on.
func CanonicalTile(l *TileLayout) *TileLayout { return canonTile(l, true) }

// canonTile shares l's Replica and Offset when canonicalization leaves them
// as they are (layouts are immutable): cloning them on every call was 10%
// of BenchmarkDispatch3000 allocations.
func canonTile(l *TileLayout, fuseThreads bool) *TileLayout {
	// 1. RemoveUnitIters (layout and shard in one allocation when small).
	t, shard := newTileCap(len(l.Shard))
	shard = appendNonUnit(shard, l.Shard)
	replica, ownReplica := l.Replica, false
	// 2. RemoveZeroOffsets.
	offset := l.Offset
	if offset == nil {
		offset = map[*Axis]int64{}
	}
	for _, v := range l.Offset {
		if v == 0 {
			offset = make(map[*Axis]int64, len(l.Offset))
			for a, v := range l.Offset {
				if v != 0 {
					offset[a] = v
				}
			}
			break
		}
	}
	t.Shard, t.Replica, t.Offset = shard, replica, offset
	// 3. FuseAxesByScope.
	if fuseThreads {
		if inner, outer, ok, err := tileScope(t); ok && err == nil {
			for i, it := range t.Shard {
				t.Shard[i] = fuse(it, inner, outer)
			}
			if len(replica) > 0 {
				t.Replica, ownReplica = make([]Iter, len(replica)), true
				for i, it := range replica {
					t.Replica[i] = fuse(it, inner, outer)
				}
			}
			fused := make(map[*Axis]int64, len(offset))
			for a, v := range offset {
				f := fuse(Iter{1, v, a}, inner, outer)
				fused[f.Axis] += f.Stride
			}
			t.Offset = fused
		}
	}
	// 4. FuseContiguousShardIters.
	t.Shard = fuseContiguous(t.Shard)
	// 5. SortReplicaIters (stable; a sorted replica is left as it is).
	if len(t.Replica) > 1 && !slices.IsSortedFunc(t.Replica, replicaCmp) {
		if !ownReplica {
			t.Replica = slices.Clone(t.Replica)
		}
		slices.SortStableFunc(t.Replica, replicaCmp)
	}
	return t
}

func replicaCmp(a, b Iter) int {
	if c := axisCmp(a.Axis, b.Axis); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Stride, b.Stride); c != 0 {
		return c
	}
	return cmp.Compare(a.Extent, b.Extent)
}

// removeUnitIters returns a fresh copy of shard without its extent-1 iters
// (one (1, 1) iter on the first axis when all are; §2.5 step 1).
func removeUnitIters(shard []Iter) []Iter {
	return appendNonUnit(make([]Iter, 0, len(shard)), shard)
}

// appendNonUnit is removeUnitIters appending to dst.
func appendNonUnit(dst, shard []Iter) []Iter {
	n := len(dst)
	for _, it := range shard {
		if it.Extent != 1 {
			dst = append(dst, it)
		}
	}
	if len(dst) == n && len(shard) > 0 {
		dst = append(dst, Iter{1, 1, shard[0].Axis})
	}
	return dst
}

// tile2 and tile4 hold a layout and a shard of up to 2 or 4 iters in one
// allocation of the size the two separate ones took.
type tile2 struct {
	t   TileLayout
	its [2]Iter
}

type tile4 struct {
	t   TileLayout
	its [4]Iter
}

// newTileCap returns a layout and an empty shard of capacity n for it, in
// one allocation when n is small: canonTile's two allocations per call were
// 10% of BenchmarkDispatch3000 allocations (69.9k → 67.8k allocs/op).
func newTileCap(n int) (*TileLayout, []Iter) {
	switch {
	case n <= 2:
		b := &tile2{}
		return &b.t, b.its[:0:2]
	case n <= 4:
		b := &tile4{}
		return &b.t, b.its[:0:4]
	}
	return &TileLayout{}, make([]Iter, 0, n)
}

// canonShard is canonTile(&TileLayout{Shard: shard}, true).Shard without
// building the layout and its maps (SlicePerGroup canonicalizes every
// group).
func canonShard(shard []Iter) []Iter {
	t := TileLayout{Shard: removeUnitIters(shard)}
	if inner, outer, ok, err := tileScope(&t); ok && err == nil {
		for i, it := range t.Shard {
			t.Shard[i] = fuse(it, inner, outer)
		}
	}
	return fuseContiguous(t.Shard)
}

// fuseContiguous merges runs where iter k+1 has iter k's axis and
// e[k+1]·s[k+1] == s[k] into (∏e, s_last, axis) (§2.5 step 4). It reuses
// the backing array of shard.
func fuseContiguous(shard []Iter) []Iter {
	out := shard[:0]
	for cur := 0; cur < len(shard); {
		it := shard[cur]
		next := cur + 1
		for next < len(shard) && shard[next].Axis == it.Axis &&
			shard[next].Extent*shard[next].Stride == shard[next-1].Stride {
			it.Extent *= shard[next].Extent
			it.Stride = shard[next].Stride
			next++
		}
		out = append(out, it)
		cur = next
	}
	return out
}
