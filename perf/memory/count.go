package memory

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/tilels/tilels/ir"
)

// Analyze predicts the memory figures of one launch of fn (a lowered
// kernel) with launch configuration l.
func Analyze(fn *ir.Func, l ir.Launch) *Kernel {
	k, _ := AnalyzeWithin(fn, l, 0)
	return k
}

// AnalyzeWithin is Analyze giving up once the machine has executed more
// than work statements and memory events (0: no bound): ok is false then,
// and k is nil. The language server bounds the analyses it waits for
// before a publish with it (lower.PublishWork); the work is what the
// machine executes, not the statements of the warps and CTAs it counts
// as translations of one it executed.
func AnalyzeWithin(fn *ir.Func, l ir.Launch, work int64) (k *Kernel, ok bool) {
	k = &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{Source: "model"}}
	if fn == nil || fn.Body == nil {
		k.Total = &Figures{Source: "model", Unknown: "the kernel has no body"}
		return k, true
	}
	m := getMachine(l, k)
	defer putMachine(m)
	m.workLimit = work
	m.fn = fn // (the scans of scans.go)
	for _, d := range fn.LaunchData {
		if m.data == nil {
			m.data = map[*ir.Buffer][]int64{}
		}
		m.data[d.Buf] = d.Values
	}
	// host lets that are constants: bound in every warp, and folded into
	// the grid extents that name them (hostconsts.go)
	m.hosts = hostConsts(fn)
	for i, e := range l.GridExpr {
		if l.Grid[i] <= 0 && e != nil {
			if v, ok := foldHost(e, m.hosts); ok && v > 0 {
				l.Grid[i] = v
			}
		}
	}
	m.launch = l
	stmts := int64(0)
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		stmts++
		switch s := s.(type) {
		case *ir.ScopeID:
			m.noteScope(s) // ranges.go
		case *ir.Assign:
			m.noteAssign(s.Var)
		case *ir.Lowered:
			if s.Call != nil {
				m.figs(s.Call)
			}
		case *ir.TileCall:
			m.figs(s).Unknown = "the call has no lowering"
		}
	})
	why := ""
	ctas := int64(1)
	for i, g := range l.Grid {
		if g <= 0 {
			why = runtimeGridWhy(fn, i, l.GridExpr[i])
		}
		ctas *= max(g, 1)
	}
	threads := l.Threads()
	if threads <= 0 {
		why = "the CTA size is not known"
	}
	run := ctas
	byClass := false  // (the CTAs counted by trip class)
	nExec := int64(1) // (CTAs executed for a Scaled estimate)
	// sampled: a grid of more than MaxCTAs CTAs, of which CTA 0 is
	// executed and, unless the CTA proof then finds the period of its
	// CTAs (proven), multiplied
	sampled, proven := run > maxCTAs, false
	scaledWhy := "" // (why a sampled grid is not proven)
	if sampled {
		run = 1
	}
	if why == "" {
		// The warps' proof is made once warp 0 has executed (deferred),
		// and only when executing the others would cost more than it:
		// flashkda's kernels stop in warp 0 at a call the machine does
		// not model, and spent a third of their analysis on a proof
		// across 32 warps that failed.
		var runs []warpRun
		deferred := dedupWarps && threads >= 64
		// per residue of the CTA period, the counts of the CTA executed
		// for the others (ctas.go)
		var ctaDeltas [][]figDelta
		var ctaSteps []int64
		// per run and residue, the counts of the warp executed for the
		// others (a run's first warp, or its first period of warps)
		type executed struct {
			deltas [][]figDelta
			steps  []int64
			// apart: per residue, the split roots' views keep apart in
			// its warps (apart.go)
			apart  []bool
			proven bool // a lazy run's proof holds
			tried  bool // (proven once)
		}
		var done []executed
		// settle keeps what a run's first warp w (of residue res)
		// counted, whether its proof holds and its views keep apart
		// (hulls: their bytes in that warp)
		settle := func(i int, w, res int64, deltas []figDelta, steps int64, hulls *apartCheck) {
			r, e := runs[i], &done[i]
			e.deltas[res], e.steps[res] = deltas, steps
			ok := true
			switch lazy := r.lazy && !e.tried; {
			case lazy:
				// proven once, in the first CTA (warps.go)
				e.tried = true
				if e.steps[res] >= stmts {
					e.proven, runs[i].views = m.proveLazy(fn.Body, threads, r, hulls)
				}
				ok = e.proven
			case hulls != nil:
				// the residue's warps: w, w+period, ...
				ok = hulls.apartIn((r.end-w+r.period-1)/r.period) && hulls.oneLaneOK(r.oneLane) && (!r.lazy || e.proven)
			case r.lazy:
				ok = e.proven
			}
			e.apart[res] = ok
		}
		// The CTA proof is made once CTA 0 has executed, when another
		// CTA is to execute: an analysis that stops in CTA 0 (every
		// figure unknown: flashkda's cases, at a call it does not model)
		// spent a third of its time on proofs that failed, one per CTA
		// period tried. CTA 0's counts are kept for it.
		var ctaPeriod int64 // 0: every CTA executes
		proveCTAs := (run > 1 || sampled) && dedupCTAs
		// It is made only when executing the other CTAs would cost more
		// than the proof (about the kernel's statements, walked for each
		// period tried): flashkda's 1,024-thread kernels execute a few
		// hundred statements a CTA in 4 to 12 CTAs, against 1,500 in
		// the kernel, and their proofs failed for every period.
		var cta0 []figDelta
		var cta0Steps, work0 int64
		// a persistent grid's CTAs by trip class (ctas.go's
		// tripClassesIn): CTA 0 and the first CTA of each other class
		// executed, each counted for its class
		var classes *classPlan
		var classDeltas [][]figDelta
		for c := int64(0); c < run; c++ {
			cta := c // (the CTA executed: a class's first)
			if classes != nil && c > 0 {
				cta = classes.cs[classes.exec[c]].first
			}
			if c == 1 && proveCTAs && !sampled && (m.work-work0)*(run-1) < stmts {
				proveCTAs = false
			}
			if c == 1 && proveCTAs && !sampled {
				if proofTrace != nil {
					proofTrace("ctas")
				}
				ctaPeriod = m.ctaShifts(fn.Body)
				ctaDeltas, ctaSteps = make([][]figDelta, ctaPeriod), make([]int64, ctaPeriod)
				if ctaPeriod > 0 {
					ctaDeltas[0], ctaSteps[0] = cta0, cta0Steps
				}
			}
			if ctaPeriod > 0 && c >= ctaPeriod && !m.over && m.steps+ctaSteps[c%ctaPeriod] <= maxSteps {
				// CTA c counts as CTA c % period (ctas.go)
				for _, d := range ctaDeltas[c%ctaPeriod] {
					d.f.addCounts(&d.c)
				}
				m.steps += ctaSteps[c%ctaPeriod]
				continue
			}
			var before snap
			var sc int64
			if c < ctaPeriod || c == 0 && proveCTAs || classes != nil {
				before, sc = m.snapshot(), m.steps
			}
			if c == 0 {
				work0 = m.work
			}
			m.cta = [3]int64{cta % l.Grid[0], cta / l.Grid[0] % l.Grid[1], cta / (l.Grid[0] * l.Grid[1])}
			for w := int64(0); w*32 < threads; w++ {
				if deferred {
					// warp 0 of CTA 0, its bytes kept for a run it
					// starts (the proofs come after)
					deferred = false
					before, s0, w0 := m.snapshotInto(m.warpSnap), m.steps, m.work
					m.apart = newApartCollect()
					m.runWarp(fn.Body, cta, w, threads)
					hulls := m.apart
					m.apart = nil
					deltas, steps := m.since(before), m.steps-s0
					m.warpSnap = before[:0] // (counters only: no pointers kept)
					if m.over || (m.work-w0)*(threads/32-1) < stmts {
						continue // every warp executes
					}
					if proofTrace != nil {
						proofTrace("warps")
					}
					runs = m.candidateRuns(fn.Body, threads) // warps.go
					done = make([]executed, len(runs))
					for i, r := range runs {
						done[i] = executed{deltas: make([][]figDelta, r.period), steps: make([]int64, r.period), apart: make([]bool, r.period)}
					}
					if i := runOf(runs, 0); i >= 0 {
						if r := runs[i]; r.views != nil {
							hulls.settle(r.views)
						} else if !r.lazy && r.oneLane == nil {
							hulls = nil
						}
						settle(i, 0, 0, deltas, steps, hulls)
					}
					continue
				}
				if i := runOf(runs, w); i >= 0 {
					r, e := runs[i], &done[i]
					res := (w - r.start) % r.period
					if w >= r.start+r.period && e.apart[res] && !m.over && m.steps+e.steps[res] <= maxSteps {
						// warp w counts as warp r.start + res (warps.go)
						for _, d := range e.deltas[res] {
							d.f.addCounts(&d.c)
						}
						m.steps += e.steps[res]
						continue
					}
					if w < r.start+r.period {
						before, s0 := m.snapshotInto(m.warpSnap), m.steps
						switch {
						case r.lazy && !e.tried:
							m.apart = newApartCollect() // (the proof comes after)
						case r.views != nil || r.oneLane != nil:
							m.apart = newApartCheck(r.views)
							m.apart.oneLane = map[*ir.Buffer]bool{}
							for _, b := range r.oneLane {
								m.apart.oneLane[b] = true
							}
						}
						m.runWarp(fn.Body, cta, w, threads)
						hulls := m.apart
						m.apart = nil
						deltas, steps := m.since(before), m.steps-s0
						m.warpSnap = before[:0] // (counters only: no pointers kept)
						settle(i, w, res, deltas, steps, hulls)
						continue
					}
				}
				m.runWarp(fn.Body, cta, w, threads)
			}
			switch {
			case before != nil && c == 0:
				cta0, cta0Steps = m.since(before), m.steps-sc
			case before != nil && classes != nil:
				classDeltas = append(classDeltas, m.since(before))
			case before != nil:
				ctaDeltas[c], ctaSteps[c] = m.since(before), m.steps-sc
			}
			if classes != nil && c > 0 && c == run-1 && !m.over && classes.more(append([][]figDelta{cta0}, classDeltas...)) {
				// the figures do not grow by the same amount with each
				// iteration: every class executed (a few)
				run = int64(len(classes.exec))
			}
			if c == 0 && sampled && proveCTAs && !m.over {
				// A grid above MaxCTAs: the CTAs of a proven period
				// are executed, and each later CTA counts as the one
				// a multiple of the period before it (below), exactly;
				// without one, CTA 0 is multiplied (Scaled).
				if proofTrace != nil {
					proofTrace("ctas")
				}
				p, whyNot, cs := m.ctaShiftsLarge(fn.Body)
				scaledWhy = whyNot
				if p > 0 && p <= maxCTAs {
					ctaPeriod, run, proven = p, p, true
					ctaDeltas, ctaSteps = make([][]figDelta, p), make([]int64, p)
					ctaDeltas[0], ctaSteps[0] = cta0, cta0Steps
				}
				if cs != nil {
					classes = planClasses(cs)
					run = int64(len(classes.exec))
				}
			}
			if m.over {
				proven = false
				if m.overWork {
					return nil, false
				}
				if !m.moot {
					why = fmt.Sprintf("the analysis stopped after %d steps", maxSteps)
					if m.work > maxWork {
						why = fmt.Sprintf("the analysis stopped after executing %d statements", maxWork)
					}
				}
				break
			}
		}
		if classes != nil && why == "" && int64(len(classDeltas)) == run-1 {
			// each executed CTA counted for the others of its class, the
			// classes not executed from the executed ones (ctas.go)
			if how, ok := classes.count(append([][]figDelta{cta0}, classDeltas...)); ok {
				byClass, scaledWhy, nExec = true, how, run
			} else {
				scaledWhy += "; " + how
			}
		}
		if proven && why == "" {
			// the CTAs past the period's, each counted as the executed
			// one of its residue: (ctas-1-r)/period of them
			for r := range ctaPeriod {
				n := (ctas - 1 - r) / ctaPeriod
				for _, d := range ctaDeltas[r] {
					d.f.addCounts(d.c.times(n))
				}
			}
		}
	}
	if m.leftOut != "" && k.Body.Unknown == "" {
		// a statement of the kernel the evaluation left out, reached:
		// its accesses are in no figure (the calls' own stay exact)
		k.Body.Unknown = "`" + m.leftOut + "` is not modelled by tilels (an eval/unresolved warning) and may access memory"
	}
	all := append([]*Figures{k.Body}, m.order...)
	for _, f := range all {
		f.CTAs = ctas
		if why != "" {
			f.Unknown = why
		}
		if sampled && !proven {
			if !byClass {
				f.scale(ctas)
			}
			f.Scaled, f.ScaledWhy, f.Executed = true, scaledWhy, nExec
		}
	}
	total := &Figures{Source: "model", CTAs: ctas, Scaled: sampled && !proven}
	if total.Scaled {
		total.ScaledWhy, total.Executed = scaledWhy, nExec
	}
	for _, f := range all {
		total.add(f)
	}
	for _, f := range all {
		f.fold()
	}
	total.fold()
	k.Total = total
	k.steps, k.work = m.steps, m.work
	k.gaveUp = total.Unknown != "" && m.work < stmts
	return k, true
}

