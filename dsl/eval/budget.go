package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The value budget. The step budget bounds how many operations a unit
// runs, but one operation can double a string or a list, so a few lines
// of Python could otherwise build gigabytes (`s = s + s` in a loop,
// f"{0:1000000000}", sum(tuples, ())). Every str, list, tuple and dict the
// evaluator builds is therefore charged, through charge, against a byte
// budget: Options.MaxBytes for each evaluation unit (the same units as
// the step budget) and fileBytesFactor times that for the whole file.
// Where the size of a result is known from its operands (concatenation,
// repetition, join, replace, padding to a format width, zfill) it is
// charged before anything is allocated; where it is known only while it
// is built (formatting, repr) the builder stops at the budget. Running
// out stops the unit like the step budget, with one eval/too-large error
// at the expression that would have built the value; the other units of
// the file go on.
//
// The costs are estimates of the Go memory a value takes on a 64-bit
// machine (a boxed value is a 32-byte allocation; an element of a list or
// tuple is a 16-byte interface slot), not exact sizes: they only have to
// grow with what is really allocated.

// DefaultMaxBytes is the default value budget of one evaluation unit
// (Options.MaxBytes). Measured: the largest unit of the corpus (every
// program under testdata/ and in the goldens of dsl/eval, lower and lsp)
// charges 3.2 KB and the largest file 5.9 KB; a 30,000-line file of the
// bundled examples charges 627 KB in all. TestCorpusBudget keeps the
// corpus under a budget 64 times smaller. A Python value of 64 MiB has no
// business in a kernel file, and a unit that builds one (a str doubled 10
// times from 64 KB) stops within 0.1 s and about 150 MB of memory.
const DefaultMaxBytes = 64 << 20

// fileBytesFactor is how many times Options.MaxBytes all units of a file
// may charge together: 256 MiB by default, which bounds the memory one
// analysis can hold in values (400 times the 30,000-line file).
const fileBytesFactor = 4

// Value costs in bytes.
const (
	costBox   = 32 // one boxed value: its header, span and payload
	costSlot  = 16 // one element of a list or tuple (an interface slot)
	costEntry = 96 // one dict entry: key and value slots and an index entry
)

// strCost is the cost of a str of n bytes.
func strCost(n int64) int64 { return addCost(costBox, n) }

// seqCost is the cost of a list or tuple of n elements; fresh says the
// elements are new boxed values too (not shared with another container).
func seqCost(n int64, fresh bool) int64 {
	per := int64(costSlot)
	if fresh {
		per += costBox
	}
	return addCost(costBox, mulCost(n, per))
}

