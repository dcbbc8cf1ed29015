package lower

import (
	"github.com/tilels/tilels/dsl/diag"
)

// Perf returns the performance warnings of the file's calls and their
// verified quick fixes (see perf.go's doc): computed on demand, since they
// need the memory analysis of every kernel.
func (r *Result) Perf() ([]diag.Diagnostic, []Fix) {
	return nil, nil
}
