package memory

import (
	"sync"

	"github.com/tilels/tilels/ir"
)

// Most register buffers hold data: a reduction's partial sums, a cast's
// converted elements, an epilogue's accumulators. What they hold never
// reaches an address, a branch, a loop bound or an intrinsic's operand
// (it is a floating-point value the machine does not know anyway), yet
// the machine kept every element of every such store, at the cost of
// the layout that places it (a third of test_reduction.py's analysis).
// dataRegisters finds them from the lowered code, and the machine then
// executes only the memory accesses inside their stores' and loads'
// expressions.
//
// A register allocation (a local root, with its views) is control when a
// load of it is read where a value matters: in a condition, a loop
// bound, an index of any access, a Select's condition, an intrinsic's
// operand other than a register element passed whole (a pointer, an
// offset, an expression), a scalar that is itself read where a value
// matters, or a store into a control register. The rest are data. A kernel holding
// anything the scan does not know (an unlowered tile call) has none.

// dataRegisters returns the local allocations of fn whose values only
// data reads (nil: none, or fn holds what the scan does not know).
func dataRegisters(fn *ir.Func) map[*ir.Buffer]bool {
	regs, _, _ := scanDataRegs(fn)
	return regs
}

// handedScan is the last scan the content cache made of a kernel before
// analysing it (constfree.go's relax): the analysis that follows takes
// it instead of scanning fn again (handOff, takeScan).
var handedScan struct {
	sync.Mutex
	fn      *ir.Func
	regs    map[*ir.Buffer]bool
	opaque  map[*ir.Var]bool
	control *ptrMap[ir.Var, bool]
}

// scanDataRegsHanded is scanDataRegs, handed to fn's next analysis.
func scanDataRegsHanded(fn *ir.Func) (map[*ir.Buffer]bool, map[*ir.Var]bool, *ptrMap[ir.Var, bool]) {
	regs, opaque, control := scanDataRegs(fn)
	handedScan.Lock()
	handedScan.fn, handedScan.regs, handedScan.opaque, handedScan.control = fn, regs, opaque, control
	handedScan.Unlock()
	return regs, opaque, control
}

// takeScan is scanDataRegs, taken from the cache's scan when it scanned
// fn last (once: a later analysis scans again).
func takeScan(fn *ir.Func) (map[*ir.Buffer]bool, map[*ir.Var]bool, *ptrMap[ir.Var, bool]) {
	handedScan.Lock()
	if handedScan.fn == fn {
		regs, opaque, control := handedScan.regs, handedScan.opaque, handedScan.control
		handedScan.fn, handedScan.regs, handedScan.opaque, handedScan.control = nil, nil, nil, nil
		handedScan.Unlock()
		return regs, opaque, control
	}
	handedScan.Unlock()
	return scanDataRegs(fn)
}

// scanDataRegs is dataRegisters, with the opaque lets of fn it found
// (opaqueLets: a condition that reads one is never known, whatever the
// registers in its value hold) and the scalars read where a value
// matters (control; nil when fn holds what the scan does not know).
func scanDataRegs(fn *ir.Func) (map[*ir.Buffer]bool, map[*ir.Var]bool, *ptrMap[ir.Var, bool]) {
	opaque := opaqueLets(fn)
	s := &regScan{pendVars: map[*ir.Var][]ir.Expr{}, pendRoots: map[*ir.Buffer][]ir.Expr{}, opaque: opaque}
	s.block(fn.Body)
	if s.unknown {
		return nil, opaque, nil
	}
	// the values walked as data whose variable or register became
	// control after the walk: walked again as values, until nothing
	// more becomes control (the fixed point of repeated passes, which
	// took five passes over flashkda's kernels, a third of their
	// analysis)
	for drain(s, &s.workVars, s.pendVars) || drain(s, &s.workRoots, s.pendRoots) {
		// (each drain walks one key's pending values)
	}
	if s.unknown {
		return nil, opaque, nil
	}
	var out map[*ir.Buffer]bool
	for b := range s.locals.all() {
		if !s.control.get(b) {
			if out == nil {
				out = map[*ir.Buffer]bool{}
			}
			out[b] = true
		}
	}
	return out, opaque, &s.vars
}

