package lower

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// sessionCorpus is a file with module-level code around the kernels: a
// constant and a helper the kernels use, a factory kernel, and a main
// block that names one kernel (edits to it must take the whole-file path).
const sessionCorpus = `# Session corpus.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout

ROWS = 32


def cols(n):
    return n * 2


@T.prim_func
def first(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (ROWS, cols(16)), "float32")
    B = T.match_buffer(B_ptr, (ROWS, cols(16)), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((ROWS, 32), "float32", scope="shared", layout=TileLayout(S[ROWS, 32]))
    Tx.warp.copy(A_smem[0:32, 0:32], A[0:32, 0:32])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])


def make(rows):
    @T.prim_func
    def made(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (rows, 8), "float32")
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer((rows, 8), "float32", scope="shared", layout=TileLayout(S[rows, 8]))
        Tx.warp.copy(A_s[:, :], A[:, :])

    return made


made4 = make(4)


@T.prim_func
def second(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float32")
    B = T.match_buffer(B_ptr, (4, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    T.thread_id([32])
    A_smem = T.alloc_buffer((4, 6), "float32", scope="shared", layout=TileLayout(S[4, 6]))
    Tx.warp.copy(A_smem[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.warp.copy(B[:, :], A_smem[:, :])


if __name__ == "__main__":
    print(second)
`

// casesCorpus has kernel defs with several cases and partial records: a
// top-level @T.jit bound by two directive lines (which sit at the end of
// the kernel segment above it), a @T.jit never specialized and a factory
// nobody calls (partial), and a parametrize grid of four cases.
// familiesCorpus mixes the op families beyond copy (an mma gemm, a warp
// sum), a Trainium kernel (a foreign record among the partial ones) and a
// kernel that needs a binding (a partial record after it).
const familiesCorpus = `# Session corpus with families and foreign kernels.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import F, P, S, TileLayout, laneid

A_FRAG = TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])
B_FRAG = TileLayout(S[(2, 4, 2, 8):(2, 1 @ laneid, 1, 4 @ laneid)])
D_FRAG = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])


@T.prim_func
def trn_copy(A_ptr: T.handle) -> None:
    A = T.match_buffer(A_ptr, (128, 512), "float32")
    T.device_entry()
    A_sbuf = T.alloc_buffer((128, 512), "float32", scope="trn.sbuf", layout=TileLayout(S[(128, 512) : (1 @ P, 1 @ F)]))
    Tx.copy(A_sbuf, A)


@T.prim_func
def mma(D_ptr: T.handle):
    D_g = T.match_buffer(D_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane = T.lane_id([32])
    A = T.alloc_buffer((16, 16), "float16", scope="local", layout=A_FRAG)
    B = T.alloc_buffer((16, 8), "float16", scope="local", layout=B_FRAG)
    D = T.alloc_buffer((16, 8), "float32", scope="local", layout=D_FRAG)
    Tx.warp.gemm(D, A, B, D)


def tiles(M):
    @T.prim_func
    def tile_copy(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (M, 32), "float32")
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer((M, 32), "float32", scope="shared", layout=TileLayout(S[M, 32]))
        Tx.warp.copy(A_s[:, :], A[:, :])
    return tile_copy


@T.prim_func
def rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    B = T.match_buffer(B_ptr, (32, 1), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 8), "float32", scope="shared", layout=TileLayout(S[32, 8]))
    B_s = T.alloc_buffer((32, 1), "float32", scope="shared", layout=TileLayout(S[32, 1]))
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.sum(B_s[:, :], A_s[:, :], axes=1)
    T.cuda.warp_sync()
    Tx.warp.copy(B[:, :], B_s[:, :])
`

