package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// hoverKind is the line a scenario's hover golden starts with when the
// hover is not Markdown ("kind plaintext").
func hoverKind(h *protocol.Hover) string {
	if m, ok := h.Contents.(*protocol.MarkupContent); ok && m.Kind != protocol.MarkupKindMarkdown {
		return "kind " + string(m.Kind) + "\n"
	}
	return ""
}

const hoverFormatKernel = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def small_tile(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 6), "float32", scope="shared", layout=TileLayout(S[4, 6]))
    Tx.warp.copy(A_smem[:, :], A[:, :])
`

// TestHoverFormat checks the hoverFormat setting against the client's
// hover contentFormat: "auto" sends Markdown only to a client that lists
// it, "markdown" and "plaintext" force one; a plain hover has no table,
// emphasis or code marks, and says what the Markdown says.
func TestHoverFormat(t *testing.T) {
	plainCaps := fullCaps()
	plainCaps.TextDocument.Hover = &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.MarkupKindPlainText}}
	noHoverCaps := fullCaps()
	noHoverCaps.TextDocument.Hover = nil
	for _, tc := range []struct {
		name     string
		caps     protocol.ClientCapabilities
		settings string
		want     protocol.MarkupKind
	}{
		{"auto/markdown client", fullCaps(), "", protocol.MarkupKindMarkdown},
		{"auto/plaintext client", plainCaps, "", protocol.MarkupKindPlainText},
		{"auto/no hover capability", noHoverCaps, `{"hoverFormat": "auto"}`, protocol.MarkupKindPlainText},
		{"markdown forced", plainCaps, `{"hoverFormat": "markdown"}`, protocol.MarkupKindMarkdown},
		{"plaintext forced", fullCaps(), `{"hoverFormat": "plaintext"}`, protocol.MarkupKindPlainText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClientIn(t, tc.caps, tc.settings, "/tilels-test")
			u := uri.File("/tilels-test/kernel.py")
			c.open(u, 1, hoverFormatKernel)
			c.waitDiags(u, 1)
			m := NewMapper([]byte(hoverFormatKernel))
			h := c.hover(u, m.Position(strings.Index(hoverFormatKernel, "copy(")))
			mc, ok := h.Contents.(*protocol.MarkupContent)
			if h == nil || !ok {
				t.Fatalf("no hover: %v", h)
			}
			if mc.Kind != tc.want {
				t.Fatalf("hover kind %s, want %s", mc.Kind, tc.want)
			}
			if tc.want == protocol.MarkupKindMarkdown {
				if !strings.Contains(mc.Value, "|---|") || !strings.Contains(mc.Value, "**`Tx.warp.copy`**") {
					t.Errorf("markdown hover without its table or emphasis:\n%s", mc.Value)
				}
				return
			}
			for _, bad := range []string{"|---|", "| `", "**", "```", "`"} {
				if strings.Contains(mc.Value, bad) {
					t.Errorf("plain hover contains %q:\n%s", bad, mc.Value)
				}
			}
			for _, want := range []string{"Tx.warp.copy → fallback", "gmem_smem   10    rejected: region size 24 not divisible by thread_cnt=32", "fallback    0     selected", "\n    if T.lane_id() == 0:\n"} {
				if !strings.Contains(mc.Value, want) {
					t.Errorf("plain hover lacks %q:\n%s", want, mc.Value)
				}
			}
		})
	}
}

// TestHintAndHoverSettings checks the values inlayHintStyle and
// hoverFormat accept; a bad value changes nothing.
func TestHintAndHoverSettings(t *testing.T) {
	for _, tc := range []struct {
		raw, err string
		style    string
		format   string
	}{
		{raw: `{"inlayHintStyle": "terse", "hoverFormat": "plaintext"}`, style: "terse", format: "plaintext"},
		{raw: `{"inlayHintStyle": "readable", "hoverFormat": "markdown"}`, style: "readable", format: "markdown"},
		{raw: `{"inlayHintStyle": null, "hoverFormat": "auto"}`, format: "auto"},
		{raw: `{"inlayHintStyle": "short"}`, err: "inlayHintStyle must be readable or terse"},
		{raw: `{"inlayHintStyle": 1}`, err: "inlayHintStyle must be readable or terse"},
		{raw: `{"hoverFormat": "html"}`, err: "hoverFormat must be auto, markdown or plaintext"},
	} {
		got, err := mergeSettings(defaultSettings(), []byte(tc.raw))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || got.InlayHintStyle != "" || got.HoverFormat != "" {
				t.Errorf("%s: err %v, want %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil || got.InlayHintStyle != tc.style || got.HoverFormat != tc.format {
			t.Errorf("%s: %+v, %v", tc.raw, got, err)
		}
	}
}
