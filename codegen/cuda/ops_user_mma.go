package cuda

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// Warp-level MMA and the wgmma bookkeeping a kernel writes itself (the
// reference's T.ptx table entries "mma" and "wgmma_*"):
//
//	T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"](d0..d3, a0..a3, b0, b1, c0..c3)
//	T.ptx.wgmma.fence.sync.aligned()   T.ptx.wgmma.commit_group.sync.aligned()
//	T.ptx.wgmma.wait_group.sync.aligned(N)
//
// mma.sync takes one argument per 32-bit register, in the PTX operand
// order (d, a, b, c): m16n8k16 has 4 a and 2 b registers, m16n8k8 2 and 1;
// an f32 accumulator is 4 f32 registers, an f16 one 2 b32 registers of
// packed halves. Other shapes and types stay "unknown intrinsic".
func userMmaOp(op string) func(k *kernel, c *ir.Call) string {
	toks, ok := ptxTokens(op)
	if !ok {
		return nil
	}
	text := strings.Join(toks, ".")
	switch text {
	case "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned":
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, archSpecific: true})
	case "wgmma.wait_group.sync.aligned":
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, archSpecific: true, operands: []ptxOperand{{kind: 'i'}}})
	}
	if len(toks) != 10 || toks[0] != "mma" || toks[1] != "sync" || toks[2] != "aligned" || toks[4] != "row" || toks[5] != "col" {
		return nil
	}
	var aRegs, bRegs int
	switch toks[3] {
	case "m16n8k16":
		aRegs, bRegs = 4, 2
	case "m16n8k8":
		aRegs, bRegs = 2, 1
	default:
		return nil
	}
	dt, at, bt, ct := toks[6], toks[7], toks[8], toks[9]
	if at != bt || at != "f16" && at != "bf16" || dt != ct {
		return nil
	}
	acc := ptxOperand{typ: "f32", lanes: 4}
	switch {
	case dt == "f32":
	case dt == "f16" && at == "f16":
		acc = ptxOperand{typ: "b32", lanes: 2}
	default:
		return nil
	}
	minSM := 80
	if toks[3] == "m16n8k8" && at == "f16" {
		minSM = 75
	}
	d, cc := acc, acc
	d.kind, cc.kind = 'w', 'r'
	return formPrinter(&ptxForm{text: text, volatile: true, minSM: minSM, operands: []ptxOperand{
		d,
		{kind: 'r', typ: "b32", lanes: aRegs, vector: true},
		{kind: 'r', typ: "b32", lanes: bRegs, vector: true},
		cc,
	}})
}
