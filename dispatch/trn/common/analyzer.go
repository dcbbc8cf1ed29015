// Package common holds what the Trainium op families share: the
// analyzer over the loops around a call (TVM init_analyzer), the region
// model, and the InstructionGenerator of the reference's
// backend/trn/tile_primitive/instruction_generator.py, whose analyses
// decide whether a call is lowered (they raise when no NKI instruction
// fits).
package common

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
)

// Limit is the decline of a call tilels cannot decide: an expression its
// analyzer cannot read, a reference message it does not know. The
// reason starts with "tilels", so the call is not counted as decided
// (internal/coverage).
type Limit struct{ Reason string }

// Unmodelled panics with a *Limit; the family's emitter turns it into a
// decline (Guard).
func Unmodelled(format string, args ...any) {
	panic(&Limit{Reason: "tilels does not model " + sprintf(format, args...)})
}

// Guard runs emit and turns a *Limit panic into a decline; a
// *dispatch.Raised (the reference's exception) goes on to the registry,
// which reports it as TVM reports the Python exception. Any other panic
// is a bug of tilels' model, never the reference's answer: it becomes a
// decline naming tilels, so the call is not counted as decided.
func Guard(c *dispatch.Call, emit func() *dispatch.Result) (res *dispatch.Result, d *dispatch.Decline) {
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case *Limit:
				res, d = nil, &dispatch.Decline{Reason: x.Reason, Span: c.Tile.Span}
			case *dispatch.Raised:
				panic(r)
			default:
				res, d = nil, &dispatch.Decline{Reason: sprintf("tilels internal error in the Trainium model: %v", r), Span: c.Tile.Span}
			}
		}
	}()
	return emit(), nil
}

// Aff is an affine integer expression C + Σ Coef[v]·v over variables.
type Aff struct {
	C    int64
	Coef map[*ir.Var]int64
}

// Analyzer is TVM's arith analyzer restricted to affine expressions over
// the loop variables around a call, each bound to its constant range.
type Analyzer struct {
	lo, hi map[*ir.Var]int64 // inclusive bounds
}

// NewAnalyzer binds the loops around c (TVM init_analyzer binds
// sctx.var_range_map).
func NewAnalyzer(c *dispatch.Call) *Analyzer {
	a := &Analyzer{lo: map[*ir.Var]int64{}, hi: map[*ir.Var]int64{}}
	for _, f := range c.Loops {
		mn, ok1 := ConstInt(f.Min)
		if f.Min == nil {
			mn, ok1 = 0, true
		}
		ext, ok2 := ConstInt(f.Extent)
		if ok1 && ok2 && ext > 0 {
			a.lo[f.Var], a.hi[f.Var] = mn, mn+ext-1
		}
	}
	return a
}

// ConstInt returns e's value when it is an integer constant.
func ConstInt(e ir.Expr) (int64, bool) {
	switch x := e.(type) {
	case *ir.IntImm:
		return x.Value, true
	case *ir.Cast:
		return ConstInt(x.X)
	case *ir.Neg:
		n, ok := ConstInt(x.X)
		return -n, ok
	}
	return 0, false
}

// Affine reads e as an affine expression; ok is false for anything else.
func Affine(e ir.Expr) (Aff, bool) {
	switch x := e.(type) {
	case nil:
		return Aff{}, true
	case *ir.IntImm:
		return Aff{C: x.Value}, true
	case *ir.Cast:
		return Affine(x.X)
	case *ir.Var:
		return Aff{Coef: map[*ir.Var]int64{x: 1}}, true
	case *ir.Neg:
		a, ok := Affine(x.X)
		return a.scale(-1), ok
	case *ir.Binary:
		a, ok1 := Affine(x.A)
		b, ok2 := Affine(x.B)
		if !ok1 || !ok2 {
			return Aff{}, false
		}
		switch x.Op {
		case ir.Add:
			return a.add(b, 1), true
		case ir.Sub:
			return a.add(b, -1), true
		case ir.Mul:
			if len(a.Coef) == 0 {
				return b.scale(a.C), true
			}
			if len(b.Coef) == 0 {
				return a.scale(b.C), true
			}
		case ir.FloorDiv:
			if len(b.Coef) == 0 && b.C > 0 && a.divisible(b.C) {
				return a.div(b.C), true
			}
		}
	}
	return Aff{}, false
}

func (a Aff) scale(k int64) Aff {
	out := Aff{C: a.C * k, Coef: map[*ir.Var]int64{}}
	for v, c := range a.Coef {
		if c*k != 0 {
			out.Coef[v] = c * k
		}
	}
	return out
}

func (a Aff) add(b Aff, sign int64) Aff {
	out := Aff{C: a.C + sign*b.C, Coef: map[*ir.Var]int64{}}
	for v, c := range a.Coef {
		out.Coef[v] += c
	}
	for v, c := range b.Coef {
		out.Coef[v] += sign * c
		if out.Coef[v] == 0 {
			delete(out.Coef, v)
		}
	}
	return out
}

func (a Aff) divisible(d int64) bool {
	if d == 0 || a.C%d != 0 {
		return false
	}
	for _, c := range a.Coef {
		if c%d != 0 {
			return false
		}
	}
	return true
}

func (a Aff) div(d int64) Aff {
	out := Aff{C: a.C / d, Coef: map[*ir.Var]int64{}}
	for v, c := range a.Coef {
		out.Coef[v] = c / d
	}
	return out
}

// Const reports whether a has no variables.
func (a Aff) Const() (int64, bool) { return a.C, len(a.Coef) == 0 }

// Divisible is can_prove(a % d == 0): every coefficient and the constant
// are multiples of d (the analyzer's modular set of an affine form).
func (an *Analyzer) Divisible(a Aff, d int64) bool { return a.divisible(d) }

// Max is the constant upper bound of a, ok false when a variable is
// unbounded.
func (an *Analyzer) Max(a Aff) (int64, bool) {
	m := a.C
	for v, c := range a.Coef {
		lo, ok1 := an.lo[v]
		hi, ok2 := an.hi[v]
		if !ok1 || !ok2 {
			return 0, false
		}
		m += max(c*lo, c*hi)
	}
	return m, true
}

// Min is the constant lower bound of a, ok false when a variable is
// unbounded.
func (an *Analyzer) Min(a Aff) (int64, bool) {
	m := a.C
	for v, c := range a.Coef {
		lo, ok1 := an.lo[v]
		hi, ok2 := an.hi[v]
		if !ok1 || !ok2 {
			return 0, false
		}
		m += min(c*lo, c*hi)
	}
	return m, true
}
