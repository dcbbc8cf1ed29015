package lower

import (
	"bytes"
	"sort"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Which kernels a module-level edit can change (Session, "module-level
// edits").
//
// The evaluator reads module-level names only through Name expressions
// (and `# tilels: bind` directives and bind settings, which are text):
// a kernel's evaluation can only depend on the module-level names written
// in its text, on the names written in the module-level statements that
// bind those, and so on. So a kernel need not be analysed again when no
// word of its text (with its directive lines) is a name that an edited
// statement binds, or that a statement reading such a name binds, and so
// on: the closure below. Words are taken from the raw text (strings and
// comments too, attribute names too), which only makes it larger.
//
// That reasoning fails where names are bound or values changed other than
// by binding statements, and stmtFacts marks those statements uncertain
// (the whole file is analysed then): `global` and `nonlocal`, star
// imports, exec, eval, globals(), locals(), vars(), setattr, delattr,
// __import__, __dict__ and friends, next() (iterators are state), and a
// list or dict changed in place (a method like append, an item or
// attribute assignment, del x[i]) anywhere but in module-level code,
// where the container's name counts as bound. And a module-level raise or
// assert stops the module (later kernels are not evaluated at all): such
// a statement is a control statement, and an edit that reaches one is
// analysed whole.

// stmtFacts is what one top-level statement does to the module namespace.
type stmtFacts struct {
	binds     []string // names it binds (or changes in place) at module level
	uncertain bool     // see above
	control   bool     // a raise or assert at module level
}

// mutators are the list, dict and set methods that change their receiver.
var mutators = map[string]bool{
	"append": true, "extend": true, "insert": true, "remove": true, "pop": true, "clear": true,
	"sort": true, "reverse": true, "update": true, "setdefault": true, "popitem": true,
	"add": true, "discard": true, "__setitem__": true, "__delitem__": true, "__iadd__": true,
}

// dynamic are the builtins that reach names or state the words of a text
// do not show.
var dynamic = map[string]bool{
	"exec": true, "eval": true, "globals": true, "locals": true, "vars": true, "setattr": true,
	"delattr": true, "__import__": true, "compile": true, "next": true,
}

// factsOf returns the facts of a top-level statement.
func factsOf(s syntax.Stmt) stmtFacts {
	var w factsWalker
	w.stmt(s)
	return w.f
}

type factsWalker struct {
	f     stmtFacts
	depth int // > 0 inside a def, lambda or class body
}

func (w *factsWalker) bind(name string) {
	if w.depth == 0 {
		w.f.binds = append(w.f.binds, name)
	}
}

// target records an assignment (or deletion) target.
func (w *factsWalker) target(t syntax.Expr) {
	switch t := t.(type) {
	case *syntax.Name:
		w.bind(t.Id)
	case *syntax.Tuple:
		for _, e := range t.Elts {
			w.target(e)
		}
	case *syntax.List:
		for _, e := range t.Elts {
			w.target(e)
		}
	case *syntax.Starred:
		w.target(t.X)
	case *syntax.Subscript, *syntax.Attribute:
		w.mutate(t)
	}
}

// mutate records that the container x evaluates to is changed in place.
func (w *factsWalker) mutate(x syntax.Expr) {
	if w.depth > 0 {
		w.f.uncertain = true
		return
	}
	for {
		switch e := x.(type) {
		case *syntax.Subscript:
			x = e.X
			continue
		case *syntax.Attribute:
			x = e.X
			continue
		case *syntax.Name:
			w.bind(e.Id)
		default:
			// f().append(x): the container comes from a call.
			w.f.uncertain = true
		}
		return
	}
}

func (w *factsWalker) stmts(ss []syntax.Stmt) {
	for _, s := range ss {
		w.stmt(s)
	}
}

func (w *factsWalker) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.FunctionDef:
		w.exprs(s.Decorators)
		w.bind(s.Name.Id)
		w.depth++
		w.params(s.Params)
		w.expr(s.Returns)
		w.stmts(s.Body)
		w.depth--
	case *syntax.ClassDef:
		w.exprs(s.Decorators)
		w.exprs(s.Bases)
		for _, k := range s.Keywords {
			w.expr(k.Value)
		}
		w.bind(s.Name.Id)
		w.depth++
		w.stmts(s.Body)
		w.depth--
	case *syntax.ExprStmt:
		w.expr(s.X)
	case *syntax.Assign:
		w.expr(s.Value)
		for _, t := range s.Targets {
			w.target(t)
			w.targetExprs(t)
		}
	case *syntax.AugAssign:
		w.expr(s.Value)
		w.target(s.Target)
		w.targetExprs(s.Target)
	case *syntax.AnnAssign:
		w.expr(s.Value)
		w.expr(s.Annotation)
		w.target(s.Target)
		w.targetExprs(s.Target)
	case *syntax.Delete:
		for _, t := range s.Targets {
			w.target(t)
			w.targetExprs(t)
		}
	case *syntax.Return:
		w.expr(s.Value)
	case *syntax.If:
		w.expr(s.Test)
		w.stmts(s.Body)
		w.stmts(s.Else)
	case *syntax.For:
		w.expr(s.Iter)
		w.target(s.Target)
		w.targetExprs(s.Target)
		w.stmts(s.Body)
		w.stmts(s.Else)
	case *syntax.While:
		w.expr(s.Test)
		w.stmts(s.Body)
		w.stmts(s.Else)
	case *syntax.With:
		for _, it := range s.Items {
			w.expr(it.Context)
			if it.Vars != nil {
				w.target(it.Vars)
				w.targetExprs(it.Vars)
			}
		}
		w.stmts(s.Body)
	case *syntax.Try:
		w.stmts(s.Body)
		for _, h := range s.Handlers {
			w.expr(h.Type)
			if h.Name != nil {
				w.bind(h.Name.Id)
			}
			w.stmts(h.Body)
		}
		w.stmts(s.Else)
		w.stmts(s.Finally)
	case *syntax.Raise:
		w.f.control = w.f.control || w.depth == 0
		w.expr(s.Exc)
		w.expr(s.Cause)
	case *syntax.Assert:
		w.f.control = w.f.control || w.depth == 0
		w.expr(s.Test)
		w.expr(s.Msg)
	case *syntax.Import:
		for _, a := range s.Names {
			if a.AsName != nil {
				w.bind(a.AsName.Id)
			} else {
				name, _, _ := bytes.Cut([]byte(a.Name), []byte("."))
				w.bind(string(name))
			}
		}
	case *syntax.ImportFrom:
		for _, a := range s.Names {
			switch {
			case a.Name == "*":
				w.f.uncertain = true
			case a.AsName != nil:
				w.bind(a.AsName.Id)
			default:
				w.bind(a.Name)
			}
		}
	case *syntax.Global, *syntax.Nonlocal:
		w.f.uncertain = true
	case *syntax.TypeAlias:
		w.bind(s.Name.Id)
		w.expr(s.Value)
	case *syntax.Match:
		// Not evaluated (see dsl/eval); its names count as bound anyway.
		syntax.Inspect(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Name:
				w.bind(n.Id)
			case *syntax.MatchAs:
				if n.Name != nil {
					w.bind(n.Name.Id)
				}
			case *syntax.MatchStar:
				if n.Name != nil {
					w.bind(n.Name.Id)
				}
			case *syntax.MatchMapping:
				if n.Rest != nil {
					w.bind(n.Rest.Id)
				}
			}
			return true
		})
	}
}

