package eval

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// JitV is a @T.jit kernel with T.constexpr parameters, not yet
// specialized: kernel.specialize(M=..., ...) evaluates it with those
// values.
type JitV struct {
	Base
	Def   *syntax.FunctionDef
	Name  string
	outer *frame
	deco  *MarkerV
}

func (*JitV) TypeName() string { return "JITFunc" }

func (ev *Evaluator) jitAttr(j *JitV, name string, span source.Span) Value {
	if name != "specialize" {
		return &OpaqueV{Base{span}, j.Def.Name.Id + "." + name}
	}
	return Method("specialize", func(ev *Evaluator, c *Call) Value {
		if len(c.Args) > 0 {
			return ev.Errorf(c.At, CodeType, "specialize() takes keyword arguments only")
		}
		consts := paramNames(j.Def.Params, true)
		optional := optionalParams(j.Def.Params)
		var given, absent, unknown []Binding
		for _, k := range c.Kwargs {
			if k.Name == "**" {
				return &OpaqueV{Base{c.At}, j.Def.Name.Id + ".specialize(...)"}
			}
			if optional[k.Name] {
				// bind_optional.go: None removes the parameter.
				if IsErr(k.V) {
					return Poison(c.At)
				}
				if _, ok := k.V.(*NoneV); !ok {
					return ev.PyErrorf(k.At, "%s.specialize(): T.Optional parameters only accept None; pass actual tensors when calling the compiled kernel (got: {'%s': %s})", j.Def.Name.Id, k.Name, Repr(k.V))
				}
				absent = append(absent, Binding{k.Name, k.V})
				continue
			}
			if !consts[k.Name] {
				return ev.PyErrorf(k.At, "specialize() got an unexpected keyword argument '%s'", k.Name)
			}
			if _, ok := k.V.(*PoisonV); ok {
				// The value failed (a KeyError on a config dict, ...):
				// Python never gets to this call, so it makes no case.
				return Poison(c.At)
			}
			if o, ok := k.V.(*OpaqueV); ok {
				// A value tilels cannot compute (a device property): a
				// directive line or setting fills it, else the kernel
				// needs it (never the default: the call gave another
				// value), and the note names the value.
				if u := ev.noteGiven(j, k.Name, o); u != nil {
					unknown = append(unknown, Binding{k.Name, u})
				}
				continue
			}
			given = append(given, Binding{k.Name, k.V})
		}
		var extra []Binding
		if bs := ev.bindValues(j.Def, j.Name, paramNames(j.Def.Params, false)); len(bs) > 0 {
			extra = bs[0]
		}
		for _, u := range unknown {
			if _, ok := lookupBinding(extra, u.Name); ok {
				continue
			}
			if _, ok := ev.Opts.Bindings[j.Name][u.Name]; ok {
				continue
			}
			given = append(given, u)
		}
		return ev.evalKernelCase(j.outer, j.Def, j.Name, j.deco, append(ev.jitConsts(j, given, extra), absent...))
	})
}

// noteGiven records on the origin of j's parameter name the unmodelled
// value a .specialize call gave it (the first such value), and returns the
// parameter's unbound value.
func (ev *Evaluator) noteGiven(j *JitV, name string, v *OpaqueV) *UnboundV {
	ps := j.Def.Params
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if p.Name.Id != name {
				continue
			}
			fn := &FuncV{Base: Base{j.Def.Name.Loc}, Name: j.Name, Def: j.Def, Params: ps}
			o := ev.originFor(fn, p)
			if o.Given == "" {
				o.Given = v.Path
			}
			return &UnboundV{Base{p.Name.Loc}, o}
		}
	}
	return nil
}

