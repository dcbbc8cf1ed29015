// Package tirxlib models the TIRx/TVM library for the interpreter of
// dsl/eval: the modules a kernel file imports from tvm and torch's static
// part. Each model lives in a file named after the library module it
// mirrors:
//
//	tir.go                     tvm.script.tirx (T): its builtins (allocations,
//	                           match/decl_buffer, scope ids, loops, scalar
//	                           and math functions, T.SMEMPool)
//	tile.go                    tvm.script.tirx.tile (Tx): the tile
//	                           primitives as ir.TileCalls
//	tvm.go                     tvm, tvm.runtime (DataType)
//	layout*.go                 tvm.tirx.layout (specs, TileLayout, swizzles,
//	                           packing, TMEM layouts), tma_utils
//	gemm_async.go              tile_primitive.gemm_async (sf_*_layout)
//	alloc_pool.go              tvm.backend.cuda.lang.alloc_pool (TMEMPool)
//	pipeline.go, pipeline_remote.go
//	                           tvm.backend.cuda.lang.pipeline
//	tile_scheduler.go          tvm.backend.cuda.lang.tile_scheduler
//	buffer.go, buffer_view*.go tvm/tirx/buffer.py (with_dtype, sub, permute,
//	                           the rearranging and tile views)
//	builder_ir.go, builder_tirx.go
//	                           tvm/tirx/script/builder (ir.py, tirx.py)
//	tirx_expr.go, tirx_op.go   tvm/tirx/expr.py, tvm/tirx/op.py
//	ir_type.go                 tvm.ir.type
//	torch.go                   torch (dtypes, empty/zeros/ones)
//	library.go                 the table: Library()
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
