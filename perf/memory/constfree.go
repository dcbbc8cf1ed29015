package memory

import (
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/tilels/tilels/ir"
)

// Integer constants the machine never reads. FlashMLA's sparse prefill
// kernels are a pytest grid over s_kv, the rows of the key-value cache:
// its cases differ only in that constant, which the code compares with
// indices it loads from global memory,
//
//	min_indices: T.int32 = 32768
//	for local_row in T.unroll(4): for j in T.unroll(4):
//	    min_indices = T.min(min_indices, selected_idx[local_row, j])
//	is_all_rows_invalid = (min_indices == 32768) | (max_indices == -1)
//	... T.Select((lane_indices[0] >= 0) & (lane_indices[0] < 32768) ...)
//
// and the machine knows no value loaded from memory: a binary operation
// with an operand it does not know has no value in any evaluation of it
// (exec.go's evalU and evalTo return the operand's reason, whatever the
// other operand holds), so the constant beside it is never read. Each
// case was analysed apart (eight kernels, each the cost of the file's
// lower). scanConstFree finds such constants, and the content key walks
// them by type only.
//
// What the machine never knows (never): a floating-point constant or
// conversion, a load of memory (any scope but a register's), a call
// whose value it never computes (knownCall), an operation over any of
// them, a Select whose condition it never knows or whose arms it knows
// neither of; a load of a register root every store into which writes a
// value it never knows (the machine writes a register element only
// there: an intrinsic's outputs, a skipped loop's and a tainted arm's
// writes leave it unknown); a scalar every let and assignment of which
// binds such a value (nothing else binds one: loop variables, scope ids
// and host constants are excluded); and, flow-sensitively, a scalar
// whose last binding on every path to the read was one (the flow walk
// below: min_indices after the unrolled loops that assign it).
//
// A let of an integer constant is free too when every read of its
// variable is either beside such an operand (min_indices in T.min over
// the loaded indices) or where the variable is flow-sensitively never
// known: no read sees the constant's value (the variable's let value,
// which the divisibility folds read, is read only inside operations
// whose value is unknown, whose alignment nothing uses).
//
// The proofs of warps.go and loops.go may read such a constant (a range
// against an int8 register); they only decide which executions the
// machine may skip, never the figures. TestConstFreeKey rewrites every
// free constant of every test kernel and checks the figures unchanged.

// constFree is what scanConstFree found: the binary operations whose
// integer-constant operands are never read (bit 1: A, bit 2: B) and the
// lets whose integer-constant values are never read.
type constFree struct {
	bins map[*ir.Binary]uint8
	lets map[*ir.Let]bool
}

// maxFlowVars bounds the scalars tracked flow-sensitively (a bit each).
const maxFlowVars = 64

// A scalar's facts (constScan.vars).
const (
	varPinned   = 1 << iota // bound otherwise than by a let or an assignment
	varBound                // bound by a let or an assignment
	varKnown                // some binding's value may be known
	varConstLet             // bound by a let of an integer constant
	varSeen                 // read where it may hold that constant
	varFlow                 // tracked flow-sensitively (varInfo.bit)
)

type varInfo struct {
	flags uint8
	bit   uint8 // its bit in the flow walk's state
}

// A register root's facts (constScan.roots).
const (
	rootWritten = 1 << iota // some store writes it
	rootKnown               // some store's value may be known
)

// A mark of a binary operation's constant operands (constScan.bins).
const (
	freeA = 1 << iota // A is a constant never read (in every visit so far)
	freeB
	readA // A is a constant read in some visit
	readB
)

// constScan is scanConstFree's state.
type constScan struct {
	vars  ptrMap[ir.Var, varInfo]
	roots ptrMap[ir.Buffer, uint8]
	bins  ptrMap[ir.Binary, uint8]
	nflow int
	lets  bool // some let binds an integer constant
	// unknown: a statement or expression the scan does not know
	unknown bool
}

type scalarBind struct {
	v *ir.Var
	x ir.Expr
}

type regStore struct {
	r *ir.Buffer
	x ir.Expr
}

