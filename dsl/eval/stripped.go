package eval

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// A regular compilation strips some statements a kernel writes: the IKET
// profiler's annotations (tirxlib/iket.go), which LowerIket removes
// before the device code is simplified. The library evaluates them to
// nothing and calls NoteStripped; a runtime if or loop whose body held
// nothing else is then not emitted either, as the simplification after
// the strip leaves nothing of it (TVM's
// test_regular_lowering_strips_annotations_and_tokens: a kernel's CUDA
// is the same with and without `if tx % 2 == 0: iket.mark(...)`). A
// branch or loop the kernel left empty itself stays as it was.

// NoteStripped records that a statement of the kernel evaluated to
// nothing because a regular compilation strips it.
func (ev *Evaluator) NoteStripped() { ev.stripped++ }

// emptyBlock reports whether b holds no statement (nil holds none).
func emptyBlock(b *ir.Block) bool { return b == nil || len(b.Stmts) == 0 }

// pureExpr reports whether evaluating e has no effect but its value: no
// call, no load (which may fault), only arithmetic on variables and
// constants.
func pureExpr(e ir.Expr) bool {
	switch e := e.(type) {
	case nil, *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.Var, *ir.ThreadIndex:
		return true
	case *ir.Binary:
		return pureExpr(e.A) && pureExpr(e.B)
	case *ir.Not:
		return pureExpr(e.X)
	case *ir.Neg:
		return pureExpr(e.X)
	case *ir.Cast:
		return pureExpr(e.X)
	case *ir.Select:
		return pureExpr(e.Cond) && pureExpr(e.A) && pureExpr(e.B)
	}
	return false
}

// pureLoop reports whether the bounds of lv are pure.
func pureLoop(lv *LoopV) bool {
	for i := range lv.Extents {
		if !pureExpr(lv.Mins[i]) || !pureExpr(lv.Extents[i]) {
			return false
		}
	}
	return true
}

// StrippedV is the value of a call a regular compilation strips (a void
// T.cuda.iket annotation): an expression statement of it, or
// T.evaluate of it, emits nothing.
type StrippedV struct {
	Base
	What string // the call, as messages name it ("T.cuda.iket.mark")
}

func (*StrippedV) TypeName() string { return "PrimExpr" }

// Stripped is the value of what, a call a regular compilation strips.
func (ev *Evaluator) Stripped(what string, at source.Span) *StrippedV {
	ev.stripped++
	return &StrippedV{Base{at}, what}
}

// IketTokenV is the token of an IKET range (IketProfiler.range_start and
// sentinel_token, T.cuda.iket.range_start and sentinel_token), a uint32
// the regular compilation strips with the annotations that use it. A
// kernel variable holds every token ever stored in it, wherever the store
// is: TVM's LowerIket checks a range_end against every range whose token
// reaches the variable, in any order (a later `t = range_start("b")`
// reaches an earlier `range_end(t)` too). Assigning a token to a name
// that holds one adds its ranges to the held token's cell (assignName).
type IketTokenV struct {
	Base
	Cell *TokenCell
}

func (*IketTokenV) TypeName() string { return "IketToken" }

// A TokenCell is what a token variable holds: the names of the ranges
// whose tokens were stored in it ("" for a sentinel token).
type TokenCell struct {
	Names  []string
	merged *TokenCell // the cell this one's names went to
}

// Root is the cell c's names were merged into, c itself if none.
func (c *TokenCell) Root() *TokenCell {
	for c.merged != nil {
		c = c.merged
	}
	return c
}
