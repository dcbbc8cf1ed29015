package elementwise

// The elementwise variant table (spec §3.5 "elementwise ops"): for every
// op of ewiseOps (TVM ALL_OPS) two cases, both priority 10, tried in the
// order reg, smem (the name order): `reg` with predicate "{op}_reg"
// (elementwise/reg.go) and `smem` with predicate "{op}_smem" (elementwise/smem.go).
// The operands' storage scope (local vs shared*) makes them mutually
// exclusive.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/elementwise/
// register.py at PRE abe2526b3e.

import "github.com/tilels/tilels/dispatch"

// Variants returns the elementwise variants, two per op (reg, smem).
func Variants() []dispatch.Variant {
	out := make([]dispatch.Variant, 0, 2*len(ewiseOps))
	for _, spec := range ewiseOps {
		out = append(out,
			dispatch.Variant{
				Op: spec.Name, Name: "reg", Target: "cuda", Priority: 10, Releases: spec.Releases,
				When: []dispatch.Pred{{Name: spec.Name + "_reg", Check: ewiseRegPred(spec)}},
				Emit: emitEwiseReg(spec),
			},
			dispatch.Variant{
				Op: spec.Name, Name: "smem", Target: "cuda", Priority: 10, Releases: spec.Releases,
				When: []dispatch.Pred{{Name: spec.Name + "_smem", Check: ewiseSmemPred(spec)}},
				Emit: emitEwiseSmem(spec),
			},
		)
	}
	return out
}
