package lower

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

// hostileSnippets are module-level Python that, without the evaluator's
// value budget, builds gigabytes or runs for minutes (issue 12). Each is
// put before a kernel: the pipeline must report eval/too-large at the
// snippet's last line and still lower the kernel.
var hostileSnippets = []string{
	"s = 'x' * 65536\nfor i in range(20):\n    s = s + s\n",
	"l = [0] * 65536\nfor i in range(20):\n    l += l\n",
	"l = [0] * 65536\nfor i in range(20):\n    l.extend(l)\n",
	"s = 'x' * 65536\nfor i in range(20):\n    s = ''.join([s, s])\n",
	"s = 'x' * 65536\nfor i in range(20):\n    s = '%s%s' % (s, s)\n",
	"s = 'x' * 65536\nfor i in range(20):\n    s = '{}{}'.format(s, s)\n",
	"s = 'x' * 65536\nfor i in range(20):\n    s = s.replace('x', 'xx')\n",
	"s = f'{0:1000000000}'\n",
	"s = f'{0:1000000000000000}'\n",
	"s = '%1000000000d' % 0\n",
	"s = '1'.zfill(10000000000)\n",
	"t = sum([(i,) * 1000 for i in range(10000)], ())\n",
}

// TestHostileAnalyze runs the whole pipeline on each hostile file: one
// eval/too-large error at the snippet, the kernel after it still lowered,
// and a bounded amount of memory allocated (checked on allocation, not
// wall time, so a busy machine cannot make it flaky). zfill of 300,000
// took 19 s before padding was linear; it is checked to finish (its
// allocation is a few hundred KB).
func TestHostileAnalyze(t *testing.T) {
	kernel, err := os.ReadFile("../testdata/examples/copy_gmem_smem.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, snip := range append(hostileSnippets, "z = '1'.zfill(300000)\n") {
		src := snip + string(kernel)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := Analyze(source.NewFile("hostile.py", []byte(src)), Options{Reference: "0.25"})
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
			t.Errorf("%q: allocated %d MB", snip, alloc>>20)
		}
		var errs []diag.Diagnostic
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
		want := 1
		if strings.HasPrefix(snip, "z =") {
			want = 0
		}
		if len(errs) != want || want == 1 && errs[0].Code != eval.CodeTooLarge {
			t.Errorf("%q: errors %v, want one %s", snip, errs, eval.CodeTooLarge)
			continue
		}
		if want == 1 {
			line, _ := res.File.Position(errs[0].Span.Start)
			if line != strings.Count(snip, "\n") {
				t.Errorf("%q: eval/too-large at line %d", snip, line)
			}
		}
		if len(res.Kernels) != 1 || len(res.Kernels[0].Calls) != 2 || res.Kernels[0].Calls[0].Variant != "gmem_smem" {
			t.Errorf("%q: the kernel after the hostile code was not lowered", snip)
		}
	}
}

// TestHostileKernelBody: a hostile statement inside a kernel stops that
// kernel's evaluation only; another kernel of the file is lowered.
func TestHostileKernelBody(t *testing.T) {
	kernel, err := os.ReadFile("../testdata/examples/copy_gmem_smem.py")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(kernel), "def roundtrip(", "def bad(", 1)
	bad = strings.Replace(bad, "    T.device_entry()\n", "    pad = f'{0:1000000000}'\n    T.device_entry()\n", 1)
	src := bad + "\n\n" + string(kernel)[strings.Index(string(kernel), "@T.prim_func"):]
	res := Analyze(source.NewFile("hostile.py", []byte(src)), Options{Reference: "0.25"})
	found := false
	for _, d := range res.Diags {
		if d.Code == eval.CodeTooLarge {
			found = true
			if got := res.File.Text(d.Span); got != "{0:1000000000}" {
				t.Errorf("eval/too-large at %q", got)
			}
		}
	}
	if !found {
		t.Errorf("no eval/too-large: %v", res.Diags)
	}
	for _, k := range res.Kernels {
		if k.Name == "roundtrip" && (len(k.Calls) != 2 || k.Calls[0].Variant != "gmem_smem") {
			t.Errorf("the other kernel was not lowered: %+v", k.Calls)
		}
	}
}

// hostileKernels builds a file of n copies of the copy_gmem_smem example
// kernel, each running body (Python, indented 4) before its copies.
func hostileKernels(t *testing.T, prelude, body string, n int) string {
	t.Helper()
	src, err := os.ReadFile("../testdata/examples/copy_gmem_smem.py")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if j := strings.Index(text, "\n# tilels: reference="); j >= 0 {
		text = strings.TrimRight(text[:j], "\n") + "\n" // without the example's pin
	}
	i := strings.Index(text, "@T.prim_func")
	var b strings.Builder
	b.WriteString(text[:i] + prelude + "\n")
	for k := range n {
		kern := strings.Replace(text[i:], "def roundtrip(", fmt.Sprintf("def k%d(", k), 1)
		kern = strings.Replace(kern, "    T.device_entry()\n", body+"    T.device_entry()\n", 1)
		b.WriteString("\n" + kern + "\n")
	}
	return b.String()
}

// TestHostileFileBudget: files whose kernels each stay under the unit's
// budgets but together would run for seconds or hold gigabytes (issue
// 13: 64 kernels looping over a 150,000-element list took 3.8 s; a kernel
// unrolling 200,000 tile calls held 704 MiB) stop at the file's budget
// with one eval/budget error naming where it went, allocating a bounded
// amount (asserted on allocation, not wall time; the loop's 520 MB are
// short-lived: `tilels --lower` peaks at 40 MB on it, 170 MB on the
// unrolled calls).
func TestHostileFileBudget(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		alloc           uint64 // MB
	}{
		{"loop", hostileKernels(t, "L = list(range(150000))", "    t = 0\n    for x in L:\n        t = t + x\n", 64),
			"the file's step budget); most went to kernel k0 (line 11) 750k steps, kernel k1 (line 28) 750k steps, kernel k2 (line 45) 750k steps", 600},
		{"unroll", hostileKernels(t, "L = list(range(200000))", "    for x in L:\n        A_s = T.alloc_buffer((32, 32), \"float32\", scope=\"shared\", layout=TileLayout(S[32, 32]))\n        Tx.warp.copy(A_s[0:32, 0:32], A[0:32, 0:32])\n", 4),
			"its kernels would make more than 16406 tile calls (the file's IR budget); most are in kernel k0 (line 11) 16k", 500},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := Analyze(source.NewFile(tc.name+".py", []byte(tc.src)), Options{Reference: "0.25"})
		runtime.ReadMemStats(&after)
		t.Logf("%s: allocated %d MB", tc.name, (after.TotalAlloc-before.TotalAlloc)>>20)
		var errs []string
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				errs = append(errs, d.Code+" "+d.Message)
			}
		}
		if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
			t.Errorf("%s: errors %q, want one with %q", tc.name, errs, tc.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tc.alloc<<20 {
			t.Errorf("%s: allocated %d MB", tc.name, alloc>>20)
		}
	}
}
