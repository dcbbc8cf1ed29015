package memory

import (
	"slices"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Register arithmetic is most of what a softmax warp executes:
// flash_attention4.py's softmax step is a 64-iteration loop of packed
// fma (three register allocations and five ptx.mov/fma intrinsics an
// iteration), a 15-iteration max3 reduction, 64 exponentials under an
// unrolled branch, and the machine executed each of their statements in
// every warp it ran, for every KV block it compared, about 280,000 of
// the 370,000 statements of its s8192 case. None of them touches memory
// or decides anything the machine counts: they write registers that only
// data reads (dataregs.go), and the intrinsics among them only end the
// available loads (cse.go's barrier rule) and a cp.async run.
//
// inertOf finds the for loops whose whole execution is that: every
// statement inside is an allocation, a store into a data register whose
// indices and value read no memory (or whose value is one intrinsic over
// registers and constants), an intrinsic over registers and constants, a
// vector cast between register elements whose addresses the machine
// computes, a branch on loop variables and thread indices whose arms are
// inert alike, or such a loop, with constant bounds. The machine passes over
// such a loop (forLoop) doing once what its statements would have done:
// the barrier rule, the end of a cp.async run, the available loads
// forgotten by a loop nvcc does not unroll. It counts the steps its
// statements would have counted (inertLoop), and executes none. TestInertLoops compares the figures with
// the rule off on every kernel of the dedup tests' programs.

// inertFx is what executing an inert loop does besides counting steps.
type inertFx uint8

// inertLoop is an inert loop's effects and the steps its execution would
// count (the loop's own excluded; an unrolled branch counted with its
// longer arm): passed over, the machine still counts them, so that what
// reads the step counts (the bound on them, a lazy run's proof, which
// waits until its first warp has counted as many steps as the kernel has
// statements: nvfp4_gemm.py's epilogue warps) sees the same work.
type inertLoop struct {
	fx    inertFx
	steps int64
	ok    bool // (m.inert also keeps the loops that are not inert)
	// data are the data variables (dataregs.go) its lets and
	// assignments set that are read after it: each holds nothing known
	// after it, as after an assignment the machine executes (assign)
	data []*ir.Var
}

const (
	fxBarrier inertFx = 1 << iota // an intrinsic: cpRun off, forgetBarrier
	fxCpRun                       // a branch or a loop: cpRun off
	fxForget                      // a loop nvcc does not unroll: forget
)

// inertRule enables passing over inert loops; tests turn it off to compare.
var inertRule = true

// inertOf reports whether loop s is inert, and what passing over it
// does; found at the loop's first execution, from its body alone (a
// body's first statement that reads memory ends the scan: most loops of
// copies cost a statement or two), and kept for the analysis. The data
// registers and the loop variables are scanned for at the first store
// and branch that need them.
func (m *machine) inertOf(s *ir.For) (inertLoop, bool) {
	if !inertRule {
		return inertLoop{}, false
	}
	if l, ok := m.inert[s]; ok {
		return l, l.ok
	}
	c := inertScan{m: m, loop: s}
	fx, steps, ok := c.stmt(s)
	var data []*ir.Var
	for _, v := range c.lets {
		if !ok {
			break
		}
		switch {
		case c.localVar(v):
		case m.dataVar(v):
			// read after the loop, but only as data (sparse_prefill's
			// running maximum of the scores, cur_pi_max)
			if !slices.Contains(data, v) {
				data = append(data, v)
			}
		default:
			ok = false
		}
	}
	l := inertLoop{fx: fx, steps: steps - 1, ok: ok, data: data} // (the loop's own step: m.stmt's)
	if m.inert == nil {
		m.inert = map[*ir.For]inertLoop{}
	}
	m.inert[s] = l
	return l, ok
}

// forVarSet is the loop variables of the kernel (known wherever read).
func (m *machine) forVarSet() map[*ir.Var]bool {
	if m.scanned&scannedForVars == 0 {
		m.scanned |= scannedForVars
		if m.forVars == nil {
			m.forVars = map[*ir.Var]bool{}
		}
		ir.WalkStmts(m.fn.Body, func(s ir.Stmt) {
			if f, ok := s.(*ir.For); ok {
				m.forVars[f.Var] = true
			}
		})
	}
	return m.forVars
}

// passInert does what executing inert loop l would have done.
func (m *machine) passInert(l inertLoop) {
	m.steps += l.steps
	for _, v := range l.data {
		b := m.vars.get(v)
		if b == nil {
			b = m.newBinding()
			m.vars.set(v, b)
		}
		b.why = dataWhy
	}
	fx := l.fx
	if fx&fxForget != 0 {
		m.forget()
	}
	if fx&fxBarrier != 0 {
		m.forgetBarrier()
	}
	if fx != 0 {
		m.cpRun = false
	}
	if fx&fxForget != 0 {
		m.forget()
	}
}

type inertScan struct {
	m *machine
	// loop is the loop scanned; lets the variables its lets and
	// assignments set, which nothing outside it may read (checked once
	// the rest of the loop is found inert: loopReads counts the reads
	// in its body)
	loop      *ir.For
	lets      []*ir.Var
	loopReads map[*ir.Var]int32
}

// block returns what executing b does, the steps it counts, and
// whether it is inert.
func (c *inertScan) block(b *ir.Block) (inertFx, int64, bool) {
	if b == nil {
		return 0, 0, true
	}
	var fx, sure, need inertFx
	var steps int64
	for _, s := range b.Stmts {
		var f inertFx
		var n int64
		var o bool
		switch st := s.(type) {
		case *ir.If:
			var diff inertFx
			f, diff, n, o = c.ifStmt(st)
			need |= diff
		case *ir.Evaluate, *ir.Store, *ir.Let, *ir.Assign:
			f, n, o = c.stmt(s)
			sure |= f // (done at every execution of b)
		default:
			f, n, o = c.stmt(s)
		}
		if !o {
			return 0, 0, false
		}
		fx |= f
		steps += n
	}
	if sure != 0 {
		sure |= fxCpRun // (passInert ends a cp.async run for any effect)
	}
	if need&^sure != 0 {
		// an arm does what the other does not, and nothing else in b
		// does it at every execution
		return 0, 0, false
	}
	return fx, steps, true
}

// ifStmt returns what executing branch s does, what only one of its
// arms does (diff: the block holding s must do it anyway, at every
// execution: fp8_blockwise_gemm.py's MMA loop copies the scale factors
// to tensor memory `if k_tile % 4 == 0:`, an intrinsic beside the
// mbarrier wait every iteration makes), the steps it counts and whether
// it is inert.
func (c *inertScan) ifStmt(s *ir.If) (fx, diff inertFx, steps int64, ok bool) {
	a, na, okA := c.block(s.Then)
	if !okA {
		return 0, 0, 1, false
	}
	b, nb, okB := c.block(s.Else)
	if !okB {
		return 0, 0, 1, false
	}
	if electOne(s.Cond) && nb == 0 {
		// one lane of the warp takes the arm, always
		return a | fxCpRun, 0, 1 + na, true
	}
	if c.dataCond(s.Cond) {
		// a condition on data registers, which the machine never
		// knows: it passes over both arms as quiet code (exec.go's
		// ifStmt and skipCode), doing what either does and counting
		// the branch's step alone
		qa, okA := c.m.quiet(s.Then)
		qb, okB := c.m.quiet(s.Else)
		return qa | qb, 0, 1, okA && okB
	}
	if !c.known(s.Cond) {
		// a condition on scalars the machine may know or not
		// (flash_attention4.py's MMA warp releases Q `if i_kv ==
		// mma_trip_count - 2:`): it takes one arm when it knows the
		// condition, and passes over both as quiet code when it does
		// not. Both arms quiet, what only some of these do the block
		// must do anyway.
		if !quietExpr(s.Cond) {
			return 0, 0, 1, false
		}
		qa, okA := c.m.quiet(s.Then)
		qb, okB := c.m.quiet(s.Else)
		all := a | b | qa | qb
		return all | fxCpRun, all &^ (a & b & qa & qb), 1 + max(na, nb), okA && okB
	}
	// the arm taken does what it does (an arm of lanes that take none
	// runs nothing)
	return a | b | fxCpRun, a ^ b, 1 + max(na, nb), true
}

// dataCond reports whether the machine's evaluation of condition e
// surely gives no value: integer arithmetic and comparisons over
// constants, loop variables, thread indices and loads of registers, one
// of which at least is a data register (dataregs.go), whose load has
// none (exec.go's localLoadTo).
func (c *inertScan) dataCond(e ir.Expr) bool {
	data, ok := false, true
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.IntImm, *ir.ThreadIndex:
		case *ir.Var:
			ok = ok && c.known(e)
		case *ir.Load:
			if e.Buf.Scope != "local" || !allQuiet(e.Indices) {
				ok = false
				return
			}
			data = data || c.m.dataRegSet().get(rootOf(e.Buf))
		case *ir.Not:
			walk(e.X)
		case *ir.Cast:
			ok = ok && !e.To.IsFloat()
			walk(e.X)
		case *ir.Binary:
			walk(e.A)
			walk(e.B)
		default:
			ok = false
		}
	}
	walk(e)
	return ok && data
}

