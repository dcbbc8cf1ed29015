// Package cuda holds the CUDA variants of the TIRx tile-primitive
// dispatcher: one folder per op family (dispatch/cuda/<family>/), one file
// per variant
// saying what it lowers, when it declines and which TVM file it mirrors,
// and one explicit table, Variants (no init() registration).
//
// Contract: every variant is a dispatch.Variant with Target "cuda" and the
// set of reference releases that register it (Variant.Releases); names,
// priorities and predicate names match each wheel's registry (copy under
// 0.25: gmem_smem 10, ldstmatrix 10, reg 10, fallback 0; under 0.26 and
// 0.27: vec_auto 10, ldstmatrix 10, fallback 0 and the forced widths
// vec_16b..vec_256b 20, explicit only; copy_async: ldgsts 20, dsmem,
// smem->tmem, tmem<->local 10, and tma 10 under 0.25, tma_auto and
// tma_explicit 10 from 0.26; elementwise log2 and maximum from 0.26).
// TestRegistryMatchesWheels checks the table against the wheels' own
// registries (testdata/registry-<release>.json). Emitters produce the seed CUDA form of
// spec §5.3: ir.OpPointerOffset over flat &buf[0] addresses and
// ir.OpCopyBytes (ldgsts: ir.OpCpAsync), or scalar Store/Load loops;
// thread indices are *ir.ThreadIndex.
//
// Invariant: predicates never panic on well-formed input (a bug shows up
// as a "predicate exception" row, not a crash); messages are TVM's,
// verbatim, except where a file documents a tilels-specific reason.
package cuda

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/cuda/copy"
	copyasync "github.com/tilels/tilels/dispatch/cuda/copy_async"
	"github.com/tilels/tilels/dispatch/cuda/elementwise"
	"github.com/tilels/tilels/dispatch/cuda/gemm"
	gemmasync "github.com/tilels/tilels/dispatch/cuda/gemm_async"
	permutelayout "github.com/tilels/tilels/dispatch/cuda/permute_layout"
	"github.com/tilels/tilels/dispatch/cuda/reduction"
)

// Variants returns every CUDA variant, op family by op family, each family
// in TVM's registration order (the registry sorts by (-priority, name)
// itself). Each family lives in dispatch/cuda/<family>/ as the reference
// lays them out under backend/cuda/operator/tile_primitive/; shared
// predicates and helpers are in dispatch/cuda/common.
func Variants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, fam := range [][]dispatch.Variant{
		copy.Variants(),
		copyasync.Variants(),
		elementwise.Variants(),
		gemm.Variants(),
		gemmasync.Variants(),
		reduction.Variants(),
		permutelayout.Variants(),
	} {
		out = append(out, fam...)
	}
	return out
}
