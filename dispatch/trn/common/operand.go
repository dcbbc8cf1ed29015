package common

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
)

// Operand is a tile-call operand: a region or a float constant (TVM
// TensorRegion | FloatImm). Absent operands have neither.
type Operand struct {
	Region *Region
	Const  *ir.FloatImm
	Absent bool
}

// ReadOperand reads argument i of c. An integer or other scalar, which
// the reference would pass on as a PrimExpr its schedules do not expect,
// is Unmodelled.
func ReadOperand(c *dispatch.Call, an *Analyzer, i int) Operand {
	if i >= len(c.Tile.Args) || c.Tile.Args[i] == nil {
		return Operand{Absent: true}
	}
	switch x := c.Tile.Args[i].(type) {
	case *ir.Region:
		return Operand{Region: FromRegion(an, x)}
	case *ir.FloatImm:
		return Operand{Const: x}
	}
	Unmodelled("operand %d of %s (%s), which is neither a buffer region nor a float constant", i, c.Tile.Op, dispatch.ExprText(c.Tile.Args[i]))
	return Operand{}
}

// proveEq is can_prove(a == b) on affine forms.
func proveEq(a, b Aff) bool { return Equal(a, b) }

// proveNe is can_prove(a != b) with the analyzer's two proofs for an
// affine difference d: its constant bounds exclude 0, or its modular set
// (gcd of the coefficients, constant) never holds 0.
func proveNe(an *Analyzer, a, b Aff) bool {
	d := a.add(b, -1)
	if c, ok := d.Const(); ok {
		return c != 0
	}
	if lo, ok := an.Min(d); ok && lo > 0 {
		return true
	}
	if hi, ok := an.Max(d); ok && hi < 0 {
		return true
	}
	g := int64(0)
	for _, c := range d.Coef {
		g = gcd(g, c)
	}
	return g != 0 && d.C%g != 0
}

var one = Aff{C: 1}

// InstType is binary/utils.InstType.
type InstType int

const (
	TensorTensor InstType = iota
	TensorScalar
)

