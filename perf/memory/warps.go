package memory

import (
	"math"
	"math/bits"
	"slices"

	"github.com/tilels/tilels/ir"
)

// Warps of one CTA often run the same code on addresses that differ by a
// fixed amount per warp (tid*4 moves 128 bytes a warp). The counting rules
// do not see such a translation: shifting every address of a shared
// access by a multiple of 4 bytes rotates the banks (the distinct words
// per bank, the groups and their merging stay), shifting a global access
// by a multiple of 32 bytes moves whole sectors. warpShifts proves,
// from the lowered code alone, that every value warp w computes is warp
// 0's plus w times a constant (its shift): control flow (conditions,
// loop bounds, selects around memory accesses) and register tables then
// do not depend on the warp, and every access moves by a shift that the
// rules ignore. Analyze then counts warp 0 once and adds its counts for
// the other warps the proof covers, instead of executing them; the worst
// and first instructions stay warp 0's, as they would (a later warp's
// identical counts never replace them). The accesses of one root must
// move by one shift (a load one warp finds available must be available
// to the others: A[tid] then A[tid % 32] is one request in warp 0 and two
// in the others); for shared memory, between two barriers at the
// kernel's top level, after which the warp's shared loads are forgotten,
// or in the body of a serial loop (loopBody), whose last segment goes on
// in the next iteration's first.
// A shared root's views (T.decl_buffer at an element offset: a tile, a
// partial sum, an mbarrier array in one dynamic allocation) may each move
// by a shift of its own in each segment; the machine then checks that
// views that move differently keep to disjoint 16-byte chunks in every
// warp of the run (apart.go).
// Bit operations move with their operand when the move is a multiple of
// the bits they touch (x >> c, x & c, x ^ y and x | y with y < 2^k): an
// XOR swizzle of 8-element chunks of 8 rows moves with its offset when
// that moves by a multiple of 512 elements. When adjacent warps are no
// translations because an access moves by no multiple of its quantum
// (warps of 4 rows in a swizzle of 8), warps 2 or 4 apart may be: the
// machine then executes one warp per residue (after warp 0 when a branch
// sets it apart; views apart per residue). Anything the proof does
// not cover (a non-linear layout over a warp-dependent index, a product
// of two warp-dependent values, a thread-dependent branch) makes every
// warp execute. A variable's shift is the join of all its
// definitions (flow-insensitive); that a lane reads a variable only where
// a definition reached it (a Let dominates its uses in lowered TIR) is
// assumed. A branch that only warp 0 can take (`if tid == 0`, warpid < 1:
// a thread-axis variable compared with a constant that no lane of warps
// 1.. matches) makes warp 1 the one executed for warps 2.. instead, and
// the code inside it needs no proof. A proof that reads a warpgroup axis
// covers the first warpgroup; each later one is proven on its own.
// Values also tell shifts where shifts alone do not: a comparison with
// one value over the threads compared moves by nothing, a Select with
// such a condition moves with its arm, and x ^ c moves with x when the
// bits c flips are the same in every value x takes (ranges.go).
// TestWarpDedup compares the result with executing every warp on every
// golden kernel and the benchmark corpus.

// noShift marks a value whose per-warp difference is not one constant.
const noShift = math.MinInt64

// unsetShift marks a variable no definition has been seen for yet.
const unsetShift = math.MinInt64 + 1

// readUnset marks a variable or register a pass of the proof read before
// any definition of it (as 0: a runtime value, the same in every warp).
// A definition that moves it by another shift makes the pass go again;
// one nothing read first does not: shifts' first pass is then the last
// (two passes were made over 3,069 of the corpus's 4,905 proofs, the
// second changing nothing).
const readUnset = math.MinInt64 + 2

// define returns the shift to keep for a definition moving by s of what
// holds old (ok: it is there), and whether the pass must go again: a
// value read before it changed.
func define(old int64, ok bool, s int64) (n int64, again bool) {
	switch {
	case !ok:
		return s, false // read by nothing yet
	case old == readUnset:
		return s, s != 0 // read as 0
	}
	n = join(old, s)
	return n, n != old
}

type shiftProof struct {
	m      *machine // for linearOf
	l      ir.Launch
	vars   *ptrMap[ir.Var, int64]
	local  map[*ir.Buffer]int64 // join of the shifts of the values stored
	shared map[*ir.Buffer]int64 // the shift of every shared access of a root
	// warps is how many warps (from warp 0) the proof covers
	warps   int64
	changed bool
	fail    bool
	// axes maps the variables a scope id binds to a thread axis ("tx",
	// "warpid") and nothing else defines ("" once anything does)
	axes *ptrMap[ir.Var, string]
	// warp0 lists the conditions that are constant in warps 1.. but may
	// not be in warp 0 (tid == 0): warp 1 then stands for the others
	warp0 []ir.Expr
	// cta is 0 for the proof across warps; d+1 for the proof across the
	// CTAs of grid dimension d (ctas.go): the CTA index of dimension d
	// moves by 1, every thread axis and the other dimensions stay.
	cta int
	// ctaPeriod is how many CTAs apart the CTAs compared are (0 or 1:
	// adjacent ones; ctas.go)
	ctaPeriod int64
	// loop is the variable of the loop whose iterations the proof
	// compares (loops.go): it moves by 1, everything defined outside the
	// loop body stays. written holds the register buffers the body
	// writes (their values may carry from one iteration to the next);
	// roots holds each memory root's byte shift per iteration (noShift
	// when its accesses move by different amounts).
	loop    *ir.Var
	written map[*ir.Buffer]bool
	roots   map[*ir.Buffer]int64
	// state holds the registers the body stores only values into that
	// move by nothing, assigned the variables it assigns (loops.go)
	state    map[*ir.Buffer]bool
	assigned map[*ir.Var]bool
	// ranges bounds the values of the variables defined so far, for
	// conditions that hold everywhere (ranges.go)
	ranges *ptrMap[ir.Var, ival]
	// global holds the shift of every global access of a root, as
	// shared does of a shared one; nested counts the loops and branches
	// around the statement being proven (0: the kernel's top level).
	global map[*ir.Buffer]int64
	nested int
	// period is how many warps apart the warps compared are (warp
	// proof; 0 or 1: adjacent ones)
	period int64
	// class is set for the proof over warps clsLo..clsHi only (a role of
	// a warp-specialised kernel): thread axes range over those warps, and
	// a branch fixed over them is followed alone. conds collects the
	// warp-dependent branch conditions; branchFail is set when the first
	// failure was one that is not constant after warp 0.
	class        bool
	clsLo, clsHi int64
	conds        []ir.Expr
	branchFail   bool
	// letVals holds each let's value (nil: defined more than once, or
	// assigned), for the conditions' values per warp (warpClasses)
	letVals   *ptrMap[ir.Var, ir.Expr]
	letBudget int
	// accessFail is set when the first failure was an access moving by
	// no multiple of its quantum (a loop proof may then compare every
	// second, fourth, ... iteration instead)
	accessFail bool
	// singular holds, for a loop proof, the iterations that take the
	// other arm of a branch the others take alike (opaque.go);
	// body is the loop's body, loopAssigned the variables it sets
	singular     []singular
	body         *ir.Block
	loopAssigned map[*ir.Var]bool
	// monos holds, for a loop proof, the monotone branches (opaque.go's
	// monoCond) and the arm the proof followed
	monos map[*ir.If]singularArm
	// passes counts shifts' passes (tests)
	passes int
	// views holds, in a proof across adjacent warps, the shifts of each
	// shared view over the kernel's segments (shiftSpan; bad: one moves
	// by no constant); split the shared roots whose accesses move by
	// several shifts between barriers, which the machine checks apart
	// (apart.go)
	views map[*ir.Buffer]shiftSpan
	split map[*ir.Buffer]bool
	// segViews holds each view's shift in the current shared segment
	// (between barriers: one per view there)
	segViews map[*ir.Buffer]int64
	// loose is set in a loop's one-lane proof (loops.go's oneLaneProof):
	// a root whose access moves by no multiple of its quantum is marked
	// in it instead of failing the proof; accesses counts the accesses
	// of every root, inner the loops around the statement being proven.
	loose    map[*ir.Buffer]bool
	accesses map[*ir.Buffer]int
	inner    int
	// oneLane holds, in a proof across warps, the global roots whose
	// accesses move by 16 bytes a warp, not a whole sector: the run
	// holds when one lane makes each of them, 16 bytes wide at an
	// address aligned to 16 (apart.go's looseOK: one request of one
	// sector wherever it is)
	oneLane map[*ir.Buffer]bool
	// looseAlign is the byte alignment nvcc can prove of a loose root's
	// access, in every iteration (pointerAlign, accessAlign)
	looseAlign map[*ir.Buffer]int64
	// segLoops counts the loops around the statement being proven that
	// a barrier inside ends the shared segments of (loopBody)
	segLoops int
}

