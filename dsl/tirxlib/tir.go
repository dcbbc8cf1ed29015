package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"sync"

	"fmt"
	"github.com/tilels/tilels/release"
	"math"
	"slices"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// ---- the T namespace ----

var dtypeCtorNames = []string{
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2",
	"float8_e8m0fnu", "float4_e2m1fn",
	"f16", "f32", "f64", "bf16", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
}

func tAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	marker := func(n string) (eval.Value, bool) {
		return &eval.MarkerV{Base: eval.Base{At: span}, Name: "T." + n}, true
	}
	switch name {
	case "prim_func", "jit", "inline", "macro", "handle", "let", "Buffer", "constexpr", "TensorMap":
		return marker(name)
	case "TileLayout", "S", "R", "ComposeLayout", "SwizzleLayout", "Iter", "Axis":
		return layoutModuleAttr(ev, name, span) // T re-exports the layout module's classes
	case "cuda", "ptx", "nvshmem", "nki":
		return &eval.IntrinsicV{Base: eval.Base{At: span}, Path: name}, true
	}
	for _, d := range dtypeCtorNames {
		if d == name {
			dt, _ := eval.ParseDType(name)
			return &eval.DTypeV{Base: eval.Base{At: span}, DT: dt, Ctor: true}, true
		}
	}
	switch name {
	case "func_attr", "attr", "hint", "annotate", "block_attr", "sblock_attr", "reads", "writes", "where", "init":
		// Metadata and scheduling annotations: no effect on tile lowering.
		return eval.Builtin("T."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return &eval.NoneV{Base: eval.Base{At: c.At}} }), true
	}
	if name == "call_packed" {
		// A host-side runtime call (T.call_packed("runtime.cuTensorMapEncodeTiled",
		// map, ...)): an opaque extern call that changes no buffer, layout or
		// tile call; tilels' launcher does not print it.
		return eval.Builtin("T."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			noteHostMap(ev, c) // (host_tensormap.go)
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		}), true
	}
	if fn, ok := tBuiltins[name]; ok {
		return &eval.BuiltinV{Base: eval.Base{At: span}, Name: tBuiltinNames()[name], Fn: fn}, true
	}
	if k, ok := eval.ScopeIDKinds[name]; ok {
		return eval.Builtin("T."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return scopeID(ev, k, c) }), true
	}
	if op, ok := eval.MathOps[name]; ok {
		return eval.Builtin("T."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value { return mathCall(ev, name, op, c) }), true
	}
	return builderIRAttr(ev, name, span) // builder_ir.go
}

var tBuiltins map[string]func(ev *eval.Evaluator, c *eval.Call) eval.Value

// tBuiltinNames are the names of tBuiltins' values ("T." + name), made once
// rather than at every access (read only after, so shared by evaluators).
var tBuiltinNames = sync.OnceValue(func() map[string]string {
	out := make(map[string]string, len(tBuiltins))
	for n := range tBuiltins {
		out[n] = "T." + n
	}
	return out
})

func init() {
	tBuiltins = map[string]func(ev *eval.Evaluator, c *eval.Call) eval.Value{
		"device_entry": tDeviceEntry,
		"match_buffer": tMatchBuffer,
		"alloc_buffer": func(ev *eval.Evaluator, c *eval.Call) eval.Value { return TAlloc(ev, c, "T.alloc_buffer", "") },
		"alloc_shared": func(ev *eval.Evaluator, c *eval.Call) eval.Value { return TAlloc(ev, c, "T.alloc_shared", "shared") },
		"smem":         func(ev *eval.Evaluator, c *eval.Call) eval.Value { return TAlloc(ev, c, "T.smem", "shared") },
		"alloc_local":  func(ev *eval.Evaluator, c *eval.Call) eval.Value { return TAlloc(ev, c, "T.alloc_local", "local") },
		"tmem":         func(ev *eval.Evaluator, c *eval.Call) eval.Value { return TAlloc(ev, c, "T.tmem", "tmem") },
		"alloc_tcgen05_ldst_frag": func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return tAllocTcgen05Frag(ev, c)
		},
		"decl_buffer":   tDeclBuffer,
		"local_scalar":  func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tScalar(ev, c, "T.local_scalar", "local") },
		"shared_scalar": func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tScalar(ev, c, "T.shared_scalar", "shared") },
		"alloc_scalar":  func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tScalar(ev, c, "T.alloc_scalar", "") },
		"decl_scalar":   tDeclScalar,
		"meta_class":    tMetaClass,
		"meta_var":      tMetaVar,
		"address_of":    tAddressOf,
		"Shuffle":       tShuffle,
		"cast":          tCast,
		"evaluate":      tEvaluate,
		"Bind":          tBind,
		"bind":          tBind,
		"serial":        func(ev *eval.Evaluator, c *eval.Call) eval.Value { return loopCall(ev, "T.serial", ir.Serial, c) },
		"unroll":        func(ev *eval.Evaluator, c *eval.Call) eval.Value { return loopCall(ev, "T.unroll", ir.Unrolled, c) },
		"vectorized": func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return loopCall(ev, "T.vectorized", ir.Vectorized, c)
		},
		"grid":            tGrid,
		"thread_binding":  tThreadBinding,
		"if_then_else":    tIfThenElse,
		"Select":          tIfThenElse,
		"infinity":        func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tLimit(ev, c, "infinity") },
		"max_value":       func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tLimit(ev, c, "max_value") },
		"min_value":       func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tLimit(ev, c, "min_value") },
		"reinterpret":     tReinterpret,
		"ptr_byte_offset": tPtrByteOffset,
		"handle_add_byte_offset": func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return tByteOffset(ev, c, "handle_add_byte_offset", false)
		},
		"likely":                func(ev *eval.Evaluator, c *eval.Call) eval.Value { return eval.OrPoison(c.Arg(0, "cond"), c.At) },
		"tvm_warp_shuffle":      func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tWarpShuffle(ev, c, "tvm_warp_shuffle") },
		"tvm_warp_shuffle_up":   func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tWarpShuffle(ev, c, "tvm_warp_shuffle_up") },
		"tvm_warp_shuffle_down": func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tWarpShuffle(ev, c, "tvm_warp_shuffle_down") },
		"tvm_warp_shuffle_xor":  func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tWarpShuffle(ev, c, ir.OpWarpShuffleXor) },
		"static_assert":         tStaticAssert,
		"ceildiv":               tCeilDiv,
		"SMEMPool":              tSMEMPool,
		"TMEMPool": func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			return tTMEMPool(ev, c)
		},
		"FloatImm": tImm,
		"IntImm":   tImm,
		"tvm_storage_sync": func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			// T.tvm_storage_sync("shared") is __syncthreads().
			if s, ok := c.Arg(0, "storage_scope").(*eval.StrV); ok && s.V == "shared" {
				return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: ir.OpCTASync, Span: c.At}}
			}
			return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "T.tvm_storage_sync(...)"}
		},
	}
}

// tImm is T.FloatImm(dtype, value) / T.IntImm(dtype, value): the constant
// value of that dtype, as T.<dtype>(value) builds it.
func tImm(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "Imm", 2, "dtype", "value", "span") {
		return eval.Poison(c.At)
	}
	dt, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0])
	if !ok {
		return eval.Poison(c.At)
	}
	return ev.CastTo(c.Args[1], dt, c.ArgSpans[1], c.At)
}

