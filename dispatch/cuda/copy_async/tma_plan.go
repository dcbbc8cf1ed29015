package copyasync

// The TMA planner of copy_async/tma (spec §4.5.1–§4.5.3): pure functions
// from the two layouts, the buffer shapes and the copy region to one
// cuTensorMap descriptor plus an issue loop. It mirrors the L1/L2/L3
// pipeline of TVM python/tvm/backend/cuda/operator/tile_primitive/
// copy_async/tma.py at PRE abe2526b3e:
//
//	L1  canonicalize the shared tile; group the raw global layout by the
//	    global buffer shape and split multi-iter groups; slice the shared
//	    layout to the region; regroup it by the ext>1 copy shape.
//	L2  find the stride-1 chain of shared shards; for a prefix of it, cut
//	    every global iter into segments (selected segments become box>1
//	    descriptor dims, the rest box-1 dims plus issue axes).
//	L3  stack the descriptor dims, reorder them, merge/promote only when a
//	    non-innermost byte stride is not 16-byte aligned, validate; shrink
//	    the prefix on failure.
//
// Everything is an integer except the region starts on the global side,
// which may be symbolic (A[stage:stage+1, ...] in a loop): they only flow
// into descriptor coordinates and divisibility checks, which use the same
// provable-divisibility rules as the copy variants (divisible, common.go).
// Failures are *tmaFailure values: TVM fail() (a DispatchFail, the variant
// declines) or a Python exception the variant raises.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// tmaInput is what the planner reads from a copy_async call.
type tmaInput struct {
	// smem is the shared buffer's layout, smemShape its shape, smemRegion
	// the copy region used to slice it ([begin, end) per dim; symbolic
	// starts are placed at 0 by the caller, see emitTMA).
	smem       layout.Layout
	smemShape  []int64
	smemRegion [][2]int64
	// gmem is the global buffer's layout and gmemShape its shape; gStart
	// and gExt are the global region's starts and extents.
	gmem      layout.Layout
	gmemShape []int64
	gStart    []ir.Expr
	gExt      []int64
	// dtype is the element type of both buffers.
	dtype ir.DataType
}

// tmaFailure is why no plan exists: exc is "" for TVM fail() (the variant
// declines with msg), else the Python exception type TVM raises.
type tmaFailure struct {
	exc, msg string
}

func tmaFail(format string, args ...any) *tmaFailure {
	return &tmaFailure{msg: fmt.Sprintf(format, args...)}
}

func tmaRaise(exc, format string, args ...any) *tmaFailure {
	return &tmaFailure{exc: exc, msg: fmt.Sprintf(format, args...)}
}

// tmaDim is one descriptor dimension in plan order (outermost first; the
// cuTensorMap arrays are the reverse). shape, stride and box are in
// elements of the descriptor's (possibly promoted) type.
type tmaDim struct {
	shape, stride, box int64
	coord              ir.Expr // coordinate of the first issue
}

// tmaAxis is one issue axis: every step advances descriptor dim `dim` by
// `advance` and the shared address by smemStride elements of the buffer.
type tmaAxis struct {
	extent, advance, smemStride int64
	dim                         int
}

// tmaPlan is a descriptor and its issue loop (TVM TmaPlan).
type tmaPlan struct {
	swizzle int
	dims    []tmaDim
	axes    []tmaAxis // outer to inner
	// elemBytes and dtype are the descriptor's element; they differ from
	// the buffer's when L3 promoted it (uint16/uint32/uint64).
	elemBytes int64
	dtype     ir.DataType
}

func (p *tmaPlan) rank() int { return len(p.dims) }

// issues is the trip count of the issue loop.
func (p *tmaPlan) issues() int64 {
	n := int64(1)
	for _, a := range p.axes {
		n *= a.extent
	}
	return n
}

// ---- L1 ----

// tmaGmemIter is one global dimension after multi-iter splitting (TVM
// GmemIter); ext == 1 iters become box-1 descriptor dims.
type tmaGmemIter struct {
	shape, stride int64
	start         ir.Expr
	ext           int64
}

type tmaShard struct{ extent, stride int64 }

