package eval

import (
	"slices"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Diagnostic codes reported by Evaluate (documented in docs/diagnostics.md).
const (
	CodeUnresolved    = "eval/unresolved"     // a value needed concretely comes from something tilels does not model
	CodeUnknownOp     = "eval/unknown-op"     // Tx.<name> is not a tile primitive
	CodeType          = "eval/type"           // wrong kind of value (Python TypeError/ValueError, DSL misuse)
	CodeShapeMismatch = "eval/shape-mismatch" // copy operands cover different region shapes
	CodeDtype         = "eval/dtype"          // operand dtypes disagree, or an unknown dtype name
	CodeMissingLayout = "eval/missing-layout" // a tile-primitive operand buffer was declared with layout=None
	CodeUnbound       = "eval/unbound"        // a kernel needs a factory parameter that has no value (information)
	CodeOutOfBounds   = "eval/out-of-bounds"  // a constant index or region outside the buffer
	CodeBudget        = "eval/budget"         // the evaluation step or depth budget ran out
	CodeTooLarge      = "eval/too-large"      // a value would exceed the value budget (budget.go)
	CodeInternal      = "eval/internal"       // a bug in tilels (a recovered panic)
)

// DefaultMaxSteps is the default step budget of one evaluation unit (the
// module body, one factory call, one kernel).
const DefaultMaxSteps = 1_000_000

const maxCallDepth = 150

// Options configures Evaluate. The zero value is ready to use.
type Options struct {
	// Library supplies the modules that are not Python's own (the TIRx
	// library models of dsl/tirxlib); nil leaves them opaque (library.go).
	Library *Library
	// Bindings gives values to parameters of factory functions (and of
	// @T.jit kernels), keyed by the function's qualified name ("factory",
	// or "outer.inner" for a nested def) and then by parameter name. A
	// binding wins over the parameter's default.
	Bindings map[string]map[string]Value
	// MaxSteps bounds the work of each evaluation unit; 0 means
	// DefaultMaxSteps. All bound cases of a file together may take 8 times
	// that, and all units of the file fileStepsFactor times that
	// (budget.go).
	MaxSteps int
	// MaxBytes bounds the size of the values (str, list, tuple, dict)
	// each evaluation unit builds, in bytes; 0 means DefaultMaxBytes. All
	// units of a file together may build 4 times that (budget.go).
	MaxBytes int64
	// MaxIR bounds the IR statements (tile calls, loops, lets, ...) all
	// kernels of the file together build, MaxTileCalls the tile calls
	// among them; 0 means DefaultMaxIR, DefaultMaxTileCalls plus one per
	// 32 and 128 bytes of the file (budget.go).
	MaxIR, MaxTileCalls int
	// OneCase, with MaxCases 1, is the id of the CONFIGS entry evaluated
	// instead of the first (a label, or CONFIGS[i]; Kernel.CaseID): a
	// language server's preview analyses the case that runs the code
	// being edited. Unknown ids, and other binding sources, take the
	// first case.
	OneCase string
	// Cancelled, when set, is asked every 1,024 steps whether the
	// evaluation is still wanted (a language server's newer version came):
	// when it reports true, every unit halts as if the file's budget ran
	// out, silently, and the Program must be discarded.
	Cancelled func() bool
	// MaxCases caps the bound cases evaluated per kernel def, per
	// parametrize grid and per CONFIGS list; 0 means DefaultMaxCases, and
	// more than MaxCasesLimit means MaxCasesLimit.
	MaxCases int
	// Release is the reference release whose library surface the
	// evaluator accepts (builder checks, names that arrived or left).
	Release release.Release
	// Bind holds bindings from a server setting, in the syntax of the
	// `# tilels: bind` directive ("M=4096, dtype='float16'"), keyed by
	// function name (qualified "outer.inner", or the bare name). A setting
	// acts as one more directive line of that function: it fills what the
	// directive lines leave out, or makes a case of its own.
	Bind map[string]string
	// OnKernel, when set, is called with each complete kernel (one that
	// will be in Program.Kernels) as soon as its evaluation ends, on
	// Evaluate's goroutine, in evaluation order (not Program.Kernels'
	// order). Its Func is final then: the evaluator never changes a
	// kernel's IR after its evaluation (a T.SMEMPool is used only by the
	// kernel that made it), so another goroutine may read it, e.g. to
	// dispatch it while the rest of the file is evaluated (lower.Analyze).
	// Kernel fields other than Func may still change until Evaluate
	// returns.
	OnKernel func(*Kernel)
	// SequentialCases turns off the parallel evaluation of bound cases
	// (parallel_cases.go; the result is the same either way).
	SequentialCases bool
	// replica, when set, makes Evaluate a replica that evaluates one case
	// (parallel_cases.go).
	replica *replica
	// Path is the analysed file's path on disk ("" when unknown): relative
	// imports resolve from its directory. ImportRoots are the directories
	// absolute imports of workspace modules resolve under (the package
	// root of Path, the workspace folders, extra paths; imports.go), and
	// ReadFile reads a module's source (nil: os.ReadFile), so an editor
	// can serve unsaved buffers. With neither Path nor ImportRoots, no
	// workspace module is loaded.
	Path        string
	ImportRoots []string
	ReadFile    func(path string) ([]byte, error)
}

// Program is the result of evaluating one file.
type Program struct {
	File *source.File
	// Kernels are the fully evaluated @T.prim_func kernels, in source order
	// of their def. A kernel def evaluated under several bound cases (a
	// factory called with different arguments, a parametrize grid, several
	// .specialize calls) appears once per distinct case (Kernel.Case), in
	// the order the cases were evaluated, at most Options.MaxCases times.
	Kernels []*Kernel
	// Partial are kernels whose every evaluation needed an unbound
	// parameter (see Kernel.Unbound and Kernel.Unresolved): one per def
	// that has no complete case. Their Func is incomplete and must not be
	// lowered; they are kept for hover.
	Partial []*Kernel
	// Diags holds every evaluation diagnostic of the file, sorted: module
	// level, factory bodies and every kernel's (also in Kernel.Diags).
	Diags []diag.Diagnostic
	// Imports lists the files of the workspace modules the evaluation
	// read (imports.go), in the order they were first read, and the .py
	// files a missing module was looked for as.
	Imports []string
}

// Kernel is one evaluated @T.prim_func. A statement whose evaluation
// reported an error (or an eval/unresolved warning) is left out of Func;
// everything else is kept.
type Kernel struct {
	Func *ir.Func
	// Diags are the diagnostics reported while evaluating this kernel.
	Diags []diag.Diagnostic
	// Def is the kernel's def statement.
	Def *syntax.FunctionDef
	// Buffers lists every buffer the kernel declares, in order.
	Buffers []BufferSite
	// Layouts lists layout-valued expressions met while evaluating the
	// kernel's body (hover), capped at maxLayoutSites.
	Layouts []LayoutSite
	// Unbound names the factory parameters ("factory.param") this kernel's
	// evaluation needed but had no value for; empty for complete kernels.
	Unbound []string
	// Case holds the parameter values this evaluation was made with: the
	// parameters of the functions lexically enclosing the def (outermost
	// first, as passed; unbound ones left out), then the T.constexpr
	// parameters of a @T.jit kernel. Nil for a kernel outside functions
	// with parameters. Kernels of one def have distinct cases.
	Case []Binding
	// CaseID is the pytest id or CONFIGS label of the test case or config
	// that first produced this case ("" for other sources).
	CaseID string
	// CaseSource says which binding source produced the case: "module"
	// (module-level code), "pytest" (a parametrize grid), "test" (a test
	// function without grid), "main" (an `if __name__ == "__main__":`
	// block), "call" (an entry point without required parameters),
	// "configs" (CONFIGS and get_kernel), "directive", "setting" or
	// "default" (a function or @T.jit kernel nothing else reached).
	CaseSource string
	// Unresolved lists, for a partial kernel, the tile calls met while
	// evaluating it (and those inside branches skipped on an unbound
	// condition), each with the parameters it needs; nil otherwise.
	Unresolved []UnresolvedCall
}

// UnresolvedCall is a tile call of a partial kernel: its result depends on
// parameters without value.
type UnresolvedCall struct {
	// Span is the whole call, OpSpan its callee expression.
	Span, OpSpan source.Span
	// Op is the tile primitive ("" when the callee did not evaluate),
	// Scope its scope ("" when unknown).
	Op, Scope string
	// Needs names the parameters to bind, in the order they were needed.
	Needs []string
}

// BufferSite is where a buffer was declared.
type BufferSite struct {
	Buf *ir.Buffer
	// NameSpan is the assigned name (A_smem in A_smem = T.alloc_buffer(...)),
	// or NoSpan. DeclSpan is the declaring call. LayoutSpan is the layout=
	// argument expression, or NoSpan when absent.
	NameSpan, DeclSpan, LayoutSpan source.Span
}

// LayoutSite is one layout-valued expression.
type LayoutSite struct {
	Span   source.Span
	Layout layout.Layout
}

const maxLayoutSites = 256

// Evaluate evaluates f statically. It never panics on any input and never
// fails: errors become diagnostics and evaluation goes on with the next
// statement; one kernel's failure does not affect another.
func Evaluate(f *syntax.File, opts Options) *Program { return evaluate(f, opts).prog }

// evaluate is Evaluate, returning the evaluator (its budgets' totals are
// checked by tests).
func evaluate(f *syntax.File, opts Options) *Evaluator {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxCases <= 0 {
		opts.MaxCases = DefaultMaxCases
	}
	opts.MaxCases = min(opts.MaxCases, MaxCasesLimit)
	if opts.MaxIR <= 0 {
		opts.MaxIR = DefaultMaxIR + len(f.Src.Src)/irBytes
	}
	if opts.MaxTileCalls <= 0 {
		opts.MaxTileCalls = DefaultMaxTileCalls + len(f.Src.Src)/callBytes
	}
	ev := &Evaluator{
		file:       f.Src,
		Opts:       opts,
		prog:       &Program{File: f.Src},
		byDef:      map[*syntax.FunctionDef]*defCases{},
		funcByDef:  map[*syntax.FunctionDef]*FuncV{},
		entered:    map[*syntax.FunctionDef]bool{},
		origins:    map[*syntax.Param]*unboundOrigin{},
		caseSource: "module",
		fileSteps:  fileStepsFactor * opts.MaxSteps,
		sites:      map[siteKey]*site{},
	}
	ev.site = ev.siteOf(siteLine, "", source.Span{})
	ev.sink = &ev.prog.Diags
	// Whether the file has a syntax error at all: one walk, instead of one
	// per statement executed, nested ones again each time (8 % of
	// evaluating the 3,000-line benchmark file).
	syntax.Inspect(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.BadExpr, *syntax.BadStmt:
			ev.badSyntax = true
		}
		return !ev.badSyntax
	})
	ev.analyzeKernelNesting(f.Body)
	ev.findDirectives(f)
	mod := newScope(nil)
	ev.modScope = mod
	// Each module-level statement is its own evaluation unit, so a runaway
	// loop stops only itself. An explicit raise ends the module, as in Python.
	top := &frame{env: mod}
	for _, s := range f.Body {
		stop := false
		if ev.fileOut {
			break // the file's budget ran out (reported once, budget.go)
		}
		ev.unit(ev.siteOf(siteLine, "", s.Span()), func() { stop = ev.execStmt(top, s) == ctrlRaise && !ev.Halted })
		if stop {
			break
		}
	}
	ev.drive(f)
	if opts.replica != nil {
		return ev // its case is in ev.caseOut
	}
	ev.runFactories()
	ev.finish()
	return ev
}

