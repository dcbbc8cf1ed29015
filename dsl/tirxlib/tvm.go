package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

// The tvm package itself (tvm/__init__.py), reached as `import tvm` or
// tvm.runtime: the submodules kernels reach through it and
// tvm.DataType(dtype) (tvm.runtime.DataType is the same class).

// tvmAttr is the tvm package's attributes tilels models: its runtime, tirx
// (tir) and ir submodules and DataType(dtype).
func tvmAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "runtime":
		return ev.Module("tvm.runtime", span), true
	case "tirx", "tir": // tirx_op.go
		return &eval.ModuleV{Base: eval.Base{At: span}, Path: "tvm." + name, Name: name, Attr: tvmTirxAttr}, true
	case "ir":
		return ev.Module("tvm.ir", span), true
	case "DataType":
		return eval.Builtin("tvm.DataType", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "DataType", 1, "dtype") {
				return eval.Poison(c.At)
			}
			dt, ok := ev.DtypeOf(c.Args[0], c.ArgSpans[0])
			if !ok {
				return eval.Poison(c.At)
			}
			return &eval.DTypeV{Base: eval.Base{At: c.At}, DT: dt}
		}), true
	}
	return nil, false
}
