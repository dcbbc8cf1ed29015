package memory

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// lanes holds one value per lane of a warp.
type lanes [32]int64

// binding is a variable's per-lane value, or why it is not known. uni
// says that all 32 lanes of v are equal (false is always safe: it only
// lets expressions over the variable be computed once for the warp).
type binding struct {
	v   lanes
	why string
	uni bool
}

// loopFrame collects the lanes that left a loop (break) or the rest of an
// iteration (continue). why is set when code that was skipped (a branch
// on an unknown condition) may have left the loop: its later iterations
// are then not known (taint.go).
type loopFrame struct {
	broken, cont uint32
	why          string
}

// kind of a memory event.
type kind uint8

const (
	sharedLoad kind = iota
	sharedStore
	ldmatrix
	stmatrix
	globalLoad
	globalStore
	cpAsync
	tma
)

// event is one dynamic warp instruction before counting.
type event struct {
	k     kind
	mask  uint32
	width int64 // bytes per lane (ldmatrix: matrices)
	addr  lanes // byte addresses
	buf   *ir.Buffer
	view  *ir.Buffer // the buffer the access names (apart.go)
	node  ir.Node
	align int64 // provable byte alignment of addr (merging)
	bytes int64 // cp.async/TMA bytes per lane
	// src is a cp.async's global source addresses (the machine's cpSrc:
	// a cp.async is counted when emitted, never pending, and a pointer
	// keeps the events of the unroll loops' pending lists small)
	src *lanes
	// srcLen is a guarded cp.async's bytes read per lane (the machine's
	// cpLen: its guard or src-size, cpGuard); nil: bytes in every lane
	srcLen *lanes
	// dup is a cp.async's lanes that repeat a copy of the same warp still
	// in flight (cpInFlight): they fetch no global sector
	dup uint32
	run bool // cp.async: the first of a run (nvcc's three LDS before it)
	// limit is the widest access a shared element load joins into (0:
	// 16 bytes; halfloads.go)
	limit int64
	fig   *Figures
	rv    *regVal // the register slot a pending load fills (regs.go)
}

// maxWork bounds the statements and memory events one kernel analysis
// executes; past it the figures are unknown. maxSteps bounds those it
// counts, executed or skipped as translations (warps, CTAs, loop
// iterations counted as one executed): the figures' magnitude, not the
// analysis's cost. They were one bound, 4,000,000 steps counted, until
// skipped iterations made a case of flash_attention4.py count more than
// that while executing 264,000: it executed its 4,000,000 at a cost of
// 180 ms to end with every figure unknown. Tests raise maxWork to
// compare an analysis that skips nothing with one that skips.
const maxSteps = 1 << 40

var maxWork int64 = 4_000_000

type machine struct {
	// leftOut is the first statement the evaluation left out that the
	// machine reached (ir.Comment.LeftOut): the kernel body's figures
	// are unknown
	leftOut string
	// data holds the contents bind lines give integer buffer parameters
	// (ir.Func.LaunchData): loads of them are known (launchLoad)
	data    map[*ir.Buffer][]int64
	launch  ir.Launch
	threads int64
	cta     [3]int64
	warp    int64
	tid     lanes // linear thread index
	txyz    [3]lanes
	present uint32 // lanes that exist in this warp

	vars ptrMap[ir.Var, *binding]
	lets ptrMap[ir.Var, ir.Expr] // let values, for divisibility
	// divs keeps divFold's results that cannot change (divFoldKept);
	// divMoved is set when a walk met what may; assigned holds the
	// variables an Assign sets (noteAssign)
	divs map[ir.Expr]divFolded
	// cptrs keeps the constant address_of pointers (addressOfNode),
	// without and with their alignment (needAlign)
	cptrs    [2]map[*ir.AddressOf]int32 // (indices into cptrVals)
	cptrVals []ptr
	// loadWhy keeps the reason of a shared or global load's value (the
	// loads of element-wise code: reason's interface key was hashed at
	// every one)
	loadWhy map[*ir.Buffer]string
	// argCap, while a warp intrinsic is evaluated, receives its
	// operands' lanes (shuffle.go)
	argCap *argCapture
	// caps keeps the captures of the warp intrinsics being evaluated
	// (nested ones too) for the next ones: made afresh, each escaped to
	// the heap, 1.4 kB a shuffle.
	caps []*argCapture
	// hosts are the host lets that are constants (hostconsts.go)
	hosts []hostConst
	// affSums and affTerm are affineAddrTo's scratch
	affSums  [maxAffGroups]lanes
	affTerm  lanes
	divMoved bool
	// aparts keeps unrolledApart's walks of an access's indices
	aparts map[apartKey]*apartShape
	// leafMoved is set when leaves met a variable an Assign sets
	leafMoved bool
	assigned  map[*ir.Var]bool
	// loadClasses keeps each unrolled loop's class (halfloads.go); loads is
	// the innermost unrolled loop's around the statement executed
	loadClasses map[*ir.For]int8
	loads       int8
	// unrolled lists the variables of the enclosing unroll loops (a
	// few: a scan is cheaper than a map)
	unrolled []*ir.Var
	mask     uint32
	loops    []*loopFrame

	cur      *Figures // figures of the code being executed
	curCall  *ir.TileCall
	order    []*Figures // the calls' figures, in the order met (snapshots)
	calls    map[*ir.TileCall]*Figures
	body     *Figures
	pending  []event // events of the outermost unroll loop, merged at its end
	inUnr    int
	steps    int64
	ctaIndex int64
	// cpRun is set after a cp.async until another instruction kind, a
	// branch or a runtime loop's next iteration ends the straight-line
	// run (nvcc puts three predicated-off LDS before each run's first
	// LDGSTS, which Nsight counts as shared load instructions).
	cpRun bool
	// over stops the execution: past maxSteps, or (moot) when every
	// figure is unknown already; newUnknown is set when a figure becomes
	// unknown, until block looks whether any is left.
	over, moot bool
	newUnknown bool
	// unknowns counts the figures made unknown (loops.go compares it)
	unknowns int
	// rec is the loop whose iterations are being compared (loops.go):
	// emit and forget record into it; loopProofs caches the proofs.
	rec        *loopSkip
	loopProofs map[*ir.For]*loopProof
	// segLoops caches segmentLoop per loop body (the proofs walk a body
	// several times)
	segLoops map[*ir.Block]bool
	// whiles caches the counted form of while loops, whileFors marks the
	// for loops they run as (whiles.go)
	whiles    map[*ir.While]*counted
	whileFors map[*ir.For]*counted
	// restIfs holds the branches a loop proof follows for the other
	// side of a singular condition (opaque.go)
	restIfs map[*ir.If]*ir.If
	// scopeRanges bounds the variables of the kernel's scope ids
	// (ranges.go); affs caches the compiled offsets (affine.go)
	scopeRanges map[*ir.Var]ival
	affs        map[*ir.Expr]*affAddr
	// ghosts holds, per root, the loads skipped iterations left
	// available (loops.go); hold is the loop executing its last
	// iteration after a skip, whose own ghosts its loads cannot meet.
	ghosts map[*ir.Buffer][]ghost
	hold   *loopSkip
	// stateLater is startSkip's answer that the comparison starts at
	// the next iteration; recFree keeps recBufs for the next loop
	stateLater bool
	recFree    []*recBuf
	// snapBuf and deltaBuf are loops.go's scratch for counters,
	// warpSnap AnalyzeWithin's for a run's first warps
	snapBuf    [2]snap
	warpSnap   snap
	deltaBuf   []figDelta
	delta0Buf  []figDelta
	deltas     []figDelta // since's slab
	chunks     []chunk
	chunkRoots []*ir.Buffer
	chunkKeys  []uint64 // windowKeys's
	chunkDs    []int64
	// work counts the statements executed when workLimit (AnalyzeWithin)
	// bounds them; overWork is set when it stopped the execution.
	work, workLimit int64
	overWork        bool

	// poison holds the register buffers skipped code may have written,
	// and why (taint.go).
	poison map[*ir.Buffer]string
	// local holds the register buffers' per-lane values (element offset ->
	// value) written so far in this warp: lowered code keeps per-thread
	// tables (a swizzled copy's signed_strides) in them.
	local ptrMap[ir.Buffer, *regElems]

	appliers map[*ir.Buffer]func([]int64) int64
	// constMaps caches constElem's mapping per buffer.
	constMaps map[*ir.Buffer]*constMap
	// ops caches opInfoOf per intrinsic call node.
	ops      ptrMap[ir.Call, *opInfo]
	rowMajor map[*ir.Buffer]bool
	linears  map[*ir.Buffer]linear
	reasons  map[any]string
	coord    []int64
	ccoord   [4]int64 // constElem's scratch

	// arena holds the bindings of the current warp (reset per warp).
	arena [][]binding
	used  int
	peak  int // the most bindings a warp of this analysis used

	// cpSrc holds the source addresses of the cp.async being emitted
	// (event.src), cpLen its bytes read per lane when guarded
	// (event.srcLen, cpGuard).
	cpSrc, cpLen lanes
	// cpPending holds the lane copies of the warp's cp.async issued since
	// its last wait (cpInFlight); nil until the first
	cpPending map[cpCopy]struct{}

	// flushUsed and flushEvs are flush's scratch (count.go).
	flushUsed []bool
	// flushStepped: the loads a run of flush stepped over (merge.go)
	flushStepped []int
	flushEvs     []event
	flushShapes  []laneShape
	flushTab     []lanes

	// banks is the counting rules' scratch (count.go), kept by the pool
	// (34 KB: zeroing it with the machine at every analysis was a
	// twentieth of the golden programs' analysis).
	banks *[4]bankWords
	uses  *bankUses // describe's scratch

	// avail holds, per root buffer, the loads whose values the threads
	// hold (cse.go).
	avail map[*ir.Buffer]*availSet
	// availUsed lists the sets of avail that may hold loads (each once:
	// availSet.listed), so that forgetting the loads at a barrier, a
	// store or a loop's iteration walks them and not the map (a map's
	// iteration, with its random start, was 5 % of a keystroke's CPU in
	// fp8_blockwise_gemm.py with the memory figures computed again)
	availUsed []*availSet
	// availFree are emptied sets of avail, for reuse
	availFree []*availSet
	// loadsFree are emptied lists of avail, for reuse (cse.go).
	loadsFree [][]lanes
	// unread holds the shared allocations nothing reads (dead.go),
	// dataRegs the register allocations only data reads (dataregs.go),
	// readOnly the global buffers nothing writes (readonly.go): scans of
	// fn made at their first use (scans.go), which a kernel whose figures
	// cannot be known (a runtime grid) or stop at once never makes.
	fn *ir.Func
	// tailIfs are fn's ifs at its end (predicate.go's tailIf), found
	// for tailFn.
	tailIfs map[*ir.If]bool
	tailFn  *ir.Func
	scanned uint8
	unread  map[*ir.Buffer]bool
	// unreadChained: those of unread something reads, only to compute
	// values that never reach memory (dead.go)
	unreadChained map[*ir.Buffer]bool
	// overwritten: the loads whose registers are written again before
	// anything reads them (overwritten.go)
	overwritten map[*ir.Call]bool
	dataRegs    ptrMap[ir.Buffer, bool]
	opaqueV     map[*ir.Var]bool // the opaque lets (opaque.go), found with dataRegs
	// controlVars are the scalars read where a value matters (found
	// with dataRegs; nil: every one)
	controlVars *ptrMap[ir.Var, bool]
	readOnly    map[*ir.Buffer]bool
	scratch     scanScratch // (the scans' tables, kept)
	// spareProof is a failed loop proof whose maps the next one reuses
	// (newLoopProof)
	spareProof *shiftProof
	// proofMaps hands the proofs their maps (proofmaps.go)
	proofMaps proofMaps
	// inert holds whether each loop executed is inert (inert.go);
	// forVars the loop variables
	inert    map[*ir.For]inertLoop
	forVars  map[*ir.Var]bool
	varReads map[*ir.Var]int32       // (inert.go's lets)
	consts   map[*ir.Var]int64       // (constlets.go)
	quiets   map[*ir.Block]inertLoop // (inert.go's quiet code)
	quietIfs map[*ir.If]bool         // (opaque.go's quietArms)
	regInits map[*ir.Buffer]ir.Expr  // (whiles.go's regInit; nil values: none)
	// iterWork is the work of a regLoop's first iteration, for the
	// startSkip that follows it (0: none)
	iterWork int64
	// apart collects the hulls of the views of a run's split roots
	// while the run's first warp executes (apart.go)
	apart *apartCheck
	// regs holds what the register slots of this warp hold (regs.go);
	// memGen counts the memory writes and barriers so far.
	regs   map[regSlot]*regVal
	memGen int64
	// trips is the product of the trip counts of the loops being
	// executed (0: none; cse.go).
	trips int64
	// predOff is set while executing an if-converted body whose lanes
	// are all off (predicate.go).
	predOff bool
}

const arenaChunk = 256

// newBinding returns a zero binding that lives until the next warp.
func (m *machine) newBinding() *binding {
	c, i := m.used/arenaChunk, m.used%arenaChunk
	if c == len(m.arena) {
		m.arena = append(m.arena, make([]binding, arenaChunk))
	}
	m.used++
	b := &m.arena[c][i]
	*b = binding{}
	return b
}

