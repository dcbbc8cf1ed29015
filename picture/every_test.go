package picture_test

import (
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/picture"
)

// TestEveryGoldenCall draws every tile call of every golden program of
// lower/testdata (all op families, TMA, gemm, reductions, elementwise):
// no panic, a well-formed SVG, grids within 80 columns, and a reason for
// each missing picture. It reports how many calls got each picture.
func TestEveryGoldenCall(t *testing.T) {
	paths, err := filepath.Glob("../lower/testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden programs: %v", err)
	}
	calls, parts, banks := 0, 0, 0
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		f := source.NewFile("kernel.py", src)
		res := lower.Analyze(f, lower.Options{})
		for _, k := range res.Kernels {
			for _, d := range k.Calls {
				line, _ := f.Position(d.Call.Span.Start)
				p := lower.Pictures(k, d, line)
				calls++
				if p.Partition != nil {
					parts++
				} else if p.NoPartition == "" {
					t.Errorf("%s:%d: no partition and no reason", filepath.Base(path), line)
				}
				if p.Bank != nil {
					banks++
					// One model: the bank map draws the instruction the
					// memory analysis names (its worst, else its first),
					// with the same wavefronts and ideal.
					f := k.CallMemory(d.Call)
					w := f.Worst
					if w == nil {
						w = f.FirstShared
					}
					if w == nil || int64(len(p.Bank.Wavefronts)) != w.Wavefronts || int64(p.Bank.Ideal) != w.Ideal || p.Bank.Bytes != int(w.Width) {
						t.Errorf("%s:%d: bank map %d wavefronts (ideal %d, %d B), memory analysis %+v", filepath.Base(path), line,
							len(p.Bank.Wavefronts), p.Bank.Ideal, p.Bank.Bytes, w)
					}
				} else if p.NoBank == "" {
					t.Errorf("%s:%d: no bank map and no reason", filepath.Base(path), line)
				}
				svg := p.SVG(picture.Both)
				if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
					t.Errorf("%s:%d: SVG: %v", filepath.Base(path), line, err)
				}
				for _, l := range strings.Split(p.Text(picture.Both), "\n") {
					if strings.Contains(l, "│") && utf8.RuneCountInString(l) > picture.TextWidth {
						t.Errorf("%s:%d: grid line of %d columns", filepath.Base(path), line, utf8.RuneCountInString(l))
					}
				}
			}
		}
	}
	t.Logf("%d calls: %d partitions, %d bank maps", calls, parts, banks)
	if parts == 0 || banks == 0 {
		t.Errorf("no partition or no bank map drawn at all")
	}
}
