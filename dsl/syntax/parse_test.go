package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// dumpTests are valid inputs and their trees. Together they cover every
// construct of the grammar.
var dumpTests = []struct{ src, want string }{
	{"x\n",
		"(expr x)"},
	{"é_名 = 1\n",
		"(= é_名 1)"},
	{"match = case = type = _ = 1\n",
		"(= match case type _ 1)"},
	{"1; 0x_ff; 0o17; 0b1010; 1_000; 1.5; .5; 5.; 1e10; 1.5E-3_0; 3j; 1.5J; 0_0\n",
		"(expr 1) (expr 0x_ff) (expr 0o17) (expr 0b1010) (expr 1_000) (expr 1.5) (expr .5) (expr 5.) (expr 1e10) (expr 1.5E-3_0) (expr 3j) (expr 1.5J) (expr 0_0)"},
	{"'a'; \"b\"; '''c'''; \"\"\"d\"\"\"; r'\\n'; b'\\x00\\n'; rb'\\d'; BR\"x\"; u'\\u00e9'; U\"\\U0001F600\"\n",
		"(expr \"a\") (expr \"b\") (expr \"c\") (expr \"d\") (expr \"\\\\n\") (expr b\"\\x00\\n\") (expr b\"\\\\d\") (expr b\"x\") (expr \"é\") (expr \"😀\")"},
	{"'a' \"b\" 'c'\n",
		"(expr \"abc\")"},
	{"'\\x41\\101\\n\\t\\\\\\'' '\\N{DASH}'\n",
		"(expr \"AA\\n\\t\\\\'\\\\N{DASH}\")"},
	{"f\"a{b}c\"; F'{x!r}'; rf\"{x}\\n\"; f\"{x:>10}\"; f\"{x=}\"; f\"{ x = !s:^{w}.{p}}\"\n",
		"(expr (fstr \"a\" (fmt b) \"c\")) (expr (fstr (fmt x !r))) (expr (fstr (fmt x) \"\\\\n\")) (expr (fstr (fmt x (fstr \">10\")))) (expr (fstr \"x=\" (fmt x !r))) (expr (fstr \" x = \" (fmt x !s (fstr \"^\" (fmt w) \".\" (fmt p)))))"},
	{"f\"{'a' if x else \"b\"}{f\"{y}\"}\" f'{{literal}}'\n",
		"(expr (fstr (fmt (ifexp x \"a\" \"b\")) (fmt (fstr (fmt y))) \"{literal}\"))"},
	{"f\"\"\"{\nx\n+ 1}\"\"\"\n",
		"(expr (fstr (fmt (+ x 1))))"},
	{"f\"{x:{'a'}}\" \"tail\"\n",
		"(expr (fstr (fmt x (fstr (fmt \"a\"))) \"tail\"))"},
	{"x = True, False, None, ...\n",
		"(= x (tuple True False None ...))"},
	{"a + b - c * d / e // f % g ** h @ i\n",
		"(expr (- (+ a b) (@ (% (// (/ (* c d) e) f) (** g h)) i)))"},
	{"a << b >> c & d | e ^ f\n",
		"(expr (| (& (>> (<< a b) c) d) (^ e f)))"},
	{"-a ** -b; +a; ~a; not a; not not a\n",
		"(expr (- (** a (- b)))) (expr (+ a)) (expr (~ a)) (expr (not a)) (expr (not (not a)))"},
	{"a and b and c or d or e\n",
		"(expr (or (and a b c) d e))"},
	{"a < b == c != d >= e > f <= g in h not in i is j is not k\n",
		"(expr (cmp a < b == c != d >= e > f <= g in h not in i is j is not k))"},
	{"a if b else c if d else e\n",
		"(expr (ifexp b a (ifexp d c e)))"},
	{"lambda: 0; lambda x, y=1, *a, z, **k: x; lambda *, a: a; lambda a, /, b: a\n",
		"(expr (lambda (params) 0)) (expr (lambda (params x (y = 1) *a z **k) x)) (expr (lambda (params * a) a)) (expr (lambda (params a / b) a))"},
	{"f(); f(a, b); f(*a, **k); f(a, k=1, *b, **c); f(x for x in y); f(a)(b)(c)\n",
		"(expr (call f)) (expr (call f a b)) (expr (call f (* a) (** k))) (expr (call f a (* b) (kw k 1) (** c))) (expr (call f (genexp x (for x y)))) (expr (call (call (call f a) b) c))"},
	{"a.b.c; a[b]; a[b, c]; a[b:c]; a[::2]; a[:, 1:]; a[1:2:3, ...]; a[*b]; a[()]\n",
		"(expr (. (. a b) c)) (expr (sub a b)) (expr (sub a (tuple b c))) (expr (sub a (slice b c _))) (expr (sub a (slice _ _ 2))) (expr (sub a (tuple (slice _ _ _) (slice 1 _ _)))) (expr (sub a (tuple (slice 1 2 3) ...))) (expr (sub a (tuple (* b)))) (expr (sub a (tuple)))"},
	{"(); (a); (a,); (a, b); ((a, b), c); (yield); (yield x); (yield from y)\n",
		"(expr (tuple)) (expr a) (expr (tuple a)) (expr (tuple a b)) (expr (tuple (tuple a b) c)) (expr (yield)) (expr (yield x)) (expr (yield-from y))"},
	{"[]; [a]; [a, *b,]; {}; {a}; {a, *b}; {a: b}; {a: b, **c, d: e}\n",
		"(expr (list)) (expr (list a)) (expr (list a (* b))) (expr (dict)) (expr (set a)) (expr (set a (* b))) (expr (dict (a b))) (expr (dict (a b) (** c) (d e)))"},
	{"[x for x in y]; {x for x in y if x if z}; {k: v for k, v in d}; (x for x in y for z in x)\n",
		"(expr (listcomp x (for x y))) (expr (setcomp x (for x y (if x) (if z)))) (expr (dictcomp k v (for (tuple k v) d))) (expr (genexp x (for x y) (for z x)))"},
	{"[x async for x in y]\n",
		"(expr (listcomp x (async-for x y)))"},
	{"(x := 1); f(y := 2); a[b := 3]; [z := 4]\n",
		"(expr (:= x 1)) (expr (call f (:= y 2))) (expr (sub a (:= b 3))) (expr (list (:= z 4)))"},
	{"await x\n",
		"(expr (await x))"},
	{"*a, b = c\n",
		"(= (tuple (* a) b) c)"},
	{"a = b = c\n",
		"(= a b c)"},
	{"a += 1; b -= 2; c *= 3; d /= 4; e //= 5; f %= 6; g **= 7; h @= 8; i <<= 9; j >>= 10; k &= 11; l |= 12; m ^= 13\n",
		"(+= a 1) (-= b 2) (*= c 3) (/= d 4) (//= e 5) (%= f 6) (**= g 7) (@= h 8) (<<= i 9) (>>= j 10) (&= k 11) (|= l 12) (^= m 13)"},
	{"x: int; y: list[int] = []; self.z: T = 1; a[0]: int = 2\n",
		"(ann x int) (ann y (sub list int) (list)) (ann (. self z) T 1) (ann (sub a 0) int 2)"},
	{"del a, b[0], c.d\n",
		"(del a (sub b 0) (. c d))"},
	{"pass; break; continue\n",
		"(pass) (break) (continue)"},
	{"return; return x; return x, *y\n",
		"(return) (return x) (return (tuple x (* y)))"},
	{"raise; raise E; raise E from e\n",
		"(raise) (raise E) (raise E (from e))"},
	{"assert x; assert x, \"msg\"\n",
		"(assert x) (assert x \"msg\")"},
	{"global a, b; nonlocal c\n",
		"(global a b) (nonlocal c)"},
	{"import a; import a.b.c; import a as b, c.d as e\n",
		"(import a) (import a.b.c) (import (as a b) (as c.d e))"},
	{"from a import b; from a.b import c as d, e; from . import x; from .. a . b import (y, z,); from ... import *\n",
		"(from a b) (from a.b (as c d) e) (from . x) (from ..a.b y z) (from ... *)"},
	{"def f(): pass\n",
		"(def f (params) (pass))"},
	{"def f(a, b: int = 1, /, c=2, *args: str, d, e: int = 3, **kwargs) -> bool: return a\n",
		"(def f (params a (b : int = 1) / (c = 2) *(args : str) d (e : int = 3) **kwargs) (-> bool) (return a))"},
	{"def f[T, *Ts, **P](x: T) -> T: pass\n",
		"(def f [T *Ts **P] (params (x : T)) (-> T) (pass))"},
	{"def f[T: int, U = str](): pass\n",
		"(def f [(T : int) (U = str)] (params) (pass))"},
	{"async def f(): await x\n",
		"(async-def f (params) (expr (await x)))"},
	{"@a\n@b.c(d)\ndef f(): pass\n",
		"(def f (@ a (call (. b c) d)) (params) (pass))"},
	{"class C: pass\n",
		"(class C (pass))"},
	{"class C(A, B, metaclass=M, **kw): x = 1\n",
		"(class C (bases A B (kw metaclass M) (** kw)) (= x 1))"},
	{"class C[T](Generic[T]): pass\n",
		"(class C [T] (bases (sub Generic T)) (pass))"},
	{"@dataclass\nclass C:\n    x: int\n",
		"(class C (@ dataclass) (ann x int))"},
	{"if a: pass\n",
		"(if a (pass))"},
	{"if a:\n    b\nelif c:\n    d\nelif e:\n    f\nelse:\n    g\n",
		"(if a (expr b) (elif c (expr d) (elif e (expr f) (else (expr g)))))"},
	{"for x in y: pass\n",
		"(for x y (pass))"},
	{"for x, (y, z) in w: pass\nelse: pass\n",
		"(for (tuple x (tuple y z)) w (pass) (else (pass)))"},
	{"async for x in y: pass\n",
		"(async-for x y (pass))"},
	{"for *a, b in c: pass\n",
		"(for (tuple (* a) b) c (pass))"},
	{"for x in *a, b: pass\n",
		"(for x (tuple (* a) b) (pass))"},
	{"while x: pass\n",
		"(while x (pass))"},
	{"while x:\n    pass\nelse:\n    pass\n",
		"(while x (pass) (else (pass)))"},
	{"with a: pass\n",
		"(with (a) (pass))"},
	{"with a as b, c as (d, e): pass\n",
		"(with ((as a b) (as c (tuple d e))) (pass))"},
	{"with (a as b, c): pass\n",
		"(with ((as a b) c) (pass))"},
	{"with (a, b) as c: pass\n",
		"(with ((as (tuple a b) c)) (pass))"},
	{"with (a): pass\n",
		"(with (a) (pass))"},
	{"async with a as b: pass\n",
		"(async-with ((as a b)) (pass))"},
	{"try:\n    a\nexcept:\n    b\n",
		"(try (expr a) (except _ (expr b)))"},
	{"try:\n    a\nexcept E:\n    b\nexcept (E, F) as e:\n    c\nelse:\n    d\nfinally:\n    e\n",
		"(try (expr a) (except E (expr b)) (except (tuple E F) as e (expr c)) (else (expr d)) (finally (expr e)))"},
	{"try:\n    a\nfinally:\n    b\n",
		"(try (expr a) (finally (expr b)))"},
	{"try:\n    a\nexcept* E:\n    b\n",
		"(try* (expr a) (except E (expr b)))"},
	{"match x:\n    case 1: pass\n    case \"s\" | b\"b\" | -1 | 1.5 | 1 + 2j | -1 - 2j: pass\n    case None | True | False: pass\n    case a.b | a.b.c: pass\n    case _: pass\n    case y: pass\n    case [a, b, *rest]: pass\n    case (a, b, *_): pass\n    case (): pass\n    case []: pass\n    case (a): pass\n    case {\"k\": v, 1: w, a.b: c, **rest}: pass\n    case {}: pass\n    case Point(): pass\n    case Point(1, y=2, z=_): pass\n    case a.B(x) as q if q > 0: pass\n    case [1, 2] | [3, 4] as z: pass\n",
		"(match x (case (value 1) (pass)) (case (or (value \"s\") (value b\"b\") (value (- 1)) (value 1.5) (value (+ 1 2j)) (value (- (- 1) 2j))) (pass)) (case (or None True False) (pass)) (case (or (value (. a b)) (value (. (. a b) c))) (pass)) (case _ (pass)) (case (capture y) (pass)) (case (seq (capture a) (capture b) *rest) (pass)) (case (seq (capture a) (capture b) *_) (pass)) (case (seq) (pass)) (case (seq) (pass)) (case (capture a) (pass)) (case (map (\"k\" (capture v)) (1 (capture w)) ((. a b) (capture c)) **rest) (pass)) (case (map) (pass)) (case (class Point) (pass)) (case (class Point (value 1) (kw y (value 2)) (kw z _)) (pass)) (case (as (class (. a B) (capture x)) q) (if (cmp q > 0)) (pass)) (case (as (or (seq (value 1) (value 2)) (seq (value 3) (value 4))) z) (pass)))"},
	{"match a, b:\n    case 1, 2: pass\n    case *r, 1: pass\n",
		"(match (tuple a b) (case (seq (value 1) (value 2)) (pass)) (case (seq *r (value 1)) (pass)))"},
	{"match(x)\n",
		"(expr (call match x))"},
	{"match[x]\n",
		"(expr (sub match x))"},
	{"match.x = 1\n",
		"(= (. match x) 1)"},
	{"type X = int\n",
		"(type X int)"},
	{"type Y[T] = list[T]\n",
		"(type Y [T] (sub list T))"},
	{"type = 5\n",
		"(= type 5)"},
	{"type.x\n",
		"(expr (. type x))"},
	{"print(type(x))\n",
		"(expr (call print (call type x)))"},
	{"x = yield\n",
		"(= x (yield))"},
	{"x = yield a, b\n",
		"(= x (yield (tuple a b)))"},
	{"def g(): x = yield from y\n",
		"(def g (params) (= x (yield-from y)))"},
	{"if x:\n    # comment\n    pass # trailing\n",
		"(if x (pass))"},
	{"x = (1 +\n     2)\n",
		"(= x (+ 1 2))"},
	{"x = 1 + \\\n    2\n",
		"(= x (+ 1 2))"},
	{"x = [\n    1,\n    2,\n]\n",
		"(= x (list 1 2))"},
	// Layout: tabs, CRLF and lone CR line ends, form feed.
	{"if x:\n\tif y:\n\t\tpass\n\tpass\n",
		"(if x (if y (pass)) (pass))"},
	{"z = 1\r\nif z:\r\n    w = 2\r\nq = 3\rr = 4\n\x0cs = 5\n",
		"(= z 1) (if z (= w 2)) (= q 3) (= r 4) (= s 5)"},
	// PEP 701 f-strings: nested quotes, nested f-strings, != and dicts in
	// fields, = with a spec, backslashes in expressions, nested specs.
	{"f\"{f\"{x}\"}\" f\"{a!=b}\" f\"{ {'a': 1}['a'] }\" f\"{x=:>10}\" f\"{'\\n'.join(x)}\"\n",
		"(expr (fstr (fmt (fstr (fmt x))) (fmt (cmp a != b)) (fmt (sub (dict (\"a\" 1)) \"a\")) \"x=\" (fmt x (fstr \">10\")) (fmt (call (. \"\\n\" join) x))))"},
	{"Rb'x'; bR\"y\"; Fr\"{z}\\d\"; fR\"{z}\"; rF\"{z}\"\n",
		"(expr b\"x\") (expr b\"y\") (expr (fstr (fmt z) \"\\\\d\")) (expr (fstr (fmt z))) (expr (fstr (fmt z)))"},
	{"f\"\"\"a\n{x\n}b\n\"\"\"\n",
		"(expr (fstr \"a\\n\" (fmt x) \"b\\n\"))"},
	{"f\"{x:{y}{z}}\" f\"{x!r:}\" f\"{(lambda: 1)()}\" f\"{x:=5}\" f\"{3.14:{10}.{2}f}\"\n",
		"(expr (fstr (fmt x (fstr (fmt y) (fmt z))) (fmt x !r (fstr)) (fmt (call (lambda (params) 1))) (fmt x (fstr \"=5\")) (fmt 3.14 (fstr (fmt 10) \".\" (fmt 2) \"f\"))))"},
	{"1_0.0_1e+1_0j; 0e0; 0j; 00; 0.0; 1if x else 2; 1 .real\n",
		"(expr 1_0.0_1e+1_0j) (expr 0e0) (expr 0j) (expr 00) (expr 0.0) (expr (ifexp x 1 2)) (expr (. 1 real))"},
	{"\ufeffx = 1\n",
		"(= x 1)"},
}