// scanConstFree returns the constants of fn the machine never reads (nil:
// none).
func scanConstFree(fn *ir.Func) *constFree {
	if fn == nil || fn.Body == nil {
		return nil
	}
	s := &constScan{}
	for _, c := range hostConsts(fn) {
		s.flag(c.v, varPinned)
	}
	// every store into a register root, every binding of a scalar
	var binds []scalarBind
	var stores []regStore
	ir.WalkStmts(fn.Body, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Store:
			if st.Buf.Scope == "local" {
				r := rootOf(st.Buf)
				stores = append(stores, regStore{r, st.Value})
				s.roots.set(r, rootWritten)
			}
		case *ir.Let:
			binds = append(binds, scalarBind{st.Var, st.Value})
			s.flag(st.Var, varBound)
			if isIntImm(st.Value) {
				s.flag(st.Var, varConstLet)
				s.lets = true
			}
		case *ir.Assign:
			binds = append(binds, scalarBind{st.Var, st.Value})
			s.flag(st.Var, varBound)
		case *ir.For:
			s.flag(st.Var, varPinned)
		case *ir.ScopeID:
			for _, v := range st.Vars {
				s.flag(v, varPinned)
			}
		}
	})
	// the greatest fixed point: every root and scalar never known until
	// a store or binding of a value that may be known says otherwise (a
	// root no store writes is never known: its loads find no element)
	for changed := true; changed; {
		changed = false
		for _, b := range binds {
			if s.vars.get(b.v).flags&varKnown == 0 && !s.never(b.x, 0) {
				s.flag(b.v, varKnown)
				changed = true
			}
		}
		for _, st := range stores {
			if f := s.roots.get(st.r); f&rootKnown == 0 && !s.never(st.x, 0) {
				s.roots.set(st.r, f|rootKnown)
				changed = true
			}
		}
	}
	// the scalars some binding of which is never known, but not all:
	// tracked along the code
	for _, b := range binds {
		in := s.vars.get(b.v)
		if in.flags&(varPinned|varFlow) != 0 || in.flags&varKnown == 0 || s.nflow >= maxFlowVars || !s.never(b.x, 0) {
			continue
		}
		in.flags |= varFlow
		in.bit = uint8(s.nflow)
		s.nflow++
		s.vars.set(b.v, in)
	}
	s.block(fn.Body, 0)
	if s.unknown {
		return nil
	}
	out := &constFree{}
	for b, m := range s.bins.all() {
		if f := m &^ (m >> 2) & (freeA | freeB); f != 0 {
			if out.bins == nil {
				out.bins = map[*ir.Binary]uint8{}
			}
			out.bins[b] = f
		}
	}
	if s.lets {
		ir.WalkStmts(fn.Body, func(st ir.Stmt) {
			l, ok := st.(*ir.Let)
			if !ok || !isIntImm(l.Value) {
				return
			}
			if f := s.vars.get(l.Var).flags; f&(varPinned|varSeen) == 0 {
				if out.lets == nil {
					out.lets = map[*ir.Let]bool{}
				}
				out.lets[l] = true
			}
		})
	}
	if out.bins == nil && out.lets == nil {
		return nil
	}
	return out
}

func (s *constScan) flag(v *ir.Var, f uint8) {
	in := s.vars.get(v)
	in.flags |= f
	s.vars.set(v, in)
}

func isIntImm(e ir.Expr) bool {
	_, ok := e.(*ir.IntImm)
	return ok
}

// never reports whether the machine's evaluation of e has no value in
// any lane, whatever the kernel computed, with the scalars of d (the
// flow walk's state) never known either.
func (s *constScan) never(e ir.Expr, d uint64) bool {
	switch e := e.(type) {
	case *ir.FloatImm:
		return true
	case *ir.Cast:
		return e.To.IsFloat() || s.never(e.X, d)
	case *ir.Binary:
		return s.never(e.A, d) || s.never(e.B, d)
	case *ir.Neg:
		return s.never(e.X, d)
	case *ir.Not:
		return s.never(e.X, d)
	case *ir.Select:
		return s.never(e.Cond, d) || s.never(e.A, d) && s.never(e.B, d)
	case *ir.Load:
		return s.neverLoad(e)
	case *ir.Call:
		return !knownCall(e)
	case *ir.Var:
		return s.neverVar(e, d)
	}
	return false
}

func (s *constScan) neverLoad(e *ir.Load) bool {
	if e.Buf.Scope != "local" {
		return true
	}
	f := s.roots.get(rootOf(e.Buf))
	return f&rootWritten == 0 || f&rootKnown == 0
}

