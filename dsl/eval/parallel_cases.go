package eval

import (
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/syntax"
)

// Bound cases evaluated in parallel (issue 15's keystroke target: the
// largest production files specialize one 2,450-line kernel for each of
// their CONFIGS entries, and the cases, one after another, were most of a
// keystroke).
//
// When drive has exactly one binding source with several cases and the
// module made no kernel, the cases after the first (up to maxReplicas)
// are each evaluated by a replica: a fresh evaluator of the same syntax
// tree and options that runs the module body again and then only its
// case, on its own goroutine, while this evaluator runs the first case.
// Replicas share nothing that evaluation changes (syntax trees, source
// files, the library tables, the options and the texts of the imported
// files are only read), so they need no locks.
//
// A replica's case starts from the state the module body left; the
// sequential run starts case i from the state cases 0..i-1 left. The two
// are the same when no case before i changed any state a case can
// observe: each run of a case (this evaluator's, every replica's)
// compares the fingerprint of that state before and after it
// (fingerprint.go). The products of a case are then merged in case order,
// as the sequential run would have made them: its diagnostics and label,
// its new kernel (handed to OnKernel here, on Evaluate's goroutine), the
// functions it entered, its binding-cache entries and its work (steps,
// value bytes, IR statements and tile calls, in total and per site; a
// case whose kernel an earlier case made is merged without the work of
// the body, which the sequential run does not evaluate again). A case
// whose replica changed observable state, made a partial or capped
// kernel, loaded a module, ran out of a budget or came near a file
// budget, panicked, found its kernel made by an earlier case before
// evaluating the body (caseKeys), or had not started when the merge
// needed it, is evaluated here instead, as the sequential run does; when
// that changed observable state, every later case is too. So the result
// is the sequential one (TestParallelCases compares every golden and, with
// -parallel.corpus, every corpus file both ways).
type parCases struct {
	job  *driveJob
	keys *caseKeys
	stop atomic.Bool
	// claims say who evaluates each case after the first: a replica that
	// starts, or this evaluator when it needs the case before a replica
	// started it.
	claims []atomic.Int32
	fp     uint64 // this evaluator's fingerprint before its first case
	outs   []chan *caseOut
}

// caseKeys are the kernels the cases started to make, by def and case
// string, with the lowest case index that did: a replica whose case makes
// a kernel an earlier case makes does not evaluate its body (the
// sequential run finds that kernel made), and leaves the case to the
// evaluator. Timing decides only whether a replica sees the earlier case's
// key in time, never the result.
type caseKeys struct {
	mu sync.Mutex
	m  map[caseKey]int
}

type caseKey struct {
	def *syntax.FunctionDef
	key string
}

// announce records that case i starts to make the kernel of def for key;
// it reports whether an earlier case did.
func (c *caseKeys) announce(def *syntax.FunctionDef, key string, i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := caseKey{def, key}
	if j, ok := c.m[k]; ok && j < i {
		return true
	}
	c.m[k] = i
	return false
}

const (
	claimFree int32 = iota
	claimReplica
	claimHere
)

// replica asks Evaluate for one case of the only binding source.
type replica struct {
	keys  *caseKeys
	stop  *atomic.Bool // set once the evaluator needs no more replicas
	caseI int
	// read are the files the evaluator read before its first case (only
	// read by the replicas): they see the same text.
	read map[string]readResult
}

// minProcs is the fewest processors (GOMAXPROCS) the cases are evaluated
// in parallel with. The replicas cost CPU the sequential run does not
// spend (each runs the module body again, every run of a case takes two
// fingerprints, a replica may evaluate a body an earlier case makes):
// measured on the largest TIRx-kernels file (BenchmarkSessionFile, 4
// kernels of 5 CONFIGS entries) on the 2-core development machine, busy
// with other work, interleaved runs: 37.8 -> 47.4 ms of CPU and 241k ->
// 267k allocations per keystroke, and the p50 latency went up, not down,
// with 2 processors; with 4 or more the replicas run beside the first
// case.
const minProcs = 4

// maxReplicas bounds the cases evaluated by replicas (the others run
// here after the merge).
const maxReplicas = 8

