package permutelayout

// permute_layout/warp_xor_swizzle: a warp moves a tile from one byte
// placement (src's TileLayout) to another (dst's), staging every element
// in registers, optionally in place (dst and src alias the same storage).
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/
// permute_layout/warp_xor_swizzle.py (apache-tvm 0.25.0.post1). 0.27.0.post1
// fails on every call that passes the checks (a reference bug; see
// common.RaiseNotWellFormedFrom). Priority
// 20, no predicates: every check is in the implementation and declines
// through fail(reason), so each reason reads "declined — <reason>".
//
// Both layouts are sliced to their regions and canonicalized; dst is
// grouped by the region's non-unit extents and src by dst's grouped shard
// extents, which gives the iteration extents (row-major, V elements) and
// per-side element strides. With P = V/32 elements per lane (a power of
// two, at most 32) the lowering is
//
//	regs = alloc_buffer((P,), dtype, "local")
//	for r in unroll(P):                      // read phase
//	    j = r ^ ((lane >> (5-k)) & (2^k-1))
//	    regs[r] = src[project(decompose(lane + 32*j))]
//	T.cuda.warp_sync()
//	for r in unroll(P):                      // write phase
//	    j = ... (same)
//	    dst[project(decompose(lane + 32*j))] = regs[r]
//	T.cuda.warp_sync()
//
// where k is the smallest number of XOR bits in [0, log2 P] that makes both
// phases shared-memory bank-conflict-free (simulated on the shard strides),
// and project folds the iteration digits back onto the buffers' iterated
// dims (mixed radix over dst's group separators). The unrolled loops are
// emitted unrolled (TVM's T.unroll leaves P statements in the CUDA), with
// the index digits simplified the way TVM's analyzer does knowing
// lane < 32.

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// WarpXorSwizzle is the permute_layout/warp_xor_swizzle variant.
var WarpXorSwizzle = dispatch.Variant{
	Op: "permute_layout", Name: "warp_xor_swizzle", Target: "cuda", Priority: 20,
	Emit: emitWarpXorSwizzle,
}

// plan is what _why_reject and _impl compute from the call.
type plan struct {
	dst, src   *ir.Region
	dtype      ir.DataType
	dtypeBytes int64
	extent     []int64 // iteration extents (dst's grouped shard)
	srcStr     []int64 // element strides of src over extent
	dstStr     []int64 // element strides of dst over extent
	seps       []int   // dst's group separators over extent
	iterDims   []int   // buffer dims with a non-unit extent
	v, p       int64   // elements; elements per lane
	k          int     // XOR bits (-1: none is bank-free)
	srcLay     *layout.TileLayout
	dstLay     *layout.TileLayout
	inPlace    bool
}

