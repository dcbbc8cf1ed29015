package copyasync

// tcgen05.ld/st as apache-tvm 0.26.0 (and 0.27.0.post1) plans it
// (copy_async/tcgen05_ldst.py): the TMEM operand is resolved by
// _tmem_window — leading region dims must be points (a staged view's stage
// axis, folded into the column offset by the slice), the row extent must
// be the fragment's, the datapath (D for 128 rows, F for 64) must suit the
// atom (_TMEM_ATOM_COMPAT), the sliced window must be the datapath's layout
// at its offset, and a TLane offset of 16 (a Layout F view of the upper
// 16-lane half of each warp's partition) moves the instruction's row by 16.
// The register-side checks come first (rows 128 for .32x32b; rows and
// columns of the atom for .16x*b). Datapath B (M=64, cta_group::2 "2x2")
// has its dedicated reshape (tcgen05_ldst_b.go).

import (
	"github.com/tilels/tilels/dispatch"
	common "github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// tmemAtomCompat026 is _TMEM_ATOM_COMPAT (missing entries: False).
var tmemAtomCompat026 = map[[2]string]map[int64]bool{
	{"D", "32x32b"}: {128: true},
	{"D", "16x*b"}:  {64: true, 128: true},
	{"F", "16x*b"}:  {64: true},
}

// tmemWindow026 is _tmem_window: the window's column offset (elements)
// and its 16-lane sub-slab (0 or 1).
func tmemWindow026(c *dispatch.Call, argIdx int, r *ir.Region, atom string, fragRows int64) (width int64, colOff ir.Expr, subSlab int64) {
	tb := r.Buf
	tmin, text := regionStartsExtents(c, r)
	n := len(text)
	for d := 0; d < n-2; d++ {
		if text[d] != 1 {
			dispatch.Raise("AssertionError", "tcgen05 ld/st: leading tmem region dims must be points, got extent %d", text[d])
		}
	}
	if text[n-2] != fragRows {
		dispatch.Raise("AssertionError", "tcgen05 ld/st: tmem row extent must be %d, got %d", fragRows, text[n-2])
	}
	width = text[n-1]
	dp := "F"
	if tb.Shape[len(tb.Shape)-2] == 128 {
		dp = "D"
	}
	if !tmemAtomCompat026[[2]string{dp, atom}][fragRows] {
		dispatch.Raise("ValueError", "tcgen05 dispatch: TMEM buffer with datapath='%s' is incompatible with atom='%s' (frag_rows=%d). "+
			"See PTX ISA §9.7.16.10.5 for datapath/atom pairings.", dp, atom, fragRows)
	}
	base := layout.NewTile([]layout.Iter{layout.It(fragRows, 1, layout.TLane), layout.It(width, 1, layout.TCol)}, nil, nil)
	if dp == "F" {
		base = tmemFBase(width)
	}
	g, ok := common.ConstRegion(c, argIdx)
	static := ok && g.Static
	if !static {
		// A runtime start: the column is the region's last start (the
		// slice's TCol offset for these layouts), no leading dims.
		for d := 0; d < n-2; d++ {
			if !isZero(tmin[d]) {
				dispatch.Raise("ValueError", "tcgen05 dispatch: a runtime start of a leading tmem dim is not modelled")
			}
		}
		return width, tmin[n-1], 0
	}
	w, serr := layout.Slice(g.Lay, tb.Shape, g.Bounds)
	if serr != nil {
		dispatch.Raise("TVMError", "%v", serr)
	}
	win, isTile := layout.Canonicalize(w, true).(*layout.TileLayout)
	if !isTile || !layout.Equal(win, layout.CanonicalTile(layout.NewTile(base.Shard, base.Replica, win.Offset))) {
		dispatch.Raise("ValueError", "StructuralEqual check failed: tmem window %s is not %s", w, base)
	}
	lane := win.Offset[layout.TLane]
	if lane != 0 && lane != 16 {
		dispatch.Raise("ValueError", "tcgen05 dispatch: TMEM window has TLane offset %d; only 0 or 16 (the Layout F sub-slab selector) are representable in the PTX row immediate.", lane)
	}
	if lane != 0 && dp != "F" {
		dispatch.Raise("ValueError", "tcgen05 dispatch: datapath='%s' spans both sub-slabs and cannot carry a TLane offset (got %d).", dp, lane)
	}
	return width, common.Cst(win.Offset[layout.TCol]), lane / 16
}

// tmemFBase is tmem_datapath_layout("F", 64, cols).
func tmemFBase(cols int64) *layout.TileLayout {
	return layout.NewTile([]layout.Iter{layout.It(4, 32, layout.TLane), layout.It(16, 1, layout.TLane), layout.It(cols, 1, layout.TCol)}, nil, nil)
}

// plan32x32b026 is 0.26's _emit_32x32b_path.
func plan32x32b026(c *dispatch.Call, argIdx int, tmemR *ir.Region, lb *ir.Buffer, epb int64, lmin []ir.Expr, lext []int64) *ldstPlan {
	assertTVM(lb.Shape[0] == 128)
	width := lext[1]
	if width%epb != 0 {
		dispatch.Raise("ValueError", "Width %d is not valid for tcgen05.ld/st with shape 32x32b", width)
	}
	num := width / epb
	if num < 1 || num > 128 || num&(num-1) != 0 {
		dispatch.Raise("ValueError", "Width %d is not valid for tcgen05.ld/st with shape 32x32b", width)
	}
	tw, off, _ := tmemWindow026(c, argIdx, tmemR, "32x32b", 128)
	assertTVM(isZero(lmin[0]) && lext[0] == 128)
	assertTVM(common.Divisible(off, epb))
	if tw != width {
		dispatch.Raise("AssertionError", "tmem width: %d, width: %d", tw, width)
	}
	return &ldstPlan{shape: "32x32b", num: num, regs: num, slabs: 1, datapath: classifyTmemDatapath(tmemR.Buf),
		col: ir.DivE(off, common.Cst(epb)), regBase: ir.DivE(lmin[1], common.Cst(epb)),
		bytesMoved: 128 * width * int64(lb.Dtype.Bits) / 8}
}

// plan16xNb026 is 0.26's _emit_16xnb_path.
func plan16xNb026(c *dispatch.Call, argIdx int, tmemR *ir.Region, lb *ir.Buffer, shape string, num, rows, epb int64, lmin []ir.Expr, lext []int64) *ldstPlan {
	factor := map[string]int64{"16x64b": 2, "16x128b": 4, "16x256b": 8}[shape]
	perSlab := map[string]int64{"16x64b": num, "16x128b": 2 * num, "16x256b": 4 * num}[shape]
	slabs := rows / 64
	widthElems := factor * num * epb
	if lb.Shape[0] != rows {
		dispatch.Raise("AssertionError", ".16x*b path expects local_buf rows=%d, got %d", rows, lb.Shape[0])
	}
	if lb.Shape[1] != widthElems {
		dispatch.Raise("AssertionError", ".16x*b path expects local_buf cols=%d, got %d", widthElems, lb.Shape[1])
	}
	tw, off, sub := tmemWindow026(c, argIdx, tmemR, "16x*b", rows)
	if sub+slabs > 2 {
		dispatch.Raise("AssertionError", ".16x*b sub_slab=%d with frag_rows=%d exceeds the 2 sub-slabs of each warp's 32-lane TMEM partition", sub, rows)
	}
	assertTVM(isZero(lmin[0]) && lext[0] == rows)
	assertTVM(lext[1] == tw)
	sliceW := lext[1]
	if widthElems%sliceW != 0 {
		dispatch.Raise("AssertionError", "slice width %d must divide atom width %d", sliceW, widthElems)
	}
	assertTVM(common.Divisible(off, epb))
	assertTVM(common.Divisible(lmin[1], epb))
	regBase := ir.DivE(ir.MulE(lmin[1], common.Cst(perSlab)), common.Cst(widthElems))
	return &ldstPlan{shape: shape, num: num * sliceW / widthElems, regs: perSlab * sliceW / widthElems, slabs: slabs,
		datapath: classifyTmemDatapath(tmemR.Buf), col: ir.DivE(off, common.Cst(epb)), regBase: regBase, regStride: perSlab,
		rowBase: 16 * sub, bytesMoved: rows * sliceW * int64(lb.Dtype.Bits) / 8}
}

// classifyDatapathB026 reports a (64, N) TMEM buffer laid out as
// tmem_datapath_layout("B", 64, N): N/2 columns at lanes 0..63, the other
// half at lanes 64..127.
func classifyDatapathB026(tb *ir.Buffer) bool {
	if tb.Layout == nil || len(tb.Shape) != 2 || tb.Shape[0] != 64 || tb.Shape[1]%2 != 0 {
		return false
	}
	b := layout.NewTile([]layout.Iter{layout.It(64, 1, layout.TLane), layout.It(2, 64, layout.TLane), layout.It(tb.Shape[1]/2, 1, layout.TCol)}, nil, nil)
	return layout.Equal(layout.CanonicalTile(layout.ToTile(tb.Layout)), layout.CanonicalTile(b))
}
