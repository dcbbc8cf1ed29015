package eval

import (
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
// alloc_tcgen05_mma_A/D/C take tmem_mma_operand_layout (layoutlib_tmem.go).
// move_base_to moves the cursor. commit() and dealloc() emit the
// warp-guarded tcgen05.alloc / relinquish + dealloc the reference emits,
// the guard written as the warp of the thread (tx // 32), what the
// reference's generated CUDA compares. The TMEM base address written by
// tcgen05.alloc is a runtime value: it stays the load of the address slot
// (`addr`).

// TMEMPoolV is a TMEMPool object.
type TMEMPoolV struct {
	base
	TotalCols, CtaGroup   int64
	AllocWarp, DeallocWar int64
	SyncAfterAlloc        bool
	Offset, MaxOff        int64
	committed, dealloced  bool
	// addrBuf is the uint32 slot tcgen05.alloc writes the base address
	// to: pool.alloc([1], "uint32", align=4) or tmem_addr=.
	addrBuf Value
	owner   *kernelState
}

func (*TMEMPoolV) TypeName() string { return "TMEMPool" }

// tTMEMPool is T.TMEMPool(pool, total_cols=512, *, cta_group=1, ...).
func (ev *evaluator) tTMEMPool(c *call) Value {
	if len(c.args) > 2 {
		return ev.pyErrorf(c.span, "TMEMPool.__init__() takes from 2 to 3 positional arguments but %d were given", len(c.args)+1)
	}
	if !ev.requireKernel(c, "T.TMEMPool") ||
		!ev.checkArgs(c, "TMEMPool", 1, "pool", "total_cols", "cta_group", "alloc_warp", "dealloc_warp", "tmem_addr", "sync_after_alloc") {
		return poison(c.span)
	}
	t := &TMEMPoolV{base: base{c.span}, TotalCols: 512, CtaGroup: 1, SyncAfterAlloc: true, owner: ev.kern}
	ints := []struct {
		i    int
		name string
		dst  *int64
	}{{1, "total_cols", &t.TotalCols}, {2, "cta_group", &t.CtaGroup}, {3, "alloc_warp", &t.AllocWarp}}
	for _, a := range ints {
		if v := c.arg(a.i, a.name); v != nil {
			n, ok := ev.intArg(v, c.argSpan(a.i, a.name), "TMEMPool "+a.name)
			if !ok {
				return poison(c.span)
			}
			*a.dst = n
		}
	}
	t.DeallocWar = t.AllocWarp
	if v := c.arg(4, "dealloc_warp"); v != nil && !isNoneV(v) {
		n, ok := ev.intArg(v, c.argSpan(4, "dealloc_warp"), "TMEMPool dealloc_warp")
		if !ok {
			return poison(c.span)
		}
		t.DeallocWar = n
	}
	if v := c.arg(6, "sync_after_alloc"); v != nil {
		t.SyncAfterAlloc = truthy(v)
	}
	if v := c.arg(5, "tmem_addr"); v != nil && !isNoneV(v) {
		if isErr(v) {
			return ev.needConcrete(v, c.argSpan(5, "tmem_addr"), "TMEMPool's tmem_addr")
		}
		t.addrBuf = v
		return t
	}
	pool, ok := c.args[0].(*PoolV)
	if !ok {
		if isErr(c.args[0]) {
			return ev.needConcrete(c.args[0], c.argSpans[0], "TMEMPool's pool")
		}
		return ev.errorf(c.argSpans[0], CodeType, "TMEMPool pool must be a T.SMEMPool, got %s", describe(c.args[0]))
	}
	alloc := &call{span: c.span, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{&ListV{base{c.span}, []Value{&IntV{base{c.span}, 1}}}, &StrV{base{c.span}, "uint32"}},
		argSpans: []source.Span{c.span, c.span},
		kwargs:   []kwarg{{"align", &IntV{base{c.span}, 4}, c.span, c.span}}}
	b := ev.poolAlloc(pool, alloc)
	if isErr(b) {
		return b
	}
	t.addrBuf = b
	return t
}

// addrExpr is the pool's `addr`: the address slot's value (_addr_slot).
func (ev *evaluator) tmemAddr(t *TMEMPoolV, span source.Span) Value {
	if b, ok := t.addrBuf.(*BufferV); ok {
		return &ExprV{base: base{span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{ir.Const(0)}, Span: span}}
	}
	return t.addrBuf
}

func (ev *evaluator) tmemPoolAttr(t *TMEMPoolV, name string, span source.Span) Value {
	if t.owner != ev.kern {
		return ev.errorf(span, CodeType, "a T.TMEMPool is used only in the kernel that makes it (`%s`)", t.owner.k.Func.Name)
	}
	switch name {
	case "alloc":
		return method("TMEMPool.alloc", func(ev *evaluator, c *call) Value {
			if len(c.args) > 2 {
				return ev.pyErrorf(c.span, "TMEMPool.alloc() takes from 2 to 3 positional arguments but %d were given", len(c.args)+1)
			}
			if !ev.checkArgs(c, "alloc", 1, "shape", "dtype", "layout", "cols") {
				return poison(c.span)
			}
			return ev.tmemAlloc(t, c, ir.Float32, nil, 3)
		})
	case "alloc_tcgen05_mma_A", "alloc_tcgen05_mma_D", "alloc_tcgen05_mma_C":
		operand := name[len(name)-1:]
		if operand == "C" {
			operand = "D"
		}
		return method("TMEMPool."+name, func(ev *evaluator, c *call) Value {
			params := []string{"shape", "dtype", "M", "cta_group", "ws", "sparse", "cols"}
			def := ir.BF16
			if operand == "D" {
				params = []string{"shape", "dtype", "M", "cta_group", "ws", "sparse", "group", "cols"}
				def = ir.Float32
			}
			if len(c.args) > 2 {
				return ev.pyErrorf(c.span, "TMEMPool.%s() takes from 2 to 3 positional arguments but %d were given", name, len(c.args)+1)
			}
			if !ev.checkArgs(c, name, 1, params...) {
				return poison(c.span)
			}
			shape, ok := ev.shapeArg(c.args[0], c.argSpans[0])
			if !ok {
				return poison(c.span)
			}
			p, ok := ev.tmemOperandArgs(c, name, 2)
			if !ok {
				return poison(c.span)
			}
			l, err := tmemMMAOperandLayout(operand, shape, p)
			if err != nil {
				return ev.errorf(c.span, CodeType, "%v", err)
			}
			return ev.tmemAlloc(t, c, def, l, len(params)-1)
		})
	case "alloc_sf":
		return method("TMEMPool.alloc_sf", func(ev *evaluator, c *call) Value { return ev.tmemAllocSF(t, c) })
	case "move_base_to":
		return method("TMEMPool.move_base_to", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "move_base_to", 1, "col") {
				return poison(c.span)
			}
			n, ok := ev.intArg(c.args[0], c.argSpans[0], "col")
			if !ok {
				return poison(c.span)
			}
			t.Offset = n
			t.MaxOff = max(t.MaxOff, n)
			return &NoneV{base{c.span}}
		})
	case "commit":
		return method("TMEMPool.commit", func(ev *evaluator, c *call) Value {
			if !ev.requireKernel(c, "TMEMPool.commit") || !ev.checkArgs(c, "commit", 0) {
				return poison(c.span)
			}
			if t.committed {
				return ev.errorf(c.span, CodeType, "TMEMPool.commit() can only be called once")
			}
			ptr, ok := ev.tmemAddrPtr(t, c.span)
			if !ok {
				return poison(c.span)
			}
			stmts := []ir.Stmt{ptxStmt(fmt.Sprintf("ptx.tcgen05.alloc.cta_group::%d.sync.aligned.shared::cta.b32", t.CtaGroup), c.span, ptr, u32(t.TotalCols, c.span))}
			if t.SyncAfterAlloc {
				stmts = append(stmts, ptxStmt(ir.OpWarpSync, c.span))
			}
			ev.emitStmt(warpGuard(t.AllocWarp, stmts, c.span))
			t.committed = true
			return &NoneV{base{c.span}}
		})
	case "dealloc":
		return method("TMEMPool.dealloc", func(ev *evaluator, c *call) Value {
			if !ev.requireKernel(c, "TMEMPool.dealloc") || !ev.checkArgs(c, "dealloc", 0) {
				return poison(c.span)
			}
			switch {
			case !t.committed:
				return ev.errorf(c.span, CodeType, "TMEMPool.dealloc() called before commit()")
			case t.dealloced:
				return ev.errorf(c.span, CodeType, "TMEMPool.dealloc() can only be called once")
			}
			t.dealloced = true
			addr := ev.tmemAddr(t, c.span)
			a, ok := ev.toIR(addr, ir.UInt32)
			if !ok {
				if isErr(addr) {
					return ev.needConcrete(addr, c.span, "TMEMPool's address")
				}
				return ev.errorf(c.span, CodeType, "TMEMPool address must be a scalar, got %s", describe(addr))
			}
			g := t.CtaGroup
			ev.emitStmt(warpGuard(t.DeallocWar, []ir.Stmt{
				ptxStmt(fmt.Sprintf("ptx.tcgen05.relinquish_alloc_permit.cta_group::%d.sync.aligned", g), c.span),
				ptxStmt(fmt.Sprintf("ptx.tcgen05.dealloc.cta_group::%d.sync.aligned.b32", g), c.span, a, u32(t.TotalCols, c.span)),
			}, c.span))
			return &NoneV{base{c.span}}
		})
	case "addr":
		return ev.tmemAddr(t, span)
	case "offset":
		return &IntV{base{span}, t.Offset}
	case "max_offset":
		return &IntV{base{span}, t.MaxOff}
	case "total_cols":
		return &IntV{base{span}, t.TotalCols}
	case "cta_group":
		return &IntV{base{span}, t.CtaGroup}
	}
	return &OpaqueV{base{span}, "TMEMPool." + name}
}