// viewsApart reports whether the proof may split a shared root by views.
func (p *shiftProof) viewsApart() bool {
	return p.cta == 0 && p.loop == nil
}

// apart returns the shifts of the views of the split roots (nil: none),
// or ok false when a view of one moves by several.
func (p *shiftProof) apart() (views map[*ir.Buffer]shiftSpan, ok bool) {
	if len(p.split) == 0 {
		return nil, true
	}
	views = map[*ir.Buffer]shiftSpan{}
	for v, sp := range p.views {
		if !p.split[rootOf(v)] {
			continue
		}
		if sp.bad {
			return nil, false
		}
		views[v] = sp
	}
	return views, true
}

// shiftSpan is the shifts [lo, hi] a view moves by from warp to warp,
// one per shared segment (bad: one moves by no constant).
type shiftSpan struct {
	lo, hi int64
	bad    bool
}

// add returns sp with shift sh (sp zero and set false: the first).
func (sp shiftSpan) add(sh int64, first bool) shiftSpan {
	switch {
	case sh == noShift || sh == unsetShift:
		sp.bad = true
	case first:
		sp.lo, sp.hi = sh, sh
	default:
		sp.lo, sp.hi = min(sp.lo, sh), max(sp.hi, sh)
	}
	return sp
}

func join(a, b int64) int64 {
	switch {
	case a == unsetShift:
		return b
	case b == unsetShift:
		return a
	case a == b:
		return a
	}
	return noShift
}

// warpRun is warps [start, end), of which warp w >= start+period counts
// as warp start + (w - start) % period.
type warpRun struct {
	start, end, period int64
	// views holds the shifts of the views of the shared roots the proof
	// split (nil: none): the run counts as translations only when they
	// keep apart (apart.go)
	views map[*ir.Buffer]shiftSpan
	// oneLane holds the global roots whose accesses hold only when one
	// lane makes each, 16 bytes wide and aligned (shiftProof.oneLane)
	oneLane []*ir.Buffer
	// lazy marks a run not proven yet: Analyze proves it (the proof over
	// its warps, as a role's) once executing its first warp took as
	// many steps as the body has statements, which a proof walks a few
	// times (the 8 warpgroups of flashkda's kernels cost 8 ms of proofs
	// to skip 78 steps; FlashMLA's 12 roles, a fifth of the analysis)
	lazy bool
}

// proveLazy proves lazy run r (the proof over its warps) after its
// first warp executed with hulls collecting every shared view's bytes:
// false when it does not hold, or splits a shared root by views that do
// not keep apart.
func (m *machine) proveLazy(body *ir.Block, threads int64, r warpRun, hulls *apartCheck) (ok bool, views map[*ir.Buffer]shiftSpan) {
	p := m.newWarpProof(threads)
	p.class, p.clsLo, p.clsHi = true, r.start, r.end-1
	if !p.prove(body) || !hulls.oneLaneOK(p.oneLaneRoots()) {
		return false, nil
	}
	if views, _ = p.apart(); views == nil {
		return true, nil
	}
	hulls.settle(views)
	return hulls.apartIn(r.end - r.start), views
}

// oneLaneRoots lists p.oneLane's roots.
func (p *shiftProof) oneLaneRoots() []*ir.Buffer {
	var out []*ir.Buffer
	for b := range p.oneLane {
		out = append(out, b)
	}
	return out
}

// warpShifts returns the warps covered: warp w's counts equal warp
// first's for first < w < n (first is 1 when a branch such as `if tid ==
// 0` sets warp 0 apart), or, with period > 1 (first 0), warp w's equal
// warp w % period's. n <= first+1 when nothing is proven.
func (m *machine) warpShifts(body *ir.Block, threads int64) (first, n, period int64) {
	runs := m.warpRuns(body, threads)
	if len(runs) == 1 {
		return runs[0].start, runs[0].end, runs[0].period
	}
	return 0, 1, 1
}

// warpRuns returns the runs of warps that count as translations (none:
// every warp executes), every one proven.
func (m *machine) warpRuns(body *ir.Block, threads int64) []warpRun {
	var out []warpRun
	for _, r := range m.candidateRuns(body, threads) {
		if !r.lazy {
			out = append(out, r)
			continue
		}
		p := m.newWarpProof(threads)
		p.class, p.clsLo, p.clsHi = true, r.start, r.end-1
		if p.prove(body) {
			r.views, _ = p.apart()
			r.lazy = false
			out = append(out, r)
		}
	}
	return out
}

// candidateRuns is warpRuns with the runs of roles and of the later
// warpgroups left lazy (Analyze proves them when worth it).
func (m *machine) candidateRuns(body *ir.Block, threads int64) []warpRun {
	runs, from := m.firstRuns(body, threads)
	if from > 0 {
		runs = append(runs, m.warpgroupRuns(threads, from)...)
	}
	return runs
}

// firstRuns is candidateRuns without the later warpgroups' runs: from >
// 0 is the first warp of the warpgroups warpgroupRuns proposes.
func (m *machine) firstRuns(body *ir.Block, threads int64) (runs []warpRun, from int64) {
	if threads < 64 {
		return nil, 0
	}
	if m.launch.Block[2] > 1 || (m.launch.Block[1] > 1 && m.launch.Block[0] != 32) {
		return nil, 0 // (32, Y): threadIdx.y is the warp, threadIdx.x the lane
	}
	// A swizzle repeats every 8 rows of 128 bytes: warps that each copy 4
	// rows are translations of the warp 2 before (old_dialect_gemm's
	// 128-thread copies into a 3-bit swizzled tile). When warp 1 is no
	// translation of warp 0 because an access moves by no multiple of
	// its quantum, the proof is tried again with warps 2 and 4 apart.
	for period := int64(1); period < threads/32 && period <= 4; period *= 2 {
		p := m.newWarpProof(threads)
		p.period = period
		first, n := p.warpProof(body)
		if n > first+period {
			views, _ := p.apart()
			runs := []warpRun{{start: first, end: n, period: period, views: views, oneLane: p.oneLaneRoots()}}
			if period == 1 && n < threads/32 && m.launch.Block[1] <= 1 {
				from = n
			}
			return runs, from
		}
		if period == 1 && p.branchFail && m.launch.Block[1] <= 1 {
			return m.warpClasses(body, threads, p), 0
		}
		if !p.accessFail {
			break
		}
	}
	return nil, 0
}

