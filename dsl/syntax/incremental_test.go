package syntax

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// reparse applies the edit old[at:at+del] -> ins and re-parses the region
// around it, as lower.Session does: from RegionStart to the first seam
// after the edit that was a seam of old where it may stop.
func reparse(old string, at, del int, ins string) (newText string, r *Region, ok bool, of *File) {
	newText = old[:at] + ins + old[at+del:]
	of, _ = Parse(source.NewFile("old.py", []byte(old)))
	if of.Seams == nil {
		return newText, nil, false, of
	}
	delta := source.Pos(len(ins) - del)
	k := RegionStart(of.Seams, []byte(old), source.Pos(at))
	seam := map[source.Pos]bool{}
	for _, s := range of.Seams {
		seam[s.Pos] = s.CanStop()
	}
	stop := func(q source.Pos) bool { return seam[q-delta] }
	r, ok = ParseRegion(source.NewFile("new.py", []byte(newText)), of.Seams[k].Pos, source.Pos(at+len(ins)), stop)
	return newText, r, ok, of
}

// nodeSpans lists every node of ss with its span shifted by shift.
func nodeSpans(ss []Stmt, shift source.Pos) []string {
	var out []string
	for _, s := range ss {
		Inspect(s, func(n Node) bool {
			if n != nil {
				sp := n.Span()
				out = append(out, fmt.Sprintf("%T %d %d", n, sp.Start+shift, sp.End+shift))
			}
			return true
		})
	}
	return out
}

func dumpAll(ss []Stmt) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Dump(s)
	}
	return out
}

func diagStrings(ds []diag.Diagnostic, shift source.Pos) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%d-%d %s %s", d.Span.Start+shift, d.Span.End+shift, d.Code, d.Message)
	}
	return out
}

// checkReparse checks that a region parse agrees with the whole-file parse
// of the new text: the region's statements, errors and seams are the new
// parse's, and the statements, errors and seams outside it are the old
// parse's (shifted after it). It returns whether the region parse was
// possible.
func checkReparse(t *testing.T, old string, at, del int, ins string) bool {
	t.Helper()
	newText, r, ok, of := reparse(old, at, del, ins)
	if !ok {
		return false
	}
	delta := source.Pos(len(ins) - del)
	oldEnd := r.End - delta
	nf, nd := Parse(source.NewFile("new.py", []byte(newText)))
	_, od := Parse(source.NewFile("old.py", []byte(old)))
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("edit %d+%d -> %q, region [%d, %d):\n%s\nold:\n%q\nnew:\n%q", at, del, ins, r.Start, r.End, fmt.Sprintf(format, args...), old, newText)
	}
	var before, in, after []Stmt
	for _, s := range nf.Body {
		switch st := s.Span().Start; {
		case st < r.Start:
			before = append(before, s)
		case st < r.End:
			in = append(in, s)
		default:
			after = append(after, s)
		}
	}
	var oldBefore, oldAfter []Stmt
	for _, s := range of.Body {
		if s.Span().Start < r.Start {
			oldBefore = append(oldBefore, s)
		} else if s.Span().Start >= oldEnd {
			oldAfter = append(oldAfter, s)
		}
	}
	if got, want := dumpAll(r.Body), dumpAll(in); !slices.Equal(got, want) {
		fail("region statements:\n%q\nwant\n%q", got, want)
	}
	if got, want := nodeSpans(r.Body, 0), nodeSpans(in, 0); !slices.Equal(got, want) {
		fail("region spans:\n%q\nwant\n%q", got, want)
	}
	if got, want := dumpAll(oldBefore), dumpAll(before); !slices.Equal(got, want) || !slices.Equal(nodeSpans(oldBefore, 0), nodeSpans(before, 0)) {
		fail("statements before the region differ:\n%q\nwant\n%q", got, want)
	}
	if got, want := dumpAll(oldAfter), dumpAll(after); !slices.Equal(got, want) || !slices.Equal(nodeSpans(oldAfter, delta), nodeSpans(after, 0)) {
		fail("statements after the region differ:\n%q\nwant\n%q", got, want)
	}
	if len(nd) < maxErrors && len(od) < maxErrors {
		var nBefore, nIn, nAfter, oBefore, oAfter []diag.Diagnostic
		for _, d := range nd {
			switch {
			case d.Span.Start < r.Start:
				nBefore = append(nBefore, d)
			case d.Span.Start < r.End:
				nIn = append(nIn, d)
			case d.Span.Start > r.End:
				nAfter = append(nAfter, d)
			}
		}
		for _, d := range od {
			switch {
			case d.Span.Start < r.Start:
				oBefore = append(oBefore, d)
			case d.Span.Start > oldEnd:
				oAfter = append(oAfter, d)
			}
		}
		if got, want := diagStrings(r.Diags, 0), diagStrings(nIn, 0); !slices.Equal(got, want) {
			fail("region errors:\n%q\nwant\n%q", got, want)
		}
		if got, want := diagStrings(oBefore, 0), diagStrings(nBefore, 0); !slices.Equal(got, want) {
			fail("errors before the region:\n%q\nwant\n%q", got, want)
		}
		if got, want := diagStrings(oAfter, delta), diagStrings(nAfter, 0); !slices.Equal(got, want) {
			fail("errors after the region:\n%q\nwant\n%q", got, want)
		}
	}
	if nf.Seams != nil {
		var want, wantAfter, gotAfter []Seam
		for _, s := range nf.Seams {
			if s.Pos >= r.Start && (s.Pos < r.End || s.Pos == r.Start) {
				want = append(want, s)
			} else if s.Pos >= r.End {
				wantAfter = append(wantAfter, s)
			}
		}
		if !slices.Equal(r.Seams, want) {
			fail("region seams:\n%+v\nwant\n%+v", r.Seams, want)
		}
		for _, s := range of.Seams {
			if s.Pos >= oldEnd && int(r.End) < len(newText) {
				s.Pos += delta
				gotAfter = append(gotAfter, s)
			}
		}
		if !slices.Equal(gotAfter, wantAfter) {
			fail("seams after the region:\n%+v\nwant\n%+v", gotAfter, wantAfter)
		}
	}
	return true
}

