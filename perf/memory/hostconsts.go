package memory

import "github.com/tilels/tilels/ir"

// Host lets that are constants. A kernel's host code may bind a value the
// launch and the device code share:
//
//	max_ctas: T.let = 148
//	cta_count: T.let = T.min(max_ctas, num_total_tasks)   # a Python int
//	T.device_entry()
//	bx = T.cta_id([cta_count])
//	...
//	while tile < total: ... tile += cta_count
//
// (flash_attention4.py's persistent kernel). The grid extent and the
// device code then name the let's variable, which the machine took for a
// runtime value: the whole kernel had no figures ("the grid's x extent is
// a runtime value"), though every value in it is known. Those lets whose
// value folds to a constant, from literals and the lets before them, are
// bound in every warp (runWarp), fold the runtime grid extents that name
// them (AnalyzeWithin), and are part of the content key (cache.go): two
// kernels alike but for a host let's value are two entries.

// hostConst is a host let whose value is a constant.
type hostConst struct {
	v   *ir.Var
	val int64
}

// hostConsts returns fn's host lets that fold to constants, in program
// order.
func hostConsts(fn *ir.Func) []hostConst {
	if fn == nil {
		return nil
	}
	// the launch's values of the kernel's scalar parameters (a bind
	// line above it: ir.Func.LaunchArgs), which the host lets may read
	var out []hostConst
	for _, a := range fn.LaunchArgs {
		out = append(out, hostConst{a.Var, a.Value})
	}
	if fn.Host == nil {
		return out
	}
	for _, s := range fn.Host.Stmts {
		l, ok := s.(*ir.Let)
		if !ok || l.Mutable || l.Var == nil || l.Value == nil || !isIntType(l.Var.Type) {
			continue
		}
		if v, ok := foldHost(l.Value, out); ok {
			out = append(out, hostConst{l.Var, v})
		}
	}
	return out
}

// isIntType reports whether t is an integer type (the values the machine
// computes with).
func isIntType(t ir.DataType) bool {
	return t.Code == ir.Int || t.Code == ir.UInt
}

// foldHost folds e over integer literals and the constants known.
func foldHost(e ir.Expr, known []hostConst) (int64, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value, true
	case *ir.Var:
		for _, c := range known {
			if c.v == e {
				return c.val, true
			}
		}
	case *ir.Cast:
		if isIntType(e.To) {
			return foldHost(e.X, known)
		}
	case *ir.Binary:
		a, ok := foldHost(e.A, known)
		if !ok {
			return 0, false
		}
		b, ok := foldHost(e.B, known)
		if !ok {
			return 0, false
		}
		if v, why := scalarBinary(e.Op, a, b); why == "" {
			return v, true
		}
	case *ir.Select:
		c, ok := foldHost(e.Cond, known)
		if !ok {
			return 0, false
		}
		if c != 0 {
			return foldHost(e.A, known)
		}
		return foldHost(e.B, known)
	}
	return 0, false
}

// bindHost binds the host constants in the warp about to run.
func (m *machine) bindHost() {
	for _, c := range m.hosts {
		b := m.newBinding()
		for i := range b.v {
			b.v[i] = c.val
		}
		b.uni = true
		m.vars.set(c.v, b)
	}
}

// keyHost writes the host constants into the content key.
func (k *keyer) hostConsts(cs []hostConst) {
	k.int(int64(len(cs)))
	for _, c := range cs {
		k.variable(c.v)
		k.int(c.val)
	}
}
