package eval

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Parameter binding: where the values of factory, test and T.constexpr
// parameters come from, and how each evaluation of a kernel def under one
// set of values (a case) is recorded. docs/binding.md describes it for
// users; the sources, in the order they are tried:
//
//  1. module-level code (factory calls with evaluable arguments,
//     .specialize(...) calls);
//  2. @pytest.mark.parametrize grids of test functions (stacked decorators
//     form a product), every other test function once, the body of
//     `if __name__ == "__main__":`, and module-level functions without
//     required parameters that name a factory or a @T.jit kernel;
//  3. the module's CONFIGS list, each entry passed to get_kernel(**cfg)
//     (the TIRx-kernels protocol);
//  4. functions that contain kernels but were not reached, and @T.jit
//     kernels never specialized: called once per `# tilels: bind`
//     directive line above them (Options.Bind adds one more source, a
//     server setting in the same syntax), else once with the parameter
//     defaults. A parameter with neither stays unbound.
//
// A directive or setting value also fills a parameter that would be
// unbound when a test or factory is called with fewer values than it
// needs (a pytest fixture). Values passed by a call always win.

// DefaultMaxCases is the default cap on bound cases per kernel def, per
// parametrize grid and per CONFIGS list (Options.MaxCases).
const DefaultMaxCases = 64

// MaxCasesLimit is the most bound cases Options.MaxCases can ask for: every
// case is one evaluation, one dispatch and one printed kernel, so a cap of
// millions would enumerate a large grid (a product of parametrize lists)
// for minutes and hold every case in memory.
const MaxCasesLimit = 4096

// driveBudget is how many times Options.MaxSteps all bound cases of a file
// may take together; the cases after that are not evaluated.
const driveBudget = 8

// CodeCaseCap reports a capped grid, CONFIGS list or kernel def, or bound
// cases left out by the file's work budget (information).
const CodeCaseCap = "eval/case-cap"

// CodeDirective reports a `# tilels: bind` directive (or bind setting) that
// cannot be used: a syntax error, an unknown parameter, a value that does
// not evaluate.
const CodeDirective = "eval/directive"

// Binding is one parameter value of a case.
type Binding struct {
	Name  string
	Value Value
}

// CaseString renders bindings as Python keyword arguments:
// "dtype='float16', M=128".
func CaseString(bs []Binding) string {
	var b strings.Builder
	for i, x := range bs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x.Name)
		b.WriteByte('=')
		b.WriteString(Literal(x.Value))
	}
	return b.String()
}

// Literal renders v as a Python literal: a dtype as its name in quotes
// and an enum member as Class.NAME (the spellings that bind them), other
// values as repr.
func Literal(v Value) string {
	switch x := v.(type) {
	case *DTypeV:
		return PyQuote(x.DT.String())
	case *EnumV:
		return x.Type + "." + x.Name
	case *InstanceV:
		if x.Class.enum != enumNone {
			if n := enumName(x); n != "" {
				return x.Class.Name + "." + n
			}
		}
	}
	return Repr(v)
}

// caseOf returns the parameter values of the functions lexically enclosing
// a def evaluated in fr (outermost first), as bound when each was called.
// Unbound parameters are left out: a kernel that needed one is partial.
func caseOf(fr *frame) []Binding {
	var chain []*scope
	for sc := fr.env; sc != nil; sc = sc.parent {
		if len(sc.args) > 0 {
			chain = append(chain, sc)
		}
	}
	var out []Binding
	for i := len(chain) - 1; i >= 0; i-- {
		for _, b := range chain[i].args {
			if _, ok := b.Value.(*UnboundV); ok {
				continue
			}
			out = append(out, b)
		}
	}
	return out
}

// recordArgs snapshots the parameters of fn as bound in env (before the
// body can reassign them).
func recordArgs(fn *FuncV, env *scope) {
	ps := fn.Params
	if ps == nil || fn.Lambda != nil {
		return
	}
	n := len(ps.Posonly) + len(ps.Args) + len(ps.Kwonly)
	if n == 0 {
		return
	}
	env.args = make([]Binding, 0, n)
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if v, ok := env.vars[p.Name.Id]; ok {
				env.args = append(env.args, Binding{p.Name.Id, v})
			}
		}
	}
}

