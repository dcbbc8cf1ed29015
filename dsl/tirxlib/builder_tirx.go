package tirxlib

// The gather4 checks of the builder's copy_async (tvm/tirx/script/builder/
// tirx.py _check_copy_regions_match, 0.26.0 and 0.27.0.post1; 0.25's builder
// checks nothing), made before it compares the TMA payloads: the source
// region describes one row, the instruction moves the four rows gather4
// names, so the source payload counts four times.

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/ir"
)

// checkGather4 reports what the builder raises for a gather4= copy_async
// under dispatch="tma_auto"/"tma_explicit", in its order and words.
func checkGather4(ev *eval.Evaluator, tc *ir.TileCall, src *ir.Region, gather4 eval.Value) bool {
	if tc.Dispatch != "tma_explicit" {
		ev.Errorf(tc.Span, eval.CodeType, "copy_async: gather4 is only supported by dispatch='tma_explicit'")
		return false
	}
	n := -1
	switch g := gather4.(type) {
	case *eval.ListV:
		n = len(g.Elts)
	case *eval.TupleV:
		n = len(g.Elts)
	}
	if n != 4 {
		ev.Errorf(tc.Span, eval.CodeType, "copy_async: gather4 must contain exactly four row coordinates")
		return false
	}
	if len(src.Extent) != 2 {
		ev.Errorf(tc.Span, eval.CodeType, "copy_async: gather4 requires a rank-2 global source")
		return false
	}
	if rows, ok := ir.ConstInt(src.Extent[0]); !ok || rows != 1 {
		ev.Errorf(tc.Span, eval.CodeType, "copy_async: gather4 global axis 0 must describe exactly one row")
		return false
	}
	return true
}
