package gemmasync

// Lowering and plan of gemm_async/tcgen05 (see tcgen05.go).

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

var (
	u32 = ir.DataType{Code: ir.UInt, Bits: 32}
	u64 = ir.DataType{Code: ir.UInt, Bits: 64}
)

// localCell is `alignas(64) <t> name[1];`.
func localCell(name string, t ir.DataType, span source.Span) *ir.Buffer {
	b := &ir.Buffer{Name: name, Shape: []int64{1}, Dtype: t, Scope: "local",
		Layout: layout.RowMajor(1), Kind: ir.AllocBuffer, Span: span}
	b.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: span}
	return b
}

func cellAddr(b *ir.Buffer, span source.Span) *ir.AddressOf {
	return &ir.AddressOf{Buf: b, Indices: []ir.Expr{common.Cst(0)}, Span: span}
}

func cellLoad(b *ir.Buffer, span source.Span) ir.Expr {
	return &ir.Load{Buf: b, Indices: []ir.Expr{common.Cst(0)}, Span: span}
}

func call(op string, t ir.DataType, span source.Span, args ...ir.Expr) *ir.Call {
	return &ir.Call{Op: op, Args: args, Type: t, Span: span}
}

func eval(e ir.Expr, span source.Span) ir.Stmt { return &ir.Evaluate{X: e, Span: span} }

// encodeDesc allocates a descriptor cell for buf and encodes it at the
// buffer's origin (TVM _make_desc, without the warp shuffle).
func encodeDesc(name string, buf *ir.Buffer, p smemParams, span source.Span) (*ir.Buffer, []ir.Stmt) {
	cell := localCell(name, u64, span)
	idx := make([]ir.Expr, len(buf.Shape))
	for i := range idx {
		idx[i] = common.Cst(0)
	}
	origin := &ir.AddressOf{Buf: buf, Indices: idx, Span: span}
	enc := call(ir.OpTcgen05EncodeMatrixDesc, ir.DataType{}, span, cellAddr(cell, span), origin,
		common.Cst(p.ldo), common.Cst(p.sdo), common.Cst(p.swizzle))
	return cell, []ir.Stmt{&ir.Alloc{Buf: cell, Span: span}, eval(enc, span)}
}

// descOffset is floordiv(slice_tile.apply(linear)["m"] (+ symbolic start),
// elements per 16 B).
func descOffset(tile *layout.TileLayout, linear int64, sym ir.Expr, per16 int64) ir.Expr {
	if tile == nil {
		// TVM sliced the operand's region to None and fails here, inside
		// the parse of its lowering (the rest of its message is a source
		// excerpt of tcgen05.py).
		dispatch.Raise("DiagnosticError", "error: 'NoneType' object has no attribute 'apply'")
	}
	m := tile.ApplyAxis(linear, layout.M)
	if sym == nil {
		return common.Cst(floorDiv(m, per16))
	}
	if q, ok := divExact(sym, per16); ok && m%per16 == 0 {
		return ir.AddE(q, common.Cst(m/per16))
	}
	return ir.DivE(ir.AddE(sym, common.Cst(m)), common.Cst(per16))
}

// addSym is sym + c (c alone when sym is nil).
func addSym(sym ir.Expr, c int64) ir.Expr {
	if sym == nil {
		return common.Cst(c)
	}
	return ir.AddE(sym, common.Cst(c))
}

// colDiv is floordiv(sym + c, per): a tensor-memory column of 8-bit
// elements in 32-bit columns.
func colDiv(sym ir.Expr, c, per int64) ir.Expr {
	if sym == nil {
		return common.Cst(floorDiv(c, per))
	}
	if q, ok := divExact(sym, per); ok && c%per == 0 {
		return ir.AddE(q, common.Cst(c/per))
	}
	return ir.DivE(ir.AddE(sym, common.Cst(c)), common.Cst(per))
}

