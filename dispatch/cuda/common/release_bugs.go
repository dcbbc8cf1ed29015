package common

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/release"
)

// NotWellFormedText is the first paragraph of the error apache-tvm
// 0.27.0.post1 raises when a variant's implementation PrimFunc reads a
// variable or buffer of the caller (0.27's parser checks well-formedness
// of every @T.prim_func without check_well_formed=False). The reference's
// message goes on with the first undefined variable, its TIR access path
// and the wheel's source location; tilels gives this paragraph verbatim.
const NotWellFormedText = "error: Program is not well-formed. If this is deliberate, consider setting " +
	"check_well_formed in the top-level decorator to False (e.g., @I.ir_module(check_well_formed=False) " +
	"or @R.function(check_well_formed=False))."

// RaiseNotWellFormedFrom raises the reference's DiagnosticError when the
// call's release is one whose implementation of this variant is not
// well-formed (a reference bug, docs/variants-releases.md): the call is an
// exception row, as in the reference. Emitters call it once their own
// checks have passed, where the reference builds its PrimFunc.
func RaiseNotWellFormedFrom(c *dispatch.Call, broken release.Set) {
	if broken.Has(c.Target.Release) {
		dispatch.Raise("DiagnosticError", "%s", NotWellFormedText)
	}
}
