package assist

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/release"
)

// completeString offers the values of the string the cursor is in: the
// variants of a tile call's dispatch="…", the storage scopes of a
// scope="…" (or of the positional scope argument of a T allocation).
func completeString(c *cursor, env Env) *List {
	if len(c.open) == 0 || c.open[len(c.open)-1].ch != '(' {
		return nil
	}
	br := c.open[len(c.open)-1]
	before := string(c.src[br.arg:c.str])
	kw, isKw := keywordOf(before)
	if !isKw && strings.TrimSpace(before) != "" {
		return nil // the string is part of an expression
	}
	names, chainAt := chainBefore(c.src, br.pos)
	if len(names) == 0 {
		return nil
	}
	ns, scope := resolve(names[:len(names)-1], imports(c.src))
	e := calleeEntry(ns, scope, names[len(names)-1], env.Release)
	if e == nil {
		return nil
	}
	if !isKw {
		kw = positional(e, br.commas)
	}
	end := c.off
	for end < len(c.src) && (isIdent(c.src[end]) || c.src[end] == '.') {
		end++
	}
	repl := source.Span{Start: source.Pos(c.strBody), End: source.Pos(end)}
	switch {
	case kw == "dispatch" && e.Kind == "op":
		opAt := chainAt
		for _, n := range names[:len(names)-1] {
			opAt += len(n) + 1
		}
		return &List{Items: variantItems(e.Name, opAt, env), Replace: repl}
	case kw == "scope" && e.Kind == "func":
		var out []Item
		for i, s := range BufferScopes {
			out = append(out, Item{Label: s.Name, Kind: KindBufferScope, Detail: "storage scope", Doc: s.Doc, Sort: fmt.Sprintf("%02d", i)})
		}
		return &List{Items: out, Replace: repl}
	}
	return nil
}

// calleeEntry is the entry a call's callee names (ns.name).
func calleeEntry(ns, scope, name string, rel release.Release) *Entry {
	switch ns {
	case nsTile, nsScopeName:
		if e := Lookup(rel, "Tx", name); e != nil && e.Kind == "op" {
			return e
		}
	case nsT:
		if e := Lookup(rel, "T", name); e != nil {
			return e
		}
		return Lookup(rel, "layout", name)
	case nsLayout:
		return Lookup(rel, "layout", name)
	case nsTMA:
		return Lookup(rel, "tma_utils", name)
	}
	return nil
}

// positional is the name of the i-th positional parameter ("" when none).
func positional(e *Entry, i int) string {
	if i < len(e.Params) && !e.Params[i].KwOnly && !strings.HasPrefix(e.Params[i].Name, "*") {
		return e.Params[i].Name
	}
	return ""
}

