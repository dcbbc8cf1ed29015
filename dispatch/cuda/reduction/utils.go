package reduction

// reduction/utils: what the reduction variants share (TVM
// backend/cuda/operator/tile_primitive/reduction/utils.py, 0.25.0.post1):
// the call's operands (dst, src, axes, accum), the op's combine function and
// identity, the storage-scope predicate, the axis normalization, the
// per-dimension thread/local analysis of a layout (shuffle masks, local
// regions, the dst/src layout check) and the index builders. Messages are
// the reference's, verbatim.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// redOp is a ReduceOpType.
type redOp int

const (
	opSum redOp = iota
	opMax
	opMin
)

// String is the op's name (TVM _REDUCE_OP_TO_STR).
func (o redOp) String() string { return [...]string{"sum", "max", "min"}[o] }

// combine is TVM reduce_op_table: a + b, T.max(a, b), T.min(a, b).
func (o redOp) combine(a, b ir.Expr, span source.Span) ir.Expr {
	op := [...]ir.BinOp{ir.Add, ir.Max, ir.Min}[o]
	return &ir.Binary{Op: op, A: a, B: b, Span: span}
}

// identity is TVM reduce_default_value_table(dtype)[op]: 0.0 for a sum,
// T.min_value(dtype) for a max, T.max_value(dtype) for a min.
func (o redOp) identity(dt ir.DataType, span source.Span) ir.Expr {
	if !dt.IsFloat() {
		var lo, hi int64
		switch {
		case dt.Code == ir.UInt:
			lo, hi = 0, int64(uint64(1)<<uint(dt.Bits)-1)
			if dt.Bits >= 64 {
				hi = math.MaxInt64
			}
		case dt.Code == ir.Bool:
			lo, hi = 0, 1
		default:
			lo, hi = -(int64(1) << uint(dt.Bits-1)), int64(1)<<uint(dt.Bits-1)-1
		}
		v := [...]int64{0, lo, hi}[o]
		return &ir.IntImm{Value: v, Type: dt, Span: span}
	}
	big := maxFinite(dt)
	v := [...]float64{0, -big, big}[o]
	return &ir.FloatImm{Value: v, Type: dt, Span: span}
}

// maxFinite is T.max_value of a float type.
func maxFinite(dt ir.DataType) float64 {
	switch {
	case dt.Code == ir.Float && dt.Bits == 16:
		return 65504
	case dt.Code == ir.Float && dt.Bits == 64:
		return math.MaxFloat64
	case dt.Code == ir.BFloat:
		// TVM's T.max_value("bfloat16") is float32's (it rounds to
		// infinity in bfloat16; the same result on finite data).
		return math.MaxFloat32
	case dt.Code == ir.Float8E4M3:
		return 448
	case dt.Code == ir.Float8E5M2:
		return 57344
	}
	return math.MaxFloat32
}

// redCall is a reduction call's operands (TVM _reduction_args).
type redCall struct {
	dst, src common.Region
	// axes are the reduce axes as written (negative allowed).
	axes         []int64
	accum        bool
	threadReduce bool
}

