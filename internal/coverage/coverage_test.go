// Package coverage measures how much of a directory of real TIRx programs
// the pipeline dispatches, with a strict metric: the share of Tx tile-call
// sites inside kernel bodies for which, in at least one kernel record (any
// bound case), the dispatcher chose a variant that tilels lowers, or every
// variant tilels models declined for a real reason. A call that only got
// "no registered variants for this op/target", or a decline saying tilels
// "does not lower" it yet, is not dispatched (column "no variant
// modelled"). It is a test so that it needs no place in the import policy
// and runs with the packages it measures:
//
//	go test ./internal/coverage -run TestCoverage -v -dir /path/to/corpus -details [-report FILE]
//
// -dir is walked recursively for .py files (scripts/coverage-corpus builds
// the corpus of docs/coverage.md). Without -dir it measures the bundled
// examples (testdata/examples), which must all be dispatched. The code
// reads only what both the current tree and older revisions provide, so
// the same file can be copied into an old worktree to measure it (see
// docs/coverage.md).
package coverage

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
)

var (
	dir     = flag.String("dir", "", "directory of .py files to measure, walked recursively (default: the bundled examples)")
	details = flag.Bool("details", false, "list every site that is not dispatched, with its reason, and the grouped reasons")
	bind    = flag.String("bind", "", "bind settings, lower.Options.Bind in the form name:text[;name:text...]")
	report  = flag.String("report", "", "also write the tables (and with -details the reasons) as Markdown to this file")
)

// Outcome is what the pipeline produced for one Tx call site.
type Outcome int

const (
	// Variant: some kernel record chose a variant that tilels lowers (no
	// variant the reference would have preferred declined with "does not
	// lower").
	Variant Outcome = iota
	// Declined: the dispatcher ran on the site and every variant tilels
	// models was rejected or declined for a real reason.
	Declined
	// NoVariant: the only outcomes were "no registered variants for this
	// op/target", "no variant named 'X' is registered" (a dispatch= name
	// tilels does not have) or a decline saying tilels does not lower the
	// call yet.
	NoVariant
	// NotCUDA: the site is in a kernel written for another target
	// (Trainium), which the CUDA dispatcher does not model.
	NotCUDA
	// Unresolved: the site needs a value that no binding source gave
	// (the call shows "unresolved: needs X").
	Unresolved
	// Missing: no kernel record holds a decision for the site.
	Missing
	nOutcomes
)

var outcomeNames = [nOutcomes]string{"variant", "declined", "no variant modelled", "not CUDA", "unresolved", "missing"}

func (o Outcome) String() string { return outcomeNames[o] }

// Dispatched reports whether o counts as dispatched.
func (o Outcome) Dispatched() bool { return o == Variant || o == Declined }

// Site is one syntactic Tx call inside a kernel body or a @T.inline helper.
type Site struct {
	Span    source.Span
	Line    int
	Text    string // the callee, e.g. "Tx.warp.copy"
	Op      string // the tile primitive, e.g. "copy"
	Outcome Outcome
	// Reason says why the site is not a variant: the decline, the missing
	// variant, the parameters it needs, or the first diagnostic about it.
	Reason string
}

// FileResult is the measurement of one file.
type FileResult struct {
	Name    string
	Sites   []Site
	Kernels int // kernel records (cases included)
}

// Count returns the number of sites with outcome o.
func (r *FileResult) Count(o Outcome) int {
	n := 0
	for _, s := range r.Sites {
		if s.Outcome == o {
			n++
		}
	}
	return n
}

const (
	noVariants = "no registered variants for this op/target"
	notLowered = "does not lower"
	// tilelsLimit marks a decline that is tilels' own limitation (a
	// predicate tilels cannot evaluate, "tilels slices layouts at constant
	// offsets only"), not the reference's: the reference might take the
	// variant, so the call is not decided.
	tilelsLimit = "tilels "
)

