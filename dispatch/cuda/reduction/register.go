package reduction

import "github.com/tilels/tilels/dispatch"

// Variants returns the reduction variants in TVM's registration order
// (reduction/__init__.py imports local, shared, sm100_packed; each
// registers sum, max, min).
func Variants() []dispatch.Variant {
	var out []dispatch.Variant
	out = append(out, localVariants()...)
	out = append(out, sharedVariants()...)
	return append(out, packedVariants()...)
}