// targetExprs visits the expressions inside a target (indexes, receivers).
func (w *factsWalker) targetExprs(t syntax.Expr) {
	switch t := t.(type) {
	case *syntax.Subscript:
		w.expr(t.X)
		w.expr(t.Index)
	case *syntax.Attribute:
		w.expr(t.X)
	case *syntax.Tuple:
		for _, e := range t.Elts {
			w.targetExprs(e)
		}
	case *syntax.List:
		for _, e := range t.Elts {
			w.targetExprs(e)
		}
	case *syntax.Starred:
		w.targetExprs(t.X)
	}
}

func (w *factsWalker) params(ps *syntax.Params) {
	if ps == nil {
		return
	}
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly, {ps.Vararg, ps.Kwarg}} {
		for _, p := range list {
			if p != nil {
				w.expr(p.Default)
				w.expr(p.Annotation)
			}
		}
	}
}

func (w *factsWalker) exprs(xs []syntax.Expr) {
	for _, x := range xs {
		w.expr(x)
	}
}

// expr visits an expression for walrus targets, lambdas, comprehension
// targets (bound too, which is only more) and the calls and attributes
// that make the statement uncertain.
func (w *factsWalker) expr(x syntax.Expr) {
	if x == nil {
		return
	}
	syntax.Inspect(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.NamedExpr:
			w.bind(n.Target.Id)
		case *syntax.Comprehension:
			w.target(n.Target)
		case *syntax.Lambda:
			w.depth++
			w.params(n.Params)
			w.expr(n.Body)
			w.depth--
			return false
		case *syntax.Call:
			switch f := n.Func.(type) {
			case *syntax.Name:
				if dynamic[f.Id] {
					w.f.uncertain = true
				}
			case *syntax.Attribute:
				if mutators[f.Attr.Id] {
					if _, ok := f.X.(*syntax.Attribute); !ok {
						// Tx.cta.add(...) is a module's function; L.add(x),
						// L[0].add(x) or f().add(x) may change a container.
						w.mutate(f.X)
					}
				}
			}
		case *syntax.Attribute:
			switch n.Attr.Id {
			case "__dict__", "__globals__", "__builtins__", "__code__", "__closure__", "__defaults__", "__kwdefaults__":
				w.f.uncertain = true
			}
		}
		return true
	})
}