// reason returns pre+name+post, built once per key: the values that turn
// out not to be needed (a loaded value stored elsewhere) are the common
// case, and formatting their reason each time was a fifth of the
// analysis' allocations.
func (m *machine) reason(key any, pre, name, post string) string {
	if r, ok := m.reasons[key]; ok {
		return r
	}
	r := pre + name + post
	m.reasons[key] = r
	return r
}

func (m *machine) unknown(why string) {
	if m.cur.Unknown == "" {
		m.cur.Unknown = why
		m.newUnknown = true
		m.unknowns++
	}
}

// nothingKnown reports whether every figure the analysis could still
// change is unknown (the kernel body's and each call's): executing the
// rest of the kernel would change no answer.
func (m *machine) nothingKnown() bool {
	if m.body.Unknown == "" {
		return false
	}
	for _, f := range m.calls {
		if f.Unknown == "" {
			return false
		}
	}
	return true
}

// skip marks the figures of the code in b, which cannot be executed, as
// unknown: the current context's and every call's inside.
func (m *machine) skip(b *ir.Block, why string) {
	m.skipCode(b, why, false)
}

// skipBody is skip for the body of a loop the machine does not run.
func (m *machine) skipBody(b *ir.Block, why string) { m.skipCode(b, why, true) }

func (m *machine) skipCode(b *ir.Block, why string, loopBody bool) {
	if fx, ok := m.quiet(b); ok {
		// nothing to count whichever way it runs (inert.go)
		if b != nil {
			m.taint(b, why, loopBody)
			m.passInert(inertLoop{fx: fx})
		}
		return
	}
	m.unknown(why)
	if b == nil {
		return
	}
	m.taint(b, why, loopBody)
	ir.WalkStmts(b, func(s ir.Stmt) {
		if l, ok := s.(*ir.Lowered); ok && l.Call != nil {
			f := m.figs(l.Call)
			if f.Unknown == "" {
				f.Unknown = why
				m.newUnknown = true
				m.unknowns++
			}
		}
	})
}

func (m *machine) figs(c *ir.TileCall) *Figures {
	f := m.calls[c]
	if f == nil {
		f = &Figures{Source: "model"}
		m.calls[c] = f
		m.order = append(m.order, f)
	}
	return f
}

func (m *machine) block(b *ir.Block) {
	if b == nil {
		return
	}
	for i, s := range b.Stmts {
		if m.newUnknown {
			// the first unknown figure since the last look: stop when
			// no figure is left to compute (mega_moe's body, a call-less
			// kernel, ran 90-190 ms after its first unmodelled access)
			m.newUnknown = false
			if m.nothingKnown() {
				m.over, m.moot = true, true
			}
		}
		if (m.mask == 0 && !m.predOff) || m.over {
			if len(m.regs) > 0 {
				m.clobberSkipped(b.Stmts[i:]) // regs.go
			}
			return
		}
		m.stmt(s)
	}
}

func (m *machine) stmt(s ir.Stmt) {
	m.steps++
	if m.steps > maxSteps {
		m.over = true
		return
	}
	if m.work++; m.workLimit > 0 && m.work > m.workLimit {
		m.over, m.overWork = true, true
		return
	}
	if m.work > maxWork {
		m.over = true
		return
	}
	switch s := s.(type) {
	case *ir.Block:
		m.block(s)
	case *ir.Lowered:
		prevCur, prevCall := m.cur, m.curCall
		if s.Call != nil {
			m.cur, m.curCall = m.figs(s.Call), s.Call
		}
		m.block(s.Body)
		m.cur, m.curCall = prevCur, prevCall
	case *ir.TileCall:
		m.figs(s).Unknown = "the call has no lowering"
	case *ir.ScopeID:
		m.scopeID(s)
	case *ir.Let:
		m.lets.set(s.Var, s.Value)
		m.assign(s.Var, s.Value)
	case *ir.Assign:
		m.lets.del(s.Var) // a re-assigned scalar has no single value expression
		m.assign(s.Var, s.Value)
	case *ir.Comment:
		if s.LeftOut && m.mask != 0 && m.leftOut == "" {
			m.leftOut = s.Text // (AnalyzeWithin: the body's figures)
		}
	case *ir.Alloc, *ir.Decl:
	case *ir.Store:
		m.store(s)
	case *ir.Evaluate:
		m.evaluate(s.X)
	case *ir.If:
		m.cpRun = false
		m.ifStmt(s)
		m.cpRun = false // (after the branch, not by a deferred call)
	case *ir.For:
		m.forLoop(s)
	case *ir.While:
		m.whileLoop(s)
	case *ir.Break:
		if n := len(m.loops); n > 0 {
			m.loops[n-1].broken |= m.mask
		}
		m.mask = 0
	case *ir.Continue:
		if n := len(m.loops); n > 0 {
			m.loops[n-1].cont |= m.mask
		}
		m.mask = 0
	default:
		m.unknown(fmt.Sprintf("statement %T is not modelled", s))
	}
}

// truth is the mask of lanes where c is non-zero.
func truth(c *lanes) uint32 {
	var t uint32
	for i, v := range c {
		if v != 0 {
			t |= 1 << i
		}
	}
	return t
}

// ifStmt executes a branch (stmt's case; a run of cp.async ends at it).
func (m *machine) ifStmt(s *ir.If) {
	var c lanes
	uni, why := m.evalU(&c, s.Cond) // (a warp-uniform condition: one lane)
	if why != "" && (neverKnownVia(s.Cond, false) || why == dataWhy && m.opaque(s.Cond)) {
		why = branchWhy // (what the condition reads may be data: dataregs.go)
	}
	if why != "" {
		for sk := m.rec; sk != nil; sk = sk.parent {
			if _, ok := sk.lp.monos[s]; ok {
				sk.monoHit = true // (which arm, not known)
			}
		}
		m.skip(s.Then, why)
		m.skip(s.Else, why)
		return
	}
	in := m.mask
	var t uint32
	switch {
	case !uni:
		t = in & truth(&c)
	case c[0] != 0:
		t = in
	}
	for sk := m.rec; sk != nil; sk = sk.parent {
		if mono, ok := sk.lp.monos[s]; ok && monoUncommon(mono, in, t) {
			sk.monoHit = true
		}
	}
	m.mask = t
	if m.quietIf(s) {
		// arms that only compute values count no step (opaque.go's
		// quietArms): iterations that take either arm take as many
		// steps, as loops.go's skipping of them counts
		defer func(steps int64) { m.steps = steps }(m.steps)
	}
	if t == 0 && (in != 0 || m.predOff) && predicable(s) && !m.tailIf(s) {
		// predicated off in every lane (predicate.go)
		prev := m.predOff
		m.predOff = true
		m.block(s.Then)
		m.predOff = prev
		m.mask = in
		return
	}
	m.block(s.Then)
	out := m.mask
	m.mask = in &^ t
	m.block(s.Else)
	m.mask |= out
}

func (m *machine) assign(v *ir.Var, e ir.Expr) {
	if (len(m.loops) > 0 || m.scanned&scannedDataRegs != 0) && m.dataVar(v) {
		// data (dataregs.go): what it holds is read nowhere it matters,
		// so it holds nothing known; only the accesses inside count,
		// and the registers it reads are read (regs.go); a loop that
		// carries it then compares no reasons its iterations give it
		// (flash_attention4.py's softmax maxima: loops.go's stateVars).
		// (In a loop, or once the registers were scanned for: asking
		// whether each let is data made the scan of dataregs.go a cost
		// of every kernel.)
		if touchesMemory(e) {
			m.eval(e)
		} else if len(m.regs) > 0 {
			m.regValueReads(e)
		}
		b := m.vars.get(v)
		if b == nil {
			b = m.newBinding()
			m.vars.set(v, b)
		}
		b.why = dataWhy
		return
	}
	var val lanes
	uni, why := m.evalU(&val, e)
	b := m.vars.get(v)
	if b == nil {
		b = m.newBinding()
		m.vars.set(v, b)
	}
	if why != "" {
		b.why = why
		return
	}
	if uni {
		val = bcast(val[0])
	}
	if m.mask == m.present || b.why != "" {
		b.v, b.why, b.uni = val, "", uni
		return
	}
	b.uni = false
	for i := range 32 {
		if m.mask&(1<<i) != 0 {
			b.v[i] = val[i]
		}
	}
}

// uniform reports whether all 32 lanes of l are equal.
func uniform(l *lanes) bool {
	for i := 1; i < 32; i++ {
		if l[i] != l[0] {
			return false
		}
	}
	return true
}

func (m *machine) scopeID(s *ir.ScopeID) {
	var val func(i int, l int) int64
	switch s.Kind {
	case ir.CTAID:
		val = func(i, _ int) int64 { return m.cta[i] }
	case ir.ClusterID:
		val = func(i, _ int) int64 { return m.cta[i] / max(1, m.launch.Cluster[i]) }
	case ir.CTAIDInCluster:
		val = func(i, _ int) int64 { return m.cta[i] % max(1, m.launch.Cluster[i]) }
	case ir.ThreadID:
		if len(s.Vars) == 1 {
			val = func(_, l int) int64 { return m.tid[l] }
		} else {
			val = func(i, l int) int64 { return m.txyz[i][l] }
		}
	default:
		axis := thAxis[s.Kind] // (looked up once, not per lane)
		val = func(_, l int) int64 { return axisValue(axis, m.tid[l]) }
	}
	for i, v := range s.Vars {
		b := m.newBinding()
		if i < 3 {
			for l := range 32 {
				b.v[l] = val(i, l)
			}
			b.uni = uniform(&b.v) // a CTA or warp index: one value
		} else {
			b.why = "a scope id of more than 3 dimensions"
		}
		m.vars.set(v, b)
	}
}

var thAxis = map[ir.ScopeIDKind]string{ir.WarpID: "warpid", ir.WarpgroupID: "wgid", ir.WarpIDInWG: "wid_in_wg",
	ir.LaneID: "laneid", ir.ThreadIDInWG: "tid_in_wg"}

func axisValue(axis string, t int64) int64 {
	switch axis {
	case "tx":
		return t
	case "laneid":
		return t % 32
	case "warpid":
		return t / 32
	case "wgid":
		return t / 128
	case "tid_in_wg":
		return t % 128
	case "wid_in_wg":
		return (t / 32) % 4
	}
	return -1
}

func (m *machine) forLoop(s *ir.For) {
	if l, ok := m.inertOf(s); ok && len(m.regs) == 0 && !m.predOff {
		m.passInert(l) // inert.go
		return
	}
	var lo lanes
	why := ""
	if s.Min != nil {
		lo, why = m.eval(s.Min)
	}
	ext, why2 := m.eval(s.Extent)
	if why == "" {
		why = why2
	}
	if why != "" {
		m.skipBody(s.Body, "loop "+s.Var.Name+": "+why)
		return
	}
	in := m.mask
	var n int64
	for i := range 32 {
		if in&(1<<i) != 0 {
			n = max(n, ext[i])
		}
	}
	unr := unrolls(s)
	top := m.inUnr == 0 // nothing pending: iterations may be skipped (loops.go)
	// m.loads, m.trips and m.hold are restored at the end (not by
	// deferred calls, a hundredth of the analysis)
	prevLoads := m.loads
	if unr {
		m.inUnr++
		m.unrolled = append(m.unrolled, s.Var)
		m.loads = m.loadClass(s) // halfloads.go
	}
	outer := m.trips
	asWhile := m.whileFors[s] != nil // a counted while loop (whiles.go)
	if asWhile {
		m.trips = max(outer, 1) * maxWhile
	} else {
		m.trips = max(outer, 1) * max(n, 1)
	}
	prevHold, holdSet := m.hold, false
	fr := &loopFrame{}
	m.loops = append(m.loops, fr)
	b := m.vars.get(s.Var)
	if b == nil {
		b = m.newBinding()
		m.vars.set(s.Var, b)
	}
	b.why = ""
	loUni := uniform(&lo)
	var sk *loopSkip
	skipFrom := int64(-1) // the iteration to start comparing at (loops.go)
	restarts := 0
	regLoop := false
	if top && in != 0 && sameExtent(&ext, in, n) {
		skipFrom = 0
		if n > 1 && m.regLoop(s) {
			// its first tile unrecorded, its cost measured (whiles.go)
			skipFrom, regLoop = 1, true
		}
	}
	var work0 int64
	for it := int64(0); it < n && !m.over; it++ {
		if regLoop && it <= 1 {
			if it == 0 {
				work0 = m.work
			} else {
				m.iterWork = m.work - work0
			}
		}
		if it == skipFrom {
			var availAt []*ir.Buffer
			if sk != nil {
				availAt = sk.availAt
			}
			m.stateLater = false
			sk = m.startSkip(s, n, it, unr, availAt)
			m.iterWork = 0
			if sk == nil && m.stateLater {
				skipFrom = it + 1
			}
		}
		live := in &^ fr.broken
		for i := range 32 {
			if it >= ext[i] {
				live &^= 1 << i
			}
			b.v[i] = lo[i] + it
		}
		b.uni = loUni
		if live == 0 {
			break
		}
		fr.cont = 0
		m.mask = live
		if !unr {
			m.cpRun = false
			m.forget()
		}
		m.block(s.Body)
		if fr.why != "" {
			// skipped code may have left the loop (taint.go)
			m.skipBody(s.Body, fr.why)
			break
		}
		if sk != nil && m.rec == sk {
			skip, retry := m.afterIteration(sk, it, n, fr)
			it += skip
			if c := m.whileFors[s]; skip > 0 && c != nil {
				m.inductions(c, it) // (whiles.go)
			}
			if skip > 0 && unr {
				m.hold, holdSet = sk, true
			}
			switch {
			case retry && sk.next > 0 && restarts < maxRestarts:
				restarts++
				skipFrom = sk.next // after a singular branch (loops.go)
			case retry && sk.next == 0 && sk.base == 0:
				skipFrom = it + 1
			case m.rec != sk:
				sk = nil // (the comparison ended: an outer one may go on)
			}
		}
	}
	if sk != nil {
		m.endSkip(sk)
	}
	m.loops = m.loops[:len(m.loops)-1]
	m.mask = in
	if !unr && !asWhile {
		m.forget()
	}
	if unr {
		m.unrolled = slices.DeleteFunc(m.unrolled, func(v *ir.Var) bool { return v == s.Var })
		m.inUnr--
		if m.inUnr == 0 {
			m.flush()
		}
	}
	if holdSet {
		m.hold = prevHold
	}
	m.trips = outer
	if unr {
		m.loads = prevLoads
	}
}

