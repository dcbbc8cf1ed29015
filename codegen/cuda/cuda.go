// Package cuda prints lowered ir.Funcs as one self-contained CUDA C++ file
// that `nvcc -arch=sm_90a -c` compiles without edits (spec §5).
//
// Contract:
//
//   - Input: kernels whose TileCalls were all replaced by ir.Lowered (the
//     dispatcher's output) plus their launch configuration. An unlowered
//     TileCall, a Region outside a tile call, an unknown intrinsic, a buffer
//     used before it is declared, a construct the target arch cannot
//     express (e.g. ptx.f32x2 below sm_100, a bulk-tensor copy below sm_90,
//     .cta_group off an sm_100a-family target), or a tensor map that breaks
//     a cuTensorMapEncodeTiled rule (tensormap.go) is reported as an error;
//     Print never panics on such input and returns no partial text with an
//     error.
//   - Output layout (spec §5.1): a header comment that names the target
//     ("// tilels: arch=sm_90a", read by the compile test), the C, CUDA
//     runtime and CUDA type includes, every helper the kernels use exactly
//     once (deduplicated by name, sorted by helper family then name), then
//     each kernel as `extern "C" __global__ void [__launch_bounds__(N)]
//     <name>_kernel(<data pointers and scalars>, const __grid_constant__
//     CUtensorMap <map>...)`, then the host side (host.go): one
//     `extern "C" int <name>_launch(<the same parameters but the maps>,
//     cudaStream_t stream)` per kernel that encodes the tensor maps, raises
//     the dynamic shared memory limit and launches the kernel; it returns 0,
//     a cudaError_t (> 0) or a tilels code (< 0), with the message in
//     tilels_last_error().
//   - Naming: pointer parameters keep the kernel's handle names (A_ptr);
//     allocated buffers and views print as <name>_ptr; every other variable
//     keeps its Python name. Duplicates (and C keywords) get _1, _2, ... in
//     first-use order, so output is deterministic (names.go).
//   - Statements: scope ids become int locals (warp_id_in_cta is declared
//     once at the top, through __shfl_sync, when a warp-derived index is
//     used); shared allocations are __shared__ alignas(64) arrays (more for
//     a TMA box: 128 bytes, 1024 under a 128B swizzle), local ones
//     alignas(64) register arrays, both sized by storageCount (address.go);
//     all shared.dyn buffers live in one extern unsigned-char arena with
//     typed views; serial loops print as for (int f = 0; f < N; ++f), unrolled
//     and vectorized ones the same under #pragma unroll (no float4 rewrite);
//     an ir.Lowered prints as a "// Tx.<scope>.<op>(...) -> <variant>"
//     comment and its body in { }.
//   - Buffer accesses index the data pointer with the flat element address
//     given by the buffer's layout (see address.go): row-major without a
//     layout, the grouped shard strides for a TileLayout, and the XOR formula
//     of §2.9 for a ComposeLayout.
//   - Integer // and % print as C / and %: they agree with Python floor
//     semantics only for non-negative operands, which is all the lowering
//     produces (indices, thread ids, loop counters).
//   - Launch is used to simplify thread indices: the lane of a CTA of at most
//     32 threads is threadIdx.x, the warp index of such a CTA is 0, and so on.
//     A zero Launch means "unknown": no simplification, no launch bounds.
//
// Example:
//
//	src, err := cuda.Print([]cuda.Kernel{{Func: fn, Launch: l}}, cuda.Options{Arch: "sm_90a"})
package cuda

import (
	"errors"
	"fmt"
	"github.com/tilels/tilels/internal/names"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/ir"
)

// DefaultArch is the target used when Options.Arch is empty.
const DefaultArch = "sm_90a"