// tMetaVar is T.meta_var(x): x itself, inlined wherever it is used.
func tMetaVar(ev *eval.Evaluator, c *eval.Call) eval.Value {
	v := c.Arg(0, "value")
	if ex, ok := v.(*eval.ExprV); ok {
		return &eval.ExprV{Base: ex.Base, E: ex.E, Inline: true}
	}
	return eval.OrPoison(v, c.At)
}

// tDeviceEntry switches statement emission from the host block to the
// device body.
func tDeviceEntry(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.device_entry()") {
		return eval.Poison(c.At)
	}
	ks := ev.Kern
	switch {
	case ks.DeviceEntry:
		return ev.Errorf(c.At, eval.CodeType, "T.device_entry() may appear only once per kernel")
	case ev.Emit != &ks.Host:
		return ev.Errorf(c.At, eval.CodeType, "T.device_entry() must be a top-level statement of the kernel body")
	}
	ks.DeviceEntry = true
	ev.Emit = &ks.Body
	return &eval.NoneV{Base: eval.Base{At: c.At}}
}

func tMatchBuffer(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.match_buffer") ||
		!ev.CheckArgs(c, "match_buffer", 2, "param", "shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor", "layout") {
		return eval.Poison(c.At)
	}
	p := c.Arg(0, "param")
	pe, ok := p.(*eval.ExprV)
	var prm *ir.Param
	if ok {
		if vr, ok := pe.E.(*ir.Var); ok {
			prm = ev.Kern.Params[vr]
		}
	}
	if prm == nil {
		if eval.IsErr(p) {
			return ev.NeedConcrete(p, c.ArgSpan(0, "param"), "T.match_buffer's parameter")
		}
		return ev.Errorf(c.ArgSpan(0, "param"), eval.CodeType, "T.match_buffer expects a T.handle parameter of the kernel, got %s", eval.Describe(p))
	}
	if prm.Buf != nil {
		return ev.Errorf(c.ArgSpan(0, "param"), eval.CodeType, "parameter `%s` is already bound to buffer `%s`", prm.Var.Name, prm.Buf.Name)
	}
	buf := declBuffer(ev, c, ir.ParamBuffer, "global", prm.Var.Name)
	if buf == nil {
		name := prm.Var.Name
		if names, _ := ev.HintNames(c); len(names) == 1 {
			name = names[0]
		}
		return ev.UnbuiltParamBuffer(c.Arg(1, "shape"), name, c.At, prm.Var)
	}
	buf.Data = prm.Var
	prm.Buf = buf
	ev.MatchedParam(prm, buf) // (a bind line's contents for the handle)
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: buf}
}

// declBuffer builds the buffer of a match_buffer / alloc_buffer /
// decl_buffer call (shape, dtype, scope, layout, offsets).
func declBuffer(ev *eval.Evaluator, c *eval.Call, kind ir.BufferKind, defScope, defName string) *ir.Buffer {
	shapeIdx := 0
	if kind == ir.ParamBuffer {
		shapeIdx = 1
	}
	var shape []int64
	var shapeExpr []ir.Expr
	var ok bool
	if d := c.Arg(2, "data"); kind == ir.DeclBuffer && d != nil && !eval.IsNoneV(d) {
		// a view over a data pointer: a runtime extent over the kernel's
		// own scalars too (eval.ViewShapeArg)
		shape, shapeExpr, ok = ev.ViewShapeArg(c.Arg(shapeIdx, "shape"), c.ArgSpan(shapeIdx, "shape"))
	} else {
		shape, shapeExpr, ok = ev.ParamShapeArg(c.Arg(shapeIdx, "shape"), c.ArgSpan(shapeIdx, "shape"), kind == ir.ParamBuffer)
	}
	if !ok {
		return nil
	}
	dt := ir.Float32
	if d := c.Arg(shapeIdx+1, "dtype"); d != nil {
		if dt, ok = ev.DtypeOf(d, c.ArgSpan(shapeIdx+1, "dtype")); !ok {
			return nil
		}
	}
	scope := defScope
	if sv := c.Arg(6, "scope"); sv != nil {
		str, ok := ev.StrArg(sv, c.ArgSpan(6, "scope"), "scope")
		if !ok {
			return nil
		}
		scope = str
	}
	name, nameSpan := ev.HintName(c, defName)
	buf := &ir.Buffer{Name: name, Shape: shape, ShapeExpr: shapeExpr, Dtype: dt, Scope: scope, Kind: kind, Span: c.At}
	lv := c.Arg(9, "layout")
	layoutSpan := source.NoSpan
	if lv != nil {
		layoutSpan = c.ArgSpan(9, "layout")
		ev.NoteLayout(lv)
	}
	if shapeExpr != nil {
		if ev.RuntimeShapeBuffer(buf, lv, layoutSpan) == nil || !ev.RuntimeShapePlain(c, buf) {
			return nil
		}
	} else {
		buf.Layout = ev.LayoutArg(lv, layoutSpan, buf)
	}
	if eo := c.Arg(-1, "elem_offset"); eo != nil {
		if x := dynamicOffset(eo); x != nil && kind == ir.DeclBuffer {
			buf.ElemOffsetExpr = x // tirxlib/builder_ir.go
		} else if _, none := eo.(*eval.NoneV); !none {
			n, ok := ev.IntArg(eo, c.ArgSpan(-1, "elem_offset"), "elem_offset")
			if !ok {
				return nil
			}
			buf.ElemOffset = n
		}
	}
	if bo := c.Arg(-1, "byte_offset"); bo != nil {
		if x := dynamicOffset(bo); x != nil && kind == ir.DeclBuffer {
			buf.ElemOffsetExpr = byteToElemOffset(x, dt, c.At) // builder_ir.go
		} else if _, none := bo.(*eval.NoneV); !none {
			n, ok := ev.IntArg(bo, c.ArgSpan(-1, "byte_offset"), "byte_offset")
			if !ok {
				return nil
			}
			if n*8%int64(dt.Bits) != 0 {
				ev.Errorf(c.ArgSpan(-1, "byte_offset"), eval.CodeType, "byte_offset %d is not a multiple of the %s element size", n, dt)
				return nil
			}
			buf.ElemOffset = n * 8 / int64(dt.Bits)
		}
	}
	if aa := c.Arg(-1, "allocated_addr"); aa != nil {
		if _, none := aa.(*eval.NoneV); !none {
			if e, ok := ev.ToIR(aa, ir.DataType{}); ok {
				buf.AllocatedAddr = e
			} else {
				buf.AllocatedAddr = &ir.Var{Name: "allocated_addr", Type: ir.Int32, Span: aa.Span()}
			}
		}
	}
	ev.AddBufferSite(buf, nameSpan, c.At, layoutSpan)
	return buf
}

func TAlloc(ev *eval.Evaluator, c *eval.Call, fname, fixedScope string) eval.Value {
	if !ev.RequireKernel(c, fname) ||
		!ev.CheckArgs(c, fname, 1, "shape", "dtype", "data", "strides", "elem_offset", "byte_offset", "scope", "align", "offset_factor", "layout", "allocated_addr", "annotations") {
		return eval.Poison(c.At)
	}
	scope := fixedScope
	if scope == "" {
		scope = "global"
	}
	buf := declBuffer(ev, c, ir.AllocBuffer, scope, "buf")
	if buf == nil {
		return eval.Poison(c.At)
	}
	buf.Data = &ir.Var{Name: buf.Name, Type: ir.HandleT, Span: buf.Span}
	ev.EmitStmt(&ir.Alloc{Buf: buf, Span: c.At})
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: buf}
}

