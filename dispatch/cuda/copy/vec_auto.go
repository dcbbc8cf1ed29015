package copy

// copy/vec_auto: the synchronous vectorizing copy of 0.26 and later, which
// merged gmem_smem and reg into one variant (priority 10, predicate
// vec_auto_applicable): the gmem_smem half when its predicate holds, else
// the reg half, else the reason "gmem_smem: <why>; reg: <why>". The
// predicates and plans are 0.25's gmem_smem and reg; the emitters are
// 0.26/0.27's (vec_auto_gmem_smem.go, vec_auto_reg.go: ld/st PTX chains
// through container registers, recompose_swizzle addressing, cache hints).
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy/vec_auto.py at
// 0.26.0 and 0.27.0.post1. 0.25 registers gmem_smem and reg instead (see
// gmem_smem.go, reg.go); under 0.25 `dispatch="vec_auto"` is "no variant
// named 'vec_auto' is registered".

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/release"
)

var VecAuto = dispatch.Variant{
	Op: "copy", Name: "vec_auto", Target: "cuda", Priority: 10, Releases: release.From(release.R026),
	Renamed: []string{"gmem_smem", "reg"}, // 0.25's names
	When:    []dispatch.Pred{{Name: "vec_auto_applicable", Check: isVecAuto}},
	Emit:    emitVecAuto,
}

func isVecAuto(c *dispatch.Call) *dispatch.Decline {
	g := isGmemSmem(c)
	if g == nil {
		return nil
	}
	r := isRegCopy(c)
	if r == nil {
		return nil
	}
	return c.Decline(c.Span(), "gmem_smem: "+g.Reason+"; reg: "+r.Reason)
}

func emitVecAuto(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	g := isGmemSmem(c)
	if g == nil {
		return emitGmemSmem27(c)
	}
	r := isRegCopy(c)
	if r == nil {
		return emitReg27(c)
	}
	return nil, c.Decline(c.Span(), "gmem_smem: "+g.Reason+"; reg: "+r.Reason)
}
