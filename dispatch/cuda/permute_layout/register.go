package permutelayout

import "github.com/tilels/tilels/dispatch"

// Variants returns the permute_layout variants in TVM's registration order
// (permute_layout/__init__.py: warp_xor_swizzle only).
func Variants() []dispatch.Variant {
	return []dispatch.Variant{WarpXorSwizzle}
}
