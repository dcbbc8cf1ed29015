package eval

import (
	"github.com/tilels/tilels/release"
	"slices"
	"sort"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// The layout library, modelled natively over dispatch/layout: S[...] and
// R[...] specs, `value @ axis`, "+" combination, TileLayout, ComposeLayout,
// the PRE SwizzleLayout, layout methods, and tma_utils (mma_shared_layout,
// SwizzleMode).

// axisNames are the predefined axes importable from tvm.tirx.layout.
var axisNames = []string{"bx", "by", "bz", "cbx", "cby", "cbz", "tx", "warpid", "laneid",
	"wgid", "tid_in_wg", "wid_in_wg", "m", "P", "F", "Bank", "TCol", "TLane"}

// layoutNames lists the public names of tvm.tirx.layout (`import *`); the
// slice is shared, callers must not modify it.
func layoutNames() []string { return layoutNameList }

var layoutNameList = append([]string{"S", "R", "TileLayout", "ComposeLayout", "SwizzleLayout", "Iter", "Axis", "Layout", "wg_local_layout", "tcgen05_atom_layout", "tmem_datapath_layout", "tmem_mma_operand_layout"}, axisNames...)

// safeLayout runs f, turning a panic inside the layout algebra into an
// error diagnostic (the algebra panics on contract violations).
func (ev *evaluator) safeLayout(span source.Span, what string, f func() Value) (v Value) {
	defer func() {
		if r := recover(); r != nil {
			if panicInTests {
				panic(r)
			}
			v = ev.errorf(span, CodeType, "%s failed: %v", what, r)
		}
	}()
	return f()
}

func layoutModuleAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "S":
		return &SpecBuilderV{base{span}, false}, true
	case "R":
		return &SpecBuilderV{base{span}, true}, true
	case "TileLayout":
		return &ModuleV{base: base{span}, Path: layoutPath + ".TileLayout", Name: "TileLayout",
			call: (*evaluator).tileLayoutCall, attr: tileLayoutClassAttr}, true
	case "ComposeLayout":
		return builtin("ComposeLayout", (*evaluator).composeLayoutCall), true
	case "SwizzleLayout":
		return builtin("SwizzleLayout", (*evaluator).swizzleLayoutCall), true
	case "Iter":
		return builtin("Iter", (*evaluator).iterCall), true
	case "Axis":
		return &ModuleV{base: base{span}, Path: layoutPath + ".Axis", Name: "Axis", closed: true,
			attr: func(ev *evaluator, name string, span source.Span) (Value, bool) {
				if name == "get" {
					return builtin("Axis.get", func(ev *evaluator, c *call) Value {
						s, ok := ev.strArg(c.arg(0, "name"), c.argSpan(0, "name"), "axis name")
						if !ok {
							return poison(c.span)
						}
						return &AxisV{base{c.span}, layout.AxisByName(s)}
					}), true
				}
				for _, a := range axisNames {
					if a == name {
						return &AxisV{base{span}, layout.AxisByName(name)}, true
					}
				}
				return nil, false
			}}, true
	case "Layout":
		return &MarkerV{base: base{span}, Name: "Layout"}, true
	case "wg_local_layout":
		return builtin("wg_local_layout", (*evaluator).wgLocalLayoutCall), true
	case "tcgen05_atom_layout":
		return builtin("tcgen05_atom_layout", (*evaluator).tcgen05AtomLayoutCall), true
	case "tmem_datapath_layout":
		return builtin("tmem_datapath_layout", (*evaluator).tmemDatapathLayoutCall), true
	case "tmem_mma_operand_layout":
		return builtin("tmem_mma_operand_layout", (*evaluator).tmemMMAOperandLayoutCall), true
	}
	for _, a := range axisNames {
		if a == name {
			return &AxisV{base{span}, layout.AxisByName(name)}, true
		}
	}
	return nil, false
}

// wgLocalLayoutCall is wg_local_layout(cols, rows=128) (tvm/tirx/layout.py):
// TileLayout(S[(rows, cols) : (1 @ tid_in_wg, 1)]), one row per thread of
// the warpgroup.
func (ev *evaluator) wgLocalLayoutCall(c *call) Value {
	if !ev.checkArgs(c, "wg_local_layout", 1, "cols", "rows") {
		return poison(c.span)
	}
	cols, ok := ev.intArg(c.args[0], c.argSpans[0], "cols")
	if !ok {
		return poison(c.span)
	}
	rows := int64(128)
	if r := c.arg(1, "rows"); r != nil {
		if rows, ok = ev.intArg(r, c.argSpan(1, "rows"), "rows"); !ok {
			return poison(c.span)
		}
	}
	return ev.newLayoutV(layout.NewTile([]layout.Iter{layout.It(rows, 1, layout.TidInWG), layout.It(cols, 1, layout.M)}, nil, nil), c.span)
}

// tmemDatapathLayoutCall is tvm.tirx.layout.tmem_datapath_layout(datapath,
// rows, cols, sub_slab=0): the TMEM layout an MMA datapath writes
// (layoutlib_tmem.go).
func (ev *evaluator) tmemDatapathLayoutCall(c *call) Value { return ev.tmemDatapathLayoutValue(c) }

// tAllocTcgen05Frag is T.alloc_tcgen05_ldst_frag(instr_shape, tensor_shape,
// dtype): a local register fragment of shape tensor_shape laid out by
// tcgen05_atom_layout. The reference allocates the per-thread elements
// flat and returns a view with that layout; a local buffer of the view's
// shape and layout has the same storage, so tilels allocates that.
func (ev *evaluator) tAllocTcgen05Frag(c *call) Value {
	if !ev.requireKernel(c, "T.alloc_tcgen05_ldst_frag") || !ev.checkArgs(c, "alloc_tcgen05_ldst_frag", 3, "instr_shape", "tensor_shape", "dtype") {
		return poison(c.span)
	}
	ts, ok := ev.intsArg(c.args[1], c.argSpans[1], "tensor_shape")
	dt, ok2 := ev.dtypeOf(c.args[2], c.argSpans[2])
	if !ok || !ok2 {
		return poison(c.span)
	}
	if len(ts) == 2 && (ts[0]*ts[1]*int64(dt.Bits)/128)%int64(dt.Bits) != 0 {
		return ev.errorf(c.span, CodeType, "alloc_tcgen05_ldst_frag tensor_shape=%s dtype=%s does not evenly divide across 128 threads", Repr(c.args[1]), pyQuote(dt.String()))
	}
	lay := ev.tcgen05AtomLayoutCall(&call{span: c.span, fnSpan: c.fnSpan, args: c.args, argSpans: c.argSpans, fr: c.fr})
	if isErr(lay) {
		return lay
	}
	alloc := &call{node: c.node, span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{c.args[1], &StrV{base{c.argSpans[2]}, dt.String()}},
		argSpans: []source.Span{c.argSpans[1], c.argSpans[2]},
		kwargs:   []kwarg{{name: "scope", v: &StrV{base{c.span}, "local"}, span: c.span, vspan: c.span}, {name: "layout", v: lay, span: c.span, vspan: c.span}}}
	return ev.tAlloc(alloc, "T.alloc_tcgen05_ldst_frag", "local")
}