// args reads the call: [dst, src, axes, accum] with nil meaning the
// default (axes -1, accum False), thread_reduce from the config. Operands
// that are not regions, and region extents that are not constants, are
// exceptions here (TVM needs BufferRegions; tilels needs constant extents).
func args(c *dispatch.Call) *redCall {
	if m, ok := c.Scratch().(*redCall); ok {
		return m
	}
	r := &redCall{axes: []int64{-1}}
	for i := range 2 {
		if _, ok := c.Region(i); !ok {
			dispatch.Raise("TypeError", "argument %d of %s is not a buffer region", i, c.Op())
		}
		g, ok := common.ReadRegion(c, i)
		if !ok {
			dispatch.Raise("ValueError", "tilels needs constant region extents: %s", dispatch.ExprText(g.R))
		}
		if i == 0 {
			r.dst = g
		} else {
			r.src = g
		}
	}
	if len(c.Tile.Args) > 2 && c.Tile.Args[2] != nil {
		r.axes = nil
		switch a := c.Tile.Args[2].(type) {
		case *ir.Tuple:
			for _, e := range a.Elems {
				v, ok := ir.ConstInt(e)
				if !ok {
					dispatch.Raise("TypeError", "reduce axis %s is not an integer", dispatch.ExprText(e))
				}
				r.axes = append(r.axes, v)
			}
		default:
			v, ok := ir.ConstInt(a)
			if !ok {
				dispatch.Raise("TypeError", "reduce axis %s is not an integer", dispatch.ExprText(a))
			}
			r.axes = []int64{v}
		}
	}
	if len(c.Tile.Args) > 3 && c.Tile.Args[3] != nil {
		r.accum = truthy(c.Tile.Args[3])
	}
	if v, ok := c.Config("thread_reduce"); ok {
		r.threadReduce = truthy(v)
	}
	c.SetScratch(r)
	return r
}

func truthy(e ir.Expr) bool {
	switch v := e.(type) {
	case *ir.IntImm:
		return v.Value != 0
	case *ir.FloatImm:
		return v.Value != 0
	}
	return e != nil
}

// opOf maps the op name to its ReduceOpType.
func opOf(c *dispatch.Call) redOp {
	switch c.Op() {
	case "max":
		return opMax
	case "min":
		return opMin
	}
	return opSum
}

// storageScope is TVM _match_reduction_storage_scope: dst and src both
// match one of the patterns.
func storageScope(patterns ...string) func(*dispatch.Call) *dispatch.Decline {
	q := make([]string, len(patterns))
	for i, p := range patterns {
		q[i] = common.PyRepr(p)
	}
	expected := "[" + strings.Join(q, ", ") + "]"
	return func(c *dispatch.Call) *dispatch.Decline {
		r := args(c)
		ds, ss := r.dst.Buf.Scope, r.src.Buf.Scope
		for _, p := range patterns {
			if common.MatchScope(ds, p) && common.MatchScope(ss, p) {
				return nil
			}
		}
		return c.Declinef(c.Span(), "storage scope mismatch: dst %s, src %s; expected %s", ds, ss, expected)
	}
}

// analyzeAxes is TVM _analyze_axes: the sorted reduce dims and the spatial
// dims of an ndim-dimensional src; msg is the assertion text of an axis out
// of range.
func analyzeAxes(ndim int, axes []int64) (reduce, spatial []int, msg string) {
	for _, ax := range axes {
		a := ax
		if a < 0 {
			a += int64(ndim)
		}
		if a < 0 || a >= int64(ndim) {
			return nil, nil, fmt.Sprintf("reduce axis %d out of range for ndim=%d", ax, ndim)
		}
		if !slices.Contains(reduce, int(a)) {
			reduce = append(reduce, int(a))
		}
	}
	slices.Sort(reduce)
	for d := range ndim {
		if !slices.Contains(reduce, d) {
			spatial = append(spatial, d)
		}
	}
	return reduce, spatial, ""
}

// mustAxes is analyzeAxes where TVM lets the AssertionError escape.
func mustAxes(ndim int, axes []int64) (reduce, spatial []int) {
	reduce, spatial, msg := analyzeAxes(ndim, axes)
	if msg != "" {
		dispatch.Raise("AssertionError", "%s", msg)
	}
	return reduce, spatial
}

func prod(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}

func pick(xs []int64, dims []int) []int64 {
	out := make([]int64, len(dims))
	for i, d := range dims {
		out[i] = xs[d]
	}
	return out
}

// ---- layout analysis ----

// dimInfo is one dimension of a layout grouped by a shape (TVM
// _analyze_layout_dims): the product of its thread iters' extents, of its
// memory iters' extents, and its thread iters as (stride, extent).
type dimInfo struct {
	threadExt, localExt int64
	threadIters         []layout.Iter
	hasLocal            bool
}

