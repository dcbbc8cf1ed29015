package harness

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// launchable declines a kernel the harness cannot launch at all: its
// launch configuration, a scalar parameter's value, a buffer parameter's
// size, layout or dtype, or a tensor map is unknown, or it has no buffer
// to give. Anything else the host reference lacks leaves the kernel
// launched but unchecked (Print).
func launchable(k Kernel) *Unsupported {
	u := tensorMapParamUnsupported(k)
	if u == nil {
		u = runtimeShapeUnsupported(k)
	}
	fn := k.Func
	if u == nil && k.Launch.Threads() <= 0 {
		u = &Unsupported{Kernel: k.Name, Span: fn.Span, Msg: "the launch configuration is unknown"}
	}
	bufs := 0
	for _, p := range fn.Params {
		if u != nil {
			break
		}
		if p.Buf != nil {
			bufs++
			if dtypeEnum(p.Buf.Dtype) == "" || p.Buf.Dtype.Bytes() <= 0 {
				u = &Unsupported{Kernel: k.Name, Span: p.Buf.Span, Msg: fmt.Sprintf(
					"buffer %s has dtype %s, which the harness cannot fill", p.Buf.Name, p.Buf.Dtype)}
				continue
			}
			if p.Buf.Layout != nil {
				if _, bad := layoutInit(p.Buf.Layout); bad != "" {
					u = &Unsupported{Kernel: k.Name, Span: p.Buf.Span, Msg: "buffer " + p.Buf.Name + ": " + bad}
				}
			}
			continue
		}
		if _, ok := launchValue(fn, p.Var); !ok {
			u = &Unsupported{Kernel: k.Name, Span: p.Span, Msg: fmt.Sprintf(
				"scalar kernel parameter %s: the harness cannot choose its value (a `# tilels: bind %s=...` line above the kernel gives it one)",
				p.Var.Name, p.Var.Name)}
		}
	}
	if u == nil && k.Launch.Cluster[0]*k.Launch.Cluster[1]*k.Launch.Cluster[2] <= 1 {
		if at, ok := mapsOtherCTAs(fn); ok {
			// (a CTA of no cluster has no other CTA's shared memory to
			// map: the launch fails, 'unspecified launch failure')
			u = &Unsupported{Kernel: k.Name, Span: at,
				Msg: "the kernel maps another CTA's shared memory (T.ptx.mapa) but is launched without a cluster"}
		}
	}
	if u == nil && bufs == 0 {
		u = &Unsupported{Kernel: k.Name, Span: fn.Span, Msg: "the kernel has no buffer parameters to check"}
	}
	if u != nil {
		u.Launch = true
	}
	return u
}

// runtimeShapeUnsupported declines a kernel with a buffer parameter over
// a runtime dimension (ir.Buffer.ShapeExpr): the harness allocates and
// fills every buffer by its static size and has no value to give the
// runtime one, and it never guesses one.
func runtimeShapeUnsupported(k Kernel) *Unsupported {
	for _, p := range k.Func.Params {
		if p.Buf == nil {
			continue
		}
		if _, sized := launchShape(k.Func, p.Buf); sized {
			continue // sized by the launch its bind line gives
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

// launchShape is the shape of b in the launch fn's bind line gives
// (ir.Func.LaunchArgs), ok for a buffer whose one runtime extent is the
// outermost but for extents 1 before it, default-laid-out (row-major) and
// folds to a positive value over those values; else b's static shape.
func launchShape(fn *ir.Func, b *ir.Buffer) ([]int64, bool) {
	d := b.RuntimeDim()
	if d < 0 || b.Layout != nil || len(fn.LaunchArgs) == 0 {
		return b.Shape, false
	}
	for _, n := range b.Shape[:d] {
		if n != 1 {
			return b.Shape, false // (only extents 1 before it: (1, seq_kv))
		}
	}
	for _, e := range b.ShapeExpr[d+1:] {
		if e != nil {
			return b.Shape, false
		}
	}
	n, ok := foldLaunch(b.ShapeExpr[d], fn.LaunchArgs)
	if !ok || n <= 0 {
		return b.Shape, false
	}
	out := append([]int64(nil), b.Shape...)
	out[d] = n
	return out, true
}

// foldLaunch folds integer expression e over the launch's values.
func foldLaunch(e ir.Expr, args []ir.LaunchArg) (int64, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value, true
	case *ir.Var:
		for _, a := range args {
			if a.Var == e {
				return a.Value, true
			}
		}
	case *ir.Cast:
		return foldLaunch(e.X, args)
	case *ir.Binary:
		a, ok1 := foldLaunch(e.A, args)
		b, ok2 := foldLaunch(e.B, args)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case ir.Add:
			return a + b, true
		case ir.Sub:
			return a - b, true
		case ir.Mul:
			return a * b, true
		case ir.FloorDiv, ir.FloorMod:
			if b == 0 {
				return 0, false
			}
			q := a / b
			if (a%b != 0) && ((a < 0) != (b < 0)) {
				q--
			}
			if e.Op == ir.FloorDiv {
				return q, true
			}
			return a - q*b, true
		case ir.Min:
			return min(a, b), true
		case ir.Max:
			return max(a, b), true
		}
	}
	return 0, false
}

// shapeOf is b's shape in kernel fn's launch (launchShape).
func shapeOf(fn *ir.Func, b *ir.Buffer) []int64 {
	sh, _ := launchShape(fn, b)
	return sh
}

// storageOf is storageElems for b in kernel fn's launch.
func storageOf(fn *ir.Func, b *ir.Buffer) int64 {
	if sh, ok := launchShape(fn, b); ok {
		n := int64(1)
		for _, x := range sh {
			n *= x
		}
		return n
	}
	return storageElems(b)
}

// mapsOtherCTAs reports where fn first maps a shared address into a CTA
// of its cluster (a T.ptx.mapa form: remote views and remote= arrives)
// when it also operates on the cluster's shared window (an arrive or copy
// on `shared::cluster`): in a grid without clusters that address is no
// CTA's, and the launch fails. A mapa alone computes an address (no
// fault: user_ldst maps one and never uses it).
func mapsOtherCTAs(fn *ir.Func) (source.Span, bool) {
	at := source.NoSpan
	uses := false
	var expr func(e ir.Expr)
	expr = func(e ir.Expr) {
		if c, ok := e.(*ir.Call); ok {
			switch {
			case strings.HasPrefix(c.Op, "ptx.mapa"):
				if at == source.NoSpan {
					at = c.Span
				}
			case strings.Contains(c.Op, "shared::cluster") || strings.Contains(c.Op, "shared__cluster"):
				uses = true
			}
			for _, a := range c.Args {
				expr(a)
			}
		}
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if ev, ok := s.(*ir.Evaluate); ok {
			expr(ev.X)
		}
	})
	return at, at != source.NoSpan && uses
}