// tcgen05 ld/st atoms (PTX ISA table "tcgen05-num-shapes-ld"): the .num
// repetitions each shape allows, and its per-warp column count per
// repetition in 32-bit registers.
var tcgen05Reps = map[string][]int64{
	"32x32b":  {1, 2, 4, 8, 16, 32, 64, 128},
	"16x64b":  {1, 2, 4, 8, 16, 32, 64, 128},
	"16x128b": {1, 2, 4, 8, 16, 32, 64},
	"16x256b": {1, 2, 4, 8, 16, 32},
}

var tcgen05ColFactor = map[string]int64{"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8}

// tcgen05AtomLayoutCall is tcgen05_atom_layout(instr_shape, (rows, cols),
// dtype) (tvm/tirx/layout.py): the warpgroup register tile a tcgen05.ld or
// st atom .<shape>.x<rep> produces, rep inferred from cols. Rows are 128
// (.32x32b; 64 is the fp32 datapath-B readback image) or 64/128 (.16x*b,
// 128 issuing the atom twice); 16-bit elements pack two per register.
// Iters are listed high to low, rows then columns, each lane bit and
// register bit at the position the PTX fragment puts it.
func (ev *evaluator) tcgen05AtomLayoutCall(c *call) Value {
	if !ev.checkArgs(c, "tcgen05_atom_layout", 3, "instr_shape", "tensor_shape", "dtype") {
		return poison(c.span)
	}
	shape, ok := ev.strArg(c.args[0], c.argSpans[0], "instr_shape")
	if !ok {
		return poison(c.span)
	}
	reps, known := tcgen05Reps[shape]
	if !known {
		return ev.errorf(c.argSpans[0], CodeType, "tcgen05_atom_layout instr_shape must be one of ['32x32b', '16x64b', '16x128b', '16x256b'], got %s", pyQuote(shape))
	}
	ts, ok := ev.intsArg(c.args[1], c.argSpans[1], "tensor_shape")
	if !ok {
		return poison(c.span)
	}
	dt, ok := ev.dtypeOf(c.args[2], c.argSpans[2])
	if !ok {
		return poison(c.span)
	}
	if dt.Bits != 16 && dt.Bits != 32 {
		return ev.errorf(c.argSpans[2], CodeType, "tcgen05_atom_layout dtype must be a 32-bit or 16-bit type, got %s (%d bits)", dt, dt.Bits)
	}
	if len(ts) != 2 {
		return ev.errorf(c.argSpans[1], CodeType, "tcgen05_atom_layout tensor_shape must be 2-D (rows, cols), got %s", describe(c.args[1]))
	}
	rows, cols := ts[0], ts[1]
	if rows != 64 && rows != 128 {
		return ev.errorf(c.argSpans[1], CodeType, "tcgen05_atom_layout %s expects rows ∈ (64, 128), got %d", pyQuote(shape), rows)
	}
	has := func(n int64) bool {
		for _, r := range reps {
			if r == n {
				return true
			}
		}
		return false
	}
	it := layout.It
	mk := func(iters []layout.Iter) Value { return ev.newLayoutV(layout.NewTile(iters, nil, nil), c.span) }
	if shape == "32x32b" && rows == 64 {
		// Datapath B readback: the (128, N/2) fp32 register file relabelled (64, N).
		if dt.Bits != 32 || cols%2 != 0 || !has(cols/2) {
			return ev.errorf(c.span, CodeType, "tcgen05_atom_layout: 32x32b (64, N) datapath B image needs fp32 and N/2 in %v, got N=%d %s", reps, cols, dt)
		}
		return mk([]layout.Iter{it(64, 1, layout.TidInWG), it(2, 64, layout.TidInWG), it(cols/2, 1, layout.M)})
	}
	pack := 32 / int64(dt.Bits)
	factor := tcgen05ColFactor[shape] * pack
	if cols%factor != 0 || !has(cols/factor) {
		return ev.errorf(c.argSpans[1], CodeType, "tcgen05_atom_layout cols=%d does not give a rep in %v for instr_shape=%s dtype=%s (cols must be k * %d)", cols, reps, pyQuote(shape), dt, factor)
	}
	n := cols / factor
	if shape == "32x32b" {
		return mk([]layout.Iter{it(rows, 1, layout.TidInWG), it(cols, 1, layout.M)})
	}
	return ev.newLayoutV(layout.Tcgen05Atom16(shape, rows, n, pack), c.span)
}

func tileLayoutClassAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if name != "from_iters" {
		return nil, false
	}
	return builtin("TileLayout.from_iters", func(ev *evaluator, c *call) Value {
		if !ev.checkArgs(c, "from_iters", 0, "shard", "replica", "offset") {
			return poison(c.span)
		}
		iters := func(i int, name string) ([]layout.Iter, bool) {
			v := c.arg(i, name)
			if v == nil {
				return nil, true
			}
			elts, ok := ev.iterate(v, c.argSpan(i, name))
			if !ok {
				ev.errorf(c.argSpan(i, name), CodeType, "%s must be a sequence of Iter, got %s", name, describe(v))
				return nil, false
			}
			out := make([]layout.Iter, len(elts))
			for j, e := range elts {
				it, ok := e.(*IterV)
				if !ok {
					ev.errorf(c.argSpan(i, name), CodeType, "%s must be a sequence of Iter, got %s", name, describe(e))
					return nil, false
				}
				out[j] = it.It
			}
			return out, true
		}
		shard, ok1 := iters(0, "shard")
		replica, ok2 := iters(1, "replica")
		if !ok1 || !ok2 {
			return poison(c.span)
		}
		off := map[*layout.Axis]int64{}
		if ov := c.arg(2, "offset"); ov != nil {
			if d, ok := ov.(*DictV); ok {
				for i, k := range d.Keys {
					ax, ok := ev.axisOf(k, c.argSpan(2, "offset"))
					n, ok2 := ev.intArg(d.Vals[i], c.argSpan(2, "offset"), "offset value")
					if !ok || !ok2 {
						return poison(c.span)
					}
					off[ax] += n
				}
			} else if !isNoneV(ov) {
				return ev.errorf(c.argSpan(2, "offset"), CodeType, "offset must be a dict, got %s", describe(ov))
			}
		}
		return ev.newLayoutV(layout.NewTile(shard, replica, off), c.span)
	}), true
}

