package cuda

import (
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Loads, stores, prefetches and address mapping a kernel writes itself in
// the T.ptx dialect (reference table entries ld, ld_vec, ld_vec256, st,
// st_vec, st_vec256, prefetch, mapa, mapa_u32) and T.cuda.ldg:
//
//	T.ptx.ld.shared.b64(dst, addr)               ld.shared.b64 %0, [%1];
//	T.ptx.ld.global_.acquire.gpu.b32(dst, addr)  (any sem/scope/space/cache tokens)
//	T.ptx.ld.global.nc.v4.s32(d0, d1, d2, d3, addr)
//	T.ptx.st.shared.v4.u32(addr, v0, v1, v2, v3)
//	T.ptx.prefetch.global_.L2(addr)
//	T.ptx.mapa.shared__cluster.u64(dst, ptr, rank)
//	T.cuda.ldg(ptr, "float32")                   __ldg((const float*)ptr)
//	T.ptx.red.relaxed.gpu.global_.add.u32(addr, v)   T.ptx.atom.global_.add.u32(old, addr, v)   (atom.cas: old, addr, cmp, v)
//	T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(d0, d1, d2, d3, addr)   (and .trans, x1, x2)
//	T.ptx.stmatrix.sync.aligned.m8n8.x4.shared.b16(addr, r0, r1, r2, r3)
//	T.ptx["tcgen05.ld.sync.aligned.32x32b.x4.b32"](r0, r1, r2, r3, taddr)   (and st: taddr, r...)
//
// Destinations come first and are written through a reference; the
// address is a 32-bit shared-window address when a shared state space is
// named, a generic pointer otherwise. An .L2::cache_hint form takes the
// 64-bit cache policy after the operands.
func userLdStOp(op string) *extOp {
	if op == "cuda.ldg" {
		return user(opNeed{}, printLdg)
	}
	toks, ok := ptxTokens(op)
	if !ok {
		return nil
	}
	text := strings.Join(toks, ".")
	switch toks[0] {
	case "ld", "st":
		return ldStForm(toks, text)
	case "red", "atom":
		return redAtomForm(toks, text)
	case "ldmatrix", "stmatrix":
		return matrixForm(toks, text)
	case "tcgen05":
		return tcgen05LdStForm(toks, text)
	case "prefetch":
		// PTX ISA 9.7.10.16: prefetch{.space}.level,
		// prefetch.global.level::eviction_priority and
		// prefetch{.tensormap_space}.tensormap (flash_attention_backward.py
		// prefetches its tensor maps), one target each (the reference
		// table's _check_prefetch)
		space, targets, tensormap := "", 0, false
		for _, t := range toks[1:] {
			switch t {
			case "global", "local", "const", "param":
				space = t
			case "L1", "L2", "L2::evict_last", "L2::evict_normal":
				targets++
			case "tensormap":
				targets++
				tensormap = true
			default:
				return nil
			}
		}
		tmSpace := space == "" || space == "const" || space == "param"
		if targets != 1 || tensormap && !tmSpace || !tensormap && (space == "const" || space == "param") {
			return nil
		}
		return formPrinter(&ptxForm{text: text, volatile: true, operands: []ptxOperand{{kind: 'a'}}})
	case "mapa":
		switch text {
		case "mapa.u64", "mapa.shared::cluster.u64":
			return formPrinter(&ptxForm{text: text, minSM: 90, operands: []ptxOperand{
				{kind: 'w', typ: "u64"}, {kind: 'p'}, {kind: 'r', typ: "u32"}}})
		case "mapa.shared::cluster.u32":
			return formPrinter(&ptxForm{text: text, minSM: 90, operands: []ptxOperand{
				{kind: 'w', typ: "u32"}, {kind: 'r', typ: "u32"}, {kind: 'r', typ: "u32"}}})
		}
	}
	return nil
}

// ldStForm is the form of an ld or st with the given tokens, or nil when
// a token is outside what the reference's ld/st entries take.
func ldStForm(toks []string, text string) *extOp {
	typ := toks[len(toks)-1]
	if _, _, _, ok := ptxRegType(typ); !ok {
		return nil
	}
	lanes, hint, minSM := 1, false, 70
	for _, t := range toks[1 : len(toks)-1] {
		switch t {
		case "weak", "acquire", "release", "relaxed", "volatile", "cta", "cluster", "gpu", "sys",
			"global", "shared", "shared::cta", "shared::cluster", "local",
			"ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc",
			"L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate",
			"L2::evict_first", "L2::evict_last", "L2::evict_normal", "L2::64B", "L2::128B", "L2::256B":
		case "L2::cache_hint":
			hint = true
		case "v2":
			lanes = 2
		case "v4":
			lanes = 4
		case "v8":
			lanes, minSM = 8, 100
		default:
			return nil
		}
	}
	if (toks[0] == "st") == hasToken(toks, "nc") && hasToken(toks, "nc") {
		return nil
	}
	if sharedSpace(toks) && hasToken(toks, "cluster") || hasToken(toks, "shared::cluster") {
		minSM = 90
	}
	data := ptxOperand{typ: typ, lanes: lanes, vector: lanes > 1}
	form := &ptxForm{text: text, volatile: true, minSM: minSM, shared: sharedSpace(toks)}
	if toks[0] == "ld" {
		data.kind = 'w'
		form.operands = []ptxOperand{data, {kind: 'a'}}
	} else {
		data.kind = 'r'
		form.operands = []ptxOperand{{kind: 'a'}, data}
	}
	if hint {
		form.operands = append(form.operands, ptxOperand{kind: 'r', typ: "u64"})
	}
	return formPrinter(form)
}

// printLdg prints T.cuda.ldg(ptr, dtype): a read-only cached load; or
// its vector form (0.26+), tirx.cuda.ldg(dst..., ptr, dtype, vec, n).
func printLdg(k *kernel, c *ir.Call) string {
	if len(c.Args) > 2 {
		return printLdgVector(k, c)
	}
	if !k.wantArgs(c, 2) {
		return ""
	}
	dt, ok := k.stringArg(c, 1)
	if !ok {
		return ""
	}
	t, ok := ir.ParseDType(dt)
	if !ok {
		k.fail("%s: unknown dtype %q", c.Op, dt)
		return ""
	}
	ct := scalarCType(t)
	return "__ldg((const " + ct + "*)" + k.expr(c.Args[0]) + ")"
}

// ldgVectorTypes are the element types the vector __ldg takes (the
// reference's _CUDA_LDG_VECTOR_CTYPES and _CUDA_LDG_VECTOR_BASES,
// backend/cuda/cpp/builtins.py) and the suffixes of its helper names.
var ldgVectorTypes = map[string]struct{ elem, vec, suffix string }{
	"int32":   {"int", "int", "i32"},
	"uint32":  {"unsigned int", "uint", "u32"},
	"float32": {"float", "float", "f32"},
}

// printLdgVector prints T.cuda.ldg(ptr, dtype, dst=(d0, ...), vec="vN")
// as the reference does: a helper that loads one N-wide vector through
// __ldg and stores each lane through its destination pointer.
func printLdgVector(k *kernel, c *ir.Call) string {
	n := len(c.Args) - 4
	if n != 2 && n != 4 {
		k.fail("%s: %d destinations (want 2 or 4)", c.Op, n)
		return ""
	}
	dt, ok1 := k.stringArg(c, n+1)
	vec, ok2 := k.stringArg(c, n+2)
	if !ok1 || !ok2 {
		return ""
	}
	if cnt, ok := k.constArg(c, n+3); !ok || cnt != int64(n) || vec != "v"+strconv.Itoa(n) {
		k.fail("vector CUDA __ldg expects dst_count=len(dsts)=vec_len for v2/v4, got vec=%q, %d destinations", vec, n)
		return ""
	}
	t, ok := ldgVectorTypes[dt]
	if !ok {
		k.fail("Unsupported vector CUDA __ldg dtype '%s'", dt)
		return ""
	}
	name := "tvm_builtin_cuda_ldg_" + t.suffix + "_" + vec + "_to_dst" + strconv.Itoa(n)
	var b strings.Builder
	b.WriteString("__forceinline__ __device__ void " + name + "(")
	for i := range n {
		b.WriteString("void* dst" + strconv.Itoa(i) + ", ")
	}
	vt := t.vec + strconv.Itoa(n)
	b.WriteString("void* src) {\n  " + vt + " v = __ldg(reinterpret_cast<const " + vt + "*>(src));\n")
	for i := range n {
		b.WriteString("  *reinterpret_cast<" + t.elem + "*>(dst" + strconv.Itoa(i) + ") = v." + "xyzw"[i:i+1] + ";\n")
	}
	b.WriteString("}\n")
	h := &helper{name: name, rank: rankUser, code: b.String()}
	return k.callHelper(h, c.Args[:n+1])
}

// matrixForm is ldmatrix/stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}
// .shared{::cta}.b16: one b32 register per 8x8 matrix.
func matrixForm(toks []string, text string) *extOp {
	if toks[0] == "stmatrix" && len(toks) == 8 && toks[1] == "sync" && toks[2] == "aligned" && toks[3] == "m16n8" &&
		toks[5] == "trans" && (toks[6] == "shared" || toks[6] == "shared::cta") && toks[7] == "b8" {
		// stmatrix.sync.aligned.m16n8.x{1,2,4}.trans.shared.b8 [p], r...:
		// one b32 register per 16x8 matrix of bytes (sm_100a family)
		n := map[string]int{"x1": 1, "x2": 2, "x4": 4}[toks[4]]
		if n == 0 {
			return nil
		}
		return formPrinter(&ptxForm{text: text, volatile: true, shared: true, minSM: 100, family: true,
			operands: []ptxOperand{{kind: 'a'}, {kind: 'r', typ: "b32", lanes: n, vector: true}}})
	}
	if len(toks) < 7 || toks[1] != "sync" || toks[2] != "aligned" || toks[3] != "m8n8" || toks[len(toks)-1] != "b16" {
		return nil
	}
	n := map[string]int{"x1": 1, "x2": 2, "x4": 4}[toks[4]]
	if n == 0 {
		return nil
	}
	mid := toks[5 : len(toks)-1]
	if len(mid) > 0 && mid[0] == "trans" {
		mid = mid[1:]
	}
	if len(mid) != 1 || mid[0] != "shared" && mid[0] != "shared::cta" {
		return nil
	}
	regs := ptxOperand{typ: "b32", lanes: n, vector: true}
	form := &ptxForm{text: text, volatile: true, shared: true, minSM: 75}
	if toks[0] == "ldmatrix" {
		regs.kind = 'w'
		form.operands = []ptxOperand{regs, {kind: 'a'}}
	} else {
		regs.kind = 'r'
		form.minSM = 90
		form.operands = []ptxOperand{{kind: 'a'}, regs}
	}
	return formPrinter(form)
}

// tcgen05LdStForm is tcgen05.ld/st.sync.aligned.<shape>.x<num>{.pack::16b
// | .unpack::16b}.b32: num x (shape width / 32 bits) registers (at most
// 128) and a tensor-memory address; the .16x32bx2 shape takes the second
// half's immediate offset after the address.
func tcgen05LdStForm(toks []string, text string) *extOp {
	if len(toks) < 7 || toks[1] != "ld" && toks[1] != "st" || toks[2] != "sync" || toks[3] != "aligned" || toks[len(toks)-1] != "b32" {
		return nil
	}
	per := map[string]int{"16x64b": 1, "32x32b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}[toks[4]]
	num, err := strconv.Atoi(strings.TrimPrefix(toks[5], "x"))
	if per == 0 || err != nil || !strings.HasPrefix(toks[5], "x") || num < 1 || num > 128 || num&(num-1) != 0 || num*per > 128 {
		return nil
	}
	switch len(toks) {
	case 7:
	case 8:
		if toks[1] == "ld" && toks[6] != "pack::16b" || toks[1] == "st" && toks[6] != "unpack::16b" {
			return nil
		}
	default:
		return nil
	}
	regs := ptxOperand{typ: "b32", lanes: num * per, vector: true}
	taddr := ptxOperand{kind: 'a', space: 's'}
	form := &ptxForm{text: text, volatile: true, minSM: 100, family: true}
	var imm []ptxOperand
	if toks[4] == "16x32bx2" {
		imm = []ptxOperand{{kind: 'i'}}
	}
	if toks[1] == "ld" {
		regs.kind = 'w'
		form.operands = append([]ptxOperand{regs, taddr}, imm...)
	} else {
		regs.kind = 'r'
		form.operands = append(append([]ptxOperand{taddr}, imm...), regs)
	}
	return formPrinter(form)
}

// redAtomForm is red{.sem}{.scope}{.space}.op.type [a], b and
// atom{.sem}{.scope}{.space}.op.type d, [a], b (cas: d, [a], b, c), for
// scalar types; vector and packed-half forms stay unknown.
func redAtomForm(toks []string, text string) *extOp {
	typ := toks[len(toks)-1]
	if _, _, _, ok := ptxRegType(typ); !ok || len(toks) < 3 {
		return nil
	}
	op := ""
	shared := false
	for _, t := range toks[1 : len(toks)-1] {
		switch t {
		case "relaxed", "acquire", "release", "acq_rel", "cta", "cluster", "gpu", "sys", "global":
		case "shared", "shared::cta", "shared::cluster":
			shared = true
		case "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas":
			if op != "" {
				return nil
			}
			op = t
		default:
			return nil
		}
	}
	if op == "" || op == "cas" && toks[0] == "red" || op == "exch" && toks[0] == "red" {
		return nil
	}
	val := ptxOperand{kind: 'r', typ: typ}
	form := &ptxForm{text: text, volatile: true, minSM: 70, shared: shared}
	if toks[0] == "red" {
		form.operands = []ptxOperand{{kind: 'a'}, val}
	} else {
		form.operands = []ptxOperand{{kind: 'w', typ: typ}, {kind: 'a'}, val}
		if op == "cas" {
			form.operands = append(form.operands, val)
		}
	}
	return formPrinter(form)
}