// drain walks again, as values, the pending values of the last key of
// work, and reports whether there was one.
func drain[K comparable](s *regScan, work *[]K, pend map[K][]ir.Expr) bool {
	n := len(*work)
	if n == 0 {
		return false
	}
	k := (*work)[n-1]
	*work = (*work)[:n-1]
	es := pend[k]
	delete(pend, k)
	for _, e := range es {
		s.value(e)
	}
	return true
}

// regScan is dataRegisters' walk: vars and control grow to a fixed
// point. A scalar's assigned values and a register's stored values walked
// as data while it was not control wait in pendVars and pendRoots; when
// it becomes control (workVars, workRoots), they are walked again as
// values.
type regScan struct {
	vars      ptrMap[ir.Var, bool]    // scalars read where a value matters
	control   ptrMap[ir.Buffer, bool] // local roots read where a value matters
	locals    ptrMap[ir.Buffer, bool] // every local root
	pendVars  map[*ir.Var][]ir.Expr
	pendRoots map[*ir.Buffer][]ir.Expr
	workVars  []*ir.Var
	workRoots []*ir.Buffer
	unknown   bool
	opaque    map[*ir.Var]bool // opaqueLets
}

func (s *regScan) block(b *ir.Block) {
	if b == nil {
		return
	}
	for _, st := range b.Stmts {
		s.stmt(st)
	}
}

func (s *regScan) stmt(st ir.Stmt) {
	switch st := st.(type) {
	case *ir.Block:
		s.block(st)
	case *ir.Lowered:
		s.block(st.Body)
	case *ir.Comment, *ir.ScopeID, *ir.Break, *ir.Continue:
	case *ir.Alloc:
		s.root(st.Buf)
	case *ir.Decl:
		s.root(st.Buf)
		if st.Buf.ElemOffsetExpr != nil {
			s.value(st.Buf.ElemOffsetExpr)
		}
	case *ir.Let:
		s.assigned(st.Var, st.Value)
	case *ir.Assign:
		s.assigned(st.Var, st.Value)
	case *ir.Store:
		for _, x := range st.Indices {
			s.value(x)
		}
		var r *ir.Buffer
		if st.Buf.Scope == "local" {
			r = s.root(st.Buf)
		}
		if r != nil && !s.control.get(r) {
			s.data(st.Value)
			s.pendRoots[r] = append(s.pendRoots[r], st.Value)
		} else if r != nil {
			s.value(st.Value)
		} else {
			s.data(st.Value)
		}
	case *ir.Evaluate:
		if c, ok := st.X.(*ir.Call); ok {
			s.operands(c)
		} else {
			s.value(st.X)
		}
	case *ir.If:
		switch {
		case neverKnownWith(st.Cond, s.opaque):
			s.data(st.Cond) // decided at run time whatever it reads (opaque.go)
		case !s.storesOnly(st):
			s.value(st.Cond)
		default:
			s.storeBranch(st)
		}
		s.block(st.Then)
		s.block(st.Else)
	case *ir.While:
		s.value(st.Cond)
		s.block(st.Body)
	case *ir.For:
		s.value(st.Min)
		s.value(st.Extent)
		s.block(st.Body)
	default:
		s.unknown = true // an unlowered tile call, anything new
	}
}

// root records b's root as a local allocation when it is one.
func (s *regScan) root(b *ir.Buffer) *ir.Buffer {
	r := rootOf(b)
	if r.Scope == "local" || b.Scope == "local" {
		s.locals.set(r, true)
	}
	return r
}

func (s *regScan) assigned(v *ir.Var, e ir.Expr) {
	if s.vars.get(v) {
		s.value(e)
	} else {
		s.data(e)
		s.pendVars[v] = append(s.pendVars[v], e)
	}
}

// value walks e, whose value matters.
func (s *regScan) value(e ir.Expr) {
	walkExpr(e, func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Var:
			if !s.vars.get(e) {
				s.vars.set(e, true)
				s.workVars = append(s.workVars, e)
			}
		case *ir.Load:
			s.mark(e.Buf)
		case *ir.AddressOf:
			s.mark(e.Buf)
		case *ir.BufferData:
			s.mark(e.Buf)
		}
	})
}