// defCases collects the evaluations of one kernel def. Most defs have one
// case: its slot is inline, so recording it allocates nothing more.
type defCases struct {
	def *syntax.FunctionDef
	// cases are the complete evaluations, one per distinct case, in the
	// order they were made; keys[i] is cases[i]'s case string.
	cases []*Kernel
	keys  []string
	// partial is the first evaluation that needed an unbound value;
	// partialKeys are the case strings of such evaluations.
	partial     *Kernel
	partialKeys []string
	// capped holds the distinct cases left out by the cap.
	capped []string

	case1 [1]*Kernel
	key1  [1]string
}

func (ev *Evaluator) casesOf(def *syntax.FunctionDef) *defCases {
	dc := ev.byDef[def]
	if dc == nil {
		dc = &defCases{def: def}
		dc.cases, dc.keys = dc.case1[:0], dc.key1[:0]
		ev.byDef[def] = dc
	}
	return dc
}

// lookup returns the complete case with key.
func (dc *defCases) lookup(key string) (*Kernel, bool) {
	for i, k := range dc.keys {
		if k == key {
			return dc.cases[i], true
		}
	}
	return nil, false
}

// ---- directives and settings ----

var directiveRE = regexp.MustCompile(`^#\s*tilels:\s*bind\b`)

// directive is one `# tilels: bind ...` comment line.
type directive struct {
	comment source.Span // the whole comment
	args    source.Span // the text after "bind"
}

// findDirectives maps every def to the directive lines directly above it
// (only blank lines and comments between them and the def's first line).
func (ev *Evaluator) findDirectives(f *syntax.File) {
	var ds []directive
	for _, c := range f.Comments {
		if m := directiveRE.FindStringIndex(c.Text); m != nil {
			ds = append(ds, directive{comment: c.Span, args: source.Span{Start: c.Span.Start + source.Pos(m[1]), End: c.Span.End}})
		}
	}
	if len(ds) == 0 {
		return
	}
	starts := map[source.Pos]*syntax.FunctionDef{}
	syntax.Inspect(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FunctionDef); ok {
			starts[fd.Loc.Start] = fd
		}
		return true
	})
	src := f.Src.Src
	ev.directives = map[*syntax.FunctionDef][]directive{}
	for _, d := range ds {
		// Skip to the next line that is neither blank nor a comment.
		p := int(d.comment.End)
		for p < len(src) {
			for p < len(src) && (src[p] == ' ' || src[p] == '\t' || src[p] == '\r' || src[p] == '\n') {
				p++
			}
			if p < len(src) && src[p] == '#' {
				for p < len(src) && src[p] != '\n' {
					p++
				}
				continue
			}
			break
		}
		if fd, ok := starts[source.Pos(p)]; ok {
			ev.directives[fd] = append(ev.directives[fd], d)
			continue
		}
		ev.Report(diag.Errorf(d.comment, CodeDirective, "`# tilels: bind` must stand directly above a def"))
	}
}

// parseBindText parses "M=4096, dtype='float16'" found at [at, at+len)
// of a file (so spans are the text's real positions), and returns its
// keywords (nil when the text is not name=value pairs, with the parser's
// diagnostics when it does not parse). For a setting (at 3) the spans
// belong to a separate text.
func parseBindText(name string, text []byte, at source.Pos) ([]*syntax.Keyword, []diag.Diagnostic) {
	// The text becomes `(_(<text>))`, the brackets making indentation
	// irrelevant, and the tree's spans are then moved to the text's place.
	// (Placing the text at its offset in a blank buffer the size of the
	// file kept positions without moving them, but cost the file's size
	// per directive: 5,000 directives in a 600 KB file held 3 GB.)
	buf := make([]byte, 0, len(text)+6)
	buf = append(append(append(buf, "(_("...), text...), "))\n"...)
	f, ds := syntax.Parse(source.NewFile(name, buf))
	shiftSpans(reflect.ValueOf(f.Body), at-3, map[uintptr]bool{})
	if len(ds) > 0 || len(f.Body) != 1 {
		return nil, ds
	}
	es, ok := f.Body[0].(*syntax.ExprStmt)
	if !ok {
		return nil, ds
	}
	c, ok := es.X.(*syntax.Call)
	if !ok || len(c.Args) > 0 {
		return nil, nil
	}
	return c.Keywords, nil
}