// Options configures Print.
type Options struct {
	// Arch is the nvcc -arch value, "sm_<N>" or "sm_<N>a" (default sm_90a).
	// It gates arch-specific helpers: cp.async needs sm_80; elect.sync,
	// mbarrier expect_tx, stmatrix, cp.async.bulk and the bulk-tensor
	// (TMA) copies need sm_90; packed f32x2 needs sm_100; .cta_group needs
	// an arch-specific sm_100-family target (sm_100a, sm_100f, sm_103a, ...).
	Arch string
	// Lines, when set, adds #line directives that map the kernels back to
	// the .py (linedir.go); nil prints none.
	Lines *LineDirectives
}

// Kernel is one lowered kernel and its launch configuration.
type Kernel struct {
	Func   *ir.Func
	Launch ir.Launch
}

// symbols hands out the C names of the kernels and of their launchers.
// Kernel names depend on the kernels before: they are handed out in order.
// A nil function ends Print with an error, so no name is needed past it.
// Launcher names come after every kernel name, so that adding the host side
// renamed no kernel.
func symbols(fns []Kernel) (n *names.Namer, kernels, launchers []string) {
	n = names.New(nil)
	kernels = make([]string, len(fns))
	for i, k := range fns {
		if k.Func == nil {
			break
		}
		kernels[i] = n.Fresh(k.Func.Name + "_kernel")
	}
	launchers = make([]string, len(fns))
	for i, k := range fns {
		if k.Func == nil {
			break
		}
		launchers[i] = n.Fresh(k.Func.Name + "_launch")
	}
	return n, kernels, launchers
}

// Symbols returns the C names Print gives the kernels (<name>_kernel) and
// their launchers (extern "C" int <name>_launch(<pointers>, cudaStream_t)),
// in order; a name taken by an earlier kernel gets a _1, _2, ... suffix.
func Symbols(fns []Kernel) (kernels, launchers []string) {
	_, k, l := symbols(fns)
	return k, l
}

// Print renders the kernels as one .cu file.
func Print(fns []Kernel, opts Options) (string, error) {
	f, err := printFile(fns, opts)
	if err != nil {
		return "", err
	}
	return f.String(), nil
}

