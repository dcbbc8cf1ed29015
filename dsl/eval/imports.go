package eval

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Workspace imports: a module that is not a modelled library module is
// looked up as a .py file under the import roots (Options.ImportRoots,
// and the directory of the analysed file for relative imports), parsed
// with dsl/syntax and its module-level statements evaluated by this same
// evaluator, once per evaluation. Contract:
//
//   - Every span of an imported module's syntax tree is rewritten, when
//     it is loaded, to the span of the import statement of the analysed
//     file that first needed it (the anchor): values, IR and diagnostics
//     made by imported code carry a span into the analysed file, as
//     everything else does. Where a message quotes source text, imported
//     code is "(imported code)"; a dataclass field's annotation is
//     written from its syntax tree (exprText).
//   - Diagnostics of an imported module's own module-level statements
//     are dropped (they belong to that file's own analysis); those of its
//     functions called from the analysed file are reported at the call,
//     prefixed with the function's module and name.
//   - Kernel defs (@T.prim_func, @T.jit) of an imported module are not
//     evaluated: a kernel is analysed in its own file, and a name bound
//     to one is opaque here.
//   - In an import cycle a module still loading has what its body bound
//     so far, as in Python. A name not bound yet (in a cycle or at all),
//     a module missing from the workspace (under a top-level package that
//     is there, or a relative import), a file that does not read, and a
//     module past the import budget give an opaque value whose use
//     reports "not modelled: <why>" (eval/unresolved).
//   - A module of a top-level package that is not in the workspace
//     (torch, flashinfer) stays opaque as before; tvm is never loaded
//     from the workspace: it is modelled.
//   - Work is bounded: at most maxImportModules modules and
//     maxImportBytes source bytes per evaluation; module-level
//     statements run as units charged to the file's budgets.
//   - Program.Imports lists the module files read (also those that failed
//     to parse or whose read failed) and the files a missing module was
//     looked for as, so a client can analyse the file again when one
//     changes or appears. See docs/imports.md.
//
// Deviations from Python: `from a.b import c` does not run a/__init__.py
// (`import a.b` runs a's __init__ only when a is used); a package
// directory without __init__.py is a namespace package.

// The import budget of one evaluation (variables for tests).
var (
	MaxImportModules = 256
	MaxImportBytes   = 16 << 20
)

// importState is the state of workspace imports for one evaluation.
type importState struct {
	mods   map[string]*wsModule // by file path
	scopes map[*scope]*wsModule // module scope -> module
	// why maps opaque paths to the reason they are not modelled.
	why map[string]string
	// read caches the files read (and failed reads) by path.
	read  map[string]readResult
	bytes int
	// anchor is the span imported syntax trees are rewritten to while a
	// module of the analysed file's import statement is loaded.
	anchor source.Span
	// loading > 0 while an imported module's body runs.
	loading int
	// call is the outermost call of an imported module's function from
	// the analysed file's code, while it runs.
	call *importedCall
	// anchors are the spans imported syntax trees were rewritten to.
	anchors map[source.Span]bool
}

// importedCall is a call of an imported module's function from the
// analysed file: the diagnostics its body reports go to the call.
type importedCall struct {
	at   source.Span
	name string
}

// relocate moves d, reported inside the call, to the call.
func (c *importedCall) relocate(d diag.Diagnostic) diag.Diagnostic {
	d.Span = c.at
	d.Message = "in `" + c.name + "`: " + d.Message
	d.Related = nil
	return d
}

// enterCall notes that fn is called at span: the outermost call of an
// imported module's function from the analysed file's code starts an
// importedCall, and a call of the analysed file's function from imported
// code suspends it. The returned func restores the state.
func (ev *Evaluator) enterCall(fn *FuncV, at source.Span) func() {
	if ev.imp == nil || fn.Env == nil {
		return noop
	}
	saved := ev.imp.call
	m := ev.imp.scopes[fn.Env.root()]
	switch {
	case m != nil && saved == nil:
		ev.imp.call = &importedCall{at: at, name: ev.joinPath(m.name, fn.Name)}
	case m == nil && saved != nil:
		ev.imp.call = nil
	default:
		return noop
	}
	return func() { ev.imp.call = saved }
}

func noop() {}