// shiftSpans adds delta to every source.Span and source.Pos (except NoPos
// and invalid spans) reachable from v: a syntax tree parsed from a text
// that stands elsewhere in the file (parseBindText). The trees it sees are
// a directive's few nodes.
func shiftSpans(v reflect.Value, delta source.Pos, seen map[uintptr]bool) {
	if delta == 0 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		shiftSpans(v.Elem(), delta, seen)
	case reflect.Interface:
		if !v.IsNil() {
			shiftSpans(v.Elem(), delta, seen)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			shiftSpans(v.Index(i), delta, seen)
		}
	case reflect.Struct:
		if !v.CanAddr() {
			return
		}
		switch x := v.Addr().Interface().(type) {
		case *source.Span:
			if x.IsValid() {
				x.Start += delta
				x.End += delta
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				shiftSpans(v.Field(i), delta, seen)
			}
		}
	case reflect.Int32:
		if !v.CanAddr() {
			return
		}
		if p, ok := v.Addr().Interface().(*source.Pos); ok && *p != source.NoPos {
			*p += delta
		}
	}
}

// bindValues evaluates the bindings of fn's directive lines and setting:
// one binding list per case (nil when there is none).
func (ev *Evaluator) bindValues(def *syntax.FunctionDef, name string, params map[string]bool) [][]Binding {
	if def == nil {
		return nil
	}
	if c, ok := ev.bindCache[def]; ok {
		return c
	}
	var setting []Binding
	if text, ok := ev.settingFor(name); ok {
		setting = ev.evalSetting(def, name, text, params)
	}
	var out [][]Binding
	for _, d := range ev.directives[def] {
		bs, ok := ev.evalDirective(def, d, params)
		if !ok {
			continue
		}
		// The setting fills what the directive line leaves out.
		for _, s := range setting {
			if !hasBinding(bs, s.Name) {
				bs = append(bs, s)
			}
		}
		out = append(out, bs)
	}
	if len(out) == 0 && len(setting) > 0 {
		out = append(out, setting)
	}
	if ev.bindCache == nil {
		ev.bindCache = map[*syntax.FunctionDef][][]Binding{}
	}
	ev.bindCache[def] = out
	return out
}

func hasBinding(bs []Binding, name string) bool {
	for _, b := range bs {
		if b.Name == name {
			return true
		}
	}
	return false
}

func lookupBinding(bs []Binding, name string) (Value, bool) {
	for _, b := range bs {
		if b.Name == name {
			return b.Value, true
		}
	}
	return nil, false
}

// settingFor returns the Options.Bind text for a function: by qualified
// name, else by its last component.
func (ev *Evaluator) settingFor(name string) (string, bool) {
	if len(ev.Opts.Bind) == 0 {
		return "", false
	}
	if t, ok := ev.Opts.Bind[name]; ok {
		return t, true
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if t, ok := ev.Opts.Bind[name[i+1:]]; ok {
			return t, true
		}
	}
	return "", false
}

func (ev *Evaluator) evalDirective(def *syntax.FunctionDef, d directive, params map[string]bool) ([]Binding, bool) {
	text := ev.file.Src[d.args.Start:d.args.End]
	kws, ds := parseBindText(ev.file.Name, text, d.args.Start)
	if kws == nil {
		msg := "expected name=value pairs"
		if len(ds) > 0 {
			msg = ds[0].Message
		}
		ev.Report(diag.Errorf(d.comment, CodeDirective, "bad `# tilels: bind` directive: %s", msg))
		return nil, false
	}
	return ev.evalBindKeywords(kws, params, def, func(sp source.Span, format string, args ...any) {
		ev.Report(diag.Errorf(sp, CodeDirective, format, args...))
	})
}

func (ev *Evaluator) evalSetting(def *syntax.FunctionDef, name, text string, params map[string]bool) []Binding {
	fail := func(format string, args ...any) {
		ev.Report(diag.Errorf(def.Name.Loc, CodeDirective, "bind setting for `%s`: %s", name, fmt.Sprintf(format, args...)))
	}
	kws, ds := parseBindText("<bind setting>", []byte(text), 3)
	if kws == nil {
		msg := "expected name=value pairs"
		if len(ds) > 0 {
			msg = ds[0].Message
		}
		fail("%s", msg)
		return nil
	}
	// Setting values live in another text: evaluate quietly, report at
	// the def, and give Python literals no span.
	var sink []diag.Diagnostic
	saved := ev.sink
	ev.sink = &sink
	bad := ""
	bs, _ := ev.evalBindKeywords(kws, params, def, func(_ source.Span, format string, args ...any) {
		if bad == "" {
			bad = fmt.Sprintf(format, args...) // reported once, below
		}
	})
	ev.sink = saved
	if bad == "" && len(sink) > 0 {
		bad = sink[0].Message
	}
	if bad != "" {
		fail("%s", bad)
		return nil
	}
	for i := range bs {
		bs[i].Value = respan(bs[i].Value)
	}
	return bs
}

