// Package binary is the Trainium binary family: variant "binary"
// (priority 0, no predicate) of add, sub, mul, maximum and minimum, the
// reference's backend/trn/tile_primitive/binary/default.py (binary_trn)
// with binary/utils.py's try_find_inst_nary (dispatch/trn/common).
package binary

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// ops are the registered op names in registration order, with the NKI
// opcode each lowers to.
var ops = []struct{ name, opcode string }{
	{"add", "add"}, {"sub", "sub"}, {"mul", "mul"}, {"maximum", "max"}, {"minimum", "min"},
}

// Variants is the binary family in registration order.
func Variants() []dispatch.Variant {
	var out []dispatch.Variant
	for _, o := range ops {
		out = append(out, dispatch.Variant{Op: o.name, Name: "binary", Target: "trn", Priority: 0, Emit: emitFor(o.opcode)})
	}
	return out
}

// emitFor is binary_trn: dst (SBUF) = src1 op src2 as
// nki.tensortensor, or nki.tensorscalar when one operand is a constant
// or broadcast along the instruction's free run; P partitions × the
// instruction size per block, at most max_inst_size (512).
func emitFor(opcode string) func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		if c.Scope != "thread" {
			return nil, common.Fail(c, "requires Trainium target and thread exec_scope")
		}
		return common.Guard(c, func() *dispatch.Result {
			an := common.NewAnalyzer(c)
			dst := common.ReadRegion(c, an, 0)
			s1, s2 := common.ReadOperand(c, an, 1), common.ReadOperand(c, an, 2)
			if s1.Absent || s2.Absent {
				common.Unmodelled("a binary op with a missing operand")
			}
			g := common.NewGen(an, dst, s1.Region, s2.Region)
			inst, types, reverse := common.TryNary(an, g, dst, []common.Operand{s1, s2}, true)
			if reverse {
				s1, s2 = s2, s1
			}
			maxInst, has := common.ConfigInt(c, "max_inst_size")
			if !has {
				maxInst = 512
			}
			inst.BoundSize(maxInst)
			p := dst.SizeP()
			g.Bind(dst, p, 1, false, false)
			g.Bind(dst, inst.Size, inst.Stride, true, false)
			blocks := g.FillBlock(dst)
			g.CheckCoverage(dst)
			g.CheckCoverage(s1.Region)
			if s2.Region != nil {
				g.CheckCoverage(s2.Region)
			}
			fn := "nki.tensortensor"
			if types[0] == common.TensorScalar {
				fn = "nki.tensorscalar"
			}
			return common.Lowered(common.Sprintf("%s %s: %d block(s) of %d partitions × %d elements", fn, opcode, blocks, p, inst.Size))
		})
	}
}
