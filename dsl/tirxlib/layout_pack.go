package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"
	"math/bits"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Layout.pack(num), Layout.unpack(num) and Layout.broadcast(num,
// position=-1, axis="m") of tvm/tirx/layout.py, and Buffer.view(dtype)
// over a layout other than row-major, which re-lays the buffer with them.

// unpackLayout is Layout.unpack(num): every element becomes num contiguous
// ones (strides scaled, an inner (num, 1@m) iter appended); a swizzle's
// per_element grows by log2(num).
func unpackLayout(l layout.Layout, num int64) (layout.Layout, error) {
	switch x := l.(type) {
	case *layout.TileLayout:
		shard := make([]layout.Iter, 0, len(x.Shard)+1)
		for _, it := range x.Shard {
			shard = append(shard, layout.It(it.Extent, it.Stride*num, it.Axis))
		}
		shard = append(shard, layout.It(num, 1, layout.M))
		return layout.NewTile(shard, x.Replica, x.Offset), nil
	case *layout.ComposeLayout:
		if num <= 0 || num&(num-1) != 0 {
			return nil, fmt.Errorf("num must be a power of 2")
		}
		t, err := unpackLayout(x.Tile, num)
		if err != nil {
			return nil, err
		}
		return layout.NewCompose(x.PerElement+bits.Len64(uint64(num))-1, x.SwizzleLen, x.AtomLen, x.SwizzleInner, t.(*layout.TileLayout))
	}
	return nil, fmt.Errorf("Unsupported layout type: %T", l)
}

// packLayout is Layout.pack(num): num contiguous elements become one (the
// innermost iter, stride 1 on a memory axis, divided by num, the other
// strides too); a swizzle's per_element shrinks by log2(num).
func packLayout(l layout.Layout, num int64) (layout.Layout, error) {
	switch x := l.(type) {
	case *layout.TileLayout:
		n := len(x.Shard)
		if n == 0 || num <= 0 {
			return nil, fmt.Errorf("Layout %s can not be packed into %d elements", x, num)
		}
		in := x.Shard[n-1]
		if in.Stride != 1 || in.Extent%num != 0 || !in.Axis.IsMemory() {
			return nil, fmt.Errorf("Layout %s can not be packed into %d elements", x, num)
		}
		shard := make([]layout.Iter, 0, n)
		for _, it := range x.Shard[:n-1] {
			shard = append(shard, layout.It(it.Extent, it.Stride/num, it.Axis))
		}
		shard = append(shard, layout.It(in.Extent/num, 1, in.Axis))
		return layout.NewTile(shard, x.Replica, x.Offset), nil
	case *layout.ComposeLayout:
		if num <= 0 || num&(num-1) != 0 {
			return nil, fmt.Errorf("num must be a power of 2")
		}
		shift := bits.Len64(uint64(num)) - 1
		if x.PerElement < shift {
			return nil, fmt.Errorf("per_element must be greater than or equal to num.bit_length() - 1")
		}
		t, err := packLayout(x.Tile, num)
		if err != nil {
			return nil, err
		}
		return layout.NewCompose(x.PerElement-shift, x.SwizzleLen, x.AtomLen, x.SwizzleInner, t.(*layout.TileLayout))
	}
	return nil, fmt.Errorf("Unsupported layout type: %T", l)
}

// broadcastLayout is Layout.broadcast(num, position, axis): a stride-0
// shard iter of extent num inserted at position (list.insert semantics,
// -1 appends).
func broadcastLayout(l layout.Layout, num int64, position int, axis *layout.Axis) (layout.Layout, error) {
	switch x := l.(type) {
	case *layout.TileLayout:
		shard := append([]layout.Iter(nil), x.Shard...)
		at := position
		if at < 0 {
			at = len(shard) + 1 + position
		}
		at = min(max(at, 0), len(shard))
		shard = append(shard[:at], append([]layout.Iter{layout.It(num, 0, axis)}, shard[at:]...)...)
		return layout.NewTile(shard, x.Replica, x.Offset), nil
	case *layout.ComposeLayout:
		t, err := broadcastLayout(x.Tile, num, position, axis)
		if err != nil {
			return nil, err
		}
		return layout.NewCompose(x.PerElement, x.SwizzleLen, x.AtomLen, x.SwizzleInner, t.(*layout.TileLayout))
	}
	return nil, fmt.Errorf("broadcast not supported for %T", l)
}

// layoutPackMethod returns Layout.pack / unpack / broadcast, nil for other
// names.
func layoutPackMethod(ev *eval.Evaluator, o *eval.LayoutV, name string) eval.Value {
	switch name {
	case "pack", "unpack":
		return eval.Method("Layout."+name, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, name, 1, "num") {
				return eval.Poison(c.At)
			}
			n, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "num")
			if !ok {
				return eval.Poison(c.At)
			}
			f := packLayout
			if name == "unpack" {
				f = unpackLayout
			}
			l, err := f(o.L, n)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			return newLayoutV(ev, l, c.At)
		})
	case "broadcast":
		return eval.Method("Layout.broadcast", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, "broadcast", 1, "num", "position", "axis") {
				return eval.Poison(c.At)
			}
			n, ok := ev.IntArg(c.Args[0], c.ArgSpans[0], "num")
			if !ok {
				return eval.Poison(c.At)
			}
			pos := int64(-1)
			if v := c.Arg(1, "position"); v != nil {
				if pos, ok = ev.IntArg(v, c.ArgSpan(1, "position"), "position"); !ok {
					return eval.Poison(c.At)
				}
			}
			ax := layout.M
			if v := c.Arg(2, "axis"); v != nil {
				if ax, ok = axisOf(ev, v, c.ArgSpan(2, "axis")); !ok {
					return eval.Poison(c.At)
				}
			}
			l, err := broadcastLayout(o.L, n, int(pos), ax)
			if err != nil {
				return ev.Errorf(c.At, eval.CodeType, "%v", err)
			}
			return newLayoutV(ev, l, c.At)
		})
	}
	return nil
}

