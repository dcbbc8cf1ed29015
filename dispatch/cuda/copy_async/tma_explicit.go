package copyasync

// copy_async/tma_explicit (0.26+): maps the user's global tensor, layout
// and region directly to one TensorMap and exactly one TMA instruction: the
// descriptor's dimensions are the global buffer's dimensions reversed
// (CUDA order), its box the global region's extents, its coordinates the
// region's starts; the shared slice must be box-linear (its layout
// canonicalizes to a trivial one). No search, no repair: the rules of
// tma_rules.go fail only on a DISPROVEN verdict, with the text
// `tma_explicit stage=<stage>: <rule>: <message> [disproven]`.
// gather4=[r0, r1, r2, r3] (SM100+, rank-2, g2s) loads four rows;
// src_selector=[(cond, view), ...] chooses the first view whose condition
// holds, each with a descriptor of its own that must match the main one.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy_async/tma.py at
// 0.26.0 and 0.27.0.post1: _build_explicit_plan, _explicit_smem_layout,
// _direct_global_layout, _explicit_spec_for_gmem, _normalize_gather4,
// _validate_gather4_dst, _normalize_src_selector, _selector_compatibility,
// _selected_descriptor, copy_tma_explicit_impl.

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var TMAExplicit = dispatch.Variant{
	Op: "copy_async", Name: "tma_explicit", Target: "cuda", Priority: 10, Releases: release.From(release.R026),
	Renamed: []string{"tma"}, // 0.25's name
	When:    tmaCommonPreds,
	Emit:    emitTMAExplicit,
}

// tmaSrcSelector is a src_selector: conditions and candidate specs, first
// true wins, the main descriptor otherwise.
type tmaSrcSelector struct {
	conds []ir.Expr
	bufs  []*ir.Buffer
	specs []*tmaSpec
}

func emitTMAExplicit(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	in, d := tmaReadOperands(c)
	if d != nil {
		return nil, d
	}
	rt, e := tmaRuntimeConfig(c, in.dir, true)
	if e != nil {
		return nil, c.Decline(c.Span(), e.msg)
	}
	in.rt = rt
	plan, sel, e := tmaBuildExplicitPlan(c, in)
	if e != nil {
		return nil, c.Decline(c.Span(), e.msg)
	}
	return tmaEmitPlan(c, in, plan, sel)
}

func tmaBuildExplicitPlan(c *dispatch.Call, in tmaAutoInput) (*tmaSpecPlan, *tmaSrcSelector, *tmaStageError) {
	s, g := in.s, in.g
	var gather4 []ir.Expr
	if v, ok := c.Config("gather4"); ok {
		t, isTuple := v.(*ir.Tuple)
		if !isTuple || len(t.Elems) != 4 {
			return nil, nil, tmaPlainFail("tma_explicit gather4 must contain exactly four row coordinates")
		}
		gather4 = t.Elems
	}
	var sel *tmaSrcSelector
	if v, ok := c.Config("src_selector"); ok {
		var e *tmaStageError
		if sel, e = tmaNormalizeSrcSelector(v); e != nil {
			return nil, nil, e
		}
	}
	if (gather4 != nil || sel != nil && len(sel.conds) > 0) && in.dir != "g2s" {
		return nil, nil, tmaPlainFail("tma_explicit gather4 and src_selector are only valid for global-to-shared")
	}
	if gather4 != nil && len(g.Shape) != 2 {
		return nil, nil, tmaPlainFail("tma_explicit gather4 requires a rank-2 global tensor")
	}
	if gather4 != nil {
		if g.Exts[0] != 1 {
			return nil, nil, tmaPlainFail("tma_explicit gather4 global public axis 0 must describe one row")
		}
		if s.Exts[0] != 4 {
			return nil, nil, tmaPlainFail("tma_explicit gather4 shared public axis 0 must describe four rows")
		}
	}
	swizzle, err := layout.SwizzleModeOf(s.Lay)
	if err != nil {
		return nil, nil, tmaPlainFail("tma_explicit stage=shared-swizzle: %v", err)
	}
	smemBase, e := tmaExplicitSmemLayout(s, swizzle)
	if e != nil {
		return nil, nil, e
	}
	main, e := tmaExplicitSpec(in, g.Buf, g.Lay, g.Shape, swizzle, gather4, smemBase)
	if e != nil {
		return nil, nil, e
	}
	if f := tmaValidationFailures(main, false); len(f) > 0 {
		return nil, nil, tmaRaiseValidation("main-descriptor", f, false)
	}
	if gather4 != nil {
		if e := tmaValidateGather4Dst(s, main); e != nil {
			return nil, nil, e
		}
	}
	if sel != nil {
		for i, b := range sel.bufs {
			if b.RuntimeDim() >= 0 {
				return nil, nil, tmaPlainFail("not modelled: src_selector buffer `%s` with a runtime dimension", b.Name)
			}
			cand, e := tmaExplicitSpec(in, b, b.Layout, b.Shape, swizzle, gather4, smemBase)
			if e != nil {
				return nil, nil, e
			}
			if f := tmaValidationFailures(cand, false); len(f) > 0 {
				return nil, nil, tmaRaiseValidation(fmt.Sprintf("src-selector[%d]", i), f, false)
			}
			if e := tmaSelectorCompatibility(main, cand, i); e != nil {
				return nil, nil, e
			}
			sel.specs = append(sel.specs, cand)
		}
		if len(sel.conds) == 0 {
			sel = nil
		}
	}
	return &tmaSpecPlan{spec: main}, sel, nil
}

