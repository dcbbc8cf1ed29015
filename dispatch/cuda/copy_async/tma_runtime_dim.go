package copyasync

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/cuda/common"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// TMA over a global buffer with a runtime dimension (issue 15):
// T.match_buffer(q_h, (seq_len * T.uint32(64), 128), "uint8") over a
// kernel scalar, as DeepGEMM's mqa_logits writes it. TVM plans the
// descriptor over the symbolic shape: the runtime extent becomes a global
// dimension of the tensor map (its "global_dim" rule is UNKNOWN, which
// TVM leaves to cuTensorMapEncodeTiled's check at launch,
// _RUNTIME_VALIDATED_RULES), and the host encodes the descriptor from
// the launch arguments. The 0.27.0.post1 wheel plans such a load of rows
// row..row+64 of a (seq_len * 64, 128) uint8 tensor as global dims
// (128, seq_len * T.uint32(64)), strides (128,), box (128, 64),
// coordinates (0, row): the row-major strides do not depend on the
// outermost extent.
//
// The planner here computes with int64 extents. A runtime extent E takes
// the part of tmaRuntimeUnit, a prime no static extent reaches: the
// planner's arithmetic on it is the reference's on a symbol (a proof
// that needs E's value fails: E is odd to the fp8 -> uint16 promotion,
// equal to no box, so never merged as an outer dimension whose box covers
// it), and a descriptor dimension k * tmaRuntimeUnit is the expression
// E * k, which the tensor map carries (ir.TensorMap.GlobalDimExprs).
// Only one runtime dimension, the outermost (the one dsl/eval builds),
// and only where it maps to one global iterator (no split of E by an
// inner product, whose divisibility is the analyzer's) are modelled.
const tmaRuntimeUnit int64 = 1<<31 - 1

// tmaRuntimeRegion returns g with its runtime extent replaced by
// tmaRuntimeUnit (shape and row-major layout), and that extent; a reason
// when the buffer's runtime shape is not modelled.
func tmaRuntimeRegion(g common.Region) (common.Region, ir.Expr, string) {
	b := g.Buf
	var ext ir.Expr
	shape := append([]int64(nil), b.Shape...)
	for d, e := range b.ShapeExpr {
		if e == nil {
			continue
		}
		if ext != nil || !tmaUnitBefore(b.Shape, d) {
			return g, nil, fmt.Sprintf("TMA over buffer `%s` with more than one runtime dimension, or a runtime inner dimension (its strides are runtime values): tilels encodes tensor maps with static strides", b.Name)
		}
		ext = e
		shape[d] = tmaRuntimeUnit
	}
	g.Shape = shape
	g.Lay = layout.RowMajor(shape...)
	return g, ext, ""
}

// tmaUnitBefore reports whether every dimension before d has extent 1
// ((1, seq_len_kv)): their strides are runtime values, but a descriptor
// dimension of extent 1 read at coordinate 0 is dropped by the planner
// (tmaGlobalStrideRuntime declines one that stays).
func tmaUnitBefore(shape []int64, d int) bool {
	for _, n := range shape[:d] {
		if n != 1 {
			return false
		}
	}
	return true
}

// tmaGlobalStrideRuntime is the reason tilels does not encode s when one
// of its byte strides depends on the runtime extent, "" otherwise.
func tmaGlobalStrideRuntime(s *tmaSpec) string {
	if s.runtimeExt == nil {
		return ""
	}
	for i, st := range s.globalStrides {
		if st != 0 && st%tmaRuntimeUnit == 0 {
			return fmt.Sprintf("not modelled: TMA descriptor stride %d depends on the runtime extent `%s`: tilels encodes tensor maps with static strides", i+1, tmaExprText(s.runtimeExt))
		}
	}
	return ""
}

// tmaIsRuntimeDim reports whether a planned extent stands for k * the
// runtime extent.
func tmaIsRuntimeDim(v int64) bool { return v >= tmaRuntimeUnit && v%tmaRuntimeUnit == 0 }

// tmaRuntimeDimExpr is the expression of a planned descriptor dimension v
// over the runtime extent e (nil when v is static).
func tmaRuntimeDimExpr(v int64, e ir.Expr) ir.Expr {
	if e == nil || !tmaIsRuntimeDim(v) {
		return nil
	}
	k := v / tmaRuntimeUnit
	if k == 1 {
		return e
	}
	return ir.SimplifyIndex(ir.MulE(e, common.Cst(k)))
}

// tmaGlobalDimExprs returns the descriptor's runtime dimensions (nil when
// every dimension is static).
func tmaGlobalDimExprs(s *tmaSpec) []ir.Expr {
	if s.runtimeExt == nil {
		return nil
	}
	var out []ir.Expr
	for i, v := range s.globalDims {
		if x := tmaRuntimeDimExpr(v, s.runtimeExt); x != nil {
			if out == nil {
				out = make([]ir.Expr, len(s.globalDims))
			}
			out[i] = x
		}
	}
	return out
}

// tmaStaticDims is globalDims with 0 at its runtime dimensions (the
// ir.TensorMap's GlobalDims).
func tmaStaticDims(s *tmaSpec) []int64 {
	out := append([]int64(nil), s.globalDims...)
	if s.runtimeExt != nil {
		for i, v := range out {
			if tmaIsRuntimeDim(v) {
				out[i] = 0
			}
		}
	}
	return out
}

// tmaDimText prints one planned global dimension (the runtime extent's
// expression where it stands for one).
func tmaDimText(s *tmaSpec, v int64) string {
	if x := tmaRuntimeDimExpr(v, s.runtimeExt); x != nil {
		t := dispatch.ExprText(x)
		if _, bin := x.(*ir.Binary); bin && strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
			t = t[1 : len(t)-1] // a tuple element prints unparenthesized, as TVM's
		}
		return t
	}
	return fmt.Sprint(v)
}

// tmaDimsTuple is tmaPyIntTuple of globalDims with runtime dimensions as
// expressions; tmaDimsList is tmaIntList's.
func tmaDimsTuple(s *tmaSpec) string {
	parts := tmaDimsParts(s)
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func tmaDimsList(s *tmaSpec) string { return "[" + strings.Join(tmaDimsParts(s), ", ") + "]" }

func tmaDimsParts(s *tmaSpec) []string {
	parts := make([]string, len(s.globalDims))
	for i, v := range s.globalDims {
		parts[i] = tmaDimText(s, v)
	}
	return parts
}

// tmaRuntimeSplit is the reason tilels does not plan a runtime extent
// that one copy dimension splits over global iterators (TVM proves
// extent % inner == 0 with its analyzer).
func tmaRuntimeSplit(g common.Region, ext ir.Expr, inner int64) *tmaStageError {
	return tmaPlainFail("not modelled: TMA over buffer `%s` whose runtime extent `%s` spans %d-element global iterators (whether the reference proves it divisible depends on its arithmetic analyzer)", g.Buf.Name, dispatch.ExprText(ext), inner)
}
