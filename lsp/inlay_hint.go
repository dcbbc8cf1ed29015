package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
)

// InlayHint puts the dispatch decision after each tile call's closing
// parenthesis (format in docs/lsp.md):
//
//	→ gmem_smem ×8 ·4      variant, outer iterations per thread, elements per access
//	→ tma ×2               a TMA copy: bulk-tensor instructions issued
//	→ no variant
//
// A call a Python loop unrolled gets one hint; when the instances were
// lowered differently their labels are joined with " | ". A kernel def
// with several cases shows its selected case; a tile call of a partial
// kernel shows "→ unresolved: needs M".
func (s *Server) InlayHint(ctx context.Context, p *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	out := []protocol.InlayHint{}
	if !s.settings().InlayHints {
		return out, nil
	}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return out, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	if v.snap == nil {
		return out, nil
	}
	want := v.cur.m.Span(p.Range)
	yes := true
	// in reports whether the hint of a call at sp falls in the range
	// asked for: the hints of the other calls are not worked out (an
	// editor asks for the visible lines of a kernel of thousands).
	in := func(sp source.Span) bool {
		end, ok := v.curOff(sp.End, true)
		return ok && source.Pos(end) >= want.Start && source.Pos(end) <= want.End
	}
	add := func(sp source.Span, label, tip string) {
		end, _ := v.curOff(sp.End, true)
		out = append(out, protocol.InlayHint{
			Position:    v.cur.m.Position(end),
			Label:       protocol.String(label),
			Tooltip:     protocol.String(tip),
			PaddingLeft: &yes,
		})
	}
	sel := d.selected()
	for _, def := range v.snap.defs() {
		if def.partial {
			kv := def.recs[0]
			for _, u := range kv.Kernel.Unresolved {
				if !in(kv.ToFile(u.Span)) {
					continue
				}
				if u.NotModelled != "" {
					add(kv.ToFile(u.Span), "→ not modelled", fmt.Sprintf("kernel %s: %s", kv.Kernel.Name, u.NotModelled))
					continue
				}
				needs := strings.Join(u.Needs, ", ")
				add(kv.ToFile(u.Span), "→ unresolved: needs "+needs, fmt.Sprintf("kernel %s was not analysed: no binding source gives %s (bind it with `# tilels: bind` or the bind setting)", kv.Kernel.Name, needs))
			}
			continue
		}
		kv := sel.chosen(def)
		var order []source.Span
		byCall := map[source.Span][]*dispatch.Decision{}
		for _, dec := range kv.Kernel.Calls {
			sp := kv.ToFile(dec.Call.Span)
			if !in(sp) {
				continue
			}
			if byCall[sp] == nil {
				order = append(order, sp)
			}
			byCall[sp] = append(byCall[sp], dec)
		}
		var counts map[source.Span]int
		if def.cases() && len(order) > 0 {
			counts = outcomes(def)
		}
		for _, sp := range order {
			label, tip := hintText(byCall[sp])
			if def.cases() {
				k := kv.Kernel
				tip += fmt.Sprintf(" · case %d/%d: %s", k.CaseIndex, k.CaseCount, k.CaseLabel)
				if n := counts[sp]; n > 1 {
					tip += fmt.Sprintf(" (%d outcomes across the cases; the hover lists them)", n)
				}
			}
			add(sp, label, tip)
		}
	}
	return out, nil
}

// outcomes counts the distinct outcomes (as caseOutcome) of each call
// across the cases of def, a case that does not reach a call counting as
// one; one pass over every case's decisions.
func outcomes(def *kdef) map[source.Span]int {
	seen := map[source.Span]map[string]bool{}
	reached := map[source.Span]int{}
	for _, r := range def.recs {
		mine := map[source.Span][]string{}
		var order []source.Span
		for _, d := range r.Kernel.Calls {
			sp := r.ToFile(d.Call.Span)
			if _, ok := mine[sp]; !ok {
				order = append(order, sp)
			}
			if l := outcomeText(d); !slices.Contains(mine[sp], l) {
				mine[sp] = append(mine[sp], l)
			}
		}
		for _, sp := range order {
			if seen[sp] == nil {
				seen[sp] = map[string]bool{}
			}
			seen[sp][strings.Join(mine[sp], " | ")] = true
			reached[sp]++
		}
	}
	out := make(map[source.Span]int, len(seen))
	for sp, os := range seen {
		out[sp] = len(os)
		if reached[sp] < len(def.recs) {
			out[sp]++
		}
	}
	return out
}

// hintLabel is one decision's label without the arrow.
func hintLabel(d *dispatch.Decision) string {
	r := d.Result
	switch {
	case d.Variant == "" || r == nil:
		return "no variant"
	case r.TMA != nil:
		return fmt.Sprintf("%s ×%d", d.Variant, r.TMA.Issues)
	case r.Vec == 0 && len(r.Plan) > 0:
		// A variant that plans no vector copy (gemm, reductions, ...):
		// its plan's first fact.
		it := r.Plan[0]
		v := it.Value
		if len(v) <= 10 {
			v = it.Key + " " + v // a number says little without its name
		}
		if n := []rune(v); len(n) > 32 {
			v = string(n[:31]) + "…"
		}
		return d.Variant + " · " + v
	}
	return fmt.Sprintf("%s ×%d ·%d", d.Variant, r.Outer, r.Vec)
}

func hintText(ds []*dispatch.Decision) (label, tooltip string) {
	var labels []string
	seen := map[string]bool{}
	for _, d := range ds {
		l := hintLabel(d)
		if !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	label = "→ " + strings.Join(labels, " | ")
	d := ds[0]
	tip := fmt.Sprintf("%s.%s: %d threads", d.Scope, d.Call.Op, d.Threads)
	if r := d.Result; r != nil && r.Vec == 0 && len(r.Plan) > 0 {
		tip += ", variant " + d.Variant
		for _, it := range r.Plan {
			tip += fmt.Sprintf(", %s %s", it.Key, it.Value)
		}
	} else if r != nil {
		tip += fmt.Sprintf(", variant %s, vec %d", d.Variant, r.Vec)
		if r.VecBits > 0 {
			tip += fmt.Sprintf(" (%d bits)", r.VecBits)
		}
		tip += fmt.Sprintf(", outer %d", r.Outer)
		if r.Partition != "" {
			tip += ", partition " + r.Partition
		}
	}
	if len(ds) > 1 {
		tip += fmt.Sprintf(" (%d unrolled instances)", len(ds))
	}
	return label, tip
}
