package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// The intrinsics a kernel writes itself (T.ptx.<instruction> and T.cuda.*),
// as opposed to those the dispatch variants emit. The reference's T.ptx
// dialect (backend/cuda/ptx: table.py, engine.py, render.py) is one table of
// PTX instruction entries: the attribute chain names the instruction
// (T.ptx.mbarrier.init.shared.b64, Python keywords escaped with a trailing
// underscore, "::" written "__"), or the string form names it verbatim
// (T.ptx["mbarrier.init.shared.b64"]), and each call renders one
// asm volatile helper whose C parameters are the PTX operands in order:
// destinations by reference, an address in a shared state space as a 32-bit
// shared-window address, any other address as a generic pointer. The
// families in ops_user_<family>.go describe the operand layout of the
// instructions the corpus's kernels call (ptxForm); printUserOp finds the
// family and renders the helper. An instruction no family knows stays
// "unknown intrinsic".

// userFamilies are the families' recognisers, tried in order: each returns
// the printer for op, or nil when op is not one of its instructions.
// It is set by init for the reason extOps is (ext.go).
var userFamilies []func(op string) *extOp

func init() {
	userFamilies = append(userFamilies, userFenceOp, userMbarrierOp, userSyncOp, userLdStOp, userMmaOp, userMiscOp, userDescOp)
}

// printUserOp prints c when a user family knows its op.
func (k *kernel) printUserOp(c *ir.Call) (string, bool) {
	for _, fam := range userFamilies {
		if p := fam(c.Op); p != nil {
			return p.print(k, c), true
		}
	}
	return "", false
}

// ptxTokens splits a recorded T.ptx op name into PTX modifier tokens, with
// the attribute spelling's escapes undone ("global_" → "global",
// "shared__cta" → "shared::cta"); ok is false for an op outside T.ptx.
func ptxTokens(op string) ([]string, bool) {
	rest, ok := strings.CutPrefix(op, "ptx.")
	if !ok || rest == "" {
		return nil, false
	}
	toks := strings.Split(rest, ".")
	for i, t := range toks {
		t = strings.ReplaceAll(t, "__", "::")
		if len(t) > 1 && strings.HasSuffix(t, "_") && !strings.HasSuffix(t, "::_") {
			t = strings.TrimSuffix(t, "_")
		}
		toks[i] = t
	}
	return toks, true
}

// ptxOperand is one operand of a PTX instruction, in PTX order.
type ptxOperand struct {
	// kind: 'a' an address operand ([%n]; 32-bit in a shared state space,
	// else a generic pointer), 'p' a generic pointer register, 'w' a
	// written destination register, 'm' a register it reads and writes
	// (inline asm's "+": a predicated instruction that leaves a seeded
	// value when its guard is false), 'r' an input register, 'P' a predicate
	// destination (set through a .pred register and selp, as the
	// reference's bridge does), 'i' an immediate baked into the text, 'L'
	// literal text (typ) that takes no argument (mbarrier.arrive's "_"),
	// 'Q' a .pred input (a uint32 argument tested != 0 into a .pred
	// register, the reference's bridge), 'T' a tensor map and its coordinates ([%tmap, {%x, %y, ...}]: lanes
	// counts the map and the coordinates).
	kind byte
	// typ is a register operand's PTX type ("u32", "b64", "f32", ...).
	typ string
	// lanes > 1 is a brace-enclosed register vector of that many
	// arguments; vector marks a brace-enclosed group of one.
	lanes  int
	vector bool
	// space overrides the form's state space for an address operand:
	// 's' shared (32-bit), 'g' generic; 0 follows ptxForm.shared.
	space byte
}

// sharedAddr reports whether address operand o is a 32-bit shared-window
// address in form f.
func (f *ptxForm) sharedAddr(o ptxOperand) bool {
	switch o.space {
	case 's':
		return true
	case 'g':
		return false
	}
	return f.shared
}

