package gemmasync

// gemm_async/tcgen05: an asynchronous GEMM C (+)= A @ B on Blackwell tensor
// cores with tcgen05.mma (sm_100a), priority 10, the family's only variant.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/gemm_async/
// tcgen05.py (apache-tvm 0.25.0.post1), with its helpers common.py
// (get_st_extent, smem_desc_add_16B_offset), exec_scope_utils.py
// (single_thread) and tma_utils.py (swizzle atoms):
//
//   - predicate single_thread_or_warp: thread or warp scope, else
//     "unsupported exec_scope T.ExecScope(\"<k>\"), expected single thread
//     or warp scope";
//   - the emitter checks what the reference's impl asserts, in its order,
//     and raises the same exceptions (ValueError for scopes and descriptor
//     matching, AssertionError for dtypes, shapes and layouts);
//   - C lives in tensor memory (fp32), A in shared memory (an SS MMA) or in
//     tensor memory (TS), B in shared memory; a regular MMA takes f16/bf16,
//     a block-scaled one (SFA/SFB given, in tensor memory) fp8 e4m3 or fp4
//     e2m1 with e8m0 / e4m3 scale factors;
//   - the per-instruction tile is (M_mma, N_mma, MMA_K): M_mma*cta_group is
//     the largest of 128/64 (cta_group 1) or 256/128 (cta_group 2) dividing
//     M*cta_group, N_mma = N when N <= 256 (else the largest multiple of
//     8/16 <= 256 dividing N), MMA_K 16 (f16/bf16), 32 (fp8), 64 (fp4);
//   - lowering: the A/B matrix descriptors are encoded from the buffers'
//     origins, then one MMA per (mi, ni, ki), fully unrolled, each with its
//     16-byte descriptor offsets (from the sliced pre-swizzle layouts), its
//     tmem D address, enable_input_d = ki != 0 || accum, and at warp scope
//     an elect.sync guard. The dense instruction descriptor is a constant;
//     the block-scaled one is encoded at run time (and its scale-factor ids
//     patched per MMA when several k-steps share a tmem column). No
//     tcgen05.commit is emitted: the caller commits to an mbarrier.
//
// The descriptors are built where the smem_desc mode says (desc_modes.go):
// by default encoded once right after the shared buffers' declarations
// (sctx.add_post_buffer_def_stmt, dispatch.Result.PostDef). Under 0.25 the
// config keys mma_m, mma_n, weight_stationary and smem_desc of later TVM
// releases are ignored, as the reference ignores them; from 0.26
// weight_stationary and the batched and packed forms of the .ws datapath
// are modelled (tcgen05_ws.go), and so are mma_m / mma_n and the
// smem_desc modes.
//
// As the reference: only C's TCol offset moves the D address (a region
// starting at lane 64 still writes from lane mi*M_mma); the scale-factor
// id comes from SFA's column alone. Where the reference computes a
// block-scaled MMA's scale-factor addresses and ids in let-bound
// temporaries, tilels folds them (constants, or the symbolic start's
// offset). Symbolic region starts are taken through common.SymOffsets
// (a start that selects whole steps of a dimension's iters); others raise.
// The shared-memory descriptor matching (smem_params.go) evaluates the
// atom tiling instead of TVM's structural is_tile_inner.

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

var Tcgen05 = dispatch.Variant{
	Op: "gemm_async", Name: "tcgen05", Target: "cuda", Priority: 10,
	When: []dispatch.Pred{{Name: "single_thread_or_warp", Check: singleThreadOrWarp}},
	Emit: emitTcgen05,
}

func singleThreadOrWarp(c *dispatch.Call) *dispatch.Decline {
	if c.Scope == "thread" || c.Scope == "warp" {
		return nil
	}
	return c.Declinef(common.OpSpan(c), `unsupported exec_scope T.ExecScope("%s"), expected single thread or warp scope`, c.Scope)
}

