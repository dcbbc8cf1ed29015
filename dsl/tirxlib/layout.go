package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

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
func safeLayout(ev *eval.Evaluator, span source.Span, what string, f func() eval.Value) (v eval.Value) {
	defer func() {
		if r := recover(); r != nil {
			if eval.PanicInTests {
				panic(r)
			}
			v = ev.Errorf(span, eval.CodeType, "%s failed: %v", what, r)
		}
	}()
	return f()
}

func layoutModuleAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "S":
		return &eval.SpecBuilderV{Base: eval.Base{At: span}, Replica: false}, true
	case "R":
		return &eval.SpecBuilderV{Base: eval.Base{At: span}, Replica: true}, true
	case "TileLayout":
		return &eval.ModuleV{Base: eval.Base{At: span}, Path: eval.LayoutPath + ".TileLayout", Name: "TileLayout",
			Call: tileLayoutCall, Attr: tileLayoutClassAttr}, true
	case "ComposeLayout":
		return eval.Builtin("ComposeLayout", composeLayoutCall), true
	case "SwizzleLayout":
		return eval.Builtin("SwizzleLayout", swizzleLayoutCall), true
	case "Iter":
		return eval.Builtin("Iter", iterCall), true
	case "Axis":
		return &eval.ModuleV{Base: eval.Base{At: span}, Path: eval.LayoutPath + ".Axis", Name: "Axis", Closed: true,
			Attr: func(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
				if name == "get" {
					return eval.Builtin("Axis.get", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
						s, ok := ev.StrArg(c.Arg(0, "name"), c.ArgSpan(0, "name"), "axis name")
						if !ok {
							return eval.Poison(c.At)
						}
						return &eval.AxisV{Base: eval.Base{At: c.At}, A: layout.AxisByName(s)}
					}), true
				}
				for _, a := range axisNames {
					if a == name {
						return &eval.AxisV{Base: eval.Base{At: span}, A: layout.AxisByName(name)}, true
					}
				}
				return nil, false
			}}, true
	case "Layout":
		return &eval.MarkerV{Base: eval.Base{At: span}, Name: "Layout"}, true
	case "wg_local_layout":
		return eval.Builtin("wg_local_layout", wgLocalLayoutCall), true
	case "tcgen05_atom_layout":
		return eval.Builtin("tcgen05_atom_layout", tcgen05AtomLayoutCall), true
	case "tmem_datapath_layout":
		return eval.Builtin("tmem_datapath_layout", tmemDatapathLayoutCall), true
	case "tmem_mma_operand_layout":
		return eval.Builtin("tmem_mma_operand_layout", tmemMMAOperandLayoutCall), true
	}
	for _, a := range axisNames {
		if a == name {
			return &eval.AxisV{Base: eval.Base{At: span}, A: layout.AxisByName(name)}, true
		}
	}
	return nil, false
}

// wgLocalLayoutCall is wg_local_layout(cols, rows=128) (tvm/tirx/layout.py):
// TileLayout(S[(rows, cols) : (1 @ tid_in_wg, 1)]), one row per thread of
// the warpgroup.
func wgLocalLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "wg_local_layout", 1, "cols", "rows") {
		return eval.Poison(c.At)
	}
	cols, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "cols")
	if !ok {
		return eval.Poison(c.At)
	}
	rows := int64(128)
	if r := c.Arg(1, "rows"); r != nil {
		if rows, ok = ev.IntArg(r, c.ArgSpan(1, "rows"), "rows"); !ok {
			return eval.Poison(c.At)
		}
	}
	return newLayoutV(ev, layout.NewTile([]layout.Iter{layout.It(rows, 1, layout.TidInWG), layout.It(cols, 1, layout.M)}, nil, nil), c.At)
}

// tmemDatapathLayoutCall is tvm.tirx.layout.tmem_datapath_layout(datapath,
// rows, cols, sub_slab=0): the TMEM layout an MMA datapath writes
// (layout_tmem.go).
func tmemDatapathLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	return tmemDatapathLayoutValue(ev, c)
}