// wordIn reports whether text has the identifier-like word w (as eachIdent
// splits words), found with bytes.Index.
func wordIn(text []byte, w string) bool {
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte(w))
		if i < 0 {
			return false
		}
		i += off
		j := i + len(w)
		if (i == 0 || !identByte(text[i-1])) && (j == len(text) || !identByte(text[j])) {
			return true
		}
		off = i + 1
	}
}

func identByte(c byte) bool { return identStart(c) || c >= '0' && c <= '9' }

// wordsAt returns the positions in text of the identifier-like word w.
func wordsAt(text []byte, w string, f func(int)) {
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte(w))
		if i < 0 {
			return
		}
		i += off
		j := i + len(w)
		if (i == 0 || !identByte(text[i-1])) && (j == len(text) || !identByte(text[j])) {
			f(i)
		}
		off = i + 1
	}
}

// moduleKernels adds to A the kernels the module-level code is analysed
// with: those it names (a stub would leave the name undefined), those
// whose directive block binds a module-level def below them, those below
// module-level code that mentions `tilels` (their directives are there),
// the one below the edited region when its directive lines may have
// changed, and,
// with changed, the kernels that may read a name the edit changed. It
// returns false when the whole file must be analysed.
func (u *incr) moduleKernels(A map[int]bool, changed map[string]bool) bool {
	prev, segs, cur := u.prev, u.segs, u.f.Src
	region := cur[u.r.Start:u.r.End]
	tilels := mentionsTilels(region)
	if ro := u.ro; ro != nil {
		tilels = tilels || mentionsTilels(prev.File.Src[ro.Start:ro.End])
	}
	for i, sg := range segs {
		if !sg.kernel() {
			continue
		}
		vs := u.oldViews(i)
		if len(vs) == 0 {
			return false
		}
		name := vs[0].Kernel.Name
		if _, ok := prev.idx.ctxFirst[name]; ok || wordIn(region, name) {
			A[i] = true
		}
		if sg.directive && i+1 < len(segs) && !segs[i+1].kernel() {
			A[i] = true
		}
		// Directive lines above it in module-level code: what evaluating
		// them reports lies there (and is module-level).
		if i > 0 && !segs[i-1].kernel() && mentionsTilels(cur[segs[i-1].span.Start:segs[i-1].span.End]) {
			A[i] = true
		}
		if i == u.j0+u.rs && tilels {
			A[i] = true
		}
		// A syntax error where the kernel starts or ends may have been
		// reported by the statement before it (a def without a body,
		// say): only the real text reports it at the same place.
		if u.errAt(sg.span.Start) || u.errAt(sg.span.End) {
			A[i] = true
		}
	}
	// A kernel that calls a function whose calls make module-level
	// records or change which functions run as entry points.
	u.kernelsMentioning(A, u.effectful())
	// A kernel whose evaluation makes module-level records (a def nested
	// in it by an unexpected indent).
	for _, views := range [][]*KernelView{prev.Kernels, prev.Partial} {
		for _, v := range views {
			if v.TopLevel {
				continue
			}
			if k := segAt(segs, u.e.pos(v.Seg.Start)); k >= 0 && segs[k].kernel() {
				A[k] = true
			}
		}
	}
	if changed == nil {
		return true
	}

	// The module-level statements, parsed from the module-level text
	// with every kernel a stub (the structure checks of reanalyse hold).
	var buf []byte
	for _, sg := range segs {
		if sg.kernel() {
			buf = append(buf, cutStub...)
		} else {
			buf = append(buf, cur[sg.span.Start:sg.span.End]...)
		}
	}
	mod, _ := syntax.Parse(source.NewFile(u.f.Name, buf))
	type stmt struct {
		facts stmtFacts
		text  []byte
	}
	var stmts []stmt
	var body []syntax.Stmt
	for _, st := range mod.Body {
		if fd, ok := st.(*syntax.FunctionDef); ok && fd.Name != nil && fd.Name.Id == "__tilels_cut__" {
			continue
		}
		sp := st.Span()
		stmts = append(stmts, stmt{facts: factsOf(st), text: buf[sp.Start:sp.End]})
		body = append(body, st)
	}
	u.newEffectful = effectfulNames(body)
	u.kernelsMentioning(A, u.newEffectful)
	// The closure: a statement that mentions a changed name changes what
	// it binds.
	D := make(map[string]bool, len(changed))
	for n := range changed {
		D[n] = true
	}
	done := make([]bool, len(stmts))
	for grew := true; grew; {
		grew = false
		for k, st := range stmts {
			if done[k] {
				continue
			}
			hit := false
			eachIdent(st.text, func(w []byte) { hit = hit || D[string(w)] })
			if !hit {
				continue
			}
			done[k] = true
			if st.facts.uncertain || st.facts.control {
				return false
			}
			for _, b := range st.facts.binds {
				if !D[b] {
					D[b] = true
					grew = true
				}
			}
		}
	}
	for n := range D {
		if prev.idx.names[n] > 0 {
			return false // a kernel's name bound again
		}
		for _, text := range u.s.opts.Bind {
			if wordIn([]byte(text), n) {
				return false
			}
		}
	}
	// The kernels whose text, or directive block above, has the word.
	u.kernelsMentioning(A, D)
	return true
}