// aTmemCol is the 32-bit column of a tensor-memory A's region start.
func (g *gemm) aTmemCol() ir.Expr {
	if g.aTmemSym == nil {
		return common.Cst(g.aTmemOff32)
	}
	return colDiv(g.aTmemSym, g.aTmemRawOff, g.aElemPer32)
}

// divExact divides e by v when every term is a visible multiple of v.
func divExact(e ir.Expr, v int64) (ir.Expr, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		if e.Value%v == 0 {
			return common.Cst(e.Value / v), true
		}
	case *ir.Binary:
		switch e.Op {
		case ir.Add:
			a, ok1 := divExact(e.A, v)
			b, ok2 := divExact(e.B, v)
			if ok1 && ok2 {
				return ir.AddE(a, b), true
			}
		case ir.Mul:
			if c, ok := ir.ConstInt(e.B); ok && c%v == 0 {
				return ir.MulE(e.A, common.Cst(c/v)), true
			}
			if c, ok := ir.ConstInt(e.A); ok && c%v == 0 {
				return ir.MulE(common.Cst(c/v), e.B), true
			}
		}
	}
	return nil, false
}

func (g *gemm) emit() *dispatch.Result {
	span := g.c.Span()
	if v, ok := g.c.Config("smem_desc"); ok && g.newer() && g.blockScaled {
		// (the modes: desc_modes.go)
		if s, isS := v.(*ir.StringImm); isS && s.Value == "encode" {
			dispatch.Raise("ValueError", "tcgen05 gemm_async smem_desc='encode' is only implemented for dense MMA")
		}
	}
	var body []ir.Stmt
	ds := g.setupDescs(span)
	body = append(body, ds.pre...)

	// The instruction descriptor.
	var idesc ir.Expr
	var idescVal uint32
	var descICell *ir.Buffer
	aFmt, bFmt, sFmt := uint32(0), uint32(0), uint32(0)
	switch {
	case g.descI != nil:
		idesc = g.descI
	case g.blockScaled:
		aFmt, bFmt, sFmt = blockScaledFormats(g.kind, dtypeName(g.aType), dtypeName(g.bType), g.sfaType)
		descICell = localCell("descI_local", u32, span)
		body = append(body, &ir.Alloc{Buf: descICell, Span: span},
			eval(call(ir.OpTcgen05EncodeInstrDescBlockScaled, ir.DataType{}, span, cellAddr(descICell, span),
				&ir.StringImm{Value: g.kind, Span: span}, common.Cst(g.ctaGroup),
				common.Cst(g.mM*g.ctaGroup), common.Cst(g.mN), common.Cst(g.mmaK), common.Cst(int64(aFmt)), common.Cst(int64(bFmt)),
				common.Cst(int64(sFmt)), common.Cst(b2i(g.aMN)), common.Cst(b2i(g.bMN))), span))
		idesc = cellLoad(descICell, span)
		idescVal = blockScaledInstrDesc(g.mM*g.ctaGroup, g.mN, aFmt, bFmt, sFmt, g.aMN, g.bMN, 0)
	default:
		if g.newer() {
			checkDenseShape026(g.kind, g.ctaGroup, g.mM*g.ctaGroup, g.mN, g.mmaK)
		}
		idescVal = denseInstrDesc(g.mM*g.ctaGroup, g.mN, "float32", g.aSem, g.bSem, g.aMN, g.bMN)
		idesc = &ir.IntImm{Value: int64(idescVal), Type: u32, Span: span}
	}

	// Scale-factor bookkeeping.
	var sfaPerKi, sfbPerKi int64
	needsSFID := false
	if g.blockScaled && g.kIters > 0 {
		sfaPerKi, sfbPerKi = g.sfaK/g.kIters, g.sfbK/g.kIters
		needsSFID = g.sfMMAK < g.sfaEPC && sfaPerKi > 0 && g.descI == nil
	}

	nPhys := g.mN
	if g.is2x2 || g.packedN2 {
		nPhys = g.mN / 2
	}
	aPer16 := int64(0)
	if !g.aTmem {
		aPer16 = int64(128 / g.aType.Bits)
	}
	bPer16 := int64(128 / g.bType.Bits)
	aLast := g.A.Exts[len(g.A.Exts)-1]
	bLast := g.B.Exts[len(g.B.Exts)-1]
	cAddr := g.C.Buf.AllocatedAddr

	var sfIDs, steps []string
	for mi := range g.mTiles {
		for ni := range g.nTiles {
			for ki := range g.kIters {
				var aVal, aOff ir.Expr
				var encA, encB []ir.Stmt
				if g.aTmem {
					aVal = g.tmemAddr(g.A.Buf.AllocatedAddr, g.aTmemLane, mi,
						ir.AddE(g.aTmemCol(), common.Cst(ki*(g.mmaK/g.aElemPer32))), span)
				} else {
					lin := mi*g.mM*aLast + ki*g.mmaK
					if g.transA {
						lin = ki*g.mmaK*aLast + mi*g.mM
					}
					aOff = descOffset(g.aTile, lin, g.aSym, aPer16)
					aVal, encA = ds.operand(ds.descA, g.A.Buf, g.aP, aOff, span)
				}
				lin := ni*g.nPerCTA*bLast + ki*g.mmaK
				if g.transB {
					lin = ki*g.mmaK*bLast + ni*g.nPerCTA
				}
				bOff := descOffset(g.bTile, lin, g.bSym, bPer16)
				bVal, encB := ds.operand(ds.descB, g.B.Buf, g.bP, bOff, span)
				var enable ir.Expr = &ir.IntImm{Value: 1, Type: ir.BoolT, Span: span}
				if ki == 0 {
					enable = g.accum
				}
				col := ir.AddE(addSym(g.cSym, g.tmemOff32), common.Cst(ni*nPhys))
				dAddr := g.tmemAddr(cAddr, g.tmemLane, mi, col, span)
				steps = append(steps, fmt.Sprintf("(m%d,n%d,k%d): A %s, B +%s, D lane %d col %s",
					mi, ni, ki, g.operandText(aOff, ki), exprText(bOff), mi*g.mM, exprText(col)))
				var mma ir.Stmt
				var pre []ir.Stmt
				if g.blockScaled {
					sfaLin := mi*g.mM*g.sfaK + ki*sfaPerKi
					sfbLin := ni*g.nPerCTA*g.sfbK + ki*sfbPerKi
					sfaCol := g.sfaSlice.Apply(sfaLin)[layout.TCol]
					sfbCol := g.sfbSlice.Apply(sfbLin)[layout.TCol]
					sfaAddr := ir.AddE(g.SFA.Buf.AllocatedAddr, colDiv(g.sfaSym, sfaCol, g.sfaEPC))
					sfbAddr := ir.AddE(g.SFB.Buf.AllocatedAddr, colDiv(g.sfbSym, sfbCol, g.sfbEPC))
					if needsSFID {
						var id ir.Expr
						if g.sfaSym == nil {
							v := floorMod(sfaCol, g.sfaEPC)
							sfIDs = append(sfIDs, fmt.Sprint(v))
							id = &ir.IntImm{Value: v, Type: u32, Span: span}
						} else {
							id = &ir.Cast{To: u32, X: ir.ModE(ir.AddE(g.sfaSym, common.Cst(sfaCol)), common.Cst(g.sfaEPC)), Span: span}
							sfIDs = append(sfIDs, "("+exprText(g.sfaSym)+fmt.Sprintf(" + %d) %% %d", sfaCol, g.sfaEPC))
						}
						pre = append(pre, eval(call(ir.OpRuntimeInstrDesc, ir.DataType{}, span, cellAddr(descICell, span), id), span))
					}
					mma = eval(call(ir.OpTcgen05MMABlockScale, ir.DataType{}, span,
						&ir.StringImm{Value: g.kind, Span: span}, common.Cst(g.scaleVec), common.Cst(g.ctaGroup), common.Cst(b2i(g.aTmem)),
						dAddr, aVal, bVal, idesc, enable, sfaAddr, sfbAddr), span)
				} else if g.ws {
					// tcgen05_ws.go: T.ptx["tcgen05.mma.ws..."](d, a, b, idesc,
					// enable_input_d, 0), the tensor-memory addresses as uint32
					a := aVal
					if g.aTmem {
						a = &ir.Cast{To: u32, X: aVal, Span: span}
					}
					// enable_input_d is a .pred: the reference passes
					// any(ki != 0, bool(accum))
					if imm, ok := enable.(*ir.IntImm); !ok || imm.Type != ir.BoolT {
						enable = &ir.Cast{To: ir.BoolT, X: enable, Span: span}
					}
					mma = eval(call(g.wsOp(), ir.DataType{}, span,
						&ir.Cast{To: u32, X: dAddr, Span: span}, a, bVal, idesc, enable,
						&ir.IntImm{Value: 0, Type: ir.Int32, Span: span}), span)
				} else {
					mma = eval(call(ir.OpTcgen05MMA, ir.DataType{}, span,
						&ir.StringImm{Value: g.kind, Span: span}, common.Cst(g.ctaGroup), common.Cst(b2i(g.aTmem)),
						dAddr, aVal, bVal, idesc, enable), span)
				}
				body = append(body, pre...)
				// "encode": B's descriptor, then A's, next to the MMA
				issue := append(append(encB, encA...), mma)
				if g.warp {
					body = append(body, &ir.If{Cond: call(ir.OpElectSync, ir.Int32, span), Then: &ir.Block{Stmts: issue, Span: span}, Span: span})
				} else {
					body = append(body, issue...)
				}
			}
		}
	}

	res := &dispatch.Result{Body: &ir.Block{Stmts: body, Span: span}, Threads: 1, PostDef: ds.post}
	if g.warp {
		res.Threads = 32
	}
	res.Plan = g.plan(idescVal, aFmt, bFmt, sFmt, sfIDs, needsSFID)
	res.Plan = append(res.Plan, stepsItem(steps))
	res.Notes = []string{"tcgen05.mma is asynchronous: commit it to an mbarrier (tcgen05.commit) and wait before reading C from tensor memory"}
	return res
}

