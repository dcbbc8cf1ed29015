package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestImportedConfigsEdit: issue 15's second half on the shape of the
// largest TIRx-kernels file (flashkda's bf16_fused_m128_tx_tile.py): a
// @T.jit kernel that a factory specializes once per entry of the CONFIGS
// of the module it imports its helpers from. Keystrokes inside the
// kernel (each analyses the whole file: module-level code names the
// kernel) and an unsaved edit of the imported module's CONFIGS both
// update the importing document; after the module's edit, keystrokes in
// the kernel keep the module's new text.
func TestImportedConfigsEdit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("pkg/__init__.py", "")
	baseSrc := `from tvm.script import tirx as T

CONFIGS = [
    {"label": "small", "rows": 16},
    {"label": "big", "rows": 32},
]


def _cfg(**kwargs):
    return kwargs["rows"]


def _sync():
    T.cuda.cta_sync()
`
	base := write("pkg/base.py", baseSrc)
	tileSrc := `from pkg.base import _cfg, _sync
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.jit
def _kernel(A: T.Buffer((rows, 64), "float16"), *, rows: T.constexpr):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 64), "float16", scope="shared")
    Tx.cta.copy(A_s[0:rows, :], A[:, :])
    _sync()


def tile_kernel(**kwargs):
    rows = _cfg(**kwargs)
    return _kernel.specialize(rows=rows)
`
	tile := write("pkg/tile.py", tileSrc)
	c := newClientIn(t, fullCaps(), "", dir)
	tileURI, baseURI := uri.File(tile), uri.File(base)
	const oob = "eval/out-of-bounds"
	c.open(tileURI, 1, tileSrc)
	if d := c.waitDiags(tileURI, 1); hasCode(d, oob) {
		t.Fatalf("rows 16 and 32: unexpected diagnostics %+v", d.Diagnostics)
	}
	// A space typed after the copy's "(" (line 11), then deleted.
	col := uint32(strings.Index(strings.Split(tileSrc, "\n")[11], "(") + 1)
	typeSpace := partial(11, col, 11, col, " ")
	deleteSpace := partial(11, col, 11, col+1, "")
	c.change(tileURI, 2, typeSpace)
	if d := c.waitDiags(tileURI, 2); hasCode(d, oob) {
		t.Fatalf("keystroke: unexpected diagnostics %+v", d.Diagnostics)
	}

	// The imported module's CONFIGS edited, unsaved: the "big" case
	// overflows A_s.
	c.open(baseURI, 1, baseSrc)
	c.change(baseURI, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: strings.Replace(baseSrc, `"rows": 32`, `"rows": 48`, 1)})
	c.waitDiagsWhere(tileURI, "CONFIGS edited", func(d *protocol.PublishDiagnosticsParams) bool {
		return hasDiag(d, oob, "[case rows=48]")
	})

	// A keystroke in the kernel after the module's edit keeps it.
	c.change(tileURI, 3, deleteSpace)
	if d := c.waitDiags(tileURI, 3); !hasDiag(d, oob, "[case rows=48]") {
		t.Errorf("keystroke after the module's edit: want the rows=48 case's %s, got %+v", oob, d.Diagnostics)
	}

	// The module's edit undone: the importer is clean again.
	c.change(baseURI, 3, &protocol.TextDocumentContentChangeWholeDocument{Text: baseSrc})
	c.waitDiagsWhere(tileURI, "CONFIGS restored", func(d *protocol.PublishDiagnosticsParams) bool { return !hasCode(d, oob) })
	c.change(tileURI, 4, typeSpace)
	if d := c.waitDiags(tileURI, 4); hasCode(d, oob) {
		t.Errorf("keystroke after the module's edit was undone: unexpected diagnostics %+v", d.Diagnostics)
	}
}

// hasDiag reports whether d has a diagnostic with code whose message
// contains text.
func hasDiag(d *protocol.PublishDiagnosticsParams, code, text string) bool {
	for _, x := range d.Diagnostics {
		msg, _ := x.Message.(protocol.String)
		if s, ok := x.Code.(protocol.String); ok && string(s) == code && strings.Contains(string(msg), text) {
			return true
		}
	}
	return false
}