// addCost and mulCost saturate instead of overflowing, so a cost computed
// from hostile sizes is at worst huge, never negative.
func addCost(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulCost(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// The file's budgets. The budgets above are per evaluation unit, so one
// runaway statement or kernel stops alone; but a file of many units that
// each stay under theirs (64 kernels each looping over a list of 150,000
// numbers took 3.8 s; one kernel unrolling a Python loop of 200,000 tile
// calls held 704 MiB) needs a bound of its own. So every unit's work is
// also charged against the file's: fileStepsFactor times MaxSteps steps,
// fileBytesFactor times MaxBytes value bytes, and MaxIR IR statements
// (every statement a kernel body builds: tile calls, loops, lets, ...;
// what dispatch, printing and the language server's views then hold and
// walk). The first file budget to run out stops the evaluation of the
// whole file with one diagnostic, at the statement where it ran out,
// naming the three places (a module-level statement, a kernel def with
// all its cases, a function run as a binding source) that took the most
// of it; the rest of the file is not evaluated, and no kernel is made
// after that (the one being evaluated keeps what it built, like a unit
// that ran out of its own budget).
//
// Work is charged as steps: one per statement, expression and loop
// iteration, and for an operation whose work grows with its operands
// (summing, searching, comparing, iterating a container; scanning a str)
// one per elemsPerStep elements or bytesPerStep bytes (work), so no
// single step does unbounded work.

// fileStepsFactor is how many times Options.MaxSteps all units of a file
// may take together: 16 million steps by default, 1.3 to 2 s on the
// 2-core dev machine (64 kernels each summing a 150,000-element list in a
// Python loop, 3.8 s before, now stop at it). Measured: the largest file
// of the corpus (every program under testdata/ and in the goldens of
// dsl/eval, lower and lsp) takes 1,563 steps, a 30,000-line file of the
// bundled examples 229,531; TestCorpusBudget keeps the corpus under a
// budget 64 times smaller and the 30,000-line file under one 3 times
// smaller.
const fileStepsFactor = 16

// DefaultMaxIR and DefaultMaxTileCalls are the default IR budgets of a
// file (Options.MaxIR, Options.MaxTileCalls): the statements all its
// kernels build, and the tile calls among them, plus one statement per
// irBytes and one tile call per callBytes bytes of source (a file of
// kernels written out builds IR in proportion to its size: the language
// server's 5 MB test file makes 16,700 tile calls). A tile call is what
// costs: dispatched, its lowering and decision take about 12 KB (a kernel
// unrolling 45,000 copies took 530 MB), where another statement takes
// about 300 bytes (131,072 of them, 44 MB). Measured: the largest file of
// the corpus builds 52 statements and 8 tile calls, the 30,000-line file
// of the bundled examples (1 MB) 17,160 statements and 4,162 tile calls,
// one per 70 and 290 bytes of source; TestCorpusBudget keeps the corpus
// under budgets 64 times smaller and the 30,000-line file under budgets 3
// times smaller. A hostile file of a few lines stops at 16,384 tile calls
// (190 MB for `tilels --lower`).
const (
	DefaultMaxIR        = 1 << 18
	DefaultMaxTileCalls = 1 << 14
	irBytes             = 32
	callBytes           = 128
)

// Work per step of the operations charged by work: an element of a
// container (iterated, searched, compared: summing one costs about as
// much as a step) or 1 KiB of a str (scanned, hashed, compared).
const (
	elemsPerStep = 1
	bytesPerStep = 1024
)

// siteKind says what a site is.
type siteKind uint8

const (
	siteLine      siteKind = iota // a module-level statement
	siteKernel                    // a kernel def, all its cases
	siteFunc                      // a function run as a binding source
	siteMain                      // an `if __name__ == "__main__":` block
	siteDirective                 // the value of a `# tilels: bind` directive
)

type siteKey struct {
	kind siteKind
	at   source.Pos
}

// site is a place the file's work is charged to: the steps, value bytes
// and IR statements of the units run for it, each unit's own (a kernel
// evaluated inside a factory call is charged to the kernel).
type site struct {
	kind  siteKind
	name  string
	span  source.Span
	units int
	steps int
	bytes int64
	ir    int // IR statements
	calls int // tile calls
}

// siteOf returns the site of kind at span (name: the kernel or function),
// counting one more unit run for it.
func (ev *Evaluator) siteOf(kind siteKind, name string, span source.Span) *site {
	k := siteKey{kind, span.Start}
	st := ev.sites[k]
	if st == nil {
		st = &site{kind: kind, name: name, span: span}
		ev.sites[k] = st
	}
	st.units++
	return st
}

// label names the site for a message: "kernel k3 (line 40)", "kernel k
// (line 9, 64 cases)", "the statement at line 3".
func (ev *Evaluator) label(st *site) string {
	line, _ := ev.file.Position(st.span.Start)
	more := ""
	if st.units > 1 && st.kind != siteLine {
		more = fmt.Sprintf(", %d cases", st.units)
	}
	switch st.kind {
	case siteKernel:
		return fmt.Sprintf("kernel %s (line %d%s)", st.name, line, more)
	case siteFunc:
		return fmt.Sprintf("function %s (line %d%s)", st.name, line, more)
	case siteMain:
		return fmt.Sprintf("the __main__ block (line %d)", line)
	case siteDirective:
		return fmt.Sprintf("the bind directive at line %d", line)
	}
	return fmt.Sprintf("the statement at line %d", line)
}

// spentOn names the (at most) three sites that took the most of a file
// budget, by.
func (ev *Evaluator) spentOn(by func(*site) int64, unit func(int64) string) string {
	var all []*site
	for _, st := range ev.sites {
		if by(st) > 0 {
			all = append(all, st)
		}
	}
	slices.SortFunc(all, func(a, b *site) int {
		if c := cmp.Compare(by(b), by(a)); c != 0 {
			return c
		}
		return cmp.Compare(a.span.Start, b.span.Start)
	})
	var parts []string
	for _, st := range all[:min(3, len(all))] {
		parts = append(parts, ev.label(st)+" "+unit(by(st)))
	}
	return strings.Join(parts, ", ")
}

// count formats n as 950, 12k, 1.5M.
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// stopFile records that a file budget ran out: every unit from now on
// halts at its first step, silently.
func (ev *Evaluator) stopFile() {
	ev.fileOut = true
	ev.fileSteps = 0
	ev.Halted = true
}

const restNotEvaluated = "; the rest of the file is not evaluated"

// step counts one unit of work; it returns false once the budget is spent.
func (ev *Evaluator) step(span source.Span) bool {
	if ev.Halted {
		return false
	}
	ev.steps++
	ev.totalSteps++
	ev.site.steps++
	if ev.steps > ev.Opts.MaxSteps || ev.totalSteps > ev.fileSteps {
		return ev.outOfSteps(span)
	}
	if ev.totalSteps&1023 == 0 && ev.Opts.Cancelled != nil && ev.Opts.Cancelled() {
		ev.stopFile()
		return false
	}
	return true
}

// work charges an operation over n elements (or n bytes, with per
// bytesPerStep) as n/per steps; it returns false once the budget is
// spent.
func (ev *Evaluator) work(span source.Span, n, per int) bool {
	if ev.Halted {
		return false
	}
	k := n / per
	if k == 0 {
		return true
	}
	ev.steps += k
	ev.totalSteps += k
	ev.site.steps += k
	if ev.steps > ev.Opts.MaxSteps || ev.totalSteps > ev.fileSteps {
		return ev.outOfSteps(span)
	}
	return true
}

// charged wraps the method m (a *BuiltinV, or nil) so that each call of
// it is first charged n() units of work, per per step.
func charged(m Value, n func() int, per int) Value {
	b, ok := m.(*BuiltinV)
	if !ok {
		return m
	}
	fn := b.Fn
	return Method(b.Name, func(ev *Evaluator, c *Call) Value {
		if !ev.work(c.At, n(), per) {
			return Poison(c.At)
		}
		return fn(ev, c)
	})
}

// hashWork charges the hashing of vs as dict keys or set elements: the
// bytes of their hash keys (a str key is hashed whole at each lookup).
func (ev *Evaluator) hashWork(span source.Span, vs ...Value) bool {
	n := 0
	for _, v := range vs {
		n += keySize(v, maxKeyBytes, 0)
	}
	return ev.work(span, n, bytesPerStep)
}

// keySize estimates the length of v's hash key (hashKeyN) without
// building it, up to about limit.
func keySize(v Value, limit, depth int) int {
	switch v := v.(type) {
	case *StrV:
		return len(v.V) + 1
	case *TupleV:
		n := 2
		for _, e := range v.Elts {
			if n >= limit || depth >= maxKeyDepth {
				break
			}
			n += 4 + keySize(e, limit-n, depth+1)
		}
		return n
	}
	return 8
}

// outOfSteps halts the unit, reporting the unit's or the file's step
// budget at span (the Python loop being run, if any).
func (ev *Evaluator) outOfSteps(span source.Span) bool {
	ev.Halted = true
	if ev.fileOut {
		return false // reported when it ran out
	}
	if ev.curLoop.IsValid() {
		span = ev.curLoop
	}
	if max := fileStepsFactor * ev.Opts.MaxSteps; ev.totalSteps > max {
		ev.stopFile()
		ev.Report(diag.Errorf(span, CodeBudget, "evaluation of the file stopped after %d steps in all (the file's step budget); most went to %s%s",
			max, ev.spentOn(func(s *site) int64 { return int64(s.steps) }, func(n int64) string { return count(n) + " steps" }), restNotEvaluated))
		return false
	}
	if ev.made > ev.madeAtUnit {
		// The unit made its kernels before it ran out: what is lost is
		// host code after them (a test's numpy reference loops), not a
		// kernel. Say so without calling the file wrong.
		ev.Report(diag.Infof(span, CodeBudget, "evaluation of the rest of this function stopped after %d steps; the kernels it made before are analysed", ev.Opts.MaxSteps))
		return false
	}
	ev.Report(diag.Errorf(span, CodeBudget, "evaluation stopped after %d steps", ev.Opts.MaxSteps))
	return false
}

// countIR charges the IR statement s to the file's IR budgets; it
// returns false, and stops the file's evaluation, once one is spent.
func (ev *Evaluator) countIR(s ir.Stmt) bool {
	if ev.fileOut {
		return false
	}
	ev.irStmts++
	ev.site.ir++
	_, call := s.(*ir.TileCall)
	if call {
		ev.tileCalls++
		ev.site.calls++
	}
	if ev.irStmts <= ev.Opts.MaxIR && ev.tileCalls <= ev.Opts.MaxTileCalls {
		return true
	}
	span := s.Pos()
	if ev.curLoop.IsValid() {
		span = ev.curLoop
	}
	ev.stopFile()
	if call && ev.tileCalls > ev.Opts.MaxTileCalls {
		ev.Report(diag.Errorf(span, CodeBudget, "evaluation of the file stopped: its kernels would make more than %d tile calls (the file's IR budget); most are in %s%s",
			ev.Opts.MaxTileCalls, ev.spentOn(func(s *site) int64 { return int64(s.calls) }, count), restNotEvaluated))
		return false
	}
	ev.Report(diag.Errorf(span, CodeBudget, "evaluation of the file stopped: its kernels would hold more than %d IR statements (the file's IR budget); most are in %s%s",
		ev.Opts.MaxIR, ev.spentOn(func(s *site) int64 { return int64(s.ir) }, count), restNotEvaluated))
	return false
}

// charge accounts n bytes of a value (a what: "str", "list", ...) being
// built by the current unit. It returns false, and stops the unit with an
// eval/too-large error at span, when the unit's or the file's budget
// would be exceeded; nothing should then be allocated.
func (ev *Evaluator) charge(span source.Span, what string, n int64) bool {
	if ev.Halted {
		return false
	}
	unitLeft := ev.Opts.MaxBytes - ev.bytes
	fileMax := fileBytesFactor * ev.Opts.MaxBytes
	fileLeft := fileMax - ev.totalBytes
	if n <= unitLeft && n <= fileLeft {
		ev.bytes += n
		ev.totalBytes += n
		ev.site.bytes += n
		return true
	}
	ev.Halted = true
	if n > unitLeft {
		ev.Report(diag.Errorf(span, CodeTooLarge, "evaluation stopped: a %s of %d bytes would exceed the value budget of %d bytes (%d used)", what, n, ev.Opts.MaxBytes, ev.bytes))
	} else {
		ev.stopFile()
		ev.Report(diag.Errorf(span, CodeTooLarge, "evaluation of the file stopped: a %s of %d bytes would exceed the file's value budget of %d bytes (%d used; most by %s)%s", what, n, fileMax, ev.totalBytes, ev.bytesSpent(), restNotEvaluated))
	}
	return false
}

// bytesSpent names the three sites that built the most value bytes.
func (ev *Evaluator) bytesSpent() string {
	return ev.spentOn(func(s *site) int64 { return s.bytes }, func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) })
}