// kernelsMentioning adds to A the kernel segments whose text, or the
// directive block above them, has a word of names: each name is looked
// for in the whole text with bytes.Index, which for a few names is faster
// than splitting every kernel into words (30,000 lines: 0.3 ms against
// 4 ms for eachIdent over the kernels).
func (u *incr) kernelsMentioning(A map[int]bool, names map[string]bool) {
	segs, cur := u.segs, u.f.Src
	for n := range names {
		wordsAt(cur, n, func(x int) {
			k := segAt(segs, source.Pos(x))
			if k < 0 {
				return
			}
			if segs[k].kernel() {
				A[k] = true
			}
			if k+1 < len(segs) && segs[k+1].kernel() {
				if t := directiveTail(cur, segs[k]); t >= 0 && source.Pos(x) >= t {
					A[k+1] = true
				}
			}
		})
	}
}

// moduleIndex is the index of a snapshot whose module-level code changed
// but whose kernels did not: the kernel names and their independence are
// the previous ones.
func moduleIndex(prev *sessionIndex, snap *Snapshot, src []byte, effectful map[string]bool) *sessionIndex {
	if effectful == nil {
		effectful = prev.effectful
	}
	idx := &sessionIndex{names: prev.names, ok: prev.ok, effectful: effectful, ctxFirst: map[string]int{}, minKernelRef: len(snap.segs)}
	for i, seg := range snap.segs {
		if seg.kernel() {
			continue
		}
		eachIdent(src[seg.span.Start:seg.span.End], func(id []byte) {
			if _, ok := idx.ctxFirst[string(id)]; !ok {
				idx.ctxFirst[string(id)] = i
				if idx.names[string(id)] > 0 && i < idx.minKernelRef {
					idx.minKernelRef = i
				}
			}
		})
	}
	for _, seg := range snap.segs {
		idx.uncertain = idx.uncertain || seg.uncertain
	}
	return idx
}

