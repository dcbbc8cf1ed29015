// Package coverage measures how much of a directory of real TIRx programs
// the pipeline can analyse: the share of Tx tile-call sites inside kernel
// bodies that get a dispatch result in at least one kernel record (any bound
// case). It is a test so that it needs no place in the import policy and
// runs with the packages it measures:
//
//	go test ./internal/coverage -run TestCoverage -dir /path/to/py/files -v
//
// Without -dir it measures the bundled examples (testdata/examples), which
// must all be covered. docs/coverage.md explains the method and holds the
// figures for the corpus's developer set.
package coverage

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/lower"
)

var (
	dir     = flag.String("dir", "", "directory of .py files to measure (default: the bundled examples)")
	details = flag.Bool("details", false, "list every site without a dispatch result, with its reason")
	bind    = flag.String("bind", "", "bind settings, lower.Options.Bind in the form name:text[;name:text...]")
)

// Outcome is what the pipeline produced for one Tx call site.
type Outcome int

const (
	// Variant: some kernel record's decision for the site chose a variant.
	Variant Outcome = iota
	// Declined: the dispatcher ran on the site in some case, and no case
	// found a variant (an error diagnostic says why).
	Declined
	// Unresolved: the site needs a value that no binding source gave
	// (the call shows "unresolved: needs X").
	Unresolved
	// Missing: no kernel record holds a decision for the site.
	Missing
)

// Site is one syntactic Tx call inside a kernel body or a @T.inline helper.
type Site struct {
	Span    source.Span
	Text    string // the callee, e.g. "Tx.warp.copy"
	Outcome Outcome
	Reason  string // for Missing and Unresolved: the first diagnostic about it
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

// Measure analyses one file and classifies its Tx call sites.
func Measure(name string, src []byte, opts lower.Options) *FileResult {
	f := source.NewFile(name, src)
	res := lower.Analyze(f, opts)
	out := &FileResult{Name: name, Kernels: len(res.Kernels)}
	decided := map[source.Pos]Outcome{}
	for _, k := range res.Kernels {
		for _, d := range k.Calls {
			p := d.Call.Span.Start
			if d.Variant != "" {
				decided[p] = Variant
			} else if _, ok := decided[p]; !ok {
				decided[p] = Declined
			}
		}
	}
	unresolved := map[source.Pos]string{}
	for _, k := range res.Partial {
		for _, u := range k.Unresolved {
			if _, ok := unresolved[u.Span.Start]; !ok {
				unresolved[u.Span.Start] = "needs " + strings.Join(u.Needs, ", ")
			}
		}
	}
	for _, s := range txSites(res.Syntax) {
		site := Site{Span: s.Loc, Text: f.Text(s.Func.Span())}
		if o, ok := decided[s.Loc.Start]; ok {
			site.Outcome = o
		} else if why, ok := unresolved[s.Loc.Start]; ok {
			site.Outcome, site.Reason = Unresolved, why
		} else {
			site.Outcome, site.Reason = Missing, reason(f, res, s.Loc)
		}
		out.Sites = append(out.Sites, site)
	}
	return out
}

// reason names the first diagnostic inside the call, else the first one
// of the enclosing kernel's lines, else a generic reason.
func reason(f *source.File, res *lower.Result, call source.Span) string {
	for _, d := range res.Diags {
		if d.Severity != diag.Hint && d.Span.Start >= call.Start && d.Span.Start < call.End {
			return d.Code + ": " + d.Message
		}
	}
	return "no kernel record holds a decision for it"
}

// txSites returns the calls Tx.op(...), Tx.<scope>.op(...) and
// getattr(Tx, ...).op(...) inside the bodies of functions decorated
// prim_func, jit, inline or macro (nested defs included), in source order.
func txSites(file *syntax.File) []*syntax.Call {
	var out []*syntax.Call
	seen := map[*syntax.Call]bool{}
	var inKernel func(n syntax.Node) bool
	inKernel = func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Call); ok && isTxCall(c) && !seen[c] {
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

var txScopes = map[string]bool{"cluster": true, "cta": true, "wg": true, "warpgroup": true, "warp": true, "thread": true}

func isTxCall(c *syntax.Call) bool {
	a, ok := c.Func.(*syntax.Attribute)
	if !ok || !tileOps[a.Attr.Id] {
		return false
	}
	switch x := a.X.(type) {
	case *syntax.Name:
		return x.Id == "Tx"
	case *syntax.Attribute:
		n, ok := x.X.(*syntax.Name)
		return ok && n.Id == "Tx" && txScopes[x.Attr.Id]
	case *syntax.Call:
		n, ok := x.Func.(*syntax.Name)
		if !ok || n.Id != "getattr" || len(x.Args) == 0 {
			return false
		}
		t, ok := x.Args[0].(*syntax.Name)
		return ok && t.Id == "Tx"
	}
	return false
}

func TestCoverage(t *testing.T) {
	root := *dir
	if root == "" {
		root = "../../testdata/examples"
	}
	paths, err := filepath.Glob(filepath.Join(root, "*.py"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .py files in %s: %v", root, err)
	}
	sort.Strings(paths)
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
		results = append(results, Measure(filepath.Base(p), src, opts))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| file | Tx sites | variant | declined | unresolved | missing | kernel records | dispatched |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|\n")
	var tot [4]int
	sites, kernels := 0, 0
	for _, r := range results {
		n := len(r.Sites)
		sites += n
		kernels += r.Kernels
		var c [4]int
		for o := Variant; o <= Missing; o++ {
			c[o] = r.Count(o)
			tot[o] += c[o]
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %s |\n", r.Name, n, c[Variant], c[Declined], c[Unresolved], c[Missing], r.Kernels, pct(c[Variant]+c[Declined], n))
	}
	fmt.Fprintf(&b, "| **total** | %d | %d | %d | %d | %d | %d | **%s** |\n", sites, tot[Variant], tot[Declined], tot[Unresolved], tot[Missing], kernels, pct(tot[Variant]+tot[Declined], sites))
	t.Log("\n" + b.String())
	if *details {
		var lines []string
		reasons := map[string]int{}
		for _, r := range results {
			for _, s := range r.Sites {
				if s.Outcome == Variant {
					continue
				}
				why := s.Reason
				if s.Outcome == Declined {
					why = "declined by every variant"
				}
				lines = append(lines, fmt.Sprintf("%s@%d %s: %s", r.Name, s.Span.Start, s.Text, why))
				reasons[shorten(why)]++
			}
		}
		t.Log("\n" + strings.Join(lines, "\n"))
		type kv struct {
			k string
			n int
		}
		var top []kv
		for k, n := range reasons {
			top = append(top, kv{k, n})
		}
		sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].k < top[j].k })
		var tb strings.Builder
		for _, x := range top {
			fmt.Fprintf(&tb, "%4d  %s\n", x.n, x.k)
		}
		t.Log("reasons:\n" + tb.String())
	}
	if *dir == "" && tot[Variant]+tot[Declined] != sites {
		t.Errorf("the bundled examples must be fully dispatched: %d of %d sites", tot[Variant]+tot[Declined], sites)
	}
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d))
}

// shorten keeps the reason's code and first words, for the reason table.
func shorten(s string) string {
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}