// Evaluator holds the state of one Evaluate call.
type Evaluator struct {
	// ComposeOp counts the `with Tx.compose_op():` blocks around the
	// statement being evaluated (compose_op.go; tirxlib/trn_compose.go).
	ComposeOp int
	// stripped counts the statements a regular compilation strips that the
	// library evaluated to nothing (IKET annotations: NoteStripped); a
	// runtime branch or loop they leave empty is not emitted (stripped.go).
	stripped int

	file     *source.File
	Opts     Options
	prog     *Program
	modScope *scope

	sink *[]diag.Diagnostic // where diagnostics go now
	// badSyntax is set when the file has a Bad* node: only then does
	// execStmt look for one in each statement.
	badSyntax bool
	steps     int
	bytes     int64 // the value bytes the current unit has built (budget.go)
	Halted    bool  // the current unit's step or value budget ran out
	depth     int

	// oobRegions is set while the arguments of a copy_async call are
	// evaluated: global regions may then lie partly outside the buffer.
	oobRegions bool

	Kern *KernelState // the kernel being evaluated, nil at Python level
	// unresolved counts the eval/unresolved warnings reported;
	// nestedWarnings those of the statements inside the one execStmt
	// executes (its left-out marks: ir.Comment.LeftOut)
	unresolved, nestedWarnings int
	// poisoned counts the values NeedConcrete met already poisoned (an
	// earlier warning's, reported there): a statement they drop is left
	// out as one with its own warning is (execStmt)
	poisoned int
	Emit     *[]ir.Stmt // the block being built, nil outside kernels
	// old holds the older dialect's scope blocks (dialect_old.go).
	old oldDialectState

	hint     *nameHint   // target names of the assignment being evaluated
	lastCtrl source.Span // the last break/continue executed
	curLoop  source.Span // the innermost Python loop being run (budget reports)
	// loopKinds holds, innermost last, whether each enclosing loop is a
	// device loop (a break there becomes ir.Break) or a Python loop.
	loopKinds []bool
	tryDepth  int // > 0 inside try bodies with handlers: Python errors are caught

	byDef     map[*syntax.FunctionDef]*defCases
	funcByDef map[*syntax.FunctionDef]*FuncV
	entered   map[*syntax.FunctionDef]bool
	hasKernel map[*syntax.FunctionDef]bool // lexically contains a kernel def
	// scopeSize is the number of names a def's last call (or kernel
	// body) left in its scope: its next scope is made that large, so that
	// the map does not grow step by step again (scope_size.go).
	scopeSize map[*syntax.FunctionDef]int
	slabs     slabs // slab.go
	origins   map[*syntax.Param]*unboundOrigin
	// speculating is the factory being called with unbound parameters.
	speculating bool

	// Binding (bind.go, drive.go): the directives above each def, their
	// evaluated bindings, the unbound origins each kernel def needed, the
	// @T.jit kernels and test grids met, and the case being driven.
	directives map[*syntax.FunctionDef][]directive
	bindCache  map[*syntax.FunctionDef][][]Binding
	pending    map[*unboundOrigin]map[*syntax.FunctionDef]bool
	jits       []*JitV
	grids      map[*syntax.FunctionDef][]*ParametrizeV
	caseSource string
	caseID     string
	// needs collects the parameters the tile calls being evaluated need
	// (a stack shared by nested calls, see evalTileSite); collecting
	// counts those calls.
	needs      []string
	collecting int
	// totalSteps counts every step of the file; drive stops starting new
	// cases past driveBudget*MaxSteps.
	totalSteps     int
	budgetReported bool
	// totalBytes counts the value bytes built by every unit of the file.
	totalBytes int64
	// The file's budgets (budget.go): fileSteps is the most steps all
	// units may take together (0 once any file budget ran out); irStmts
	// counts the IR statements built. site is where the current unit's
	// work is charged, sites every site so far; fileOut is set when a
	// file budget ran out.
	fileSteps int
	irStmts   int
	tileCalls int
	site      *site
	sites     map[siteKey]*site
	fileOut   bool
	// made counts the kernels made so far; madeAtUnit is made when the
	// current unit started (a unit that runs out of steps after it made a
	// kernel has lost only host code after it: budget.go outOfSteps).
	made, madeAtUnit int
	// imp is the state of workspace imports (imports.go), nil until used.
	imp *importState
	// caseOut is what a replica's case made, par the parallel job whose
	// first case this evaluator runs (parallel_cases.go).
	caseOut *caseOut
	par     *parCases
}