// wsModule is one workspace module.
type wsModule struct {
	name    string // dotted name as imported ("pkg.sub", ".x")
	file    string // the .py file, "" for a namespace package
	dir     string // the package directory (file's dir, or the namespace dir)
	isPkg   bool
	scope   *scope
	mod     *ModuleV
	loading bool
}

func (ev *Evaluator) imports() *importState {
	if ev.imp == nil {
		ev.imp = &importState{
			mods:   map[string]*wsModule{},
			scopes: map[*scope]*wsModule{},
			why:    map[string]string{},
			read:   map[string]readResult{},
		}
	}
	return ev.imp
}

// importsEnabled reports whether workspace imports may be resolved.
func (ev *Evaluator) importsEnabled() bool {
	return len(ev.Opts.ImportRoots) > 0 || ev.Opts.Path != ""
}

// readFile reads a module's source, once per evaluation.
func (ev *Evaluator) readFile(path string) ([]byte, error) {
	im := ev.imports()
	if r, ok := im.read[path]; ok {
		return r.src, r.err
	}
	var r readResult
	if rp := ev.Opts.replica; rp != nil {
		if r, ok := rp.read[path]; ok { // what the evaluator it replicates read
			im.read[path] = r
			return r.src, r.err
		}
	}
	if ev.Opts.ReadFile != nil {
		r.src, r.err = ev.Opts.ReadFile(path)
	} else {
		r.src, r.err = os.ReadFile(path)
	}
	im.read[path] = r
	return r.src, r.err
}

type readResult struct {
	src []byte
	err error
}

