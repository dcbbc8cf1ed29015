package copyasync

// copy_async/tma: global <-> shared copies with the Tensor Memory
// Accelerator (cp.async.bulk.tensor), issued by one thread, priority 10
// (spec §4.5).
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/copy_async/
// tma.py (copy_tma_impl, the L1/L2/L3 planner) and tma_utils.py at PRE
// abe2526b3e (= apache-tvm 0.25.0.post1); registered for 0.25 only. The
// planner itself is tma_plan.go. 0.26+ replaced it with tma_auto and
// tma_explicit (tma_auto.go, tma_explicit.go).
//
// Rejects (every predicate is evaluated, TVM's names and messages):
// validate_copy_op ("not a valid copy op") and single_thread ("unsupported
// exec_scope T.ExecScope(\"warp\"), expected single thread": TVM formats
// sctx.exec_scope, an ExecScope object, whose str() is its script form).
// Because copy_async/ldgsts outranks it (priority 20), a plain
// Tx.copy_async(smem, gmem) only becomes a TMA copy with dispatch="tma".
//
// Declines (TVM fail()) with TVM's messages: an oob mode other than
// None/"zero"/"nan", oob="nan" on a non-float dtype, a multi-iter global
// dimension whose region is not aligned to its inner iters, no legal
// chain prefix ("TMA plan: all chain prefix lengths rejected; last reason:
// ..."), an unknown tma_dtype or one on a non-float32 descriptor, and
// prefetch_tensormap in a kernel without threadIdx.x. Raises, as TVM does
// (an exception row): a scope pair other than global<->shared* (ValueError),
// non-memory layouts, a global layout that is not a TileLayout, layouts
// that cannot be grouped or sliced (ValueError / TVMError), cta_mask on a
// shared->global copy (AssertionError) and a g2s copy without mbar
// (ValueError "mbar is not set in config"). tilels-specific declines: a
// non-constant region extent, and a symbolic shared start in a dimension
// the slice cannot place at a symbolic offset.
//
// Emits an unrolled loop over the issues (always, even for one issue) of
// one ir.OpCpAsyncBulkTensorG2C / S2G / S2GReduce call per issue, with the
// ir/ops.go argument conventions: the shared pointer is the flat address
// &smem[issue offset + tile(region start)] (the buffer's own elem offset is
// part of its pointer in tilels), the coordinates are in CUDA order, the
// descriptor is an *ir.TensorMap named "<global data var>_tensormap",
// deduplicated per Lower run with TVM's cache key (Result.TensorMaps holds
// it only the first time). prefetch_tensormap=True adds, once per
// descriptor, the kernel-start statement `if warpid == 0:
// prefetch.tensormap`.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var CopyAsyncTMA = dispatch.Variant{
	Op: "copy_async", Name: "tma", Target: "cuda", Priority: 10, Releases: release.Only(release.R025),
	Renamed: []string{"tma_auto", "tma_explicit"}, // 0.26's names
	When: []dispatch.Pred{
		{Name: "validate_copy_op", Check: tmaValidCopyOp},
		{Name: "single_thread", Check: tmaSingleThread},
	},
	Emit: EmitTMA,
}

func tmaValidCopyOp(c *dispatch.Call) *dispatch.Decline {
	if !common.ValidateCopy(c) {
		return c.Decline(c.Span(), "not a valid copy op")
	}
	return nil
}

// tmaSingleThread is TVM single_thread with tma's message, which prints
// sctx.exec_scope (an ExecScope object) in its TVMScript form.
func tmaSingleThread(c *dispatch.Call) *dispatch.Decline {
	if c.Scope != "thread" {
		return c.Declinef(common.OpSpan(c), `unsupported exec_scope T.ExecScope("%s"), expected single thread`, c.Scope)
	}
	return nil
}

// tmaNaNTypes are the dtypes TVM accepts with oob="nan".
var tmaNaNTypes = map[string]bool{"float16": true, "float32": true, "float64": true, "bfloat16": true}