// nameHint carries the target names of `a, b = <call>` to the builtin that
// evaluates <call> (scope ids, allocations), so created vars and buffers
// get Python names.
type nameHint struct {
	call  *syntax.Call
	names []string
	spans []source.Span
}

// unit runs fn as one evaluation unit: fresh step and value budgets,
// recovered panics. Its work is charged to st (budget.go), and to the
// file's budgets.
func (ev *Evaluator) unit(st *site, fn func()) {
	savedSteps, savedHalted, savedLoop, savedBytes := ev.steps, ev.Halted, ev.curLoop, ev.bytes
	savedDepth, savedTry, savedHint := ev.depth, ev.tryDepth, ev.hint
	savedCollecting, savedNeeds, savedSite := ev.collecting, len(ev.needs), ev.site
	savedMade := ev.madeAtUnit
	ev.steps, ev.Halted, ev.curLoop, ev.bytes, ev.site, ev.madeAtUnit = 0, false, source.NoSpan, 0, st, ev.made
	defer func() {
		ev.madeAtUnit = savedMade
		ev.steps, ev.Halted, ev.curLoop, ev.bytes = savedSteps, savedHalted, savedLoop, savedBytes
		ev.depth, ev.tryDepth, ev.hint, ev.site = savedDepth, savedTry, savedHint, savedSite
		ev.collecting, ev.needs = savedCollecting, ev.needs[:min(savedNeeds, len(ev.needs))]
		if r := recover(); r != nil {
			if PanicInTests {
				panic(r)
			}
			ev.Report(diag.Errorf(source.Span{Start: 0, End: 0}, CodeInternal,
				"internal error in evaluator: %v", r))
		}
	}()
	fn()
}

