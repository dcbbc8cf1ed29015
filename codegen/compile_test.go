package codegen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/internal/cudacheck"
	"github.com/tilels/tilels/internal/txtar"
)

// TestCompile compiles the out/cuda section of every golden file for the
// arch named in its "// tilels: arch=..." line (see internal/cudacheck),
// in merged batches (cudacheck.CompileAll).
func TestCompile(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	cc, ok := cudacheck.Find()
	if !ok {
		t.Skip("neither nvcc nor a host C++ compiler is available")
	}
	t.Logf("compiling with %s", cc)
	var units []cudacheck.Unit
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("out/cuda")
		if !ok {
			t.Errorf("%s: no out/cuda section", path)
			continue
		}
		arch, ok := cudacheck.Arch(src)
		if !ok {
			t.Errorf("%s: out/cuda has no // tilels: arch= line", path)
			continue
		}
		units = append(units, cudacheck.Unit{Name: name, Src: src, Arch: arch})
	}
	for i, err := range cc.CompileAll(t.TempDir(), units) {
		if err != nil {
			t.Errorf("%s: %v", units[i].Name, err)
		}
	}
}
