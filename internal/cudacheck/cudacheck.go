// Package cudacheck compiles generated CUDA in tests: with nvcc when one is
// available ($TILELS_NVCC, else nvcc on PATH) to an object file (nvcc -c:
// the device code through ptxas to SASS, so inline PTX is checked, and the
// host code, the launchers included, through the host compiler with
// -Wall -Werror), otherwise with the host C++ compiler in -fsyntax-only mode
// against the stub CUDA headers in cudastub/ (which check C++ syntax and
// types of device and host code but not PTX).
package cudacheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
)

var archLine = regexp.MustCompile(`(?m)^// tilels: arch=(sm_[0-9]+[af]?)$`)

// Arch returns the arch named by the "// tilels: arch=..." line of src.
func Arch(src []byte) (string, bool) {
	m := archLine.FindSubmatch(src)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// Compiler describes what Compile will use.
type Compiler struct {
	NVCC string // path of nvcc, "" when absent
	CXX  string // host compiler used without nvcc
	stub string
}

// Find locates a compiler; ok is false when neither nvcc nor a host C++
// compiler exists.
func Find() (c Compiler, ok bool) {
	c.NVCC = os.Getenv("TILELS_NVCC")
	if c.NVCC == "" {
		c.NVCC, _ = exec.LookPath("nvcc")
	}
	_, file, _, _ := runtime.Caller(0)
	c.stub = filepath.Join(filepath.Dir(file), "cudastub")
	if c.NVCC != "" {
		return c, true
	}
	for _, name := range []string{"g++", "c++", "clang++"} {
		if p, err := exec.LookPath(name); err == nil {
			c.CXX = p
			return c, true
		}
	}
	return c, false
}

// String names the compiler for logs.
func (c Compiler) String() string {
	if c.NVCC != "" {
		return c.NVCC
	}
	return c.CXX + " -fsyntax-only (stub CUDA headers)"
}

// Compile compiles src (a .cu file's text) for arch in dir. It returns the
// compiler's output on failure.
func (c Compiler) Compile(dir, name string, src []byte, arch string) error {
	cu := filepath.Join(dir, name+".cu")
	if err := os.WriteFile(cu, src, 0o644); err != nil {
		return err
	}
	var cmd *exec.Cmd
	if c.NVCC != "" {
		cmd = exec.Command(c.NVCC, "-arch="+arch, "-c", "-Xcompiler=-Wall,-Werror", "-o", filepath.Join(dir, name+".o"), cu)
	} else {
		cmd = exec.Command(c.CXX, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror",
			"-Wno-unknown-pragmas", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
			"-I", c.stub, "-include", "cuda_runtime.h", "-x", "c++", cu)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %v\n%s", cmd.Args, err, out)
	}
	return nil
}