// reparseEdits are edits that change where statements end: a new else
// clause at column 0, a decorator left alone, unclosed brackets, a dedent
// that splits a def, a string opened and never closed.
var reparseEdits = []struct {
	src      string
	at, del  int
	ins      string
	regioned bool // the region parse must succeed
}{
	{"if x:\n    a = 1\nb = 2\nc = 3\n", 16, 0, "else:\n    pass\n", true},
	{"if x:\n    a = 1\nelse:\n    pass\nb = 2\n", 16, 15, "", true},
	{"x = 1\n@deco\ny = 2\n", 6, 0, "", true},
	{"x = 1\ndef f():\n    return 2\ny = 3\n", 20, 0, "(", true},
	{"x = (1,\n     2)\ndef f():\n    pass\ny = 3\n", 13, 1, "", true},
	{"def f():\n    a = 1\n    b = 2\nc = 3\n", 18, 4, "", true},
	{"a = 1\nb = 2\nc = 3\n", 10, 0, "'", true},
	{"a = 1\nb = 2\nc = 3\n", 10, 0, "'''", true},
	{"\ufeffa = 1\nb = 2\n", 4, 0, "+1", true},
	{"a = 1\nb = [\n1,\n]\nc = 3\n", 8, 1, "", true},
	{"try:\n    pass\nexcept E:\n    pass\nx = 1\n", 13, 0, "finally:\n    pass\n", true},
	{"a = 1 # c\nb = 2\n", 8, 0, "x", true},
	{"x = 1; y = 2\nz = 3\n", 7, 0, " ", true},
	{"match x:\n    case 1:\n        pass\ny = 2\n", 30, 0, "\n    case 2:\n        pass", true},
}

func TestReparse(t *testing.T) {
	for _, e := range reparseEdits {
		if ok := checkReparse(t, e.src, e.at, e.del, e.ins); !ok && e.regioned {
			t.Errorf("%q: edit %d+%d -> %q: no region parse", e.src, e.at, e.del, e.ins)
		}
	}
	// Random edits of the seeds (FuzzReparse's), a few hundred per run.
	rng := rand.New(rand.NewPCG(13, 1))
	srcs := reparseSeeds()
	done, regioned := 0, 0
	for i := 0; i < 3000; i++ {
		src := srcs[rng.IntN(len(srcs))]
		at := rng.IntN(len(src) + 1)
		del := min(rng.IntN(4), len(src)-at)
		ins := reparseSnippets[rng.IntN(len(reparseSnippets))]
		done++
		if checkReparse(t, src, at, del, ins) {
			regioned++
		}
	}
	t.Logf("%d of %d random edits re-parsed a region", regioned, done)
	if regioned < done/2 {
		t.Errorf("only %d of %d random edits re-parsed a region", regioned, done)
	}
}

// reparseSnippets are what random edits insert.
var reparseSnippets = []string{
	"", "x", " ", "\n", "(", ")", "[", "]", "{", "}", ":", "0", "'", "\"", `"""`, "#", "\\", "\t",
	"\nelse:\n", "\n@d\n", "def", "\ndef g():\n    pass\n", "    ", "if y:\n", "f\"{", "\r\n", "$",
}

func reparseSeeds() []string {
	var out []string
	for _, tc := range dumpTests {
		out = append(out, tc.src)
	}
	for _, tc := range recoveryTests {
		out = append(out, tc.src)
	}
	out = append(out, diffSnippets...)
	for _, e := range reparseEdits {
		out = append(out, e.src)
	}
	seeds, _ := filepath.Glob("testdata/*.py")
	for _, path := range seeds {
		if src, err := os.ReadFile(path); err == nil {
			out = append(out, string(src))
		}
	}
	return out
}

// FuzzReparse: a region re-parsed after an edit agrees with the whole-file
// parse of the new text (incremental == full).
func FuzzReparse(f *testing.F) {
	for i, src := range reparseSeeds() {
		f.Add(src, uint16(i*7), uint8(i%3), reparseSnippets[i%len(reparseSnippets)])
	}
	f.Fuzz(func(t *testing.T, src string, at uint16, del uint8, ins string) {
		if len(src) > 1<<14 || len(ins) > 64 {
			t.Skip()
		}
		p := int(at) % (len(src) + 1)
		d := min(int(del), len(src)-p)
		checkReparse(t, src, p, d, ins)
	})
}