// sameExtent reports whether every lane of mask runs n iterations.
func sameExtent(ext *lanes, mask uint32, n int64) bool {
	for i := range 32 {
		if mask&(1<<i) != 0 && ext[i] != n {
			return false
		}
	}
	return true
}

// maxUnroll is the largest constant trip count of a serial loop the model
// takes nvcc to unroll (and so to merge across iterations): the lead's
// calibration saw `for i < 8` and `for i < 4` loops without a pragma
// merged into one STS.128; the Nsight Compute run of every testdata
// kernel (docs/memory-agreement.md) saw a single thread's 64x64 f16 copy
// nest and an 8x256 one issue one STS.128/LDS.128 per 8 elements, and a
// 1024-iteration i8 loop not (r018_g2s_s2g_task4_thread).
const maxUnroll = 256

// constLoop reports whether s is a serial loop with constant bounds and
// at most maxUnroll iterations.
func constLoop(s *ir.For) bool {
	if s.Kind != ir.Serial {
		return false
	}
	if s.Min != nil {
		if _, ok := ir.ConstInt(s.Min); !ok {
			return false
		}
	}
	n, ok := ir.ConstInt(s.Extent)
	return ok && n <= maxUnroll
}

// maxWhile bounds a while loop's iterations.
const maxWhile = 1 << 16

func (m *machine) whileLoop(s *ir.While) {
	if dedupLoops {
		if c := m.countedOf(s); c != nil && m.runCounted(c) {
			return
		}
	}
	in := m.mask
	outer := m.trips
	m.trips = max(outer, 1) * maxWhile
	defer func() { m.trips = outer }()
	fr := &loopFrame{}
	m.loops = append(m.loops, fr)
	defer func() { m.loops = m.loops[:len(m.loops)-1]; m.mask = in }()
	for it := 0; ; it++ {
		live := in &^ fr.broken
		c, why := m.evalUnder(s.Cond, live)
		if why != "" {
			m.skipBody(s.Body, "while loop: "+why)
			return
		}
		live &= truth(&c)
		if live == 0 || m.over {
			return
		}
		if it >= maxWhile {
			m.skipBody(s.Body, fmt.Sprintf("a while loop runs more than %d iterations", maxWhile))
			return
		}
		fr.cont = 0
		m.mask = live
		m.cpRun = false
		m.forget()
		m.block(s.Body)
		if fr.why != "" {
			// skipped code may have left the loop (taint.go)
			m.skipBody(s.Body, fr.why)
			return
		}
	}
}

// launchLoad evaluates e, a load of a buffer parameter whose contents a
// bind line gives (vals, row-major), in every active lane.
func (m *machine) launchLoad(dst *lanes, e *ir.Load, vals []int64) string {
	b := e.Buf
	if len(e.Indices) != len(b.Shape) {
		return "the value of " + b.Name + "[...] is not known: its indices do not name one element"
	}
	var flat lanes
	for k, x := range e.Indices {
		var v lanes
		if why := m.evalTo(&v, x); why != "" {
			return why
		}
		for i := range flat {
			flat[i] = flat[i]*max(b.Shape[k], 1) + v[i]
		}
	}
	for i := range dst {
		if m.mask&(1<<i) == 0 {
			continue
		}
		if flat[i] < 0 || flat[i] >= int64(len(vals)) {
			return fmt.Sprintf("%s[%d] is past the %d elements its bind line gives", b.Name, flat[i], len(vals))
		}
		dst[i] = vals[flat[i]]
	}
	return ""
}

// bindable returns the parameter of the kernel that b, a one-dimensional
// integer buffer, is (offsets or indices, whose contents a bind line may
// give under the parameter's name: the handle's of a T.match_buffer, the
// reason suggests it); nil for another buffer.
func (m *machine) bindable(b *ir.Buffer) *ir.Param {
	if b.Dtype.Code != ir.Int && b.Dtype.Code != ir.UInt || len(b.Shape) != 1 {
		return nil
	}
	for _, p := range m.fnParams() {
		if p.Buf == b {
			return p
		}
	}
	return nil
}

func (m *machine) evalUnder(e ir.Expr, mask uint32) (lanes, string) {
	save := m.mask
	m.mask = mask
	v, why := m.eval(e)
	m.mask = save
	return v, why
}

// ---- expressions ----

// dataWhy is what a load of a data register (dataregs.go) evaluates to.
const dataWhy = "a register's data"

func bcast(v int64) (l lanes) {
	for i := range l {
		l[i] = v
	}
	return l
}

// runtimeVar is the reason variable e, bound nowhere, has no value: a
// runtime value; for an integer scalar parameter of the kernel (or a
// scalar its body declares as a runtime extent, n = T.int32()), the bind
// line that gives it one (ir.Func.LaunchArgs).
func (m *machine) runtimeVar(e *ir.Var) string {
	if r, ok := m.reasons[e]; ok {
		return r
	}
	post := " is a runtime value"
	for _, p := range m.fnParams() {
		if p.Var == e && p.Buf == nil && isIntType(e.Type) {
			post += " (a `# tilels: bind " + e.Name + "=...` line above the kernel counts a launch with that value)"
			break
		}
	}
	return m.reason(e, "", e.Name, post)
}

func (m *machine) fnParams() []*ir.Param {
	if m.fn == nil {
		return nil
	}
	return m.fn.Params
}

func (m *machine) eval(e ir.Expr) (lanes, string) {
	var l lanes
	why := m.evalTo(&l, e)
	return l, why
}

// evalTo is eval writing into dst (every lane, the reason's too): a lane
// vector returned by value was copied at every level of an expression.
func (m *machine) evalTo(dst *lanes, e ir.Expr) string {
	switch e := e.(type) {
	case *ir.IntImm:
		*dst = bcast(e.Value)
		return ""
	case *ir.Var:
		b := m.vars.get(e)
		if b == nil {
			*dst = lanes{}
			return m.runtimeVar(e)
		}
		*dst = b.v
		return b.why
	case *ir.ThreadIndex:
		m.threadIndex(dst, e.Axis)
		return ""
	case *ir.Binary:
		return m.evalInto(dst, e)
	case *ir.Not:
		why := m.evalTo(dst, e.X)
		for i := range dst {
			dst[i] = b2i(dst[i] == 0)
		}
		return why
	case *ir.Neg:
		why := m.evalTo(dst, e.X)
		for i := range dst {
			dst[i] = -dst[i]
		}
		return why
	case *ir.Cast:
		why := m.evalTo(dst, e.X)
		if why == "" && e.To.IsFloat() {
			return "a floating-point value"
		}
		if e.To.Code == ir.Bool {
			for i := range dst {
				dst[i] = b2i(dst[i] != 0)
			}
		}
		return why
	case *ir.Select:
		why := m.evalTo(dst, e.Cond)
		if why == dataWhy && (neverKnown(e.Cond) || m.opaque(e.Cond)) {
			why = "a floating-point value" // (what the registers it reads hold is not kept: dataregs.go)
		}
		if why != "" {
			if reachesMemory(e.A) || reachesMemory(e.B) {
				m.unknown("a select on " + why + " chooses between memory accesses")
			}
			return why
		}
		t := truth(dst) & m.mask
		save := m.mask
		m.mask = t
		wa := m.evalTo(dst, e.A)
		var b lanes
		m.mask = save &^ t
		wb := m.evalTo(&b, e.B)
		m.mask = save
		if t != 0 && wa != "" {
			return wa
		}
		if m.mask&^t != 0 && wb != "" {
			*dst = b
			return wb
		}
		for i := range dst {
			if t&(1<<i) == 0 {
				dst[i] = b[i]
			}
		}
		return ""
	case *ir.Load:
		if e.Buf.Scope == "local" {
			return m.localLoadTo(dst, e)
		}
		m.load(e)
		*dst = lanes{}
		if vals, bound := m.data[e.Buf]; bound {
			return m.launchLoad(dst, e, vals)
		}
		why, ok := m.loadWhy[e.Buf]
		if !ok {
			why = "the value of " + e.Buf.Name + "[...] is runtime data"
			if p := m.bindable(e.Buf); p != nil {
				why += " (a `# tilels: bind " + p.Var.Name + "=[...]` line above the kernel counts a launch with those contents)"
			}
			if m.loadWhy == nil {
				m.loadWhy = map[*ir.Buffer]string{}
			}
			m.loadWhy[e.Buf] = why
		}
		return why
	case *ir.Call:
		v, why := m.call(e)
		*dst = v
		return why
	case *ir.FloatImm:
		*dst = lanes{}
		return "a floating-point value"
	case nil:
		*dst = lanes{}
		return "a missing value"
	}
	*dst = lanes{}
	return fmt.Sprintf("a %T value", e)
}

// threadIndex sets dst to the thread axis's value per lane (axisValue,
// the axis chosen once).
func (m *machine) threadIndex(dst *lanes, axis string) {
	switch axis {
	case "bx", "by", "bz":
		*dst = bcast(m.cta[axis[1]-'x'])
	case "tx":
		*dst = m.tid
	case "laneid":
		for i, t := range m.tid {
			dst[i] = t % 32
		}
	case "warpid":
		for i, t := range m.tid {
			dst[i] = t / 32
		}
	// (the warpgroup axes each with a loop of its own: axisValue's
	// switch on the name, per lane, was most of threadIndex)
	case "wgid":
		for i, t := range m.tid {
			dst[i] = t / 128
		}
	case "tid_in_wg":
		for i, t := range m.tid {
			dst[i] = t % 128
		}
	case "wid_in_wg":
		for i, t := range m.tid {
			dst[i] = (t / 32) % 4
		}
	default:
		for i, t := range m.tid {
			dst[i] = axisValue(axis, t)
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// binaryTo sets r to a op b lane by lane; r may be a or b.
func binaryTo(op ir.BinOp, r, a, b *lanes) string {
	// One loop per operator: a switch per lane was a third of the
	// analysis (BenchmarkMemoryOnly3000). The simple ones four lanes an
	// iteration (binaryConst).
	switch op {
	case ir.Add:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] + b[i]
			r[i+1] = a[i+1] + b[i+1]
			r[i+2] = a[i+2] + b[i+2]
			r[i+3] = a[i+3] + b[i+3]
		}
	case ir.Sub:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] - b[i]
			r[i+1] = a[i+1] - b[i+1]
			r[i+2] = a[i+2] - b[i+2]
			r[i+3] = a[i+3] - b[i+3]
		}
	case ir.Mul:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] * b[i]
			r[i+1] = a[i+1] * b[i+1]
			r[i+2] = a[i+2] * b[i+2]
			r[i+3] = a[i+3] * b[i+3]
		}
	case ir.FloorDiv, ir.Div:
		for i := range r {
			if y := b[i]; y > 0 && a[i] >= 0 {
				r[i] = a[i] / y
			} else if y != 0 {
				r[i] = floorDiv(a[i], y)
			} else {
				r[i] = 0
			}
		}
	case ir.FloorMod:
		for i := range r {
			if y := b[i]; y > 0 && a[i] >= 0 {
				r[i] = a[i] % y
			} else if y != 0 {
				r[i] = floorMod(a[i], y)
			} else {
				r[i] = 0
			}
		}
	case ir.Min:
		for i := 0; i < 29; i += 4 {
			r[i] = min(a[i], b[i])
			r[i+1] = min(a[i+1], b[i+1])
			r[i+2] = min(a[i+2], b[i+2])
			r[i+3] = min(a[i+3], b[i+3])
		}
	case ir.Max:
		for i := 0; i < 29; i += 4 {
			r[i] = max(a[i], b[i])
			r[i+1] = max(a[i+1], b[i+1])
			r[i+2] = max(a[i+2], b[i+2])
			r[i+3] = max(a[i+3], b[i+3])
		}
	case ir.EQ:
		for i := range r {
			r[i] = b2i(a[i] == b[i])
		}
	case ir.NE:
		for i := range r {
			r[i] = b2i(a[i] != b[i])
		}
	case ir.LT:
		for i := range r {
			r[i] = b2i(a[i] < b[i])
		}
	case ir.LE:
		for i := range r {
			r[i] = b2i(a[i] <= b[i])
		}
	case ir.GT:
		for i := range r {
			r[i] = b2i(a[i] > b[i])
		}
	case ir.GE:
		for i := range r {
			r[i] = b2i(a[i] >= b[i])
		}
	case ir.And:
		for i := range r {
			r[i] = b2i(a[i] != 0 && b[i] != 0)
		}
	case ir.Or:
		for i := range r {
			r[i] = b2i(a[i] != 0 || b[i] != 0)
		}
	case ir.BitAnd:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] & b[i]
			r[i+1] = a[i+1] & b[i+1]
			r[i+2] = a[i+2] & b[i+2]
			r[i+3] = a[i+3] & b[i+3]
		}
	case ir.BitOr:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] | b[i]
			r[i+1] = a[i+1] | b[i+1]
			r[i+2] = a[i+2] | b[i+2]
			r[i+3] = a[i+3] | b[i+3]
		}
	case ir.BitXor:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] ^ b[i]
			r[i+1] = a[i+1] ^ b[i+1]
			r[i+2] = a[i+2] ^ b[i+2]
			r[i+3] = a[i+3] ^ b[i+3]
		}
	case ir.Shl:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] << uint(b[i]&63)
			r[i+1] = a[i+1] << uint(b[i+1]&63)
			r[i+2] = a[i+2] << uint(b[i+2]&63)
			r[i+3] = a[i+3] << uint(b[i+3]&63)
		}
	case ir.Shr:
		for i := 0; i < 29; i += 4 {
			r[i] = a[i] >> uint(b[i]&63)
			r[i+1] = a[i+1] >> uint(b[i+1]&63)
			r[i+2] = a[i+2] >> uint(b[i+2]&63)
			r[i+3] = a[i+3] >> uint(b[i+3]&63)
		}
	default:
		*r = lanes{}
		return fmt.Sprintf("operator %d", op)
	}
	return ""
}