// bufferViewDtypeLaidOut is Buffer.view(dtype) of a buffer whose layout is
// not row-major (_buffer_view.view): a wider dtype packs the layout by the
// ratio of the sizes and divides the last dimension and the element
// offset by it, a narrower one unpacks and multiplies.
func bufferViewDtypeLaidOut(ev *eval.Evaluator, buf *ir.Buffer, c *eval.Call, dt ir.DataType) eval.Value {
	cur, to := int64(buf.Dtype.Bits), int64(dt.Bits)
	shape := append([]int64(nil), buf.Shape...)
	last := len(shape) - 1
	off := buf.ElemOffset
	var l layout.Layout
	var err error
	if to > cur {
		if to%cur != 0 {
			return ev.Errorf(c.At, eval.CodeType, "Buffer.view(%s) of %s elements: the sizes do not divide", eval.PyQuote(dt.String()), buf.Dtype)
		}
		r := to / cur
		l, err = packLayout(buf.Layout, r)
		shape[last] /= r
		off /= r
	} else {
		if cur%to != 0 {
			return ev.Errorf(c.At, eval.CodeType, "Buffer.view(%s) of %s elements: the sizes do not divide", eval.PyQuote(dt.String()), buf.Dtype)
		}
		r := cur / to
		l, err = unpackLayout(buf.Layout, r)
		shape[last] *= r
		off *= r
	}
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	name, nameSpan := ev.HintName(c, buf.Name+"_view")
	nb := &ir.Buffer{Name: name, Data: buf.Data, Shape: shape, Dtype: dt, Scope: buf.Scope,
		Layout: l, ElemOffset: off, Base: buf, Kind: ir.DeclBuffer, Span: c.At}
	ev.AddBufferSite(nb, nameSpan, c.At, source.NoSpan)
	emitView(ev, nb)
	return &eval.BufferV{Base: eval.Base{At: c.At}, B: nb}
}
