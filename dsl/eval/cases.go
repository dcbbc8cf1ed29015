package eval

import (
	"fmt"
	"sort"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// maxLabel bounds the case text a diagnostic suffix carries.
const maxLabel = 100

// MergeCaseDiags merges the diagnostics of several cases of one kernel
// def (or one binding source): groups[i] holds case i's diagnostics and
// labels[i] names it. A diagnostic every case reports is kept once as is;
// one only some cases report is kept once, its message suffixed with the
// first such case: "... [case dtype='float16', M=128]", plus "(and N more
// cases)" when others report it too. With one group the diagnostics are
// returned unchanged.
func MergeCaseDiags(groups [][]diag.Diagnostic, labels []string) []diag.Diagnostic {
	switch len(groups) {
	case 0:
		return nil
	case 1:
		return groups[0]
	}
	type key struct {
		span     source.Span
		sev      diag.Severity
		code     string
		msg      string
		nRelated int
	}
	type entry struct {
		d     diag.Diagnostic
		first int
		count int
	}
	var order []key
	seen := map[key]*entry{}
	for i, g := range groups {
		inGroup := map[key]bool{}
		for _, d := range g {
			k := key{d.Span, d.Severity, d.Code, d.Message, len(d.Related)}
			if inGroup[k] {
				continue
			}
			inGroup[k] = true
			e := seen[k]
			if e == nil {
				e = &entry{d: d, first: i}
				seen[k] = e
				order = append(order, k)
			}
			e.count++
		}
	}
	out := make([]diag.Diagnostic, 0, len(order))
	for _, k := range order {
		e := seen[k]
		d := e.d
		if e.count < len(groups) {
			label := labels[e.first]
			if len(label) > maxLabel {
				label = label[:maxLabel] + "..."
			}
			d.Message = fmt.Sprintf("%s [case %s]", d.Message, label)
			if e.count > 1 {
				d.Message += fmt.Sprintf(" (and %d more case%s)", e.count-1, plural(e.count-1))
			}
		}
		out = append(out, d)
	}
	return out
}

// finish assembles the Program: complete cases per def in source order of
// the defs, partial kernels for defs without a complete case, the merged
// diagnostics, the cap notes and the unbound parameters still needed.
func (ev *Evaluator) finish() {
	var defs []*syntax.FunctionDef
	for def := range ev.byDef {
		defs = append(defs, def)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Loc.Start < defs[j].Loc.Start })
	for _, def := range defs {
		dc := ev.byDef[def]
		switch {
		case len(dc.cases) == 1:
			k := dc.cases[0]
			diag.Sort(k.Diags)
			ev.prog.Kernels = append(ev.prog.Kernels, k)
			ev.prog.Diags = append(ev.prog.Diags, k.Diags...)
		case len(dc.cases) > 1:
			groups := make([][]diag.Diagnostic, len(dc.cases))
			labels := make([]string, len(dc.cases))
			for i, k := range dc.cases {
				diag.Sort(k.Diags)
				groups[i] = k.Diags
				labels[i] = k.CaseLabel()
			}
			ev.prog.Kernels = append(ev.prog.Kernels, dc.cases...)
			ev.prog.Diags = append(ev.prog.Diags, MergeCaseDiags(groups, labels)...)
		}
		if len(dc.cases) > 0 {
			if n := len(dc.capped); n > 0 {
				ev.prog.Diags = append(ev.prog.Diags, diag.Infof(def.Name.Loc, CodeCaseCap,
					"kernel `%s` has %d bound cases, more than the case cap; the first %d are analysed", def.Name.Id, len(dc.cases)+n, len(dc.cases)))
			}
		} else if dc.partial != nil {
			k := dc.partial
			diag.Sort(k.Diags)
			ev.prog.Partial = append(ev.prog.Partial, k)
			ev.prog.Diags = append(ev.prog.Diags, k.Diags...)
		}
	}
	ev.reportPending()
	diag.Sort(ev.prog.Diags)
	ev.prog.Diags = dedupDiags(ev.prog.Diags)
}

// CaseLabel names the kernel's case for messages: its bindings as Python
// keyword arguments, else its CaseID ("" for a kernel without case).
func (k *Kernel) CaseLabel() string {
	if len(k.Case) > 0 {
		return CaseString(k.Case)
	}
	return k.CaseID
}