// tmaGroup is the shared shards (outer to inner) of one ext>1 global iter.
type tmaGroup struct {
	shards []tmaShard
	iter   int // index into tmaL1.iters
}

type tmaL1 struct {
	swizzle int
	iters   []tmaGmemIter
	groups  []tmaGroup
}

// tmaSwizzleMode is PRE get_swizzle_mode_from_layout: 0 for a TileLayout,
// swizzle_len for a ComposeLayout (PRE does not check the swizzle
// direction; SEED does).
func tmaSwizzleMode(l layout.Layout) (int, bool) {
	switch l := l.(type) {
	case *layout.TileLayout:
		return layout.SwizzleNone, true
	case *layout.ComposeLayout:
		if l.SwizzleLen >= 0 && l.SwizzleLen <= layout.Swizzle128B {
			return l.SwizzleLen, true
		}
	}
	return 0, false
}

// tmaSmemTile is TVM _to_tile_layout: a ComposeLayout's tile, a bare
// swizzle (a trivial tile that does not cover the buffer) read as S[shape].
func tmaSmemTile(l layout.Layout, shape []int64) *layout.TileLayout {
	return layout.StripSwizzleToTile(l, shape)
}

// tmaLayoutType is the Python class name TVM prints for a layout.
func tmaLayoutType(l layout.Layout) string {
	if layout.IsBareSwizzle(l) {
		return "SwizzleLayout"
	}
	if _, ok := l.(*layout.ComposeLayout); ok {
		return "ComposeLayout"
	}
	return "TileLayout"
}

func tmaMemoryOnly(l *layout.TileLayout, label string) *tmaFailure {
	for _, it := range l.Shard {
		if !it.Axis.IsMemory() {
			return tmaRaise("ValueError", "TMA %s layout must be pure memory; saw non-memory axis %s in %s", label, it.Axis.Name, l)
		}
	}
	return nil
}

func tmaBuildL1(in tmaInput) (*tmaL1, *tmaFailure) {
	mode, ok := tmaSwizzleMode(in.smem)
	if !ok {
		return nil, tmaRaise("ValueError", "Cannot determine swizzle mode from layout: %s", in.smem)
	}
	smemCanon := layout.CanonicalTile(tmaSmemTile(in.smem, in.smemShape))
	if f := tmaMemoryOnly(smemCanon, "shared"); f != nil {
		return nil, f
	}
	graw, ok := in.gmem.(*layout.TileLayout)
	if !ok {
		return nil, tmaRaise("ValueError", "TMA gmem layout must be a TileLayout; got %s", tmaLayoutType(in.gmem))
	}
	if f := tmaMemoryOnly(graw, "global"); f != nil {
		return nil, f
	}

	// Global: group the raw layout by the buffer shape, canonicalize each
	// group, split multi-iter groups.
	gg, seps, err := layout.Group(graw, in.gmemShape)
	if err != nil {
		return nil, tmaRaise("ValueError", "Cannot group gmem layout by buffer shape: %v", err)
	}
	l1 := &tmaL1{swizzle: mode}
	for d := range in.gmemShape {
		its, f := tmaSplitGroup(gg.Shard[seps[d]:seps[d+1]], in.gStart[d], in.gExt[d])
		if f != nil {
			return nil, f
		}
		l1.iters = append(l1.iters, its...)
	}

	// Shared: slice to the region, canonicalize, regroup by the ext>1 copy
	// shape.
	sl, err := layout.Slice(smemCanon, in.smemShape, in.smemRegion)
	if err != nil {
		return nil, tmaRaise("TVMError", "%v", err)
	}
	if sl == nil {
		return nil, tmaRaise("ValueError", "Cannot slice smem layout for TMA copy")
	}
	sliced := layout.CanonicalTile(sl.(*layout.TileLayout))
	var big []int
	var bigShape []int64
	for i, it := range l1.iters {
		if it.ext != 1 {
			big = append(big, i)
			bigShape = append(bigShape, it.ext)
		}
	}
	if len(big) == 0 {
		return l1, nil // a single element: box-1 dims only
	}
	sg, sseps, ok := layout.TryGroup(sliced, bigShape)
	if !ok {
		return nil, tmaRaise("ValueError", "Cannot regroup smem layout by ext>1 copy shape %s", tmaIntList(bigShape))
	}
	for k, iter := range big {
		g := tmaGroup{iter: iter}
		for _, it := range sg.Shard[sseps[k]:sseps[k+1]] {
			if it.Extent != 1 {
				g.shards = append(g.shards, tmaShard{it.Extent, it.Stride})
			}
		}
		l1.groups = append(l1.groups, g)
	}
	return l1, nil
}