// ptxForm is one instruction with its operand layout.
type ptxForm struct {
	text     string // PTX instruction text, without operands
	operands []ptxOperand
	shared   bool // address operands are in a shared state space
	volatile bool // asm volatile (every instruction but a pure computation)
	minSM    int
	family   bool // needs an arch-specific sm_100-family target
	// archSpecific marks an instruction only arch-specific targets have
	// (sm_90a's setmaxnreg and wgmma): nvcc 13's -arch=sm_90a also embeds
	// portable compute_90 PTX, where ptxas rejects it, so the body is kept
	// under the arch-specific macros and traps elsewhere.
	archSpecific bool
	// nameSuffix tells apart helpers of one PTX text whose operand
	// classes differ (tcgen05.mma's ss and ts forms).
	nameSuffix string
	// optional counts trailing operands that may be left out (PTX
	// "{, hint}" forms: fewer arguments print the shorter form).
	optional int
}

// ptxRegType is the C type and inline-asm constraint of a PTX register
// type (the reference's C_BINDING, canonical choice).
func ptxRegType(typ string) (ctype, constraint string, bits int, ok bool) {
	switch typ {
	case "u16", "b16":
		return "uint16_t", "h", 16, true
	case "s16":
		return "int16_t", "h", 16, true
	case "u32", "b32":
		return "uint32_t", "r", 32, true
	case "s32":
		return "int32_t", "r", 32, true
	case "u64", "b64":
		return "uint64_t", "l", 64, true
	case "s64":
		return "int64_t", "l", 64, true
	case "f32":
		return "float", "f", 32, true
	case "f64":
		return "double", "d", 64, true
	case "f16x2", "bf16x2":
		// two packed halves in a .b32 register
		return "uint32_t", "r", 32, true
	case "f32x2":
		// two packed floats in a .b64 register (T.cuda.make_float2's uint64)
		return "uint64_t", "l", 64, true
	case "b128":
		// ld/st .b128 (PTX ISA 8.3): a 128-bit register, bound as the
		// reference binds uint128 (backend/cuda/ptx/render.py)
		return "__uint128_t", "q", 128, true
	}
	return "", "", 0, false
}

// argRegType picks the C type an argument binds a register of PTX type
// typ with, and the name suffix of a non-canonical choice (the
// reference's dtype axis): an input binds the canonical type, except that
// a float in a bit-typed (.bN) register binds "f"/"d", never through a
// numeric conversion; a destination binds the lvalue's own type when it
// has the register's width.
func argRegType(typ string, arg ir.Expr, dest bool) (ctype, constraint, suffix string, ok bool) {
	ctype, constraint, bits, ok := ptxRegType(typ)
	if !ok {
		return "", "", "", false
	}
	t := typeOf(arg)
	if !t.IsValid() || t.Bits != bits || !dest && typ[0] != 'b' {
		return ctype, constraint, "", true
	}
	switch {
	case t.Code == ir.Float && bits == 32:
		if ctype == "float" {
			return ctype, constraint, "", true
		}
		return "float", "f", "f32", true
	case t.Code == ir.Float && bits == 64:
		if ctype == "double" {
			return ctype, constraint, "", true
		}
		return "double", "d", "f64", true
	case dest && (t.Code == ir.Int || t.Code == ir.UInt):
		if (t.Code == ir.Int) == (typ[0] == 's') {
			return ctype, constraint, "", true // the same C type, spelled differently
		}
		return t.CType(), constraint, map[ir.TypeCode]string{ir.Int: "s", ir.UInt: "u"}[t.Code] + strconv.Itoa(bits), true
	}
	return ctype, constraint, "", true
}

