package gemmasync

// The shared-memory matrix descriptor parameters of one operand: TVM
// gemm_async/tcgen05.py compute_canonical_params (swizzle mode, LBO, SBO
// and majorness from the operand's sliced shared layout).
//
// TVM matches the sliced layout against the swizzle atoms of the 128B, 64B
// and 32B modes, in both orientations (K-major [8, T*s] with the last dim
// contiguous, MN-major [T*s, 8] with the first dim contiguous), with
// Layout.is_tile_inner, which returns the tiler (the layout of the atom grid,
// strides in atoms). tilels evaluates instead: the slice must use the atom's
// swizzle, and its tile must equal tiler(outer) * atom_size + atom(inner) at
// every coordinate, for a tiler additive over the two grid dims. The tiler
// is rebuilt as iters (mixed radix per grid dim), canonicalized and grouped
// by the grid shape as TVM does, and LBO/SBO are read off its last two
// iters: ldo = shard[-1].stride * atom_size / (elements per 16 B), sdo =
// shard[-2].stride * ..., swapped when the majorness differs from the
// operand's transpose flag.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// smemParams is the result of compute_canonical_params.
type smemParams struct {
	swizzle  int64 // SwizzleMode value: 1 32B, 2 64B, 3 128B
	ldo, sdo int64 // in 16-byte units
	mnMajor  bool
	// tiler is the canonical grouped atom grid (for the plan).
	tiler string
}

var swizzleModeName = map[int64]string{0: "SWIZZLE_NONE", 1: "SWIZZLE_32B_ATOM", 2: "SWIZZLE_64B_ATOM", 3: "SWIZZLE_128B_ATOM"}