// tmaExplicitSmemLayout is TVM _explicit_smem_layout: the shared slice must
// be box-linear; it returns the slice's layout offset (the pointer's
// element offset).
func tmaExplicitSmemLayout(s common.Region, swizzle int) (ir.Expr, *tmaStageError) {
	tile := tmaSmemTile(s.Lay, s.Buf.Shape)
	sl, err := layout.Slice(tile, s.Buf.Shape, s.Bounds)
	if err != nil || sl == nil {
		dispatch.Raise("ValueError", "shared layout cannot be sliced at start=%s, extent=%s", tmaExprList(s.Mins), tmaIntList(s.Exts))
	}
	sliced := sl.(*layout.TileLayout)
	canon := layout.CanonicalTile(layout.NewTile(sliced.Shard, sliced.Replica, nil))
	if !layout.IsTrivial(canon) {
		return nil, tmaPlainFail("tma_explicit stage=shared-layout: sliced shared layout must canonicalize to trivial after extracting its pointer offset; got %s", tmaLayoutRepr(canon))
	}
	base := tmaSimplify(common.ApplyExpr(tile, s.Mins, s.Buf.Shape))
	start := tmaSmemElemOffset(s.Buf, base)
	bits := int64(s.Buf.Dtype.Bits)
	atom := map[int]int64{0: 16, 1: 32, 2: 64, 3: 128}[swizzle]
	if v, ok := ir.ConstInt(start); ok {
		b, e := tmaElementsToBytes(v, bits, false, "shared-layout", "shared pointer offset")
		if e != nil {
			return nil, e
		}
		if tmaFloorModInt(b, atom) != 0 {
			return nil, tmaPlainFail("tma_explicit stage=shared-layout: shared slice pointer offset %dB violates %dB swizzle/base alignment", b, atom)
		}
	}
	return base, nil
}