// PanicInTests makes recovered panics re-panic (set by tests).
var PanicInTests = false

func (ev *Evaluator) Report(d diag.Diagnostic) {
	if ev.imp != nil && ev.imp.call != nil {
		d = ev.imp.call.relocate(d) // imports.go
	}
	*ev.sink = append(*ev.sink, d)
	if d.Code == CodeUnresolved {
		ev.unresolved++ // (execStmt's left-out marks)
	}
}

// Errorf reports an error and returns a poison value at span.
func (ev *Evaluator) Errorf(span source.Span, code, format string, args ...any) Value {
	if !ev.Halted {
		ev.Report(diag.Errorf(span, code, format, args...))
	}
	return &PoisonV{Base{span}}
}

// PyErrorf reports a Python runtime error (NameError, KeyError, a failed
// assert, ...) as eval/type. Outside kernels during a speculative factory
// call it reports nothing: that code runs on partly unknown inputs, and
// opaque calls may have mutated its containers, so its failures are not
// evidence of a bug.
func (ev *Evaluator) PyErrorf(span source.Span, format string, args ...any) Value {
	if (ev.speculating && ev.Kern == nil) || ev.tryDepth > 0 {
		return &PoisonV{Base{span}}
	}
	return ev.Errorf(span, CodeType, format, args...)
}

