package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// Hover answers from the last complete snapshot: on a tile call's callee
// (Tx.warp.copy) or elsewhere in the call, the dispatch decision (of the
// selected case, with the outcome of every case of a def that has
// several; "unresolved: needs M" in a partial kernel); on a buffer name,
// the buffer; on a layout expression, its canonical form.
func (s *Server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	if v.snap == nil {
		return nil, nil
	}
	off, ok := v.snapPos(p.Position)
	if !ok {
		return nil, nil
	}
	def := defAt(v.snap.defs(), off)
	if def == nil {
		return nil, nil
	}
	md, span := hoverText(v.snap, def, d.selected(), off)
	if md == "" {
		md, span = s.machineHover(d, v, def, off) // machine.go: on the def's name
	}
	if md == "" {
		return nil, nil
	}
	md = withPicture(md, s.hoverPicture(v.snap, def, d.selected(), off)) // picture.go
	// Markdown, or plain text for clients without it (hover_format.go).
	h := &protocol.Hover{Contents: s.hoverContents(md)}
	if r, ok := v.rangeOf(span); ok {
		h.Range = &r
	}
	return h, nil
}

// hoverText picks what is under off in def: the callee of a call, a
// buffer name, a layout expression, then anywhere else in a call. Calls
// and buffers are those of the selected case; a call the selected case
// does not reach shows the first case that does.
//
// The search through the cases is in findCall, the rendering in
// callHover: with both inlined here, BenchmarkHover3000 went from p50
// 0.058 to 0.073 ms, runtime.newstack from 3% to 17% of its CPU profile
// (the hover prints the kernel's CUDA below this frame, which needs the
// stack); split, it is back to 0.054 against 0.054 ms.
func hoverText(snap *snapshot, def *kdef, sel selection, off source.Pos) (string, source.Span) {
	pick := sel.pick(def)
	if at, ds := findCall(def, pick, off, true); ds != nil {
		return callHover(snap, def, pick, at, ds, true)
	}
	kv := def.recs[pick]
	if id := identAt(snap.text.src, off); id.Len() > 0 {
		if b := bufferNamed(kv, string(snap.text.src[id.Start:id.End]), off); b != nil {
			return bufferHover(b, caseLine(kv.Kernel)), id
		}
	}
	if l := layoutAt(kv, off); l != nil {
		return layoutHover(l), kv.ToFile(l.Span)
	}
	if at, ds := findCall(def, pick, off, false); ds != nil {
		return callHover(snap, def, pick, at, ds, false)
	}
	if def.partial {
		return unresolvedHover(def.recs[0], off)
	}
	return "", source.NoSpan
}

// findCall returns the decisions of the tile call whose callee (op) or
// span contains off in case pick of def, else in the first case that
// has one, with that case's index (nil when none has).
func findCall(def *kdef, pick int, off source.Pos, op bool) (int, []*dispatch.Decision) {
	if ds := callsAt(def.recs[pick], off, op); len(ds) > 0 {
		return pick, ds
	}
	for i, r := range def.recs {
		if ds := callsAt(r, off, op); i != pick && len(ds) > 0 {
			return i, ds
		}
	}
	return 0, nil
}

