// Golden and compile tests of the two printers of lowered TIRx kernels:
//
//   - codegen/cuda prints kernels as one self-contained CUDA C++ file
//     (nvcc -arch=sm_90a compiles it without edits);
//   - codegen/tirx prints one kernel as Python-like TVMScript text.
//
// Both take the dispatcher's output (an *ir.Func whose TileCalls became
// ir.Lowered nodes) and its ir.Launch, and both are deterministic.
//
// testdata/<name>.txtar holds, per fixture of fixtures_test.go, a
// "-- kernel.py --" section documenting the source the hand-built IR models
// and the printers' output in "-- out/tirx --" and "-- out/cuda --";
// `go test ./codegen -update` rewrites the out sections. TestCompile
// compiles every golden .cu with nvcc when one is on PATH or named by
// $TILELS_NVCC, and otherwise checks syntax and C++ types with the host g++
// against the CUDA stub headers in testdata/cudastub.
//
// The directory holds tests only: the import policy (deps_test.go) has no
// row for a package "codegen".
package codegen_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the out/ sections of testdata/*.txtar")

// TestGolden prints every fixture with both printers and compares the text
// with the out/tirx and out/cuda sections of testdata/<name>.txtar.
func TestGolden(t *testing.T) {
	for _, fx := range fixtures() {
		t.Run(fx.name, func(t *testing.T) { check(t, fx) })
	}
}

func check(t *testing.T, fx fixture) {
	path := filepath.Join("testdata", fx.name+".txtar")
	ar, err := txtar.ParseFile(path)
	if err != nil {
		if !*update || !os.IsNotExist(err) {
			t.Fatal(err)
		}
		ar = &txtar.Archive{}
	}
	var tx []string
	for _, k := range fx.kernels {
		tx = append(tx, tirx.Print(k.Func, k.Launch))
	}
	got := map[string]string{"out/tirx": strings.Join(tx, "\n")}
	src, err := cuda.Print(fx.kernels, fx.opts)
	if err != nil {
		t.Fatalf("cuda.Print: %v", err)
	}
	got["out/cuda"] = src

	// Determinism: a second run prints the same bytes.
	if again, _ := cuda.Print(fx.kernels, fx.opts); again != src {
		t.Errorf("cuda.Print is not deterministic")
	}

	if *update {
		for _, name := range []string{"out/tirx", "out/cuda"} {
			ar.Set(name, []byte(got[name]))
		}
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"out/tirx", "out/cuda"} {
		want, ok := ar.Get(name)
		if !ok {
			t.Errorf("%s: no %s section (run go test -update)", path, name)
			continue
		}
		if !bytes.Equal(want, []byte(got[name])) {
			t.Errorf("%s: %s differs (run go test -update and review the diff)\n%s", path, name, diff(string(want), got[name]))
		}
	}
}

// diff shows the first differing line with a little context.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(trailing newline)"
}
