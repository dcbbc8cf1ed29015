package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// A shard whose strides on the memory axis are runtime values:
// flash_attention_backward.py's RowiseSwizzleOffset builds
// `TileLayout(S[(2, 2, 2, 8) : [signed_strides[2], signed_strides[1],
// signed_strides[0], 0]])` over a register array of each thread's signed
// strides and asks only `.apply(offset)["m"]`, a thread's swizzled offset
// (TVM folds the layout into that sum). tilels' layouts take static
// strides, so such a shard is a RuntimeShardV, and its TileLayout a
// RuntimeLayoutV whose apply computes the sum over the offset's digits
// (the first digit keeps what is left, as layout.SplitCoord). Any other
// use of it is not modelled.

// RuntimeShardV is S[extents : strides] with runtime memory strides.
type RuntimeShardV struct {
	eval.Base
	Extents []int64
	Strides []ir.Expr
	// At is where the first runtime stride is written.
	At source.Span
}

func (*RuntimeShardV) TypeName() string { return "LayoutSpec" }

// RuntimeLayoutV is TileLayout of a RuntimeShardV.
type RuntimeLayoutV struct {
	eval.Base
	Extents []int64
	Strides []ir.Expr
	At      source.Span // (RuntimeShardV.At)
}

func (*RuntimeLayoutV) TypeName() string { return "TileLayout" }

// Unmodelled implements eval.PartialValue: as a buffer's layout, it says
// what the static path said of the stride.
func (l *RuntimeLayoutV) Unmodelled() (string, source.Span) {
	for _, s := range l.Strides {
		if _, ok := ir.ConstInt(s); !ok {
			return "runtime layout stride `" + eval.Clip(eval.ExprString(s), 60) + "`; tilels' layouts take static strides", l.At
		}
	}
	return "a layout with runtime strides", l.At
}

// LibAttr implements eval.AttrValue: apply(offset) or apply(*coord),
// a dict of the memory axis ("m") only.
func (l *RuntimeLayoutV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	if name != "apply" {
		return &eval.OpaqueV{Base: eval.Base{At: span}, Path: "TileLayout." + name + " of a layout with runtime strides"}
	}
	return eval.Method("TileLayout.apply", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
		if len(c.Kwargs) > 0 || (len(c.Args) != 1 && len(c.Args) != len(l.Extents)) {
			return &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "TileLayout.apply of a layout with runtime strides, with a shape="}
		}
		coord := make([]ir.Expr, len(c.Args))
		for i, a := range c.Args {
			if eval.IsErr(a) {
				return ev.NeedConcrete(a, c.ArgSpans[i], "a layout coordinate")
			}
			e, ok := ev.IndexExpr(a)
			if !ok {
				return ev.Errorf(c.ArgSpans[i], eval.CodeType, "a layout coordinate must be an integer, got %s", eval.Describe(a))
			}
			coord[i] = e
		}
		digits := coord
		if len(coord) == 1 && len(l.Extents) > 1 {
			// split the linear index: the last digit fastest, the first
			// keeps what is left
			digits = make([]ir.Expr, len(l.Extents))
			x := coord[0]
			for i := len(l.Extents) - 1; i > 0; i-- {
				digits[i] = ir.SimplifyIndex(&ir.Binary{Op: ir.FloorMod, A: x, B: ir.Const(l.Extents[i]), Span: c.At})
				x = ir.SimplifyIndex(&ir.Binary{Op: ir.FloorDiv, A: x, B: ir.Const(l.Extents[i]), Span: c.At})
			}
			digits[0] = x
		}
		var m ir.Expr = ir.Const(0)
		for i, d := range digits {
			if s, ok := ir.ConstInt(l.Strides[i]); ok && s == 0 {
				continue
			}
			m = ir.AddE(m, ir.MulE(d, l.Strides[i]))
		}
		d := eval.NewDict(c.At)
		d.Set(&eval.StrV{Base: eval.Base{At: c.At}, V: "m"}, &eval.ExprV{Base: eval.Base{At: c.At}, E: ir.SimplifyIndex(m)})
		return d
	})
}

// runtimeShard returns S[extents : strides] as a RuntimeShardV when every
// stride is an integer or a runtime integer value and one is the latter
// (nil otherwise: the static path reports what is wrong).
func runtimeShard(ev *eval.Evaluator, extents []int64, strV []eval.Value, at source.Span) *RuntimeShardV {
	if len(strV) != len(extents) {
		return nil
	}
	strides := make([]ir.Expr, len(strV))
	dynamic := false
	first := source.NoSpan
	for i, x := range strV {
		if n, ok := eval.ToInt(x); ok {
			strides[i] = ir.Const(n)
			continue
		}
		r, isExpr := x.(*eval.ExprV)
		if !isExpr || !isIntExpr(r.E) {
			return nil
		}
		if !dynamic {
			first = orSpan(x.Span(), at)
		}
		strides[i], dynamic = r.E, true
	}
	if !dynamic {
		return nil
	}
	return &RuntimeShardV{Base: eval.Base{At: at}, Extents: extents, Strides: strides, At: first}
}

func isIntExpr(e ir.Expr) bool {
	t := eval.ExprType(e)
	return t.Code == ir.Int || t.Code == ir.UInt
}