// warpgroupRuns: a proof that reads a warpgroup axis (tid_in_wg,
// wid_in_wg, wgid) covers the first warpgroup only, whose last warp is
// no translation of the next warpgroup's first (tid_in_wg goes back to
// 0). Each later warpgroup from warp `from` on is a lazy run, proven on
// its own as a role's warps are: a kernel of two warpgroups then
// executes two warps, not five (test_unary's 256-thread kernels).
func (m *machine) warpgroupRuns(threads, from int64) []warpRun {
	var runs []warpRun
	nw := threads / 32
	for g := from; g+1 < nw; g += 4 {
		runs = append(runs, warpRun{start: g, end: min(g+4, nw), period: 1, lazy: true})
	}
	return runs
}

func (m *machine) newWarpProof(threads int64) *shiftProof {
	p := m.newShiftProof()
	p.warps = threads / 32
	return p
}

// maxClassWarps bounds the warps whose roles warpClasses tells apart,
// maxClassConds the warp-dependent conditions (a bit each).
const (
	maxClassWarps = 32
	maxClassConds = 64
)

// warpClasses handles a warp-specialised kernel: branches on the warp
// (`if warp_idx == 0:` the producer, `elif warp_idx == 1:` the MMA
// issuer, the others the epilogue) give the warps roles, and the warps of
// one role are translations of its first. The conditions' values per
// warp (interval arithmetic over that warp's thread indices) split the
// warps into runs of consecutive warps that take the same branches; the
// proof over each run's warps follows only the branches they take.
// nvfp4_gemm.py's persistent kernel ran all 12 of its warps; fp8 and
// FlashMLA kernels likewise.
func (m *machine) warpClasses(body *ir.Block, threads int64, all *shiftProof) []warpRun {
	nw := threads / 32
	conds := all.conds
	if len(conds) == 0 || len(conds) > maxClassConds || nw > maxClassWarps {
		return nil
	}
	// The branches each warp takes (valid false: its lanes differ, or
	// interval arithmetic cannot tell), from the proof over every warp:
	// its thread-axis variables and lets, over that warp's indices. Only
	// the branches a warp reaches are evaluated: a branch inside `if
	// wg_id == 0:` may test what the other warpgroup cannot tell
	// (cluster_ctarank), and those warps never test it. sig lists the
	// warp's decisions in the order it reaches them: two warps with the
	// same sig took the same branches. A condition the proof over every
	// warp did not find warp-dependent but whose value interval
	// arithmetic tells (wg_id == 0, which that proof leaves to the first
	// warpgroup) is a decision too; one it cannot tell is left to the
	// proof of each run, which follows only the branches the run's warps
	// all take.
	type takes struct {
		sig   string
		valid bool
	}
	index := make(map[ir.Expr]bool, len(conds))
	for _, c := range conds {
		index[c] = true
	}
	per := make([]takes, nw)
	q := &shiftProof{m: m, l: m.launch, class: true, axes: all.axes, ranges: all.ranges, letVals: all.letVals}
	untold := map[ir.Expr]bool{}
	var sig []byte
	var walk func(b *ir.Block) bool
	walkStmt := func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Block:
			return walk(s)
		case *ir.Lowered:
			return walk(s.Body)
		case *ir.For:
			return walk(s.Body)
		case *ir.While:
			return walk(s.Body)
		case *ir.If:
			if emptyBlock(s.Then) && emptyBlock(s.Else) && !touchesMemory(s.Cond) {
				return true // (as the proofs: a branch that runs nothing)
			}
			// (a condition the proof over every warp did not find
			// warp-dependent is evaluated with a small budget, and not
			// again once a warp could not tell it: FlashMLA's kernels
			// hold hundreds)
			q.letBudget = 256
			if !index[s.Cond] {
				if untold[s.Cond] {
					return walk(s.Then) && walk(s.Else)
				}
				q.letBudget = 8
			}
			r := q.boolRange(s.Cond, 0)
			if !r.ok || r.lo != r.hi {
				if index[s.Cond] {
					return false
				}
				untold[s.Cond] = true
				return walk(s.Then) && walk(s.Else)
			}
			sig = append(sig, byte(r.lo))
			if r.lo == 1 {
				return walk(s.Then)
			}
			return walk(s.Else)
		}
		return true
	}
	walk = func(b *ir.Block) bool {
		if b == nil {
			return true
		}
		for _, s := range b.Stmts {
			if !walkStmt(s) {
				return false
			}
		}
		return true
	}
	for w := range nw {
		q.clsLo, q.clsHi = w, w
		sig = sig[:0]
		ok := walk(body)
		per[w] = takes{string(sig), ok}
	}
	// A run is cut at warpgroup boundaries when the kernel reads a
	// warpgroup axis: the role's proof fails across one (axis), and
	// each warpgroup's part is a run of its own. (The branches that run
	// nothing, skipped above, used to cut flash_attention4.py's softmax
	// warps at each warpgroup's first warp, which tested `if warp_id ==
	// 0:` around profiling marks lowered to nothing: warps 0 and 1, 4 and
	// 5 executed; now warps 0 and 4.)
	wg := false
	for _, a := range all.axes.all() {
		wg = wg || a == "tid_in_wg" || a == "wid_in_wg" || a == "wgid"
	}
	var runs []warpRun
	for a := int64(0); a < nw; {
		b := a + 1
		for b < nw && per[a].valid && per[b] == per[a] && (!wg || b%4 != 0) {
			b++
		}
		if b-a >= 2 {
			runs = append(runs, warpRun{start: a, end: b, period: 1, lazy: true})
		}
		a = b
	}
	return runs
}

// emptyBlock reports whether b runs nothing: no statement but comments
// and lowerings to nothing (test_reduction's `if warp_id == 5:` around a
// Tx.warp.sum the reference lowers to no code).
func emptyBlock(b *ir.Block) bool {
	if b == nil {
		return true
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Comment:
		case *ir.Block:
			if !emptyBlock(s) {
				return false
			}
		case *ir.Lowered:
			if !emptyBlock(s.Body) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// warpProof runs the proof across warps (p.period apart).
func (p *shiftProof) warpProof(body *ir.Block) (first, n int64) {
	if !p.prove(body) {
		return 0, 1
	}
	if len(p.warp0) > 0 {
		for _, c := range p.warp0 {
			if _, ok := p.constAfterWarp0(c); !ok {
				return 0, 1
			}
		}
		return 1, p.warps
	}
	return 0, p.warps
}

// shifts computes the variables' shifts: a fixed point (joins only go
// up). It reports whether one was reached without a failure.
func (p *shiftProof) shifts(body *ir.Block) bool {
	for range 8 {
		p.changed = false
		p.passes++
		p.block(body, false)
		if p.fail {
			return false
		}
		if !p.changed {
			return true
		}
	}
	return false
}

// checks proves every access and branch; it reports whether all hold.
// The loop proof keeps no shift per global root: the machine compares
// the iterations it executes instead (loops.go).
func (p *shiftProof) checks(body *ir.Block) bool {
	if p.shared == nil {
		p.shared = map[*ir.Buffer]int64{}
	} else {
		clear(p.shared)
	}
	p.global = nil
	if p.loop == nil {
		p.global = map[*ir.Buffer]int64{}
	}
	p.views, p.split, p.segViews = nil, nil, nil
	if p.viewsApart() {
		p.views, p.split, p.segViews = map[*ir.Buffer]shiftSpan{}, map[*ir.Buffer]bool{}, map[*ir.Buffer]int64{}
	}
	p.block(body, true)
	if _, ok := p.apart(); !ok {
		p.fail = true
	}
	return !p.fail
}

// constAfterWarp0 reports the value condition c has for every lane of
// every warp 1..warps-1, when it is one: a comparison of a thread-axis
// variable (or index) with a constant, or a not/and/or of such.
func (p *shiftProof) constAfterWarp0(c ir.Expr) (bool, bool) {
	switch c := c.(type) {
	case *ir.Not:
		v, ok := p.constAfterWarp0(c.X)
		return !v, ok
	case *ir.Binary:
		switch c.Op {
		case ir.And, ir.Or:
			a, okA := p.constAfterWarp0(c.A)
			b, okB := p.constAfterWarp0(c.B)
			if !okA || !okB {
				return false, false
			}
			if c.Op == ir.And {
				return a && b, true
			}
			return a || b, true
		case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
		default:
			return false, false
		}
		x, k := c.A, c.B
		op := c.Op
		if _, ok := x.(*ir.IntImm); ok {
			x, k = k, x
			switch op { // k op x  <=>  x op' k
			case ir.LT:
				op = ir.GT
			case ir.LE:
				op = ir.GE
			case ir.GT:
				op = ir.LT
			case ir.GE:
				op = ir.LE
			}
		}
		kc, ok := k.(*ir.IntImm)
		if !ok {
			return false, false
		}
		axis := ""
		switch x := x.(type) {
		case *ir.Var:
			axis = p.axes.get(x)
		case *ir.ThreadIndex:
			axis = x.Axis
		}
		// the values the axis takes in warps 1..warps-1
		var lo, hi int64
		switch axis {
		case "tx":
			lo, hi = 32, 32*p.warps-1
		case "warpid":
			lo, hi = 1, p.warps-1
		case "tid_in_wg", "wid_in_wg":
			if p.warps > 4 {
				return false, false
			}
			lo, hi = 32, 32*p.warps-1
			if axis == "wid_in_wg" {
				lo, hi = 1, p.warps-1
			}
		default:
			return false, false
		}
		v := kc.Value
		switch op {
		case ir.EQ, ir.NE:
			if v >= lo && v <= hi {
				return false, false
			}
			return op == ir.NE, true
		case ir.LT: // x < v
			if hi < v {
				return true, true
			}
			if lo >= v {
				return false, true
			}
		case ir.LE:
			if hi <= v {
				return true, true
			}
			if lo > v {
				return false, true
			}
		case ir.GT:
			if lo > v {
				return true, true
			}
			if hi <= v {
				return false, true
			}
		case ir.GE:
			if lo >= v {
				return true, true
			}
			if hi < v {
				return false, true
			}
		}
	}
	return false, false
}

func (p *shiftProof) set(v *ir.Var, s int64) {
	old, ok := p.vars.lookup(v)
	n, again := define(old, ok, s)
	if n != old || !ok {
		p.vars.set(v, n)
	}
	p.changed = p.changed || again
}

func (p *shiftProof) block(b *ir.Block, check bool) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		p.stmt(s, check)
		if p.fail {
			return
		}
	}
}