// TryNary is binary/utils.try_find_inst_nary: srcs are two or three
// operands (regions or constants); it returns the instruction, one type
// per source after the first... as the reference: one per source, the
// first source's none, and whether the first two were swapped.
func TryNary(an *Analyzer, g *Gen, dst *Region, srcs []Operand, allowFirstTT bool, allowedDst ...int) (*Inst, []InstType, bool) {
	srcs = append([]Operand(nil), srcs...)
	Assert(!(srcs[0].Const != nil && srcs[1].Const != nil), "Nary operation does not support taking all FloatImm sources")
	Assert(len(srcs) >= 2 && len(srcs) <= 3, "Only 2-3 sources are supported for nary operation")
	reverse := false
	if srcs[0].Const != nil {
		srcs[0], srcs[1] = srcs[1], srcs[0]
		reverse = true
	}
	dl := dst.Layout()
	valid := dl != nil && IsTrainiumLayout(dl) && dst.Scope() == "trn.sbuf"
	for _, s := range srcs {
		if s.Region == nil {
			continue
		}
		l := s.Region.Layout()
		valid = valid && l != nil && IsTrainiumLayout(l) && (s.Region.Scope() == "trn.sbuf" || s.Region.Scope() == "trn.psum")
	}
	if !valid {
		Unmodelled("the text of the reference's ValueError \"Invalid buffer region\" (it prints the regions)")
	}
	if srcs[1].Const == nil {
		e0, e1 := srcs[0].Region.ExtAff, srcs[1].Region.ExtAff
		n := min(len(e0), len(e1))
		t0, t1 := e0[len(e0)-n:], e1[len(e1)-n:]
		all := func(f func(a, b Aff) bool) bool {
			for k := range t0 {
				if !f(t0[k], t1[k]) {
					return false
				}
			}
			return true
		}
		allOne := func(es []Aff) bool {
			for _, e := range es {
				if !proveEq(e, one) {
					return false
				}
			}
			return true
		}
		switch {
		case all(proveEq):
			if len(e0) < len(e1) && !allOne(e1[:len(e1)-n]) {
				srcs[0], srcs[1] = srcs[1], srcs[0]
				reverse = true
			}
		case all(func(a, b Aff) bool { return proveEq(a, b) || proveEq(a, one) }):
			srcs[0], srcs[1] = srcs[1], srcs[0]
			reverse = true
			// srcs[0] is now the old src1: the reference checks the old
			// src0's leading extents (its variable names were swapped).
			if !(n == len(e0) || allOne(e0[:len(e0)-n])) {
				Assert(false, "Shape mismatch: src0: %s, src1: %s", RegionText(srcs[0].Region), RegionText(srcs[1].Region))
			}
		case all(func(a, b Aff) bool { return proveEq(a, b) || proveEq(b, one) }):
			if !(n == len(e1) || allOne(e1[:len(e1)-n])) {
				Assert(false, "Shape mismatch: src0: %s, src1: %s", RegionText(srcs[0].Region), RegionText(srcs[1].Region))
			}
		default:
			dispatch.Raise("ValueError", "Shape mismatch: src0: %s, src1: %s", RegionText(srcs[0].Region), RegionText(srcs[1].Region))
		}
	}
	s0 := srcs[0].Region
	Assert(SameExtents(s0.NonUnit(), dst.NonUnit()), "the larger between src0 and src1 must have the same shape as dst")
	g.Link(dst, s0, EwiseDimMap(dst, s0))
	for _, s := range srcs[1:] {
		if s.Region == nil {
			continue
		}
		se, s0e := s.Region.ExtAff, s0.ExtAff
		if len(se) > len(s0e) {
			ok := true
			for i := 0; i < len(se)-len(s0e); i++ {
				ok = ok && proveEq(se[i], one)
			}
			Assert(ok, "")
		}
		var bcast []int
		for i := 1; i <= min(len(se), len(s0e)); i++ {
			a, b := se[len(se)-i], s0e[len(s0e)-i]
			if proveNe(an, a, one) && proveNe(an, a, b) {
				dispatch.Raise("ValueError", "Shape mismatch: src0: %s, src: %s", RegionText(s0), RegionText(s.Region))
			} else if proveNe(an, a, b) {
				bcast = append(bcast, len(s0e)-i)
			}
		}
		for i := 0; i < len(s0e)-len(se); i++ {
			bcast = append(bcast, i)
		}
		m := map[int]int{}
		for i := range s0e {
			isB := false
			for _, b := range bcast {
				isB = isB || b == i
			}
			if !isB {
				m[i] = i + len(se) - len(s0e)
			}
		}
		g.Link(s0, s.Region, m)
		if !g.PartitionMatch(s0, s.Region) {
			Assert(false, "partition dimension mismatch: src0: %s, src: %s", RegionText(s0), RegionText(s.Region))
		}
	}
	var types []InstType
	inst := g.MaxInst(dst, allowedDst, 0)
	for i, s := range srcs {
		if s.Const != nil {
			types = append(types, TensorScalar)
			continue
		}
		allowTT := allowFirstTT || i != 0
		nb := g.Fit(inst, s.Region, nil, false)
		b := g.Fit(inst, s.Region, nil, true)
		if i == 0 {
			inst = nb
			continue
		}
		ts := false
		switch {
		case !allowTT:
			ts = true
		case b.Stride == 1 && nb.Stride > 1 && b.Size > 1:
			ts = true
		case b.Stride > 1 && nb.Stride == 1 && nb.Size > 1:
			ts = false
		default:
			ts = b.Size > nb.Size
		}
		if ts {
			types = append(types, TensorScalar)
			inst = b
		} else {
			types = append(types, TensorTensor)
			inst = nb
		}
	}
	return inst, types, reverse
}

// TryUnary is unary/utils.try_find_inst_unary.
func TryUnary(g *Gen, dst, src *Region, allowedDst ...int) *Inst {
	sl, dl := src.Layout(), dst.Layout()
	valid := sl != nil && dl != nil && (src.Scope() == "trn.sbuf" || src.Scope() == "trn.psum") &&
		dst.Scope() == "trn.sbuf" && IsTrainiumLayout(sl) && IsTrainiumLayout(dl)
	if !valid {
		Assert(false, "scope or layout mismatch, src: %s, dst: %s", RegionText(src), RegionText(dst))
	}
	if !SameExtents(src.NonUnit(), dst.NonUnit()) {
		Assert(false, "shape or dimension mismatch, src: %s, dst: %s", RegionText(src), RegionText(dst))
	}
	g.Link(src, dst, EwiseDimMap(src, dst))
	return g.Fit(g.MaxInst(dst, allowedDst, 0), src, nil, false)
}