// binaryConst sets r to r op c lane by lane (the common index forms
// x*c, x+c, x//c, x%c without broadcasting c).
func binaryConst(op ir.BinOp, r *lanes, c int64) string {
	// (the simple operations four lanes an iteration: a third of the
	// instructions of one lane an iteration; no bounds check either way)
	switch op {
	case ir.Add:
		for i := 0; i < 29; i += 4 {
			r[i] += c
			r[i+1] += c
			r[i+2] += c
			r[i+3] += c
		}
	case ir.Sub:
		for i := 0; i < 29; i += 4 {
			r[i] -= c
			r[i+1] -= c
			r[i+2] -= c
			r[i+3] -= c
		}
	case ir.Mul:
		for i := 0; i < 29; i += 4 {
			r[i] *= c
			r[i+1] *= c
			r[i+2] *= c
			r[i+3] *= c
		}
	case ir.FloorDiv, ir.Div:
		if c <= 0 {
			b := bcast(c)
			return binaryTo(op, r, r, &b)
		}
		if c&(c-1) == 0 { // a power of two: floor division is a shift
			s := uint(bits.TrailingZeros64(uint64(c)))
			for i := 0; i < 29; i += 4 {
				r[i] >>= s
				r[i+1] >>= s
				r[i+2] >>= s
				r[i+3] >>= s
			}
			break
		}
		for i := range r {
			if r[i] >= 0 {
				r[i] /= c
			} else {
				r[i] = floorDiv(r[i], c)
			}
		}
	case ir.FloorMod:
		if c <= 0 {
			b := bcast(c)
			return binaryTo(op, r, r, &b)
		}
		if c&(c-1) == 0 { // a power of two: the floor modulo is a mask
			for i := 0; i < 29; i += 4 {
				r[i] &= c - 1
				r[i+1] &= c - 1
				r[i+2] &= c - 1
				r[i+3] &= c - 1
			}
			break
		}
		for i := range r {
			if r[i] >= 0 {
				r[i] %= c
			} else {
				r[i] = floorMod(r[i], c)
			}
		}
	case ir.BitAnd: // the swizzles' bit operations
		for i := 0; i < 29; i += 4 {
			r[i] &= c
			r[i+1] &= c
			r[i+2] &= c
			r[i+3] &= c
		}
	case ir.BitOr:
		for i := 0; i < 29; i += 4 {
			r[i] |= c
			r[i+1] |= c
			r[i+2] |= c
			r[i+3] |= c
		}
	case ir.BitXor:
		for i := 0; i < 29; i += 4 {
			r[i] ^= c
			r[i+1] ^= c
			r[i+2] ^= c
			r[i+3] ^= c
		}
	case ir.Shl:
		s := uint(c & 63)
		for i := 0; i < 29; i += 4 {
			r[i] <<= s
			r[i+1] <<= s
			r[i+2] <<= s
			r[i+3] <<= s
		}
	case ir.Shr:
		s := uint(c & 63)
		for i := 0; i < 29; i += 4 {
			r[i] >>= s
			r[i+1] >>= s
			r[i+2] >>= s
			r[i+3] >>= s
		}
	default:
		b := bcast(c)
		return binaryTo(op, r, r, &b)
	}
	return ""
}

// evalInto is eval writing into dst: sums and products of indices
// recurse without copying lane vectors.
func (m *machine) evalInto(dst *lanes, e ir.Expr) string {
	uni, why := m.evalU(dst, e)
	if uni {
		*dst = bcast(dst[0])
	}
	return why
}

// evalU is evalInto that may leave only dst[0] set: when uni is true,
// every lane's value is dst[0]. Constants, variables whose lanes are
// equal (binding.uni: loop counters, CTA and warp indices, scalars
// computed from them) and the arithmetic over them are computed once for
// the warp: in the corpus's kernels 83 % of the operations with a
// constant operand and 67 % of the others had all lanes equal.
func (m *machine) evalU(dst *lanes, e ir.Expr) (uni bool, why string) {
	switch e := e.(type) {
	case *ir.IntImm:
		dst[0] = e.Value
		return true, ""
	case *ir.Var:
		b := m.vars.get(e)
		if b == nil {
			*dst = lanes{}
			return false, m.runtimeVar(e)
		}
		if b.uni {
			dst[0] = b.v[0]
			return true, b.why
		}
		*dst = b.v
		return false, b.why
	case *ir.ThreadIndex:
		m.threadIndex(dst, e.Axis)
		return false, ""
	case *ir.Binary:
		ua, wa := m.evalU(dst, e.A)
		if c, ok := e.B.(*ir.IntImm); ok {
			if wa != "" {
				return ua, wa
			}
			if ua {
				v, why := scalarBinary(e.Op, dst[0], c.Value)
				if why != "" {
					*dst = lanes{}
					return false, why
				}
				dst[0] = v
				return true, ""
			}
			return false, binaryConst(e.Op, dst, c.Value)
		}
		var b lanes
		ub, wb := m.evalU(&b, e.B)
		if wa != "" {
			return ua, wa
		}
		if wb != "" {
			if ub {
				b = bcast(b[0])
			}
			*dst = b
			return false, wb
		}
		if ua && ub {
			v, why := scalarBinary(e.Op, dst[0], b[0])
			if why != "" {
				*dst = lanes{}
				return false, why
			}
			dst[0] = v
			return true, ""
		}
		if ub {
			// a op c lane by lane, as for a constant c
			return false, binaryConst(e.Op, dst, b[0])
		}
		if ua {
			if commutes(e.Op) {
				// c op b is b op c: the uniform bit of a swizzle's
				// signed-stride term times the per-lane stride
				c := dst[0]
				*dst = b
				return false, binaryConst(e.Op, dst, c)
			}
			*dst = bcast(dst[0])
		}
		return false, binaryTo(e.Op, dst, dst, &b)
	}
	return false, m.evalTo(dst, e)
}

// commutes reports whether a op b is b op a for every a and b of op's
// operands (binaryTo's lanes).
func commutes(op ir.BinOp) bool {
	switch op {
	case ir.Add, ir.Mul, ir.Min, ir.Max, ir.EQ, ir.NE, ir.And, ir.Or, ir.BitAnd, ir.BitOr, ir.BitXor:
		return true
	}
	return false
}

// scalarBinary is binaryTo for one lane (TestScalarBinary checks that
// they agree on every operator).
func scalarBinary(op ir.BinOp, a, b int64) (int64, string) {
	switch op {
	case ir.Add:
		return a + b, ""
	case ir.Sub:
		return a - b, ""
	case ir.Mul:
		return a * b, ""
	case ir.FloorDiv, ir.Div:
		if b > 0 && a >= 0 {
			return a / b, ""
		} else if b != 0 {
			return floorDiv(a, b), ""
		}
		return 0, ""
	case ir.FloorMod:
		if b > 0 && a >= 0 {
			return a % b, ""
		} else if b != 0 {
			return floorMod(a, b), ""
		}
		return 0, ""
	case ir.Min:
		return min(a, b), ""
	case ir.Max:
		return max(a, b), ""
	case ir.EQ:
		return b2i(a == b), ""
	case ir.NE:
		return b2i(a != b), ""
	case ir.LT:
		return b2i(a < b), ""
	case ir.LE:
		return b2i(a <= b), ""
	case ir.GT:
		return b2i(a > b), ""
	case ir.GE:
		return b2i(a >= b), ""
	case ir.And:
		return b2i(a != 0 && b != 0), ""
	case ir.Or:
		return b2i(a != 0 || b != 0), ""
	case ir.BitAnd:
		return a & b, ""
	case ir.BitOr:
		return a | b, ""
	case ir.BitXor:
		return a ^ b, ""
	case ir.Shl:
		return a << uint(b&63), ""
	case ir.Shr:
		return a >> uint(b&63), ""
	}
	return 0, fmt.Sprintf("operator %d", op)
}

// ---- pointers and addresses ----

// ptr is a per-lane byte address into the storage of a root buffer.
type ptr struct {
	buf   *ir.Buffer // the root buffer (allocation or parameter)
	view  *ir.Buffer // the buffer whose element type the pointer has
	addr  lanes
	align int64 // provable alignment of addr in bytes
}

func elemBytes(d ir.DataType) int64 {
	b := int64(d.Bits)
	if b < 8 {
		return 1
	}
	return b / 8
}

// base returns the root buffer of b and b's byte offset into it.
func (m *machine) base(b *ir.Buffer) (*ir.Buffer, lanes, int64, string) {
	var off lanes
	root, align, why := m.baseTo(&off, b)
	return root, off, align, why
}

// baseTo is base setting off (every lane) to the byte offset.
func (m *machine) baseTo(off *lanes, b *ir.Buffer) (*ir.Buffer, int64, string) {
	*off = lanes{}
	align := int64(64)
	if b.Scope == "global" {
		align = 256
	}
	root := b
	for root.Base != nil || root.PtrBase != nil || (root.Kind == ir.ParamBuffer && root.ElemOffset != 0) {
		eb := elemBytes(root.Dtype)
		if root.ElemOffsetExpr != nil {
			v, why := m.eval(root.ElemOffsetExpr)
			if why != "" {
				return nil, 0, why
			}
			for i := range off {
				off[i] += v[i] * eb
			}
			align = gcd(align, m.div(root.ElemOffsetExpr)*eb)
		}
		for i := range off {
			off[i] += root.ElemOffset * eb
		}
		align = gcd(align, root.ElemOffset*eb)
		if root.Base == nil {
			if root.PtrBase != nil {
				// a view on a pointer into a root (ir.Buffer.PtrBase)
				for i := range off {
					off[i] += root.PtrOffset
				}
				align = gcd(align, root.PtrOffset)
				root = root.PtrBase
			}
			break
		}
		if root.Base.Kind == ir.DeclBuffer && root.Base.ElemOffsetExpr != nil && root.ElemOffsetExpr != nil {
			// a view of a view at a runtime offset: the inner offset
			// already includes the outer one (codegen's viewOffset)
			v, _ := m.eval(root.Base.ElemOffsetExpr)
			for i := range off {
				off[i] -= v[i] * elemBytes(root.Base.Dtype)
			}
		}
		if root.Base.Kind == ir.DeclBuffer && root.Base.ElemOffset != 0 {
			for i := range off {
				off[i] -= root.Base.ElemOffset * elemBytes(root.Base.Dtype)
			}
		}
		root = root.Base
	}
	return root, align, ""
}

// runtimeShape keys the reason of a buffer's runtime shape (machine.reason;
// the buffer itself keys another reason).
type runtimeShape struct{ b *ir.Buffer }

// elemAddr is the element offset of b[idx] in b's storage, per lane.
func (m *machine) elemAddr(b *ir.Buffer, idx []ir.Expr) (lanes, string) {
	var l lanes
	why := m.elemAddrTo(&l, b, idx)
	return l, why
}

