package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

// TestPrintsAcrossEdits: the lowered output and the hovers of a document
// are printed once per kernel and reused by later versions (lower.Prints);
// after edits in one kernel, in module-level code and of a kernel's name,
// tilels.lower still equals the CLI's CUDA of the new text, and a hover in
// a kernel the edits did not touch is the same as before.
func TestPrintsAcrossEdits(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	src := corpus(t, 300)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	lines := strings.Split(src, "\n")
	var calls []int
	for i, l := range lines {
		if strings.Contains(l, "Tx.") {
			calls = append(calls, i)
		}
	}
	first, last := calls[0], calls[len(calls)-1]
	check := func(version int32, text string) {
		t.Helper()
		got, err := c.lowerCmd(u, "")
		if err != nil || got != cliCUDA(t, text) {
			t.Errorf("version %d: tilels.lower differs from the CLI (%v)", version, err)
		}
	}
	check(1, src)
	hover := hoverValue(c.hover(u, pos(uint32(first), 8)))
	if !strings.Contains(hover, "**CUDA**") {
		t.Fatalf("hover: %q", hover)
	}
	col := uint32(strings.Index(lines[last], "(") + 1)
	edits := []struct {
		line, c0, c1 uint32
		text         string
	}{
		{uint32(last), col, col, " "},                                                     // inside the last kernel
		{uint32(last), col, col + 1, ""},                                                  // and back
		{0, 0, 0, "# a comment\n"},                                                        // module-level code
		{uint32(last) + 1, 0, 0, "    T.cuda.cta_sync()\n"},                               // a statement in the last kernel
		{uint32(last) + 2, 4, 4, "Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])\n    "}, // a tile call
	}
	text := src
	for i, e := range edits {
		v := int32(i + 2)
		c.change(u, v, partial(e.line, e.c0, e.line, e.c1, e.text))
		text = applyEdit(text, e.line, e.c0, e.c1, e.text)
		c.waitDiags(u, v)
		check(v, text)
		line := uint32(first)
		if i >= 2 {
			line++ // below the comment
		}
		if got := hoverValue(c.hover(u, pos(line, 8))); got != hover {
			t.Errorf("version %d: the hover in the first kernel changed:\n%s\nwant\n%s", v, got, hover)
		}
	}
}

// applyEdit replaces line:c0-c1 of text (ASCII) with repl.
func applyEdit(text string, line, c0, c1 uint32, repl string) string {
	off := 0
	for range line {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	return text[:off+int(c0)] + repl + text[off+int(c1):]
}