// gemm is the analysed call.
type gemm struct {
	c                 *dispatch.Call
	warp, blockScaled bool
	C, A, B, SFA, SFB common.Region
	aTmem             bool
	cType, aType      ir.DataType
	bType             ir.DataType
	sfaType, sfbType  string
	transA, transB    bool
	accum             ir.Expr
	ctaGroup          int64
	descI             ir.Expr // config descI, nil when absent

	M, N, K                    int64
	is2x2                      bool
	aDim2, aDim1               int64
	bDim2, bDim1               int64
	aP, bP                     smemParams
	aMN, bMN                   bool
	mmaK, mM, mN               int64
	mTiles, nTiles, kIters     int64
	nPerCTA                    int64
	aSlice, bSlice, cSlice     layout.Layout
	aTile, bTile               *layout.TileLayout
	sfaSlice, sfbSlice         *layout.TileLayout
	sfMMAK                     int64
	sfaK, sfbK                 int64
	sfaEPC, sfbEPC             int64
	tmemOff32                  int64
	tmemLane, aTmemLane        int64  // C's / A's TLane offset (folded into the address from 0.26)
	aSem, bSem                 string // the MMA's A/B dtypes (tf32 for is_AB_tf32 storage, 0.26)
	aTmemOff32, aElemPer32     int64
	aTmemRawOff                int64 // A's TCol offset in elements
	kind                       string
	scaleVec                   int64
	aSym, bSym, sfaSym, sfbSym ir.Expr
	// cSym, aTmemSym: the TCol offsets of symbolic region starts (nil when
	// none) of C and of a tensor-memory A.
	cSym, aTmemSym ir.Expr
	// the weight-stationary forms (tcgen05_ws.go, 0.26 and later): ws the
	// .ws instruction, packedN2 C's Layout-E fold, cNorm a batched C's
	// layout read as that fold (nil when C is not batched), aBatched a
	// bank-batched A[2, M, K] in tensor memory
	ws, packedN2, aBatched bool
	cNorm                  *layout.TileLayout
}

func emitTcgen05(c *dispatch.Call) (res *dispatch.Result, d *dispatch.Decline) {
	defer func() {
		if r := recover(); r != nil {
			nm, ok := r.(notModelled)
			if !ok {
				panic(r) // the reference's exception (dispatch.Raise), or a bug
			}
			res, d = nil, c.Decline(c.Span(), nm.reason)
		}
	}()
	g := &gemm{c: c, warp: c.Scope == "warp"}
	g.analyse()
	return g.emit(), nil
}

// notModelled stops the planner where the reference accepts a form tilels
// does not model: a decline whose reason names tilels, never the
// reference's exception.
type notModelled struct{ reason string }

// dtypeName is TVM's dtype string (the ir names plus the narrow float kinds
// the ir may not know).
func dtypeName(t ir.DataType) string { return t.String() }

func (g *gemm) region(i int) common.Region {
	r, ok := common.ReadRegion(g.c, i)
	if !ok {
		if _, isR := g.c.Region(i); !isR {
			dispatch.Raise("TypeError", "argument %d of gemm_async is not a buffer region", i)
		}
		dispatch.Raise("TVMError", "gemm_async: non-constant region extent in argument %d", i)
	}
	return r
}

func boolArg(c *dispatch.Call, i int) (bool, ir.Expr) {
	if i >= len(c.Tile.Args) || c.Tile.Args[i] == nil {
		return false, nil
	}
	e := c.Tile.Args[i]
	if v, ok := ir.ConstInt(e); ok {
		return v != 0, nil
	}
	return false, e
}

