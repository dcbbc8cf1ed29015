package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/lower"
)

// BenchmarkKeystrokePublish: one edit to the publishDiagnostics of that
// version, through the whole JSON-RPC path of the in-process client, by
// file size and kind of edit (the incremental front end of issue 13):
//
//	keystroke: a space typed (and deleted) inside a kernel in the middle
//	comment:   a character typed (and deleted) in a comment on line 1
//	const:     a module constant that one kernel reads, 4 <-> 8
//
// Targets: keystroke p99 <= 25 ms at 3,000 and 30,000 lines; comment p99
// <= 25 ms at 3,000 lines and <= 50 ms at 30,000; cost linear in size.
func BenchmarkKeystrokePublish(b *testing.B) {
	for _, lines := range []int{3000, 10000, 30000} {
		for _, kind := range []string{"keystroke", "comment", "const"} {
			b.Run(fmt.Sprintf("%s-%d", kind, lines), func(b *testing.B) {
				benchKeystrokePublish(b, kind, lines)
			})
		}
	}
}

func benchKeystrokePublish(b *testing.B, kind string, lines int) {
	lower.TuneRuntime()
	TuneRuntime() // the collector target the server ships (cmd/tilels serve)
	c := newClient(b, fullCaps(), "")
	u := uri.File("/w/big.py")
	src := corpus(b, lines)
	// The two changes an iteration alternates between.
	var edits [2]protocol.TextDocumentContentChangeEvent
	switch kind {
	case "keystroke":
		ls := strings.Split(src, "\n")
		row := len(ls) / 2
		for !strings.Contains(ls[row], "Tx.") {
			row++
		}
		col := uint32(strings.Index(ls[row], "Tx."))
		edits = [2]protocol.TextDocumentContentChangeEvent{
			partial(uint32(row), col, uint32(row), col, " "),
			partial(uint32(row), col, uint32(row), col+1, ""),
		}
	case "comment":
		src = "# header\n" + src
		edits = [2]protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 1, "x"), partial(0, 1, 0, 2, "")}
	case "const":
		src = strings.Replace(src, "\n@T.prim_func\n", "\nONE_ROWS = 4\n\n@T.prim_func\n", 1)
		mid := strings.Index(src[len(src)/2:], "(ROWS, COLS), \"float32\")") + len(src)/2
		if mid < len(src)/2 {
			b.Fatal("no small_tile kernel in the second half")
		}
		src = src[:mid] + "(ONE_ROWS, COLS), \"float32\")" + src[mid+len("(ROWS, COLS), \"float32\")"):]
		ls := strings.Split(src, "\n")
		row := 0
		for ls[row] != "ONE_ROWS = 4" {
			row++
		}
		edits = [2]protocol.TextDocumentContentChangeEvent{
			partial(uint32(row), 11, uint32(row), 12, "8"),
			partial(uint32(row), 11, uint32(row), 12, "4"),
		}
	}
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	version := int32(1)
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		version++
		start := time.Now()
		c.change(u, version, edits[version%2])
		c.waitDiags(u, version)
		lat = append(lat, time.Since(start))
	}
	percentiles(b, lat)
}
