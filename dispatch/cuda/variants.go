// Package cuda holds the CUDA variants of the TIRx tile-primitive
// dispatcher: one file per variant (dispatch/cuda/<op>_<variant>.go), each
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

import "github.com/tilels/tilels/dispatch"

// Variants returns every CUDA variant, in table order (the registry sorts
// by (-priority, name) itself): the copy variants, then the elementwise
// ones (ewise_variants.go).
func Variants() []dispatch.Variant {
	return append([]dispatch.Variant{
		// copy
		gmemSmem,
		ldstmatrix,
		reg,
		fallback,
		vecForced("vec_256b", 32),
		vecForced("vec_128b", 16),
		vecForced("vec_64b", 8),
		vecForced("vec_32b", 4),
		vecForced("vec_16b", 2),
		// copy_async
		ldgsts,
		dsmem,
		smemTmem,
		copyAsyncTMA,
		tmemLocal,
	}, EwiseVariants()...)
}