func (ev *Evaluator) evalBindKeywords(kws []*syntax.Keyword, params map[string]bool, def *syntax.FunctionDef, fail func(source.Span, string, ...any)) ([]Binding, bool) {
	fr := &frame{env: ev.modScope}
	var out []Binding
	for _, k := range kws {
		if k.Name == nil {
			fail(k.Loc, "expected name=value, got **")
			return nil, false
		}
		if !params[k.Name.Id] {
			fail(k.Name.Loc, "`%s` is not a parameter of `%s`", k.Name.Id, def.Name.Id)
			return nil, false
		}
		var v Value
		ev.unit(ev.siteOf(siteDirective, "", k.Value.Span()), func() { v = ev.expr(fr, k.Value) })
		if IsErr(v) {
			if _, ok := v.(*PoisonV); !ok {
				fail(k.Value.Span(), "the value of `%s` does not evaluate", k.Name.Id)
			}
			return nil, false
		}
		out = append(out, Binding{k.Name.Id, v})
	}
	return out, true
}

// respan drops the spans of Python literal values (setting values come
// from a text outside the file).
func respan(v Value) Value {
	b := Base{source.NoSpan}
	switch x := v.(type) {
	case *IntV:
		return &IntV{b, x.V}
	case *FloatV:
		return &FloatV{b, x.V}
	case *BoolV:
		return &BoolV{b, x.V}
	case *StrV:
		return &StrV{b, x.V}
	case *NoneV:
		return &NoneV{b}
	case *TupleV:
		out := make([]Value, len(x.Elts))
		for i, e := range x.Elts {
			out[i] = respan(e)
		}
		return &TupleV{b, out}
	case *ListV:
		out := make([]Value, len(x.Elts))
		for i, e := range x.Elts {
			out[i] = respan(e)
		}
		return &ListV{b, out}
	case *DTypeV:
		return &DTypeV{b, x.DT, x.Ctor}
	}
	return v
}

// paramNames returns the names of a def's parameters (all of them, or
// only its T.constexpr ones).
func paramNames(ps *syntax.Params, constexprOnly bool) map[string]bool {
	out := map[string]bool{}
	if ps == nil {
		return out
	}
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if !constexprOnly || isConstexprAnnotation(p.Annotation) {
				out[p.Name.Id] = true
			}
		}
	}
	return out
}

// ---- unbound values ----

// noteUnbound records that evaluating def needed o's value. Whether o is
// reported is decided at the end: only when def got no complete case.
func (ev *Evaluator) noteUnbound(o *unboundOrigin, def *syntax.FunctionDef) {
	if ev.pending == nil {
		ev.pending = map[*unboundOrigin]map[*syntax.FunctionDef]bool{}
	}
	m := ev.pending[o]
	if m == nil {
		m = map[*syntax.FunctionDef]bool{}
		ev.pending[o] = m
	}
	if def != nil {
		m[def] = true
	}
}

// reportPending reports every unbound origin that some kernel def needed
// and that def has no complete case.
func (ev *Evaluator) reportPending() {
	var os []*unboundOrigin
	for o, defs := range ev.pending {
		need := len(defs) == 0
		for def := range defs {
			if dc := ev.byDef[def]; dc == nil || len(dc.cases) == 0 {
				need = true
			}
		}
		if need {
			os = append(os, o)
		}
	}
	sort.Slice(os, func(i, j int) bool { return os[i].Span.Start < os[j].Span.Start })
	for _, o := range os {
		ev.reportUnbound(o)
	}
}

// kernelDefsIn returns the kernel defs lexically inside ss.
func (ev *Evaluator) kernelDefsIn(ss ...syntax.Stmt) []*syntax.FunctionDef {
	var out []*syntax.FunctionDef
	for _, s := range ss {
		syntax.Inspect(s, func(n syntax.Node) bool {
			if fd, ok := n.(*syntax.FunctionDef); ok && isKernelDecorated(fd) {
				out = append(out, fd)
				return false
			}
			return true
		})
	}
	return out
}
