package lower

import (
	"sort"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Every tile call written in a file ends in exactly one outcome (issue
// "never drop a call silently"): a variant in some case, the reference's
// own rejection, "needs X" (a parameter no binding source gives), "not
// modelled: <construct>" (what tilels lacks), or, for a call inside a
// kernel that was evaluated whole, "not reached" (a branch, loop or helper
// no analysed case runs). Result.Sites computes it from the records and
// diagnostics Analyze already made; Analyze reports the last two kinds,
// which nothing else shows at the call, as diagnostics (CodeNotAnalysed,
// CodeNotReached).

// Codes of the diagnostics at tile calls that no kernel record holds.
const (
	// CodeNotAnalysed (information): the evaluation of the call's kernel
	// stopped at, or skipped, a construct tilels does not model, so the
	// call was never built.
	CodeNotAnalysed = "lower/not-analysed"
	// CodeNotReached (hint): the call's kernel was evaluated without an
	// error, but no analysed case runs the call.
	CodeNotReached = "lower/not-reached"
)

// SiteKind is the outcome of one syntactic tile-call site.
type SiteKind int

const (
	// SiteVariant: some kernel record chose a variant tilels lowers.
	SiteVariant SiteKind = iota
	// SiteRejected: the reference's own rejection (every variant declined
	// for a reason of the reference, or no variant is registered for the
	// op or for the dispatch= name).
	SiteRejected
	// SiteNeeds: the call needs a parameter no binding source gives.
	SiteNeeds
	// SiteNotModelled: tilels lacks what the call needs (a library model,
	// a variant it does not lower yet, another target).
	SiteNotModelled
	// SiteBlocked: an error in the program (a syntax error, an undefined
	// name, a bad argument: what the reference would reject too) stopped
	// the evaluation of the call's kernel before the call was built.
	SiteBlocked
	// SiteNotReached: the call's kernel was evaluated, but no analysed
	// case runs the call.
	SiteNotReached
)

var siteKindNames = [...]string{"variant", "rejected", "needs", "not modelled", "blocked", "not reached"}

func (k SiteKind) String() string { return siteKindNames[k] }

// Site is one syntactic tile call of a file (Tx.op(...),
// Tx.<scope>.op(...), getattr(Tx, s).op(...), under any name the file binds
// the tile module to) inside a function decorated prim_func, jit, inline or
// macro, and its outcome.
type Site struct {
	Span   source.Span // the whole call
	OpSpan source.Span // its callee
	Op     string      // the tile primitive, e.g. "copy"
	Kind   SiteKind
	// Message says why, for every kind but SiteVariant: the rejection,
	// "needs M, N", "not modelled: ...", "not analysed: ...", "not
	// reached: ...".
	Message string
	// Cause is, for a call no record holds, the diagnostic that explains
	// it (zero when none does).
	Cause diag.Diagnostic
	// Variant is the variant of a SiteVariant (the first record's).
	Variant string
	// held: a record holds the call (a decision or an unresolved call).
	held bool
}

// tileOps are the tile primitives of tvm.script.tirx.tile.
var tileOps = map[string]bool{}

func init() {
	for _, op := range strings.Fields(`add binary_chain binary_reduce cast copy copy_async exp exp2 log2
		fdiv fill fma gemm gemm_async max maximum memset min minimum mul permute_layout reciprocal
		reduce_negate select silu sqrt sub sum unary_reduce zero`) {
		tileOps[op] = true
	}
}

var siteScopes = map[string]bool{"cluster": true, "cta": true, "wg": true, "warpgroup": true, "warp": true, "thread": true}

// tileSites returns the syntactic tile calls of f in source order: calls
// X.op(...), X.<scope>.op(...) and getattr(X, s).op(...) of a tile
// primitive op inside a def decorated prim_func, jit, inline or macro,
// where X is a name bound to the tile module (Tx by default, or an import
// of tvm.script.tirx.tile). A name bound to tvm.script.tirx itself in a
// file of the current dialect counts only in its scoped form
// (`T.wg.copy_async(...)`): `T.cast(x, "uint32")` is the scalar cast. In
// the older dialect (a def decorated `...(tirx=True)`) the tile
// primitives are attributes of tvm.script.tirx, so it counts whole. One
// walk of the tree: it runs on every analysis.
func tileSites(f *syntax.File) []*syntax.Call {
	var cands []*syntax.Call
	type binding struct{ name, path string }
	var binds []binding
	old := false
	var visit func(n syntax.Node, inKernel bool) bool
	visit = func(n syntax.Node, inKernel bool) bool {
		if _, isExpr := n.(syntax.Expr); isExpr {
			// Tile primitives return nothing: their calls are
			// statements (TestEverySiteShown checks, over the corpus,
			// that this finds every call the coverage metric counts
			// anywhere in an expression). Not descending into
			// expressions keeps the walk cheap on every analysis.
			return false
		}
		switch x := n.(type) {
		case *syntax.ExprStmt:
			if c, ok := x.X.(*syntax.Call); ok && inKernel {
				if a, ok := c.Func.(*syntax.Attribute); ok && tileOps[a.Attr.Id] {
					cands = append(cands, c)
				}
			}
			return false
		case *syntax.Import:
			for _, a := range x.Names {
				if a.AsName != nil {
					binds = append(binds, binding{a.AsName.Id, a.Name})
				}
			}
		case *syntax.ImportFrom:
			for _, a := range x.Names {
				name := a.Name
				if a.AsName != nil {
					name = a.AsName.Id
				}
				binds = append(binds, binding{name, x.Module + "." + a.Name})
			}
		case *syntax.FunctionDef:
			for _, d := range x.Decorators {
				if c, ok := d.(*syntax.Call); ok {
					for _, k := range c.Keywords {
						if v, ok := k.Value.(*syntax.Constant); ok && k.Name != nil && k.Name.Id == "tirx" && v.Value == "True" {
							old = true
						}
					}
				}
			}
			if !inKernel && kernelLike(x) {
				for _, st := range x.Body {
					syntax.Inspect(st, func(n syntax.Node) bool { return visit(n, true) })
				}
				return false
			}
		}
		return true
	}
	syntax.Inspect(f, func(n syntax.Node) bool { return visit(n, false) })
	if len(cands) == 0 {
		return nil
	}
	alias := map[string]bool{"Tx": true}
	scoped := map[string]bool{}
	for _, b := range binds {
		switch b.path {
		case "tvm.script.tirx.tile", "tvm.tirx.script.tile":
			alias[b.name] = true
			delete(scoped, b.name)
		case "tvm.script.tirx", "tvm.tirx.script":
			if !old {
				delete(alias, b.name)
				scoped[b.name] = true
			}
		}
	}
	isTx := func(x syntax.Expr) bool {
		n, ok := x.(*syntax.Name)
		return ok && alias[n.Id]
	}
	var out []*syntax.Call
	seen := map[*syntax.Call]bool{}
	for _, c := range cands {
		a := c.Func.(*syntax.Attribute)
		ok := false
		switch x := a.X.(type) {
		case *syntax.Name:
			ok = alias[x.Id]
		case *syntax.Attribute:
			n, isName := x.X.(*syntax.Name)
			ok = isName && (alias[n.Id] || scoped[n.Id]) && siteScopes[x.Attr.Id]
		case *syntax.Call:
			n, isName := x.Func.(*syntax.Name)
			ok = isName && n.Id == "getattr" && len(x.Args) > 0 && isTx(x.Args[0])
		}
		if ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Loc.Start < out[j].Loc.Start })
	return out
}

// kernelLike reports whether fd is decorated prim_func, jit, inline or
// macro (under any module name).
func kernelLike(fd *syntax.FunctionDef) bool {
	for _, d := range fd.Decorators {
		if c, ok := d.(*syntax.Call); ok {
			d = c.Func
		}
		name := ""
		switch x := d.(type) {
		case *syntax.Attribute:
			name = x.Attr.Id
		case *syntax.Name:
			name = x.Id
		}
		switch name {
		case "prim_func", "jit", "inline", "macro":
			return true
		}
	}
	return false
}

// siteOutcome classifies one decision record: its kind and message.
func siteOutcome(d *dispatch.Decision) (SiteKind, string) {
	for _, r := range d.Declined {
		if r.Outcome == dispatch.Declined && strings.Contains(r.Reason, "does not lower") || strings.Contains(r.Reason, "tilels ") {
			return SiteNotModelled, "not modelled: " + r.Variant + ": " + r.Reason
		}
	}
	if d.Variant != "" {
		return SiteVariant, ""
	}
	if e := d.Explanation; e != nil && e.Error != "" {
		return SiteRejected, e.Error
	}
	var parts []string
	for _, r := range d.Declined {
		parts = append(parts, r.Variant+": "+r.Reason)
	}
	if len(parts) == 0 {
		return SiteRejected, "no variant applied"
	}
	return SiteRejected, strings.Join(parts, " | ")
}

// Sites returns every tile-call site of the file with its outcome, in
// source order. A site's outcome is the best over the records that reach
// it (variant, then rejection, then not modelled).
func (r *Result) Sites() []Site {
	if r.Syntax == nil {
		return nil
	}
	type best struct {
		kind    SiteKind
		msg     string
		variant string
	}
	decided := map[source.Pos]best{}
	for _, k := range r.Kernels {
		for _, d := range k.Calls {
			p := d.Call.Span.Start
			kind, msg := siteOutcome(d)
			if b, ok := decided[p]; !ok || kind < b.kind {
				decided[p] = best{kind, msg, d.Variant}
			}
		}
	}
	pending := map[source.Pos]best{}
	for _, k := range r.Partial {
		for _, u := range k.Unresolved {
			if _, ok := pending[u.Span.Start]; ok {
				continue
			}
			if u.NotModelled != "" {
				pending[u.Span.Start] = best{kind: SiteNotModelled, msg: notModelledText(u.NotModelled)}
			} else {
				pending[u.Span.Start] = best{kind: SiteNeeds, msg: "needs " + strings.Join(u.Needs, ", ")}
			}
		}
	}
	var out []Site
	for _, c := range tileSites(r.Syntax) {
		s := Site{Span: c.Loc, OpSpan: c.Func.Span(), Op: c.Func.(*syntax.Attribute).Attr.Id}
		if b, ok := decided[c.Loc.Start]; ok {
			s.Kind, s.Message, s.Variant, s.held = b.kind, b.msg, b.variant, true
		} else if b, ok := pending[c.Loc.Start]; ok {
			s.Kind, s.Message, s.held = b.kind, b.msg, true
		} else if k := r.foreignAround(c.Loc); k != nil {
			// A call of another target's kernel that its record does
			// not list (a second def of the same name, a call the
			// evaluator folded away).
			s.Kind, s.Message = SiteNotModelled, notModelledText(NotCUDA(k.Foreign))
		} else {
			s.Kind, s.Message, s.Cause = r.unbuilt(c.Loc)
		}
		out = append(out, s)
	}
	return out
}

func notModelledText(s string) string {
	if strings.HasPrefix(s, "not modelled") {
		return s
	}
	return "not modelled: " + s
}

// unbuilt explains a call no record holds. A diagnostic inside the call
// (an argument tilels could not evaluate) says it; else the first error
// or warning of the innermost enclosing def that has one (the evaluation
// stopped at, or skipped, what it names); else the call is in a kernel
// evaluated without an error but in a branch, loop or helper no case
// runs.
func (r *Result) unbuilt(call source.Span) (SiteKind, string, diag.Diagnostic) {
	all := r.allDiags()
	inRange := func(lo, hi source.Pos, keep func(diag.Diagnostic) bool) *diag.Diagnostic {
		for i := range all {
			d := &all[i]
			if d.Span.Start >= lo && d.Span.Start < hi && keep(*d) {
				return d
			}
		}
		return nil
	}
	mine := func(d diag.Diagnostic) bool {
		return d.Code != CodeNotAnalysed && d.Code != CodeNotReached && d.Severity != diag.Hint
	}
	if d := inRange(call.Start, call.End, mine); d != nil {
		if limitation(*d) {
			return SiteNotModelled, notModelledText(d.Message), *d
		}
		return SiteBlocked, "not analysed: " + d.Message, *d
	}
	defs := enclosingDefs(r.Syntax, call)
	// Only the evaluator's and the parser's findings stop or skip
	// statements (a dispatch error at another call does not).
	serious := func(d diag.Diagnostic) bool {
		return mine(d) && (d.Severity == diag.Error || d.Severity == diag.Warning) &&
			(strings.HasPrefix(d.Code, "eval/") || strings.HasPrefix(d.Code, "syntax/"))
	}
	// The cause in a def: a finding whose span holds the call (a
	// statement ignored around it), else the nearest one before it,
	// unless the evaluation went on past the call (a later call of the
	// same def was built: then the call is in a branch no case took, and
	// the finding before it did not stop anything).
	past := len(defs) > 0 && r.builtAfter(call, defs[0].Loc)
	cause := func(lo, hi source.Pos) *diag.Diagnostic {
		var before *diag.Diagnostic
		for i := range all {
			d := &all[i]
			if d.Span.Start < lo || d.Span.Start >= hi || !serious(*d) {
				continue
			}
			switch {
			case d.Span.Start <= call.Start && call.End <= d.Span.End:
				return d
			case d.Span.Start < call.Start && !past:
				before = d
			}
		}
		return before
	}
	for _, fd := range defs {
		if d := cause(fd.Loc.Start, fd.Loc.End); d != nil {
			if limitation(*d) {
				return SiteNotModelled, "not modelled: the evaluation of this kernel did not build this call: " + d.Message, *d
			}
			return SiteBlocked, "not analysed: the evaluation of this kernel stopped before this call: " + d.Message, *d
		}
	}
	if len(defs) > 0 {
		// The records of the kernel around the call (a kernel def, or
		// one holding the helper def the call is in).
		for _, ks := range [][]*Kernel{r.Kernels, r.Partial} {
			for _, k := range ks {
				if k.Span.Start <= call.Start && call.End <= k.Span.End {
					return SiteNotReached, "not reached: no analysed case of " + k.Name + " runs this call (" + cases(caseCount(r, k.Name)) + "); it is in a branch or loop they do not take", diag.Diagnostic{}
				}
			}
		}
		return SiteNotReached, "not reached: no analysed kernel runs " + defs[0].Name.Id + " (nothing analysed calls it, or only code no case runs does)", diag.Diagnostic{}
	}
	return SiteNotReached, "not reached", diag.Diagnostic{}
}

func cases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return itoa(n) + " cases"
}