// jitConsts binds every T.constexpr parameter of j: given values, then
// extra (a directive line), Options.Bindings, the default, else unbound;
// then the runtime scalar parameters extra gives a launch value.
func (ev *Evaluator) jitConsts(j *JitV, given, extra []Binding) []Binding {
	var out []Binding
	fn := &FuncV{Base: Base{j.Def.Name.Loc}, Name: j.Name, Def: j.Def, Params: j.Def.Params}
	ps := j.Def.Params
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if !isConstexprAnnotation(p.Annotation) {
				continue
			}
			name := p.Name.Id
			var v Value
			if x, ok := lookupBinding(given, name); ok {
				v = x
			} else if x, ok := lookupBinding(extra, name); ok {
				v = x
			} else if x, ok := ev.Opts.Bindings[j.Name][name]; ok {
				v = x
			} else if p.Default != nil {
				v = ev.expr(j.outer, p.Default)
			} else {
				v = &UnboundV{Base{p.Name.Loc}, ev.originFor(fn, p)}
			}
			out = append(out, Binding{name, v})
		}
	}
	// a directive line's values of the runtime scalar parameters: the
	// launch the memory figures count (kernel.go's launchArg)
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if x, ok := lookupBinding(extra, p.Name.Id); ok && !isConstexprAnnotation(p.Annotation) {
				out = append(out, Binding{p.Name.Id, x})
			}
		}
	}
	return out
}

// drive runs the binding sources that call into the file after the module
// body: test functions (one call per parametrize case), entry points, main
// blocks, and the CONFIGS list. Each source is a job of one or more cases;
// the first case of every job runs before the other cases of any, so a
// file whose large grids use up the cases' budget still has every test
// analysed once.
func (ev *Evaluator) drive(f *syntax.File) {
	var factories map[string]bool
	factoriesDone := false
	var jobs []*driveJob
	for _, st := range f.Body {
		switch s := st.(type) {
		case *syntax.FunctionDef:
			fn := ev.funcByDef[s]
			if fn == nil || fn.Env != ev.modScope {
				continue
			}
			axes := ev.grids[s]
			if len(axes) > 0 || strings.HasPrefix(s.Name.Id, "test") {
				if j := ev.testJob(fn, axes); j != nil {
					jobs = append(jobs, j)
				}
				continue
			}
			// An entry point (no required parameter) that names a factory
			// or a @T.jit kernel: its calls of them are a binding source.
			if requiredParams(s.Params) > 0 || ev.hasKernel[s] || ev.isConfigsRoot(fn) {
				continue
			}
			if j := ev.importedConfigsJob(fn); j != nil { // bind_imported_configs.go
				jobs = append(jobs, j)
				continue
			}
			if !factoriesDone {
				factories, factoriesDone = ev.factoryNames(), true
			}
			if len(factories) == 0 || !namesAny(s.Body, factories) {
				continue
			}
			jobs = append(jobs, &driveJob{n: 1, at: s.Name.Loc, run: func(int) ([]diag.Diagnostic, string) {
				if ev.entered[s] {
					return nil, "" // a source before it called it
				}
				return ev.runCase(fn, nil, nil, "call", ""), ""
			}})
		case *syntax.If:
			if isMainGuard(s.Test) {
				jobs = append(jobs, &driveJob{n: 1, at: s.Loc, run: func(int) ([]diag.Diagnostic, string) {
					return ev.driveMain(s), ""
				}})
			}
		}
	}
	if j := ev.configsJob(); j != nil {
		jobs = append(jobs, j)
	}
	if ev.Opts.replica != nil {
		ev.runReplicaCase(jobs) // parallel_cases.go
		return
	}
	var par *parCases
	if len(jobs) == 1 {
		par = ev.startParallel(f, jobs[0])
	}
	for _, j := range jobs {
		j.step(ev, 0)
	}
	for _, j := range jobs {
		first := 1
		if par != nil {
			first = par.merge(ev, ev.fingerprint())
		}
		for i := first; i < j.n; i++ {
			if !j.step(ev, i) {
				break
			}
		}
	}
	for _, j := range jobs {
		ev.prog.Diags = append(ev.prog.Diags, MergeCaseDiags(j.groups, j.labels)...)
	}
}

// driveJob is one binding source of drive: n cases, run(i) evaluates the
// ith and returns the diagnostics reported outside kernels and its label.
type driveJob struct {
	n      int
	at     source.Span // where a budget note goes
	run    func(i int) ([]diag.Diagnostic, string)
	groups [][]diag.Diagnostic
	labels []string
}

// step runs case i unless the file's case budget is used up (false then).
func (j *driveJob) step(ev *Evaluator, i int) bool {
	if i >= j.n || ev.overBudget(j.at) {
		return false
	}
	d, label := j.run(i)
	j.groups = append(j.groups, d)
	j.labels = append(j.labels, label)
	return true
}

