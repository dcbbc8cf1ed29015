package syntax

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
)

// cpythonSpans runs testdata/pyspans.py over files and returns, per file,
// the sorted "Type start end" lines, or an "ERROR ..." line when CPython
// cannot parse the file.
func cpythonSpans(t *testing.T, files []string) map[string][]string {
	t.Helper()
	python := python3(t)
	script, err := filepath.Abs("testdata/pyspans.py")
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]string)
	for len(files) > 0 {
		n := min(len(files), 200)
		cmd := exec.Command(python, append([]string{script}, files[:n]...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("pyspans.py: %v\n%s", err, stderr.String())
		}
		var cur string
		sc := bufio.NewScanner(bytes.NewReader(stdout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if path, ok := strings.CutPrefix(line, "FILE "); ok {
				cur = path
				out[cur] = nil
				continue
			}
			out[cur] = append(out[cur], line)
		}
		files = files[n:]
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

func python3(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	return path
}

// ourSpans renders the spans of f's nodes the way pyspans.py renders
// CPython's: same node names, identifiers that CPython keeps as plain
// strings left out, nodes without a CPython position left out.
func ourSpans(f *File) []string {
	var out []string
	var stack []Node
	Inspect(f, func(n Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		var parent Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		name := reflect.TypeOf(n).Elem().Name()
		switch n := n.(type) {
		case *File, *Params, *Param, *Comprehension, *WithItem, *MatchCase, *TypeParam, *FormattedValue:
			return true
		case *JoinedStr:
			out = append(out, fmt.Sprintf("JoinedStr %d %d", n.Loc.Start, n.Loc.End))
			stack = stack[:len(stack)-1]
			return false
		case *Name:
			if isIdentifierField(parent, n) {
				return true
			}
		case *Constant:
			if _, ok := parent.(*MatchSingleton); ok {
				return true
			}
		case *ExprStmt:
			name = "Expr"
		case *FunctionDef:
			if n.IsAsync {
				name = "AsyncFunctionDef"
			}
		case *For:
			if n.IsAsync {
				name = "AsyncFor"
			}
		case *With:
			if n.IsAsync {
				name = "AsyncWith"
			}
		case *Try:
			if n.Star {
				name = "TryStar"
			}
		case *Keyword:
			name = "keyword"
		case *Alias:
			name = "alias"
		}
		sp := n.Span()
		out = append(out, fmt.Sprintf("%s %d %d", name, sp.Start, sp.End))
		return true
	})
	slices.Sort(out)
	return out
}

// isIdentifierField reports whether n is a Name that CPython stores as a
// plain identifier string in parent.
func isIdentifierField(parent Node, n *Name) bool {
	switch p := parent.(type) {
	case *FunctionDef:
		return p.Name == n
	case *ClassDef:
		return p.Name == n
	case *Attribute:
		return p.Attr == n
	case *Keyword:
		return p.Name == n
	case *Param:
		return p.Name == n
	case *TypeParam:
		return p.Name == n
	case *Alias:
		return p.AsName == n
	case *ExceptHandler:
		return p.Name == n
	case *MatchAs:
		return p.Name == n
	case *MatchMapping:
		return p.Rest == n
	case *MatchClass:
		return p.Cls != Expr(n)
	case *Global, *Nonlocal, *MatchStar:
		return true
	}
	return false
}

// diffLines reports the lines only in want and only in got.
func diffLines(want, got []string) (onlyWant, onlyGot []string) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i] < got[j]:
			onlyWant = append(onlyWant, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			onlyGot = append(onlyGot, got[j])
			j++
		default:
			i++
			j++
		}
	}
	return
}

