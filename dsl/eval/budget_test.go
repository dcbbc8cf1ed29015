package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"
	"github.com/tilels/tilels/dsl/diag"
	"runtime"
	"strings"
	"testing"
)

// hostilePrograms are a few lines of Python each that, without the value
// budget, build gigabytes (or take minutes). Every one must stop with an
// eval/too-large error at the given line (the expression that would have
// built the value); the statement after it must still be evaluated.
var hostilePrograms = []struct {
	name, src string
	line      int // the line of the eval/too-large error; 0: none expected
}{
	{"str doubling", "s = 'x' * 65536\nfor i in range(20):\n    s = s + s\n", 3},
	{"str augmented doubling", "s = 'x' * 65536\nfor i in range(20):\n    s += s\n", 3},
	{"list doubling", "l = [0] * 65536\nfor i in range(20):\n    l += l\n", 3},
	{"list extend", "l = [0] * 65536\nfor i in range(20):\n    l.extend(l)\n", 3},
	{"tuple doubling", "t = (0,) * 65536\nfor i in range(20):\n    t = t + t\n", 3},
	{"join", "s = 'x' * 65536\nfor i in range(20):\n    s = ''.join([s, s])\n", 3},
	{"percent", "s = 'x' * 65536\nfor i in range(20):\n    s = '%s%s' % (s, s)\n", 3},
	{"format", "s = 'x' * 65536\nfor i in range(20):\n    s = '{}{}'.format(s, s)\n", 3},
	{"f-string", "s = 'x' * 65536\nfor i in range(20):\n    s = f'{s}{s}'\n", 3},
	{"replace", "s = 'x' * 65536\nfor i in range(20):\n    s = s.replace('x', 'xx')\n", 3},
	{"repetition", "s = 'x' * (1 << 40)\n", 1},
	{"list repetition", "l = [0, 1] * (1 << 40)\n", 1},
	{"f-string width", "s = f'{0:1000000000}'\n", 1},
	{"f-string width 10**15", "s = f'{0:1000000000000000}'\n", 1},
	{"f-string precision", "s = f'{1.5:.1000000000f}'\n", 1},
	{"percent width", "s = '%1000000000d' % 0\n", 1},
	{"percent precision", "s = '%.1000000000f' % 1.0\n", 1},
	{"format width", "s = '{:>1000000000}'.format('a')\n", 1},
	{"zfill", "s = '1'.zfill(10000000000)\n", 1},
	{"ljust", "s = 'a'.ljust(10000000000)\n", 1},
	{"center", "s = 'a'.center(10000000000, '*')\n", 1},
	{"sum of tuples", "t = sum([(i,) * 1000 for i in range(10000)], ())\n", 1},
	{"sum of lists", "l = sum([[i] * 1000 for i in range(10000)], [])\n", 1},
	{"repr of shared lists", "l = [0]\nfor i in range(40):\n    l = [l, l, l, l, l, l, l, l]\ns = str(l) + repr(l) + f'{l!r}' + '%s' % (l,)\n", 4},
	{"dict of shared tuple keys", "t = ()\nfor i in range(64):\n    t = (t, t)\nd = {t: 1}\n", 4},
	{"str index of a large str", "s = 'x' * (1 << 25)\nfor i in range(8):\n    s = s + s[1:] + s[0]\n", 3},
	{"iterating a large str", "s = 'é' * (1 << 22)\nl = list(s)\n", 2},
	{"itertools.product repeat", "import itertools\np = itertools.product([1], repeat=1 << 40)\n", 2},
	{"dict growth", "d = {}\nfor i in range(1000000):\n    d[str(i) * 100] = i\n", 3},
}

// TestHostilePrograms checks that each hostile program stops at the value
// budget with an eval/too-large error, allocating a bounded amount of
// memory (the default budget is 64 MiB per unit; a generous 600 MB of
// allocation in all, not wall time, is asserted so a busy machine cannot
// make it flaky), and that evaluation goes on after the unit that halted.
func TestHostilePrograms(t *testing.T) {
	for _, tc := range hostilePrograms {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src + "after = 1\nassert after == 2, 'evaluation went on'\n"
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			p, syn := evalSource("hostile.py", []byte(src), eval.Options{})
			runtime.ReadMemStats(&after)
			if len(syn) > 0 {
				t.Fatalf("syntax errors: %v", syn)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
			var got []string
			tooLarge, wentOn := 0, false
			for _, d := range p.Diags {
				line, _ := p.File.Position(d.Span.Start)
				switch {
				case d.Code == eval.CodeTooLarge:
					tooLarge++
					if line != tc.line {
						t.Errorf("eval/too-large at line %d, want %d: %s", line, tc.line, d.Message)
					}
					if !strings.Contains(d.Message, " bytes") {
						t.Errorf("message without sizes: %s", d.Message)
					}
				case strings.Contains(d.Message, "evaluation went on"):
					wentOn = true
				default:
					got = append(got, d.Code+": "+d.Message)
				}
			}
			if tooLarge != 1 {
				t.Errorf("%d eval/too-large errors, want 1; other diagnostics: %v", tooLarge, got)
			}
			if !wentOn {
				t.Errorf("the statements after the halted one were not evaluated")
			}
			if len(got) > 0 {
				t.Errorf("unexpected diagnostics: %v", got)
			}
		})
	}
}

