package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The tensor-memory pool of tvm/backend/cuda/lang/alloc_pool.py, reached
// as T.TMEMPool (the shared-memory SMEMPool is tSMEMPool in tir.go).
//
// TMEMPool(pool, total_cols=512, *, cta_group=1, alloc_warp=0,
// dealloc_warp=None, tmem_addr=None, sync_after_alloc=True) is a bump
// allocator over TMEM columns. Its alloc* methods declare tmem buffers
// whose allocated_addr is the constant column offset in the pool, with the
// layout the reference gives them: layout= as passed, else Layout D for
// 128 rows and S[(rows, cols) : (1@TLane, 1@TCol)] otherwise;
// alloc_tcgen05_mma_A/D/C take tmem_mma_operand_layout (layout_tmem.go).
// move_base_to moves the cursor. commit() and dealloc() emit the
// warp-guarded tcgen05.alloc / relinquish + dealloc the reference emits,
// the guard written as the warp of the thread (tx // 32), what the
// reference's generated CUDA compares. The TMEM base address written by
// tcgen05.alloc is a runtime value: it stays the load of the address slot
// (`addr`).

// TMEMPoolV is a TMEMPool object.
type TMEMPoolV struct {
	eval.Base
	TotalCols, CtaGroup   int64
	AllocWarp, DeallocWar int64
	SyncAfterAlloc        bool
	Offset, MaxOff        int64
	committed, dealloced  bool
	// addrBuf is the uint32 slot tcgen05.alloc writes the base address
	// to: pool.alloc([1], "uint32", align=4) or tmem_addr=.
	addrBuf eval.Value
	owner   *eval.KernelState
}

func (*TMEMPoolV) TypeName() string { return "TMEMPool" }

// tTMEMPool is T.TMEMPool(pool, total_cols=512, *, cta_group=1, ...).
func tTMEMPool(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if len(c.Args) > 2 {
		return ev.PyErrorf(c.At, "TMEMPool.__init__() takes from 2 to 3 positional arguments but %d were given", len(c.Args)+1)
	}
	if !ev.RequireKernel(c, "T.TMEMPool") ||
		!ev.CheckArgs(c, "TMEMPool", 1, "pool", "total_cols", "cta_group", "alloc_warp", "dealloc_warp", "tmem_addr", "sync_after_alloc") {
		return eval.Poison(c.At)
	}
	t := &TMEMPoolV{Base: eval.Base{At: c.At}, TotalCols: 512, CtaGroup: 1, SyncAfterAlloc: true, owner: ev.Kern}
	ints := []struct {
		i    int
		name string
		dst  *int64
	}{{1, "total_cols", &t.TotalCols}, {2, "cta_group", &t.CtaGroup}, {3, "alloc_warp", &t.AllocWarp}}
	for _, a := range ints {
		if v := c.Arg(a.i, a.name); v != nil {
			n, ok := ev.IntArg(v, c.ArgSpan(a.i, a.name), "TMEMPool "+a.name)
			if !ok {
				return eval.Poison(c.At)
			}
			*a.dst = n
		}
	}
	t.DeallocWar = t.AllocWarp
	if v := c.Arg(4, "dealloc_warp"); v != nil && !eval.IsNoneV(v) {
		n, ok := ev.IntArg(v, c.ArgSpan(4, "dealloc_warp"), "TMEMPool dealloc_warp")
		if !ok {
			return eval.Poison(c.At)
		}
		t.DeallocWar = n
	}
	if v := c.Arg(6, "sync_after_alloc"); v != nil {
		t.SyncAfterAlloc = eval.Truthy(v)
	}
	if v := c.Arg(5, "tmem_addr"); v != nil && !eval.IsNoneV(v) {
		if eval.IsErr(v) {
			return ev.NeedConcrete(v, c.ArgSpan(5, "tmem_addr"), "TMEMPool's tmem_addr")
		}
		t.addrBuf = v
		return t
	}
	pool, ok := c.Args[0].(*eval.PoolV)
	if !ok {
		if eval.IsErr(c.Args[0]) {
			return ev.NeedConcrete(c.Args[0], c.ArgSpans[0], "TMEMPool's pool")
		}
		return ev.Errorf(c.ArgSpans[0], eval.CodeType, "TMEMPool pool must be a T.SMEMPool, got %s", eval.Describe(c.Args[0]))
	}
	alloc := &eval.Call{At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{&eval.ListV{Base: eval.Base{At: c.At}, Elts: []eval.Value{&eval.IntV{Base: eval.Base{At: c.At}, V: 1}}}, &eval.StrV{Base: eval.Base{At: c.At}, V: "uint32"}},
		ArgSpans: []source.Span{c.At, c.At},
		Kwargs:   []eval.Kwarg{{Name: "align", V: &eval.IntV{Base: eval.Base{At: c.At}, V: 4}, At: c.At, Vspan: c.At}}}
	b := PoolAlloc(ev, pool, alloc)
	if eval.IsErr(b) {
		return b
	}
	t.addrBuf = b
	return t
}