// tAllocTcgen05Frag is T.alloc_tcgen05_ldst_frag(instr_shape, tensor_shape,
// dtype): a local register fragment of shape tensor_shape laid out by
// tcgen05_atom_layout. The reference allocates the per-thread elements
// flat and returns a view with that layout; a local buffer of the view's
// shape and layout has the same storage, so tilels allocates that.
func tAllocTcgen05Frag(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.alloc_tcgen05_ldst_frag") || !ev.CheckArgs(c, "alloc_tcgen05_ldst_frag", 3, "instr_shape", "tensor_shape", "dtype") {
		return eval.Poison(c.At)
	}
	ts, ok := ev.IntsArg(c.Args[1], c.ArgSpans[1], "tensor_shape")
	dt, ok2 := ev.DtypeOf(c.Args[2], c.ArgSpans[2])
	if !ok || !ok2 {
		return eval.Poison(c.At)
	}
	if len(ts) == 2 && (ts[0]*ts[1]*int64(dt.Bits)/128)%int64(dt.Bits) != 0 {
		return ev.Errorf(c.At, eval.CodeType, "alloc_tcgen05_ldst_frag tensor_shape=%s dtype=%s does not evenly divide across 128 threads", eval.Repr(c.Args[1]), eval.PyQuote(dt.String()))
	}
	lay := tcgen05AtomLayoutCall(ev, &eval.Call{At: c.At, FnSpan: c.FnSpan, Args: c.Args, ArgSpans: c.ArgSpans, Fr: c.Fr})
	if eval.IsErr(lay) {
		return lay
	}
	alloc := &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{c.Args[1], &eval.StrV{Base: eval.Base{At: c.ArgSpans[2]}, V: dt.String()}},
		ArgSpans: []source.Span{c.ArgSpans[1], c.ArgSpans[2]},
		Kwargs:   []eval.Kwarg{{Name: "scope", V: &eval.StrV{Base: eval.Base{At: c.At}, V: "local"}, At: c.At, Vspan: c.At}, {Name: "layout", V: lay, At: c.At, Vspan: c.At}}}
	return TAlloc(ev, alloc, "T.alloc_tcgen05_ldst_frag", "local")
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
func tcgen05AtomLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "tcgen05_atom_layout", 3, "instr_shape", "tensor_shape", "dtype") {
		return eval.Poison(c.At)
	}
	shape, ok := ev.StrArg(c.Args[0], c.ArgSpans[0], "instr_shape")
	if !ok {
		return eval.Poison(c.At)
	}
	reps, known := tcgen05Reps[shape]
	if !known {
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "tcgen05_atom_layout instr_shape must be one of ['32x32b', '16x64b', '16x128b', '16x256b'], got %s", eval.PyQuote(shape))
	}
	ts, ok := ev.IntsArg(c.Args[1], c.ArgSpans[1], "tensor_shape")
	if !ok {
		return eval.Poison(c.At)
	}
	dt, ok := ev.DtypeOf(c.Args[2], c.ArgSpans[2])
	if !ok {
		return eval.Poison(c.At)
	}
	if dt.Bits != 16 && dt.Bits != 32 {
		return ev.Errorf(c.ArgSpans[2], eval.CodeType, "tcgen05_atom_layout dtype must be a 32-bit or 16-bit type, got %s (%d bits)", dt, dt.Bits)
	}
	if len(ts) != 2 {
		return ev.Errorf(c.ArgSpans[1], eval.CodeType, "tcgen05_atom_layout tensor_shape must be 2-D (rows, cols), got %s", eval.Describe(c.Args[1]))
	}
	rows, cols := ts[0], ts[1]
	if rows != 64 && rows != 128 {
		return ev.Errorf(c.ArgSpans[1], eval.CodeType, "tcgen05_atom_layout %s expects rows ∈ (64, 128), got %d", eval.PyQuote(shape), rows)
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
	mk := func(iters []layout.Iter) eval.Value { return newLayoutV(ev, layout.NewTile(iters, nil, nil), c.At) }
	if shape == "32x32b" && rows == 64 {
		// Datapath B readback: the (128, N/2) fp32 register file relabelled (64, N).
		if dt.Bits != 32 || cols%2 != 0 || !has(cols/2) {
			return ev.Errorf(c.At, eval.CodeType, "tcgen05_atom_layout: 32x32b (64, N) datapath B image needs fp32 and N/2 in %v, got N=%d %s", reps, cols, dt)
		}
		return mk([]layout.Iter{it(64, 1, layout.TidInWG), it(2, 64, layout.TidInWG), it(cols/2, 1, layout.M)})
	}
	pack := 32 / int64(dt.Bits)
	factor := tcgen05ColFactor[shape] * pack
	if cols%factor != 0 || !has(cols/factor) {
		return ev.Errorf(c.ArgSpans[1], eval.CodeType, "tcgen05_atom_layout cols=%d does not give a rep in %v for instr_shape=%s dtype=%s (cols must be k * %d)", cols, reps, eval.PyQuote(shape), dt, factor)
	}
	n := cols / factor
	if shape == "32x32b" {
		return mk([]layout.Iter{it(rows, 1, layout.TidInWG), it(cols, 1, layout.M)})
	}
	return newLayoutV(ev, layout.Tcgen05Atom16(shape, rows, n, pack), c.At)
}

func tileLayoutClassAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if name != "from_iters" {
		return nil, false
	}
	return eval.Builtin("TileLayout.from_iters", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
		if !ev.CheckArgs(c, "from_iters", 0, "shard", "replica", "offset") {
			return eval.Poison(c.At)
		}
		iters := func(i int, name string) ([]layout.Iter, bool) {
			v := c.Arg(i, name)
			if v == nil {
				return nil, true
			}
			elts, ok := ev.Iterate(v, c.ArgSpan(i, name))
			if !ok {
				ev.Errorf(c.ArgSpan(i, name), eval.CodeType, "%s must be a sequence of Iter, got %s", name, eval.Describe(v))
				return nil, false
			}
			out := make([]layout.Iter, len(elts))
			for j, e := range elts {
				it, ok := e.(*eval.IterV)
				if !ok {
					ev.Errorf(c.ArgSpan(i, name), eval.CodeType, "%s must be a sequence of Iter, got %s", name, eval.Describe(e))
					return nil, false
				}
				out[j] = it.It
			}
			return out, true
		}
		shard, ok1 := iters(0, "shard")
		replica, ok2 := iters(1, "replica")
		if !ok1 || !ok2 {
			return eval.Poison(c.At)
		}
		off := map[*layout.Axis]int64{}
		if ov := c.Arg(2, "offset"); ov != nil {
			if d, ok := ov.(*eval.DictV); ok {
				for i, k := range d.Keys {
					ax, ok := axisOf(ev, k, c.ArgSpan(2, "offset"))
					n, ok2 := ev.IntArg(d.Vals[i], c.ArgSpan(2, "offset"), "offset value")
					if !ok || !ok2 {
						return eval.Poison(c.At)
					}
					off[ax] += n
				}
			} else if !eval.IsNoneV(ov) {
				return ev.Errorf(c.ArgSpan(2, "offset"), eval.CodeType, "offset must be a dict, got %s", eval.Describe(ov))
			}
		}
		return newLayoutV(ev, layout.NewTile(shard, replica, off), c.At)
	}), true
}

