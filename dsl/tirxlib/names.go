package tirxlib

import (
	"slices"

	"github.com/tilels/tilels/dsl/eval"
)

// TxOps returns the Tx tile primitives (Tx.<op>, Tx.<scope>.<op>), sorted:
// the names a misspelt tile call is compared with (lower's "did you
// mean" fix).
func TxOps() []string {
	out := slices.Clone(tileOps)
	slices.Sort(out)
	return out
}

// TxScopes returns the Tx scope namespaces (Tx.cta, Tx.warp, ...), sorted.
func TxScopes() []string {
	var out []string
	for s := range txScopes {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TNames returns names of the T namespace the model resolves by name
// (the markers, builtins, scope ids, math ops and dtype constructors;
// not every name the reference defines), sorted: what a misspelt T.<name>
// is compared with.
func TNames() []string {
	out := []string{"prim_func", "jit", "inline", "macro", "handle", "let", "Buffer", "constexpr", "TensorMap",
		"TileLayout", "S", "R", "ComposeLayout", "SwizzleLayout", "Iter", "Axis", "cuda", "ptx", "nvshmem", "nki",
		"func_attr", "attr", "hint", "annotate", "block_attr", "sblock_attr", "reads", "writes", "where", "init",
		"call_packed", "wg_reg_tile", "alloc_cast_frag"}
	out = append(out, dtypeCtorNames...)
	for n := range tBuiltins {
		out = append(out, n)
	}
	for n := range eval.ScopeIDKinds {
		out = append(out, n)
	}
	for n := range eval.MathOps {
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