// analyze is TVM _why_reject followed by the planning half of _impl; it
// returns the plan or the decline reason.
func analyze(c *dispatch.Call) (*plan, string) {
	if c.Scope != "warp" {
		return nil, fmt.Sprintf("scope %s is not 'warp'", common.PyRepr(c.Scope))
	}
	if c.LaunchTags["threadIdx.y"] || c.LaunchTags["threadIdx.z"] {
		return nil, "multi-dim threadIdx is not supported"
	}
	dst, src := operand(c, 0), operand(c, 1)
	if src.Buf.Dtype != dst.Buf.Dtype {
		return nil, fmt.Sprintf("dtype mismatch: dst=%s vs src=%s", dst.Buf.Dtype, src.Buf.Dtype)
	}
	srcExt, ok1 := constExtents(src)
	dstExt, ok2 := constExtents(dst)
	if !ok1 || !ok2 {
		return nil, "extents must be compile-time integers"
	}
	if !equalInts(srcExt, dstExt) {
		return nil, fmt.Sprintf("slice shape mismatch: src=%s vs dst=%s", pyList(srcExt), pyList(dstExt))
	}
	pl := &plan{dst: dst, src: src, dtype: src.Buf.Dtype, dtypeBytes: dtypeBytes(src.Buf.Dtype)}
	switch pl.dtypeBytes {
	case 1, 2, 4, 8, 16:
	default:
		return nil, fmt.Sprintf("unsupported dtype byte width: %d", pl.dtypeBytes)
	}
	srcL, ok := plainTile(src.Buf)
	if !ok {
		return nil, "src buffer's layout is not a plain TileLayout"
	}
	dstL, ok := plainTile(dst.Buf)
	if !ok {
		return nil, "dst buffer's layout is not a plain TileLayout"
	}
	srcSl := sliceCanon(srcL, src, srcExt)
	dstSl := sliceCanon(dstL, dst, dstExt)
	if srcSl == nil || dstSl == nil {
		return nil, "layout.slice failed"
	}
	var iterExt []int64
	for d, e := range srcExt {
		if e != 1 {
			iterExt = append(iterExt, e)
			pl.iterDims = append(pl.iterDims, d)
		}
	}
	dstG, seps, msg := groupTVM(dstSl, iterExt)
	if msg != "" {
		return nil, "layout.group failed: " + msg
	}
	srcG, _, msg := groupTVM(srcSl, dstG.Extents())
	if msg != "" {
		return nil, "layout.group failed: " + msg
	}
	pl.seps, pl.srcLay, pl.dstLay = seps, srcG, dstG
	dExt, sExt := dstG.Extents(), srcG.Extents()
	if !equalInts(sExt, dExt) {
		return nil, fmt.Sprintf("src shard %s doesn't match dst shard %s after regrouping", pyList(sExt), pyList(dExt))
	}
	pl.extent = dExt
	pl.srcStr, pl.dstStr = strides(srcG), strides(dstG)
	pl.v = product(pl.extent)
	if pl.v == 0 || pl.v%warpSize != 0 {
		return nil, fmt.Sprintf("volume %d not divisible by warp size %d", pl.v, warpSize)
	}
	pl.p = pl.v / warpSize
	if pl.p == 0 || pl.p&(pl.p-1) != 0 || pl.p > warpSize {
		return nil, fmt.Sprintf("per-thread count %d must be power of 2 in [1, %d]", pl.p, warpSize)
	}
	if !isBijection(pl.extent, pl.srcStr) {
		return nil, "src layout (regrouped) is not a bijection on the slice"
	}
	if !isBijection(pl.extent, pl.dstStr) {
		return nil, "dst layout is not a bijection on the slice"
	}
	pl.k = chooseXorK(pl.extent, pl.srcStr, pl.dstStr, pl.dtypeBytes, pl.p)
	if pl.k < 0 {
		return nil, fmt.Sprintf("no XOR-bits k ∈ [0, log2(P)=%d] makes both phases bank-free", log2(pl.p))
	}
	pl.inPlace = storageRoot(dst.Buf) == storageRoot(src.Buf)
	return pl, ""
}

// operand is argument i as a region (TVM _as_buffer_and_region raises a
// TypeError for anything else; the evaluator only passes regions).
func operand(c *dispatch.Call, i int) *ir.Region {
	r, ok := c.Region(i)
	if !ok {
		dispatch.Raise("TypeError", "unexpected permute_layout arg type: %T", c.Tile.Args[i])
	}
	return r
}

func constExtents(r *ir.Region) ([]int64, bool) {
	out := make([]int64, len(r.Extent))
	for d, e := range r.Extent {
		v, ok := ir.ConstInt(e)
		if !ok {
			return nil, false
		}
		out[d] = v
	}
	return out, true
}