// startParallel starts the replicas of job's cases 1.. (nil when they do
// not apply).
func (ev *Evaluator) startParallel(f *syntax.File, job *driveJob) *parCases {
	procs := runtime.GOMAXPROCS(0)
	if ev.Opts.SequentialCases || ev.Opts.replica != nil || procs < minProcs || job.n < 2 ||
		ev.made > 0 || ev.fileOut || ev.budgetReported || len(ev.byDef) > 0 {
		return nil
	}
	pc := &parCases{job: job, fp: ev.fingerprint(), keys: &caseKeys{m: map[caseKey]int{}}}
	ev.par = pc // the first case announces its kernel
	n := min(job.n-1, maxReplicas)
	var read map[string]readResult
	if ev.imp != nil {
		read = maps.Clone(ev.imp.read)
	}
	// As many replicas at a time as processors: this evaluator waits
	// while they run, once its first case is done.
	sem := make(chan struct{}, procs)
	pc.claims = make([]atomic.Int32, n)
	for i := 1; i <= n; i++ {
		ch := make(chan *caseOut, 1)
		pc.outs = append(pc.outs, ch)
		opts := ev.Opts
		opts.replica = &replica{caseI: i, read: read, keys: pc.keys, stop: &pc.stop}
		opts.OnKernel = nil
		claim := &pc.claims[i-1]
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if pc.stop.Load() || !claim.CompareAndSwap(claimFree, claimReplica) {
				ch <- nil // the evaluator runs this case itself, or none
				return
			}
			ch <- runReplica(f, opts)
		}()
	}
	return pc
}

// runReplica evaluates f's module body and then one case; nil when it
// panicked.
func runReplica(f *syntax.File, opts Options) (out *caseOut) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
		}
	}()
	return evaluate(f, opts).caseOut
}

// caseOut is what a replica's case made, and whether it may be merged.
type caseOut struct {
	ok     bool
	dup    bool // an earlier case makes its kernel (caseKeys)
	diags  []diag.Diagnostic
	label  string
	kernel *Kernel // the new complete kernel, nil when none
	key    string
	made   int
	steps  int
	bytes  int64
	ir     int
	calls  int
	sites  map[siteKey]site // per-site work of the case (counter deltas)
	// body is the work of evaluating the kernel's body (the kernel's
	// unit), which the sequential run does not do when an earlier case
	// made the same kernel: such a case is merged without it.
	body  workDelta
	enter []*syntax.FunctionDef
	binds []*syntax.FunctionDef // binding-cache entries added (empty lists)
}

// workDelta is the work charged by one unit (steps, value bytes, IR
// statements and tile calls, each to the file and the unit's site).
type workDelta struct {
	site                siteKey
	steps, ir, calls, n int
	bytes               int64
}

// bodyStart returns the counters before a kernel's body is evaluated by a
// replica (nil elsewhere).
func (ev *Evaluator) bodyStart() *workDelta {
	if ev.caseOut == nil {
		return nil
	}
	return &workDelta{steps: ev.totalSteps, ir: ev.irStmts, calls: ev.tileCalls, bytes: ev.totalBytes}
}

// bodyEnd records in the replica's caseOut the work of the body of def
// evaluated since bodyStart (each body evaluated: the replica keeps its
// case only with one).
func (ev *Evaluator) bodyEnd(w *workDelta, def *syntax.FunctionDef) {
	if w == nil {
		return
	}
	o := ev.caseOut
	o.body = workDelta{site: siteKey{siteKernel, def.Name.Loc.Start}, steps: ev.totalSteps - w.steps, ir: ev.irStmts - w.ir,
		calls: ev.tileCalls - w.calls, bytes: ev.totalBytes - w.bytes, n: o.body.n + 1}
}

// skipBody announces that the case being evaluated starts to make the
// kernel of def for key (the first case of a parallel job, or a replica's
// case); it reports whether a replica must not evaluate the body (an
// earlier case makes the kernel).
func (ev *Evaluator) skipBody(def *syntax.FunctionDef, key string) bool {
	if ev.par != nil {
		ev.par.keys.announce(def, key, 0)
		return false
	}
	if r := ev.Opts.replica; r != nil && ev.caseOut != nil && (r.stop.Load() || r.keys.announce(def, key, r.caseI)) {
		ev.caseOut.dup = true
		return true
	}
	return false
}