func (ev *evaluator) newLayoutV(l layout.Layout, span source.Span) Value {
	if t := tileOfLayout(l); t != nil {
		if err := t.Validate(); err != nil {
			return ev.errorf(span, CodeType, "%v", err)
		}
	}
	v := &LayoutV{base: base{span}, L: l}
	ev.noteLayout(v)
	return v
}

// onlyM reports whether every iter and offset of t is on the memory axis m
// (a swizzle applies to m only).
func onlyM(t *layout.TileLayout) bool {
	for _, its := range [][]layout.Iter{t.Shard, t.Replica} {
		for _, it := range its {
			if it.Axis != layout.M {
				return false
			}
		}
	}
	for a := range t.Offset {
		if a != layout.M {
			return false
		}
	}
	return true
}

func tileOfLayout(l layout.Layout) *layout.TileLayout {
	switch x := l.(type) {
	case *layout.TileLayout:
		return x
	case *layout.ComposeLayout:
		return x.Tile
	}
	return nil
}

func (ev *evaluator) axisOf(v Value, span source.Span) (*layout.Axis, bool) {
	if v == nil {
		ev.errorf(span, CodeType, "missing layout axis")
		return nil, false
	}
	switch x := v.(type) {
	case *AxisV:
		return x.A, true
	case *StrV:
		return layout.AxisByName(x.V), true
	}
	if isErr(v) {
		ev.needConcrete(v, span, "a layout axis")
		return nil, false
	}
	ev.errorf(span, CodeType, "expected a layout axis, got %s", describe(v))
	return nil, false
}

// specSubscript evaluates S[...] / R[...] (tvm/tirx/layout.py _SpecBuilder).
func (ev *evaluator) specSubscript(b *SpecBuilderV, e *syntax.Subscript, idx []Value, isTuple bool) Value {
	if x := firstErr(idx...); x != nil {
		return ev.needConcrete(x, x.Span(), "a layout spec")
	}
	what := "S"
	if b.Replica {
		what = "R"
	}
	var extV, strV []Value
	var hasStrides bool
	switch {
	case isTuple:
		extV = idx
	case len(idx) == 1:
		switch k := idx[0].(type) {
		case *SliceV:
			if !isNoneV(k.Step) {
				return ev.errorf(k.Step.Span(), CodeType, "%s[...] takes extents:strides, not a step", what)
			}
			extV, strV, hasStrides = toTupleElts(k.Lo), toTupleElts(k.Hi), true
		case *TupleV, *ListV:
			extV = seqElts(k)
		default:
			extV = []Value{k}
		}
	}
	extents := make([]int64, len(extV))
	for i, x := range extV {
		n, ok := toInt(x)
		if !ok {
			if s, isSlice := x.(*SliceV); isSlice {
				return ev.errorf(s.span, CodeType, "%s[...] takes one extents:strides pair", what)
			}
			if r, isExpr := x.(*ExprV); isExpr { // a runtime extent is legal TIRx (dynamic_shape.go)
				ev.warnf(orSpan(x.Span(), e.Index.Span()), CodeUnresolved, "not modelled: runtime layout extent `%s`; tilels' layouts take static extents", clip(ExprString(r.E), 60))
				return poison(e.Loc)
			}
			return ev.errorf(orSpan(x.Span(), e.Index.Span()), CodeType, "%s[...] extent must be an integer, got %s", what, describe(x))
		}
		if n <= 0 {
			return ev.errorf(orSpan(x.Span(), e.Index.Span()), CodeType, "%s[...] extent must be positive, got %d", what, n)
		}
		extents[i] = n
	}
	var strides []layout.Stride
	if hasStrides {
		if len(strV) != len(extV) {
			return ev.errorf(e.Index.Span(), CodeType, "%s[...] has %d extents but %d strides", what, len(extV), len(strV))
		}
		for _, x := range strV {
			st, ok := ev.strideOf(x, e.Index.Span())
			if !ok {
				return poison(e.Loc)
			}
			strides = append(strides, st)
		}
	}
	var sp layout.Spec
	var err error
	if b.Replica {
		sp, err = layout.ReplicaSpec(extents, strides)
	} else {
		sp, err = layout.ShardSpec(extents, strides)
	}
	if err != nil {
		return ev.errorf(e.Loc, CodeType, "%v", err)
	}
	return &SpecV{base{e.Loc}, sp}
}

func orSpan(a, b source.Span) source.Span {
	if a.IsValid() {
		return a
	}
	return b
}

// toTupleElts is _SpecBuilder._to_tuple.
func toTupleElts(v Value) []Value {
	if isSeq(v) {
		return seqElts(v)
	}
	return []Value{v}
}

// strideOf converts one stride entry: int (on m), value@axis, an axis name
// string (1 on that axis), or a (value, axis) pair.
func (ev *evaluator) strideOf(v Value, span source.Span) (layout.Stride, bool) {
	sp := orSpan(v.Span(), span)
	switch x := v.(type) {
	case *OnAxisV:
		return layout.Stride{Value: x.V, Axis: x.A}, true
	case *StrV:
		return layout.Stride{Value: 1, Axis: layout.AxisByName(x.V)}, true
	case *TupleV:
		if len(x.Elts) == 2 {
			n, ok := toInt(x.Elts[0])
			if ax, ok2 := ev.axisOf(x.Elts[1], sp); ok && ok2 {
				return layout.Stride{Value: n, Axis: ax}, true
			}
			return layout.Stride{}, false
		}
	}
	if n, ok := toInt(v); ok {
		return layout.Stride{Value: n, Axis: layout.M}, true
	}
	if isErr(v) {
		ev.needConcrete(v, sp, "a layout stride")
		return layout.Stride{}, false
	}
	if r, isExpr := v.(*ExprV); isExpr { // a runtime stride (a kernel's stride parameter) is legal TIRx
		ev.warnf(sp, CodeUnresolved, "not modelled: runtime layout stride `%s`; tilels' layouts take static strides", clip(ExprString(r.E), 60))
		return layout.Stride{}, false
	}
	ev.errorf(sp, CodeType, "layout stride must be an integer, value@axis or an axis name, got %s", describe(v))
	return layout.Stride{}, false
}