// tScalar is T.local_scalar(dtype="float32") (T.shared_scalar,
// T.alloc_scalar(dtype, scope="global")): a one-element buffer whose value
// is its element buf[0] (builder/ir.py alloc_scalar). Assigning to a name
// or attribute holding it stores into the buffer (stmt.go storeScalar).
func tScalar(ev *eval.Evaluator, c *eval.Call, fname, fixedScope string) eval.Value {
	params := []string{"dtype"}
	if fixedScope == "" {
		params = append(params, "scope")
	}
	if !ev.RequireKernel(c, fname) || !ev.CheckArgs(c, fname, 0, params...) {
		return eval.Poison(c.At)
	}
	dtype := c.Arg(0, "dtype")
	if dtype == nil {
		dtype = &eval.StrV{Base: eval.Base{At: c.At}, V: "float32"}
	}
	scope := eval.Value(&eval.StrV{Base: eval.Base{At: c.At}, V: fixedScope})
	if fixedScope == "" {
		scope = &eval.StrV{Base: eval.Base{At: c.At}, V: "global"}
		if s := c.Arg(1, "scope"); s != nil {
			scope = s
		}
	}
	alloc := &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{&eval.TupleV{Base: eval.Base{At: c.At}, Elts: []eval.Value{&eval.IntV{Base: eval.Base{At: c.At}, V: 1}}}, dtype},
		ArgSpans: []source.Span{c.At, c.ArgSpan(0, "dtype")},
		Kwargs:   []eval.Kwarg{{Name: "scope", V: scope, At: c.At, Vspan: c.At}}}
	return eval.ScalarOf(TAlloc(ev, alloc, fname, ""), c.At)
}

// tDeclScalar is T.decl_scalar(dtype, data, scope, elem_offset=None,
// byte_offset=None): a one-element view of data, valued as its element.
func tDeclScalar(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.decl_scalar") || !ev.CheckArgs(c, "decl_scalar", 3, "dtype", "data", "scope", "elem_offset", "byte_offset") {
		return eval.Poison(c.At)
	}
	decl := &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{&eval.TupleV{Base: eval.Base{At: c.At}, Elts: []eval.Value{&eval.IntV{Base: eval.Base{At: c.At}, V: 1}}}, c.Arg(0, "dtype"), c.Arg(1, "data")},
		ArgSpans: []source.Span{c.At, c.ArgSpan(0, "dtype"), c.ArgSpan(1, "data")},
		Kwargs:   []eval.Kwarg{{Name: "scope", V: c.Arg(2, "scope"), At: c.ArgSpan(2, "scope"), Vspan: c.ArgSpan(2, "scope")}}}
	for i, k := range []string{"elem_offset", "byte_offset"} {
		if v := c.Arg(3+i, k); v != nil {
			decl.Kwargs = append(decl.Kwargs, eval.Kwarg{Name: k, V: v, At: c.ArgSpan(3+i, k), Vspan: c.ArgSpan(3+i, k)})
		}
	}
	return eval.ScalarOf(tDeclBuffer(ev, decl), c.At)
}

// tMetaClass is the T.meta_class class decorator: instances are meta
// values inside kernels, which is how tilels treats every instance, so the
// class is returned as is (class.go accepts it as a modelled decorator).
func tMetaClass(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if len(c.Args) != 1 {
		return ev.Errorf(c.At, eval.CodeType, "T.meta_class takes 1 argument (%d given)", len(c.Args))
	}
	return c.Args[0]
}

func tDeclBuffer(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.decl_buffer") ||
		!ev.CheckArgs(c, "decl_buffer", 1, "shape", "dtype", "data", "strides", "elem_offset", "byte_offset", "scope", "align", "offset_factor", "layout", "allocated_addr") {
		return eval.Poison(c.At)
	}
	data := c.Arg(2, "data")
	if data == nil {
		return TAlloc(ev, c, "T.decl_buffer", "")
	}
	if _, none := data.(*eval.NoneV); none {
		return TAlloc(ev, c, "T.decl_buffer", "")
	}
	if l, ok := c.Arg(9, "layout").(*RuntimeLayoutV); ok {
		if v, ok := declStridedView(ev, c, l); ok {
			return v // a view with runtime strides (strided_view.go)
		}
	}
	buf := declBuffer(ev, c, ir.DeclBuffer, "global", "buf")
	if buf == nil {
		return eval.Poison(c.At)
	}
	switch d := data.(type) {
	case *eval.ExprV:
		switch x := d.E.(type) {
		case *ir.BufferData:
			buf.Base = x.Buf
			buf.Data = x.Buf.Data
		case *ir.Var:
			buf.Data = x
			if prm := ev.Kern.Params[x]; prm != nil {
				buf.Base = prm.Buf
			} else if p := ev.Kern.PtrLets[x]; p != nil {
				buf.PtrBase, buf.PtrOffset = pointerInto(p) // ptr_base.go
			}
		default:
			if eval.ExprType(d.E) != ir.HandleT {
				return ev.Errorf(c.ArgSpan(2, "data"), eval.CodeType, "decl_buffer data must be a buffer's .data or a handle, got `%s`", eval.ExprString(d.E))
			}
			// A pointer expression (T.reinterpret(PointerType(...), x)):
			// bound to a handle variable the buffer sits on, as TVMScript
			// binds a pointer-typed value.
			vr := &ir.Var{Name: buf.Name + "_ptr", Type: ir.HandleT, Span: d.At}
			ev.EmitStmt(&ir.Let{Var: vr, Value: d.E, Span: d.At})
			buf.Data = vr
			buf.PtrBase, buf.PtrOffset = pointerInto(d.E) // ptr_base.go
		}
	case *eval.BufferV:
		buf.Base, buf.Data = d.B, d.B.Data
	default:
		if eval.IsErr(data) {
			return ev.NeedConcrete(data, c.ArgSpan(2, "data"), "decl_buffer's data")
		}
		return ev.Errorf(c.ArgSpan(2, "data"), eval.CodeType, "decl_buffer data must be a buffer's .data, got %s", eval.Describe(data))
	}
	// Without scope=, a view has the storage scope of its data pointer (TVM
	// derives Buffer.scope() from the pointer type's storage scope), so a
	// view of a shared.dyn arena is shared.dyn, not global.
	if c.Arg(6, "scope") == nil && buf.Base != nil {
		buf.Scope = buf.Base.Scope
	}
	ev.EmitStmt(&ir.Decl{Buf: buf, Span: c.At})
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: buf}
}

// ---- scope ids ----