func newLayoutV(ev *eval.Evaluator, l layout.Layout, span source.Span) eval.Value {
	if t := tileOfLayout(l); t != nil {
		if err := t.Validate(); err != nil {
			return ev.Errorf(span, eval.CodeType, "%v", err)
		}
	}
	v := &eval.LayoutV{Base: eval.Base{At: span}, L: l}
	ev.NoteLayout(v)
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

func axisOf(ev *eval.Evaluator, v eval.Value, span source.Span) (*layout.Axis, bool) {
	if v == nil {
		ev.Errorf(span, eval.CodeType, "missing layout axis")
		return nil, false
	}
	switch x := v.(type) {
	case *eval.AxisV:
		return x.A, true
	case *eval.StrV:
		return layout.AxisByName(x.V), true
	}
	if eval.IsErr(v) {
		ev.NeedConcrete(v, span, "a layout axis")
		return nil, false
	}
	ev.Errorf(span, eval.CodeType, "expected a layout axis, got %s", eval.Describe(v))
	return nil, false
}

// specSubscript evaluates S[...] / R[...] (tvm/tirx/layout.py _SpecBuilder).
func specSubscript(ev *eval.Evaluator, b *eval.SpecBuilderV, e *syntax.Subscript, idx []eval.Value, isTuple bool) eval.Value {
	if x := eval.FirstErr(idx...); x != nil {
		return ev.NeedConcrete(x, x.Span(), "a layout spec")
	}
	what := "S"
	if b.Replica {
		what = "R"
	}
	var extV, strV []eval.Value
	var hasStrides bool
	switch {
	case isTuple:
		extV = idx
	case len(idx) == 1:
		switch k := idx[0].(type) {
		case *eval.SliceV:
			if !eval.IsNoneV(k.Step) {
				return ev.Errorf(k.Step.Span(), eval.CodeType, "%s[...] takes extents:strides, not a step", what)
			}
			extV, strV, hasStrides = toTupleElts(k.Lo), toTupleElts(k.Hi), true
		case *eval.TupleV, *eval.ListV:
			extV = eval.SeqElts(k)
		default:
			extV = []eval.Value{k}
		}
	}
	extents := make([]int64, len(extV))
	for i, x := range extV {
		n, ok := eval.ToInt(x)
		if !ok {
			if s, isSlice := x.(*eval.SliceV); isSlice {
				return ev.Errorf(s.At, eval.CodeType, "%s[...] takes one extents:strides pair", what)
			}
			if r, isExpr := x.(*eval.ExprV); isExpr { // a runtime extent is legal TIRx (dynamic_shape.go)
				ev.Warnf(orSpan(x.Span(), e.Index.Span()), eval.CodeUnresolved, "not modelled: runtime layout extent `%s`; tilels' layouts take static extents", eval.Clip(eval.ExprString(r.E), 60))
				return eval.Poison(e.Loc)
			}
			return ev.Errorf(orSpan(x.Span(), e.Index.Span()), eval.CodeType, "%s[...] extent must be an integer, got %s", what, eval.Describe(x))
		}
		if n <= 0 {
			return ev.Errorf(orSpan(x.Span(), e.Index.Span()), eval.CodeType, "%s[...] extent must be positive, got %d", what, n)
		}
		extents[i] = n
	}
	var strides []layout.Stride
	if hasStrides {
		if len(strV) != len(extV) {
			return ev.Errorf(e.Index.Span(), eval.CodeType, "%s[...] has %d extents but %d strides", what, len(extV), len(strV))
		}
		if !b.Replica {
			if r := runtimeShard(ev, extents, strV, e.Loc); r != nil {
				return r // runtime memory strides (layout_runtime_strides.go)
			}
		}
		for _, x := range strV {
			st, ok := strideOf(ev, x, e.Index.Span())
			if !ok {
				return eval.Poison(e.Loc)
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
		return ev.Errorf(e.Loc, eval.CodeType, "%v", err)
	}
	return &eval.SpecV{Base: eval.Base{At: e.Loc}, S: sp}
}

func orSpan(a, b source.Span) source.Span {
	if a.IsValid() {
		return a
	}
	return b
}

// toTupleElts is _SpecBuilder._to_tuple.
func toTupleElts(v eval.Value) []eval.Value {
	if eval.IsSeq(v) {
		return eval.SeqElts(v)
	}
	return []eval.Value{v}
}

// strideOf converts one stride entry: int (on m), value@axis, an axis name
// string (1 on that axis), or a (value, axis) pair.
func strideOf(ev *eval.Evaluator, v eval.Value, span source.Span) (layout.Stride, bool) {
	sp := orSpan(v.Span(), span)
	switch x := v.(type) {
	case *eval.OnAxisV:
		return layout.Stride{Value: x.V, Axis: x.A}, true
	case *eval.StrV:
		return layout.Stride{Value: 1, Axis: layout.AxisByName(x.V)}, true
	case *eval.TupleV:
		if len(x.Elts) == 2 {
			n, ok := eval.ToInt(x.Elts[0])
			if ax, ok2 := axisOf(ev, x.Elts[1], sp); ok && ok2 {
				return layout.Stride{Value: n, Axis: ax}, true
			}
			return layout.Stride{}, false
		}
	}
	if n, ok := eval.ToInt(v); ok {
		return layout.Stride{Value: n, Axis: layout.M}, true
	}
	if eval.IsErr(v) {
		ev.NeedConcrete(v, sp, "a layout stride")
		return layout.Stride{}, false
	}
	if r, isExpr := v.(*eval.ExprV); isExpr { // a runtime stride (a kernel's stride parameter) is legal TIRx
		ev.Warnf(sp, eval.CodeUnresolved, "not modelled: runtime layout stride `%s`; tilels' layouts take static strides", eval.Clip(eval.ExprString(r.E), 60))
		return layout.Stride{}, false
	}
	ev.Errorf(sp, eval.CodeType, "layout stride must be an integer, value@axis or an axis name, got %s", eval.Describe(v))
	return layout.Stride{}, false
}

// offsetOf converts an offset term (int, value@axis, sum of those).
func offsetOf(v eval.Value) (map[*layout.Axis]int64, bool) {
	switch x := v.(type) {
	case *eval.OnAxisV:
		return map[*layout.Axis]int64{x.A: x.V}, true
	case *eval.OffsetV:
		return x.M, true
	}
	if n, ok := eval.ToInt(v); ok && (eval.IsIntLike(v) || isExprInt(v)) {
		return map[*layout.Axis]int64{layout.M: n}, true
	}
	return nil, false
}

func isExprInt(v eval.Value) bool {
	x, ok := v.(*eval.ExprV)
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
func layoutBinop(ev *eval.Evaluator, op string, x, y eval.Value, span source.Span) (eval.Value, bool) {
	switch op {
	case "@":
		ax, isAxis := y.(*eval.AxisV)
		if !isAxis {
			return nil, false
		}
		n, ok := eval.ToInt(x)
		if !ok {
			return ev.Errorf(span, eval.CodeType, "stride@axis needs an integer stride, got %s", eval.Describe(x)), true
		}
		return &eval.OnAxisV{Base: eval.Base{At: span}, V: n, A: ax.A}, true
	case "+":
		xs, xSpec := x.(*eval.SpecV)
		ys, ySpec := y.(*eval.SpecV)
		switch {
		case xSpec && ySpec:
			return &eval.SpecV{Base: eval.Base{At: span}, S: xs.S.Plus(ys.S)}, true
		case xSpec:
			off, ok := offsetOf(y)
			if !ok {
				return ev.Errorf(span, eval.CodeType, "cannot add %s to a layout spec", eval.Describe(y)), true
			}
			return &eval.SpecV{Base: eval.Base{At: span}, S: xs.S.Plus(layout.Spec{Offset: off})}, true
		case ySpec:
			off, ok := offsetOf(x)
			if !ok {
				return ev.Errorf(span, eval.CodeType, "cannot add %s to a layout spec", eval.Describe(x)), true
			}
			return &eval.SpecV{Base: eval.Base{At: span}, S: layout.Spec{Offset: off}.Plus(ys.S)}, true
		}
		_, xo := x.(*eval.OnAxisV)
		_, xo2 := x.(*eval.OffsetV)
		_, yo := y.(*eval.OnAxisV)
		_, yo2 := y.(*eval.OffsetV)
		if !(xo || xo2 || yo || yo2) {
			return nil, false
		}
		a, ok1 := offsetOf(x)
		b, ok2 := offsetOf(y)
		if !ok1 || !ok2 {
			return ev.Errorf(span, eval.CodeType, "unsupported operand type(s) for +: '%s' and '%s'", x.TypeName(), y.TypeName()), true
		}
		return &eval.OffsetV{Base: eval.Base{At: span}, M: addOffsets(a, b)}, true
	}
	switch x.(type) {
	case *eval.SpecV, *eval.OnAxisV, *eval.OffsetV, *eval.LayoutV, *eval.AxisV:
		return ev.Errorf(span, eval.CodeType, "unsupported operand type(s) for %s: '%s' and '%s'", op, x.TypeName(), y.TypeName()), true
	}
	return nil, false
}

func tileLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "TileLayout", 1, "spec") {
		return eval.Poison(c.At)
	}
	switch s := c.Args[0].(type) {
	case *eval.SpecV:
		return newLayoutV(ev, s.S.Layout(), c.At)
	case *eval.LayoutV:
		return s
	case *RuntimeShardV:
		return &RuntimeLayoutV{Base: eval.Base{At: c.At}, Extents: s.Extents, Strides: s.Strides, At: s.At}
	}
	if eval.IsErr(c.Args[0]) {
		return ev.NeedConcrete(c.Args[0], c.ArgSpans[0], "TileLayout's spec")
	}
	if off, ok := offsetOf(c.Args[0]); ok {
		return newLayoutV(ev, layout.Spec{Offset: off}.Layout(), c.At)
	}
	return ev.Errorf(c.ArgSpans[0], eval.CodeType, "TileLayout expects S[...] (+ R[...] + offsets), got %s", eval.Describe(c.Args[0]))
}

func swizzleLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "SwizzleLayout", 3, "per_element", "swizzle_len", "atom_len", "swizzle_inner") {
		return eval.Poison(c.At)
	}
	var ps [3]int
	for i, n := range []string{"per_element", "swizzle_len", "atom_len"} {
		x, ok := ev.IntArg(c.Arg(i, n), c.ArgSpan(i, n), n)
		if !ok {
			return eval.Poison(c.At)
		}
		ps[i] = int(x)
	}
	inner := true
	if v := c.Arg(3, "swizzle_inner"); v != nil {
		inner = eval.Truthy(v)
	}
	l, err := layout.NewCompose(ps[0], ps[1], ps[2], inner, nil)
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	v := newLayoutV(ev, l, c.At)
	if lv, ok := v.(*eval.LayoutV); ok {
		lv.Bare = true
	}
	return v
}

