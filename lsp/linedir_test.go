package lsp

import (
	"os"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TestLineDirectivesSetting: with "lineDirectives": true the lowered CUDA
// carries the #line directives tilels --lower prints, at the lines of the
// current text, also for a kernel a session kept from an earlier analysis
// while lines were added above it. The default view has none.
func TestLineDirectivesSetting(t *testing.T) {
	src, err := os.ReadFile("../lower/testdata/line_directives.txtar")
	if err != nil {
		t.Fatal(err)
	}
	prog := strings.SplitN(strings.SplitN(string(src), "-- kernel.py --\n", 2)[1], "\n-- ", 2)[0] + "\n"
	u := uri.File("/w/k.py")
	want := func(text string) string {
		f := source.NewFile("/w/k.py", []byte(text))
		opts := lower.Options{Reference: "0.25"} // the test server's (startServerWith)
		res := lower.Analyze(f, opts)
		opts.LineDirectives = &lower.LineDirectives{Source: f, Path: "/w/k.py"}
		cu, err := lower.CUDA(res.Kernels, opts)
		if err != nil {
			t.Fatal(err)
		}
		return cu
	}

	plain := newClient(t, fullCaps(), "")
	plain.open(u, 1, prog)
	if cu, err := plain.lowerCmd(u, ""); err != nil || strings.Contains(cu, "#line") {
		t.Errorf("default view: %v, directives printed: %v", err, strings.Contains(cu, "#line"))
	}

	c := newClient(t, fullCaps(), `{"lineDirectives": true}`)
	c.open(u, 1, prog)
	c.waitDiags(u, 1)
	cu, err := c.lowerCmd(u, "")
	if err != nil || cu != want(prog) {
		t.Fatalf("view with lineDirectives: %v\n%s\nwant\n%s", err, cu, want(prog))
	}
	// Two comment lines in the first kernel: it is analysed again, the
	// second is kept (its spans now Shift away from the text).
	lines := strings.SplitAfter(prog, "\n")
	at := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "    for i in range(4):") {
			at = i
		}
	}
	add := "    # one\n    # two\n"
	moved := strings.Join(lines[:at], "") + add + strings.Join(lines[at:], "")
	c.change(u, 2, partial(uint32(at), 0, uint32(at), 0, add))
	c.waitDiags(u, 2)
	cu, err = c.lowerCmd(u, "")
	if err != nil || cu != want(moved) {
		t.Errorf("view after two lines were added above the second kernel: %v\n%s\nwant\n%s", err, cu, want(moved))
	}
}