// stmt returns what executing s does, the steps it counts (s's own
// included), and whether it is inert.
func (c *inertScan) stmt(s ir.Stmt) (inertFx, int64, bool) {
	switch s := s.(type) {
	case *ir.Comment:
		return 0, 1, !s.LeftOut // (a statement left out: executed, noted)
	case *ir.Alloc, *ir.Decl:
		return 0, 1, true
	case *ir.Block:
		fx, n, ok := c.block(s)
		return fx, n + 1, ok
	case *ir.Lowered:
		fx, n, ok := c.block(s.Body)
		return fx, n + 1, ok
	case *ir.Store:
		if s.Buf.Scope != "local" {
			return 0, 1, false
		}
		root := rootOf(s.Buf)
		if !c.m.dataRegSet().get(root) || c.m.unreadSet()[root] || slices.ContainsFunc(s.Indices, touchesMemory) {
			return 0, 1, false
		}
		if !touchesMemory(s.Value) {
			return 0, 1, true // (localStore evaluates nothing)
		}
		return plainValue(s.Value)
	case *ir.Let:
		return c.binding(s.Var, s.Value)
	case *ir.Assign:
		return c.binding(s.Var, s.Value)
	case *ir.Evaluate:
		call, ok := s.X.(*ir.Call)
		switch {
		case ok && call.Op == ir.OpCastVec2:
			return 0, 1, c.registerCast(call)
		case ok && plainCall(call):
			return fxBarrier, 1, true
		case ok && genericOp(call) && opInfoOf(call.Op).ignored && !rawTMA(call.Op):
			// an mbarrier operation, a fence: evaluate reads none of
			// its operands
			return fxBarrier, 1, true
		}
		return 0, 1, false
	case *ir.If:
		fx, diff, n, ok := c.ifStmt(s)
		return fx, n, ok && diff == 0
	case *ir.For:
		fx, body, ok := c.block(s.Body)
		if !ok {
			return 0, 1, false
		}
		if s.Min != nil {
			if _, isConst := c.m.constOf(s.Min); !isConst {
				return 0, 1, false
			}
		}
		n, isConst := c.m.constOf(s.Extent)
		if !isConst || n <= 0 {
			return 0, 1, false
		}
		fx |= fxCpRun
		if !unrolls(s) {
			fx |= fxForget
		}
		return fx, 1 + n*body, true
	}
	return 0, 1, false
}

