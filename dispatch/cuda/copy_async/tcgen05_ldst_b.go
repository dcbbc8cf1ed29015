package copyasync

// Datapath B of tcgen05.ld/st (0.26 and later, tcgen05_ldst.py
// _emit_datapath_b_path): a (64, N) accumulator of a cta_group::2 M=64 MMA,
// laid out as tmem_datapath_layout("B", 64, N) — columns 0..N/2 at lanes
// 0..63, the other half at lanes 64..127 — is one physical (128, N/2)
// .32x32b transfer. Thread t of the warpgroup holds row t % 64 of the
// logical tile, columns (t / 64) * N/2 .. + N/2: the register fragment
// must be tcgen05_atom_layout("32x32b", (64, N), "float32"),
// S[(64, 2, N/2):(1@tid_in_wg, 64@tid_in_wg, 1)]. Only fp32 and only the
// whole tile on both sides are accepted, each refusal with the reference's
// ValueError. One tcgen05.{ld,st}.sync.aligned.32x32b.x(N/2).b32 per warp
// at the buffer's address (row and column 0), its registers the
// fragment's N/2 32-bit cells in order. FlashMLA's
// sparse_prefill_head128_phase1.py and test_tcgen05_ldst.py read their
// cta_group::2 M=64 accumulators this way.

import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// reps32x32b is PTX Table 49's .num set of .32x32b.
var reps32x32b = []int64{1, 2, 4, 8, 16, 32, 64, 128}

func planDatapathB026(c *dispatch.Call, tmemR, localR *ir.Region, lb *ir.Buffer, epb int64) *ldstPlan {
	if epb != 1 {
		dispatch.Raise("ValueError", "datapath B readback expects an fp32 fragment (32-bit cells), got dtype=%s", pyDtypeRepr(lb.Dtype))
	}
	if lb.Shape[0] != 64 {
		dispatch.Raise("ValueError", "datapath B (.cta_group::2 M=64) fragment must be (64, N); a "+
			"128-row .32x32b fragment reads the wrong region. Got rows=%d. "+
			"Allocate it with T.alloc_tcgen05_ldst_frag('32x32b', (64, N), 'float32').", lb.Shape[0])
	}
	n := lb.Shape[1]
	if n%2 != 0 {
		dispatch.Raise("ValueError", "tcgen05_atom_layout: 32x32b (64, N) datapath B image expects even N, got %d", n)
	}
	half := n / 2
	inReps := false
	for _, r := range reps32x32b {
		inReps = inReps || r == half
	}
	if !inReps {
		dispatch.Raise("ValueError", "tcgen05_atom_layout: 32x32b (64, N) datapath B image needs N/2=%d "+
			"(from N=%d) in the PTX Table 49 set (1, 2, 4, 8, 16, 32, 64, 128)", half, n)
	}
	want := layout.NewTile([]layout.Iter{layout.It(64, 1, layout.TidInWG), layout.It(2, 64, layout.TidInWG), layout.It(half, 1, layout.M)}, nil, nil)
	if msg := common.StructuralEqualMessage(layout.ToTile(lb.Layout), want, true); msg != "" {
		dispatch.Raise("ValueError", "datapath B (.cta_group::2 M=64) requires a matching Layout B "+
			"register fragment. Allocate it with "+
			"T.alloc_tcgen05_ldst_frag('32x32b', (64, N), 'float32'); a "+
			".16x*b fragment reads the wrong physical lanes and columns. "+
			"(fragment layout mismatch: %s)", msg)
	}
	tmin, text := regionStartsExtents(c, tmemR)
	lmin, lext := regionStartsExtents(c, localR)
	if len(text) < 2 || !isZero(tmin[0]) || !isZero(tmin[1]) || text[0] != 64 || text[1] != n {
		dispatch.Raise("ValueError", "datapath B copy must cover the full (64, N) TMEM buffer")
	}
	if !isZero(lmin[0]) || !isZero(lmin[1]) || lext[0] != 64 || lext[1] != n {
		dispatch.Raise("ValueError", "datapath B copy must cover the full (64, N) register fragment")
	}
	return &ldstPlan{shape: "32x32b", num: half, regs: half, slabs: 1,
		datapath: fmt.Sprintf("B (64, %d): columns 0..%d at lanes 0..63, %d..%d at lanes 64..127", n, half-1, half, n-1),
		col:      common.Cst(0), regBase: common.Cst(0), bytesMoved: 64 * n * 4}
}

// pyDtypeRepr is repr() of a TVM buffer's dtype as the reference's message
// prints it (0.26 and 0.27: a tvm_ffi dtype, dtype('float16')).
func pyDtypeRepr(t ir.DataType) string { return "dtype('" + t.String() + "')" }