const casesCorpus = `# Session corpus with cases.
import pytest
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

ROWS = 32


@T.prim_func
def plain(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (ROWS, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((ROWS, 8), "float32", scope="shared")
    Tx.warp.copy(A_s[:, :], A[:, :])

# tilels: bind N=64, dtype="float16"
# tilels: bind N=128, dtype="float32"
@T.jit
def bound(A: T.Buffer((N,), dtype), *, N: T.constexpr, dtype: T.constexpr):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((N,), dtype, scope="shared")
    Tx.warp.copy(A_s[:], A[:])


@T.jit
def unbound(A: T.Buffer((SIZE,), "float32"), *, SIZE: T.constexpr, THREADS: T.constexpr = 32):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([THREADS])
    A_s = T.alloc_buffer((SIZE,), "float32", scope="shared")
    Tx.warp.copy(A_s[:], A[:])


def make_tiles(M, dtype="float16"):
    @T.prim_func
    def tiles(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (M, 64), dtype)
        T.device_entry()
        T.cta_id([1])
        T.thread_id([128])
        A_s = T.alloc_buffer((64, 64), dtype, scope="shared")
        Tx.cta.copy(A_s[:, :], A[0:64, :])

    return tiles


@pytest.mark.parametrize("rows", [4, 32])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_grid(rows, dtype):
    @T.prim_func
    def grid(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (rows, 32), dtype)
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer((rows, 32), dtype, scope="shared")
        Tx.warp.copy(A_s[:, :], A[:, :])


@T.prim_func
def last(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((4, 6), "float16", scope="shared")
    Tx.warp.copy(A_s[:, :], A[:, :])
`

// snippets are typed into the file by TestSessionMatchesAnalyze: plain
// characters, lines, broken syntax, new kernels, names of other kernels.
var snippets = []string{
	"x", " ", "\n", "(", ")", "[", "]", ":", "0", "1", "6", "#", "'", `"""`,
	"    T.cuda.cta_sync()\n", "    Tx.warp.copy(A_smem[:, :], A[:, :])\n",
	"    Tx.cta.copy(B[:, :], A_smem[:, :])\n", "    y = ROWS + 1\n",
	"@T.prim_func\ndef extra(A_ptr: T.handle):\n    T.device_entry()\n",
	"first", "second", "global", "ROWS", "A_smem[0:8, 0:8]", "dispatch=\"tma\"",
	"\n\nZ = 3\n", "    \n", "\t", "é", "\xff",
	"# tilels: bind N=32, dtype=\"float32\"\n", "# tilels: bind SIZE=64\n", " = 64", "SIZE", "N",
	", X: T.constexpr", "dtype", "\"float16\"", "@T.jit\n",
	"# tilels: reference=0.25\n", "reference=0.26",
}

// TestSessionMatchesAnalyze applies random edits through a Session and
// checks every snapshot against Analyze of the same text: diagnostics,
// kernels, decisions, buffers and printed CUDA must be equal. It also
// checks that most edits inside one kernel take the one-kernel path.
func TestSessionMatchesAnalyze(t *testing.T) {
	if *sessionSeed > 0 {
		testSessionMatchesAnalyze(t, uint64(*sessionSeed))
		return
	}
	for seed := uint64(1); seed <= uint64(*sessionSeeds); seed++ {
		testSessionMatchesAnalyze(t, seed)
	}
}

// sessionSeeds runs TestSessionMatchesAnalyze with more random seeds
// (go test ./lower -run SessionMatches -session.seeds 40).
var sessionSeeds = flag.Int("session.seeds", 1, "random seeds for TestSessionMatchesAnalyze")

// sessionSeed runs TestSessionMatchesAnalyze with one seed only.
var sessionSeed = flag.Int("session.seed", 0, "the one random seed for TestSessionMatchesAnalyze")

// sessionDump names files to write the texts before and after a failing
// edit to (PREFIX.old, PREFIX.new), to replay it.
var sessionDump = flag.String("session.dump", "", "write the texts of a failing edit to `prefix`.old and .new")

