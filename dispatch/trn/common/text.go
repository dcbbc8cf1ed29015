package common

import (
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
)

// RegionText prints a region as TVM's script printer does inside an
// assertion message: "B_sbuf[0:256, 512 * k:512 * k + 512]", an extent-1
// dimension as its index. A symbolic extent is Unmodelled (the printer's
// simplification of min + extent is not modelled).
func RegionText(r *Region) string {
	switch r.Name() {
	case "T", "I", "R":
		// The printer renames a buffer that shadows a script namespace
		// (R -> R_1); its renaming is not modelled.
		Unmodelled("the name TVM's printer gives buffer %s", r.Name())
	}
	parts := make([]string, len(r.Ext))
	for d := range r.Ext {
		e, ok := r.ExtAff[d].Const()
		if !ok {
			Unmodelled("the text TVM prints for region %s with a symbolic extent", r.Name())
		}
		var min ir.Expr
		if d < len(r.R.Min) {
			min = r.R.Min[d]
		}
		m, isConst := r.Min[d].Const()
		switch {
		case e == 1 && isConst:
			parts[d] = Sprintf("%d", m)
		case e == 1:
			parts[d] = bare(dispatch.ExprText(min))
		case isConst:
			parts[d] = Sprintf("%d:%d", m, m+e)
		default:
			t := bare(dispatch.ExprText(min))
			parts[d] = Sprintf("%s:%s + %d", t, t, e)
		}
	}
	return r.Name() + "[" + strings.Join(parts, ", ") + "]"
}

// bare drops the parentheses around a whole expression ("(512 * k)").
func bare(t string) string {
	if len(t) < 2 || t[0] != '(' || t[len(t)-1] != ')' {
		return t
	}
	depth := 0
	for i, ch := range t {
		switch ch {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(t)-1 {
				return t
			}
		}
	}
	return t[1 : len(t)-1]
}
