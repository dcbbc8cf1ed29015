package lsp

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestPictureCommand: tilels.picture draws the call at a position (SVG
// and Unicode, both pictures or one), answers null outside every call,
// and rejects bad arguments.
func TestPictureCommand(t *testing.T) {
	c := newClient(t, fullCaps(), "")
	u := uri.File("/w/k.py")
	c.open(u, 1, roundtripSrc)
	c.waitDiags(u, 1)
	picture := func(args ...any) (json.RawMessage, error) {
		return c.call("workspace/executeCommand", map[string]any{"command": cmdPicture, "arguments": args})
	}
	if res, err := picture(string(u), map[string]int{"line": 1, "character": 5}); err != nil || string(res) != "null" {
		t.Fatalf("outside every call: %s, %v; want null", res, err)
	}
	// Line 17 (0-based 16) is the store back to global memory.
	res, err := picture(string(u), map[string]int{"line": 16, "character": 20})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Title, Kernel, SVG, Text string
		Line                     int
	}
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	if got.Kernel != "roundtrip" || got.Line != 17 || got.Title != "roundtrip · line 17 · Tx.warp.copy → gmem_smem vec 4" {
		t.Errorf("answer %+v", got)
	}
	if err := xml.Unmarshal([]byte(got.SVG), new(struct{})); err != nil || !strings.HasPrefix(got.SVG, "<svg ") {
		t.Errorf("svg is not an SVG document: %v\n%.200s", err, got.SVG)
	}
	if !strings.Contains(got.Text, "partition of A_smem[0:32, 0:32]: 32 threads, from lowered code") || !strings.Contains(got.Text, "bank map: shared load A_smem, 16 B") {
		t.Errorf("text:\n%s", got.Text)
	}
	res, err = picture(string(u), map[string]int{"line": 16, "character": 20}, "bank")
	if err != nil || strings.Contains(string(res), "partition of") || !strings.Contains(string(res), "bank map") {
		t.Errorf("bank only: %v %.300s", err, res)
	}
	for _, bad := range [][]any{
		{string(u)},
		{string(u), "roundtrip"},
		{string(u), map[string]int{"line": 16, "character": 20}, "banks"},
		{42, map[string]int{"line": 16, "character": 20}},
	} {
		if _, err := picture(bad...); rpcCode(err) != jsonrpc2.InvalidParams {
			t.Errorf("arguments %v: %v, want InvalidParams", bad, err)
		}
	}
}

// TestHoverPicture: a hover on a call's callee shows its pictures, before
// the lowered code, as the hoverPicture setting asks: a Unicode grid by default, an SVG data:
// image with "image", nothing with "off"; elsewhere in the call there is
// none.
func TestHoverPicture(t *testing.T) {
	for _, tc := range []struct{ opts, want, not string }{
		{"", "**Picture**\n```text\npartition of A_smem[0:32, 0:32]", "data:image"},
		{`{"hoverPicture": "image"}`, "![partition and bank map](data:image/svg+xml;base64,", "**Picture**"},
		{`{"hoverPicture": "off"}`, "", "**Picture**"},
		// An unknown value is refused: the default stays.
		{`{"hoverPicture": "svg"}`, "**Picture**\n```text\n", "data:image"},
	} {
		c := newClient(t, fullCaps(), tc.opts)
		u := uri.File("/w/k.py")
		c.open(u, 1, roundtripSrc)
		c.waitDiags(u, 1)
		md := hoverMarkdown(t, c, u, 14, 8) // Tx.warp.copy of line 15
		if !strings.Contains(md, tc.want) || strings.Contains(md, tc.not) {
			t.Errorf("settings %s: hover\n%s", tc.opts, md)
		}
		if i := strings.Index(md, "**TIRx**"); tc.want != "" && (i < 0 || strings.Index(md, tc.want) > i) {
			t.Errorf("settings %s: the picture is not before the lowered code", tc.opts)
		}
		if tc.opts == `{"hoverPicture": "image"}` {
			i := strings.Index(md, "base64,") + len("base64,")
			data, err := base64.StdEncoding.DecodeString(md[i : i+strings.IndexByte(md[i:], ')')])
			if err != nil || xml.Unmarshal(data, new(struct{})) != nil {
				t.Errorf("the image is not a base64 SVG: %v", err)
			}
		}
		if md := hoverMarkdown(t, c, u, 14, 30); strings.Contains(md, "**Picture**") || strings.Contains(md, "data:image") {
			t.Errorf("settings %s: a hover on the arguments has a picture", tc.opts)
		}
	}
}

func hoverMarkdown(t *testing.T, c *testClient, u uri.URI, line, char uint32) string {
	t.Helper()
	h := c.hover(u, pos(line, char))
	if h == nil {
		t.Fatalf("no hover at %d:%d", line, char)
	}
	m, ok := h.Contents.(*protocol.MarkupContent)
	if !ok {
		t.Fatalf("hover contents %T", h.Contents)
	}
	return m.Value
}
