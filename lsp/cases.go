package lsp

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// Bound cases (docs/binding.md). A kernel def reached with several sets
// of parameter values has one record per case, adjacent in the snapshot;
// the editor works on one of them at a time, the selected case (case 1
// until the user picks another with tilels.selectCase). Inlay hints, the
// call and buffer hovers, the lowered views, tilels.lower, the code
// action and tilels.writeCUDA use the selected case; the hover adds the
// outcome of every case. Diagnostics are every case's (merged by lower,
// naming the case of those only some cases report).

// kdef is one kernel def of a snapshot with its records.
type kdef struct {
	key defKey
	// recs holds one view per case in case order (one partial record
	// when partial).
	recs    []*lower.KernelView
	partial bool
	// varying names the parameters whose value differs between the
	// cases (in parameter order), short their values as keyword text.
	varying []string
	short   []string
}

// defKey names a def across versions of the text: its kernel name and
// its rank among the defs of that name (1-based), so a selection
// survives edits that move the def.
type defKey struct {
	name string
	nth  int
}

func (k defKey) String() string {
	if k.nth > 1 {
		return fmt.Sprintf("%s#%d", k.name, k.nth)
	}
	return k.name
}

// name is the kernel's name.
func (d *kdef) name() string { return d.key.name }

// seg is where positions find the def (KernelView.Seg).
func (d *kdef) seg() source.Span { return d.recs[0].Seg }

// cases reports whether the def has several cases.
func (d *kdef) cases() bool { return len(d.recs) > 1 }

// buildDefs groups the records of a snapshot by def, in source order.
func buildDefs(low *lower.Snapshot) []*kdef {
	var out []*kdef
	ks, ps := low.Kernels, low.Partial
	for len(ks) > 0 || len(ps) > 0 {
		if len(ps) > 0 && (len(ks) == 0 || ps[0].ToFile(ps[0].Kernel.Span).Start < ks[0].ToFile(ks[0].Kernel.Span).Start) {
			out = append(out, &kdef{recs: ps[:1:1], partial: true})
			ps = ps[1:]
			continue
		}
		n := 1
		span := ks[0].ToFile(ks[0].Kernel.Span)
		for n < len(ks) && ks[n].Kernel.CaseIndex > 1 && ks[n].ToFile(ks[n].Kernel.Span) == span {
			n++
		}
		d := &kdef{recs: ks[:n:n]}
		if n > 1 {
			d.varying, d.short = varyingParams(d.recs)
		}
		out = append(out, d)
		ks = ks[n:]
	}
	seen := map[string]int{}
	for _, d := range out {
		name := d.recs[0].Kernel.Name
		seen[name]++
		d.key = defKey{name, seen[name]}
	}
	return out
}

// varyingParams returns the parameters whose value differs between the
// records, and each record's values of them as keyword text.
func varyingParams(recs []*lower.KernelView) (names, short []string) {
	seen := map[string]bool{}
	for _, r := range recs {
		for _, n := range r.Kernel.CaseNames {
			if seen[n] {
				continue
			}
			seen[n] = true
			v, ok := recs[0].Kernel.Case[n]
			for _, o := range recs[1:] {
				if w, ok2 := o.Kernel.Case[n]; ok2 != ok || w != v {
					names = append(names, n)
					break
				}
			}
		}
	}
	short = make([]string, len(recs))
	for i, r := range recs {
		var parts []string
		for _, n := range names {
			if v, ok := r.Kernel.Case[n]; ok {
				parts = append(parts, n+"="+v)
			}
		}
		short[i] = strings.Join(parts, ", ")
		if short[i] == "" {
			short[i] = r.Kernel.CaseLabel
		}
	}
	return names, short
}

// defAt returns the def whose segment is the smallest containing off.
func defAt(defs []*kdef, off source.Pos) *kdef {
	var best *kdef
	for _, d := range defs {
		if s := d.seg(); s.Contains(off) && (best == nil || s.Len() < best.seg().Len()) {
			best = d
		}
	}
	return best
}

// caseChoice is a selected case: its 1-based index and its label (the
// label wins when the cases change under an edit).
type caseChoice struct {
	index int
	label string
}

// selection maps defs to their selected case. A stored selection is
// never modified (a new one replaces it).
type selection map[defKey]caseChoice

// pick returns the index (0-based) of the selected case of d under sel:
// the case with the selected label, else the selected index when it
// exists, else the first case.
func (sel selection) pick(d *kdef) int {
	if len(d.recs) == 1 || sel == nil {
		return 0
	}
	c, ok := sel[d.key]
	if !ok {
		return 0
	}
	if c.label != "" {
		for i, r := range d.recs {
			if r.Kernel.CaseLabel == c.label {
				return i
			}
		}
	}
	if c.index >= 1 && c.index <= len(d.recs) {
		return c.index - 1
	}
	return 0
}

// chosen returns the selected record of d.
func (sel selection) chosen(d *kdef) *lower.KernelView { return d.recs[sel.pick(d)] }

// selected returns the document's selection (nil: case 1 everywhere).
func (d *document) selected() selection {
	if p := d.sel.Load(); p != nil {
		return *p
	}
	return nil
}

// choose makes case index (1-based) of def the selected one.
func (d *document) choose(def *kdef, index int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	next := selection{}
	if p := d.sel.Load(); p != nil {
		for k, c := range *p {
			next[k] = c
		}
	}
	next[def.key] = caseChoice{index: index, label: def.recs[index-1].Kernel.CaseLabel}
	d.sel.Store(&next)
}

// caseSources describes Kernel.CaseSource in hovers.
var caseSources = map[string]string{
	"module":    "module-level code",
	"pytest":    "pytest",
	"test":      "a test",
	"main":      "the __main__ block",
	"call":      "an entry point",
	"configs":   "CONFIGS",
	"directive": "a `# tilels: bind` directive",
	"setting":   "the bind setting",
	"default":   "parameter defaults",
}

// caseOrigin says where a record's case came from: "pytest
// `warp-32x32`", "a `# tilels: bind` directive".
func caseOrigin(k *lower.Kernel) string {
	src := caseSources[k.CaseSource]
	if src == "" {
		src = k.CaseSource
	}
	if k.CaseID != "" {
		src += " " + mdCode(k.CaseID)
	}
	return src
}

// caseLine is the line a hover on a call or buffer of a bound kernel
// starts with: which case it shows and where its values came from.
func caseLine(k *lower.Kernel) string {
	switch {
	case k.CaseCount > 1:
		return fmt.Sprintf("case %d/%d: %s · from %s\n\n", k.CaseIndex, k.CaseCount, mdCode(k.CaseLabel), caseOrigin(k))
	case k.CaseLabel != "":
		return fmt.Sprintf("bound: %s · from %s\n\n", mdCode(k.CaseLabel), caseOrigin(k))
	}
	return ""
}

// lensLabel is a case's label in the code lens, at most maxLensLabel
// characters: the parameters that differ between the cases.
func (d *kdef) lensLabel(i int) string {
	l := d.short[i]
	if n := len([]rune(l)); n > maxLensLabel {
		l = string([]rune(l)[:maxLensLabel-1]) + "…"
	}
	return l
}

const maxLensLabel = 60

// mdCode renders s as a markdown code span.
func mdCode(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}
