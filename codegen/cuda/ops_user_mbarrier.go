package cuda

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// The mbarrier instructions a kernel writes itself in the T.ptx dialect's
// dotted spelling (reference table entries mbarrier_init,
// mbarrier_arrive*, mbarrier_try_wait*):
//
//	T.ptx.mbarrier.init.shared.b64(bar, count)                     mbarrier.init.shared.b64 [bar], count;
//	T.ptx.mbarrier.arrive.shared__cta.b64(bar [, count])           mbarrier.arrive.shared::cta.b64 _, [bar]{, count};
//	T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(bar, tx)       mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], tx;
//	T.ptx.mbarrier.try_wait.parity.shared__cta.b64(ok, bar, parity [, hint])
//	T.ptx.mbarrier.complete_tx.relaxed.cluster.shared__cluster.b64(bar, tx)   (and expect_tx, inval)
//
// The address is a 32-bit shared-window address when the instruction
// names a shared state space, a generic pointer otherwise. try_wait and
// test_wait write their .pred result into ok (1 or 0) through a .pred
// register, as the reference's bridge does.
func userMbarrierOp(op string) *extOp {
	switch op {
	case "cuda.mbarrier_wait":
		return user(opNeed{sm: 90}, printMbarrierWait)
	case "cuda.mbarrier_wait_acquire_cluster":
		return fixedHelper(2, mbarrierWaitClusterHelper)
	}
	toks, ok := ptxTokens(op)
	if !ok || toks[0] != "mbarrier" || len(toks) < 3 || toks[len(toks)-1] != "b64" {
		return nil
	}
	form := &ptxForm{text: strings.Join(toks, "."), volatile: true, minSM: 80, shared: sharedSpace(toks)}
	addr := ptxOperand{kind: 'a'}
	u32 := ptxOperand{kind: 'r', typ: "u32"}
	switch toks[1] {
	case "init":
		if len(toks) > 4 {
			return nil
		}
		form.operands = []ptxOperand{addr, u32}
	case "arrive", "arrive_drop":
		form.minSM = 90
		form.operands = []ptxOperand{{kind: 'L', typ: "_"}, addr, u32}
		if hasToken(toks, "expect_tx") {
			break
		}
		form.optional = 1 // the count ("{, count}", 1 when left out)
	case "complete_tx", "expect_tx":
		// mbarrier.complete_tx/expect_tx{.sem.scope}{.space}.b64 [addr], txCount
		form.minSM = 90
		form.operands = []ptxOperand{addr, u32}
	case "inval":
		form.operands = []ptxOperand{addr}
	case "try_wait", "test_wait":
		if toks[1] == "try_wait" {
			form.minSM = 90
		}
		phase := ptxOperand{kind: 'r', typ: "b64"}
		if hasToken(toks, "parity") {
			phase = u32
		}
		form.operands = []ptxOperand{{kind: 'P'}, addr, phase}
		if toks[1] == "try_wait" {
			form.operands = append(form.operands, u32)
			form.optional = 1 // suspendTimeHint
		}
	default:
		return nil
	}
	return formPrinter(form)
}

// printMbarrierWait prints T.cuda.mbarrier_wait(bar, phase): a spin on
// mbarrier.try_wait.parity.acquire.cta until the phase completes (the
// reference's cuda_mbarrier_wait; a uint32 bar is already a shared-window
// address and binds directly).
func printMbarrierWait(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 2) {
		return ""
	}
	raw := typeOf(c.Args[0]) == ir.UInt32
	name, sig, conv := "tvm_builtin_cuda_mbarrier_wait", "(void* barrier, int phase)",
		"  unsigned int barrier_addr_int = __cvta_generic_to_shared(barrier);\n"
	if raw {
		name, sig, conv = name+"_raw_u32", "(unsigned int barrier, int phase)", "  unsigned int barrier_addr_int = barrier;\n"
	}
	h := &helper{name: name, rank: rankUser, minSM: 90, what: c.Op, code: "__forceinline__ __device__ void " + name + sig + " {\n" + conv +
		"  unsigned int ticks = 0x989680;\n" +
		"  asm volatile(\n" +
		"      \"{\\n\"\n" +
		"      \".reg .pred P1;\\n\"\n" +
		"      \"LAB_WAIT:\\n\"\n" +
		"      \"mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%0], %1, %2;\\n\"\n" +
		"      \"@P1 bra.uni DONE;\\n\"\n" +
		"      \"bra.uni LAB_WAIT;\\n\"\n" +
		"      \"DONE:\\n\"\n" +
		"      \"}\\n\"\n" +
		"      :: \"r\"(barrier_addr_int), \"r\"(phase), \"r\"(ticks) : \"memory\");\n}\n"}
	return k.callHelper(h, c.Args)
}

var mbarrierWaitClusterHelper = &helper{name: "tvm_builtin_cuda_mbarrier_wait_acquire_cluster", rank: rankUser, minSM: 90, what: "cuda.mbarrier_wait_acquire_cluster",
	code: "__forceinline__ __device__ void tvm_builtin_cuda_mbarrier_wait_acquire_cluster(void* barrier, int phase) {\n" +
		"  unsigned int barrier_addr_int = __cvta_generic_to_shared(barrier);\n" +
		"  asm volatile(\n" +
		"      \"{\\n\"\n" +
		"      \".reg .pred P1;\\n\"\n" +
		"      \"LAB_WAIT_AC:\\n\"\n" +
		"      \"mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P1, [%0], %1;\\n\"\n" +
		"      \"@P1 bra.uni DONE_AC;\\n\"\n" +
		"      \"bra.uni LAB_WAIT_AC;\\n\"\n" +
		"      \"DONE_AC:\\n\"\n" +
		"      \"}\\n\"\n" +
		"      :: \"r\"(barrier_addr_int), \"r\"(phase) : \"memory\");\n}\n"}
