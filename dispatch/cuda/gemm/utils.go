package gemm

// Helpers of the gemm variants: TVM's spellings of values inside decline
// texts (a layout's repr, a Python float, a tuple of ints) and argument
// readers. TVM's gemm_utils.py (validate_gemm_op) has no caller in the
// reference (its args[3:5] predate the current [D, A, B, C, transpose_A,
// ...] order), so it is not ported.

import (
	"math"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// pyFloat is Python's repr of a float: "2.0", "0.5", "1e-05", "1e+16".
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	a := math.Abs(v)
	if v == 0 || (a >= 1e-4 && a < 1e16) {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // 1e-05, 1.5e+16
	return s
}

// exprRepr is TVM's repr of a scalar argument: T.float32(2.0) for a float
// constant, 2 for an int32 constant, the expression text otherwise.
func exprRepr(e ir.Expr) string {
	switch e := e.(type) {
	case *ir.FloatImm:
		return "T." + e.Type.String() + "(" + pyFloat(e.Value) + ")"
	case *ir.IntImm:
		if e.Type.Code == ir.Bool {
			if e.Value != 0 {
				return "T.bool(True)"
			}
			return "T.bool(False)"
		}
		if e.Type.IsValid() && e.Type != ir.Int32 {
			return "T." + e.Type.String() + "(" + strconv.FormatInt(e.Value, 10) + ")"
		}
		return strconv.FormatInt(e.Value, 10)
	}
	return dispatch.ExprText(e)
}

// constScalar is the reference's _const_scalar: the value of a constant
// scalar, ok false for anything else.
func constScalar(e ir.Expr) (float64, bool) {
	switch e := e.(type) {
	case *ir.FloatImm:
		return e.Value, true
	case *ir.IntImm:
		return float64(e.Value), true
	}
	return 0, false
}

// pyTuple prints ints as a Python tuple: "(16, 8)", "(256,)".
func pyTuple(xs []int64) string {
	if len(xs) == 1 {
		return "(" + strconv.FormatInt(xs[0], 10) + ",)"
	}
	return "(" + joinInts(xs) + ")"
}

// pyList prints ints as a Python list: "[2, 8]".
func pyList(xs []int64) string { return "[" + joinInts(xs) + "]" }

func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ", ")
}

// layoutRepr is TVM's repr of a TileLayout:
// T.TileLayout(T.S[(2, 8):(2, 4 @ Axis.laneid)]).
func layoutRepr(l *layout.TileLayout) string {
	var b strings.Builder
	b.WriteString("T.TileLayout(T.S[")
	writeIters(&b, l.Shard)
	b.WriteString("]")
	if len(l.Replica) > 0 {
		b.WriteString(" + T.R[")
		writeIters(&b, l.Replica)
		b.WriteString("]")
	}
	var terms []string
	var mem int64
	hasMem := false
	for _, a := range sortedAxes(l.Offset) {
		if a == layout.M {
			mem, hasMem = l.Offset[a], true
			continue
		}
		terms = append(terms, strconv.FormatInt(l.Offset[a], 10)+" @ Axis."+a.Name)
	}
	if len(terms) > 0 || hasMem {
		terms = append(terms, strconv.FormatInt(mem, 10))
		b.WriteString(" + (" + strings.Join(terms, " + ") + ")")
	}
	b.WriteString(")")
	return b.String()
}

func writeIters(b *strings.Builder, its []layout.Iter) {
	ext := make([]int64, len(its))
	strides := make([]string, len(its))
	for i, it := range its {
		ext[i] = it.Extent
		strides[i] = strconv.FormatInt(it.Stride, 10)
		if it.Axis != nil && it.Axis != layout.M {
			strides[i] += " @ Axis." + it.Axis.Name
		}
	}
	if len(its) == 1 {
		b.WriteString(pyTuple(ext) + ":(" + strides[0] + ",)")
		return
	}
	b.WriteString(pyTuple(ext) + ":(" + strings.Join(strides, ", ") + ")")
}

func sortedAxes(m map[*layout.Axis]int64) []*layout.Axis {
	var out []*layout.Axis
	for a := range m {
		out = append(out, a)
	}
	// Thread axes by name first, then memory axes (m last).
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && axisBefore(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func axisBefore(a, b *layout.Axis) bool {
	if a.IsThread() != b.IsThread() {
		return a.IsThread()
	}
	return a.Name < b.Name
}

// groupError is the text of TVM's ICHECK when TileLayout.group(shape)
// fails: the grouping walk (layout.TryGroup's) is replayed to find which of
// its three checks fails first.
func groupError(l *layout.TileLayout, shape []int64) string {
	return "Check failed: (" + groupCheck(l, shape) + ") is false: layout " + layoutRepr(l) +
		" can not be grouped by shape " + pyTuple(shape)
}

func groupCheck(l *layout.TileLayout, shape []int64) string {
	idx, p := 0, int64(1)
	for _, it := range l.Shard {
		e := it.Extent
		p *= e
		for idx < len(shape) && shape[idx] > 0 && p%shape[idx] == 0 {
			c := p / shape[idx]
			if c == 0 || e%c != 0 {
				return "analyzer->CanProveEqual(floormod(extent_i, c), 0)"
			}
			e, p = c, c
			idx++
		}
		if e != 1 && idx >= len(shape) {
			return "shape_idx < shape.size()"
		}
	}
	return "shape_idx == shape.size()"
}

// flag reads a bool argument (nil: False).
func flag(args []ir.Arg, i int) bool {
	if i >= len(args) || args[i] == nil {
		return false
	}
	v, ok := ir.ConstInt(ir.SimplifyIndex(args[i]))
	return ok && v != 0
}

func provablyEqual(a, b ir.Expr) bool {
	a, b = ir.SimplifyIndex(a), ir.SimplifyIndex(b)
	av, aok := ir.ConstInt(a)
	bv, bok := ir.ConstInt(b)
	if aok && bok {
		return av == bv
	}
	return ir.Equal(a, b)
}