func equalInts(a, b []int64) bool {
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

// dtypeBytes is DataType(dtype).bits // 8; TVM's bool is 8 bits wide.
func dtypeBytes(d ir.DataType) int64 {
	if d.Code == ir.Bool {
		return 1
	}
	return int64(d.Bits / 8)
}

// plainTile is the buffer's TileLayout (layout=None is TVM's default
// row-major TileLayout); ok is false for a swizzled (Compose) layout.
func plainTile(b *ir.Buffer) (*layout.TileLayout, bool) {
	switch l := b.Layout.(type) {
	case nil:
		return layout.RowMajor(b.Shape...), true
	case *layout.TileLayout:
		if l == nil {
			return layout.RowMajor(b.Shape...), true
		}
		return l, true
	}
	return nil, false
}

// sliceCanon is layout.slice(shape, region).canonicalize(), or nil when the
// slice is not representable. A start that is not a constant only moves
// the layout's offset, which the plan does not use: it slices at 0.
func sliceCanon(l *layout.TileLayout, r *ir.Region, ext []int64) *layout.TileLayout {
	region := make([][2]int64, len(ext))
	for d, e := range ext {
		var lo int64
		if d < len(r.Min) && r.Min[d] != nil {
			if v, ok := ir.ConstInt(r.Min[d]); ok {
				lo = v
			}
		}
		region[d] = [2]int64{lo, lo + e}
	}
	sl, err := layout.SliceTile(l, r.Buf.Shape, region)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	if sl == nil {
		return nil
	}
	return layout.CanonicalTile(sl)
}

func strides(l *layout.TileLayout) []int64 {
	out := make([]int64, len(l.Shard))
	for i, it := range l.Shard {
		out[i] = it.Stride
	}
	return out
}

// storageRoot is the buffer whose storage b views (itself when it is not a
// view); two regions alias when their roots or data pointers agree.
func storageRoot(b *ir.Buffer) any {
	for b.Base != nil {
		b = b.Base
	}
	if b.Data != nil {
		return b.Data
	}
	return b
}

func emitWarpXorSwizzle(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	pl, reason := analyze(c)
	if reason != "" {
		return nil, c.Decline(c.Span(), reason)
	}
	// 0.27.0.post1: both implementations read the lane from the caller's
	// thread variable; the wheel fails building them on every call
	// (a reference bug, docs/variants-releases.md).
	common.RaiseNotWellFormedFrom(c, release.From(release.R027))
	span := c.Span()
	// 0.26.0: shared->shared tiles of 4- or 8-byte elements take the
	// "direct" path (warp_xor_swizzle_026.go).
	direct := c.Target.Release >= release.R026 && (pl.dtypeBytes == 4 || pl.dtypeBytes == 8) &&
		strings.Contains(pl.src.Buf.Scope, "shared") && strings.Contains(pl.dst.Buf.Scope, "shared")
	regT := pl.dtype
	if direct {
		regT = ir.DataType{Code: ir.UInt, Bits: int(pl.dtypeBytes * 8)}
	}
	regs := &ir.Buffer{Name: "regs", Shape: []int64{pl.p}, Dtype: regT, Scope: "local",
		Layout: layout.RowMajor(pl.p), Kind: ir.AllocBuffer, Span: span}
	regs.Data = &ir.Var{Name: "regs_ptr", Type: ir.HandleT, Span: span}
	lane := &ir.ThreadIndex{Axis: "laneid", Span: span}
	stmts := []ir.Stmt{&ir.Alloc{Buf: regs, Span: span}}
	sync := func() ir.Stmt {
		return &ir.Evaluate{X: &ir.Call{Op: ir.OpWarpSync, Span: span}, Span: span}
	}
	for r := int64(0); r < pl.p; r++ {
		if direct {
			stmts = append(stmts, &ir.Store{Buf: regs, Indices: []ir.Expr{common.Cst(r)},
				Value: &ir.Call{Op: ir.OpPtxLdSharedPlain, Args: []ir.Expr{pl.directPtr(pl.src, pl.srcStr, lane, r)}, Type: regT, Span: span}, Span: span})
			continue
		}
		idx := pl.bufIndex(pl.src, pl.digits(lane, r))
		stmts = append(stmts, &ir.Store{Buf: regs, Indices: []ir.Expr{common.Cst(r)},
			Value: &ir.Load{Buf: pl.src.Buf, Indices: idx, Span: span}, Span: span})
	}
	stmts = append(stmts, sync())
	for r := int64(0); r < pl.p; r++ {
		if direct {
			stmts = append(stmts, &ir.Evaluate{X: &ir.Call{Op: ir.OpPtxStSharedPlain, Args: []ir.Expr{pl.directPtr(pl.dst, pl.dstStr, lane, r),
				&ir.Load{Buf: regs, Indices: []ir.Expr{common.Cst(r)}, Span: span}}, Span: span}, Span: span})
			continue
		}
		idx := pl.bufIndex(pl.dst, pl.digits(lane, r))
		stmts = append(stmts, &ir.Store{Buf: pl.dst.Buf, Indices: idx,
			Value: &ir.Load{Buf: regs, Indices: []ir.Expr{common.Cst(r)}, Span: span}, Span: span})
	}
	stmts = append(stmts, sync())
	res := &dispatch.Result{
		Body: &ir.Block{Stmts: stmts, Span: span},
		Vec:  1, VecBits: int64(pl.dtype.Bits), Outer: pl.p, Threads: warpSize,
		Partition: fmt.Sprintf("lane + 32*(r ^ ((lane >> %d) & %d)), r < %d", 5-pl.k, int64(1)<<pl.k-1, pl.p),
		Plan:      pl.items(),
	}
	return res, nil
}

// slot is j = r ^ ((lane >> (5-k)) & (2^k-1)); r itself when k = 0.
func (pl *plan) slot(lane ir.Expr, r int64) ir.Expr {
	if pl.k == 0 {
		return common.Cst(r)
	}
	m := ir.Bin(ir.BitAnd, ir.Bin(ir.Shr, lane, common.Cst(int64(5-pl.k))), common.Cst(int64(1)<<pl.k-1))
	return ir.Bin(ir.BitXor, common.Cst(r), m)
}

// digits decomposes lane + 32*j row-major over the iteration extents, with
// lane < 32 and the extents powers of two (V = 32*P is one): a digit whose
// place value B is at least 32 comes from j alone, one that ends within
// the first 32 from the lane alone, one that straddles from both.
func (pl *plan) digits(lane ir.Expr, r int64) []ir.Expr {
	j := pl.slot(lane, r)
	out := make([]ir.Expr, len(pl.extent))
	place := int64(1)
	for d := len(pl.extent) - 1; d >= 0; d-- {
		e := pl.extent[d]
		switch {
		case e == 1:
			out[d] = common.Cst(0)
		case place >= warpSize:
			out[d] = maskE(shrE(j, log2(place/warpSize)), e)
		case place*e <= warpSize:
			q := shrE(lane, log2(place))
			if place*e < warpSize {
				q = maskE(q, e)
			}
			out[d] = q
		default: // place < 32 < place*e
			hi := maskE(j, e*place/warpSize)
			out[d] = ir.AddE(shrE(lane, log2(place)), ir.MulE(hi, common.Cst(warpSize/place)))
		}
		place *= e
	}
	return out
}

func shrE(x ir.Expr, n int) ir.Expr {
	if n == 0 {
		return x
	}
	if v, ok := ir.ConstInt(x); ok {
		return common.Cst(v >> n)
	}
	return ir.Bin(ir.Shr, x, common.Cst(int64(n)))
}

// maskE is x % e for a power of two e, printed as TVM prints it (x & (e-1)).
func maskE(x ir.Expr, e int64) ir.Expr {
	if v, ok := ir.ConstInt(x); ok {
		return common.Cst(v & (e - 1))
	}
	return ir.Bin(ir.BitAnd, x, common.Cst(e-1))
}

// bufIndex is TVM _project: the region's starts, plus on each iterated
// buffer dim the mixed-radix fold of that dim's group of digits.
func (pl *plan) bufIndex(r *ir.Region, digits []ir.Expr) []ir.Expr {
	idx := make([]ir.Expr, len(r.Extent))
	for d := range idx {
		if d < len(r.Min) && r.Min[d] != nil {
			idx[d] = r.Min[d]
		} else {
			idx[d] = common.Cst(0)
		}
	}
	for g := 0; g+1 < len(pl.seps); g++ {
		lo, hi := pl.seps[g], pl.seps[g+1]
		var flat ir.Expr = common.Cst(0)
		place := int64(1)
		for i := hi - 1; i >= lo; i-- {
			flat = ir.AddE(ir.MulE(digits[i], common.Cst(place)), flat)
			place *= pl.extent[i]
		}
		d := pl.iterDims[g]
		idx[d] = ir.AddE(idx[d], flat)
	}
	return idx
}

// items is the plan shown in hovers and the JSON record.
func (pl *plan) items() []dispatch.PlanItem {
	shift, mask := 5-pl.k, int64(1)<<pl.k-1
	pattern := "j = r (no XOR: both phases are conflict-free as is)"
	if pl.k > 0 {
		pattern = fmt.Sprintf("j = r ^ ((lane >> %d) & %d)", shift, mask)
	}
	bits := "none"
	if pl.k > 0 {
		bits = fmt.Sprintf("lane bits %d..%d into register-slot bits 0..%d", shift, 4, pl.k-1)
	}
	readK0 := conflictWays(pl.extent, pl.srcStr, pl.dtypeBytes, pl.p, 0)
	writeK0 := conflictWays(pl.extent, pl.dstStr, pl.dtypeBytes, pl.p, 0)
	place := "separate buffers"
	if pl.inPlace {
		place = "in place (dst and src share storage): every lane reads all its elements before any writes"
	}
	return []dispatch.PlanItem{
		{Key: "iteration", Value: fmt.Sprintf("%s = %d elements, element i = lane + 32*j", pyList(pl.extent), pl.v),
			Fields: []dispatch.PlanItem{
				{Key: "src strides", Value: pyList(pl.srcStr) + " (" + tvmLayoutString(pl.srcLay) + ")"},
				{Key: "dst strides", Value: pyList(pl.dstStr) + " (" + tvmLayoutString(pl.dstLay) + ")"},
			}},
		{Key: "buffer index", Value: pl.projection()},
		{Key: "per lane", Value: fmt.Sprintf("%d × %s in registers (regs[%d]), 1 element per access", pl.p, pl.dtype, pl.p)},
		{Key: "xor pattern", Value: pattern, Fields: []dispatch.PlanItem{
			{Key: "k", Value: fmt.Sprintf("%d (shift %d, mask %d)", pl.k, shift, mask)},
			{Key: "bits", Value: bits},
			{Key: "without xor", Value: fmt.Sprintf("read %d-way, write %d-way bank conflict", readK0, writeK0)},
			{Key: "with xor", Value: "read and write conflict-free"},
		}},
		{Key: "steps", Value: fmt.Sprintf("2 phases × %d unrolled accesses per lane (read src → regs, write regs → dst)", pl.p)},
		{Key: "placement", Value: place},
		{Key: "syncs", Value: "2 × __syncwarp: after the read phase and after the write phase"},
	}
}

// projection describes how the iteration digits fold onto the buffers'
// dims: "dim 1 ← [2, 4], dim 2 ← [32]" (TVM _project).
func (pl *plan) projection() string {
	var parts []string
	for g := 0; g+1 < len(pl.seps); g++ {
		parts = append(parts, fmt.Sprintf("dim %d ← %s", pl.iterDims[g], pyList(pl.extent[pl.seps[g]:pl.seps[g+1]])))
	}
	if len(parts) == 0 {
		return "no iterated dim"
	}
	return strings.Join(parts, ", ") + " (mixed radix, plus the region's starts)"
}
