package eval

import (
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
	base
	DT ir.DataType
}

func (v *torchTensorV) TypeName() string { return "Tensor" }

func torchAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if s, ok := torchDtypes[name]; ok {
		if dt, ok := ir.ParseDType(s); ok {
			return &DTypeV{base: base{span}, DT: dt}, true
		}
	}
	switch name {
	case "empty", "zeros", "ones":
		return builtin("torch."+name, func(ev *evaluator, c *call) Value {
			v, _ := c.kw("dtype")
			dv, ok := v.(*DTypeV)
			if !ok {
				return &OpaqueV{base{c.span}, "torch." + name + "(...)"}
			}
			return &torchTensorV{base: base{c.span}, DT: dv.DT}
		}), true
	}
	return nil, false
}

// torchTensorAttr is a tensor's attribute: element_size(), else opaque.
func (ev *evaluator) torchTensorAttr(t *torchTensorV, name string, span source.Span) Value {
	if name == "element_size" {
		bytes := int64(t.DT.Bytes())
		return builtin("Tensor.element_size", func(ev *evaluator, c *call) Value {
			if !ev.checkArgs(c, "element_size", 0) {
				return poison(c.span)
			}
			return &IntV{base{c.span}, bytes}
		})
	}
	return &OpaqueV{base{span}, "torch.Tensor." + name}
}
