// Package trn holds the Trainium variants of the TIRx tile-primitive
// dispatcher (target kind "trn"): one folder per op family as the
// reference lays them out under backend/trn/tile_primitive/ (0.26, 0.27;
// 0.25: backend/trn/operator/tile_primitive/), one file per variant, and
// this explicit table. TestRegistryMatchesWheels (trn) checks it against
// each wheel's registry (testdata/registry-trn-<release>.json).
//
// A variant decides a call as the reference does: its predicate
// ("exec_scope"), then the analyses of the reference's schedule (the
// InstructionGenerator, dispatch/trn/common), whose assertions are the
// reference's exceptions. What tilels cannot analyse is a decline whose
// reason starts with "tilels", never counted as decided. The NKI
// instruction loops themselves are not printed.
package trn

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/binary"
	composeop "github.com/tilels/tilels/dispatch/trn/compose_op"
	"github.com/tilels/tilels/dispatch/trn/copy"
	"github.com/tilels/tilels/dispatch/trn/gemm"
	"github.com/tilels/tilels/dispatch/trn/reduction"
	select_ "github.com/tilels/tilels/dispatch/trn/select"
	"github.com/tilels/tilels/dispatch/trn/unary"
)

// Variants returns every Trainium variant, family by family.
func Variants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, fam := range [][]dispatch.Variant{
		copy.Variants(),
		gemm.Variants(),
		binary.Variants(),
		unary.Variants(),
		reduction.Variants(),
		composeop.Variants(),
		select_.Variants(),
	} {
		out = append(out, fam...)
	}
	return out
}
