package lower

import (
	"context"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// factoryCorpus has the shape of the largest TIRx-kernels file: one
// @T.jit kernel that a factory specializes (`_kernel.specialize(...)`,
// so module-level code names it) for each CONFIGS entry, calling a
// module-level helper. No edit of the kernel can be analysed alone.
const factoryCorpus = `# Session corpus: a factory's kernel, as TIRx-kernels writes one.
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

THREADS = 128
CONFIGS = [
    {"label": "small", "rows": 4, "use_bias": False},
    {"label": "wide", "rows": 32, "use_bias": True},
    {"label": "tall", "rows": 64, "use_bias": False},
]


def _sync():
    T.cuda.cta_sync()


@T.jit
def _kernel(
    A: T.Buffer((rows, 64), "float16"),
    B: T.Buffer((rows, 64), "float16"),
    *,
    rows: T.constexpr,
    use_bias: T.constexpr,
):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([THREADS])
    A_s = T.alloc_buffer((rows, 64), "float16", scope="shared")
    B_s = T.alloc_buffer((rows, 64), "float16", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    _sync()
    if use_bias:
        Tx.cta.copy(B_s[:, :], A_s[:, :])
    else:
        Tx.cta.copy(B_s[:, :], B[:, :])
    _sync()
    for i in T.serial(0, 2):
        Tx.cta.copy(
            B[:, :], B_s[:, :]
        )


def make_kernel(**kwargs):
    kernel = _kernel.specialize(rows=kwargs["rows"], use_bias=kwargs["use_bias"])
    return kernel.with_attr("global_symbol", "made")


def get_kernel(**kwargs):
    return make_kernel(**kwargs)


__all__ = ["make_kernel"]
`

// TestSessionPinnedEdit pins which edits skip the region's parse
// (Snapshot.pinnedEdit: inside a kernel that module-level code names,
// changing tokens) and checks each result against Analyze.
func TestSessionPinnedEdit(t *testing.T) {
	ctx := context.Background()
	edit := func(base, old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("corpus lacks %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	f, k := factoryCorpus, sessionCorpus
	for _, tc := range []struct {
		name         string
		base, text   string
		pinned, full bool
	}{
		{"space after a paren in the kernel", f, edit(f, "Tx.cta.copy(A_s[:, :], A[:, :])", "Tx.cta.copy( A_s[:, :], A[:, :])"), true, true},
		{"shape in the kernel", f, edit(f, "B_s = T.alloc_buffer((rows, 64)", "B_s = T.alloc_buffer((rows, 32)"), true, true},
		{"name typed in the kernel", f, edit(f, "    _sync()\n    if use_bias:", "    _sync()\n    if use_bias and rows:"), true, true},
		{"space after a paren ending a line", f, edit(f, "Tx.cta.copy(\n", "Tx.cta.copy( \n"), true, true},
		{"space after a comma ending a line", f, edit(f, "    A: T.Buffer((rows, 64), \"float16\"),\n", "    A: T.Buffer((rows, 64), \"float16\"), \n"), true, true},
		{"line broken in the kernel", f, edit(f, "Tx.cta.copy(A_s[:, :], A[:, :])", "Tx.cta.copy(A_s[:, :],\n        A[:, :])"), false, true},
		{"comment line in the kernel", f, edit(f, "    _sync()\n    if use_bias:", "    _sync()\n    # bias\n    if use_bias:"), false, false},
		{"trailing comment in the kernel", f, edit(f, "B_s = T.alloc_buffer((rows, 64), \"float16\", scope=\"shared\")", "B_s = T.alloc_buffer((rows, 64), \"float16\", scope=\"shared\")  # B"), false, false},
		{"trailing space in the kernel", f, edit(f, "    _sync()\n    if use_bias:", "    _sync() \n    if use_bias:"), false, false},
		{"after a semicolon in the kernel", f, edit(f, "    _sync()\n    if use_bias:", "    _sync(); x = 1\n    if use_bias:"), false, true},
		{"module constant", f, edit(f, "THREADS = 128", "THREADS = 256"), false, false},
		{"inside the helper", f, edit(f, "    T.cuda.cta_sync()\n\n\n@T.jit", "    T.cuda.cta_sync( )\n\n\n@T.jit"), false, false},
		{"inside the factory", f, edit(f, "rows=kwargs[\"rows\"]", "rows=kwargs[ \"rows\"]"), false, false},
		{"inside an independent kernel", k, edit(k, "T.cuda.cta_sync()\n    Tx.warp.copy(B", "T.cuda.cta_sync()\n    Tx.warp.copy( B"), false, false},
		{"inside a kernel named by main", k, edit(k, "(4, 6), \"float32\", scope", "(4, 8), \"float32\", scope"), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := NewSession(Options{})
			if _, err := sess.Analyze(ctx, source.NewFile("k.py", []byte(tc.base))); err != nil {
				t.Fatal(err)
			}
			old, cur := []byte(tc.base), []byte(tc.text)
			p, oldEnd, newEnd := diffRegion(old, cur)
			if got := sess.Last().pinnedEdit(old, cur, p, oldEnd, newEnd); got != tc.pinned {
				t.Errorf("pinnedEdit = %v, want %v", got, tc.pinned)
			}
			snap, err := sess.Analyze(ctx, source.NewFile("k.py", cur))
			if err != nil {
				t.Fatal(err)
			}
			if snap.Full != tc.full {
				t.Errorf("full = %v, want %v", snap.Full, tc.full)
			}
			if msg := compareSnapshot(snap, Analyze(source.NewFile("k.py", cur), Options{})); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestSessionReferenceGuess: a version analysed as a whole runs under the
// previous version's reference while the reference is chosen
// (session_guess.go); when an edit changes the release, the analysis runs
// again under the chosen one. Either way the snapshot, its reference
// included, is Analyze's.
func TestSessionReferenceGuess(t *testing.T) {
	ctx := context.Background()
	f := factoryCorpus
	space := strings.Replace(f, "Tx.cta.copy(A_s[:, :], A[:, :])", "Tx.cta.copy( A_s[:, :], A[:, :])", 1)
	pinned := space + "# tilels: reference=0.25\n"
	sess := NewSession(Options{})
	for i, text := range []string{f, space, pinned, space, f} {
		snap, err := sess.Analyze(ctx, source.NewFile("k.py", []byte(text)))
		if err != nil {
			t.Fatal(err)
		}
		want := Analyze(source.NewFile("k.py", []byte(text)), Options{})
		if msg := compareSnapshot(snap, want); msg != "" {
			t.Errorf("version %d: %s", i, msg)
		}
		if snap.Reference != want.Reference {
			t.Errorf("version %d: reference %+v, want %+v", i, snap.Reference, want.Reference)
		}
		if (text == pinned) != (snap.Reference.Release.Short() == "0.25") {
			t.Errorf("version %d: release %s", i, snap.Reference.Release.Short())
		}
	}
}