// binding returns what a let or an assignment of v inside the loop does:
// the value an inert store's value may be, into a number that nothing
// outside the loop reads (flash_attention_backward.py's softmax packs
// each pair of scaled scores into `scaled_pair` before the exponentials).
// Passed over, the variable keeps the value it had before the loop, and
// nothing reads it: inside, only inert statements, which evaluate no
// address, branch or loop bound from it (a branch's condition and a
// register cast's indices must read loop variables and thread indices
// only).
func (c *inertScan) binding(v *ir.Var, value ir.Expr) (inertFx, int64, bool) {
	if v.Type.Code == ir.Handle {
		return 0, 1, false
	}
	c.lets = append(c.lets, v) // (localVar, at the end of the scan)
	if !touchesMemory(value) {
		return 0, 1, true
	}
	return plainValue(value)
}

// plainValue returns what evaluating e, a value that touches memory
// (touchesMemory), does: e must read registers and constants only,
// through intrinsics the machine executes generically (plainArg). An
// intrinsic other than pure arithmetic applies the barrier rule
// (machine.call -> evaluate) when it is evaluated: always, unless it is
// in an arm of a Select, which the machine does not evaluate when the
// condition is unknown; such a value is inert only when another
// intrinsic applies the rule anyway. flash_attention4.py's row mask sets
// `in_bound = T.bitwise_not(mask_inv) & (1 << i)` before each select, a
// call inside a binary operation; sparse_prefill's masking of the scores
// converts inside a Select, under a conversion.
func plainValue(e ir.Expr) (inertFx, int64, bool) {
	if !plainArg(e) {
		return 0, 1, false
	}
	always, armed := barrierCalls(e, false)
	switch {
	case always:
		return fxBarrier, 1, true
	case armed:
		return 0, 1, false
	}
	return 0, 1, true
}

