package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestHostileInputs: `tilels --lower` on Python that, without the
// evaluator's value budget, builds gigabytes (or runs for minutes) ends
// with exit 1 and an eval/too-large error at the statement, allocating a
// bounded amount of memory (asserted on allocation, not wall time, so a
// busy machine cannot make it flaky). A --max-cases far above the limit
// on a grid of a million cases analyses 4096 of them.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src, want string
		code            int
	}{
		{"double.py", "s = 'x' * 65536\nfor i in range(20):\n    s = s + s\n", "double.py:3:9: error[eval/too-large]", 1},
		{"extend.py", "l = [0] * 65536\nfor i in range(20):\n    l.extend(l)\n", "extend.py:3:5: error[eval/too-large]", 1},
		{"width.py", "s = f'{0:1000000000}'\n", "width.py:1:7: error[eval/too-large]", 1},
		{"percent.py", "s = '%1000000000d' % 0\n", "percent.py:1:5: error[eval/too-large]", 1},
		{"sum.py", "t = sum([(i,) * 1000 for i in range(10000)], ())\n", "sum.py:1:10: error[eval/too-large]", 1},
		{"zfill.py", "s = '1'.zfill(10000000000)\n", "zfill.py:1:5: error[eval/too-large]", 1},
		// The file's IR budget: 16,384 tile calls, where each kernel stays
		// under its own step budget.
		{"unroll.py", "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\nL = list(range(9000))\n" +
			strings.Repeat("@T.prim_func\ndef k(A: T.Buffer((32,), \"float32\"), B: T.Buffer((32,), \"float32\")):\n    for x in L:\n        Tx.copy(A[0:32], B[0:32])\n", 3),
			"unroll.py:10:5: error[eval/budget]: evaluation of the file stopped: its kernels would make more than 16387 tile calls (the file's IR budget); most are in kernel k (line 5) 9000, kernel k (line 9) 7388; the rest of the file is not evaluated", 1},
	} {
		path := filepath.Join(dir, tc.name)
		writeFile(t, path, tc.src)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, stderr := runCLI("--lower", path, "--emit", "json")
		runtime.ReadMemStats(&after)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
			t.Errorf("%s: allocated %d MB", tc.name, alloc>>20)
		}
	}

	grid := filepath.Join(dir, "grid.py")
	writeFile(t, grid, `import pytest
from tvm.script import tirx as T

V = list(range(1000))


@pytest.mark.parametrize("a", V)
@pytest.mark.parametrize("b", V)
def test_k(a, b):
    @T.prim_func
    def k(A: T.Buffer((128,), "float32")):
        T.evaluate(a + b)
`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, out, stderr := runCLI("--lower", grid, "--emit", "tirx", "--max-cases", "99999999")
	runtime.ReadMemStats(&after)
	if code != 0 || !strings.Contains(stderr, "has 1000000 cases; 4096 of them, evenly spread, are analysed") {
		t.Errorf("grid: exit %d, stderr %q", code, stderr)
	}
	if n := strings.Count(out, "def k_case"); n != 4096 {
		t.Errorf("grid: %d cases printed, want 4096", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
		t.Errorf("grid: allocated %d MB", alloc>>20)
	}
}
