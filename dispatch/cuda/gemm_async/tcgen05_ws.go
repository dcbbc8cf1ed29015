package gemmasync

// The weight-stationary forms of gemm_async/tcgen05 (0.26 and later,
// tcgen05.py): tcgen05.mma.ws, whose M=64 cta_group::1 datapath (PTX ISA
// 9.7.16.10.5, Layout E) writes an N-column accumulator as two halves of
// N/2 columns, at lanes 0-63 and 64-127.
//
//   - config weight_stationary=True asks for the .ws instruction;
//   - a batched C[2, M, N/2] region, S[(2, M, N/2):(64@TLane, 1@TLane,
//     1@TCol)], is that fold written per half: it is checked structurally,
//     read as the packed (M, 2, N/2):(1@TLane, 64@TLane, 1@TCol) layout
//     (N = 2 x its last extent), and infers .ws at cta_group::1;
//   - a packed Layout-E C of an M=64 cta_group::1 MMA infers .ws too (a
//     weight_stationary=False given with it is the reference's ValueError);
//   - .ws at M=64 cta_group::1 over any other C, or with a flat A in
//     tensor memory, is a ValueError, as is a bank-batched A[2, M, K]
//     outside the two folds that read both halves (Layout E: cta_group::1
//     .ws; Layout B: cta_group::2 dense);
//   - the MMA is `tcgen05.mma.ws.cta_group::1.kind::<k> [d], a, b, idesc,
//     enable_input_d, zero_column_mask` with a zero mask, where the dense
//     form takes its disable-output-lane vector before the predicate; the
//     instruction descriptor is the dense one (the .ws form has no bit of
//     its own); each MMA's D columns advance by N_mma/2 under the fold.
//
// FlashMLA's sparse_decode_head64.py and sparse_prefill_head64_phase1.py
// accumulate into such folds; sparse_prefill_head128_small_topk_phase1.py
// reads a bank-batched A of datapath B.

import (
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// wsConfig reads config weight_stationary: its truth, and whether it was
// given as Python's False (`config.get("weight_stationary") is False`).
func (g *gemm) wsConfig() (ws, isFalse bool) {
	v, ok := g.c.Config("weight_stationary")
	if !ok {
		return false, false
	}
	n, isC := ir.ConstInt(v)
	if !isC {
		panic(notModelled{"tilels does not model a weight_stationary= that is not a constant"})
	}
	im, isImm := v.(*ir.IntImm)
	return n != 0, n == 0 && isImm && im.Type == ir.BoolT
}

// batchedC takes the batched C[2, M, N/2] region (exts: its three
// extents): M and N, and C's layout read as the packed fold at the
// slice's offset.
func (g *gemm) batchedC(exts []int64) {
	g.M, g.N = exts[1], exts[2]*2
	half := exts[2]
	cs := g.tmemSlice(g.C)
	batched := []layout.Iter{layout.It(2, 64, layout.TLane), layout.It(g.M, 1, layout.TLane), layout.It(half, 1, layout.TCol)}
	structEqual(cs, layout.NewTile(batched, nil, cs.Offset), true)
	packed := []layout.Iter{layout.It(g.M, 1, layout.TLane), layout.It(2, 64, layout.TLane), layout.It(half, 1, layout.TCol)}
	g.cNorm = layout.CanonicalTile(layout.NewTile(packed, nil, cs.Offset))
	if g.ctaGroup == 1 {
		g.ws = true
	}
}

// batchedA checks a bank-batched A[2, M, K] in tensor memory against the
// fold S[(2, M, K):(64@TLane, 1@TLane, 1@TCol)] at its offset and returns
// the extents of the (M, K) matrix.
func (g *gemm) batchedA() []int64 {
	e := g.A.Exts
	as := g.tmemSlice(g.A)
	fold := []layout.Iter{layout.It(2, 64, layout.TLane), layout.It(e[1], 1, layout.TLane), layout.It(e[2], 1, layout.TCol)}
	structEqual(as, layout.NewTile(fold, nil, as.Offset), true)
	return e[1:]
}

// checkWS infers .ws from a packed Layout-E C and raises the reference's
// ValueErrors for the forms the datapaths do not allow (after the
// packed_n2 test, before C's layout check).
func (g *gemm) checkWS(wsFalse bool) {
	if g.packedN2 && !g.is2x2 {
		if wsFalse {
			dispatch.Raise("ValueError", "gemm_async[tcgen05]: C uses the packed (M, 2, N//2):(1@TLane, "+
				"64@TLane, 1@TCol) Layout-E TMEM layout, which is the M=64 "+
				"weight-stationary datapath — but weight_stationary=False was "+
				"passed. Drop the flag (it is inferred from the layout), or "+
				"declare C with the Layout F / identity datapath layout for a "+
				"non-ws M=64 MMA.")
		}
		g.ws = true
	}
	if g.ws && g.ctaGroup == 1 && g.M == 64 && !g.packedN2 && !g.is2x2 {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: weight_stationary .ws (M=64, cta_group::1) writes "+
			"the Layout-E fold (M, 2, N//2):(1@TLane, 64@TLane, 1@TCol), but C is "+
			"declared with the identity / Layout-F layout, so the two banks would be "+
			"read from the wrong lanes. Declare C in the Layout-E (packed) or the "+
			"batched C[2, M, N//2] form for a .ws output, or drop weight_stationary "+
			"for a non-ws (Layout-F) M=64 MMA.")
	}
	if g.aTmem && g.ws && g.ctaGroup == 1 && g.M == 64 && !g.aBatched {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: an M=64 cta_group::1 .ws GEMM with A in TMEM reads "+
			"A from both 64-lane halves (lanes 0-63 and 64-127), but A was given as a "+
			"flat 2D [M, K] tile that only describes lanes 0-63. Declare A in the "+
			"batched A[2, M, K] fold (layout (2, M, K):(64@TLane, 1@TLane, 1@TCol)), "+
			"the A-side dual of the batched C[2, M, N//2] form, so the two-half "+
			"occupancy is explicit and structurally checked.")
	}
	ok := (g.ws && g.ctaGroup == 1 && g.M == 64) || (!g.ws && g.ctaGroup == 2 && g.M == 64)
	if g.aBatched && !ok {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: batched A[2, M, K] is only valid for Layout E "+
			"(cta_group::1 .ws, per-CTA M=64) or Layout B (cta_group::2 dense, "+
			"per-CTA M=64), but got weight_stationary=%s, cta_group=%d, M=%d. Declare A as a flat 2D [M, K] identity "+
			"for any other datapath.", pyBool(g.ws), g.ctaGroup, g.M)
	}
}

