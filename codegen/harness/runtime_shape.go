package harness

import "github.com/tilels/tilels/ir"

// runtimeShapeUnsupported declines a kernel with a buffer parameter over
// a runtime dimension (ir.Buffer.ShapeExpr): the harness allocates and
// fills every buffer by its static size and has no value to give the
// runtime one, and it never guesses one.
func runtimeShapeUnsupported(k Kernel) *Unsupported {
	for _, p := range k.Func.Params {
		if p.Buf == nil {
			continue
		}
		if d := p.Buf.RuntimeDim(); d >= 0 {
			what := "a runtime dimension"
			if v, ok := p.Buf.ShapeExpr[d].(*ir.Var); ok {
				what = "runtime dimension `" + v.Name + "`"
			}
			return &Unsupported{Kernel: k.Name, Span: p.Buf.Span,
				Msg: "not modelled: buffer " + p.Buf.Name + " with " + what + " (the host reference needs its size)"}
		}
	}
	return nil
}

// tensorMapParamUnsupported declines a kernel with a T.TensorMap()
// parameter: its descriptor is encoded by the caller, from a tensor and a
// box the kernel does not name, and the harness has none to give.
func tensorMapParamUnsupported(k Kernel) *Unsupported {
	for _, p := range k.Func.Params {
		if p.TensorMap {
			return &Unsupported{Kernel: k.Name, Span: p.Span,
				Msg: "not modelled: tensor-map parameter " + p.Var.Name + " (the caller encodes its descriptor; the harness has none to give)"}
		}
	}
	return nil
}