// plan lists the MMA shape and count, the instruction descriptor and the
// two shared-memory descriptors with their decoded fields.
func (g *gemm) plan(idesc uint32, aFmt, bFmt, sFmt uint32, sfIDs []string, needsSFID bool) []dispatch.PlanItem {
	shape := fmt.Sprintf("M=%d N=%d K=%d per instruction (cta_group::%d", g.mM*g.ctaGroup, g.mN, g.mmaK, g.ctaGroup)
	if g.ctaGroup == 2 {
		shape += fmt.Sprintf(": M=%d rows and N=%d columns of B per CTA", g.mM, g.nPerCTA)
	}
	if g.is2x2 {
		shape += fmt.Sprintf("; 2x2 datapath: D lanes 0-63 and 64-127, %d tmem columns per instruction", g.mN/2)
	}
	if g.packedN2 && !g.is2x2 {
		shape += fmt.Sprintf("; weight-stationary Layout E: D lanes 0-63 and 64-127, %d tmem columns per instruction", g.mN/2)
	}
	shape += ")"
	ws := ""
	if g.ws {
		ws = ".ws"
	}
	kind := "tcgen05.mma" + ws + ".cta_group::" + fmt.Sprint(g.ctaGroup) + ".kind::" + g.kind
	if g.blockScaled {
		kind += fmt.Sprintf(".block_scale.scale_vec::%dX", g.scaleVec)
	}
	operands := "A smem descriptor, B smem descriptor (SS)"
	if g.aTmem {
		operands = "A in tensor memory, B smem descriptor (TS)"
		if g.aBatched {
			operands = "A bank-batched in tensor memory (lanes 0-63 and 64-127), B smem descriptor (TS)"
		}
	}
	issue := "one thread"
	if g.warp {
		issue = "one elected lane of the warp (elect.sync)"
	}
	items := []dispatch.PlanItem{
		{Key: "instruction", Value: kind},
		{Key: "mma shape", Value: shape},
		{Key: "gemm", Value: fmt.Sprintf("C[%d, %d] fp32 (tmem) %s A @ B, M=%d N=%d K=%d, %s", g.M, g.N, accumText(g.accum), g.M, g.N, g.K, operands)},
		{Key: "instructions", Value: fmt.Sprintf("%d = %d (M) x %d (N) x %d (K), issued by %s", g.mTiles*g.nTiles*g.kIters, g.mTiles, g.nTiles, g.kIters, issue)},
		{Key: "cta_group", Value: fmt.Sprint(g.ctaGroup)},
	}
	if g.descI != nil {
		items = append(items, dispatch.PlanItem{Key: "instruction descriptor", Value: "descI from the config: " + exprText(g.descI)})
	} else if g.blockScaled {
		var f []dispatch.PlanItem
		for _, x := range decodeBlockScaledInstrDesc(idesc, g.kind) {
			f = append(f, dispatch.PlanItem{Key: x.key, Value: x.value})
		}
		v := hex32(idesc) + " (encoded at run time, scale-factor ids 0)"
		if needsSFID {
			v += "; per MMA the ids are patched to sf_id = " + joinComma(sfIDs)
		}
		items = append(items, dispatch.PlanItem{Key: "instruction descriptor (block-scaled)", Value: v, Fields: f})
	} else {
		var f []dispatch.PlanItem
		for _, x := range decodeDenseInstrDesc(idesc, g.kind) {
			f = append(f, dispatch.PlanItem{Key: x.key, Value: x.value})
		}
		items = append(items, dispatch.PlanItem{Key: "instruction descriptor", Value: hex32(idesc), Fields: f})
	}
	add := func(name string, buf *ir.Buffer, p smemParams, bits int) {
		d := smemDesc(0, p.ldo, p.sdo, p.swizzle)
		var f []dispatch.PlanItem
		for _, x := range decodeSmemDesc(d) {
			if x.key == "start_address [0,14)" {
				x.value = "&" + buf.Name + "[0] >> 4 (shown for shared offset 0)"
			}
			f = append(f, dispatch.PlanItem{Key: x.key, Value: x.value})
		}
		maj := "K-major"
		if p.mnMajor {
			maj = "MN-major"
		}
		f = append(f, dispatch.PlanItem{Key: "swizzle atom", Value: fmt.Sprintf("%s, %s, dtype %d-bit", swizzleModeName[p.swizzle], maj, bits)},
			dispatch.PlanItem{Key: "atom grid", Value: p.tiler})
		items = append(items, dispatch.PlanItem{Key: name, Value: hex64(d), Fields: f})
	}
	if !g.aTmem {
		add("A smem descriptor", g.A.Buf, g.aP, g.aType.Bits)
	}
	add("B smem descriptor", g.B.Buf, g.bP, g.bType.Bits)
	items = append(items, g.descPlan())
	if g.blockScaled {
		items = append(items, dispatch.PlanItem{Key: "scale factors", Value: fmt.Sprintf("SFA %s [%d x %d], SFB %s [%d x %d] in tmem, %d per MMA k-step (sf_mma_k)",
			g.sfaType, g.SFA.Exts[len(g.SFA.Exts)-2], g.sfaK, g.sfbType, g.SFB.Exts[len(g.SFB.Exts)-2], g.sfbK, g.sfMMAK)})
	}
	return items
}

