package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
)

// TestSchema builds the JSON document for every pipeline golden program and
// checks the schema's promises (docs/json.md) on the decoded JSON.
func TestSchema(t *testing.T) {
	paths, _ := filepath.Glob("../lower/testdata/*.txtar")
	examples, _ := filepath.Glob("../testdata/examples/*.py")
	if len(paths)+len(examples) == 0 {
		t.Fatal("no programs")
	}
	var srcs = map[string][]byte{}
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ar.Get("kernel.py"); ok {
			srcs[p] = s
		}
	}
	for _, p := range examples {
		s, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = s
	}
	calls := 0
	for name, src := range srcs {
		f := source.NewFile("kernel.py", src)
		res := lower.Analyze(f, lower.Options{})
		var doc map[string]any
		if err := json.Unmarshal(JSON(Build(res, nil)), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines := f.LineCount()
		checkDiags := func(v any) {
			for _, d := range v.([]any) {
				m := d.(map[string]any)
				sev := m["severity"].(string)
				if sev != "error" && sev != "warning" && sev != "information" {
					t.Errorf("%s: severity %q", name, sev)
				}
				if l := int(m["line"].(float64)); l < 1 || l > lines {
					t.Errorf("%s: diagnostic line %d outside 1..%d", name, l, lines)
				}
				if c := int(m["column"].(float64)); c < 1 {
					t.Errorf("%s: diagnostic column %d", name, c)
				}
				if !strings.Contains(m["code"].(string), "/") || m["message"].(string) == "" {
					t.Errorf("%s: diagnostic %v", name, m)
				}
			}
		}
		if doc["file"] != "kernel.py" {
			t.Errorf("%s: file %v", name, doc["file"])
		}
		checkDiags(doc["diagnostics"])
		for _, k := range doc["kernels"].([]any) {
			km := k.(map[string]any)
			if km["case"] != nil {
				t.Errorf("%s: case %v without bindings", name, km["case"])
			}
			if _, ok := km["name"].(string); !ok {
				t.Errorf("%s: kernel without name", name)
			}
			checkDiags(km["diagnostics"])
			for _, c := range km["calls"].([]any) {
				calls++
				cm := c.(map[string]any)
				for _, key := range []string{"line", "column", "op", "scope", "threads", "variant", "vec", "vec_bits", "outer", "declined", "tma"} {
					if _, ok := cm[key]; !ok {
						t.Errorf("%s: call lacks %q: %v", name, key, cm)
					}
				}
				if (cm["variant"] == nil) != (cm["vec"] == nil) || (cm["vec"] == nil) != (cm["outer"] == nil) {
					t.Errorf("%s: variant/vec/outer must be null together: %v", name, cm)
				}
				if cm["tma"] != nil {
					t.Errorf("%s: tma set for a non-TMA variant: %v", name, cm)
				}
				if cm["variant"] == nil && len(cm["declined"].([]any)) == 0 {
					t.Errorf("%s: a call with no variant must list what declined: %v", name, cm)
				}
				if cm["variant"] != nil {
					vec, bits := cm["vec"].(float64), cm["vec_bits"].(float64)
					if vec < 1 || bits < 0 || (bits > 0 && int(bits)%int(vec) != 0) {
						t.Errorf("%s: vec %v vec_bits %v", name, vec, bits)
					}
				}
			}
		}
	}
	if calls < 20 {
		t.Errorf("only %d calls checked", calls)
	}
}