// dataRegs enables executing only the accesses of data registers'
// stores and loads (dataregs.go); tests turn it off to compare.
var dataRegs = true

// dedupWarps enables counting translated warps once (warps.go); tests
// turn it off to compare with executing every warp.
var dedupWarps = true

// dedupCTAs enables counting translated CTAs once (ctas.go); tests turn
// it off to compare with executing every CTA.
var dedupCTAs = true

// proofTrace, when set (tests), hears each proof across warps ("warps")
// and CTAs ("ctas") that AnalyzeWithin makes, and each warp it executes
// ("warp executed").
var proofTrace func(kind string)

// counts are the additive counters of one Figures.
type counts struct {
	sh [4]Shared
	gl [2]Global
	as [2]Async
}

func (f *Figures) counts() counts {
	return counts{sh: [4]Shared{f.SharedLoad, f.SharedStore, f.Ldmatrix, f.Stmatrix}, gl: [2]Global{f.GlobalLoad, f.GlobalStore},
		as: [2]Async{f.CpAsync, f.TMA}}
}

// same reports whether f's counters are c's, without copying them (most
// of the figures sinceInto looks at counted nothing since the snapshot:
// building each one's delta to compare it with zero was a tenth of a
// keystroke's CPU in FlashMLA's sparse_prefill_head128_phase1.py with the
// figures computed again).
func (f *Figures) same(c *counts) bool {
	return f.SharedLoad == c.sh[0] && f.SharedStore == c.sh[1] && f.Ldmatrix == c.sh[2] && f.Stmatrix == c.sh[3] &&
		f.GlobalLoad == c.gl[0] && f.GlobalStore == c.gl[1] && f.CpAsync == c.as[0] && f.TMA == c.as[1]
}