// operandText is the A operand of one MMA for the plan: "+<16-byte offset>"
// of the A descriptor, or "tmem col <c>" of a tensor-memory A.
func (g *gemm) operandText(off ir.Expr, ki int64) string {
	if g.aTmem {
		return "tmem col " + exprText(ir.AddE(g.aTmemCol(), common.Cst(ki*(g.mmaK/g.aElemPer32))))
	}
	return "+" + exprText(off)
}

// tmemAddr is T.cuda.get_tmem_addr(base, row, col) of MMA row tile mi. From
// 0.26 the row adds the region's TLane offset and a zero row folds away
// (tcgen05.py _get_tmem_addr_fast): base itself, or base + col.
func (g *gemm) tmemAddr(base ir.Expr, lane, mi int64, col ir.Expr, span source.Span) ir.Expr {
	u32 := ir.DataType{Code: ir.UInt, Bits: 32}
	if !g.newer() {
		return call(ir.OpGetTmemAddr, u32, span, base, common.Cst(mi*g.mM), col)
	}
	row := lane
	if g.mTiles != 1 {
		row += mi * g.mM
	}
	if row != 0 {
		return call(ir.OpGetTmemAddr, u32, span, base, common.Cst(row), col)
	}
	if v, ok := ir.ConstInt(col); ok {
		if v == 0 {
			return base
		}
		return &ir.Binary{Op: ir.Add, A: base, B: &ir.IntImm{Value: v, Type: u32, Span: span}, Span: span}
	}
	return &ir.Binary{Op: ir.Add, A: base, B: &ir.Cast{To: u32, X: col, Span: span}, Span: span}
}

