package lower

import (
	"fmt"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
)

// CodeArch is the code of an instruction the target arch does not have.
const CodeArch = "lower/arch"

// ArchError is the error CUDA returns for an instruction the target arch
// does not have; Analyze reported it already, as a lower/arch diagnostic
// at the same span.
type ArchError = cuda.ArchError

// ValidArch reports whether arch is a real CUDA target (sm_90a, sm_80,
// sm_100f, ...); the error says why not, in one line.
func ValidArch(arch string) error { return cuda.ValidArch(arch) }

// archDiags returns a lower/arch error for each tile call of out whose
// lowering uses an instruction the target does not have, at the call's
// callee, and for each such intrinsic the kernel calls itself. The
// dispatcher, like TVM's, chooses variants without looking at the arch
// (a TMA copy is chosen for sm_80 too); this check, made on the code
// the CUDA printer would write, moves the printer's error to the call.
// Kernels that cuda.ArchSafe clears (most, at sm_90a) are not printed.
func archDiags(out *dispatch.Output, arch string) (ds []diag.Diagnostic) {
	if out == nil || out.Func == nil || cuda.ArchSafe(out.Func, arch) {
		return nil
	}
	defer func() {
		// A panic here is a bug of the printer, which printing the kernel
		// meets again and reports; analysis goes on without the check.
		if recover() != nil {
			ds = nil
		}
	}()
	errs, err := cuda.CheckArch([]cuda.Kernel{{Func: out.Func, Launch: out.Launch}}, cuda.Options{Arch: arch})
	if err != nil {
		return nil
	}
	for _, e := range errs {
		ds = append(ds, diag.Errorf(e.Span, CodeArch, "%s", archMessage(e)))
	}
	return ds
}

// archMessage says what needs the newer target: "copy_async lowers
// through tma, whose ptx.fence.proxy_async needs sm_90 or later; target
// is sm_80".
func archMessage(e *ArchError) string {
	need := fmt.Sprintf("needs sm_%d or later", e.MinSM)
	if e.Family {
		need = "needs an arch-specific sm_100-family target (sm_100a, sm_100f, sm_103a, ...)"
	}
	if e.Call != nil {
		return fmt.Sprintf("%s lowers through %s, whose %s %s; target is %s", e.Call.Op, e.Variant, e.What, need, e.Arch)
	}
	return fmt.Sprintf("%s %s; target is %s", e.What, need, e.Arch)
}