func EmitTMA(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	span := c.Span()
	src, dst := c.Src(), c.Dst()
	ss, ds := src.Buf.Scope, dst.Buf.Scope
	var dir string
	gi, si := 1, 0
	switch {
	case ss == "global" && strings.HasPrefix(ds, "shared"):
		dir = "g2s"
	case strings.HasPrefix(ss, "shared") && ds == "global":
		dir, gi, si = "s2g", 0, 1
	default:
		dispatch.Raise("ValueError", "Unsupported combination of src and dst scopes: src=%s dst=%s", ss, ds)
	}
	for _, i := range []int{gi, si} {
		r, _ := c.Region(i)
		for _, e := range r.Extent {
			if _, ok := ir.ConstInt(e); !ok {
				return nil, c.Declinef(c.ArgSpan(i), "non-constant region extent %s: tilels plans TMA copies with constant extents", tmaExprText(e))
			}
		}
	}
	gr, _ := c.Region(gi)
	for b := gr.Buf; b != nil; b = b.Base {
		if b.ElemOffsetExpr != nil {
			return nil, c.Declinef(c.ArgSpan(gi), "global view %s at the device-dependent element offset %s: tilels builds tensor maps at static offsets", b.Name, tmaExprText(b.ElemOffsetExpr))
		}
	}
	g, _ := common.ConstRegion(c, gi)
	s, _ := common.ConstRegion(c, si)

	// oob (TVM _normalize_oob_mode / _oob_fill_kind).
	oobFill := 0
	if v, ok := c.Config("oob"); ok {
		mode, isStr := v.(*ir.StringImm)
		if !isStr || (mode.Value != "zero" && mode.Value != "nan") {
			return nil, c.Declinef(c.ConfigSpan("oob"), "Unsupported TMA oob mode: %s. Expected None, 'zero', or 'nan'.", tmaPyRepr(v))
		}
		if mode.Value == "nan" {
			if !tmaNaNTypes[s.Buf.Dtype.String()] {
				return nil, c.Decline(c.ConfigSpan("oob"), "TMA oob='nan' requires a floating-point dtype")
			}
			oobFill = 1
		}
	}

	if d := tmaSymbolicSmemStart(c, s); d != nil {
		return nil, d
	}
	plan, f := planTMA(tmaInput{
		smem: s.Lay, smemShape: s.Buf.Shape, smemRegion: s.Bounds,
		gmem: g.Lay, gmemShape: g.Buf.Shape, gStart: g.Mins, gExt: g.Exts,
		dtype: s.Buf.Dtype,
	})
	if f != nil {
		if f.exc != "" {
			dispatch.Raise(f.exc, "%s", f.msg)
		}
		return nil, c.Decline(span, f.msg)
	}

	// Configuration that does not change the plan.
	force := -1
	if v, ok := c.Config("tma_dtype"); ok {
		name, isStr := v.(*ir.StringImm)
		if !isStr || (name.Value != "tf32" && name.Value != "tfloat32") {
			return nil, c.Declinef(c.ConfigSpan("tma_dtype"), "Unsupported tma_dtype=%s; expected one of ['tf32', 'tfloat32']", tmaPyRepr(v))
		}
		if plan.dtype != ir.Float32 {
			return nil, c.Declinef(c.ConfigSpan("tma_dtype"), "tma_dtype=%s requires a float32 descriptor; got %s", tmaPyRepr(v), plan.dtype)
		}
		force = 11 // CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
	}
	ctaGroup, ok := c.Config("cta_group")
	if !ok {
		ctaGroup = common.Cst(-1)
		if c.Target.Arch == "sm_100a" {
			ctaGroup = common.Cst(1)
		}
	}
	var ctaMask ir.Expr = common.Cst(0)
	if v, ok := c.Config("cta_mask"); ok {
		if dir != "g2s" {
			dispatch.Raise("AssertionError", "cta_mask is only supported for global to shared copy")
		}
		ctaMask = v
	}
	var mbar ir.Expr
	if dir == "g2s" {
		if mbar, ok = c.Config("mbar"); !ok {
			dispatch.Raise("ValueError", "mbar is not set in config")
		}
	}
	reduce, hasReduce := c.Config("use_tma_reduce")
	hint, ok := c.Config("cache_hint")
	if !ok {
		hint = &ir.StringImm{Value: "", Span: span}
	}
	prefetch := false
	if v, ok := c.Config("prefetch_tensormap"); ok {
		prefetch = tmaTruthy(v)
	}
	// TVM checks this after registering the descriptor; checking first
	// keeps the per-run cache consistent with the maps Lower collects.
	if prefetch && !c.LaunchTags["threadIdx.x"] {
		return nil, c.Decline(c.ConfigSpan("prefetch_tensormap"), "tma prefetch_tensormap requires warp_id_in_cta launch param")
	}

	m, key := tmaTensorMap(c, g.Buf, plan, oobFill, force)
	res := &dispatch.Result{Outer: plan.issues(), Threads: 1}
	if cached, ok := c.CacheGet(key); ok {
		m = cached.(*ir.TensorMap)
	} else {
		c.CacheSet(key, m)
		res.TensorMaps = []*ir.TensorMap{m}
	}
	if prefetch {
		pkey := "prefetch_tensormap:" + key
		if _, ok := c.CacheGet(pkey); !ok {
			c.CacheSet(pkey, m)
			res.Init = append(res.Init, &ir.If{
				Cond: ir.Bin(ir.EQ, &ir.ThreadIndex{Axis: "warpid", Span: span}, common.Cst(0)),
				Then: &ir.Block{Stmts: []ir.Stmt{&ir.Evaluate{X: &ir.Call{Op: ir.OpPrefetchTensormap,
					Args: []ir.Expr{&ir.TensorMapAddr{Map: m, Span: span}}, Span: span}, Span: span}}, Span: span},
				Span: span,
			})
		}
	}

	// The issue loop.
	flat := plan.issues()
	it := &ir.Var{Name: "loop_vars", Type: ir.Int32, Span: span}
	sOff, coords := tmaIssueExprs(plan, it, flat)
	base := common.ApplyExpr(tmaSmemTile(s.Lay, s.Buf.Shape), s.Mins, s.Buf.Shape)
	ptr := &ir.AddressOf{Buf: s.Buf, Indices: []ir.Expr{ir.SimplifyIndex(ir.AddE(sOff, base))}, FlatIndex: true, Span: span}
	addr := &ir.TensorMapAddr{Map: m, Span: span}
	rank := common.Cst(int64(plan.rank()))
	var call *ir.Call
	switch {
	case dir == "g2s":
		call = &ir.Call{Op: ir.OpCpAsyncBulkTensorG2C, Args: append([]ir.Expr{rank, ptr, mbar, addr, ctaMask, ctaGroup, hint}, coords...)}
	case hasReduce:
		call = &ir.Call{Op: ir.OpCpAsyncBulkTensorS2GReduce, Args: append([]ir.Expr{rank, ptr, addr, hint, reduce}, coords...)}
	default:
		call = &ir.Call{Op: ir.OpCpAsyncBulkTensorS2G, Args: append([]ir.Expr{rank, ptr, addr, hint}, coords...)}
	}
	call.Span = span
	loop := &ir.For{Var: it, Min: common.Cst(0), Extent: common.Cst(flat), Kind: ir.Unrolled, Span: span,
		Body: &ir.Block{Stmts: []ir.Stmt{&ir.Evaluate{X: call, Span: span}}, Span: span}}
	res.Body = &ir.Block{Stmts: []ir.Stmt{loop}, Span: span}

	var axes []string
	for _, a := range plan.axes {
		axes = append(axes, fmt.Sprintf("extent %d: smem +%d, coord dim %d +%d", a.extent, a.smemStride, plan.rank()-1-a.dim, a.advance))
	}
	res.TMA = &dispatch.TMA{Map: m, Direction: dir, Issues: flat, IssueAxes: axes}
	res.Partition = fmt.Sprintf("tma %s %dd box %s, %d issue(s)", dir, m.Rank, tmaIntList(m.Box), flat)
	res.Notes = append(res.Notes,
		fmt.Sprintf("tma descriptor: rank %d, %s, dims %s, strides %s B, box %s, swizzle %s",
			m.Rank, m.DType, tmaIntList(m.GlobalDims), tmaIntList(m.GlobalStrides), tmaIntList(m.Box), tmaSwizzleName[m.Swizzle]))
	if plan.dtype != s.Buf.Dtype {
		res.Notes = append(res.Notes, fmt.Sprintf("tma element promoted from %s to %s to merge contiguous dims", s.Buf.Dtype, plan.dtype))
	}
	if len(axes) == 0 {
		res.Notes = append(res.Notes, "tma issue axes: none (one instruction)")
	} else {
		res.Notes = append(res.Notes, "tma issue axes (outer to inner, CUDA dims): "+strings.Join(axes, "; "))
	}
	return res, nil
}

