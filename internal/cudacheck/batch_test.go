package cudacheck

import (
	"fmt"
	"strings"
	"testing"
)

// program is a small generated-looking .cu file: C-linkage kernel and
// launcher, a weak extern "C" block, an anonymous-namespace helper, an
// extern __shared__ arena and a main, all with the same names in every
// copy, as every generated program has.
func program(body string) string {
	return `#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void __launch_bounds__(32) k_kernel(float* __restrict__ A_ptr) {
  extern __shared__ __align__(128) unsigned char dyn_ptr[];
  ` + body + `
}

extern "C" {
__attribute__((weak)) thread_local char tilels_error_message[512];
__attribute__((weak)) const char* tilels_last_error(void) { return tilels_error_message; }
}

namespace {
inline int helper(int x) { return x + 1; }
}  // namespace

extern "C" int k_launch(float* A_ptr, cudaStream_t stream) {
  cudaLaunchConfig_t cfg{};
  cfg.stream = stream;
  return int(cudaLaunchKernelEx(&cfg, k_kernel, A_ptr)) + helper(0) - 1;
}

#include <vector>

int main() {
  std::vector<float> v(32);
  printf("%d\n", k_launch(v.data(), 0));
  return 0;
}
`
}

func TestMergeRenames(t *testing.T) {
	merged := string(Merge([][]byte{[]byte(program("")), []byte(program(""))}))
	for _, want := range []string{
		"#include <vector>\n", // hoisted above the namespaces
		"#define k_kernel k_kernel__tilels_p0\n",
		"#define k_launch k_launch__tilels_p1\n",
		"#define tilels_last_error tilels_last_error__tilels_p0\n",
		"#define tilels_error_message tilels_error_message__tilels_p1\n",
		"#define dyn_ptr dyn_ptr__tilels_p0\n",
		"#define main main__tilels_p1\n",
		"namespace tilels_p1 {\n",
		"#undef k_kernel\n",
	} {
		if !strings.Contains(merged, want) {
			t.Errorf("merged file lacks %q", want)
		}
	}
	if strings.Contains(merged, "#define __launch_bounds__") {
		t.Error("an attribute was renamed")
	}
	if i, j := strings.Index(merged, "#include <vector>"), strings.Index(merged, "namespace tilels_p0"); i > j {
		t.Error("#include <vector> is not above the first namespace")
	}
}

// TestCompileAll compiles batches where one program is broken: the error
// is that program's, the others pass.
func TestCompileAll(t *testing.T) {
	cc, ok := Find()
	if !ok {
		t.Skip("neither nvcc nor a host C++ compiler is available")
	}
	var units []Unit
	for i := range 5 {
		body := fmt.Sprintf("A_ptr[threadIdx.x] = %d.0f + dyn_ptr[0];", i)
		if i == 3 {
			body = "A_ptr[threadIdx.x] = undeclared_name;"
		}
		units = append(units, Unit{Name: fmt.Sprintf("p%d", i), Src: []byte(program(body)), Arch: "sm_90a"})
	}
	units = append(units, Unit{Name: "p5", Src: []byte(program("")), Arch: "sm_100a"})
	errs := cc.CompileAll(t.TempDir(), units)
	for i, err := range errs {
		if (err != nil) != (i == 3) {
			t.Errorf("%s: error %v", units[i].Name, err)
		}
	}
	if errs[3] != nil && !strings.Contains(errs[3].Error(), "undeclared_name") {
		t.Errorf("p3's error does not show the compiler's message: %v", errs[3])
	}
}