// tmaExplicitSpec is TVM _explicit_spec_for_gmem (with
// _direct_global_layout): the descriptor of one global buffer or view.
func tmaExplicitSpec(in tmaAutoInput, gb *ir.Buffer, lay layout.Layout, shape []int64, swizzle int, gather4 []ir.Expr, smemBase ir.Expr) (*tmaSpec, *tmaStageError) {
	gl, ok := lay.(*layout.TileLayout)
	if !ok {
		return nil, tmaPlainFail("tma_explicit stage=global-layout: global Buffer/view layout must be TileLayout, got %s", tmaLayoutType(lay))
	}
	if f := tmaPlainMemory(gl, "explicit global"); f != nil {
		dispatch.Raise("ValueError", "%s", f.msg)
	}
	if len(shape) != len(gl.Shard) {
		return nil, tmaPlainFail("tma_explicit stage=global-layout: tensor rank %d != memory-layout rank %d", len(shape), len(gl.Shard))
	}
	for d, it := range gl.Shard {
		if shape[d] != it.Extent {
			return nil, tmaPlainFail("tma_explicit stage=global-layout: dim=%d shape=%d must provably equal layout extent=%d; got disproven", d, shape[d], it.Extent)
		}
	}
	desc, e := tmaDTypeContract(gb.Dtype, in.rt.tmaDType)
	if e != nil {
		return nil, e
	}
	n := len(shape)
	strides := make([]int64, n)
	for d, it := range gl.Shard {
		b, e := tmaElementsToBytes(it.Stride, desc.bits, false, "global-layout", fmt.Sprintf("global layout stride dim=%d", d))
		if e != nil {
			return nil, e
		}
		strides[d] = b
	}
	base, e := tmaBufferBase(gb, false, "global-base")
	if e != nil {
		return nil, e
	}
	spec := &tmaSpec{
		dtype: desc.dtype, bits: desc.bits, effBytes: desc.effBytes, packed: desc.packed, forceDType: desc.forceDType,
		baseByteOffset: base, interleave: 0, swizzle: swizzle, l2Promotion: in.rt.l2Promotion, oobFill: in.rt.oobFill,
		direction: "s2g", loadMode: "tile", arch: in.arch, gather4: gather4, smemBase: smemBase,
		mbar: in.rt.mbar, mbarShared: in.rt.mbarShared, ctaGroup: in.rt.ctaGroup, ctaMask: in.rt.ctaMask,
		cacheHint: in.rt.cacheHint, cachePolicy: in.rt.cachePolicy, reduce: in.rt.reduce,
	}
	if gb == in.g.Buf {
		spec.runtimeExt = in.rtExt
	}
	if in.rt.mbar != nil {
		spec.direction = "g2s"
	}
	if gather4 != nil {
		spec.loadMode = "tile_gather4"
	}
	full := make([]int64, n)
	for d := 0; d < n; d++ {
		r := n - 1 - d
		spec.globalDims = append(spec.globalDims, shape[r])
		spec.box = append(spec.box, in.g.Exts[r])
		spec.coords = append(spec.coords, in.g.Mins[r])
		spec.elemStrides = append(spec.elemStrides, 1)
		full[d] = strides[r]
	}
	spec.globalStrides = full[1:]
	spec.innerStride = gl.Shard[n-1].Stride
	if spec.innerStride != 1 {
		return nil, tmaPlainFail("tma_explicit stage=global-layout: the innermost memory stride must be provably one because CUDA omits it from globalStrides; got %d", spec.innerStride)
	}
	tx := desc.bits
	for _, b := range spec.box {
		tx *= b
	}
	if gather4 != nil {
		tx *= 4
	}
	spec.transactionBits, spec.payloadBits = tx, tx
	return spec, nil
}

// tmaValidateGather4Dst is TVM _validate_gather4_dst: four box-linear rows.
func tmaValidateGather4Dst(s common.Region, spec *tmaSpec) *tmaStageError {
	if len(s.Exts) < 1 {
		return tmaPlainFail("tma_explicit gather4 requires a non-scalar shared destination")
	}
	if s.Exts[0] != 4 {
		return tmaPlainFail("tma_explicit gather4 requires public shared axis 0 to provably contain four rows")
	}
	tile := tmaSmemTile(s.Lay, s.Buf.Shape)
	sl, err := layout.Slice(tile, s.Buf.Shape, s.Bounds)
	if err != nil || sl == nil {
		dispatch.Raise("ValueError", "gather4 shared layout cannot be sliced at start=%s, extent=%s", tmaExprList(s.Mins), tmaIntList(s.Exts))
	}
	sliced := sl.(*layout.TileLayout)
	canon := layout.CanonicalTile(layout.NewTile(sliced.Shard, sliced.Replica, nil))
	if !layout.IsTrivial(canon) {
		return tmaPlainFail("tma_explicit gather4 destination is not four-row box-linear: %s", tmaLayoutRepr(canon))
	}
	rowBits := spec.transactionBits
	if len(spec.gather4) > 0 {
		rowBits /= 4
	}
	rowElems := rowBits / int64(s.Buf.Dtype.Bits)
	grouped, seps, err := layout.Group(sliced, s.Exts)
	if err != nil {
		dispatch.Raise("ValueError", "%v", err)
	}
	rows := grouped.Shard[seps[0]:seps[1]]
	if len(rows) != 1 {
		return tmaPlainFail("tma_explicit gather4 destination row axis must map to one memory iterator")
	}
	if rows[0].Extent != 4 || rows[0].Stride != rowElems {
		return tmaPlainFail("tma_explicit gather4 destination rows are not box-linear at payload width %d; got extent=%d, stride=%d", rowElems, rows[0].Extent, rows[0].Stride)
	}
	return nil
}