func TestDump(t *testing.T) {
	for _, tc := range dumpTests {
		checkDump(t, tc.src, tc.want)
	}
}

func checkDump(t *testing.T, src, want string) {
	t.Helper()
	f, diags := Parse(source.NewFile("t.py", []byte(src)))
	for _, d := range diags {
		t.Errorf("%q: unexpected diagnostic %s", src, formatDiag(f, d))
	}
	if got := Dump(f); got != want {
		t.Errorf("%q:\n got %s\nwant %s", src, got, want)
	}
	checkInvariants(t, src, f)
	if hasBad(f) {
		t.Errorf("%q: Bad node in a file without errors", src)
	}
}

// recoveryTests are broken inputs: the expected diagnostics
// ("line:col code-without-prefix message"), the top-level functions and
// classes still found with their body sizes, and the tree.
var recoveryTests = []struct {
	src   string
	diags []string
	defs  string
	dump  string
}{
	{
		src:   "def b():\n    return 1\n\ndef a(x y):\n    pass\n\ndef c():\n    x = 1\n    return x\n",
		diags: []string{"4:9 unexpected-token expected ',' or ')' in parameter list"},
		defs:  "b:1 a:1 c:2",
		dump:  "(def b (params) (return 1)) (def a (params x) (pass)) (def c (params) (= x 1) (return x))",
	},
	{
		src:   "def a():\n    if x\n        y = 1\n    return y\ndef b():\n    pass\n",
		diags: []string{"2:9 unexpected-token expected ':' after if condition"},
		defs:  "a:2 b:1",
		dump:  "(def a (params) (if x (= y 1)) (return y)) (def b (params) (pass))",
	},
	{
		src:   "def a():\n    x = foo(1,\ndef c():\n    pass\n",
		diags: []string{"2:12 unclosed-bracket '(' was never closed"},
		defs:  "a:1 c:1",
		dump:  "(def a (params) (= x (call foo 1 (bad)))) (def c (params) (pass))",
	},
	{
		src:   "def a():\n    x = [1, 2\n    return x\ndef c():\n    pass\n",
		diags: []string{"2:9 unclosed-bracket '[' was never closed"},
		defs:  "a:2 c:1",
		dump:  "(def a (params) (= x (list 1 2)) (return x)) (def c (params) (pass))",
	},
	{
		src:   "def a():\n    s = 'abc\n    return s\n",
		diags: []string{"2:9 unterminated-string unterminated string literal"},
		defs:  "a:2",
		dump:  "(def a (params) (= s \"abc\") (return s))",
	},
	{
		src:   "def a():\n    s = '''abc\n    return s\ndef b(): pass\n",
		diags: []string{"2:9 unterminated-string unterminated triple-quoted string literal"},
		defs:  "a:1",
		dump:  "(def a (params) (= s \"abc\\n    return s\\ndef b(): pass\\n\"))",
	},
	{
		src: "def a():\n    s = f\"{x\"\n    t = f\"{y!z}\"\n    return s\n",
		diags: []string{
			"2:13 bad-string f-string: expecting '}'",
			"3:14 bad-string f-string: invalid conversion character, expected 's', 'r', or 'a'",
		},
		defs: "a:3",
		dump: "(def a (params) (= s (fstr (fmt x))) (= t (fstr (fmt y))) (return s))",
	},
	{
		src:   "def a():\n    x = 1\n        y = 2\n    return x\n",
		diags: []string{"3:9 bad-indent unexpected indent"},
		defs:  "a:3",
		dump:  "(def a (params) (= x 1) (= y 2) (return x))",
	},
	{
		src:   "class A:\n    def m(self):\n            pass\n        q = 1\n    r = 2\n",
		diags: []string{"4:9 bad-indent unindent does not match any outer indentation level"},
		defs:  "A:3",
		dump:  "(class A (def m (params self) (pass)) (= q 1) (= r 2))",
	},
	{
		src:   "def a():\nreturn 1\ndef b(): pass\n",
		diags: []string{"2:1 bad-indent expected an indented block after function definition"},
		defs:  "a:0 b:1",
		dump:  "(def a (params)) (return 1) (def b (params) (pass))",
	},
	{
		src:   "x = $\ny = 1\n",
		diags: []string{"1:5 bad-character invalid character '$'"},
		dump:  "(= x (bad)) (bad-stmt) (= y 1)",
	},
	{
		src:   "x = 1\x00\ny = 2\n",
		diags: []string{"1:6 bad-character source code cannot contain null bytes"},
		dump:  "(= x 1) (bad-stmt) (= y 2)",
	},
	{
		src:   "x = '\xff'\n\xfe = 2\n",
		diags: []string{"2:1 bad-character invalid utf-8 byte 0xfe"},
		dump:  "(= x \"\\xff\") (bad-stmt)",
	},
	{
		src:   "@dec\nx = 1\n",
		diags: []string{"2:1 unexpected-token expected 'def' or 'class' after decorator"},
		dump:  "(bad-stmt) (= x 1)",
	},
	{
		src: "f() = 1\n1 += 2\ndel f()\nfor 1 in x: pass\n(a, b): int\nwith a as f(): pass\n",
		diags: []string{
			"1:1 invalid-target cannot assign to function call in assignment",
			"2:1 invalid-target 'literal' is an illegal expression for augmented assignment",
			"3:5 invalid-target cannot delete function call",
			"4:5 invalid-target cannot assign to literal in 'for' loop",
			"5:1 invalid-target only single target (not tuple) can be annotated",
			"6:11 invalid-target cannot assign to function call in 'with' statement",
		},
		dump: "(= (call f) 1) (+= 1 2) (del (call f)) (for 1 x (pass)) (ann (tuple a b) int) (with ((as a (call f))) (pass))",
	},
	{
		src:   "x = ) ) )\n",
		diags: []string{"1:5 unexpected-token unexpected ')'"},
		dump:  "(= x (bad)) (bad-stmt)",
	},
	{
		src:   "def class(): pass\ndef ok(): pass\n",
		diags: []string{"1:5 unexpected-token expected name after 'def', found keyword 'class'"},
		defs:  "ok:1",
		dump:  "(bad-stmt) (def ok (params) (pass))",
	},
	{
		src:   "x = \ny = 2\n",
		diags: []string{"1:5 unexpected-token expected expression"},
		dump:  "(= x (bad)) (= y 2)",
	},
	{
		src:   "else:\n    pass\n",
		diags: []string{"1:1 unexpected-token unexpected keyword 'else'"},
		dump:  "(bad-stmt) (pass)",
	},
	{
		src:   "x = 1 2\n",
		diags: []string{"1:7 unexpected-token unexpected number 2"},
		dump:  "(= x 1) (bad-stmt)",
	},
	{
		src:   "print \"hello\"\n",
		diags: []string{"1:7 unexpected-token unexpected string"},
		dump:  "(expr print) (bad-stmt)",
	},
	{
		src:   "def f(a=1, b): pass\n",
		diags: []string{"1:12 invalid-syntax parameter without a default follows parameter with a default"},
		defs:  "f:1",
		dump:  "(def f (params (a = 1) b) (pass))",
	},
	{
		src:   "f(x for x in y, 1)\n",
		diags: []string{"1:3 invalid-syntax generator expression must be parenthesized"},
		dump:  "(expr (call f (genexp x (for x y)))) (bad-stmt)",
	},
	{
		src:   "x = b\"a\" \"b\"\n",
		diags: []string{"1:5 bad-string cannot mix bytes and nonbytes literals"},
		dump:  "(= x \"ab\")",
	},
	{
		src: "x = 0777\ny = 1__0\nz = 0x\n",
		diags: []string{
			"1:5 bad-number leading zeros in decimal integer literals are not permitted",
			"2:5 bad-number invalid number literal",
			"3:5 bad-number invalid number literal",
		},
		dump: "(= x 0777) (= y 1__0) (= z 0x)",
	},
	{
		src:   "x = (1, 2\n",
		diags: []string{"1:5 unclosed-bracket '(' was never closed"},
		dump:  "(= x (tuple 1 2))",
	},
	{
		src:   "match x:\n    pass\n",
		diags: []string{"2:5 unexpected-token expected 'case' block"},
		dump:  "(match x)",
	},
	{
		src:   "try:\n    pass\nx = 1\n",
		diags: []string{"3:1 unexpected-token expected 'except' or 'finally' block"},
		dump:  "(try (pass)) (= x 1)",
	},
	{
		src:   "if x:\n\tpass\n        pass\n",
		diags: []string{"3:9 inconsistent-tabs inconsistent use of tabs and spaces in indentation"},
		dump:  "(if x (pass) (pass))",
	},
	{
		src:  "",
		dump: "",
	},
	{
		src:  "# only a comment\n",
		dump: "",
	},
	{
		src:   "x = 1 + \\",
		diags: []string{"1:9 unexpected-token unexpected end of file after line continuation"},
		dump:  "(= x (+ 1 (bad)))",
	},
	{
		src:   "def f(\n    a,\n    b,\n:\n    pass\ndef g(): pass\n",
		diags: []string{"1:6 unclosed-bracket '(' was never closed"},
		defs:  "f:1 g:1",
		dump:  "(def f (params a b) (pass)) (def g (params) (pass))",
	},
	{
		src:   "x = [i for i in]\n",
		diags: []string{"1:16 unexpected-token unexpected ']'"},
		dump:  "(= x (listcomp i (for i (bad))))",
	},
	{
		src:   "class C(:\n    def m(self): pass\n",
		diags: []string{"1:8 unclosed-bracket '(' was never closed"},
		defs:  "C:1",
		dump:  "(class C (bases (bad)) (def m (params self) (pass)))",
	},
	{
		src:   "if x:\npass\n",
		diags: []string{"2:1 bad-indent expected an indented block after 'if' statement"},
		dump:  "(if x) (pass)",
	},
	{
		src:   "x = {'a': 1, 'b'}\n",
		diags: []string{"1:17 unexpected-token expected ':' after dict key"},
		dump:  "(= x (dict (\"a\" 1) (\"b\" (bad))))",
	},
	{
		src:   "lambda x: yield\n",
		diags: []string{"1:11 invalid-syntax yield expression must be parenthesized here"},
		dump:  "(expr (lambda (params x) (yield)))",
	},
	{
		src:   "a.1\n",
		diags: []string{"1:2 unexpected-token unexpected number .1"},
		dump:  "(expr a) (bad-stmt)",
	},
	{
		src:   "x = not\n",
		diags: []string{"1:8 unexpected-token expected expression"},
		dump:  "(= x (not (bad)))",
	},
	{
		src:   "f(**)\n",
		diags: []string{"1:5 unexpected-token unexpected ')'"},
		dump:  "(expr (call f (** (bad))))",
	},
	{
		src: "import\nfrom x import\nfrom import y\n",
		diags: []string{
			"1:7 unexpected-token expected name after 'import'",
			"2:14 unexpected-token expected name to import",
			"3:6 unexpected-token expected name after 'from', found keyword 'import'",
		},
		dump: "(import) (from x) (from ) (bad-stmt)",
	},
	{
		src:   "def f():\n    return\n  x = 1\n",
		diags: []string{"3:3 bad-indent unindent does not match any outer indentation level"},
		defs:  "f:1",
		dump:  "(def f (params) (return)) (= x 1)",
	},
	{
		src:   "@\ndef f(): pass\n",
		diags: []string{"1:2 unexpected-token expected expression"},
		defs:  "f:1",
		dump:  "(def f (@ (bad)) (params) (pass))",
	},
	{
		src:   "x = 'a' f'{'\n",
		diags: []string{"1:12 bad-string f-string: expecting '}'"},
		dump:  "(= x (fstr \"a\" (fmt (bad))))",
	},
	{
		src:   "f'{x:{y'\n",
		diags: []string{"1:8 bad-string f-string: expecting '}'"},
		dump:  "(expr (fstr (fmt x (fstr (fmt y)))))",
	},
	{
		src:   "f'}'\n",
		diags: []string{"1:3 bad-string f-string: single '}' is not allowed"},
		dump:  "(expr (fstr \"}\"))",
	},
	{
		src:   "f'{}'\n",
		diags: []string{"1:4 bad-string f-string: valid expression required before '}'"},
		dump:  "(expr (fstr (fmt (bad))))",
	},
	{
		src: "def f(*): pass\ndef g(**k, a): pass\n",
		diags: []string{
			"1:8 invalid-syntax named parameters must follow bare '*'",
			"2:12 invalid-syntax parameters cannot follow var-keyword parameter",
		},
		defs: "f:1 g:1",
		dump: "(def f (params) (pass)) (def g (params **k) (pass))",
	},
	{
		src:   "x = $ $ $\n",
		diags: []string{"1:5 bad-character invalid character '$'"},
		dump:  "(= x (bad)) (bad-stmt)",
	},
	{
		src:   "@T.prim_func\ndef k(A: T.Buffer((64,), \"float32\")):\n    with T.kernel():\n        Tx.copy(A[0:64], \n    T.evaluate(0)\n\n@T.prim_func\ndef k2():\n    pass\n",
		diags: []string{"4:16 unclosed-bracket '(' was never closed"},
		defs:  "k:1 k2:1",
		dump:  "(def k (@ (. T prim_func)) (params (A : (call (. T Buffer) (tuple 64) \"float32\"))) (with ((call (. T kernel))) (expr (call (. Tx copy) (sub A (slice 0 64 _)) (call (. T evaluate) 0))))) (def k2 (@ (. T prim_func)) (params) (pass))",
	},
	{
		src:   "def a():\n    whille x:\n        y = 1\n    return y\n",
		diags: []string{"2:12 unexpected-token unexpected name 'x'"},
		defs:  "a:4",
		dump:  "(def a (params) (expr whille) (bad-stmt) (= y 1) (return y))",
	},
}