// printPTXForm renders form's helper and prints its call with c's
// arguments.
func (k *kernel) printPTXForm(c *ir.Call, form *ptxForm) string {
	want, pred, drop, ok := form.shape(len(c.Args))
	if want0, _, _, _ := form.shape(0); !ok && len(c.Args) == want0+2 && !hasKind(form.operands, 'P') {
		// pred=p, preserve_dst=b: the predicated twin; with b true the
		// destinations keep their value when p is false (read-write, as
		// the reference's _pred_keep helpers bind them), else undefined
		keep, isC := ir.ConstInt(c.Args[want0+1])
		if !isC {
			k.fail("%s: preserve_dst must be a constant", c.Op)
			return ""
		}
		f := *form
		if keep != 0 {
			f.operands = append([]ptxOperand(nil), form.operands...)
			for i := range f.operands {
				if f.operands[i].kind == 'w' {
					f.operands[i].kind = 'm'
				}
			}
			f.nameSuffix = strings.Trim(f.nameSuffix+"_keep", "_")
		}
		guarded := *c
		guarded.Args = c.Args[:want0+1]
		return k.printPTXForm(&guarded, &f)
	}
	if !ok {
		k.fail("%s takes %d arguments, got %d", c.Op, want, len(c.Args))
		return ""
	}
	args := c.Args
	if pred {
		args = args[:want]
	}
	ops := form.operands[:len(form.operands)-drop]

	var params, outs, ins, regs, pre, post []string
	var callArgs []string
	var nameParts []string
	var predIn []string // setp of each 'Q' operand
	var selp []string   // the register a 'P' operand's selp writes
	idx := 0
	ai := 0
	for _, o := range ops {
		if o.kind == 'L' {
			regs = append(regs, o.typ)
			continue
		}
		n := max(1, o.lanes)
		var group []string
		for lane := range n {
			a := args[ai]
			ai++
			pname := "__" + strconv.Itoa(len(params))
			switch o.kind {
			case 'i':
				v, ok := ir.ConstInt(a)
				if !ok {
					k.fail("%s: argument %d must be an integer constant", c.Op, ai)
					return ""
				}
				group = append(group, strconv.FormatInt(v, 10))
				nameParts = append(nameParts, strings.ReplaceAll(strconv.FormatInt(v, 10), "-", "m"))
				continue
			case 'T':
				if lane == 0 {
					params = append(params, "const void* "+pname)
					ins = append(ins, `"l"(`+pname+`)`)
					callArgs = append(callArgs, k.ptxAddr(c, a, false))
				} else {
					params = append(params, "int32_t "+pname)
					ins = append(ins, `"r"(`+pname+`)`)
					callArgs = append(callArgs, k.top(a))
				}
				group = append(group, "%"+strconv.Itoa(idx))
			case 'a', 'p':
				shared := o.kind == 'a' && form.sharedAddr(o)
				if shared {
					params = append(params, "uint32_t "+pname)
					ins = append(ins, `"r"(`+pname+`)`)
				} else {
					params = append(params, "const void* "+pname)
					ins = append(ins, `"l"(`+pname+`)`)
				}
				callArgs = append(callArgs, k.ptxAddr(c, a, shared))
				ref := "%" + strconv.Itoa(idx)
				if o.kind == 'a' {
					ref = "[" + ref + "]"
				}
				group = append(group, ref)
			case 'w', 'm', 'r':
				ct, cons, suffix, ok := argRegType(o.typ, a, o.kind != 'r')
				if !ok {
					k.fail("%s: no register binding for .%s", c.Op, o.typ)
					return ""
				}
				if suffix != "" && lane == 0 {
					nameParts = append(nameParts, suffix) // one per operand, as the reference names them
				}
				if o.kind != 'r' {
					if !lvalue(a) {
						k.fail("%s: argument %d must be a variable or buffer element (the instruction writes it)", c.Op, ai)
						return ""
					}
					params = append(params, ct+"& "+pname)
					mode := "="
					if o.kind == 'm' {
						mode = "+"
					}
					outs = append(outs, `"`+mode+cons+`"(`+pname+`)`)
				} else {
					params = append(params, ct+" "+pname)
					ins = append(ins, `"`+cons+`"(`+pname+`)`)
				}
				callArgs = append(callArgs, k.top(a))
				group = append(group, "%"+strconv.Itoa(idx))
			case 'Q':
				if p, ok := a.(*ir.Call); ok && p.Op == "ptx.pred" && len(p.Args) == 1 {
					a = p.Args[0] // T.ptx.pred(x): x as a predicate
				} else if t := typeOf(a); t.IsValid() && t != ir.BoolT {
					// the reference's engine: a .pred operand takes a bool,
					// or an integer made explicit with T.ptx.pred
					k.fail("%s: argument %d is a .pred operand. Pass a bool expression, or wrap an integer one so the register class is explicit: T.ptx.pred(x)", c.Op, ai)
					return ""
				}
				params = append(params, "uint32_t "+pname)
				ins = append(ins, `"r"(`+pname+`)`)
				callArgs = append(callArgs, "(uint32_t)("+k.top(a)+")")
				predIn = append(predIn, "setp.ne.b32 ps"+strconv.Itoa(len(predIn))+", %"+strconv.Itoa(idx)+", 0;")
				group = append(group, "ps"+strconv.Itoa(len(predIn)-1))
			case 'P':
				if !lvalue(a) {
					k.fail("%s: argument %d must be a variable or buffer element (the instruction writes it)", c.Op, ai)
					return ""
				}
				ct := scalarCType(typeOf(a))
				params = append(params, ct+"& "+pname)
				pre = append(pre, "  uint32_t "+pname+"_reg;\n")
				outs = append(outs, `"=r"(`+pname+`_reg)`)
				post = append(post, "  "+pname+" = "+pname+"_reg;\n")
				callArgs = append(callArgs, k.top(a))
				selp = append(selp, "%"+strconv.Itoa(idx))
				group = append(group, "pd0")
				if t := typeOf(a); t != ir.UInt32 {
					nameParts = append(nameParts, cIdent(strings.ReplaceAll(ct, " ", "_")))
				}
			}
			idx++
		}
		if o.kind == 'T' {
			regs = append(regs, "["+group[0]+", {"+strings.Join(group[1:], ", ")+"}]")
		} else if n > 1 || o.vector {
			regs = append(regs, "{"+strings.Join(group, ", ")+"}")
		} else {
			regs = append(regs, group...)
		}
	}
	operandText := regs
	// The instruction, then the .pred registers the bridges need, all in
	// one scope block: predicate inputs set before it (setp), the guard
	// (@p), a predicate destination materialised after it (selp). The
	// operand references are in argument order; renumber makes them
	// inline asm's (outputs first).
	asmText := form.text
	if len(operandText) > 0 {
		asmText += " " + strings.Join(operandText, ", ")
	}
	asmText += ";"
	var decl, before, after []string
	for i, p := range predIn {
		decl = append(decl, "ps"+strconv.Itoa(i))
		before = append(before, p)
	}
	if pred {
		p := len(outs) + len(ins)
		params = append(params, "uint32_t __pred")
		ins = append(ins, `"r"(__pred)`)
		callArgs = append(callArgs, k.top(c.Args[want]))
		decl = append(decl, "p")
		before = append(before, "setp.ne.b32 p, %"+strconv.Itoa(p)+"__, 0;")
		asmText = "@p " + asmText
		nameParts = append(nameParts, "pred")
	}
	if len(selp) > 0 {
		decl = append(decl, "pd0")
		after = append(after, "selp.b32 "+selp[0]+", 1, 0, pd0;")
	}
	if len(decl) > 0 {
		lines := append(append(append([]string{"{", ".reg .pred " + strings.Join(decl, ", ") + ";"}, before...), asmText), after...)
		asmText = strings.Join(append(lines, "}"), "\\n")
	}
	name := "tvm_builtin_ptx_" + cIdent(form.text)
	if form.nameSuffix != "" {
		name += "_" + form.nameSuffix
	}
	if len(nameParts) > 0 {
		name += "_" + strings.Join(nameParts, "_")
	}
	if drop > 0 {
		name += "_" + strconv.Itoa(len(ops)) + "ops"
	}
	vol := "asm volatile"
	if !form.volatile {
		vol = "asm"
	}
	var body strings.Builder
	for _, p := range pre {
		body.WriteString(p)
	}
	operandsText := " ::: "
	if len(outs)+len(ins) > 0 {
		operandsText = " : " + strings.Join(outs, ", ") + " : " + strings.Join(ins, ", ") + " : "
	}
	fmt.Fprintf(&body, "  %s(\"%s\"%s\"memory\");\n", vol, renumber(asmText, outs, ins, ops), operandsText)
	for _, p := range post {
		body.WriteString(p)
	}
	text := body.String()
	switch {
	case form.family:
		text = familyOnlyFor(text, form.text)
	case form.archSpecific:
		text = "#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__)\n" + text +
			"#else\n  __trap();  // portable PTX: " + form.text + " needs an arch-specific target\n#endif\n"
	}
	code := "__forceinline__ __device__ void " + name + "(" + strings.Join(params, ", ") + ") {\n" + text + "}\n"
	h := &helper{name: name, rank: rankUser, minSM: form.minSM, sm100Family: form.family, what: c.Op, code: code}
	k.use(h)
	return name + "(" + strings.Join(callArgs, ", ") + ")"
}

