package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
		{[]string{"--lower", example, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--lower", example, "--kernel", "nope"}, 2, `no kernel named "nope"`},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("tilels %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
	if code, out, _ := runCLI("--version"); code != 0 || !strings.HasPrefix(out, "tilels ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

func TestEmit(t *testing.T) {
	code, out, stderr := runCLI("--lower", example, "--emit", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
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
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
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
