package copyasync

// The part of the 0.26+ TMA copies after planning, shared by tma_auto and
// tma_explicit: the runtime configuration (TVM _runtime_config), the
// descriptor and its cache key (_descriptor_cache_key,
// _get_or_encode_descriptor), the descriptor prefetch
// (_prefetch_main_descriptor) and the instruction issue (_emit_plan).
//
// The issue: one instruction when the plan has no issue axes (no loop, as
// 0.26/0.27 emit it), else `for issue in T.unroll(n)` whose body computes
// the shared offset and the coordinates of one issue (TMAPlan.
// offsets_and_coords, simplified under issue ∈ [0, n)). The instruction
// is tilels' ir.OpCpAsyncBulkTensorG2C / S2G / S2GReduce: `.cta_group::N`
// is written on sm_100+ only (0.27 spells it exactly there), a constant
// cta_mask with at most one bit set is unicast, a cache_hint string names
// a built-in policy and an expression is the policy operand itself.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy_async/tma.py at
// 0.26.0 and 0.27.0.post1. The two releases plan identically; they differ
// in the TIRx they emit (0.26: T.call_packed("runtime.
// cuTensorMapEncodeTiled", ...) and T.ptx.cp_async.bulk.tensor.g2s_cluster;
// 0.27: T.tensormap_encode_tiled(...) and T.ptx["cp.async.bulk.tensor...."]
// with int32 casts of the coordinates), which tilels prints in its own
// form for both.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/ir"
)

// tmaCommonConfig and tmaExplicitConfig are the config keys each variant
// accepts (_COMMON_CONFIG, _EXPLICIT_CONFIG).
var tmaCommonConfig = []string{"cache_hint", "cta_group", "cta_mask", "mbar", "mbarrier_addr", "oob",
	"prefetch_tensormap", "tensormap_l2_promotion", "tma_dtype", "use_tma_reduce"}

var tmaExplicitExtra = []string{"gather4", "src_selector"}

var tmaReduceOps = []string{"add", "min", "max", "inc", "dec", "and", "or", "xor"}

// tmaBulkCacheHints are the cache_hint strings the instruction accepts
// (_CP_ASYNC_BULK_CACHE_HINT).
var tmaBulkCacheHints = []string{"", "evict_last", "evict_first", "evict_normal", "evict_last_use"}

// tmaPTXCachePolicy are the built-in policies (_PTX_CACHE_POLICY).
var tmaPTXCachePolicy = map[string]bool{"evict_normal": true, "evict_first": true, "evict_last": true}

// tmaRuntime is the normalized configuration (_runtime_config's dict).
type tmaRuntime struct {
	ctaGroup    int64
	ctaMask     ir.Expr
	mbar        ir.Expr
	mbarShared  bool
	reduce      string
	cacheHint   string
	cachePolicy ir.Expr
	l2Promotion int
	oobFill     int
	prefetch    bool
	tmaDType    ir.Expr
}