// unresolvedHover is the hover on a tile call of a partial kernel (its
// callee first, then the whole call): which parameters it needs instead
// of a dispatch result.
func unresolvedHover(kv *lower.KernelView, off source.Pos) (string, source.Span) {
	k := kv.Kernel
	var best *lower.UnresolvedCall
	var span source.Span
	for _, op := range []bool{true, false} {
		for i := range k.Unresolved {
			u := &k.Unresolved[i]
			sp := u.Span
			if op {
				sp = u.OpSpan
			}
			if sp = kv.ToFile(sp); sp.Contains(off) && (best == nil || sp.Len() < span.Len()) {
				best, span = u, sp
			}
		}
		if best != nil {
			break
		}
	}
	if best == nil {
		return "", source.NoSpan
	}
	name := "Tx."
	if best.Scope != "" {
		name += best.Scope + "."
	}
	name += best.Op
	if best.Op == "" {
		name = "tile call"
	}
	if best.NotModelled != "" {
		return fmt.Sprintf("**`%s`** → %s\n\nKernel `%s` is written for another target (see the note at its name): tilels runs the CUDA dispatcher only, so this call gets no variant and no lowering.\n", name, mdEscape(best.NotModelled), k.Name), span
	}
	needs := make([]string, len(best.Needs))
	for i, n := range best.Needs {
		needs[i] = mdCode(n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**`%s`** → unresolved: needs %s\n\n", name, strings.Join(needs, ", "))
	all := make([]string, len(k.Needs))
	for i, n := range k.Needs {
		all[i] = mdCode(n)
	}
	fmt.Fprintf(&b, "Kernel `%s` was not analysed: no binding source gives a value for %s (docs/binding.md). ", k.Name, strings.Join(all, ", "))
	b.WriteString("Bind it with a `# tilels: bind NAME=...` line above the def of the function that has the parameter, or the `bind` setting; the information diagnostic at the parameter says which.\n")
	if k.CaseLabel != "" {
		fmt.Fprintf(&b, "\nbound so far: %s · from %s\n", mdCode(k.CaseLabel), caseOrigin(k))
	}
	return b.String(), span
}

// maxExcerptLines bounds each lowered excerpt in a hover.
const maxExcerptLines = 40

// callHover renders a tile call's dispatch decisions ds in case at of
// def (pick is the selected case), and returns the range to highlight
// (its callee with op, else the call): the op, scope and threads, the
// case, the reference release (lower.Reference.Line), the chosen variant
// with vec, outer, partition or TMA plan, every
// variant tried with its reason, for a def with several cases the
// outcome in each, and the lowered TIRx and CUDA of the call.
func callHover(snap *snapshot, def *kdef, pick, at int, ds []*dispatch.Decision, op bool) (string, source.Span) {
	kv := def.recs[at]
	d := ds[0]
	c := d.Call
	span := c.Span
	if op {
		span = c.OpSpan
	}
	var b strings.Builder
	if at != pick {
		fmt.Fprintf(&b, "_the selected case (%d) does not reach this call_\n\n", pick+1)
	}
	name := "Tx."
	if c.Scope != "" {
		name += c.Scope + "."
	}
	name += c.Op
	if d.Variant != "" {
		fmt.Fprintf(&b, "**`%s`** → **`%s`**\n\n", name, d.Variant)
	} else {
		fmt.Fprintf(&b, "**`%s`** → no variant applies\n\n", name)
	}
	b.WriteString(caseLine(kv.Kernel))
	if len(ds) > 1 {
		fmt.Fprintf(&b, "_instance 1 of %d (the call is unrolled by a Python loop)_\n\n", len(ds))
	}
	facts := []string{fmt.Sprintf("scope `%s`", d.Scope), plural(d.Threads, "thread")}
	if c.Dispatch != "" {
		facts = append(facts, fmt.Sprintf("forced `dispatch=%q`", c.Dispatch))
	}
	if r := d.Result; r != nil && r.Vec > 0 {
		vec := fmt.Sprintf("vec %d", r.Vec)
		if r.VecBits > 0 {
			vec += fmt.Sprintf(" (%d bits)", r.VecBits)
		}
		facts = append(facts, vec, fmt.Sprintf("outer %d", r.Outer))
	}
	b.WriteString(strings.Join(facts, " · ") + "\n\n")
	// The profile the decision was made under (lower.Reference.Line).
	b.WriteString(mdEscape(snap.low.Reference.Line()) + "\n\n")
	if r := d.Result; r != nil {
		if r.Partition != "" {
			fmt.Fprintf(&b, "partition: `%s`\n\n", r.Partition)
		}
		if t := r.TMA; t != nil {
			b.WriteString(tmaText(t))
		}
		if len(r.Plan) > 0 {
			writePlan(&b, r.Plan, "")
			b.WriteString("\n")
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", mdEscape(n))
		}
		if len(r.Notes) > 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString(variantTable(d))
	if d.Variant != "" {
		if m := lower.MemoryHover(kv.Kernel, c); m != "" {
			b.WriteString("\n" + m)
		}
	}
	if def.cases() {
		b.WriteString(acrossCases(def, pick, kv.ToFile(c.Span)))
	}

	if d.Variant != "" {
		if r := d.Result; r != nil && r.TMA != nil && r.TMA.Map != nil {
			b.WriteString("\n**Host init** (before the launch)\n```python\n" + tirx.TensorMapInit(r.TMA.Map) + "```\n")
		}
		// The call's own lowering, printed once per kernel and version
		// (lower.Prints), never the whole kernel.
		if low := snap.prints.Call(kv.Kernel, c); low.Found {
			if low.TIRx != "" {
				b.WriteString("\n**TIRx**\n```python\n" + clipLines(low.TIRx, maxExcerptLines) + "```\n")
			}
			if low.CUDAErr != nil {
				fmt.Fprintf(&b, "\n_no CUDA: %s_\n", mdEscape(low.CUDAErr.Error()))
			} else if low.CUDA != "" {
				b.WriteString("\n**CUDA**\n```cuda\n" + clipLines(low.CUDA, maxExcerptLines) + "```\n")
			}
		}
	}
	return b.String(), kv.ToFile(span)
}

// variantTable is a markdown table of every variant tried, in dispatch
// order, with the outcome and the reason it did not apply. Variants that
// only apply when forced are left out unless the call forces one.
func variantTable(d *dispatch.Decision) string {
	e := d.Explanation
	if e == nil {
		return ""
	}
	if e.Error != "" {
		return fmt.Sprintf("dispatch failed: %s\n", mdEscape(e.Error))
	}
	reasons := map[string]string{}
	for _, rj := range d.Declined {
		reasons[rj.Variant] = rj.Reason
	}
	var b strings.Builder
	b.WriteString("| variant | prio | outcome |\n|---|---|---|\n")
	for _, a := range e.Attempts {
		if a.ExplicitOnly && d.Call.Dispatch == "" {
			continue
		}
		outcome := a.Outcome.String()
		switch a.Outcome {
		case dispatch.Selected:
			outcome = "**selected**"
		case dispatch.Skipped:
			outcome = "not tried"
		default:
			r := reasons[a.Variant]
			if r == "" {
				r = strings.Join(a.Messages, "; ")
			}
			outcome += ": " + mdCell(r)
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", a.Variant, a.Priority, outcome)
	}
	return b.String()
}

func tmaText(t *dispatch.TMA) string {
	var b strings.Builder
	fmt.Fprintf(&b, "TMA %s, %s", t.Direction, plural(t.Issues, "issue"))
	if m := t.Map; m != nil {
		swz := map[int]string{0: "none", 1: "32B", 2: "64B", 3: "128B"}[m.Swizzle]
		if swz == "" {
			swz = fmt.Sprint(m.Swizzle)
		}
		dims := make([]string, len(m.GlobalDims))
		for i, d := range m.GlobalDims {
			dims[i] = fmt.Sprint(d)
			if i < len(m.GlobalDimExprs) && m.GlobalDimExprs[i] != nil {
				dims[i] = mdEscape(eval.ExprString(m.GlobalDimExprs[i])) // a runtime extent
			}
		}
		fmt.Fprintf(&b, ": descriptor `%s`, rank %d, %s, global dims [%s], box %v, swizzle %s", m.Name, m.Rank, m.DType, strings.Join(dims, " "), m.Box, swz)
	}
	if len(t.IssueAxes) > 0 {
		b.WriteString("; issue axes " + mdEscape(strings.Join(t.IssueAxes, "; ")))
	}
	b.WriteString("\n\n")
	return b.String()
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// bufferHover renders a buffer: shape, dtype, scope and canonical layout
// (after the line that says which case, when the kernel has one).
func bufferHover(site *eval.BufferSite, caseLine string) string {
	buf := site.Buf
	var b strings.Builder
	fmt.Fprintf(&b, "**buffer `%s`**\n\n", buf.Name)
	b.WriteString(caseLine)
	dims := eval.ShapeDims(buf)
	shape := "(" + strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	shape += ")"
	fmt.Fprintf(&b, "shape `%s` · `%s` · scope `%s`\n\n", shape, buf.Dtype, buf.Scope)
	if buf.RuntimeDim() >= 0 {
		b.WriteString("layout: default (row-major over a runtime extent)\n")
	} else if buf.Layout == nil {
		b.WriteString("layout: `None`\n")
	} else {
		fmt.Fprintf(&b, "layout: `%s`\n", canonical(buf.Layout))
	}
	if buf.Base != nil && buf.ElemOffsetExpr != nil {
		fmt.Fprintf(&b, "\nview of `%s` at element offset `%s`\n", buf.Base.Name, dispatch.ExprText(buf.ElemOffsetExpr))
	} else if buf.Base != nil {
		fmt.Fprintf(&b, "\nview of `%s` at element offset %d\n", buf.Base.Name, buf.ElemOffset)
	}
	return b.String()
}

// layoutHover renders a layout expression's canonical form.
func layoutHover(l *eval.LayoutSite) string {
	c := canonical(l.Layout)
	text := fmt.Sprintf("**layout** `%s`\n", c)
	if raw := l.Layout.String(); raw != c {
		text += fmt.Sprintf("\nas built: `%s`\n", raw)
	}
	return text
}

// canonical is the form users compare layouts in (TVM canonicalize with
// thread fusion, as the dispatcher sees them).
func canonical(l layout.Layout) (s string) {
	defer func() {
		if recover() != nil {
			s = l.String() // a layout the canonicalizer rejects: as built
		}
	}()
	return layout.Canonicalize(l, true).String()
}

// clipLines keeps the first max lines of text.
func clipLines(text string, max int) string {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= max {
		return text
	}
	return strings.Join(lines[:max], "") + fmt.Sprintf("... (%d more lines)\n", len(lines)-max)
}

// mdEscape backslash-escapes the characters that would turn free text
// (decline reasons, notes) into markdown emphasis, code or HTML.
func mdEscape(s string) string {
	return strings.NewReplacer("\\", "\\\\", "`", "\\`", "*", "\\*", "<", "\\<").Replace(s)
}

// mdCell makes text safe inside a table cell (no pipes or newlines).
func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(mdEscape(s))
}

// Bounds of the "Across N cases" section of a call hover.
const (
	maxOutcomes     = 8 // outcome groups listed
	maxOutcomeCases = 4 // case labels listed per group
)

// acrossCases renders the outcome of the call at span in every case of
// def, grouped by outcome in order of first appearance; the selected
// case (pick, 0-based) is marked.
func acrossCases(def *kdef, pick int, span source.Span) string {
	var order []string
	groups := map[string][]int{}
	for i, r := range def.recs {
		o := caseOutcome(r, span)
		if groups[o] == nil {
			order = append(order, o)
		}
		groups[o] = append(groups[o], i)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n**Across %d cases**", len(def.recs))
	if len(order) == 1 {
		b.WriteString(": the same in every case\n")
		return b.String()
	}
	b.WriteString("\n\n")
	for gi, o := range order {
		if gi == maxOutcomes {
			fmt.Fprintf(&b, "- … %d more outcomes\n", len(order)-maxOutcomes)
			break
		}
		cs := groups[o]
		var labels []string
		for j, i := range cs {
			if j == maxOutcomeCases {
				labels = append(labels, fmt.Sprintf("and %d more", len(cs)-maxOutcomeCases))
				break
			}
			l := fmt.Sprintf("#%d %s", i+1, mdCode(def.short[i]))
			if i == pick {
				l += " (selected)"
			}
			labels = append(labels, l)
		}
		fmt.Fprintf(&b, "- %s — %s: %s\n", o, plural(int64(len(cs)), "case"), strings.Join(labels, ", "))
	}
	return b.String()
}

// caseOutcome is the outcome of the call at span in one case: its
// decisions' outcomes (one per distinct unrolled instance), or that the
// case does not reach the call.
func caseOutcome(r *lower.KernelView, span source.Span) string {
	var labels []string
	for _, d := range r.Kernel.Calls {
		if r.ToFile(d.Call.Span) == span {
			if l := outcomeText(d); !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	if len(labels) == 0 {
		return "not reached (a compile-time branch skips it)"
	}
	return strings.Join(labels, " | ")
}

// outcomeText is one decision's outcome in the cases section: the
// variant with vec and outer, or the TMA box and issue count.
func outcomeText(d *dispatch.Decision) string {
	r := d.Result
	switch {
	case d.Variant == "" || r == nil:
		return "no variant"
	case r.TMA != nil:
		box := ""
		if r.TMA.Map != nil {
			box = fmt.Sprintf(" box %v", r.TMA.Map.Box)
		}
		return fmt.Sprintf("`%s`%s ×%d", d.Variant, box, r.TMA.Issues)
	}
	return fmt.Sprintf("`%s` vec %d ×%d", d.Variant, r.Vec, r.Outer)
}

// writePlan lists a variant's plan, decoded fields indented under their item.
func writePlan(b *strings.Builder, items []dispatch.PlanItem, indent string) {
	for _, it := range items {
		if it.Value == "" {
			fmt.Fprintf(b, "%s- %s\n", indent, mdEscape(it.Key))
		} else {
			fmt.Fprintf(b, "%s- %s: `%s`\n", indent, mdEscape(it.Key), it.Value)
		}
		writePlan(b, it.Fields, indent+"  ")
	}
}
