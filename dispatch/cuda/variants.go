// Package cuda holds the CUDA variants of the TIRx tile-primitive
// dispatcher: one folder per op family (dispatch/cuda/<family>/), one file
// per variant
// saying what it lowers, when it declines and which TVM file it mirrors,
// and one explicit table, Variants (no init() registration).
//
// Contract: every variant is a dispatch.Variant with Target "cuda"; names,
// priorities and predicate names match TVM PRE abe2526b3e (copy:
// gmem_smem 10, ldstmatrix 10, reg 10, fallback 0; copy_async: ldgsts 20,
// dsmem, smem->tmem, tma and tmem<->local 10, of which dsmem, smem->tmem
// and tmem<->local only report: their emitters always decline), plus
// SEED's forced widths vec_16b..vec_256b (20, explicit only). The SEED
// names vec_auto, tma_auto and tma_explicit are accepted by `dispatch=` as
// aliases (see dispatch.Aliases). Emitters produce the seed CUDA form of
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