func (s *constScan) neverVar(v *ir.Var, d uint64) bool {
	in := s.vars.get(v)
	switch {
	case in.flags&(varPinned|varBound|varKnown) == varBound:
		return true
	case in.flags&varFlow != 0:
		return d&(1<<in.bit) != 0
	}
	return false
}

// block walks b in order from state d (the flow-tracked scalars never
// known on every path here) and returns the state at its end.
func (s *constScan) block(b *ir.Block, d uint64) uint64 {
	if b == nil {
		return d
	}
	for _, st := range b.Stmts {
		d = s.stmt(st, d)
	}
	return d
}

func (s *constScan) bind(v *ir.Var, value ir.Expr, d uint64) uint64 {
	never := s.expr(value, d)
	in := s.vars.get(v)
	if in.flags&varFlow == 0 {
		return d
	}
	if never {
		return d | 1<<in.bit
	}
	return d &^ (1 << in.bit)
}

func (s *constScan) stmt(st ir.Stmt, d uint64) uint64 {
	switch st := st.(type) {
	case *ir.Block:
		return s.block(st, d)
	case *ir.Let:
		return s.bind(st.Var, st.Value, d)
	case *ir.Assign:
		return s.bind(st.Var, st.Value, d)
	case *ir.Store:
		s.buffer(st.Buf)
		s.exprs(st.Indices, d)
		s.expr(st.Value, d)
	case *ir.Evaluate:
		s.expr(st.X, d)
	case *ir.If:
		s.expr(st.Cond, d)
		return s.block(st.Then, d) & s.block(st.Else, d)
	case *ir.For:
		s.expr(st.Min, d)
		s.expr(st.Extent, d)
		n, ok := ir.ConstInt(st.Extent)
		return s.loop(st.Body, nil, d, ok && n >= 1)
	case *ir.While:
		return s.loop(st.Body, st.Cond, d, false)
	case *ir.Lowered:
		return s.block(st.Body, d)
	case *ir.ScopeID:
		s.exprs(st.Dynamic, d)
	case *ir.Alloc:
		s.buffer(st.Buf)
	case *ir.Decl:
		s.buffer(st.Buf)
	case *ir.Comment, *ir.TileCall, *ir.Break, *ir.Continue:
	default:
		s.unknown = true
	}
	return d
}

// loop walks a loop's body (and its condition, for a while loop) from
// the state every iteration may start in: the state before the loop,
// less what an iteration's end leaves known, to a fixed point. A body
// that breaks or continues starts and leaves from the state before the
// loop less every scalar it binds. After a loop whose body runs at least
// once (once), the state is the body's end; else its start.
func (s *constScan) loop(body *ir.Block, cond ir.Expr, d uint64, once bool) uint64 {
	if s.nflow > 0 && leaves(body) {
		e := d &^ s.boundIn(body)
		s.expr(cond, e)
		s.block(body, e)
		return e
	}
	entry := d
	for {
		s.expr(cond, entry)
		out := s.block(body, entry)
		if next := entry & out; next != entry {
			entry = next
			continue
		}
		if once {
			return out
		}
		return entry
	}
}

// leaves reports whether body breaks or continues its loop (a break or
// continue outside the loops nested in it).
func leaves(b *ir.Block) bool {
	if b == nil {
		return false
	}
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *ir.Break, *ir.Continue:
			return true
		case *ir.Block:
			if leaves(st) {
				return true
			}
		case *ir.If:
			if leaves(st.Then) || leaves(st.Else) {
				return true
			}
		case *ir.Lowered:
			if leaves(st.Body) {
				return true
			}
		}
	}
	return false
}

// boundIn is the flow-tracked scalars b binds.
func (s *constScan) boundIn(b *ir.Block) uint64 {
	var out uint64
	ir.WalkStmts(b, func(st ir.Stmt) {
		var v *ir.Var
		switch st := st.(type) {
		case *ir.Let:
			v = st.Var
		case *ir.Assign:
			v = st.Var
		default:
			return
		}
		if in := s.vars.get(v); in.flags&varFlow != 0 {
			out |= 1 << in.bit
		}
	})
	return out
}

// buffer reads the variables of b's view offsets and shapes (and its
// bases'): where the machine places a view, a value it may know.
func (s *constScan) buffer(b *ir.Buffer) {
	for ; b != nil; b = b.Base {
		s.expr(b.ElemOffsetExpr, 0)
		s.exprs(b.ShapeExpr, 0)
		if b.PtrBase != nil {
			s.buffer(b.PtrBase)
		}
	}
}

