package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// renderOutputRanges asks tilels/outputRanges for the view of kind ("cu"
// or "tirx") of kernel ("" for all) over the wire, checks it against the
// view's text (workspace/textDocumentContent) and the source, and renders
// it: each range's kind, source range and text, output lines and first
// output line. Checked: every output range is non-empty and inside the
// view; a call's range starts at its "Tx..." comment and lies inside its
// kernel's; its source text is a Tx call; the round trip from the
// call's source start to the innermost range, and from every output line
// of it back to the same source range.
func renderOutputRanges(t *testing.T, c *testClient, u uri.URI, src, kind, name string) string {
	t.Helper()
	view := loweredURI(u, kind, name)
	raw, err := c.call(methodOutputRanges, map[string]string{"uri": string(view)})
	if err != nil {
		t.Fatalf("%s: %v", methodOutputRanges, err)
	}
	var res outputRangesResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s result %s: %v", methodOutputRanges, raw, err)
	}
	content, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: view})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimSuffix(content.Text, "\n"), "\n")
	m := NewMapper([]byte(src))
	if res.Source != u {
		t.Errorf("source %s, want %s", res.Source, u)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "version %d, %d lines\n", res.Version, len(out))
	var kernel outputRange
	for _, r := range res.Ranges {
		s, e := int(r.Output.Start.Line), int(r.Output.End.Line)
		if s >= e || e > len(out) || r.Output.Start.Character != 0 || r.Output.End.Character != 0 {
			t.Errorf("%s %s: output %s is not a non-empty range of whole lines of the %d", r.Kind, r.Kernel, rangeString(&r.Output), len(out))
			continue
		}
		text := string(m.text[m.Offset(r.Source.Start):m.Offset(r.Source.End)])
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i] + "…"
		}
		first := strings.TrimSpace(out[s])
		fmt.Fprintf(&b, "%s %s %s %q -> lines %d-%d %q\n", r.Kind, r.Kernel, rangeString(&r.Source), text, s+1, e, first)
		if r.Kind == "kernel" {
			kernel = r
			continue
		}
		if r.Kernel != kernel.Kernel || s < int(kernel.Output.Start.Line) || e > int(kernel.Output.End.Line) {
			t.Errorf("call %q: lines %d-%d outside its kernel %s", text, s+1, e, kernel.Kernel)
		}
		if !strings.HasPrefix(text, "Tx.") || !strings.Contains(first, "Tx.") || !strings.Contains(first, " -> ") {
			t.Errorf("call %q: output starts with %q", text, first)
		}
		if to := innermost(res.Ranges, func(x outputRange) bool { return inRange(x.Source, r.Source.Start) }); to == nil || to.Output != r.Output {
			t.Errorf("call %q: its start reveals %v, want lines %d-%d", text, to, s+1, e)
		}
		for l := s; l < e; l++ {
			if back := innermost(res.Ranges, func(x outputRange) bool { return int(x.Output.Start.Line) <= l && l < int(x.Output.End.Line) }); back == nil || back.Source != r.Source {
				t.Errorf("call %q: output line %d reveals %v", text, l+1, back)
				break
			}
		}
	}
	return b.String()
}

// innermost is the first call range that ok accepts, else the first
// kernel range: what a client reveals.
func innermost(rs []outputRange, ok func(outputRange) bool) *outputRange {
	var best *outputRange
	for i := range rs {
		if ok(rs[i]) && (best == nil || rs[i].Kind == "call" && best.Kind != "call") {
			best = &rs[i]
		}
	}
	return best
}

func inRange(r protocol.Range, p protocol.Position) bool {
	before := func(a, b protocol.Position) bool {
		return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character
	}
	return before(r.Start, p) && !before(r.End, p)
}

// TestOutputRangesErrors checks the request's answers outside the map:
// a URI that is not a lowered view is invalid params; a view of a source
// that is not open has no ranges.
func TestOutputRangesErrors(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	if _, err := c.call(methodOutputRanges, map[string]string{"uri": "file:///x.py"}); err == nil || !strings.Contains(err.Error(), "not a tilels-lowered URI") {
		t.Errorf("a file URI: err %v", err)
	}
	raw, err := c.call(methodOutputRanges, map[string]string{"uri": string(loweredURI(uri.File("/nowhere/k.py"), "cu", ""))})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw); !strings.Contains(got, `"ranges":[]`) || !strings.Contains(got, `"version":-1`) {
		t.Errorf("a closed source: %s", got)
	}
}