// renumber rewrites the operand references of text, numbered in argument
// order, into inline asm's numbering (outputs first, then inputs).
func renumber(text string, outs, ins []string, ops []ptxOperand) string {
	var isOut []bool
	for _, o := range ops {
		if o.kind == 'i' || o.kind == 'L' {
			continue
		}
		for range max(1, o.lanes) {
			isOut = append(isOut, o.kind == 'w' || o.kind == 'm' || o.kind == 'P')
		}
	}
	newIdx := make([]int, len(isOut))
	no, ni := 0, 0
	for i, out := range isOut {
		if out {
			newIdx[i] = no
			no++
		} else {
			newIdx[i] = len(outs) + ni
			ni++
		}
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] != '%' {
			b.WriteByte(text[i])
			continue
		}
		j := i + 1
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		if j == i+1 {
			b.WriteString("%%") // a special register (%laneid)
			continue
		}
		n, _ := strconv.Atoi(text[i+1 : j])
		if strings.HasPrefix(text[j:], "__") {
			b.WriteString("%" + text[i+1:j]) // already numbered (the predicate)
			i = j + 1
			continue
		}
		b.WriteString("%" + strconv.Itoa(newIdx[n]))
		i = j - 1
	}
	return b.String()
}

// cIdent turns PTX text into a C identifier fragment.
func cIdent(s string) string {
	return strings.NewReplacer("::", "_", ".", "_", "-", "m").Replace(s)
}

