package memory

import (
	"math/bits"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Affine element offsets. Lowered code indexes a row-major tile with the
// digits of one value, A_s[(s*512 + tx*8 + v) // 32, (s*512 + tx*8 + v) %
// 32], whose offset is the value itself; elemAddr evaluated each index
// over 32 lanes, the value twice, then the division and the remainder.
// affineOf compiles an access's indices once per analysis into off plus
// a sum of coefficients times the leaves that are not sums and constant
// multiples (tx, the loop variables, any other subexpression), in the
// order elemAddr evaluates them, so that the first unknown leaf gives
// the same reason. Only indices without loads or calls (nothing to
// evaluate twice or skip) of a buffer without a layout or with a linear
// one and no swizzle are compiled; the lanes elemAddr would leave zero
// (inactive ones of a linear layout's non-uniform access) stay zero, a
// uniform access is broadcast as before. TestAffineAddrs compares both
// on every access of the golden programs and the corpora.

// affTerm is coef times leaf e, part of dimension group dim.
type affTerm struct {
	e    ir.Expr
	coef int64
	dim  int
}

// affAddr is a compiled element offset (ok false: elemAddr's own way).
type affAddr struct {
	ok     bool
	linear bool // a linear layout (else none: every lane computed)
	off    int64
	terms  []affTerm
	groups int // dimension groups (a digit group counts once)
}

// affineAddrs enables the compiled offsets (tests compare both).
var affineAddrs = true

// affineOf returns the compiled offset of b[idx] (cached per index list).
func (m *machine) affineOf(b *ir.Buffer, idx []ir.Expr) *affAddr {
	key := &idx[0]
	if a, ok := m.affs[key]; ok {
		return a
	}
	a := m.compileAffine(b, idx)
	if m.affs == nil {
		m.affs = map[*ir.Expr]*affAddr{}
	}
	m.affs[key] = a
	return a
}

var noAffine = &affAddr{}

func (m *machine) compileAffine(b *ir.Buffer, idx []ir.Expr) *affAddr {
	if len(idx) != len(b.Shape) || b.RuntimeDim() >= 0 {
		return noAffine
	}
	for _, x := range idx {
		if !pureIndex(x, 0) {
			return noAffine
		}
	}
	a := &affAddr{ok: true}
	strides := make([]int64, len(idx))
	switch l := b.Layout.(type) {
	case nil:
		s := int64(1)
		for d := len(idx) - 1; d >= 0; d-- {
			strides[d] = s
			s *= b.Shape[d]
		}
	case *layout.TileLayout:
		if l.HasThreadAxis() {
			return noAffine
		}
		ln := m.linearOf(b)
		if !ln.ok || ln.swz != nil {
			return noAffine
		}
		copy(strides, ln.strides)
		a.linear, a.off = true, ln.off
	default:
		return noAffine
	}
	for d := 0; d < len(idx); d++ {
		x, stride, e := idx[d], strides[d], d
		var y ir.Expr
		if g, v, w := digits(idx, b.Shape, strides, d); g > d {
			x, stride, e, y = v, strides[g], g, w
		}
		// the leaves in elemAddr's order of evaluation: Y + X // P
		// evaluates Y first
		yFirst := false
		if add, ok := idx[d].(*ir.Binary); ok && y != nil && add.B != y {
			yFirst = true
		}
		if yFirst {
			a.addLinear(y, strides[d])
		}
		a.addLinear(x, stride)
		if y != nil && !yFirst {
			a.addLinear(y, strides[d])
		}
		a.groups++
		d = e
	}
	if a.groups > maxAffGroups {
		return noAffine
	}
	return a
}

// maxAffGroups bounds the dimension groups affineAddr sums apart.
const maxAffGroups = 4

// addLinear adds coef times e, split over sums and constant multiples.
func (a *affAddr) addLinear(e ir.Expr, coef int64) {
	switch x := e.(type) {
	case *ir.IntImm:
		a.off += coef * x.Value
		return
	case *ir.Binary:
		switch x.Op {
		case ir.Add:
			a.addLinear(x.A, coef)
			a.addLinear(x.B, coef)
			return
		case ir.Sub:
			a.addLinear(x.A, coef)
			a.addLinear(x.B, -coef)
			return
		case ir.Mul:
			if c, ok := x.B.(*ir.IntImm); ok {
				a.addLinear(x.A, coef*c.Value)
				return
			}
			if c, ok := x.A.(*ir.IntImm); ok {
				a.addLinear(x.B, coef*c.Value)
				return
			}
		}
	}
	a.terms = append(a.terms, affTerm{e: e, coef: coef, dim: a.groups})
}

// pureIndex reports whether evaluating e touches nothing but variables,
// thread indices and integer arithmetic.
func pureIndex(e ir.Expr, depth int) bool {
	if depth > 64 {
		return false
	}
	switch e := e.(type) {
	case *ir.IntImm, *ir.Var, *ir.ThreadIndex:
		return true
	case *ir.Binary:
		return pureIndex(e.A, depth+1) && pureIndex(e.B, depth+1)
	}
	return false
}

// affineAddr evaluates a compiled offset as elemAddr would.
func (m *machine) affineAddr(a *affAddr) (lanes, string) {
	var l lanes
	why := m.affineAddrTo(&l, a)
	return l, why
}

// affineAddrTo is affineAddr writing into out. A group's lane sums are
// set by its first non-uniform leaf, not zeroed first (1 KB cleared at
// every address was a tenth of an element-wise kernel's analysis).
func (m *machine) affineAddrTo(out *lanes, a *affAddr) string {
	// per dimension group: the lanes of its non-uniform leaves (the
	// group's uniformity), the sum of its uniform ones
	sums := &m.affSums
	var scalar [maxAffGroups]int64
	var allUni [maxAffGroups]bool
	for g := range a.groups {
		allUni[g] = true
	}
	t := &m.affTerm
	for _, term := range a.terms {
		uni, why := m.evalU(t, term.e)
		if why != "" {
			*out = lanes{}
			return why
		}
		g := term.dim
		if uni {
			scalar[g] += term.coef * t[0]
			continue
		}
		s := &sums[g]
		c := term.coef
		if allUni[g] {
			allUni[g] = false
			for i := 0; i < 29; i += 4 { // (four lanes an iteration: binaryConst)
				s[i], s[i+1], s[i+2], s[i+3] = c*t[i], c*t[i+1], c*t[i+2], c*t[i+3]
			}
			continue
		}
		for i := 0; i < 29; i += 4 {
			s[i] += c * t[i]
			s[i+1] += c * t[i+1]
			s[i+2] += c * t[i+2]
			s[i+3] += c * t[i+3]
		}
	}
	first := bits.TrailingZeros32(m.mask | 1<<31)
	uniform := true
	for g := range a.groups {
		if allUni[g] {
			continue
		}
		s := &sums[g]
		for i := range 32 {
			if m.mask&(1<<i) != 0 && s[i] != s[first] {
				uniform = false
				break
			}
		}
		if !uniform {
			break
		}
	}
	base := a.off
	for g := range a.groups {
		base += scalar[g]
	}
	at := func(i int) int64 {
		v := base
		for g := range a.groups {
			if !allUni[g] {
				v += sums[g][i]
			}
		}
		return v
	}
	// every lane's at(i), the groups' lanes added a vector at a time
	sumTo := func(o *lanes) {
		*o = bcast(base)
		for g := range a.groups {
			if allUni[g] {
				continue
			}
			s := &sums[g]
			for i := 0; i < 29; i += 4 {
				o[i] += s[i]
				o[i+1] += s[i+1]
				o[i+2] += s[i+2]
				o[i+3] += s[i+3]
			}
		}
	}
	switch {
	case !a.linear:
		// no layout: every lane, as elemAddr's row-major sum
		sumTo(out)
	case uniform:
		*out = bcast(at(first))
	default:
		sumTo(out)
		for i := range out {
			if m.mask&(1<<i) == 0 {
				out[i] = 0
			}
		}
	}
	return ""
}
