package gemm

import "github.com/tilels/tilels/dispatch"

// Variants returns the gemm variants in TVM's registration order
// (gemm/__init__.py: mma_m16n8k_).
func Variants() []dispatch.Variant {
	return []dispatch.Variant{MmaM16n8k}
}
