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
	calls, tmaCalls := 0, 0
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
				isTMA := cm["variant"] == "tma"
				if (cm["tma"] != nil) != isTMA {
					t.Errorf("%s: tma must be set exactly for the tma variant: %v", name, cm)
				}
				if cm["variant"] == nil && len(cm["declined"].([]any)) == 0 {
					t.Errorf("%s: a call with no variant must list what declined: %v", name, cm)
				}
				if isTMA {
					tmaCalls++
					checkTMA(t, name, cm)
				} else if cm["variant"] != nil {
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
	if tmaCalls < 3 {
		t.Errorf("only %d TMA calls checked", tmaCalls)
	}
}

// checkTMA checks a tma record: the cuTensorMapEncodeTiled argument
// shapes (CUDA order, rank-1 byte strides) and the driver's ranges.
func checkTMA(t *testing.T, name string, cm map[string]any) {
	t.Helper()
	m, ok := cm["tma"].(map[string]any)
	if !ok {
		t.Errorf("%s: tma is not an object: %v", name, cm["tma"])
		return
	}
	ints := func(key string) []int64 {
		a, ok := m[key].([]any)
		if !ok {
			t.Errorf("%s: tma.%s is not an array: %v", name, key, m[key])
			return nil
		}
		out := make([]int64, len(a))
		for i, v := range a {
			out[i] = int64(v.(float64))
		}
		return out
	}
	rank := int(m["rank"].(float64))
	dims, strides, box, es := ints("global_dims"), ints("global_strides"), ints("box"), ints("element_strides")
	if rank < 1 || rank > 5 || len(dims) != rank || len(box) != rank || len(es) != rank || len(strides) != rank-1 {
		t.Errorf("%s: tma arrays do not fit rank %d: %v", name, rank, m)
	}
	for i := range box {
		if box[i] < 1 || box[i] > 256 {
			t.Errorf("%s: box[%d]=%d outside [1, 256]", name, i, box[i])
		}
	}
	for _, s := range strides {
		if s%16 != 0 {
			t.Errorf("%s: global stride %d not a multiple of 16", name, s)
		}
	}
	if d, _ := m["direction"].(string); d != "g2s" && d != "s2g" {
		t.Errorf("%s: direction %q", name, d)
	}
	if issues := m["issues"].(float64); issues < 1 || cm["outer"].(float64) != issues {
		t.Errorf("%s: issues %v, outer %v", name, issues, cm["outer"])
	}
	if cm["vec"].(float64) != 0 || cm["vec_bits"].(float64) != 0 {
		t.Errorf("%s: a TMA call has vec 0: %v", name, cm)
	}
}
