package common

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
)

// StructuralEqualMessage is the message of tvm.ir.assert_structural_equal(
// a.canonicalize(), b.canonicalize()), "" when the two are equal: it names
// the first differing part as TVM does for the common cases. From 0.26
// TVM's message names the access path again under each side, with a note
// that the underlined object (the whole layout) is the path's nearest
// visible parent.
func StructuralEqualMessage(a, b *layout.TileLayout, newer bool) string {
	ca, cb := layout.CanonicalTile(a), layout.CanonicalTile(b)
	if layout.Equal(ca, cb) {
		return ""
	}
	path := ""
	n := min(len(ca.Shard), len(cb.Shard))
	for i := 0; i < n && path == ""; i++ {
		x, y := ca.Shard[i], cb.Shard[i]
		switch {
		case x.Extent != y.Extent:
			path = fmt.Sprintf("<root>.shard[%d].extent.value", i)
		case x.Stride != y.Stride:
			path = fmt.Sprintf("<root>.shard[%d].stride.value", i)
		case x.Axis != y.Axis:
			path = fmt.Sprintf("<root>.shard[%d].axis.name", i)
		}
	}
	if path == "" && len(ca.Shard) != len(cb.Shard) {
		path = "<root>.shard"
	}
	if path == "" {
		path = "<root>.replica"
	}
	ta, tb := TileRepr(ca), TileRepr(cb)
	if newer {
		note := func(p string) string {
			return "Access path: " + p + "\nNote: The underlined object is the nearest visible parent of this path.\n\n"
		}
		return fmt.Sprintf("StructuralEqual check failed, caused by lhs at %s:\n%s%s\n%s\nand rhs at %s:\n%s%s\n%s",
			path, note(path), ta, strings.Repeat("^", len(ta)), path, note(path), tb, strings.Repeat("^", len(tb)))
	}
	return fmt.Sprintf("StructuralEqual check failed, caused by lhs at %s:\n%s\n%s\nand rhs at %s:\n%s\n%s",
		path, ta, strings.Repeat("^", len(ta)), path, tb, strings.Repeat("^", len(tb)))
}

// TileRepr prints a TileLayout as TVM's script printer does:
// T.TileLayout(T.S[(4, 16, 64):(32 @ Axis.TLane, 1 @ Axis.TLane, 1 @ Axis.TCol)]).
func TileRepr(l *layout.TileLayout) string {
	iters := func(its []layout.Iter) string {
		var e, s []string
		for _, it := range its {
			e = append(e, fmt.Sprint(it.Extent))
			if it.Axis == layout.M {
				s = append(s, fmt.Sprint(it.Stride))
			} else {
				s = append(s, fmt.Sprintf("%d @ Axis.%s", it.Stride, it.Axis.Name))
			}
		}
		if len(its) == 1 {
			return e[0] + ":" + s[0]
		}
		return "(" + strings.Join(e, ", ") + "):(" + strings.Join(s, ", ") + ")"
	}
	out := "T.S[" + iters(l.Shard) + "]"
	if len(l.Replica) > 0 {
		out += " + T.R[" + iters(l.Replica) + "]"
	}
	var offs []string
	for _, a := range []*layout.Axis{layout.TCol, layout.TLane, layout.M} {
		if v, ok := l.Offset[a]; ok && v != 0 {
			if a == layout.M {
				offs = append(offs, fmt.Sprint(v))
			} else {
				offs = append(offs, fmt.Sprintf("%d @ Axis.%s", v, a.Name))
			}
		}
	}
	switch len(offs) {
	case 0:
	case 1:
		out += " + " + offs[0]
	default:
		out += " + (" + strings.Join(offs, " + ") + ")"
	}
	return "T.TileLayout(" + out + ")"
}
