package report_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/headless"
)

// TestSchemaMachine checks documents with machine records against the
// schema: every example compiled by the fake toolchain of
// perf/machine/testdata/fake, and a record the schema must reject.
func TestSchemaMachine(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	vd := loadSchema(t)
	nvcc, err := filepath.Abs("../perf/machine/testdata/fake/nvcc")
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob("../testdata/examples/*.py")
	var out, errb bytes.Buffer
	code := headless.Run(headless.Config{Inputs: examples, Emit: "json", Machine: true, NVCC: nvcc, FailOn: diag.Error,
		Stdout: &out, Stderr: &errb})
	if code > 1 || !strings.Contains(out.String(), `"sass_memory_ops": {`) {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	vd.check(t, "examples --machine", out.Bytes())
	for _, tc := range []struct{ old, new, want string }{
		{`"limit": "`, `"limit": "x`, "not one of"},
		{`"registers": 40`, `"registers": -40`, "minimum"},
		{`"source": "nvcc 99.1.2"`, `"source": "clang"`, "does not match"},
	} {
		v, err := decode(bytes.Replace(out.Bytes(), []byte(tc.old), []byte(tc.new), 1))
		if err != nil {
			t.Fatal(err)
		}
		if err := vd.validate(map[string]any(vd.root), v, "$"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s: got %v, want an error with %q", tc.old, tc.new, err, tc.want)
		}
	}
}
