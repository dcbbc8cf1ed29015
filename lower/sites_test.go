package lower

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// programs returns every Python program of the repository's test data:
// the .py files under testdata/ and the .py sections of every txtar
// golden (lower, dsl/eval, codegen, lsp), keyed by a readable name.
func programs(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)) {
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".py"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] = b
		case strings.HasSuffix(path, ".txtar"):
			a, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".py") {
					out[path+":"+f.Name] = f.Data
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEverySiteHasAnOutcome is the rule of issue 15 over every program of
// the repository's goldens: each syntactic tile call ends in exactly one
// outcome (a variant, the reference's rejection, needs X, not modelled,
// not analysed because of an error in the program, not reached), shown at
// the call: a record holds it (a decision, or an unresolved call the
// editor shows in place), or a diagnostic lies inside it.
func TestEverySiteHasAnOutcome(t *testing.T) {
	progs := programs(t)
	if len(progs) < 100 {
		t.Fatalf("found %d programs; the walk is broken", len(progs))
	}
	kinds := map[SiteKind]int{}
	total := 0
	for name, src := range progs {
		res := Analyze(source.NewFile(name, src), Options{})
		sites := res.Sites()
		if want := len(tileSites(res.Syntax)); len(sites) != want {
			t.Errorf("%s: %d sites, %d syntactic tile calls", name, len(sites), want)
		}
		for _, s := range sites {
			total++
			kinds[s.Kind]++
			line, col := res.File.Position(s.Span.Start)
			where := name + ":" + itoa(line) + ":" + itoa(col)
			if s.Kind != SiteVariant && s.Message == "" {
				t.Errorf("%s: %s site without a message", where, s.Kind)
			}
			if s.Kind == SiteVariant && s.Variant == "" {
				t.Errorf("%s: variant site without a variant", where)
			}
			if !res.Shown(s) {
				t.Errorf("%s: %s (%s) is shown nowhere: no record holds it and no diagnostic lies inside it", where, s.Kind, s.Message)
			}
		}
	}
	if total == 0 {
		t.Fatal("no tile call in the goldens")
	}
	t.Logf("%d programs, %d sites: %v", len(progs), total, kinds)
}

// TestSiteKinds checks each outcome on a program written for it.
func TestSiteKinds(t *testing.T) {
	src := `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout

FAST = False


@T.prim_func
def k(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    S_ = T.alloc_buffer((64, 64), "float32", scope="shared", layout=TileLayout(S[64, 64]))
    Tx.cta.copy(S_[:, :], A[:, :])
    if FAST:
        Tx.cta.copy(B[:, :], S_[:, :])
    Tx.cta.memset(S_[:, :], 0)


@T.prim_func
def stopped(A: T.Buffer((64, 64), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    S_ = T.alloc_buffer((64, 64), "float32", scope="shared", layout=TileLayout(S[64, 64]))
    X = undefined_helper(S_)
    Tx.cta.copy(X[:, :], A[:, :])


def factory(M):
    @T.prim_func
    def needs(A: T.Buffer((M, 64), "float32"), B: T.Buffer((M, 64), "float32")):
        T.device_entry()
        T.cta_id([1])
        T.thread_id([128])
        Tx.cta.copy(B[:, :], A[:, :])

    return needs
`
	res := Analyze(source.NewFile("kinds.py", []byte(src)), Options{})
	var got []string
	for _, s := range res.Sites() {
		line, _ := res.File.Position(s.Span.Start)
		got = append(got, itoa(line)+" "+s.Kind.String())
	}
	want := []string{"14 variant", "16 not reached", "17 rejected", "27 blocked", "36 needs"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("sites:\n got %q\nwant %q", got, want)
	}
	var codes []string
	for _, d := range res.Diags {
		if d.Code == CodeNotReached || d.Code == CodeNotAnalysed {
			line, _ := res.File.Position(d.Span.Start)
			codes = append(codes, itoa(line)+" "+d.Code+" "+d.Severity.String())
		}
	}
	if want := []string{"16 lower/not-reached hint", "27 lower/not-analysed information"}; strings.Join(codes, "; ") != strings.Join(want, "; ") {
		t.Errorf("site diagnostics:\n got %q\nwant %q", codes, want)
	}
}
