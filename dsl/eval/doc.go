// Package eval evaluates a parsed TIRx Python file statically: it runs the
// Python around the kernels (constants, helpers, factories, imports) on a
// model of Python values, and turns every @T.prim_func body into an
// ir.Func with its buffers, scope ids and tile calls. tilels never runs
// user code; everything here is an interpretation over syntax trees.
//
// Contract:
//
//   - Evaluate(f, opts) never panics and never fails. Errors become
//     diagnostics (codes eval/*, see the Code* constants) at the smallest
//     span to edit; evaluation goes on with the next statement. A value
//     whose error was reported is poison: using it reports nothing more.
//     One kernel's errors never affect another kernel.
//   - Every Value carries the span of the expression that produced it;
//     every IR node built here carries a span into the same file.
//   - eval models Python and TVMScript's kernel bodies (kernel.go); it
//     never imports a library package. The TIRx/TVM library modules (T's
//     builtins, Tx, tvm, tvm.tirx.layout, tma_utils, the pipelines, pools
//     and tile schedulers, torch, ...) are modelled by the Library the
//     caller passes in Options.Library (library.go: an explicit table of
//     LibModules plus the Hooks the kernel semantics call; dsl/tirxlib
//     provides it). Without one those modules are opaque.
//   - Imports are resolved by what they name: the Library's modules (T,
//     Tx, the layouts, ...) under their
//     paths, aliases and patterns, math, functools, itertools, copy,
//     numpy, operator, os, random, pytest, dataclasses, enum. A module found as a
//     .py file under Options.ImportRoots (or relative to Options.Path) is
//     evaluated from its source (imports.go, docs/imports.md). Anything
//     else is opaque: it flows
//     through attributes, calls and arithmetic silently, and a use that
//     needs a concrete value inside a kernel reports eval/unresolved (a
//     warning).
//   - Class statements outside kernel bodies make classes (class.go):
//     instances with __init__ or a @dataclass's generated one (defaults,
//     default_factory, __post_init__, frozen), methods, properties,
//     staticmethod/classmethod, super(), Enum and IntEnum members. A class
//     with a decorator, base or special method tilels does not model
//     (a torch module, __eq__) stays opaque; T.meta_class classes are
//     modelled (their T.inline methods emit TIR on self's state).
//   - Kernels inside functions are evaluated under bound cases (bind.go,
//     docs/binding.md): module-level calls, pytest parametrize grids and
//     test functions, `if __name__ == "__main__":` blocks, entry points
//     without required parameters, the CONFIGS list through get_kernel,
//     .specialize(...) of @T.jit kernels, and for what nothing reaches,
//     `# tilels: bind` directives, Options.Bind, Options.Bindings or the
//     parameter defaults. Each distinct case of a kernel def is one Kernel
//     (Kernel.Case), at most Options.MaxCases per def; diagnostics shared by
//     every case of a def are reported once, the others name their case. A
//     def whose every evaluation needed an unbound value lands in
//     Program.Partial with its tile calls in Kernel.Unresolved, and each
//     parameter it needed gets one eval/unbound information diagnostic, at
//     its declaration; a def with a complete case reports nothing unbound.
//   - Work is bounded: each evaluation unit (one module-level statement,
//     one factory call, one kernel) has a step budget (Options.MaxSteps),
//     all bound cases of a file together 8 times that, and calls nest at
//     most 150 deep; running out reports eval/budget (eval/case-cap for
//     the cases). An operation whose work grows with its operands (sum,
//     min, in, ==, sorted, list.insert, str.find, a dict lookup of a long
//     key, ...) is charged one step per element or KiB. Options.MaxCases
//     is at most MaxCasesLimit (4096).
//   - The file is bounded as a whole (budget.go): all its units together
//     may take 16 times Options.MaxSteps steps and 4 times
//     Options.MaxBytes value bytes, and its kernels may build
//     Options.MaxIR IR statements and Options.MaxTileCalls tile calls
//     (by default a fixed part and a part that grows with the file). The first of these to run out stops the evaluation of the
//     file with one eval/budget (eval/too-large for bytes) error at the
//     statement where it ran out, naming the three sites (module-level
//     statements, kernel defs, functions run as binding sources) that
//     took the most of it; no kernel is made after it.
//   - Memory is bounded: every str, list, tuple and dict a unit builds is
//     charged, by its estimated size in bytes, against a value budget
//     (Options.MaxBytes, 64 MiB by default) and the file's (4 times that),
//     before it is allocated where its size follows from the operands
//     (concatenation, repetition, join, replace, format widths and
//     precisions, padding), while it is written otherwise (repr, format).
//     Running out stops the unit with one eval/too-large error at the
//     expression that would have built the value (budget.go). Padding
//     (zfill, ljust, rjust, center, format widths) is linear in the width;
//     repr text for messages and case labels is cut at 64 KiB, and tuple
//     dict keys longer than 1 MiB or nested deeper than 100 count as
//     unhashable, so containers that share elements cannot blow up.
//
// Kernel bodies follow TVMScript (tvm/tirx/script/parser/parser.py at
// PRE): `range(n)`, T.serial/T.unroll/T.vectorized/T.grid are device
// loops (ir.For), a Python `for` over a list or tuple is unrolled; `if` on
// a Python value keeps only the live branch, `if` on a device value
// becomes an ir.If whose condition keeps comparisons, `and` and
// T.ptx.elect_sync() structurally (the dispatcher recognizes narrowing
// from them). `x = <device expression>` declares a mutable scalar
// (ir.Let with Mutable; later assignments are ir.Assign), as TVMScript's
// local scalars; scope ids, T.Bind results and T.meta_var values are only
// named; `x: T.let = e` is an immutable ir.Let. One deliberate deviation:
// a Python number assigned in a kernel body stays a Python value (TVM
// would make it a local scalar), so shapes and slices computed from it
// stay static. Buffer subscripts with a slice or fewer indices than
// dimensions are regions (spec §1.4); Tx calls become ir.TileCall (tirxlib/tile.go) with
// arguments in spec §1.5 order (ArgSpans aligned with Args, NoSpan for
// defaulted ones) and every other keyword in Config. T.SMEMPool's alloc
// and alloc_mma / alloc_tcgen05_mma_AB declare shared.dyn views of one
// arena; T.TMEMPool's alloc* declare tmem buffers at constant column
// offsets (allocated_addr) with the MMA datapath layouts
// (tirxlib/alloc_pool.go); Pipeline, PipelineState and the barriers allocate
// from an SMEMPool (tirxlib/pipeline.go).
//
// Example:
//
//	f, _ := syntax.Parse(source.NewFile("k.py", src))
//	prog := eval.Evaluate(f, eval.Options{})
//	for _, k := range prog.Kernels {
//		fmt.Println(k.Func.Name, len(k.Func.Body.Stmts))
//	}
package eval