// factoryNames returns the module-level names bound to functions that
// contain kernels and to @T.jit kernels.
func (ev *Evaluator) factoryNames() map[string]bool {
	var out map[string]bool
	for name, v := range ev.modScope.vars {
		ok := false
		switch x := v.(type) {
		case *FuncV:
			ok = x.Def != nil && ev.hasKernel[x.Def]
		case *JitV:
			ok = true
		}
		if ok {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = true
		}
	}
	return out
}

// namesAny reports whether ss use one of names.
func namesAny(ss []syntax.Stmt, names map[string]bool) bool {
	found := false
	for _, s := range ss {
		syntax.Inspect(s, func(n syntax.Node) bool {
			if x, ok := n.(*syntax.Name); ok && names[x.Id] {
				found = true
			}
			return !found
		})
	}
	return found
}

// requiredParams counts the parameters without default.
func requiredParams(ps *syntax.Params) int {
	n := 0
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if p.Default == nil {
				n++
			}
		}
	}
	return n
}

// overBudget reports whether the file's bound cases have used up their
// work budget; the first time it says so at span.
func (ev *Evaluator) overBudget(span source.Span) bool {
	if ev.fileOut {
		return true // the file's budget ran out (reported then)
	}
	if ev.totalSteps <= driveBudget*ev.Opts.MaxSteps {
		return false
	}
	if !ev.budgetReported {
		ev.budgetReported = true
		ev.Report(diag.Infof(span, CodeCaseCap, "bound cases stopped after %d evaluation steps in all; the cases from here on are not analysed", driveBudget*ev.Opts.MaxSteps))
	}
	return true
}

// testJob calls a test function once per case of its parametrize grid
// (once when it has none), times its directive lines; nil when the grid
// is empty.
func (ev *Evaluator) testJob(fn *FuncV, axes []*ParametrizeV) *driveJob {
	source := "test"
	var cases []gridCase
	if len(axes) > 0 {
		source = "pytest"
		var total int
		cases, total = gridCases(axes, func(total int) []int { return spread(total, ev.Opts.MaxCases) })
		if total == 0 {
			return nil
		}
		if total > ev.Opts.MaxCases {
			ev.Report(diag.Infof(axes[0].At, CodeCaseCap, "the parametrize grid of `%s` has %d cases; %d of them, evenly spread, are analysed (the case cap)", fn.Def.Name.Id, total, len(cases)))
		}
	} else {
		cases = []gridCase{{}}
	}
	lines := ev.bindValues(fn.Def, fn.Name, paramNames(fn.Params, false))
	if len(lines) == 0 {
		lines = [][]Binding{nil}
	}
	type one struct {
		gc    gridCase
		extra []Binding
	}
	var all []one
	for _, gc := range cases {
		for _, extra := range lines {
			if len(all) < ev.Opts.MaxCases {
				all = append(all, one{gc, extra})
			}
		}
	}
	return &driveJob{n: len(all), at: fn.Def.Name.Loc, run: func(i int) ([]diag.Diagnostic, string) {
		c := all[i]
		return ev.runCase(fn, c.gc.kwargs, c.extra, source, c.gc.id), caseLabel(c.gc.id, c.gc.kwargs)
	}}
}

// runCase calls fn as a binding-source root: given values first, then
// extra (a directive line), Options.Bindings, defaults, else unbound.
// It returns the diagnostics reported outside kernels.
func (ev *Evaluator) runCase(fn *FuncV, given, extra []Binding, source, id string) []diag.Diagnostic {
	ev.entered[fn.Def] = true
	var sink []diag.Diagnostic
	savedSink, savedSrc, savedID := ev.sink, ev.caseSource, ev.caseID
	ev.sink, ev.caseSource, ev.caseID = &sink, source, id
	ev.unit(ev.siteOf(siteFunc, fn.Name, fn.Def.Name.Loc), func() {
		saved := ev.speculating
		ev.speculating = true
		defer func() { ev.speculating = saved }()
		ev.callFunc(fn, &Call{At: fn.Def.Name.Loc, spec: &specArgs{given, extra}})
	})
	ev.sink, ev.caseSource, ev.caseID = savedSink, savedSrc, savedID
	return sink
}

func caseLabel(id string, bs []Binding) string {
	if id != "" {
		return id
	}
	return CaseString(bs)
}