// limitation reports whether d is about something tilels does not model
// (rather than an error in the program).
func limitation(d diag.Diagnostic) bool {
	return strings.Contains(d.Message, "not modelled") || strings.Contains(d.Message, "tilels ")
}

func caseCount(r *Result, name string) int {
	n := 0
	for _, k := range r.Kernels {
		if k.Name == name {
			n++
		}
	}
	return n
}

// allDiags is the file's diagnostics with the records' own (a def with
// several cases keeps some of its diagnostics on its records only), in
// position order.
func (r *Result) allDiags() []diag.Diagnostic {
	all := append([]diag.Diagnostic(nil), r.Diags...)
	for _, ks := range [][]*Kernel{r.Kernels, r.Partial} {
		for _, k := range ks {
			all = append(all, k.Diags...)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Span.Start < all[j].Span.Start })
	return all
}

// enclosingDefs returns the defs around span, innermost first.
func enclosingDefs(f *syntax.File, span source.Span) []*syntax.FunctionDef {
	var defs []*syntax.FunctionDef
	syntax.Inspect(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FunctionDef); ok && fd.Loc.Start <= span.Start && span.End <= fd.Loc.End {
			defs = append(defs, fd)
		}
		return true
	})
	sort.Slice(defs, func(i, j int) bool { return defs[i].Loc.End-defs[i].Loc.Start < defs[j].Loc.End-defs[j].Loc.Start })
	return defs
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// siteDiags are the diagnostics of the sites no record holds and no
// diagnostic inside the call explains: lower/not-analysed (information)
// and lower/not-reached (hint), at the callee.
func (r *Result) siteDiags() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, s := range r.Sites() {
		if s.held || s.Kind == SiteVariant || s.Kind == SiteRejected || s.Kind == SiteNeeds || r.Shown(s) {
			continue
		}
		d := diag.Infof(s.OpSpan, CodeNotAnalysed, "%s", s.Message)
		if s.Kind == SiteNotReached {
			d = diag.Diagnostic{Span: s.OpSpan, Severity: diag.Hint, Code: CodeNotReached, Message: s.Message}
		}
		if s.Cause.Code != "" {
			d.Related = []diag.Related{{Span: s.Cause.Span, Message: s.Cause.Code + ": " + s.Cause.Message}}
		}
		out = append(out, d)
	}
	return out
}

