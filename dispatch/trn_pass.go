package dispatch

import "github.com/tilels/tilels/ir"

// lowerTRN is Lower for a Trainium kernel (target kind "trn"): TVM's
// LowerTIRx under an aws/trn1 target dispatches each tile call with the
// call's scope kind ("thread" after T.device_entry()) and no launch
// configuration; the analyzer knows the ranges of the loops around the
// call (Call.Loops). There are no scope ids, thread sets or tensor maps.
func (r *Registry) lowerTRN(fn *ir.Func, target Target) *Output {
	out := &Output{}
	l := &lowerer{reg: r, target: target, vars: map[*ir.Var]scopeTarget{},
		state: map[string]any{}, out: out}
	body, _ := l.block(fn.Body, nil)
	nf := *fn
	nf.Body = body
	out.Func = &nf
	return out
}