// barrierCalls reports whether e holds an intrinsic other than pure
// arithmetic evaluated whenever e is (always) or only in a Select's arm
// (armed), e being in an arm itself when inArm is set.
func barrierCalls(e ir.Expr, inArm bool) (always, armed bool) {
	add := func(a, b bool) {
		always, armed = always || a, armed || b
	}
	switch e := e.(type) {
	case *ir.Call:
		if !pureMath(e) {
			add(!inArm, inArm)
		}
		for _, a := range e.Args {
			add(barrierCalls(a, inArm))
		}
	case *ir.Select:
		add(barrierCalls(e.Cond, inArm))
		add(barrierCalls(e.A, true))
		add(barrierCalls(e.B, true))
	case *ir.Binary:
		add(barrierCalls(e.A, inArm))
		add(barrierCalls(e.B, inArm))
	case *ir.Not:
		add(barrierCalls(e.X, inArm))
	case *ir.Neg:
		add(barrierCalls(e.X, inArm))
	case *ir.Cast:
		add(barrierCalls(e.X, inArm))
	case *ir.Load:
		for _, x := range e.Indices {
			add(barrierCalls(x, inArm))
		}
	case *ir.AddressOf:
		for _, x := range e.Indices {
			add(barrierCalls(x, inArm))
		}
	}
	return always, armed
}

// localVar reports whether every read of v in the kernel is inside the
// loop scanned.
func (c *inertScan) localVar(v *ir.Var) bool {
	if c.loopReads == nil {
		c.loopReads = map[*ir.Var]int32{}
		countVarReads(c.loop.Body, c.loopReads)
	}
	return c.m.kernelVarReads()[v] == c.loopReads[v]
}

// kernelVarReads is how many times each variable is read in the kernel.
func (m *machine) kernelVarReads() map[*ir.Var]int32 {
	if m.scanned&scannedVarReads == 0 {
		m.scanned |= scannedVarReads
		if m.varReads == nil {
			m.varReads = map[*ir.Var]int32{}
		}
		countVarReads(m.fn.Body, m.varReads)
	}
	return m.varReads
}