// stepsItem lists each MMA's descriptor offsets (16-byte units) and D
// address; long lists keep their first 16 entries.
func stepsItem(steps []string) dispatch.PlanItem {
	it := dispatch.PlanItem{Key: "per instruction", Value: fmt.Sprintf("%d MMAs (descriptor offsets in 16-byte units)", len(steps))}
	for i, st := range steps {
		if i == 16 {
			it.Fields = append(it.Fields, dispatch.PlanItem{Key: "...", Value: fmt.Sprintf("%d more", len(steps)-16)})
			break
		}
		k, v, _ := strings.Cut(st, ": ")
		it.Fields = append(it.Fields, dispatch.PlanItem{Key: k, Value: v})
	}
	return it
}

// accumText is "=", "+=" or "+= (when <accum>, else =)".
func accumText(e ir.Expr) string {
	if v, ok := ir.ConstInt(e); ok {
		if v != 0 {
			return "+="
		}
		return "="
	}
	return "+= (when " + exprText(e) + ", else =)"
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// checkDenseShape026 is 0.26's _check_tcgen05_mma_matrix_shape (not
// sparse) as the compile-time instruction-descriptor encoder and the
// explicit-tile check call it: per kind and cta_group the M values and
// their N steps (N <= 256, and the i8 extras 8 and 24), then K per kind.
func checkDenseShape026(kind string, ctaGroup, m, n, k int64) {
	fail := func() {
		dispatch.Raise("ValueError", "Invalid matrix shape for Tcgen05 MMA, check failed for kind: %s, is_sparse: False, cta_group: %d, M: %d, N: %d, K: %d",
			kind, ctaGroup, m, n, k)
	}
	var steps map[int64]int64
	var extra []int64
	switch {
	case (kind == "f16" || kind == "tf32" || kind == "f8f6f4") && ctaGroup == 1:
		steps = map[int64]int64{64: 8, 128: 16}
	case (kind == "f16" || kind == "tf32" || kind == "f8f6f4" || kind == "i8") && ctaGroup == 2:
		steps = map[int64]int64{128: 32, 256: 32}
	case kind == "i8" && ctaGroup == 1:
		steps, extra = map[int64]int64{64: 16, 128: 16}, []int64{8, 24}
	case (kind == "mxf8f6f4" || kind == "mxf4" || kind == "mxf4nvf4") && ctaGroup == 1:
		steps = map[int64]int64{128: 8}
	case (kind == "mxf8f6f4" || kind == "mxf4" || kind == "mxf4nvf4") && ctaGroup == 2:
		steps = map[int64]int64{128: 16, 256: 16}
	default:
		fail()
	}
	step, okM := steps[m]
	if !okM || (!containsI(extra, n) && (n < step || n > 256 || n%step != 0)) {
		fail()
	}
	wantK := map[string]int64{"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64}[kind]
	if k != wantK {
		fail()
	}
}