// offsetOf converts an offset term (int, value@axis, sum of those).
func offsetOf(v Value) (map[*layout.Axis]int64, bool) {
	switch x := v.(type) {
	case *OnAxisV:
		return map[*layout.Axis]int64{x.A: x.V}, true
	case *OffsetV:
		return x.M, true
	}
	if n, ok := toInt(v); ok && (isIntLike(v) || isExprInt(v)) {
		return map[*layout.Axis]int64{layout.M: n}, true
	}
	return nil, false
}

func isExprInt(v Value) bool {
	x, ok := v.(*ExprV)
	if !ok {
		return false
	}
	_, ok = x.E.(*ir.IntImm)
	return ok
}

func addOffsets(a, b map[*layout.Axis]int64) map[*layout.Axis]int64 {
	m := map[*layout.Axis]int64{}
	for k, v := range a {
		m[k] += v
	}
	for k, v := range b {
		m[k] += v
	}
	return m
}

// layoutBinop handles the layout mini-language operators; ok is false when
// neither operand is a layout-language value.
func (ev *evaluator) layoutBinop(op string, x, y Value, span source.Span) (Value, bool) {
	switch op {
	case "@":
		ax, isAxis := y.(*AxisV)
		if !isAxis {
			return nil, false
		}
		n, ok := toInt(x)
		if !ok {
			return ev.errorf(span, CodeType, "stride@axis needs an integer stride, got %s", describe(x)), true
		}
		return &OnAxisV{base{span}, n, ax.A}, true
	case "+":
		xs, xSpec := x.(*SpecV)
		ys, ySpec := y.(*SpecV)
		switch {
		case xSpec && ySpec:
			return &SpecV{base{span}, xs.S.Plus(ys.S)}, true
		case xSpec:
			off, ok := offsetOf(y)
			if !ok {
				return ev.errorf(span, CodeType, "cannot add %s to a layout spec", describe(y)), true
			}
			return &SpecV{base{span}, xs.S.Plus(layout.Spec{Offset: off})}, true
		case ySpec:
			off, ok := offsetOf(x)
			if !ok {
				return ev.errorf(span, CodeType, "cannot add %s to a layout spec", describe(x)), true
			}
			return &SpecV{base{span}, layout.Spec{Offset: off}.Plus(ys.S)}, true
		}
		_, xo := x.(*OnAxisV)
		_, xo2 := x.(*OffsetV)
		_, yo := y.(*OnAxisV)
		_, yo2 := y.(*OffsetV)
		if !(xo || xo2 || yo || yo2) {
			return nil, false
		}
		a, ok1 := offsetOf(x)
		b, ok2 := offsetOf(y)
		if !ok1 || !ok2 {
			return ev.errorf(span, CodeType, "unsupported operand type(s) for +: '%s' and '%s'", x.TypeName(), y.TypeName()), true
		}
		return &OffsetV{base{span}, addOffsets(a, b)}, true
	}
	switch x.(type) {
	case *SpecV, *OnAxisV, *OffsetV, *LayoutV, *AxisV:
		return ev.errorf(span, CodeType, "unsupported operand type(s) for %s: '%s' and '%s'", op, x.TypeName(), y.TypeName()), true
	}
	return nil, false
}

func (ev *evaluator) tileLayoutCall(c *call) Value {
	if !ev.checkArgs(c, "TileLayout", 1, "spec") {
		return poison(c.span)
	}
	switch s := c.args[0].(type) {
	case *SpecV:
		return ev.newLayoutV(s.S.Layout(), c.span)
	case *LayoutV:
		return s
	}
	if isErr(c.args[0]) {
		return ev.needConcrete(c.args[0], c.argSpans[0], "TileLayout's spec")
	}
	if off, ok := offsetOf(c.args[0]); ok {
		return ev.newLayoutV(layout.Spec{Offset: off}.Layout(), c.span)
	}
	return ev.errorf(c.argSpans[0], CodeType, "TileLayout expects S[...] (+ R[...] + offsets), got %s", describe(c.args[0]))
}

func (ev *evaluator) swizzleLayoutCall(c *call) Value {
	if !ev.checkArgs(c, "SwizzleLayout", 3, "per_element", "swizzle_len", "atom_len", "swizzle_inner") {
		return poison(c.span)
	}
	var ps [3]int
	for i, n := range []string{"per_element", "swizzle_len", "atom_len"} {
		x, ok := ev.intArg(c.arg(i, n), c.argSpan(i, n), n)
		if !ok {
			return poison(c.span)
		}
		ps[i] = int(x)
	}
	inner := true
	if v := c.arg(3, "swizzle_inner"); v != nil {
		inner = truthy(v)
	}
	l, err := layout.NewCompose(ps[0], ps[1], ps[2], inner, nil)
	if err != nil {
		return ev.errorf(c.span, CodeType, "%v", err)
	}
	v := ev.newLayoutV(l, c.span)
	if lv, ok := v.(*LayoutV); ok {
		lv.Bare = true
	}
	return v
}