func testSessionMatchesAnalyze(t *testing.T, seed uint64) {
	for _, tc := range []struct {
		name  string
		src   string
		edits int
		// minFast is the least share of edits that must take the
		// one-kernel path (random edits also hit module-level code, and
		// the snippets include kernel names and `global`).
		minFast float64
	}{
		{"corpus", sessionCorpus, 400, 0.125},
		{"cases", casesCorpus, 500, 0.1},
		{"families", familiesCorpus, 300, 0.1},
		{"factory", factoryCorpus, 300, 0}, // its kernel is never analysed alone
		{"big", string(bigFile(t, 400)), 250, 0.33},
	} {
		t.Run(fmt.Sprintf("%s/seed%d", tc.name, seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(tc.src))))
			sess := NewSession(Options{})
			text := tc.src
			// fast counts the edits that took the one-kernel path, clean
			// the versions without a syntax error (an edited kernel with
			// one is always analysed whole: see Session.incremental).
			fast, clean, moved := 0, 0, 0
			var history []string // the texts analysed, for -session.dump
			for step := 0; step < tc.edits; step++ {
				prevText := text
				// Mostly small edits; every 50th edit restores the original
				// so the file does not drift into garbage.
				if step%50 == 49 {
					text = tc.src
				} else {
					text = randomEdit(rng, text)
				}
				history = append(history, text)
				f := source.NewFile("k.py", []byte(text))
				snap, err := sess.Analyze(context.Background(), f)
				if err != nil {
					t.Fatal(err)
				}
				if !snap.Full {
					fast++
					if snap.Reanalysed == 0 {
						moved++
					}
				}
				want := Analyze(source.NewFile("k.py", []byte(text)), Options{})
				if !slices.ContainsFunc(want.Diags, func(d diag.Diagnostic) bool { return strings.HasPrefix(d.Code, "syntax/") }) {
					clean++
				}
				if msg := compareSnapshot(snap, want); msg != "" {
					if *sessionDump != "" {
						os.WriteFile(*sessionDump+".old", []byte(prevText), 0o644)
						os.WriteFile(*sessionDump+".new", []byte(text), 0o644)
						os.MkdirAll(*sessionDump+".seq", 0o755)
						for i, h := range history {
							os.WriteFile(fmt.Sprintf("%s.seq/%04d.py", *sessionDump, i), []byte(h), 0o644)
						}
					}
					p, oldEnd, newEnd := diffRegion([]byte(prevText), []byte(text))
					// Does the edit fail after a whole-file analysis too?
					again := NewSession(Options{})
					again.Analyze(context.Background(), source.NewFile("k.py", []byte(prevText)))
					s2, _ := again.Analyze(context.Background(), f)
					alone := compareSnapshot(s2, want) != ""
					t.Fatalf("step %d (full=%v, fails from a whole-file snapshot too: %v): %s\nedit at %d: %q -> %q\ntext:\n%s", step, snap.Full, alone, msg, p, prevText[p:oldEnd], text[p:newEnd], text)
				}
			}
			if float64(fast) < tc.minFast*float64(clean) {
				t.Errorf("only %d of %d edits (%d without syntax errors) took an incremental path", fast, tc.edits, clean)
			}
			t.Logf("%d of %d edits (%d without syntax errors) took an incremental path, %d analysing nothing", fast, tc.edits, clean, moved)
		})
	}
}