// uniform requires e's value to be the same in every warp.
func (p *shiftProof) uniform(e ir.Expr, check bool) {
	if e == nil {
		return
	}
	if s := p.expr(e, check); check && s != 0 {
		p.fail = true
	}
}

func (p *shiftProof) stmt(s ir.Stmt, check bool) {
	// (counted around stmtIn, not by deferred calls: the proofs' defers
	// were a sixtieth of the analysis)
	switch s.(type) {
	case *ir.For, *ir.While:
		p.nested++
		p.inner++
		p.stmtIn(s, check)
		p.nested--
		p.inner--
	case *ir.If:
		p.nested++
		p.stmtIn(s, check)
		p.nested--
	default:
		p.stmtIn(s, check)
	}
}

// stmtIn is stmt inside the loop and branch counts.
func (p *shiftProof) stmtIn(s ir.Stmt, check bool) {
	switch s := s.(type) {
	case *ir.Block:
		p.block(s, check)
	case *ir.Lowered:
		p.block(s.Body, check)
	case *ir.TileCall, *ir.Alloc, *ir.Decl, *ir.Comment:
	case *ir.Break, *ir.Continue:
		if p.loop != nil {
			p.fail = true // lanes leave: later iterations run fewer
		}
	case *ir.ScopeID:
		for i, v := range s.Vars {
			if !check {
				p.setRange(v, p.scopeRange(s, i))
			}
			sh := int64(noShift)
			switch {
			case p.loop != nil:
				sh = 0
			case p.cta > 0:
				sh = p.ctaAxis(s.Kind, i)
			case s.Kind == ir.CTAID || s.Kind == ir.ClusterID || s.Kind == ir.CTAIDInCluster:
				sh = 0
			case s.Kind == ir.ThreadID && p.l.Block[1] > 1:
				sh = 0 // a (32, Y) block: x the lane, y the warp
				if i == 1 {
					sh = max(p.period, 1)
				}
			case s.Kind == ir.ThreadID:
				sh = 0 // y and z: 0 in a one-dimensional block
				if i == 0 {
					sh = 32 * max(p.period, 1)
				}
			default:
				sh = p.axis(thAxis[s.Kind])
			}
			p.set(v, sh)
			axis := ""
			switch {
			case s.Kind == ir.ThreadID && p.l.Block[1] > 1:
				if i == 1 {
					axis = "warpid"
				}
			case s.Kind == ir.ThreadID && i == 0:
				axis = "tx"
			case s.Kind != ir.ThreadID:
				axis = thAxis[s.Kind]
			}
			if old, seen := p.axes.lookup(v); !seen || old == axis {
				p.axes.set(v, axis)
			} else {
				p.axes.set(v, "")
			}
		}
	case *ir.Let:
		if !check {
			p.setRange(s.Var, p.rangeOf(s.Value, 0))
			if p.letVals == nil {
				p.letVals = p.newLets()
			}
			if old, ok := p.letVals.lookup(s.Var); !ok {
				p.letVals.set(s.Var, s.Value)
			} else if old != s.Value {
				p.letVals.set(s.Var, nil)
			}
		}
		p.axes.set(s.Var, "")
		p.set(s.Var, p.expr(s.Value, check))
	case *ir.Assign:
		p.setRange(s.Var, ival{})
		if p.letVals == nil {
			p.letVals = p.newLets()
		}
		p.letVals.set(s.Var, nil)
		if p.loop != nil {
			// a value carried from one iteration to the next: state,
			// when it moves by nothing (loops.go checks it periodic)
			p.assigned[s.Var] = true
		}
		p.axes.set(s.Var, "")
		p.set(s.Var, p.expr(s.Value, check))
	case *ir.Store:
		v := p.expr(s.Value, check)
		if s.Buf.Scope == "local" {
			for _, x := range s.Indices {
				if p.loop != nil {
					// a register the body writes is data to the body
					// (written); the machine compares what the
					// iterations store (loops.go)
					if p.expr(x, check) != 0 && p.state[s.Buf] {
						delete(p.state, s.Buf)
						p.changed = true
					}
					continue
				}
				p.uniform(x, check)
			}
			if p.loop != nil && v != 0 && p.state[s.Buf] {
				delete(p.state, s.Buf) // it moves: not state
				p.changed = true
			}
			old, ok := p.local[s.Buf]
			n, again := define(old, ok, v)
			if n != old || !ok {
				p.local[s.Buf] = n
			}
			p.changed = p.changed || again
			return
		}
		if scopeOf(s.Buf) == "" {
			for _, x := range s.Indices {
				p.expr(x, check)
			}
			return
		}
		if check {
			p.access(s.Buf, s.Indices, false)
		}
	case *ir.Evaluate:
		p.expr(s.X, check)
		if g, _ := cpGuardOperand(s.X); g != nil && check && p.expr(g, false) != 0 && !p.fixedCond(g) {
			// a cp.async's guard or src-size that moves: the units read
			// different lanes' bytes (cpGuard), not translated ones
			p.fail = true
			return
		}
		if check && p.loop == nil && p.nested == p.segLoops && isBarrier(s.X) {
			// a barrier every thread passes once: the machine forgets
			// the warp's shared loads, and its register round trips end
			// (memGen), so the shared accesses after it meet none before
			// it and may move by another shift
			clear(p.shared)
			clear(p.segViews)
		}
	case *ir.If:
		if emptyBlock(s.Then) && emptyBlock(s.Else) && !touchesMemory(s.Cond) {
			return // a tile call that lowered to nothing under a branch
		}
		if neverKnown(s.Cond) {
			p.skipped(s, check) // opaque.go
			return
		}
		if sg, arm, rest := p.singularCond(s.Cond, check); sg.x != nil {
			// a few iterations take the other arm; the machine skips
			// none around them (opaque.go)
			if check && !slices.Contains(p.singular, sg) {
				p.singular = append(p.singular, sg)
			}
			switch arm {
			case armThen:
				p.block(s.Then, check)
			case armElse:
				p.block(s.Else, check)
			default:
				p.stmt(p.restIf(s, rest), check)
			}
			return
		}
		if p.class {
			// a role's warps take one branch: the other is code they
			// never run (also when the condition does not move from
			// warp to warp: wg_id == 0 in the second warpgroup, which
			// reads an axis, not lets of lets)
			sh := p.expr(s.Cond, check)
			p.letBudget = 8
			if sh != 0 {
				p.letBudget = 256
			}
			if r := p.boolRange(s.Cond, 0); r.ok && r.lo == r.hi {
				if r.lo == 1 {
					p.block(s.Then, check)
				} else {
					p.block(s.Else, check)
				}
				return
			}
			if sh != 0 {
				if check {
					p.fail = true
					return
				}
			}
			p.block(s.Then, check)
			p.block(s.Else, check)
			return
		}
		sh := p.expr(s.Cond, check)
		if !check && sh != 0 && p.cta == 0 && p.loop == nil && len(p.conds) <= maxClassConds && !slices.Contains(p.conds, s.Cond) {
			p.conds = append(p.conds, s.Cond) // (one past the most: too many)
		}
		if sh != 0 && p.cta == 0 && p.loop == nil && !p.fixedCond(s.Cond) {
			v, ok := p.constAfterWarp0(s.Cond)
			if !ok {
				if check {
					p.branchFail = !p.fail
					p.fail = true
					return
				}
			} else {
				// warps 1.. take branch v alone (warp 0, which may take
				// the other, executes apart): the other is code they
				// never run, and needs no proof (rmsnorm's `if ty == 0:`
				// block reduces the warps' partial sums in shared memory)
				if check {
					p.warp0 = append(p.warp0, s.Cond)
				}
				if v {
					p.block(s.Then, check)
				} else {
					p.block(s.Else, check)
				}
				return
			}
		}
		if sh != 0 && !p.fixedCond(s.Cond) && quietArms(s) {
			// a branch that moves, whose arms only compute values
			// (opaque.go's quietArms): what they set moves by no shift
			p.movedBy(s.Then)
			p.movedBy(s.Else)
			return
		}
		if p.loop != nil && sh != 0 && !p.fixedCond(s.Cond) {
			if arm, ok := p.monoCond(s.Cond, check); ok {
				// the arm every iteration takes from some iteration on
				// (opaque.go); the machine checks that the compared
				// units take it
				if check {
					if p.monos == nil {
						p.monos = map[*ir.If]singularArm{}
					}
					p.monos[s] = arm
				}
				if arm == armThen {
					p.block(s.Then, check)
				} else {
					p.block(s.Else, check)
				}
				return
			}
		}
		if check && sh != 0 && !p.fixedCond(s.Cond) {
			// a branch that depends on the CTA (the iteration: k % 4
			// == 0 does not over 4 iterations)
			p.accessFail = p.accessFail || (p.loop != nil && !p.fail)
			p.fail = true
			return
		}
		p.block(s.Then, check)
		p.block(s.Else, check)
	case *ir.For:
		if !check {
			p.setRange(s.Var, p.loopRange(s))
		}
		p.uniform(s.Min, check)
		p.uniform(s.Extent, check)
		p.axes.set(s.Var, "")
		p.set(s.Var, 0)
		p.loopBody(s.Body, !unrolls(s), check)
	case *ir.While:
		if p.cta == 0 || !p.uniformTrips(s) {
			p.uniform(s.Cond, check)
		}
		p.loopBody(s.Body, true, check)
	default:
		p.fail = true
	}
}