func (g *gemm) analyse() {
	c := g.c
	g.blockScaled = len(c.Tile.Args) > 4 && c.Tile.Args[3] != nil && c.Tile.Args[4] != nil
	g.C, g.A, g.B = g.region(0), g.region(1), g.region(2)
	cs, as, bs := g.C.Buf.Scope, g.A.Buf.Scope, g.B.Buf.Scope
	g.aTmem = as == "tmem"
	if g.aTmem {
		if !(cs == "tmem" && strings.HasPrefix(bs, "shared")) {
			dispatch.Raise("ValueError", "tcgen05 schedule expected C_scope=tmem, B_scope=shared when A is tmem, got C_scope=%s, B_scope=%s", cs, bs)
		}
	} else if !(cs == "tmem" && strings.HasPrefix(as, "shared") && strings.HasPrefix(bs, "shared")) {
		dispatch.Raise("ValueError", "tcgen05 schedule expected C_scope=tmem, A_scope=shared, B_scope=shared, got C_scope=%s, A_scope=%s, B_scope=%s", cs, as, bs)
	}
	g.cType, g.aType, g.bType = g.C.Buf.Dtype, g.A.Buf.Dtype, g.B.Buf.Dtype
	ct, at, bt := dtypeName(g.cType), dtypeName(g.aType), dtypeName(g.bType)
	// The MMA's dtypes: from 0.26, fp32/bf16 storage may multiply as tf32
	// (config is_AB_tf32).
	g.aSem, g.bSem = at, bt
	if g.newer() {
		if v, ok := c.Config("is_AB_tf32"); ok {
			if n, isC := ir.ConstInt(v); isC && n != 0 {
				g.aSem, g.bSem = "tf32", "tf32"
			}
		}
	}
	if ct != "float32" {
		dispatch.Raise("AssertionError", "tcgen05 schedule expected C_type=float32, got %s", ct)
	}
	blockScaledDtypes := []string{"float4_e2m1fn", "float8_e4m3fn"}
	sfDtypes := []string{"float8_e8m0fnu", "float8_e4m3fn"}
	if g.blockScaled {
		if !contains(blockScaledDtypes, at) {
			dispatch.Raise("AssertionError", "tcgen05 block-scaled schedule expected A_type in %s, got %s", pyList(blockScaledDtypes), at)
		}
		if !contains(blockScaledDtypes, bt) {
			dispatch.Raise("AssertionError", "tcgen05 block-scaled schedule expected B_type in %s, got %s", pyList(blockScaledDtypes), bt)
		}
	} else if g.newer() {
		// 0.26: dense fp8 and tf32, checked on the MMA's dtype (A_sem).
		if !contains(denseDtypes026, g.aSem) {
			dispatch.Raise("AssertionError", "tcgen05 schedule expected A dtype in %s, got %s", pyList(denseDtypes026), g.aSem)
		}
		if !contains(denseDtypes026, g.bSem) {
			dispatch.Raise("AssertionError", "tcgen05 schedule expected B dtype in %s, got %s", pyList(denseDtypes026), g.bSem)
		}
	} else {
		if at != "float16" && at != "bfloat16" {
			dispatch.Raise("AssertionError", "tcgen05 schedule expected A_type=float16 or bfloat16, got %s", at)
		}
		if bt != "float16" && bt != "bfloat16" {
			dispatch.Raise("AssertionError", "tcgen05 schedule expected B_type=float16 or bfloat16, got %s", bt)
		}
	}
	if g.newer() {
		if g.aSem != g.bSem {
			dispatch.Raise("AssertionError", "tcgen05 schedule expect A and B MMA dtype to be the same, got A=%s, B=%s", g.aSem, g.bSem)
		}
	} else if at != bt {
		dispatch.Raise("AssertionError", "tcgen05 schedule expect A_type and B_type to be the same, got A_type=%s, B_type=%s", at, bt)
	}
	if g.blockScaled {
		g.SFA, g.SFB = g.region(3), g.region(4)
		sa, sb := g.SFA.Buf.Scope, g.SFB.Buf.Scope
		if !(sa == "tmem" && sb == "tmem") {
			dispatch.Raise("ValueError", "tcgen05 block-scaled schedule expected SFA_scope=tmem, SFB_scope=tmem, got SFA_scope=%s, SFB_scope=%s", sa, sb)
		}
		g.transA, _ = boolArg(c, 5)
		g.transB, _ = boolArg(c, 6)
		g.sfaType, g.sfbType = dtypeName(g.SFA.Buf.Dtype), dtypeName(g.SFB.Buf.Dtype)
		g.sfaEPC, g.sfbEPC = int64(32/g.SFA.Buf.Dtype.Bits), int64(32/g.SFB.Buf.Dtype.Bits)
		if !contains(sfDtypes, g.sfaType) {
			dispatch.Raise("AssertionError", "tcgen05 block-scaled schedule expected SFA_type in %s, got %s", pyList(sfDtypes), g.sfaType)
		}
		if !contains(sfDtypes, g.sfbType) {
			dispatch.Raise("AssertionError", "tcgen05 block-scaled schedule expected SFB_type in %s, got %s", pyList(sfDtypes), g.sfbType)
		}
		ka := sfMMAK(at, g.sfaType)
		kb := sfMMAK(bt, g.sfbType)
		if ka != kb {
			dispatch.Raise("AssertionError", "SFA and SFB must have same sf_mma_k, got sfa=%d, sfb=%d", ka, kb)
		}
		g.sfMMAK = ka
		g.sfaK = g.SFA.Exts[len(g.SFA.Exts)-1]
		g.sfbK = g.SFB.Exts[len(g.SFB.Exts)-1]
		g.sfaSlice = g.sfSlice(g.SFA, "SFA")
		validateSFLayout(g.sfaSlice, g.SFA.Exts[len(g.SFA.Exts)-2], g.sfaK, ka, "SFA")
		g.sfbSlice = g.sfSlice(g.SFB, "SFB")
		validateSFLayout(g.sfbSlice, g.SFB.Exts[len(g.SFB.Exts)-2], g.sfbK, kb, "SFB")
	} else {
		g.transA, _ = boolArg(c, 5)
		g.transB, _ = boolArg(c, 6)
	}
	accumConst, accumExpr := boolArg(c, 7)
	if accumExpr != nil {
		g.accum = accumExpr
	} else {
		g.accum = &ir.IntImm{Value: b2i(accumConst), Type: ir.BoolT}
	}
	g.ctaGroup = 1
	if v, ok := c.Config("cta_group"); ok {
		n, isC := ir.ConstInt(v)
		if !isC || (n != 1 && n != 2) {
			dispatch.Raise("AssertionError", "tcgen05 schedule expected cta_group=1 or 2, got %s", exprText(v))
		}
		g.ctaGroup = n
	}
	wsFalse := false
	if g.newer() {
		g.ws, wsFalse = g.wsConfig()
	}
	if v, ok := c.Config("descI"); ok {
		if g.newer() && !g.blockScaled {
			dispatch.Raise("ValueError", "descI was removed: the dispatcher encodes the instruction descriptor itself")
		}
		g.descI = v
	}

	g.cSlice = g.slice(g.C)
	g.aSlice = g.slice(g.A)
	g.bSlice = g.slice(g.B)
	if !g.aTmem && g.aSlice != nil {
		g.aTile = layout.ToTile(g.aSlice)
	}
	if g.bSlice != nil {
		g.bTile = layout.ToTile(g.bSlice)
	}
	cExts, batched := cMatrixExts(c, g.C.Exts, len(g.A.Exts), len(g.B.Exts)) // tcgen05_c_extent.go
	if batched {
		g.batchedC(cExts) // tcgen05_ws.go
	} else {
		g.M, g.N = cExts[0], cExts[1]
	}
	g.is2x2 = g.M == 64 && g.ctaGroup == 2
	aExts := g.A.Exts
	if g.newer() && g.aTmem && len(aExts) == 3 && aExts[0] == 2 {
		// 0.26's A_batched: the bank-batched A of datapath B (or E)
		g.aBatched = true
		aExts = g.batchedA()
	}
	g.aDim2, g.aDim1 = matDims(aExts, "A")
	g.bDim2, g.bDim1 = matDims(g.B.Exts, "B")

	if g.aTmem {
		if g.transA {
			dispatch.Raise("AssertionError", "tcgen05 schedule: transA must be False when A is in tmem")
		}
	} else {
		g.aP = canonicalParams(g.A, g.aType.Bits, g.transA, g.newer())
		g.aMN = g.aP.mnMajor
	}
	g.bP = canonicalParams(g.B, g.bType.Bits, g.transB, g.newer())
	g.bMN = g.bP.mnMajor
	if g.newer() {
		// 0.26: tf32 is PTX-legal MN-major only with a swizzle the matcher
		// never produces.
		if isTF32(g.aSem) && !g.aTmem && g.aMN {
			dispatch.Raise("ValueError", "gemm_async: tf32 A operand matched an MN-major SMEM layout, which is "+
				"PTX-illegal without 128B-32B-atomicity swizzle support; lay A out K-major (K contiguous) instead")
		}
		if isTF32(g.bSem) && g.bMN {
			dispatch.Raise("ValueError", "gemm_async: tf32 B operand matched an MN-major SMEM layout, which is "+
				"PTX-illegal without 128B-32B-atomicity swizzle support; lay B out K-major (K contiguous) instead")
		}
	}

	if g.transA {
		g.K = g.aDim2
	} else {
		g.K = g.aDim1
	}
	switch {
	case g.aSem == "float4_e2m1fn":
		g.mmaK = 64
	case g.aSem == "float8_e4m3fn" || g.aSem == "float8_e5m2":
		g.mmaK = 32
	case g.newer() && isTF32(g.aSem):
		g.mmaK = 8
	default:
		g.mmaK = 16
	}
	nMin := int64(8)
	if g.ctaGroup == 2 {
		nMin = 16
	}
	if tile := g.explicitTile(); tile == nil {
		g.mM, g.mN = chooseMMATile(g.M, g.N, g.ctaGroup, nMin)
	} else {
		g.mM, g.mN = g.validateExplicitTile(tile[0], tile[1])
	}
	g.mTiles, g.nTiles, g.kIters = g.M/g.mM, g.N/g.mN, g.K/g.mmaK
	g.nPerCTA = g.mN / g.ctaGroup
	if g.K%g.mmaK != 0 {
		dispatch.Raise("AssertionError", "tcgen05 schedule expected K %% %d == 0, got %d", g.mmaK, g.K)
	}
	aM := g.aDim2
	if g.transA {
		aM = g.aDim1
	}
	if aM != g.M {
		dispatch.Raise("AssertionError", "tcgen05: A_M=%d doesn't match M=%d from C region", aM, g.M)
	}
	bK, bN := g.bDim1, g.bDim2
	if g.transB {
		bK, bN = g.bDim2, g.bDim1
	}
	if g.K != bK {
		dispatch.Raise("AssertionError", "tcgen05: A_K=%d doesn't match B_K=%d", g.K, bK)
	}
	if bN*g.ctaGroup != g.N {
		dispatch.Raise("AssertionError", "tcgen05: B_N=%d * cta_group=%d=%d doesn't match N=%d", bN, g.ctaGroup, bN*g.ctaGroup, g.N)
	}
	if g.blockScaled {
		sfaRows := g.SFA.Exts[len(g.SFA.Exts)-2]
		sfbRows := g.SFB.Exts[len(g.SFB.Exts)-2]
		if sfaRows != g.M {
			dispatch.Raise("AssertionError", "tcgen05: SFA rows=%d must equal M=%d", sfaRows, g.M)
		}
		if sfbRows < g.N {
			dispatch.Raise("AssertionError", "tcgen05: SFB rows=%d must be >= N=%d", sfbRows, g.N)
		}
		va := []int64{g.sfMMAK, g.sfMMAK * g.kIters, g.sfMMAK * g.kIters * g.sfaEPC}
		vb := []int64{g.sfMMAK, g.sfMMAK * g.kIters, g.sfMMAK * g.kIters * g.sfbEPC}
		if !containsI(va, g.sfaK) {
			dispatch.Raise("AssertionError", "tcgen05: SFA K extent=%d must be in %s", g.sfaK, pySetRepr(va))
		}
		if !containsI(vb, g.sfbK) {
			dispatch.Raise("AssertionError", "tcgen05: SFB K extent=%d must be in %s", g.sfbK, pySetRepr(vb))
		}
	}

	// C's tensor-memory layout.
	cs2 := g.tmemSlice(g.C)
	if g.cNorm != nil {
		cs2 = g.cNorm
	}
	if g.newer() {
		g.packedN2 = packedN2(cs2, g.M, g.N)
		g.checkWS(wsFalse) // tcgen05_ws.go
	}
	var base *layout.TileLayout
	switch {
	case g.is2x2 || g.packedN2:
		base = layout.NewTile([]layout.Iter{layout.It(g.M, 1, layout.TLane), layout.It(2, 64, layout.TLane), layout.It(g.N/2, 1, layout.TCol)}, nil, nil)
	case g.M == 64 && g.C.Buf.Shape[0] == 64 && g.C.Buf.Layout != nil && matchesDatapathF(g.C.Buf):
		base = datapathF(g.N)
	default:
		base = layout.NewTile([]layout.Iter{layout.It(g.M, 1, layout.TLane), layout.It(g.N, 1, layout.TCol)}, nil, nil)
	}
	structEqual(cs2, layout.NewTile(base.Shard, base.Replica, cs2.Offset), g.newer())
	if g.C.Buf.AllocatedAddr == nil {
		dispatch.Raise("AssertionError", "")
	}
	g.tmemOff32 = cs2.Offset[layout.TCol]
	g.tmemLane = cs2.Offset[layout.TLane]
	if g.aTmem {
		as2 := g.tmemSlice(g.A)
		if g.newer() {
			if !g.aBatched {
				g.checkTmemA026(as2)
			}
		} else {
			ab := layout.NewTile([]layout.Iter{layout.It(g.aDim2, 1, layout.TLane), layout.It(g.aDim1, 1, layout.TCol)}, nil, nil)
			structEqual(as2, layout.NewTile(ab.Shard, ab.Replica, as2.Offset), g.newer())
		}
		if g.A.Buf.AllocatedAddr == nil {
			dispatch.Raise("AssertionError", "TMEM A buffer must have allocated_addr")
		}
		g.aElemPer32 = int64(32 / g.aType.Bits)
		g.aTmemRawOff = as2.Offset[layout.TCol]
		g.aTmemLane = as2.Offset[layout.TLane]
		g.aTmemOff32 = floorDiv(g.aTmemRawOff, g.aElemPer32)
	}
	g.aSym = symM(g.A, g.aTmem)
	g.bSym = symM(g.B, false)
	g.cSym = symAxis(g.C, layout.TCol)
	if g.aTmem {
		g.aTmemSym = symAxis(g.A, layout.TCol)
	}
	if g.blockScaled {
		g.sfaSym = symAxis(g.SFA, layout.TCol)
		g.sfbSym = symAxis(g.SFB, layout.TCol)
	}

	// The MMA kind (TVM's _TCGEN05_MMA_RULES for the dtypes at hand).
	if g.blockScaled {
		g.kind, g.scaleVec = blockScaledKind(at, g.sfaType)
	} else {
		g.kind = denseKind(g.aSem)
	}
}