func scopeID(ev *eval.Evaluator, kind ir.ScopeIDKind, c *eval.Call) eval.Value {
	fname := "T." + string(kind)
	if !ev.RequireKernel(c, fname) || !ev.CheckArgs(c, string(kind), 0, "extents", "preferred", "dtype") || !ev.ScopeIDDtype(c, fname) {
		return eval.Poison(c.At)
	}
	var extents []int64
	var dynamic []ir.Expr // runtime extents (scopeid_dynamic.go)
	unresolved := false
	n := 1
	if ext := c.Arg(0, "extents"); ext != nil {
		if _, none := ext.(*eval.NoneV); !none {
			if d, ok := ev.DynamicExtents(ext); ok {
				dynamic, n = d, len(d)
				ext = &eval.NoneV{Base: eval.Base{At: c.At}}
			}
		}
		if _, none := ext.(*eval.NoneV); !none {
			es, ok := ev.IntsArg(ext, c.ArgSpan(0, "extents"), fname+" extents")
			if !ok {
				// A value tilels does not model (reported): the ids
				// still exist, their extents are unknown (the dispatch
				// pass says what that leaves undecided).
				k, unres := eval.UnresolvedExtents(ext)
				if !unres {
					return eval.Poison(c.At)
				}
				unresolved, n = true, k
			} else if len(es) == 0 || len(es) > 3 {
				return ev.Errorf(c.ArgSpan(0, "extents"), eval.CodeType, "%s takes 1 to 3 extents, got %d", fname, len(es))
			} else {
				for _, e := range es {
					if e <= 0 {
						return ev.Errorf(c.ArgSpan(0, "extents"), eval.CodeType, "%s extent must be positive, got %d", fname, e)
					}
				}
				extents, n = es, len(es)
			}
		}
	}
	names, spans := ev.HintNames(c)
	vars := make([]*ir.Var, n)
	for i := range vars {
		name, sp := string(kind), c.At
		switch {
		case len(names) == n:
			name, sp = names[i], spans[i]
		case len(names) == 1 && n > 1:
			name, sp = fmt.Sprintf("%s_%d", names[0], i), spans[0]
		case n > 1:
			name = fmt.Sprintf("%s_%d", kind, i)
		}
		vars[i] = &ir.Var{Name: name, Type: ir.Int32, Span: sp}
	}
	ev.EmitStmt(&ir.ScopeID{Kind: kind, Vars: vars, Extents: extents, Span: c.At, Dynamic: dynamic, Unresolved: unresolved})
	if n == 1 {
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: vars[0], Fresh: true}
	}
	out := make([]eval.Value, n)
	for i, v := range vars {
		out[i] = &eval.ExprV{Base: eval.Base{At: v.Span}, E: v, Fresh: true}
	}
	return &eval.ListV{Base: eval.Base{At: c.At}, Elts: out}
}

// ---- loops ----

func loopCall(ev *eval.Evaluator, what string, kind ir.ForKind, c *eval.Call) eval.Value {
	var args []eval.Value
	for i, name := range []string{"start", "stop"} {
		if v := c.Arg(i, name); v != nil {
			if _, none := v.(*eval.NoneV); !none {
				args = append(args, v)
			}
		}
	}
	if step, ok := c.Kw("step"); ok {
		if n, ok := eval.ToInt(step); !ok || n != 1 {
			if _, none := step.(*eval.NoneV); !none {
				return ev.Errorf(step.Span(), eval.CodeType, "%s step must be 1", what)
			}
		}
	}
	if len(args) == 0 || len(c.Args) > 2 {
		return ev.Errorf(c.At, eval.CodeType, "%s takes 1 or 2 positional arguments", what)
	}
	unroll, bad := loopUnroll(ev, what, c)
	if bad != nil {
		return bad
	}
	v := ev.LoopValue(what, kind, c, args)
	if lv, ok := v.(*eval.LoopV); ok {
		lv.Unroll = unroll
	}
	return v
}

// tThreadBinding is T.thread_binding(extent, thread="blockIdx.x") (or
// (start, stop, thread=...)): a loop whose variable is a launch index, as
// TVM's codegen tests write the grid and block (test_codegen_hopper.py).
// deviceLoop makes it the ir.ScopeID of that index.
func tThreadBinding(ev *eval.Evaluator, c *eval.Call) eval.Value {
	const what = "T.thread_binding"
	if !ev.CheckArgs(c, "thread_binding", 1, "start", "stop", "thread", "annotations") {
		return eval.Poison(c.At)
	}
	var args []eval.Value
	for i, name := range []string{"start", "stop"} {
		if v := c.Arg(i, name); v != nil {
			if _, none := v.(*eval.NoneV); !none {
				args = append(args, v)
			}
		}
	}
	th, ok := c.Arg(2, "thread").(*eval.StrV)
	if !ok && len(args) == 2 {
		// thread_binding(extent, "clusterCtaIdx.x"): a string stop is
		// the thread, and the extent the stop (TVM's ir.py)
		if t, isStr := args[1].(*eval.StrV); isStr {
			th, ok, args = t, true, args[:1]
		}
	}
	if len(args) == 0 || !ok {
		return ev.Errorf(c.At, eval.CodeType, "%s takes an extent (or start and stop) and thread=\"...\"", what)
	}
	v := ev.LoopValue(what, ir.Serial, c, args)
	if lv, ok := v.(*eval.LoopV); ok {
		lv.Thread = th.V
	}
	return v
}

// loopUnroll is the unroll pragma of a loop call (ir.For.Unroll): its
// annotations {"disable_unroll": True} or {"pragma_unroll": v}, then its
// unroll= keyword, which T.serial turns into one of them: True asks for
// `#pragma unroll`, False for `#pragma unroll 1`; a positive int n (0.27)
// for `#pragma unroll n`. Before 0.27 unroll= is a truth value.
func loopUnroll(ev *eval.Evaluator, what string, c *eval.Call) (int64, eval.Value) {
	var unroll int64
	if a, ok := c.Kw("annotations"); ok {
		if d, ok := a.(*eval.DictV); ok {
			for i, k := range d.Keys {
				key, ok := k.(*eval.StrV)
				if !ok {
					continue
				}
				switch v := d.Vals[i]; key.V {
				case "disable_unroll":
					if eval.Truthy(v) {
						unroll = 1
					}
				case "pragma_unroll":
					if unroll == 1 {
						break
					}
					if n, ok := eval.ToInt(v); ok {
						if _, isBool := v.(*eval.BoolV); !isBool && n > 0 {
							unroll = n
							break
						}
					}
					if eval.Truthy(v) {
						unroll = ir.UnrollFull
					}
				}
			}
		}
	}
	u, ok := c.Kw("unroll")
	if !ok {
		return unroll, nil
	}
	if _, none := u.(*eval.NoneV); none {
		return unroll, nil
	}
	if b, isBool := u.(*eval.BoolV); isBool || ev.Opts.Release < release.R027 {
		if (isBool && b.V) || (!isBool && eval.Truthy(u)) {
			return ir.UnrollFull, nil
		}
		return 1, nil
	}
	n, ok := eval.ToInt(u)
	if !ok {
		return 0, ev.Errorf(u.Span(), eval.CodeType, "%s: unroll must be a bool, a positive integer, or None", what)
	}
	if n < 1 {
		return 0, ev.Errorf(u.Span(), eval.CodeType, "%s: unroll must be a positive integer", what)
	}
	return n, nil
}