// classify is the strict outcome of one decision record.
func classify(d *dispatch.Decision) (Outcome, string) {
	for _, r := range d.Declined {
		if r.Outcome == dispatch.Declined && strings.Contains(r.Reason, notLowered) || strings.Contains(r.Reason, tilelsLimit) {
			// The reference would lower the call with this variant
			// (its predicates passed): tilels does not.
			return NoVariant, r.Variant + ": " + r.Reason
		}
	}
	if d.Variant != "" {
		return Variant, ""
	}
	if e := d.Explanation; e != nil && e.Error != "" {
		if e.Error == noVariants {
			return NoVariant, noVariants + " (" + e.Op + ")"
		}
		if strings.HasPrefix(e.Error, "no variant named") {
			// dispatch= names a variant the chosen release does not
			// register. When another release registers it (dispatch="reg"
			// under 0.27), this is that wheel's own answer: each
			// release's registry is its wheel's (TestRegistryMatchesWheels).
			// Otherwise it is one the file registers itself
			// (@register_dispatch), which tilels does not model.
			if otherRelease(e.Op, e.Forced) {
				return Declined, e.Error
			}
			return NoVariant, e.Error
		}
		return Declined, e.Error
	}
	var parts []string
	for _, r := range d.Declined {
		parts = append(parts, r.Variant+": "+r.Reason)
	}
	if len(parts) == 0 {
		return Declined, "no variant applied"
	}
	return Declined, strings.Join(parts, " | ")
}

// foreign reports whether k is the record of a kernel written for another
// target than CUDA: the record says so (field Foreign, in trees that have
// it), or a buffer of the kernel is in a trn.* scope or laid out over
// Trainium's partition/free axes P and F.
func foreign(k *lower.Kernel) bool {
	if f := reflect.ValueOf(k).Elem().FieldByName("Foreign"); f.IsValid() && f.Kind() == reflect.String && f.String() != "" {
		return true
	}
	if f := reflect.ValueOf(k).Elem().FieldByName("Target"); f.IsValid() && f.Kind() == reflect.String && f.String() == "trn" {
		// A Trainium kernel that the Trainium variants dispatched: its
		// calls are classified like any other (docs/coverage.md).
		return false
	}
	if k.Func == nil {
		return false
	}
	found := false
	check := func(b *ir.Buffer) {
		if b == nil || found {
			return
		}
		if strings.HasPrefix(b.Scope, "trn.") {
			found = true
			return
		}
		if b.Layout == nil {
			return
		}
		if t := layout.ToTile(b.Layout); t != nil {
			for _, its := range [][]layout.Iter{t.Shard, t.Replica} {
				for _, it := range its {
					if it.Axis == layout.P || it.Axis == layout.F {
						found = true
					}
				}
			}
		}
	}
	for _, p := range k.Func.Params {
		check(p.Buf)
	}
	for _, b := range []*ir.Block{k.Func.Host, k.Func.Body} {
		if b == nil {
			continue
		}
		ir.WalkStmts(b, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Alloc:
				check(s.Buf)
			case *ir.Decl:
				check(s.Buf)
			}
		})
	}
	return found
}

// notModelled is UnresolvedCall.NotModelled in trees that have it.
func notModelled(u *lower.UnresolvedCall) string {
	if f := reflect.ValueOf(u).Elem().FieldByName("NotModelled"); f.IsValid() && f.Kind() == reflect.String {
		return f.String()
	}
	return ""
}

