package layout

import (
	"fmt"
	"math/bits"
)

// Swizzle modes (§2.9, tma_utils.SwizzleMode).
const (
	SwizzleNone = 0
	Swizzle32B  = 1
	Swizzle64B  = 2
	Swizzle128B = 3
)

// SwizzleAddr swizzles a tile output m (§2.9): with q = m >> p, bits
// [at, at+sw) of q are XORed into bits [0, sw) (SwizzleInner), or bits
// [0, sw) into [at, at+sw) otherwise; the low p bits pass through.
func (c *ComposeLayout) SwizzleAddr(m int64) int64 {
	base := int64(1) << c.PerElement
	q := floorDiv(m, base)
	inner := int64(1)<<c.SwizzleLen - 1
	if c.SwizzleInner {
		q ^= (q & (inner << c.AtomLen)) >> c.AtomLen
	} else {
		q ^= (q & inner) << c.AtomLen
	}
	return q<<c.PerElement + floorMod(m, base)
}

// Period is 2^(p+sw+at), the number of elements one swizzle pattern covers.
func (c *ComposeLayout) Period() int64 {
	return int64(1) << (c.PerElement + c.SwizzleLen + c.AtomLen)
}

// PerElementFor is bitlen(128/bits) − 1: 2 for 32-bit, 3 for 16-bit, 4 for
// 8-bit elements (§2.9).
func PerElementFor(elemBits int) int { return bits.Len(uint(128/elemBits)) - 1 }

// MMAAtomLayout is the bare swizzle atom Compose(p, mode, 3,
// S[(2^(p+mode+3),)]) for elements of elemBits bits (§2.9,
// mma_atom_layout).
func MMAAtomLayout(elemBits, mode int) *ComposeLayout {
	p := PerElementFor(elemBits)
	return &ComposeLayout{PerElement: p, SwizzleLen: mode, AtomLen: 3, SwizzleInner: true,
		Tile: RowMajor(int64(1) << (p + mode + 3))}
}

// MMAAtomShape is [8, {256,512,1024}[mode]/bits] (8 rows of 32/64/128
// bytes) for mode 1..3, or nil for any other mode (§2.9, mma_atom_shape
// without its rank padding; see MMAAtomShapeFor).
func MMAAtomShape(elemBits, mode int) []int64 {
	var row int64
	switch mode {
	case Swizzle32B:
		row = 256
	case Swizzle64B:
		row = 512
	case Swizzle128B:
		row = 1024
	default:
		return nil
	}
	return []int64{8, row / int64(elemBits)}
}

// MMAAtomShapeFor is MMAAtomShape left-padded with 1s to len(shape).
func MMAAtomShapeFor(elemBits, mode int, shape []int64) []int64 {
	a := MMAAtomShape(elemBits, mode)
	if a == nil || len(shape) < len(a) {
		return a
	}
	out := make([]int64, len(shape)-len(a), len(shape))
	for i := range out {
		out[i] = 1
	}
	return append(out, a...)
}

