package memory

import "github.com/tilels/tilels/ir"

// Constant lets. Kernels name their tile sizes: flash_attention4.py's
// row mask is `for s in T.unroll(num_chunks)` over `for i in
// T.unroll(CHUNK_SIZE)` under `if i < 128 - s * CHUNK_SIZE`, where
// `CHUNK_SIZE = 32` and `num_chunks = (128 + CHUNK_SIZE - 1) //
// CHUNK_SIZE` are lets. The machine knows their values wherever it
// reads them, but inert.go's scan, which decides once per loop from the
// code alone, took a bound or a condition that reads a variable other
// than a loop's for unknown, and the machine executed the mask's 128
// register selects in every warp and iteration it ran (7,680 statements
// of that file's 24 kernels).
//
// constLetSet finds the variables each bound by a single let, never
// assigned, whose value folds to a constant through integer constants
// and such lets bound before it, with the machine's own arithmetic
// (scalarBinary; a cast to a float is no constant, a cast to bool is
// x != 0, other casts keep the value, as evalTo does). Wherever the
// machine executes such a let it binds the same value in every lane.

// constLetSet returns the kernel's constant lets and their values.
func (m *machine) constLetSet() map[*ir.Var]int64 {
	if m.scanned&scannedConstLets == 0 {
		m.scanned |= scannedConstLets
		if m.consts == nil {
			m.consts = map[*ir.Var]int64{}
		}
		constLets(m.fn.Body, m.consts)
	}
	return m.consts
}

// constOf folds e with the kernel's constant lets.
func (m *machine) constOf(e ir.Expr) (int64, bool) {
	if c, ok := ir.ConstInt(e); ok {
		return c, true
	}
	return foldLet(e, m.constLetSet())
}

// constLets adds to out the constant lets of b.
func constLets(b *ir.Block, out map[*ir.Var]int64) {
	defs := map[*ir.Var]int{}
	ir.WalkStmts(b, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Let:
			defs[s.Var]++
			if s.Mutable {
				defs[s.Var]++
			}
		case *ir.Assign:
			defs[s.Var] += 2
		case *ir.For:
			defs[s.Var] += 2
		}
	})
	ir.WalkStmts(b, func(s ir.Stmt) {
		if l, ok := s.(*ir.Let); ok && defs[l.Var] == 1 && l.Var.Type.Code != ir.Handle {
			if v, ok := foldLet(l.Value, out); ok {
				out[l.Var] = v
			}
		}
	})
}

// foldConst evaluates e as the machine would when every variable it
// reads is one of consts.
func foldLet(e ir.Expr, consts map[*ir.Var]int64) (int64, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value, true
	case *ir.Var:
		v, ok := consts[e]
		return v, ok
	case *ir.Not:
		v, ok := foldLet(e.X, consts)
		return b2i(v == 0), ok
	case *ir.Neg:
		v, ok := foldLet(e.X, consts)
		return -v, ok
	case *ir.Cast:
		if e.To.IsFloat() {
			return 0, false
		}
		v, ok := foldLet(e.X, consts)
		if e.To.Code == ir.Bool {
			v = b2i(v != 0)
		}
		return v, ok
	case *ir.Binary:
		a, ok := foldLet(e.A, consts)
		if !ok {
			return 0, false
		}
		b, ok := foldLet(e.B, consts)
		if !ok {
			return 0, false
		}
		v, why := scalarBinary(e.Op, a, b)
		return v, why == ""
	}
	return 0, false
}