// Measure analyses one file and classifies its Tx call sites. A site's
// outcome is the best over the records that reach it (variant, then
// declined, then no variant modelled); a site that only foreign kernels
// reach is not CUDA.
func Measure(name string, src []byte, opts lower.Options) *FileResult {
	f := source.NewFile(name, src)
	res := lower.Analyze(f, opts)
	out := &FileResult{Name: name, Kernels: len(res.Kernels)}
	type best struct {
		o   Outcome
		why string
	}
	decided := map[source.Pos]best{}
	foreignAt := map[source.Pos]bool{}
	var foreignSpans []source.Span
	for _, k := range res.Kernels {
		if foreign(k) {
			foreignSpans = append(foreignSpans, k.Span)
			for _, d := range k.Calls {
				foreignAt[d.Call.Span.Start] = true
			}
			continue
		}
		for _, d := range k.Calls {
			p := d.Call.Span.Start
			o, why := classify(d)
			if b, ok := decided[p]; !ok || o < b.o {
				decided[p] = best{o, why}
			}
		}
	}
	unresolved := map[source.Pos]string{}
	for _, k := range res.Partial {
		isForeign := reflect.ValueOf(k).Elem().FieldByName("Foreign")
		if isForeign.IsValid() && isForeign.String() != "" {
			foreignSpans = append(foreignSpans, k.Span)
		}
		for i := range k.Unresolved {
			u := &k.Unresolved[i]
			if strings.HasPrefix(notModelled(u), "not a CUDA kernel") {
				foreignAt[u.Span.Start] = true
				continue
			}
			if _, ok := unresolved[u.Span.Start]; !ok {
				why := "needs " + strings.Join(u.Needs, ", ")
				if nm := notModelled(u); nm != "" {
					why = nm
				}
				unresolved[u.Span.Start] = why
			}
		}
	}
	for _, s := range txSites(res.Syntax) {
		line, _ := f.Position(s.Loc.Start)
		site := Site{Span: s.Loc, Line: line, Text: f.Text(s.Func.Span()), Op: s.Func.(*syntax.Attribute).Attr.Id}
		if b, ok := decided[s.Loc.Start]; ok {
			site.Outcome, site.Reason = b.o, b.why
		} else if foreignAt[s.Loc.Start] || within(foreignSpans, s.Loc) {
			site.Outcome, site.Reason = NotCUDA, "not a CUDA kernel (Trainium)"
		} else if why, ok := unresolved[s.Loc.Start]; ok {
			site.Outcome, site.Reason = Unresolved, why
		} else {
			site.Outcome, site.Reason = Missing, reason(f, res, s.Loc)
		}
		out.Sites = append(out.Sites, site)
	}
	return out
}

func within(spans []source.Span, s source.Span) bool {
	for _, k := range spans {
		if s.Start >= k.Start && s.End <= k.End {
			return true
		}
	}
	return false
}

// reason names the first diagnostic inside the call; else, from the
// innermost def around the call outwards, the first error or warning
// inside that def (then the first information); else an evaluation budget
// the file ran out of; else the file's first error or warning; else a
// generic reason.
func reason(f *source.File, res *lower.Result, call source.Span) string {
	// The file's diagnostics and the records' own (a def with several
	// cases keeps some of its diagnostics on its records only).
	all := append([]diag.Diagnostic(nil), res.Diags...)
	for _, ks := range [][]*lower.Kernel{res.Kernels, res.Partial} {
		for _, k := range ks {
			all = append(all, k.Diags...)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Span.Start < all[j].Span.Start })
	first := func(lo, hi source.Pos, keep func(diag.Severity) bool) string {
		for _, d := range all {
			if keep(d.Severity) && d.Span.Start >= lo && d.Span.Start < hi {
				return d.Code + ": " + d.Message
			}
		}
		return ""
	}
	notHint := func(s diag.Severity) bool { return s != diag.Hint }
	errWarn := func(s diag.Severity) bool { return s == diag.Error || s == diag.Warning }
	if r := first(call.Start, call.End, notHint); r != "" {
		return r
	}
	for _, d := range all {
		if d.Code == "lower/not-reached" && d.Span.Start >= call.Start && d.Span.Start < call.End {
			// the hint that no analysed case runs the call
			return "no record reaches it (dead branch, or a def no case evaluates); " + d.Code + ": " + d.Message
		}
	}
	var defs []source.Span
	syntax.Inspect(res.Syntax, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FunctionDef); ok && fd.Loc.Start <= call.Start && call.End <= fd.Loc.End {
			defs = append(defs, fd.Loc)
		}
		return true
	})
	sort.Slice(defs, func(i, j int) bool { return defs[i].End-defs[i].Start < defs[j].End-defs[j].Start })
	for _, keep := range []func(diag.Severity) bool{errWarn, notHint} {
		for _, d := range defs {
			if r := first(d.Start, d.End, keep); r != "" {
				return "in its def: " + r
			}
		}
	}
	for _, d := range all {
		if (d.Code == "eval/case-cap" || d.Code == "eval/budget") && strings.Contains(d.Message, "stopped") {
			return "no record reaches it; the file ran out of budget: " + d.Code + ": " + d.Message
		}
	}
	if r := first(0, source.Pos(len(f.Src)), errWarn); r != "" {
		return "no record reaches it (dead branch, or a def no case evaluates); the file's first error: " + r
	}
	return "no kernel record holds a decision for it (no diagnostic)"
}

