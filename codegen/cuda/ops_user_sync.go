package cuda

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Synchronisation, election, shuffles, special registers and register
// reallocation a kernel writes itself:
//
//	T.ptx.bar.sync(id [, count])  T.ptx.barrier.sync(...)  T.ptx.bar.arrive(id, count)
//	T.ptx.setmaxnreg.inc.sync.aligned.u32(224)              (the count is an immediate)
//	T.cuda.elect_sync()                                      (as T.ptx.elect_sync)
//	T.cuda.mov_sreg(32, "laneid")                            mov.u32 from %laneid
//	T.cuda.__shfl_sync(mask, v, lane, width)                 (and _up/_down/_xor)
//	T.cuda.warp_sum(v [, width])   T.cuda.cta_sum(v, num_warps, scratch)   (and max, min)
//
// as the reference prints them (backend/cuda/ptx/table.py bar/barrier and
// setmaxnreg entries; cpp/asm.py cuda_mov_sreg; script.py _shfl_sync;
// cpp/builtins.py codegen_cuda_warp_reduce and codegen_cuda_cta_reduce).
func userSyncOp(op string) *extOp {
	switch op {
	case "cuda.elect_sync":
		return user(opNeed{sm: 90}, func(k *kernel, c *ir.Call) string {
			if !k.wantArgs(c, 0) {
				return ""
			}
			return k.callHelper(electSyncHelper, nil)
		})
	case "cuda.mov_sreg":
		return user(opNeed{}, printMovSreg)
	case "cuda.__shfl_sync", "cuda._shfl_sync", "cuda.__shfl_up_sync", "cuda._shfl_up_sync",
		"cuda.__shfl_down_sync", "cuda._shfl_down_sync", "cuda.__shfl_xor_sync", "cuda._shfl_xor_sync":
		return user(opNeed{}, func(k *kernel, c *ir.Call) string {
			if !k.wantArgs(c, 4) {
				return ""
			}
			return "__" + strings.TrimLeft(strings.TrimPrefix(c.Op, "cuda."), "_") + "(" + k.args(c.Args) + ")"
		})
	case "cuda.warp_sum", "cuda.warp_max", "cuda.warp_min":
		return user(opNeed{}, printWarpReduceOf(strings.TrimPrefix(op, "cuda.warp_")))
	case "cuda.cta_sum", "cuda.cta_max", "cuda.cta_min":
		return user(opNeed{}, printCtaReduceOf(strings.TrimPrefix(op, "cuda.cta_")))
	case "cuda.cluster_sync":
		return fixedHelper(0, clusterSyncHelper)
	}
	toks, ok := ptxTokens(op)
	if !ok {
		return nil
	}
	text := strings.Join(toks, ".")
	u32 := ptxOperand{kind: 'r', typ: "u32"}
	switch toks[0] {
	case "bar", "barrier":
		if len(toks) > 1 && toks[1] == "cluster" {
			return clusterBarrierForm(toks, text)
		}
		rest := toks[1:]
		if len(rest) > 0 && rest[0] == "cta" {
			rest = rest[1:]
		}
		if toks[0] == "barrier" && len(rest) > 0 && rest[len(rest)-1] == "aligned" {
			rest = rest[:len(rest)-1]
		}
		if len(rest) != 1 {
			return nil
		}
		form := &ptxForm{text: text, volatile: true, minSM: 70, operands: []ptxOperand{u32, u32}}
		switch rest[0] {
		case "sync":
			form.optional = 1
		case "arrive":
		default:
			return nil
		}
		return formPrinter(form)
	case "griddepcontrol":
		if len(toks) != 2 || toks[1] != "wait" && toks[1] != "launch_dependents" {
			return nil
		}
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90})
	case "setmaxnreg":
		if len(toks) != 5 || toks[1] != "inc" && toks[1] != "dec" || strings.Join(toks[2:], ".") != "sync.aligned.u32" {
			return nil
		}
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, archSpecific: true, operands: []ptxOperand{{kind: 'i'}}})
	}
	return nil
}

// printMovSreg prints T.cuda.mov_sreg(bits, reg): a read of the special
// register %reg, returned as int32_t or int64_t.
func printMovSreg(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 2) {
		return ""
	}
	bits, ok := k.constArg(c, 0)
	if !ok {
		return ""
	}
	reg, ok := k.stringArg(c, 1)
	if !ok {
		return ""
	}
	if bits != 32 && bits != 64 {
		k.fail("Only support 32/64 bits for cuda_mov_sreg, but got %d.", bits)
		return ""
	}
	reg = strings.TrimPrefix(reg, "%")
	for _, r := range reg {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			k.fail("%s: %q is not a special register name", c.Op, reg)
			return ""
		}
	}
	spec := "r"
	if bits == 64 {
		spec = "l"
	}
	name := "tvm_builtin_ptx_fetch_register_" + cIdent(reg)
	h := &helper{name: name, rank: rankSpecialReg, what: c.Op, code: fmt.Sprintf(
		"__forceinline__ __device__ int%[1]d_t %[2]s() {\n  uint%[1]d_t x;\n  asm volatile(\"mov.u%[1]d %%0, %%%%%[3]s;\" : \"=%[4]s\"(x));\n  return (int%[1]d_t)x;\n}\n",
		bits, name, reg, spec)}
	return k.callHelper(h, nil)
}