// lvalue reports whether e prints as something C can assign.
func lvalue(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Load, *ir.Var:
		return true
	}
	return false
}

// ptxAddr prints an address argument: a 32-bit shared-window address
// (shared) or a generic pointer. A T.ptx.addr(base, byte_offset) adds its
// constant offset; an integer is taken as already being an address.
func (k *kernel) ptxAddr(c *ir.Call, a ir.Expr, shared bool) string {
	if in, ok := a.(*ir.Call); ok && in.Op == "ptx.addr" {
		if len(in.Args) != 2 {
			k.fail("%s: T.ptx.addr takes a base and a byte offset", c.Op)
			return "0"
		}
		// The reference bakes a constant offset into the operand
		// ([%n+off]) after unrolling; the printer keeps T.unroll loops
		// as loops, so the offset is added to the address instead (the
		// same address either way).
		off := k.expr(in.Args[1])
		base := k.ptxAddr(c, in.Args[0], shared)
		if shared {
			return "(" + base + " + " + off + ")"
		}
		return "((const char*)" + base + " + " + off + ")"
	}
	t := typeOf(a)
	isInt := t.IsValid() && (t.Code == ir.Int || t.Code == ir.UInt)
	switch {
	case shared && isInt:
		return "((uint32_t)" + k.expr(a) + ")"
	case shared:
		return "((uint32_t)__cvta_generic_to_shared(" + k.top(a) + "))"
	case isInt:
		return "((const void*)(uintptr_t)" + k.expr(a) + ")"
	}
	return k.top(a)
}