// tmaSplitGroup is TVM _split_multi_iter_group for one global dimension:
// no iter → a (1, 0) placeholder; one iter → itself; t ≥ 2 iters → the
// outermost carries the region (start and extent divided by u, the product
// of the inner extents, which must divide both), the others are copied
// whole.
func tmaSplitGroup(group []layout.Iter, start ir.Expr, ext int64) ([]tmaGmemIter, *tmaFailure) {
	var raw []layout.Iter
	if len(group) > 0 {
		for _, it := range layout.CanonicalTile(layout.NewTile(group, nil, nil)).Shard {
			if it.Extent != 1 {
				raw = append(raw, it)
			}
		}
	}
	switch len(raw) {
	case 0:
		return []tmaGmemIter{{shape: 1, stride: 0, start: start, ext: ext}}, nil
	case 1:
		return []tmaGmemIter{{shape: raw[0].Extent, stride: raw[0].Stride, start: start, ext: ext}}, nil
	}
	u := int64(1)
	for _, it := range raw[1:] {
		u *= it.Extent
	}
	if !common.Divisible(start, u) {
		return nil, tmaFail("TMA multi-iter gmem group requires copy_start %% %d == 0; got copy_start=%s", u, tmaExprText(start))
	}
	if ext%u != 0 {
		return nil, tmaFail("TMA multi-iter gmem group requires copy_ext %% %d == 0; got copy_ext=%d", u, ext)
	}
	out := []tmaGmemIter{{shape: raw[0].Extent, stride: raw[0].Stride, start: tmaDivExact(start, u), ext: ext / u}}
	for _, it := range raw[1:] {
		out = append(out, tmaGmemIter{shape: it.Extent, stride: it.Stride, start: common.Zero, ext: it.Extent})
	}
	return out, nil
}

// ---- L2 ----

// tmaChain is TVM _find_contiguous_chain_prefix: (group, shard) pairs
// from innermost outwards, each the first unused shard (in group order,
// outer to inner within a group) whose stride is the product of the
// extents picked so far.
func tmaChain(groups []tmaGroup) [][2]int {
	var chain [][2]int
	used := map[[2]int]bool{}
	want := int64(1)
	for {
		found := false
		for gi, g := range groups {
			for si, sh := range g.shards {
				k := [2]int{gi, si}
				if used[k] || sh.stride != want {
					continue
				}
				used[k] = true
				chain = append(chain, k)
				want *= sh.extent
				found = true
				break
			}
			if found {
				break
			}
		}
		if !found {
			return chain
		}
	}
}

// tmaSelection is TVM _distribute_selection: group → selected shard
// positions, sorted (outer to inner).
func tmaSelection(chain [][2]int) map[int][]int {
	sel := map[int][]int{}
	for _, k := range chain {
		sel[k[0]] = append(sel[k[0]], k[1])
	}
	for g := range sel {
		slices.Sort(sel[g])
	}
	return sel
}

// tmaInner is u_k: the product of the extents of the shards after k.
func tmaInner(shards []tmaShard, k int) int64 {
	u := int64(1)
	for _, sh := range shards[k+1:] {
		u *= sh.extent
	}
	return u
}

// tmaAligned is TVM _check_alignment: u_{p0} divides the global iter's
// shape and its copy start (p0 = the outermost selected position).
func tmaAligned(it tmaGmemIter, sel []int, shards []tmaShard) bool {
	if len(sel) == 0 {
		return true
	}
	u := tmaInner(shards, sel[0])
	return it.shape%u == 0 && common.Divisible(it.start, u)
}

// tmaContrib is an unselected shard's issue axis before dims are placed.
type tmaContrib struct{ extent, advance, smemStride int64 }

