package copyasync

import "github.com/tilels/tilels/dispatch"

// Variants returns the copy_async variants in TVM's registration order
// (copy_async/__init__.py): ldgsts, dsmem, smem->tmem, tma (0.25) or tma_auto and
// tma_explicit (0.26+), tmem<->local.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{Ldgsts, Dsmem, SmemTmem, CopyAsyncTMA, TMAAuto, TMAExplicit, TmemLocal}
}
