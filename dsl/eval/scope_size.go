package eval

import "github.com/tilels/tilels/dsl/syntax"

// Scopes sized from the previous call of the same def. A kernel body of a
// production file binds hundreds of names, and every case evaluates it
// again: growing its map from empty each time was a tenth of the bytes a
// keystroke allocated (BenchmarkKeystrokeProduction). The size is only a
// capacity: what the scope holds, and in which order anything reads it, is
// unchanged.

// newDefScope returns a scope for a call of def (nil for a lambda), with
// room for the names def's previous call left.
func (ev *Evaluator) newDefScope(parent *scope, def *syntax.FunctionDef) *scope {
	n := 0
	if def != nil && ev.scopeSize != nil {
		n = ev.scopeSize[def]
	}
	if n == 0 {
		return newScope(parent)
	}
	return &scope{vars: make(map[string]Value, n), parent: parent}
}

// noteScopeSize records how many names a call of def left in env.
func (ev *Evaluator) noteScopeSize(def *syntax.FunctionDef, env *scope) {
	if def == nil || len(env.vars) <= 8 {
		return // one map group holds them: nothing to size
	}
	if ev.scopeSize == nil {
		ev.scopeSize = map[*syntax.FunctionDef]int{}
	}
	if len(env.vars) > ev.scopeSize[def] {
		ev.scopeSize[def] = len(env.vars)
	}
}