// elemAddrTo is elemAddr writing into out (every lane).
func (m *machine) elemAddrTo(out *lanes, b *ir.Buffer, idx []ir.Expr) string {
	if len(idx) != len(b.Shape) {
		*out = lanes{}
		return fmt.Sprintf("%d indices for the rank-%d buffer %s", len(idx), len(b.Shape), b.Name)
	}
	if b.RuntimeDim() >= 0 && b.Layout != nil {
		*out = lanes{}
		return m.reason(runtimeShape{b}, "buffer ", b.Name, " has a runtime shape")
	}
	if v, ok := m.constElem(b, idx); ok {
		*out = bcast(v)
		return "" // every index a constant: one element
	}
	if affineAddrs {
		if a := m.affineOf(b, idx); a.ok {
			return m.affineAddrTo(out, a) // affine.go
		}
	}
	var small [8]lanes // (rank-5 and rank-6 views: 4 made most of them allocate)
	vals := small[:0]
	if len(idx) > len(small) {
		vals = make([]lanes, 0, len(idx))
	}
	vals = vals[:len(idx)]
	uniform := true // every active lane indexes the same element
	first := bits.TrailingZeros32(m.mask | 1<<31)
	for d, x := range idx {
		// into its slot: no copy of the lane vector
		if why := m.evalInto(&vals[d], x); why != "" {
			*out = vals[d]
			return why
		}
		v := &vals[d]
		if uniform {
			for i := range 32 {
				if m.mask&(1<<i) != 0 && v[i] != v[first] {
					uniform = false
					break
				}
			}
		}
	}
	*out = lanes{}
	switch l := b.Layout.(type) {
	case nil:
		if b.RuntimeDim() > 0 {
			// (an outermost runtime extent strides nothing: row-major
			// addresses need only the inner extents)
			return m.reason(runtimeShape{b}, "buffer ", b.Name, " has a runtime shape")
		}
		stride := int64(1)
		for d := len(idx) - 1; d >= 0; d-- {
			for i := range out {
				out[i] += vals[d][i] * stride
			}
			stride *= b.Shape[d]
		}
		return ""
	case *layout.TileLayout:
		if l.HasThreadAxis() {
			return fmt.Sprintf("buffer %s has thread axes in its layout", b.Name)
		}
	case *layout.ComposeLayout:
	default:
		return fmt.Sprintf("layout %T", l)
	}
	if ln := m.linearOf(b); ln.ok {
		// a layout that maps coordinates linearly (each dimension one
		// shard iter, as ShapeApplier then computes it): no per-lane call
		if uniform {
			v := ln.off
			for d := range idx {
				v += vals[d][first] * ln.strides[d]
			}
			if ln.swz != nil {
				v = ln.swz.SwizzleAddr(v)
			}
			*out = bcast(v)
			return ""
		}
		for i := range out {
			if m.mask&(1<<i) == 0 {
				continue
			}
			v := ln.off
			for d := range idx {
				v += vals[d][i] * ln.strides[d]
			}
			if ln.swz != nil {
				v = ln.swz.SwizzleAddr(v)
			}
			out[i] = v
		}
		return ""
	}
	ap := m.applier(b)
	if cap(m.coord) < len(idx) {
		m.coord = make([]int64, len(idx))
	}
	c := m.coord[:len(idx)]
	if uniform {
		// one element for all lanes (&buf[0] + per-lane offsets, the
		// lowered copies' form): apply the layout once
		for d := range idx {
			c[d] = vals[d][first]
		}
		*out = bcast(ap(c))
		return ""
	}
	for i := range out {
		if m.mask&(1<<i) == 0 {
			continue
		}
		for d := range idx {
			c[d] = vals[d][i]
		}
		out[i] = ap(c)
	}
	return ""
}

// constElem is the element offset of b[idx] when every index is an
// integer constant (a register table's [0], a stage slot), computed once
// for all lanes; ok is false otherwise, or when b's layout is not one
// elemAddr maps without a reason.
func (m *machine) constElem(b *ir.Buffer, idx []ir.Expr) (int64, bool) {
	if len(idx) > len(m.ccoord) || b.RuntimeDim() >= 0 {
		return 0, false
	}
	// the machine's scratch: a local array escaped through the
	// applier's call (a tenth of the golden programs' allocation)
	c := m.ccoord[:len(idx)]
	for d, x := range idx {
		k, ok := x.(*ir.IntImm)
		if !ok {
			return 0, false
		}
		c[d] = k.Value
	}
	cm := m.constMaps[b]
	if cm == nil {
		cm = m.constMapOf(b)
	}
	switch cm.kind {
	case constRowMajor:
		v, stride := int64(0), int64(1)
		for d := len(c) - 1; d >= 0; d-- {
			v += c[d] * stride
			stride *= b.Shape[d]
		}
		return v, true
	case constLinear:
		v := cm.ln.off
		for d := range c {
			v += c[d] * cm.ln.strides[d]
		}
		if cm.ln.swz != nil {
			v = cm.ln.swz.SwizzleAddr(v)
		}
		return v, true
	case constApplier:
		return m.applier(b)(c), true
	}
	return 0, false
}

// constMap is how constElem maps a buffer's constant coordinates, worked
// out once per buffer and analysis.
type constMap struct {
	kind uint8
	ln   linear
}

const (
	constNone     uint8 = iota // elemAddr's per-lane path (or its reason)
	constRowMajor              // no layout: row-major over the shape
	constLinear                // ln
	constApplier               // the layout's applier
)

func (m *machine) constMapOf(b *ir.Buffer) *constMap {
	cm := &constMap{}
	switch l := b.Layout.(type) {
	case nil:
		cm.kind = constRowMajor
	case *layout.TileLayout:
		if !l.HasThreadAxis() {
			cm.kind = constApplier
		}
	case *layout.ComposeLayout:
		cm.kind = constApplier
	}
	if cm.kind == constApplier {
		if ln := m.linearOf(b); ln.ok {
			cm.kind, cm.ln = constLinear, ln
		}
	}
	if m.constMaps == nil {
		m.constMaps = map[*ir.Buffer]*constMap{}
	}
	m.constMaps[b] = cm
	return cm
}

// linear is a buffer layout that maps a coordinate c to off + sum of
// c[d]*strides[d] (then through swz's swizzle when swz is set).
type linear struct {
	ok      bool
	off     int64
	strides []int64
	swz     *layout.ComposeLayout
}

// linearOf returns b's layout as a linear map when it is one: a tile
// layout (or a swizzle's tile) that groups against b's shape with at most
// one shard iter per dimension, for which ShapeApplier computes exactly
// the offset of the M iters plus each coordinate times its iter's stride
// (a single-iter group takes the coordinate whole); a swizzle over a
// trivial tile of another size flattens row-major (FlattenCoord).
func (m *machine) linearOf(b *ir.Buffer) linear {
	if l, ok := m.linears[b]; ok {
		return l
	}
	var l linear
	switch t := b.Layout.(type) {
	case *layout.TileLayout:
		l = tileLinear(t, b.Shape)
	case *layout.ComposeLayout:
		if layout.IsTrivial(t.Tile) && layout.Size(t.Tile, nil) != b.NumElements() {
			l = linear{ok: true, strides: make([]int64, len(b.Shape))}
			s := int64(1)
			for d := len(b.Shape) - 1; d >= 0; d-- {
				l.strides[d] = s
				s *= b.Shape[d]
			}
		} else {
			l = tileLinear(t.Tile, b.Shape)
		}
		l.swz = t
	}
	m.linears[b] = l
	return l
}

func tileLinear(t *layout.TileLayout, shape []int64) linear {
	g, seps, ok := layout.TryGroup(t, shape)
	if !ok || len(seps) != len(shape)+1 {
		return linear{}
	}
	l := linear{ok: true, off: g.Offset[layout.M], strides: make([]int64, len(shape))}
	for d := range shape {
		switch seps[d+1] - seps[d] {
		case 0:
		case 1:
			if it := g.Shard[seps[d]]; it.Axis == layout.M {
				l.strides[d] = it.Stride
			}
		default:
			return linear{}
		}
	}
	return l
}

// applier returns coord -> physical element offset of b (swizzle included).
func (m *machine) applier(b *ir.Buffer) func([]int64) int64 {
	if f, ok := m.appliers[b]; ok {
		return f
	}
	var f func([]int64) int64
	switch l := b.Layout.(type) {
	case *layout.TileLayout:
		f = layout.ShapeApplier(l, b.Shape, layout.M)
	case *layout.ComposeLayout:
		tile := l.Tile
		var inner func([]int64) int64
		if layout.IsTrivial(tile) && layout.Size(tile, nil) != b.NumElements() {
			shape := b.Shape
			inner = func(c []int64) int64 { return layout.FlattenCoord(c, shape) }
		} else {
			inner = layout.ShapeApplier(tile, b.Shape, layout.M)
		}
		f = func(c []int64) int64 { return l.SwizzleAddr(inner(c)) }
	}
	m.appliers[b] = f
	return f
}

// pointer evaluates a pointer expression.
func (m *machine) pointer(e ir.Expr) (ptr, string) {
	var p ptr
	why := m.pointerTo(&p, e)
	return p, why
}

// pointerTo is pointer writing into p (its 300 bytes were copied at
// every level of a pointer's evaluation, for every access; p is not
// meaningful when the reason is not "").
func (m *machine) pointerTo(p *ptr, e ir.Expr) string {
	switch e := e.(type) {
	case *ir.Call:
		if e.Op == "reinterpret" && len(e.Args) == 1 {
			return m.pointerTo(p, e.Args[0]) // a typed pointer
		}
		if (e.Op == ir.OpPointerOffset || byteOffsetOp(e)) && len(e.Args) >= 2 {
			// T.tvm_builtin_pointer_offset(base, elements),
			// T.ptx.addr(base, byte_offset)
			if why := m.pointerTo(p, e.Args[0]); why != "" {
				return why
			}
			var off lanes
			if why := m.evalInto(&off, e.Args[1]); why != "" {
				return why
			}
			eb := int64(1)
			if e.Op == ir.OpPointerOffset {
				eb = elemBytes(p.view.Dtype)
			}
			for i := range off {
				p.addr[i] += off[i] * eb
			}
			if m.needAlign(p.buf) {
				p.align = gcd(p.align, m.div(e.Args[1])*eb)
			}
			return ""
		}
	case *ir.Cast:
		return m.pointerTo(p, e.X)
	case *ir.Var:
		// a pointer variable (p: T.let = T.reinterpret(PointerType(...),
		// A.ptr_to([i]))): where its value points
		if v := m.lets.get(e); v != nil && isPointer(v) {
			return m.pointerTo(p, v)
		}
	case *ir.BufferData:
		root, align, why := m.baseTo(&p.addr, e.Buf)
		p.buf, p.view, p.align = root, e.Buf, align
		return why
	case *ir.AddressOf:
		return m.addressOfNode(p, e)
	}
	*p = ptr{}
	return fmt.Sprintf("pointer %T is not modelled", e)
}

// addressOfNode is addressOf for the node e, computed once per analysis
// when it is a constant (constAddress): the lowered copies' base pointer
// &A_s[0], which every iteration of a swizzled copy took again (a tenth
// of old_dialect_gemm's analysis).
func (m *machine) addressOfNode(p *ptr, e *ir.AddressOf) string {
	if !constAddress(e) {
		return m.addressOfTo(p, e.Buf, e.Indices, e.FlatIndex)
	}
	i := b2i(m.needAlign(e.Buf))
	if j, ok := m.cptrs[i][e]; ok {
		*p = m.cptrVals[j]
		return ""
	}
	why := m.addressOfTo(p, e.Buf, e.Indices, e.FlatIndex)
	if why == "" {
		if m.cptrs[i] == nil {
			m.cptrs[i] = map[*ir.AddressOf]int32{}
		}
		m.cptrs[i][e] = int32(len(m.cptrVals))
		m.cptrVals = append(m.cptrVals, *p)
	}
	return why
}

// constAddress reports whether &e.Buf[e.Indices] is the same in every
// lane, warp, CTA and iteration: constant indices, and no runtime
// element offset from the buffer to its root (base).
func constAddress(e *ir.AddressOf) bool {
	for _, x := range e.Indices {
		if _, ok := x.(*ir.IntImm); !ok {
			return false
		}
	}
	for b := e.Buf; b != nil; b = b.Base {
		if b.ElemOffsetExpr != nil {
			return false
		}
	}
	return true
}

// addressOf evaluates &buf[indices] (a flat element index when flat).
func (m *machine) addressOf(buf *ir.Buffer, indices []ir.Expr, flat bool) (ptr, string) {
	var p ptr
	why := m.addressOfTo(&p, buf, indices, flat)
	return p, why
}

// addressOfTo is addressOf writing into p (pointerTo).
func (m *machine) addressOfTo(p *ptr, buf *ir.Buffer, indices []ir.Expr, flat bool) string {
	off := &p.addr
	root, align, why := m.baseTo(off, buf)
	if why != "" {
		*p = ptr{}
		return why
	}
	eb := elemBytes(buf.Dtype)
	// The alignment matters only to the merging of a shared access inside
	// an unroll loop (flush); elsewhere its three walks of the indices
	// were a fifth of an access's cost.
	needAlign := m.needAlign(buf)
	var el lanes
	d := int64(1)
	if flat {
		if len(indices) != 1 {
			*p = ptr{}
			return "a flat address with several indices"
		}
		if why = m.evalInto(&el, indices[0]); why != "" {
			*p = ptr{}
			return why
		}
		if needAlign {
			d = m.div(indices[0])
		}
	} else {
		if why = m.elemAddrTo(&el, buf, indices); why != "" {
			*p = ptr{}
			return why // no divisibility of an address not known
		}
		if needAlign {
			d = m.divIndex(buf, indices)
		}
	}
	if needAlign {
		if c, ok := m.constIndex(indices, el); ok {
			d = c
		} else if m.unrolledApart(buf, indices, flat) {
			d = 1 // (halfloads.go)
		}
	}
	for i := range off {
		off[i] += el[i] * eb
	}
	p.buf, p.view, p.align = root, buf, gcd(align, d*eb)
	return ""
}

// needAlign reports whether an access of buf needs its provable
// alignment: only a shared access inside an unroll loop is merged
// (flush); elsewhere the alignment walks were a tenth of the golden
// programs' analysis.
func (m *machine) needAlign(buf *ir.Buffer) bool {
	return m.inUnr > 0 && buf != nil && scopeOf(buf) != "global"
}