// wsOp is the PTX instruction of a .ws MMA (T.ptx[mma_chain]).
func (g *gemm) wsOp() string {
	return "ptx.tcgen05.mma.ws.cta_group::1.kind::" + g.kind
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// explicitTile is 0.26's _get_explicit_mma_tile: config mma_m (the
// instruction M, cluster-wide for cta_group 2) and mma_n, both or
// neither, each a positive integer; nil when neither is given (and under
// 0.25, which ignores them).
func (g *gemm) explicitTile() []int64 {
	if !g.newer() {
		return nil
	}
	vm, hasM := g.c.Config("mma_m")
	vn, hasN := g.c.Config("mma_n")
	if hasM != hasN {
		missing := "mma_m"
		if hasM {
			missing = "mma_n"
		}
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: config fields mma_m and mma_n must be provided together; missing %s", missing)
	}
	if !hasM {
		return nil
	}
	var out []int64
	for _, f := range []struct {
		name string
		v    ir.Expr
	}{{"mma_m", vm}, {"mma_n", vn}} {
		switch v := f.v.(type) {
		case *ir.IntImm:
			if v.Type == ir.BoolT {
				dispatch.Raise("ValueError", "gemm_async[tcgen05]: %s must be a positive integer, got %s", f.name, pyBool(v.Value != 0))
			}
			if v.Value <= 0 {
				dispatch.Raise("ValueError", "gemm_async[tcgen05]: %s must be a positive integer, got %d", f.name, v.Value)
			}
			out = append(out, v.Value)
		case *ir.StringImm:
			dispatch.Raise("ValueError", "gemm_async[tcgen05]: %s must be a positive integer, got %s", f.name, pyStrRepr(v.Value))
		case *ir.FloatImm:
			dispatch.Raise("ValueError", "gemm_async[tcgen05]: %s must be a positive integer, got %s", f.name, pyFloatRepr(v.Value))
		default:
			panic(notModelled{"tilels does not model an " + f.name + "= that is not a constant"})
		}
	}
	return out
}

// validateExplicitTile is _validate_explicit_mma_tile: the per-CTA
// (M_mma, N_mma) of an explicit instruction tile, which must be the whole
// M and divide N, and be a legal instruction shape of the call's kind.
func (g *gemm) validateExplicitTile(mDesc, nMMA int64) (int64, int64) {
	total := g.M * g.ctaGroup
	if mDesc != total {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: explicit mma_m must match the physical "+
			"instruction M derived from the operand/layout tile: got mma_m=%d, "+
			"but M=%d and cta_group=%d require %d. A smaller "+
			"mma_m would select a different TMEM datapath layout.", mDesc, g.M, g.ctaGroup, total)
	}
	if g.N%nMMA != 0 {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: explicit mma_n must divide the derived output N exactly, got mma_n=%d, N=%d", nMMA, g.N)
	}
	kind := denseKind(g.aSem)
	if g.blockScaled {
		kind, _ = blockScaledKind(dtypeName(g.aType), g.sfaType)
	}
	checkDenseShape026(kind, g.ctaGroup, mDesc, nMMA, g.mmaK)
	return mDesc / g.ctaGroup, nMMA
}

// pyStrRepr is Python's repr of a str without quotes or escapes in it.
func pyStrRepr(s string) string { return "'" + s + "'" }

// pyFloatRepr is Python's repr of a float of a short decimal form.
func pyFloatRepr(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}
