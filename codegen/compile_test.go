package codegen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilels/tilels/internal/txtar"
)

var archLine = regexp.MustCompile(`(?m)^// tilels: arch=(sm_[0-9]+[af]?)$`)

// TestCompile compiles the out/cuda section of every golden file.
//
// With nvcc ($TILELS_NVCC, else nvcc on PATH) each file is compiled for the
// arch named in its "// tilels: arch=..." header line:
//
//	nvcc -arch=<arch> -cubin -o k.cubin k.cu
//
// Without nvcc the host g++ checks syntax and C++ types against the stub
// CUDA headers in testdata/cudastub (inline PTX is not checked then).
func TestCompile(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	nvcc := os.Getenv("TILELS_NVCC")
	if nvcc == "" {
		nvcc, _ = exec.LookPath("nvcc")
	}
	gxx := ""
	if nvcc == "" {
		for _, name := range []string{"g++", "c++", "clang++"} {
			if p, err := exec.LookPath(name); err == nil {
				gxx = p
				break
			}
		}
		if gxx == "" {
			t.Skip("neither nvcc nor a host C++ compiler is available")
		}
		t.Logf("no nvcc: checking with %s -fsyntax-only against testdata/cudastub", gxx)
	}
	stub, err := filepath.Abs(filepath.Join("testdata", "cudastub"))
	if err != nil {
		t.Fatal(err)
	}
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
				t.Skip("no out/cuda section")
			}
			m := archLine.FindSubmatch(src)
			if m == nil {
				t.Fatalf("%s: out/cuda has no // tilels: arch= line", path)
			}
			dir := t.TempDir()
			cu := filepath.Join(dir, name+".cu")
			if err := os.WriteFile(cu, src, 0o644); err != nil {
				t.Fatal(err)
			}
			var cmd *exec.Cmd
			if nvcc != "" {
				cmd = exec.Command(nvcc, "-arch="+string(m[1]), "-cubin", "-o", filepath.Join(dir, name+".cubin"), cu)
			} else {
				cmd = exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror",
					"-Wno-unknown-pragmas", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
					"-I", stub, "-include", "cuda_runtime.h", "-x", "c++", cu)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
			}
		})
	}
}