func tGrid(ev *eval.Evaluator, c *eval.Call) eval.Value {
	lv := &eval.LoopV{Base: eval.Base{At: c.At}, What: "T.grid", Kind: ir.Serial}
	if len(c.Args) == 0 {
		return ev.Errorf(c.At, eval.CodeType, "T.grid needs at least one extent")
	}
	for i, a := range c.Args {
		if eval.IsErr(a) {
			return ev.NeedConcrete(a, c.ArgSpans[i], "T.grid extents")
		}
		var mn, ext eval.Value = &eval.IntV{Base: eval.Base{At: c.ArgSpans[i]}, V: 0}, a
		if t, ok := a.(*eval.TupleV); ok && len(t.Elts) == 2 {
			mn, ext = t.Elts[0], t.Elts[1]
		}
		me, ok1 := ev.ToIR(mn, ir.Int32)
		ee, ok2 := ev.ToIR(ext, ir.Int32)
		if !ok1 || !ok2 {
			return ev.Errorf(c.ArgSpans[i], eval.CodeType, "T.grid extent must be an integer, got %s", eval.Describe(a))
		}
		lv.Mins = append(lv.Mins, me)
		lv.Extents = append(lv.Extents, ee)
	}
	return lv
}

// ---- scalar builtins ----

func tAddressOf(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "address_of", 1, "buffer_load") {
		return eval.Poison(c.At)
	}
	switch x := c.Args[0].(type) {
	case *eval.BufferV:
		idx := make([]ir.Expr, len(x.B.Shape))
		for i := range idx {
			idx[i] = &ir.IntImm{Value: 0, Type: ir.Int32, Span: c.At}
		}
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.AddressOf{Buf: x.B, Indices: idx, Span: c.At}}
	case *eval.ExprV:
		if ld, ok := x.E.(*ir.Load); ok {
			return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.AddressOf{Buf: ld.Buf, Indices: ld.Indices, Span: c.At}}
		}
	case *eval.RegionV:
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.AddressOf{Buf: x.R.Buf, Indices: x.R.Min, Span: c.At}}
	}
	if x, ok := c.Args[0].(*eval.ExprV); ok {
		if vr, ok := x.E.(*ir.Var); ok && ev.Kern != nil && ev.Kern.Mutable[vr] {
			// A mutable scalar is a one-element local buffer in TVM.
			return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: "address_of", Args: []ir.Expr{vr}, Type: ir.HandleT, Span: c.At}}
		}
		if vr, ok := x.E.(*ir.Var); ok && vr.Type == ir.HandleT {
			// a tensor-map handle (T.tvm_stack_alloca("tensormap", 1)):
			// call_intrin("uint64", "tirx.address_of", var) in tvm/tirx/op.py
			return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: "address_of", Args: []ir.Expr{vr}, Type: ir.DataType{Code: ir.UInt, Bits: 64}, Span: c.At}}
		}
	}
	if eval.IsErr(c.Args[0]) {
		return c.Args[0]
	}
	return ev.Errorf(c.ArgSpans[0], eval.CodeType, "T.address_of expects a buffer element such as A[i], got %s", eval.Describe(c.Args[0]))
}

func tCast(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "cast", 2, "value", "dtype", "span") {
		return eval.Poison(c.At)
	}
	dt, ok := ev.DtypeOf(c.Args[1], c.ArgSpan(1, "dtype"))
	if !ok {
		return eval.Poison(c.At)
	}
	return ev.CastTo(c.Args[0], dt, c.ArgSpans[0], c.At)
}

func tEvaluate(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "evaluate", 1, "value") {
		return eval.Poison(c.At)
	}
	if _, ok := c.Args[0].(*eval.StrippedV); ok {
		// (a call a regular compilation strips: eval/stripped.go)
	} else if _, ok := c.Args[0].(*eval.OpaqueV); ok {
		ev.IgnoreStatement(c.At) // (a call tilels does not model: warned once per kernel)
	} else if e, ok := ev.ToIR(c.Args[0], ir.DataType{}); ok {
		ev.EmitStmt(&ir.Evaluate{X: e, Span: c.At})
	} else if !eval.IsErr(c.Args[0]) {
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "T.evaluate expects a scalar expression, got %s", eval.Describe(c.Args[0]))
	}
	return &eval.NoneV{Base: eval.Base{At: c.At}}
}

func tBind(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.Bind") || !ev.CheckArgs(c, "Bind", 1, "value", "type_annotation", "var") {
		return eval.Poison(c.At)
	}
	v := c.Args[0]
	e, ok := ev.ToIR(v, ir.DataType{})
	if !ok {
		if eval.IsErr(v) {
			return ev.NeedConcrete(v, c.ArgSpans[0], "T.Bind's value")
		}
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "T.Bind expects a scalar expression, got %s", eval.Describe(v))
	}
	var vr *ir.Var
	if vv, ok := c.Kw("var"); ok {
		if x, ok := vv.(*eval.ExprV); ok {
			vr, _ = x.E.(*ir.Var)
		}
	}
	if vr == nil {
		name, sp := ev.HintName(c, "v")
		if !sp.IsValid() {
			sp = c.At
		}
		t := eval.ExprType(e)
		if ta := c.Arg(1, "type_annotation"); ta != nil {
			if d, ok := ta.(*eval.DTypeV); ok {
				t = d.DT
			}
		}
		vr = &ir.Var{Name: name, Type: t, Span: sp}
	}
	ev.EmitStmt(&ir.Let{Var: vr, Value: e, Span: c.At})
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: vr, Fresh: true}
}

func tIfThenElse(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "if_then_else", 3, "cond", "t", "f") {
		return eval.Poison(c.At)
	}
	if e := eval.FirstErr(c.Args...); e != nil {
		return e
	}
	cond := c.Args[0]
	if _, ok := cond.(*eval.ExprV); !ok {
		if eval.Truthy(cond) {
			return c.Args[1]
		}
		return c.Args[2]
	}
	a, ok1 := ev.ToIR(c.Args[1], ir.DataType{})
	b, ok2 := ev.ToIR(c.Args[2], eval.ExprType(a))
	if !ok1 || !ok2 {
		return ev.Errorf(c.At, eval.CodeType, "T.if_then_else needs scalar branches")
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Select{Cond: cond.(*eval.ExprV).E, A: a, B: b, Span: c.At}}
}

func tLimit(ev *eval.Evaluator, c *eval.Call, which string) eval.Value {
	if !ev.CheckArgs(c, which, 1, "dtype") {
		return eval.Poison(c.At)
	}
	dt, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0])
	if !ok {
		return eval.Poison(c.At)
	}
	if dt.IsFloat() {
		f := math.Inf(1)
		switch which {
		case "max_value":
			f = floatMax(dt)
		case "min_value":
			f = -floatMax(dt)
		}
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.FloatImm{Value: f, Type: dt, Span: c.At}}
	}
	var n int64
	switch {
	case which == "min_value" && dt.Code == ir.Int:
		n = -1 << (dt.Bits - 1)
	case which == "min_value":
		n = 0
	case dt.Code == ir.Int:
		n = 1<<(dt.Bits-1) - 1
	case dt.Bits >= 64:
		n = math.MaxInt64
	default:
		n = 1<<dt.Bits - 1
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.IntImm{Value: n, Type: dt, Span: c.At}}
}

func floatMax(dt ir.DataType) float64 {
	switch {
	case dt == ir.Float16:
		return 65504
	case dt == ir.BF16:
		return 3.3895313892515355e38
	case dt.Code == ir.Float8E4M3:
		return 448
	case dt.Code == ir.Float8E5M2:
		return 57344
	case dt.Code == ir.Float8E8M0:
		return 1.7014118346046923e38 // 2^127
	case dt.Code == ir.Float4E2M1:
		return 6
	case dt.Bits == 64:
		return math.MaxFloat64
	}
	return math.MaxFloat32
}