// addrExpr is the pool's `addr`: the address slot's value (_addr_slot).
func tmemAddr(ev *eval.Evaluator, t *TMEMPoolV, span source.Span) eval.Value {
	if b, ok := t.addrBuf.(*eval.BufferV); ok {
		return &eval.ExprV{Base: eval.Base{At: span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{ir.Const(0)}, Span: span}}
	}
	return t.addrBuf
}

func tmemPoolAttr(ev *eval.Evaluator, t *TMEMPoolV, name string, span source.Span) eval.Value {
	if t.owner != ev.Kern {
		return ev.Errorf(span, eval.CodeType, "a T.TMEMPool is used only in the kernel that makes it (`%s`)", t.owner.K.Func.Name)
	}
	switch name {
	case "alloc":
		return eval.Method("TMEMPool.alloc", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if len(c.Args) > 2 {
				return ev.PyErrorf(c.At, "TMEMPool.alloc() takes from 2 to 3 positional arguments but %d were given", len(c.Args)+1)
			}
			if !ev.CheckArgs(c, "alloc", 1, "shape", "dtype", "layout", "cols") {
				return eval.Poison(c.At)
			}
			return tmemAlloc(ev, t, c, ir.Float32, nil, 3)
		})
	case "alloc_tcgen05_mma_A", "alloc_tcgen05_mma_D", "alloc_tcgen05_mma_C":
		operand := name[len(name)-1:]
		if operand == "C" {
			operand = "D"
		}
		return eval.Method("TMEMPool."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			ev.CheckSurfaceName("TMEMPool.", name, c.FnSpan, "") // 0.26+ (release_surface.go)
			params := []string{"shape", "dtype", "M", "cta_group", "ws", "sparse", "cols"}
			def := ir.BF16
			if operand == "D" {
				params = []string{"shape", "dtype", "M", "cta_group", "ws", "sparse", "group", "cols"}
				def = ir.Float32
			}
			if len(c.Args) > 2 {
				return ev.PyErrorf(c.At, "TMEMPool.%s() takes from 2 to 3 positional arguments but %d were given", name, len(c.Args)+1)
			}
			if !ev.CheckArgs(c, name, 1, params...) {
				return eval.Poison(c.At)
			}
			shape, ok := ev.ShapeArg(c.Args[0], c.ArgSpans[0])
			if !ok {
				return eval.Poison(c.At)
			}
			p, ok := tmemOperandArgs(ev, c, name, 2)
			if !ok {
				return eval.Poison(c.At)
			}
			l, err := tmemMMAOperandLayout(operand, shape, p)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			return tmemAlloc(ev, t, c, def, l, len(params)-1)
		})
	case "alloc_sf":
		return eval.Method("TMEMPool.alloc_sf", func(ev *eval.Evaluator, c *eval.Call) eval.Value { return tmemAllocSF(ev, t, c) })
	case "move_base_to":
		return eval.Method("TMEMPool.move_base_to", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "move_base_to", 1, "col") {
				return eval.Poison(c.At)
			}
			n, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "col")
			if !ok {
				return eval.Poison(c.At)
			}
			t.Offset = n
			t.MaxOff = max(t.MaxOff, n)
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		})
	case "commit":
		return eval.Method("TMEMPool.commit", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.RequireKernel(c, "TMEMPool.commit") || !ev.CheckArgs(c, "commit", 0) {
				return eval.Poison(c.At)
			}
			if t.committed {
				return ev.Errorf(c.At, eval.CodeType, "TMEMPool.commit() can only be called once")
			}
			ptr, ok := tmemAddrPtr(ev, t, c.At)
			if !ok {
				return eval.Poison(c.At)
			}
			stmts := []ir.Stmt{ptxStmt(fmt.Sprintf("ptx.tcgen05.alloc.cta_group::%d.sync.aligned.shared::cta.b32", t.CtaGroup), c.At, ptr, u32(t.TotalCols, c.At))}
			if t.SyncAfterAlloc {
				stmts = append(stmts, ptxStmt(ir.OpWarpSync, c.At))
			}
			ev.EmitStmt(warpGuard(t.AllocWarp, stmts, c.At))
			t.committed = true
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		})
	case "dealloc":
		return eval.Method("TMEMPool.dealloc", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.RequireKernel(c, "TMEMPool.dealloc") || !ev.CheckArgs(c, "dealloc", 0) {
				return eval.Poison(c.At)
			}
			switch {
			case !t.committed:
				return ev.Errorf(c.At, eval.CodeType, "TMEMPool.dealloc() called before commit()")
			case t.dealloced:
				return ev.Errorf(c.At, eval.CodeType, "TMEMPool.dealloc() can only be called once")
			}
			t.dealloced = true
			addr := tmemAddr(ev, t, c.At)
			a, ok := ev.ToIR(addr, ir.UInt32)
			if !ok {
				if eval.IsErr(addr) {
					return ev.NeedConcrete(addr, c.At, "TMEMPool's address")
				}
				return ev.Errorf(c.At, eval.CodeType, "TMEMPool address must be a scalar, got %s", eval.Describe(addr))
			}
			g := t.CtaGroup
			ev.EmitStmt(warpGuard(t.DeallocWar, []ir.Stmt{
				ptxStmt(fmt.Sprintf("ptx.tcgen05.relinquish_alloc_permit.cta_group::%d.sync.aligned", g), c.At),
				ptxStmt(fmt.Sprintf("ptx.tcgen05.dealloc.cta_group::%d.sync.aligned.b32", g), c.At, a, u32(t.TotalCols, c.At)),
			}, c.At))
			return &eval.NoneV{Base: eval.Base{At: c.At}}
		})
	case "addr":
		return tmemAddr(ev, t, span)
	case "offset":
		return &eval.IntV{Base: eval.Base{At: span}, V: t.Offset}
	case "max_offset":
		return &eval.IntV{Base: eval.Base{At: span}, V: t.MaxOff}
	case "total_cols":
		return &eval.IntV{Base: eval.Base{At: span}, V: t.TotalCols}
	case "cta_group":
		return &eval.IntV{Base: eval.Base{At: span}, V: t.CtaGroup}
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "TMEMPool." + name}
}

