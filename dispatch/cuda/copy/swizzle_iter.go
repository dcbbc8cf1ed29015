package copy

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"math/bits"
	"slices"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The swizzle fast path of spec §4.1.1 (TVM copy/_swizzle_iter.py, PRE and
// SEED; removed at HEAD). When every outer iteration of a copy only flips
// chunk-index bits that the swizzle treats linearly, the swizzled address
// of iteration k is base_off + Σ_{bit j of k set} signed_strides[j], with
// base_off and signed_strides computed once per thread.
//
// Deviation: TVM proves condition (C1) symbolically with arith.Analyzer;
// tilels checks it exhaustively over the thread placeholder's range (the
// offset template is a function of one bounded thread index), which is
// exact. The fast path therefore fires whenever TVM's does, and possibly
// in a few cases TVM's analyzer cannot prove; both forms compute the same
// addresses.

type swizzleIter struct {
	ext       int64
	linear    bool  // a LinearIter: c*stride, stride a multiple of the period
	stride    int64 // linear only
	nBits     int   // BitIter only
	slotStart int   // BitIter only
}

type swizzlePattern struct {
	sw          *layout.ComposeLayout
	bitPos      []int   // bj per binary slot
	slotStrides []int64 // element stride per binary slot (2^(bj+p))
	iters       []swizzleIter
}

func isPow2(n int64) bool { return n > 0 && n&(n-1) == 0 }

func log2(n int64) int { return bits.Len64(uint64(n)) - 1 }

// tryRecognize is TVM try_recognize. offsets lists every value the
// per-thread base offset template takes over the thread range.
func tryRecognize(sw *layout.ComposeLayout, exts, strides []int64, offsets []int64) *swizzlePattern {
	if !sw.SwizzleInner {
		return nil
	}
	p, s, at := sw.PerElement, sw.SwizzleLen, sw.AtomLen
	C := int64(1) << p
	pure1D := int64(1) << (p + at + s)
	pat := &swizzlePattern{sw: sw}
	for i, ext := range exts {
		stride := strides[i]
		if stride == 0 || stride%C != 0 || ext <= 0 {
			return nil
		}
		if ext == 1 {
			continue
		}
		if !isPow2(ext) {
			if stride%pure1D != 0 {
				return nil
			}
			pat.iters = append(pat.iters, swizzleIter{ext: ext, linear: true, stride: stride})
			continue
		}
		k := log2(ext)
		start := len(pat.bitPos)
		for j := k - 1; j >= 0; j-- {
			sub := stride << j
			dq := sub / C
			if !isPow2(dq) {
				return nil
			}
			pat.bitPos = append(pat.bitPos, log2(dq))
			pat.slotStrides = append(pat.slotStrides, sub)
		}
		pat.iters = append(pat.iters, swizzleIter{ext: ext, nBits: k, slotStart: start})
	}
	seen := map[int]bool{}
	for _, b := range pat.bitPos {
		if seen[b] {
			return nil
		}
		seen[b] = true
	}
	for b := range seen { // (C2)
		if b >= at && b < at+s && seen[b-at] {
			return nil
		}
	}
	for b := range seen { // (C1), exhaustively
		div := C << b
		for _, o := range offsets {
			if FloorMod(FloorDiv(o, div), 2) != 0 {
				return nil
			}
		}
	}
	return pat
}

func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

// swizzleState is the per-thread setup emitted by emitInit.
type swizzleState struct {
	base ir.Expr    // *ir.Var bound to swizzle(s_off)
	ss   *ir.Buffer // signed strides, nil when there are no binary iters
}

// emitInit is TVM emit_init: it returns the setup statements and state.
func emitInit(pat *swizzlePattern, sOff ir.Expr, span source.Span) ([]ir.Stmt, swizzleState) {
	sw := pat.sw
	p, s, at := int64(sw.PerElement), sw.SwizzleLen, sw.AtomLen
	baseVar := &ir.Var{Name: "base_off", Type: ir.Int32, Span: span}
	stmts := []ir.Stmt{&ir.Let{Var: baseVar, Value: common.SwizzleExpr(sw, sOff), Span: span}}
	st := swizzleState{base: baseVar}
	n := len(pat.bitPos)
	if n == 0 {
		return stmts, st
	}
	buf := &ir.Buffer{Name: "signed_strides", Shape: []int64{int64(n)}, Dtype: ir.Int32, Scope: "local",
		Layout: layout.RowMajor(int64(n)), Kind: ir.AllocBuffer, Span: span}
	buf.Data = &ir.Var{Name: "signed_strides_ptr", Type: ir.HandleT, Span: span}
	st.ss = buf
	stmts = append(stmts, &ir.Alloc{Buf: buf, Span: span})
	qVar := &ir.Var{Name: "q", Type: ir.Int32, Span: span}
	stmts = append(stmts, &ir.Let{Var: qVar, Value: ir.DivE(sOff, common.Cst(int64(1)<<p)), Span: span})
	sigma := func(bit int) ir.Expr { // 1 - 2*((q >> bit) & 1)
		b := ir.Bin(ir.BitAnd, shr(qVar, bit), common.Cst(1))
		return ir.Bin(ir.Sub, common.Cst(1), ir.Bin(ir.Mul, b, common.Cst(2)))
	}
	for j, bj := range pat.bitPos {
		t := pat.slotStrides[j]
		var v ir.Expr
		switch {
		case bj < s:
			v = ir.Bin(ir.Mul, sigma(at+bj), common.Cst(t))
		case bj < at:
			v = common.Cst(t)
		case bj < at+s:
			v = ir.Bin(ir.Add, common.Cst(t), ir.Bin(ir.Mul, sigma(bj-at), common.Cst(t>>at)))
		default:
			v = common.Cst(t)
		}
		stmts = append(stmts, &ir.Store{Buf: buf, Indices: []ir.Expr{common.Cst(int64(j))}, Value: v, Span: span})
	}
	return stmts, st
}

// emitIterOffset is TVM emit_iter_offset for a (possibly symbolic) flat
// outer index k.
func emitIterOffset(pat *swizzlePattern, st swizzleState, k ir.Expr, span source.Span) ir.Expr {
	off := st.base
	rem := k
	its := slices.Clone(pat.iters)
	slices.Reverse(its)
	for _, it := range its { // innermost first
		c := ir.ModE(rem, common.Cst(it.ext))
		rem = ir.DivE(rem, common.Cst(it.ext))
		if it.linear {
			off = ir.AddE(off, ir.MulE(c, common.Cst(it.stride)))
			continue
		}
		for b := 0; b < it.nBits; b++ {
			bitPos := it.nBits - 1 - b
			slot := common.Cst(int64(it.slotStart + b))
			load := &ir.Load{Buf: st.ss, Indices: []ir.Expr{slot}, Span: span}
			if cv, ok := ir.ConstInt(c); ok {
				if (cv>>bitPos)&1 == 1 {
					off = ir.AddE(off, load)
				}
				continue
			}
			bit := ir.Bin(ir.BitAnd, shr(c, bitPos), common.Cst(1))
			off = ir.AddE(off, ir.Bin(ir.Mul, bit, load))
		}
	}
	return off
}

// shr is x >> n, or x itself for n == 0.
func shr(x ir.Expr, n int) ir.Expr {
	if n == 0 {
		return x
	}
	return ir.Bin(ir.Shr, x, common.Cst(int64(n)))
}
