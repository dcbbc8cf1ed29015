package copy

import "github.com/tilels/tilels/dispatch"

// Variants returns the copy variants in TVM's registration order (PRE
// abe2526b3e copy/__init__.py): gmem_smem, ldstmatrix, reg, fallback, then
// 0.26's vec_auto and forced widths vec_256b..vec_16b (explicit only).
// Each variant's Releases says which wheels register it.
func Variants() []dispatch.Variant {
	return []dispatch.Variant{
		GmemSmem, // 0.25
		Ldstmatrix,
		Reg, // 0.25
		Fallback,
		VecAuto, // 0.26+
		VecForced("vec_256b", 32),
		VecForced("vec_128b", 16),
		VecForced("vec_64b", 8),
		VecForced("vec_32b", 4),
		VecForced("vec_16b", 2),
	}
}