// randomEdit makes one random edit: it inserts a snippet, deletes a
// short range or changes a digit anywhere; types in a comment, adds a
// comment line, or changes white space between lines (edits that change
// no token); changes a digit of a module-level constant (which some
// kernels read and others not), or adds a module-level assignment.
func randomEdit(rng *rand.Rand, text string) string {
	p := rng.IntN(len(text) + 1)
	switch rng.IntN(10) {
	case 0, 1, 2:
		return text[:p] + snippets[rng.IntN(len(snippets))] + text[p:]
	case 3:
		n := min(rng.IntN(6)+1, len(text)-p)
		return text[:p] + text[p+n:]
	case 4:
		for i := p; i < len(text); i++ {
			if text[i] >= '0' && text[i] <= '9' {
				return text[:i] + string(rune('1'+rng.IntN(9))) + text[i+1:]
			}
		}
		return text
	case 5:
		// Type in a comment: after its '#', or at its end.
		if c := randomIndex(rng, text, "#"); c >= 0 {
			end := c + strings.IndexAny(text[c:]+"\n", "\n")
			at := c + 1 + rng.IntN(end-c)
			return text[:at] + commentSnippets[rng.IntN(len(commentSnippets))] + text[at:]
		}
		return text
	case 6:
		// A comment line, at the start of a line (indented or not).
		at := lineStartAt(text, p)
		return text[:at] + []string{"# note\n", "    # note\n", "#\n", "# ROWS first\n"}[rng.IntN(4)] + text[at:]
	case 7:
		// White space between lines: a blank line, trailing spaces, or a
		// line break removed from a blank line.
		at := lineStartAt(text, p)
		switch rng.IntN(3) {
		case 0:
			return text[:at] + "\n" + text[at:]
		case 1:
			if at > 0 {
				return text[:at-1] + "  " + text[at-1:]
			}
			return text
		default:
			if i := strings.Index(text[at:], "\n\n"); i >= 0 {
				return text[:at+i] + text[at+i+1:]
			}
			return text
		}
	case 8:
		// A digit of a module-level constant.
		var lines []int
		for i := 0; i < len(text); i = strings.IndexByte(text[i:]+"\n", '\n') + i + 1 {
			if i < len(text) && text[i] >= 'A' && text[i] <= 'Z' && strings.Contains(strings.SplitN(text[i:], "\n", 2)[0], "=") {
				lines = append(lines, i)
			}
		}
		if len(lines) == 0 {
			return text
		}
		l := lines[rng.IntN(len(lines))]
		end := l + strings.IndexByte(text[l:]+"\n", '\n')
		for i := l; i < end; i++ {
			if text[i] >= '0' && text[i] <= '9' {
				return text[:i] + string(rune('1'+rng.IntN(9))) + text[i+1:]
			}
		}
		return text
	default:
		// A module-level assignment before a top-level statement.
		if d := randomIndex(rng, text, "\n@"); d >= 0 {
			return text[:d+1] + []string{"ROWS = 8\n", "Q = ROWS + 1\n", "COLS = 7\n", "\nTILE = (4, 4)\n"}[rng.IntN(4)] + text[d+1:]
		}
		return text
	}
}

// commentSnippets are typed into comments.
var commentSnippets = []string{"x", " ", "first", "ROWS", "#", "'", "(", "tilels", " tilels: bind N=8"}

// randomIndex returns the index of a random occurrence of sub in text (-1
// when none).
func randomIndex(rng *rand.Rand, text, sub string) int {
	n := strings.Count(text, sub)
	if n == 0 {
		return -1
	}
	k := rng.IntN(n)
	i := 0
	for ; k >= 0; k-- {
		j := strings.Index(text[i:], sub)
		if k == 0 {
			return i + j
		}
		i += j + len(sub)
	}
	return -1
}

// lineStartAt returns the start of the line containing p.
func lineStartAt(text string, p int) int { return strings.LastIndexByte(text[:p], '\n') + 1 }

