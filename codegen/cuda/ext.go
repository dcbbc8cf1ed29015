package cuda

import "github.com/tilels/tilels/ir"

// extOp prints one intrinsic of an op family added after the seeds (gemm,
// gemm_async, reductions, permute_layout, the tcgen05 copies): each family
// keeps its intrinsics, helpers and printers in its own file
// (ops_<family>.go) and lists them in a table merged here, so the core
// printer (expr.go) only looks them up.
type extOp struct {
	// need is what the op's helpers may need of the target (as opNeeds).
	need opNeed
	// print prints the call (a statement or an expression); it reports
	// problems with k.fail and then returns "".
	print func(k *kernel, c *ir.Call) string
	// form is the table form an op of a user family prints through
	// (formPrinter; nil for the others): ArgRoles reads its operands.
	form *ptxForm
}

// extOps is every family table, merged; an op name appears in one table.
// It is set by init, not by its declaration: the printers in the tables
// call back into the printer (k.top), which looks ops up here, and Go
// rejects that cycle in a package-level initializer.
var extOps map[string]extOp

func init() {
	extOps = mergeExtOps(gemmOps, gemmAsyncOps, reductionOps, permuteOps, tcgen05CopyOps, packedOps)
}

func mergeExtOps(tables ...map[string]extOp) map[string]extOp {
	out := map[string]extOp{}
	for _, t := range tables {
		for name, op := range t {
			if _, dup := out[name]; dup {
				panic("codegen/cuda: intrinsic " + name + " is printed by two families")
			}
			out[name] = op
		}
	}
	return out
}