// txSites returns the calls Tx.op(...), Tx.<scope>.op(...) and
// getattr(Tx, ...).op(...) inside the bodies of functions decorated
// prim_func, jit, inline or macro (nested defs included), in source order.
// Tx is any name the file binds the tile module to. A name bound to
// tvm.script.tirx itself (`from tvm.script import tirx as Tx`) counts only
// in its scoped form (`Tx.wg.copy_async`): there `Tx.cast(x, "uint32")` is
// the scalar cast, not a tile call; except in the older dialect
// (`@T.prim_func(tirx=True)`), whose tile primitives are attributes of
// tvm.script.tirx. (Before 2026-11-25 the scalar casts of
// gemm_reduce_scatter.py counted as 4 sites.)
func txSites(file *syntax.File) []*syntax.Call {
	alias, scoped := aliases(file)
	var out []*syntax.Call
	seen := map[*syntax.Call]bool{}
	var inKernel func(n syntax.Node) bool
	inKernel = func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Call); ok && isTxCall(c, alias, scoped) && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
		return true
	}
	syntax.Inspect(file, func(n syntax.Node) bool {
		fd, ok := n.(*syntax.FunctionDef)
		if !ok || !kernelLike(fd) {
			return true
		}
		for _, s := range fd.Body {
			syntax.Inspect(s, inKernel)
		}
		return false
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Loc.Start < out[j].Loc.Start })
	return out
}

// aliases returns the names bound to the tile module (Tx by default) and
// those bound to tvm.script.tirx in a file of the current dialect.
func aliases(file *syntax.File) (names, scoped map[string]bool) {
	names = map[string]bool{"Tx": true}
	scoped = map[string]bool{}
	old := false
	syntax.Inspect(file, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FunctionDef); ok {
			for _, d := range fd.Decorators {
				if c, ok := d.(*syntax.Call); ok {
					for _, k := range c.Keywords {
						if v, ok := k.Value.(*syntax.Constant); ok && k.Name != nil && k.Name.Id == "tirx" && v.Value == "True" {
							old = true
						}
					}
				}
			}
		}
		return true
	})
	bind := func(name, path string) {
		switch path {
		case "tvm.script.tirx.tile", "tvm.tirx.script.tile":
			names[name] = true
			delete(scoped, name)
		case "tvm.script.tirx", "tvm.tirx.script":
			if !old {
				delete(names, name)
				scoped[name] = true
			}
		}
	}
	syntax.Inspect(file, func(n syntax.Node) bool {
		switch s := n.(type) {
		case *syntax.Import:
			for _, a := range s.Names {
				if a.AsName != nil {
					bind(a.AsName.Id, a.Name)
				}
			}
		case *syntax.ImportFrom:
			for _, a := range s.Names {
				name := a.Name
				if a.AsName != nil {
					name = a.AsName.Id
				}
				bind(name, s.Module+"."+a.Name)
			}
		}
		return true
	})
	return names, scoped
}

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

// tileOps are the Tx tile primitives (tvm/tirx/script/tile.py).
var tileOps = map[string]bool{}

func init() {
	for _, op := range strings.Fields(`add binary_chain binary_reduce cast copy copy_async exp exp2 log2
		fdiv fill fma gemm gemm_async max maximum memset min minimum mul permute_layout reciprocal
		reduce_negate select silu sqrt sub sum unary_reduce zero`) {
		tileOps[op] = true
	}
}

