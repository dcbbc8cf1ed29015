package lower

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/ir"
)

// TestOutputMap checks the source <-> output map of every golden program,
// for the CUDA view (cached parts, and printed anew with #line
// directives) and the TIRx view: the text is the view's own; every range
// is non-empty and inside the text; every call's lines lie inside its
// kernel's and start at the call's comment; every top-level tile call of
// every kernel has exactly one range; and the round trip holds: from a
// call's source position to its output lines (the innermost range whose
// span holds it), and from each of those lines back to the same call.
func TestOutputMap(t *testing.T) {
	goldens, _ := filepath.Glob("testdata/*.txtar")
	calls := 0
	for _, p := range goldens {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		f := source.NewFile("kernel.py", src)
		snap, err := NewSession(Options{}).Analyze(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		views := snap.Kernels
		prints := NewPrints(Options{})
		name := filepath.Base(p)

		want, werr := prints.CUDA(snap.KernelList())
		text, ranges, err := prints.CUDAMap(views)
		if (err != nil) != (werr != nil) || text != want {
			t.Fatalf("%s: CUDAMap differs from CUDA (err %v, want %v)", name, err, werr)
		}
		if err == nil {
			calls += checkOutputMap(t, name+" cuda", f, cudaViews(views), text, ranges, "// ")
		}

		wantL, werr := CUDALines(views, Options{}, LineDirectives{Source: f})
		text, ranges, err = CUDALinesMap(views, Options{}, LineDirectives{Source: f})
		if (err != nil) != (werr != nil) || text != wantL {
			t.Fatalf("%s: CUDALinesMap differs from CUDALines", name)
		}
		if err == nil {
			checkOutputMap(t, name+" cuda+lines", f, views, text, ranges, "// ")
		}

		text, ranges = prints.TIRxMap(views)
		if text != prints.TIRx(snap.KernelList()) {
			t.Fatalf("%s: TIRxMap differs from TIRx", name)
		}
		checkOutputMap(t, name+" tirx", f, views, text, ranges, "# ")
	}
	t.Logf("%d tile calls mapped in the CUDA views", calls)
	if calls < 100 {
		t.Errorf("the goldens' CUDA maps hold %d tile calls, want at least 100", calls)
	}
}

// checkOutputMap checks one text's ranges (TestOutputMap) and returns the
// number of call ranges.
func checkOutputMap(t *testing.T, name string, f *source.File, views []*KernelView, text string, ranges []OutputRange, comment string) int {
	t.Helper()
	lines := strings.Split(text, "\n")
	n := len(lines)
	if strings.HasSuffix(text, "\n") {
		n--
	}
	var kernel OutputRange
	perKernel := map[string]int{}
	calls := 0
	for _, r := range ranges {
		if r.Start < 0 || r.Start >= r.End || r.End > n {
			t.Errorf("%s: %s lines [%d, %d) not a non-empty range of the %d lines", name, r.Kernel, r.Start, r.End, n)
			continue
		}
		if !r.Call {
			kernel = r
			continue
		}
		calls++
		perKernel[r.Kernel]++
		if r.Kernel != kernel.Kernel || r.Start < kernel.Start || r.End > kernel.End {
			t.Errorf("%s: call at %d lines [%d, %d) outside its kernel %s [%d, %d)", name, r.Span.Start, r.Start, r.End, kernel.Kernel, kernel.Start, kernel.End)
		}
		if first := strings.TrimSpace(lines[r.Start]); !strings.HasPrefix(first, comment+"Tx.") || !strings.Contains(first, " ->") {
			t.Errorf("%s: call lines start with %q, not its comment", name, first)
		}
		if s := string(f.Src[r.Span.Start:r.Span.End]); !strings.HasPrefix(s, "Tx.") && !strings.Contains(s, "(") {
			t.Errorf("%s: call span holds %q", name, s)
		}
		// Round trip: source position -> output lines -> source call.
		// Several kernels may come from one def (a factory called twice,
		// every case of a def): the first holds the cursor.
		to, ok := rangeAt(ranges, r.Span.Start)
		if !ok || to.Span != r.Span || !to.Call {
			t.Errorf("%s: the call at %d maps to %+v, want %+v", name, r.Span.Start, to, r)
		}
		for l := r.Start; l < r.End; l++ {
			if back, ok := rangeOfLine(ranges, l); !ok || back.Span != r.Span {
				t.Errorf("%s: output line %d maps back to %+v, want the call at %v", name, l, back, r.Span)
				break
			}
		}
	}
	for _, v := range views {
		k := v.Kernel
		if k.Lowered == nil || perKernel[k.Name] != 0 && k.CaseCount > 1 {
			continue // a kernel with cases: several records share the name
		}
		if want := topLevelCalls(k.Lowered.Body); perKernel[k.Name] != want {
			t.Errorf("%s: kernel %s has %d call ranges, want %d", name, k.Name, perKernel[k.Name], want)
		}
	}
	return calls
}

// rangeAt is the first innermost range whose span holds p: what an
// editor reveals for the cursor at p.
func rangeAt(rs []OutputRange, p source.Pos) (OutputRange, bool) {
	var best OutputRange
	found := false
	for _, r := range rs {
		if r.Span.Start <= p && p < r.Span.End && (!found || r.Call && !best.Call) {
			best, found = r, true
		}
	}
	return best, found
}

// rangeOfLine is the innermost range holding output line l: what an
// editor reveals for the cursor in the lowered view.
func rangeOfLine(rs []OutputRange, l int) (OutputRange, bool) {
	var best OutputRange
	found := false
	for _, r := range rs {
		if r.Start <= l && l < r.End && (!found || r.Call && !best.Call) {
			best, found = r, true
		}
	}
	return best, found
}

// topLevelCalls counts the tile calls of b not nested in another's
// lowering.
func topLevelCalls(b *ir.Block) int {
	if b == nil {
		return 0
	}
	n := 0
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Block:
			n += topLevelCalls(s)
		case *ir.For:
			n += topLevelCalls(s.Body)
		case *ir.While:
			n += topLevelCalls(s.Body)
		case *ir.If:
			n += topLevelCalls(s.Then) + topLevelCalls(s.Else)
		case *ir.Lowered:
			if s.Call != nil {
				n++
			}
		}
	}
	return n
}