func (s *constScan) exprs(es []ir.Expr, d uint64) {
	for _, x := range es {
		s.expr(x, d)
	}
}

// expr walks e's reads in state d and returns never(e, d): each binary
// operation with a constant operand beside one the machine never knows
// marks the constant free (a visit where it is not wins); each read of
// a constant let's scalar that may see its value (not beside such an
// operand, not flow-sensitively never known) keeps the let's constant.
func (s *constScan) expr(e ir.Expr, d uint64) bool {
	switch e := e.(type) {
	case nil, *ir.IntImm, *ir.StringImm, *ir.ThreadIndex, *ir.TensorMapAddr:
		return false
	case *ir.FloatImm:
		return true
	case *ir.Binary:
		va, aVar := e.A.(*ir.Var)
		vb, bVar := e.B.(*ir.Var)
		var na, nb bool
		if aVar {
			na = s.neverVar(va, d)
		} else {
			na = s.expr(e.A, d)
		}
		if bVar {
			nb = s.neverVar(vb, d)
		} else {
			nb = s.expr(e.B, d)
		}
		if aVar {
			s.read(va, nb, na)
		}
		if bVar {
			s.read(vb, na, nb)
		}
		var m uint8 // (only the sites of the key's walk)
		if siteOp(e.Op) && isIntImm(e.A) {
			m |= pick(nb, freeA, readA)
		}
		if siteOp(e.Op) && isIntImm(e.B) {
			m |= pick(na, freeB, readB)
		}
		if m&(freeA|freeB) != 0 || m != 0 && s.bins.Len() > 0 && s.bins.has(e) {
			s.bins.set(e, s.bins.get(e)|m)
		}
		return na || nb
	case *ir.Var:
		never := s.neverVar(e, d)
		s.read(e, false, never)
		return never
	case *ir.Not:
		return s.expr(e.X, d)
	case *ir.Neg:
		return s.expr(e.X, d)
	case *ir.Cast:
		return s.expr(e.X, d) || e.To.IsFloat()
	case *ir.Select:
		c := s.expr(e.Cond, d)
		a := s.expr(e.A, d)
		b := s.expr(e.B, d)
		return c || a && b
	case *ir.Load:
		s.buffer(e.Buf)
		s.exprs(e.Indices, d)
		return s.neverLoad(e)
	case *ir.AddressOf:
		s.buffer(e.Buf)
		s.exprs(e.Indices, d)
		return false
	case *ir.BufferData:
		s.buffer(e.Buf)
		return false
	case *ir.Call:
		s.exprs(e.Args, d)
		return !knownCall(e)
	case *ir.Region:
		s.buffer(e.Buf)
		s.exprs(e.Min, d)
		s.exprs(e.Extent, d)
		return false
	case *ir.Tuple:
		s.exprs(e.Elems, d)
		return false
	}
	s.unknown = true
	return false
}

// read notes a read of v, beside an operand the machine never knows or
// where v itself is never known (never): any other read of a constant
// let's scalar may see the constant, which the key then keeps.
func (s *constScan) read(v *ir.Var, beside, never bool) {
	if !s.lets || beside || never {
		return
	}
	if in := s.vars.get(v); in.flags&varConstLet != 0 {
		in.flags |= varSeen
		s.vars.set(v, in)
	}
}

func pick(c bool, a, b uint8) uint8 {
	if c {
		return a
	}
	return b
}

// The cache's second key. The scan costs about what a key's walk costs,
// and its constants let kernels share an entry only in a grid over them:
// a cache that scanned every kernel it missed made flash_attention4.py's
// analysis 14 % slower for nothing. So the key's walk notes where it
// wrote each integer constant that may be free (sites: a binary
// operation's constant beside an operand that may be never known, a let
// of a constant), and the kernel's skeleton is its key without them.
// A kernel whose skeleton another analysed kernel has is scanned, and
// looked up (and entered) by its key with the free constants written
// by type only (relaxed: the bytes spliced, no second walk); so is that
// other kernel, kept until then (a slot of cache.skel).