// loopBody proves the body of a loop (serial: one nvcc does not unroll).
// A barrier in the body of a serial loop without break or continue, under
// no branch, ends the warp's shared segment as one at the kernel's top
// level does (every warp passes it as often: the loop's bounds move by
// nothing, and no merging is pending in a loop nvcc does not unroll). The
// accesses after the body's last barrier then meet those before its first
// in the next iteration: the check walks such a body twice.
func (p *shiftProof) loopBody(b *ir.Block, serial, check bool) {
	if !serial || p.loop != nil || !p.m.segmentLoop(b) {
		p.block(b, check)
		return
	}
	p.segLoops++
	defer func() { p.segLoops-- }()
	p.block(b, check)
	if check {
		p.block(b, check)
	}
}

// segmentLoop reports whether loop body b holds a barrier outside its
// branches and unroll loops, and no break or continue.
func (m *machine) segmentLoop(b *ir.Block) bool {
	if v, ok := m.segLoops[b]; ok {
		return v
	}
	v := segmentBody(b)
	if m.segLoops == nil {
		m.segLoops = map[*ir.Block]bool{}
	}
	m.segLoops[b] = v
	return v
}

func segmentBody(b *ir.Block) bool {
	found, leaves := false, false
	ir.WalkStmts(b, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Break, *ir.Continue:
			leaves = true
		case *ir.Evaluate:
			if isBarrier(s.X) {
				found = true
			}
		}
	})
	return found && !leaves && barrierAtTop(b)
}

// barrierAtTop reports whether a barrier of b is outside its branches and
// unroll loops (inside its serial loops).
func barrierAtTop(b *ir.Block) bool {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Evaluate:
			if isBarrier(s.X) {
				return true
			}
		case *ir.Block:
			if barrierAtTop(s) {
				return true
			}
		case *ir.Lowered:
			if barrierAtTop(s.Body) {
				return true
			}
		case *ir.For:
			if !unrolls(s) && barrierAtTop(s.Body) {
				return true
			}
		case *ir.While:
			if barrierAtTop(s.Body) {
				return true
			}
		}
	}
	return false
}

// axis is the per-warp shift of a thread axis (noShift when it is not one
// constant; the warpgroup axes are, for the first four warps only).
func (p *shiftProof) axis(a string) int64 {
	w := max(p.period, 1) // the warps compared are this many apart
	switch a {
	case "tx":
		return 32 * w
	case "laneid":
		return 0
	case "warpid":
		return w
	case "tid_in_wg", "wid_in_wg", "wgid":
		if p.class {
			if p.clsLo/4 != p.clsHi/4 {
				return noShift // the role's warps span warpgroups
			}
			switch a {
			case "tid_in_wg":
				return 32 * w
			case "wid_in_wg":
				return w
			}
			return 0
		}
		p.warps = min(p.warps, 4)
		switch a {
		case "tid_in_wg":
			return 32 * w
		case "wid_in_wg":
			return w
		}
		return 0
	}
	return 0 // axisValue's -1: the same in every warp
}