func compareSnapshot(snap *Snapshot, want *Result) string {
	if got, w := canonDiags(snap.Diags), canonDiags(want.Diags); !slices.Equal(got, w) {
		return fmt.Sprintf("diagnostics differ:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
	}
	if len(snap.Kernels) != len(want.Kernels) {
		return fmt.Sprintf("%d kernels, want %d", len(snap.Kernels), len(want.Kernels))
	}
	for i, v := range snap.Kernels {
		k := want.Kernels[i]
		if got, w := describeKernel(v.Kernel, v.Shift), describeKernel(k, 0); got != w {
			return fmt.Sprintf("kernel %d differs:\ngot:\n%s\nwant:\n%s", i, got, w)
		}
		var gotB, wantB []string
		for _, b := range v.Buffers {
			gotB = append(gotB, fmt.Sprintf("%s %v %v", b.Buf.Name, v.ToFile(b.NameSpan), v.ToFile(b.DeclSpan)))
		}
		for _, b := range want.Program.Kernels[i].Buffers {
			wantB = append(wantB, fmt.Sprintf("%s %v %v", b.Buf.Name, b.NameSpan, b.DeclSpan))
		}
		if !slices.Equal(gotB, wantB) {
			return fmt.Sprintf("kernel %d buffers: %v, want %v", i, gotB, wantB)
		}
	}
	if len(snap.Partial) != len(want.Partial) {
		return fmt.Sprintf("%d partial records, want %d", len(snap.Partial), len(want.Partial))
	}
	for i, v := range snap.Partial {
		if got, w := describeKernel(v.Kernel, v.Shift), describeKernel(want.Partial[i], 0); got != w {
			return fmt.Sprintf("partial record %d differs:\ngot:\n%s\nwant:\n%s", i, got, w)
		}
		var gotB, wantB []string
		for _, b := range v.Buffers {
			gotB = append(gotB, fmt.Sprintf("%s %v", b.Buf.Name, v.ToFile(b.NameSpan)))
		}
		for _, b := range want.Program.Partial[i].Buffers {
			wantB = append(wantB, fmt.Sprintf("%s %v", b.Buf.Name, b.NameSpan))
		}
		if !slices.Equal(gotB, wantB) {
			return fmt.Sprintf("partial record %d buffers: %v, want %v", i, gotB, wantB)
		}
	}
	gotC, gotErr := CUDA(snap.KernelList(), Options{})
	wantC, wantErr := CUDA(want.Kernels, Options{})
	if gotC != wantC || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		return fmt.Sprintf("CUDA differs (errors %v / %v)", gotErr, wantErr)
	}
	return ""
}