// times returns c's counters multiplied by n.
func (c *counts) times(n int64) *counts {
	out := *c
	for i := range out.sh {
		s := &out.sh[i]
		s.Instructions, s.Wavefronts, s.Ideal, s.Conflicts = s.Instructions*n, s.Wavefronts*n, s.Ideal*n, s.Conflicts*n
	}
	for i := range out.gl {
		g := &out.gl[i]
		g.Requests, g.Sectors, g.IdealSectors = g.Requests*n, g.Sectors*n, g.IdealSectors*n
	}
	for i := range out.as {
		a := &out.as[i]
		a.Instructions, a.Bytes = a.Instructions*n, a.Bytes*n
	}
	return &out
}

func (f *Figures) addCounts(c *counts) {
	for i, s := range []*Shared{&f.SharedLoad, &f.SharedStore, &f.Ldmatrix, &f.Stmatrix} {
		s.add(c.sh[i])
	}
	f.GlobalLoad.add(c.gl[0])
	f.GlobalStore.add(c.gl[1])
	f.CpAsync.add(c.as[0])
	f.TMA.add(c.as[1])
}

type figDelta struct {
	f *Figures
	c counts
}

// snap is the counters of the machine's figures at one point: the
// body's, then the calls' in m.order (a call whose figures appear later
// counted nothing before).
type snap []counts

// snapshot returns the counters of every figures the machine has, into
// buf's storage.
func (m *machine) snapshotInto(buf snap) snap {
	out := append(buf[:0], m.body.counts())
	for _, f := range m.order {
		out = append(out, f.counts())
	}
	return out
}

func (m *machine) snapshot() snap { return m.snapshotInto(nil) }

// delta is what f counted since before (its entry i in the snapshot).
func delta(f *Figures, before snap, i int) counts {
	a := f.counts()
	var b counts
	if i < len(before) {
		b = before[i]
	}
	var d counts
	for i := range a.sh {
		d.sh[i] = Shared{a.sh[i].Instructions - b.sh[i].Instructions, a.sh[i].Wavefronts - b.sh[i].Wavefronts,
			a.sh[i].Ideal - b.sh[i].Ideal, a.sh[i].Conflicts - b.sh[i].Conflicts}
	}
	for i := range a.gl {
		d.gl[i] = Global{a.gl[i].Requests - b.gl[i].Requests, a.gl[i].Sectors - b.gl[i].Sectors, a.gl[i].IdealSectors - b.gl[i].IdealSectors}
	}
	for i := range a.as {
		d.as[i] = Async{a.as[i].Instructions - b.as[i].Instructions, a.as[i].Bytes - b.as[i].Bytes}
	}
	return d
}

// since returns what each figures counted since before, in the
// machine's deltas slab: the counts of a warp or CTA executed for
// others, which AnalyzeWithin keeps to its end (a slice each were a
// sixteenth of the analysis's allocated bytes; the pool keeps the slab).
func (m *machine) since(before snap) []figDelta {
	n, need := len(m.deltas), 1+len(m.order)
	if cap(m.deltas)-n < need {
		// a new slab: the slices of the old one stay valid
		m.deltas, n = make([]figDelta, 0, max(2*cap(m.deltas), need, 64)), 0
	}
	out := m.sinceInto(m.deltas[n:n], before)
	m.deltas = m.deltas[:n+len(out)]
	return out[:len(out):len(out)]
}

// maxDeltas bounds the slab a pooled machine keeps (figDelta entries).
const maxDeltas = 4096

// sinceInto is since, into out's storage.
func (m *machine) sinceInto(out []figDelta, before snap) []figDelta {
	out = out[:0]
	if d := delta(m.body, before, 0); d != (counts{}) {
		out = append(out, figDelta{m.body, d})
	}
	for i, f := range m.order {
		if i+1 < len(before) && f.same(&before[i+1]) {
			continue
		}
		if d := delta(f, before, i+1); d != (counts{}) {
			out = append(out, figDelta{f, d})
		}
	}
	return out
}

var machines = sync.Pool{New: func() any {
	return &machine{appliers: map[*ir.Buffer]func([]int64) int64{}, rowMajor: map[*ir.Buffer]bool{}, linears: map[*ir.Buffer]linear{},
		reasons: map[any]string{}}
}}

// getMachine returns a machine ready for one analysis (the pool keeps the
// maps, the binding arena and the pending events' storage).
func getMachine(l ir.Launch, k *Kernel) *machine {
	m := spareMachines.get()
	if m == nil {
		m = machines.Get().(*machine)
	}
	m.launch, m.calls, m.body = l, k.Calls, k.Body
	return m
}