// mark makes b's root control when it is a register allocation.
func (s *regScan) mark(b *ir.Buffer) {
	if b.Scope != "local" {
		return
	}
	r := s.root(b)
	if !s.control.get(r) {
		s.control.set(r, true)
		s.workRoots = append(s.workRoots, r)
	}
}

// operands walks intrinsic c's operands: a register element passed as
// one (st.shared.v4's words, a shuffle's value) is data, whose element
// index matters; any other operand (a pointer, an offset, a count)
// matters whole.
func (s *regScan) operands(c *ir.Call) {
	if w := opInfoOf(c.Op).writes; w != nil {
		s.writes(c, w) // (asmwrites.go)
	}
	if genericOp(c) && opInfoOf(c.Op).ignored && !rawTMA(c.Op) {
		// an mbarrier operation, a fence, a tensor-core or tensor-memory
		// operation: the machine reads none of its operands (exec.go's
		// evaluate returns before them), so what they hold matters
		// nowhere: the pipeline stage that indexes fp8_blockwise_gemm.py's
		// mbarriers and the shared descriptors of its MMAs is data
		for _, a := range c.Args {
			s.unread(a)
		}
		return
	}
	if tensorCopy(c.Op) {
		// a TMA tensor copy: the machine counts its box from the tensor
		// map and reads none of its operands (exec.go's evaluate), so
		// nothing they hold matters: the tile coordinates a persistent
		// scheduler computes (nvfp4_gemm.py's m_idx and n_idx registers)
		// are data
		for _, a := range c.Args {
			s.unread(a)
		}
		return
	}
	generic := genericOp(c)
	for _, a := range c.Args {
		x := a
		if cast, ok := x.(*ir.Cast); ok {
			x = cast.X
		}
		if l, ok := x.(*ir.Load); ok && l.Buf.Scope == "local" {
			s.data(x)
			continue
		}
		if ad, ok := x.(*ir.AddressOf); ok && ad.Buf.Scope == "local" && (generic || c.Op == ir.OpCastVec2) {
			// an address: its indices matter, not what the
			// register holds
			s.root(ad.Buf)
			for _, i := range ad.Indices {
				s.value(i)
			}
			continue
		}
		if generic {
			s.data(a)
			continue
		}
		s.value(a)
	}
}

// A generic intrinsic's operands (inert.go's genericOp: the machine
// evaluates them for their loads and ignores their values) are data:
// flash_attention4.py's softmax passes -row_max_scaled to ptx.mov.b64,
// which made the row maximum and, through it, the 128 scores of every
// thread control registers, whose every store the machine kept. The
// address of a register element passed to such an intrinsic (tcgen05.ld's
// destinations), or to a vector cast through pointers (whose register
// pointers access counts as nothing), makes only its indices matter. Any
// other intrinsic's operands matter whole: a copy from registers to
// memory reads them through the register slots of regs.go.

// data walks e, whose value is data: only the indices, the operands of
// intrinsics that are not pure arithmetic and Selects' conditions in it
// matter.
func (s *regScan) data(e ir.Expr) {
	switch e := e.(type) {
	case nil, *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.Var, *ir.ThreadIndex, *ir.TensorMapAddr:
	case *ir.Load:
		if e.Buf.Scope == "local" {
			s.root(e.Buf)
		}
		for _, x := range e.Indices {
			s.value(x)
		}
	case *ir.Binary:
		s.data(e.A)
		s.data(e.B)
	case *ir.Not:
		s.data(e.X)
	case *ir.Neg:
		s.data(e.X)
	case *ir.Cast:
		s.data(e.X)
	case *ir.Select:
		if neverKnownWith(e.Cond, s.opaque) {
			// a condition the machine never knows (a comparison
			// with a floating-point constant: flash_attention4.py's
			// tile_max[0] == -inf) picks an unknown value whatever
			// the registers in it hold (opaque.go)
			s.data(e.Cond)
		} else if !reachesMemory(e.A) && !reachesMemory(e.B) {
			// a choice between values, data both: the condition
			// decides only which, data too (exec.go's Select marks
			// the figures unknown only when an arm reaches memory).
			// flash_attention4.py's causal mask, T.Select(in_bound,
			// s[c], -inf), made the bound's row index, and through it
			// the tile scheduler's m_block_idx register, control.
			s.data(e.Cond)
		} else {
			s.value(e.Cond)
		}
		s.data(e.A)
		s.data(e.B)
	case *ir.Call:
		if warpNeverKnown(e, func(x ir.Expr) bool { return neverKnownWith(x, s.opaque) }) {
			// a vote or shuffle the machine never knows (opaque.go):
			// what its operands hold does not matter
			for _, a := range e.Args {
				s.data(a)
			}
			return
		}
		if !pureMath(e) {
			s.operands(e)
			return
		}
		for _, a := range e.Args {
			s.data(a)
		}
	default:
		s.value(e) // AddressOf, BufferData, Region, Tuple, anything new
	}
}

