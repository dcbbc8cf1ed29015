package lsp

import (
	"context"
	"fmt"
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
// lowered differently their labels are joined with " | ".
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
	for _, kv := range v.snap.low.Kernels {
		var order []source.Span
		byCall := map[source.Span][]*dispatch.Decision{}
		for _, dec := range kv.Kernel.Calls {
			sp := kv.ToFile(dec.Call.Span)
			if byCall[sp] == nil {
				order = append(order, sp)
			}
			byCall[sp] = append(byCall[sp], dec)
		}
		for _, sp := range order {
			end, ok := v.curOff(sp.End, true)
			if !ok || source.Pos(end) < want.Start || source.Pos(end) > want.End {
				continue
			}
			label, tip := hintText(byCall[sp])
			out = append(out, protocol.InlayHint{
				Position:    v.cur.m.Position(end),
				Label:       protocol.String(label),
				Tooltip:     protocol.String(tip),
				PaddingLeft: &yes,
			})
		}
	}
	return out, nil
}

// hintLabel is one decision's label without the arrow.
func hintLabel(d *dispatch.Decision) string {
	r := d.Result
	switch {
	case d.Variant == "" || r == nil:
		return "no variant"
	case r.TMA != nil:
		return fmt.Sprintf("%s ×%d", d.Variant, r.TMA.Issues)
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
	if r := d.Result; r != nil {
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
