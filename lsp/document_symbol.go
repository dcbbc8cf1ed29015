package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

// DocumentSymbol lists the kernel defs with their buffers as children (a
// flat list with container names for clients without hierarchical
// symbols): a def with several cases in its selected case, a partial one
// with what it needs.
func (s *Server) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return protocol.DocumentSymbolSlice{}, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	if v.snap == nil {
		return protocol.DocumentSymbolSlice{}, nil
	}
	var tree protocol.DocumentSymbolSlice
	sel := d.selected()
	for _, def := range v.snap.defs() {
		kv := sel.chosen(def)
		k := kv.Kernel
		full, ok1 := v.rangeOf(kv.ToFile(k.Span))
		name, ok2 := v.rangeOf(kv.ToFile(k.Func.NameSpan))
		if !ok1 || !ok2 {
			continue
		}
		detail := fmt.Sprintf("grid %v block %v", k.Launch.Grid, k.Launch.Block)
		switch {
		case k.Target != "":
			detail = "target " + k.Target + " (Trainium)"
		case def.partial && k.Foreign != "":
			detail = "not a CUDA kernel: target " + k.Foreign + " is not modelled"
		case def.partial:
			detail = "unresolved: needs " + strings.Join(k.Needs, ", ")
		case def.cases():
			detail += fmt.Sprintf(" · case %d/%d", k.CaseIndex, k.CaseCount)
		}
		ks := protocol.DocumentSymbol{Name: k.Name, Detail: &detail, Kind: protocol.SymbolKindFunction, Range: full, SelectionRange: name}
		for i := range kv.Buffers {
			b := &kv.Buffers[i]
			if b.Buf == nil {
				continue
			}
			sel, ok1 := v.rangeOf(kv.ToFile(declSpan(b)))
			whole, ok2 := v.rangeOf(kv.ToFile(source.Join(b.NameSpan, b.DeclSpan)))
			if !ok1 || !ok2 {
				continue
			}
			dims := eval.ShapeDims(b.Buf)
			shape := strings.Join(dims, ", ")
			if len(dims) == 1 {
				shape += ","
			}
			bd := fmt.Sprintf("(%s) %s %s", shape, b.Buf.Dtype, b.Buf.Scope)
			ks.Children = append(ks.Children, protocol.DocumentSymbol{Name: b.Buf.Name, Detail: &bd, Kind: protocol.SymbolKindVariable, Range: whole, SelectionRange: sel})
		}
		tree = append(tree, ks)
	}
	if tree == nil {
		tree = protocol.DocumentSymbolSlice{}
	}
	if s.caps.Load().hierarchicalSymbols {
		return tree, nil
	}
	flat := protocol.SymbolInformationSlice{}
	for _, k := range tree {
		flat = append(flat, protocol.SymbolInformation{BaseSymbolInformation: protocol.BaseSymbolInformation{Name: k.Name, Kind: k.Kind}, Location: protocol.Location{URI: d.uri, Range: k.Range}})
		for _, c := range k.Children {
			container := k.Name
			flat = append(flat, protocol.SymbolInformation{BaseSymbolInformation: protocol.BaseSymbolInformation{Name: c.Name, Kind: c.Kind, ContainerName: &container}, Location: protocol.Location{URI: d.uri, Range: c.Range}})
		}
	}
	return flat, nil
}