// TestFileBudget checks the file's value budget: units that each stay
// under their own budget stop once the file's total passes 4 times it,
// with one error naming where the bytes went, and nothing after it is
// evaluated.
func TestFileBudget(t *testing.T) {
	src := "keep = []\n" + strings.Repeat("keep.append('x' * (3 << 20))\n", 8) + "assert False, 'evaluated'\n"
	p, _ := evalSource("file.py", []byte(src), eval.Options{MaxBytes: 4 << 20})
	var lines []int
	for _, d := range p.Diags {
		line, _ := p.File.Position(d.Span.Start)
		lines = append(lines, line)
		if want := "the file's value budget of 16777216 bytes (15728912 used; most by the statement at line 2 3.0 MiB, the statement at line 3 3.0 MiB, the statement at line 4 3.0 MiB); the rest of the file is not evaluated"; d.Code != eval.CodeTooLarge || !strings.Contains(d.Message, want) {
			t.Errorf("%s: %s, want the file's budget: ...%s", d.Code, d.Message, want)
		}
	}
	// 3 MiB each (lines 2 to 9): the sixth str passes 16 MiB.
	if len(lines) != 1 || lines[0] != 7 {
		t.Errorf("diagnostics at lines %v, want 7 only\n%s", lines, eval.Dump(p))
	}
}

// TestFileStepBudget: kernels that each stay under the unit's step
// budget stop once the file's total passes fileStepsFactor times it,
// with one eval/budget error at the loop where it ran out, naming the
// three kernels that took the most; no kernel is made after it.
func TestFileStepBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("from tvm.script import tirx as T\n\nL = list(range(2000))\n")
	for i := range 40 {
		n := 1500
		if i == 1 {
			n = 1000 // fewer steps: not among the three named
		}
		fmt.Fprintf(&b, "\n@T.prim_func\ndef k%d(A: T.Buffer((4,), \"float32\")):\n    t = 0\n    for x in L[:%d]:\n        t = t + x\n    T.evaluate(t)\n", i, n)
	}
	p, _ := evalSource("steps.py", []byte(b.String()), eval.Options{MaxSteps: 10_000})
	var errs []string
	for _, d := range p.Diags {
		line, col := p.File.Position(d.Span.Start)
		errs = append(errs, fmt.Sprintf("%d:%d %s %s", line, col, d.Code, d.Message))
	}
	// Each kernel takes 7,518 steps (5 a loop iteration, and the slice):
	// the file's 160,000 run out in the 22nd kernel, k21, at its loop.
	want := "155:5 eval/budget evaluation of the file stopped after 160000 steps in all (the file's step budget); most went to kernel k0 (line 6) 7518 steps, kernel k2 (line 20) 7518 steps, kernel k3 (line 27) 7518 steps; the rest of the file is not evaluated"
	if len(errs) != 1 || errs[0] != want {
		t.Fatalf("diagnostics:\n%s\nwant: %s", strings.Join(errs, "\n"), want)
	}
	if n := len(p.Kernels); n != 22 || p.Kernels[n-1].Def.Name.Id != "k21" {
		t.Errorf("%d kernels, want k0 to k21 (the last one cut short)", n)
	}
}

// TestFileIRBudget: kernels that unroll Python loops of tile calls stop
// at the file's tile-call budget, naming the kernels that made them.
func TestFileIRBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n\nL = list(range(100))\n")
	for i := range 4 {
		fmt.Fprintf(&b, "\n@T.prim_func\ndef k%d(A: T.Buffer((32,), \"float32\"), B: T.Buffer((32,), \"float32\")):\n    for x in L:\n        Tx.copy(A[0:32], B[0:32])\n", i)
	}
	p, _ := evalSource("ir.py", []byte(b.String()), eval.Options{MaxTileCalls: 250})
	var errs []string
	for _, d := range p.Diags {
		line, col := p.File.Position(d.Span.Start)
		errs = append(errs, fmt.Sprintf("%d:%d %s %s", line, col, d.Code, d.Message))
	}
	want := "18:5 eval/budget evaluation of the file stopped: its kernels would make more than 250 tile calls (the file's IR budget); most are in kernel k0 (line 7) 100, kernel k1 (line 12) 100, kernel k2 (line 17) 51; the rest of the file is not evaluated"
	if len(errs) != 1 || errs[0] != want {
		t.Fatalf("diagnostics:\n%s\nwant: %s", strings.Join(errs, "\n"), want)
	}
	if len(p.Kernels) != 3 {
		t.Errorf("%d kernels, want 3 (the last one cut short)", len(p.Kernels))
	}
}

