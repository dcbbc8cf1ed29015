package ir

// SimplifyIndex recombines the div/mod digit splits that lowering produces
// when it turns a flat index into per-dimension indices and a layout turns
// them back into a flat address:
//
//	(x // c) * c + x % c              → x
//	((x // b) % a) * b + x % b        → x % (a*b)
//
// applied to every chain of additions, bottom-up, until nothing changes.
// The rules hold for Python floor semantics with positive constants, which
// is what index arithmetic in lowered tile calls uses. The simplified form
// matters for speed, not only looks: nvcc cannot prove that lane v of a
// vectorized loop sits next to lane v+1 through the split form, so it
// cannot merge the lanes into one wide access.
func SimplifyIndex(e Expr) Expr {
	b, ok := e.(*Binary)
	if !ok {
		return e
	}
	x, y := SimplifyIndex(b.A), SimplifyIndex(b.B)
	if b.Op != Add {
		if x == b.A && y == b.B {
			return e
		}
		return &Binary{Op: b.Op, A: x, B: y, Span: b.Span}
	}
	terms := addTerms(x, nil)
	terms = addTerms(y, terms)
	for changed := true; changed; {
		changed = false
	search:
		for i := range terms {
			for j := range terms {
				if i == j {
					continue
				}
				if m, ok := recombine(terms[i], terms[j]); ok {
					terms[i] = m
					terms = append(terms[:j], terms[j+1:]...)
					changed = true
					break search
				}
			}
		}
	}
	out := terms[0]
	for _, t := range terms[1:] {
		out = AddE(out, t)
	}
	return out
}

func addTerms(e Expr, out []Expr) []Expr {
	if b, ok := e.(*Binary); ok && b.Op == Add {
		return addTerms(b.B, addTerms(b.A, out))
	}
	return append(out, e)
}

// recombine merges p + q when they are the two digits of one split.
func recombine(p, q Expr) (Expr, bool) {
	mod, ok := q.(*Binary)
	if !ok || mod.Op != FloorMod {
		return nil, false
	}
	cq, ok := ConstInt(mod.B)
	if !ok || cq <= 0 {
		return nil, false
	}
	hi, scale, ok := scaled(p)
	if !ok || scale != cq {
		return nil, false
	}
	h, ok := hi.(*Binary)
	if !ok {
		return nil, false
	}
	switch h.Op {
	case FloorDiv: // (x // c) * c + x % c
		if c, ok := ConstInt(h.B); ok && c == cq && Equal(h.A, mod.A) {
			return mod.A, true
		}
	case FloorMod: // ((x // b) % a) * b + x % b
		a, ok := ConstInt(h.B)
		d, isDiv := h.A.(*Binary)
		if ok && a > 0 && isDiv && d.Op == FloorDiv {
			if c, ok := ConstInt(d.B); ok && c == cq && Equal(d.A, mod.A) {
				return ModE(mod.A, Const(a*cq)), true
			}
		}
	}
	return nil, false
}

// scaled splits e into (x, c) when e is x * c with a constant c.
func scaled(e Expr) (Expr, int64, bool) {
	b, ok := e.(*Binary)
	if !ok || b.Op != Mul {
		return nil, 0, false
	}
	if c, ok := ConstInt(b.B); ok {
		return b.A, c, true
	}
	if c, ok := ConstInt(b.A); ok {
		return b.B, c, true
	}
	return nil, 0, false
}

// Equal reports whether two expressions are structurally equal (variables
// and buffers by identity).
func Equal(a, b Expr) bool {
	switch x := a.(type) {
	case *IntImm:
		y, ok := b.(*IntImm)
		return ok && x.Value == y.Value
	case *FloatImm:
		y, ok := b.(*FloatImm)
		return ok && x.Value == y.Value && x.Type == y.Type
	case *Var:
		return a == b
	case *ThreadIndex:
		y, ok := b.(*ThreadIndex)
		return ok && x.Axis == y.Axis
	case *Binary:
		y, ok := b.(*Binary)
		return ok && x.Op == y.Op && Equal(x.A, y.A) && Equal(x.B, y.B)
	case *Neg:
		y, ok := b.(*Neg)
		return ok && Equal(x.X, y.X)
	case *Cast:
		y, ok := b.(*Cast)
		return ok && x.To == y.To && Equal(x.X, y.X)
	}
	return false
}
