package copyasync

import "github.com/tilels/tilels/dispatch"

// Variants returns the copy_async variants in TVM's registration order
// (copy_async/__init__.py): ldgsts, dsmem, smem->tmem, tma, tmem<->local.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{Ldgsts, Dsmem, SmemTmem, CopyAsyncTMA, TmemLocal}
}
