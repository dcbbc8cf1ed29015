package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// CodeLens puts "show lowered CUDA" above each kernel def (it runs
// tilels.showLowered for that kernel) and, above a def with several
// bound cases, the case the editor shows: "case 3/12: dtype='float16',
// M=128 ▸" (the parameters that differ between the cases), which runs
// tilels.selectCase to move to the next case.
func (s *Server) CodeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	out := []protocol.CodeLens{}
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
	sel := d.selected()
	for _, def := range v.snap.defs() {
		if def.partial {
			continue
		}
		kv := def.recs[0]
		r, ok := v.rangeOf(kv.ToFile(kv.Kernel.Func.NameSpan))
		if !ok {
			continue
		}
		if kv.Kernel.Target == "" { // a Trainium kernel has no CUDA
			out = append(out, protocol.CodeLens{
				Range: r,
				Command: protocol.Command{
					Title:     "show lowered CUDA",
					Command:   cmdShowLowered,
					Arguments: []protocol.LSPAny{mustJSON(string(d.uri)), mustJSON(def.name())},
				},
			})
			if l, ok := s.machineLens(d, def, r); ok { // machine.go
				out = append(out, l)
			}
		}
		if def.cases() {
			i := sel.pick(def)
			out = append(out, protocol.CodeLens{
				Range: r,
				Command: protocol.Command{
					Title:     fmt.Sprintf("case %d/%d: %s ▸", i+1, len(def.recs), def.lensLabel(i)),
					Command:   cmdSelectCase,
					Arguments: []protocol.LSPAny{mustJSON(string(d.uri)), mustJSON(def.key.String())},
				},
			})
		}
	}
	return out, nil
}
