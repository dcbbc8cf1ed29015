package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
)

// marshalIndent is what JSON replaced: encoding/json's output.
func marshalIndent(t *testing.T, doc *Document) []byte {
	t.Helper()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func checkSame(t *testing.T, name string, doc *Document) {
	t.Helper()
	want := marshalIndent(t, doc)
	if got := JSON(doc); !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: JSON differs from MarshalIndent at byte %d:\ngot  %q\nwant %q", name, i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
	var w bytes.Buffer
	if err := WriteJSON(&w, doc); err != nil || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("%s: WriteJSON differs from MarshalIndent (%v)", name, err)
	}
}

// TestJSONMatchesMarshal checks the hand-written encoder against
// encoding/json, byte for byte: every golden program and example, all of
// them in one document, and documents with every optional field set,
// empty and nil collections, and strings that need every escape.
func TestJSONMatchesMarshal(t *testing.T) {
	paths, _ := filepath.Glob("../lower/testdata/*.txtar")
	examples, _ := filepath.Glob("../testdata/examples/*.py")
	all := New()
	for _, p := range append(paths, examples...) {
		var src []byte
		if strings.HasSuffix(p, ".txtar") {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := ar.Get("kernel.py")
			if !ok {
				continue
			}
			src = s
		} else {
			s, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			src = s
		}
		res := lower.Analyze(source.NewFile(p, src), lower.Options{Reference: testReference(src)})
		f := Build(res, nil)
		checkSame(t, p, New(f))
		all.Files = append(all.Files, f)
	}
	checkSame(t, "all", all)
	checkSame(t, "empty", New())
	checkSame(t, "nil files", &Document{})

	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "\u2028", "\u2029", "<", ">", "&", "\"", "\\", "\x00", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t", "\xff", "\xe2\x80", "日本", "😀", " ", "/"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 200 {
		s := str()
		n := int64(r.IntN(1000) - 500)
		var calls []Call
		for range r.IntN(3) {
			c := Call{Line: r.IntN(99), Column: 1, Op: str(), Scope: str(), Threads: n, Declined: []Declined{}}
			if r.IntN(2) == 0 {
				c.Variant, c.Vec, c.VecBits, c.Outer = &s, &n, &n, &n
				c.Declined = []Declined{{Variant: str(), Reason: str()}, {Variant: "tma", Reason: str()}}
				c.TMA = &TMA{Rank: 2, DType: str(), Direction: "g2s", GlobalDims: []int64{n, 4}, GlobalStrides: []int64{}, Box: nil, ElementStrides: []int64{1}, Swizzle: 3, Issues: n}
			}
			if r.IntN(3) == 0 {
				c.Needs = []string{str(), str()}
				c.Declined = nil
			}
			calls = append(calls, c)
		}
		k := Kernel{Name: str(), Line: i, Calls: calls, Diagnostics: []Diagnostic{{Line: 1, Column: 2, EndLine: 3, EndCol: 4, Severity: "error", Code: str(), Message: str()}}}
		switch r.IntN(3) {
		case 0:
			k.Symbol, k.CaseID = &s, &s
			k.Case = map[string]string{str(): str(), str(): str(), "M": "4096", "": ""}
			k.Needs = []string{}
		case 1:
			k.Case = map[string]string{}
			k.Calls = nil
		}
		switch r.IntN(3) {
		case 0:
			k.Machine = &Machine{Source: str(), Arch: str(), Registers: n, SpillStoreBytes: n, Threads: 128,
				Occupancy: &Occupancy{BlocksPerSM: n, WarpsPerSM: 4, Limit: str()}, SASSMemoryOps: map[string]int64{str(): n, "LDS.128": 4, str(): 1}}
		case 1:
			k.Machine = &Machine{Source: str(), SASSMemoryOps: map[string]int64{}}
		}
		doc := New(&File{File: str(), Kernels: []Kernel{k, {Name: str()}}}, &File{File: str(), Kernels: []Kernel{}, Diagnostics: []Diagnostic{}})
		checkSame(t, "random "+s, doc)
	}
}

// BenchmarkJSON3000 renders the document of the 3,000-line benchmark
// file (analysed once, outside the loop).
func BenchmarkJSON3000(b *testing.B) {
	res := lower.Analyze(source.NewFile("big.py", bigFile(b)), lower.Options{})
	doc := New(Build(res, nil))
	b.ReportAllocs()
	for b.Loop() {
		JSON(doc)
	}
}

func bigFile(tb testing.TB) []byte {
	src, err := benchcorpus.Build("../testdata/examples", 3000)
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(src)
}

// BenchmarkMarshalIndent3000 is what BenchmarkJSON3000 replaced.
func BenchmarkMarshalIndent3000(b *testing.B) {
	res := lower.Analyze(source.NewFile("big.py", bigFile(b)), lower.Options{})
	doc := New(Build(res, nil))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.MarshalIndent(doc, "", "  "); err != nil {
			b.Fatal(err)
		}
	}
}
