package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dispatch/layout"
)

// sfSmemLayoutCall is the gemm_async module's sf_smem_layout(rows, SF_K,
// sf_per_mma, sf_reuse=1, pipe_depth=None): the shared-memory layout of a
// block-scaled MMA's scale factors as tcgen05.cp reads them, in 128-row
// super-blocks of 32 lanes x 16 bytes. The 16 bytes of a lane are 4 inner
// rows x sf_per_mma x 4/sf_per_mma K entries; the SF_K/4 K super-blocks
// follow with stride 512. Unit dimensions are dropped, sf_reuse > 1 appends
// a stride-0 broadcast dimension and pipe_depth prepends one of a whole
// stage's bytes (backend/cuda/.../gemm_async/tcgen05.py, 0.25 and main).
func sfSmemLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "sf_smem_layout", 3, "rows", "SF_K", "sf_per_mma", "sf_reuse", "pipe_depth") {
		return eval.Poison(c.At)
	}
	rows, ok1 := ev.IntArg(c.Args[0], c.ArgSpans[0], "rows")
	sfK, ok2 := ev.IntArg(c.Arg(1, "SF_K"), c.ArgSpan(1, "SF_K"), "SF_K")
	per, ok3 := ev.IntArg(c.Arg(2, "sf_per_mma"), c.ArgSpan(2, "sf_per_mma"), "sf_per_mma")
	if !ok1 || !ok2 || !ok3 {
		return eval.Poison(c.At)
	}
	reuse, depth := int64(1), int64(0)
	if v := c.Arg(3, "sf_reuse"); v != nil {
		var ok bool
		if reuse, ok = ev.IntArg(v, c.ArgSpan(3, "sf_reuse"), "sf_reuse"); !ok {
			return eval.Poison(c.At)
		}
	}
	hasDepth := false
	if v := c.Arg(4, "pipe_depth"); v != nil && !eval.IsNoneV(v) {
		var ok bool
		if depth, ok = ev.IntArg(v, c.ArgSpan(4, "pipe_depth"), "pipe_depth"); !ok {
			return eval.Poison(c.At)
		}
		hasDepth = true
	}
	const (
		epc       = 4 // 8-bit scale factors per 32-bit TMEM cell
		superRows = 128
		lanes     = 32
		inner     = superRows / lanes // 4
		laneBytes = epc * inner       // 16
		superB    = laneBytes * lanes // 512
	)
	// The reference's ValueError texts.
	switch {
	case rows%superRows != 0:
		return ev.Errorf(c.At, eval.CodeType, "rows=%d must be a multiple of %d", rows, superRows)
	case per <= 0 || epc%per != 0:
		return ev.Errorf(c.At, eval.CodeType, "sf_per_mma=%d must divide epc=%d", per, epc)
	case sfK%epc != 0:
		return ev.Errorf(c.At, eval.CodeType, "SF_K=%d must be a multiple of epc=%d", sfK, epc)
	}
	inLaneK := epc / per
	kOuter := sfK / epc
	mSuper := rows / superRows
	kTotal := int64(superB) * kOuter
	stage := kTotal * mSuper
	rawShape := []int64{mSuper, inner, lanes, kOuter, per, inLaneK}
	rawStride := []int64{kTotal, epc, laneBytes, superB, inLaneK, 1}
	if reuse > 1 {
		rawShape = append(rawShape, reuse)
		rawStride = append(rawStride, 0)
	}
	var shard []layout.Iter
	if hasDepth {
		shard = append(shard, layout.It(depth, stage, layout.M))
	}
	for i, n := range rawShape {
		if n != 1 {
			shard = append(shard, layout.It(n, rawStride[i], layout.M))
		}
	}
	return newLayoutV(ev, layout.NewTile(shard, nil, nil), c.At)
}