// canonicalParams is compute_canonical_params(buf, region, dtype,
// isTransposed); it raises TVM's exceptions.
//
// From 0.26 (newer) an unswizzled buffer takes the no-swizzle branch
// (noSwizzleParams026) instead of the atom matching.
func canonicalParams(g common.Region, bits int, isTransposed, newer bool) smemParams {
	buf := g.Buf
	cax := len(g.Exts) - 1
	elemPer16B := int64(128 / bits)
	physMode, err := layout.SwizzleModeOf(buf.Layout)
	hasPhys := err == nil
	descBounds := append([][2]int64(nil), g.Bounds...)
	if hasPhys && physMode >= 1 && physMode <= 3 {
		atomInner := layout.MMAAtomShape(bits, physMode)[1]
		contig := g.Exts[cax]
		rounded := (contig + atomInner - 1) / atomInner * atomInner
		if rounded != contig {
			if !common.Divisible(g.Mins[cax], elemPer16B) {
				dispatch.Raise("ValueError", "gemm_async: contiguous-axis slice start %s is not 16B-aligned (=%d elements, dtype %s). "+
					"A sub-atom contiguous slice must start on a 16B boundary; otherwise keep that axis full and split on a stride/outer axis "+
					"instead (lay the operand out MN-major).", dispatch.ExprText(g.Mins[cax]), elemPer16B, buf.Dtype)
			}
			descBounds[cax] = [2]int64{0, rounded}
		}
	}
	var shape2 []int64
	var all []string
	for _, b := range descBounds {
		all = append(all, fmt.Sprint(b[1]-b[0]))
		if b[1]-b[0] != 1 {
			shape2 = append(shape2, b[1]-b[0])
		}
	}
	if len(shape2) != 2 {
		dispatch.Raise("AssertionError", "Expected exactly 2 non-unit dims in region [%s]", strings.Join(all, ", "))
	}
	sl, err := layout.Slice(buf.Layout, buf.Shape, descBounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	if newer && hasPhys && physMode == 0 {
		return noSwizzleParams026(sl, shape2, bits, buf.Dtype.String(), isTransposed)
	}
	if sl != nil {
		if p, ok := matchAtoms(sl, shape2, bits, isTransposed, newer); ok {
			return p
		}
	}
	hint := ""
	if hasPhys && physMode >= 1 && physMode <= 3 {
		atomInner := layout.MMAAtomShape(bits, physMode)[1]
		hint = fmt.Sprintf(" The buffer is physically %s-swizzled (contiguous atom = %d elements / %d B); the region's layout does not tile it.",
			swizzleModeName[int64(physMode)], atomInner, atomInner*int64(bits)/8)
	}
	dispatch.Raise("ValueError", "gemm_async: no MMA SMEM descriptor matches region shape [%d, %d] for dtype %s.%s", shape2[0], shape2[1], buf.Dtype, hint)
	return smemParams{}
}

// atomMatches keeps matchAtoms's answers by layout and shape: it checks
// every element of the operand's tile against an atom, and a kernel
// applies one shared layout in many calls, and every case of a kernel and
// every keystroke lowers them again (flash_attention4.py's 32 cases: a
// tenth of a keystroke with the atom check made cheap, most of it before;
// p50 628 -> 79 ms with both). At most maxAtomMatches answers are kept;
// past that the map starts again.
var atomMatches struct {
	sync.Mutex
	m map[atomKey]atomMatch
}

const maxAtomMatches = 4096

type atomKey struct {
	layout              string
	rows, cols          int64
	bits                int
	isTransposed, newer bool
}

type atomMatch struct {
	p  smemParams
	ok bool
}

// matchAtoms is _match: modes 128B, 64B, 32B; per mode the K-major then the
// MN-major candidate (in the operand's orientation).
func matchAtoms(sl layout.Layout, shape2 []int64, bits int, isTransposed, newer bool) (smemParams, bool) {
	cl, ok := sl.(*layout.ComposeLayout)
	if !ok {
		return smemParams{}, false // every atom is swizzled
	}
	key := atomKey{cl.String(), shape2[0], shape2[1], bits, isTransposed, newer}
	atomMatches.Lock()
	r, known := atomMatches.m[key]
	atomMatches.Unlock()
	if !known {
		r.p, r.ok = matchAtomsOf(cl, shape2, bits, isTransposed, newer)
		atomMatches.Lock()
		if atomMatches.m == nil || len(atomMatches.m) >= maxAtomMatches {
			atomMatches.m = map[atomKey]atomMatch{}
		}
		atomMatches.m[key] = r
		atomMatches.Unlock()
	}
	return r.p, r.ok
}

// matchAtomsOf is matchAtoms without its memory.
func matchAtomsOf(cl *layout.ComposeLayout, shape2 []int64, bits int, isTransposed, newer bool) (smemParams, bool) {
	for _, mode := range []int{3, 2, 1} {
		atom := layout.MMAAtomLayout(bits, mode)
		if cl.PerElement != atom.PerElement || cl.SwizzleLen != atom.SwizzleLen || cl.AtomLen != atom.AtomLen || cl.SwizzleInner != atom.SwizzleInner {
			continue
		}
		base := layout.MMAAtomShape(bits, mode) // [8, T*s]
		swapped := []int64{base[1], base[0]}
		type cand struct {
			mn    bool
			shape []int64
			inner func(i, j int64) int64 // atom tile offset of inner coordinate
		}
		rowMajor := func(i, j int64) int64 { return i*base[1] + j }    // [8, W], last dim contiguous
		colMajor := func(i, j int64) int64 { return i + j*swapped[0] } // [W, 8], first dim contiguous
		kc := cand{false, base, rowMajor}
		mc := cand{true, swapped, colMajor}
		if isTransposed {
			kc = cand{false, swapped, colMajor}
			mc = cand{true, base, rowMajor}
		}
		for _, c := range []cand{kc, mc} {
			ldo, sdo, desc, ok := tryAtom(cl.Tile, shape2, c.shape, c.inner, bits, newer)
			if !ok {
				continue
			}
			if c.mn != isTransposed {
				ldo, sdo = sdo, ldo
			}
			return smemParams{swizzle: int64(mode), ldo: ldo, sdo: sdo, mnMajor: c.mn, tiler: desc}, true
		}
	}
	return smemParams{}, false
}

// tryAtom is _try_atom: the tile of the slice must be the atom tiled by an
// additive grid layout; it returns (ldo, sdo) before the majorness swap.
// From 0.26 (newer) each grid dim must group into exactly one iter, and a
// grid dim of extent 1 gives an unused offset 0.
func tryAtom(tile *layout.TileLayout, shape2, atomShape []int64, inner func(i, j int64) int64, bits int, newer bool) (int64, int64, string, bool) {
	if shape2[0]%atomShape[0] != 0 || shape2[1]%atomShape[1] != 0 {
		return 0, 0, "", false
	}
	atomSize := atomShape[0] * atomShape[1]
	grid := []int64{shape2[0] / atomShape[0], shape2[1] / atomShape[1]}
	at := func(i, j int64) int64 { return tile.ApplyAxis(i*shape2[1]+j, layout.M) }
	off := at(0, 0)
	// grid offsets (in elements) along each grid dim
	f0 := make([]int64, grid[0])
	f1 := make([]int64, grid[1])
	for o := range grid[0] {
		f0[o] = at(o*atomShape[0], 0) - off
	}
	for o := range grid[1] {
		f1[o] = at(0, o*atomShape[1]) - off
	}
	run := layout.NewAxisRun(tile, layout.M) // (along each row of an atom)
	for o0 := range grid[0] {
		for o1 := range grid[1] {
			g := f0[o0] + f1[o1]
			if g%atomSize != 0 {
				return 0, 0, "", false
			}
			for i := range atomShape[0] {
				run.Reset((o0*atomShape[0]+i)*shape2[1] + o1*atomShape[1])
				for j := range atomShape[1] {
					if run.Value()-off != g+inner(i, j) {
						return 0, 0, "", false
					}
					run.Next()
				}
			}
		}
	}
	its0, ok0 := radixIters(f0, atomSize)
	its1, ok1 := radixIters(f1, atomSize)
	if !ok0 || !ok1 {
		return 0, 0, "", false
	}
	tiler := layout.NewTile(append(its0, its1...), nil, nil)
	canon := layout.CanonicalTile(tiler)
	grouped, seps, err := layout.Group(canon, grid)
	if err != nil || len(grouped.Shard) < 2 {
		return 0, 0, "", false
	}
	if newer && !(len(seps) == 3 && seps[0] == 0 && seps[1] == 1 && seps[2] == 2) {
		return 0, 0, "", false
	}
	per128 := int64(128 / bits)
	n := len(grouped.Shard)
	atomOff := func(it layout.Iter) int64 {
		if newer && it.Extent == 1 {
			return 0
		}
		return it.Stride * atomSize / per128
	}
	return atomOff(grouped.Shard[n-1]), atomOff(grouped.Shard[n-2]), grouped.String(), true
}

// radixIters decomposes the offsets f (multiples of unit) of one grid dim
// into mixed-radix iters, outermost first, strides in units; a single
// element gives the unit iter (1, 1).
func radixIters(f []int64, unit int64) ([]layout.Iter, bool) {
	n := int64(len(f))
	if n == 1 {
		return []layout.Iter{layout.It(1, 1, layout.M)}, true
	}
	var rev []layout.Iter
	step := int64(1) // index step of the current digit
	for step < n {
		s := f[step]
		e := int64(1)
		for step*e < n && f[step*e] == e*s {
			e++
		}
		for e > 1 && (n/step)%e != 0 {
			e--
		}
		if e < 2 {
			return nil, false
		}
		rev = append(rev, layout.It(e, s/unit, layout.M))
		step *= e
	}
	out := make([]layout.Iter, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	// verify
	exts := make([]int64, len(out))
	for i, it := range out {
		exts[i] = it.Extent
	}
	for i := range n {
		d := layout.SplitCoord(i, exts)
		v := int64(0)
		for k, it := range out {
			v += d[k] * it.Stride * unit
		}
		if v != f[i] {
			return nil, false
		}
	}
	return out, true
}

// exprText prints an ir expression for messages.
func exprText(e ir.Expr) string { return dispatch.ExprText(e) }

// noSwizzleParams026 is 0.26's SWIZZLE_NONE branch of
// compute_canonical_params: a packed-16B layout (16-bit dtypes only; LBO =
// the first dim's extent, SBO 8) or a column-major view whose contiguous
// dim spans exactly 128 bytes (LBO = the K-column stride, SBO 8); anything
// else raises the reference's ValueError.
func noSwizzleParams026(sl layout.Layout, shape2 []int64, bits int, dtype string, isTransposed bool) smemParams {
	t, ok := sl.(*layout.TileLayout)
	if !ok || t == nil {
		dispatch.Raise("ValueError", "gemm_async: no-swizzle SMEM descriptors require a plain TileLayout")
	}
	grouped, _, err := layout.Group(layout.CanonicalTile(t), shape2)
	if err != nil {
		dispatch.Raise("ValueError", "%v", err)
	}
	shard := grouped.Shard
	elemPer16B := int64(128 / bits)
	name := func(ldo, sdo int64) string {
		return fmt.Sprintf("no swizzle, LBO %d, SBO %d (16-byte units)", ldo, sdo)
	}
	if n := len(shard); n >= 3 {
		d0, d1, d2 := shard[n-3], shard[n-2], shard[n-1]
		if d0.Extent == shape2[0] && d0.Stride == elemPer16B && d1.Extent*d2.Extent == shape2[1] &&
			d1.Stride == shape2[0]*elemPer16B && d2.Extent == elemPer16B && d2.Stride == 1 {
			if elemPer16B != 8 {
				dispatch.Raise("ValueError", "gemm_async: no-swizzle packed-16B SMEM descriptors are only supported for 16-bit dtypes "+
					"(8 elements per 16B line); got dtype %s with %d elements per 16B line", dtype, elemPer16B)
			}
			return smemParams{swizzle: 0, ldo: shape2[0], sdo: 8, mnMajor: isTransposed, tiler: name(shape2[0], 8)}
		}
	}
	n := len(shard)
	if n < 2 || !(shard[n-2].Stride == 1 && shard[n-1].Stride == shape2[0]) {
		dispatch.Raise("ValueError", "gemm_async: no-swizzle SMEM descriptors currently require the penultimate matrix dimension to be contiguous or 16B-packed")
	}
	if shape2[0] != 8*elemPer16B {
		dispatch.Raise("ValueError", "gemm_async: no-swizzle column-major-view SMEM descriptors require the contiguous matrix dimension to span "+
			"exactly 128B (= %d elements for %s); got %d. Use a swizzled or packed-16B layout for larger tiles.", 8*elemPer16B, dtype, shape2[0])
	}
	return smemParams{swizzle: 0, ldo: shard[n-1].Stride, sdo: 8, mnMajor: isTransposed, tiler: name(shard[n-1].Stride, 8)}
}