// Snippets valid in Python 3.11 (the differential oracle), chosen to cover
// span corner cases: parentheses, decorators, elif chains, trailing commas,
// implicit concatenation, slices, patterns.
var diffSnippets = []string{
	"x = 1, 2,\n",
	"a[1,]\na[1:2, ::3]\na[:]\na[b:]\n",
	"(a).b\n((a)).b(c)[d]\n",
	"f(x for x in y)\nf((x for x in y))\nf(a, *b, c=1, **d)\n",
	"x = (yield)\n",
	"for x, in y: pass\nfor (a, b) in c:\n    pass\nelse:\n    pass\n",
	"del a, b,\ndel (a), [b]\n",
	"\"a\" \"b\"\nx = ('a'\n     'b')\n",
	"with (a, b): pass\nwith (a as b, c): pass\nwith a as (b, c), d: pass\nwith (a, b) as c: pass\n",
	"lambda: 1\nlambda *a, **k: 0\n",
	"@d\n@e.f(1)\ndef f(a, /, b=1, *c, d, **e) -> int:\n    return a\n",
	"@d\nclass C(B, metaclass=M):\n    x: int = 1\n    y: int\n",
	"if a:\n    pass\nelif b:\n    pass\nelif c:\n    x = 1\nelse:\n    y = 2\n",
	"try:\n    pass\nexcept E as e:\n    pass\nexcept (A, B):\n    pass\nelse:\n    pass\nfinally:\n    pass\n",
	"try:\n    pass\nexcept* E:\n    pass\n",
	"match x:\n    case [1, *r] | {\"k\": _, **kw} if r:\n        pass\n    case Point(x=0) as p:\n        pass\n    case -1 + 2j | None | a.b:\n        pass\n    case (1, 2) | ():\n        pass\n",
	"import a.b as c, d\nfrom . import (e, f as g,)\nfrom ..h import *\n",
	"global a, b\ndef f():\n    nonlocal x\n",
	"x = [i for i in range(3) if i]\ny = {k: v for k, v in d.items()}\nz = {a, *b}\n",
	"async def f():\n    async for a in b:\n        await c\n    async with d as e:\n        pass\n    return [x async for x in y]\n",
	"x = a if b else c\ny = not a and b or c\nz = a < b <= c is not d not in e\n",
	"x = -a ** -b\ny = ~a | b ^ c & d << e >> f + g - h * i / j // k % l @ m\n",
	"x += 1\ny: list[int] = []\n(z) = 1\na = b = c\n",
	"assert x, 'msg'\nraise E from e\nraise\n",
	"if (n := len(a)) > 10: pass\n",
	"print(f\"a{b!r:>{c}}\", f'{x=}')\n",
	"x = {**a, 'b': 1}\ny = [*a, *b]\nz = *a, *b\n",
	"def f(a,\n      b):\n    '''doc\n    string'''\n    return (a +\n            b)\n",
	"x = \\\n    1\nwhile x:\n    break\nelse:\n    continue\n",
	"s = a[1:2, ..., None]\nt = a[()]\n",
	"x = 1; y = 2;\nif x: y = 3; z = 4\n",
	"class A: pass\nclass B(): pass\n",
	"é = 1\nnaïve = 'ü'\n",
}

func TestDifferentialSnippets(t *testing.T) {
	python3(t)
	dir := t.TempDir()
	var files []string
	for i, s := range diffSnippets {
		path := filepath.Join(dir, fmt.Sprintf("s%02d.py", i))
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	want := cpythonSpans(t, files)
	for i, path := range files {
		checkDifferential(t, path, []byte(diffSnippets[i]), want[path])
	}
}

// TestDifferentialStdlib compares spans with CPython on a sample of the
// standard library (every file when TILELS_DIFF_ALL is set).
func TestDifferentialStdlib(t *testing.T) {
	files := stdlibFiles(t)
	if os.Getenv("TILELS_DIFF_ALL") == "" {
		var sample []string
		for i := 0; i < len(files); i += 25 {
			sample = append(sample, files[i])
		}
		files = sample
	}
	want := cpythonSpans(t, files)
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(want[path]) > 0 && strings.HasPrefix(want[path][0], "ERROR") || bytes.IndexByte(src, '\r') >= 0 || bytes.IndexByte(src, '\f') >= 0 || !utf8.Valid(src) {
			continue
		}
		checkDifferential(t, path, src, want[path])
	}
}

func checkDifferential(t *testing.T, path string, src []byte, want []string) {
	t.Helper()
	f, diags := Parse(source.NewFile(path, src))
	if len(diags) > 0 {
		t.Errorf("%s: unexpected diagnostics: %v", path, diags)
		return
	}
	onlyWant, onlyGot := diffLines(want, ourSpans(f))
	if len(onlyWant)+len(onlyGot) == 0 {
		return
	}
	const max = 8
	t.Errorf("%s: spans differ from CPython\nCPython only: %v\nours only:    %v", path, head(onlyWant, max), head(onlyGot, max))
}

func head(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}
