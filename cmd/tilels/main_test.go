package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tilels/tilels/headless"
	"github.com/tilels/tilels/internal/version"
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
		{[]string{"--lower", example, "--emit", "asm"}, 2, `unknown --emit "asm"`},
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
	if top.Schema != 1 || top.Tilels != version.Release || top.Reference != "0.25.0.post1" {
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

// --harness leaves out a kernel its reference does not model (a scalar
// parameter without a launch value) and checks the others; a file with
// none left writes nothing.
func TestHarnessSkipsUnsupported(t *testing.T) {
	const two = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def sized(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([n])
    T.thread_id([64])
    A_s = T.alloc_buffer((64,), "float32", scope="shared")
    Tx.cta.copy(A_s[:], A[:])


@T.prim_func
def fixed(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([64])
    A_s = T.alloc_buffer((64,), "float32", scope="shared")
    Tx.cta.copy(A_s[:], A[:])
`
	dir := t.TempDir()
	both, only := filepath.Join(dir, "both.py"), filepath.Join(dir, "only.py")
	writeFile(t, both, two)
	writeFile(t, only, two[:strings.Index(two, "\n\n@T.prim_func\ndef fixed")]+"\n")
	code, out, stderr := runCLI("--lower", both, "--harness")
	if code != 0 || !strings.Contains(stderr, "warning[harness/skipped]: kernel sized is left out of the harness: scalar kernel parameter n") ||
		!strings.Contains(out, "fixed_launch(") || strings.Contains(out, "sized_launch(reinterpret_cast") {
		t.Errorf("two kernels: exit %d, stderr %q", code, stderr)
	}
	code, out, stderr = runCLI("--lower", only, "--harness")
	if code != 1 || out != "" || !strings.Contains(stderr, "no kernel of") {
		t.Errorf("one unsupported kernel: exit %d, %d bytes out, stderr %q", code, len(out), stderr)
	}
}

// A kernel whose T.ptx.addr operand the host reference does not model is
// launched unchecked (harness/unchecked, RAN): a profiler still sees its
// launch; its sibling is checked as before.
func TestHarnessUnchecked(t *testing.T) {
	const src = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def own_ptx(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "uint32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S_s = T.alloc_buffer((32,), "uint32", scope="shared")
    S_s[tid] = A[tid]
    T.cuda.cta_sync()
    T.ptx.wgmma.fence.sync.aligned()
    A[tid] = S_s[31 - tid]


@T.prim_func
def fixed(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([64])
    A_s = T.alloc_buffer((64,), "float32", scope="shared")
    Tx.cta.copy(A_s[:], A[:])
`
	f := filepath.Join(t.TempDir(), "k.py")
	writeFile(t, f, src)
	code, out, stderr := runCLI("--lower", f, "--harness")
	if code != 0 || !strings.Contains(stderr, "warning[harness/unchecked]: kernel own_ptx is launched but not checked: T.ptx.wgmma.fence.sync.aligned is not modelled by the reference") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	run0 := out[strings.Index(out, "static int tilels_run_0("):]
	run0 = run0[:strings.Index(run0, "\n}\n")]
	for _, want := range []string{"own_ptx_launch(", `printf("RAN %s (not checked: %s)\n", kname, "T.ptx.wgmma.fence.sync.aligned is not modelled by the reference");`} {
		if !strings.Contains(run0, want) {
			t.Errorf("the unchecked kernel's run lacks %q:\n%s", want, run0)
		}
	}
	if strings.Contains(run0, "tilels_ref_0(") || strings.Contains(out, "static void tilels_ref_0(") {
		t.Errorf("the unchecked kernel has a reference:\n%s", run0)
	}
	if !strings.Contains(out, "tilels_ref::tilels_ref_1(hosts, defs);") || !strings.Contains(out, "printf(\"PASS %s\\n\", kname);") {
		t.Errorf("the checked sibling lost its check")
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

const examples = "../../testdata/examples/"

// runIn is runCLI with stdin.
func runIn(stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, stdin, &o, &e)
	return code, o.String(), e.String()
}

// unread fails the test when the command reads standard input: a
// refused request must be refused before any input is read.
type unread struct{ t *testing.T }

func (u unread) Read([]byte) (int, error) {
	u.t.Error("standard input was read")
	return 0, io.EOF
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyExample(t *testing.T, name, to string) {
	t.Helper()
	src, err := os.ReadFile(examples + name)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(src))
}

// files decodes a --emit json document's file records.
func files(t *testing.T, out string) []struct {
	File        string
	Kernels     []struct{ Name string }
	Diagnostics []struct{ Severity, Code string }
} {
	t.Helper()
	var doc struct {
		Schema int
		Files  []struct {
			File        string
			Kernels     []struct{ Name string }
			Diagnostics []struct{ Severity, Code string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != 1 {
		t.Fatalf("not a schema 1 document: %v\n%s", err, out)
	}
	return doc.Files
}

// TestRefused: each request is refused with exit 2 and one line on stderr,
// before standard input (the second input) is read and before any output
// is written.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "k.py")
	copyExample(t, "copy_gmem_smem.py", in)
	if err := os.Symlink(in, filepath.Join(dir, "link.cu")); err != nil {
		t.Fatal(err)
	}
	copyExample(t, "copy_reg.py", filepath.Join(dir, "k.cu", "..", "sub", "k.cu"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lower", in, "--lower", "-"}, "-lower: given twice"},
		{[]string{"--lower", in, "-", "--arch", "sm_91"}, `--arch "sm_91" is not a real CUDA architecture`},
		{[]string{"--lower", in, "-", "--arch", "sm_80a"}, "sm_80 has no arch-specific (a) variant"},
		{[]string{"--lower", in, "-", "--arch", "sm_90f"}, "sm_90 has no family (f) variant"},
		{[]string{"--lower", in, "-", "--arch", "compute_90"}, "is not a CUDA target"},
		{[]string{"--lower", in, "-", "--arch", "sm_"}, "is not a CUDA target"},
		{[]string{"--lower", in, "-", "--arch", "90"}, "is not a CUDA target"},
		{[]string{"--lower", in, "-", "-o", in}, "is the input file"},
		{[]string{"--lower", "-", in, "-o", filepath.Join(dir, "..", filepath.Base(dir), "k.py")}, "is the input file"},
		{[]string{"--lower", filepath.Join(dir, "link.cu"), "-", "-o", in}, "is the input file"}, // os.SameFile through a link
		// -o DIR: sub/k.cu is an input and the output of k.py.
		{[]string{"--lower", in, filepath.Join(dir, "sub", "k.cu"), "-", "-o", filepath.Join(dir, "sub")}, "is the input file"},
		{[]string{"--lower", in, "-", "--fail-on", "info"}, `unknown --fail-on "info"`},
		{[]string{"--lower", in, "-", "--emit", "asm"}, `unknown --emit "asm"`},
		{[]string{"--lower", in, "-", "-", "--emit", "json"}, "standard input (-) given 2 times"},
		{[]string{"--lower", in, "-", filepath.Join(dir, "missing.py")}, "no such file"},
	} {
		code, out, stderr := runIn(unread{t}, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || out != "" {
			t.Errorf("tilels %q: exit %d, stdout %d bytes, stderr %q; want exit 2 and one line with %q", tc.args, code, len(out), stderr, tc.want)
		}
	}
	// The input is intact, and --bind checks its function names (the
	// parse reads the file, not standard input's place in the list).
	if data, err := os.ReadFile(in); err != nil || !strings.Contains(string(data), "def roundtrip") {
		t.Errorf("the input was overwritten: %v", err)
	}
	factoryPath := filepath.Join(dir, "factory.py")
	writeFile(t, factoryPath, factory)
	for _, tc := range []struct {
		bind string
		code int
	}{
		// (copy, the kernel make returns, has no parameter n: its bind
		// setting gives launch values, and n is an eval/directive error)
		{"nope:n=64", 2}, {"make:n=64, dtype='float16'", 0}, {"copy:n=64", 1}, {"make.copy:n=64", 1}, {"other.copy:n=64", 2},
	} {
		code, _, stderr := runCLI("--lower", factoryPath, in, "--bind", tc.bind, "--emit", "json")
		if code != tc.code || (code == 2) != strings.Contains(stderr, "tilels: --bind "+strings.Split(tc.bind, ":")[0]+": no function") {
			t.Errorf("--bind %q: exit %d, want %d; stderr %q", tc.bind, code, tc.code, stderr)
		}
	}
	for _, arch := range []string{"sm_50", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_101a", "sm_103f", "sm_110a", "sm_120a", "sm_121f"} {
		if code, _, stderr := runCLI("--lower", example, "--arch", arch, "-o", os.DevNull); code != 0 {
			t.Errorf("--arch %s: exit %d: %s", arch, code, stderr)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}, {"--lower", example, "--help"}} {
		code, out, stderr := runCLI(args...)
		if code != 0 || !strings.HasPrefix(out, "usage: tilels") || !strings.Contains(out, "--fail-on") || stderr != "" {
			t.Errorf("tilels %q: exit %d, stderr %q, stdout:\n%s", args, code, stderr, out)
		}
	}
	if code, out, _ := runCLI("serve", "--help"); code != 0 || !strings.HasPrefix(out, "usage: tilels serve") {
		t.Errorf("serve --help: exit %d\n%s", code, out)
	}
	// editors/vscode reads "tilels X.Y.Z" alone on a line (server.ts
	// parseVersion); the other lines name the build and the reference.
	first := regexp.MustCompile(`^tilels \d+\.\d+\.\d+\n`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, stderr := runCLI(args...)
		if code != 0 || !first.MatchString(out) || !strings.Contains(out, "\nprofiles: apache-tvm 0.25.0.post1, 0.26.0, 0.27.0.post1\n") || !strings.Contains(out, "\nreference: apache-tvm 0.27.0.post1 (") || stderr != "" {
			t.Errorf("tilels %q: exit %d, stderr %q, stdout:\n%s", args, code, stderr, out)
		}
	}
	if code, _, stderr := runCLI("version", "x"); code != 2 || !strings.Contains(stderr, "unexpected argument") {
		t.Errorf("version x: exit %d, %q", code, stderr)
	}
}

// TestFailOn: --fail-on warning fails on a fallback-only call, an
// unresolved kernel, an empty file and a file without kernels; the default
// (error) fails on none of them.
func TestFailOn(t *testing.T) {
	dir := t.TempDir()
	unbound := filepath.Join(dir, "factory.py")
	writeFile(t, unbound, factory)
	empty := filepath.Join(dir, "empty.py")
	writeFile(t, empty, "")
	plain := filepath.Join(dir, "plain.py")
	writeFile(t, plain, "import os\n\n\ndef f():\n    return os.sep\n")
	for _, tc := range []struct {
		path, code string
	}{
		{examples + "copy_fallback.py", "warning[dispatch/fallback-only]"},
		{unbound, "warning[lower/unresolved-kernel]"},
		{empty, "information[lower/no-kernel]"},
		{plain, "information[lower/no-kernel]"},
	} {
		for _, emit := range []string{"cuda", "json"} {
			if code, _, stderr := runCLI("--lower", tc.path, "--emit", emit); code != 0 || !strings.Contains(stderr, tc.code) {
				t.Errorf("%s --emit %s: exit %d, want 0 and %s in\n%s", tc.path, emit, code, tc.code, stderr)
			}
			if code, _, stderr := runCLI("--lower", tc.path, "--emit", emit, "--fail-on", "warning"); code != 1 {
				t.Errorf("%s --emit %s --fail-on warning: exit %d, want 1\n%s", tc.path, emit, code, stderr)
			}
			if code, _, stderr := runCLI("--lower", tc.path, "--emit", emit, "--fail-on", "error"); code != 0 {
				t.Errorf("%s --emit %s --fail-on error: exit %d, want 0\n%s", tc.path, emit, code, stderr)
			}
		}
	}
	if code, _, stderr := runCLI("--lower", example, "--fail-on", "warning"); code != 0 || stderr != "" {
		t.Errorf("a clean file with --fail-on warning: exit %d, %q", code, stderr)
	}
	// The unresolved kernel's warning is at its name, and the JSON carries it.
	_, out, stderr := runCLI("--lower", unbound, "--emit", "json")
	if !strings.Contains(stderr, "factory.py:8:9: warning[lower/unresolved-kernel]: kernel copy is not lowered: it needs n") {
		t.Errorf("unresolved kernel:\n%s", stderr)
	}
	if fs := files(t, out); len(fs) != 1 || len(fs[0].Diagnostics) != 2 || fs[0].Diagnostics[1].Code != "lower/unresolved-kernel" {
		t.Errorf("JSON diagnostics %+v", fs)
	}
	// A directory without a TIRx file fails --fail-on warning too.
	none := filepath.Join(dir, "none")
	writeFile(t, filepath.Join(none, "setup.py"), "import os\n")
	if code, _, stderr := runCLI("--lower", none); code != 0 || !strings.Contains(stderr, "no .py file imports the TIRx DSL") {
		t.Errorf("a directory without TIRx files: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI("--lower", none, "--fail-on", "warning"); code != 1 {
		t.Errorf("a directory without TIRx files, --fail-on warning: exit %d, want 1", code)
	}
}

// TestSeveralInputs: files, directories (walked in order, skipping what is
// not TIRx source) and standard input in one run.
func TestSeveralInputs(t *testing.T) {
	dir := t.TempDir()
	k := filepath.Join(dir, "kernels")
	copyExample(t, "copy_gmem_smem.py", filepath.Join(k, "b.py"))
	copyExample(t, "copy_reg.py", filepath.Join(k, "a.py"))
	copyExample(t, "copy_fallback.py", filepath.Join(k, "sub", "a.py"))
	writeFile(t, filepath.Join(k, "layouts.py"), "from tvm.tirx.layout import S, TileLayout\n\nL = TileLayout(S[8, 8])\n")
	writeFile(t, filepath.Join(k, "__init__.py"), "")
	writeFile(t, filepath.Join(k, "conftest.py"), "import pytest\n")
	writeFile(t, filepath.Join(k, "notes.txt"), "from tvm.script import tirx as T\n")
	for _, skipped := range []string{".hidden/x.py", ".cache/x.py", "node_modules/x.py", "__pycache__/x.py", "venv/lib/x.py", ".y.py"} {
		copyExample(t, "copy_reg.py", filepath.Join(k, skipped))
	}
	writeFile(t, filepath.Join(k, "venv", "pyvenv.cfg"), "home = /usr/bin\n")
	test := filepath.Join(dir, "tests", "test_x.py")
	copyExample(t, "ewise_sqrt.py", test)
	stdin, err := os.ReadFile(examples + "ewise_cast.py")
	if err != nil {
		t.Fatal(err)
	}

	code, out, stderr := runIn(bytes.NewReader(stdin), "--lower", k, test, "-", k+"/b.py", "--emit", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var got []string
	for _, f := range files(t, out) {
		got = append(got, strings.TrimPrefix(filepath.ToSlash(f.File), filepath.ToSlash(dir)+"/"))
	}
	want := []string{"kernels/a.py", "kernels/b.py", "kernels/layouts.py", "kernels/sub/a.py", "tests/test_x.py", "<stdin>"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", got, want)
	}
	// Diagnostics name each file, standard input as <stdin>.
	if !strings.Contains(stderr, "kernels/sub/a.py:19:5: warning[dispatch/fallback-only]") || !strings.Contains(stderr, "kernels/layouts.py:1:1: information[lower/no-kernel]") {
		t.Errorf("stderr:\n%s", stderr)
	}
	code, _, stderr = runIn(strings.NewReader(factory), "--lower", "-", "--emit", "tirx")
	if code != 0 || !strings.Contains(stderr, "<stdin>:8:9: warning[lower/unresolved-kernel]") {
		t.Errorf("standard input: exit %d\n%s", code, stderr)
	}

	// One stream: each file's text under a header line; files without
	// a kernel are left out.
	code, out, _ = runIn(bytes.NewReader(stdin), "--lower", k, "-", "-o", "-")
	if code != 0 || strings.Count(out, "// tilels --lower ") != 4 || !strings.Contains(out, "// tilels --lower <stdin>\n") || strings.Contains(out, "layouts.py") {
		t.Errorf("several files on stdout: exit %d, headers %d", code, strings.Count(out, "// tilels --lower "))
	}
	// A single file prints exactly as before: no header.
	if _, out, _ := runCLI("--lower", example, "-o", "-"); strings.Contains(out, "// tilels --lower") || !strings.Contains(out, "__global__") {
		t.Errorf("one file on stdout:\n%s", out)
	}

	// -o DIR: one output per input, named after its stem.
	for _, emit := range []string{"cuda", "tirx", "json"} {
		outDir := filepath.Join(dir, "out-"+emit)
		out := outDir
		if emit == "json" {
			out += "/" // a new directory; without the slash, one JSON file
		}
		code, _, stderr := runIn(bytes.NewReader(stdin), "--lower", k, test, "-", "--emit", emit, "-o", out)
		if code != 0 {
			t.Fatalf("-o DIR --emit %s: exit %d\n%s", emit, code, stderr)
		}
		ext := map[string]string{"cuda": ".cu", "tirx": ".tirx", "json": ".json"}[emit]
		want := []string{"a", "a_2", "b", "stdin", "test_x"}
		if emit == "json" {
			want = []string{"a", "a_2", "b", "layouts", "stdin", "test_x"}
		}
		entries, _ := os.ReadDir(outDir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		var wantNames []string
		for _, w := range want {
			wantNames = append(wantNames, w+ext)
		}
		if strings.Join(names, " ") != strings.Join(wantNames, " ") {
			t.Errorf("-o DIR --emit %s: %q, want %q", emit, names, wantNames)
		}
		// a.py (kernels/a.py) is copy_reg, a_2 (kernels/sub/a.py) copy_fallback.
		if emit == "cuda" {
			a, _ := os.ReadFile(filepath.Join(outDir, "a.cu"))
			a2, _ := os.ReadFile(filepath.Join(outDir, "a_2.cu"))
			if !strings.Contains(string(a), "-> reg") || !strings.Contains(string(a2), "-> fallback") {
				t.Errorf("a.cu and a_2.cu are not kernels/a.py and kernels/sub/a.py")
			}
		}
		if emit == "json" {
			data, _ := os.ReadFile(filepath.Join(outDir, "b.json"))
			if fs := files(t, string(data)); len(fs) != 1 || !strings.HasSuffix(fs[0].File, "b.py") {
				t.Errorf("b.json: %+v", fs)
			}
		}
	}
	// A single input into an existing directory.
	if code, _, stderr := runCLI("--lower", example, "-o", dir); code != 0 {
		t.Errorf("-o DIR with one input: exit %d %s", code, stderr)
	} else if _, err := os.Stat(filepath.Join(dir, "copy_gmem_smem.cu")); err != nil {
		t.Errorf("-o DIR with one input: %v", err)
	}
	// Several inputs into a regular file: refused for .cu, one document for JSON.
	file := filepath.Join(dir, "all.out")
	writeFile(t, file, "old")
	if code, _, stderr := runCLI("--lower", k, "-o", file); code != 2 || !strings.Contains(stderr, "name a directory") {
		t.Errorf("several .cu files into one file: exit %d %q", code, stderr)
	}
	if code, _, _ := runCLI("--lower", k, test, "--emit", "json", "-o", file); code != 0 {
		t.Errorf("several inputs, --emit json -o FILE: exit %d", code)
	} else if data, _ := os.ReadFile(file); len(files(t, string(data))) != 5 {
		t.Errorf("the JSON file holds %d records, want 5", len(files(t, string(data))))
	}
	// --kernel picks the files that have it.
	code, out, stderr = runCLI("--lower", k, test, "--kernel", "roundtrip", "--emit", "tirx")
	if code != 0 || strings.Count(out, "# tilels --lower ") != 1 || !strings.Contains(out, "kernels/b.py") {
		t.Errorf("--kernel over several files: exit %d %s\n%s", code, stderr, out)
	}
	if code, _, stderr := runCLI("--lower", k, test, "--kernel", "nope"); code != 2 || !strings.Contains(stderr, `no kernel named "nope" in any of`) {
		t.Errorf("--kernel nope: exit %d %q", code, stderr)
	}
}

// TestArchDiagnostic: a variant the target arch cannot run is an error at
// its call, in every --emit mode, and the CUDA printer's positionless
// error is not repeated.
func TestArchDiagnostic(t *testing.T) {
	tma := examples + "copy_tma.py"
	for _, emit := range []string{"cuda", "tirx", "json"} {
		code, out, stderr := runCLI("--lower", tma, "--arch", "sm_80", "--emit", emit)
		if code != 1 {
			t.Errorf("--emit %s: exit %d, want 1", emit, code)
		}
		if !strings.Contains(stderr, "copy_tma.py:33:9: error[lower/arch]: copy_async lowers through tma, whose ptx.cp_async.bulk.tensor.g2c needs sm_90 or later; target is sm_80") {
			t.Errorf("--emit %s: no lower/arch error at the call:\n%s", emit, stderr)
		}
		if strings.Contains(stderr, "codegen/cuda") || strings.Contains(stderr, "tilels:") {
			t.Errorf("--emit %s: a positionless error:\n%s", emit, stderr)
		}
		if emit == "json" {
			fs := files(t, out)
			n := 0
			for _, d := range fs[0].Diagnostics {
				if d.Code == "lower/arch" && d.Severity == "error" {
					n++
				}
			}
			if n == 0 {
				t.Errorf("--emit json: no lower/arch diagnostic in %+v", fs[0].Diagnostics)
			}
		}
		if emit == "cuda" && out != "" {
			t.Errorf("--emit cuda printed %d bytes for a file that cannot be printed", len(out))
		}
	}
	// cp.async (ldgsts) needs sm_80; an intrinsic the kernel calls is
	// reported at its own call.
	_, _, stderr := runCLI("--lower", examples+"copy_ldgsts.py", "--arch", "sm_75", "--emit", "json")
	if !strings.Contains(stderr, "error[lower/arch]: copy_async lowers through ldgsts, whose ptx.cp_async needs sm_80 or later; target is sm_75") {
		t.Errorf("ldgsts at sm_75:\n%s", stderr)
	}
	_, _, stderr = runCLI("--lower", tma, "--arch", "sm_75", "--emit", "tirx")
	if !strings.Contains(stderr, "copy_tma.py:29:9: error[lower/arch]: ptx.mbarrier.init needs sm_80 or later; target is sm_75") {
		t.Errorf("mbarrier.init at sm_75:\n%s", stderr)
	}
	if code, _, stderr := runCLI("--lower", tma, "--arch", "sm_90a", "-o", os.DevNull); code != 0 || stderr != "" {
		t.Errorf("sm_90a: exit %d %q", code, stderr)
	}
	// .cta_group::2 needs an arch-specific sm_100-family target.
	src, err := os.ReadFile(tma)
	if err != nil {
		t.Fatal(err)
	}
	grouped := filepath.Join(t.TempDir(), "grouped.py")
	writeFile(t, grouped, strings.Replace(string(src), `dispatch="tma", mbar=bar.ptr_to([0]))`, `dispatch="tma", mbar=bar.ptr_to([0]), cta_group=2)`, 1))
	code, _, stderr := runCLI("--lower", grouped, "--emit", "json")
	if code != 1 || !strings.Contains(stderr, "grouped.py:33:9: error[lower/arch]: copy_async lowers through tma, whose ptx.cp_async.bulk.tensor.g2c with .cta_group::2 needs an arch-specific sm_100-family target") {
		t.Errorf("cta_group=2 at sm_90a: exit %d\n%s", code, stderr)
	}
	for _, arch := range []string{"sm_100a", "sm_100f", "sm_103a"} {
		if code, _, stderr := runCLI("--lower", grouped, "--arch", arch, "-o", os.DevNull); code != 0 {
			t.Errorf("cta_group=2 at %s: exit %d\n%s", arch, code, stderr)
		}
	}
}

// TestInputLimit: /dev/zero is refused after MaxInputBytes, quickly, as an
// error of that file; the other inputs are analysed.
func TestInputLimit(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	start := time.Now()
	code, out, stderr := runCLI("--lower", "/dev/zero", example, "--emit", "json")
	if code != 1 || !strings.Contains(stderr, "/dev/zero:1:1: error[lower/too-large]") {
		t.Errorf("exit %d, want 1 and lower/too-large:\n%s", code, stderr)
	}
	if fs := files(t, out); len(fs) != 2 || len(fs[0].Kernels) != 0 || len(fs[1].Kernels) != 1 {
		t.Errorf("records %+v", fs)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("reading /dev/zero took %v", d)
	}
	// A pipe whose writer never stops is cut off the same way; one whose
	// writer closes is a program like any other.
	dir := t.TempDir()
	for _, endless := range []bool{true, false} {
		fifo := filepath.Join(dir, fmt.Sprintf("in-%v.py", endless))
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			if endless {
				io.Copy(w, zeros{}) // ends with EPIPE when tilels closes its end
				return
			}
			src, _ := os.ReadFile(example)
			w.Write(src)
		}()
		code, out, stderr := runCLI("--lower", fifo, "--emit", "json")
		<-done
		if endless && (code != 1 || !strings.Contains(stderr, "error[lower/too-large]")) {
			t.Errorf("endless pipe: exit %d %q", code, stderr)
		}
		if !endless && (code != 0 || len(files(t, out)[0].Kernels) != 1) {
			t.Errorf("pipe: exit %d %q", code, stderr)
		}
	}
	// Standard input is bounded the same way.
	big := io.LimitReader(zeros{}, headless.MaxInputBytes+100)
	if code, _, stderr := runIn(big, "--lower", "-"); code != 1 || !strings.Contains(stderr, "<stdin>:1:1: error[lower/too-large]") {
		t.Errorf("large stdin: exit %d %q", code, stderr)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestExtraPath: an input's imports of workspace modules resolve under its
// package root, and under --extra-path.
func TestExtraPath(t *testing.T) {
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
	write("lib/shapes.py", "ROWS = 64\n")
	write("app/pkg/__init__.py", "")
	write("app/pkg/cols.py", "COLS = 32\n")
	path := write("app/pkg/kernel.py", `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from shapes import ROWS
from pkg.cols import COLS


@T.prim_func
def k(A: T.Buffer((ROWS, COLS), "float16")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    S = T.alloc_buffer((ROWS, COLS), "float16", scope="shared")
    Tx.cta.copy(S[:, :], A[:, :])
`)
	code, _, stderr := runCLI("--lower", path, "--emit", "tirx")
	if code != 0 || !strings.Contains(stderr, "`shapes.ROWS` is not modelled") || strings.Contains(stderr, "pkg.cols") {
		t.Errorf("without --extra-path: exit %d, stderr %q; want shapes unresolved and pkg.cols (under the package root) resolved", code, stderr)
	}
	code, out, stderr := runCLI("--lower", path, "--emit", "tirx", "--extra-path", filepath.Join(dir, "lib"))
	if code != 0 || stderr != "" || !strings.Contains(out, "def k(") {
		t.Errorf("with --extra-path: exit %d, stderr %q, output %q", code, stderr, out)
	}
}

// TestReferenceFlags: --reference chooses the release (the JSON names it,
// with how it was chosen, and the variant names follow it); an unknown
// release is a usage error; with auto, --python names the environment
// whose apache-tvm METADATA gives the release (an interpreter inside it
// or its directory); the file's own pin beats the environment.
func TestReferenceFlags(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	// The example without its "# tilels: reference=0.25" pin.
	unpinned := regexp.MustCompile(`(?m)^# tilels: reference=.*\n`).ReplaceAllString(string(src), "")
	k := filepath.Join(dir, "k.py")
	writeFile(t, k, unpinned)
	env := filepath.Join(dir, "env")
	writeFile(t, filepath.Join(env, "lib", "python3.11", "site-packages", "apache_tvm-0.26.0.dist-info", "METADATA"),
		"Metadata-Version: 2.1\nName: apache-tvm\nVersion: 0.26.0\n\n")
	writeFile(t, filepath.Join(env, "bin", "python"), "")

	type ref struct{ Release, Source, Why string }
	emit := func(args ...string) (string, ref, string) {
		t.Helper()
		code, out, stderr := runCLI(append([]string{"--lower", k, "--emit", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, stderr)
		}
		var top struct {
			Reference string
			Files     []struct {
				Reference ref
				Kernels   []struct{ Calls []struct{ Variant string } }
			}
		}
		if err := json.Unmarshal([]byte(out), &top); err != nil || len(top.Files) != 1 || len(top.Files[0].Kernels) != 1 {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
		f := top.Files[0]
		return top.Reference, f.Reference, f.Kernels[0].Calls[0].Variant
	}
	for _, tc := range []struct {
		args    []string
		top     string
		ref     ref
		variant string
	}{
		{[]string{"--reference", "0.25"}, "0.25.0.post1", ref{"0.25.0.post1", "setting", "set: reference 0.25"}, "gmem_smem"},
		{[]string{"--reference", "0.27.0.post1"}, "0.27.0.post1", ref{"0.27.0.post1", "setting", "set: reference 0.27"}, "vec_auto"},
		{[]string{"--python", filepath.Join(env, "bin", "python")}, "0.26.0", ref{"0.26.0", "environment", "apache-tvm 0.26.0 installed in " + env}, "vec_auto"},
		{[]string{"--reference", "auto", "--python", env}, "0.26.0", ref{"0.26.0", "environment", "apache-tvm 0.26.0 installed in " + env}, "vec_auto"},
	} {
		top, r, v := emit(tc.args...)
		if top != tc.top || r != tc.ref || v != tc.variant {
			t.Errorf("%q: document %q, file %+v, variant %q; want %q, %+v, %q", tc.args, top, r, v, tc.top, tc.ref, tc.variant)
		}
	}
	// The file's pin beats the environment.
	writeFile(t, k, unpinned+"# tilels: reference=0.25\n")
	if _, r, v := emit("--python", env); r.Source != "directive" || r.Release != "0.25.0.post1" || v != "gmem_smem" {
		t.Errorf("pinned file with --python: %+v %q", r, v)
	}

	for _, args := range [][]string{
		{"--lower", k, "--reference", "0.24"},
		{"--reference", "latest"},
		{"serve", "--reference", "1.0"},
	} {
		code, out, stderr := runCLI(args...)
		if code != 2 || out != "" || !strings.Contains(stderr, "unknown --reference") || !strings.Contains(stderr, "(want auto, 0.25, 0.26, 0.27)") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
	if code, out, _ := runCLI("--version", "--reference", "0.26"); code != 0 || !strings.Contains(out, "\nreference: apache-tvm 0.26.0 (set: reference 0.26)\n") {
		t.Errorf("--version --reference 0.26: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI("--version", "--python", env); code != 0 || !strings.Contains(out, "\nreference: apache-tvm 0.26.0 (apache-tvm 0.26.0 installed in "+env+")\n") {
		t.Errorf("--version --python: exit %d\n%s", code, out)
	}
}

// TestHarnessSkipsLeftOut: a kernel whose evaluation left out a statement
// that may access memory (an eval/unresolved warning) is left out of the
// harness, which would otherwise check code without that statement; the
// file's other kernels are checked.
func TestHarnessSkipsLeftOut(t *testing.T) {
	const src = `from tvm.script import tirx as T


@T.prim_func
def dropped(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 128), "float32")
    T.device_entry()
    for by in T.thread_binding(4, thread="blockIdx.y"):
        A[by, 0] = T.float32(1)


@T.prim_func
def kept(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 128), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    T.thread_id([32])
    A[bx, 0] = T.float32(1)
`
	f := filepath.Join(t.TempDir(), "k.py")
	writeFile(t, f, src)
	code, out, stderr := runCLI("--lower", f, "--harness")
	if code != 0 || !strings.Contains(stderr, "warning[harness/skipped]: kernel dropped is left out of the harness: a statement that may access memory is left out of its code") ||
		!strings.Contains(out, "kept_launch(reinterpret_cast") || strings.Contains(out, "dropped_launch(reinterpret_cast") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