// tmemAddrPtr is T.address_of(self.addr).
func (ev *evaluator) tmemAddrPtr(t *TMEMPoolV, span source.Span) (ir.Expr, bool) {
	addr := ev.tmemAddr(t, span)
	if ex, ok := addr.(*ExprV); ok {
		if ld, ok := ex.E.(*ir.Load); ok {
			return &ir.AddressOf{Buf: ld.Buf, Indices: ld.Indices, Span: span}, true
		}
	}
	if isErr(addr) {
		ev.needConcrete(addr, span, "TMEMPool's address slot")
		return nil, false
	}
	ev.warnf(span, CodeUnresolved, "not modelled: the address of TMEMPool's tmem_addr %s; statement ignored", describe(addr))
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
func (ev *evaluator) tmemAlloc(t *TMEMPoolV, c *call, defDtype ir.DataType, lay layout.Layout, colsIdx int) Value {
	if !ev.requireKernel(c, "TMEMPool.alloc") {
		return poison(c.span)
	}
	shape, ok := ev.shapeArg(c.args[0], c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	dt := defDtype
	if d := c.arg(1, "dtype"); d != nil {
		if dt, ok = ev.dtypeOf(d, c.argSpan(1, "dtype")); !ok {
			return poison(c.span)
		}
	}
	name, nameSpan := ev.hintName(c, "buf")
	buf := &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: "tmem", Kind: ir.AllocBuffer, Span: c.span}
	layoutSpan := source.NoSpan
	if lay == nil {
		if lv := c.arg(2, "layout"); lv != nil && !isNoneV(lv) {
			layoutSpan = c.argSpan(2, "layout")
			ev.noteLayout(lv)
			if lay = ev.layoutArg(lv, layoutSpan, buf); lay == nil {
				return poison(c.span)
			}
		}
	}
	// _resolve_cols: cols=, else the layout's TCol span, else the 2-D
	// shape's bits over 32-bit rows.
	var cols int64
	if v := c.arg(colsIdx, "cols"); v != nil && !isNoneV(v) {
		if cols, ok = ev.intArg(v, c.argSpan(colsIdx, "cols"), "cols"); !ok {
			return poison(c.span)
		}
	} else if lay != nil {
		bits := layout.SpanOf(lay, layout.TCol) * int64(dt.Bits)
		if bits%32 != 0 {
			return ev.errorf(c.span, CodeType, "layout TCol span=%d elems x %db is not 32-bit aligned", layout.SpanOf(lay, layout.TCol), dt.Bits)
		}
		cols = bits / 32
	} else {
		if len(shape) != 2 {
			return ev.errorf(c.span, CodeType, "TMEMPool.alloc() requires cols= for non-2D TMEM buffers")
		}
		total := shape[0] * shape[1] * int64(dt.Bits)
		if shape[0] == 0 || total%(32*shape[0]) != 0 {
			return ev.errorf(c.span, CodeType, "Cannot infer TMEM columns from shape=%s, dtype=%s; please pass cols= explicitly", Repr(c.args[0]), pyQuote(dt.String()))
		}
		cols = total / (32 * shape[0])
	}
	start, end := t.Offset, t.Offset+cols
	if end > t.TotalCols {
		return ev.errorf(c.span, CodeType, "TMEM overflow: %d > %d", end, t.TotalCols)
	}
	if lay == nil {
		if len(shape) != 2 {
			return ev.errorf(c.span, CodeType, "TMEMPool.alloc() requires layout= for non-2D TMEM buffers")
		}
		if shape[0] == 128 {
			lay, _ = tmemDatapathLayout("D", 128, shape[1], 0)
		} else {
			lay = layout.NewTile([]layout.Iter{layout.It(shape[0], 1, layout.TLane), layout.It(shape[1], 1, layout.TCol)}, nil, nil)
		}
	}
	buf.Layout = lay
	buf.AllocatedAddr = &ir.IntImm{Value: start, Type: ir.Int32, Span: c.span}
	buf.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: c.span}
	t.Offset = end
	t.MaxOff = max(t.MaxOff, end)
	ev.addBufferSite(buf, nameSpan, c.span, layoutSpan)
	ev.emitStmt(&ir.Alloc{Buf: buf, Span: c.span})
	return &BufferV{base{c.span}, buf}
}