// tmemAddrPtr is T.address_of(self.addr).
func tmemAddrPtr(ev *eval.Evaluator, t *TMEMPoolV, span source.Span) (ir.Expr, bool) {
	addr := tmemAddr(ev, t, span)
	if ex, ok := addr.(*eval.ExprV); ok {
		if ld, ok := ex.E.(*ir.Load); ok {
			return &ir.AddressOf{Buf: ld.Buf, Indices: ld.Indices, Span: span}, true
		}
	}
	if eval.IsErr(addr) {
		ev.NeedConcrete(addr, span, "TMEMPool's address slot")
		return nil, false
	}
	ev.Warnf(span, eval.CodeUnresolved, "not modelled: the address of TMEMPool's tmem_addr %s; statement ignored", eval.Describe(addr))
	return nil, false
}

func u32(n int64, span source.Span) ir.Expr {
	return &ir.IntImm{Value: n, Type: ir.UInt32, Span: span}
}

func ptxStmt(op string, span source.Span, args ...ir.Expr) ir.Stmt {
	return &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: span}, Span: span}
}

// warpGuard is `if warp_id == w: stmts`, the warp of the thread being
// threadIdx.x // 32.
func warpGuard(w int64, stmts []ir.Stmt, span source.Span) ir.Stmt {
	warp := &ir.Binary{Op: ir.FloorDiv, A: &ir.ThreadIndex{Axis: "tx", Span: span}, B: ir.Const(32), Span: span}
	cond := &ir.Binary{Op: ir.EQ, A: warp, B: ir.Const(w), Span: span}
	return &ir.If{Cond: cond, Then: &ir.Block{Stmts: stmts, Span: span}, Span: span}
}