// hostileWork are loops of operations whose work grows with their
// operands, each one step: without charging that work (budget.go, work)
// the first took 23 s, the dict lookups of a 32 MiB key 11 ms each. Each
// must stop at the unit's step budget.
var hostileWork = []string{
	"L = list(range(150000))\nfor i in range(1000):\n    s = sum(L)\n",
	"L = list(range(150000))\nfor i in range(1000):\n    s = max(L) + min(L)\n",
	"L = list(range(150000))\nfor i in range(10000):\n    s = any(x > 200000 for x in L) or all(L)\n",
	"L = list(range(150000))\nfor i in range(10000):\n    s = -1 in L\n",
	"L = list(range(150000))\nfor i in range(10000):\n    s = L.count(-1) + L.index(149999)\n",
	"L = list(range(150000))\nM = list(range(150000))\nfor i in range(10000):\n    s = L == M\n",
	"L = list(range(150000))\nfor i in range(10000):\n    L.insert(0, L.pop())\n",
	"t = tuple(range(150000))\nfor i in range(10000):\n    s = t.count(-1)\n",
	"s = 'x' * (32 << 20)\nd = {s: 1}\nfor i in range(1000):\n    v = d[s]\n",
	"s = 'x' * (32 << 20)\nfor i in range(100000):\n    v = s.find('y') + s.count('y') + len(s)\n",
	"s = 'x' * (32 << 20)\nfor i in range(100000):\n    v = 'y' in s or s.isdigit() or s.startswith(s) or s.strip() == s\n",
	"s = 'x' * (16 << 20)\nt = 'x' * (16 << 20)\nfor i in range(100000):\n    v = s == t or [s] == [t] or s < t\n",
	"s = 'x' * (16 << 20)\nfor i in range(100000):\n    v = {s, s} or set([s])\n",
	"d = {i: i for i in range(100000)}\nfor i in range(100000):\n    d[-1] = 0\n    del d[-1]\n",
	"L = list(range(100000))\nfor i in range(10000):\n    L = L + [0]\n    del L[0]\n",
	"L = list(range(150000))\nfor i in range(10000):\n    s = sorted(L, reverse=True)[0]\n",
}

// TestHostileWork checks that each hostile loop stops with eval/budget at
// its loop (asserted on diagnostics, not on time).
func TestHostileWork(t *testing.T) {
	for _, src := range hostileWork {
		p, _ := evalSource("work.py", []byte(src), eval.Options{})
		var got []string
		budget := 0
		for _, d := range p.Diags {
			if d.Code == eval.CodeBudget {
				budget++
				continue
			}
			got = append(got, d.Code+": "+d.Message)
		}
		if budget != 1 || len(got) > 0 {
			t.Errorf("%q: %d eval/budget errors, want 1; others: %v", src, budget, got)
		}
	}
}

// TestPaddingSemantics checks the padding methods against CPython, on
// sizes the budget allows.
func TestPaddingSemantics(t *testing.T) {
	src := `
assert '42'.zfill(5) == '00042'
assert '-42'.zfill(5) == '-0042'
assert '+7'.zfill(4) == '+007'
assert 'abc'.zfill(2) == 'abc'
assert 'ab'.ljust(4) == 'ab  '
assert 'ab'.rjust(4, '*') == '**ab'
assert 'ab'.center(5, '*') == '**ab*'
assert 'abc'.center(6, '*') == '*abc**'
assert 'abc'.center(2) == 'abc'
assert len('1'.zfill(300000)) == 300000
assert f'{-5:05}' == '-0005'
assert f'{"ab":^6}' == '  ab  '
assert '%-4s|' % 'ab' == 'ab  |'
assert '{:*>5}'.format(3) == '****3'
assert f'{-9223372036854775807 - 1}' == '-9223372036854775808'
t = (1, 1, 2)
s = set(t)
assert t == (1, 1, 2)
l = list(t)
l[0] = 5
assert t == (1, 1, 2)
x = 'héllo'
assert x[1] == 'é' and x[1:3] == 'él' and x[::-1] == 'olléh' and len(x) == 5
y = 'hello'
assert y[1:3] == 'el' and y[::2] == 'hlo' and y[-1] == 'o' and y[5:] == ''
assert dict(['ab', 'cd']) == {'a': 'b', 'c': 'd'}
`
	p, _ := evalSource("pad.py", []byte(src), eval.Options{})
	if len(p.Diags) > 0 {
		t.Fatalf("diagnostics:\n%s", eval.Dump(p))
	}
}