// putMachine drops every reference to the analysis and pools m.
func putMachine(m *machine) {
	clear(m.appliers)
	clear(m.constMaps)
	m.ops.clear()
	clear(m.rowMajor)
	clear(m.linears)
	clear(m.reasons)
	m.vars.clear()
	m.lets.clear()
	clear(m.divs)
	clear(m.aparts)
	clear(m.cptrs[0])
	clear(m.cptrs[1])
	clear(m.cptrVals)
	clear(m.loadWhy)
	clear(m.assigned)
	clear(m.unrolled)
	m.local.clear()
	clear(m.poison)
	clear(m.pending)
	clear(m.loopProofs)
	clear(m.segLoops)
	clear(m.whiles)
	clear(m.whileFors)
	clear(m.scopeRanges)
	clear(m.affs)
	clear(m.deltaBuf[:cap(m.deltaBuf)])
	clear(m.ghosts)
	clear(m.inert)
	clear(m.forVars)
	clear(m.consts)
	clear(m.quiets)
	clear(m.quietIfs)
	clear(m.regInits)
	// the lists of available loads and their sets, for the next analysis
	for _, bs := range m.avail {
		m.dropLoads(bs)
		bs.buf, bs.listed = nil, false
		if len(m.availFree) < maxFreeLoads {
			m.availFree = append(m.availFree, bs)
		}
	}
	clear(m.avail)
	clear(m.availUsed[:cap(m.availUsed)])
	// what the kept slices' storage still points to (nodes, buffers,
	// figures): a spare machine must not keep a closed file's IR alive
	clear(m.loops[:cap(m.loops)])
	clear(m.order[:cap(m.order)])
	clear(m.chunkRoots[:cap(m.chunkRoots)])
	clear(m.delta0Buf[:cap(m.delta0Buf)])
	m.proofMaps.release()
	clear(m.deltas) // (past its length the slab holds nothing)
	if cap(m.deltas) > maxDeltas {
		m.deltas = nil
	}
	// (pending and flushEvs are cleared where flush truncates them)
	// the bindings this analysis used (they hold reasons), not their
	// whole chunks: a chunk is 256 bindings (72 KB), and a small kernel
	// uses a few
	m.peak = max(m.peak, m.used)
	for i := 0; i < m.peak; i += arenaChunk {
		clear(m.arena[i/arenaChunk][:min(arenaChunk, m.peak-i)])
	}
	*m = machine{appliers: m.appliers, constMaps: m.constMaps, ops: m.ops, caps: m.caps[:0], scratch: m.scratch, rowMajor: m.rowMajor, linears: m.linears, reasons: m.reasons, vars: m.vars, lets: m.lets,
		unrolled: m.unrolled[:0], local: m.local, pending: m.pending[:0], arena: m.arena, coord: m.coord[:0], order: m.order[:0],
		loops: m.loops[:0], loadsFree: m.loadsFree, poison: m.poison, loopProofs: m.loopProofs, segLoops: m.segLoops, whiles: m.whiles, whileFors: m.whileFors, scopeRanges: m.scopeRanges, affs: m.affs, ghosts: m.ghosts, recFree: m.recFree, snapBuf: m.snapBuf, deltaBuf: m.deltaBuf[:0], delta0Buf: m.delta0Buf[:0], deltas: m.deltas[:0], proofMaps: m.proofMaps, chunks: m.chunks[:0], chunkRoots: m.chunkRoots[:0], chunkKeys: m.chunkKeys[:0], chunkDs: m.chunkDs[:0], flushUsed: m.flushUsed[:0], flushStepped: m.flushStepped[:0], flushEvs: m.flushEvs[:0], flushShapes: m.flushShapes[:0], flushTab: m.flushTab[:0], avail: m.avail, availUsed: m.availUsed[:0], availFree: m.availFree, banks: m.banks, uses: m.uses, cptrs: m.cptrs, cptrVals: m.cptrVals[:0], aparts: m.aparts, loadWhy: m.loadWhy, warpSnap: m.warpSnap, inert: m.inert, forVars: m.forVars, consts: m.consts, quiets: m.quiets, quietIfs: m.quietIfs, regInits: m.regInits}
	if len(m.arena) > maxSpareArena || !spareMachines.put(m) {
		machines.Put(m)
	}
}

// bankScratch returns the machine's scratch for the shared rule.
func (m *machine) bankScratch() *[4]bankWords {
	if m.banks == nil {
		m.banks = new([4]bankWords)
	}
	return m.banks
}

// runOf is the index of the run that holds warp w (-1: none).
func runOf(runs []warpRun, w int64) int {
	for i, r := range runs {
		if w >= r.start && w < r.end {
			return i
		}
	}
	return -1
}

// spareMachines keeps a few machines across garbage collections, which
// empty sync.Pool: a machine made after one grows its binding arena,
// lists of loads, records and maps again, and that allocation was a
// third of the analysis's in the language server's and the benchmarks'
// steady state (BenchmarkAnalyzeMemoryGoldens, mode=cold: perf/memory
// allocated 5.1 MB/op, of which 1.7 MB remade pooled machines). A
// machine whose arena grew past maxSpareArena chunks goes to the pool
// only, so the spares hold at most maxSpare small machines.
var spareMachines = spares[*machine]{}

const (
	maxSpare      = 8
	maxSpareArena = 8 // chunks of arenaChunk bindings, about 72 KB each
)

// spares is a small free list that the collector does not empty.
type spares[T any] struct {
	mu   sync.Mutex
	list []T
}

func (s *spares[T]) get() (t T) {
	s.mu.Lock()
	if n := len(s.list); n > 0 {
		t = s.list[n-1]
		var zero T
		s.list[n-1] = zero
		s.list = s.list[:n-1]
	}
	s.mu.Unlock()
	return t
}

// put keeps t unless maxSpare are kept already.
func (s *spares[T]) put(t T) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.list) >= maxSpare {
		return false
	}
	s.list = append(s.list, t)
	return true
}

func (m *machine) runWarp(body *ir.Block, cta, w, threads int64) {
	if proofTrace != nil {
		proofTrace("warp executed")
	}
	m.warp = w
	m.present = 0
	bx, by := max(m.launch.Block[0], 1), max(m.launch.Block[1], 1)
	for i := range int64(32) {
		t := w*32 + i
		m.tid[i] = t
		m.txyz[0][i], m.txyz[1][i], m.txyz[2][i] = t%bx, t/bx%by, t/(bx*by)
		if t < threads {
			m.present |= 1 << i
		}
	}
	m.vars.clear()
	m.lets.clear()
	clear(m.unrolled)
	m.unrolled = m.unrolled[:0]
	m.local.clear()
	clear(m.poison)
	m.peak = max(m.peak, m.used)
	m.used = 0
	m.mask = m.present
	m.cur, m.curCall = m.body, nil
	m.loops = m.loops[:0]
	m.cpRun = false
	clear(m.cpPending)
	m.forget()
	m.ctaIndex = cta
	m.bindHost() // hostconsts.go
	m.block(body)
	if m.inUnr > 0 {
		m.inUnr = 0
		m.flush()
	}
	m.regsEnd()
}

// emit counts e, or keeps it for merging inside an unroll loop.
func (m *machine) emit(e *event) {
	if m.apart != nil && e.mask != 0 {
		m.apart.note(e) // apart.go
	}
	if e.mask == 0 && m.predOff {
		m.offInstruction(e)
		return
	}
	if m.rec != nil && e.mask != 0 {
		m.record(recEvent, e)
	}
	if e.k == sharedStore || e.k == globalStore || e.k == cpAsync || e.k == stmatrix || e.k == tma {
		m.memGen++
		if len(m.regs) > 0 {
			m.regStored(e)
		}
	}
	if e.mask == 0 || m.redundant(e) {
		return
	}
	m.steps++
	e.fig = m.cur
	if e.k != cpAsync {
		m.cpRun = false
	}
	if m.inUnr > 0 && e.k == sharedLoad && m.loads != vectorLoads {
		e.limit = loadLimit(m.loads, e.width) // halfloads.go
	}
	if m.inUnr > 0 && (e.k == sharedLoad || e.k == sharedStore) {
		m.pending = append(m.pending, *e)
		return
	}
	m.count(e)
}