// siteCounts is a copy of the sites' counters.
func (ev *Evaluator) siteCounts() map[siteKey]site {
	m := make(map[siteKey]site, len(ev.sites))
	for k, s := range ev.sites {
		m[k] = *s
	}
	return m
}

// runReplicaCase runs case caseI of the only binding source of a replica
// (drive calls it instead of running its jobs).
func (ev *Evaluator) runReplicaCase(jobs []*driveJob) {
	out := &caseOut{}
	ev.caseOut = out
	if len(jobs) != 1 || ev.made > 0 || ev.fileOut || ev.budgetReported || len(ev.byDef) > 0 || ev.Opts.replica.caseI >= jobs[0].n {
		return
	}
	j := jobs[0]
	if ev.Opts.replica.stop.Load() {
		return
	}
	fp := ev.fingerprint()
	sites := ev.siteCounts()
	entered := maps2set(ev.entered)
	binds := len(ev.bindCache)
	imports := len(ev.prog.Imports)
	steps, bytes, ir, calls, made := ev.totalSteps, ev.totalBytes, ev.irStmts, ev.tileCalls, ev.made
	nDiags := len(ev.prog.Diags)

	out.diags, out.label = j.run(ev.Opts.replica.caseI)

	if out.dup || ev.fileOut || ev.budgetReported || len(ev.prog.Imports) != imports || len(ev.prog.Diags) != nDiags ||
		ev.fingerprint() != fp {
		return
	}
	for _, d := range out.diags {
		if d.Code == CodeBudget || d.Code == CodeTooLarge {
			return
		}
	}
	for def, dc := range ev.byDef {
		if dc.partial != nil || len(dc.partialKeys) > 0 || len(dc.capped) > 0 || len(dc.cases) > 1 {
			return
		}
		if len(dc.cases) == 1 {
			if out.kernel != nil {
				return
			}
			out.kernel, out.key = dc.cases[0], dc.keys[0]
			if out.kernel.Def != def || len(out.kernel.Unbound) > 0 {
				return
			}
		}
	}
	if len(ev.bindCache) != binds {
		for def, c := range ev.bindCache {
			if len(c) > 0 {
				return
			}
			out.binds = append(out.binds, def)
		}
	}
	for def := range ev.entered {
		if !entered[def] {
			out.enter = append(out.enter, def)
		}
	}
	out.made = ev.made - made
	out.steps, out.bytes, out.ir, out.calls = ev.totalSteps-steps, ev.totalBytes-bytes, ev.irStmts-ir, ev.tileCalls-calls
	out.sites = map[siteKey]site{}
	for k, s := range ev.sites {
		old := sites[k]
		d := site{kind: s.kind, name: s.name, span: s.span, units: s.units - old.units, steps: s.steps - old.steps,
			bytes: s.bytes - old.bytes, ir: s.ir - old.ir, calls: s.calls - old.calls}
		if d != (site{kind: s.kind, name: s.name, span: s.span}) {
			out.sites[k] = d
		}
	}
	out.ok = true
}

func maps2set[K comparable](m map[K]bool) map[K]bool {
	out := make(map[K]bool, len(m))
	for k, v := range m {
		if v {
			out[k] = true
		}
	}
	return out
}

// merge merges the replicas' cases of pc.job after this evaluator ran
// case 0 (caseFP: its fingerprint after), in order, as the sequential run
// would have; it returns the first case still to run (job.n when the
// file's case budget stopped the job).
func (pc *parCases) merge(ev *Evaluator, caseFP uint64) int {
	j := pc.job
	ev.par = nil
	defer pc.stop.Store(true)
	if caseFP != pc.fp {
		return 1 // case 0 changed observable state
	}
	for n, ch := range pc.outs {
		i := n + 1
		var out *caseOut
		if waitReplicas.Load() || !pc.claims[n].CompareAndSwap(claimFree, claimHere) {
			out = <-ch
		}
		if ev.overBudget(j.at) {
			return j.n // as step would have: no more cases
		}
		if ev.fileOut {
			return i
		}
		if !pc.mergeCase(ev, out) {
			// As the sequential run: evaluated here. The replicas of the
			// later cases still apply when it changed nothing they see.
			j.step(ev, i)
			if ev.fingerprint() != pc.fp {
				return i + 1
			}
		}
	}
	return len(pc.outs) + 1
}

