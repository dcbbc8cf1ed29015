package cuda

import (
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// The tcgen05 bookkeeping a Blackwell kernel writes itself, around its
// tile calls: tensor-memory allocation, the commit that arrives on an
// mbarrier when the issued MMAs/copies finish, and the fences and waits.
// A kernel names them in either of the DSL's spellings:
//
//	T.ptx.tcgen05.alloc(dst, n_cols, cta_group)     T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](dst, n_cols)
//	T.ptx.tcgen05.dealloc(taddr, n_cols, cta_group) T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"](taddr, n_cols)
//	T.ptx.tcgen05.relinquish_alloc_permit(cta_group) T.ptx["tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"]()
//	T.ptx.tcgen05.commit(bar, cta_group)            T.ptx["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"](bar)
//	T.ptx.tcgen05.wait__ld() / wait.ld()            T.ptx["tcgen05.wait::ld.sync.aligned"]()   (and st)
//	T.ptx.tcgen05.fence__after_thread_sync()        T.ptx["tcgen05.fence::after_thread_sync"]() (and before)
//
// The helpers print the PTX the reference's intrinsics do
// (backend/cuda/operator/intrinsics/tcgen05.py); each needs an sm_100-family
// target. The multicast commit's spelling carries the CTA mask as a second
// operand (uint16). Other spellings (shift) stay "unknown intrinsic".

// tcgen05UserOp recognises one of the spellings above: the instruction
// (alloc, dealloc, relinquish_alloc_permit, commit, wait::ld, wait::st,
// fence::after_thread_sync, fence::before_thread_sync) and the cta_group
// its name fixes (0 when the name leaves it to an argument).
func tcgen05UserOp(op string) (instr string, ctaGroup int64, ok bool) {
	rest, found := strings.CutPrefix(op, "ptx.tcgen05.")
	if !found {
		return "", 0, false
	}
	name := strings.ReplaceAll(rest, "__", "::")
	parts := strings.Split(name, ".")
	head := parts[0]
	if head == "wait" || head == "fence" {
		if len(parts) < 2 {
			return "", 0, false
		}
		head += "::" + parts[1]
		parts = parts[1:]
	}
	for _, p := range parts[1:] {
		if g, isGroup := strings.CutPrefix(p, "cta_group::"); isGroup {
			n, err := strconv.ParseInt(g, 10, 64)
			if err != nil || n < 1 || n > 2 {
				return "", 0, false
			}
			ctaGroup = n
		}
	}
	switch head {
	case "alloc", "dealloc", "relinquish_alloc_permit":
	case "commit":
		// The multicast mbarrier commit takes a 16-bit CTA mask after the
		// barrier (TCGen05Bar.arrive(cta_mask=) with a mask of several
		// CTAs, or a runtime one).
		if strings.Contains(name, "multicast") {
			if !strings.Contains(name, ".shared::cluster.multicast::cluster.b64") || ctaGroup == 0 {
				return "", 0, false
			}
			head = "commit.multicast"
		}
	case "wait::ld", "wait::st", "fence::after_thread_sync", "fence::before_thread_sync":
	default:
		return "", 0, false
	}
	return head, ctaGroup, true
}

// printTcgen05User prints a recognised tcgen05 bookkeeping call, or
// reports false when op is not one.
func (k *kernel) printTcgen05User(c *ir.Call) (string, bool) {
	instr, group, ok := tcgen05UserOp(c.Op)
	if !ok {
		return "", false
	}
	operands, grouped := map[string]int{"alloc": 2, "dealloc": 2, "commit": 1, "commit.multicast": 2, "relinquish_alloc_permit": 0}[instr]
	if grouped && group == 0 {
		// The attribute spelling: cta_group is the argument after the
		// operands (1 when absent).
		group = 1
		if len(c.Args) > operands {
			g, ok := k.constArg(c, operands)
			if !ok {
				return "", true
			}
			group = g
		}
		if group != 1 && group != 2 {
			k.fail("%s: cta_group must be 1 or 2, got %d", c.Op, group)
			return "", true
		}
	}
	extra := 0
	if grouped && !strings.Contains(c.Op, "cta_group::") {
		extra = 1 // the cta_group argument
	}
	if len(c.Args) < operands || len(c.Args) > operands+extra {
		// Too few, or more (a multicast commit's CTA mask): not one of
		// the forms above.
		k.fail("%s with %d arguments is not modelled (want %d operands)", c.Op, len(c.Args), operands)
		return "", true
	}
	g := strconv.FormatInt(group, 10)
	var h *helper
	switch instr {
	case "wait::ld", "wait::st", "fence::after_thread_sync", "fence::before_thread_sync":
		text := "tcgen05." + instr
		if strings.HasPrefix(instr, "wait::") {
			text += ".sync.aligned"
		}
		name := "tvm_builtin_ptx_tcgen05_" + strings.NewReplacer("::", "_").Replace(instr)
		h = tcgen05Helper(name, "()", "  asm volatile(\""+text+";\" ::: \"memory\");\n")
	case "relinquish_alloc_permit":
		h = tcgen05Helper("tvm_builtin_ptx_tcgen05_relinquish_alloc_permit_cta_group_"+g, "()",
			"  asm volatile(\"tcgen05.relinquish_alloc_permit.cta_group::"+g+".sync.aligned;\" ::: \"memory\");\n")
	case "alloc":
		h = tcgen05Helper("tvm_builtin_ptx_tcgen05_alloc_cta_group_"+g, "(void* dst, int nCols)",
			"  unsigned int dst_addr = __cvta_generic_to_shared(dst);\n"+
				"  asm volatile(\"tcgen05.alloc.cta_group::"+g+".sync.aligned.shared::cta.b32 [%0], %1;\" : : \"r\"(dst_addr), \"r\"(nCols) : \"memory\");\n")
	case "dealloc":
		h = tcgen05Helper("tvm_builtin_ptx_tcgen05_dealloc_cta_group_"+g, "(uint32_t taddr, int nCols)",
			"  asm volatile(\"tcgen05.dealloc.cta_group::"+g+".sync.aligned.b32 %0, %1;\" : : \"r\"(taddr), \"r\"(nCols) : \"memory\");\n")
	case "commit", "commit.multicast":
		// the mbarrier as a pointer, or as a 32-bit shared-window address
		// (smem_addr + offset, as gdn_prefill_sm100.py passes it)
		name, params, conv := "tvm_builtin_ptx_tcgen05_commit", "(void* bar", "  unsigned int bar_addr = __cvta_generic_to_shared(bar);\n"
		if t := typeOf(c.Args[0]); t.Bits == 32 && (t.Code == ir.Int || t.Code == ir.UInt) {
			name, params, conv = name+"_addr", "(uint32_t bar_addr", ""
		}
		if instr == "commit" {
			h = tcgen05Helper(name+"_cta_group_"+g, params+")",
				conv+"  asm volatile(\"tcgen05.commit.cta_group::"+g+".mbarrier::arrive::one.shared::cluster.b64 [%0];\" : : \"r\"(bar_addr) : \"memory\");\n")
		} else {
			h = tcgen05Helper(strings.Replace(name, "commit", "commit_multicast", 1)+"_cta_group_"+g, params+", uint16_t cta_mask)",
				conv+"  asm volatile(\"tcgen05.commit.cta_group::"+g+".mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\" : : \"r\"(bar_addr), \"h\"(cta_mask) : \"memory\");\n")
		}
	}
	return k.callHelper(h, c.Args[:operands]), true
}

// tcgen05Helper is a __device__ helper around one tcgen05 instruction,
// guarded like the variants' tcgen05 helpers (familyOnly).
func tcgen05Helper(name, params, body string) *helper {
	return &helper{
		name: name, rank: rankAsync, minSM: 100, sm100Family: true, what: "tcgen05",
		code: "__forceinline__ __device__ void " + name + params + " {\n" + familyOnly(body) + "}\n",
	}
}
