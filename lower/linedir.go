package lower

import (
	"github.com/tilels/tilels/codegen/cuda"
)

// LineDirectives configures the #line directives of CUDA and Harness
// (Options.LineDirectives): the .py the spans are offsets into, the path
// the directives name, and the .cu's own name (cuda.LineDirectives).
type LineDirectives = cuda.LineDirectives

// CUDALines is the .cu file of the views' kernels with #line directives
// into d.Source, the text the views belong to: each kernel's spans are
// moved by its view's Shift (a session keeps the kernels an edit did not
// touch, with spans of the text they were analysed on). The kernels are
// printed anew (not through a Prints cache: their lines move with edits
// above them); opts gives the arch.
func CUDALines(views []*KernelView, opts Options, d LineDirectives) (string, error) {
	in, ks := linesInput(views, &d)
	return cuda.Print(in, cuda.Options{Arch: PrintArch(ks, opts), Lines: &d})
}