// siteOp reports the operators whose constant operands are sites: the
// comparisons, minima and maxima (a grid's bounds beside loaded values).
// Arithmetic constants (a stride times a loaded index) stay in the key:
// a site at every x * 4 made every key's walk a tenth slower, and put
// flash_attention4.py's cases, which differ in such constants, in
// skeletons whose scans found nothing to share.
func siteOp(op ir.BinOp) bool {
	switch op {
	case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.Min, ir.Max:
		return true
	}
	return false
}

// constSite is where a key's walk wrote an integer constant c the
// machine may never read: k.b[at:end] (c nil and at = end: noted, then
// found not to be one). Either a binary operation's
// operand (bin, side 1: A, 2: B) or a let's value (let), which
// scanConstFree may find free, or a constant in a value that matters
// nowhere (data: the statement whose value it is in, a store, a let or
// an assignment, or a TMA copy whose operands the machine does not read;
// relax asks dataregs.go which).
type constSite struct {
	at, end int32
	side    uint8
	c       *ir.IntImm
	bin     *ir.Binary
	let     *ir.Let
	data    ir.Stmt
}

// site notes the constant c, written at k.b[at:end].
func (k *keyer) site(at, end int, c *ir.IntImm, bin *ir.Binary, side uint8, let *ir.Let) {
	k.sites = append(k.sites, constSite{at: int32(at), end: int32(end), side: side, c: c, bin: bin, let: let, data: k.data})
}

// valueExpr walks e where its value matters (no site in it but
// scanConstFree's).
func (k *keyer) valueExpr(e ir.Expr) bool {
	d := k.data
	k.data = nil
	never := k.expr(e)
	k.data = d
	return never
}

func (k *keyer) valueExprs(es []ir.Expr) {
	d := k.data
	k.data = nil
	k.exprs(es)
	k.data = d
}

// callArgs walks call c's operands (generic: genericOp(c)) as
// dataregs.go's data walk does: in
// a value that matters nowhere, the operands of a pure function or of a
// generic intrinsic (the machine reads them for their accesses only)
// are such values too, any other's matter; a TMA copy's operands
// matter nowhere.
func (k *keyer) callArgs(c *ir.Call, generic bool) {
	if k.data != nil && (generic || tensorCopy(c.Op) || pureMath(c)) {
		k.exprs(c.Args)
		return
	}
	k.valueExprs(c.Args)
}

// selectCond walks e's condition: in a value that matters nowhere, a
// Select whose arms reach no memory chooses between values that matter
// nowhere, and its condition matters nowhere either (dataregs.go).
func (k *keyer) selectCond(e *ir.Select) bool {
	if k.data != nil && !reachesMemory(e.A) && !reachesMemory(e.B) {
		return k.expr(e.Cond)
	}
	return k.valueExpr(e.Cond)
}

// sortedSites returns k's sites in key order: the walk notes them so
// (an operation's constant A before B's sites; the sort is a guard).
func (k *keyer) sortedSites() []constSite {
	if !slices.IsSortedFunc(k.sites, bySite) {
		slices.SortStableFunc(k.sites, bySite) // (kernels alike, sites alike)
	}
	return k.sites
}

func bySite(a, b constSite) int { return cmp.Compare(a.at, b.at) }

// skeleton hashes k's key without its sites (maphash): kernels whose
// relaxed keys are equal have equal skeletons.
func (k *keyer) skeleton() uint64 {
	if k.skel != 0 {
		return k.skel
	}
	var h maphash.Hash
	h.SetSeed(skelSeed)
	last := 0
	for _, st := range k.sortedSites() {
		h.Write(k.b[last:st.at])
		h.WriteByte(0) // (a site)
		last = int(st.end)
	}
	h.Write(k.b[last:])
	k.skel = h.Sum64() | 1 // (0: not computed)
	return k.skel
}

var skelSeed = maphash.MakeSeed()

// relax scans fn, the kernel k walked, and when it has free constants
// (at k's sites) makes k's key the relaxed one (splice). It returns which
// of k's sites (sortedSites) are free: nil when none is.
func (k *keyer) relax(fn *ir.Func) []bool {
	if k.scanned || k.alt != "" {
		return nil
	}
	k.scanned = true
	mask := k.freeMask(fn)
	k.splice(mask)
	return mask
}