// variantItems are the variants registered for op in the release, each
// with whether it applies to the call whose callee starts at opAt (the
// dispatcher's answer when it dispatched the call forced to it), in each
// case of a kernel def with several.
func variantItems(op string, opAt int, env Env) []Item {
	cs := decisionsAt(env, opAt)
	target := dispatch.Target{Kind: "cuda", Release: env.Release}
	if len(cs) > 0 && cs[0].d.Explanation != nil && cs[0].d.Explanation.Target != "" {
		target.Kind = cs[0].d.Explanation.Target
	}
	vs := registry().VariantsIn(op, target)
	type verdict struct {
		applies bool
		reason  string
	}
	type row struct {
		v       dispatch.Variant
		per     []verdict // one per case
		applies int       // the cases it applies in
		chosen  int       // the cases whose dispatcher picks it without dispatch=
	}
	rows := make([]row, len(vs))
	for i, v := range vs {
		rows[i].v = v
		for _, c := range cs {
			a, ok := outcome(c.d, v.Name)
			vd := verdict{reason: "tilels cannot tell"}
			if ok {
				vd.applies = a.Outcome == dispatch.Selected
				vd.reason = a.Reason()
				if a.Outcome == dispatch.Declined || a.Outcome == dispatch.Exception {
					vd.reason = a.Outcome.String() + ": " + vd.reason
				}
			}
			if vd.applies {
				rows[i].applies++
			}
			if c.d.Call.Dispatch == "" && c.d.Variant == v.Name {
				rows[i].chosen++
			}
			rows[i].per = append(rows[i].per, vd)
		}
	}
	// The variants that apply in every case first, then in some, each
	// group in try order.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	group := func(r row) int {
		switch {
		case r.applies > 0 && r.applies == len(r.per):
			return 0
		case r.applies > 0:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(order, func(a, b int) int { return group(rows[a]) - group(rows[b]) })
	var out []Item
	for rank, i := range order {
		r := rows[i]
		it := Item{Label: r.v.Name, Kind: KindVariant, Sort: fmt.Sprintf("%03d", rank)}
		var doc strings.Builder
		fmt.Fprintf(&doc, "Variant `%s` of `%s` (priority %d), registered in apache-tvm %s.\n\n", r.v.Name, op, r.v.Priority, env.Release)
		switch {
		case len(cs) == 0:
			it.Detail = fmt.Sprintf("prio %d · not analysed yet", r.v.Priority)
			doc.WriteString("The call has not been analysed (yet): tilels cannot say whether it applies.")
		case len(cs) == 1 && r.applies == 1:
			it.Detail = fmt.Sprintf("✓ applies · prio %d", r.v.Priority)
			doc.WriteString("Applies to this call: forced with `dispatch=`, it lowers the call.")
			if r.chosen == 1 {
				it.Detail += " · the dispatcher's choice"
				it.Preselect = true
				doc.WriteString(" It is also what the dispatcher chooses without `dispatch=`.")
			}
		case len(cs) == 1:
			it.Detail = "✗ " + r.per[0].reason
			fmt.Fprintf(&doc, "Does not apply to this call: %s", r.per[0].reason)
		default:
			switch group(r) {
			case 0:
				it.Detail = fmt.Sprintf("✓ applies in all %d cases · prio %d", len(cs), r.v.Priority)
				if len(cs) == 2 {
					it.Detail = fmt.Sprintf("✓ applies in both cases · prio %d", r.v.Priority)
				}
			case 1:
				it.Detail = fmt.Sprintf("◐ applies in %d of %d cases · prio %d", r.applies, len(cs), r.v.Priority)
			default:
				it.Detail = "✗ " + r.per[0].reason
			}
			if r.chosen == len(cs) {
				it.Detail += " · the dispatcher's choice"
				it.Preselect = true
			}
			doc.WriteString("Forced with `dispatch=`, in each case of the kernel:\n\n")
			for k, c := range cs {
				v := "applies"
				if !r.per[k].applies {
					v = "does not apply: " + r.per[k].reason
				}
				fmt.Fprintf(&doc, "- case %s: %s\n", c.label, v)
			}
		}
		if r.v.ExplicitOnly {
			doc.WriteString("\n\nOnly tried when `dispatch=` names it.")
		}
		it.Doc = doc.String()
		out = append(out, it)
	}
	return out
}

// outcome is what variant name does to the call of d when dispatch=
// forces it: the attempt the analysis recorded when it means the same
// (a variant tried without being forced, unless only forcing enables it;
// the forced variant itself), else a probe.
func outcome(d *dispatch.Decision, name string) (dispatch.Attempt, bool) {
	if e := d.Explanation; e != nil && e.Error == "" {
		for _, a := range e.Attempts {
			if a.Variant != name || a.Outcome == dispatch.Skipped {
				continue
			}
			if d.Call.Dispatch == name || d.Call.Dispatch == "" && !a.ExplicitOnly {
				return a, true
			}
		}
	}
	return registry().Probe(d, name)
}

// caseDecision is a call's decision in one case of its kernel def.
type caseDecision struct {
	d     *dispatch.Decision
	label string // "1/2 (shape=(32, 32))"
}

// decisionsAt returns the dispatch decisions of the tile call whose
// callee starts at off (an offset of the newest text), from the
// snapshot: one per case of its kernel def that reaches it.
func decisionsAt(env Env, off int) []caseDecision {
	if env.Snap == nil {
		return nil
	}
	p := source.Pos(off)
	if env.SnapPos != nil {
		var ok bool
		if p, ok = env.SnapPos(off); !ok {
			return nil
		}
	}
	var out []caseDecision
	for _, v := range env.Snap.Kernels {
		if d := viewDecision(v, p); d != nil {
			k := v.Kernel
			label := fmt.Sprintf("%d/%d", k.CaseIndex, k.CaseCount)
			if k.CaseLabel != "" {
				label += " (" + k.CaseLabel + ")"
			}
			out = append(out, caseDecision{d, label})
		}
	}
	return out
}

// DecisionAt returns the decision of the tile call whose callee contains
// p (a position of the snapshot's file), nil when none.
func DecisionAt(s *lower.Snapshot, p source.Pos) *dispatch.Decision {
	for _, v := range s.Kernels {
		if d := viewDecision(v, p); d != nil {
			return d
		}
	}
	return nil
}

// viewDecision is the decision of the call of kernel view v whose callee
// contains p (the first instance of a call a loop unrolls).
func viewDecision(v *lower.KernelView, p source.Pos) *dispatch.Decision {
	if !v.Seg.Contains(p) && !v.ToFile(v.Kernel.Span).Contains(p) {
		return nil
	}
	for _, d := range v.Kernel.Calls {
		if sp := v.ToFile(d.Call.OpSpan); sp.Contains(p) {
			return d
		}
	}
	return nil
}