// divIndex is the provable divisibility (in elements) of the element
// offset of b[idx]: for a row-major buffer (or no layout) the gcd of each
// index's divisibility times its stride; 1 otherwise.
func (m *machine) divIndex(b *ir.Buffer, idx []ir.Expr) int64 {
	switch b.Layout.(type) {
	case nil:
	case *layout.TileLayout:
		if !m.rowMajorBuf(b) {
			return 1
		}
	default:
		return 1
	}
	g := int64(0)
	s := int64(1)
	for d := len(idx) - 1; d >= 0; d-- {
		g = gcd(g, m.div(idx[d])*s)
		if d < len(b.Shape) {
			s *= b.Shape[d]
		}
	}
	if g == 0 {
		return 1 << 20
	}
	return g
}

const bigDiv = 1 << 20

// div is the largest power-of-two-friendly divisor of e that the compiler
// can prove: constants (and an unroll loop's variable, a constant in each
// unrolled copy) exactly, thread indices and other variables 1, sums the
// gcd, products the product. 0 divides everything (bigDiv).
func (m *machine) div(e ir.Expr) int64 {
	d, _, _ := m.divFoldKept(e) // (which looks in m.divs first)
	return d
}

// divFolded is a divFold result kept for the rest of the analysis.
type divFolded struct {
	d, c    int64
	isConst bool
}

// divFoldKept is divFold with its results kept in m.divs when they
// cannot change: the walk met no unroll loop's variable (its value is
// the iteration's), no variable an Assign sets (its let value is
// forgotten there) and no variable not bound yet. A let's value is the
// same expression in every warp and iteration, so the swizzles' index
// lets (base_off, hundreds of nodes) are walked once per kernel, not at
// every access: swizzled_smem_copy.txtar's analysis spent 15 % of its
// time in divFold, now 8 % (what is left is the index over the unrolled
// copy's variable, which changes at every iteration).
func (m *machine) divFoldKept(e ir.Expr) (d, c int64, isConst bool) {
	if k, ok := m.divs[e]; ok {
		return k.d, k.c, k.isConst
	}
	save := m.divMoved
	m.divMoved = false
	d, c, isConst = m.divFold(e)
	if !m.divMoved {
		if m.divs == nil {
			m.divs = map[ir.Expr]divFolded{}
		}
		m.divs[e] = divFolded{d, c, isConst}
	}
	m.divMoved = m.divMoved || save
	return d, c, isConst
}

// divFold is div(e) together with unrolledConst(e), in one walk: div of a
// sum asked unrolledConst of every subexpression again, quadratic in the
// depth of the swizzles' index expressions.
func (m *machine) divFold(e ir.Expr) (d, c int64, isConst bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return constDiv(e.Value), e.Value, true
	case *ir.Var:
		if m.isUnrolled(e) {
			m.divMoved = true
			if b := m.vars.get(e); b != nil {
				return constDiv(b.v[0]), b.v[0], true
			}
		}
		if m.assigned[e] || m.vars.get(e) == nil {
			m.divMoved = true
		}
		if v, ok := m.lets.lookup(e); ok {
			return m.divFoldKept(v)
		}
		return 1, 0, false
	case *ir.Binary:
		a, ca, okA := m.divFold(e.A)
		b, cb, okB := m.divFold(e.B)
		if okA && okB {
			if c, ok := foldConst(e.Op, ca, cb); ok {
				// every leaf is a constant in this unrolled copy: nvcc
				// folds the index and knows its exact alignment
				return constDiv(c), c, true
			}
		}
		switch e.Op {
		case ir.Add, ir.Sub, ir.Min, ir.Max:
			return gcd(a, b), 0, false
		case ir.Mul:
			return min(a*b, bigDiv), 0, false
		case ir.Shl:
			if c, ok := ir.ConstInt(e.B); ok && c < 20 {
				return min(a<<c, bigDiv), 0, false
			}
		case ir.FloorMod:
			if _, ok := ir.ConstInt(e.B); ok {
				return gcd(a, b), 0, false
			}
		case ir.FloorDiv:
			if c, ok := ir.ConstInt(e.B); ok && c > 0 && a%c == 0 {
				return a / c, 0, false
			}
		case ir.BitXor, ir.BitOr:
			return int64(1) << min(tz(a), tz(b)), 0, false
		case ir.BitAnd:
			return int64(1) << max(tz(a), tz(b)), 0, false
		}
		return 1, 0, false
	case *ir.Cast:
		return m.divFold(e.X)
	case *ir.Select:
		a, _, _ := m.divFold(e.A)
		b, _, _ := m.divFold(e.B)
		return gcd(a, b), 0, false
	}
	return 1, 0, false
}

// constDiv is the divisibility of the constant c (bigDiv for 0).
func constDiv(c int64) int64 {
	if c == 0 {
		return bigDiv
	}
	return abs(c)
}