// refuse stops the unit for a value known only to be longer than the
// room left (a repr cut at the budget).
func (ev *Evaluator) refuse(span source.Span, what string) {
	if ev.Halted {
		return
	}
	ev.Halted = true
	unitLeft := ev.Opts.MaxBytes - ev.bytes
	fileMax := fileBytesFactor * ev.Opts.MaxBytes
	if fileLeft := fileMax - ev.totalBytes; fileLeft < unitLeft {
		ev.stopFile()
		ev.Report(diag.Errorf(span, CodeTooLarge, "evaluation of the file stopped: a %s of more than %d bytes would exceed the file's value budget of %d bytes (%d used; most by %s)%s", what, fileLeft, fileMax, ev.totalBytes, ev.bytesSpent(), restNotEvaluated))
		return
	}
	ev.Report(diag.Errorf(span, CodeTooLarge, "evaluation stopped: a %s of more than %d bytes would exceed the value budget of %d bytes (%d used)", what, unitLeft, ev.Opts.MaxBytes, ev.bytes))
}

// room is how many more bytes the current unit may charge.
func (ev *Evaluator) room() int64 {
	if ev.Halted {
		return 0
	}
	return max(0, min(ev.Opts.MaxBytes-ev.bytes, fileBytesFactor*ev.Opts.MaxBytes-ev.totalBytes))
}

