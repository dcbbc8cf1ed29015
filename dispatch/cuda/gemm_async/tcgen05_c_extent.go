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
// also accepts the batched .ws form C[2, M, N] (weight-stationary), which
// tilels does not model: the call is declined as "tilels does not model",
// never given the assertion the reference does not raise.

// cMatrixExts returns C's (M, N) extents or raises the reference's
// assertion for c's release.
func cMatrixExts(c *dispatch.Call, cExts []int64, aRank, bRank int) []int64 {
	if c.Target.Release < release.R026 {
		if len(cExts) != 2 || aRank < 2 || bRank < 2 {
			dispatch.Raise("AssertionError", "Only 2D C, A, B are supported for gemm")
		}
		return cExts
	}
	for len(cExts) > 2 && cExts[0] == 1 {
		cExts = cExts[1:]
	}
	if len(cExts) == 3 && cExts[0] == 2 && aRank >= 2 && bRank >= 2 {
		panic(notModelled{"tilels does not model the batched .ws form C[2, M, N] of tcgen05.mma (weight-stationary): the reference accepts it"})
	}
	if len(cExts) != 2 || aRank < 2 || bRank < 2 {
		dispatch.Raise("AssertionError", "Only 2D C (or the batched .ws form C[2, M, N]), A, B are supported for gemm")
	}
	return cExts
}