func tz(x int64) int {
	if x >= bigDiv {
		return 20
	}
	return bits.TrailingZeros64(uint64(x))
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// gcd is the greatest common divisor of |a| and |b| (gcd(x, 0) = |x|),
// by the binary method: the divisibilities it combines are mostly powers
// of two, and Euclid's divisions were 8 % of the analysis of the golden
// programs.
func gcd(a, b int64) int64 {
	x, y := uint64(abs(a)), uint64(abs(b))
	if x == 0 {
		return int64(y)
	}
	if y == 0 {
		return int64(x)
	}
	k := bits.TrailingZeros64(x | y)
	x >>= bits.TrailingZeros64(x)
	for y != 0 {
		y >>= bits.TrailingZeros64(y)
		if x > y {
			x, y = y, x
		}
		y -= x
	}
	return int64(x << k)
}

// ---- memory statements ----

func scopeOf(b *ir.Buffer) string {
	switch b.Scope {
	case "shared", "shared.dyn":
		return "shared"
	case "global":
		return "global"
	}
	return ""
}

// localLoad returns the value of a register buffer element.
func (m *machine) localLoad(e *ir.Load) (lanes, string) {
	var l lanes
	why := m.localLoadTo(&l, e)
	return l, why
}

// localLoadTo is localLoad writing into dst.
func (m *machine) localLoadTo(dst *lanes, e *ir.Load) string {
	if len(m.regs) > 0 {
		m.regElemRead(e.Buf, e.Indices) // regs.go
	}
	if m.dataRegSet().get(rootOf(e.Buf)) {
		for _, x := range e.Indices {
			if touchesMemory(x) {
				m.eval(x)
			}
		}
		*dst = lanes{}
		return dataWhy // (read nowhere it matters)
	}
	var idx lanes
	if why := m.elemAddrTo(&idx, e.Buf, e.Indices); why != "" {
		*dst = idx
		return why
	}
	*dst = lanes{}
	out := dst
	mem := m.local.get(e.Buf)
	var b *binding
	last := int64(-1)
	for i := range 32 {
		if m.mask&(1<<i) == 0 {
			continue
		}
		if idx[i] != last || b == nil {
			// lanes mostly index the same element: one lookup for them
			b, last = mem.get(idx[i]), idx[i]
		}
		if b == nil || b.why != "" || b.v[i]>>62 == 1 {
			if b != nil && b.why != "" {
				return b.why
			}
			if why, ok := m.poison[e.Buf]; ok {
				return why // written by skipped code (taint.go)
			}
			return m.reason(unknownLocal{e.Buf}, "the value of ", e.Buf.Name, "[...] is not known statically")
		}
		out[i] = b.v[i]
	}
	return ""
}

// unknownLocal keys the reason of a register buffer element not known
// (machine.reason: formatting it at each load was a sixth of the analysis
// of nvfp4_gemm.py, whose schedulers read such registers in every loop).
type unknownLocal struct{ b *ir.Buffer }

// unset marks a lane of a local element never written.
const unset = int64(1) << 62

// localStore writes a register buffer element.
func (m *machine) localStore(s *ir.Store) {
	if m.dataRegSet().get(rootOf(s.Buf)) {
		// data (dataregs.go): only the accesses inside count
		for _, x := range s.Indices {
			if touchesMemory(x) {
				m.eval(x)
			}
		}
		if touchesMemory(s.Value) {
			m.eval(s.Value)
		}
		return
	}
	idx, why := m.elemAddr(s.Buf, s.Indices)
	if why != "" {
		return // an unknown element: loads of the buffer say so
	}
	val, vwhy := m.eval(s.Value)
	m.localSet(s.Buf, &idx, &val, vwhy)
}

// localSet writes val (vwhy: unknown, and why) at element idx of register
// buffer buf in the active lanes.
func (m *machine) localSet(buf *ir.Buffer, idx, val *lanes, vwhy string) {
	if m.rec != nil {
		m.recordLocal(buf, idx, vwhy) // loops.go
	}
	mem := m.local.get(buf)
	if mem == nil {
		mem = &regElems{}
		m.local.set(buf, mem)
	}
	var b *binding
	last := int64(-1)
	for i := range 32 {
		if m.mask&(1<<i) == 0 {
			continue
		}
		if idx[i] != last || b == nil {
			b, last = mem.get(idx[i]), idx[i]
			if b == nil {
				b = m.newBinding()
				b.v = bcast(unset)
				mem.set(idx[i], b)
			}
		}
		if vwhy != "" {
			b.why = vwhy
			continue
		}
		b.v[i] = val[i]
	}
}

func (m *machine) load(e *ir.Load) {
	sc := scopeOf(e.Buf)
	if sc == "" {
		for _, x := range e.Indices {
			m.eval(x) // loads inside the indices
		}
		return
	}
	var p ptr
	if why := m.addressOfTo(&p, e.Buf, e.Indices, false); why != "" {
		m.unknown(why)
		return
	}
	k := sharedLoad
	if sc == "global" {
		k = globalLoad
	}
	m.emit(&event{k: k, mask: m.mask, width: elemBytes(e.Buf.Dtype), addr: p.addr, buf: p.buf, view: p.view, node: e, align: p.align})
}

func (m *machine) store(s *ir.Store) {
	if unread := m.unreadSet(); unread != nil && unread[rootOf(s.Buf)] && pureValue(s.Value) {
		m.elidedDead(s.Buf, "nvcc deletes the stores into a buffer nothing reads: ")
		return // a dead store (dead.go)
	}
	if s.Buf.Scope == "local" {
		m.localStore(s)
		if len(m.regs) > 0 {
			m.regValueReads(s.Value) // regs.go
			m.regElemWrite(s.Buf, s.Indices)
		}
		return
	}
	m.eval(s.Value) // its loads
	sc := scopeOf(s.Buf)
	if sc == "" {
		for _, x := range s.Indices {
			m.eval(x)
		}
		return
	}
	var p ptr
	if why := m.addressOfTo(&p, s.Buf, s.Indices, false); why != "" {
		m.unknown(why)
		return
	}
	k := sharedStore
	if sc == "global" {
		k = globalStore
	}
	m.emit(&event{k: k, mask: m.mask, width: elemBytes(s.Buf.Dtype), addr: p.addr, buf: p.buf, view: p.view, node: s, align: p.align})
}

// access records a load (or store) of n bytes through pointer expression e.
func (m *machine) access(e ir.Expr, n int64, store bool, node ir.Node) {
	var p ptr
	if why := m.pointerTo(&p, e); why != "" {
		m.unknown(why)
		return
	}
	var k kind
	switch sc := scopeOf(p.buf); {
	case sc == "shared" && store:
		k = sharedStore
	case sc == "shared":
		k = sharedLoad
	case sc == "global" && store:
		k = globalStore
	case sc == "global":
		k = globalLoad
	default:
		return // registers
	}
	for n > 0 {
		w := min(n, 16) // tvm_builtin_copy_256b: two uint4 accesses
		m.emit(&event{k: k, mask: m.mask, width: w, addr: p.addr, buf: p.buf, view: p.view, node: node, align: p.align})
		for i := range p.addr {
			p.addr[i] += w
		}
		n -= w
	}
}

func (m *machine) call(c *ir.Call) (lanes, string) {
	switch c.Op {
	case ir.OpElectSync:
		var l lanes
		if m.mask != 0 {
			l[bits.TrailingZeros32(m.mask)] = 1
		}
		return l, ""
	case ir.OpFilter:
		if len(c.Args) == 2 {
			return m.eval(c.Args[1])
		}
	case "cuda.ldg":
		// T.cuda.ldg(ptr, dtype): one global load of the dtype
		if len(c.Args) == 2 {
			if d, ok := c.Args[1].(*ir.StringImm); ok {
				if t, ok := ir.ParseDType(d.Value); ok {
					m.access(c.Args[0], elemBytes(t), false, c)
					return lanes{}, "the value of a global load is runtime data"
				}
			}
		}
	case ir.OpPtxLdSharedPlain:
		// T.ptx.ld.plain.shared(ptr) ... a 32-bit load
		if len(c.Args) > 0 {
			m.access(c.Args[0], max(4, elemBytes(c.Type)), false, c)
		}
		return lanes{}, "the value of a shared-memory load is runtime data"
	}
	if v, why, ok := m.warpCall(c); ok {
		return v, why // shuffle.go
	}
	if isCTAReduce(c.Op) && len(c.Args) == 3 {
		return m.ctaReduce(c) // ctareduce.go
	}
	if (c.Op == "reinterpret" && len(c.Args) == 1 || byteOffsetOp(c)) && isPointer(c.Args[0]) {
		// a pointer into a buffer, typed (T.reinterpret(PointerType(...),
		// smem.ptr_to([off])), or offset by bytes (T.ptr_byte_offset):
		// no access; the decl buffers on it are placed in its storage
		// (ir.Buffer.PtrBase)
		return lanes{}, "a pointer is a runtime value"
	}
	if pureMath(c) {
		for _, a := range c.Args {
			m.eval(a) // loads in the arguments; no barrier (cse.go)
		}
	} else {
		m.evaluate(c)
	}
	return lanes{}, m.reason(&c.Op, "the result of ", c.Op, " is a runtime value") // (keyed by the node: a string key was allocated per call)
}

// opInfo is what the machine reads from an intrinsic's name, parsed once
// per name (opInfos): the tokens of a ptx.* name as userOp matches them
// (nil for other names), and whether the name has an ignored prefix.
// Parsing them at each call was a third of evaluate's time in
// nvfp4_gemm.py's loops.
type opInfo struct {
	toks    []string
	space   string // the state space the tokens name ("" for none)
	ignored bool
	writes  *argWrites // the registers it writes (asmwrites.go)
}

var opInfos sync.Map // op name -> *opInfo

// opInfo is opInfoOf(c.Op), found by the call node (a pointer hashes
// faster than the long intrinsic names).
func (m *machine) opInfo(c *ir.Call) *opInfo {
	if info := m.ops.get(c); info != nil {
		return info
	}
	info := opInfoOf(c.Op)
	m.ops.set(c, info)
	return info
}

// opCache is opInfos' cache by where a name's bytes are: the IR names
// an intrinsic by the same string wherever it calls it, and a sync.Map's
// lookup hashed the name as an interface, at 270 instructions a call
// (4 % of the corpus's analysis: genericOp, the proofs and the key ask
// it at every call node they meet). A slot holds an immutable entry,
// swapped whole; a name compares by content, so a slot taken by another
// name only misses.
var opCache [256]atomic.Pointer[opCached]

type opCached struct {
	op   string
	info *opInfo
}

func opInfoOf(op string) *opInfo {
	slot := &opCache[(uintptr(unsafe.Pointer(unsafe.StringData(op)))>>3^uintptr(len(op)))&255]
	if c := slot.Load(); c != nil && c.op == op {
		return c.info
	}
	info := opInfoParsed(op)
	slot.Store(&opCached{op, info})
	return info
}

// opInfoParsed is opInfoOf through opInfos: each name parsed once.
func opInfoParsed(op string) *opInfo {
	if v, ok := opInfos.Load(op); ok {
		return v.(*opInfo)
	}
	info := &opInfo{}
	if rest, ok := strings.CutPrefix(op, "ptx."); ok {
		toks := strings.Split(rest, ".")
		for i, t := range toks {
			t = strings.ReplaceAll(t, "__", "::")
			if len(t) > 1 && strings.HasSuffix(t, "_") && !strings.HasSuffix(t, "::_") {
				t = strings.TrimSuffix(t, "_")
			}
			toks[i] = t
		}
		info.toks = toks
		has := func(s string) bool { return slices.Contains(toks, s) }
		switch {
		case has("shared::cluster") || (has("shared") && has("cluster")):
			info.space = "cluster"
		case has("shared") || has("shared::cta"):
			info.space = "shared"
		case has("global"):
			info.space = "global"
		case has("local"):
			info.space = "local"
		}
		info.writes = parseWrites(op, toks)
	}
	for _, p := range ignored {
		if strings.HasPrefix(op, p) {
			info.ignored = true
			break
		}
	}
	v, _ := opInfos.LoadOrStore(op, info)
	return v.(*opInfo)
}

// ignored lists intrinsic prefixes whose memory traffic is not LSU ld/st
// (synchronisation, mbarriers, fences, tensor-core and tensor-memory ops)
// or that touch no memory.
var ignored = []string{"cuda.cta_sync", "cuda.warp_sync", "cuda.warpgroup_sync", "ptx.mbarrier", "ptx.fence",
	"ptx.elect_sync", "ptx.cp_async.bulk.commit_group", "ptx.cp_async.bulk.wait_group", "ptx.cp_async.commit_group",
	"ptx.cp_async.wait_group", "ptx.prefetch_tensormap", "ptx.tcgen05", "ptx.wgmma", "ptx.mma", "cuda.smem_desc",
	"cuda.get_tmem_addr", "cuda.runtime_instr_desc", "cuda.mbarrier", "ptx.setmaxnreg", "tvm_warp", "cuda.warp_reduce",
	// atomics and reductions are op_atom/op_red traffic, not ld/st
	"ptx.atom", "ptx.red", "cuda.atomic", "ptx.mapa", "ptx.prefetch", "ptx.cp.async.bulk", "ptx.cp_async.bulk.s2c",
	"ptx.fence", "ptx.bar", "ptx.barrier",
	// cluster launch control: try_cancel's response is an async-proxy
	// write (as a TMA copy's), the queries decode a register
	// (asmwrites.go models their answer)
	"ptx.clusterlaunchcontrol",
	// an mbarrier arrive on the thread's cp.async completing
	// (ARRIVES.LDGSTSBAR): no LSU ld/st and, like commit_group, no end
	// of a cp.async run (cpAsyncArrive)
	"ptx.cp.async_.mbarrier.arrive", "ptx.cp.async.mbarrier.arrive",
	// descriptors and address conversions read no memory: they take an
	// address, not the bytes at it
	"cuda.tcgen05.encode_matrix_descriptor", "cuda.wgmma.encode_matrix_descriptor", "ptx.cvta", "cuda.cvta_generic_to_shared"}

// cpAsyncGroupOp reports whether op commits or waits for cp.async
// groups, in any release's spelling: neither ends a run of cp.async
// (nvcc issues its three predicated-off LDS once before cp.async; commit;
// wait; cp.async: measured on an H200, testdata/memory/ldgsts_predicates.py
// twice_waited, 28 shared load instructions as for one run).
func cpAsyncGroupOp(op string) bool {
	switch op {
	case ir.OpCpAsyncCommit, ir.OpCpAsyncWait,
		"ptx.cp.async_.commit_group", "ptx.cp.async_.wait_group",
		"ptx.cp.async.commit_group", "ptx.cp.async.wait_group":
		return true
	}
	return false
}

// cpAsyncWaitOp reports whether op waits for cp.async groups (any
// release's spelling).
func cpAsyncWaitOp(op string) bool {
	switch op {
	case ir.OpCpAsyncWait, "ptx.cp.async_.wait_group", "ptx.cp.async.wait_group", "ptx.cp.async.wait_all", "ptx.cp.async_.wait_all":
		return true
	}
	return false
}

// cpAsyncArrive reports whether op is cp.async.mbarrier.arrive(.noinc),
// which nvcc issues inside a run of cp.async without a second set of the
// run's predicated-off LDS (measured on sm_90: cp.async; arrive;
// cp.async; arrive counts the same shared loads as both cp.async before
// one arrive, 5 instructions and 8 wavefronts with the LDS.128 after).
func cpAsyncArrive(op string) bool {
	return strings.HasPrefix(op, "ptx.cp.async_.mbarrier.arrive") || strings.HasPrefix(op, "ptx.cp.async.mbarrier.arrive")
}

// cpCopy is one lane's cp.async: its global source and shared
// destination (buffer and byte address) and the bytes it reads.
type cpCopy struct {
	src, dst     *ir.Buffer
	srcAt, dstAt int64
	n            int64
}

// maxCpPending bounds the lane copies a warp keeps in flight for
// cpInFlight (past it, a repeat is not seen).
const maxCpPending = 1 << 14

// cpInFlight marks in e.dup the lanes that repeat a copy of the same warp
// still in flight: the same global bytes to the same shared bytes, with no
// cp.async wait between. Such a lane's request is made but fetches no
// global sector (measured on an H200, testdata/memory/ldgsts_predicates.py:
// a tile copied twice into one shared tile before one wait counts 256
// sectors, into two tiles 512; ldgsts_predicate_27's predicated, whose
// src-size copy repeats its predicated one for warps 0 and 1, 224 where the
// copies apart count 352). The wait (cpAsyncGroupOp) ends them.
func (m *machine) cpInFlight(e *event, src *ir.Buffer) {
	if m.cpPending == nil {
		m.cpPending = map[cpCopy]struct{}{}
	}
	for i := range 32 {
		if e.mask&(1<<i) == 0 {
			continue
		}
		n := e.bytes
		if e.srcLen != nil {
			n = e.srcLen[i]
		}
		if n <= 0 {
			continue
		}
		k := cpCopy{src: src, dst: e.buf, srcAt: e.src[i], dstAt: e.addr[i], n: n}
		if _, ok := m.cpPending[k]; ok {
			e.dup |= 1 << i
		} else if len(m.cpPending) < maxCpPending {
			m.cpPending[k] = struct{}{}
		}
	}
}

// cpGuardOperand is the operand of a hand-printed cp.async
// (cp.async.{ca,cg}.shared.global...) that decides what each lane reads
// (cpGuard), nil when it has none: kind 'p' the guard of its @p form
// (pred=, ir.OpPredGuard: a lane reads where it is not 0), 'i' its
// ignore-src predicate (T.ptx.pred(x): a lane reads where it is 0), 's'
// its src-size (the bytes a lane reads). A cache policy
// (.L2::cache_hint) is the last operand but for the guard.
func cpGuardOperand(x ir.Expr) (ir.Expr, byte) {
	c, ok := x.(*ir.Call)
	if !ok || !strings.HasPrefix(c.Op, "ptx.cp.async.ca.") && !strings.HasPrefix(c.Op, "ptx.cp.async.cg.") {
		return nil, 0
	}
	args := c.Args
	if len(args) > 0 {
		if g, ok := args[len(args)-1].(*ir.Call); ok && g.Op == ir.OpPredGuard && len(g.Args) == 1 {
			return g.Args[0], 'p'
		}
	}
	if strings.Contains(c.Op, "L2::cache_hint") && len(args) > 0 {
		args = args[:len(args)-1]
	}
	if len(args) != 4 {
		return nil, 0
	}
	if p, ok := args[3].(*ir.Call); ok && p.Op == "ptx.pred" && len(p.Args) == 1 {
		return p.Args[0], 'i'
	}
	return args[3], 's'
}

// cpGuard applies a cp.async's guard, ignore-src or src-size operand x
// of kind (cpGuardOperand) to e: a lane reads e.bytes where its guard is
// not 0, where its ignore-src is 0, or its src-size (0 to cp-size, the
// rest zero-filled). A lane that reads nothing requests no global sector,
// and an instruction no lane of which reads issues no global request: it
// still counts as an LDGSTS instruction (measured on an H200:
// testdata/memory/ldgsts_predicates.py, `@!P0 LDGSTS` of warps whose
// lanes are all off and `LDGSTS ..., !P0` of warps whose src-sizes are
// all 0 add smsp__inst_executed_op_ldgsts but no request or sector). It
// reports false, with the figures unknown, when x has no value.
func (m *machine) cpGuard(e *event, x ir.Expr, kind byte) bool {
	v, why := m.eval(x)
	if why != "" {
		m.unknown("cp.async: " + why)
		return false
	}
	e.srcLen = &m.cpLen
	for i := range 32 {
		n := int64(0)
		switch {
		case e.mask&(1<<i) == 0:
		case kind == 'p' && v[i] != 0, kind == 'i' && v[i] == 0:
			n = e.bytes
		case kind == 's':
			n = min(max(v[i], 0), e.bytes)
		}
		m.cpLen[i] = n
	}
	return true
}

// evaluate executes an intrinsic call statement.
func (m *machine) evaluate(x ir.Expr) {
	c, ok := x.(*ir.Call)
	if !ok {
		m.eval(x)
		return
	}
	arg := func(i int) int64 {
		if i < len(c.Args) {
			if v, ok := ir.ConstInt(c.Args[i]); ok {
				return v
			}
		}
		return -1
	}
	if c.Op != ir.OpCopyBytes {
		m.localUses(c) // the registers it reads (regs.go)
	}
	switch c.Op {
	case ir.OpCopyBytes:
		if b := copyLocalDst(c); b != nil && m.unreadSet()[rootOf(b)] {
			m.elidedDead(b, "nvcc deletes the loads into registers nothing reads: ")
			return // a copy into registers nothing reads (dead.go)
		}
		n := arg(2)
		if n <= 0 || len(c.Args) < 3 {
			m.unknown("a copy of a runtime byte count")
			return
		}
		if m.regCopies(c, n) {
			return // regs.go
		}
		m.access(c.Args[1], n, false, c)
		m.access(c.Args[0], n, true, c)
		return
	case ir.OpCpAsync:
		n := arg(2)
		p, why := m.pointer(c.Args[0])
		if why != "" || n <= 0 {
			m.unknown("cp.async: " + why)
			return
		}
		sp, why := m.pointer(c.Args[1])
		if why != "" {
			m.unknown("cp.async: " + why)
			return
		}
		m.cpSrc = sp.addr
		e := &event{k: cpAsync, mask: m.mask, addr: p.addr, src: &m.cpSrc, buf: p.buf, view: p.view, node: c, bytes: n, run: !m.cpRun}
		m.cpInFlight(e, sp.buf)
		m.emit(e)
		m.cpRun = true
		return
	case ir.OpLdmatrix, ir.OpStmatrix:
		num := arg(0)
		p, why := m.pointer(c.Args[2])
		if why != "" || num <= 0 {
			m.unknown(c.Op + ": " + why)
			return
		}
		k := ldmatrix
		if c.Op == ir.OpStmatrix {
			k = stmatrix
		}
		m.emit(&event{k: k, mask: m.mask, width: num, addr: p.addr, buf: p.buf, view: p.view, node: c})
		return
	case ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4, ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce:
		var tm *ir.TensorMap
		for _, a := range c.Args {
			if t, ok := a.(*ir.TensorMapAddr); ok {
				tm = t.Map
			}
		}
		if tm == nil {
			m.unknown(c.Op + " without a tensor map")
			return
		}
		n := elemBytes(tm.DType)
		for _, b := range tm.Box {
			n *= b
		}
		if c.Op == ir.OpCpAsyncBulkTensorG2CGather4 && len(tm.Box) > 0 {
			n = n / max(tm.Box[len(tm.Box)-1], 1) * 4
		}
		m.emit(&event{k: tma, mask: m.mask, node: c, bytes: n})
		if m.cur.Misaligned == nil && len(c.Args) > 1 {
			m.tmaAlign(c, c.Args[1])
		}
		return
	case ir.OpPtxStSharedPlain:
		if len(c.Args) > 0 {
			w := int64(4)
			if len(c.Args) > 1 {
				w = max(1, elemBytes(typeOf(c.Args[1])))
			}
			m.access(c.Args[0], w, true, c)
		}
		return
	}
	if c.Op == "cuda.ldg" && len(c.Args) > 4 {
		// T.cuda.ldg(ptr, dtype, dst=(d0, ...), vec="vN") (0.26+):
		// tirx.cuda.ldg(dst..., ptr, dtype, vec, N), one N-wide global
		// load; the registers it writes went to localUses above
		n := len(c.Args) - 4
		if d, ok := c.Args[n+1].(*ir.StringImm); ok {
			if t, ok := ir.ParseDType(d.Value); ok {
				m.access(c.Args[n], int64(n)*elemBytes(t), false, c)
				return
			}
		}
	}
	if c.Op == ir.OpCastVec2 && len(c.Args) == 4 {
		from, ok1 := c.Args[2].(*ir.StringImm)
		to, ok2 := c.Args[3].(*ir.StringImm)
		if ok1 && ok2 {
			ft, ok1 := ir.ParseDType(from.Value)
			tt, ok2 := ir.ParseDType(to.Value)
			if ok1 && ok2 {
				m.access(c.Args[1], 2*elemBytes(ft), false, c)
				m.access(c.Args[0], 2*elemBytes(tt), true, c)
				return
			}
		}
	}
	if m.overwrittenSet()[c] {
		m.elided("ptxas deletes the loads whose registers are written again before anything reads them: ", c.Args[0].(*ir.Load).Buf)
		return // overwritten.go
	}
	if m.unreadSet() != nil {
		if dsts := ldLocalDsts(c); dsts != nil && m.allUnread(dsts) {
			m.elidedDead(dsts[0], "nvcc deletes the loads into registers nothing reads: ")
			return // a load into registers nothing reads (dead.go)
		}
	}
	if rawTMA(c.Op) {
		m.rawTMACopy(c) // rawtma.go
		return
	}
	if handled := m.userOp(c); handled {
		return
	}
	if !cpAsyncGroupOp(c.Op) && !cpAsyncArrive(c.Op) {
		m.cpRun = false
	}
	if len(m.cpPending) > 0 && cpAsyncWaitOp(c.Op) {
		clear(m.cpPending) // (the copies in flight completed)
	}
	m.forgetBarrier() // a barrier, fence or other intrinsic (cse.go)
	info := m.opInfo(c)
	if info.ignored {
		m.callWrites(c, info.writes)
		m.pointerWrites(c, info.writes)
		return
	}
	// Any other intrinsic: fine when it touches no shared or global
	// buffer; unknown otherwise.
	for i, a := range c.Args {
		if b := bufferOf(a); b != nil && scopeOf(b) != "" {
			m.unknown(fmt.Sprintf("the memory access of %s is not modelled", c.Op))
			return
		}
		if _, ok := a.(*ir.StringImm); !ok && !m.capture(c, i, a) {
			m.eval(a) // loads in the arguments
		}
	}
	m.callWrites(c, info.writes)
	m.pointerWrites(c, info.writes)
}

// KindTMAAddress is the Kind of a Misaligned instruction that is a TMA
// tensor copy's shared address (tmaAlign).
const KindTMAAddress = "TMA shared address"

// tmaAlign checks a tensor copy's shared address (its destination, or
// its source for a store): a TMA tensor copy needs it 128-byte aligned,
// and an H100 stops a kernel whose copy is not (cudaErrorMisalignedAddress:
// lower/testdata/tma_auto_plans.txtar's multi_coord, whose 1,024 issues
// of 32 bytes each land 32 bytes apart). The codegen aligns dynamic
// shared memory to 128 bytes and a static allocation to 64, so an offset
// in the allocation that is no multiple of that is misaligned whatever
// the allocation's place; the first one is the call's Misaligned
// instruction (a perf/misaligned warning). An address the machine does
// not know (a pipeline stage it keeps as data) is not checked.
func (m *machine) tmaAlign(c *ir.Call, e ir.Expr) {
	if _, ok := e.(*ir.AddressOf); !ok {
		return
	}
	p, why := m.pointer(e)
	if why != "" || p.buf == nil {
		return
	}
	q := int64(128)
	switch p.buf.Scope {
	case "shared.dyn":
	case "shared":
		q = 64
	default:
		return
	}
	for rest := m.mask; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros32(rest)
		if a := p.addr[i]; a%q != 0 {
			m.cur.Misaligned = &Instruction{Kind: KindTMAAddress, Width: 128, Buf: p.buf.Name, Buffer: p.buf, Span: c.Pos(), node: c,
				CTA: m.ctaIndex, Warp: m.warp, lanes: []LaneAccess{{Thread: m.tid[i], Addr: a, Bytes: 128}}}
			return
		}
	}
}

