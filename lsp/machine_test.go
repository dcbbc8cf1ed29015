package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// machineSrc is a kernel whose machine code the tests compile.
const machineSrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def roundtrip(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[32, 32]))
    Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])
`

// machineJobs makes the machine-code jobs of the documents named u
// report to a channel.
func machineJobs(t *testing.T, u uri.URI) chan *document {
	ch := make(chan *document, 64)
	f := func(d *document) {
		if d.uri == u {
			ch <- d
		}
	}
	machineHook.Store(&f)
	t.Cleanup(func() { machineHook.Store(nil) })
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the compiler's disk cache
	return ch
}

func waitJob(t *testing.T, ch chan *document) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("no machine-code job ran")
	}
}

func (c *testClient) codeLenses(u uri.URI) []protocol.CodeLens {
	c.t.Helper()
	raw, err := c.call("textDocument/codeLens", &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		c.t.Fatal(err)
	}
	var ls []protocol.CodeLens
	if err := json.Unmarshal(raw, &ls); err != nil {
		c.t.Fatal(err)
	}
	return ls
}

func (c *testClient) content(u uri.URI) string {
	c.t.Helper()
	raw, err := c.call("workspace/textDocumentContent", &protocol.TextDocumentContentParams{URI: u})
	if err != nil {
		c.t.Fatal(err)
	}
	var res protocol.TextDocumentContentResult
	if err := json.Unmarshal(raw, &res); err != nil {
		c.t.Fatal(err)
	}
	return res.Text
}

// defPos is the position of the kernel's name.
func defPos(src, name string) protocol.Position {
	i := strings.Index(src, "def "+name)
	line := strings.Count(src[:i], "\n")
	return protocol.Position{Line: uint32(line), Character: 5}
}

// TestMachineCode: with tilels.nvcc naming the fake toolchain
// (perf/machine/testdata/fake: 40 registers, 4 KB static shared, 8
// bytes spilled, 1 barrier, two LDS.128 and one STG.E.128), the def's
// hover says "compiling…" until the background job is done, then the
// figures; its code lens summarises them and opens the SASS view; the
// PTX and SASS views show the compiler's text.
func TestMachineCode(t *testing.T) {
	u := uri.File(filepath.Join(t.TempDir(), "k.py"))
	jobs := machineJobs(t, u)
	nvcc, err := filepath.Abs("../perf/machine/testdata/fake/nvcc")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, fullCaps(), `{"nvcc": `+string(mustJSON(nvcc))+`}`)
	// Until the document rests, nothing is compiled: the hover says so.
	defer func(d time.Duration) { machineDelay = d }(machineDelay)
	machineDelay = time.Hour
	c.open(u, 1, machineSrc)
	c.waitDiags(u, 1)
	h := ""
	for range 1000 { // the compiler is found right after the diagnostics are sent
		if h = hoverValue(c.hover(u, defPos(machineSrc, "roundtrip"))); h != "" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if !strings.Contains(h, "compiling…") {
		t.Errorf("hover before the job: %q", h)
	}
	if ls := c.codeLenses(u); len(ls) != 2 || ls[1].Command.Title != "machine code: compiling…" {
		t.Errorf("lenses before the job: %+v", ls)
	}
	// An edit reschedules the job; now it runs after a short rest.
	machineDelay = 10 * time.Millisecond
	c.change(u, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: machineSrc + "\n"})
	c.waitDiags(u, 2)
	waitJob(t, jobs)
	h = hoverValue(c.hover(u, defPos(machineSrc, "roundtrip")))
	for _, want := range []string{"nvcc 99.1.2 -arch=sm_90a -O2", "registers: 40 per thread", "spills: 8 bytes stored",
		"4096 bytes static + 0 bytes dynamic", "occupancy: ", "SASS memory instructions: LDS.128 ×2, STG.E.128 ×1"} {
		if !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}
	var lens *protocol.CodeLens
	for _, l := range c.codeLenses(u) {
		if strings.Contains(l.Command.Title, "regs") {
			lens = &l
		}
	}
	if lens == nil || !strings.HasPrefix(lens.Command.Title, "40 regs · 8 B spilled · 4 KB smem · ") || len(lens.Command.Arguments) != 3 || string(lens.Command.Arguments[2]) != `"sass"` {
		t.Fatalf("machine lens: %+v", lens)
	}
	sass := c.content(loweredURI(u, "sass", "roundtrip"))
	if !strings.Contains(sass, "LDS.128 R4, [R2]") || !strings.Contains(sass, "===== kernel roundtrip") {
		t.Errorf("SASS view:\n%s", sass)
	}
	if ptx := c.content(loweredURI(u, "ptx", "")); !strings.Contains(ptx, ".visible .entry roundtrip_kernel()") {
		t.Errorf("PTX view:\n%s", ptx)
	}
	raw, err := c.call("workspace/executeCommand", &protocol.ExecuteCommandParams{Command: cmdShowLowered,
		Arguments: []protocol.LSPAny{mustJSON(string(u)), mustJSON("roundtrip"), mustJSON("ptx")}})
	if err != nil || !strings.Contains(string(raw), ".ptx?kernel") {
		t.Errorf("showLowered ptx: %s %v", raw, err)
	}

	// An edit that changes the kernel compiles it again, after a rest.
	edited := strings.Replace(machineSrc, "(32, 32), \"float32\", scope", "(32, 32), \"float32\",  scope", 1)
	c.change(u, 3, &protocol.TextDocumentContentChangeWholeDocument{Text: edited})
	c.waitDiags(u, 3)
	waitJob(t, jobs)
	if h := hoverValue(c.hover(u, defPos(edited, "roundtrip"))); !strings.Contains(h, "registers: 40") {
		t.Errorf("hover after the edit:\n%s", h)
	}

	// A kernel nvcc rejects (the fake rejects this name): the hover and
	// lens say so, the view shows nvcc's complaint.
	bad := strings.Replace(machineSrc, "def roundtrip(", "def tilels_fake_error(", 1)
	c.change(u, 4, &protocol.TextDocumentContentChangeWholeDocument{Text: bad})
	c.waitDiags(u, 4)
	waitJob(t, jobs)
	if h := hoverValue(c.hover(u, defPos(bad, "tilels_fake_error"))); !strings.Contains(h, "machine code: none: nvcc -arch=sm_90a -O2 failed") {
		t.Errorf("hover of a kernel nvcc rejects:\n%s", h)
	}
	if v := c.content(loweredURI(u, "sass", "")); !strings.Contains(v, "asked to fail") {
		t.Errorf("SASS view of a kernel nvcc rejects:\n%s", v)
	}
}

// TestMachineCodeNoNVCC: without an nvcc (no setting, no $TILELS_NVCC,
// none on PATH: the harness gives the server an empty environment) the def has no machine hover and no machine lens, and
// the SASS view says how to get one.
func TestMachineCodeNoNVCC(t *testing.T) {
	u := uri.File(filepath.Join(t.TempDir(), "k.py"))
	jobs := machineJobs(t, u)
	c := newClient(t, fullCaps(), "")
	c.open(u, 1, machineSrc)
	c.waitDiags(u, 1)
	waitJob(t, jobs)
	if h := hoverValue(c.hover(u, defPos(machineSrc, "roundtrip"))); h != "" {
		t.Errorf("hover without nvcc: %q", h)
	}
	for _, l := range c.codeLenses(u) {
		if l.Command.Command == cmdShowLowered && len(l.Command.Arguments) == 3 {
			t.Errorf("a machine lens without nvcc: %+v", l)
		}
	}
	if sass := c.content(loweredURI(u, "sass", "roundtrip")); !strings.Contains(sass, "no nvcc: set tilels.nvcc") {
		t.Errorf("SASS view without nvcc:\n%s", sass)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "tilels")); err == nil {
		t.Errorf("something was cached without a compiler")
	}
}