// opGroups are the rows of the per-op table, in order.
var opGroups = []string{"copy", "copy_async", "elementwise", "gemm", "gemm_async", "sum/max/min", "permute_layout", "other"}

// opGroup is the per-op table row of a tile primitive: the elementwise
// ops are those with CUDA variants in the reference (reg and smem).
func opGroup(op string) string {
	switch op {
	case "copy", "copy_async", "gemm", "gemm_async", "permute_layout":
		return op
	case "sum", "max", "min":
		return "sum/max/min"
	case "zero", "fill", "reciprocal", "sqrt", "exp", "exp2", "silu", "add", "sub", "mul", "fdiv", "cast", "fma":
		return "elementwise"
	}
	return "other"
}

var txScopes = map[string]bool{"cluster": true, "cta": true, "wg": true, "warpgroup": true, "warp": true, "thread": true}

func isTxCall(c *syntax.Call, alias, scoped map[string]bool) bool {
	a, ok := c.Func.(*syntax.Attribute)
	if !ok || !tileOps[a.Attr.Id] {
		return false
	}
	switch x := a.X.(type) {
	case *syntax.Name:
		return alias[x.Id]
	case *syntax.Attribute:
		n, ok := x.X.(*syntax.Name)
		return ok && (alias[n.Id] || scoped[n.Id]) && txScopes[x.Attr.Id]
	case *syntax.Call:
		n, ok := x.Func.(*syntax.Name)
		if !ok || n.Id != "getattr" || len(x.Args) == 0 {
			return false
		}
		t, ok := x.Args[0].(*syntax.Name)
		return ok && alias[t.Id]
	}
	return false
}

// developerSet lists the corpus's developer set (shared/reference/corpus.md
// §4.1, D1–D11) by path suffix, as scripts/coverage-corpus lays it out.
var developerSet = []string{
	"operator/tile_primitive/cuda/copy/test_gmem_smem.py",        // D1
	"operator/tile_primitive/cuda/copy/test_fallback.py",         // D2
	"operator/tile_primitive/cuda/copy/test_reg.py",              // D3
	"operator/tile_primitive/cuda/copy/test_vec_forced_cache.py", // D4
	"operator/tile_primitive/cuda/elementwise/test_unary.py",     // D5
	"operator/tile_primitive/cuda/elementwise/test_binary.py",    // D6
	"operator/tile_primitive/cuda/elementwise/test_fma.py",       // D7
	"operator/tile_primitive/cuda/copy_async/test_tma.py",        // D8
	"operator/tile_primitive/cuda/copy_async/test_ldgsts.py",     // D9
	"docs/tirx/tile_primitives/copy/gmem_smem.py",                // D10
	"docs/tirx/tile_primitives/copy/fallback.py",
	"docs/tirx/tile_primitives/copy/reg.py",
	"docs/tirx/tile_primitives/elementwise/smem.py",
	"docs/tirx/tile_primitives/elementwise/reg.py",
	"tirx_kernels/normalization/rmsnorm.py", // D11
}

func inDeveloperSet(name string) bool {
	name = filepath.ToSlash(name)
	for _, s := range developerSet {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// tally counts sites per outcome.
type tally struct {
	n   [nOutcomes]int
	all int
}

func (t *tally) add(s Site) { t.n[s.Outcome]++; t.all++ }

func (t *tally) dispatched() int { return t.n[Variant] + t.n[Declined] }

func (t *tally) merge(u tally) {
	for i := range t.n {
		t.n[i] += u.n[i]
	}
	t.all += u.all
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d))
}

// row renders "| sites | variant | ... | dispatched | % | % of CUDA sites |".
func (t *tally) row() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d |", t.all)
	for o := Variant; o < nOutcomes; o++ {
		fmt.Fprintf(&b, " %d |", t.n[o])
	}
	fmt.Fprintf(&b, " %d | %s | %s |", t.dispatched(), pct(t.dispatched(), t.all), pct(t.dispatched(), t.all-t.n[NotCUDA]))
	return b.String()
}

