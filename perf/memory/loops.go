package memory

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/tilels/tilels/ir"
)

// Iterations of a loop often run the same code on addresses that move by
// a fixed amount per iteration: a single thread's fallback copy nest
// A_s[v0, v1] = A[v0, v1] moves 128 bytes a row, a thread-scope add over
// a [64, 32] tile 16 bytes per vector. The counting rules do not see such
// a translation when it is a multiple of 16 bytes for shared accesses and
// of 32 for global ones (warps.go, ctas.go). loopProofOf proves it with
// the shift proof, the loop's variable moving by 1 and everything defined
// outside the body fixed: values are iteration 0's plus a constant per
// iteration; branches (or bounds guards every iteration passes,
// ranges.go), inner loop bounds and the register values that addresses
// read are the same in every iteration; no break or continue; a variable
// the body assigns is set before it is read (iterationTemps) or moves by
// nothing. When an access moves by no multiple of its quantum per
// iteration, the proof is tried over a period of 2, 4, 8 or 16
// iterations, then over multiples of the odd factors of the body's
// constant divisors (a broadcast row of 20 elements: 5, 10, 20, ...). Registers and variables the body carries without moving
// them are state (a pipeline's stage and phase): the machine finds the
// iteration at which they come back to their values and takes that many
// iterations as the unit.
//
// The machine executes two units and checks that the second is the first
// translated (the same operations, every active lane's address moved by
// its root's shift, the same alignment classes, counts and steps); it
// adds the first unit's counts for the units between instead of executing
// them and executes the rest, at least the last iteration, which leaves
// the loop's variable, the registers and the available loads as they
// would be. The first and worst instructions stay the earliest ones, as
// they would (a later unit's identical counts never replace them).
// Register elements the skipped units would have written at moving
// elements get the unknown value the compared units stored there.
//
// The state one unit leaves for the next must not change the counts:
//   - a loop nvcc does not unroll starts each iteration with no
//     available loads (cse.go), and its events are counted at once;
//   - in an unroll loop (the outermost: nothing else pending), the units
//     must touch disjoint 16-byte chunks in every lane (windows): merged
//     runs lie within one chunk and redundant loads or forwarded stores
//     meet only overlapping bytes, so no rule joins two units; each
//     unit's pending events are counted at its end. No load of the body
//     may find one available from before the loop. The skipped units'
//     available loads are rebuilt by replaying the first unit's events,
//     translated, through the redundant-load rule: at once for a root
//     whose stores nvcc forwards, lazily for a root that is only loaded
//     (ghosts, materialized when a later access of the root could meet
//     them), not at all for a root every unit clears.
//
// A single thread's copy through a swizzle moves its address by no
// constant: iteration i stores at a permutation of i's bits. In a loop
// nvcc does not unroll, oneLaneProof lets such an access's root be loose
// when it is the root's one access in the body, outside inner loops:
// the machine then checks, instead of its translation, that one lane
// makes it with a power-of-two width the alignment nvcc can prove
// divides (the same in every iteration of such a loop), and its counts
// are then the same wherever the address is (one wavefront, one request
// of one sector), nothing else in an iteration meets it, and no
// iteration meets another. TestLoopOneLane has a kernel per condition.
//
// A while loop over an index that moves by a constant runs as a serial
// for loop, its iterations compared as this one's (whiles.go).
//
// A loop inside the compared units of loops nvcc does not unroll (a
// persistent scheduler's tile loop around its K loop) compares and skips
// its own iterations there too (nestable); its events are recorded for
// every comparison it runs inside. It skips none that would leave
// register elements unknown, which the outer units' records would not
// hold. TestLoopNest compares the figures with and without, on one
// kernel per rule and on every kernel of TestLoopDedup's sources.
//
// Register slots (regs.go), a cp.async run that the units would continue
// differently, any figure becoming unknown (the comparison then starts
// again at the next iteration, once), and a step count past maxSteps make
// the loop execute whole. TestLoopDedup compares the result with
// executing every iteration on the golden programs and, with
// TILELS_BENCH_DIR, the 128-file corpus; TestLoopSkipCases has one kernel
// per rule.

// minSkipTrips is the fewest iterations a loop must have for the machine
// to try (it executes three of them, and proves the body once).
const minSkipTrips = 5

// dedupLoops enables skipping translated loop iterations; tests turn it
// off to compare.
var dedupLoops = true

// nestLoops enables comparing a loop's iterations inside another loop's
// compared unit (nestable); tests turn it off to compare.
var nestLoops = true

// loopProof is the shift proof of one loop's body.
type loopProof struct {
	ok bool
	// stateLocals and stateVars are the registers and variables the
	// body carries from one iteration to the next without moving them:
	// the machine checks that they come back to their values
	// (a pipeline's stage and phase counters) and takes that many
	// iterations as the unit compared.
	stateLocals []*ir.Buffer
	stateVars   []*ir.Var
	// period is how many iterations make the unit compared: every
	// access moves by a multiple of its quantum over period iterations
	// (a thread's f16 element loop: 16 iterations, 32 bytes)
	period int64
	shift  map[*ir.Buffer]int64 // bytes per period, per root
	// loose holds the roots of oneLaneProof and the alignment of their
	// one access: it need not move by a shift, but must be made by one
	// lane at a width the alignment is a multiple of (translated)
	loose map[*ir.Buffer]int64
	// singular is the iterations that take the other arm of a branch
	// (opaque.go): no unit skipped holds one
	singular []singular
	// upto is the longest period tried when none held (loopProofOf)
	upto int64
	// monos is the monotone branches and their eventual arms
	// (opaque.go's monoCond)
	monos map[*ir.If]singularArm
}

// maxPeriod bounds loopProof.period.
const maxPeriod = 16

// powerPeriods are the periods the loop proof tries first.
var powerPeriods = []int64{1, 2, 4, 8, maxPeriod}

// maxOddPeriods bounds the other periods oddPeriods proposes.
const maxOddPeriods = 8