func describeKernel(k *Kernel, shift source.Pos) string {
	sh := func(s source.Span) source.Span {
		if !s.IsValid() {
			return s
		}
		return source.Span{Start: s.Start + shift, End: s.End + shift}
	}
	var b strings.Builder
	// The launch with its runtime grid extents written out (the
	// expressions are pointers, new in every analysis).
	launch := k.Launch
	var gridExpr []string
	for i, e := range launch.GridExpr {
		if e != nil {
			gridExpr = append(gridExpr, fmt.Sprintf("%d:%s@%v", i, tirx.ExprString(e), sh(e.Pos())))
		}
	}
	launch.GridExpr = [3]ir.Expr{}
	fmt.Fprintf(&b, "%s %v %+v grid %v case %d/%d %s %q %q needs %v\n", k.Name, sh(k.Span), launch, gridExpr, k.CaseIndex, k.CaseCount, k.CaseLabel, k.CaseID, k.CaseSource, k.Needs)
	for _, u := range k.Unresolved {
		fmt.Fprintf(&b, "  unresolved %v %v %s.%s needs %v\n", sh(u.Span), sh(u.OpSpan), u.Scope, u.Op, u.Needs)
	}
	for _, d := range k.Calls {
		fmt.Fprintf(&b, "  %v %s.%s %q", sh(d.Call.Span), d.Call.Scope, d.Call.Op, d.Variant)
		if r := d.Result; r != nil {
			fmt.Fprintf(&b, " vec=%d/%d outer=%d %s", r.Vec, r.VecBits, r.Outer, r.Partition)
		}
		for _, rj := range d.Declined {
			fmt.Fprintf(&b, " [%s: %s]", rj.Variant, rj.Reason)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// canonDiags renders diagnostics in a total order (the order of
// diagnostics equal in position, severity, code and message is not part
// of the contract).
func canonDiags(ds []diag.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%v %s %s %q %v", d.Span, d.Severity, d.Code, d.Message, d.Related)
	}
	slices.Sort(out)
	return out
}

// TestSessionPaths pins which edits take the one-kernel path.
func TestSessionPaths(t *testing.T) {
	ctx := context.Background()
	edit := func(base, old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("corpus lacks %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	c, k := casesCorpus, sessionCorpus
	for _, tc := range []struct {
		name string
		base string
		text string
		full bool
		// records is the number of records the one-kernel path re-analyses.
		records int
	}{
		{"inside first", k, edit(k, "T.cuda.cta_sync()\n    Tx.warp.copy(B", "T.cuda.cta_sync()\n    Tx.warp.copy( B"), false, 1},
		{"shape in first", k, edit(k, "(ROWS, 32), \"float32\", scope", "(ROWS, 24), \"float32\", scope"), false, 1},
		{"inside second (named by main)", k, edit(k, "(4, 6), \"float32\", scope", "(4, 8), \"float32\", scope"), true, 0},
		// A module constant: the kernel that reads it, the one the main block
		// names, and the module-level records (the factory's kernel).
		{"module constant", k, edit(k, "ROWS = 32", "ROWS = 16"), false, 3},
		{"inside the factory", k, edit(k, "(rows, 8), \"float32\")", "(rows, 16), \"float32\")"), false, 2},
		{"first names second", k, edit(k, "T.cuda.cta_sync()\n    Tx.warp.copy(B", "T.cuda.cta_sync()\n    second\n    Tx.warp.copy(B"), true, 0},
		{"new kernel pasted into first", k, edit(k, "    Tx.warp.copy(B[:, :], A_smem[:, :])\n\n\ndef make", "    Tx.warp.copy(B[:, :], A_smem[:, :])\n@T.prim_func\ndef k2():\n    pass\n\n\ndef make"), true, 0},
		{"unclosed bracket in first", k, edit(k, "T.cuda.cta_sync()\n    Tx.warp.copy(B", "T.cuda.cta_sync(\n    Tx.warp.copy(B"), false, 1},
		// Cases: the two cases of a @T.jit bound by directives (kept
		// above the stub of the kernel before it) are re-analysed together.
		{"inside the jit with two cases", c, edit(c, "T.alloc_buffer((N,), dtype", "T.alloc_buffer((N,),  dtype"), false, 2},
		{"a third constexpr", c, edit(c, "dtype: T.constexpr):", "dtype: T.constexpr, K: T.constexpr = 2):"), false, 2},
		{"inside the partial jit", c, edit(c, "T.alloc_buffer((SIZE,), \"float32\"", "T.alloc_buffer((SIZE,),  \"float32\""), false, 1},
		{"partial jit gets a default", c, edit(c, "SIZE: T.constexpr,", "SIZE: T.constexpr = 64,"), false, 1},
		{"inside the last kernel", c, edit(c, "(4, 6), \"float16\", scope", "(4, 8), \"float16\", scope"), false, 1},
		{"kernel ending with a directive", c, edit(c, "(ROWS, 8), \"float32\", scope", "(ROWS, 16), \"float32\", scope"), true, 0},
		{"directive typed in a kernel", c, edit(c, "(4, 6), \"float16\", scope", "(4, 6), \"float16\", scope  # tilels: bind"), true, 0},
		{"inside the grid's test", c, edit(c, "(rows, 32), dtype, scope", "(rows, 16), dtype, scope"), false, 5},
		// Edits that change no token analyse nothing, unless a kernel's
		// spans lie on both sides (a comment typed in its body).
		{"comment on the first line", k, edit(k, "# Session corpus.", "# Session corpus, edited."), false, 0},
		{"comment line between kernels", k, edit(k, "\n\n\ndef make", "\n\n# helpers\ndef make"), false, 0},
		{"blank line in module code", k, edit(k, "ROWS = 32\n", "ROWS = 32\n\n"), false, 0},
		{"trailing comment in module code", k, edit(k, "ROWS = 32\n", "ROWS = 32  # rows\n"), false, 0},
		{"comment inside first", k, edit(k, "    T.cuda.cta_sync()\n    Tx.warp.copy(B", "    T.cuda.cta_sync()\n    # sync\n    Tx.warp.copy(B"), false, 1},
		{"comment inside the factory", k, edit(k, "        T.device_entry()\n        T.cta_id([1])\n        T.thread_id([32])\n        A_s", "        T.device_entry()\n        # x\n        T.cta_id([1])\n        T.thread_id([32])\n        A_s"), false, 2},
		{"tilels typed in a comment", c, edit(c, "# Session corpus with cases.", "# Session corpus with cases. tilels"), false, 5},
		{"directive changed", c, edit(c, "# tilels: bind N=128,", "# tilels: bind N=256,"), true, 0},
		{"white space inside a call", k, edit(k, "print(second)", "print( second)"), false, 2},
		// A module constant read by one kernel of the cases corpus: that
		// kernel and the module-level records (tiles, the grid's four).
		{"constant read by plain", c, edit(c, "ROWS = 32", "ROWS = 64"), false, 6},
		{"constant added", c, edit(c, "ROWS = 32\n", "ROWS = 32\nCOLS = 8\n"), false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := NewSession(Options{})
			if _, err := sess.Analyze(ctx, source.NewFile("k.py", []byte(tc.base))); err != nil {
				t.Fatal(err)
			}
			snap, err := sess.Analyze(ctx, source.NewFile("k.py", []byte(tc.text)))
			if err != nil {
				t.Fatal(err)
			}
			if snap.Full != tc.full {
				t.Errorf("full = %v, want %v", snap.Full, tc.full)
			}
			if !snap.Full && snap.Reanalysed != tc.records {
				t.Errorf("reanalysed %d records, want %d", snap.Reanalysed, tc.records)
			}
			if msg := compareSnapshot(snap, Analyze(source.NewFile("k.py", []byte(tc.text)), Options{})); msg != "" {
				t.Error(msg)
			}
		})
	}
	// The cases corpus itself: what the tests above start from.
	res := Analyze(source.NewFile("k.py", []byte(casesCorpus)), Options{})
	var got []string
	for _, k := range res.Records() {
		got = append(got, fmt.Sprintf("%s %d/%d %v", k.Name, k.CaseIndex, k.CaseCount, k.Needs))
	}
	want := []string{"plain 1/1 []", "bound 1/2 []", "bound 2/2 []", "unbound 1/1 [SIZE]", "tiles 1/1 [M]", "grid 1/4 []", "grid 2/4 []", "grid 3/4 []", "grid 4/4 []", "last 1/1 []"}
	if !slices.Equal(got, want) {
		t.Errorf("cases corpus records:\n%q\nwant\n%q", got, want)
	}
}

// TestSessionCancelled: a done context stops the analysis before it starts
// and leaves the previous snapshot in place.
func TestSessionCancelled(t *testing.T) {
	sess := NewSession(Options{})
	first, err := sess.Analyze(context.Background(), source.NewFile("k.py", []byte(sessionCorpus)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sess.Analyze(ctx, source.NewFile("k.py", []byte(sessionCorpus+"\n"))); err == nil {
		t.Fatal("cancelled analysis returned no error")
	}
	if sess.Last() != first {
		t.Error("a cancelled analysis replaced the last snapshot")
	}
}

// BenchmarkSessionEdit3000 is one keystroke inside a kernel of the
// 3,000-line file through a Session (the language server's didChange).
func BenchmarkSessionEdit3000(b *testing.B) {
	src := bigFile(b, 3000)
	sess := NewSession(Options{})
	ctx := context.Background()
	if _, err := sess.Analyze(ctx, source.NewFile("big.py", src)); err != nil {
		b.Fatal(err)
	}
	// Toggle one space inside the middle kernel's last call.
	at := strings.Index(string(src[len(src)/2:]), "[:, :])\n") + len(src)/2 + 1
	texts := [2][]byte{src, append(append(append([]byte{}, src[:at]...), ' '), src[at:]...)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		snap, err := sess.Analyze(ctx, source.NewFile("big.py", texts[i%2]))
		if err != nil || snap.Full {
			b.Fatalf("full=%v err=%v", snap != nil && snap.Full, err)
		}
	}
}