// tmaSegment is one cut of a global iter (TVM Segment).
type tmaSegment struct {
	shape, stride int64
	start         ir.Expr
	selected      bool
	box           int64
	contribs      []tmaContrib
}

// tmaSegments is TVM _build_segments (spec §4.5.2).
func tmaSegments(it tmaGmemIter, sel []int, shards []tmaShard) []tmaSegment {
	q := len(shards)
	isSel := func(m int) bool { return slices.Contains(sel, m) }
	// contribs of the unselected shards in [lo, hi], advances in units of
	// u_hi (the segment's descriptor coordinate).
	contribs := func(lo, hi int) []tmaContrib {
		uhi := tmaInner(shards, hi)
		var out []tmaContrib
		for m := lo; m <= hi; m++ {
			if isSel(m) {
				continue
			}
			out = append(out, tmaContrib{shards[m].extent, tmaInner(shards, m) / uhi, shards[m].stride})
		}
		return out
	}
	prodRange := func(lo, hi int) int64 {
		n := int64(1)
		for m := lo; m <= hi; m++ {
			n *= shards[m].extent
		}
		return n
	}
	if len(sel) == 0 {
		return []tmaSegment{{shape: it.shape, stride: it.stride, start: it.start, box: 1, contribs: contribs(0, q-1)}}
	}
	p0 := sel[0]
	u0 := tmaInner(shards, p0)
	segs := []tmaSegment{{shape: it.shape / u0, stride: it.stride * u0, start: tmaDivExact(it.start, u0),
		selected: true, box: shards[p0].extent, contribs: contribs(0, p0)}}
	for i := 1; i < len(sel); i++ {
		lo, hi := sel[i-1]+1, sel[i]
		segs = append(segs, tmaSegment{shape: prodRange(lo, hi), stride: it.stride * tmaInner(shards, hi), start: common.Zero,
			selected: true, box: shards[hi].extent, contribs: contribs(lo, hi)})
	}
	if last := sel[len(sel)-1]; last < q-1 {
		segs = append(segs, tmaSegment{shape: prodRange(last+1, q-1), stride: it.stride, start: common.Zero, box: 1,
			contribs: contribs(last+1, q-1)})
	}
	return segs
}

// ---- L3 ----

// tmaAssemble is TVM _assemble_plan: box-1 dims of the ext=1 iters, then
// the segments of every ext>1 iter; reordered so that the unselected dims
// come first (natural order) and the selected ones follow by chain index
// descending (chain[0], the stride-1 shared shard, innermost); then the
// merge/promotion pass.
func tmaAssemble(l1 *tmaL1, sel map[int][]int, chain [][2]int, dtype ir.DataType) *tmaPlan {
	var dims []tmaDim
	var chainIdx []int // -1: not selected
	var axes []tmaAxis
	for _, it := range l1.iters {
		if it.ext == 1 {
			dims = append(dims, tmaDim{shape: it.shape, stride: it.stride, box: 1, coord: it.start})
			chainIdx = append(chainIdx, -1)
		}
	}
	for gi, g := range l1.groups {
		s := sel[gi]
		for i, seg := range tmaSegments(l1.iters[g.iter], s, g.shards) {
			d := len(dims)
			dims = append(dims, tmaDim{shape: seg.shape, stride: seg.stride, box: seg.box, coord: seg.start})
			ci := -1
			if seg.selected {
				ci = slices.Index(chain, [2]int{gi, s[i]})
			}
			chainIdx = append(chainIdx, ci)
			for _, c := range seg.contribs {
				axes = append(axes, tmaAxis{extent: c.extent, advance: c.advance, smemStride: c.smemStride, dim: d})
			}
		}
	}
	var order []int
	for i, ci := range chainIdx {
		if ci < 0 {
			order = append(order, i)
		}
	}
	var selDims []int
	for i, ci := range chainIdx {
		if ci >= 0 {
			selDims = append(selDims, i)
		}
	}
	slices.SortStableFunc(selDims, func(a, b int) int { return chainIdx[b] - chainIdx[a] })
	order = append(order, selDims...)
	newPos := make([]int, len(order))
	p := &tmaPlan{swizzle: l1.swizzle, elemBytes: int64(dtype.Bits / 8), dtype: dtype}
	for n, old := range order {
		newPos[old] = n
		p.dims = append(p.dims, dims[old])
	}
	for _, a := range axes {
		a.dim = newPos[a.dim]
		p.axes = append(p.axes, a)
	}
	return tmaMerge(p)
}