func TestRecovery(t *testing.T) {
	for _, tc := range recoveryTests {
		checkRecovery(t, tc.src, tc.diags, tc.defs, tc.dump)
	}
}

func checkRecovery(t *testing.T, src string, wantDiags []string, wantDefs, wantDump string) {
	t.Helper()
	f, diags := Parse(source.NewFile("t.py", []byte(src)))
	var got []string
	for _, d := range diags {
		got = append(got, formatDiag(f, d))
	}
	if strings.Join(got, "\n") != strings.Join(wantDiags, "\n") {
		t.Errorf("%q: diagnostics:\n got %q\nwant %q", src, got, wantDiags)
	}
	if d := topDefs(f); d != wantDefs {
		t.Errorf("%q: top-level definitions: got %q, want %q", src, d, wantDefs)
	}
	if d := Dump(f); d != wantDump {
		t.Errorf("%q:\n got %s\nwant %s", src, d, wantDump)
	}
	checkInvariants(t, src, f)
}

func formatDiag(f *File, d diag.Diagnostic) string {
	line, col := f.Src.Position(d.Span.Start)
	return fmt.Sprintf("%d:%d %s %s", line, col, strings.TrimPrefix(d.Code, "syntax/"), d.Message)
}

// topDefs summarizes the top-level functions and classes of f as
// "name:<number of body statements>", space-separated.
func topDefs(f *File) string {
	var out []string
	for _, s := range f.Body {
		switch s := s.(type) {
		case *FunctionDef:
			out = append(out, fmt.Sprintf("%s:%d", s.Name.Id, len(s.Body)))
		case *ClassDef:
			out = append(out, fmt.Sprintf("%s:%d", s.Name.Id, len(s.Body)))
		}
	}
	return strings.Join(out, " ")
}

