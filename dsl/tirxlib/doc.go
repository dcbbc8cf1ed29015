// Package tirxlib models the TIRx/TVM library for the interpreter of
// dsl/eval: the modules a kernel file imports from tvm (tile schedulers,
// ...) and torch's static part. Each model lives in a file named after the
// library module it mirrors (tile_scheduler.go for
// tvm.backend.cuda.lang.tile_scheduler, torch.go for torch, ...).
//
// Contract:
//
//   - tirxlib imports dsl/eval, never the reverse. It plugs its models in
//     through eval's explicit API only: Library returns the module table
//     for eval.Options.Library (no init-time registration), and library
//     values implement eval.Value plus eval.AttrValue where they have
//     attributes.
//   - A model follows eval's contract: it never panics on user input,
//     reports errors as eval diagnostics at the smallest span to edit,
//     charges its work to the evaluator's budgets, and gives every value
//     it makes the span of the expression that made it.
//   - A model mirrors one reference module at the releases tilels
//     supports; where releases differ the model says so and reads
//     ev's release.
//
// Example:
//
//	prog := eval.Evaluate(f, eval.Options{Library: tirxlib.Library()})
package tirxlib