// printWarpReduceOf prints T.cuda.warp_<op>(v [, width]) as
// T.cuda.warp_reduce(v, op, width) does.
func printWarpReduceOf(op string) func(k *kernel, c *ir.Call) string {
	return func(k *kernel, c *ir.Call) string {
		if len(c.Args) < 1 || len(c.Args) > 2 {
			k.fail("%s takes 1 or 2 arguments, got %d", c.Op, len(c.Args))
			return ""
		}
		width := int64(32)
		if len(c.Args) == 2 {
			w, ok := k.constArg(c, 1)
			if !ok {
				return ""
			}
			width = w
		}
		h, ok := warpReduceHelper(op, width)
		if !ok {
			k.fail("%s: width %d is not a power of two in [2, 32]", c.Op, width)
			return ""
		}
		if op != "sum" {
			k.use(reduceMinMaxHelper)
		}
		return k.callHelper(h, c.Args[:1])
	}
}

// printCtaReduceOf prints T.cuda.cta_<op>(v, num_warps, scratch): a
// 32-lane warp reduction, each warp's result through scratch (one element
// per warp), then a reduction of those by warp 0 (the reference's
// codegen_cuda_cta_reduce).
func printCtaReduceOf(op string) func(k *kernel, c *ir.Call) string {
	return func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, 3) {
			return ""
		}
		nw, ok := k.constArg(c, 1)
		if !ok {
			return ""
		}
		if nw < 1 || nw > 32 || nw&(nw-1) != 0 {
			k.fail("%s: num_warps %d is not a power of two in [1, 32]", c.Op, nw)
			return ""
		}
		warp, _ := warpReduceHelper(op, 32)
		k.use(warp)
		if op != "sum" {
			k.use(reduceMinMaxHelper)
		}
		identity := map[string]string{"sum": "T(0)", "max": "-INFINITY", "min": "INFINITY"}[op]
		name := fmt.Sprintf("tvm_builtin_cuda_cta_reduce_%s_%d", op, nw)
		h := &helper{name: name, rank: rankUser, what: c.Op, code: "template <typename T>\n" +
			"__forceinline__ __device__ T " + name + "(T val, void* scratch_raw) {\n" +
			"  T* scratch = reinterpret_cast<T*>(scratch_raw);\n" +
			"  val = " + warp.name + "(val);\n" +
			"  int tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;\n" +
			"  int warp_id = tid / 32;\n" +
			"  int lane_id = tid % 32;\n" +
			"  if (lane_id == 0) scratch[warp_id] = val;\n" +
			"  __syncthreads();\n" +
			"  if (warp_id == 0) {\n" +
			fmt.Sprintf("    T partial = (lane_id < %d) ? scratch[lane_id] : %s;\n", nw, identity) +
			"    partial = " + warp.name + "(partial);\n" +
			"    if (lane_id == 0) scratch[0] = partial;\n" +
			"  }\n" +
			"  __syncthreads();\n" +
			"  return scratch[0];\n" +
			"}\n"}
		return k.callHelper(h, []ir.Expr{c.Args[0], c.Args[2]})
	}
}

// clusterBarrierForm is barrier.cluster.arrive{.release|.relaxed}{.aligned}
// or barrier.cluster.wait{.acquire}{.aligned}: no operands, sm_90.
func clusterBarrierForm(toks []string, text string) *extOp {
	if toks[0] != "barrier" || len(toks) < 3 {
		return nil
	}
	sems := map[string]bool{"arrive": true}
	switch toks[2] {
	case "arrive":
		sems = map[string]bool{"release": true, "relaxed": true}
	case "wait":
		sems = map[string]bool{"acquire": true}
	default:
		return nil
	}
	rest := toks[3:]
	if len(rest) > 0 && sems[rest[0]] {
		rest = rest[1:]
	}
	if len(rest) > 1 || len(rest) == 1 && rest[0] != "aligned" {
		return nil
	}
	return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90})
}

// clusterSyncHelper is T.cuda.cluster_sync (the reference's
// cuda_cluster_sync: an arrive and a wait on the cluster barrier).
var clusterSyncHelper = &helper{name: "tvm_builtin_cuda_cluster_sync", rank: rankUser, minSM: 90, what: "cuda.cluster_sync",
	code: "__forceinline__ __device__ void tvm_builtin_cuda_cluster_sync() {\n  asm(\"barrier.cluster.arrive.aligned;\");\n  asm(\"barrier.cluster.wait.aligned;\");\n}\n"}
