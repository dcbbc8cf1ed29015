package lsp

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/lower"
)

// BenchmarkCompletion3000: textDocument/completion on the 3,000-line
// benchmark file, cycling through every tile call's "Tx.", "Tx.<scope>."
// and the inside of its dispatch="…" string where it has one ("all"),
// and through the dispatch strings alone ("dispatch": each runs the
// dispatcher once per variant the analysis did not try). Target: p99 <=
// 10 ms.
func BenchmarkCompletion3000(b *testing.B) {
	lower.TuneRuntime()
	TuneRuntime()
	c := newClient(b, resolvingCaps(), "") // a client that resolves documentation, as VS Code
	u := uri.File("/w/big.py")
	src := corpus(b, 3000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	all, dispatch := completionPositions(src)
	doc := protocol.TextDocumentIdentifier{URI: u}
	run := func(b *testing.B, at []protocol.Position) {
		if len(at) == 0 {
			b.Fatal("no completion positions")
		}
		var lat []time.Duration
		i := 0
		for b.Loop() {
			p := at[i%len(at)]
			start := time.Now()
			res, err := c.server.Completion(context.Background(), &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: p}})
			lat = append(lat, time.Since(start))
			if err != nil || res == nil {
				b.Fatalf("no completion at %v: %v", p, err)
			}
			i++
		}
		percentiles(b, lat)
	}
	b.Run("all", func(b *testing.B) { run(b, all) })
	b.Run("dispatch", func(b *testing.B) { run(b, dispatch) })
}

// BenchmarkSignatureHelp3000: textDocument/signatureHelp inside every
// tile call of the 3,000-line file.
func BenchmarkSignatureHelp3000(b *testing.B) {
	lower.TuneRuntime()
	TuneRuntime()
	c := newClient(b, fullCaps(), "")
	u := uri.File("/w/big.py")
	src := corpus(b, 3000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	var at []protocol.Position
	for i, l := range strings.Split(src, "\n") {
		if j := strings.Index(l, "Tx."); j >= 0 {
			if k := strings.IndexByte(l[j:], '('); k >= 0 {
				at = append(at, pos(uint32(i), uint32(j+k+1)))
			}
		}
	}
	doc := protocol.TextDocumentIdentifier{URI: u}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		p := at[i%len(at)]
		start := time.Now()
		h, err := c.server.SignatureHelp(context.Background(), &protocol.SignatureHelpParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: p}})
		lat = append(lat, time.Since(start))
		if err != nil || h == nil {
			b.Fatalf("no signature help at %v: %v", p, err)
		}
		i++
	}
	percentiles(b, lat)
}

// completionPositions are, for every line with a tile call, the
// positions after "Tx." and after "Tx.<scope>." and, for a call to a
// tile op with a dispatch= keyword, inside its string (also in dispatch).
func completionPositions(src string) (at, dispatch []protocol.Position) {
	for i, l := range strings.Split(src, "\n") {
		j := strings.Index(l, "Tx.")
		if j < 0 {
			continue
		}
		at = append(at, pos(uint32(i), uint32(j+3)))
		if k := strings.IndexByte(l[j+3:], '.'); k > 0 && k < 10 {
			at = append(at, pos(uint32(i), uint32(j+3+k+1)))
		}
		if k := strings.Index(l, `dispatch="`); k >= 0 {
			at = append(at, pos(uint32(i), uint32(k+len(`dispatch="`))))
			dispatch = append(dispatch, at[len(at)-1])
		}
	}
	return at, dispatch
}