// mkList and mkTuple return a list or tuple of elts, charged; fresh says
// the elements were made for it.
func (ev *Evaluator) mkList(span source.Span, elts []Value, fresh bool) Value {
	if !ev.charge(span, "list", seqCost(int64(len(elts)), fresh)) {
		return Poison(span)
	}
	return &ListV{Base{span}, elts}
}

func (ev *Evaluator) mkTuple(span source.Span, elts []Value, fresh bool) Value {
	if !ev.charge(span, "tuple", seqCost(int64(len(elts)), fresh)) {
		return Poison(span)
	}
	return &TupleV{Base{span}, elts}
}

// setEntry stores k: v in d, charging the entry when it is new. ok is
// false when k is unhashable (the caller reports it); a tuple key too
// large to hash is reported here, as eval/too-large. When the budget runs
// out ok is true and the unit is halted.
func (ev *Evaluator) setEntry(d *DictV, k, v Value, span source.Span) (ok bool) {
	key, st := hashKeyN(k, maxKeyBytes, 0)
	switch st {
	case keyUnhashable:
		return false
	case keyTooLarge:
		ev.Errorf(span, CodeTooLarge, "a tuple nested more than %d deep or with a hash key of more than %d bytes cannot be a dict key here", maxKeyDepth, maxKeyBytes)
		return true
	}
	if !ev.work(span, len(key), bytesPerStep) {
		return true // halted
	}
	if _, found := d.index[key]; !found && !ev.charge(span, "dict", addCost(costEntry, int64(len(key)))) {
		return true // halted: the error is reported
	}
	d.setKey(key, k, v)
	return true
}