// composeLayoutCall accepts the PRE form ComposeLayout(swizzle, tile) and
// the SEED form ComposeLayout(p, sw, at, tile, swizzle_inner=True).
func (ev *evaluator) composeLayoutCall(c *call) Value {
	if e := firstErr(c.args...); e != nil {
		return ev.needConcrete(e, e.Span(), "ComposeLayout's arguments")
	}
	if sw, ok := c.arg(0, "layout_A").(*LayoutV); ok {
		ev.otherRelease(c.fnSpan, surfaceForms[0], modelledAs(surfaceForms[0])) // release_surface.go
		if !ev.checkArgs(c, "ComposeLayout", 2, "layout_A", "layout_B") {
			return poison(c.span)
		}
		cl, ok := sw.L.(*layout.ComposeLayout)
		if !ok {
			return ev.errorf(c.argSpan(0, "layout_A"), CodeType, "ComposeLayout expects a SwizzleLayout first, got %s", sw.TypeName())
		}
		tile, ok := c.arg(1, "layout_B").(*LayoutV)
		var t *layout.TileLayout
		if ok {
			t, ok = tile.L.(*layout.TileLayout)
		}
		if !ok {
			return ev.errorf(c.argSpan(1, "layout_B"), CodeType, "ComposeLayout expects a TileLayout second, got %s", describe(c.arg(1, "layout_B")))
		}
		if !onlyM(t) {
			return ev.errorf(c.argSpan(1, "layout_B"), CodeType, "ComposeLayout tile must map only to memory axis m, got %s", t)
		}
		l, err := layout.NewCompose(cl.PerElement, cl.SwizzleLen, cl.AtomLen, cl.SwizzleInner, t)
		if err != nil {
			return ev.errorf(c.span, CodeType, "%v", err)
		}
		return ev.newLayoutV(l, c.span)
	}
	ev.otherRelease(c.fnSpan, surfaceForms[1], modelledAs(surfaceForms[1])) // release_surface.go
	if !ev.checkArgs(c, "ComposeLayout", 4, "per_element", "swizzle_len", "atom_len", "tile_layout", "swizzle_inner") {
		return poison(c.span)
	}
	var ps [3]int
	for i, n := range []string{"per_element", "swizzle_len", "atom_len"} {
		x, ok := ev.intArg(c.arg(i, n), c.argSpan(i, n), n)
		if !ok {
			return poison(c.span)
		}
		ps[i] = int(x)
	}
	tv, ok := c.arg(3, "tile_layout").(*LayoutV)
	var t *layout.TileLayout
	if ok {
		t, ok = tv.L.(*layout.TileLayout)
	}
	if !ok {
		return ev.errorf(c.argSpan(3, "tile_layout"), CodeType, "ComposeLayout tile_layout must be a TileLayout, got %s", describe(c.arg(3, "tile_layout")))
	}
	if !onlyM(t) {
		return ev.errorf(c.argSpan(3, "tile_layout"), CodeType, "ComposeLayout tile must map only to memory axis m, got %s", t)
	}
	inner := true
	if v := c.arg(4, "swizzle_inner"); v != nil {
		inner = truthy(v)
	}
	l, err := layout.NewCompose(ps[0], ps[1], ps[2], inner, t)
	if err != nil {
		return ev.errorf(c.span, CodeType, "%v", err)
	}
	return ev.newLayoutV(l, c.span)
}

func (ev *evaluator) iterCall(c *call) Value {
	if !ev.checkArgs(c, "Iter", 3, "extent", "stride", "axis") {
		return poison(c.span)
	}
	e, ok1 := ev.intArg(c.args[0], c.argSpans[0], "Iter extent")
	s, ok2 := ev.intArg(c.arg(1, "stride"), c.argSpan(1, "stride"), "Iter stride")
	ax, ok3 := ev.axisOf(c.arg(2, "axis"), c.argSpan(2, "axis"))
	if !ok1 || !ok2 || !ok3 {
		return poison(c.span)
	}
	return &IterV{base{c.span}, layout.Iter{Extent: e, Stride: s, Axis: ax}}
}

// layoutAttr implements attributes and methods of layout values, axes,
// iters and specs.
func (ev *evaluator) layoutAttr(obj Value, name string, span source.Span) Value {
	switch o := obj.(type) {
	case *AxisV:
		switch name {
		case "name":
			return &StrV{base{span}, o.A.Name}
		case "is_thread", "is_memory":
			return method("Axis."+name, func(ev *evaluator, c *call) Value {
				return &BoolV{base{c.span}, o.A.IsThread() == (name == "is_thread")}
			})
		}
	case *IterV:
		switch name {
		case "extent":
			return &IntV{base{span}, o.It.Extent}
		case "stride":
			return &IntV{base{span}, o.It.Stride}
		case "axis":
			return &AxisV{base{span}, o.It.Axis}
		}
	case *LayoutV:
		return ev.layoutMethod(o, name, span)
	}
	return nil
}

func iterList(its []layout.Iter, span source.Span) Value {
	out := make([]Value, len(its))
	for i, it := range its {
		out[i] = &IterV{base{span}, it}
	}
	return &ListV{base{span}, out}
}