func header(first string, extra ...string) string {
	cols := append([]string{first}, extra...)
	cols = append(cols, "Tx sites")
	for o := Variant; o < nOutcomes; o++ {
		cols = append(cols, o.String())
	}
	cols = append(cols, "dispatched", "dispatched %", "% of CUDA sites")
	return "| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat("---|", len(cols)) + "\n"
}

// group is the corpus part of a file: its first path element under -dir.
func group(name string) string {
	if i := strings.IndexByte(filepath.ToSlash(name), '/'); i > 0 {
		return name[:i]
	}
	return "."
}

// Tables renders the per-file, per-group and per-op tables.
func Tables(results []*FileResult) string {
	var b strings.Builder
	b.WriteString("### Per file\n\n")
	b.WriteString(header("file", "kernel records"))
	groups := map[string]*tally{}
	var gnames []string
	var total, dev, core tally
	ops := map[string]*[3]tally{} // all, 128 files, developer set
	for _, g := range opGroups {
		ops[g] = &[3]tally{}
	}
	records := 0
	for _, r := range results {
		var t tally
		g := group(r.Name)
		if groups[g] == nil {
			groups[g] = &tally{}
			gnames = append(gnames, g)
		}
		isCore := g == "tvm" || g == "tk"
		isDev := inDeveloperSet(r.Name)
		for _, s := range r.Sites {
			t.add(s)
			og := ops[opGroup(s.Op)]
			og[0].add(s)
			if isCore {
				og[1].add(s)
			}
			if isDev {
				og[2].add(s)
			}
		}
		records += r.Kernels
		groups[g].merge(t)
		total.merge(t)
		if isCore {
			core.merge(t)
		}
		if isDev {
			dev.merge(t)
		}
		name := r.Name
		if isDev {
			name += " (dev)"
		}
		fmt.Fprintf(&b, "| %s | %d | %s\n", name, r.Kernels, t.row())
	}
	fmt.Fprintf(&b, "| **total** | %d | %s\n\n", records, total.row())

	b.WriteString("### Totals\n\n")
	b.WriteString(header("part"))
	for _, g := range gnames {
		fmt.Fprintf(&b, "| %s | %s\n", g, groups[g].row())
	}
	if groups["tvm"] != nil || groups["tk"] != nil {
		fmt.Fprintf(&b, "| **the 128 files (tvm + tk)** | %s\n", core.row())
	}
	fmt.Fprintf(&b, "| **all files** | %s\n", total.row())
	if dev.all > 0 {
		fmt.Fprintf(&b, "| **developer set** | %s\n", dev.row())
	}

	b.WriteString("\n### Per op (all files)\n\n")
	b.WriteString(header("op"))
	for _, g := range opGroups {
		fmt.Fprintf(&b, "| %s | %s\n", g, ops[g][0].row())
	}
	if core.all > 0 {
		b.WriteString("\n### Per op (the 128 files)\n\n")
		b.WriteString(header("op"))
		for _, g := range opGroups {
			fmt.Fprintf(&b, "| %s | %s\n", g, ops[g][1].row())
		}
	}
	if dev.all > 0 {
		b.WriteString("\n### Per op (developer set)\n\n")
		b.WriteString(header("op"))
		for _, g := range opGroups {
			fmt.Fprintf(&b, "| %s | %s\n", g, ops[g][2].row())
		}
	}
	return b.String()
}

var (
	reQuoted = regexp.MustCompile(`'[^']*'|"[^"]*"|` + "`[^`]*`")
	reNumber = regexp.MustCompile(`\b\d+\b`)
	// reBackquoted is the expression a "not modelled by tilels" names.
	reBackquoted = regexp.MustCompile("`([^`]*)`")
)

// reasonKey groups reasons that differ only in quoted names and numbers.
func reasonKey(o Outcome, why string) string {
	k := reQuoted.ReplaceAllString(oneLine(why), "'…'")
	k = reNumber.ReplaceAllString(k, "N")
	if len(k) > 160 {
		k = k[:160] + "…"
	}
	return o.String() + " — " + k
}

