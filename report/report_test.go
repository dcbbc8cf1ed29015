package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
	calls, tmaCalls, cases, partial, unresolved := 0, 0, 0, 0, 0
	for name, src := range srcs {
		f := source.NewFile("kernel.py", src)
		res := lower.Analyze(f, lower.Options{Reference: testReference(src)})
		var top map[string]any
		if err := json.Unmarshal(JSON(New(Build(res, nil))), &top); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if top["schema"] != float64(Schema) || top["tilels"] == "" || top["reference"] != res.Reference.Release.String() {
			t.Errorf("%s: document header %v %v %v", name, top["schema"], top["tilels"], top["reference"])
		}
		files, _ := top["files"].([]any)
		if len(files) != 1 {
			t.Fatalf("%s: %d file records, want 1", name, len(files))
		}
		doc := files[0].(map[string]any)
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
			if cs := km["case"]; cs != nil {
				m, ok := cs.(map[string]any)
				if !ok || len(m) == 0 {
					t.Errorf("%s: case %v is not a non-empty object", name, cs)
				}
				for p, v := range m {
					if s, ok := v.(string); !ok || s == "" || p == "" {
						t.Errorf("%s: case entry %q: %v is not a Python literal", name, p, v)
					}
				}
				cases++
			}
			if id := km["case_id"]; id != nil {
				if s, ok := id.(string); !ok || s == "" {
					t.Errorf("%s: case_id %v", name, id)
				}
			}
			needs := km["needs"]
			if needs != nil {
				partial++
				if len(needs.([]any)) == 0 {
					t.Errorf("%s: needs is empty: %v", name, km)
				}
			}
			// symbol is null exactly for an unresolved kernel, and names the
			// CUDA function: the kernel's name, with _case<i> for one of
			// several cases.
			// A kernel for another target (its calls say not_modelled) is
			// not printed either.
			foreign := false
			for _, c := range km["calls"].([]any) {
				if c.(map[string]any)["not_modelled"] != nil {
					foreign = true
				}
			}
			if sym, ok := km["symbol"].(string); ok != (needs == nil && !foreign) {
				t.Errorf("%s: symbol %v with needs %v", name, km["symbol"], needs)
			} else if ok && !strings.HasPrefix(sym, km["name"].(string)) {
				t.Errorf("%s: symbol %q does not start with the kernel name %q", name, sym, km["name"])
			} else if ok && km["case"] == nil && strings.Contains(sym, "_case") {
				t.Errorf("%s: symbol %q and case %v disagree", name, sym, km["case"])
			}
			for _, key := range []string{"name", "symbol", "line", "case", "case_id", "needs", "calls", "diagnostics"} {
				if _, ok := km[key]; !ok {
					t.Errorf("%s: kernel lacks %q", name, key)
				}
			}
			if _, ok := km["name"].(string); !ok {
				t.Errorf("%s: kernel without name", name)
			}
			checkDiags(km["diagnostics"])
			for _, c := range km["calls"].([]any) {
				calls++
				cm := c.(map[string]any)
				for _, key := range []string{"line", "column", "op", "scope", "threads", "variant", "vec", "vec_bits", "outer", "declined", "tma", "plan", "needs", "not_modelled"} {
					if _, ok := cm[key]; !ok {
						t.Errorf("%s: call lacks %q: %v", name, key, cm)
					}
				}
				if nm := cm["not_modelled"]; nm != nil {
					if !foreign || cm["variant"] != nil || len(cm["declined"].([]any)) != 0 || cm["needs"] != nil || nm == "" {
						t.Errorf("%s: a not-modelled call has a reason, no variant, nothing declined and no needs: %v", name, cm)
					}
					continue
				}
				if cn := cm["needs"]; cn != nil {
					unresolved++
					if needs == nil || cm["variant"] != nil || len(cm["declined"].([]any)) != 0 || len(cn.([]any)) == 0 {
						t.Errorf("%s: an unresolved call is in an unresolved kernel, with needs, no variant and nothing declined: %v", name, cm)
					}
					continue
				}
				if needs != nil {
					t.Errorf("%s: a call of an unresolved kernel without needs: %v", name, cm)
				}
				if (cm["variant"] == nil) != (cm["vec"] == nil) || (cm["vec"] == nil) != (cm["outer"] == nil) {
					t.Errorf("%s: variant/vec/outer must be null together: %v", name, cm)
				}
				isTMA := cm["variant"] == "tma" || cm["variant"] == "tma_auto" || cm["variant"] == "tma_explicit"
				if (cm["tma"] != nil) != isTMA {
					t.Errorf("%s: tma must be set exactly for the tma variant: %v", name, cm)
				}
				if cm["variant"] == nil && len(cm["declined"].([]any)) == 0 && !unregistered(doc["diagnostics"], cm["line"]) {
					t.Errorf("%s: a call with no variant must list what declined (or force a name the release does not register): %v", name, cm)
				}
				if isTMA {
					tmaCalls++
					checkTMA(t, name, cm)
				} else if cm["variant"] != nil {
					vec, bits := cm["vec"].(float64), cm["vec_bits"].(float64)
					switch {
					case vec == 0 && bits == 0:
						// A variant that plans no vector copy (an MMA,
						// tcgen05): its plan says what it does instead.
						if plan, _ := cm["plan"].([]any); len(plan) == 0 {
							t.Errorf("%s: a call with vec 0 needs a plan: %v", name, cm)
						}
					case vec < 1 || bits < 0 || (bits > 0 && int(bits)%int(vec) != 0):
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
	if cases < 10 || partial < 3 || unresolved < 4 {
		t.Errorf("only %d case records, %d unresolved kernels and %d unresolved calls checked", cases, partial, unresolved)
	}
}

// TestCases checks the case records of a parametrized program: one record
// per case with its bindings as Python literals and its pytest id, and the
// unresolved kernel of a factory nothing calls.
func TestCases(t *testing.T) {
	src := `import pytest
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


def build(n, dtype):
    @T.prim_func
    def k(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (n, 32), dtype)
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer((n, 32), dtype, scope="shared")
        Tx.warp.copy(A_s[:, :], A[:, :])

    return k


def orphan(m):
    @T.prim_func
    def lost(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (m,), "float32")
        T.device_entry()
        T.thread_id([32])
        A_s = T.alloc_buffer((m,), "float32", scope="shared")
        Tx.warp.copy(A_s[:], A[:])

    return lost


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("n", [pytest.param(32, id="small"), 64])
def test_k(n, dtype):
    build(n, dtype)
`
	res := lower.Analyze(source.NewFile("kernel.py", []byte(src)), lower.Options{})
	doc := Build(res, nil)
	type rec struct {
		name, id, n, dtype string
		needs              []string
	}
	var got []rec
	for _, k := range doc.Kernels {
		r := rec{name: k.Name, n: k.Case["n"], dtype: k.Case["dtype"], needs: k.Needs}
		if k.CaseID != nil {
			r.id = *k.CaseID
		}
		got = append(got, r)
	}
	want := []rec{
		{"k", "small-float16", "32", "'float16'", nil},
		{"k", "small-float32", "32", "'float32'", nil},
		{"k", "64-float16", "64", "'float16'", nil},
		{"k", "64-float32", "64", "'float32'", nil},
		{"lost", "", "", "", []string{"m"}},
	}
	if len(got) != len(want) {
		t.Fatalf("records %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].name != want[i].name || got[i].id != want[i].id || got[i].n != want[i].n || got[i].dtype != want[i].dtype || strings.Join(got[i].needs, ",") != strings.Join(want[i].needs, ",") {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	lost := doc.Kernels[4]
	if len(lost.Calls) != 1 || lost.Calls[0].Variant != nil || strings.Join(lost.Calls[0].Needs, ",") != "m" || lost.Calls[0].Line != 26 {
		t.Errorf("unresolved call %+v", lost.Calls)
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
	// A 0 global dimension is a runtime one, named in runtime_global_dims
	// (present only then, rank entries, "" at the static ones).
	rt, _ := m["runtime_global_dims"].([]any)
	if _, has := m["runtime_global_dims"]; has && len(rt) != rank {
		t.Errorf("%s: runtime_global_dims %v does not fit rank %d", name, m["runtime_global_dims"], rank)
	}
	for i, d := range dims {
		var e string
		if i < len(rt) {
			e, _ = rt[i].(string)
		}
		if (d == 0) != (e != "") {
			t.Errorf("%s: global_dims[%d]=%d with runtime_global_dims %v", name, i, d, rt)
		}
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

// TestCaseDiagnostics checks that a diagnostic only some cases report is
// reported once for the file, names its case, and belongs unsuffixed to
// that case's record only.
func TestCaseDiagnostics(t *testing.T) {
	src := `import pytest
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@pytest.mark.parametrize("n", [24, 32])
def test_copy(n):
    @T.prim_func
    def k(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (n,), "float32")
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer((n,), "float32", scope="shared")
        Tx.warp.copy(A_s[:], A[:])
`
	res := lower.Analyze(source.NewFile("kernel.py", []byte(src)), lower.Options{})
	doc := Build(res, nil)
	if len(doc.Kernels) != 2 {
		t.Fatalf("%d records", len(doc.Kernels))
	}
	var file []string
	for _, d := range doc.Diagnostics {
		file = append(file, d.Code+": "+d.Message)
	}
	if len(file) != 1 || !strings.HasPrefix(file[0], "dispatch/fallback-only") || !strings.HasSuffix(file[0], "[case n=24]") {
		t.Errorf("file diagnostics %q", file)
	}
	if len(doc.Kernels[0].Diagnostics) != 1 || strings.Contains(doc.Kernels[0].Diagnostics[0].Message, "[case") {
		t.Errorf("case n=24 diagnostics %+v", doc.Kernels[0].Diagnostics)
	}
	if len(doc.Kernels[1].Diagnostics) != 0 {
		t.Errorf("case n=32 diagnostics %+v", doc.Kernels[1].Diagnostics)
	}
}

// testReference is the release a test program states ("# tilels-test:
// reference=0.25"; every golden program does); "auto" for a program that
// states none (the bundled examples: what a new user gets).
func testReference(src []byte) string {
	if m := regexp.MustCompile(`(?m)^# tilels: reference=(\S+)\s*$`).FindSubmatch(src); m != nil {
		return string(m[1])
	}
	return "auto"
}

// unregistered reports whether diags (a file record's) hold the error of
// a dispatch= name the release does not register on line: then no variant
// was tried, and the call declines none.
func unregistered(diags, line any) bool {
	for _, d := range diags.([]any) {
		m := d.(map[string]any)
		if m["code"] == "dispatch/forced-variant" && m["line"] == line && strings.HasSuffix(m["message"].(string), "is registered") {
			return true
		}
	}
	return false
}