// tmaNeedsAlignmentFix is TVM _plan_needs_alignment_fix: some
// non-innermost dim has a byte stride that is not a multiple of 16.
func tmaNeedsAlignmentFix(p *tmaPlan) bool {
	if len(p.dims) <= 1 {
		return false
	}
	for _, d := range p.dims[:len(p.dims)-1] {
		if d.stride*p.elemBytes%16 != 0 {
			return true
		}
	}
	return false
}

// tmaPromoted is the promotion chain of TVM _merge_contig_full_box_dims.
var tmaPromoted = map[int64]ir.DataType{1: {Code: ir.UInt, Bits: 16}, 2: {Code: ir.UInt, Bits: 32}, 4: {Code: ir.UInt, Bits: 64}}

// tmaMerge is TVM _merge_contig_full_box_dims (spec §4.5.3 step 3). A plan
// whose strides are all 16-byte aligned is returned unchanged. Otherwise,
// repeatedly (inner to outer) merge adjacent dims that no issue axis
// touches, with coordinate 0, fully boxed and contiguous, while the merged
// box stays ≤ 256; when a pair was blocked only by the box limit, promote
// the element type one step and retry.
func tmaMerge(p *tmaPlan) *tmaPlan {
	if !tmaNeedsAlignmentFix(p) {
		return p
	}
	dims, axes := slices.Clone(p.dims), slices.Clone(p.axes)
	eb, dt := p.elemBytes, p.dtype
	touched := func(i int) bool {
		return slices.ContainsFunc(axes, func(a tmaAxis) bool { return a.dim == i })
	}
	for {
		merged, blocked := false, false
		for i := len(dims) - 2; i >= 0; i-- {
			o, in := dims[i], dims[i+1]
			if touched(i) || touched(i+1) || !TmaIsZero(o.coord) || !TmaIsZero(in.coord) ||
				o.box != o.shape || in.box != in.shape || o.stride != in.shape*in.stride {
				continue
			}
			box := o.box * in.box
			if box > 256 {
				blocked = true
				continue
			}
			dims = slices.Replace(dims, i, i+2, tmaDim{shape: o.shape * in.shape, stride: in.stride, box: box, coord: common.Zero})
			for k := range axes {
				if axes[k].dim > i {
					axes[k].dim--
				}
			}
			merged = true
			break
		}
		if merged {
			continue
		}
		if !blocked {
			break
		}
		ndt, ok := tmaPromoted[eb]
		inner := len(dims) - 1
		if !ok || len(dims) == 0 || touched(inner) || dims[inner].stride != 1 || dims[inner].shape%2 != 0 {
			break
		}
		if slices.ContainsFunc(dims[:inner], func(d tmaDim) bool { return d.stride%2 != 0 }) {
			break
		}
		for k := range dims {
			if k == inner {
				dims[k] = tmaDim{shape: dims[k].shape / 2, stride: dims[k].stride, box: dims[k].box / 2, coord: tmaFloorDiv(dims[k].coord, 2)}
			} else {
				dims[k].stride /= 2
			}
		}
		for k := range axes {
			if axes[k].dim == inner {
				axes[k].advance /= 2
			}
		}
		eb, dt = eb*2, ndt
	}
	return &tmaPlan{swizzle: p.swizzle, dims: dims, axes: axes, elemBytes: eb, dtype: dt}
}