// category is the coarse reason a site is not dispatched, for the table
// of top reasons (docs/coverage.md).
func category(file string, s Site) string {
	why := s.Reason
	switch {
	case s.Outcome == NotCUDA:
		return "not a CUDA kernel (Trainium)"
	case s.Outcome == NoVariant && strings.Contains(why, notLowered):
		return "no variant modelled: a variant tilels does not lower yet (" + strings.SplitN(why, ":", 2)[0] + ")"
	case s.Outcome == NoVariant && strings.HasPrefix(why, "no variant named"):
		return "no variant modelled: dispatch= names a variant the test registers itself"
	case s.Outcome == NoVariant:
		return "no variant modelled: no " + opGroup(s.Op) + " variants (" + s.Op + ")"
	case s.Outcome == Unresolved && strings.HasPrefix(file, "assign/"):
		return "needs a parameter binding: assignment factories only another file calls (hgemm_vN(M, N, K))"
	case s.Outcome == Unresolved:
		return "needs a parameter binding (unresolved: needs ...)"
	case strings.HasPrefix(file, "assign/"):
		return "old single-namespace dialect (assignments)"
	case strings.Contains(why, "in the workspace") || strings.Contains(why, "import cycle") || strings.Contains(why, "imported module") || strings.Contains(why, "defined in module"):
		return "workspace imports: a module, name or kernel an import does not give (docs/imports.md)"
	case strings.Contains(why, "stopped after"):
		return "evaluation budget: the file's bound cases stopped early"
	case strings.Contains(why, "dynamic") || strings.Contains(why, "layout stride must be an integer"):
		return "dynamic shapes, strides or launch extents"
	case strings.Contains(why, "dispatch/launch"):
		return "kernel without thread launch parameters (dispatch/launch)"
	case strings.Contains(why, "class ") && strings.Contains(why, "not modelled"):
		return "evaluator: @dataclass configuration objects are not modelled"
	case strings.Contains(why, "not modelled by tilels"):
		if m := reBackquoted.FindStringSubmatch(why); m != nil {
			e := m[1]
			switch {
			case strings.Contains(e, "TMEMPool") || strings.Contains(e, "alloc_tcgen05") || strings.Contains(e, "move_base_to") || strings.HasSuffix(e, "commit()"):
				return "evaluator: shared/tensor-memory pool allocators (TMEMPool, alloc_tcgen05_mma_*, pool.commit, move_base_to)"
			case strings.Contains(e, "scheduler") || strings.HasPrefix(e, "init("):
				return "evaluator: tile schedulers (tile_scheduler.init(...))"
			case strings.Contains(e, "tma_config(") || strings.Contains(e, "tcgen05_config("):
				return "evaluator: TIRx-kernels helpers that return keyword dicts (tma_config, tcgen05_config)"
			}
			if i := strings.IndexByte(e, '\n'); i >= 0 {
				e = e[:i] + " …"
			}
			if i := strings.IndexByte(e, '('); i > 0 {
				e = e[strings.LastIndexByte(e[:i], '.')+1:]
			}
			return "evaluator: `" + e + "` is not modelled"
		}
		return "evaluator: a value tilels does not model"
	case strings.Contains(why, "cannot represent"):
		return "evaluator: a list-valued option tilels cannot represent (gather4=, src_selector=)"
	case strings.Contains(why, "not defined"):
		return "name not defined (doc fragment)"
	case strings.Contains(why, "eval/type") || strings.Contains(why, "eval/dtype"):
		return "evaluator: tilels' model of a library call rejects its arguments (eval/type)"
	case strings.Contains(why, "eval/out-of-bounds"):
		return "evaluator: a region out of bounds of its buffer (eval/out-of-bounds)"
	case strings.HasPrefix(why, "no record reaches it (dead branch"):
		return "no record reaches it (a branch no case takes)"
	}
	return "other"
}