func typeOf(e ir.Expr) ir.DataType {
	switch e := e.(type) {
	case *ir.Load:
		return e.Buf.Dtype
	case *ir.Cast:
		return e.To
	case *ir.Var:
		return e.Type
	case *ir.IntImm:
		return e.Type
	case *ir.Call:
		return e.Type
	}
	return ir.Int32
}

// bufferOf returns the buffer a pointer argument points into (nil for a
// non-pointer).
func bufferOf(e ir.Expr) *ir.Buffer {
	switch e := e.(type) {
	case *ir.AddressOf:
		return e.Buf
	case *ir.BufferData:
		return e.Buf
	case *ir.Call:
		if e.Op == ir.OpPointerOffset && len(e.Args) > 0 {
			return bufferOf(e.Args[0])
		}
	case *ir.Cast:
		return bufferOf(e.X)
	}
	return nil
}

// userOp counts a load, store, ldmatrix/stmatrix or cp.async a kernel
// writes itself in the T.ptx dialect (codegen/cuda/ops_user_ldst.go); it
// reports whether c was one.
func (m *machine) userOp(c *ir.Call) bool {
	info := m.opInfo(c)
	if info.toks == nil {
		return false
	}
	toks, space := info.toks, info.space
	has := func(s string) bool { return slices.Contains(toks, s) }
	switch toks[0] {
	case "ld", "st":
		typ := toks[len(toks)-1]
		bitsN, err := strconv.Atoi(strings.TrimLeft(typ, "bufs"))
		if err != nil {
			return false
		}
		n := 1
		switch {
		case has("v2"):
			n = 2
		case has("v4"):
			n = 4
		case has("v8"):
			n = 8
		}
		width := int64(n * bitsN / 8)
		if space == "cluster" {
			m.unknown(c.Op + ": a distributed shared memory access is not modelled")
			return true
		}
		if width > 16 {
			m.unknown(fmt.Sprintf("%s: %d-byte accesses are not calibrated", c.Op, width))
			return true
		}
		ai := 0
		if toks[0] == "ld" {
			ai = n
		}
		if ai >= len(c.Args) {
			return false
		}
		if space != "local" {
			m.accessIn(c.Args[ai], width, toks[0] == "st", c, space)
		}
		m.callWrites(c, info.writes) // an ld's destinations
		return true
	case "ldmatrix", "stmatrix":
		num := int64(0)
		for _, t := range toks {
			switch t {
			case "x1":
				num = 1
			case "x2":
				num = 2
			case "x4":
				num = 4
			}
		}
		ai := 0
		if toks[0] == "ldmatrix" {
			ai = int(num)
		}
		if num == 0 || ai >= len(c.Args) {
			return false
		}
		p, why := m.pointer(c.Args[ai])
		if why != "" {
			m.unknown(c.Op + ": " + why)
			return true
		}
		k := ldmatrix
		if toks[0] == "stmatrix" {
			k = stmatrix
		}
		m.emit(&event{k: k, mask: m.mask, width: num, addr: p.addr, buf: p.buf, view: p.view, node: c})
		return true
	case "cp":
		if len(toks) > 2 && toks[1] == "async" && (toks[2] == "ca" || toks[2] == "cg") && len(c.Args) >= 3 {
			n, ok := ir.ConstInt(c.Args[2])
			p, why := m.pointer(c.Args[0])
			sp, why2 := m.pointer(c.Args[1])
			if why == "" {
				why = why2
			}
			if why != "" || !ok {
				m.unknown("cp.async: " + why)
				return true
			}
			m.cpSrc = sp.addr
			e := &event{k: cpAsync, mask: m.mask, addr: p.addr, src: &m.cpSrc, buf: p.buf, view: p.view, node: c, bytes: n, run: !m.cpRun}
			if x, kind := cpGuardOperand(c); x != nil && !m.cpGuard(e, x, kind) {
				return true
			}
			m.cpInFlight(e, sp.buf)
			m.emit(e)
			m.cpRun = true
			return true
		}
	}
	return false
}

// accessIn is access for an instruction that names its state space
// (space "" is a generic address: the buffer's scope decides).
func (m *machine) accessIn(e ir.Expr, n int64, store bool, node ir.Node, space string) {
	if space != "" {
		if b := bufferOf(e); b != nil && scopeOf(b) != space {
			m.unknown(fmt.Sprintf("%s addresses %s buffer %s", node.(*ir.Call).Op, b.Scope, b.Name))
			return
		}
	}
	m.access(e, n, store, node)
}

// reachesMemory reports whether evaluating e may access memory: a load of
// a buffer outside the registers, a pointer into one passed to an
// intrinsic, or an intrinsic with a memory instruction of its own. Unlike
// touchesMemory it looks into calls: pure arithmetic and the generic
// intrinsics (genericOp: a bit cast such as cuda.float_as_uint, whose
// operands the machine evaluates for their loads only) reach memory only
// through their operands. sparse_prefill_head64_phase1.py masks its scores
// with T.if_then_else(invalid, -inf bits, T.cuda.float_as_uint(p[i])) on
// bits read from shared memory: no arm accesses memory, yet every kernel
// total was "unknown" (a select between memory accesses).
func reachesMemory(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Load:
		if scopeOf(e.Buf) != "" {
			return true
		}
		return slices.ContainsFunc(e.Indices, reachesMemory)
	case *ir.AddressOf:
		return e.Buf.Scope != "local" || slices.ContainsFunc(e.Indices, reachesMemory)
	case *ir.BufferData:
		return e.Buf.Scope != "local"
	case *ir.Call:
		if e.Op == ir.OpPointerOffset {
			return reachesMemory(e.Args[len(e.Args)-1])
		}
		if !pureMath(e) && !genericOp(e) {
			return true
		}
		for _, a := range e.Args {
			if b := bufferOf(a); b != nil && scopeOf(b) != "" || reachesMemory(a) {
				return true // (evaluate: an operand into memory is an access it does not model)
			}
		}
		return false
	case *ir.Binary:
		return reachesMemory(e.A) || reachesMemory(e.B)
	case *ir.Not:
		return reachesMemory(e.X)
	case *ir.Neg:
		return reachesMemory(e.X)
	case *ir.Cast:
		return reachesMemory(e.X)
	case *ir.Select:
		return reachesMemory(e.Cond) || reachesMemory(e.A) || reachesMemory(e.B)
	}
	return false // constants, scalars, thread indices, tensor maps (as touchesMemory)
}

// touchesMemory reports whether evaluating e may access shared or global
// memory (a load of such a buffer, or an intrinsic call).
func touchesMemory(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Load:
		if scopeOf(e.Buf) != "" {
			return true
		}
		for _, x := range e.Indices {
			if touchesMemory(x) {
				return true
			}
		}
	case *ir.Call:
		return e.Op != ir.OpPointerOffset || touchesMemory(e.Args[len(e.Args)-1])
	case *ir.Binary:
		return touchesMemory(e.A) || touchesMemory(e.B)
	case *ir.Not:
		return touchesMemory(e.X)
	case *ir.Neg:
		return touchesMemory(e.X)
	case *ir.Cast:
		return touchesMemory(e.X)
	case *ir.Select:
		return touchesMemory(e.Cond) || touchesMemory(e.A) || touchesMemory(e.B)
	}
	return false
}

// byteOffsetOp reports whether c adds a byte offset to a pointer:
// T.ptx.addr(base, off), T.handle_add_byte_offset(handle, off) or
// T.ptr_byte_offset(data, off, dtype).
func byteOffsetOp(c *ir.Call) bool {
	switch c.Op {
	case "ptx.addr", "handle_add_byte_offset":
		return len(c.Args) == 2
	case "ptr_byte_offset":
		return len(c.Args) == 3
	}
	return false
}