// flush merges the pending events of an unroll loop (see the package
// comment) and counts them.
func (m *machine) flush() {
	p := m.pending
	used := m.flushUsed[:0]
	used = append(used, make([]bool, len(p))...)
	m.flushUsed = used
	shapes := append(m.flushShapes[:0], make([]laneShape, len(p))...) // (shapeAt places them as asked)
	m.flushShapes = shapes
	m.flushTab = m.flushTab[:0]
	var runs [17]int // a run of events of 1 byte or more stops at 16 bytes
	for i := range p {
		if used[i] {
			continue
		}
		e := p[i]
		run := append(runs[:0], i)
		last := i
		skips := 0
		lim := int64(16) // the widest access the run may become
		if e.limit > 0 {
			lim = e.limit
		}
		// loads stepped over (merge.go's sortedLoads: a later one may
		// take them, out of program order)
		stepped := m.flushStepped[:0]
		for j := i + 1; j < len(p) && int64(len(run))*e.width < lim; j++ {
			q := &p[j]
			if used[j] || q.k != e.k || q.buf != e.buf || q.fig != e.fig {
				continue
			}
			if q.mask != e.mask || q.width != e.width || q.limit != e.limit {
				break
			}
			if e.k == sharedLoad && len(stepped) > 0 {
				run, last, stepped = takeStepped(p, run, last, stepped, lim)
				if int64(len(run))*e.width >= lim {
					break
				}
			}
			if !follows(&p[last], q) {
				if skips < maxSkips && interleavedOn(p, shapes, &m.flushTab, run[0], last, j) {
					skips++
					if e.k == sharedLoad {
						stepped = append(stepped, j)
					}
					continue // merge.go
				}
				break
			}
			run = append(run, j)
			last = j
		}
		if len(stepped) > 0 {
			run, last, _ = takeStepped(p, run, last, stepped, lim)
		}
		m.flushStepped = stepped[:0]
		// the largest power-of-two prefix whose width the first address
		// is provably aligned to
		n := 1
		for c := 2; c <= len(run); c *= 2 {
			if w := int64(c) * e.width; w <= lim && e.align%w == 0 {
				n = c
			}
		}
		width := int64(n) * e.width
		if e.k == sharedLoad && n < len(run) {
			n, width = widened(&e, len(run), n, width, lim) // merge.go
		}
		for _, j := range run[:n] {
			used[j] = true
		}
		e.width = width
		if e.rv == nil {
			m.count(&e)
		} else {
			evs := m.flushEvs[:0]
			for _, j := range run[:n] {
				evs = append(evs, p[j])
			}
			m.flushEvs = evs
			m.countRun(&e, evs)
			clear(evs) // (their nodes and buffers: see putMachine)
		}
	}
	clear(m.pending)
	m.pending = m.pending[:0]
}

// follows reports whether every active lane of q accesses the bytes right
// after p's.
func follows(p, q *event) bool {
	for i := range 32 {
		if q.mask&(1<<i) != 0 && q.addr[i] != p.addr[i]+p.width {
			return false
		}
	}
	return true
}

// count adds one warp instruction to its figures.
func (m *machine) count(e *event) {
	f := e.fig
	if f.Misaligned == nil {
		m.checkAligned(e)
	}
	switch e.k {
	case sharedLoad, sharedStore:
		wf, ideal, groups := sharedPassesIn(e, nil, m.bankScratch())
		s := &f.SharedLoad
		kindName := "shared load"
		if e.k == sharedStore {
			s, kindName = &f.SharedStore, "shared store"
		}
		s.Instructions++
		s.Wavefronts += wf
		s.Ideal += ideal
		s.Conflicts += wf - ideal
		m.describeShared(f, e, kindName, e.width, wf, ideal, groups)
	case ldmatrix, stmatrix:
		wf, ideal, groups := matrixWavefronts(e, &m.bankScratch()[0])
		s, kindName := &f.Ldmatrix, "ldmatrix"
		if e.k == stmatrix {
			s, kindName = &f.Stmatrix, "stmatrix"
		}
		s.Instructions++
		s.Wavefronts += wf
		s.Ideal += ideal
		s.Conflicts += wf - ideal
		m.describeShared(f, e, kindName, 16, wf, ideal, groups)
	case globalLoad, globalStore:
		sec, ideal := sectors(e)
		g, kindName := &f.GlobalLoad, "global load"
		if e.k == globalStore {
			g, kindName = &f.GlobalStore, "global store"
		}
		g.Requests++
		g.Sectors += sec
		g.IdealSectors += ideal
		if sec > ideal && (f.WorstGlobal == nil || sec-ideal > f.WorstGlobal.Wavefronts-f.WorstGlobal.Ideal) {
			f.WorstGlobal = &Instruction{Kind: kindName, Width: e.width, Buf: e.buf.Name, Buffer: e.buf, Span: e.node.Pos(), node: e.node,
				Wavefronts: sec, Ideal: ideal, CTA: m.ctaIndex, Warp: m.warp}
		}
	case cpAsync:
		f.CpAsync.Instructions++
		if e.run {
			f.SharedLoad.Instructions += 3
		}
		rd := e
		if e.srcLen != nil {
			// a guarded cp.async (cpGuard): the lanes that read, and
			// what they read; none: no request
			g := *e
			g.mask = 0
			for i := range 32 {
				if e.mask&(1<<i) != 0 && e.srcLen[i] > 0 {
					g.mask |= 1 << i
					f.CpAsync.Bytes += e.srcLen[i]
				}
			}
			if g.mask == 0 {
				break
			}
			rd = &g
		} else {
			f.CpAsync.Bytes += int64(bits.OnesCount32(e.mask)) * e.bytes
		}
		// A cp.async is also a global load request; its sectors are
		// counted per shared-side pass, but for lanes that repeat a copy
		// in flight (cpInFlight).
		f.GlobalLoad.Requests++
		if e.dup != 0 {
			g := *rd
			g.mask &^= e.dup
			if g.mask == 0 {
				break
			}
			rd = &g
		}
		sec, ideal := cpAsyncSectors(rd)
		f.GlobalLoad.Sectors += sec
		f.GlobalLoad.IdealSectors += ideal
	case tma:
		f.TMA.Instructions++
		f.TMA.Bytes += int64(bits.OnesCount32(e.mask)) * e.bytes
	}
}

// bankWords collects the distinct words per bank of one group. Only n
// is reset between groups (words[b][:n[b]] are the live ones): a fresh
// zeroed [4]bankWords per instruction (33 KB) was a quarter of the
// analysis of a kernel with many shared accesses.
type bankWords struct {
	n     [32]int
	words [32][32]int64
}

