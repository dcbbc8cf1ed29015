package common

import (
	"fmt"
	"strings"

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
		panic(&dispatch.Raised{Type: "DiagnosticError", Msg: NotWellFormedText, Note: notWellFormedNote(c.Target.Release, broken)})
	}
}

// notWellFormedNote is what the call's diagnostics add to the reference's
// text (dispatch/release-bug): the failure is the release's, not the
// kernel's, and which releases lower the call instead.
func notWellFormedNote(r release.Release, broken release.Set) string {
	var others []string
	for _, o := range release.All {
		if !broken.Has(o) {
			others = append(others, o.Short())
		}
	}
	note := fmt.Sprintf("a bug of apache-tvm %s, not of this kernel: the implementation the release builds for this call reads variables of the calling kernel, which its own parser refuses (docs/variants-releases.md)", r)
	if len(others) > 0 {
		last := others[len(others)-1]
		verb := "builds"
		if len(others) > 1 {
			verb = "build"
		}
		note += fmt.Sprintf("; %s %s it without the bug (`# tilels: reference=%s` shows its lowering)", strings.Join(others, " and "), verb, last)
	}
	return note
}