// countVarReads adds the reads of each variable in b to n: in the
// statements' expressions and in the buffers they allocate and declare
// (a data pointer, runtime dimensions, a runtime offset).
func countVarReads(b *ir.Block, n map[*ir.Var]int32) {
	var buffer func(b *ir.Buffer)
	read := func(e ir.Expr) {
		walkExpr(e, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.Var:
				n[x]++
			case *ir.Load:
				buffer(x.Buf)
			case *ir.AddressOf:
				buffer(x.Buf)
			case *ir.BufferData:
				buffer(x.Buf)
			}
		})
	}
	buffer = func(b *ir.Buffer) {
		for ; b != nil; b = b.Base {
			if b.Data != nil {
				n[b.Data]++
			}
			for _, e := range b.ShapeExpr {
				read(e)
			}
			read(b.ElemOffsetExpr)
			read(b.AllocatedAddr)
		}
	}
	ir.WalkStmts(b, func(s ir.Stmt) {
		forExprs(s, read)
		switch s := s.(type) {
		case *ir.Alloc:
			buffer(s.Buf)
		case *ir.Decl:
			buffer(s.Buf)
		case *ir.Store:
			buffer(s.Buf)
		}
	})
}

// known reports whether the machine evaluates e to a value in every
// lane: integer arithmetic and comparisons over constants, loop
// variables and thread indices.
func (c *inertScan) known(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.IntImm, *ir.ThreadIndex:
		return true
	case *ir.Var:
		if c.m.forVarSet()[e] {
			return true
		}
		_, ok := c.m.constLetSet()[e]
		return ok
	case *ir.Not:
		return c.known(e.X)
	case *ir.Neg:
		return c.known(e.X)
	case *ir.Cast:
		return !e.To.IsFloat() && c.known(e.X)
	case *ir.Binary:
		switch e.Op {
		case ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.Div, ir.FloorMod, ir.Min, ir.Max, ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE,
			ir.And, ir.Or, ir.BitAnd, ir.BitOr, ir.BitXor, ir.Shl, ir.Shr:
			return c.known(e.A) && c.known(e.B)
		}
	}
	return false
}

// electOne reports whether e is elect_sync() (or elect_sync() != 0),
// true in one active lane of the warp (exec.go's call):
// flash_attention4.py's MMA warp issues each tcgen05.mma under it.
func electOne(e ir.Expr) bool {
	if b, ok := e.(*ir.Binary); ok && b.Op == ir.NE {
		if z, ok := b.B.(*ir.IntImm); ok && z.Value == 0 {
			e = b.A
		}
	}
	c, ok := e.(*ir.Call)
	return ok && c.Op == ir.OpElectSync
}

// plainCall reports whether the machine's execution of intrinsic call c
// does nothing but the barrier rule: a genericOp whose arguments are
// registers, constants and arithmetic over them.
func plainCall(c *ir.Call) bool {
	if !genericOp(c) {
		return false
	}
	for _, a := range c.Args {
		if !plainArg(a) {
			return false
		}
	}
	return true
}

// genericOp reports whether the machine executes intrinsic c by
// evaluate's generic path (or call's pure math), which reads nothing of
// its operands' values: no memory instruction of its own (copies,
// cp.async, ldmatrix and stmatrix, TMA, the user dialect's loads and
// stores, a vector cast through pointers), no warp intrinsic or CTA
// reduction whose value the machine computes, no register load it may
// delete. It evaluates the operands for the loads in them only, and
// counts an operand pointing into shared or global memory as an access
// it does not model.
func genericOp(c *ir.Call) bool {
	switch c.Op {
	case ir.OpCopyBytes, ir.OpCpAsync, ir.OpLdmatrix, ir.OpStmatrix, ir.OpPtxStSharedPlain, ir.OpPtxLdSharedPlain, ir.OpCastVec2,
		ir.OpElectSync, ir.OpFilter, ir.OpCpAsyncCommit, ir.OpCpAsyncWait, ir.OpPointerOffset,
		ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4, ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce, "cuda.ldg":
		return false
	}
	if shuffleMode(c.Op) != 0 || isAnySync(c.Op) || sregOf(c) != "" || isActiveMask(c) || isThreadRank(c) || isCTAReduce(c.Op) || ldLocalDsts(c) != nil {
		return false
	}
	if info := opInfoOf(c.Op); info.toks != nil {
		switch info.toks[0] {
		case "ld", "st", "ldmatrix", "stmatrix", "cp":
			return false
		}
	}
	return true
}

