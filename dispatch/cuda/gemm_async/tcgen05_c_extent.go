package gemmasync

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/release"
)

// C's matrix extents (tcgen05.py, the C_extent check). 0.25 asserts a 2-D
// C region. 0.26+ first squeezes C's leading unit dimensions, so a staged
// accumulator acc[stage, :, :] (acc = acc_buf.rearrange("m (s n) -> s m n"))
// is the (M, N) matrix at the stage's columns (the stage index moves the
// TMEM column through the sliced layout's offset, as for a 2-D region), and
// also accepts the batched .ws form C[2, M, N/2] (weight-stationary, the
// two 64-lane halves of an M=64 accumulator: tcgen05_ws.go).

// cMatrixExts returns C's extents with the leading unit dimensions gone
// (2 of them, or 3 for the batched form: batched is set) or raises the
// reference's assertion for c's release.
func cMatrixExts(c *dispatch.Call, cExts []int64, aRank, bRank int) (exts []int64, batched bool) {
	if c.Target.Release < release.R026 {
		if len(cExts) != 2 || aRank < 2 || bRank < 2 {
			dispatch.Raise("AssertionError", "Only 2D C, A, B are supported for gemm")
		}
		return cExts, false
	}
	for len(cExts) > 2 && cExts[0] == 1 {
		cExts = cExts[1:]
	}
	batched = len(cExts) == 3 && cExts[0] == 2
	if (len(cExts) != 2 && !batched) || aRank < 2 || bRank < 2 {
		dispatch.Raise("AssertionError", "Only 2D C (or the batched .ws form C[2, M, N]), A, B are supported for gemm")
	}
	return cExts, batched
}
