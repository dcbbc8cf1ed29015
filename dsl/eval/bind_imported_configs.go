package eval

import (
	"github.com/tilels/tilels/dsl/syntax"
)

// A binding source for a module-level entry point f(**kwargs) of a file
// without a CONFIGS list of its own, whose body passes **kwargs on to a
// function imported from a workspace module (imports.go) that has a
// CONFIGS list of dicts: f is called once per entry of that list, as
// get_kernel is for the file's own CONFIGS (case source "configs", the
// entry's label as case id). It is how a variant of a kernel module
// (bf16_fused_m128_tx_tile.py) builds its kernel from the configuration
// parser and the configurations of the module it varies; that module's
// tests call f with those entries.

// importedConfigsJob returns the job calling fn once per entry of the
// imported CONFIGS its **kwargs reach, or nil.
func (ev *Evaluator) importedConfigsJob(fn *FuncV) *driveJob {
	ps := fn.Params
	if ev.imp == nil || fn.Def == nil || ps == nil || ps.Kwarg == nil || ps.Vararg != nil ||
		len(ps.Posonly)+len(ps.Args)+len(ps.Kwonly) > 0 || len(ev.configEntries()) > 0 {
		return nil
	}
	kw := ps.Kwarg.Name.Id
	var cv Value
	var cfgs []*DictV
	for _, st := range fn.Def.Body {
		syntax.Inspect(st, func(n syntax.Node) bool {
			c, ok := n.(*syntax.Call)
			if !ok || cfgs != nil {
				return cfgs == nil
			}
			callee, ok := c.Func.(*syntax.Name)
			if !ok || !passesKwargs(c, kw) {
				return true
			}
			f, ok := ev.modScope.vars[callee.Id].(*FuncV)
			if !ok || f.Env == nil {
				return true
			}
			m := ev.imp.scopes[f.Env.root()]
			if m == nil || m.scope == nil {
				return true
			}
			var ds []*DictV
			for _, e := range SeqElts(m.scope.vars["CONFIGS"]) {
				if d, ok := e.(*DictV); ok {
					ds = append(ds, d)
				}
			}
			if len(ds) > 0 {
				cv, cfgs = m.scope.vars["CONFIGS"], ds
			}
			return true
		})
	}
	if cfgs == nil {
		return nil
	}
	return ev.configsCases(fn, cv, cfgs)
}

// passesKwargs reports whether c passes **name.
func passesKwargs(c *syntax.Call, name string) bool {
	for _, k := range c.Keywords {
		if n, ok := k.Value.(*syntax.Name); ok && k.Name == nil && n.Id == name {
			return true
		}
	}
	return false
}
