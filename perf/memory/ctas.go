package memory

import "github.com/tilels/tilels/ir"

// The CTAs of a grid run the same code on other data: a kernel indexes
// its global tiles by the CTA index (A[bx*64 + tid]), which moves every
// global address by a fixed amount per CTA. The counting rules do not see
// such a translation when it is a multiple of 32 bytes for global accesses
// (whole sectors move) and of 16 bytes for shared ones (the banks rotate;
// no access of at most 16 bytes changes its alignment, so the misaligned
// check finds the same). ctaShifts proves it from the lowered code with
// warps.go's proof, run once per grid dimension of extent > 1 with that
// dimension's CTA index moving by 1 and every thread axis fixed: values
// are CTA 0's plus a constant per CTA, branches, loop bounds and register
// table indices the same in every CTA. Analyze then executes CTA 0 and
// adds its counts for the others (the worst and first instructions stay
// CTA 0's, as they would: a later CTA's identical counts never replace
// them). TestCTADedup compares the result with executing every CTA.

// ctaShifts reports whether every CTA of the launch counts as CTA 0.
func (m *machine) ctaShifts(body *ir.Block) bool {
	for d, g := range m.launch.Grid {
		if g <= 1 {
			continue
		}
		p := &shiftProof{m: m, l: m.launch, vars: map[*ir.Var]int64{}, local: map[*ir.Buffer]int64{}, warps: 1,
			axes: map[*ir.Var]string{}, cta: d + 1}
		if !p.prove(body) || len(p.warp0) > 0 {
			return false
		}
	}
	return true
}

// prove runs the proof: the variables' shifts to a fixed point, then the
// check of every access (warps.go). It reports whether it holds.
func (p *shiftProof) prove(body *ir.Block) bool {
	return p.shifts(body) && p.checks(body)
}

// ctaAxis is the shift of variable i of a scope id of kind k across the
// CTAs of the proof's grid dimension.
func (p *shiftProof) ctaAxis(k ir.ScopeIDKind, i int) int64 {
	d := p.cta - 1
	switch k {
	case ir.CTAID:
		if i == d {
			return 1
		}
		return 0
	case ir.ClusterID, ir.CTAIDInCluster:
		if i != d {
			return 0
		}
		if i < 3 && p.l.Cluster[i] > 1 {
			return noShift // a quotient and a remainder: not one constant
		}
		if k == ir.ClusterID {
			return 1 // clusters of one CTA along d
		}
		return 0
	}
	return 0 // thread axes: the same in every CTA
}

// sharedQuantum is the multiple of bytes a shared access may move by.
func (p *shiftProof) sharedQuantum() int64 {
	if p.cta > 0 || p.loop != nil {
		return 16
	}
	return 4
}
