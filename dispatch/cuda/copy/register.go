package copy

import "github.com/tilels/tilels/dispatch"

// Variants returns the copy variants in TVM's registration order (PRE
// abe2526b3e copy/__init__.py): gmem_smem, ldstmatrix, reg, fallback, then
// SEED's forced widths vec_256b..vec_16b (explicit only).
func Variants() []dispatch.Variant {
	return []dispatch.Variant{
		GmemSmem,
		Ldstmatrix,
		Reg,
		Fallback,
		VecForced("vec_256b", 32),
		VecForced("vec_128b", 16),
		VecForced("vec_64b", 8),
		VecForced("vec_32b", 4),
		VecForced("vec_16b", 2),
	}
}
