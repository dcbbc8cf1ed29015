package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

// previewSrc is a kernel its factory builds for 12 CONFIGS entries: an
// edit in it re-analyses 12 cases, so a preview is published first. row
// and col are where its `Tx.warp.copy(row[...], ...)` call's "(" is.
func previewSrc(t *testing.T) (u uri.URI, src string, row, col uint32) {
	p, err := filepath.Abs("../lower/testdata/preview/configs.py")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if at := strings.Index(l, "Tx.warp.copy(row["); at >= 0 {
			return uri.File(p), string(b), uint32(i), uint32(at + len("Tx.warp.copy"))
		}
	}
	t.Fatal("no Tx.warp.copy(row[ call")
	return
}

// publications returns the diagnostics published for version v of u, in
// order, as JSON.
func (c *testClient) publications(u uri.URI, v int32) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.pubs[u] {
		if pv, _ := p.Version.Get(); pv == v {
			j, _ := json.Marshal(p.Diagnostics)
			out = append(out, string(j))
		}
	}
	return out
}

// TestPreviewPublish: an edit in a def with many cases publishes the
// version twice, the preview first; for an edit that changes no case's
// outcome the two agree, and an error the edit makes in a call the
// first case runs is in the preview already.
func TestPreviewPublish(t *testing.T) {
	c := initClient(t, startServerWith(t, Options{Reference: "0.27"}), fullCaps(), "")
	u, src, row, col := previewSrc(t)
	c.open(u, 1, src)
	c.waitDiags(u, 1)

	c.change(u, 2, partial(row, col+1, row, col+1, " "))
	c.waitDiags(u, 2)
	pubs := c.publications(u, 2)
	if len(pubs) < 2 {
		t.Fatalf("version 2 was published %d times, want a preview and the complete list\n%s", len(pubs), c.logs.String())
	}
	if pubs[0] != pubs[1] {
		t.Errorf("a white-space edit's preview differs from the complete list:\n%s\n%s", pubs[0], pubs[1])
	}
	if !strings.Contains(c.logs.String(), "published a preview") {
		t.Error("no preview logged")
	}

	c.change(u, 3, partial(row, col, row, col, "y")) // Tx.warp.copyy(
	c.waitDiags(u, 3)
	pubs = c.publications(u, 3)
	for i, p := range pubs[:2] {
		if !strings.Contains(p, "copyy") {
			t.Errorf("publication %d of version 3 does not report the misspelt op: %s", i, p)
		}
	}
}

// TestPreviewRapidEdits: edits sent without waiting cancel the analyses
// of the versions they replace; the last version's complete list is what
// a fresh server publishes for the final text.
func TestPreviewRapidEdits(t *testing.T) {
	c := initClient(t, startServerWith(t, Options{Reference: "0.27"}), fullCaps(), "")
	u, src, row, col := previewSrc(t)
	col++ // after the "("
	lines := strings.Split(src, "\n")
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	for v := int32(2); v <= 41; v++ {
		c.change(u, v, partial(row, col, row, col, " "))
	}
	c.waitDiags(u, 41)
	got := c.publications(u, 41)
	fresh := initClient(t, startServerWith(t, Options{Reference: "0.27"}), fullCaps(), "")
	lines[row] = lines[row][:col] + strings.Repeat(" ", 40) + lines[row][col:]
	fresh.open(u, 1, strings.Join(lines, "\n"))
	fresh.waitDiags(u, 1)
	want := fresh.publications(u, 1)
	if got[len(got)-1] != want[len(want)-1] {
		t.Errorf("after rapid edits:\n%s\nwant\n%s", got[len(got)-1], want[len(want)-1])
	}
}