// hasToken reports whether toks holds t.
func hasToken(toks []string, t string) bool {
	for _, x := range toks {
		if x == t {
			return true
		}
	}
	return false
}

// sharedSpace reports whether the tokens name a shared state space.
func sharedSpace(toks []string) bool {
	for _, t := range toks {
		if t == "shared" || strings.HasPrefix(t, "shared::") {
			return true
		}
	}
	return false
}

// formPrinter wraps a fixed form as an op: its need is the form's.
func formPrinter(f *ptxForm) *extOp {
	op := user(opNeed{sm: f.minSM, family: f.family}, func(k *kernel, c *ir.Call) string { return k.printPTXForm(c, f) })
	op.form = f
	return op
}

// shape is how form f takes n arguments: want is the count its operands
// name; pred marks the reference's predicated twin (pred=...: one more, a
// trailing uint32_t guarding the instruction with @p), drop the optional
// trailing operands left out; ok is false for any other count.
func (f *ptxForm) shape(n int) (want int, pred bool, drop int, ok bool) {
	for _, o := range f.operands {
		if o.kind != 'L' {
			want += max(1, o.lanes)
		}
	}
	switch {
	case n == want+1 && !hasKind(f.operands, 'P'):
		return want, true, 0, true
	case n < want && want-n <= f.optional:
		return want, false, want - n, true
	}
	return want, false, 0, n == want
}

// ArgRoles tells, for an intrinsic op that a table form prints (the
// T.ptx dialect's loads, mapa, query_cancel, ...), what the instruction
// does with each argument of its full form: 'w' it writes the register
// (an inline-asm output), 'm' it reads and writes it, 'r' it reads it,
// 'x' anything else (an address, an immediate, a predicate input, a tensor
// map). A call may leave out the optional trailing arguments, or, when
// guardable, add one: the uint32 guard of its predicated twin (pred=...).
// known is false for an op printed otherwise. perf/memory reads it: what
// the machine code does with a register is what the printer binds it to.
func ArgRoles(op string) (roles []byte, optional int, guardable, known bool) {
	p := userOp(op)
	if p == nil || p.form == nil {
		return nil, 0, false, false
	}
	f := p.form
	for _, o := range f.operands {
		if o.kind == 'L' {
			continue
		}
		r := byte('x')
		switch o.kind {
		case 'w', 'P':
			r = 'w'
		case 'm', 'r':
			r = o.kind
		}
		for range max(1, o.lanes) {
			roles = append(roles, r)
		}
	}
	return roles, f.optional, !hasKind(f.operands, 'P'), true
}

// user is an op of a user family: what it needs of the target (ArchSafe
// and the arch choice read it, as they read extOps) and its printer.
func user(need opNeed, print func(k *kernel, c *ir.Call) string) *extOp {
	return &extOp{need: need, print: print}
}

// userOp finds the user family op printing op (nil when none does).
func userOp(op string) *extOp {
	for _, fam := range userFamilies {
		if p := fam(op); p != nil {
			return p
		}
	}
	return nil
}

// notModelled is the printer of an intrinsic tilels knows but does not
// print: the error names it and says why.
func notModelled(why string) *extOp {
	return user(opNeed{}, func(k *kernel, c *ir.Call) string {
		k.fail("not modelled: %s (%s)", c.Op, why)
		return ""
	})
}

func hasKind(ops []ptxOperand, kind byte) bool {
	for _, o := range ops {
		if o.kind == kind {
			return true
		}
	}
	return false
}