// tmaValidate is TVM _validate_hw_constraints; "" means valid. The
// swizzle atom is measured in elements of the buffer's dtype, as in TVM.
func tmaValidate(p *tmaPlan, dtype ir.DataType) string {
	switch r := p.rank(); {
	case r == 0:
		return "TMA descriptor rank must be ≥ 1"
	case r > 5:
		return fmt.Sprintf("TMA descriptor rank %d exceeds hardware limit of 5", r)
	}
	inner := p.dims[len(p.dims)-1]
	if inner.stride != 1 {
		return fmt.Sprintf("TMA innermost dim must have unit stride; got %d", inner.stride)
	}
	if p.swizzle != layout.SwizzleNone {
		atom := layout.MMAAtomShape(dtype.Bits, p.swizzle)
		if inner.box > atom[len(atom)-1] {
			return "TMA innermost box exceeds the swizzle atom size"
		}
	}
	return ""
}

// planTMA runs L1–L3 (TVM _build_l1_result + _build_plan_with_shrink):
// the longest chain prefix whose alignment and hardware checks pass.
func planTMA(in tmaInput) (*tmaPlan, *tmaFailure) {
	l1, f := tmaBuildL1(in)
	if f != nil {
		return nil, f
	}
	if len(l1.groups) == 0 {
		p := tmaAssemble(l1, nil, nil, in.dtype)
		if r := tmaValidate(p, in.dtype); r != "" {
			return nil, tmaFail("TMA plan (no smem groups) failed hardware check: %s", r)
		}
		return p, nil
	}
	chain := tmaChain(l1.groups)
	last := "no valid plan"
	for j := len(chain); j >= 0; j-- {
		sel := tmaSelection(chain[:j])
		aligned := true
		for gi, g := range l1.groups {
			if !tmaAligned(l1.iters[g.iter], sel[gi], g.shards) {
				aligned = false
				last = fmt.Sprintf("alignment fails for gmem iter %d at j=%d", g.iter, j)
				break
			}
		}
		if !aligned {
			continue
		}
		p := tmaAssemble(l1, sel, chain[:j], in.dtype)
		r := tmaValidate(p, in.dtype)
		if r == "" {
			return p, nil
		}
		last = r
	}
	return nil, tmaFail("TMA plan: all chain prefix lengths rejected; last reason: %s", last)
}

// ---- symbolic starts ----

func TmaIsZero(e ir.Expr) bool {
	v, ok := ir.ConstInt(e)
	return ok && v == 0
}

// tmaDivExact is floordiv(e, u) for an e that is provably a multiple of u,
// simplified the way TVM's analyzer does (floordiv(stage*64, 64) → stage).
func tmaDivExact(e ir.Expr, u int64) ir.Expr {
	if u == 1 {
		return e
	}
	if v, ok := ir.ConstInt(e); ok {
		return common.Cst(tmaFloorDivInt(v, u))
	}
	if b, ok := e.(*ir.Binary); ok {
		switch b.Op {
		case ir.Add, ir.Sub:
			if common.Divisible(b.A, u) && common.Divisible(b.B, u) {
				x, y := tmaDivExact(b.A, u), tmaDivExact(b.B, u)
				if b.Op == ir.Add {
					return ir.AddE(x, y)
				}
				return ir.SubE(x, y)
			}
		case ir.Mul:
			if c, ok := ir.ConstInt(b.B); ok && c%u == 0 {
				return ir.MulE(b.A, common.Cst(c/u))
			}
			if c, ok := ir.ConstInt(b.A); ok && c%u == 0 {
				return ir.MulE(common.Cst(c/u), b.B)
			}
		}
	}
	return ir.DivE(e, common.Cst(u))
}

// tmaFloorDiv is floordiv(e, u): exact when provable, else a floordiv.
func tmaFloorDiv(e ir.Expr, u int64) ir.Expr {
	if v, ok := ir.ConstInt(e); ok {
		return common.Cst(tmaFloorDivInt(v, u))
	}
	if common.Divisible(e, u) {
		return tmaDivExact(e, u)
	}
	return ir.DivE(e, common.Cst(u))
}

func tmaFloorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// tmaExprText prints an expression for a message the way TVM prints a
// PrimExpr: without the outermost parentheses.
func tmaExprText(e ir.Expr) string {
	s := dispatch.ExprText(e)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		depth := 0
		for i, r := range s {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 && i != len(s)-1 {
					return s
				}
			}
		}
		return s[1 : len(s)-1]
	}
	return s
}

// tmaIntList prints a Python list of ints: [8, 256].
func tmaIntList(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
