package eval

import (
	"math/bits"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// GetAttr evaluates obj.name; a missing attribute is an error.
func (ev *Evaluator) GetAttr(obj Value, name string, nameSpan, span source.Span) Value {
	if v := ev.attr(obj, name, nameSpan, span, false); v != nil {
		return v
	}
	return Poison(span)
}

// quietAttr is getAttr that returns nil for a missing attribute without
// reporting (hasattr, getattr with a default).
func (ev *Evaluator) quietAttr(obj Value, name string, nameSpan, span source.Span) Value {
	return ev.attr(obj, name, nameSpan, span, true)
}

func (ev *Evaluator) attr(obj Value, name string, nameSpan, span source.Span, quiet bool) Value {
	var v Value
	switch o := obj.(type) {
	case *PoisonV, *UnboundV:
		return obj
	case *OpaqueV:
		if name == "data" && ev.Kern != nil && ev.Kern.unbuiltData[o] != nil {
			return &ExprV{Base: Base{span}, E: ev.Kern.unbuiltData[o]} // (dynamic_shape.go)
		}
		return ev.ResolvePath(o.Path+"."+name, span)
	case *ModuleV:
		ev.checkSurfaceAttr(o, name, nameSpan) // release_surface.go
		if o.Path == TPath {
			if x, ok := ev.oldDialectAttr(name, span); ok {
				return x
			}
		}
		if o.Attr != nil {
			if x, ok := o.Attr(ev, name, span); ok {
				return x
			}
		}
		if o.Path == TxPath {
			if quiet {
				return nil
			}
			return ev.Errorf(nameSpan, CodeUnknownOp, "unknown tile primitive `Tx.%s`", name)
		}
		if o.Closed {
			break
		}
		return ev.ResolvePath(o.Path+"."+name, span)
	case AttrValue: // a library value (library.go)
		v = o.LibAttr(ev, name, span)
	case *TxNSV:
		v = ev.libTxAttr(o, name, nameSpan, span, quiet) // library.go
		if v == nil && !quiet {
			return Poison(span)
		}
		return v
	case *StrV:
		v = ev.strMethod(o, name)
	case *ListV:
		v = ev.listMethod(o, name)
		if v == nil {
			// sets are modelled as lists; their methods are opaque
			v = &OpaqueV{Base{span}, "list." + name}
		}
	case *TupleV:
		v = ev.tupleMethod(o, name)
	case *DictV:
		v = ev.dictMethod(o, name)
	case *IntV:
		if name == "bit_length" {
			n := o.V
			v = Method("int.bit_length", func(ev *Evaluator, c *Call) Value {
				if n < 0 {
					n = -n
				}
				return &IntV{Base{c.At}, int64(bits.Len64(uint64(n)))}
			})
		}
	case *FloatV:
		if name == "is_integer" {
			f := o.V
			v = Method("float.is_integer", func(ev *Evaluator, c *Call) Value {
				return &BoolV{Base{c.At}, f == float64(int64(f))}
			})
		}
	case *DTypeV:
		switch name {
		case "bits":
			v = &IntV{Base{span}, int64(o.DT.Bits)}
		case "lanes":
			v = &IntV{Base{span}, 1}
		case "dtype":
			v = &StrV{Base{span}, o.DT.String()}
		case "type_code":
			v = &IntV{Base{span}, int64(o.DT.Code)}
		case "is_float", "is_float16", "is_bfloat16":
			dt := o.DT
			v = Method("DataType."+name, func(ev *Evaluator, c *Call) Value {
				r := dt.IsFloat()
				if name == "is_float16" {
					r = dt == ir.Float16
				} else if name == "is_bfloat16" {
					r = dt == ir.BF16
				}
				return &BoolV{Base{c.At}, r}
			})
		}
	case *EnumV:
		switch name {
		case "value":
			v = &IntV{Base{span}, o.V}
		case "name":
			v = &StrV{Base{span}, o.Name}
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
			v = &StrV{Base{span}, o.Name}
		}
	case *ExprV:
		switch name {
		case "dtype":
			v = &StrV{Base{span}, ExprType(o.E).String()}
		case "value":
			if n, ok := ToInt(o); ok {
				v = &IntV{Base{span}, n}
			} else if f, ok := o.E.(*ir.FloatImm); ok {
				v = &FloatV{Base{span}, f.Value}
			}
		case "name":
			if vr, ok := o.E.(*ir.Var); ok {
				v = &StrV{Base{span}, vr.Name}
			}
		}
		if v == nil {
			v = &OpaqueV{Base{span}, ExprString(o.E) + "." + name}
		}
	case *BufferV:
		v = ev.BufferAttr(o, name, span)
	case *RegionV:
		switch name {
		case "buffer":
			v = &BufferV{Base{span}, o.R.Buf}
		case "region":
			out := make([]Value, len(o.R.Min))
			for i := range o.R.Min {
				out[i] = &TupleV{Base{span}, []Value{&ExprV{Base: Base{span}, E: o.R.Min[i]}, &ExprV{Base: Base{span}, E: o.R.Extent[i]}}}
			}
			v = &ListV{Base{span}, out}
		}
	case *LayoutV, *AxisV, *IterV, *SpecV:
		v = ev.libLayoutAttr(obj, name, span) // library.go
	case *PoolV:
		v = ev.libPoolAttr(o, name, span) // library.go
	case *IntrinsicV:
		x := ev.slabs.intrinsics.new()
		*x = IntrinsicV{Base{span}, ev.joinPath(o.Path, name)}
		v = x
	case *KernelV:
		v = &OpaqueV{Base{span}, o.K.Func.Name + "." + name}
	case *JitV:
		v = ev.jitAttr(o, name, span)
	case *ClassV, *InstanceV, *descV:
		v = ev.classObjAttr(obj, name, span) // class.go
	case *MarkerV:
		v = &OpaqueV{Base{span}, o.Name + "." + name}
	}
	if v != nil || quiet {
		return v
	}
	return ev.PyErrorf(nameSpan, "'%s' object has no attribute '%s'", obj.TypeName(), name)
}