var tmaSwizzleName = [...]string{"none", "32B", "64B", "128B"}

// tmaSymbolicSmemStart declines a symbolic shared start in a dimension
// whose slice structure depends on the start: the planner slices at 0,
// which is exact when the dimension's group has one iter, the extent is 1,
// or the start selects whole steps of the group's outer iters
// (symGroupOffset); the pointer itself applies the layout to the symbolic
// start.
func tmaSymbolicSmemStart(c *dispatch.Call, s common.Region) *dispatch.Decline {
	if s.Static {
		return nil
	}
	grp, seps, ok := layout.TryGroup(layout.CanonicalTile(tmaSmemTile(s.Lay, s.Buf.Shape)), s.Buf.Shape)
	if !ok {
		return nil // the planner raises the grouping error
	}
	for d, m := range s.Mins {
		if _, isConst := ir.ConstInt(m); isConst || s.Exts[d] == 1 || seps[d+1]-seps[d] <= 1 {
			continue
		}
		if _, ok := common.SymGroupOffset(grp.Shard[seps[d]:seps[d+1]], m, s.Exts[d]); ok {
			continue
		}
		return c.Declinef(s.Span, "non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(s.R))
	}
	return nil
}

// tmaTensorMap builds the descriptor of plan and TVM's cache key for it.
// The key names the global data pointer by a per-run number (TVM hashes
// the Var) and, unlike TVM, adds a non-zero elem offset of the buffer: two
// views of one pointer at different offsets need two descriptors.
func tmaTensorMap(c *dispatch.Call, gb *ir.Buffer, p *tmaPlan, oob, force int) (*ir.TensorMap, string) {
	r := p.rank()
	name := gb.Name
	if gb.Data != nil {
		name = gb.Data.Name
	}
	m := &ir.TensorMap{Name: name + "_tensormap", Buf: gb, DType: p.dtype, Rank: r,
		Swizzle: p.swizzle, L2Promotion: 2, OOBFill: oob, ForceDType: force, Span: c.Span()}
	shape, strides, box := make([]string, r), make([]string, 0, r), make([]string, r)
	for i := r - 1; i >= 0; i-- {
		d := p.dims[i]
		m.GlobalDims = append(m.GlobalDims, d.shape)
		m.Box = append(m.Box, d.box)
		m.ElemStrides = append(m.ElemStrides, 1)
		if i < r-1 {
			m.GlobalStrides = append(m.GlobalStrides, d.stride*p.elemBytes)
		}
	}
	for i, d := range p.dims {
		shape[i], box[i] = strconv.FormatInt(d.shape, 10), strconv.FormatInt(d.box, 10)
		if i < r-1 {
			strides = append(strides, strconv.FormatInt(d.stride*p.elemBytes, 10))
		}
	}
	m.Key = fmt.Sprintf("tensormap:%s:%s:%d:%s:%s:%s:%d:%d:%d", tmaPtrID(c, gb), gb.Dtype, r,
		tmaPyTuple(shape), tmaPyTuple(strides), tmaPyTuple(box), p.swizzle, oob, force)
	return m, m.Key
}

// tmaPtrID names the data pointer of gb for the cache key: its name and a
// number assigned in first-use order within the Lower run.
func tmaPtrID(c *dispatch.Call, gb *ir.Buffer) string {
	var ids map[any]int
	if v, ok := c.CacheGet("tma:pointer-ids"); ok {
		ids = v.(map[any]int)
	} else {
		ids = map[any]int{}
		c.CacheSet("tma:pointer-ids", ids)
	}
	var k any = gb
	name := gb.Name
	if gb.Data != nil {
		k, name = gb.Data, gb.Data.Name
	}
	id, ok := ids[k]
	if !ok {
		id = len(ids)
		ids[k] = id
	}
	s := fmt.Sprintf("%s#%d", name, id)
	if gb.ElemOffset != 0 {
		s += fmt.Sprintf("+%d", gb.ElemOffset)
	}
	if gb.ElemOffsetExpr != nil {
		s += "+" + dispatch.ExprText(gb.ElemOffsetExpr)
	}
	return s
}

// tmaPyTuple prints a Python tuple of strings: ('64', '8'), ('64',), ().
func tmaPyTuple(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = common.PyRepr(x)
	}
	if len(q) == 1 {
		return "(" + q[0] + ",)"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// tmaIssueExprs returns the shared element offset and the coordinates (CUDA
// order) of issue `it` of flat (TVM TmaPlan.offsets_and_coords, simplified
// under it ∈ [0, flat)).
func tmaIssueExprs(p *tmaPlan, it ir.Expr, flat int64) (ir.Expr, []ir.Expr) {
	n := len(p.axes)
	cum := make([]int64, n)
	acc := int64(1)
	for k := n - 1; k >= 0; k-- {
		cum[k] = acc
		acc *= p.axes[k].extent
	}
	var off ir.Expr = common.Cst(0)
	coords := make([]ir.Expr, len(p.dims))
	for d, dim := range p.dims {
		coords[d] = dim.coord
	}
	for k, a := range p.axes {
		v := tmaDigit(it, cum[k], a.extent, flat)
		off = ir.AddE(off, ir.MulE(v, common.Cst(a.smemStride)))
		coords[a.dim] = ir.AddE(coords[a.dim], ir.MulE(v, common.Cst(a.advance)))
	}
	out := make([]ir.Expr, len(coords))
	for d := range coords {
		out[len(coords)-1-d] = ir.SimplifyIndex(coords[d])
	}
	return ir.SimplifyIndex(off), out
}

// tmaDigit is floormod(floordiv(it, cum), ext) simplified for it ∈ [0,
// flat): 0 for a single issue, no floordiv when cum is 1, no floormod when
// the axis is the outermost one.
func tmaDigit(it ir.Expr, cum, ext, flat int64) ir.Expr {
	if flat == 1 {
		return common.Cst(0)
	}
	v := ir.DivE(it, common.Cst(cum))
	if cum*ext < flat {
		v = ir.ModE(v, common.Cst(ext))
	}
	return v
}

// tmaTruthy is Python bool() of a config value.
func tmaTruthy(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value != 0
	case *ir.FloatImm:
		return e.Value != 0
	case *ir.StringImm:
		return e.Value != ""
	}
	return true
}

// tmaPyRepr is Python repr() of a config value: 'bogus', 3.
func tmaPyRepr(e ir.Expr) string {
	if s, ok := e.(*ir.StringImm); ok {
		return common.PyRepr(s.Value)
	}
	return tmaExprText(e)
}