// newer is whether the call models 0.26.0 or later (tcgen05.py's dense fp8
// / tf32, the folded tmem addresses and their texts).
func (g *gemm) newer() bool { return g.c.Target.Release >= release.R026 }

// checkTmemA026 is 0.26's and 0.27's check of an A operand in tensor
// memory: its sliced layout must be what tmem_mma_operand_layout("A",
// (rows, K), M=M*cta_group, cta_group) resolves (tmem_pool.alloc_tcgen05_mma_A's
// layout) at the slice's offset. That is the identity S[(rows, K):(1@TLane,
// 1@TCol)] for the datapaths D (M=128), F (M=64), A (M=256, cta_group 2),
// and for B (M=128, cta_group 2) the identity with the replica R[2:64@TLane]
// (the A of one CTA read by both 64-lane halves): FlashMLA's
// sparse_prefill_head128_phase1.py, whose A tmem 0.25's identity check
// refused with a StructuralEqual error the later releases do not raise.
func (g *gemm) checkTmemA026(as *layout.TileLayout) {
	instrM, cg := g.M*g.ctaGroup, g.ctaGroup
	if g.ws && !(cg == 1 && instrM == 64) {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: invalid TMEM A layout: alloc_tcgen05_mma_AB: ws=True only valid for cta_group=1, M=64 (Layout E); got M=%d, cta_group=%d", instrM, cg)
	}
	var dp string
	switch {
	case cg == 1 && instrM == 128:
		dp = "D"
	case cg == 1 && instrM == 64:
		dp = "F"
	case cg == 2 && instrM == 256:
		dp = "A"
	case cg == 2 && instrM == 128:
		dp = "B"
	default:
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: invalid TMEM A layout: alloc_tcgen05_mma_AB: no supported datapath for M=%d, cta_group=%d, ws=%s (supported: cta1 M in {64,128}, cta2 M in {128,256})", instrM, cg, pyBool(g.ws))
	}
	if g.aDim2 != g.M {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: invalid TMEM A layout: alloc_mma_A: M=%d, cta_group=%d expects per-CTA rows %d, got %d (shape [%d, %d])", instrM, cg, g.M, g.aDim2, g.aDim2, g.aDim1)
	}
	var replica []layout.Iter
	if dp == "B" {
		replica = []layout.Iter{layout.It(2, 64, layout.TLane)}
	}
	want := layout.NewTile([]layout.Iter{layout.It(g.aDim2, 1, layout.TLane), layout.It(g.aDim1, 1, layout.TCol)}, replica, as.Offset)
	if !layout.Equal(layout.CanonicalTile(as), layout.CanonicalTile(want)) {
		dispatch.Raise("ValueError", "gemm_async[tcgen05]: TMEM A layout does not match tmem_pool.alloc_tcgen05_mma_A semantic layout")
	}
}