// oneLine folds a reason that quotes several source lines into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Details lists every site that is not a variant and the grouped reasons
// of the sites that are not dispatched, each with a count and an example.
func Details(results []*FileResult) (list, grouped string) {
	var lines []string
	type agg struct {
		n       int
		example string
	}
	groups := map[string]*agg{}
	for _, r := range results {
		for _, s := range r.Sites {
			if s.Outcome == Variant {
				continue
			}
			lines = append(lines, oneLine(fmt.Sprintf("%s:%d %s [%s]: %s", r.Name, s.Line, s.Text, s.Outcome, s.Reason)))
			if s.Outcome.Dispatched() {
				continue
			}
			k := reasonKey(s.Outcome, s.Reason)
			if groups[k] == nil {
				groups[k] = &agg{example: oneLine(fmt.Sprintf("%s:%d %s: %s", r.Name, s.Line, s.Text, s.Reason))}
			}
			groups[k].n++
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := groups[keys[i]], groups[keys[j]]
		return a.n > b.n || a.n == b.n && keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%5d  %s\n       e.g. %s\n", groups[k].n, k, groups[k].example)
	}
	// The same sites by category.
	cats := map[string]*agg{}
	for _, r := range results {
		for _, s := range r.Sites {
			if s.Outcome.Dispatched() {
				continue
			}
			c := category(r.Name, s)
			if cats[c] == nil {
				cats[c] = &agg{example: oneLine(fmt.Sprintf("%s:%d %s: %s", r.Name, s.Line, s.Text, s.Reason))}
			}
			cats[c].n++
		}
	}
	keys = keys[:0]
	for k := range cats {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := cats[keys[i]], cats[keys[j]]
		return a.n > b.n || a.n == b.n && keys[i] < keys[j]
	})
	b.WriteString("\nby category:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%5d  %s\n       e.g. %s\n", cats[k].n, k, cats[k].example)
	}
	return strings.Join(lines, "\n"), b.String()
}

func pyFiles(root string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".py") {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}

func TestCoverage(t *testing.T) {
	root := *dir
	if root == "" {
		root = "../../testdata/examples"
	}
	paths, err := pyFiles(root)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .py files in %s: %v", root, err)
	}
	var opts lower.Options
	if *bind != "" {
		opts.Bind = map[string]string{}
		for _, b := range strings.Split(*bind, ";") {
			name, text, ok := strings.Cut(b, ":")
			if !ok {
				t.Fatalf("-bind: %q is not name:text", b)
			}
			opts.Bind[strings.TrimSpace(name)] = text
		}
	}
	var results []*FileResult
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		fopts := opts
		// Its imports resolve under its package root (lower.PackageRoot).
		// Set by reflection: older trees have no Options.Path.
		if f := reflect.ValueOf(&fopts).Elem().FieldByName("Path"); f.IsValid() && f.Kind() == reflect.String {
			f.SetString(p)
		}
		results = append(results, Measure(filepath.ToSlash(rel), src, fopts))
	}
	tables := Tables(results)
	t.Log("\n" + tables)
	doc := tables
	if *details {
		list, grouped := Details(results)
		t.Log("\n" + list)
		t.Log("reasons sites are not dispatched:\n" + grouped)
		doc += "\n### Sites that are not variants\n\n```\n" + list + "\n```\n\n### Reasons sites are not dispatched\n\n```\n" + grouped + "```\n"
	}
	if *report != "" {
		if err := os.WriteFile(*report, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if *dir == "" {
		for _, r := range results {
			for _, s := range r.Sites {
				if !s.Outcome.Dispatched() {
					t.Errorf("bundled example %s:%d %s is not dispatched: %s: %s", r.Name, s.Line, s.Text, s.Outcome, s.Reason)
				}
			}
		}
	}
}

// otherRelease reports whether some modelled release registers variant
// name for op.
func otherRelease(op, name string) bool {
	for _, v := range lower.Variants() {
		if v.Op == op && v.Name == name {
			return true
		}
	}
	return false
}