func (ev *Evaluator) Warnf(span source.Span, code, format string, args ...any) {
	if !ev.Halted {
		ev.Report(diag.Warningf(span, code, format, args...))
	}
}

func Poison(span source.Span) Value { return &PoisonV{Base{span}} }

// NeedConcrete is called where a concrete value is required but v is
// poison, unbound or opaque. It reports what is appropriate and returns a
// poison value, or v itself for an unbound value outside kernels (it is
// reported only if a kernel ends up needing it).
func (ev *Evaluator) NeedConcrete(v Value, use source.Span, what string) Value {
	switch v := v.(type) {
	case *UnboundV:
		if ev.Kern == nil {
			return v
		}
		ev.useUnbound(v.Origin)
	case *OpaqueV:
		if why := ev.opaqueWhy(v.Path); why != "" {
			if ev.Kern != nil || !ev.speculating {
				ev.Warnf(use, CodeUnresolved, "%s: not modelled: %s", what, why) // imports.go
			}
		} else if why := dynamicShapeWhy(v.Path); why != "" && ev.Kern != nil {
			ev.Warnf(use, CodeUnresolved, "%s: not modelled: %s", what, why) // dynamic_shape.go
		} else if ev.Kern != nil || !ev.speculating {
			ev.Warnf(use, CodeUnresolved, "%s needs a concrete value, but `%s` is not modelled by tilels", what, v.Path)
		}
	case *PoisonV:
		if ev.Kern != nil {
			ev.poisoned++
		}
	}
	return Poison(use)
}