// composeLayoutCall accepts the PRE form ComposeLayout(swizzle, tile) and
// the SEED form ComposeLayout(p, sw, at, tile, swizzle_inner=True).
func composeLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if e := eval.FirstErr(c.Args...); e != nil {
		return ev.NeedConcrete(e, e.Span(), "ComposeLayout's arguments")
	}
	if sw, ok := c.Arg(0, "layout_A").(*eval.LayoutV); ok {
		ev.OtherRelease(c.FnSpan, eval.SurfaceForms[0], eval.ModelledAs(eval.SurfaceForms[0])) // release_surface.go
		if !ev.CheckArgs(c, "ComposeLayout", 2, "layout_A", "layout_B") {
			return eval.Poison(c.At)
		}
		cl, ok := sw.L.(*layout.ComposeLayout)
		if !ok {
			return ev.Errorf(c.ArgSpan(0, "layout_A"), eval.CodeType, "ComposeLayout expects a SwizzleLayout first, got %s", sw.TypeName())
		}
		tile, ok := c.Arg(1, "layout_B").(*eval.LayoutV)
		var t *layout.TileLayout
		if ok {
			t, ok = tile.L.(*layout.TileLayout)
		}
		if !ok {
			return ev.Errorf(c.ArgSpan(1, "layout_B"), eval.CodeType, "ComposeLayout expects a TileLayout second, got %s", eval.Describe(c.Arg(1, "layout_B")))
		}
		if !onlyM(t) {
			return ev.Errorf(c.ArgSpan(1, "layout_B"), eval.CodeType, "ComposeLayout tile must map only to memory axis m, got %s", t)
		}
		l, err := layout.NewCompose(cl.PerElement, cl.SwizzleLen, cl.AtomLen, cl.SwizzleInner, t)
		if err != nil {
			return ev.Errorf(c.At, eval.CodeType, "%v", err)
		}
		return newLayoutV(ev, l, c.At)
	}
	ev.OtherRelease(c.FnSpan, eval.SurfaceForms[1], eval.ModelledAs(eval.SurfaceForms[1])) // release_surface.go
	if !ev.CheckArgs(c, "ComposeLayout", 4, "per_element", "swizzle_len", "atom_len", "tile_layout", "swizzle_inner") {
		return eval.Poison(c.At)
	}
	var ps [3]int
	for i, n := range []string{"per_element", "swizzle_len", "atom_len"} {
		x, ok := ev.IntArg(c.Arg(i, n), c.ArgSpan(i, n), n)
		if !ok {
			return eval.Poison(c.At)
		}
		ps[i] = int(x)
	}
	tv, ok := c.Arg(3, "tile_layout").(*eval.LayoutV)
	var t *layout.TileLayout
	if ok {
		t, ok = tv.L.(*layout.TileLayout)
	}
	if !ok {
		return ev.Errorf(c.ArgSpan(3, "tile_layout"), eval.CodeType, "ComposeLayout tile_layout must be a TileLayout, got %s", eval.Describe(c.Arg(3, "tile_layout")))
	}
	if !onlyM(t) {
		return ev.Errorf(c.ArgSpan(3, "tile_layout"), eval.CodeType, "ComposeLayout tile must map only to memory axis m, got %s", t)
	}
	inner := true
	if v := c.Arg(4, "swizzle_inner"); v != nil {
		inner = eval.Truthy(v)
	}
	l, err := layout.NewCompose(ps[0], ps[1], ps[2], inner, t)
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	return newLayoutV(ev, l, c.At)
}

func iterCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "Iter", 3, "extent", "stride", "axis") {
		return eval.Poison(c.At)
	}
	e, ok1 := ev.IntArg(c.Args[0], c.ArgSpans[0], "Iter extent")
	s, ok2 := ev.IntArg(c.Arg(1, "stride"), c.ArgSpan(1, "stride"), "Iter stride")
	ax, ok3 := axisOf(ev, c.Arg(2, "axis"), c.ArgSpan(2, "axis"))
	if !ok1 || !ok2 || !ok3 {
		return eval.Poison(c.At)
	}
	return &eval.IterV{Base: eval.Base{At: c.At}, It: layout.Iter{Extent: e, Stride: s, Axis: ax}}
}

// layoutAttr implements attributes and methods of layout values, axes,
// iters and specs.
func layoutAttr(ev *eval.Evaluator, obj eval.Value, name string, span source.Span) eval.Value {
	switch o := obj.(type) {
	case *eval.AxisV:
		switch name {
		case "name":
			return &eval.StrV{Base: eval.Base{At: span}, V: o.A.Name}
		case "is_thread", "is_memory":
			return eval.Method("Axis."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
				return &eval.BoolV{Base: eval.Base{At: c.At}, V: o.A.IsThread() == (name == "is_thread")}
			})
		}
	case *eval.IterV:
		switch name {
		case "extent":
			return &eval.IntV{Base: eval.Base{At: span}, V: o.It.Extent}
		case "stride":
			return &eval.IntV{Base: eval.Base{At: span}, V: o.It.Stride}
		case "axis":
			return &eval.AxisV{Base: eval.Base{At: span}, A: o.It.Axis}
		}
	case *eval.LayoutV:
		return layoutMethod(ev, o, name, span)
	}
	return nil
}

func iterList(its []layout.Iter, span source.Span) eval.Value {
	out := make([]eval.Value, len(its))
	for i, it := range its {
		out[i] = &eval.IterV{Base: eval.Base{At: span}, It: it}
	}
	return &eval.ListV{Base: eval.Base{At: span}, Elts: out}
}