// MMASharedLayout is the MMA/TMA-compatible shared-memory layout of shape
// (rank ≥ 2) for elemBits-bit elements (§2.9, mma_shared_layout):
//
//   - mode 1..3: the swizzle atom tiled first along rows to
//     [..., shape[-2], atom[-1]], then to shape, canonicalized;
//   - mode 0, seedMode0 false (PRE): canonical row-major S[shape];
//   - mode 0, seedMode0 true (SEED): packed 16-byte atoms
//     S[(*lead, M, K/e16, e16) : (..., e16, M·e16, 1)], e16 = 128/bits,
//     when K % e16 == 0, else canonical row-major.
func MMASharedLayout(elemBits, mode int, shape []int64, seedMode0 bool) (Layout, error) {
	if len(shape) < 2 {
		return nil, fmt.Errorf("mma_shared_layout: shape %s must have rank >= 2", shapeString(shape))
	}
	if elemBits <= 0 || elemBits > 128 || 128%elemBits != 0 {
		return nil, fmt.Errorf("mma_shared_layout: unsupported element width %d bits", elemBits)
	}
	if mode == SwizzleNone {
		n := len(shape)
		e16 := int64(128 / elemBits)
		m, k := shape[n-2], shape[n-1]
		if seedMode0 && k%e16 == 0 {
			lead := shape[:n-2]
			its := make([]Iter, n+1)
			s := m * k
			for i := len(lead) - 1; i >= 0; i-- {
				its[i] = Iter{lead[i], s, M}
				s *= lead[i]
			}
			its[n-2] = Iter{m, e16, M}
			its[n-1] = Iter{k / e16, m * e16, M}
			its[n] = Iter{e16, 1, M}
			return canonTile(&TileLayout{Shard: its}, true), nil
		}
		return canonTile(RowMajor(shape...), true), nil
	}
	atom := MMAAtomShapeFor(elemBits, mode, shape)
	if atom == nil {
		return nil, fmt.Errorf("mma_shared_layout: unsupported swizzle mode %d", mode)
	}
	tts := append([]int64{}, atom...)
	tts[len(tts)-2] = shape[len(shape)-2]
	l, err := TileTo(MMAAtomLayout(elemBits, mode), tts, atom)
	if err != nil {
		return nil, err
	}
	if l, err = TileTo(l, shape, tts); err != nil {
		return nil, err
	}
	return Canonicalize(l, true), nil
}

// SwizzleModeOf returns the TMA swizzle mode of a shared-memory layout
// (§2.9, get_swizzle_mode_from_layout): 0 for a TileLayout, SwizzleLen for
// a ComposeLayout. It fails for SwizzleLen > 3 and (SEED) for a swizzled
// layout whose swizzle direction is not inner.
func SwizzleModeOf(l Layout) (int, error) {
	switch l := l.(type) {
	case *TileLayout:
		return SwizzleNone, nil
	case *ComposeLayout:
		if l.SwizzleLen > Swizzle128B {
			return 0, fmt.Errorf("unrecognized swizzle mode: swizzle_len=%d in %s", l.SwizzleLen, l)
		}
		if l.SwizzleLen > 0 && !l.SwizzleInner {
			return 0, fmt.Errorf("swizzle direction mismatch: TMA swizzle requires swizzle_inner=True, got %s", l)
		}
		return l.SwizzleLen, nil
	}
	return 0, fmt.Errorf("unrecognized layout %s", l)
}

// StripSwizzleToTile drops the swizzle for perm/group/slice work (§2.9,
// strip_swizzle_to_tile): a TileLayout is returned as is; a ComposeLayout
// gives its tile, except that a trivial tile whose size differs from
// ∏extents becomes S[extents].
func StripSwizzleToTile(l Layout, extents []int64) *TileLayout {
	switch l := l.(type) {
	case *TileLayout:
		return l
	case *ComposeLayout:
		if IsTrivial(l.Tile) && Size(l.Tile, nil) != prod(extents) {
			return RowMajor(extents...)
		}
		return l.Tile
	}
	panic(fmt.Sprintf("layout: unknown layout type %T", l))
}

// ToTile is the TMA planner's to_tile: a ComposeLayout's tile, or the
// TileLayout itself.
func ToTile(l Layout) *TileLayout { return tileOf(l) }

// BareSwizzle returns Compose(p, sw, at, S[(2^(p+sw+at),)]) with l's swizzle
// parameters for a ComposeLayout, or nil for a TileLayout (§2.9,
// get_swizzle).
func BareSwizzle(l Layout) *ComposeLayout {
	c, ok := l.(*ComposeLayout)
	if !ok {
		return nil
	}
	b := *c
	b.Tile = RowMajor(c.Period())
	return &b
}

// IsBareSwizzle reports whether l is a ComposeLayout over a trivial tile:
// a PRE bare SwizzleLayout (SEED Layout.is_swizzle).
func IsBareSwizzle(l Layout) bool {
	c, ok := l.(*ComposeLayout)
	return ok && IsTrivial(c.Tile)
}