func (b *bankWords) reset() { b.n = [32]int{} }

// add records word w; it reports whether the word is new in its bank.
func (b *bankWords) add(w int64) bool {
	bank := int(w & 31)
	for _, x := range b.words[bank][:b.n[bank]] {
		if x == w {
			return false
		}
	}
	if b.n[bank] < 32 {
		b.words[bank][b.n[bank]] = w
		b.n[bank]++
	}
	return true
}

func (b *bankWords) max() int64 {
	mx := 0
	for _, n := range b.n {
		mx = max(mx, n)
	}
	return int64(mx)
}

// groupSize is the number of lanes the hardware processes together for
// an access of w bytes per lane.
func groupSize(w int64) int {
	switch {
	case w >= 16:
		return 8
	case w >= 8:
		return 16
	}
	return 32
}

// sharedWavefronts applies the shared-memory rule to e (calibrated on an
// H100/H200, see the package comment): wavefronts, ideal (the passes: one
// per group, or per merged pair of groups) and the lanes of the worst
// group (for describe).
func sharedWavefronts(e *event) (wf, ideal int64, worst uint32) {
	var bw [4]bankWords
	return sharedPassesIn(e, nil, &bw)
}

// sharedPasses is sharedWavefronts; with pass non-nil it also sets
// pass[k] to the pass that serves group k (-1: no active lane).
func sharedPasses(e *event, pass *[4]int) (wf, ideal int64, worst uint32) {
	var bw [4]bankWords
	return sharedPassesIn(e, pass, &bw)
}

// sharedPassesIn is sharedPasses with bw as scratch (any contents).
func sharedPassesIn(e *event, pass *[4]int, bw *[4]bankWords) (wf, ideal int64, worst uint32) {
	if wf, ideal, ok := conflictFree(e, pass); ok {
		return wf, ideal, 0
	}
	return bankPasses(e, pass, bw)
}

// conflictFree is sharedPassesIn for the common access in which no two
// words of a group share a bank, found with a bit per bank (ok false
// otherwise, or when a pair of load groups shares a bank, whose words
// then decide): one wavefront per group, or per pair of load groups,
// and no worst lanes. The words per bank of bankPasses, reset for each
// group, were most of the shared rule's cost.
func conflictFree(e *event, pass *[4]int) (wf, ideal int64, ok bool) {
	if e.width <= 0 {
		return 0, 0, false
	}
	g := groupSize(e.width)
	ng := 32 / g
	var used [4]uint32
	var active [4]bool
	// an aligned access of 4, 8 or 16 bytes covers whole words in one
	// run of banks that does not wrap: its banks are one mask
	aligned := e.width == 4 || e.width == 8 || e.width == 16
	run := uint32(1)<<(e.width>>2) - 1
	for k := range ng {
		for i := k * g; i < (k+1)*g; i++ {
			if e.mask&(1<<i) == 0 {
				continue
			}
			active[k] = true
			a := e.addr[i]
			if aligned && a&(e.width-1) == 0 {
				bs := run << ((a >> 2) & 31)
				if used[k]&bs != 0 {
					return 0, 0, false
				}
				used[k] |= bs
				continue
			}
			for wd := a >> 2; wd <= (a+e.width-1)>>2; wd++ {
				bit := uint32(1) << (wd & 31)
				if used[k]&bit != 0 {
					return 0, 0, false
				}
				used[k] |= bit
			}
		}
	}
	var ps [4]int
	for k := 0; k < ng; k++ {
		ps[k] = -1
		if !active[k] {
			continue
		}
		ps[k] = int(ideal)
		if e.k == sharedLoad && k%2 == 0 && k+1 < ng && active[k+1] {
			if used[k]&used[k+1] != 0 {
				return 0, 0, false
			}
			ps[k+1] = int(ideal)
			wf++
			ideal++
			k++
			continue
		}
		wf++
		ideal++
	}
	if pass != nil {
		*pass = [4]int{-1, -1, -1, -1}
		copy(pass[:], ps[:ng])
	}
	return wf, ideal, true
}

// bankPasses is sharedPassesIn counting the distinct words of each bank.
func bankPasses(e *event, pass *[4]int, bw *[4]bankWords) (wf, ideal int64, worst uint32) {
	g := groupSize(e.width)
	var w [4]int64     // w(group)
	var active [4]bool // the group has an active lane
	var worstMax int64
	worstGroup := -1
	ng := 32 / g
	// Aligned accesses of 4, 8 or 16 bytes cover runs of banks that
	// start where a run of the width may and do not wrap: two lanes'
	// runs share a bank only when they start at one, and then they hold
	// distinct words in every bank of the run or in none. The first word
	// of each run stands for the run (the most words of a bank, and
	// whether two groups hold the same word where they meet, are the
	// same).
	last := e.width - 1
	if e.width == 4 || e.width == 8 || e.width == 16 {
		last = 0
		for i := range 32 {
			if e.mask&(1<<i) != 0 && e.addr[i]&(e.width-1) != 0 {
				last = e.width - 1
				break
			}
		}
	}
	for k := range ng {
		b := &bw[k]
		b.reset()
		for i := k * g; i < (k+1)*g; i++ {
			if e.mask&(1<<i) == 0 {
				continue
			}
			active[k] = true
			a := e.addr[i]
			for wd := a >> 2; wd <= (a+last)>>2; wd++ {
				b.add(wd)
			}
		}
		if !active[k] {
			continue
		}
		w[k] = b.max()
		if w[k] > worstMax {
			worstMax, worstGroup = w[k], k
		}
	}
	wf, ideal = groupPasses(e.k, ng, &w, &active, bw, pass)
	if worstMax > 1 {
		for i := worstGroup * g; i < (worstGroup+1)*g; i++ {
			worst |= e.mask & (1 << i)
		}
	}
	return wf, ideal, worst
}

// groupPasses is the passes of ng groups of lanes whose most words in a
// bank are w (active: the group has an active lane; bw their words), for
// an access of kind k: wavefronts and ideal, and with pass non-nil the
// pass that serves each group (-1: none).
func groupPasses(k kind, ng int, w *[4]int64, active *[4]bool, bw *[4]bankWords, pass *[4]int) (wf, ideal int64) {
	if pass != nil {
		*pass = [4]int{-1, -1, -1, -1}
	}
	for g := 0; g < ng; g++ {
		if !active[g] {
			continue
		}
		if pass != nil {
			pass[g] = int(ideal)
		}
		// Loads only: two adjacent groups (2g, 2g+1) are served in one
		// wavefront when together no bank has more than one distinct word.
		if k == sharedLoad && g%2 == 0 && g+1 < ng && active[g+1] && w[g] == 1 && w[g+1] == 1 && disjointBanks(&bw[g], &bw[g+1]) {
			if pass != nil {
				pass[g+1] = int(ideal)
			}
			wf++
			ideal++
			g++
			continue
		}
		wf += w[g]
		ideal++
	}
	return wf, ideal
}