// group is layout.group(shape); TVM raises on a failure.
func group(l *layout.TileLayout, shape []int64) (*layout.TileLayout, []int) {
	g, seps, err := layout.Group(l, shape)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	return g, seps
}

func analyzeLayoutDims(l *layout.TileLayout, shape []int64) []dimInfo {
	g, seps := group(l, shape)
	out := make([]dimInfo, len(shape))
	for d := range shape {
		di := dimInfo{threadExt: 1, localExt: 1}
		for _, it := range g.Shard[seps[d]:seps[d+1]] {
			if it.Axis.IsThread() {
				di.threadExt *= it.Extent
				di.threadIters = append(di.threadIters, it)
			} else {
				di.localExt *= it.Extent
				di.hasLocal = true
			}
		}
		out[d] = di
	}
	return out
}

// shuffleMasks is TVM _compute_shuffle_masks: for each thread iter of a
// reduce dim, stride·2^i for i < log2(extent), sorted ascending.
func shuffleMasks(info []dimInfo, reduceDims []int) []int64 {
	var masks []int64
	for _, d := range reduceDims {
		for _, it := range info[d].threadIters {
			for i := range log2(it.Extent) { // int(math.log2(extent))
				masks = append(masks, it.Stride*(int64(1)<<i))
			}
		}
	}
	slices.Sort(masks)
	return masks
}

// localDimMap is TVM _build_local_dim_map: the position of each dimension
// in get_local_region's output, -1 for a dimension with no memory iter.
func localDimMap(l *layout.TileLayout, shape []int64) []int {
	out := make([]int, len(shape))
	pos := 0
	for d, di := range analyzeLayoutDims(l, shape) {
		if di.hasLocal {
			out[d] = pos
			pos++
		} else {
			out[d] = -1
		}
	}
	return out
}

// localRegion is the result of TVM get_local_region: per dimension with a
// memory iter, the full local extent, the region's start and extent in it.
type localRegion struct {
	shape []int64
	st    []ir.Expr
	ext   []int64
}

// getLocalRegion is TVM get_local_region on the unsliced layout; ok is
// false when the region is not a rectangle of whole thread iters.
func getLocalRegion(l *layout.TileLayout, shape []int64, st []ir.Expr, ext []int64) (localRegion, bool) {
	g, seps := group(l, shape)
	var lr localRegion
	for d := range shape {
		its := g.Shard[seps[d]:seps[d+1]]
		hasLocal, hasThread := false, false
		for _, it := range its {
			if it.Axis.IsThread() {
				hasThread = true
			} else {
				hasLocal = true
			}
		}
		if !hasLocal {
			continue
		}
		if !hasThread {
			lr.shape = append(lr.shape, shape[d])
			lr.st = append(lr.st, st[d])
			lr.ext = append(lr.ext, ext[d])
			continue
		}
		s0, ok := ir.ConstInt(st[d])
		if !ok {
			return lr, false // TVM's analyzer cannot prove the digits
		}
		split := func(x int64) []int64 {
			out := make([]int64, len(its))
			for i := range its {
				sub := int64(1)
				for _, jt := range its[i+1:] {
					sub *= jt.Extent
				}
				out[i] = x / sub
				x %= sub
			}
			return out
		}
		stc, endc := split(s0), split(s0+ext[d]-1)
		var lShape, lSt, lEnd int64 = 1, 0, 0
		for k := len(its) - 1; k >= 0; k-- {
			full := stc[k] == 0 && endc[k] == its[k].Extent-1
			if its[k].Axis.IsThread() {
				if !full {
					return lr, false
				}
				continue
			}
			if endc[k]-stc[k] != 1 && !full {
				return lr, false
			}
			lShape *= its[k].Extent
			lSt = lSt*its[k].Extent + stc[k]
			lEnd = lEnd*its[k].Extent + endc[k]
		}
		n := int64(1)
		for k := range its {
			n *= endc[k] - stc[k] + 1
		}
		if n != ext[d] {
			dispatch.Raise("AssertionError", "")
		}
		lr.shape = append(lr.shape, lShape)
		lr.st = append(lr.st, common.Cst(lSt))
		lr.ext = append(lr.ext, lEnd-lSt+1)
	}
	if len(lr.shape) == 0 {
		return localRegion{shape: []int64{1}, st: []ir.Expr{common.Cst(0)}, ext: []int64{1}}, true
	}
	return lr, true
}