// tmemAlloc is TMEMPool.alloc(shape, dtype, *, layout=None, cols=None)
// with a layout the caller resolved (lay) or the one layout= / the
// default gives.
// colsIdx is the parameter index of cols=; layout= is parameter 2 of
// alloc (the mma helpers pass their layout as lay).
func tmemAlloc(ev *eval.Evaluator, t *TMEMPoolV, c *eval.Call, defDtype ir.DataType, lay layout.Layout, colsIdx int) eval.Value {
	if !ev.RequireKernel(c, "TMEMPool.alloc") {
		return eval.Poison(c.At)
	}
	shape, ok := ev.ShapeArg(c.Args[0], c.ArgSpans[0])
	if !ok {
		return eval.Poison(c.At)
	}
	dt := defDtype
	if d := c.Arg(1, "dtype"); d != nil {
		if dt, ok = ev.DtypeOf(d, c.ArgSpan(1, "dtype")); !ok {
			return eval.Poison(c.At)
		}
	}
	name, nameSpan := ev.HintName(c, "buf")
	buf := &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: "tmem", Kind: ir.AllocBuffer, Span: c.At}
	layoutSpan := source.NoSpan
	if lay == nil {
		if lv := c.Arg(2, "layout"); lv != nil && !eval.IsNoneV(lv) {
			layoutSpan = c.ArgSpan(2, "layout")
			ev.NoteLayout(lv)
			if lay = ev.LayoutArg(lv, layoutSpan, buf); lay == nil {
				return eval.Poison(c.At)
			}
		}
	}
	// _resolve_cols: cols=, else the layout's TCol span, else the 2-D
	// shape's bits over 32-bit rows.
	var cols int64
	if v := c.Arg(colsIdx, "cols"); v != nil && !eval.IsNoneV(v) {
		if cols, ok = ev.IntArg(v, c.ArgSpan(colsIdx, "cols"), "cols"); !ok {
			return eval.Poison(c.At)
		}
	} else if lay != nil {
		bits := layout.SpanOf(lay, layout.TCol) * int64(dt.Bits)
		if bits%32 != 0 {
			return ev.Errorf(c.At, eval.CodeType, "layout TCol span=%d elems x %db is not 32-bit aligned", layout.SpanOf(lay, layout.TCol), dt.Bits)
		}
		cols = bits / 32
	} else {
		if len(shape) != 2 {
			return ev.Errorf(c.At, eval.CodeType, "TMEMPool.alloc() requires cols= for non-2D TMEM buffers")
		}
		total := shape[0] * shape[1] * int64(dt.Bits)
		if shape[0] == 0 || total%(32*shape[0]) != 0 {
			return ev.Errorf(c.At, eval.CodeType, "Cannot infer TMEM columns from shape=%s, dtype=%s; please pass cols= explicitly", eval.Repr(c.Args[0]), eval.PyQuote(dt.String()))
		}
		cols = total / (32 * shape[0])
	}
	start, end := t.Offset, t.Offset+cols
	if end > t.TotalCols {
		return ev.Errorf(c.At, eval.CodeType, "TMEM overflow: %d > %d", end, t.TotalCols)
	}
	if lay == nil {
		if len(shape) != 2 {
			return ev.Errorf(c.At, eval.CodeType, "TMEMPool.alloc() requires layout= for non-2D TMEM buffers")
		}
		if shape[0] == 128 {
			lay, _ = tmemDatapathLayout("D", 128, shape[1], 0)
		} else {
			lay = layout.NewTile([]layout.Iter{layout.It(shape[0], 1, layout.TLane), layout.It(shape[1], 1, layout.TCol)}, nil, nil)
		}
	}
	buf.Layout = lay
	buf.AllocatedAddr = &ir.IntImm{Value: start, Type: ir.Int32, Span: c.At}
	buf.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: c.At}
	t.Offset = end
	t.MaxOff = max(t.MaxOff, end)
	ev.AddBufferSite(buf, nameSpan, c.At, layoutSpan)
	ev.EmitStmt(&ir.Alloc{Buf: buf, Span: c.At})
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: buf}
}

