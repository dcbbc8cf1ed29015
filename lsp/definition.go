package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// Definition goes from a buffer's name to its declaration (in the
// selected case of a kernel def with several).
func (s *Server) Definition(ctx context.Context, p *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return protocol.LocationSlice{}, nil
	}
	v, err := d.readView(ctx)
	if err != nil {
		return nil, err
	}
	if v.snap == nil {
		return protocol.LocationSlice{}, nil
	}
	off, ok := v.snapPos(p.Position)
	if !ok {
		return protocol.LocationSlice{}, nil
	}
	def := defAt(v.snap.defs(), off)
	if def == nil {
		return protocol.LocationSlice{}, nil
	}
	kv := d.selected().chosen(def)
	id := identAt(v.snap.text.src, off)
	if id.Len() == 0 {
		return protocol.LocationSlice{}, nil
	}
	b := bufferNamed(kv, string(v.snap.text.src[id.Start:id.End]), off)
	if b == nil {
		return protocol.LocationSlice{}, nil
	}
	r, ok := v.rangeOf(kv.ToFile(declSpan(b)))
	if !ok {
		return protocol.LocationSlice{}, nil
	}
	return protocol.LocationSlice{{URI: d.uri, Range: r}}, nil
}