func (ev *evaluator) layoutMethod(o *LayoutV, name string, span source.Span) Value {
	l := o.L
	t := tileOfLayout(l)
	cl, isCompose := l.(*layout.ComposeLayout)
	switch name {
	case "shard":
		return iterList(t.Shard, span)
	case "replica", "replicate":
		return iterList(t.Replica, span)
	case "offset":
		d := newDict(span)
		axes := make([]*layout.Axis, 0, len(t.Offset))
		for a := range t.Offset {
			axes = append(axes, a)
		}
		sort.Slice(axes, func(i, j int) bool { return axes[i].Name < axes[j].Name })
		for _, a := range axes {
			d.set(&AxisV{base{span}, a}, &IntV{base{span}, t.Offset[a]})
		}
		return d
	case "per_element", "swizzle_len", "atom_len", "swizzle_inner", "tile_layout", "swizzle":
		if !isCompose {
			return nil
		}
		switch name {
		case "per_element":
			return &IntV{base{span}, int64(cl.PerElement)}
		case "swizzle_len":
			return &IntV{base{span}, int64(cl.SwizzleLen)}
		case "atom_len":
			return &IntV{base{span}, int64(cl.AtomLen)}
		case "swizzle_inner":
			return &BoolV{base{span}, cl.SwizzleInner}
		case "tile_layout":
			return &LayoutV{base: base{span}, L: cl.Tile}
		}
		return &LayoutV{base: base{span}, L: layout.BareSwizzle(cl), Bare: true}
	}
	m := func(fn func(ev *evaluator, c *call) Value) Value {
		return method(o.TypeName()+"."+name, func(ev *evaluator, c *call) Value {
			return ev.safeLayout(c.span, o.TypeName()+"."+name, func() Value { return fn(ev, c) })
		})
	}
	switch name {
	case "to_psum": // lib_trn_layout.go
		return m(func(ev *evaluator, c *call) Value { return ev.toPsumV(l, c) })
	case "canonicalize":
		return m(func(ev *evaluator, c *call) Value { return ev.newLayoutV(layout.Canonicalize(l, false), c.span) })
	case "storage":
		return m(func(ev *evaluator, c *call) Value { return ev.newLayoutV(layout.Storage(l), c.span) })
	case "is_swizzle":
		return m(func(ev *evaluator, c *call) Value { return &BoolV{base{c.span}, o.Bare} })
	case "is_trivial":
		return m(func(ev *evaluator, c *call) Value {
			return &BoolV{base{c.span}, !isCompose && layout.IsTrivial(l)}
		})
	case "size", "span":
		return m(func(ev *evaluator, c *call) Value {
			var ax *layout.Axis
			if v := c.arg(0, "axis_name"); v != nil && !isNoneV(v) {
				a, ok := ev.axisOf(v, c.argSpan(0, "axis_name"))
				if !ok {
					return poison(c.span)
				}
				ax = a
			}
			if name == "size" {
				return &IntV{base{c.span}, layout.Size(l, ax)}
			}
			return &IntV{base{c.span}, layout.SpanOf(l, ax)}
		})
	case "tile":
		return m(func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "tile", 3, "outer", "outer_shape", "inner_shape") {
				return poison(c.span)
			}
			outer, ok := c.args[0].(*LayoutV)
			if !ok {
				return ev.errorf(c.argSpan(0, "outer"), CodeType, "tile expects a TileLayout outer layout, got %s", describe(c.args[0]))
			}
			os, ok1 := ev.intsArg(c.arg(1, "outer_shape"), c.argSpan(1, "outer_shape"), "outer_shape")
			is, ok2 := ev.intsArg(c.arg(2, "inner_shape"), c.argSpan(2, "inner_shape"), "inner_shape")
			if !ok1 || !ok2 {
				return poison(c.span)
			}
			r, err := layout.Tile(l, outer.L, os, is)
			if err != nil {
				return ev.errorf(c.span, CodeType, "%v", err)
			}
			return ev.newLayoutV(r, c.span)
		})
	case "tile_to":
		return m(func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "tile_to", 2, "to_shape", "current_shape") {
				return poison(c.span)
			}
			to, ok1 := ev.intsArg(c.args[0], c.argSpans[0], "to_shape")
			cur, ok2 := ev.intsArg(c.arg(1, "current_shape"), c.argSpan(1, "current_shape"), "current_shape")
			if !ok1 || !ok2 {
				return poison(c.span)
			}
			r, err := layout.TileTo(l, to, cur)
			if err != nil {
				return ev.errorf(c.span, CodeType, "%v", err)
			}
			return ev.newLayoutV(r, c.span)
		})
	case "slice":
		return m(func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "slice", 2, "shape", "region") {
				return poison(c.span)
			}
			shape, ok := ev.intsArg(c.args[0], c.argSpans[0], "shape")
			if !ok {
				return poison(c.span)
			}
			regs, ok := ev.iterate(c.args[1], c.argSpans[1])
			if !ok || len(regs) != len(shape) {
				return ev.errorf(c.argSpans[1], CodeType, "slice region must have one (begin, end) pair per dimension")
			}
			region := make([][2]int64, len(regs))
			for i, r := range regs {
				p, ok := ev.intsArg(r, c.argSpans[1], "region bound")
				if !ok || len(p) != 2 {
					return ev.errorf(c.argSpans[1], CodeType, "slice region entries must be (begin, end) pairs")
				}
				region[i] = [2]int64{p[0], p[1]}
			}
			r, err := layout.Slice(l, shape, region)
			if err != nil {
				return ev.errorf(c.span, CodeType, "%v", err)
			}
			if r == nil {
				return &NoneV{base{c.span}}
			}
			return ev.newLayoutV(r, c.span)
		})
	case "apply":
		return m(func(ev *evaluator, c *call) Value {
			coord := make([]int64, len(c.args))
			for i, a := range c.args {
				n, ok := ev.intArg(a, c.argSpans[i], "a layout coordinate")
				if !ok {
					return poison(c.span)
				}
				coord[i] = n
			}
			var res map[*layout.Axis]int64
			if sv, ok := c.kw("shape"); ok && !isNoneV(sv) {
				shape, ok := ev.intsArg(sv, sv.Span(), "shape")
				if !ok {
					return poison(c.span)
				}
				if len(shape) != len(coord) {
					return ev.errorf(c.span, CodeType, "apply got %d coordinates for a shape of rank %d", len(coord), len(shape))
				}
				res = layout.ApplyShape(l, coord, shape)
			} else {
				if len(coord) != 1 && len(coord) != len(t.Shard) {
					return ev.errorf(c.span, CodeType, "apply got %d coordinates for %d shard iters", len(coord), len(t.Shard))
				}
				res = l.Apply(coord...)
			}
			d := newDict(c.span)
			axes := make([]*layout.Axis, 0, len(res))
			for a := range res {
				axes = append(axes, a)
			}
			sort.Slice(axes, func(i, j int) bool { return axes[i].Name < axes[j].Name })
			for _, a := range axes {
				d.set(&StrV{base{c.span}, a.Name}, &IntV{base{c.span}, res[a]})
			}
			return d
		})
	case "group":
		return m(func(ev *evaluator, c *call) Value {
			shape, ok := ev.intsArg(c.arg(0, "shape"), c.argSpan(0, "shape"), "shape")
			if !ok || t == nil || isCompose {
				return orPoison(nil, c.span)
			}
			g, seps, err := layout.Group(t, shape)
			if err != nil {
				return ev.errorf(c.span, CodeType, "%v", err)
			}
			sv := make([]Value, len(seps))
			for i, s := range seps {
				sv[i] = &IntV{base{c.span}, int64(s)}
			}
			return &TupleV{base{c.span}, []Value{ev.newLayoutV(g, c.span), &ListV{base{c.span}, sv}}}
		})
	case "direct_sum":
		// right.direct_sum(left, left_shape, right_shape) (layout.py).
		return m(func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "direct_sum", 3, "left", "left_shape", "right_shape") || t == nil || isCompose {
				return orPoison(nil, c.span)
			}
			lv, ok := c.args[0].(*LayoutV)
			if !ok {
				if isErr(c.args[0]) {
					return ev.needConcrete(c.args[0], c.argSpans[0], "direct_sum's left layout")
				}
				return ev.errorf(c.argSpans[0], CodeType, "direct_sum expects a TileLayout, got %s", describe(c.args[0]))
			}
			ls, ok1 := ev.intsArg(c.args[1], c.argSpans[1], "left_shape")
			rs, ok2 := ev.intsArg(c.args[2], c.argSpans[2], "right_shape")
			lt := tileOfLayout(lv.L)
			if !ok1 || !ok2 || lt == nil {
				return poison(c.span)
			}
			var res *layout.TileLayout
			var err error
			ev.safeLayout(c.span, "direct_sum", func() Value { res, err = layout.DirectSum(t, lt, ls, rs); return nil })
			if err != nil || res == nil {
				return ev.errorf(c.span, CodeType, "direct_sum failed: %v", err)
			}
			return ev.newLayoutV(res, c.span)
		})
	case "permute_dims", "permute_by_groups":
		// TileLayout.permute_dims(perm): the shard iters reordered by perm
		// (replica and offset kept); permute_by_groups(seps, perm): whole
		// groups of iters (group()'s separators) reordered (layout.py).
		return m(func(ev *evaluator, c *call) Value {
			if t == nil || isCompose {
				return orPoison(nil, c.span)
			}
			var order []int64
			if name == "permute_dims" {
				perm, ok := ev.intsArg(c.arg(0, "perm"), c.argSpan(0, "perm"), "perm")
				if !ok {
					return poison(c.span)
				}
				if len(perm) != len(t.Shard) {
					return ev.errorf(c.span, CodeType, "perm must have the same length as the number of dimensions in the layout")
				}
				order = perm
			} else {
				seps, ok1 := ev.intsArg(c.arg(0, "seps"), c.argSpan(0, "seps"), "seps")
				perm, ok2 := ev.intsArg(c.arg(1, "perm"), c.argSpan(1, "perm"), "perm")
				if !ok1 || !ok2 {
					return poison(c.span)
				}
				sorted := append([]int64(nil), perm...)
				slices.Sort(sorted)
				valid := len(seps) >= 1 && len(perm) == len(seps)-1
				for i, g := range sorted {
					valid = valid && g == int64(i)
				}
				if !valid {
					return ev.errorf(c.span, CodeType, "invalid perm %s", Repr(c.arg(1, "perm")))
				}
				for _, g := range perm {
					for k := seps[g]; k < seps[g+1]; k++ {
						order = append(order, k)
					}
				}
			}
			shard := make([]layout.Iter, 0, len(order))
			for _, i := range order {
				if i < 0 || i >= int64(len(t.Shard)) {
					return ev.errorf(c.span, CodeType, "list index out of range")
				}
				shard = append(shard, t.Shard[i])
			}
			return ev.newLayoutV(layout.NewTile(shard, t.Replica, t.Offset), c.span)
		})
	case "is_trainium", "verify_well_formed":
		return m(func(ev *evaluator, c *call) Value { return &BoolV{base{c.span}, name == "verify_well_formed"} })
	}
	if v := ev.layoutPackMethod(o, name); v != nil { // layoutlib_pack.go
		return v
	}
	// to_psum, ... are not modelled.
	return &OpaqueV{base{span}, o.TypeName() + "." + name}
}