// tWarpShuffle is T.tvm_warp_shuffle[_up|_down](mask, value, lane, width,
// warp_size): TVM's builtin, __shfl_sync (_up/_down) on CUDA. Its value is
// a runtime expression of value's type (a branch on it is a runtime
// branch, as a kernel's warp-role dispatch on a shuffled warp id is).
func tWarpShuffle(ev *eval.Evaluator, c *eval.Call, op string) eval.Value {
	if !ev.CheckArgs(c, op, 5, "mask", "value", "lane", "width", "warp_size") {
		return eval.Poison(c.At)
	}
	args := make([]ir.Expr, 5)
	for i, a := range c.Args {
		want := ir.DataType{}
		if i == 0 {
			want = ir.UInt32
		} else if i >= 2 {
			want = ir.Int32
		}
		e, ok := ev.ToIR(a, want)
		if !ok {
			return eval.OrPoison(eval.FirstErr(a), c.ArgSpans[i])
		}
		args[i] = e
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: op, Args: args, Type: eval.ExprType(args[1]), Span: c.At}}
}

func tReinterpret(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "reinterpret", 2, "dtype", "value") {
		return eval.Poison(c.At)
	}
	if sv, ok := c.Args[0].(*eval.StrV); ok {
		if elem, ok := eval.PackedPairElem(sv.V); ok {
			// a two-lane 16-bit float vector of a 32-bit pattern
			e, ok := ev.ToIR(c.Args[1], ir.DataType{})
			if !ok {
				return eval.OrPoison(eval.FirstErr(c.Args[1]), c.At)
			}
			if t := eval.ExprType(e); t != ir.UInt32 {
				if t.Bits != 32 {
					return ev.Errorf(c.ArgSpans[1], eval.CodeType, "T.reinterpret to %s takes a 32-bit value, got %s", sv.V, t)
				}
				e = &ir.Call{Op: "reinterpret", Args: []ir.Expr{e}, Type: ir.UInt32, Span: c.At}
			}
			return &eval.PackedPairV{Base: eval.Base{At: c.At}, Bits: e, Elem: elem}
		}
	}
	if p, ok := c.Args[1].(*eval.PackedPairV); ok {
		// a pair's 32-bit pattern, as another 32-bit type
		dt, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0])
		if !ok {
			return eval.Poison(c.At)
		}
		if dt.Bits != 32 {
			return ev.Errorf(c.ArgSpans[0], eval.CodeType, "T.reinterpret of a two-lane 16-bit vector to %s changes the width", dt)
		}
		if dt == ir.UInt32 {
			return &eval.ExprV{Base: eval.Base{At: c.At}, E: p.Bits}
		}
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: "reinterpret", Args: []ir.Expr{p.Bits}, Type: dt, Span: c.At}}
	}
	var dt ir.DataType
	if isPointerType(c.Args[0]) {
		// T.reinterpret(PointerType(PrimType(t)), addr): a pointer, which
		// tilels types as a handle (a buffer's data).
		dt = ir.HandleT
	} else {
		var ok bool
		if dt, ok = ev.DtypeOf(c.Args[0], c.ArgSpans[0]); !ok {
			return eval.Poison(c.At)
		}
	}
	e, ok := ev.ToIR(c.Args[1], ir.DataType{})
	if !ok {
		return eval.OrPoison(eval.FirstErr(c.Args[1]), c.At)
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: "reinterpret", Args: []ir.Expr{e}, Type: dt, Span: c.At}}
}

// tPtrByteOffset is T.ptr_byte_offset(data, byte_offset, dtype): data plus
// byte_offset bytes, a dtype* (tirx.ptr_byte_offset; CUDA
// ((dtype*)(((char*)data) + byte_offset))).
func tPtrByteOffset(ev *eval.Evaluator, c *eval.Call) eval.Value {
	return tByteOffset(ev, c, "ptr_byte_offset", true)
}

// tByteOffset builds T.ptr_byte_offset (typed: its dtype the third
// argument, a string) or T.handle_add_byte_offset(handle, offset), a
// void*: a pointer, which tilels types as a handle.
func tByteOffset(ev *eval.Evaluator, c *eval.Call, op string, typed bool) eval.Value {
	n, names := 2, []string{"data", "byte_offset"}
	if !typed {
		names = []string{"handle", "offset"}
	} else {
		n, names = 3, append(names, "dtype")
	}
	if !ev.CheckArgs(c, op, n, names...) {
		return eval.Poison(c.At)
	}
	base, ok := ev.ToIR(c.Args[0], ir.DataType{})
	if !ok {
		return eval.OrPoison(eval.FirstErr(c.Args[0]), c.At)
	}
	off, ok := ev.ToIR(c.Args[1], ir.DataType{})
	if !ok {
		return eval.OrPoison(eval.FirstErr(c.Args[1]), c.At)
	}
	args := []ir.Expr{base, off}
	if typed {
		dt, ok := ev.DtypeOf(c.Args[2], c.ArgSpans[2])
		if !ok {
			return eval.Poison(c.At)
		}
		args = append(args, &ir.StringImm{Value: dt.String(), Span: c.ArgSpans[2]})
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: op, Args: args, Type: ir.HandleT, Span: c.At}}
}

// isPointerType reports whether v is tvm.ir.PointerType(...) (tvm.ir.type
// is not modelled, so it is an opaque value with that path).
func isPointerType(v eval.Value) bool {
	o, ok := v.(*eval.OpaqueV)
	return ok && (o.Path == "tvm.ir.type.PointerType(...)" || o.Path == "tvm.ir.PointerType(...)")
}

func tStaticAssert(ev *eval.Evaluator, c *eval.Call) eval.Value {
	v := c.Arg(0, "x")
	if v == nil || eval.IsErr(v) {
		return &eval.NoneV{Base: eval.Base{At: c.At}}
	}
	if _, ok := v.(*eval.ExprV); !ok && !eval.Truthy(v) {
		msg := "static assertion failed"
		if m, ok := c.Arg(1, "message").(*eval.StrV); ok && m.V != "" {
			msg += ": " + m.V
		}
		ev.Errorf(c.ArgSpan(0, "x"), eval.CodeType, "%s", msg)
	}
	return &eval.NoneV{Base: eval.Base{At: c.At}}
}

func tCeilDiv(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "ceildiv", 2, "lhs", "rhs") {
		return eval.Poison(c.At)
	}
	a, b := c.Args[0], c.Args[1]
	if eval.IsPyNum(a) && eval.IsPyNum(b) {
		s := ev.Binop("+", a, b, c.At, false)
		s = ev.Binop("-", s, &eval.IntV{Base: eval.Base{At: c.At}, V: 1}, c.At, false)
		return ev.Binop("//", s, b, c.At, false)
	}
	s := ev.Binop("+", a, ev.Binop("-", b, &eval.IntV{Base: eval.Base{At: c.At}, V: 1}, c.At, false), c.At, false)
	return ev.Binop("//", s, b, c.At, false)
}

