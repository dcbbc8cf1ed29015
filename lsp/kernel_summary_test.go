package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestKernelSummary: tilels.kernelSummary answers null outside every
// kernel def, answers from the newest version (an edit that moves the def
// and changes a variant is seen at once, without waiting for the
// diagnostics), and rejects bad arguments.
func TestKernelSummary(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)
	summary := func(args ...any) (json.RawMessage, error) {
		return c.call("workspace/executeCommand", map[string]any{"command": cmdKernelSummary, "arguments": args})
	}

	// Line 1 is an import, outside every def.
	res, err := summary(string(u), map[string]int{"line": 1, "character": 5})
	if err != nil || string(res) != "null" {
		t.Fatalf("outside every def: %s, %v; want null", res, err)
	}
	// Line 15 (0-based 14) is the first copy of roundtrip.
	res, err = summary(string(u), map[string]int{"line": 14, "character": 10})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Kernel, Summary, Text string
		Calls                 int
		Range                 protocol.Range
	}
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	if got.Kernel != "roundtrip" || got.Summary != "copy: gmem_smem ×2" || got.Text != "roundtrip · copy: gmem_smem ×2" || got.Calls != 2 {
		t.Errorf("summary %s", res)
	}
	if got.Range.Start.Line != 5 {
		t.Errorf("range %+v, want the def's segment from its decorator (line 6)", got.Range)
	}

	// Two lines above the def, and a 4x6 second copy: fallback. The
	// command must see version 2 at once.
	line := strings.Split(roundtripSrc, "\n")[16]
	c.change(u, 2, partial(16, 0, 16, uint32(len(line)), "    Tx.warp.copy(B[0:4, 0:6], A_smem[0:4, 0:6])"), partial(0, 0, 0, 0, "# a\n# b\n"))
	res, err = summary(string(u), map[string]int{"line": 16, "character": 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary != "copy: gmem_smem ×1 · fallback ×1" || got.Range.Start.Line != 7 {
		t.Errorf("after the edit: %s", res)
	}

	for _, bad := range [][]any{
		{string(u)},
		{string(u), map[string]int{"line": 14}, 3},
		{42, map[string]int{"line": 14, "character": 0}},
		{string(u), true},
		{string(u), "nope"},
	} {
		if _, err := summary(bad...); rpcCode(err) != jsonrpc2.InvalidParams {
			t.Errorf("arguments %v: %v, want InvalidParams", bad, err)
		}
	}
	if _, err := summary(string(uri.File("/w/closed.py")), "roundtrip"); rpcCode(err) != requestFailed {
		t.Errorf("a document that is not open: %v, want RequestFailed", err)
	}
}