func layoutMethod(ev *eval.Evaluator, o *eval.LayoutV, name string, span source.Span) eval.Value {
	l := o.L
	t := tileOfLayout(l)
	cl, isCompose := l.(*layout.ComposeLayout)
	switch name {
	case "shard":
		return iterList(t.Shard, span)
	case "replica", "replicate":
		return iterList(t.Replica, span)
	case "offset":
		d := eval.NewDict(span)
		axes := make([]*layout.Axis, 0, len(t.Offset))
		for a := range t.Offset {
			axes = append(axes, a)
		}
		sort.Slice(axes, func(i, j int) bool { return axes[i].Name < axes[j].Name })
		for _, a := range axes {
			d.Set(&eval.AxisV{Base: eval.Base{At: span}, A: a}, &eval.IntV{Base: eval.Base{At: span}, V: t.Offset[a]})
		}
		return d
	case "per_element", "swizzle_len", "atom_len", "swizzle_inner", "tile_layout", "swizzle":
		if !isCompose {
			return nil
		}
		switch name {
		case "per_element":
			return &eval.IntV{Base: eval.Base{At: span}, V: int64(cl.PerElement)}
		case "swizzle_len":
			return &eval.IntV{Base: eval.Base{At: span}, V: int64(cl.SwizzleLen)}
		case "atom_len":
			return &eval.IntV{Base: eval.Base{At: span}, V: int64(cl.AtomLen)}
		case "swizzle_inner":
			return &eval.BoolV{Base: eval.Base{At: span}, V: cl.SwizzleInner}
		case "tile_layout":
			return &eval.LayoutV{Base: eval.Base{At: span}, L: cl.Tile}
		}
		return &eval.LayoutV{Base: eval.Base{At: span}, L: layout.BareSwizzle(cl), Bare: true}
	}
	m := func(fn func(ev *eval.Evaluator, c *eval.Call) eval.Value) eval.Value {
		return eval.Method(o.TypeName()+"."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return safeLayout(ev, c.At, o.TypeName()+"."+name, func() eval.Value { return fn(ev, c) })
		})
	}
	switch name {
	case "to_psum": // trn_layout.go
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value { return toPsumV(ev, l, c) })
	case "canonicalize":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return newLayoutV(ev, layout.Canonicalize(l, false), c.At)
		})
	case "storage":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value { return newLayoutV(ev, layout.Storage(l), c.At) })
	case "is_swizzle":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return &eval.BoolV{Base: eval.Base{At: c.At}, V: o.Bare}
		})
	case "is_trivial":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return &eval.BoolV{Base: eval.Base{At: c.At}, V: !isCompose && layout.IsTrivial(l)}
		})
	case "size", "span":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			var ax *layout.Axis
			if v := c.Arg(0, "axis_name"); v != nil && !eval.IsNoneV(v) {
				a, ok := axisOf(ev, v, c.ArgSpan(0, "axis_name"))
				if !ok {
					return eval.Poison(c.At)
				}
				ax = a
			}
			if name == "size" {
				return &eval.IntV{Base: eval.Base{At: c.At}, V: layout.Size(l, ax)}
			}
			return &eval.IntV{Base: eval.Base{At: c.At}, V: layout.SpanOf(l, ax)}
		})
	case "tile":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "tile", 3, "outer", "outer_shape", "inner_shape") {
				return eval.Poison(c.At)
			}
			outer, ok := c.Args[0].(*eval.LayoutV)
			if !ok {
				return ev.Errorf(c.ArgSpan(0, "outer"), eval.CodeType, "tile expects a TileLayout outer layout, got %s", eval.Describe(c.Args[0]))
			}
			os, ok1 := ev.IntsArg(c.Arg(1, "outer_shape"), c.ArgSpan(1, "outer_shape"), "outer_shape")
			is, ok2 := ev.IntsArg(c.Arg(2, "inner_shape"), c.ArgSpan(2, "inner_shape"), "inner_shape")
			if !ok1 || !ok2 {
				return eval.Poison(c.At)
			}
			r, err := layout.Tile(l, outer.L, os, is)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			return newLayoutV(ev, r, c.At)
		})
	case "tile_to":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "tile_to", 2, "to_shape", "current_shape") {
				return eval.Poison(c.At)
			}
			to, ok1 := ev.IntsArg(c.Args[0], c.ArgSpans[0], "to_shape")
			cur, ok2 := ev.IntsArg(c.Arg(1, "current_shape"), c.ArgSpan(1, "current_shape"), "current_shape")
			if !ok1 || !ok2 {
				return eval.Poison(c.At)
			}
			r, err := layout.TileTo(l, to, cur)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			return newLayoutV(ev, r, c.At)
		})
	case "slice":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "slice", 2, "shape", "region") {
				return eval.Poison(c.At)
			}
			shape, ok := ev.IntsArg(c.Args[0], c.ArgSpans[0], "shape")
			if !ok {
				return eval.Poison(c.At)
			}
			regs, ok := ev.Iterate(c.Args[1], c.ArgSpans[1])
			if !ok || len(regs) != len(shape) {
				return ev.Errorf(c.ArgSpans[1], eval.CodeType, "slice region must have one (begin, end) pair per dimension")
			}
			region := make([][2]int64, len(regs))
			for i, r := range regs {
				p, ok := ev.IntsArg(r, c.ArgSpans[1], "region bound")
				if !ok || len(p) != 2 {
					return ev.Errorf(c.ArgSpans[1], eval.CodeType, "slice region entries must be (begin, end) pairs")
				}
				region[i] = [2]int64{p[0], p[1]}
			}
			r, err := layout.Slice(l, shape, region)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			if r == nil {
				return &eval.NoneV{Base: eval.Base{At: c.At}}
			}
			return newLayoutV(ev, r, c.At)
		})
	case "apply":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if v := applySymbolic(ev, t, isCompose, c); v != nil {
				return v
			}
			coord := make([]int64, len(c.Args))
			for i, a := range c.Args {
				n, ok := ev.IntArg(a, c.ArgSpans[i], "a layout coordinate")
				if !ok {
					return eval.Poison(c.At)
				}
				coord[i] = n
			}
			var res map[*layout.Axis]int64
			if sv, ok := c.Kw("shape"); ok && !eval.IsNoneV(sv) {
				shape, ok := ev.IntsArg(sv, sv.Span(), "shape")
				if !ok {
					return eval.Poison(c.At)
				}
				if len(shape) != len(coord) {
					return ev.Errorf(c.At, eval.CodeType, "apply got %d coordinates for a shape of rank %d", len(coord), len(shape))
				}
				res = layout.ApplyShape(l, coord, shape)
			} else {
				if len(coord) != 1 && len(coord) != len(t.Shard) {
					return ev.Errorf(c.At, eval.CodeType, "apply got %d coordinates for %d shard iters", len(coord), len(t.Shard))
				}
				res = l.Apply(coord...)
			}
			d := eval.NewDict(c.At)
			axes := make([]*layout.Axis, 0, len(res))
			for a := range res {
				axes = append(axes, a)
			}
			sort.Slice(axes, func(i, j int) bool { return axes[i].Name < axes[j].Name })
			for _, a := range axes {
				d.Set(&eval.StrV{Base: eval.Base{At: c.At}, V: a.Name}, &eval.IntV{Base: eval.Base{At: c.At}, V: res[a]})
			}
			return d
		})
	case "group":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			shape, ok := ev.IntsArg(c.Arg(0, "shape"), c.ArgSpan(0, "shape"), "shape")
			if !ok || t == nil || isCompose {
				return eval.OrPoison(nil, c.At)
			}
			g, seps, err := layout.Group(t, shape)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			sv := make([]eval.Value, len(seps))
			for i, s := range seps {
				sv[i] = &eval.IntV{Base: eval.Base{At: c.At}, V: int64(s)}
			}
			return &eval.TupleV{Base: eval.Base{At: c.At}, Elts: []eval.Value{newLayoutV(ev, g, c.At), &eval.ListV{Base: eval.Base{At: c.At}, Elts: sv}}}
		})
	case "direct_sum":
		// right.direct_sum(left, left_shape, right_shape) (layout.py).
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "direct_sum", 3, "left", "left_shape", "right_shape") || t == nil || isCompose {
				return eval.OrPoison(nil, c.At)
			}
			lv, ok := c.Args[0].(*eval.LayoutV)
			if !ok {
				if eval.IsErr(c.Args[0]) {
					return ev.NeedConcrete(c.Args[0], c.ArgSpans[0], "direct_sum's left layout")
				}
				return ev.Errorf(c.ArgSpans[0], eval.CodeType, "direct_sum expects a TileLayout, got %s", eval.Describe(c.Args[0]))
			}
			ls, ok1 := ev.IntsArg(c.Args[1], c.ArgSpans[1], "left_shape")
			rs, ok2 := ev.IntsArg(c.Args[2], c.ArgSpans[2], "right_shape")
			lt := tileOfLayout(lv.L)
			if !ok1 || !ok2 || lt == nil {
				return eval.Poison(c.At)
			}
			var res *layout.TileLayout
			var err error
			safeLayout(ev, c.At, "direct_sum", func() eval.Value { res, err = layout.DirectSum(t, lt, ls, rs); return nil })
			if err != nil || res == nil {
				return ev.Errorf(c.At, eval.CodeType, "direct_sum failed: %v", err)
			}
			return newLayoutV(ev, res, c.At)
		})
	case "permute_dims", "permute_by_groups":
		// TileLayout.permute_dims(perm): the shard iters reordered by perm
		// (replica and offset kept); permute_by_groups(seps, perm): whole
		// groups of iters (group()'s separators) reordered (layout.py).
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if t == nil || isCompose {
				return eval.OrPoison(nil, c.At)
			}
			var order []int64
			if name == "permute_dims" {
				perm, ok := ev.IntsArg(c.Arg(0, "perm"), c.ArgSpan(0, "perm"), "perm")
				if !ok {
					return eval.Poison(c.At)
				}
				if len(perm) != len(t.Shard) {
					return ev.Errorf(c.At, eval.CodeType, "perm must have the same length as the number of dimensions in the layout")
				}
				order = perm
			} else {
				seps, ok1 := ev.IntsArg(c.Arg(0, "seps"), c.ArgSpan(0, "seps"), "seps")
				perm, ok2 := ev.IntsArg(c.Arg(1, "perm"), c.ArgSpan(1, "perm"), "perm")
				if !ok1 || !ok2 {
					return eval.Poison(c.At)
				}
				sorted := append([]int64(nil), perm...)
				slices.Sort(sorted)
				valid := len(seps) >= 1 && len(perm) == len(seps)-1
				for i, g := range sorted {
					valid = valid && g == int64(i)
				}
				if !valid {
					return ev.Errorf(c.At, eval.CodeType, "invalid perm %s", eval.Repr(c.Arg(1, "perm")))
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
					return ev.Errorf(c.At, eval.CodeType, "list index out of range")
				}
				shard = append(shard, t.Shard[i])
			}
			return newLayoutV(ev, layout.NewTile(shard, t.Replica, t.Offset), c.At)
		})
	case "is_trainium", "verify_well_formed":
		return m(func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return &eval.BoolV{Base: eval.Base{At: c.At}, V: name == "verify_well_formed"}
		})
	}
	if v := layoutPackMethod(ev, o, name); v != nil { // layout_pack.go
		return v
	}
	// to_psum, ... are not modelled.
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: o.TypeName() + "." + name}
}

