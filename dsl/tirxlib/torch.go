package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// torch, its static part only: the dtypes (torch.float32, ...) and
// torch.empty/zeros/ones(shape, dtype=...) as a tensor whose element_size()
// is known, which kernels' configs use to size tiles
// (`torch.empty((), dtype=torch.float32).element_size()`). Everything
// else in torch (tensors' data, devices, random inputs) stays opaque.

const torchPath = "torch"

// torchDtypes maps torch's dtype names to tilels' data types.
var torchDtypes = map[string]string{
	"float32": "float32", "float": "float32", "float16": "float16", "half": "float16",
	"bfloat16": "bfloat16", "float64": "float64", "double": "float64",
	"int8": "int8", "int16": "int16", "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
	"uint8": "uint8", "bool": "bool",
	"float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2", "float8_e8m0fnu": "float8_e8m0fnu",
}

// torchTensorV is a tensor tilels knows only the dtype of.
type torchTensorV struct {
	eval.Base
	DT ir.DataType
}

func (v *torchTensorV) TypeName() string { return "Tensor" }

func torchAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if s, ok := torchDtypes[name]; ok {
		if dt, ok := ir.ParseDType(s); ok {
			return &eval.DTypeV{Base: eval.Base{At: span}, DT: dt}, true
		}
	}
	switch name {
	case "empty", "zeros", "ones":
		return eval.Builtin("torch."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			v, _ := c.Kw("dtype")
			dv, ok := v.(*eval.DTypeV)
			if !ok {
				return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "torch." + name + "(...)"}
			}
			return &torchTensorV{Base: eval.Base{At: c.At}, DT: dv.DT}
		}), true
	}
	return nil, false
}

// torchTensorAttr is a tensor's attribute: element_size(), else opaque.
func torchTensorAttr(ev *eval.Evaluator, t *torchTensorV, name string, span source.Span) eval.Value {
	if name == "element_size" {
		bytes := int64(t.DT.Bytes())
		return eval.Builtin("Tensor.element_size", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "element_size", 0) {
				return eval.Poison(c.At)
			}
			return &eval.IntV{Base: eval.Base{At: c.At}, V: bytes}
		})
	}
	return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "torch.Tensor." + name}
}

// LibAttr implements eval.AttrValue.
func (t *torchTensorV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	return torchTensorAttr(ev, t, name, span)
}