// useUnbound records that the current evaluation needed origin's value.
// It is reported at the end unless the kernel def gets a complete case.
func (ev *Evaluator) useUnbound(o *unboundOrigin) {
	if ev.collecting > 0 {
		ev.needs = append(ev.needs, o.Param)
	}
	if ev.Kern == nil {
		ev.noteUnbound(o, nil)
		return
	}
	ev.noteUnbound(o, ev.Kern.K.Def)
	name := o.Func + "." + o.Param
	if !slices.Contains(ev.Kern.K.Unbound, name) {
		ev.Kern.K.Unbound = append(ev.Kern.K.Unbound, name)
	}
}

func (ev *Evaluator) reportUnbound(o *unboundOrigin) {
	if o.reported {
		return
	}
	o.reported = true
	if o.Given != "" {
		ev.prog.Diags = append(ev.prog.Diags, diag.Infof(o.Span, CodeUnbound,
			"parameter `%s` of `%s` has no value: it is given `%s`, which tilels does not model; bind it with `# tilels: bind %s=...` above the def to evaluate the kernels that use it", o.Param, o.Func, o.Given, o.Param))
		return
	}
	ev.prog.Diags = append(ev.prog.Diags, diag.Infof(o.Span, CodeUnbound,
		"parameter `%s` of `%s` has no value; bind it with `# tilels: bind %s=...` above the def to evaluate the kernels that use it", o.Param, o.Func, o.Param))
}

func dedupDiags(ds []diag.Diagnostic) []diag.Diagnostic {
	out := ds[:0]
	for i, d := range ds {
		if i > 0 {
			p := out[len(out)-1]
			if p.Span == d.Span && p.Code == d.Code && p.Message == d.Message && p.Severity == d.Severity {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// ---- scopes ----

// scope is one Python namespace: the module, or one function call.
type scope struct {
	vars    map[string]Value
	parent  *scope // enclosing function scope or module; nil for the module
	globals map[string]bool
	// args are the call's parameter values as bound (a kernel's case).
	args []Binding
}

func newScope(parent *scope) *scope { return &scope{vars: map[string]Value{}, parent: parent} }

func (s *scope) root() *scope {
	for s.parent != nil {
		s = s.parent
	}
	return s
}

func (s *scope) lookup(name string) (Value, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (s *scope) set(name string, v Value) {
	if s.globals[name] {
		s.root().vars[name] = v
		return
	}
	s.vars[name] = v
}

// frame is the execution context of one function body (or the module).
type frame struct {
	env *scope
	// tir marks bodies parsed as TIR: kernel bodies and @T.inline helpers.
	tir bool
	fn  *FuncV
	ret Value
}

// analyzeKernelNesting marks every function whose body lexically contains
// a kernel def (a def decorated with *.prim_func or *.prim_func(...)).
func (ev *Evaluator) analyzeKernelNesting(body []syntax.Stmt) {
	ev.hasKernel = map[*syntax.FunctionDef]bool{}
	var visit func(ss []syntax.Stmt) bool
	visit = func(ss []syntax.Stmt) bool {
		found := false
		for _, s := range ss {
			syntax.Inspect(s, func(n syntax.Node) bool {
				fd, ok := n.(*syntax.FunctionDef)
				if !ok {
					return true
				}
				if isKernelDecorated(fd) {
					found = true
					return false
				}
				if visit(fd.Body) {
					ev.hasKernel[fd] = true
					found = true
				}
				return false
			})
		}
		return found
	}
	visit(body)
}

func isKernelDecorated(fd *syntax.FunctionDef) bool {
	for _, d := range fd.Decorators {
		if c, ok := d.(*syntax.Call); ok {
			d = c.Func
		}
		if a, ok := d.(*syntax.Attribute); ok && (a.Attr.Id == "prim_func" || a.Attr.Id == "jit") {
			return true
		}
		if n, ok := d.(*syntax.Name); ok && n.Id == "prim_func" {
			return true
		}
	}
	return false
}

func (ev *Evaluator) originFor(fn *FuncV, p *syntax.Param) *unboundOrigin {
	if o, ok := ev.origins[p]; ok {
		return o
	}
	o := &unboundOrigin{Func: fn.Name, Param: p.Name.Id, Span: p.Name.Loc}
	ev.origins[p] = o
	return o
}

// text returns the source text of span.
func (ev *Evaluator) Text(span source.Span) string {
	if ev.imp != nil && ev.imp.anchors[span] {
		return "(imported code)" // its spans are the import statement's (imports.go)
	}
	return ev.file.Text(span)
}