// TestErrorLimit checks the cap of maxErrors diagnostics.
func TestErrorLimit(t *testing.T) {
	src := strings.Repeat("x = $\n", 2*maxErrors)
	f, diags := Parse(source.NewFile("t.py", []byte(src)))
	if len(diags) != maxErrors {
		t.Errorf("got %d diagnostics, want %d", len(diags), maxErrors)
	}
	if n := len(f.Body); n != 4*maxErrors {
		t.Errorf("got %d statements, want %d (one Assign and one BadStmt per line)", n, 4*maxErrors)
	}
}

// TestDeepNesting checks that hostile nesting gives an error, not a stack
// overflow, and that the next line is still parsed.
func TestDeepNesting(t *testing.T) {
	const n = 100000
	for _, src := range []string{
		strings.Repeat("(", n) + "x" + strings.Repeat(")", n),
		strings.Repeat("[", n),
		strings.Repeat("-", n) + "x",
		strings.Repeat("not ", n) + "x",
		strings.Repeat("await ", n) + "x",
		strings.Repeat("a[", n) + "0" + strings.Repeat("]", n),
		strings.Repeat("f(", n) + strings.Repeat(")", n),
		strings.Repeat("lambda: ", n) + "0",
		strings.Repeat("x if y else ", n) + "z",
		strings.Repeat("a ** ", n) + "b",
		strings.Repeat("f'{", 300) + strings.Repeat("}'", 300),
		func() string {
			var b strings.Builder
			for i := 0; i < 2000; i++ {
				b.WriteString(strings.Repeat(" ", i) + "if x:\n")
			}
			return b.String() + strings.Repeat(" ", 2000) + "pass"
		}(),
	} {
		src += "\ndef after(): pass\n"
		f, diags := Parse(source.NewFile("t.py", []byte(src)))
		if len(diags) == 0 {
			t.Errorf("%.20q...: no diagnostic", src)
		}
		if d := topDefs(f); !strings.HasSuffix(d, "after:1") {
			t.Errorf("%.20q...: top-level definitions %q, want the last to be after:1", src, d)
		}
	}
}
