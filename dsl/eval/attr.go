package eval

import (
	"math/bits"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// getAttr evaluates obj.name; a missing attribute is an error.
func (ev *evaluator) getAttr(obj Value, name string, nameSpan, span source.Span) Value {
	if v := ev.attr(obj, name, nameSpan, span, false); v != nil {
		return v
	}
	return poison(span)
}

// quietAttr is getAttr that returns nil for a missing attribute without
// reporting (hasattr, getattr with a default).
func (ev *evaluator) quietAttr(obj Value, name string, nameSpan, span source.Span) Value {
	return ev.attr(obj, name, nameSpan, span, true)
}

func (ev *evaluator) attr(obj Value, name string, nameSpan, span source.Span, quiet bool) Value {
	var v Value
	switch o := obj.(type) {
	case *PoisonV, *UnboundV:
		return obj
	case *OpaqueV:
		return ev.resolvePath(o.Path+"."+name, span)
	case *ModuleV:
		ev.checkSurfaceAttr(o, name, nameSpan) // release_surface.go
		if o.Path == tPath {
			if x, ok := ev.oldDialectAttr(name, span); ok {
				return x
			}
		}
		if o.attr != nil {
			if x, ok := o.attr(ev, name, span); ok {
				return x
			}
		}
		if o.Path == txPath {
			if quiet {
				return nil
			}
			return ev.errorf(nameSpan, CodeUnknownOp, "unknown tile primitive `Tx.%s`", name)
		}
		if o.closed {
			break
		}
		return ev.resolvePath(o.Path+"."+name, span)
	case *torchTensorV: // lib_torch.go
		return ev.torchTensorAttr(o, name, span)
	case *TxNSV:
		v = ev.txAttr(o, name, nameSpan, span, quiet)
		if v == nil && !quiet {
			return poison(span)
		}
		return v
	case *StrV:
		v = ev.strMethod(o, name)
	case *ListV:
		v = ev.listMethod(o, name)
		if v == nil {
			// sets are modelled as lists; their methods are opaque
			v = &OpaqueV{base{span}, "list." + name}
		}
	case *TupleV:
		v = ev.tupleMethod(o, name)
	case *DictV:
		v = ev.dictMethod(o, name)
	case *IntV:
		if name == "bit_length" {
			n := o.V
			v = method("int.bit_length", func(ev *evaluator, c *call) Value {
				if n < 0 {
					n = -n
				}
				return &IntV{base{c.span}, int64(bits.Len64(uint64(n)))}
			})
		}
	case *FloatV:
		if name == "is_integer" {
			f := o.V
			v = method("float.is_integer", func(ev *evaluator, c *call) Value {
				return &BoolV{base{c.span}, f == float64(int64(f))}
			})
		}
	case *DTypeV:
		switch name {
		case "bits":
			v = &IntV{base{span}, int64(o.DT.Bits)}
		case "lanes":
			v = &IntV{base{span}, 1}
		case "dtype":
			v = &StrV{base{span}, o.DT.String()}
		case "type_code":
			v = &IntV{base{span}, int64(o.DT.Code)}
		case "is_float", "is_float16", "is_bfloat16":
			dt := o.DT
			v = method("DataType."+name, func(ev *evaluator, c *call) Value {
				r := dt.IsFloat()
				if name == "is_float16" {
					r = dt == ir.Float16
				} else if name == "is_bfloat16" {
					r = dt == ir.BF16
				}
				return &BoolV{base{c.span}, r}
			})
		}
	case *EnumV:
		switch name {
		case "value":
			v = &IntV{base{span}, o.V}
		case "name":
			v = &StrV{base{span}, o.Name}
		}
	case *SliceV:
		switch name {
		case "start":
			v = o.Lo
		case "stop":
			v = o.Hi
		case "step":
			v = o.Step
		}
	case *FuncV:
		if name == "__name__" {
			v = &StrV{base{span}, o.Name}
		}
	case *ExprV:
		switch name {
		case "dtype":
			v = &StrV{base{span}, exprType(o.E).String()}
		case "value":
			if n, ok := toInt(o); ok {
				v = &IntV{base{span}, n}
			} else if f, ok := o.E.(*ir.FloatImm); ok {
				v = &FloatV{base{span}, f.Value}
			}
		case "name":
			if vr, ok := o.E.(*ir.Var); ok {
				v = &StrV{base{span}, vr.Name}
			}
		}
		if v == nil {
			v = &OpaqueV{base{span}, ExprString(o.E) + "." + name}
		}
	case *BufferV:
		v = ev.bufferAttr(o, name, span)
	case *RegionV:
		switch name {
		case "buffer":
			v = &BufferV{base{span}, o.R.Buf}
		case "region":
			out := make([]Value, len(o.R.Min))
			for i := range o.R.Min {
				out[i] = &TupleV{base{span}, []Value{&ExprV{base: base{span}, E: o.R.Min[i]}, &ExprV{base: base{span}, E: o.R.Extent[i]}}}
			}
			v = &ListV{base{span}, out}
		}
	case *LayoutV, *AxisV, *IterV, *SpecV:
		v = ev.layoutAttr(obj, name, span)
	case *PoolV:
		v = ev.poolAttr(o, name, span)
	case *TMEMPoolV:
		v = ev.tmemPoolAttr(o, name, span) // lib_alloc_pool.go
	case *IntrinsicV:
		v = &IntrinsicV{base{span}, o.Path + "." + name}
	case *KernelV:
		v = &OpaqueV{base{span}, o.K.Func.Name + "." + name}
	case *JitV:
		v = ev.jitAttr(o, name, span)
	case *BarrierV:
		v = ev.barrierAttr(o, name, span)
	case *PipelineV:
		v = ev.pipelineObjAttr(o, name, span)
	case *PipelineStateV:
		v = ev.pipelineStateAttr(o, name, span)
	case *ClassV, *InstanceV, *descV:
		v = ev.classObjAttr(obj, name, span) // class.go
	case *MarkerV:
		v = &OpaqueV{base{span}, o.Name + "." + name}
	}
	if v != nil || quiet {
		return v
	}
	return ev.pyErrorf(nameSpan, "'%s' object has no attribute '%s'", obj.TypeName(), name)
}