// isMainGuard reports whether e is `__name__ == "__main__"`.
func isMainGuard(e syntax.Expr) bool {
	c, ok := e.(*syntax.Compare)
	if !ok || len(c.Comparators) != 1 {
		return false
	}
	n, ok := c.Left.(*syntax.Name)
	s, ok2 := c.Comparators[0].(*syntax.Constant)
	return ok && ok2 && n.Id == "__name__" && s.Kind == syntax.String && s.Str == "__main__"
}

// driveMain runs the body of a module-level `if __name__ == "__main__":`
// and returns the diagnostics reported outside kernels.
func (ev *Evaluator) driveMain(s *syntax.If) []diag.Diagnostic {
	savedSrc, savedID := ev.caseSource, ev.caseID
	ev.caseSource, ev.caseID = "main", ""
	var sink []diag.Diagnostic
	savedSink := ev.sink
	ev.sink = &sink
	ev.unit(ev.siteOf(siteMain, "", s.Loc), func() {
		saved := ev.speculating
		ev.speculating = true
		defer func() { ev.speculating = saved }()
		ev.execBlock(&frame{env: newScope(ev.modScope)}, s.Body)
	})
	ev.sink, ev.caseSource, ev.caseID = savedSink, savedSrc, savedID
	return sink
}

// isConfigsRoot reports whether fn is the get_kernel that driveConfigs
// calls once per CONFIGS entry: the runner never calls it without an
// entry, so it is no entry point of its own.
func (ev *Evaluator) isConfigsRoot(fn *FuncV) bool {
	if fn.Name != "get_kernel" {
		return false
	}
	return ev.modScope.vars["get_kernel"] == Value(fn) && len(ev.configEntries()) > 0
}

// configEntries returns the dicts of the module's CONFIGS list.
func (ev *Evaluator) configEntries() []*DictV {
	var cfgs []*DictV
	for _, e := range SeqElts(ev.modScope.vars["CONFIGS"]) {
		if d, ok := e.(*DictV); ok {
			cfgs = append(cfgs, d)
		}
	}
	return cfgs
}

// configsJob calls get_kernel(**cfg) for each entry of the module's
// CONFIGS list (the TIRx-kernels module protocol); nil without one.
func (ev *Evaluator) configsJob() *driveJob {
	cv, ok := ev.modScope.vars["CONFIGS"]
	if !ok {
		return nil
	}
	gk, ok := ev.modScope.vars["get_kernel"].(*FuncV)
	if !ok || gk.Def == nil {
		return nil
	}
	cfgs := ev.configEntries()
	if len(cfgs) == 0 {
		return nil
	}
	return ev.configsCases(gk, cv, cfgs)
}

// configID is the id of CONFIGS entry i: its "label", else CONFIGS[i].
func configID(d *DictV, i int) string {
	for j, k := range d.Keys {
		if s, ok := k.(*StrV); ok && s.V == "label" {
			if l, ok := d.Vals[j].(*StrV); ok && l.V != "" {
				return l.V
			}
		}
	}
	return "CONFIGS[" + strconv.Itoa(i) + "]"
}

// configsCases calls gk(**cfg) for each of cfgs, the entries of the
// CONFIGS list cv.
func (ev *Evaluator) configsCases(gk *FuncV, cv Value, cfgs []*DictV) *driveJob {
	idx := spread(len(cfgs), ev.Opts.MaxCases)
	if ev.Opts.MaxCases == 1 && ev.Opts.OneCase != "" {
		for i, d := range cfgs {
			if configID(d, i) == ev.Opts.OneCase {
				idx = []int{i}
				break
			}
		}
	}
	if len(cfgs) > ev.Opts.MaxCases {
		ev.Report(diag.Infof(cv.Span(), CodeCaseCap, "CONFIGS has %d entries; %d of them, evenly spread, are analysed (the case cap)", len(cfgs), len(idx)))
	}
	// The runner passes an entry without its "label" (runner.py's
	// `{k: v for k, v in config.items() if k != "label"}`); a get_kernel
	// that names label, or takes **kwargs, is given it as the protocol
	// text says.
	keepLabel := gk.Params != nil && (gk.Params.Kwarg != nil || paramNames(gk.Params, false)["label"])
	return &driveJob{n: len(idx), at: gk.Def.Name.Loc, run: func(n int) ([]diag.Diagnostic, string) {
		i := idx[n]
		d := cfgs[i]
		c := &Call{At: gk.Def.Name.Loc, FnSpan: gk.Def.Name.Loc}
		id := configID(d, i)
		for j, k := range d.Keys {
			s, ok := k.(*StrV)
			if !ok || s.V == "label" && !keepLabel {
				continue
			}
			c.Kwargs = append(c.Kwargs, Kwarg{s.V, d.Vals[j], d.Span(), d.Vals[j].Span()})
		}
		var sink []diag.Diagnostic
		savedSink, savedSrc, savedID := ev.sink, ev.caseSource, ev.caseID
		ev.sink, ev.caseSource, ev.caseID = &sink, "configs", id
		ev.unit(ev.siteOf(siteFunc, gk.Name, gk.Def.Name.Loc), func() {
			saved := ev.speculating
			ev.speculating = true
			defer func() { ev.speculating = saved }()
			ev.callFunc(gk, c)
		})
		ev.sink, ev.caseSource, ev.caseID = savedSink, savedSrc, savedID
		return sink, id
	}}
}

