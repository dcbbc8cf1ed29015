package codegen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/internal/cudacheck"
	"github.com/tilels/tilels/internal/txtar"
)

// TestCompile compiles the out/cuda section of every golden file for the
// arch named in its "// tilels: arch=..." line (see internal/cudacheck).
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
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := ar.Get("out/cuda")
			if !ok {
				t.Fatal("no out/cuda section")
			}
			arch, ok := cudacheck.Arch(src)
			if !ok {
				t.Fatalf("%s: out/cuda has no // tilels: arch= line", path)
			}
			if err := cc.Compile(t.TempDir(), name, src, arch); err != nil {
				t.Error(err)
			}
		})
	}
}