// freeMask scans fn, the kernel k walked, for which of k's sites
// (sortedSites) are free: nil when none is. Which are is a function of
// the code around them (the scans read no constant a site holds), so
// every kernel with k's skeleton has the same mask (relaxLike).
func (k *keyer) freeMask(fn *ir.Func) []bool {
	var free *constFree
	for _, st := range k.sites {
		if st.let != nil || st.bin != nil && siteOp(st.bin.Op) {
			free = scanConstFree(fn) // (a site it may find free)
			break
		}
	}
	var dregs map[*ir.Buffer]bool
	var control *ptrMap[ir.Var, bool]
	for _, st := range k.sites {
		if st.data != nil {
			dregs, _, control = scanDataRegsHanded(fn)
			break
		}
	}
	if free == nil && control == nil {
		return nil
	}
	var mask []bool
	for i, st := range k.sortedSites() {
		if k.freeSite(st, free, dregs, control) {
			if mask == nil {
				mask = make([]bool, len(k.sites))
			}
			mask[i] = true
		}
	}
	return mask
}

// splice makes k's key the relaxed one: 'R', then the full key's bytes
// with each site mask marks written by type only; alt keeps the full
// key. A constant noted twice (a site of both kinds) is spliced once,
// when either is free.
func (k *keyer) splice(mask []bool) {
	if mask == nil {
		return
	}
	sites := k.sortedSites()
	out := make([]byte, 0, len(k.b))
	out = append(out, 'R')
	last := 1 // (the full key's 'K')
	for i, st := range sites {
		if int(st.at) < last {
			continue
		}
		if !mask[i] && !(i+1 < len(sites) && sites[i+1].at == st.at && mask[i+1]) {
			continue
		}
		out = append(out, k.b[last:st.at]...)
		full := k.b
		k.b = out
		k.tag('j')
		k.dtype(st.c.Type)
		out = k.b
		k.b = full
		last = int(st.end)
	}
	out = append(out, k.b[last:]...)
	k.alt = string(k.b)
	k.b = out
}

// sameSkeleton reports whether k's key and the full key ref, whose sites
// are at spans, are the same but for the constants at their sites (what
// equal skeletons say up to a hash's collision).
func (k *keyer) sameSkeleton(ref string, spans []siteSpan) bool {
	a, as := k.b, k.sortedSites()
	if len(as) != len(spans) {
		return false
	}
	la, lb := 0, 0
	for i := range as {
		if string(a[la:as[i].at]) != ref[lb:spans[i].at] {
			return false
		}
		la, lb = int(as[i].end), int(spans[i].end)
	}
	return string(a[la:]) == ref[lb:]
}

// freeSite reports whether the machine never reads the constant of st:
// scanConstFree found it free, or the value it is in matters nowhere (a
// store's into memory or into a data register, a let's or an
// assignment's of a scalar no value that matters reads, a TMA copy's
// operand). control is nil when the scan of the registers did not know
// the kernel.
func (k *keyer) freeSite(st constSite, free *constFree, dregs map[*ir.Buffer]bool, control *ptrMap[ir.Var, bool]) bool {
	if st.c == nil {
		return false // (voided: not a site)
	}
	if free != nil {
		if st.let != nil && free.lets[st.let] || st.bin != nil && free.bins[st.bin]&st.side != 0 {
			return true
		}
	}
	if st.data == nil || control == nil {
		return false
	}
	switch d := st.data.(type) {
	case *ir.Store:
		return d.Buf.Scope != "local" || dregs[rootOf(d.Buf)]
	case *ir.Let:
		return !control.get(d.Var)
	case *ir.Assign:
		return !control.get(d.Var)
	case *ir.Evaluate:
		return true // (a TMA copy's operand)
	}
	return false
}

// skelSlot is a skeleton's slot: the first kernel analysed with it
// (kept until another comes: its code, its full key, its sites and its
// entry), then the free sites of every kernel with the skeleton (mask),
// against the full key of the kernel they were found in and where its
// sites are (ref, spans).
type skelSlot struct {
	fn    *ir.Func
	full  string
	sites []constSite
	entry *entry
	on    bool
	// mask is nil when no site is free
	mask  []bool
	ref   string
	spans []siteSpan
}

// siteSpan is where a site's constant is in a key: its bytes [at, end).
type siteSpan struct{ at, end int32 }

// spansOf returns where sites are in their key (no IR: a skeleton's
// slot keeps them after the kernel is gone).
func spansOf(sites []constSite) []siteSpan {
	out := make([]siteSpan, len(sites))
	for i, st := range sites {
		out[i] = siteSpan{st.at, st.end}
	}
	return out
}