// tmemAllocSF is TMEMPool.alloc_sf(shape, dtype, *, sf_per_mma,
// sf_reuse=1): a block-scaled MMA's scale factors with sf_tmem_layout
// (rows, SF_K = last // sf_reuse, ...); a 3-D shape's first dimension is
// the pipeline depth.
func tmemAllocSF(ev *eval.Evaluator, t *TMEMPoolV, c *eval.Call) eval.Value {
	if len(c.Args) > 2 {
		return ev.PyErrorf(c.At, "TMEMPool.alloc_sf() takes 3 positional arguments but %d were given", len(c.Args)+1)
	}
	if !ev.CheckArgs(c, "alloc_sf", 2, "shape", "dtype", "sf_per_mma", "sf_reuse") {
		return eval.Poison(c.At)
	}
	shape, ok := ev.ShapeArg(c.Args[0], c.ArgSpans[0])
	if !ok {
		return eval.Poison(c.At)
	}
	if c.Arg(2, "sf_per_mma") == nil {
		return ev.PyErrorf(c.At, "TMEMPool.alloc_sf() missing 1 required keyword-only argument: 'sf_per_mma'")
	}
	reuse := int64(1)
	if v := c.Arg(3, "sf_reuse"); v != nil {
		if reuse, ok = ev.IntArg(v, c.ArgSpan(3, "sf_reuse"), "sf_reuse"); !ok {
			return eval.Poison(c.At)
		}
	}
	var depth eval.Value = &eval.NoneV{Base: eval.Base{At: c.At}}
	var rows, last int64
	switch len(shape) {
	case 2:
		rows, last = shape[0], shape[1]
	case 3:
		depth, rows, last = &eval.IntV{Base: eval.Base{At: c.At}, V: shape[0]}, shape[1], shape[2]
	default:
		return ev.Errorf(c.At, eval.CodeType, "alloc_sf expects 2D (rows, SF_K*sf_reuse) or 3D (pipe_depth, rows, SF_K*sf_reuse); got shape=%s", eval.Repr(c.Args[0]))
	}
	if reuse <= 0 || last%reuse != 0 {
		return ev.Errorf(c.At, eval.CodeType, "alloc_sf: shape last dim %d must be divisible by sf_reuse=%d", last, reuse)
	}
	sp := c.At
	lc := &eval.Call{At: sp, FnSpan: c.FnSpan, Fr: c.Fr,
		Args:     []eval.Value{&eval.IntV{Base: eval.Base{At: sp}, V: rows}, &eval.IntV{Base: eval.Base{At: sp}, V: last / reuse}, c.Arg(2, "sf_per_mma"), &eval.IntV{Base: eval.Base{At: sp}, V: reuse}, depth},
		ArgSpans: []source.Span{sp, sp, c.ArgSpan(2, "sf_per_mma"), sp, sp}}
	lv, ok := sfTmemLayoutCall(ev, lc).(*eval.LayoutV)
	if !ok {
		return eval.Poison(c.At)
	}
	return tmemAlloc(ev, t, c, ir.Float32, lv.L, -1)
}

