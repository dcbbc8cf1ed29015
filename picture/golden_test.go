package picture_test

import (
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/picture"
)

var update = flag.Bool("update", false, "rewrite the out/ sections of testdata/*.txtar")

// TestGolden draws the call marked `# @picture [partition|bank|both]` in
// each testdata/*.txtar kernel and compares the Unicode grid (out/text)
// and the SVG (out/svg) with the goldens (-update rewrites them; read the
// diff). The SVG must be well-formed XML, the grids at most 80 columns,
// and the facts of -- want -- (never rewritten) must hold.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := ar.Get("kernel.py")
			if !ok {
				t.Fatal("no kernel.py section")
			}
			f := source.NewFile("kernel.py", src)
			line, which := marker(t, string(src))
			res := lower.Analyze(f, lower.Options{})
			k, d, why := lower.CallAtLine(f, res.Kernels, line)
			if k == nil {
				t.Fatalf("%s\n%s", why, lower.Explain(res))
			}
			p := lower.Pictures(k, d, line)
			got := map[string]string{
				"out/text": lower.RenderPictures(p, "text", which),
				"out/svg":  lower.RenderPictures(p, "svg", which),
			}
			checkSVG(t, got["out/svg"])
			checkWidth(t, got["out/text"])
			if want, ok := ar.Get("want"); ok {
				checkFacts(t, p, string(want))
			} else {
				t.Error("no -- want -- section")
			}
			changed := false
			for _, name := range []string{"out/text", "out/svg"} {
				want, ok := ar.Get(name)
				if *update {
					if !ok || string(want) != got[name] {
						ar.Set(name, []byte(got[name]))
						changed = true
					}
					continue
				}
				if string(want) != got[name] {
					t.Errorf("%s differs (go test ./picture -run TestGolden -update, then read the diff):\n%s", name, got[name])
				}
			}
			if changed {
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// marker finds the line (1-based) of the `# @picture` comment.
func marker(t *testing.T, src string) (int, string) {
	for i, l := range strings.Split(src, "\n") {
		if _, after, ok := strings.Cut(l, "# @picture"); ok {
			return i + 1, strings.TrimSpace(after)
		}
	}
	t.Fatal("no # @picture marker")
	return 0, ""
}

// checkSVG parses s with encoding/xml: it must be one well-formed svg
// element.
func checkSVG(t *testing.T, s string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root element %v, want svg in the SVG namespace", tok.Name)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || depth != 0 {
		t.Errorf("%d root elements, depth %d at the end", roots, depth)
	}
}

// checkWidth: every grid line fits 80 columns.
func checkWidth(t *testing.T, s string) {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		if (strings.Contains(l, "│") || strings.HasPrefix(l, "wf") || strings.HasPrefix(l, "bank ")) && utf8.RuneCountInString(l) > picture.TextWidth {
			t.Errorf("grid line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
}

// checkFacts checks "name=value" facts, one per line, against the model:
// partition.from (prefix), partition.threads, partition.size (RxC),
// partition.owner(r,c) (thread), partition.vec, bank.wavefronts,
// bank.ideal, bank.ways, bank.bytes, bank (none: no bank map).
func checkFacts(t *testing.T, p *picture.Pictures, facts string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(facts), "\n") {
		name, want, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok {
			t.Fatalf("bad fact %q", l)
		}
		var got string
		pa, b := p.Partition, p.Bank
		switch {
		case strings.HasPrefix(name, "partition") && pa == nil:
			got = "none: " + p.NoPartition
		case name == "partition.from":
			got = pa.From
			if strings.HasPrefix(got, want) {
				got = want
			}
		case name == "partition.threads":
			got = fmt.Sprint(pa.Threads)
		case name == "partition.size":
			got = fmt.Sprintf("%dx%d", pa.TotalRows, pa.TotalCols)
		case name == "partition.drawn":
			got = fmt.Sprintf("%dx%d", pa.Rows, pa.Cols)
		case name == "partition.vec":
			got = fmt.Sprint(pa.Vec)
		case strings.HasPrefix(name, "partition.owner("):
			var r, c int
			fmt.Sscanf(name, "partition.owner(%d,%d)", &r, &c)
			got = fmt.Sprint(pa.At(r, c).Thread)
		case name == "bank" && b == nil:
			got = "none"
		case strings.HasPrefix(name, "bank") && b == nil:
			got = "none: " + p.NoBank
		case name == "bank.wavefronts":
			got = fmt.Sprint(len(b.Wavefronts))
		case name == "bank.ideal":
			got = fmt.Sprint(b.Ideal)
		case name == "bank.ways":
			got = fmt.Sprint(b.Ways)
		case name == "bank.bytes":
			got = fmt.Sprint(b.Bytes)
		default:
			t.Fatalf("unknown fact %q", name)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