// disjointBanks reports whether two groups that each hold at most one
// word per bank hold, together, at most one distinct word per bank.
func disjointBanks(a, b *bankWords) bool {
	for bank := range 32 {
		if a.n[bank] > 0 && b.n[bank] > 0 && a.words[bank][0] != b.words[bank][0] {
			return false
		}
	}
	return true
}

// matrixWavefronts applies the ldmatrix/stmatrix rule: one phase per 8x8
// matrix over the 16-byte rows whose addresses lanes 8i..8i+7 give.
func matrixWavefronts(e *event, bw *bankWords) (wf, ideal int64, worst uint32) {
	var worstMax int64
	worstMat := 0
	for mat := 0; mat < int(e.width) && mat < 4; mat++ {
		bw.reset()
		for i := 8 * mat; i < 8*mat+8; i++ {
			for w := e.addr[i] >> 2; w < (e.addr[i]+16)>>2; w++ {
				bw.add(w)
			}
		}
		mx := bw.max()
		wf += mx
		ideal++ // ldmatrix/stmatrix never merge two matrices into one pass
		if mx > worstMax {
			worstMax, worstMat = mx, mat
		}
	}
	if worstMax > 1 {
		worst = 0xff << (8 * worstMat)
	}
	return wf, ideal, worst
}

// describeShared sets f's worst shared instruction to e when e has more
// conflicts than it, and its first to e when there is none yet: one
// Instruction when e is both (f's instructions are not written once
// built, and the cache's keeper keeps a shared one once).
func (m *machine) describeShared(f *Figures, e *event, kindName string, width, wf, ideal int64, groups uint32) {
	var in *Instruction
	if wf > ideal && (f.Worst == nil || wf-ideal > f.Worst.Wavefronts-f.Worst.Ideal) {
		in = m.describe(e, kindName, width, wf, ideal, groups)
		f.Worst = in
	}
	if f.FirstShared == nil {
		if in == nil {
			in = m.describe(e, kindName, width, wf, ideal, groups)
		}
		f.FirstShared = in
	}
}

// describe builds the Instruction of a shared access for the hover: the
// banks of its worst group that hold the most distinct words, with the
// lanes that access them.
func (m *machine) describe(e *event, kindName string, width, wf, ideal int64, lanesOf uint32) *Instruction {
	in := &Instruction{Kind: kindName, Width: width, Buf: e.buf.Name, Buffer: e.buf, Span: e.node.Pos(), node: e.node, Wavefronts: wf, Ideal: ideal,
		CTA: m.ctaIndex, Warp: m.warp}
	u := m.describeScratch()
	u.reset()
	for rest := lanesOf; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros32(rest)
		a := e.addr[i]
		t := m.warp*32 + int64(i)
		for w := a >> 2; w <= (a+width-1)>>2; w++ {
			b := w & 31
			if !slices.Contains(u.words[b][:u.nw[b]], w) && u.nw[b] < len(u.words[b]) {
				u.words[b][u.nw[b]] = w
				u.nw[b]++
			}
			if !slices.Contains(u.threads[b][:u.nt[b]], t) && u.nt[b] < len(u.threads[b]) {
				u.threads[b][u.nt[b]] = t
				u.nt[b]++
			}
		}
	}
	in.rec = &laneRecord{k: e.k, mask: e.mask, width: e.width, warp: m.warp, addr: e.addr}
	mx := 0
	for _, n := range u.nw {
		mx = max(mx, n)
	}
	if mx > 1 {
		for b, n := range u.nw {
			if n == mx {
				in.Banks = append(in.Banks, BankUse{Bank: b, Threads: slices.Clone(u.threads[b][:u.nt[b]]), Words: n})
			}
		}
	}
	return in
}

// bankUses is describe's scratch: the distinct words of each bank and the
// threads that access them, in the order met (a slice of each per bank
// per instruction described were a seventh of the analysis's
// allocations).
type bankUses struct {
	nw, nt         [32]int
	words, threads [32][32]int64
}

func (u *bankUses) reset() { u.nw, u.nt = [32]int{}, [32]int{} }

func (m *machine) describeScratch() *bankUses {
	if m.uses == nil {
		m.uses = new(bankUses)
	}
	return m.uses
}

// laneAccesses lists e's lane accesses, of warp warp, with their passes
// (Instruction.Lanes); bw is the shared rule's scratch.
func laneAccesses(e *event, warp int64, bw *[4]bankWords) []LaneAccess {
	var out []LaneAccess
	switch e.k {
	case ldmatrix, stmatrix:
		if e.width > 0 {
			out = make([]LaneAccess, 0, 8*min(e.width, 4))
		}
		for mat := 0; mat < int(e.width) && mat < 4; mat++ {
			for i := 8 * mat; i < 8*mat+8; i++ {
				out = append(out, LaneAccess{Thread: warp*32 + int64(i), Addr: e.addr[i], Bytes: 16, Pass: mat})
			}
		}
	default:
		var pass [4]int
		sharedPassesIn(e, &pass, bw)
		g := groupSize(e.width)
		if n := bits.OnesCount32(e.mask); n > 0 {
			out = make([]LaneAccess, 0, n)
		}
		for i := range 32 {
			if e.mask&(1<<i) != 0 {
				out = append(out, LaneAccess{Thread: warp*32 + int64(i), Addr: e.addr[i], Bytes: e.width, Pass: pass[i/g]})
			}
		}
	}
	return out
}

// sectors applies the global rule: distinct 32-byte sectors, and the ideal
// (distinct bytes / 32, rounded up), in one pass over the active lanes'
// addresses in increasing order (sectorRun): in lane order when they do
// not decrease with the lane, the common coalesced case, else sorted
// (anySectors' search of the sectors seen and sort of the lanes' byte
// ranges through a comparison function were most of the global rule's
// cost, and an eighth of test_ld_stmatrix.py's analysis, whose warps
// read columns).
func sectors(e *event) (n, ideal int64) {
	r := newSectorRun()
	prev := int64(math.MinInt64)
	for rest := e.mask; rest != 0; rest &= rest - 1 {
		a := e.addr[bits.TrailingZeros32(rest)]
		if a < prev {
			return sortedSectors(e)
		}
		prev = a
		r.add(a, e.width)
	}
	return r.result()
}

// sortedSectors is sectors over the active lanes' addresses sorted.
func sortedSectors(e *event) (n, ideal int64) {
	var addrs [32]int64
	na := 0
	for rest := e.mask; rest != 0; rest &= rest - 1 {
		addrs[na] = e.addr[bits.TrailingZeros32(rest)]
		na++
	}
	slices.Sort(addrs[:na])
	r := newSectorRun()
	for _, a := range addrs[:na] {
		r.add(a, e.width)
	}
	return r.result()
}

// sectorRun counts the sectors and the bytes of accesses met in
// increasing order of address: every sector from an access's start up
// to the highest sector seen so far is seen already, so an access adds
// the sectors past that one, and the bytes past the highest end.
type sectorRun struct{ n, bytes, end, top int64 }