// packedN2 is 0.26's packed_n2: an M=64 C whose sliced layout is the
// Layout-E fold (M, 2, N/2):(1@TLane, 64@TLane, 1@TCol) at its offset, the
// cta_group::1 M=64 .ws datapath (PTX 9.7.16.10.5). FlashMLA's
// sparse_decode_head64.py accumulates into such a C; tilels gave the
// StructuralEqual error of the identity layout, which the reference does
// not raise.
func packedN2(cs *layout.TileLayout, m, n int64) bool {
	if m != 64 || n%2 != 0 {
		return false
	}
	packed := layout.NewTile([]layout.Iter{layout.It(m, 1, layout.TLane), layout.It(2, 64, layout.TLane), layout.It(n/2, 1, layout.TCol)}, nil, cs.Offset)
	return layout.Equal(layout.CanonicalTile(cs), layout.CanonicalTile(packed))
}

// denseDtypes026 is 0.26's _DENSE_DTYPES.
var denseDtypes026 = []string{"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "tensor_float32", "tf32"}

func isTF32(dt string) bool { return dt == "tf32" || dt == "tensor_float32" }

// denseKind is _get_tcgen05_mma_kind("float32", a, b) for the dense dtypes
// (a == b): f16 for f16/bf16, tf32, f8f6f4 for fp8.
func denseKind(a string) string {
	switch {
	case isTF32(a):
		return "tf32"
	case a == "float8_e4m3fn" || a == "float8_e5m2":
		return "f8f6f4"
	}
	return "f16"
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// slice is buf.layout.slice(shape, region) (the region's symbolic starts at 0).
func (g *gemm) slice(r common.Region) layout.Layout {
	if r.Buf.Layout == nil {
		dispatch.Raise("AttributeError", "'NoneType' object has no attribute 'slice'")
	}
	l, err := layout.Slice(r.Buf.Layout, r.Buf.Shape, r.Bounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	return l // nil when the region is not representable (TVM: None)
}

// tmemSlice is the sliced tensor-memory layout of r; TVM reads its offset
// first, so an unrepresentable slice (None) fails there.
func (g *gemm) tmemSlice(r common.Region) *layout.TileLayout {
	l := g.slice(r)
	if l == nil {
		dispatch.Raise("AttributeError", "'NoneType' object has no attribute 'offset'")
	}
	t, ok := l.(*layout.TileLayout)
	if !ok {
		dispatch.Raise("AssertionError", "tensor-memory layout of %s must be a TileLayout", r.Buf.Name)
	}
	return t
}

// sfSlice is the sliced scale-factor layout (nil or a ComposeLayout fail
// in validateSFLayout, as TVM's isinstance assertion).
func (g *gemm) sfSlice(r common.Region, name string) *layout.TileLayout {
	l := g.slice(r)
	switch l := l.(type) {
	case *layout.TileLayout:
		return l
	case nil:
		dispatch.Raise("AssertionError", "%s: sliced layout must be TileLayout, got <class 'NoneType'>", name)
	default:
		dispatch.Raise("AssertionError", "%s: sliced layout must be TileLayout, got <class 'tvm.tirx.layout.ComposeLayout'>", name)
	}
	return nil
}

// symM is the "m" offset contributed by the symbolic starts of a shared
// region (nil when none).
func symM(r common.Region, tmem bool) ir.Expr {
	if tmem || r.Static {
		return nil
	}
	off, ok := common.SymOffsets(r)
	if !ok {
		dispatch.Raise("TVMError", "gemm_async: tilels cannot slice %s at a symbolic start here", r.Buf.Name)
	}
	return off[layout.M]
}

// symAxis is the offset along axis contributed by the symbolic starts of a
// region (nil when none).
func symAxis(r common.Region, axis *layout.Axis) ir.Expr {
	if r.Static {
		return nil
	}
	off, ok := common.SymOffsets(r)
	if !ok {
		dispatch.Raise("TVMError", "gemm_async: tilels cannot slice %s at a symbolic start here", r.Buf.Name)
	}
	return off[axis]
}

func matDims(ext []int64, name string) (int64, int64) {
	var vals []int64
	for _, e := range ext {
		if e != 1 {
			vals = append(vals, e)
		}
	}
	if len(vals) != 2 {
		dispatch.Raise("AssertionError", "Expected exactly 2 non-unit dims in %s_extent %s", name, intList(ext))
	}
	return vals[0], vals[1]
}

// chooseMMATile is _choose_mma_tile.
func chooseMMATile(m, n, ctaGroup, nMin int64) (int64, int64) {
	total := m * ctaGroup
	valid := []int64{128, 64}
	if ctaGroup == 2 {
		valid = []int64{256, 128}
	}
	mDesc := int64(0)
	for _, v := range valid {
		if total%v == 0 {
			mDesc = v
			break
		}
	}
	if mDesc == 0 {
		dispatch.Raise("AssertionError", "tcgen05: M_total=%d (M=%d, cta_group=%d) not divisible by any valid descriptor M (valid: %s)", total, m, ctaGroup, intList(valid))
	}
	nm := int64(0)
	if n <= 256 && n%nMin == 0 {
		nm = n
	} else {
		for v := int64(256); v > nMin-1; v -= nMin {
			if n%v == 0 {
				nm = v
				break
			}
		}
		if nm == 0 {
			dispatch.Raise("AssertionError", "tcgen05: No valid N_mma <= 256 that divides N=%d (MMA_N_MIN=%d)", n, nMin)
		}
	}
	return mDesc / ctaGroup, nm
}

// sfMMAK is _compute_sf_mma_k.
func sfMMAK(data, sf string) int64 {
	switch data {
	case "float8_e4m3fn", "float8_e5m2":
		return 1
	case "float4_e2m1fn":
		switch sf {
		case "float8_e8m0fnu":
			return 2
		case "float8_e4m3fn":
			return 4
		}
	}
	dispatch.Raise("ValueError", "Unsupported data_dtype=%s, sf_dtype=%s for sf_mma_k", data, sf)
	return 0
}

// blockScaledKind is _get_tcgen05_mma_kind with scale factors, and the
// scale vector size (0 when the codegen would reject the pair).
func blockScaledKind(a, sf string) (string, int64) {
	switch {
	case a == "float4_e2m1fn" && sf == "float8_e8m0fnu":
		return "mxf4", 2
	case a == "float4_e2m1fn" && sf == "float8_e4m3fn":
		return "mxf4nvf4", 4
	case a == "float8_e4m3fn" && sf == "float8_e8m0fnu":
		return "mxf8f6f4", 1
	}
	return "", 0
}

// validateSFLayout is _validate_sf_tmem_layout: the sliced scale-factor
// layout must be the atom S[(32, sf_mma_k):(1@TLane, 1@TCol)] +
// R[4:32@TLane] direct-summed with an outer layout over [rows/32,
// K_total/sf_mma_k]. tilels checks it by evaluation: the replica, then at
// every (row, k) layout(row, k) = outer(row/32, k/sf) + (row%32)@TLane +
// (k%sf)@TCol with outer read at the atom origins.
func validateSFLayout(l *layout.TileLayout, rows, kTotal, sfK int64, name string) {
	if kTotal%sfK != 0 {
		dispatch.Raise("AssertionError", "%s: sf_K_total=%d must be divisible by sf_mma_k=%d", name, kTotal, sfK)
	}
	if rows/32 == 0 {
		// The interleaved domain [rows/32, 32, K, sf_mma_k] has an empty
		// dimension: TVM's is_direct_sum_right divides by it.
		dispatch.Raise("InternalError", "Check failed: pb->value != 0 (0 vs. 0) : Divide by zero")
	}
	fail := func() {
		dispatch.Raise("AssertionError", "%s: layout does not match atom direct_sum outer pattern", name)
	}
	rep := layout.CanonicalTile(l).Replica
	if len(rep) != 1 || rep[0].Extent != 4 || rep[0].Stride != 32 || rep[0].Axis != layout.TLane || rows%32 != 0 {
		fail()
	}
	if !sfLayoutMatches(l, rows, kTotal, sfK) {
		fail()
	}
}

// sfLayoutMatches is validateSFLayout's check of every (row, k) after the
// replica's: no axis but TLane and TCol is non-zero, and layout(row, k) =
// layout(row/32*32, k/sf*sf) + (row%32)@TLane + (k%sf)@TCol. The elements
// are walked in order (index row*kTotal + k), each axis carried digit by
// digit (layout.AxisRun), and the atom origins are read once per block:
// applying the layout through a map per element, twice, was 41 % of a
// keystroke's CPU in nvfp4_gemm.py (p50 12 ms warm, 28 ms cold).
func sfLayoutMatches(l *layout.TileLayout, rows, kTotal, sfK int64) bool {
	if rows <= 0 || kTotal <= 0 {
		return true
	}
	// The axes of Apply's result: every shard axis and every offset axis.
	var others []*layout.Axis
	seen := map[*layout.Axis]bool{layout.TLane: true, layout.TCol: true}
	note := func(a *layout.Axis) {
		if !seen[a] {
			seen[a] = true
			others = append(others, a)
		}
	}
	for _, it := range l.Shard {
		note(it.Axis)
	}
	for a := range l.Offset {
		note(a)
	}
	lane, col := layout.NewAxisRun(l, layout.TLane), layout.NewAxisRun(l, layout.TCol)
	runs := make([]*layout.AxisRun, len(others))
	for i, a := range others {
		runs[i] = layout.NewAxisRun(l, a)
	}
	// The origins' lane and column, per block of 32 rows and sf columns.
	kBlocks := kTotal / sfK
	origin := make([][2]int64, (rows/32)*kBlocks)
	for rb := range rows / 32 {
		for kb := range kBlocks {
			x := rb*32*kTotal + kb*sfK
			origin[rb*kBlocks+kb] = [2]int64{l.ApplyAxis(x, layout.TLane), l.ApplyAxis(x, layout.TCol)}
		}
	}
	for r := range rows {
		for k := range kTotal {
			for _, run := range runs {
				if run.Value() != 0 {
					return false
				}
				run.Next()
			}
			o := origin[(r/32)*kBlocks+k/sfK]
			if lane.Value() != o[0]+r%32 || col.Value() != o[1]+k%sfK {
				return false
			}
			lane.Next()
			col.Next()
		}
	}
	return true
}

// datapathF is tmem_datapath_layout("F", 64, n).
func datapathF(n int64) *layout.TileLayout {
	return layout.NewTile([]layout.Iter{layout.It(4, 32, layout.TLane), layout.It(16, 1, layout.TLane), layout.It(n, 1, layout.TCol)}, nil, nil)
}

func matchesDatapathF(b *ir.Buffer) bool {
	t, ok := b.Layout.(*layout.TileLayout)
	if !ok || len(b.Shape) != 2 {
		return false
	}
	return layout.Equal(layout.CanonicalTile(t), layout.CanonicalTile(datapathF(b.Shape[1])))
}

// structEqual is tvm.ir.assert_structural_equal(a.canonicalize(),
// b.canonicalize()), raising the reference's ValueError
// (common.StructuralEqualMessage).
func structEqual(a, b *layout.TileLayout, newer bool) {
	if msg := common.StructuralEqualMessage(a, b, newer); msg != "" {
		dispatch.Raise("ValueError", "%s", msg)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func containsI(xs []int64, v int64) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func pyList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func intList(xs []int64) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// pySetRepr prints a Python set of small non-negative ints in CPython's
// iteration order (the hash-table slot order of set_add_entry: table of 8
// slots, slot i = hash & 7, then i = (5*i + 1 + perturb) & 7 with perturb
// >>= 5 before each retry).
func pySetRepr(xs []int64) string {
	var table [8]int64
	var used [8]bool
	n := 0
	for _, x := range xs {
		dup := false
		for i := range used {
			if used[i] && table[i] == x {
				dup = true
			}
		}
		if dup {
			continue
		}
		i := uint64(x) & 7
		perturb := uint64(x)
		for used[i] {
			perturb >>= 5
			i = (i*5 + 1 + perturb) & 7
		}
		table[i], used[i] = x, true
		n++
	}
	var q []string
	for i := range table {
		if used[i] {
			q = append(q, fmt.Sprint(table[i]))
		}
	}
	return "{" + strings.Join(q, ", ") + "}"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

var noSpan = source.NoSpan
