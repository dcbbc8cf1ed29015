// Package unary is the Trainium unary family: variant "unary"
// (priority 0) of reciprocal and memset (unary/default.py, unary_trn)
// and variant "unary_with_bias_scale" (priority 0) of sqrt and exp
// (unary/with_bias_scale.py), with unary/utils.py's helpers.
package unary

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/trn/common"
)

// Variants is the unary family in registration order (default.py, then
// with_bias_scale.py).
func Variants() []dispatch.Variant {
	return []dispatch.Variant{
		{Op: "reciprocal", Name: "unary", Target: "trn", Priority: 0, Emit: emitUnary(false)},
		{Op: "memset", Name: "unary", Target: "trn", Priority: 0, Emit: emitUnary(true)},
		{Op: "sqrt", Name: "unary_with_bias_scale", Target: "trn", Priority: 0, Emit: emitBiasScale("sqrt")},
		{Op: "exp", Name: "unary_with_bias_scale", Target: "trn", Priority: 0, Emit: emitBiasScale("exp")},
	}
}

// emitUnary is unary_trn: nki.reciprocal of a region, or nki.memset of a
// constant (memset only: "Unsupported unary operation ... taking const
// as input" otherwise).
func emitUnary(fill bool) func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		if c.Scope != "thread" {
			return nil, common.Fail(c, "requires Trainium target and thread exec_scope")
		}
		return common.Guard(c, func() *dispatch.Result {
			an := common.NewAnalyzer(c)
			dst := common.ReadRegion(c, an, 0)
			src := common.ReadOperand(c, an, 1)
			if src.Absent {
				common.Unmodelled("a unary op without a source")
			}
			if src.Const != nil && !fill {
				common.Unmodelled("the text of the reference's \"Unsupported unary operation ... taking const as input\" (an enum's repr)")
			}
			if src.Region != nil && fill {
				common.Unmodelled("memset of a region (the reference's op type check)")
			}
			g := common.NewGen(an, dst, src.Region)
			from := src.Region
			if from == nil {
				from = dst
			}
			inst := common.TryUnary(g, dst, from)
			fn := "nki.reciprocal"
			if fill {
				fn = "nki.memset"
			}
			return finish(c, g, dst, src.Region, nil, inst, fn, false)
		})
	}
}

// finish is generate_unary_func's analyses: the instruction bounded by
// max_inst_size (512), bound on dst's F and P, the block loop, and the
// index generation of dst, src and a region bias.
func finish(c *dispatch.Call, g *common.Gen, dst, src, bias *common.Region, inst *common.Inst, fn string, constBias bool) *dispatch.Result {
	maxInst, has := common.ConfigInt(c, "max_inst_size")
	if !has {
		maxInst = 512
	}
	inst.BoundSize(maxInst)
	p := dst.SizeP()
	g.Bind(dst, inst.Size, inst.Stride, true, false)
	g.Bind(dst, p, 1, false, false)
	blocks := g.FillBlock(dst)
	if constBias {
		common.CheckWorkspace(c, "const_bias", []int64{p, inst.Size}, "trn.sbuf", true)
	}
	g.CheckCoverage(dst)
	if src != nil {
		g.CheckCoverage(src)
	}
	if bias != nil {
		g.CheckCoverage(bias)
	}
	return common.Lowered(common.Sprintf("%s: %d block(s) of %d partitions × %d elements", fn, blocks, p, inst.Size))
}