// ---- tma_utils ----

var swizzleModes = []string{"SWIZZLE_NONE", "SWIZZLE_32B_ATOM", "SWIZZLE_64B_ATOM", "SWIZZLE_128B_ATOM"}

func tmaNames() []string {
	return []string{"SwizzleMode", "mma_shared_layout", "mma_atom_layout", "mma_atom_shape",
		"tma_shared_layout", "tma_atom_layout", "tma_atom_shape", "get_swizzle_mode_from_layout"}
}

func swizzleMode(n int64, span source.Span) *EnumV {
	return &EnumV{base{span}, "SwizzleMode", swizzleModes[n], n}
}

func tmaModuleAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "SwizzleMode":
		return &ModuleV{base: base{span}, Path: tmaPath + ".SwizzleMode", Name: "SwizzleMode", closed: true,
			attr: func(ev *evaluator, name string, span source.Span) (Value, bool) {
				for i, m := range swizzleModes {
					if m == name {
						return swizzleMode(int64(i), span), true
					}
				}
				return nil, false
			},
			call: func(ev *evaluator, c *call) Value {
				if !ev.checkArgs(c, "SwizzleMode", 1, "value") {
					return poison(c.span)
				}
				if e, ok := c.args[0].(*EnumV); ok && e.Type == "SwizzleMode" {
					return e
				}
				n, ok := ev.intArg(c.args[0], c.argSpans[0], "SwizzleMode value")
				if !ok {
					return poison(c.span)
				}
				if n < 0 || n > 3 {
					return ev.errorf(c.argSpans[0], CodeType, "%d is not a valid SwizzleMode", n)
				}
				return swizzleMode(n, c.span)
			}}, true
	case "mma_shared_layout", "tma_shared_layout":
		return builtin(name, func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, name, 3, "dtype", "swizzle_mode", "shape") {
				return poison(c.span)
			}
			bits, mode, ok := ev.dtypeAndMode(c)
			if !ok {
				return poison(c.span)
			}
			shape, ok := ev.intsArg(c.arg(2, "shape"), c.argSpan(2, "shape"), "shape")
			if !ok {
				return poison(c.span)
			}
			return ev.safeLayout(c.span, name, func() Value {
				l, err := layout.MMASharedLayout(bits, mode, shape, ev.opts.Release >= release.R026) // 0.26+: packed 16-byte atoms for mode 0
				if err != nil {
					return ev.errorf(c.span, CodeType, "%v", err)
				}
				return ev.newLayoutV(l, c.span)
			})
		}), true
	case "mma_atom_layout", "tma_atom_layout":
		return builtin(name, func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, name, 2, "dtype", "swizzle_mode") {
				return poison(c.span)
			}
			bits, mode, ok := ev.dtypeAndMode(c)
			if !ok {
				return poison(c.span)
			}
			v := ev.newLayoutV(layout.MMAAtomLayout(bits, mode), c.span)
			if lv, ok := v.(*LayoutV); ok {
				lv.Bare = true
			}
			return v
		}), true
	case "mma_atom_shape", "tma_atom_shape":
		return builtin(name, func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, name, 2, "dtype", "swizzle_mode", "shape") {
				return poison(c.span)
			}
			bits, mode, ok := ev.dtypeAndMode(c)
			if !ok {
				return poison(c.span)
			}
			if mode == 0 {
				return ev.errorf(c.argSpan(1, "swizzle_mode"), CodeType, "KeyError: <SwizzleMode.SWIZZLE_NONE: 0>")
			}
			var shape []int64
			if sv := c.arg(2, "shape"); sv != nil && !isNoneV(sv) {
				if shape, ok = ev.intsArg(sv, c.argSpan(2, "shape"), "shape"); !ok {
					return poison(c.span)
				}
			}
			var out []int64
			if shape == nil {
				out = layout.MMAAtomShape(bits, mode)
			} else {
				out = layout.MMAAtomShapeFor(bits, mode, shape)
			}
			vs := make([]Value, len(out))
			for i, n := range out {
				vs[i] = &IntV{base{c.span}, n}
			}
			return &ListV{base{c.span}, vs}
		}), true
	case "get_swizzle_mode_from_layout":
		return builtin(name, func(ev *evaluator, c *call) Value {
			lv, ok := c.arg(0, "layout").(*LayoutV)
			if !ok {
				return &NoneV{base{c.span}}
			}
			n, err := layout.SwizzleModeOf(lv.L)
			if err != nil || n < 0 || n > 3 {
				return &NoneV{base{c.span}}
			}
			return swizzleMode(int64(n), c.span)
		}), true
	}
	return nil, false
}