func printFile(fns []Kernel, opts Options) (*file, error) {
	arch := opts.Arch
	if arch == "" {
		arch = DefaultArch
	}
	sm, err := parseArch(arch)
	if err != nil {
		return nil, err
	}
	f := &file{arch: arch, sm: sm, helpers: map[string]*helper{}, lines: opts.Lines}
	var names, launchNames []string
	f.kernelNames, names, launchNames = symbols(fns)
	// Kernels print independently (each into its own text and helper
	// list), concurrently; merging in order keeps the output, the helper
	// set and the first error exactly those of printing one after the
	// other. On the 2-core dev machine BenchmarkPrintCUDA3000 went from 2.9
	// to 1.9 ms/op (median of 5) against the same code on one worker.
	outs := make([]kernelOut, len(fns))
	forEach(len(fns), func(i int) {
		defer func() {
			if r := recover(); r != nil {
				outs[i] = kernelOut{panicked: true, panicV: r}
			}
		}()
		outs[i] = f.kernel(fns[i], names[i], launchNames[i])
	})
	for i := range outs {
		if outs[i].panicked {
			panic(outs[i].panicV) // a bug; sequential printing would have hit it here
		}
		if err := f.merge(&outs[i]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// kernelOut is one printed kernel before it joins the file.
type kernelOut struct {
	name string // the kernel's Python name, for errors
	text string
	host string // the launcher
	tma  bool   // the launcher encodes tensor maps
	// used lists the helpers the kernel needs, in first-use order, each
	// once; errAt is len(used) when err was raised (all of it without err).
	used  []*helper
	err   error
	errAt int
	// arch lists, for CheckArch, the instructions above the target.
	arch []*ArchError
	// panicked records a panic while printing (a bug), re-raised by Print
	// in kernel order.
	panicked bool
	panicV   any
	// calls are the byte ranges in text of its tile calls (outmap.go).
	calls []callMark
}

// merge adds a printed kernel to the file: its helpers in first-use order
// (the same checks as one sequential pass), then its text. It returns the
// error sequential printing would have stopped on.
func (f *file) merge(o *kernelOut) error {
	for _, h := range o.used[:o.errAt] {
		if err := f.use(h); err != nil {
			return fmt.Errorf("codegen/cuda: kernel %s: %w", o.name, errors.New(err.Error()))
		}
	}
	if o.err != nil {
		return o.err
	}
	f.kernels = append(f.kernels, o.text)
	f.calls = append(f.calls, o.calls)
	f.launchers = append(f.launchers, o.host)
	f.tma = f.tma || o.tma
	return nil
}

// forEach calls f(0), ..., f(n-1) on at most GOMAXPROCS goroutines and
// returns when all have returned. f must not panic.
func forEach(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	work := func() {
		defer wg.Done()
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			f(i)
		}
	}
	for range workers - 1 {
		go work()
	}
	work()
	wg.Wait()
}

// file accumulates one output file. Sections are assembled in String: the
// header, the helpers, the kernels, then the host side (host.go): the
// error functions, the tensor-map encoder when a kernel has tensor maps,
// and one launcher per kernel.
type file struct {
	arch        string
	sm          int
	helpers     map[string]*helper
	kernels     []string
	launchers   []string
	tma         bool // some kernel has tensor maps: emit tilels_encode_tiled
	kernelNames *names.Namer
	lines       *LineDirectives // nil: no #line directives
	calls       [][]callMark    // per kernel, its tile calls (outmap.go)
	kernelAt    []int           // set by String: where each kernel starts
	// check is set by CheckArch: an instruction above the target is
	// recorded (kernel.arch) and printing goes on.
	check bool
}

// use records that h is needed. A helper of the same name with a different
// body is a bug in this package; a helper above the target arch is an error.
func (f *file) use(h *helper) error {
	if err := f.checkArch(h); err != nil {
		return err
	}
	return useIn(f.helpers, h)
}

// useIn adds h to helpers unless a helper of its name is there; one with a
// different body is an error.
func useIn(helpers map[string]*helper, h *helper) error {
	if old, ok := helpers[h.name]; ok {
		if old.code != h.code {
			return fmt.Errorf("codegen/cuda: helper %s defined twice with different bodies", h.name)
		}
		return nil
	}
	helpers[h.name] = h
	return nil
}

// String assembles the file.
func (f *file) String() string {
	var b strings.Builder
	b.WriteString("// Code generated by tilels (codegen/cuda). DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// tilels: arch=%s\n", f.arch)
	b.WriteString("#include <cstdarg>\n#include <cstdint>\n#include <cstdio>\n#include <cuda.h>\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda_fp8.h>\n")
	hs := make([]*helper, 0, len(f.helpers))
	for _, h := range f.helpers {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b *helper) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return strings.Compare(a.name, b.name)
	})
	// One allocation for the whole file: growing the builder by doubling
	// was 30% of BenchmarkPrintCUDA3000 bytes (3.22 → 2.25 MB/op).
	n := b.Len()
	for _, h := range hs {
		n += 1 + len(h.code)
	}
	for _, k := range f.kernels {
		n += 1 + len(k)
	}
	host := f.hostSections()
	for _, s := range host {
		n += 1 + len(s)
	}
	b.Grow(n - b.Len())
	for _, h := range hs {
		b.WriteString("\n")
		b.WriteString(h.code)
	}
	f.kernelAt = f.kernelAt[:0]
	for _, k := range f.kernels {
		b.WriteString("\n")
		f.kernelAt = append(f.kernelAt, b.Len())
		b.WriteString(k)
	}
	for i, s := range host {
		b.WriteString("\n")
		if i == 0 && f.lines != nil && len(f.kernels) > 0 {
			f.selfDirective(&b)
		}
		b.WriteString(s)
	}
	return b.String()
}
