package lower

import "github.com/tilels/tilels/codegen/cuda"

// LineDirectives configures the #line directives of CUDA and Harness
// (Options.LineDirectives): the .py the spans are offsets into, the path
// the directives name, and the .cu's own name (cuda.LineDirectives).
type LineDirectives = cuda.LineDirectives