// runFactories calls every function that contains kernels but was not
// entered by the module or a driver, once per directive line (or setting),
// else once with its defaults and unbound values; then evaluates every
// @T.jit kernel that no .specialize evaluated the same way. Newly created
// nested factories are called in later rounds.
func (ev *Evaluator) runFactories() {
	jitDone := map[*syntax.FunctionDef]bool{}
	for round := 0; round < 8; round++ {
		var todo []*FuncV
		for def, fn := range ev.funcByDef {
			if ev.hasKernel[def] && !ev.entered[def] {
				todo = append(todo, fn)
			}
		}
		var jits []*JitV
		for _, j := range ev.jits {
			if !jitDone[j.Def] {
				// A kernel specialized only with values it could not
				// complete keeps that record: its needs are those of the
				// calls, not of its defaults.
				if dc := ev.byDef[j.Def]; dc == nil || len(dc.cases) == 0 && dc.partial == nil {
					jits = append(jits, j)
				}
				jitDone[j.Def] = true
			}
		}
		if len(todo) == 0 && len(jits) == 0 {
			return
		}
		sort.Slice(todo, func(i, j int) bool { return todo[i].Def.Loc.Start < todo[j].Def.Loc.Start })
		for _, fn := range todo {
			ev.entered[fn.Def] = true
			lines := ev.bindValues(fn.Def, fn.Name, paramNames(fn.Params, false))
			src := ev.lineSource(fn.Def)
			if len(lines) == 0 {
				lines, src = [][]Binding{nil}, "default"
			}
			var groups [][]diag.Diagnostic
			var labels []string
			for _, extra := range lines {
				if ev.overBudget(fn.Def.Name.Loc) {
					break
				}
				groups = append(groups, ev.runCase(fn, nil, extra, src, ""))
				labels = append(labels, CaseString(extra))
			}
			ev.prog.Diags = append(ev.prog.Diags, MergeCaseDiags(groups, labels)...)
		}
		for _, j := range jits {
			lines := ev.bindValues(j.Def, j.Name, paramNames(j.Def.Params, false))
			src := ev.lineSource(j.Def)
			if len(lines) == 0 {
				lines, src = [][]Binding{nil}, "default"
			}
			for _, extra := range lines {
				if ev.overBudget(j.Def.Name.Loc) {
					break
				}
				savedSrc, savedID := ev.caseSource, ev.caseID
				ev.caseSource, ev.caseID = src, ""
				ev.unit(ev.siteOf(siteKernel, j.Name, j.Def.Name.Loc), func() {
					ev.evalKernelCase(j.outer, j.Def, j.Name, j.deco, ev.jitConsts(j, nil, extra))
				})
				ev.caseSource, ev.caseID = savedSrc, savedID
			}
		}
	}
}

// lineSource names the source of a def's binding lines.
func (ev *Evaluator) lineSource(def *syntax.FunctionDef) string {
	if len(ev.directives[def]) > 0 {
		return "directive"
	}
	return "setting"
}

// ---- tile-call sites (Kernel.Unresolved) ----