// ---- tma_utils ----

var swizzleModes = []string{"SWIZZLE_NONE", "SWIZZLE_32B_ATOM", "SWIZZLE_64B_ATOM", "SWIZZLE_128B_ATOM"}

func tmaNames() []string {
	return []string{"SwizzleMode", "mma_shared_layout", "mma_atom_layout", "mma_atom_shape",
		"tma_shared_layout", "tma_atom_layout", "tma_atom_shape", "get_swizzle_mode_from_layout"}
}

func swizzleMode(n int64, span source.Span) *eval.EnumV {
	return &eval.EnumV{Base: eval.Base{At: span}, Type: "SwizzleMode", Name: swizzleModes[n], V: n}
}

func tmaModuleAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "SwizzleMode":
		return &eval.ModuleV{Base: eval.Base{At: span}, Path: eval.TmaPath + ".SwizzleMode", Name: "SwizzleMode", Closed: true,
			Attr: func(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
				for i, m := range swizzleModes {
					if m == name {
						return swizzleMode(int64(i), span), true
					}
				}
				return nil, false
			},
			Call: func(ev *eval.Evaluator, c *eval.Call) eval.Value {
				if !ev.CheckArgs(c, "SwizzleMode", 1, "value") {
					return eval.Poison(c.At)
				}
				if e, ok := c.Args[0].(*eval.EnumV); ok && e.Type == "SwizzleMode" {
					return e
				}
				n, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "SwizzleMode value")
				if !ok {
					return eval.Poison(c.At)
				}
				if n < 0 || n > 3 {
					return ev.Errorf(c.ArgSpans[0], eval.CodeType, "%d is not a valid SwizzleMode", n)
				}
				return swizzleMode(n, c.At)
			}}, true
	case "mma_shared_layout", "tma_shared_layout":
		return eval.Builtin(name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, name, 3, "dtype", "swizzle_mode", "shape") {
				return eval.Poison(c.At)
			}
			bits, mode, ok := dtypeAndMode(ev, c)
			if !ok {
				return eval.Poison(c.At)
			}
			shape, ok := ev.IntsArg(c.Arg(2, "shape"), c.ArgSpan(2, "shape"), "shape")
			if !ok {
				return eval.Poison(c.At)
			}
			return safeLayout(ev, c.At, name, func() eval.Value {
				l, err := layout.MMASharedLayout(bits, mode, shape, ev.Opts.Release >= release.R026) // 0.26+: packed 16-byte atoms for mode 0
				if err != nil {
					return ev.Errorf(c.At, eval.CodeType, "%v", err)
				}
				return newLayoutV(ev, l, c.At)
			})
		}), true
	case "mma_atom_layout", "tma_atom_layout":
		return eval.Builtin(name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, name, 2, "dtype", "swizzle_mode") {
				return eval.Poison(c.At)
			}
			bits, mode, ok := dtypeAndMode(ev, c)
			if !ok {
				return eval.Poison(c.At)
			}
			v := newLayoutV(ev, layout.MMAAtomLayout(bits, mode), c.At)
			if lv, ok := v.(*eval.LayoutV); ok {
				lv.Bare = true
			}
			return v
		}), true
	case "mma_atom_shape", "tma_atom_shape":
		return eval.Builtin(name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, name, 2, "dtype", "swizzle_mode", "shape") {
				return eval.Poison(c.At)
			}
			bits, mode, ok := dtypeAndMode(ev, c)
			if !ok {
				return eval.Poison(c.At)
			}
			if mode == 0 {
				return ev.Errorf(c.ArgSpan(1, "swizzle_mode"), eval.CodeType, "KeyError: <SwizzleMode.SWIZZLE_NONE: 0>")
			}
			var shape []int64
			if sv := c.Arg(2, "shape"); sv != nil && !eval.IsNoneV(sv) {
				if shape, ok = ev.IntsArg(sv, c.ArgSpan(2, "shape"), "shape"); !ok {
					return eval.Poison(c.At)
				}
			}
			var out []int64
			if shape == nil {
				out = layout.MMAAtomShape(bits, mode)
			} else {
				out = layout.MMAAtomShapeFor(bits, mode, shape)
			}
			vs := make([]eval.Value, len(out))
			for i, n := range out {
				vs[i] = &eval.IntV{Base: eval.Base{At: c.At}, V: n}
			}
			return &eval.ListV{Base: eval.Base{At: c.At}, Elts: vs}
		}), true
	case "get_swizzle_mode_from_layout":
		return eval.Builtin(name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			lv, ok := c.Arg(0, "layout").(*eval.LayoutV)
			if !ok {
				return &eval.NoneV{Base: eval.Base{At: c.At}}
			}
			n, err := layout.SwizzleModeOf(lv.L)
			if err != nil || n < 0 || n > 3 {
				return &eval.NoneV{Base: eval.Base{At: c.At}}
			}
			return swizzleMode(int64(n), c.At)
		}), true
	}
	return nil, false
}