// sublayout is TVM get_sublayout_from_region: the layout sliced to the
// region, or the layout itself when the slice is not representable.
func sublayout(g common.Region) *layout.TileLayout {
	lay := g.Lay.(*layout.TileLayout)
	bounds := g.Bounds
	if !g.Static {
		return lay // a symbolic start: TVM's slice of it is not a constant layout
	}
	s, err := layout.Slice(lay, g.Buf.Shape, bounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	if s == nil {
		return lay
	}
	return s.(*layout.TileLayout)
}

// validateLayouts is TVM _validate_reduction_layout: the spatial dims of
// dst have src's thread and local extents, the reduce dims of dst keep
// src's thread extent with local extent 1, unit dims skipped.
func validateLayouts(src, dst *layout.TileLayout, srcExt, dstExt []int64, reduceDims []int) string {
	si := analyzeLayoutDims(src, srcExt)
	di := analyzeLayoutDims(dst, dstExt)
	type te struct{ t, l int64 }
	var want []te
	for d := range srcExt {
		if si[d].threadExt == 1 && si[d].localExt == 1 {
			continue
		}
		if slices.Contains(reduceDims, d) {
			if si[d].threadExt != 1 {
				want = append(want, te{si[d].threadExt, 1})
			}
		} else {
			want = append(want, te{si[d].threadExt, si[d].localExt})
		}
	}
	k := 0
	for d := range dstExt {
		if di[d].threadExt == 1 && di[d].localExt == 1 {
			continue
		}
		if k >= len(want) {
			dispatch.Raise("IndexError", "list index out of range")
		}
		if di[d].threadExt != want[k].t || di[d].localExt != want[k].l {
			return "mismatch dst/src layout for reduction"
		}
		k++
	}
	if k != len(want) {
		return "mismatch dst/src layout for reduction"
	}
	return ""
}

// ---- index builders ----

// indices is TVM get_indices(nth, start, extent): one dimension is
// start + nth; several are the mixed-radix digits of nth (last fastest)
// plus the starts. nth ranges over [0, ∏ extent), so the first digit is
// left unreduced (TVM's `% e` of it is a no-op the simplifier drops).
func indices(nth ir.Expr, st []ir.Expr, ext []int64) []ir.Expr {
	if len(st) == 1 {
		return []ir.Expr{ir.AddE(nth, st[0])}
	}
	ds := common.DigitExprs(nth, ext)
	for i := range ds {
		ds[i] = ir.AddE(ds[i], st[i]) // TVM's simplifier puts the start last
	}
	return ds
}

// srcIndices is TVM build_src_indices: the spatial and reduction fused
// indices split over their dims' extents and interleaved into a full src
// index. Both fused indices range below the products of their extents.
func srcIndices(spa, red ir.Expr, spatial, reduce []int, ext []int64, st []ir.Expr) []ir.Expr {
	full := make([]ir.Expr, len(ext))
	put := func(f ir.Expr, dims []int) {
		if len(dims) == 0 {
			return
		}
		ds := common.DigitExprs(f, pick(ext, dims))
		for i, d := range dims {
			full[d] = ir.AddE(ds[i], st[d])
		}
	}
	put(spa, spatial)
	put(red, reduce)
	return full
}

// ---- small IR helpers ----

// add is a + b with constants folded into a trailing constant term
// ((x + 8) + 2 is x + 10), as TVM's simplifier prints sums.
func add(a, b ir.Expr) ir.Expr {
	if ca, ok := ir.ConstInt(a); ok {
		a, b = b, common.Cst(ca)
	}
	cb, ok := ir.ConstInt(b)
	if !ok {
		return ir.AddE(a, b)
	}
	if x, isAdd := a.(*ir.Binary); isAdd && x.Op == ir.Add {
		if cx, ok := ir.ConstInt(x.B); ok {
			return ir.AddE(x.A, common.Cst(cx+cb))
		}
	}
	return ir.AddE(a, b)
}

func load(b *ir.Buffer, idx []ir.Expr, span source.Span) ir.Expr {
	return &ir.Load{Buf: b, Indices: idx, Span: span}
}

func store(b *ir.Buffer, idx []ir.Expr, v ir.Expr, span source.Span) ir.Stmt {
	return &ir.Store{Buf: b, Indices: idx, Value: v, Span: span}
}

// loop is `for name in range(n)` (kind serial or unroll); n == 1 binds the
// variable to 0 and n == 0 is nothing.
func loop(name string, n int64, kind ir.ForKind, span source.Span, body func(v ir.Expr) []ir.Stmt) []ir.Stmt {
	switch {
	case n <= 0:
		return nil
	case n == 1:
		return body(common.Cst(0))
	}
	v := &ir.Var{Name: name, Type: ir.Int32, Span: span}
	return []ir.Stmt{&ir.For{Var: v, Extent: common.Cst(n), Kind: kind,
		Body: &ir.Block{Stmts: body(v), Span: span}, Span: span}}
}

// ifThen is `if cond: then`.
func ifThen(cond ir.Expr, then []ir.Stmt, span source.Span) ir.Stmt {
	return &ir.If{Cond: cond, Then: &ir.Block{Stmts: then, Span: span}, Span: span}
}

// localBuf is a `T.alloc_buffer(shape, dtype, scope="local")` of the
// lowering.
func localBuf(name string, shape []int64, dt ir.DataType, span source.Span) *ir.Buffer {
	return &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: "local", Layout: layout.RowMajor(shape...),
		Kind: ir.AllocBuffer, Span: span}
}