// tmaRuntimeConfig is TVM _runtime_config.
func tmaRuntimeConfig(c *dispatch.Call, dir string, explicit bool) (*tmaRuntime, *tmaStageError) {
	allowed := slices.Clone(tmaCommonConfig)
	variant := "tma_auto"
	if explicit {
		allowed = append(allowed, tmaExplicitExtra...)
		variant = "tma_explicit"
	}
	var unknown []string
	for _, kv := range c.Tile.Config {
		if !slices.Contains(allowed, kv.Key) && !slices.Contains(unknown, kv.Key) {
			unknown = append(unknown, kv.Key)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		q := make([]string, len(unknown))
		for i, k := range unknown {
			q[i] = common.PyRepr(k)
		}
		return nil, tmaPlainFail("dispatch=%s does not support config key(s) [%s]", variant, strings.Join(q, ", "))
	}
	oob, hasOOB := c.Config("oob")
	if !explicit && hasOOB {
		return nil, tmaPlainFail(`tma_auto does not support non-default oob; use dispatch="tma_explicit"`)
	}
	if dir != "g2s" && hasOOB {
		return nil, tmaPlainFail("TensorMap oob is only valid for explicit global-to-shared copies")
	}
	rt := &tmaRuntime{ctaGroup: 1, ctaMask: common.Cst(0)}
	if v, ok := c.Config("cta_group"); ok {
		n, isConst := ir.ConstInt(v)
		if !isConst || n != 1 && n != 2 {
			return nil, tmaPlainFail("cta_group must be 1 or 2, got %s", tmaExprText(v))
		}
		rt.ctaGroup = n
	}
	if v, ok := c.Config("cta_mask"); ok {
		switch v := v.(type) {
		case *ir.IntImm:
			if v.Value < 0 || v.Value > 0xFFFF {
				return nil, tmaPlainFail("cta_mask must fit uint16, got %d", v.Value)
			}
		case *ir.StringImm, *ir.FloatImm, *ir.Tuple:
			return nil, tmaPlainFail("cta_mask must be an integer or TIR expression")
		}
		rt.ctaMask = v
	}
	rt.mbar, _ = c.Config("mbar")
	addrTrue, addrExpr := false, false
	if v, ok := c.Config("mbarrier_addr"); ok {
		switch v := v.(type) {
		case *ir.IntImm:
			addrTrue = v.Value != 0
		case *ir.StringImm, *ir.FloatImm, *ir.Tuple:
			return nil, tmaPlainFail("mbarrier_addr must be bool or Expr")
		default:
			addrExpr = true
		}
	}
	if dir == "g2s" {
		if rt.mbar == nil {
			return nil, tmaPlainFail("global-to-shared TMA requires mbar")
		}
	} else {
		if rt.mbar != nil {
			return nil, tmaPlainFail("mbar is only valid for global-to-shared TMA")
		}
		if addrTrue || addrExpr {
			return nil, tmaPlainFail("mbarrier_addr is only valid for global-to-shared TMA")
		}
		if !TmaIsZero(rt.ctaMask) {
			return nil, tmaPlainFail("cta_mask is only valid for global-to-shared TMA")
		}
	}
	if v, ok := c.Config("use_tma_reduce"); ok {
		if dir != "s2g" {
			return nil, tmaPlainFail("use_tma_reduce is only valid for shared-to-global TMA")
		}
		s, isStr := v.(*ir.StringImm)
		if !isStr || !slices.Contains(tmaReduceOps, s.Value) {
			return nil, tmaPlainFail("unsupported TMA reduce operation %s", tmaPyRepr(v))
		}
		rt.reduce = s.Value
	}
	if v, ok := c.Config("cache_hint"); ok {
		switch v := v.(type) {
		case *ir.StringImm:
			rt.cacheHint = v.Value
		case *ir.Tuple:
			return nil, tmaPlainFail("cache_hint must be a string or TIR expression, got list")
		default:
			rt.cachePolicy = v
		}
	}
	l2, e := tmaNormalizeL2(c)
	if e != nil {
		return nil, e
	}
	rt.l2Promotion = l2
	if hasOOB {
		s, isStr := oob.(*ir.StringImm)
		switch {
		case isStr && s.Value == "zero":
		case isStr && s.Value == "nan":
			rt.oobFill = 1
		default:
			return nil, tmaPlainFail("unsupported TensorMap oob=%s; expected None, 'zero', or 'nan'", tmaPyRepr(oob))
		}
	}
	if v, ok := c.Config("prefetch_tensormap"); ok {
		rt.prefetch = tmaTruthy(v)
	}
	rt.tmaDType, _ = c.Config("tma_dtype")
	rt.mbarShared = dir == "g2s" && (rt.ctaGroup == 2 || addrTrue || addrExpr)
	return rt, nil
}

// tmaL2Names are the tensormap_l2_promotion spellings
// (_normalize_l2_promotion).
var tmaL2Names = map[string]int{"none": 0, "L2::none": 0, "L2::64B": 1, "L2::128B": 2, "L2::256B": 3}

func tmaNormalizeL2(c *dispatch.Call) (int, *tmaStageError) {
	v, ok := c.Config("tensormap_l2_promotion")
	if !ok {
		return 2, nil
	}
	if n, isInt := v.(*ir.IntImm); isInt && n.Type != ir.BoolT {
		if n.Value >= 0 && n.Value <= 3 {
			return int(n.Value), nil
		}
		return 0, tmaPlainFail("TensorMap L2 promotion integer must be in [0, 3]")
	}
	if s, isStr := v.(*ir.StringImm); isStr {
		if n, ok := tmaL2Names[s.Value]; ok {
			return n, nil
		}
	}
	return 0, tmaPlainFail("TensorMap L2 promotion must be None, 0..3, 'none', 'L2::64B', 'L2::128B', or 'L2::256B'")
}

// tmaDescriptorKey is TVM _descriptor_cache_key with the data pointer
// named by tmaPtrID (TVM hashes the Var).
func tmaDescriptorKey(c *dispatch.Call, gb *ir.Buffer, s *tmaSpec) string {
	return fmt.Sprintf("tensormap:%s:%d:%s:%d:%d:%s:%s:%s:%s:%d:%d:%d:%d", tmaPtrID(c, gb), s.baseByteOffset, s.dtype, s.bits, s.forceDType,
		tmaDimsTuple(s), tmaPyIntTuple(s.globalStrides), tmaPyIntTuple(s.box), tmaPyIntTuple(s.elemStrides),
		s.interleave, s.swizzle, s.l2Promotion, s.oobFill)
}

// tmaGetOrEncode is TVM _get_or_encode_descriptor: the descriptor of s,
// shared by every call of the Lower run with the same key; fresh is true
// the first time.
func tmaGetOrEncode(c *dispatch.Call, gb *ir.Buffer, s *tmaSpec) (*ir.TensorMap, string, bool) {
	key := tmaDescriptorKey(c, gb, s)
	if m, ok := c.CacheGet(key); ok {
		return m.(*ir.TensorMap), key, false
	}
	m := &ir.TensorMap{Name: gb.Name + "_tensormap", Buf: gb, DType: s.dtype, Rank: s.rank(),
		GlobalDims: tmaStaticDims(s), GlobalDimExprs: tmaGlobalDimExprs(s), GlobalStrides: slices.Clone(s.globalStrides), Box: slices.Clone(s.box),
		ElemStrides: slices.Clone(s.elemStrides), Interleave: s.interleave, Swizzle: s.swizzle,
		L2Promotion: s.l2Promotion, OOBFill: s.oobFill, ForceDType: s.forceDType, Key: key, Span: c.Span()}
	c.CacheSet(key, m)
	return m, key, true
}

// tmaEmitPlan encodes the descriptor (and the src_selector candidates'
// maps, selected by `sel`, nil without) and emits the issue.
func tmaEmitPlan(c *dispatch.Call, in tmaAutoInput, p *tmaSpecPlan, sel *tmaSrcSelector) (*dispatch.Result, *dispatch.Decline) {
	span := c.Span()
	spec := p.spec
	if why := tmaGlobalStrideRuntime(spec); why != "" {
		return nil, c.Decline(span, why)
	}
	flat := p.issueExtent()
	res := &dispatch.Result{Outer: flat, Threads: 1}
	m, key, fresh := tmaGetOrEncode(c, in.g.Buf, spec)
	if fresh {
		res.TensorMaps = append(res.TensorMaps, m)
	}
	var addr ir.Expr = &ir.TensorMapAddr{Map: m, Span: span}
	var selBind []ir.Stmt
	if sel != nil {
		addr, selBind = sel.emit(c, res, m)
	}
	if in.rt.prefetch {
		if !c.LaunchTags["threadIdx.x"] {
			return nil, c.Decline(c.ConfigSpan("prefetch_tensormap"), "prefetch_tensormap requires warp_id_in_cta launch param")
		}
		pkey := "prefetch_tensormap:" + key
		if _, ok := c.CacheGet(pkey); !ok {
			c.CacheSet(pkey, m)
			elect := &ir.Call{Op: ir.OpElectSync, Type: ir.Int32, Span: span}
			prefetch := &ir.Evaluate{X: &ir.Call{Op: ir.OpPrefetchTensormap, Args: []ir.Expr{&ir.TensorMapAddr{Map: m, Span: span}}, Span: span}, Span: span}
			res.Init = append(res.Init, &ir.If{
				Cond: ir.Bin(ir.EQ, &ir.ThreadIndex{Axis: "warpid", Span: span}, common.Cst(0)),
				Then: &ir.Block{Stmts: []ir.Stmt{&ir.If{Cond: ir.Bin(ir.NE, elect, common.Cst(0)),
					Then: &ir.Block{Stmts: []ir.Stmt{prefetch}, Span: span}, Span: span}}, Span: span},
				Span: span,
			})
		}
	}

	var hint ir.Expr = &ir.StringImm{Value: spec.cacheHint, Span: span}
	if spec.cachePolicy != nil {
		hint = spec.cachePolicy
	} else if !slices.Contains(tmaBulkCacheHints, spec.cacheHint) {
		q := make([]string, len(tmaBulkCacheHints))
		for i, h := range tmaBulkCacheHints {
			q[i] = common.PyRepr(h)
		}
		dispatch.Raise("ValueError", "invalid cache_hint=%s; expected one of (%s)", common.PyRepr(spec.cacheHint), strings.Join(q, ", "))
	} else if spec.cacheHint != "" && !tmaPTXCachePolicy[spec.cacheHint] {
		dispatch.Raise("ValueError", "Unsupported built-in cache policy %s; pass cache_policy explicitly", common.PyRepr(spec.cacheHint))
	}
	ctaGroup := int64(-1)
	if tmaTargetSM(spec.arch) >= 100 {
		ctaGroup = spec.ctaGroup
	}
	issue := func(off ir.Expr, coords []ir.Expr) ir.Stmt {
		ptr := &ir.AddressOf{Buf: in.s.Buf, Indices: []ir.Expr{ir.SimplifyIndex(ir.AddE(spec.smemBase, off))}, FlatIndex: true, Span: span}
		if spec.loadMode == "tile_gather4" {
			coords = append([]ir.Expr{coords[0]}, spec.gather4...)
		}
		rank := common.Cst(int64(spec.rank()))
		var call *ir.Call
		switch {
		case spec.direction == "g2s" && spec.loadMode == "tile_gather4":
			call = &ir.Call{Op: ir.OpCpAsyncBulkTensorG2CGather4, Args: append([]ir.Expr{rank, ptr, spec.mbar, addr, spec.ctaMask, common.Cst(ctaGroup), hint}, coords...)}
		case spec.direction == "g2s":
			call = &ir.Call{Op: ir.OpCpAsyncBulkTensorG2C, Args: append([]ir.Expr{rank, ptr, spec.mbar, addr, spec.ctaMask, common.Cst(ctaGroup), hint}, coords...)}
		case spec.reduce != "":
			call = &ir.Call{Op: ir.OpCpAsyncBulkTensorS2GReduce, Args: append([]ir.Expr{rank, ptr, addr, hint, &ir.StringImm{Value: spec.reduce, Span: span}}, coords...)}
		default:
			call = &ir.Call{Op: ir.OpCpAsyncBulkTensorS2G, Args: append([]ir.Expr{rank, ptr, addr, hint}, coords...)}
		}
		call.Span = span
		return &ir.Evaluate{X: call, Span: span}
	}
	if len(p.axes) == 0 {
		res.Body = &ir.Block{Stmts: append(selBind, issue(common.Cst(0), spec.coords)), Span: span}
	} else {
		it := &ir.Var{Name: "issue", Type: ir.Int32, Span: span}
		off, coords := tmaOffsetsAndCoords(p, it, flat)
		loop := &ir.For{Var: it, Min: common.Cst(0), Extent: common.Cst(flat), Kind: ir.Unrolled, Span: span,
			Body: &ir.Block{Stmts: []ir.Stmt{issue(off, coords)}, Span: span}}
		res.Body = &ir.Block{Stmts: append(selBind, loop), Span: span}
	}

	var axes []string
	for _, a := range p.axes {
		var cs []string
		for _, co := range a.coords {
			if co.divisor == 1 && co.modulus == a.extent {
				cs = append(cs, fmt.Sprintf("coordinate %d + i", co.dim))
			} else {
				cs = append(cs, fmt.Sprintf("coordinate %d + i // %d %% %d", co.dim, co.divisor, co.modulus))
			}
		}
		axes = append(axes, fmt.Sprintf("i < %d: shared + %d*i, %s", a.extent, a.smemStride, strings.Join(cs, ", ")))
	}
	res.TMA = &dispatch.TMA{Map: m, Direction: spec.direction, Issues: flat, IssueAxes: axes}
	res.Partition = fmt.Sprintf("tma %s %dd box %s, %d issue(s)", spec.direction, m.Rank, tmaIntList(m.Box), flat)
	res.Notes = append(res.Notes,
		fmt.Sprintf("tma descriptor: rank %d, %s, dims %s, strides %s B, box %s, swizzle %s, l2 promotion %d, oob %s",
			m.Rank, m.DType, tmaDimsList(spec), tmaIntList(m.GlobalStrides), tmaIntList(m.Box), tmaSwizzleName[m.Swizzle], m.L2Promotion, [...]string{"zero", "nan"}[m.OOBFill]))
	if spec.dtype != in.s.Buf.Dtype {
		res.Notes = append(res.Notes, fmt.Sprintf("tma descriptor unit promoted from %s to %s", in.s.Buf.Dtype, spec.dtype))
	}
	if spec.forceDType == 11 {
		res.Notes = append(res.Notes, "tma descriptor dtype forced to TFLOAT32")
	}
	res.Plan = tmaPlanItems(p, m, axes, ctaGroup != -1)
	if len(axes) == 0 {
		res.Notes = append(res.Notes, "tma issue axes: none (one instruction)")
	} else {
		res.Notes = append(res.Notes, "tma issue axes (outer to inner): "+strings.Join(axes, "; "))
	}
	return res, nil
}

// tmaOffsetsAndCoords is TVM TMAPlan.offsets_and_coords, simplified under
// it ∈ [0, flat): the shared element offset and the CUDA-order coordinates.
func tmaOffsetsAndCoords(p *tmaSpecPlan, it ir.Expr, flat int64) (ir.Expr, []ir.Expr) {
	n := len(p.axes)
	div := make([]int64, n)
	acc := int64(1)
	for k := n - 1; k >= 0; k-- {
		div[k] = acc
		acc *= p.axes[k].extent
	}
	var off ir.Expr = common.Cst(0)
	coords := slices.Clone(p.spec.coords)
	for k, a := range p.axes {
		v := tmaDigit(it, div[k], a.extent, flat)
		off = ir.AddE(off, ir.MulE(v, common.Cst(a.smemStride)))
		for _, co := range a.coords {
			// floormod(floordiv(value, divisor), modulus) of the axis digit
			// value: the group's extents multiply to the axis extent, so it
			// is a digit of the flat index itself.
			coords[co.dim] = ir.AddE(coords[co.dim], tmaDigit(it, div[k]*co.divisor, co.modulus, flat))
		}
	}
	for i := range coords {
		coords[i] = ir.SimplifyIndex(coords[i])
	}
	return ir.SimplifyIndex(off), coords
}

// tmaPTXChain is the instruction 0.27 emits (_emit_plan's chain).
func tmaPTXChain(s *tmaSpec, ctaTok bool) string {
	cache := ""
	if s.cachePolicy != nil || s.cacheHint != "" {
		cache = ".L2::cache_hint"
	}
	if s.direction == "g2s" {
		gather, multicast, cta := "", "", ""
		if s.loadMode == "tile_gather4" {
			gather = ".tile::gather4"
		}
		if v, ok := ir.ConstInt(s.ctaMask); !ok || v&(v-1) != 0 {
			multicast = ".multicast::cluster"
		}
		if ctaTok {
			cta = fmt.Sprintf(".cta_group::%d", s.ctaGroup)
		}
		return fmt.Sprintf("cp.async.bulk.tensor.%dd.shared::cluster.global%s.mbarrier::complete_tx::bytes%s%s%s", s.rank(), gather, multicast, cta, cache)
	}
	if s.reduce != "" {
		return fmt.Sprintf("cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.tile.bulk_group%s", s.rank(), s.reduce, cache)
	}
	return fmt.Sprintf("cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group%s", s.rank(), cache)
}

// tmaPlanItems are the hover's and the JSON "plan" facts of a 0.26+ TMA
// copy: how the box was chosen, the descriptor, the coordinates, the
// instruction and the tensor-map rules' verdicts.
func tmaPlanItems(p *tmaSpecPlan, m *ir.TensorMap, axes []string, ctaTok bool) []dispatch.PlanItem {
	s := p.spec
	var items []dispatch.PlanItem
	if p.chain > 0 {
		items = append(items, dispatch.PlanItem{Key: "box", Value: fmt.Sprintf("the first %d of %d shared iterators of the stride chain (the largest legal prefix)", p.prefix, p.chain)})
	} else {
		items = append(items, dispatch.PlanItem{Key: "box", Value: "the global region, dimension by dimension"})
	}
	dtype := fmt.Sprintf("%s (%d bits)", s.dtype, s.bits)
	if s.forceDType == 11 {
		dtype += ", forced to TFLOAT32"
	}
	items = append(items, dispatch.PlanItem{Key: "descriptor", Value: m.Name, Fields: []dispatch.PlanItem{
		{Key: "dtype", Value: dtype},
		{Key: "global dims", Value: tmaDimsList(s)},
		{Key: "global strides", Value: tmaIntList(s.globalStrides) + " B"},
		{Key: "box", Value: tmaIntList(s.box)},
		{Key: "element strides", Value: tmaIntList(s.elemStrides)},
		{Key: "swizzle", Value: tmaSwizzleName[s.swizzle]},
		{Key: "l2 promotion", Value: [...]string{"none", "64B", "128B", "256B"}[s.l2Promotion]},
		{Key: "oob fill", Value: [...]string{"zero", "nan"}[s.oobFill]},
	}})
	items = append(items, dispatch.PlanItem{Key: "coordinates", Value: tmaExprList(s.coords) + " (CUDA order)"})
	items = append(items, dispatch.PlanItem{Key: "instruction", Value: tmaPTXChain(s, ctaTok)})
	issues := "1"
	if len(axes) > 0 {
		issues = fmt.Sprintf("%d: %s", p.issueExtent(), strings.Join(axes, "; "))
	}
	items = append(items, dispatch.PlanItem{Key: "issues", Value: issues})
	var counts [3]int // by tmaProof
	n := 0
	tmaCheckSpec(s, func(f *tmaFinding) bool { counts[f.status]++; n++; return false }) // (counted, not kept)
	rules := fmt.Sprintf("%d checked, all proven", n)
	if counts[tmaUnknown] > 0 {
		rules = fmt.Sprintf("%d checked: %d proven, %d unknown (left to the run-time check)", n, counts[tmaProven], counts[tmaUnknown])
	}
	items = append(items, dispatch.PlanItem{Key: "tensor-map rules", Value: rules})
	return items
}

// tmaSubstLets replaces the let-bound variables of e by their values (TVM
// plans a region whose start is `d_n: T.let = bx * 128` as bx * 128). Only
// arithmetic is rewritten; depth bounds a chain of lets.
func tmaSubstLets(e ir.Expr, lets map[*ir.Var]ir.Expr, depth int) ir.Expr {
	if len(lets) == 0 || depth > 8 {
		return e
	}
	switch x := e.(type) {
	case *ir.Var:
		if v, ok := lets[x]; ok {
			return tmaSubstLets(v, lets, depth+1)
		}
	case *ir.Binary:
		a, b := tmaSubstLets(x.A, lets, depth), tmaSubstLets(x.B, lets, depth)
		if a != x.A || b != x.B {
			return &ir.Binary{Op: x.Op, A: a, B: b, Span: x.Span}
		}
	case *ir.Cast:
		if y := tmaSubstLets(x.X, lets, depth); y != x.X {
			return &ir.Cast{To: x.To, X: y, Span: x.Span}
		}
	}
	return e
}

// tmaRegionLets is r with its starts' lets substituted.
func tmaRegionLets(r common.Region, lets map[*ir.Var]ir.Expr) common.Region {
	if len(lets) == 0 {
		return r
	}
	mins := make([]ir.Expr, len(r.Mins))
	bounds := append([][2]int64(nil), r.Bounds...)
	changed := false
	for i, m := range r.Mins {
		mins[i] = tmaSubstLets(m, lets, 0)
		if v, ok := ir.ConstInt(mins[i]); ok && mins[i] != m {
			bounds[i] = [2]int64{v, v + r.Exts[i]} // a let of a constant
			changed = true
		}
	}
	r.Mins, r.Bounds = mins, bounds
	r.Static = r.Static || changed && tmaAllConst(mins)
	return r
}

func tmaAllConst(es []ir.Expr) bool {
	for _, e := range es {
		if _, ok := ir.ConstInt(e); !ok {
			return false
		}
	}
	return true
}