// mergeCase merges a replica's case (false when it may not be merged).
func (pc *parCases) mergeCase(ev *Evaluator, out *caseOut) bool {
	j := pc.job
	{
		if out == nil || !out.ok {
			return false
		}
		// The file budgets: the case must stay clear of them from where
		// the sequential run would have started it.
		// (With the file's value bytes left at least a unit's, the unit's
		// budget is the one that binds in both runs.)
		if ev.totalSteps+out.steps >= ev.fileSteps || ev.irStmts+out.ir >= ev.Opts.MaxIR ||
			ev.tileCalls+out.calls >= ev.Opts.MaxTileCalls ||
			ev.totalBytes+out.bytes+ev.Opts.MaxBytes >= fileBytesFactor*ev.Opts.MaxBytes {
			return false
		}
		var dc *defCases
		hit := false
		if k := out.kernel; k != nil {
			if out.body.n != 1 {
				return false
			}
			dc = ev.byDef[k.Def]
			if dc == nil {
				dc = &defCases{def: k.Def} // added to byDef when merged
			}
			if slices.Contains(dc.partialKeys, out.key) || dc.partial != nil {
				return false
			}
			if _, ok := dc.lookup(out.key); ok {
				// An earlier case made this kernel: the sequential run
				// returns it without evaluating the body again.
				hit = true
				b := out.body
				out.steps -= b.steps
				out.bytes -= b.bytes
				out.ir -= b.ir
				out.calls -= b.calls
				d := out.sites[b.site]
				d.units--
				d.steps -= b.steps
				d.bytes -= b.bytes
				d.ir -= b.ir
				d.calls -= b.calls
				out.sites[b.site] = d
			} else if len(dc.cases) >= ev.Opts.MaxCases {
				return false
			}
		}
		// Merge.
		j.groups = append(j.groups, out.diags)
		j.labels = append(j.labels, out.label)
		ev.totalSteps += out.steps
		ev.totalBytes += out.bytes
		ev.irStmts += out.ir
		ev.tileCalls += out.calls
		ev.made += out.made
		for k, d := range out.sites {
			st := ev.sites[k]
			if st == nil {
				st = &site{kind: d.kind, name: d.name, span: d.span}
				ev.sites[k] = st
			}
			st.units += d.units
			st.steps += d.steps
			st.bytes += d.bytes
			st.ir += d.ir
			st.calls += d.calls
		}
		for _, def := range out.enter {
			ev.entered[def] = true
		}
		for _, def := range out.binds {
			if _, ok := ev.bindCache[def]; !ok {
				if ev.bindCache == nil {
					ev.bindCache = map[*syntax.FunctionDef][][]Binding{}
				}
				ev.bindCache[def] = nil
			}
		}
		mergedCases.Add(1)
		if k := out.kernel; k != nil && !hit {
			ev.byDef[k.Def] = dc
			dc.cases = append(dc.cases, k)
			dc.keys = append(dc.keys, out.key)
			if ev.Opts.OnKernel != nil {
				ev.Opts.OnKernel(k)
			}
		}
	}
	return true
}

var mergedCases atomic.Int64

// MergedCases returns how many cases replicas evaluated and the evaluators
// merged so far in this process (tests check that the parallel path runs).
func MergedCases() int64 { return mergedCases.Load() }

// waitReplicas makes the evaluator wait for every replica it started
// instead of running a case whose replica has not started yet.
var waitReplicas atomic.Bool

// WaitForReplicas turns waitReplicas on or off and returns the previous
// setting. Tests use it: on a loaded machine the replicas' goroutines may
// not start before the evaluator reaches their cases, which it then
// evaluates itself, and the parallel path goes unexercised.
func WaitForReplicas(on bool) bool { return waitReplicas.Swap(on) }