// plainArg reports whether e reads registers and constants only, through
// generic intrinsics too.
func plainArg(e ir.Expr) bool {
	ok := true
	walkExpr(e, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.Var, *ir.ThreadIndex, *ir.Binary, *ir.Not, *ir.Neg, *ir.Cast, *ir.Select:
		case *ir.Load:
			ok = ok && x.Buf.Scope == "local"
		case *ir.Call:
			// a nested conversion (sparse_prefill's
			// uint_as_float(Select(..., float_as_uint(p[i])))): its own
			// operands are walked too
			ok = ok && genericOp(x)
		case *ir.AddressOf:
			ok = ok && x.Buf.Scope == "local"
		case *ir.BufferData:
			ok = ok && x.Buf.Scope == "local"
		default:
			ok = false
		}
	})
	return ok
}

// registerCast reports whether the machine's execution of vector cast c
// (evaluate's two accesses, through pointers) finds two register
// pointers and does nothing: both operands are addresses of register
// elements that the machine computes in every lane (known indices, a
// static shape and layout, no runtime offset from the allocation).
func (c *inertScan) registerCast(call *ir.Call) bool {
	if len(call.Args) != 4 {
		return false
	}
	for _, a := range call.Args[2:] {
		d, ok := a.(*ir.StringImm)
		if !ok {
			return false
		}
		if _, ok := ir.ParseDType(d.Value); !ok {
			return false
		}
	}
	return c.registerAddr(call.Args[0]) && c.registerAddr(call.Args[1])
}

// registerAddr mirrors what machine.pointerTo needs of &b[idx] to give
// an address: b a register buffer; known indices, as many as b's
// dimensions; a static shape; a layout the machine applies without
// thread axes; no runtime element offset from b to its allocation.
func (c *inertScan) registerAddr(e ir.Expr) bool {
	a, ok := e.(*ir.AddressOf)
	if !ok || a.Buf.Scope != "local" || a.FlatIndex {
		return false
	}
	for _, x := range a.Indices {
		if !c.known(x) {
			return false
		}
	}
	for r := a.Buf; r != nil; r = r.Base {
		if r.ElemOffsetExpr != nil {
			return false
		}
	}
	b := a.Buf
	if len(a.Indices) != len(b.Shape) || b.RuntimeDim() >= 0 {
		return false
	}
	switch l := b.Layout.(type) {
	case nil, *layout.ComposeLayout:
		return true
	case *layout.TileLayout:
		return !l.HasThreadAxis()
	}
	return false
}

// Code the machine cannot execute (a branch on runtime data, a loop
// whose bound is one) made the figures around it unknown, even when
// it could not count anything whichever way it ran:
// flash_attention4.py's correction warps rescale the output accumulator
// in tensor memory under `if any_needs_rescale != 0:` (an __any_sync of
// a comparison of running maxima), with tcgen05 loads and stores and
// register arithmetic only, and 96 of its calls had no figures; its
// softmax's branch on a floating-point value assigns registers only,
// and every kernel total was unknown. quiet finds such code: no access
// to shared or global memory in any statement or expression, no
// intrinsic but those evaluate's generic path runs (which count
// nothing; an intrinsic the machine ignores may take shared pointers),
// no vector cast. skipCode then only taints what the code writes and
// applies what it may do to the machine's state (the barrier rule, a
// forgotten set of available loads, the end of a cp.async run), as
// passInert does.

