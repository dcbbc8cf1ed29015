package lsp

import (
	"context"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// InlayHint puts the dispatch decision after each tile call's closing
// parenthesis (lower.Hint; format in docs/lsp.md), in the style of the
// inlayHintStyle setting:
//
//	→ gmem_smem, 8-wide, 4 rounds     readable: variant, elements per access, outer iterations
//	→ gmem_smem ×4 ·8                 terse: variant, ×outer iterations, ·elements per access
//	→ tma, 2 bulk copies, box 64×64   a TMA copy
//	→ no variant applies
//
// A call a Python loop unrolled gets one hint; when the instances were
// lowered differently their labels are joined with " | ". A kernel def
// with several cases shows its selected case; a tile call of a partial
// kernel shows "→ unresolved: needs M".
func (s *Server) InlayHint(ctx context.Context, p *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	out := []protocol.InlayHint{}
	set := s.settings()
	if !set.InlayHints {
		return out, nil
	}
	style, _ := lower.ParseHintStyle(set.InlayHintStyle)
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
				label, tip := lower.UnresolvedHint(kv.Kernel, &u)
				add(kv.ToFile(u.Span), label, tip)
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
			label, tip := lower.Hint(kv.Kernel, byCall[sp], style)
			if def.cases() {
				tip += lower.HintCases(kv.Kernel, counts[sp])
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