// noteSite records a tile call met while evaluating a kernel (a call met
// several times is merged when the kernel turns out partial).
func (ev *Evaluator) noteSite(c *syntax.Call, op, scope string, needs []string) {
	ks := ev.Kern
	if ks == nil || len(needs) == 0 && len(ks.K.Unbound) == 0 {
		// Nothing unbound so far: only a partial kernel needs its sites,
		// and evalKernelCase adds the calls of its body then.
		return
	}
	if n := len(ks.sites); n > 0 && ks.sites[n-1].Span == c.Loc && len(needs) == 0 {
		return // the same call again (a loop), needing nothing new
	}
	var own []string
	for _, p := range needs {
		if !containsStr(own, p) {
			own = append(own, p)
		}
	}
	ks.sites = append(ks.sites, UnresolvedCall{Span: c.Loc, OpSpan: c.Func.Span(), Op: op, Scope: scope, Needs: own})
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// tileCallSyntax recognizes Tx.op(...), Tx.<scope>.op(...) and
// getattr(Tx, ...).op(...) without evaluating them; with old (a kernel
// of the older dialect), also op(...) on tvm.script.tirx itself.
func (ev *Evaluator) tileCallSyntax(fr *frame, c *syntax.Call, old bool) (op, scope string, ok bool) {
	a, isAttr := c.Func.(*syntax.Attribute)
	if !isAttr || !ev.libIsTileOp(a.Attr.Id) {
		return "", "", false
	}
	isTx := func(e syntax.Expr) bool {
		n, ok := e.(*syntax.Name)
		if !ok {
			return false
		}
		v, _ := fr.env.lookup(n.Id)
		m, ok := v.(*ModuleV)
		return ok && m.Path == TxPath
	}
	switch x := a.X.(type) {
	case *syntax.Name:
		if isTx(x) {
			return a.Attr.Id, "thread", true
		}
		if old && isTirxModule(fr, x) {
			return a.Attr.Id, "", true // the scope of the enclosing block (dialect_old.go)
		}
		if n, ok := fr.env.lookup(x.Id); ok {
			if ns, ok := n.(*TxNSV); ok {
				return a.Attr.Id, ns.Scope, true
			}
		}
	case *syntax.Attribute:
		if sc, ok := ev.libTxScope(x.Attr.Id); ok && (isTx(x.X) || isTirxModule(fr, x.X)) {
			return a.Attr.Id, sc, true
		}
	case *syntax.Call:
		if n, ok := x.Func.(*syntax.Name); ok && n.Id == "getattr" && len(x.Args) > 0 && isTx(x.Args[0]) {
			return a.Attr.Id, "", true
		}
	}
	return "", "", false
}

// skippedTileCalls records the tile calls inside a statement of a kernel
// skipped because its condition or iterable needs param ("" when it is
// poison: if the kernel turns out partial, that stems from what it needed).
func (ev *Evaluator) skippedTileCalls(fr *frame, s syntax.Stmt, param string) {
	if ev.Kern == nil || param == "" && len(ev.Kern.K.Unbound) == 0 {
		return // not partial (yet): evalKernelCase scans the body if it becomes so
	}
	var needs []string
	if param != "" {
		needs = []string{param}
	}
	syntax.Inspect(s, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Call); ok {
			if op, scope, ok := ev.tileCallSyntax(fr, c, ev.InOldDialect()); ok {
				ev.noteSite(c, op, scope, needs)
			}
		}
		return true
	})
}

// unresolved returns the partial kernel's tile calls in source order; a
// call that needed nothing itself needs what the kernel needed.
func (ks *KernelState) unresolved() []UnresolvedCall {
	var all []string
	for _, u := range ks.K.Unbound {
		p := u
		if i := strings.LastIndexByte(u, '.'); i >= 0 {
			p = u[i+1:]
		}
		if !containsStr(all, p) {
			all = append(all, p)
		}
	}
	sites := append([]UnresolvedCall(nil), ks.sites...)
	sort.SliceStable(sites, func(i, j int) bool { return sites[i].Span.Start < sites[j].Span.Start })
	var out []UnresolvedCall
	for _, s := range sites {
		if n := len(out); n > 0 && out[n-1].Span == s.Span {
			last := &out[n-1]
			for _, p := range s.Needs {
				if !containsStr(last.Needs, p) {
					last.Needs = append(last.Needs, p)
				}
			}
			continue
		}
		out = append(out, s)
	}
	for i := range out {
		if len(out[i].Needs) == 0 {
			out[i].Needs = all
		}
	}
	return out
}