// expr returns e's per-warp shift; with check, it also proves its memory
// accesses translation-invariant.
func (p *shiftProof) expr(e ir.Expr, check bool) int64 {
	switch e := e.(type) {
	case nil, *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.TensorMapAddr:
		return 0
	case *ir.Var:
		s, ok := p.vars.lookup(e)
		if !ok {
			if p.vars != nil {
				p.vars.set(e, readUnset) // (read before any definition)
			}
			return 0
		}
		if s == unsetShift || s == readUnset {
			return 0 // a runtime value: the same unknown in every warp
		}
		return s
	case *ir.ThreadIndex:
		switch e.Axis {
		case "bx", "by", "bz":
			if p.cta > 0 && int(e.Axis[1]-'x') == p.cta-1 {
				return max(p.ctaPeriod, 1)
			}
			return 0
		}
		if p.cta > 0 || p.loop != nil {
			return 0 // the same thread indices in every CTA (iteration)
		}
		return p.axis(e.Axis)
	case *ir.Binary:
		a, b := p.expr(e.A, check), p.expr(e.B, check)
		sh := binaryShift(e, a, b)
		if sh == noShift && a != noShift && b != noShift {
			sh = p.rangedShift(e, a, b)
		}
		return sh
	case *ir.Not:
		if p.expr(e.X, check) == 0 {
			return 0
		}
		return noShift
	case *ir.Neg:
		s := p.expr(e.X, check)
		if s == noShift {
			return s
		}
		return -s
	case *ir.Cast:
		s := p.expr(e.X, check)
		if e.To.Code == ir.Bool && s != 0 {
			return noShift
		}
		return s
	case *ir.Select:
		c := p.expr(e.Cond, check)
		a, b := p.expr(e.A, check), p.expr(e.B, check)
		// a condition with one value over the threads compared picks one
		// arm in all of them (a role's Select(warp_idx >= 2, w * 4, 0));
		// both arms' accesses are proven above
		if a != b {
			if p.class {
				p.letBudget = 256
			}
			if r := p.boolRange(e.Cond, 0); r.ok && r.lo == r.hi {
				if r.lo == 1 {
					return a
				}
				return b
			}
		}
		if c != 0 {
			if check && (touchesMemory(e.A) || touchesMemory(e.B)) {
				p.fail = true
			}
			return noShift
		}
		if a == b {
			return a
		}
		return noShift
	case *ir.Load:
		if e.Buf.Scope == "local" {
			idx := int64(0)
			for _, x := range e.Indices {
				if p.expr(x, check) != 0 {
					idx = noShift
				}
			}
			if idx == 0 && p.state[e.Buf] {
				return 0 // state: the same in every period (loops.go)
			}
			if idx != 0 || p.written[e.Buf] {
				return noShift
			}
			s, ok := p.local[e.Buf]
			if !ok {
				if p.local != nil {
					p.local[e.Buf] = readUnset // (read before any store)
				}
				return 0
			}
			if s != unsetShift && s != readUnset {
				return s
			}
			return 0
		}
		if scopeOf(e.Buf) == "" {
			for _, x := range e.Indices {
				p.expr(x, check)
			}
			return 0
		}
		if check {
			p.access(e.Buf, e.Indices, false)
		}
		if _, bound := p.m.data[e.Buf]; bound {
			// contents a bind line gives (launchLoad): the same value only
			// where the same element is read
			for _, x := range e.Indices {
				if p.expr(x, false) != 0 {
					return noShift
				}
			}
		}
		return 0 // runtime data in every warp
	case *ir.Call:
		if e.Op == ir.OpElectSync {
			return 0
		}
		if e.Op == ir.OpFilter && len(e.Args) == 2 {
			p.expr(e.Args[0], check)
			return p.expr(e.Args[1], check)
		}
		if r := sregOf(e); r != "" {
			return p.sregShift(r) // shuffle.go
		}
		if isThreadRank(e) {
			// the linear thread index, as a ThreadIndex "tx"
			if p.cta > 0 || p.loop != nil {
				return 0
			}
			return p.axis("tx")
		}
		if isCTAReduce(e.Op) && p.cta == 0 && p.loop == nil {
			// warp 0 reads the other warps' partials: no translation
			// (ctareduce.go)
			p.fail = true
			return noShift
		}
		if shuffleMode(e.Op) != 0 || isAnySync(e.Op) {
			// the machine knows these (shuffle.go): a shuffle moves as
			// its value when the lanes read and the lanes taking part
			// are the same in every warp; __any_sync is the same when
			// its predicate is
			sh := int64(0)
			for i, a := range e.Args {
				s := p.expr(a, check)
				if i == 1 && shuffleMode(e.Op) != 0 {
					sh = s
				} else if s != 0 {
					return noShift
				}
			}
			return sh
		}
		if genericOp(e) && opInfoOf(e.Op).ignored && !rawTMA(e.Op) {
			// an intrinsic whose operands the machine does not read
			// (exec.go's evaluate: an mbarrier wait or arrive, a
			// fence): where its pointers point does not matter
			return 0
		}
		if tmaCopy(e.Op) {
			// a bulk tensor copy counts its instruction and its box's
			// bytes, and ends the available loads, wherever it points:
			// the machine reads its tensor map alone (exec.go's
			// evaluate, rawtma.go)
			return 0
		}
		for _, a := range e.Args {
			if isPointer(a) {
				if check {
					p.pointerArg(a)
				}
				continue
			}
			p.expr(a, check)
		}
		return 0 // a runtime value in every warp
	case *ir.AddressOf, *ir.BufferData:
		if check {
			p.pointerArg(e)
		}
		return noShift
	}
	// Region, Tuple and anything new: not proven
	p.fail = true
	return noShift
}

func binaryShift(e *ir.Binary, a, b int64) int64 {
	if a == noShift || b == noShift {
		return noShift
	}
	switch e.Op {
	case ir.Add:
		return a + b
	case ir.Sub:
		return a - b
	case ir.Mul:
		if a == 0 && b == 0 {
			return 0
		}
		if c, ok := e.B.(*ir.IntImm); ok && b == 0 {
			return a * c.Value
		}
		if c, ok := e.A.(*ir.IntImm); ok && a == 0 {
			return b * c.Value
		}
	case ir.FloorDiv, ir.Div:
		if c, ok := e.B.(*ir.IntImm); ok && c.Value > 0 && a%c.Value == 0 {
			return a / c.Value
		}
		if a == 0 && b == 0 {
			return 0
		}
	case ir.FloorMod:
		if c, ok := e.B.(*ir.IntImm); ok && c.Value > 0 && a%c.Value == 0 {
			return 0
		}
		if a == 0 && b == 0 {
			return 0
		}
	case ir.Min, ir.Max:
		if a == b {
			return a
		}
	case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
		if a == b {
			return 0 // both sides move together: the same answer
		}
	case ir.BitAnd:
		if c, ok := e.A.(*ir.IntImm); ok && c.Value == 0 {
			return 0 // 0 & x
		}
		if c, ok := e.B.(*ir.IntImm); ok && c.Value == 0 {
			return 0
		}
		if a == 0 && b == 0 {
			return 0
		}
		// x & c keeps bits of x below 2^k (c < 2^k), which a move by a
		// multiple of 2^k leaves alone: a swizzle's row bits
		if c, ok := e.B.(*ir.IntImm); ok && c.Value > 0 && multipleOfPow2(a, bits.Len64(uint64(c.Value))) {
			return 0
		}
		if c, ok := e.A.(*ir.IntImm); ok && c.Value > 0 && multipleOfPow2(b, bits.Len64(uint64(c.Value))) {
			return 0
		}
	case ir.Shr:
		// x >> c moves by a / 2^c when 2^c divides the move (floor
		// division by 2^c of x + a)
		if c, ok := e.B.(*ir.IntImm); ok && b == 0 && c.Value >= 0 && c.Value < 63 && multipleOfPow2(a, int(c.Value)) {
			return a >> c.Value
		}
		if a == 0 && b == 0 {
			return 0
		}
	case ir.BitXor, ir.BitOr:
		// x ^ y and x | y with y in [0, 2^k) the same in every warp
		// change bits below 2^k only, which moving x by a multiple of
		// 2^k leaves alone: x + a gives (x ^ y) + a (a swizzle's XOR of
		// a chunk index with its row, and its OR with the element)
		if k, ok := belowPow2(e.B); ok && b == 0 && multipleOfPow2(a, k) {
			return a
		}
		if k, ok := belowPow2(e.A); ok && a == 0 && multipleOfPow2(b, k) {
			return b
		}
		if a == 0 && b == 0 {
			return 0
		}
	case ir.Shl:
		if c, ok := e.B.(*ir.IntImm); ok && b == 0 && c.Value >= 0 && c.Value < 32 {
			return a << c.Value
		}
		if a == 0 && b == 0 {
			return 0
		}
	default:
		if a == 0 && b == 0 {
			return 0
		}
	}
	return noShift
}