// oddPeriods proposes periods with an odd factor for loop s: for each
// constant divisor of a floor division or modulo in its body with an
// odd part o > 1 (the first few), o, 2o, 4o, ... up to 8 * maxPeriod,
// each leaving at least three units of the loop's iterations (the
// machine executes two and compares them).
func oddPeriods(s *ir.For) []int64 {
	trips, ok := ir.ConstInt(s.Extent)
	if !ok {
		return nil
	}
	var odds []int64
	var out []int64
	ir.WalkStmts(s.Body, func(st ir.Stmt) {
		forExprs(st, func(e ir.Expr) {
			walkExpr(e, func(e ir.Expr) {
				b, ok := e.(*ir.Binary)
				if !ok || (b.Op != ir.FloorDiv && b.Op != ir.FloorMod) {
					return
				}
				c, ok := b.B.(*ir.IntImm)
				if !ok || c.Value <= 1 {
					return
				}
				o := c.Value >> bits.TrailingZeros64(uint64(c.Value))
				if o > 1 && !slices.Contains(odds, o) && len(odds) < 4 {
					odds = append(odds, o)
				}
			})
		})
	})
	slices.Sort(odds)
	for _, o := range odds {
		for c := o; c <= 8*maxPeriod && 3*c < trips; c *= 2 {
			if len(out) < maxOddPeriods && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// forExprs calls f on the expressions statement s holds itself (not
// those of the statements inside it).
func forExprs(s ir.Stmt, f func(ir.Expr)) {
	switch s := s.(type) {
	case *ir.Store:
		f(s.Value)
		for _, x := range s.Indices {
			f(x)
		}
	case *ir.Evaluate:
		f(s.X)
	case *ir.Let:
		f(s.Value)
	case *ir.Assign:
		f(s.Value)
	case *ir.If:
		f(s.Cond)
	case *ir.While:
		f(s.Cond)
	case *ir.For:
		f(s.Min)
		f(s.Extent)
	}
}

// loopProofOf proves (once per analysis) that s's iterations are
// translations of each other.
//
// Only periods up to maxP are tried: a unit of more iterations leaves
// fewer than the three the machine needs (two executed and compared, one
// skipped) in the trip count at hand. A proof that failed with longer
// periods left untried is made again when an execution with more trips
// could use them (lp.upto). sparse_prefill's pipeline loops of 8
// iterations tried 16-iteration units.
func (m *machine) loopProofOf(s *ir.For, maxP int64) *loopProof {
	if lp, ok := m.loopProofs[s]; ok && (lp.ok || lp.upto >= maxP) {
		return lp
	}
	lp := &loopProof{upto: math.MaxInt64}
	if m.loopProofs == nil {
		m.loopProofs = map[*ir.For]*loopProof{}
	}
	m.loopProofs[s] = lp
	stored, called := writtenLocals(s.Body)
	if c := m.whileFors[s]; c != nil && c.index != nil {
		// registers that move by a constant per iteration, stored as
		// functions of the iteration (whiles.go's induction)
		delete(stored, c.index.Buf)
		for _, in := range c.extra {
			delete(stored, in.load.Buf)
		}
	}
	written := map[*ir.Buffer]bool{}
	for b := range stored {
		written[b] = true
	}
	for b := range called {
		written[b] = true
	}
	p, period, cut := m.periodProof(s, stored, called, written, maxP)
	if p == nil && cut {
		lp.upto = maxP
	}
	if p == nil {
		if p = m.oneLaneProof(s, stored, called, written); p == nil {
			return lp
		}
		period = 1
		lp.loose = p.looseAlign
		for b := range p.loose {
			delete(p.roots, b)
		}
	}
	lp.period = period
	temps := iterationTemps(s.Body)
	for v := range p.assigned {
		if temps[v] {
			continue // set before it is read in every iteration
		}
		if m.dataVar(v) {
			// read nowhere a value matters (dataregs.go): the machine
			// keeps nothing of it (exec.go's assign), skipped or not
			continue
		}
		if p.vars.get(v) != 0 {
			return lp // a carried value that moves: wrong after a skip
		}
		lp.stateVars = append(lp.stateVars, v)
	}
	for b := range p.state {
		lp.stateLocals = append(lp.stateLocals, b)
	}
	lp.ok, lp.shift, lp.singular, lp.monos = true, p.roots, p.singular, p.monos
	return lp
}

// newLoopProof is the shift proof of s's body over period iterations.
func (m *machine) newLoopProof(s *ir.For, period int64, stored, called, written map[*ir.Buffer]bool) *shiftProof {
	var p *shiftProof
	if q := m.spareProof; q != nil {
		// a failed proof's maps, emptied (periodProof tries up to a
		// dozen periods per loop: their maps were a tenth of the
		// goldens' analysis's allocation)
		m.spareProof = nil
		q.vars.clear()
		clear(q.local)
		q.axes.clear()
		clear(q.roots)
		clear(q.state)
		clear(q.assigned)
		q.ranges.clear()
		clear(q.shared)
		q.letVals.clear()
		*q = shiftProof{m: m, l: m.launch, vars: q.vars, local: q.local, warps: 1, axes: q.axes, loop: s.Var, written: written, roots: q.roots,
			state: q.state, assigned: q.assigned, ranges: q.ranges, shared: q.shared, letVals: q.letVals}
		p = q
		p.vars.set(s.Var, period)
		p.body = s.Body
	} else {
		p = m.newShiftProof()
		p.vars.set(s.Var, period)
		p.warps, p.loop, p.written, p.roots, p.state, p.assigned, p.body = 1, s.Var, written, map[*ir.Buffer]int64{},
			map[*ir.Buffer]bool{}, map[*ir.Var]bool{}, s.Body
	}
	for b := range stored {
		if !called[b] {
			p.state[b] = true
		}
	}
	if c := m.whileFors[s]; c != nil {
		// a counted while loop's registers that move by a constant an
		// iteration do so wherever the body reads them, before their
		// store too: a read before it took them for unwritten in the
		// proof's first pass (the same in every iteration), and what it
		// computed (fp8_blockwise_gemm.py's store_iter = tile_count * 7
		// + ot) then moved by no shift
		if c.index != nil && c.reg != nil {
			p.local[c.index.Buf] = c.step * period
		}
		for _, in := range c.extra {
			p.local[in.load.Buf] = in.step * period
		}
	}
	p.setRange(s.Var, p.loopRange(s))
	return p
}

// periodProof returns the proof of s's body over the first period up to
// maxP that holds, and the period (nil: none does); cut is set when
// periods over maxP were left untried.
func (m *machine) periodProof(s *ir.For, stored, called, written map[*ir.Buffer]bool, maxP int64) (p *shiftProof, period int64, cut bool) {
	periods := powerPeriods
	odd := false
	for i := 0; ; i++ {
		for i < len(periods) && periods[i] > maxP {
			cut, i = true, i+1 // (the odd periods are not sorted)
		}
		if i == len(periods) {
			if odd {
				return nil, 0, cut
			}
			// every access moves by a multiple of its quantum over no
			// power-of-two period: a digit of a divisor with an odd
			// factor (a broadcast's row (s*4 + v) // 20 moves every 5
			// iterations; over 10, by whole 16-byte chunks)
			periods, odd, i = oddPeriods(s), true, -1
			continue
		}
		p := m.newLoopProof(s, periods[i], stored, called, written)
		if p.prove(s.Body) && len(p.warp0) == 0 {
			return p, periods[i], cut
		}
		m.spareProof = p // (nothing of a failed proof is kept)
		if !p.accessFail {
			return nil, 0, cut
		}
	}
}

// oneLaneProof is the proof of s's body, one iteration apart, in which
// an access whose address moves by no multiple of its quantum (a single
// thread's copy through a swizzle: its address is a permutation of the
// iteration's bits) marks its root loose instead of failing, when s is a
// loop nvcc does not unroll and the root has that one access in the
// body, outside any inner loop (nil: the proof fails). Such a loop's
// iterations start with no available loads and merge nothing across
// iterations, and that one access meets no other access of its root
// inside one: when it is made by one lane at an address aligned to its
// width (which the machine checks, with the alignment nvcc can prove, the
// same in every iteration of a loop it does not unroll), its counts do
// not depend on the address: one shared wavefront, one global request of
// one sector. Everything else (control flow, the other roots, registers)
// is proven as for a translation.
func (m *machine) oneLaneProof(s *ir.For, stored, called, written map[*ir.Buffer]bool) *shiftProof {
	if unrolls(s) {
		return nil
	}
	p := m.newLoopProof(s, 1, stored, called, written)
	p.loose, p.accesses, p.looseAlign = map[*ir.Buffer]bool{}, map[*ir.Buffer]int{}, map[*ir.Buffer]int64{}
	if !p.prove(s.Body) || len(p.warp0) > 0 || len(p.loose) == 0 {
		return nil
	}
	return p
}

// pointerAlign is the byte alignment nvcc can prove of pointer e (as
// machine.pointer computes it inside an unroll loop) from the code
// alone: in a loop it does not unroll, the same in every iteration. 1
// when it is not one the machine reads.
func (m *machine) pointerAlign(e ir.Expr) int64 {
	switch e := e.(type) {
	case *ir.Cast:
		return m.pointerAlign(e.X)
	case *ir.Call:
		if (e.Op == ir.OpPointerOffset || byteOffsetOp(e)) && len(e.Args) >= 2 {
			a := m.pointerAlign(e.Args[0])
			eb := int64(1)
			if e.Op == ir.OpPointerOffset {
				v := viewOf(e.Args[0])
				if v == nil {
					return 1
				}
				eb = elemBytes(v.Dtype)
			}
			return gcd(a, m.div(e.Args[1])*eb)
		}
	case *ir.BufferData:
		return baseAlign(e.Buf, m)
	case *ir.AddressOf:
		return m.accessAlign(e.Buf, e.Indices, e.FlatIndex)
	}
	return 1
}

// accessAlign is pointerAlign of &buf[idx] (a flat element index when
// flat).
func (m *machine) accessAlign(buf *ir.Buffer, idx []ir.Expr, flat bool) int64 {
	d := int64(1)
	switch {
	case flat && len(idx) == 1:
		d = m.div(idx[0])
	case !flat:
		d = m.divIndex(buf, idx)
	}
	return gcd(baseAlign(buf, m), d*elemBytes(buf.Dtype))
}

// baseAlign is the alignment of buf's start in its root's storage (as
// machine.base computes it).
func baseAlign(b *ir.Buffer, m *machine) int64 {
	align := int64(64)
	if b.Scope == "global" {
		align = 256
	}
	for root := b; root.Base != nil || root.PtrBase != nil || (root.Kind == ir.ParamBuffer && root.ElemOffset != 0); root = root.Base {
		eb := elemBytes(root.Dtype)
		if root.ElemOffsetExpr != nil {
			align = gcd(align, m.div(root.ElemOffsetExpr)*eb)
		}
		align = gcd(align, root.ElemOffset*eb)
		if root.Base == nil {
			if root.PtrBase != nil {
				align = gcd(align, root.PtrOffset)
			}
			break
		}
	}
	return align
}

// unrolls reports whether the model takes nvcc to unroll loop s (and so
// to merge and forward across its iterations).
func unrolls(s *ir.For) bool {
	switch {
	case s.Unroll == 1:
		return false // #pragma unroll 1 (disable_unroll): nvcc keeps the loop
	case s.Unroll == ir.UnrollFull:
		if _, ok := ir.ConstInt(s.Extent); ok {
			return true // #pragma unroll over a constant trip count
		}
	}
	return s.Kind == ir.Unrolled || s.Kind == ir.Vectorized || constLoop(s)
}

// writtenLocals is the register buffers code in b may write: stored,
// or named by an intrinsic's operand (an inline-asm load writes them).
func writtenLocals(b *ir.Block) (stored, called map[*ir.Buffer]bool) {
	stored, called = map[*ir.Buffer]bool{}, map[*ir.Buffer]bool{}
	calls := func(e ir.Expr) {
		walkExpr(e, func(e ir.Expr) { callLocals(e, called) })
	}
	ir.WalkStmts(b, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Store:
			if s.Buf.Scope == "local" {
				stored[s.Buf] = true
			}
			calls(s.Value)
			for _, x := range s.Indices {
				calls(x)
			}
		case *ir.Evaluate:
			calls(s.X)
		case *ir.Let:
			calls(s.Value)
		case *ir.Assign:
			calls(s.Value)
		case *ir.If:
			calls(s.Cond)
		case *ir.While:
			calls(s.Cond)
		case *ir.For:
			calls(s.Min)
			calls(s.Extent)
		}
	})
	return stored, called
}

// walkExpr calls f on e and every expression inside it.
func walkExpr(e ir.Expr, f func(ir.Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch e := e.(type) {
	case *ir.Binary:
		walkExpr(e.A, f)
		walkExpr(e.B, f)
	case *ir.Not:
		walkExpr(e.X, f)
	case *ir.Neg:
		walkExpr(e.X, f)
	case *ir.Cast:
		walkExpr(e.X, f)
	case *ir.Select:
		walkExpr(e.Cond, f)
		walkExpr(e.A, f)
		walkExpr(e.B, f)
	case *ir.Load:
		for _, x := range e.Indices {
			walkExpr(x, f)
		}
	case *ir.AddressOf:
		for _, x := range e.Indices {
			walkExpr(x, f)
		}
	case *ir.Call:
		for _, x := range e.Args {
			walkExpr(x, f)
		}
	case *ir.Region:
		for _, x := range e.Min {
			walkExpr(x, f)
		}
		for _, x := range e.Extent {
			walkExpr(x, f)
		}
	case *ir.Tuple:
		for _, x := range e.Elems {
			walkExpr(x, f)
		}
	}
}

func callLocals(e ir.Expr, out map[*ir.Buffer]bool) {
	c, ok := e.(*ir.Call)
	if !ok {
		return
	}
	for _, a := range c.Args {
		// an operand (tmp[0]) or a pointer (&tmp[0]); a register read
		// inside another buffer's index is only read
		b := bufferOf(a)
		if l, ok := a.(*ir.Load); ok {
			b = l.Buf
		}
		if b != nil && b.Scope == "local" {
			out[b] = true
		}
	}
}

// recKind marks a recorded operation on the available loads that is not
// an event.
type recKind uint8

const (
	recEvent recKind = iota
	recForget
	recForgetBarrier
	recLocal // a register store (locRec)
)

// recOp is one operation of an iteration, in order: an event (before
// the redundant-load rule), a forget, or a register store; i indexes its
// record in the recBuf's evs or locs.
type recOp struct {
	op    recKind
	i     int32
	trips int64 // machine.trips when it was recorded
}

// locRec is a recorded register store: the elements (idx0 in every
// active lane, or idxs[k]) and why the value is not known.
type locRec struct {
	buf  *ir.Buffer
	mask uint32
	idx0 int64
	k    int32 // -1: every active lane stores at idx0
	why  string
}

// recBuf holds the operations of the iterations of one unit (machines
// keep them for the next loop: a unit's events were most of the skip's
// garbage).
type recBuf struct {
	ops  []recOp
	evs  []event
	srcs []lanes // a cp.async's source addresses, by event (ev.src is scratch)
	// lens is a guarded cp.async's bytes read per lane, by event
	// (ev.srcLen is scratch; hasLen: it has them)
	lens   []lanes
	hasLen []bool
	locs   []locRec
	idxs   []lanes
}

// lenOf is event i's bytes read per lane when it is a guarded cp.async
// (all zero otherwise, with ok false).
func (b *recBuf) lenOf(i int32) (l lanes, ok bool) {
	if int(i) < len(b.hasLen) && b.hasLen[i] {
		return b.lens[i], true
	}
	return l, false
}

func (b *recBuf) reset() {
	clear(b.evs) // the events' nodes and buffers
	clear(b.locs)
	b.ops, b.evs, b.srcs, b.locs, b.idxs = b.ops[:0], b.evs[:0], b.srcs[:0], b.locs[:0], b.idxs[:0]
	b.lens, b.hasLen = b.lens[:0], b.hasLen[:0]
}

// elem is lane l's element of register store r.
func (b *recBuf) elem(r *locRec, l int) int64 {
	if r.k < 0 {
		return r.idx0
	}
	return b.idxs[r.k][l]
}

func (m *machine) getRecBuf() *recBuf {
	if n := len(m.recFree); n > 0 {
		b := m.recFree[n-1]
		m.recFree = m.recFree[:n-1]
		return b
	}
	return &recBuf{}
}

func (m *machine) putRecBuf(b *recBuf) {
	if b != nil {
		b.reset()
		m.recFree = append(m.recFree, b)
	}
}

// endSkip returns sk's records to the machine.
func (m *machine) endSkip(sk *loopSkip) {
	if m.rec == sk {
		m.rec = sk.parent
	}
	m.putRecBuf(sk.rec)
	m.putRecBuf(sk.first)
	m.putRecBuf(sk.second)
	if sk.before != nil && sk.parent == nil {
		m.snapBuf[0] = sk.before[:0]
	}
	if sk.afterFirst != nil && sk.parent == nil {
		m.snapBuf[1] = sk.afterFirst[:0]
	}
	sk.before, sk.afterFirst = nil, nil
	if sk.delta0 != nil {
		clear(sk.delta0)
		if sk.parent == nil {
			m.delta0Buf = sk.delta0[:0]
		}
		sk.delta0 = nil
	}
	sk.rec, sk.first, sk.second = nil, nil, nil
}

// recordLocal notes a register store of the iteration being compared.
func (m *machine) recordLocal(b *ir.Buffer, idx *lanes, why string) {
	for sk := m.rec; sk != nil; sk = sk.parent {
		m.recordLocalIn(sk.rec, b, idx, why)
	}
}

func (m *machine) recordLocalIn(rb *recBuf, b *ir.Buffer, idx *lanes, why string) {
	r := locRec{buf: b, mask: m.mask, k: -1, why: why}
	first := true
	for l := range 32 {
		if m.mask&(1<<l) == 0 {
			continue
		}
		if first {
			r.idx0, first = idx[l], false
		} else if idx[l] != r.idx0 {
			r.k = int32(len(rb.idxs))
			rb.idxs = append(rb.idxs, *idx)
			break
		}
	}
	rb.ops = append(rb.ops, recOp{op: recLocal, i: int32(len(rb.locs))})
	rb.locs = append(rb.locs, r)
}

// loopSkip is what the machine keeps while it executes the compared
// iterations.
type loopSkip struct {
	lp  *loopProof
	v   *ir.Var // the loop's variable
	unr bool
	// skipWork is what an iteration executed with its inner loops
	// skipping their own iterations cost (the iteration before base,
	// not recorded: whiles.go's regLoop; 0: not measured), work0 the
	// work done when the comparison started
	skipWork, work0 int64
	base            int64 // the first iteration compared
	// next is the iteration to compare from instead, after compared
	// units that held a singular branch's other arm (0: none)
	next             int64
	before           snap
	steps, memGen    int64
	unknowns, poison int
	cpRun            bool
	availAt          []*ir.Buffer // roots with available loads at entry
	rec              *recBuf      // the unit being executed
	first            *recBuf      // the first unit's
	second           *recBuf      // the second unit's
	delta0           []figDelta
	steps0, memGen0  int64
	afterFirst       snap
	stepsMid, memMid int64
	// block is the iterations compared as one unit (0 until the state
	// comes back: a multiple of the proof's period); shift the roots'
	// shifts over a block; snap the state at base
	block int64
	shift map[*ir.Buffer]int64
	snap  stateSnap
	// apartSkips is m.apart's skips when the second unit started: an
	// inner loop's skip in it adds bytes the unit's events do not hold
	apartSkips int
	// monoHit is set when an iteration compared took the other arm of a
	// monotone branch of the proof (lp.monos), or did not tell which
	monoHit bool
	// parent is the comparison this one runs inside (nil: none): the
	// loop is inside a compared unit of a loop nvcc does not unroll
	// (nestable)
	parent *loopSkip
}

// nestable reports whether a loop may compare its iterations where it is
// now: outside any comparison, or inside compared units of loops nvcc
// does not unroll only. Such a unit starts each iteration with no
// available loads and counts its events at once (no merge is pending
// across it), so an inner loop's skip adds to the unit's figures what
// its executed units would have, and the outer comparison checks those
// figures, the steps and the recorded operations of the inner loop's
// executed units, which every unit of the outer loop shares. The inner
// loop's own state (its snapshots) is its own, not the machine's
// scratch, which the outer comparison holds.
func (m *machine) nestable() bool {
	if m.rec != nil && !nestLoops {
		return false
	}
	for r := m.rec; r != nil; r = r.parent {
		if r.unr {
			return false
		}
	}
	return true
}

// skipTrace, when set (tests), hears why a loop's iterations are not
// skipped.
var skipTrace func(s *ir.For, why string)

func (m *machine) trace(s *ir.For, why string) {
	if skipTrace != nil {
		skipTrace(s, why)
	}
}

// maxBlock bounds the iterations of one compared unit.
const maxBlock = 32

// stateSnap is the values of a loop's state (loopProof.stateLocals and
// stateVars) at one point.
type stateSnap struct {
	locals []map[int64]binding
	vars   []*binding
}

func (m *machine) stateOf(lp *loopProof) stateSnap {
	var sn stateSnap
	for _, b := range lp.stateLocals {
		var c map[int64]binding
		if mem := m.local.get(b); mem != nil {
			c = make(map[int64]binding, mem.Len())
			for k, v := range mem.all() {
				c[k] = *v
			}
		}
		sn.locals = append(sn.locals, c)
	}
	for _, v := range lp.stateVars {
		var c *binding
		if b := m.vars.get(v); b != nil {
			x := *b
			c = &x
		}
		sn.vars = append(sn.vars, c)
	}
	return sn
}

// stateIs reports whether the loop's state has the values of sn.
func (m *machine) stateIs(lp *loopProof, sn *stateSnap) bool {
	for i, b := range lp.stateLocals {
		mem, c := m.local.get(b), sn.locals[i]
		if mem.Len() != len(c) {
			return false
		}
		for k, v := range mem.all() {
			w, ok := c[k]
			if !ok || v.why != w.why || v.v != w.v {
				return false
			}
		}
	}
	for i, v := range lp.stateVars {
		b, c := m.vars.get(v), sn.vars[i]
		if (b == nil) != (c == nil) || (b != nil && (b.why != c.why || b.v != c.v)) {
			return false
		}
	}
	return true
}

// record notes an operation of the iteration being compared.
func (m *machine) record(op recKind, e *event) {
	for sk := m.rec; sk != nil; sk = sk.parent {
		m.recordIn(sk.rec, op, e)
	}
}

func (m *machine) recordIn(rb *recBuf, op recKind, e *event) {
	r := recOp{op: op, i: -1, trips: max(m.trips, 1)}
	if e != nil {
		r.i = int32(len(rb.evs))
		rb.evs = append(rb.evs, *e)
		ev := &rb.evs[r.i]
		ev.src = nil
		if e.src != nil {
			for len(rb.srcs) < len(rb.evs) {
				rb.srcs = append(rb.srcs, lanes{})
			}
			rb.srcs[r.i] = *e.src
		}
		ev.srcLen = nil
		if e.srcLen != nil {
			for len(rb.lens) < len(rb.evs) {
				rb.lens = append(rb.lens, lanes{})
				rb.hasLen = append(rb.hasLen, false)
			}
			rb.lens[r.i], rb.hasLen[r.i] = *e.srcLen, true
		}
	}
	rb.ops = append(rb.ops, r)
}

// startSkip returns the skip state of loop s entered with n iterations
// on every active lane (nil when it cannot skip).
func (m *machine) startSkip(s *ir.For, n, base int64, unr bool, availAt []*ir.Buffer) *loopSkip {
	if !dedupLoops || n-base < minSkipTrips || !m.nestable() || len(m.regs) > 0 || m.predOff {
		return nil
	}
	lp := m.loopProofOf(s, (n-base-1)/3)
	if lp.ok && n-base < 3*lp.period+1 {
		return nil // no whole period left to skip
	}
	if !lp.ok {
		m.trace(s, "the proof fails")
		return nil
	}
	if lp.loose != nil && (unr || m.apart != nil) {
		return nil // (oneLaneProof: not for an unroll loop; no hull moves by a shift)
	}
	if base == 0 && len(lp.stateLocals)+len(lp.stateVars) > 0 {
		// the first iteration often sets the state up (a pipeline's
		// accumulate flag): compare from the second on
		m.stateLater = true
		return nil
	}
	if unr && len(m.pending) > 0 {
		return nil // the earlier iterations' events would join the count
	}
	var buf snap // (the machine's scratch, unless an outer comparison holds it)
	if m.rec == nil {
		buf = m.snapBuf[0]
	}
	sk := &loopSkip{lp: lp, v: s.Var, unr: unr, base: base, skipWork: m.iterWork, work0: m.work, snap: m.stateOf(lp), before: m.snapshotInto(buf), steps: m.steps, memGen: m.memGen, unknowns: m.unknowns,
		poison: len(m.poison), cpRun: m.cpRun, parent: m.rec}
	if unr && availAt != nil {
		sk.availAt = availAt // the loop's entry (a second start)
	} else if unr {
		sk.availAt = []*ir.Buffer{} // (not nil: computed)
		for _, bs := range m.availUsed {
			if len(bs.ents) > 0 {
				sk.availAt = append(sk.availAt, bs.buf)
			}
		}
		for b := range m.ghosts {
			sk.availAt = append(sk.availAt, b)
		}
	}
	sk.rec = m.getRecBuf()
	m.rec = sk
	return sk
}

// clean reports whether the iteration just executed left nothing that
// would make the next one count differently.
func (m *machine) clean(sk *loopSkip, fr *loopFrame) bool {
	return !m.over && fr.why == "" && fr.broken == 0 && m.unknowns == sk.unknowns && len(m.poison) == sk.poison &&
		len(m.regs) == 0 && (!sk.unr || m.cpRun == sk.cpRun)
}

// afterIteration is called after iteration it (sk.base or the next) of a
// loop being compared; it reports how many iterations to skip (0: none;
// m.rec is nil when the comparison ended). retry is set when the first
// iteration compared made a figure unknown and nothing else kept the
// next one from being compared instead (a call whose addresses are not
// known stays so in every iteration, and reports it once).
func (m *machine) afterIteration(sk *loopSkip, it, n int64, fr *loopFrame) (skip int64, retry bool) {
	skip, retry = m.afterIter(sk, it, n, fr)
	if m.rec != sk {
		m.endSkip(sk) // the comparison ended
	}
	return skip, retry
}

func (m *machine) afterIter(sk *loopSkip, it, n int64, fr *loopFrame) (skip int64, retry bool) {
	per := sk.lp.period
	stateless := len(sk.lp.stateLocals)+len(sk.lp.stateVars) == 0
	if !m.clean(sk, fr) {
		m.rec = sk.parent
		m.trace(nil, "not clean")
		// in an unroll loop, only a whole unit may be counted apart
		retry = sk.block == 0 && m.unknowns != sk.unknowns && (!sk.unr || (it == sk.base && per == 1 && stateless))
		sk.unknowns = m.unknowns
		if !retry || !m.clean(sk, fr) {
			return 0, false
		}
		if sk.unr {
			// the next comparison starts with nothing pending
			sk.block, sk.shift = 1, sk.lp.shift
			if !m.windows(sk, n) {
				return 0, false
			}
			m.flush()
		}
		return 0, true
	}
	if (it-sk.base+1)%per != 0 {
		return 0, false // inside a period
	}
	if sk.block == 0 {
		// what recording the iterations still to compare would cost, at
		// least (their inner loops skip nothing), against executing the
		// rest with their inner loops skipping (whiles.go's regLoop):
		// with the state back after r iterations, another r; with it
		// not back yet, the block is longer, two more at least
		back := m.stateIs(sk.lp, &sk.snap)
		costly := false
		if sk.skipWork > 0 {
			r, rec := it-sk.base+1, m.work-sk.work0
			more, blocks := rec, r
			if !back {
				more, blocks = rec/r*(r+2), r+1
			}
			costly = more > (n-it-1)*sk.skipWork || n-sk.base < 3*blocks+1
		}
		if !back {
			if it-sk.base+1 >= maxBlock || costly {
				m.trace(nil, "the state does not come back")
				m.rec = sk.parent
			}
			return 0, false // the state has not come back yet
		}
		if costly {
			m.trace(nil, "the comparison costs more")
			m.rec = sk.parent
			return 0, false
		}
		sk.block = it - sk.base + 1
		if n-sk.base < 3*sk.block+1 {
			m.rec = sk.parent
			return 0, false
		}
		sk.shift = sk.lp.shift
		if f := sk.block / per; f > 1 {
			sk.shift = make(map[*ir.Buffer]int64, len(sk.lp.shift))
			for b, sh := range sk.lp.shift {
				sk.shift[b] = sh * f
			}
		}
		if sk.unr {
			if !m.windows(sk, n) {
				m.trace(nil, "windows")
				m.rec = sk.parent
				return 0, false
			}
			m.flush() // no run joins two units (windows)
		}
		sk.first, sk.rec = sk.rec, m.getRecBuf()
		if m.apart != nil {
			sk.apartSkips = m.apart.skips
		}
		var d0 []figDelta
		var af snap
		if sk.parent == nil {
			d0, af = m.delta0Buf, m.snapBuf[1]
		}
		sk.delta0 = m.sinceInto(d0, sk.before)
		sk.steps0, sk.memGen0 = m.steps-sk.steps, m.memGen-sk.memGen
		sk.afterFirst, sk.stepsMid, sk.memMid = m.snapshotInto(af), m.steps, m.memGen
		return 0, false
	}
	if it != sk.base+2*sk.block-1 {
		return 0, false
	}
	m.rec = sk.parent
	sk.second, sk.rec = sk.rec, nil
	if sk.unr {
		m.flush()
	}
	// units 2 .. k+1 after base; at least one iteration is left to
	// execute, the last
	k := (n - (sk.base + 2*sk.block) - 1) / sk.block
	if k > 0 && sk.monoHit {
		// the units compared hold iterations before a monotone branch
		// takes its eventual arm: compare those after them
		m.trace(nil, "a monotone branch's other arm")
		if sk.unr {
			return 0, false
		}
		sk.next = it + 1
		return 0, true
	}
	if k > 0 && len(sk.lp.singular) > 0 {
		var compared bool
		var next int64
		k, compared, next = m.singularBound(sk, sk.v, it, k) // opaque.go
		if compared {
			// compare the units after the iterations that branch
			// (forLoop: a few times)
			if next == math.MaxInt64 || sk.unr {
				return 0, false
			}
			sk.next = max(next, it+1)
			return 0, true
		}
	}
	if !m.stateIs(sk.lp, &sk.snap) || m.steps-sk.stepsMid != sk.steps0 || m.memGen-sk.memMid != sk.memGen0 ||
		!m.sameSince(sk.delta0, sk.afterFirst) || !m.translated(sk, 1) {
		m.trace(nil, "the second unit differs")
		return 0, false
	}
	if k <= 0 || m.steps+sk.steps0*k > maxSteps {
		return 0, false
	}
	if sk.parent != nil && unknownLocals(sk.first) {
		// the skipped units would leave register elements unknown
		// (skippedLocals) that the outer units' records do not hold:
		// executed, the outer comparison may still skip
		m.trace(nil, "unknown registers inside a compared unit")
		return 0, false
	}
	for _, d := range sk.delta0 {
		d.f.addCountsTimes(&d.c, k)
	}
	if m.apart != nil {
		// the skipped units' bytes: the second unit's moved, or every
		// view stretched when an inner loop skipped in it
		m.apart.skipped(sk.shift, k, sk.second.evs, m.apart.skips != sk.apartSkips)
	}
	m.steps += sk.steps0 * k
	m.memGen += sk.memGen0 * k
	m.skippedLocals(sk, k)
	if sk.unr {
		m.replay(sk, 2, k+1)
	}
	return k * sk.block, false
}

// windows checks, for an unroll loop, that the units touch disjoint
// bytes: in each lane, no 16-byte-aligned chunk of a root that the first
// unit's loads and shared stores touch is touched again by another unit
// of the loop (the chunks move by the root's shift, a multiple of 16
// bytes, per unit). Merged runs lie within one such chunk, and redundant
// loads and forwarded stores meet only overlapping bytes: no rule then
// joins two units. No root the unit loads may have loads available from
// before the loop.
func (m *machine) windows(sk *loopSkip, n int64) bool {
	// (root, lane, chunk) of every access, sorted: per root and lane, two
	// chunks d*k apart (0 < k <= units, d the shift in chunks) meet
	// across units; in one residue class mod d, sorted, none may lie
	// within d*units of the next
	if ok, done := m.windowKeys(sk, n); done {
		return ok
	}
	return m.windowsSorted(sk, n)
}

// windowEvents calls f on each load and shared store of the unit sk
// recorded, with d its root's shift in 16-byte chunks; it reports false
// when windows must: a load of a root with loads available at entry, or
// a root that moves by no whole chunk (f's false stops it too).
func windowEvents(sk *loopSkip, f func(e *event, d int64) bool) bool {
	for i := range sk.rec.ops {
		r := &sk.rec.ops[i]
		if r.op != recEvent {
			continue
		}
		e := &sk.rec.evs[r.i]
		switch e.k {
		case sharedLoad, globalLoad:
			if slices.Contains(sk.availAt, e.buf) {
				return false
			}
		case sharedStore:
		default:
			continue
		}
		sh, ok := sk.shift[e.buf]
		if !ok || sh == 0 || sh%16 != 0 {
			return false
		}
		if !f(e, abs(sh/16)) {
			return false
		}
	}
	return true
}

// windowsSorted is windows sorting the chunks themselves.
func (m *machine) windowsSorted(sk *loopSkip, n int64) bool {
	cs := m.chunks[:0]
	roots := m.chunkRoots[:0] // a root's index orders the chunks
	ok := windowEvents(sk, func(e *event, d int64) bool {
		ri := slices.Index(roots, e.buf)
		if ri < 0 {
			ri = len(roots)
			roots = append(roots, e.buf)
		}
		for l := range 32 {
			if e.mask&(1<<l) == 0 {
				continue
			}
			for c := floorDiv(e.addr[l], 16); c <= floorDiv(e.addr[l]+e.width-1, 16); c++ {
				cs = append(cs, chunk{int32(ri), int8(l), floorMod(c, d), c, d})
			}
		}
		return true
	})
	if !ok {
		clear(roots)
		m.chunks, m.chunkRoots = cs[:0], roots[:0]
		return false
	}
	m.chunks = cs
	clear(roots)
	m.chunkRoots = roots[:0]
	if len(cs) < 2 {
		return true
	}
	slices.SortFunc(cs, func(x, y chunk) int {
		if x.root != y.root {
			return cmp.Compare(x.root, y.root)
		}
		if x.lane != y.lane {
			return cmp.Compare(x.lane, y.lane)
		}
		if x.res != y.res {
			return cmp.Compare(x.res, y.res)
		}
		return cmp.Compare(x.c, y.c)
	})
	units := n/sk.block + 1
	for i := 1; i < len(cs); i++ {
		a, b := &cs[i-1], &cs[i]
		if a.root == b.root && a.lane == b.lane && a.res == b.res && a.c != b.c && b.c-a.c <= a.d*units {
			return false
		}
	}
	return true
}

// windowKeys is windows with each (root, lane, residue, chunk) packed
// in one integer, sorted as integers (the comparison function's sort was
// two fifths of a thread-scope add's analysis): done is false when one
// does not fit (more than 63 roots, a chunk beyond 2^33, a residue beyond
// 2^20), and windows sorts the chunks themselves. When every access has
// one address in all its lanes and the same lanes (a thread-scope op:
// every thread reads the whole tile), the lanes' chunks are the same and
// one lane stands for all.
func (m *machine) windowKeys(sk *loopSkip, n int64) (ok, done bool) {
	const (
		cBits   = 33
		resBits = 20
		laneOff = cBits + resBits
		rootOff = laneOff + 5
	)
	lanes, mixed := uint32(0), false
	for i := range sk.rec.ops {
		r := &sk.rec.ops[i]
		if r.op != recEvent {
			continue
		}
		e := &sk.rec.evs[r.i]
		if e.k != sharedLoad && e.k != globalLoad && e.k != sharedStore {
			continue
		}
		first := bits.TrailingZeros32(e.mask)
		if lanes == 0 {
			lanes = e.mask
		}
		if e.mask != lanes || first == 32 {
			mixed = true
			break
		}
		for l := first + 1; l < 32 && !mixed; l++ {
			mixed = e.mask&(1<<l) != 0 && e.addr[l] != e.addr[first]
		}
		if mixed {
			break
		}
	}
	if mixed || lanes == 0 {
		lanes = 1<<32 - 1
	} else {
		lanes = 1 << bits.TrailingZeros32(lanes)
	}
	ks := m.chunkKeys[:0]
	roots := m.chunkRoots[:0]
	ds := m.chunkDs[:0]
	defer func() {
		m.chunkKeys, m.chunkDs = ks[:0], ds[:0]
		clear(roots)
		m.chunkRoots = roots[:0]
	}()
	fits := true
	ok = windowEvents(sk, func(e *event, d int64) bool {
		ri := slices.Index(roots, e.buf)
		if ri < 0 {
			ri = len(roots)
			roots, ds = append(roots, e.buf), append(ds, d)
		}
		if ri >= 1<<(64-rootOff) || d >= 1<<resBits {
			fits = false
			return false
		}
		for l := range 32 {
			if e.mask&lanes&(1<<l) == 0 {
				continue
			}
			for c := floorDiv(e.addr[l], 16); c <= floorDiv(e.addr[l]+e.width-1, 16); c++ {
				if c < 0 || c >= 1<<cBits {
					fits = false
					return false
				}
				ks = append(ks, uint64(ri)<<rootOff|uint64(l)<<laneOff|uint64(c%d)<<cBits|uint64(c))
			}
		}
		return true
	})
	if !fits {
		return false, false
	}
	if !ok {
		return false, true
	}
	if len(ks) < 2 {
		return true, true
	}
	slices.Sort(ks)
	units := n/sk.block + 1
	for i := 1; i < len(ks); i++ {
		a, b := ks[i-1], ks[i]
		if a>>cBits != b>>cBits || a == b {
			continue // another root, lane or residue; or the same chunk
		}
		d := ds[a>>rootOff]
		if int64(b&(1<<cBits-1))-int64(a&(1<<cBits-1)) <= d*units {
			return false, true
		}
	}
	return true, true
}

// chunk is a 16-byte chunk c of the root numbered root that lane
// touches; res is c mod d, d the root's shift in chunks (windows).
type chunk struct {
	root   int32
	lane   int8
	res, c int64
	d      int64
}

// translated reports whether the iteration just recorded is iteration
// 0's moved by k iterations: the same operations, every address moved by
// its root's shift, alignments the same as far as merging reads them.
func (m *machine) translated(sk *loopSkip, k int64) bool {
	a, b := sk.first, sk.second
	if len(a.ops) != len(b.ops) {
		return false
	}
	for i := range a.ops {
		x, y := &a.ops[i], &b.ops[i]
		if x.op != y.op {
			return false
		}
		switch x.op {
		case recLocal:
			// the same elements, or elements that move with values
			// unknown for the same reason (written again after the skip)
			lx, ly := &a.locs[x.i], &b.locs[y.i]
			if lx.buf != ly.buf || lx.mask != ly.mask || lx.why != ly.why {
				return false
			}
			if lx.why == "" {
				for l := range 32 {
					if lx.mask&(1<<l) != 0 && a.elem(lx, l) != b.elem(ly, l) {
						return false
					}
				}
			}
			continue
		case recEvent:
		default:
			continue
		}
		ex, ey := &a.evs[x.i], &b.evs[y.i]
		if ex.k != ey.k || ex.mask != ey.mask || ex.width != ey.width || ex.buf != ey.buf || ex.node != ey.node ||
			ex.bytes != ey.bytes || ex.run != ey.run || min(tz(ex.align), 4) != min(tz(ey.align), 4) {
			return false
		}
		if ex.buf == nil {
			continue // no addresses (a TMA copy: its bytes)
		}
		if al, ok := sk.lp.loose[ex.buf]; ok {
			if !oneLaneAligned(ex, al) {
				return false
			}
			continue
		}
		sh, ok := sk.shift[ex.buf]
		if !ok && scopeOf(ex.buf) != "" {
			return false
		}
		d := sh * k
		var sd int64
		for l := range 32 {
			if ex.mask&(1<<l) == 0 {
				continue
			}
			if ey.addr[l] != ex.addr[l]+d {
				return false
			}
			if ex.k == cpAsync {
				la, oka := a.lenOf(x.i)
				lb, okb := b.lenOf(y.i)
				if oka != okb || la != lb || ex.dup != ey.dup {
					return false // (guarded: the same bytes read in every lane)
				}
				xs, ys := &a.srcs[x.i], &b.srcs[y.i]
				if l == firstLane(ex.mask) {
					sd = ys[l] - xs[l]
				}
				if ys[l]-xs[l] != sd || sd%32 != 0 {
					return false
				}
			}
		}
	}
	return true
}

// oneLaneAligned reports whether event e of a loose root (oneLaneProof),
// whose address is a multiple of align bytes in every iteration, counts
// the same wherever its address is: a shared or global load or store by
// one lane of a power-of-two width of at most 16 bytes that divides
// align (one wavefront; one request of one sector; never misaligned).
func oneLaneAligned(e *event, align int64) bool {
	switch e.k {
	case sharedLoad, sharedStore, globalLoad, globalStore:
	default:
		return false
	}
	w := e.width
	return bits.OnesCount32(e.mask) == 1 && w > 0 && w <= 16 && w&(w-1) == 0 && tz(align) >= bits.TrailingZeros64(uint64(w))
}

// replay leaves the available loads as the skipped iterations from..to
// (counted from the base iteration) would have, before iteration n-1
// runs. Per root: one that every iteration clears (a store that drops
// its loads, a forget) is cleared again by iteration n-1, so nothing of
// the skipped iterations is left; one that only loads gets a ghost, the
// base iteration's loads that replaying would add, materialized when a
// later access of the root could meet them and dropped by whatever
// clears the root (iteration n-1's own loads meet none: its window is
// another); a root whose stores nvcc forwards is replayed at once.
func (m *machine) replay(sk *loopSkip, from, to int64) {
	type rootOps struct {
		b              *ir.Buffer
		cleared, eager bool
		evs            []int32 // indexes in sk.first.evs
	}
	var small [4]rootOps
	roots := small[:0]
	of := func(b *ir.Buffer) *rootOps {
		for i := range roots {
			if roots[i].b == b {
				return &roots[i]
			}
		}
		roots = append(roots, rootOps{b: b})
		return &roots[len(roots)-1]
	}
	writable := false
	for i := range sk.first.ops {
		r := &sk.first.ops[i]
		switch r.op {
		case recForget:
			return
		case recForgetBarrier:
			writable = true
			continue
		case recLocal:
			continue
		}
		e := &sk.first.evs[r.i]
		switch e.k {
		case tma:
			return
		case globalStore, cpAsync, stmatrix:
			of(e.buf).cleared = true
			continue
		case sharedStore:
			if r.trips > maxForwardTrips {
				of(e.buf).cleared = true
				continue
			}
			of(e.buf).eager = true
		case sharedLoad, globalLoad:
		default:
			continue
		}
		ro := of(e.buf)
		ro.evs = append(ro.evs, r.i)
	}
	for i := range roots {
		ro := &roots[i]
		if ro.cleared || len(ro.evs) == 0 || (writable && !m.readOnlySet()[ro.b]) {
			continue
		}
		if ro.eager {
			// at once, from the records (nothing outlives the loop)
			sh := sk.shift[ro.b]
			for k := from; k <= to; k++ {
				for _, j := range ro.evs {
					e := sk.first.evs[j]
					for l := range 32 {
						e.addr[l] += sh * k
					}
					m.redundant(&e)
				}
			}
			continue
		}
		evs := make([]event, len(ro.evs))
		for j, k := range ro.evs {
			evs[j] = sk.first.evs[k]
		}
		g := ghost{owner: sk, ops: evs, shift: sk.shift[ro.b], from: from, to: to}
		if m.ghosts == nil {
			m.ghosts = map[*ir.Buffer][]ghost{}
		}
		m.ghosts[ro.b] = append(m.ghosts[ro.b], g)
	}
}

// ghost is the loads of one root that skipped iterations left available
// (replay).
type ghost struct {
	owner    *loopSkip
	ops      []event
	shift    int64
	from, to int64
}

// materialize adds g's loads to the available loads.
func (m *machine) materialize(g *ghost) {
	for k := g.from; k <= g.to; k++ {
		d := g.shift * k
		for i := range g.ops {
			e := g.ops[i]
			for l := range 32 {
				e.addr[l] += d
			}
			m.redundant(&e)
		}
	}
}

// ghostTouch materializes or drops the ghosts of e's root before the
// redundant-load rule handles e.
func (m *machine) ghostTouch(e *event) {
	gs, ok := m.ghosts[e.buf]
	if !ok {
		return
	}
	switch e.k {
	case globalStore, cpAsync, stmatrix:
		delete(m.ghosts, e.buf)
	case globalLoad, sharedLoad, sharedStore:
		keep := gs[:0]
		var out []ghost
		for _, g := range gs {
			if g.owner == m.hold && e.k != sharedStore {
				keep = append(keep, g) // the loop's own last iteration
			} else {
				out = append(out, g)
			}
		}
		if len(keep) == 0 {
			delete(m.ghosts, e.buf)
		} else {
			m.ghosts[e.buf] = keep
		}
		for i := range out {
			m.materialize(&out[i])
		}
	}
}

// materializeAll materializes every ghost of root b.
func (m *machine) materializeAll(b *ir.Buffer) {
	gs, ok := m.ghosts[b]
	if !ok {
		return
	}
	delete(m.ghosts, b)
	for i := range gs {
		m.materialize(&gs[i])
	}
}

// sameSince reports whether the figures counted d since before, no
// more and no less.
func (m *machine) sameSince(d []figDelta, before snap) bool {
	m.deltaBuf = m.sinceInto(m.deltaBuf, before)
	b := m.deltaBuf
	if len(d) != len(b) {
		return false
	}
	for i := range d {
		if d[i] != b[i] {
			return false
		}
	}
	return true
}

// addCountsTimes adds n times c.
func (f *Figures) addCountsTimes(c *counts, n int64) {
	var s counts
	for i := range c.sh {
		x := c.sh[i]
		s.sh[i] = Shared{x.Instructions * n, x.Wavefronts * n, x.Ideal * n, x.Conflicts * n}
	}
	for i := range c.gl {
		x := c.gl[i]
		s.gl[i] = Global{x.Requests * n, x.Sectors * n, x.IdealSectors * n}
	}
	for i := range c.as {
		x := c.as[i]
		s.as[i] = Async{x.Instructions * n, x.Bytes * n}
	}
	f.addCounts(&s)
}

// skippedLocals writes what the skipped periods 2..k+1 would have into
// the register elements that move from one period to the next: their
// values are unknown, for the reason the compared periods gave.
func (m *machine) skippedLocals(sk *loopSkip, k int64) {
	a, b := sk.first, sk.second
	for i := range a.ops {
		x := &a.ops[i]
		if x.op != recLocal {
			continue
		}
		lx, ly := &a.locs[x.i], &b.locs[b.ops[i].i]
		if lx.why == "" {
			continue // the same elements (translated checked it)
		}
		mem := m.local.get(lx.buf)
		if mem == nil {
			mem = &regElems{}
			m.local.set(lx.buf, mem)
		}
		// the lanes' elements: the same for every lane of a register
		// index, which each lane's progression marked again
		var seen [32][2]int64
		ns := 0
		for l := range 32 {
			if lx.mask&(1<<l) == 0 {
				continue
			}
			e0, e1 := a.elem(lx, l), b.elem(ly, l)
			if e0 == e1 || slices.Contains(seen[:ns], [2]int64{e0, e1}) {
				continue
			}
			seen[ns] = [2]int64{e0, e1}
			ns++
			for j := int64(2); j <= k+1; j++ {
				el := e0 + j*(e1-e0)
				bd := mem.get(el)
				if bd == nil {
					bd = m.newBinding()
					bd.v = bcast(unset)
					mem.set(el, bd)
				}
				bd.why = lx.why
			}
		}
	}
}

// unknownLocals reports whether a unit's records store a register
// element of a value not known (skippedLocals marks the skipped units').
func unknownLocals(b *recBuf) bool {
	for i := range b.locs {
		if b.locs[i].why != "" {
			return true
		}
	}
	return false
}

// iterationTemps is the variables every iteration of body assigns before
// anything reads them (an assignment at the body's top level, no read
// before it): nothing of them carries from one iteration to the next,
// so they need not come back (p_peer_offset = exchange_i * 4). Later
// assignments inside the body's conditionals do not change that
// (flash_attention4.py's softmax sets row_max_new = tile_max[0], then
// row_max_new = row_max_old under a branch): the iteration's first
// assignment always runs, and the machine executes the last iteration,
// which leaves the value the loop ends with.
func iterationTemps(body *ir.Block) map[*ir.Var]bool {
	temps := map[*ir.Var]bool{}
	read := map[*ir.Var]bool{}
	reads := func(st ir.Stmt) {
		stmtExprs(st, func(e ir.Expr) {
			walkExpr(e, func(x ir.Expr) {
				if v, ok := x.(*ir.Var); ok {
					read[v] = true
				}
			})
		})
	}
	inner := func(b *ir.Block) {
		ir.WalkStmts(b, func(st ir.Stmt) { reads(st) })
	}
	var top func(b *ir.Block)
	top = func(b *ir.Block) {
		if b == nil {
			return
		}
		for _, st := range b.Stmts {
			reads(st)
			switch st := st.(type) {
			case *ir.Block:
				top(st)
			case *ir.Lowered:
				top(st.Body)
			case *ir.Assign:
				if !read[st.Var] {
					temps[st.Var] = true
				}
			case *ir.If:
				inner(st.Then)
				inner(st.Else)
			case *ir.For:
				inner(st.Body)
			case *ir.While:
				inner(st.Body)
			}
		}
	}
	top(body)
	// a variable the body declares (a let, mutable or not, anywhere in
	// it) is a new one in every iteration: nothing reads it before its
	// let, which sets it (nvfp4_gemm.py's epilogue declares d_n_out in
	// an unrolled loop and assigns it there)
	ir.WalkStmts(body, func(st ir.Stmt) {
		if l, ok := st.(*ir.Let); ok {
			temps[l.Var] = true
		}
	})
	return temps
}

// stmtExprs calls f on the expressions of statement st itself (not of
// the statements inside it).
func stmtExprs(st ir.Stmt, f func(ir.Expr)) {
	switch st := st.(type) {
	case *ir.Let:
		f(st.Value)
	case *ir.Assign:
		f(st.Value)
	case *ir.Store:
		f(st.Value)
		for _, x := range st.Indices {
			f(x)
		}
	case *ir.Evaluate:
		f(st.X)
	case *ir.If:
		f(st.Cond)
	case *ir.For:
		f(st.Min)
		f(st.Extent)
	case *ir.While:
		f(st.Cond)
	}
}