func mathCall(ev *eval.Evaluator, name string, op ir.BinOp, c *eval.Call) eval.Value {
	if e := eval.FirstErr(c.Args...); e != nil {
		return e
	}
	if op != 0 {
		if len(c.Args) != 2 {
			return ev.Errorf(c.At, eval.CodeType, "T.%s takes 2 arguments (%d given)", name, len(c.Args))
		}
		a, b := c.Args[0], c.Args[1]
		if (op == ir.Max || op == ir.Min) && eval.IsPyNum(a) && eval.IsPyNum(b) {
			// T.max over Python numbers is a constant expression.
			ae, _ := ev.ToIR(a, ir.DataType{})
			be, _ := ev.ToIR(b, eval.ExprType(ae))
			return &eval.ExprV{Base: eval.Base{At: c.At}, E: eval.MkBin(op, ae, be, c.At)}
		}
		var ae, be ir.Expr
		var ok1, ok2 bool
		if x, ok := a.(*eval.ExprV); ok {
			ae, ok1 = x.E, true
			be, ok2 = ev.ToIR(b, eval.ExprType(ae))
		} else {
			be, ok2 = ev.ToIR(b, ir.DataType{})
			ae, ok1 = ev.ToIR(a, eval.ExprType(be))
		}
		if !ok1 || !ok2 {
			return ev.Errorf(c.At, eval.CodeType, "T.%s needs scalar arguments", name)
		}
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: eval.MkBin(op, ae, be, c.At)}
	}
	args := make([]ir.Expr, len(c.Args))
	var t ir.DataType
	for i, a := range c.Args {
		e, ok := ev.ToIR(a, t)
		if !ok {
			return ev.Errorf(c.ArgSpans[i], eval.CodeType, "T.%s needs scalar arguments, got %s", name, eval.Describe(a))
		}
		if i == 0 {
			t = eval.ExprType(e)
		}
		args[i] = e
	}
	if len(args) == 0 {
		return ev.Errorf(c.At, eval.CodeType, "T.%s needs an argument", name)
	}
	if !t.IsValid() {
		t = ir.Float32
	}
	switch name {
	case "isnan", "isinf", "isfinite":
		t = ir.BoolT
	}
	opName := name
	switch name {
	case "sqrt":
		opName = ir.OpSqrt
	case "exp":
		opName = ir.OpExp
	case "exp2":
		opName = ir.OpExp2
	case "log2":
		opName = ir.OpLog2
	case "fabs":
		opName = "abs"
	}
	return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: opName, Args: args, Type: t, Span: c.At}}
}

// ---- T.SMEMPool ----

// tSMEMPool is T.SMEMPool(): a bump allocator whose alloc() declares
// shared.dyn views at increasing byte offsets of one arena buffer.
func tSMEMPool(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "T.SMEMPool") {
		return eval.Poison(c.At)
	}
	name, _ := ev.HintName(c, "pool")
	arena := &ir.Buffer{Name: name, Shape: []int64{0}, Dtype: ir.DataType{Code: ir.UInt, Bits: 8}, Scope: "shared.dyn", Kind: ir.AllocBuffer, Span: c.At}
	if p := c.Arg(0, "ptr"); p != nil && !eval.IsNoneV(p) {
		var bd *ir.BufferData
		if ex, ok := p.(*eval.ExprV); ok {
			bd, _ = ex.E.(*ir.BufferData)
		}
		if bd == nil {
			if eval.IsErr(p) {
				return ev.NeedConcrete(p, c.ArgSpan(0, "ptr"), "T.SMEMPool's ptr")
			}
			return ev.Errorf(c.ArgSpan(0, "ptr"), eval.CodeType, "T.SMEMPool ptr must be a buffer's .data, got %s", eval.Describe(p))
		}
		if !slices.ContainsFunc(ev.Kern.K.Buffers, func(b eval.BufferSite) bool { return b.Buf == bd.Buf }) {
			return ev.Errorf(c.ArgSpan(0, "ptr"), eval.CodeType, "T.SMEMPool ptr must be the .data of a buffer of this kernel; `%s` is not", bd.Buf.Name)
		}
		arena = bd.Buf
	} else {
		arena.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: c.At}
		ev.EmitStmt(&ir.Alloc{Buf: arena, Span: c.At})
	}
	return &eval.PoolV{Base: eval.Base{At: c.At}, Arena: arena, Owner: ev.Kern}
}

func PoolAttr(ev *eval.Evaluator, p *eval.PoolV, name string, span source.Span) eval.Value {
	if p.Owner != ev.Kern {
		return ev.Errorf(span, eval.CodeType, "a T.SMEMPool is used only in the kernel that makes it (`%s`)", p.Owner.K.Func.Name)
	}
	switch name {
	case "alloc":
		return eval.Method("SMEMPool.alloc", func(ev *eval.Evaluator, c *eval.Call) eval.Value { return PoolAlloc(ev, p, c) })
	case "alloc_mma", "alloc_tcgen05_mma_AB": // the reference's older and newer names
		return eval.Method("SMEMPool."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			ev.CheckSurfaceName("SMEMPool.", name, c.FnSpan, "") // 0.25's and 0.26's names (release_surface.go)
			if !ev.CheckArgs(c, name, 1, "shape", "dtype", "swizzle_mode", "align") {
				return eval.Poison(c.At)
			}
			shape, ok := ev.ShapeArg(c.Args[0], c.ArgSpans[0])
			if !ok {
				return eval.Poison(c.At)
			}
			dt := ir.Float16
			if d := c.Arg(1, "dtype"); d != nil {
				if dt, ok = ev.DtypeOf(d, c.ArgSpan(1, "dtype")); !ok {
					return eval.Poison(c.At)
				}
			}
			mode := int64(3) // "auto" is SWIZZLE_128B_ATOM
			switch m := c.Arg(2, "swizzle_mode").(type) {
			case nil:
			case *eval.StrV:
				switch m.V {
				case "auto":
				case "none":
					mode = 0
				default:
					return ev.Errorf(c.ArgSpan(2, "swizzle_mode"), eval.CodeType, "Unsupported swizzle_mode=%s; expected 'auto', 'none', or SwizzleMode", eval.Repr(m))
				}
			default:
				n, ok := eval.ToInt(m)
				if !ok || n < 0 || n > 3 {
					return ev.Errorf(c.ArgSpan(2, "swizzle_mode"), eval.CodeType, "swizzle_mode must be a SwizzleMode, got %s", eval.Describe(m))
				}
				mode = n
			}
			if err := validateMMAAllocShape(name, shape, dt, mode); err != nil { // alloc_pool.go
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			lv := safeLayout(ev, c.At, "mma_shared_layout", func() eval.Value {
				l, err := layout.MMASharedLayout(dt.Bits, int(mode), shape, ev.Opts.Release >= release.R026) // 0.26+: packed 16-byte atoms for mode 0
				if err != nil {
					return ev.Errorf(c.At, eval.CodeType, "%v", err)
				}
				return &eval.LayoutV{Base: eval.Base{At: c.At}, L: l}
			})
			if eval.IsErr(lv) {
				return lv
			}
			align := eval.Value(&eval.IntV{Base: eval.Base{At: c.At}, V: 1024})
			if a := c.Arg(3, "align"); a != nil {
				align = a
			}
			n := &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
				Args: []eval.Value{c.Args[0], &eval.StrV{Base: eval.Base{At: c.At}, V: dt.String()}}, ArgSpans: []source.Span{c.ArgSpans[0], c.At},
				Kwargs: []eval.Kwarg{{Name: "align", V: align, At: c.At, Vspan: c.At}, {Name: "layout", V: lv, At: c.At, Vspan: c.At}}}
			return PoolAlloc(ev, p, n)
		})
	case "move_base_to":
		return eval.Method("SMEMPool.move_base_to", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			n, ok := ev.IntArg(c.Arg(0, "offset"), c.ArgSpan(0, "offset"), "offset")
			if !ok {
				return eval.Poison(c.At)
			}
			p.Offset = n
			p.MaxOff = max(p.MaxOff, n)
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		})
	case "commit":
		return eval.Method("SMEMPool.commit", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if s := c.Arg(0, "size"); s != nil && !eval.IsNoneV(s) {
				if n, ok := eval.ToInt(s); ok && n > p.MaxOff {
					p.MaxOff = n
					p.Arena.Shape = []int64{n}
				}
			}
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		})
	case "ptr":
		return &eval.ExprV{Base: eval.Base{At: span}, E: &ir.BufferData{Buf: p.Arena, Span: span}}
	case "buf":
		return &eval.BufferV{Base: eval.Base{At: span}, B: p.Arena}
	case "offset":
		return &eval.IntV{Base: eval.Base{At: span}, V: p.Offset}
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "SMEMPool." + name}
}

