package syntax

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// checkInvariants checks that every span lies within the file, that every
// child lies within its parent, and that statements of a body are ordered.
func checkInvariants(t *testing.T, name string, f *File) {
	t.Helper()
	size := source.Pos(len(f.Src.Src))
	var stack []Node
	bad := 0
	Inspect(f, func(n Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		sp := n.Span()
		if sp.Start < 0 || sp.End < sp.Start || sp.End > size {
			t.Errorf("%s: %T has span %v outside [0, %d]", name, n, sp, size)
			bad++
		}
		if len(stack) > 0 {
			parent := stack[len(stack)-1]
			ps := parent.Span()
			if sp.Start < ps.Start || sp.End > ps.End {
				t.Errorf("%s: %T %v is not inside its parent %T %v", name, n, sp, parent, ps)
				bad++
			}
		}
		stack = append(stack, n)
		return bad < 10
	})
	var prev source.Pos
	for _, s := range f.Body {
		if s.Span().Start < prev {
			t.Errorf("%s: top-level statement %T at %d overlaps the previous one ending at %d", name, s, s.Span().Start, prev)
		}
		prev = s.Span().End
	}
}

// hasBad reports whether the tree contains a Bad* node.
func hasBad(n Node) bool {
	found := false
	Inspect(n, func(n Node) bool {
		switch n.(type) {
		case *BadExpr, *BadStmt:
			found = true
		}
		return !found
	})
	return found
}

// parseWithDeadline parses src and fails the test if that takes more than
// a few seconds, so that the fuzzer records inputs that make Parse loop.
func parseWithDeadline(t *testing.T, src string) (*File, []diag.Diagnostic) {
	type result struct {
		f     *File
		diags []diag.Diagnostic
	}
	done := make(chan result, 1)
	go func() {
		f, diags := Parse(source.NewFile("fuzz.py", []byte(src)))
		done <- result{f, diags}
	}()
	select {
	case r := <-done:
		return r.f, r.diags
	case <-time.After(10 * time.Second):
		t.Fatalf("Parse did not finish within 10s on %q", src)
		return nil, nil
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range dumpTests {
		f.Add(tc.src)
	}
	for _, tc := range recoveryTests {
		f.Add(tc.src)
	}
	for _, s := range diffSnippets {
		f.Add(s)
	}
	seeds, _ := filepath.Glob("testdata/*.py")
	for _, path := range seeds {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(string(src))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 {
			t.Skip()
		}
		file, diags := parseWithDeadline(t, src)
		if file == nil {
			t.Fatal("Parse returned a nil File")
		}
		checkInvariants(t, "fuzz.py", file)
		if len(diags) == 0 && hasBad(file) {
			t.Errorf("Bad node without a diagnostic:\n%s", Dump(file))
		}
		if len(diags) > maxErrors {
			t.Errorf("%d diagnostics, want at most %d", len(diags), maxErrors)
		}
		lines := make(map[int]bool)
		for _, d := range diags {
			line, _ := file.Src.Position(d.Span.Start)
			if lines[line] {
				t.Errorf("two diagnostics on line %d", line)
			}
			lines[line] = true
			if d.Span.Start < 0 || d.Span.End < d.Span.Start || int(d.Span.End) > len(src) {
				t.Errorf("diagnostic span %v outside the file", d.Span)
			}
		}
		again, _ := Parse(source.NewFile("fuzz.py", []byte(src)))
		if Dump(file) != Dump(again) {
			t.Errorf("reparse differs")
		}
		checkSeams(t, file, diags)
	})
}

// checkSeams checks that parsing from a seam to the end of the file (the
// incremental parser, ParseRegion) gives the statements and errors of the
// whole-file parse from there on.
func checkSeams(t *testing.T, file *File, diags []diag.Diagnostic) {
	t.Helper()
	for i, s := range file.Seams {
		if i > 3 && i != len(file.Seams)-1 || s.ErrAtPos || i > 0 && file.Seams[i-1].UnclosedToNext {
			continue // the first few and the last, where a region may start
		}
		r, ok := ParseRegion(file.Src, s.Pos, 0, nil)
		if !ok {
			continue
		}
		var want []Stmt
		for _, st := range file.Body {
			if st.Span().Start >= s.Pos {
				want = append(want, st)
			}
		}
		if got, w := dumpAll(r.Body), dumpAll(want); !slices.Equal(got, w) || !slices.Equal(nodeSpans(r.Body, 0), nodeSpans(want, 0)) {
			t.Fatalf("parse from seam %d: %q, want %q", s.Pos, got, w)
		}
		if len(diags) < maxErrors {
			var w []diag.Diagnostic
			for _, d := range diags {
				if d.Span.Start >= s.Pos {
					w = append(w, d)
				}
			}
			if got, w := diagStrings(r.Diags, 0), diagStrings(w, 0); !slices.Equal(got, w) {
				t.Fatalf("parse from seam %d: errors %q, want %q", s.Pos, got, w)
			}
		}
	}
}