// dtypeAndMode reads the (dtype, swizzle_mode) arguments of the
// tma_utils helpers.
func dtypeAndMode(ev *eval.Evaluator, c *eval.Call) (int, int, bool) {
	dt, ok := ev.DtypeOf(c.Arg(0, "dtype"), c.ArgSpan(0, "dtype"))
	if !ok {
		return 0, 0, false
	}
	if dt.Bits <= 0 || dt.Bits > 128 || 128%dt.Bits != 0 {
		ev.Errorf(c.ArgSpan(0, "dtype"), eval.CodeDtype, "dtype %s has no MMA shared layout", dt)
		return 0, 0, false
	}
	mv := c.Arg(1, "swizzle_mode")
	var mode int64
	switch m := mv.(type) {
	case *eval.EnumV:
		if m.Type != "SwizzleMode" {
			ev.Errorf(c.ArgSpan(1, "swizzle_mode"), eval.CodeType, "swizzle_mode must be a SwizzleMode, got %s", eval.Describe(mv))
			return 0, 0, false
		}
		mode = m.V
	default:
		n, ok := ev.IntArg(mv, c.ArgSpan(1, "swizzle_mode"), "swizzle_mode")
		if !ok {
			return 0, 0, false
		}
		if n < 0 || n > 3 {
			ev.Errorf(c.ArgSpan(1, "swizzle_mode"), eval.CodeType, "%d is not a valid SwizzleMode", n)
			return 0, 0, false
		}
		mode = n
	}
	return dt.Bits, int(mode), true
}

// ---- gemm_async ----

func gemmAsyncAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if name == "sf_tmem_layout" {
		return eval.Builtin("sf_tmem_layout", sfTmemLayoutCall), true
	}
	if name == "sf_smem_layout" {
		return eval.Builtin("sf_smem_layout", sfSmemLayoutCall), true // gemm_async.go
	}
	return nil, false
}

// sfTmemLayoutCall is the gemm_async module's sf_tmem_layout(rows, SF_K,
// sf_per_mma, sf_reuse=1, pipe_depth=None): the TMEM layout of a
// block-scaled MMA's scale factors, an atom of one 32-row chunk and one
// MMA's scale factors (replicated over the 4 lane quarters) direct-summed
// with the outer M and K iterations, packing consecutive K groups into
// one 32-bit column when they fit (gemm_async/tcgen05.py).
func sfTmemLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "sf_tmem_layout", 3, "rows", "SF_K", "sf_per_mma", "sf_reuse", "pipe_depth") {
		return eval.Poison(c.At)
	}
	rows, ok1 := ev.IntArg(c.Args[0], c.ArgSpans[0], "rows")
	sfK, ok2 := ev.IntArg(c.Arg(1, "SF_K"), c.ArgSpan(1, "SF_K"), "SF_K")
	per, ok3 := ev.IntArg(c.Arg(2, "sf_per_mma"), c.ArgSpan(2, "sf_per_mma"), "sf_per_mma")
	if !ok1 || !ok2 || !ok3 {
		return eval.Poison(c.At)
	}
	reuse, depth := int64(1), int64(0)
	if v := c.Arg(3, "sf_reuse"); v != nil {
		var ok bool
		if reuse, ok = ev.IntArg(v, c.ArgSpan(3, "sf_reuse"), "sf_reuse"); !ok {
			return eval.Poison(c.At)
		}
	}
	if v := c.Arg(4, "pipe_depth"); v != nil && !eval.IsNoneV(v) {
		var ok bool
		if depth, ok = ev.IntArg(v, c.ArgSpan(4, "pipe_depth"), "pipe_depth"); !ok {
			return eval.Poison(c.At)
		}
	}
	if per <= 0 || sfK%per != 0 {
		return ev.Errorf(c.At, eval.CodeType, "SF_K=%d must be a multiple of sf_per_mma=%d", sfK, per)
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
	safeLayout(ev, c.At, "sf_tmem_layout", func() eval.Value {
		base, err = layout.DirectSum(atom, outer, []int64{m, k}, []int64{32, per})
		return nil
	})
	if err != nil || base == nil {
		return ev.Errorf(c.At, eval.CodeType, "sf_tmem_layout failed: %v", err)
	}
	if reuse == 1 && depth == 0 {
		return newLayoutV(ev, base, c.At)
	}
	shard := append([]layout.Iter(nil), base.Shard...)
	if reuse > 1 {
		shard = append(shard, it(reuse, 0, shard[0].Axis))
	}
	if depth > 0 {
		shard = append([]layout.Iter{it(depth, m*epc, shard[0].Axis)}, shard...)
	}
	return newLayoutV(ev, layout.NewTile(shard, base.Replica, base.Offset), c.At)
}

// applySymbolic is TileLayout.apply(*coord) with a device value among the
// coordinates (nil when they are all integers, or the form is not one it
// takes): one coordinate per shard iter, without shape=, as
// test_tcgen05_ldst.py's copies address their global rows
// (g_layout.apply(tid_in_wg, i, 0)["m"]). Each axis is its offset plus the
// sum of coordinate x stride over its iters, an expression of the
// coordinates, as the reference's apply returns PrimExprs.
func applySymbolic(ev *eval.Evaluator, t *layout.TileLayout, isCompose bool, c *eval.Call) eval.Value {
	if t == nil || isCompose || len(c.Kwargs) > 0 || len(c.Args) != len(t.Shard) || len(c.Args) < 2 {
		return nil
	}
	dynamic := false
	for _, a := range c.Args {
		if _, isExpr := a.(*eval.ExprV); isExpr {
			dynamic = true
		}
	}
	if !dynamic {
		return nil
	}
	coord := make([]ir.Expr, len(c.Args))
	for i, a := range c.Args {
		e, ok := ev.IndexExpr(a)
		if !ok {
			return nil // (the integer path reports it)
		}
		coord[i] = e
	}
	sum := map[*layout.Axis]ir.Expr{}
	var axes []*layout.Axis
	add := func(a *layout.Axis, e ir.Expr) {
		if sum[a] == nil {
			axes = append(axes, a)
			sum[a] = e
			return
		}
		sum[a] = ir.AddE(sum[a], e)
	}
	for i, it := range t.Shard {
		add(it.Axis, ir.MulE(coord[i], ir.Const(it.Stride)))
	}
	for a, v := range t.Offset {
		add(a, ir.Const(v))
	}
	sort.Slice(axes, func(i, j int) bool { return axes[i].Name < axes[j].Name })
	d := eval.NewDict(c.At)
	for _, a := range axes {
		d.Set(&eval.StrV{Base: eval.Base{At: c.At}, V: a.Name}, &eval.ExprV{Base: eval.Base{At: c.At}, E: sum[a]})
	}
	return d
}