// localView is TVM buf.local(*shape): a view of buf's registers with its
// storage layout (the thread axes dropped).
func localView(name string, b *ir.Buffer, shape []int64, span source.Span) *ir.Buffer {
	return &ir.Buffer{Name: name, Data: b.Data, Shape: shape, Dtype: b.Dtype, Scope: b.Scope,
		Layout: layout.Storage(b.Layout), ElemOffset: b.ElemOffset, Base: b, Kind: ir.DeclBuffer, Span: span}
}

func intList(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

func plan(k, v string) dispatch.PlanItem { return dispatch.PlanItem{Key: k, Value: v} }

// serialReduce is the one-thread lowering both the local and the shared
// variants use (TVM _emit_reduction_local_thread_wise and
// _emit_reduction_shared_thread, which differ only in their loop names):
// for each spatial position, dst = identity unless accum, then a serial
// loop folds every reduced element of src into dst.
func serialReduce(r *redCall, op redOp, reduceDims, spatialDims []int, spaName, redName string, sp source.Span) (body []ir.Stmt, spaLen, redLen int64) {
	dst, src := r.dst.Buf, r.src.Buf
	spaLen = prod(pick(r.src.Exts, spatialDims))
	redLen = prod(pick(r.src.Exts, reduceDims))
	init := op.identity(src.Dtype, sp)
	body = loop(spaName, spaLen, ir.Serial, sp, func(spa ir.Expr) []ir.Stmt {
		di := indices(spa, r.dst.Mins, r.dst.Exts)
		var out []ir.Stmt
		if !r.accum {
			out = append(out, store(dst, di, init, sp))
		}
		return append(out, loop(redName, redLen, ir.Serial, sp, func(red ir.Expr) []ir.Stmt {
			si := srcIndices(spa, red, spatialDims, reduceDims, r.src.Exts, r.src.Mins)
			return []ir.Stmt{store(dst, di, op.combine(load(dst, di, sp), load(src, si, sp), sp), sp)}
		})...)
	})
	return body, spaLen, redLen
}