// isFile reports whether a module file exists (through readFile when
// Options.ReadFile is set: an open buffer counts).
func (ev *Evaluator) isFile(path string) bool {
	if ev.Opts.ReadFile != nil {
		_, err := ev.readFile(path)
		return err == nil
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// opaqueWhy returns why an opaque path from a workspace import is not
// modelled, or "".
func (ev *Evaluator) opaqueWhy(path string) string {
	if ev.imp == nil || len(ev.imp.why) == 0 {
		return ""
	}
	for p := path; p != ""; {
		if w, ok := ev.imp.why[p]; ok {
			return w
		}
		i := strings.LastIndexAny(p, ".([")
		if i <= 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// notModelled returns an opaque value for path that reports why where a
// concrete value is needed.
func (ev *Evaluator) notModelled(path, why string, span source.Span) Value {
	ev.imports().why[path] = why
	return &OpaqueV{Base{span}, path}
}

// curModule returns the workspace module whose code fr runs, or nil for
// the analysed file.
func (ev *Evaluator) curModule(fr *frame) *wsModule {
	if ev.imp == nil || fr == nil || fr.env == nil {
		return nil
	}
	return ev.imp.scopes[fr.env.root()]
}

// inImported reports whether fr runs code of an imported module.
func (ev *Evaluator) inImported(fr *frame) bool { return ev.curModule(fr) != nil }

// wsTop reports whether the top-level package or module of a dotted name
// is in the workspace (so a missing submodule is worth reporting).
func (ev *Evaluator) wsTop(dotted string) bool {
	top, _, _ := strings.Cut(dotted, ".")
	if top == "tvm" || top == "" {
		return false
	}
	for _, r := range ev.Opts.ImportRoots {
		if isDir(filepath.Join(r, top)) || ev.isFile(filepath.Join(r, top+".py")) {
			return true
		}
	}
	return false
}

// findModule returns the file (or namespace directory) of a module under
// dir: dir/<parts>.py or dir/<parts>/__init__.py.
func (ev *Evaluator) findModule(dir string, parts []string) (file, pkgDir string, isPkg bool) {
	p := filepath.Join(append([]string{dir}, parts...)...)
	if init := filepath.Join(p, "__init__.py"); ev.isFile(init) {
		return init, p, true
	}
	if ev.isFile(p + ".py") {
		return p + ".py", filepath.Dir(p), false
	}
	if isDir(p) {
		return "", p, true // a namespace package
	}
	return "", "", false
}

// wsImport resolves a workspace module: dotted (absolute, level 0) or
// relative to fr's module. It returns a *ModuleV, or an opaque value (nil
// when the name is not a workspace module and should stay opaque as
// before).
func (ev *Evaluator) wsImport(fr *frame, dotted string, level int, span source.Span) Value {
	if !ev.importsEnabled() {
		return nil
	}
	var parts []string
	if dotted != "" {
		parts = strings.Split(dotted, ".")
	}
	display := strings.Repeat(".", level) + dotted
	if level == 0 {
		if !ev.wsTop(dotted) {
			return nil
		}
		for _, r := range ev.Opts.ImportRoots {
			if file, dir, pkg := ev.findModule(r, parts); dir != "" {
				return ev.loadModule(display, file, dir, pkg, span)
			}
		}
		for _, r := range ev.Opts.ImportRoots {
			ev.noteImport(filepath.Join(append([]string{r}, parts...)...) + ".py") // made later, it changes this analysis
		}
		return ev.notModelled(display, fmt.Sprintf("module `%s` not found in the workspace", display), span)
	}
	base := ""
	if m := ev.curModule(fr); m != nil {
		base = m.dir
	} else if ev.Opts.Path != "" {
		base = filepath.Dir(ev.Opts.Path)
	}
	if base == "" {
		return ev.notModelled(display, fmt.Sprintf("relative import `%s` (the analysed file's path is not known)", display), span)
	}
	for i := 1; i < level; i++ {
		base = filepath.Dir(base)
	}
	if len(parts) == 0 {
		init := filepath.Join(base, "__init__.py")
		if ev.isFile(init) {
			return ev.loadModule(display, init, base, true, span)
		}
		return ev.loadModule(display, "", base, true, span)
	}
	if file, dir, pkg := ev.findModule(base, parts); dir != "" {
		return ev.loadModule(display, file, dir, pkg, span)
	}
	ev.noteImport(filepath.Join(append([]string{base}, parts...)...) + ".py")
	return ev.notModelled(display, fmt.Sprintf("module `%s` not found in the workspace", display), span)
}

// noteImport adds path to Program.Imports, once.
func (ev *Evaluator) noteImport(path string) {
	if !slices.Contains(ev.prog.Imports, path) {
		ev.prog.Imports = append(ev.prog.Imports, path)
	}
}

// loadModule returns the module of file (or of the namespace package dir
// when file is ""), evaluating it on first use.
func (ev *Evaluator) loadModule(name, file, dir string, isPkg bool, span source.Span) Value {
	im := ev.imports()
	key := file
	if key == "" {
		key = dir + string(filepath.Separator)
	}
	if m := im.mods[key]; m != nil {
		// A module still loading is part of an import cycle: as in Python,
		// what its body has bound so far is there, the rest is not
		// (moduleAttr says so).
		return m.mod
	}
	if len(im.mods) >= MaxImportModules {
		return ev.notModelled(name, fmt.Sprintf("module `%s`: more than %d imported modules", name, MaxImportModules), span)
	}
	m := &wsModule{name: name, file: file, dir: dir, isPkg: isPkg}
	m.mod = &ModuleV{Base: Base{span}, Path: name, Name: name[strings.LastIndexByte(name, '.')+1:]}
	m.mod.Attr = func(ev *Evaluator, attr string, sp source.Span) (Value, bool) {
		return ev.moduleAttr(m, attr, sp), true
	}
	im.mods[key] = m
	if file == "" {
		return m.mod
	}
	src, err := ev.readFile(file)
	ev.noteImport(file)
	if err != nil {
		why := fmt.Sprintf("module `%s` does not read: %v", name, err)
		if errors.Is(err, fs.ErrNotExist) {
			why = fmt.Sprintf("module `%s` not found in the workspace", name)
		}
		delete(im.mods, key)
		return ev.notModelled(name, why, span)
	}
	if im.bytes+len(src) > MaxImportBytes {
		delete(im.mods, key)
		return ev.notModelled(name, fmt.Sprintf("module `%s`: imported modules exceed %s of source", name, sizeText(MaxImportBytes)), span)
	}
	im.bytes += len(src)
	anchor := span
	if im.loading > 0 {
		anchor = im.anchor // nested imports share the outermost anchor
	}
	body := parsedModule(file, src, anchor)
	if im.anchors == nil {
		im.anchors = map[source.Span]bool{}
	}
	im.anchors[anchor] = true
	m.scope = newScope(nil)
	m.scope.vars["__name__"] = &StrV{Base{anchor}, strings.TrimLeft(name, ".")}
	im.scopes[m.scope] = m
	m.loading = true
	ev.runModule(m, body, anchor)
	m.loading = false
	m.mod.names = publicNames(m.scope)
	return m.mod
}

// runModule runs an imported module's statements at Python level, each as
// a unit charged to the anchor's site; their diagnostics are dropped.
func (ev *Evaluator) runModule(m *wsModule, body []syntax.Stmt, anchor source.Span) {
	im := ev.imp
	savedAnchor := im.anchor
	savedKern, savedEmit, savedSink, savedHint := ev.Kern, ev.Emit, ev.sink, ev.hint
	savedLoops, savedTry, savedSpec, savedCall := ev.loopKinds, ev.tryDepth, ev.speculating, im.call
	var dropped []diag.Diagnostic
	im.anchor, im.loading, im.call = anchor, im.loading+1, nil
	ev.Kern, ev.Emit, ev.sink, ev.hint, ev.loopKinds, ev.tryDepth, ev.speculating = nil, nil, &dropped, nil, nil, 0, false
	defer func() {
		im.anchor, im.loading, im.call = savedAnchor, im.loading-1, savedCall
		ev.Kern, ev.Emit, ev.sink, ev.hint = savedKern, savedEmit, savedSink, savedHint
		ev.loopKinds, ev.tryDepth, ev.speculating = savedLoops, savedTry, savedSpec
		// A budget that ran out in the module is the importer's business:
		// its names are missing, or the file's evaluation stopped.
		for _, d := range dropped {
			if d.Code == CodeBudget || d.Code == CodeTooLarge {
				d.Message = "in imported module `" + m.name + "`: " + d.Message
				ev.Report(d)
			}
		}
	}()
	top := &frame{env: m.scope}
	for _, s := range body {
		if ev.fileOut {
			return
		}
		stop := false
		ev.unit(ev.siteOf(siteLine, "", anchor), func() { stop = ev.execStmt(top, s) == ctrlRaise && !ev.Halted })
		if stop {
			return
		}
	}
}

// moduleAttr is an attribute of a workspace module: a name its body
// bound, else a submodule.
func (ev *Evaluator) moduleAttr(m *wsModule, name string, span source.Span) Value {
	if m.scope != nil {
		if v, ok := m.scope.vars[name]; ok {
			return v
		}
	}
	if m.isPkg {
		if file, dir, pkg := ev.findModule(m.dir, []string{name}); dir != "" {
			sub := m.name + "." + name
			if strings.HasSuffix(m.name, ".") {
				sub = m.name + name
			}
			return ev.loadModule(sub, file, dir, pkg, span)
		}
	}
	if m.loading {
		return ev.notModelled(m.name+"."+name, fmt.Sprintf("import cycle: `%s` is not yet defined in module `%s` when it is imported", name, m.name), span)
	}
	return ev.notModelled(m.name+"."+name, fmt.Sprintf("`%s` is not defined in module `%s`", name, m.name), span)
}

// publicNames lists what `from m import *` binds: __all__ when it is a
// list or tuple of strings, else the names not starting with "_".
func publicNames(sc *scope) []string {
	if all, ok := sc.vars["__all__"]; ok {
		var elts []Value
		switch a := all.(type) {
		case *ListV:
			elts = a.Elts
		case *TupleV:
			elts = a.Elts
		}
		var out []string
		for _, e := range elts {
			if s, ok := e.(*StrV); ok {
				out = append(out, s.V)
			}
		}
		if out != nil {
			return out
		}
	}
	var out []string
	for n := range sc.vars {
		if !strings.HasPrefix(n, "_") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// respanTree sets every span and position in the syntax trees of body to
// anchor.
func respanTree(body []syntax.Stmt, anchor source.Span) {
	spanT := reflect.TypeOf(source.Span{})
	posT := reflect.TypeOf(source.Pos(0))
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == spanT {
				if v.CanSet() {
					v.Set(reflect.ValueOf(anchor))
				}
				return
			}
			for i := 0; i < v.NumField(); i++ {
				f := v.Field(i)
				if !f.CanSet() {
					continue
				}
				switch {
				case f.Type() == posT:
					if f.Int() >= 0 {
						f.SetInt(int64(anchor.Start))
					}
				default:
					walk(f)
				}
			}
		}
	}
	for _, s := range body {
		walk(reflect.ValueOf(s))
	}
}

// ---- the import statements ----

// wsImportName binds `import a.b.c` (no alias): a is the workspace
// package; its attributes load submodules on use.
func (ev *Evaluator) wsImportName(fr *frame, a *syntax.Alias) (Value, bool) {
	if a.AsName != nil {
		v := ev.wsImport(fr, a.Name, 0, a.Loc)
		return v, v != nil
	}
	top, rest, _ := strings.Cut(a.Name, ".")
	v := ev.wsImport(fr, top, 0, a.Loc)
	if v == nil {
		return nil, false
	}
	// Load the submodules now, as Python does, so a missing one says so.
	cur := v
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, ".")
		m, ok := cur.(*ModuleV)
		if !ok {
			break
		}
		cur = ev.quietAttr(m, part, a.Loc, a.Loc)
	}
	return v, true
}

// wsImportFrom binds the names of `from <module> import ...` from a
// workspace module; it reports false when the module is not one (the
// caller keeps the opaque values).
func (ev *Evaluator) wsImportFrom(fr *frame, s *syntax.ImportFrom) bool {
	v := ev.wsImport(fr, s.Module, s.Level, s.Loc)
	if v == nil {
		return false
	}
	m, ok := v.(*ModuleV)
	for _, a := range s.Names {
		if a.Name == "*" {
			if ok {
				for _, n := range m.names {
					if x, ok := m.Attr(ev, n, a.Loc); ok {
						fr.env.set(n, x)
					}
				}
			}
			continue
		}
		name := a.Name
		if a.AsName != nil {
			name = a.AsName.Id
		}
		if !ok {
			o := v.(*OpaqueV)
			fr.env.set(name, &OpaqueV{Base{a.Loc}, o.Path + "." + a.Name})
			continue
		}
		x, _ := m.Attr(ev, a.Name, a.Loc)
		fr.env.set(name, x)
	}
	return true
}

// sizeText writes n bytes as "16 MiB", or "100 bytes".
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// exprText is the source text of e: for an expression of an imported
// module (whose span is the import statement's), as written from its
// syntax tree (names, attributes, subscripts, literals, tuples and |).
func (ev *Evaluator) exprText(e syntax.Expr) string {
	if ev.imp == nil || !ev.imp.anchors[e.Span()] {
		return ev.file.Text(e.Span())
	}
	return unparse(e)
}

func unparse(e syntax.Expr) string {
	switch x := e.(type) {
	case *syntax.Name:
		return x.Id
	case *syntax.Attribute:
		return unparse(x.X) + "." + x.Attr.Id
	case *syntax.Subscript:
		return unparse(x.X) + "[" + unparse(x.Index) + "]"
	case *syntax.Constant:
		if x.Kind == syntax.String {
			return strconv.Quote(x.Str)
		}
		return x.Value
	case *syntax.Tuple:
		parts := make([]string, len(x.Elts))
		for i, el := range x.Elts {
			parts[i] = unparse(el)
		}
		return strings.Join(parts, ", ")
	case *syntax.BinOp:
		return unparse(x.X) + " " + x.Op + " " + unparse(x.Y)
	}
	return "..."
}

// Parsed imported modules, shared by the evaluations of every file: a
// keystroke in a kernel analyses its file again, and the modules it
// imports would be parsed again each time. An entry is the module's
// syntax tree respanned to an anchor (respanTree), keyed by path, text and
// anchor; the evaluator only reads trees, so entries are shared across
// goroutines. At most parsedCap entries; when full, the cache starts
// over (an editing session touches few modules).
const parsedCap = 64

type parsedKey struct {
	file   string
	sum    [sha256.Size]byte
	anchor source.Span
}

var parsed struct {
	sync.Mutex
	m map[parsedKey][]syntax.Stmt
}

func parsedModule(file string, src []byte, anchor source.Span) []syntax.Stmt {
	k := parsedKey{file: file, sum: sha256.Sum256(src), anchor: anchor}
	parsed.Lock()
	body, ok := parsed.m[k]
	parsed.Unlock()
	if ok {
		return body
	}
	f, _ := syntax.Parse(source.NewFile(file, src))
	respanTree(f.Body, anchor)
	parsed.Lock()
	if parsed.m == nil || len(parsed.m) >= parsedCap {
		parsed.m = map[parsedKey][]syntax.Stmt{}
	}
	parsed.m[k] = f.Body
	parsed.Unlock()
	return f.Body
}