// PoolAlloc is SMEMPool.alloc(shape, dtype="float32", strides=None,
// scope="shared.dyn", align=0, layout="default").
func PoolAlloc(ev *eval.Evaluator, p *eval.PoolV, c *eval.Call) eval.Value {
	if !ev.RequireKernel(c, "SMEMPool.alloc") || !ev.CheckArgs(c, "alloc", 1, "shape", "dtype", "strides", "scope", "align", "layout") {
		return eval.Poison(c.At)
	}
	align := int64(0)
	if a := c.Arg(4, "align"); a != nil {
		n, ok := ev.IntArg(a, c.ArgSpan(4, "align"), "align")
		if !ok {
			return eval.Poison(c.At)
		}
		align = n
	}
	if align > 0 {
		p.Offset = (p.Offset + align - 1) / align * align
	}
	shape, ok := ev.ShapeArg(c.Args[0], c.ArgSpans[0])
	if !ok {
		return eval.Poison(c.At)
	}
	dt := ir.Float32
	if d := c.Arg(1, "dtype"); d != nil {
		if dt, ok = ev.DtypeOf(d, c.ArgSpan(1, "dtype")); !ok {
			return eval.Poison(c.At)
		}
	}
	scope := "shared.dyn"
	if s := c.Arg(3, "scope"); s != nil {
		if scope, ok = ev.StrArg(s, c.ArgSpan(3, "scope"), "scope"); !ok {
			return eval.Poison(c.At)
		}
	}
	if p.Offset*8%int64(dt.Bits) != 0 {
		return ev.Errorf(c.At, eval.CodeType, "pool offset %d bytes is not a multiple of the %s element size; pass align=", p.Offset, dt)
	}
	name, nameSpan := ev.HintName(c, "buf")
	buf := &ir.Buffer{Name: name, Data: p.Arena.Data, Shape: shape, Dtype: dt, Scope: scope, Base: p.Arena,
		ElemOffset: p.Offset * 8 / int64(dt.Bits), Kind: ir.DeclBuffer, Span: c.At}
	lv := c.Arg(5, "layout")
	layoutSpan := source.NoSpan
	if lv != nil {
		layoutSpan = c.ArgSpan(5, "layout")
		ev.NoteLayout(lv)
	}
	buf.Layout = ev.LayoutArg(lv, layoutSpan, buf)
	p.Offset += (buf.NumElements()*int64(dt.Bits) + 7) / 8
	p.MaxOff = max(p.MaxOff, p.Offset)
	if p.Arena.Shape[0] < p.MaxOff {
		p.Arena.Shape = []int64{p.MaxOff}
	}
	ev.AddBufferSite(buf, nameSpan, c.At, layoutSpan)
	ev.EmitStmt(&ir.Decl{Buf: buf, Span: c.At})
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: buf}
}

// tBuiltin is the T builtin name, ok false when T has none.
func tBuiltin(name string) (func(ev *eval.Evaluator, c *eval.Call) eval.Value, bool) {
	fn, ok := tBuiltins[name]
	return fn, ok
}

// tShuffle is T.Shuffle(vectors, indices) for the two-lane 16-bit float
// vectors tilels models (eval.PackedPairV): one pair and one index is that
// lane as a scalar (its half of the bits, reinterpreted); two scalars of
// the lane type and the indices [0, 1] pack them into a pair, the first
// in the low half. Other shuffles are not modelled.
func tShuffle(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "Shuffle", 2, "vectors", "indices") {
		return eval.Poison(c.At)
	}
	vecs, ok1 := ev.Iterate(c.Args[0], c.ArgSpans[0])
	idxV, ok2 := ev.Iterate(c.Args[1], c.ArgSpans[1])
	if !ok1 || !ok2 {
		return eval.Poison(c.At)
	}
	var idx []int64
	for _, v := range idxV {
		n, ok := eval.ToInt(v)
		if !ok {
			return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "T.Shuffle(...) with indices that are not constants"}
		}
		idx = append(idx, n)
	}
	u16 := ir.DataType{Code: ir.UInt, Bits: 16}
	switch {
	case len(vecs) == 1 && len(idx) == 1:
		if v, ok := vecs[0].(*eval.VectorV); ok && idx[0] >= 0 && idx[0] < int64(len(v.Lanes)) {
			return &eval.ExprV{Base: eval.Base{At: c.At}, E: v.Lanes[idx[0]]}
		}
		if eval.IsErr(vecs[0]) {
			return vecs[0]
		}
		if o, ok := vecs[0].(*eval.OpaqueV); ok {
			return o // (what the vector is says why)
		}
		p, ok := vecs[0].(*eval.PackedPairV)
		if !ok || idx[0] < 0 || idx[0] > 1 {
			break
		}
		half := p.Bits
		if idx[0] == 1 {
			half = &ir.Binary{Op: ir.Shr, A: p.Bits, B: &ir.IntImm{Value: 16, Type: ir.UInt32, Span: c.At}, Span: c.At}
		}
		lane := &ir.Cast{To: u16, X: half, Span: c.At}
		return &eval.ExprV{Base: eval.Base{At: c.At}, E: &ir.Call{Op: "reinterpret", Args: []ir.Expr{lane}, Type: p.Elem, Span: c.At}}
	case len(vecs) == 2 && len(idx) == 2 && idx[0] == 0 && idx[1] == 1:
		var bits [2]ir.Expr
		var elem ir.DataType
		for i, v := range vecs {
			e, ok := ev.ToIR(v, ir.DataType{})
			if !ok {
				return eval.OrPoison(eval.FirstErr(v), c.At)
			}
			t := eval.ExprType(e)
			if _, pair := eval.PackedPairElem(t.String() + "x2"); !pair || (i == 1 && t != elem) {
				return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "T.Shuffle(...) of " + t.String() + " values"}
			}
			elem = t
			u := &ir.Call{Op: "reinterpret", Args: []ir.Expr{e}, Type: u16, Span: c.At}
			bits[i] = &ir.Cast{To: ir.UInt32, X: u, Span: c.At}
		}
		hi := &ir.Binary{Op: ir.Shl, A: bits[1], B: &ir.IntImm{Value: 16, Type: ir.UInt32, Span: c.At}, Span: c.At}
		return &eval.PackedPairV{Base: eval.Base{At: c.At}, Bits: &ir.Binary{Op: ir.BitOr, A: bits[0], B: hi, Span: c.At}, Elem: elem}
	}
	return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "T.Shuffle(...) of this form"}
}