// relaxIfSeen relaxes k, the full key of fn that the cache missed, when
// another kernel with its skeleton was analysed (the first time, that
// one's sites are scanned for which are free, and its entry entered
// under its relaxed key too; later kernels are relaxed by that mask).
func (k *keyer) relaxIfSeen(fn *ir.Func) {
	sk := k.skeleton()
	cache.Lock()
	s := cache.skel[sk]
	if s == nil {
		cache.Unlock()
		return
	}
	first := s.take()
	cache.Unlock()
	k.relaxLike(fn, s, first)
}

// relaxLike relaxes k (the kernel fn) as s says, after entering first
// (the kernel s kept, if any) under its relaxed key and noting its mask
// in s.
func (k *keyer) relaxLike(fn *ir.Func, s *skelSlot, first skelSlot) {
	if first.fn != nil {
		mask := first.enterRelaxed()
		cache.Lock()
		s.mask, s.ref, s.spans = mask, first.full, spansOf(first.sites)
		cache.Unlock()
	}
	cache.Lock()
	on, mask, ref, spans := s.ref != "", s.mask, s.ref, s.spans
	cache.Unlock()
	if !on || !k.sameSkeleton(ref, spans) {
		// the mask not found yet (the kept kernel was let go), or a
		// collision of hashes
		full := string(k.b)
		mask := k.relax(fn)
		if !on {
			cache.Lock()
			if s.ref == "" {
				s.mask, s.ref, s.spans = mask, full, spansOf(k.sites)
			}
			cache.Unlock()
		}
		return
	}
	k.scanned = true
	k.splice(mask)
}

// take turns s on and returns the kernel it kept (cache locked).
func (s *skelSlot) take() skelSlot {
	first := *s
	s.on, s.fn, s.full, s.sites, s.entry = true, nil, "", nil, nil
	if first.on {
		return skelSlot{}
	}
	return first
}

// enterRelaxed enters s's kernel's entry under its relaxed key (when it
// has one) and returns its mask.
func (s skelSlot) enterRelaxed() []bool {
	k := newKeyer()
	defer k.release()
	k.b = append(k.b[:0], s.full...)
	k.sites = append(k.sites[:0], s.sites...)
	mask := k.relax(s.fn)
	if k.alt == "" {
		return mask
	}
	cache.Lock()
	if _, ok := cache.m[string(k.b)]; !ok {
		enter(string(k.b), s.entry)
	}
	cache.Unlock()
	return mask
}

// noteSkeleton notes fn's skeleton after its figures were entered (e,
// under k's key): the first of its skeleton is kept in a slot; a later
// one enters its own entry under its relaxed key, and the kept one's.
func (k *keyer) noteSkeleton(fn *ir.Func, e *entry) {
	if len(k.sites) == 0 || k.scanned {
		return // (relaxIfSeen relaxed it: store entered both keys)
	}
	sk := k.skeleton()
	cache.Lock()
	s := cache.skel[sk]
	if s == nil {
		if len(cache.skel) >= maxSkeletons {
			clear(cache.skel)
			cache.kept = cache.kept[:0]
		}
		full := k.key // (the entry's key: store set it)
		if full == "" {
			full = string(k.b)
		}
		cache.skel[sk] = &skelSlot{fn: fn, full: full, sites: slices.Clone(k.sites), entry: e}
		cache.kept = append(cache.kept, sk)
		if len(cache.kept) > maxUnkeyed {
			// (the oldest kept kernel is let go: its code stays alive
			// until then)
			if old := cache.skel[cache.kept[0]]; old != nil && !old.on {
				old.fn, old.full, old.sites, old.entry = nil, "", nil, nil
			}
			cache.kept = cache.kept[1:]
		}
		cache.Unlock()
		return
	}
	first := s.take()
	cache.Unlock()
	if k.relaxLike(fn, s, first); k.alt != "" {
		cache.Lock()
		if _, ok := cache.m[string(k.b)]; !ok {
			enter(string(k.b), e)
		}
		cache.Unlock()
	}
}

// maxSkeletons bounds the skeletons the cache remembers: each keeps the
// full key and the sites' places of the kernel its mask was found in (a
// key as large as the cache's own keys; maxCached of them).
const maxSkeletons = maxCached