// effectfulNames returns the module-level names whose call from a kernel
// changes module-level results (a kernel left out of a reduced file must
// not call them): the functions that contain kernel defs (a call makes a
// record of a factory kernel), those without required parameters (the
// evaluator runs a function nothing called as an entry point), and the
// names bound by module-level statements that mention those.
func effectfulNames(stmts []syntax.Stmt) map[string]bool {
	E := map[string]bool{}
	for _, st := range stmts {
		fd, ok := st.(*syntax.FunctionDef)
		if !ok || fd.Name == nil || kernelDecorated(fd) {
			continue
		}
		if requiredParams(fd.Params) == 0 || hasKernelDef(fd) {
			E[fd.Name.Id] = true
		}
	}
	facts := make([]stmtFacts, len(stmts))
	for i, st := range stmts {
		facts[i] = factsOf(st)
	}
	for grew := true; grew; {
		grew = false
		for i, st := range stmts {
			hit := false
			syntax.Inspect(st, func(n syntax.Node) bool {
				if nm, ok := n.(*syntax.Name); ok && E[nm.Id] {
					hit = true
				}
				return !hit
			})
			if !hit {
				continue
			}
			for _, b := range facts[i].binds {
				if !E[b] {
					E[b] = true
					grew = true
				}
			}
		}
	}
	return E
}

// requiredParams counts the parameters without default (as dsl/eval).
func requiredParams(ps *syntax.Params) int {
	n := 0
	if ps == nil {
		return 0
	}
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if p.Default == nil {
				n++
			}
		}
	}
	return n
}

// hasKernelDef reports whether a kernel def is nested in fd.
func hasKernelDef(fd *syntax.FunctionDef) bool {
	found := false
	for _, st := range fd.Body {
		syntax.Inspect(st, func(n syntax.Node) bool {
			if d, ok := n.(*syntax.FunctionDef); ok && kernelDecorated(d) {
				found = true
			}
			return !found
		})
	}
	return found
}

// effectful returns the previous snapshot's effectful names, or the new
// ones once the module-level code was parsed.
func (u *incr) effectful() map[string]bool {
	if u.newEffectful != nil {
		return u.newEffectful
	}
	return u.prev.idx.effectful
}

// errAt reports whether the new file has a seam at p with an error there.
func (u *incr) errAt(p source.Pos) bool {
	i := sort.Search(len(u.seams), func(i int) bool { return u.seams[i].Pos >= p })
	return i < len(u.seams) && u.seams[i].Pos == p && u.seams[i].ErrAtPos
}
