package common

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Axes reads a reduction's axes operand (an integer or a tuple of
// integer constants; absent: the builders' default -1), negative axes
// normalized against rank.
func Axes(c *dispatch.Call, i, rank int) []int {
	if i >= len(c.Tile.Args) || c.Tile.Args[i] == nil {
		return []int{rank - 1}
	}
	var elems []ir.Expr
	switch x := c.Tile.Args[i].(type) {
	case *ir.Tuple:
		elems = x.Elems
	default:
		elems = []ir.Expr{x}
	}
	var out []int
	for _, e := range elems {
		n, ok := ConstInt(e)
		if !ok {
			Unmodelled("a reduction axis that is not an integer constant")
		}
		if n < 0 {
			n += int64(rank)
		}
		out = append(out, int(n))
	}
	return out
}

// Reduction is reduction/utils.py's reduction_trn (negate: reduce_negate):
// nki.tensorreduce of src's reduced F run into dst, in two stages through
// a partial_reduce SBUF tile when the reduced axes need more than one
// instruction. It returns the plan.
func Reduction(c *dispatch.Call, opcode string, negate bool, axesArg, accumArg int) *dispatch.Result {
	an := NewAnalyzer(c)
	dst, src := ReadRegion(c, an, 0), ReadRegion(c, an, 1)
	if len(c.Tile.Args) > accumArg && c.Tile.Args[accumArg] != nil {
		n, ok := ConstInt(c.Tile.Args[accumArg])
		if !ok {
			Unmodelled("accum that is not a constant")
		}
		Assert(n == 0, "Accumulation is not supported for reduction on Trainium")
	}
	axes := Axes(c, axesArg, len(src.Buf.Shape))
	dm := ReductionDimMap(src, dst, axes)
	sl, dl := src.Layout(), dst.Layout()
	valid := sl != nil && dl != nil && (src.Scope() == "trn.sbuf" || src.Scope() == "trn.psum") &&
		dst.Scope() == "trn.sbuf" && IsTrainiumLayout(sl) && IsTrainiumLayout(dl) &&
		SizeOf(sl, layout.P) == SizeOf(dl, layout.P)
	Assert(valid, "Invalid layout")
	g := NewGen(an, src, dst)
	g.Link(src, dst, dm)
	inst := g.MaxInst(src, axes, 0)
	if m, has := ConfigInt(c, "max_inst_size"); has {
		inst.BoundSize(m)
	}
	Assert(inst.Size > 1, "Instruction size must be greater than 1")
	p := src.SizeP()
	g.Bind(src, inst.Size, inst.Stride, true, false)
	g.Bind(src, p, 1, false, false)
	red := g.FillBlock(src, axes...)
	spatial := g.FillBlock(src)
	if red != 1 {
		CheckWorkspace(c, "partial_reduce", []int64{dst.SizeP(), red}, "trn.sbuf", false)
	}
	g.CheckCoverage(src)
	g.CheckCoverage(dst)
	if negate {
		opcode += " (negated)"
	}
	if red == 1 {
		return Lowered(Sprintf("nki.tensorreduce %s: %d block(s) of %d partitions × %d elements", opcode, spatial, p, inst.Size))
	}
	return Lowered(Sprintf("nki.tensorreduce %s in two stages: %d block(s) × %d partial reductions of %d partitions × %d elements into partial_reduce", opcode, spatial, red, p, inst.Size))
}

// OpName reads a string operand naming a tile op ("sum", "add").
func OpName(c *dispatch.Call, i int) string {
	if i < len(c.Tile.Args) {
		if s, ok := c.Tile.Args[i].(*ir.StringImm); ok {
			return s.Value
		}
	}
	Unmodelled("operand %d of %s, which is not an op name string", i, c.Tile.Op)
	return ""
}

// Opcodes is compose_op/utils.py's opcode_table (by op name).
var Opcodes = map[string]string{"add": "add", "sub": "sub", "mul": "mul", "maximum": "max", "minimum": "min",
	"sqrt": "sqrt", "sum": "add", "max": "max", "min": "min", "exp": "exp"}

// Opcode looks name up in Opcodes; a name the table lacks is the
// reference's KeyError, whose text (an Op's repr) is not modelled.
func Opcode(name string) string {
	o, ok := Opcodes[name]
	if !ok {
		Unmodelled("the KeyError text of op %q missing from the reference's opcode_table", name)
	}
	return o
}
