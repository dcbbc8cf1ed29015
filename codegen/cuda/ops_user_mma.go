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
//	T.ptx["tcgen05.mma.cta_group::1.kind::f16"](d_tmem, a, b_desc, idesc, m0, m1, m2, m3, enable_input_d)
//
// mma.sync takes one argument per 32-bit register, in the PTX operand
// order (d, a, b, c): m16n8k16 has 4 a and 2 b registers, m16n8k8 2 and 1;
// an f32 accumulator is 4 f32 registers, an f16 one 2 b32 registers of
// packed halves. Other shapes and types stay "unknown intrinsic".
func userMmaOp(op string) *extOp {
	toks, ok := ptxTokens(op)
	if !ok {
		return nil
	}
	text := strings.Join(toks, ".")
	if len(toks) == 4 && toks[0] == "tcgen05" && toks[1] == "mma" {
		return tcgen05MmaForm(toks, text)
	}
	if len(toks) == 5 && toks[0] == "tcgen05" && toks[1] == "mma" && toks[2] == "ws" {
		return tcgen05MmaWSForm(toks, text)
	}
	if len(toks) == 6 && toks[0] == "tcgen05" && toks[1] == "mma" && toks[4] == "block_scale" {
		return tcgen05MmaBlockScaleForm(toks, text)
	}
	if len(toks) >= 4 && toks[0] == "tcgen05" && toks[1] == "cp" {
		return tcgen05CpForm(toks, text)
	}
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

// tcgen05MmaForm is tcgen05.mma.cta_group::<g>.kind::<k> [d_tmem], a,
// b_desc, idesc, {disable_output_lane: 4 words per CTA of the group},
// enable_input_d: a 64-bit a is a shared-memory descriptor (the ss form),
// a 32-bit one a tensor-memory address (ts, [a_tmem]); enable_input_d is a
// .pred. sm_100-family only.
func tcgen05MmaForm(toks []string, text string) *extOp {
	masks := map[string]int{"cta_group::1": 4, "cta_group::2": 8}[toks[2]]
	switch toks[3] {
	case "kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8":
	default:
		return nil
	}
	if masks == 0 {
		return nil
	}
	return user(opNeed{sm: 100, family: true}, func(k *kernel, c *ir.Call) string {
		if len(c.Args) < 2 {
			k.fail("%s takes %d arguments, got %d", c.Op, 5+masks, len(c.Args))
			return ""
		}
		a, form, ok := k.mmaAOperand(c)
		if !ok {
			return ""
		}
		return k.printPTXForm(c, &ptxForm{text: text, volatile: true, minSM: 100, family: true, nameSuffix: form, operands: []ptxOperand{
			{kind: 'a', space: 's'}, a, {kind: 'r', typ: "u64"}, {kind: 'r', typ: "u32"},
			{kind: 'r', typ: "u32", lanes: masks, vector: true}, {kind: 'Q'}}})
	})
}

// tcgen05MmaWSForm is the weight-stationary tcgen05.mma.ws.cta_group::1.
// kind::<k> [d_tmem], a, b_desc, idesc, enable_input_d, zero_column_mask:
// no disable-output-lane vector; enable_input_d is a .pred and the mask a
// 64-bit register (the reference's table entry tcgen05_mma_ws_{ss,ts}, and
// what gemm_async/tcgen05 emits for its .ws forms). cta_group::1 only.
func tcgen05MmaWSForm(toks []string, text string) *extOp {
	if toks[3] != "cta_group::1" {
		return nil
	}
	switch toks[4] {
	case "kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8":
	default:
		return nil
	}
	return user(opNeed{sm: 100, family: true}, func(k *kernel, c *ir.Call) string {
		if len(c.Args) != 6 {
			k.fail("%s takes 6 arguments, got %d", c.Op, len(c.Args))
			return ""
		}
		a, form, ok := k.mmaAOperand(c)
		if !ok {
			return ""
		}
		return k.printPTXForm(c, &ptxForm{text: text, volatile: true, minSM: 100, family: true, nameSuffix: form, operands: []ptxOperand{
			{kind: 'a', space: 's'}, a, {kind: 'r', typ: "u64"}, {kind: 'r', typ: "u32"},
			{kind: 'Q'}, {kind: 'r', typ: "u64"}}})
	})
}

// tcgen05CpForm is tcgen05.cp.cta_group::<g>.<shape>{.multicast}{.dst_fmt.src_fmt}
// [taddr], s_desc: a shared-memory matrix (its 64-bit descriptor) copied
// into tensor memory at taddr (the reference's tcgen05_cp entry; the
// shape's multicast as its table allows: 64x128b with .warpx2::02_13 or
// ::01_23, 32x128b with .warpx4, the others without).
func tcgen05CpForm(toks []string, text string) *extOp {
	if toks[2] != "cta_group::1" && toks[2] != "cta_group::2" {
		return nil
	}
	rest := toks[4:]
	multicast := ""
	if len(rest) > 0 && (rest[0] == "warpx2::02_13" || rest[0] == "warpx2::01_23" || rest[0] == "warpx4") {
		multicast, rest = rest[0], rest[1:]
	}
	switch toks[3] {
	case "128x256b", "4x256b", "128x128b":
		if multicast != "" {
			return nil
		}
	case "64x128b":
		if multicast != "warpx2::02_13" && multicast != "warpx2::01_23" {
			return nil
		}
	case "32x128b":
		if multicast != "warpx4" {
			return nil
		}
	default:
		return nil
	}
	switch strings.Join(rest, ".") {
	case "", "b8x16.b6x16_p32", "b8x16.b4x16_p64":
	default:
		return nil
	}
	return formPrinter(&ptxForm{text: text, volatile: true, minSM: 100, family: true, operands: []ptxOperand{
		{kind: 'a', space: 's'}, {kind: 'r', typ: "b64"}}})
}

// tcgen05MmaBlockScaleForm is tcgen05.mma.cta_group::<g>.kind::<k>.block_scale.scale_vec::<n>X
// [d_tmem], a, b_desc, idesc, [sfa_tmem], [sfb_tmem], enable_input_d: a
// 64-bit a is a shared-memory descriptor (ss), a 32-bit one a tensor-memory
// address (ts); the scale factors are tensor-memory addresses (the
// reference's tcgen05_mma_block_scale_{ss,ts} entries).
func tcgen05MmaBlockScaleForm(toks []string, text string) *extOp {
	if toks[2] != "cta_group::1" && toks[2] != "cta_group::2" {
		return nil
	}
	switch toks[3] + "." + toks[5] {
	case "kind::mxf8f6f4.scale_vec::1X", "kind::mxf4.scale_vec::2X", "kind::mxf4nvf4.scale_vec::2X", "kind::mxf4nvf4.scale_vec::4X":
	default:
		return nil
	}
	return user(opNeed{sm: 100, family: true}, func(k *kernel, c *ir.Call) string {
		if len(c.Args) != 7 {
			k.fail("%s takes 7 arguments, got %d", c.Op, len(c.Args))
			return ""
		}
		a, form, ok := k.mmaAOperand(c)
		if !ok {
			return ""
		}
		return k.printPTXForm(c, &ptxForm{text: text, volatile: true, minSM: 100, family: true, nameSuffix: form, operands: []ptxOperand{
			{kind: 'a', space: 's'}, a, {kind: 'r', typ: "u64"}, {kind: 'r', typ: "u32"},
			{kind: 'a', space: 's'}, {kind: 'a', space: 's'}, {kind: 'Q'}}})
	})
}

// mmaAOperand is the A operand of a tcgen05.mma a kernel writes (argument
// 1): a 64-bit shared-memory descriptor (the ss form) or a 32-bit
// tensor-memory address ([a_tmem], the ts form).
func (k *kernel) mmaAOperand(c *ir.Call) (ptxOperand, string, bool) {
	switch t := typeOf(c.Args[1]); {
	case t.Bits == 32 && (t.Code == ir.Int || t.Code == ir.UInt):
		return ptxOperand{kind: 'a', space: 's'}, "ts", true
	case t.Bits == 64 && (t.Code == ir.Int || t.Code == ir.UInt):
		return ptxOperand{kind: 'r', typ: "u64"}, "ss", true
	default:
		k.fail("%s: operand a must be a 64-bit shared-memory descriptor or a 32-bit tensor-memory address, got %s", c.Op, t)
		return ptxOperand{}, "", false
	}
}
