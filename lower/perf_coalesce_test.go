package lower

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// coalesceKernel is a register tile that gives each thread one row
// (LAYOUT), read from a shared tile and stored to global memory: the
// store is uncoalesced (256 sectors for an ideal of 128). USE is a line
// of the kernel after the copies.
const coalesceKernel = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

ROWS = TileLayout(S[(32, 32):(1 @ laneid, 1)])


@T.prim_func
def rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32):(36, 1)]))
    # row: one row of the tile per lane
    row = T.alloc_buffer((32, 32), "float32", scope="local", layout=LAYOUT)
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.warp_sync()
    Tx.warp.copy(row[:, :], A_s[:, :])
    Tx.warp.copy(B[:, :], row[:, :])
USE
# tilels: reference=0.27
`

func coalesceProgram(layoutText, use string) string {
	return strings.NewReplacer("LAYOUT", layoutText, "USE", use).Replace(coalesceKernel)
}

// coalesceFixesOf returns the perf/uncoalesced fixes of src's warnings.
func coalesceFixesOf(t *testing.T, src string) []Fix {
	t.Helper()
	res := Analyze(source.NewFile("rows.py", []byte(src)), Options{})
	ds, fixes := PerfReport(res, Options{})
	warned := false
	for _, d := range ds {
		warned = warned || d.Code == CodeUncoalesced
	}
	if !warned {
		t.Fatalf("no perf/uncoalesced warning: %v", ds)
	}
	var out []Fix
	for _, f := range fixes {
		if f.Diag == CodeUncoalesced {
			out = append(out, f)
		}
	}
	return out
}

// TestCoalesceFix: the fix gives the register tile the layout whose
// neighbouring lanes hold neighbouring 16-byte pieces of its rows; the
// fixed program stores B with its ideal sectors, and its host reference
// (the lowered code executed on the CPU) leaves B the copy of A that
// the unfixed program leaves.
func TestCoalesceFix(t *testing.T) {
	src := coalesceProgram("TileLayout(S[(32, 32):(1 @ laneid, 1)])", "")
	fixes := coalesceFixesOf(t, src)
	if len(fixes) != 1 {
		t.Fatalf("%d fixes, want 1: %+v", len(fixes), fixes)
	}
	fx := fixes[0]
	const want = "TileLayout(S[(8, 4, 8, 4):(4, 8 @ laneid, 1 @ laneid, 1)])"
	if fx.NewText != want || src[fx.Span.Start:fx.Span.End] != "TileLayout(S[(32, 32):(1 @ laneid, 1)])" || !fx.Preferred {
		t.Errorf("fix %q replacing %q (preferred %v), want %q", fx.NewText, src[fx.Span.Start:fx.Span.End], fx.Preferred, want)
	}
	if !strings.Contains(fx.Title, "256 → 128 global sectors (verified)") {
		t.Errorf("title %q", fx.Title)
	}
	fixed := src[:fx.Span.Start] + fx.NewText + src[fx.Span.End:]
	if ds, _ := PerfReport(Analyze(source.NewFile("rows.py", []byte(fixed)), Options{}), Options{}); len(ds) != 0 {
		t.Errorf("warnings after the fix: %v", ds)
	}
	before, after := runReference(t, "rows", []byte(src))["rows"], runReference(t, "rows_fixed", []byte(fixed))["rows"]
	if a := before.in["A"]; len(a) == 0 || string(before.out["B"]) != string(a) || string(after.out["B"]) != string(a) {
		t.Errorf("B is not A's copy before and after the fix (%d, %d, %d bytes)", len(a), len(before.out["B"]), len(after.out["B"]))
	}
}

// TestCoalesceFixRefused: no fix where another layout would change what
// the program means or where the change is not local to the allocation.
func TestCoalesceFixRefused(t *testing.T) {
	for _, c := range []struct{ name, layout, use string }{
		// the layout a module-level name gives, which other kernels may share
		{"named layout", "ROWS", ""},
		// a thread's registers written by index: another layout gives
		// them other elements of the tile
		{"registers written", "TileLayout(S[(32, 32):(1 @ laneid, 1)])", "    rl = row.local()\n    rl[0] = T.float32(0)"},
		// and read by index
		{"registers read", "TileLayout(S[(32, 32):(1 @ laneid, 1)])", "    B[0, 0] = row.local()[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if fixes := coalesceFixesOf(t, coalesceProgram(c.layout, c.use)); len(fixes) != 0 {
				t.Errorf("fixes offered: %+v", fixes)
			}
		})
	}
}

// TestKwargSpan reads the value of a keyword argument in a call's text.
func TestKwargSpan(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32):(1 @ laneid, 1)]))`, "TileLayout(S[(32, 32):(1 @ laneid, 1)])"},
		{`T.alloc_buffer((32, 32), "float32", layout = ROWS , scope="local")`, "ROWS"},
		{`T.alloc_buffer((32, 32), "layout=", scope="local")`, ""},
		{`T.alloc_buffer((32, 32), f(layout=X), scope="local")`, ""},
		{`T.alloc_buffer((32, 32), "float32", layout="default")`, ""},
	} {
		lo, hi, ok := kwargSpan(c.text, "layout")
		got := ""
		if ok {
			got = c.text[lo:hi]
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.text, got, c.want)
		}
	}
}

// FuzzCallText checks the two readers of a call's source text the
// coalescing fix uses, on any text: kwargSpan's range lies inside the
// text, holds no unbalanced bracket, and follows `name=`; pythonNames
// reports identifiers at their offsets, never inside a comment.
func FuzzCallText(f *testing.F) {
	for _, s := range []string{
		`T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32):(1 @ laneid, 1)]))`,
		`T.alloc_buffer((32, 32), "layout=", layout = ROWS , scope="local")`,
		`f(layout=g(layout=1), x='a\'b')  # layout=c`,
		`x = """row"""  # row` + "\n" + `row[0] = 1`,
		`layout=`, `(layout=[1, (2,]`, `'unterminated`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if lo, hi, ok := kwargSpan(text, "layout"); ok {
			if lo < 0 || hi < lo || hi > len(text) {
				t.Fatalf("range [%d, %d) of %d bytes", lo, hi, len(text))
			}
			before := strings.TrimRight(text[:lo], " \t")
			if !strings.HasSuffix(before, "=") {
				t.Fatalf("value at %d not after '=': %q", lo, text)
			}
			depth := 0
			for _, c := range text[lo:hi] {
				switch c {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
				}
				if depth < 0 {
					t.Fatalf("unbalanced value %q", text[lo:hi])
				}
			}
		}
		pythonNames([]byte(text), func(off int, name string) {
			if off < 0 || off+len(name) > len(text) || text[off:off+len(name)] != name || name == "" || !identStart(name[0]) {
				t.Fatalf("name %q at %d of %q", name, off, text)
			}
			if i := strings.LastIndexByte(text[:off], '\n'); strings.Contains(text[i+1:off], "#") && !strings.ContainsAny(text[i+1:off], `"'`) {
				t.Fatalf("name %q at %d is in a comment: %q", name, off, text)
			}
		})
	})
}
