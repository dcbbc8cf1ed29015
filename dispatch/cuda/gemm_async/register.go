package gemmasync

import "github.com/tilels/tilels/dispatch"

// Variants returns the gemm_async variants in TVM's registration order.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{Tcgen05}
}