// quiet reports whether the execution of b can count nothing, whatever
// its branches and loop bounds, and what it may do besides (kept per
// block: a branch skipped in every iteration of a loop asks each time).
func (m *machine) quiet(b *ir.Block) (inertFx, bool) {
	if b == nil {
		return 0, true
	}
	if q, ok := m.quiets[b]; ok {
		return q.fx, q.ok
	}
	fx, ok := m.quietBlock(b)
	if m.quiets == nil {
		m.quiets = map[*ir.Block]inertLoop{}
	}
	m.quiets[b] = inertLoop{fx: fx, ok: ok}
	return fx, ok
}

func (m *machine) quietBlock(b *ir.Block) (inertFx, bool) {
	var fx inertFx
	for _, s := range b.Stmts {
		f, ok := m.quietStmt(s)
		if !ok {
			return 0, false
		}
		fx |= f
	}
	return fx, true
}

func (m *machine) quietStmt(s ir.Stmt) (inertFx, bool) {
	switch s := s.(type) {
	case *ir.Comment:
		return 0, !s.LeftOut
	case *ir.Alloc, *ir.Decl, *ir.Break, *ir.Continue:
		return 0, true
	case *ir.Block:
		return m.quiet(s)
	case *ir.Lowered:
		return m.quiet(s.Body)
	case *ir.Store:
		if s.Buf.Scope != "local" || m.unreadSet()[rootOf(s.Buf)] || !quietExpr(s.Value) || !allQuiet(s.Indices) {
			return 0, false
		}
		if call, ok := s.Value.(*ir.Call); ok && !pureMath(call) {
			return fxBarrier, true // machine.call -> evaluate
		}
		return 0, true
	case *ir.Let:
		return 0, quietExpr(s.Value)
	case *ir.Assign:
		return 0, quietExpr(s.Value)
	case *ir.Evaluate:
		call, ok := s.X.(*ir.Call)
		if !ok || !genericOp(call) {
			return 0, false
		}
		ignored := opInfoOf(call.Op).ignored
		for _, a := range call.Args {
			if b := bufferOf(a); b != nil && scopeOf(b) != "" && !ignored {
				return 0, false // (the access the machine does not model)
			}
			if !quietExpr(a) {
				return 0, false
			}
		}
		return fxBarrier, true
	case *ir.If:
		a, okA := m.quiet(s.Then)
		b, okB := m.quiet(s.Else)
		return a | b | fxCpRun, okA && okB && quietExpr(s.Cond)
	case *ir.While:
		fx, ok := m.quiet(s.Body)
		return fx | fxCpRun | fxForget, ok && quietExpr(s.Cond)
	case *ir.For:
		fx, ok := m.quiet(s.Body)
		fx |= fxCpRun
		if !unrolls(s) {
			fx |= fxForget
		}
		return fx, ok && quietExpr(s.Min) && quietExpr(s.Extent)
	}
	return 0, false
}

func allQuiet(es []ir.Expr) bool {
	for _, e := range es {
		if !quietExpr(e) {
			return false
		}
	}
	return true
}

// quietExpr reports whether evaluating e reads no shared or global
// memory and calls no intrinsic but pure math, pointer offsets and
// elect_sync (the first active lane: exec.go's call, no barrier).
func quietExpr(e ir.Expr) bool {
	ok := true
	walkExpr(e, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Load:
			ok = ok && x.Buf.Scope == "local"
		case *ir.Call:
			ok = ok && (x.Op == ir.OpPointerOffset || x.Op == ir.OpElectSync || pureMath(x))
		case *ir.Region, *ir.Tuple:
			ok = false
		}
	})
	return ok
}