// swizzleAtoms are the SwizzleMode values 1..3 (tma_utils): the atom row
// width in bytes and the member name.
var swizzleAtoms = map[int64]struct {
	bytes int64
	name  string
}{1: {32, "SWIZZLE_32B_ATOM"}, 2: {64, "SWIZZLE_64B_ATOM"}, 3: {128, "SWIZZLE_128B_ATOM"}}

// suggestSwizzle is _suggest_swizzle_for_row_bytes: the largest atom that
// divides a row.
func suggestSwizzle(rowBytes int64) string {
	for _, m := range []int64{3, 2, 1} {
		a := swizzleAtoms[m]
		if rowBytes >= a.bytes && rowBytes%a.bytes == 0 {
			return a.name
		}
	}
	return "SWIZZLE_NONE"
}

// validateMMAAllocShape is _validate_mma_alloc_shape: the ValueError the
// reference raises before building a swizzled MMA layout whose atom does
// not tile the last two dimensions (fname is the method's name, which the
// message carries).
func validateMMAAllocShape(fname string, shape []int64, dt ir.DataType, mode int64) error {
	atom, swizzled := swizzleAtoms[mode]
	if !swizzled {
		return nil
	}
	shp := tupleStr(shape)
	if len(shape) < 2 {
		return fmt.Errorf("%s shape=%s has fewer than 2 dimensions; swizzled MMA layouts tile over the last two dims (rows, cols). Use swizzle_mode='none' for 1-D allocations.", fname, shp)
	}
	rows, cols := shape[len(shape)-2], shape[len(shape)-1]
	bits := int64(dt.Bits)
	if bytes := bits / 8; bytes == 0 {
		colBits, atomBits := cols*bits, atom.bytes*8
		if colBits < atomBits || colBits%atomBits != 0 {
			rowBytes := fmt.Sprint(colBits / 8)
			if colBits%8 != 0 {
				rowBytes = fmt.Sprint(float64(colBits) / 8)
			}
			sugg := int64(0)
			if colBits >= 8 {
				sugg = colBits / 8
			}
			return fmt.Errorf("%s shape=%s with dtype=%s produces %sB rows, which is incompatible with the %dB swizzle atom selected by %s. Use swizzle_mode=SwizzleMode.%s, or widen shape[-1] to a multiple of %d elements.",
				fname, shp, eval.PyQuote(dt.String()), rowBytes, atom.bytes, atom.name, suggestSwizzle(sugg), (atomBits+bits-1)/bits)
		}
	} else if rowBytes := cols * bytes; rowBytes < atom.bytes || rowBytes%atom.bytes != 0 {
		return fmt.Errorf("%s shape=%s with dtype=%s produces %dB rows, which is incompatible with the %dB swizzle atom selected by %s. Use swizzle_mode=SwizzleMode.%s, or widen shape[-1] to a multiple of %d elements (>= %dB at %s).",
			fname, shp, eval.PyQuote(dt.String()), rowBytes, atom.bytes, atom.name, suggestSwizzle(rowBytes), atom.bytes/bytes, atom.bytes, dt)
	}
	if rows < 8 || rows%8 != 0 {
		return fmt.Errorf("%s shape=%s has shape[-2]=%d, but the %s atom requires shape[-2] to be a positive multiple of 8. Use swizzle_mode='none', or widen shape[-2] to a multiple of 8.", fname, shp, rows, atom.name)
	}
	return nil
}