func newSectorRun() sectorRun { return sectorRun{end: -1 << 62, top: math.MinInt64} }

func (r *sectorRun) add(a, width int64) {
	b := a + width
	if first, last := max(a>>5, r.top+1), (b-1)>>5; last >= first {
		r.n += last - first + 1
		r.top = last
	}
	if a > r.end {
		r.bytes += b - a
		r.end = b
	} else if b > r.end {
		r.bytes += b - r.end
		r.end = b
	}
}

// result is the sectors (at most 64, anySectors' cap) and the ideal.
func (r *sectorRun) result() (n, ideal int64) { return min(r.n, 64), (r.bytes + 31) / 32 }

// cpAsyncSectors applies the calibrated cp.async rule: the global sectors
// are counted per pass of the shared-side store (groups as for a shared
// store of the copy's width; a thread is served in the pass of its
// word with the most distinct words before it in its bank), the distinct
// sectors of the threads of each pass summed. The ideal is the distinct
// global bytes / 32.
func cpAsyncSectors(e *event) (n, ideal int64) {
	if e.bytes > 16 {
		return cpAsyncSectorsWide(e)
	}
	// At most 8 lanes of 16 bytes (or 16 of 8, 32 of 4) per group: 32
	// words, so at most 32 distinct words per bank and 32 passes.
	g := groupSize(e.bytes)
	// (declared once: only rank[b][:nr[b]] and secs[:ns] are read, and
	// each declaration zeroes its array: 8 KB for each group and 512
	// bytes for each of its 32 passes, most of which have no lanes)
	var rank [32][32]int64 // per bank, the distinct words in order
	var secs [64]int64
	for start := 0; start < 32; start += g {
		var nr [32]int
		var pass [32]uint32 // lanes per pass
		for i := start; i < start+g; i++ {
			if e.mask&(1<<i) == 0 {
				continue
			}
			p := 0
			for w := e.addr[i] >> 2; w <= (e.addr[i]+e.bytes-1)>>2; w++ {
				b := w & 31
				r := slices.Index(rank[b][:nr[b]], w)
				if r < 0 {
					r = nr[b]
					rank[b][r] = w
					nr[b]++
				}
				p = max(p, r)
			}
			pass[p] |= 1 << i
		}
		for _, ls := range pass {
			ns := 0
			for ; ls != 0; ls &= ls - 1 {
				i := bits.TrailingZeros32(ls)
				for s := e.src[i] >> 5; s <= (e.src[i]+e.bytes-1)>>5; s++ {
					if !slices.Contains(secs[:ns], s) {
						secs[ns] = s
						ns++
					}
				}
			}
			n += int64(ns)
		}
	}
	src := *e
	src.addr, src.width = *e.src, e.bytes
	_, ideal = sectors(&src)
	return n, ideal
}

// cpAsyncSectorsWide is cpAsyncSectors for copies wider than 16 bytes.
func cpAsyncSectorsWide(e *event) (n, ideal int64) {
	g := groupSize(e.bytes)
	for start := 0; start < 32; start += g {
		var rank [32][]int64 // per bank, the distinct words in order
		pass := map[int][]int{}
		for i := start; i < start+g; i++ {
			if e.mask&(1<<i) == 0 {
				continue
			}
			p := 0
			for w := e.addr[i] >> 2; w <= (e.addr[i]+e.bytes-1)>>2; w++ {
				b := w & 31
				r := slices.Index(rank[b], w)
				if r < 0 {
					r = len(rank[b])
					rank[b] = append(rank[b], w)
				}
				p = max(p, r)
			}
			pass[p] = append(pass[p], i)
		}
		for _, ls := range pass {
			var secs []int64
			for _, i := range ls {
				for s := e.src[i] >> 5; s <= (e.src[i]+e.bytes-1)>>5; s++ {
					if !slices.Contains(secs, s) {
						secs = append(secs, s)
					}
				}
			}
			n += int64(len(secs))
		}
	}
	src := *e
	src.addr, src.width = *e.src, e.bytes
	_, ideal = sectors(&src)
	return n, ideal
}

// checkAligned records in e's figures the first lane of a load or store
// wider than 4 bytes whose address is not a multiple of its width: the
// GPU stops the kernel (misaligned address) where the lowering issues
// such a vector access. Addresses are offsets from the buffer's storage,
// whose start is aligned to at least 16 bytes (TVM's allocations,
// cudaMalloc); merged accesses are aligned by construction (exec.go).
func (m *machine) checkAligned(e *event) {
	var kindName string
	switch e.k {
	case sharedLoad:
		kindName = "shared load"
	case sharedStore:
		kindName = "shared store"
	case globalLoad:
		kindName = "global load"
	case globalStore:
		kindName = "global store"
	default:
		return
	}
	if e.width <= 4 || e.width > 16 {
		return
	}
	if w := e.width; w&(w-1) == 0 {
		// a power of two: the lanes' addresses ORed together show
		// whether any is misaligned, without a division per lane
		var or int64
		for rest := e.mask; rest != 0; rest &= rest - 1 {
			or |= e.addr[bits.TrailingZeros32(rest)]
		}
		if or&(w-1) == 0 {
			return
		}
	}
	for rest := e.mask; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros32(rest)
		if a := e.addr[i]; a%e.width != 0 {
			e.fig.Misaligned = &Instruction{Kind: kindName, Width: e.width, Buf: e.buf.Name, Buffer: e.buf, Span: e.node.Pos(), node: e.node,
				CTA: m.ctaIndex, Warp: m.warp, lanes: []LaneAccess{{Thread: m.tid[i], Addr: a, Bytes: e.width}}}
			return
		}
	}
}

// runtimeGridWhy is the reason the figures of a kernel whose grid extent
// i is a runtime value are unknown, naming the kernel's integer scalar
// parameters the extent reads: a bind line above the kernel gives them
// the values of a launch (ir.Func.LaunchArgs). A scalar the body
// declares (n = T.int32()) is not one a bind line names.
func runtimeGridWhy(fn *ir.Func, i int, e ir.Expr) string {
	why := fmt.Sprintf("the grid's %c extent is a runtime value", "xyz"[i])
	if e == nil {
		return why
	}
	params := map[*ir.Var]bool{}
	for _, p := range fn.Params {
		if p.Buf == nil && p.Var != nil && !p.Implicit && isIntType(p.Var.Type) {
			params[p.Var] = true
		}
	}
	var names []string
	walkExpr(e, func(x ir.Expr) {
		if v, ok := x.(*ir.Var); ok && params[v] && !slices.Contains(names, v.Name) {
			names = append(names, v.Name)
		}
	})
	if len(names) == 0 {
		return why
	}
	eqs := make([]string, len(names))
	for j, n := range names {
		eqs[j] = n + "=..."
	}
	return why + " (a `# tilels: bind " + strings.Join(eqs, ", ") + "` line above the kernel counts a launch with those values)"
}