// dtypeAndMode reads the (dtype, swizzle_mode) arguments of the
// tma_utils helpers.
func (ev *evaluator) dtypeAndMode(c *call) (int, int, bool) {
	dt, ok := ev.dtypeOf(c.arg(0, "dtype"), c.argSpan(0, "dtype"))
	if !ok {
		return 0, 0, false
	}
	if dt.Bits <= 0 || dt.Bits > 128 || 128%dt.Bits != 0 {
		ev.errorf(c.argSpan(0, "dtype"), CodeDtype, "dtype %s has no MMA shared layout", dt)
		return 0, 0, false
	}
	mv := c.arg(1, "swizzle_mode")
	var mode int64
	switch m := mv.(type) {
	case *EnumV:
		if m.Type != "SwizzleMode" {
			ev.errorf(c.argSpan(1, "swizzle_mode"), CodeType, "swizzle_mode must be a SwizzleMode, got %s", describe(mv))
			return 0, 0, false
		}
		mode = m.V
	default:
		n, ok := ev.intArg(mv, c.argSpan(1, "swizzle_mode"), "swizzle_mode")
		if !ok {
			return 0, 0, false
		}
		if n < 0 || n > 3 {
			ev.errorf(c.argSpan(1, "swizzle_mode"), CodeType, "%d is not a valid SwizzleMode", n)
			return 0, 0, false
		}
		mode = n
	}
	return dt.Bits, int(mode), true
}

// ---- gemm_async ----

func gemmAsyncAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if name == "sf_tmem_layout" {
		return builtin("sf_tmem_layout", (*evaluator).sfTmemLayoutCall), true
	}
	if name == "sf_smem_layout" {
		return builtin("sf_smem_layout", (*evaluator).sfSmemLayoutCall), true // lib_gemm_async.go
	}
	return nil, false
}

// sfTmemLayoutCall is the gemm_async module's sf_tmem_layout(rows, SF_K,
// sf_per_mma, sf_reuse=1, pipe_depth=None): the TMEM layout of a
// block-scaled MMA's scale factors, an atom of one 32-row chunk and one
// MMA's scale factors (replicated over the 4 lane quarters) direct-summed
// with the outer M and K iterations, packing consecutive K groups into
// one 32-bit column when they fit (gemm_async/tcgen05.py).
func (ev *evaluator) sfTmemLayoutCall(c *call) Value {
	if !ev.checkArgs(c, "sf_tmem_layout", 3, "rows", "SF_K", "sf_per_mma", "sf_reuse", "pipe_depth") {
		return poison(c.span)
	}
	rows, ok1 := ev.intArg(c.args[0], c.argSpans[0], "rows")
	sfK, ok2 := ev.intArg(c.arg(1, "SF_K"), c.argSpan(1, "SF_K"), "SF_K")
	per, ok3 := ev.intArg(c.arg(2, "sf_per_mma"), c.argSpan(2, "sf_per_mma"), "sf_per_mma")
	if !ok1 || !ok2 || !ok3 {
		return poison(c.span)
	}
	reuse, depth := int64(1), int64(0)
	if v := c.arg(3, "sf_reuse"); v != nil {
		var ok bool
		if reuse, ok = ev.intArg(v, c.argSpan(3, "sf_reuse"), "sf_reuse"); !ok {
			return poison(c.span)
		}
	}
	if v := c.arg(4, "pipe_depth"); v != nil && !isNoneV(v) {
		var ok bool
		if depth, ok = ev.intArg(v, c.argSpan(4, "pipe_depth"), "pipe_depth"); !ok {
			return poison(c.span)
		}
	}
	if per <= 0 || sfK%per != 0 {
		return ev.errorf(c.span, CodeType, "SF_K=%d must be a multiple of sf_per_mma=%d", sfK, per)
	}
	k := sfK / per
	m := rows / 32
	const epc = 4 // 8-bit scale factors per 32-bit TMEM column
	it := layout.It
	atom := layout.NewTile([]layout.Iter{it(32, 1, layout.TLane), it(per, 1, layout.TCol)}, []layout.Iter{it(4, 32, layout.TLane)}, nil)
	var outer *layout.TileLayout
	switch pack := epc / per; {
	case k == 1:
		outer = layout.NewTile([]layout.Iter{it(m, epc, layout.TCol)}, nil, nil)
	default:
		for pack > 1 && k%pack != 0 {
			pack /= 2
		}
		switch {
		case pack > 1 && k/pack == 1:
			outer = layout.NewTile([]layout.Iter{it(m, epc, layout.TCol), it(pack, per, layout.TCol)}, nil, nil)
		case pack > 1:
			outer = layout.NewTile([]layout.Iter{it(m, epc, layout.TCol), it(k/pack, m*epc, layout.TCol), it(pack, per, layout.TCol)}, nil, nil)
		default:
			outer = layout.NewTile([]layout.Iter{it(m, epc, layout.TCol), it(k, m*epc, layout.TCol)}, nil, nil)
		}
	}
	var base *layout.TileLayout
	var err error
	ev.safeLayout(c.span, "sf_tmem_layout", func() Value {
		base, err = layout.DirectSum(atom, outer, []int64{m, k}, []int64{32, per})
		return nil
	})
	if err != nil || base == nil {
		return ev.errorf(c.span, CodeType, "sf_tmem_layout failed: %v", err)
	}
	if reuse == 1 && depth == 0 {
		return ev.newLayoutV(base, c.span)
	}
	shard := append([]layout.Iter(nil), base.Shard...)
	if reuse > 1 {
		shard = append(shard, it(reuse, 0, shard[0].Axis))
	}
	if depth > 0 {
		shard = append([]layout.Iter{it(depth, m*epc, shard[0].Axis)}, shard...)
	}
	return ev.newLayoutV(layout.NewTile(shard, base.Replica, base.Offset), c.span)
}