func TestMaxCasesLimit(t *testing.T) {
	src := `import pytest
from tvm.script import tirx as T

V = list(range(1000))

@pytest.mark.parametrize("a", V)
@pytest.mark.parametrize("b", V)
def test_k(a, b):
    @T.prim_func
    def k(A: T.Buffer((128,), "float32")):
        T.evaluate(a + b)
`
	p, _ := evalSource("grid.py", []byte(src), eval.Options{MaxCases: 99999999})
	if n := len(p.Kernels); n != eval.MaxCasesLimit {
		t.Errorf("%d cases, want the limit %d", n, eval.MaxCasesLimit)
	}
}

// TestSelfReference checks that containers that contain themselves, or
// share their elements exponentially, are compared, printed, hashed and
// searched in bounded time and stack (no recursion without end).
func TestSelfReference(t *testing.T) {
	src := `
l = []
l.append(l)
assert l == l
assert l in [l]
s = repr(l) + str([l, l])
t = ()
u = ()
for i in range(40):
    t = (t, t)
    u = (u, u)
e = t == u
d = {}
d[0] = l
assert d[0] is l
k = {(1, (2, 3)): 4}
assert k[(1, (2, 3))] == 4
`
	p, _ := evalSource("cycle.py", []byte(src), eval.Options{})
	if len(p.Diags) > 0 {
		t.Fatalf("diagnostics:\n%s", eval.Dump(p))
	}
}

// TestManyDirectives: each `# tilels: bind` directive is parsed alone, not
// in a buffer the size of the file (5,000 directives in 600 KB held 3 GB),
// and its spans are still the file's.
func TestManyDirectives(t *testing.T) {
	var b strings.Builder
	b.WriteString("from tvm.script import tirx as T\n\n# tilels: bind x=undefined_name + 1\ndef f(x):\n    @T.prim_func\n    def k(A: T.Buffer((4,), \"float32\")):\n        T.evaluate(x)\n    return k\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "\n# tilels: bind x=%d\ndef f%d(x):\n    @T.prim_func\n    def k(A: T.Buffer((4,), \"float32\")):\n        T.evaluate(x)\n    return k\n", i, i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, _ := evalSource("many.py", []byte(b.String()), eval.Options{})
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 600<<20 {
		t.Errorf("allocated %d MB", alloc>>20)
	}
	found := false
	for _, d := range p.Diags {
		if d.Code == eval.CodeUnresolved {
			found = true
			if got := p.File.Text(d.Span); got != "undefined_name" {
				t.Errorf("the directive's error is at %q", got)
			}
		}
	}
	if !found {
		t.Errorf("no error for the bad directive")
	}
}

// TestBudgetAfterKernels: a function (a pytest case) that made its kernel
// and then runs out of steps in host code (a numpy-style reference loop)
// gets an information diagnostic and keeps its kernel; one that runs out
// before making any kernel gets the error.
func TestBudgetAfterKernels(t *testing.T) {
	const kernel = `
    @T.prim_func
    def k(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (32,), "float32")
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
`
	const loop = "    acc = 0\n    for i in range(3000):\n        for j in range(300):\n            acc += i * j\n"
	head := "from tvm.script import tirx as T\n\ndef test_case():\n"
	for _, c := range []struct {
		name, src string
		sev       diag.Severity
		kernels   int
	}{
		{"after", head + kernel + loop + "    return k\n\ntest_case()\n", diag.Information, 1},
		{"before", head + loop + kernel + "    return k\n\ntest_case()\n", diag.Error, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := evalSource("file.py", []byte(c.src), eval.Options{MaxSteps: 100000})
			var got []diag.Diagnostic
			for _, d := range p.Diags {
				if d.Code == eval.CodeBudget {
					got = append(got, d)
				}
			}
			if len(got) != 1 || got[0].Severity != c.sev {
				t.Fatalf("budget diagnostics %v, want one of severity %v\n%s", got, c.sev, eval.Dump(p))
			}
			if len(p.Kernels) != c.kernels {
				t.Errorf("%d kernels, want %d", len(p.Kernels), c.kernels)
			}
		})
	}
}