// tmemAllocSF is TMEMPool.alloc_sf(shape, dtype, *, sf_per_mma,
// sf_reuse=1): a block-scaled MMA's scale factors with sf_tmem_layout
// (rows, SF_K = last // sf_reuse, ...); a 3-D shape's first dimension is
// the pipeline depth.
func (ev *evaluator) tmemAllocSF(t *TMEMPoolV, c *call) Value {
	if len(c.args) > 2 {
		return ev.pyErrorf(c.span, "TMEMPool.alloc_sf() takes 3 positional arguments but %d were given", len(c.args)+1)
	}
	if !ev.checkArgs(c, "alloc_sf", 2, "shape", "dtype", "sf_per_mma", "sf_reuse") {
		return poison(c.span)
	}
	shape, ok := ev.shapeArg(c.args[0], c.argSpans[0])
	if !ok {
		return poison(c.span)
	}
	if c.arg(2, "sf_per_mma") == nil {
		return ev.pyErrorf(c.span, "TMEMPool.alloc_sf() missing 1 required keyword-only argument: 'sf_per_mma'")
	}
	reuse := int64(1)
	if v := c.arg(3, "sf_reuse"); v != nil {
		if reuse, ok = ev.intArg(v, c.argSpan(3, "sf_reuse"), "sf_reuse"); !ok {
			return poison(c.span)
		}
	}
	var depth Value = &NoneV{base{c.span}}
	var rows, last int64
	switch len(shape) {
	case 2:
		rows, last = shape[0], shape[1]
	case 3:
		depth, rows, last = &IntV{base{c.span}, shape[0]}, shape[1], shape[2]
	default:
		return ev.errorf(c.span, CodeType, "alloc_sf expects 2D (rows, SF_K*sf_reuse) or 3D (pipe_depth, rows, SF_K*sf_reuse); got shape=%s", Repr(c.args[0]))
	}
	if reuse <= 0 || last%reuse != 0 {
		return ev.errorf(c.span, CodeType, "alloc_sf: shape last dim %d must be divisible by sf_reuse=%d", last, reuse)
	}
	sp := c.span
	lc := &call{span: sp, fnSpan: c.fnSpan, fr: c.fr,
		args:     []Value{&IntV{base{sp}, rows}, &IntV{base{sp}, last / reuse}, c.arg(2, "sf_per_mma"), &IntV{base{sp}, reuse}, depth},
		argSpans: []source.Span{sp, sp, c.argSpan(2, "sf_per_mma"), sp, sp}}
	lv, ok := ev.sfTmemLayoutCall(lc).(*LayoutV)
	if !ok {
		return poison(c.span)
	}
	return ev.tmemAlloc(t, c, ir.Float32, lv.L, -1)
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
				fname, shp, pyQuote(dt.String()), rowBytes, atom.bytes, atom.name, suggestSwizzle(sugg), (atomBits+bits-1)/bits)
		}
	} else if rowBytes := cols * bytes; rowBytes < atom.bytes || rowBytes%atom.bytes != 0 {
		return fmt.Errorf("%s shape=%s with dtype=%s produces %dB rows, which is incompatible with the %dB swizzle atom selected by %s. Use swizzle_mode=SwizzleMode.%s, or widen shape[-1] to a multiple of %d elements (>= %dB at %s).",
			fname, shp, pyQuote(dt.String()), rowBytes, atom.bytes, atom.name, suggestSwizzle(rowBytes), atom.bytes/bytes, atom.bytes, dt)
	}
	if rows < 8 || rows%8 != 0 {
		return fmt.Errorf("%s shape=%s has shape[-2]=%d, but the %s atom requires shape[-2] to be a positive multiple of 8. Use swizzle_mode='none', or widen shape[-2] to a multiple of 8.", fname, shp, rows, atom.name)
	}
	return nil
}