// holds reports whether a record (a decision or an unresolved call) is at
// span: its outcome is shown there already.
func (r *Result) holds(span source.Span) bool {
	for _, k := range r.Kernels {
		for _, d := range k.Calls {
			if d.Call.Span.Start == span.Start {
				return true
			}
		}
	}
	for _, k := range r.Partial {
		for _, u := range k.Unresolved {
			if u.Span.Start == span.Start {
				return true
			}
		}
	}
	return false
}

// addSiteDiags adds siteDiags to r.Diags and to the records whose span
// holds them, keeping both sorted.
func (r *Result) addSiteDiags() {
	add := r.siteDiags()
	if len(add) == 0 {
		return
	}
	r.Diags = append(r.Diags, add...)
	diag.Sort(r.Diags)
	for _, ks := range [][]*Kernel{r.Kernels, r.Partial} {
		for _, k := range ks {
			n := len(k.Diags)
			for _, d := range add {
				if d.Span.Start >= k.Span.Start && d.Span.Start < k.Span.End {
					k.Diags = append(k.Diags, d)
				}
			}
			if len(k.Diags) > n {
				diag.Sort(k.Diags)
			}
		}
	}
}

// Shown reports whether s's outcome is shown at the call: a record holds
// it (a decision, or an unresolved call shown in place), or a diagnostic
// lies inside the call.
func (r *Result) Shown(s Site) bool {
	if s.held || r.holds(s.Span) {
		return true
	}
	for _, d := range r.Diags {
		if d.Span.Start >= s.Span.Start && d.Span.Start < s.Span.End {
			return true
		}
	}
	return false
}

// foreignAround returns the record of another target's kernel whose span
// holds span, or nil.
func (r *Result) foreignAround(span source.Span) *Kernel {
	for _, k := range r.Partial {
		if k.Foreign != "" && k.Span.Start <= span.Start && span.End <= k.Span.End {
			return k
		}
	}
	return nil
}

// builtAfter reports whether a record holds a call of def that starts
// after call: the evaluation of def went on past call.
func (r *Result) builtAfter(call, def source.Span) bool {
	in := func(p source.Pos) bool { return p >= call.End && p < def.End }
	for _, k := range r.Kernels {
		for _, d := range k.Calls {
			if in(d.Call.Span.Start) {
				return true
			}
		}
	}
	for _, k := range r.Partial {
		for _, u := range k.Unresolved {
			if in(u.Span.Start) {
				return true
			}
		}
	}
	return false
}
