package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const example = "../../testdata/examples/copy_gmem_smem.py"

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"serve", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"serve", "--log-level", "loud"}, 2, `bad --log-level "loud"`},
		{[]string{"--lower"}, 2, "flag needs an argument"},
		{[]string{"--bogus"}, 2, "flag provided but not defined"},
		{[]string{"--lower", example, "--emit", "ptx"}, 2, `unknown --emit "ptx"`},
		{[]string{"--lower", "does-not-exist.py"}, 2, "no such file"},
		{[]string{example, "extra"}, 2, `unexpected argument`},
		{[]string{"--lower", example, "extra.py"}, 2, "stat extra.py: no such file"},
		{[]string{"--lower", example, "--kernel", "nope"}, 2, `no kernel named "nope"`},
		{[]string{"--lower", example, "--bind", "M=4"}, 2, "want FUNC:NAME=VALUE"},
		{[]string{"--lower", example, "--case", "-1"}, 2, "must not be negative"},
		{[]string{"--lower", example, "--case", "2"}, 2, "has a case 2"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("tilels %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
}

func TestEmit(t *testing.T) {
	code, out, stderr := runCLI("--lower", example, "--emit", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var top struct {
		Schema    int
		Tilels    string
		Reference string
		Files     []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &top); err != nil || len(top.Files) != 1 {
		t.Fatalf("--emit json: %v, %d files\n%s", err, len(top.Files), out)
	}
	if top.Schema != 1 || top.Tilels != "0.2.0" || top.Reference != "0.25.0.post1" {
		t.Errorf("document header %+v", top)
	}
	var doc struct {
		File    string
		Kernels []struct {
			Name  string
			Case  any
			Calls []struct {
				Op, Scope string
				Variant   *string
				Vec       *int64
				Outer     *int64
			}
		}
		Diagnostics []any
	}
	if err := json.Unmarshal(top.Files[0], &doc); err != nil {
		t.Fatalf("--emit json is not JSON: %v\n%s", err, out)
	}
	if len(doc.Kernels) != 1 || doc.Kernels[0].Name != "roundtrip" || doc.Kernels[0].Case != nil {
		t.Fatalf("kernels: %+v", doc.Kernels)
	}
	calls := doc.Kernels[0].Calls
	if len(calls) != 2 {
		t.Fatalf("want 2 calls, got %d", len(calls))
	}
	for _, c := range calls {
		if c.Variant == nil || *c.Variant != "gmem_smem" || c.Vec == nil || *c.Vec != 4 || c.Outer == nil || *c.Outer != 8 {
			t.Errorf("call %+v: want gmem_smem vec 4 outer 8", c)
		}
	}

	code, out, _ = runCLI("--lower", example)
	if code != 0 || !strings.Contains(out, "__global__") || !strings.Contains(out, "roundtrip_kernel") {
		t.Errorf("--emit cuda (default): exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("--lower", example, "--emit", "tirx")
	if code != 0 || !strings.Contains(out, "gmem_smem") {
		t.Errorf("--emit tirx: exit %d\n%s", code, out)
	}
}

func TestErrorExit(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.py")
	src := "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n\n@T.prim_func\ndef k(A_ptr: T.handle):\n    A = T.match_buffer(A_ptr, (32,), \"float32\")\n    T.device_entry()\n    T.thread_id([32])\n    Tx.warp.frobnicate(A[:], A[:])\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("--lower", bad, "--emit", "json")
	if code != 1 {
		t.Errorf("exit %d, want 1 (error diagnostic)", code)
	}
	if !strings.Contains(stderr, "bad.py:9:") || !strings.Contains(stderr, "error[") {
		t.Errorf("stderr should carry a positioned error:\n%s", stderr)
	}
}

func TestAtomicOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.cu")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("--lower", example, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), "__global__") {
		t.Fatalf("output not written: %v %q", err, data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// An unwritable destination fails with exit 2 and leaves nothing.
	if code, _, _ := runCLI("--lower", example, "-o", filepath.Join(dir, "missing", "k.cu")); code != 2 {
		t.Errorf("write into a missing directory: exit %d, want 2", code)
	}
}

// -o onto something that is not a regular file (a pipe here, /dev/null in
// CI scripts) writes into it instead of renaming a file over it.
func TestOutputToPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan []byte)
	go func() {
		data, _ := os.ReadFile(fifo)
		got <- data
	}()
	if code, _, stderr := runCLI("--lower", example, "-o", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data := <-got; !strings.Contains(string(data), "__global__") {
		t.Errorf("the pipe's reader got %d bytes without the kernel", len(data))
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
}

// --harness appends a main() that checks the kernels; it needs --emit cuda.
func TestHarnessFlag(t *testing.T) {
	code, out, stderr := runCLI("--lower", example, "--harness")
	if code != 0 || !strings.Contains(out, "int main(") || !strings.Contains(out, "tilels_ref_0") {
		t.Fatalf("exit %d, stderr %q, main present: %v", code, stderr, strings.Contains(out, "int main("))
	}
	if code, _, stderr := runCLI("--lower", example, "--harness", "--emit", "tirx"); code != 2 || !strings.Contains(stderr, "--harness needs --emit cuda") {
		t.Errorf("--harness --emit tirx: exit %d, %q", code, stderr)
	}
}

// A factory the file never calls: unbound without --bind, one case per
// bind; --case picks one case of a grid.
const factory = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout


def make(n, dtype):
    @T.prim_func
    def copy(A_ptr: T.handle, B_ptr: T.handle):
        A = T.match_buffer(A_ptr, (32, n), dtype)
        B = T.match_buffer(B_ptr, (32, n), dtype)
        T.device_entry()
        T.cta_id([1])
        T.lane_id([32])
        T.thread_id([32])
        A_s = T.alloc_buffer((32, n), dtype, scope="shared", layout=TileLayout(S[32, n]))
        Tx.warp.copy(A_s[:, :], A[:, :])
        Tx.warp.copy(B[:, :], A_s[:, :])
    return copy
`

func TestBindAndCase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "factory.py")
	if err := os.WriteFile(path, []byte(factory), 0o644); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Kernels []struct {
			Name  string
			Case  map[string]string
			Needs []string
			Calls []struct{ Vec *int64 }
		}
	}
	parse := func(out string) doc {
		t.Helper()
		var d struct{ Files []doc }
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Files) != 1 {
			t.Fatalf("not JSON with one file: %v\n%s", err, out)
		}
		return d.Files[0]
	}
	_, out, stderr := runCLI("--lower", path, "--emit", "json")
	if d := parse(out); len(d.Kernels) != 1 || len(d.Kernels[0].Needs) == 0 || d.Kernels[0].Needs[0] != "n" || !strings.Contains(stderr, "eval/unbound") {
		t.Errorf("unbound factory: kernels %+v, stderr %q; want one record that needs n, and eval/unbound", d.Kernels, stderr)
	}
	if code, _, stderr := runCLI("--lower", path, "--bind", "make:n=64", "--bind", "make:n=8"); code != 2 || !strings.Contains(stderr, "make bound twice") {
		t.Errorf("--bind twice: exit %d, %q", code, stderr)
	}
	code, out, stderr := runCLI("--lower", path, "--emit", "json", "--bind", "make:n=64, dtype='float16'")
	d := parse(out)
	if code != 0 || len(d.Kernels) != 1 || d.Kernels[0].Case["n"] != "64" || d.Kernels[0].Case["dtype"] != "'float16'" {
		t.Fatalf("--bind: exit %d, kernels %+v, stderr %s", code, d.Kernels, stderr)
	}
	if v := d.Kernels[0].Calls[0].Vec; v == nil || *v != 8 {
		t.Errorf("--bind n=64 float16: vec %v, want 8", v)
	}
}

func TestCaseFlag(t *testing.T) {
	grid := strings.Replace(factory, "def make(n, dtype):", "# tilels: bind n=64, dtype='float16'\n# tilels: bind n=8, dtype='float32'\ndef make(n, dtype):", 1)
	path := filepath.Join(t.TempDir(), "grid.py")
	if err := os.WriteFile(path, []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	code, all, stderr := runCLI("--lower", path, "--emit", "tirx")
	if code != 0 || !strings.Contains(all, "def copy_case1(") || !strings.Contains(all, "def copy_case2(") {
		t.Fatalf("two cases: exit %d, stderr %s\n%s", code, stderr, all)
	}
	code, one, stderr := runCLI("--lower", path, "--emit", "tirx", "--case", "2")
	if code != 0 || strings.Contains(one, "def copy_case1(") || !strings.Contains(one, "def copy_case2(") || !strings.Contains(one, `"float32"`) {
		t.Errorf("--case 2: exit %d, stderr %s\n%s", code, stderr, one)
	}
	code, capped, _ := runCLI("--lower", path, "--emit", "tirx", "--max-cases", "1")
	if code != 0 || strings.Contains(capped, "def copy_case2(") {
		t.Errorf("--max-cases 1: exit %d\n%s", code, capped)
	}
}