// tmaNormalizeSrcSelector is TVM _normalize_src_selector.
func tmaNormalizeSrcSelector(v ir.Expr) (*tmaSrcSelector, *tmaStageError) {
	t, ok := v.(*ir.Tuple)
	if !ok {
		return nil, tmaPlainFail("tma_explicit src_selector must be a list of (condition, global Buffer/view)")
	}
	sel := &tmaSrcSelector{}
	for i, item := range t.Elems {
		pair, ok := item.(*ir.Tuple)
		if !ok || len(pair.Elems) != 2 {
			return nil, tmaPlainFail("tma_explicit src_selector[%d] must be a (condition, Buffer/view) pair", i)
		}
		cond, cand := pair.Elems[0], pair.Elems[1]
		switch cond.(type) {
		case *ir.StringImm, *ir.Tuple, *ir.BufferData, *ir.Region:
			return nil, tmaPlainFail("tma_explicit src_selector[%d] condition must be a TIR expression", i)
		}
		bd, ok := cand.(*ir.BufferData)
		if !ok {
			return nil, tmaPlainFail("tma_explicit src_selector[%d] candidate must be a global Buffer/view, not a region", i)
		}
		if bd.Buf.Scope != "global" {
			return nil, tmaPlainFail("tma_explicit src_selector[%d] candidate scope must be global, got %s", i, bd.Buf.Scope)
		}
		sel.conds = append(sel.conds, cond)
		sel.bufs = append(sel.bufs, bd.Buf)
	}
	return sel, nil
}

// tmaSelectorCompatibility is TVM _selector_compatibility.
func tmaSelectorCompatibility(m, c *tmaSpec, i int) *tmaStageError {
	type field struct {
		label    string
		lhs, rhs string
	}
	fields := []field{
		{"descriptor dtype", m.dtype.String(), c.dtype.String()},
		{"descriptor bits", fmt.Sprint(m.bits), fmt.Sprint(c.bits)},
		{"forced CUDA dtype", fmt.Sprint(m.forceDType), fmt.Sprint(c.forceDType)},
		{"rank", fmt.Sprint(m.rank()), fmt.Sprint(c.rank())},
		{"box", tmaPyIntTuple(m.box), tmaPyIntTuple(c.box)},
		{"interleave", fmt.Sprint(m.interleave), fmt.Sprint(c.interleave)},
		{"swizzle", fmt.Sprint(m.swizzle), fmt.Sprint(c.swizzle)},
		{"load mode", m.loadMode, c.loadMode},
		{"transaction bits", fmt.Sprint(m.transactionBits), fmt.Sprint(c.transactionBits)},
	}
	for _, f := range fields {
		if f.lhs != f.rhs {
			return tmaPlainFail("tma_explicit src_selector[%d] has incompatible %s: main=%s, candidate=%s", i, f.label, f.lhs, f.rhs)
		}
	}
	return nil
}

// emit encodes the candidates' descriptors and binds `selected_tensormap`
// to the first candidate whose condition holds, else the main descriptor
// (TVM _selected_descriptor); it returns the address operand and the bind.
func (sel *tmaSrcSelector) emit(c *dispatch.Call, res *dispatch.Result, main *ir.TensorMap) (ir.Expr, []ir.Stmt) {
	span := c.Span()
	var expr ir.Expr = &ir.TensorMapAddr{Map: main, Span: span}
	maps := make([]*ir.TensorMap, len(sel.specs))
	for i, s := range sel.specs {
		m, _, fresh := tmaGetOrEncode(c, sel.bufs[i], s)
		if fresh {
			res.TensorMaps = append(res.TensorMaps, m)
		}
		maps[i] = m
	}
	for i := len(maps) - 1; i >= 0; i-- {
		expr = &ir.Select{Cond: sel.conds[i], A: &ir.TensorMapAddr{Map: maps[i], Span: span}, B: expr, Span: span}
	}
	v := &ir.Var{Name: "selected_tensormap", Type: ir.DataType{Code: ir.UInt, Bits: 64}, Span: span}
	var names []string
	for _, m := range maps {
		names = append(names, m.Name)
	}
	res.Notes = append(res.Notes, "tma src_selector: "+strings.Join(names, ", ")+", else "+main.Name)
	return v, []ir.Stmt{&ir.Let{Var: v, Value: expr, Span: span}}
}

// tmaLayoutRepr is TVM's repr of an offset-free memory TileLayout:
// T.TileLayout(T.S[(64, 2, 64):(64, 4096, 1)]), T.TileLayout(T.S[8192:1]).
func tmaLayoutRepr(l *layout.TileLayout) string {
	ext := make([]int64, len(l.Shard))
	str := make([]int64, len(l.Shard))
	for i, it := range l.Shard {
		ext[i], str[i] = it.Extent, it.Stride
	}
	if len(ext) == 1 {
		return fmt.Sprintf("T.TileLayout(T.S[%d:%d])", ext[0], str[0])
	}
	return fmt.Sprintf("T.TileLayout(T.S[%s:%s])", tmaPyIntTuple(ext), tmaPyIntTuple(str))
}