// rangedShift is the shift of e that the values its operands take tell
// when their shifts alone do not: a comparison that has one value for
// every thread compared moves by nothing (a role's warp_idx >= 2), and x
// ^ c moves with x when the bits of x that c flips are the same for
// every value x takes (warp_idx ^ 2 over warps 2 and 3: both flip bit
// 1 off).
func (p *shiftProof) rangedShift(e *ir.Binary, a, b int64) int64 {
	if p.class {
		p.letBudget = 256
	}
	switch e.Op {
	case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
		if p.fixedCond(e) {
			return 0
		}
	case ir.BitXor:
		x, c := e.A, e.B
		if _, ok := x.(*ir.IntImm); ok {
			x, c, a, b = c, x, b, a
		}
		k, ok := c.(*ir.IntImm)
		if !ok || k.Value <= 0 || b != 0 {
			break
		}
		r := p.rangeOf(x, 0)
		tz := bits.TrailingZeros64(uint64(k.Value))
		if r.ok && r.lo >= 0 && r.lo>>tz == r.hi>>tz {
			return a
		}
	case ir.FloorDiv, ir.FloorMod, ir.Shr, ir.BitAnd:
		// x // c and x % c when every value x takes lies in one block
		// of c: the quotient is the same, the remainder moves with x
		// (a warpgroup's tid_in_wg // 64 and tid_in_wg % 64 over its
		// warps 2 and 3); x >> k and x & (2^k - 1) likewise
		k, ok := e.B.(*ir.IntImm)
		if !ok || b != 0 || k.Value <= 0 {
			break
		}
		c, quotient := k.Value, e.Op == ir.FloorDiv || e.Op == ir.Shr
		switch e.Op {
		case ir.Shr:
			if c >= 62 {
				return noShift
			}
			c = 1 << c
		case ir.BitAnd:
			if c&(c+1) != 0 || c >= 1<<62 {
				return noShift // not a mask of low bits
			}
			c++
		}
		r := p.rangeOf(e.A, 0)
		if !r.ok || floorDiv(r.lo, c) != floorDiv(r.hi, c) {
			break
		}
		if quotient {
			return 0
		}
		return a
	}
	return noShift
}

// multipleOfPow2 reports whether 2^k divides a.
func multipleOfPow2(a int64, k int) bool {
	return k < 63 && a%(int64(1)<<k) == 0
}

// belowPow2 returns a k with 0 <= e < 2^k for every value of e, when the
// form of e shows one: a constant, x & c (c >= 0), x % 2^n, and shifts
// of those.
func belowPow2(e ir.Expr) (int, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		if e.Value >= 0 {
			return bits.Len64(uint64(e.Value)), true
		}
	case *ir.Binary:
		c, isConst := e.B.(*ir.IntImm)
		switch e.Op {
		case ir.BitAnd:
			if isConst && c.Value >= 0 {
				return bits.Len64(uint64(c.Value)), true
			}
			if c, ok := e.A.(*ir.IntImm); ok && c.Value >= 0 {
				return bits.Len64(uint64(c.Value)), true
			}
		case ir.FloorMod:
			if isConst && c.Value > 0 && c.Value&(c.Value-1) == 0 {
				return bits.TrailingZeros64(uint64(c.Value)), true
			}
		case ir.Shr:
			if k, ok := belowPow2(e.A); ok && isConst && c.Value >= 0 && c.Value < 63 {
				return max(k-int(c.Value), 0), true
			}
		case ir.Shl:
			if k, ok := belowPow2(e.A); ok && isConst && c.Value >= 0 && k+int(c.Value) < 63 {
				return k + int(c.Value), true
			}
		}
	}
	return 0, false
}

// isPointer reports whether e is a pointer expression the machine reads
// as an address (machine.pointer).
func isPointer(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.AddressOf, *ir.BufferData:
		return true
	case *ir.Call:
		if e.Op == "reinterpret" && len(e.Args) == 1 {
			return isPointer(e.Args[0]) // a typed pointer
		}
		return (e.Op == ir.OpPointerOffset || byteOffsetOp(e)) && len(e.Args) >= 2 && isPointer(e.Args[0])
	case *ir.Cast:
		return isPointer(e.X)
	}
	return false
}

// pointerArg proves an access through pointer expression e invariant.
func (p *shiftProof) pointerArg(e ir.Expr) {
	root, sh := p.pointerShift(e)
	if root == nil {
		return
	}
	p.requireShift(root, viewOf(e), sh)
	if p.loose[root] {
		p.looseAlign[root] = p.m.pointerAlign(e)
	}
}

// access proves the access to buf[indices] invariant.
func (p *shiftProof) access(buf *ir.Buffer, idx []ir.Expr, flat bool) {
	root, sh := p.addressShift(buf, idx, flat)
	if root == nil {
		return
	}
	p.requireShift(root, buf, sh)
	if p.loose[root] {
		p.looseAlign[root] = p.m.accessAlign(buf, idx, flat)
	}
}

// requireShift proves an access of root, through view (the buffer the
// access names; nil: not known), that moves by sh bytes.
func (p *shiftProof) requireShift(root, view *ir.Buffer, sh int64) {
	if p.roots != nil && scopeOf(root) != "" {
		old, ok := p.roots[root]
		if !ok {
			old = unsetShift
		}
		p.roots[root] = join(old, sh)
	}
	if p.loose != nil && scopeOf(root) != "" {
		// one access of the root, outside inner loops; one that moves
		// by no multiple of its quantum marks the root
		p.accesses[root]++
		q := int64(32)
		if scopeOf(root) == "shared" {
			q = p.sharedQuantum()
		}
		if sh == noShift || sh%q != 0 {
			if p.inner > 0 || p.accesses[root] > 1 {
				p.fail = true
				return
			}
			p.loose[root] = true
			return
		}
		if p.loose[root] {
			p.fail = true // a second access of a loose root
			return
		}
	}
	switch scopeOf(root) {
	case "shared":
		if sh == noShift || sh%p.sharedQuantum() != 0 {
			p.accessFail = p.accessFail || !p.fail
			p.fail = true
			return
		}
		if p.views != nil && view != nil {
			// one shift per view in a segment, any across them
			if old, ok := p.segViews[view]; ok && old != sh {
				p.fail = true
				return
			}
			p.segViews[view] = sh
			old, ok := p.views[view]
			p.views[view] = old.add(sh, !ok)
		}
		// accesses of one buffer move together (merging compares
		// them), or each view of it apart (apart.go)
		if old, ok := p.shared[root]; ok && old != sh {
			if p.views == nil || view == nil {
				p.fail = true
				return
			}
			p.split[root] = true
			return
		}
		p.shared[root] = sh
	case "global":
		if sh != noShift && sh%32 != 0 && sh%16 == 0 && p.loop == nil && p.cta == 0 && p.loose == nil {
			// (checked on the run's first warp: apart.go)
			if p.oneLane == nil {
				p.oneLane = map[*ir.Buffer]bool{}
			}
			p.oneLane[root] = true
		} else if sh == noShift || sh%32 != 0 {
			p.accessFail = p.accessFail || !p.fail
			p.fail = true
			return
		}
		// and one shift per root across the kernel: A[tid] and
		// A[tid % 32] are one load in warp 0 (the second is redundant)
		// and two in the others; a read-only buffer's loads stay
		// available across barriers. The loop proof compares the
		// executed iterations instead (loops.go).
		if p.global == nil {
			return
		}
		if old, ok := p.global[root]; ok && old != sh {
			p.fail = true
			return
		}
		p.global[root] = sh
	}
}