// tensorCopy reports the TMA tensor copies, whose operands the machine
// does not read: it counts the tensor map's box (exec.go's evaluate).
func tensorCopy(op string) bool {
	switch op {
	case ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4, ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce:
		return true
	}
	return false
}

// unread walks e, an operand the machine never reads: it only records
// the local allocations it names.
func (s *regScan) unread(e ir.Expr) {
	walkExpr(e, func(x ir.Expr) {
		var b *ir.Buffer
		switch x := x.(type) {
		case *ir.Load:
			b = x.Buf
		case *ir.AddressOf:
			b = x.Buf
		}
		if b != nil && b.Scope == "local" {
			s.root(b)
		}
	})
}

// A branch whose arms only store values into registers and bind scalars
// (a pipeline's `if stage[0] == 6: stage[0] = 0; phase[0] ^= 1`) decides
// only what they hold: its condition matters where one of them does.
// Until then the condition is data (the machine, which then never knows
// it, passes over both arms as quiet code: inert.go's quiet), and it
// waits, as a stored value does, to be walked again as a value when a
// register it stores into or a scalar it binds becomes control.

// storesOnly reports whether the arms of st only allocate, store into
// registers (indices and values over registers and constants) and bind
// scalars to such values, the code inert.go's quiet passes over.
func (s *regScan) storesOnly(st *ir.If) bool {
	var block func(b *ir.Block) bool
	block = func(b *ir.Block) bool {
		if b == nil {
			return true
		}
		for _, x := range b.Stmts {
			switch x := x.(type) {
			case *ir.Alloc, *ir.Comment:
			case *ir.Block:
				if !block(x) {
					return false
				}
			case *ir.Store:
				if x.Buf.Scope != "local" || !quietExpr(x.Value) || !allQuiet(x.Indices) {
					return false
				}
				if call, ok := x.Value.(*ir.Call); ok && !pureMath(call) {
					return false
				}
			case *ir.Assign:
				if !quietExpr(x.Value) || x.Var.Type.Code == ir.Handle {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return (len(st.Then.Stmts) > 0 || st.Else != nil && len(st.Else.Stmts) > 0) && block(st.Then) && block(st.Else)
}

// storeBranch walks branch st, whose arms storesOnly accepts.
func (s *regScan) storeBranch(st *ir.If) {
	matters := false
	var block func(b *ir.Block)
	block = func(b *ir.Block) {
		if b == nil {
			return
		}
		for _, x := range b.Stmts {
			switch x := x.(type) {
			case *ir.Block:
				block(x)
			case *ir.Store:
				if r := s.root(x.Buf); s.control.get(r) {
					matters = true
				} else {
					s.pendRoots[r] = append(s.pendRoots[r], st.Cond)
				}
			case *ir.Assign:
				if s.vars.get(x.Var) {
					matters = true
				} else {
					s.pendVars[x.Var] = append(s.pendVars[x.Var], st.Cond)
				}
			}
		}
	}
	block(st.Then)
	block(st.Else)
	if matters {
		s.value(st.Cond)
	} else {
		s.data(st.Cond)
	}
}