// isBarrier reports whether e is a barrier of the CTA or of a warpgroup
// (the machine forgets the warp's shared loads at either).
func isBarrier(e ir.Expr) bool {
	c, ok := e.(*ir.Call)
	return ok && (c.Op == ir.OpCTASync || c.Op == ir.OpWarpgroupSync || c.Op == "ptx.bar.sync")
}

// pointerShift is machine.pointer's per-warp byte shift (root nil: not a
// pointer the machine reads, nothing to prove).
func (p *shiftProof) pointerShift(e ir.Expr) (*ir.Buffer, int64) {
	switch e := e.(type) {
	case *ir.Cast:
		return p.pointerShift(e.X)
	case *ir.Call:
		if (e.Op == ir.OpPointerOffset || byteOffsetOp(e)) && len(e.Args) >= 2 {
			root, sh := p.pointerShift(e.Args[0])
			off := p.expr(e.Args[1], true)
			if root == nil || sh == noShift || off == noShift {
				return root, noShift
			}
			eb := int64(1)
			if e.Op == ir.OpPointerOffset {
				eb = elemBytes(viewOf(e.Args[0]).Dtype)
			}
			return root, sh + off*eb
		}
	case *ir.BufferData:
		return p.baseShift(e.Buf)
	case *ir.AddressOf:
		return p.addressShift(e.Buf, e.Indices, e.FlatIndex)
	}
	return nil, 0
}

// viewOf is the buffer whose element type pointer e has (machine.pointer's
// ptr.view).
func viewOf(e ir.Expr) *ir.Buffer {
	switch e := e.(type) {
	case *ir.Cast:
		return viewOf(e.X)
	case *ir.Call:
		return viewOf(e.Args[0])
	case *ir.BufferData:
		return e.Buf
	case *ir.AddressOf:
		return e.Buf
	}
	return nil
}

// baseShift is the shift of b's byte offset in its root buffer, as
// machine.baseTo computes the offset: each runtime element offset on the
// way moves by its own shift (a warp's view at elem_offset = ... +
// warp * 512 moves by 1,024 bytes of bfloat16), a view of a view at a
// runtime offset less the outer one, which its offset includes; noShift
// when one moves by no constant.
func (p *shiftProof) baseShift(b *ir.Buffer) (*ir.Buffer, int64) {
	root := b
	sh := int64(0)
	for root.Base != nil || root.PtrBase != nil || (root.Kind == ir.ParamBuffer && root.ElemOffset != 0) {
		if root.ElemOffsetExpr != nil {
			s := p.expr(root.ElemOffsetExpr, true)
			if s == noShift {
				return root, noShift
			}
			sh += s * elemBytes(root.Dtype)
		}
		if root.Base == nil {
			if root.PtrBase != nil {
				return root.PtrBase, sh // a static pointer (ir.Buffer.PtrBase)
			}
			break
		}
		if root.Base.Kind == ir.DeclBuffer && root.Base.ElemOffsetExpr != nil && root.ElemOffsetExpr != nil {
			s := p.expr(root.Base.ElemOffsetExpr, true)
			if s == noShift {
				return root, noShift
			}
			sh -= s * elemBytes(root.Base.Dtype)
		}
		root = root.Base
	}
	return root, sh
}

func (p *shiftProof) addressShift(buf *ir.Buffer, idx []ir.Expr, flat bool) (*ir.Buffer, int64) {
	root, sh := p.baseShift(buf)
	if sh == noShift {
		return root, noShift
	}
	eb := elemBytes(buf.Dtype)
	shifts := make([]int64, len(idx))
	moving, split := false, false
	for d, x := range idx {
		shifts[d] = p.expr(x, true)
		if shifts[d] == noShift {
			split = true
		}
		moving = moving || shifts[d] != 0
	}
	if !moving {
		return root, sh
	}
	if flat {
		if len(idx) != 1 || split {
			return root, noShift
		}
		return root, sh + shifts[0]*eb
	}
	if len(idx) != len(buf.Shape) {
		return root, noShift
	}
	strides := make([]int64, len(idx))
	switch buf.Layout.(type) {
	case nil:
		stride := int64(1)
		for d := len(idx) - 1; d >= 0; d-- {
			strides[d] = stride
			stride *= buf.Shape[d]
		}
	default:
		ln := p.m.linearOf(buf)
		if !ln.ok || ln.swz != nil {
			return root, noShift
		}
		copy(strides, ln.strides)
	}
	var el int64
	for d := 0; d < len(idx); d++ {
		if shifts[d] != noShift {
			el += shifts[d] * strides[d]
			continue
		}
		// X // P, X // Q % n, ..., X % m over dimensions d..e of a
		// row-major block: the digits of X, whose offset is X's own
		e, x, y := digits(idx, buf.Shape, strides, d)
		if e < 0 {
			return root, noShift
		}
		xs := p.expr(x, true)
		if xs == noShift {
			return root, noShift
		}
		el += xs * strides[e]
		if y != nil {
			ys := p.expr(y, true)
			if ys == noShift {
				return root, noShift
			}
			el += ys * strides[d]
		}
		d = e
	}
	return root, sh + el*eb
}

// digits matches idx[d..e] with the digits of one value X in the
// row-major block of shape[d..e] (strides[j] = strides[e] times the
// extents after j): idx[d] = X // P (P the product of shape[d+1..e]),
// idx[j] = X // Q % shape[j] between, idx[e] = X % shape[e]. Their offset
// sum(idx[j] * strides[j]) is then X * strides[e] for every integer X
// (and the head may add Y: A_s[X // 4096 + s, X // 64 % 64, X % 64], Y
// * strides[d] more)
// (floor division): (s*8 + v) // 32, (s*8 + v) % 32 of a [64, 32] tile
// moves by 8 elements per s. It returns e and X, or -1.
func digits(idx []ir.Expr, shape, strides []int64, d int) (int, ir.Expr, ir.Expr) {
	head, ok := idx[d].(*ir.Binary)
	var y ir.Expr // X // P + Y: Y * strides[d] more
	if ok && head.Op == ir.Add {
		if a, ok := head.A.(*ir.Binary); ok && a.Op == ir.FloorDiv {
			head, y = a, head.B
		} else if b, ok := head.B.(*ir.Binary); ok && b.Op == ir.FloorDiv {
			head, y = b, head.A
		}
	}
	if !ok || head.Op != ir.FloorDiv {
		return -1, nil, nil
	}
	p, ok := ir.ConstInt(head.B)
	if !ok || p <= 1 {
		return -1, nil, nil
	}
	x := head.A
	below := p // the product of the extents after the current dimension
	for j := d + 1; j < len(idx); j++ {
		if below%shape[j] != 0 || strides[j-1] != strides[j]*shape[j] {
			return -1, nil, nil
		}
		below /= shape[j]
		var inner ir.Expr
		if mod, ok := idx[j].(*ir.Binary); ok && mod.Op == ir.FloorMod {
			if n, ok := ir.ConstInt(mod.B); ok && n == shape[j] {
				inner = mod.A
			}
		}
		if inner == nil {
			return -1, nil, nil
		}
		if below == 1 {
			if ir.Equal(inner, x) {
				return j, x, y
			}
			return -1, nil, nil
		}
		div, ok := inner.(*ir.Binary)
		if !ok || div.Op != ir.FloorDiv || !ir.Equal(div.A, x) {
			return -1, nil, nil
		}
		if q, ok := ir.ConstInt(div.B); !ok || q != below {
			return -1, nil, nil
		}
	}
	return -1, nil, nil
}
