package cuda

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// The rest of what a kernel writes itself:
//
//	T.ptx.cp.async_.commit_group()  T.ptx.cp.async_.wait_group(N)  T.ptx.cp.async_.wait_all()
//	T.ptx.cp.async_.bulk.commit_group()  T.ptx.cp.async_.bulk.wait_group(.read)(N)
//	T.cuda.func_call("name", args..., source_code=SRC)   SRC defines name; the call is name(args...)
//	T.reinterpret(dtype, x)                     a bit pun; a pointer for a PointerType target
//	T.cuda.tcgen05.encode_matrix_descriptor(...)  as T.ptx.tcgen05.encode_matrix_descriptor
//
// NVSHMEM's device calls (T.nvshmem.*) need the NVSHMEM headers and
// library the generated file does not include: "not modelled".
func userMiscOp(op string) *extOp {
	switch op {
	case "cuda.func_call":
		return user(opNeed{}, printFuncCall)
	case "reinterpret":
		return user(opNeed{}, printReinterpret)
	case "ptr_byte_offset", "handle_add_byte_offset":
		return user(opNeed{}, printByteOffset)
	case "cuda.tcgen05.encode_matrix_descriptor":
		x := extOps[ir.OpTcgen05EncodeMatrixDesc]
		return &x
	case "cuda.cvta_generic_to_shared":
		return fixedHelper(1, cvtaToSharedHelper)
	case "cuda.trap_when_assert_failed":
		return fixedHelper(1, trapWhenAssertFailedHelper)
	case "cuda.thread_fence":
		return fixedHelper(0, threadFenceHelper)
	case "cuda.thread_rank":
		// cooperative_groups::this_thread_block().thread_rank(): the
		// linear thread index within the block (0.27 cpp/builtins.py).
		return fixedHelper(0, simpleHelper("tvm_builtin_cuda_thread_rank", "int", "()",
			"(int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"))
	case "cuda.nano_sleep":
		return fixedHelper(1, nanoSleepHelper)
	case "cuda.__activemask", "cuda._activemask":
		return user(opNeed{}, func(k *kernel, c *ir.Call) string {
			if !k.wantArgs(c, 0) {
				return ""
			}
			return "__activemask()"
		})
	case "rsqrt":
		return user(opNeed{}, printRsqrt)
	case "tvm_warp_shuffle", "tvm_warp_shuffle_up", "tvm_warp_shuffle_down":
		// TVM's CUDA codegen: __shfl_sync / __shfl_up_sync /
		// __shfl_down_sync(mask, value, lane, width); warp_size is 32.
		fn := map[string]string{"tvm_warp_shuffle": "__shfl_sync", "tvm_warp_shuffle_up": "__shfl_up_sync",
			"tvm_warp_shuffle_down": "__shfl_down_sync"}[op]
		return user(opNeed{}, func(k *kernel, c *ir.Call) string {
			if !k.wantArgs(c, 5) {
				return ""
			}
			return fn + "(" + k.top(c.Args[0]) + ", " + k.top(c.Args[1]) + ", " + k.top(c.Args[2]) + ", " + k.top(c.Args[3]) + ")"
		})
	case "cuda.uint_as_float":
		return fixedHelper(1, uintAsFloatHelper)
	case "cuda.float_as_uint":
		return fixedHelper(1, floatAsUintHelper)
	case "cuda.ballot_sync":
		return fixedHelper(2, ballotSyncHelper)
	case "cuda.atomic_add":
		return fixedHelper(2, atomicAddHelper)
	case "cuda.atomic_cas":
		return fixedHelper(3, atomicCasHelper)
	case "cuda.any_sync":
		return fixedHelper(2, anySyncHelper)
	case "cuda.float22bfloat162_rn":
		return fixedHelper(2, float22Bfloat162RnHelper)
	case "cuda.fmul2_rn", "cuda.fadd2_rn":
		// two packed floats times / plus two (__fmul2_rn / __fadd2_rn,
		// sm_100), the reference's tvm_builtin_fmul2_rn / _fadd2_rn
		fn := map[string]string{"cuda.fmul2_rn": "fmul2_rn", "cuda.fadd2_rn": "fadd2_rn"}[op]
		return fixedHelper(2, &helper{name: "tvm_builtin_" + fn, rank: rankUser, minSM: 100, what: op,
			code: "__forceinline__ __device__ unsigned long long tvm_builtin_" + fn + "(unsigned long long a, unsigned long long b) {\n" +
				"  float2 lhs = *reinterpret_cast<float2*>(&a);\n  float2 rhs = *reinterpret_cast<float2*>(&b);\n" +
				"  float2 result = __" + fn + "(lhs, rhs);\n  return *reinterpret_cast<unsigned long long*>(&result);\n}\n"})
	case "cuda.bfloat1622float2":
		return fixedHelper(1, &helper{name: "tvm_builtin_bfloat1622float2", rank: rankUser,
			code: "__forceinline__ __device__ unsigned long long tvm_builtin_bfloat1622float2(unsigned int packed) {\n" +
				"  __nv_bfloat162 value;\n  *reinterpret_cast<unsigned int*>(&value) = packed;\n" +
				"  float2 result = __bfloat1622float2(value);\n  return *reinterpret_cast<unsigned long long*>(&result);\n}\n"})
	case "cuda.hmin2", "cuda.hmax2":
		// two packed bf16 (__hmin2 / __hmax2 of __nv_bfloat162)
		fn := op[len("cuda."):]
		return fixedHelper(2, &helper{name: "tvm_builtin_" + fn, rank: rankUser, minSM: 80, what: op,
			code: "__forceinline__ __device__ unsigned int tvm_builtin_" + fn + "(unsigned int a, unsigned int b) {\n" +
				"  __nv_bfloat162 lhs;\n  __nv_bfloat162 rhs;\n  *reinterpret_cast<unsigned int*>(&lhs) = a;\n  *reinterpret_cast<unsigned int*>(&rhs) = b;\n" +
				"  __nv_bfloat162 result = __" + fn + "(lhs, rhs);\n  return *reinterpret_cast<unsigned int*>(&result);\n}\n"})
	case "cuda.fp8x4_e4m3_from_float4":
		return fixedHelper(4, &helper{name: "tvm_builtin_fp8x4_e4m3_from_float4", rank: rankUser,
			code: "__forceinline__ __device__ unsigned int tvm_builtin_fp8x4_e4m3_from_float4(float x, float y, float z, float w) {\n" +
				"  __nv_fp8x4_e4m3 result = __nv_fp8x4_e4m3(make_float4(x, y, z, w));\n  return *reinterpret_cast<unsigned int*>(&result);\n}\n"})
	case "abs":
		// T.fabs / T.abs: fabsf, fabs, __habs or abs by the operand's
		// type, as TVM's CUDA codegen prints them
		return user(opNeed{}, func(k *kernel, c *ir.Call) string {
			t, x, ok := k.unaryOperand(c)
			if !ok {
				return ""
			}
			switch {
			case t.Code == ir.Float && t.Bits == 32:
				return "fabsf(" + x + ")"
			case t.Code == ir.Float && t.Bits == 64:
				return "fabs(" + x + ")"
			case t.Code == ir.BFloat, t.Code == ir.Float && t.Bits == 16:
				return "__habs(" + x + ")"
			case t.Code == ir.Int && t.Bits <= 32:
				return "abs(" + x + ")"
			case t.Code == ir.Int:
				return "llabs(" + x + ")"
			case t.Code == ir.UInt:
				return x
			}
			k.fail("%s of %s values", c.Op, t)
			return ""
		})
	case "cuda.clock64":
		return fixedHelper(0, simpleHelper("tvm_builtin_clock64", "unsigned long long", "()", "clock64()"))
	case "cuda.float2_x":
		return fixedHelper(1, float2Helper("x"))
	case "cuda.float2_y":
		return fixedHelper(1, float2Helper("y"))
	case "cuda.half2float":
		return fixedHelper(1, simpleHelper("tvm_builtin_cuda_half2float", "float", "(half src)", "__half2float(src)"))
	case "cuda.bfloat162float":
		return fixedHelper(1, simpleHelper("tvm_builtin_cuda_bfloat162float", "float", "(nv_bfloat16 src)", "__bfloat162float(src)"))
	case "cuda.reduce_add_sync_u32":
		return fixedHelper(2, simpleHelper("tvm_builtin_reduce_add_sync_u32", "unsigned int", "(unsigned int mask, unsigned int value)", "__reduce_add_sync(mask, value)"))
	case "cuda.reduce_min_sync_u32":
		return fixedHelper(2, simpleHelper("tvm_builtin_reduce_min_sync_u32", "unsigned int", "(unsigned int mask, unsigned int value)", "__reduce_min_sync(mask, value)"))
	case "cuda.ffs_u32":
		return fixedHelper(1, simpleHelper("tvm_builtin_ffs_u32", "int", "(unsigned int value)", "__ffs(value)"))
	case "cuda.wgmma.noop_barrier", "cuda.wgmma_noop_barrier":
		return user(opNeed{}, printWgmmaNoopBarrier)
	case "log":
		return user(opNeed{}, printLog)
	case "cuda.fdividef":
		return fixedHelper(2, simpleHelper("tvm_builtin_cuda_fdividef", "float", "(float x, float y)", "__fdividef(x, y)"))
	case "popcount":
		return user(opNeed{}, func(k *kernel, c *ir.Call) string {
			if !k.wantArgs(c, 1) {
				return ""
			}
			if typeOf(c.Args[0]).Bits == 64 {
				return "__popcll(" + k.top(c.Args[0]) + ")"
			}
			return "__popc(" + k.top(c.Args[0]) + ")"
		})
	case "cuda.float22half2":
		return fixedHelper(2, float22Half2Helper)
	case "cuda.printf":
		return user(opNeed{}, printPrintf)
	case "bitwise_not":
		return user(opNeed{}, func(k *kernel, c *ir.Call) string {
			if !k.wantArgs(c, 1) {
				return ""
			}
			return "(~" + k.expr(c.Args[0]) + ")"
		})
	}
	if strings.HasPrefix(op, "nvshmem.") {
		return notModelled("NVSHMEM device calls need the NVSHMEM headers and library")
	}
	toks, ok := ptxTokens(op)
	if !ok {
		return nil
	}
	text := strings.Join(toks, ".")
	if p := arithForm(toks, text); p != nil {
		return p
	}
	if p := tensorCopyForm(toks, text); p != nil {
		return p
	}
	if p := cpAsyncForm(toks, text); p != nil {
		return p
	}
	switch text {
	case "st_bulk", "st_bulk.weak", "st_bulk.shared::cta", "st_bulk.weak.shared::cta":
		// st.bulk{.weak}{.shared::cta} [a], size, 0 (initval must be 0).
		return formPrinter(&ptxForm{text: strings.Replace(text, "st_bulk", "st.bulk", 1), volatile: true, minSM: 100, shared: true,
			operands: []ptxOperand{{kind: 'a'}, {kind: 'r', typ: "u64"}, {kind: 'L', typ: "0"}}})
	case "cp.async.mbarrier.arrive.b64", "cp.async.mbarrier.arrive.shared.b64", "cp.async.mbarrier.arrive.shared::cta.b64",
		"cp.async.mbarrier.arrive.noinc.b64", "cp.async.mbarrier.arrive.noinc.shared.b64", "cp.async.mbarrier.arrive.noinc.shared::cta.b64":
		// [addr]: the mbarrier tracks this thread's prior cp.async copies
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 80, shared: sharedSpace(toks), operands: []ptxOperand{{kind: 'a'}}})
	case "fns.b32":
		return formPrinter(&ptxForm{text: text, operands: []ptxOperand{
			{kind: 'w', typ: "b32"}, {kind: 'r', typ: "b32"}, {kind: 'r', typ: "b32"}, {kind: 'r', typ: "s32"}}})
	case "cvt.rn.f16x2.f32", "cvt.rz.f16x2.f32", "cvt.rn.relu.f16x2.f32", "cvt.rz.relu.f16x2.f32",
		"cvt.rn.satfinite.f16x2.f32", "cvt.rz.satfinite.f16x2.f32", "cvt.rn.relu.satfinite.f16x2.f32", "cvt.rz.relu.satfinite.f16x2.f32",
		"cvt.rn.bf16x2.f32", "cvt.rz.bf16x2.f32", "cvt.rn.relu.bf16x2.f32", "cvt.rz.relu.bf16x2.f32",
		"cvt.rn.satfinite.bf16x2.f32", "cvt.rz.satfinite.bf16x2.f32", "cvt.rn.relu.satfinite.bf16x2.f32", "cvt.rz.relu.satfinite.bf16x2.f32":
		// d, a, b: two floats rounded into one packed pair (a .b32), a
		// in the upper half (cvt_f16x2_f32 / cvt_bf16x2_f32)
		return formPrinter(&ptxForm{text: text, minSM: 80, operands: []ptxOperand{{kind: 'w', typ: "b32"}, {kind: 'r', typ: "f32"}, {kind: 'r', typ: "f32"}}})
	case "cvt.rz.ue8m0x2.f32", "cvt.rp.ue8m0x2.f32", "cvt.rz.satfinite.ue8m0x2.f32", "cvt.rp.satfinite.ue8m0x2.f32":
		// d, a, b: two floats to two packed e8m0 scale exponents (a .b16;
		// cvt_ue8m0x2_f32, a Blackwell line)
		return formPrinter(&ptxForm{text: text, minSM: 100, family: true, operands: []ptxOperand{{kind: 'w', typ: "b16"}, {kind: 'r', typ: "f32"}, {kind: 'r', typ: "f32"}}})
	case "cvt.rn.bf16x2.ue8m0x2":
		// d, a: two e8m0 exponents (a .b16) to two packed bf16 (a .b32)
		return formPrinter(&ptxForm{text: text, minSM: 100, family: true, operands: []ptxOperand{{kind: 'w', typ: "b32"}, {kind: 'r', typ: "b16"}}})
	case "cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.e5m2x2", "cvt.rn.relu.f16x2.e4m3x2", "cvt.rn.relu.f16x2.e5m2x2":
		// two packed fp8 (a .b16) to two packed halves (a .b32)
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 89, operands: []ptxOperand{{kind: 'w', typ: "b32"}, {kind: 'r', typ: "b16"}}})
	case "cvt.rn.bf16x2.e4m3x2", "cvt.rn.bf16x2.e5m2x2", "cvt.rn.relu.bf16x2.e4m3x2", "cvt.rn.relu.bf16x2.e5m2x2":
		// ptxas: "Feature 'cvt.bf16x2.e4m3x2' not supported on .target 'sm_100'": arch-specific only
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 100, family: true, operands: []ptxOperand{{kind: 'w', typ: "b32"}, {kind: 'r', typ: "b16"}}})
	case "clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128",
		"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
		"clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128",
		"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128":
		// [addr], [mbar]: shared-window addresses when .shared::cta is
		// named, generic otherwise; the multicast form is sm_100a-only.
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 100, shared: sharedSpace(toks),
			family: strings.Contains(text, "multicast"), operands: []ptxOperand{{kind: 'a'}, {kind: 'a'}}})
	case "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128":
		// p, response: whether the try_cancel that wrote the 16-byte
		// response cancelled a cluster (PTX ISA 9.7.15.19), as a uint32
		return formPrinter(&ptxForm{text: text, minSM: 100, operands: []ptxOperand{{kind: 'P'}, {kind: 'r', typ: "b128"}}})
	case "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128",
		"clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128",
		"clusterlaunchcontrol.query_cancel.get_first_ctaid::z.b32.b128":
		// d, response: the cancelled cluster's first CTA index along one
		// axis. The reference binds d read-write ("+r"): the caller seeds
		// it and guards the instruction with pred=, so a false guard
		// leaves the seed.
		return formPrinter(&ptxForm{text: text, minSM: 100, operands: []ptxOperand{{kind: 'm', typ: "b32"}, {kind: 'r', typ: "b128"}}})
	case "isspacep.global", "isspacep.shared", "isspacep.shared::cta", "isspacep.shared::cluster", "isspacep.local",
		"isspacep.const", "isspacep.param", "isspacep.param::entry":
		// p, a: whether the generic address a is in the state space (a
		// pure query, not volatile)
		return formPrinter(&ptxForm{text: text, operands: []ptxOperand{{kind: 'P'}, {kind: 'p'}}})
	case "cvta.to.shared.u64", "cvta.to.global.u64", "cvta.shared.u64", "cvta.global.u64":
		return formPrinter(&ptxForm{text: text, operands: []ptxOperand{{kind: 'w', typ: "u64"}, {kind: 'p'}}})
	case "cp.async.commit_group", "cp.async.wait_all":
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 80})
	case "cp.async.wait_group":
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 80, operands: []ptxOperand{{kind: 'i'}}})
	case "cp.async.bulk.commit_group":
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90})
	case "cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read":
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, operands: []ptxOperand{{kind: 'i'}}})
	case "cp.async.bulk.global.shared::cta.bulk_group", "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint":
		// [dst], [src], size{, cache_policy}: a shared::cta -> global bulk
		// copy (cp_async_bulk_s2g), completed by the bulk async-group
		ops := []ptxOperand{{kind: 'a', space: 'g'}, {kind: 'a', space: 's'}, {kind: 'r', typ: "u32"}}
		if strings.HasSuffix(text, "cache_hint") {
			ops = append(ops, ptxOperand{kind: 'r', typ: "u64"})
		}
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, operands: ops})
	case "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
		"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
		"cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes":
		// [dst], [src], size, [mbar]: dst and mbar are shared-window
		// addresses, src too when it is shared.
		src := byte('g')
		if toks[4] == "shared::cta" {
			src = 's'
		}
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, operands: []ptxOperand{
			{kind: 'a', space: 's'}, {kind: 'a', space: src}, {kind: 'r', typ: "u32"}, {kind: 'a', space: 's'}}})
	}
	return nil
}

// printFuncCall prints T.cuda.func_call(name, args..., source_code): the
// source defines the function (emitted once, before the kernels) and the
// call is name(args...). The evaluator records keyword arguments after the
// positional ones, so the source is the last argument, or the one before
// a trailing return_type dtype string.
func printFuncCall(k *kernel, c *ir.Call) string {
	if len(c.Args) < 2 {
		k.fail("%s takes a function name and source_code, got %d arguments", c.Op, len(c.Args))
		return ""
	}
	name, ok := k.stringArg(c, 0)
	if !ok {
		return ""
	}
	last := len(c.Args) - 1
	if s, ok := c.Args[last].(*ir.StringImm); ok && last > 1 {
		if _, isType := ir.ParseDType(s.Value); isType || s.Value == "void" {
			if src, ok := c.Args[last-1].(*ir.StringImm); ok && strings.Contains(src.Value, name) {
				last--
			}
		}
	}
	src, ok := c.Args[last].(*ir.StringImm)
	if !ok || !strings.Contains(src.Value, name) {
		k.fail("%s: source_code must be a string constant defining %s", c.Op, name)
		return ""
	}
	code := strings.TrimLeft(src.Value, "\n")
	if !strings.HasSuffix(code, "\n") {
		code += "\n"
	}
	h := &helper{name: name, rank: rankUser, what: c.Op, code: code}
	return k.callHelper(h, c.Args[1:last])
}

// printReinterpret prints T.reinterpret(dtype, x), recorded with the
// target as the call's type: a bit pun between types of one width (TVM's
// reinterpret), or, for a PointerType target (a handle), the value as a
// pointer.
// printByteOffset prints T.ptr_byte_offset(data, off, dtype) as TVM's C
// codegen does, ((dtype*)(((char*)data) + off)), and
// T.handle_add_byte_offset(handle, off) as ((void*)((char*)handle + off)).
func printByteOffset(k *kernel, c *ir.Call) string {
	if c.Op == "handle_add_byte_offset" {
		if !k.wantArgs(c, 2) {
			return ""
		}
		return "((void*)((char*)" + k.expr(c.Args[0]) + " + " + k.expr(c.Args[1]) + "))"
	}
	if !k.wantArgs(c, 3) {
		return ""
	}
	s, ok := c.Args[2].(*ir.StringImm)
	dt, okT := ir.DataType{}, false
	if ok {
		dt, okT = ir.ParseDType(s.Value)
	}
	if !okT {
		k.fail("%s: the third argument is not a dtype", c.Op)
		return ""
	}
	return "((" + scalarCType(dt) + "*)(((char*)" + k.expr(c.Args[0]) + ") + " + k.expr(c.Args[1]) + "))"
}

func printReinterpret(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 1) {
		return ""
	}
	from := typeOf(c.Args[0])
	switch {
	case c.Type.Code == ir.Handle && from.Code == ir.Handle:
		return "((void*)" + k.expr(c.Args[0]) + ")"
	case c.Type.Code == ir.Handle && (from.Code == ir.Int || from.Code == ir.UInt) && from.Bits == 64:
		return "((void*)(uintptr_t)" + k.expr(c.Args[0]) + ")"
	case c.Type.Code == ir.Handle:
		k.fail("%s of %s to a pointer (want a pointer or a 64-bit integer)", c.Op, from)
		return ""
	case from.Code == ir.Handle && (c.Type.Code == ir.Int || c.Type.Code == ir.UInt) && c.Type.Bits == 64:
		return "((" + scalarCType(c.Type) + ")(uintptr_t)" + k.expr(c.Args[0]) + ")"
	case !c.Type.IsValid() || !from.IsValid() || from.Code == ir.Handle:
		k.fail("%s of %s to %s", c.Op, from, c.Type)
		return ""
	case c.Type.Bits != from.Bits:
		k.fail("%s from %s to %s changes the width", c.Op, from, c.Type)
		return ""
	}
	k.use(reinterpretHelper)
	return "tvm_builtin_reinterpret<" + scalarCType(c.Type) + ">(" + k.top(c.Args[0]) + ")"
}

var reinterpretHelper = &helper{
	name: "tvm_builtin_reinterpret",
	rank: rankCast,
	code: `template <typename To, typename From>
__forceinline__ __device__ To tvm_builtin_reinterpret(From x) {
  static_assert(sizeof(To) == sizeof(From), "reinterpret between types of different widths");
  To y;
  memcpy(&y, &x, sizeof(To));
  return y;
}
`,
}

// fixedHelper prints a call of h with n arguments.
func fixedHelper(n int, h *helper) *extOp {
	return user(opNeed{sm: h.minSM, family: h.sm100Family}, func(k *kernel, c *ir.Call) string {
		if !k.wantArgs(c, n) {
			return ""
		}
		return k.callHelper(h, c.Args)
	})
}

// The reference's device_intrinsic helpers (backend/cuda/cpp/builtins.py,
// instrument.py) of the same names and bodies.
var (
	cvtaToSharedHelper = &helper{name: "tvm_builtin_cuda_cvta_generic_to_shared", rank: rankUser,
		code: "__forceinline__ __device__ unsigned int tvm_builtin_cuda_cvta_generic_to_shared(void* p) {\n  return __cvta_generic_to_shared(p);\n}\n"}
	trapWhenAssertFailedHelper = &helper{name: "tvm_builtin_cuda_trap_when_assert_failed", rank: rankUser,
		code: "__forceinline__ __device__ void tvm_builtin_cuda_trap_when_assert_failed(bool cond) {\n  do {\n    if (not (cond))\n      asm(\"trap;\");\n  } while (0);\n}\n"}
	threadFenceHelper = &helper{name: "tvm_builtin_cuda_thread_fence", rank: rankUser,
		code: "__forceinline__ __device__ void tvm_builtin_cuda_thread_fence() {\n  __threadfence();\n}\n"}
	uintAsFloatHelper = &helper{name: "tvm_builtin_uint_as_float", rank: rankUser,
		code: "__forceinline__ __device__ float tvm_builtin_uint_as_float(unsigned int bits) {\n  return __uint_as_float(bits);\n}\n"}
	floatAsUintHelper = &helper{name: "tvm_builtin_float_as_uint", rank: rankUser,
		code: "__forceinline__ __device__ unsigned int tvm_builtin_float_as_uint(float x) {\n  return __float_as_uint(x);\n}\n"}
	ballotSyncHelper = &helper{name: "tvm_builtin_ballot_sync", rank: rankUser,
		code: "__forceinline__ __device__ unsigned int tvm_builtin_ballot_sync(unsigned int mask, int pred) {\n  return __ballot_sync(mask, pred);\n}\n"}
	atomicAddHelper = &helper{name: "tvm_builtin_cuda_atomic_add", rank: rankUser,
		code: "template <typename T>\n__forceinline__ __device__ T tvm_builtin_cuda_atomic_add(T* addr, T value) {\n  return atomicAdd(addr, value);\n}\n"}
	atomicCasHelper = &helper{name: "tvm_builtin_cuda_atomic_cas", rank: rankUser,
		code: "template <typename T>\n__forceinline__ __device__ T tvm_builtin_cuda_atomic_cas(T* address, T compare, T val) {\n  return atomicCAS(address, compare, val);\n}\n"}
	float22Half2Helper = &helper{name: "tvm_builtin_cuda_float22half2", rank: rankUser,
		code: "__forceinline__ __device__ void tvm_builtin_cuda_float22half2(void* dst, void* src) {\n" +
			"  half2* dst_p = (half2*) dst;\n  float2* src_p = (float2*) src;\n  *dst_p = __float22half2_rn(*src_p);\n}\n"}
	anySyncHelper = &helper{name: "tvm_builtin_cuda_any_sync", rank: rankUser,
		code: "__forceinline__ __device__ int tvm_builtin_cuda_any_sync(unsigned mask, int pred) {\n  return __any_sync(mask, pred);\n}\n"}
	float22Bfloat162RnHelper = &helper{name: "tvm_builtin_float22bfloat162_rn", rank: rankUser,
		code: "__forceinline__ __device__ unsigned int tvm_builtin_float22bfloat162_rn(float x, float y) {\n" +
			"  __nv_bfloat162 value = __float22bfloat162_rn(make_float2(x, y));\n  return *reinterpret_cast<unsigned int*>(&value);\n}\n"}
	nanoSleepHelper = &helper{name: "tvm_builtin_cuda_nano_sleep", rank: rankUser, minSM: 70, what: "cuda.nano_sleep",
		code: "__forceinline__ __device__ void tvm_builtin_cuda_nano_sleep(uint64_t time) {\n  __nanosleep(time);\n}\n"}
)

// printRsqrt prints rsqrt by its type, as math (expr.go) prints sqrt.
func printRsqrt(k *kernel, c *ir.Call) string {
	t, x, ok := k.unaryOperand(c)
	if !ok {
		return ""
	}
	switch {
	case t.Code == ir.Float && t.Bits == 32:
		return "rsqrtf(" + x + ")"
	case t.Code == ir.Float && t.Bits == 64:
		return "rsqrt(" + x + ")"
	case t.Code == ir.BFloat, t.Code == ir.Float && t.Bits == 16:
		return "hrsqrt(" + x + ")"
	}
	k.fail("%s of %s values", c.Op, t)
	return ""
}

// arithForm is one scalar arithmetic instruction of the T.ptx table,
// destination first: ex2.approx.ftz.f32(d, a), add.s32(d, a, b),
// fma.rn.f32(d, a, b, c), ... Every operand has the instruction's one type
// (the last token), but a shift amount, which is u32. Mixed-type forms
// (mul.wide.s32) stay unknown; the Blackwell mixed-precision lines
// add/sub{.rnd}{.sat}.f32.{f16,bf16} d, a, c and fma.rnd{.sat}.f32.{f16,bf16}
// d, a, b, c take their half-precision sources as .b16 registers.
func arithForm(toks []string, text string) *extOp {
	if n := len(toks); n >= 3 && toks[n-2] == "f32" && (toks[n-1] == "f16" || toks[n-1] == "bf16") {
		return mixedArithForm(toks, text)
	}
	arity := map[string]int{
		"ex2": 1, "rcp": 1, "sqrt": 1, "rsqrt": 1, "lg2": 1, "sin": 1, "cos": 1, "tanh": 1,
		"neg": 1, "abs": 1, "not": 1, "cnot": 1, "brev": 1,
		"add": 2, "sub": 2, "mul": 2, "div": 2, "min": 2, "max": 2, "rem": 2,
		"and": 2, "or": 2, "xor": 2, "shl": 2, "shr": 2, "copysign": 2,
		"fma": 3, "mad": 3,
	}[toks[0]]
	if arity == 0 || len(toks) < 2 {
		return nil
	}
	typ := toks[len(toks)-1]
	if _, _, _, ok := ptxRegType(typ); !ok {
		return nil
	}
	for _, t := range toks[1 : len(toks)-1] {
		switch t {
		case "rn", "rz", "rm", "rp", "approx", "full", "ftz", "sat", "lo", "hi":
		default:
			return nil
		}
	}
	ops := []ptxOperand{{kind: 'w', typ: typ}}
	for i := range arity {
		o := ptxOperand{kind: 'r', typ: typ}
		if i == 1 && (toks[0] == "shl" || toks[0] == "shr") {
			o.typ = "u32"
		}
		ops = append(ops, o)
	}
	form := &ptxForm{text: text, volatile: true, operands: ops}
	switch typ {
	case "f32x2":
		form.minSM = 100
	case "bf16x2":
		form.minSM = 90 // add/sub/mul .bf16x2 are sm_90 lines
	}
	return formPrinter(form)
}

// printPrintf prints T.cuda.printf(format, args...) as CUDA's printf.
func printPrintf(k *kernel, c *ir.Call) string {
	if len(c.Args) < 1 {
		k.fail("%s needs a format string", c.Op)
		return ""
	}
	if _, ok := k.stringArg(c, 0); !ok {
		return ""
	}
	return "printf(" + k.args(c.Args) + ")"
}

// float2Helper is T.cuda.float2_x / float2_y: one float of a packed pair.
func float2Helper(lane string) *helper {
	name := "tvm_builtin_float2_" + lane
	return &helper{name: name, rank: rankUser, code: "__forceinline__ __device__ float " + name + "(unsigned long long packed) {\n" +
		"  float2 value = *reinterpret_cast<float2*>(&packed);\n  return value." + lane + ";\n}\n"}
}

// simpleHelper is a one-statement device function returning expr.
func simpleHelper(name, ret, params, expr string) *helper {
	return &helper{name: name, rank: rankUser, code: "__forceinline__ __device__ " + ret + " " + name + params + " {\n  return " + expr + ";\n}\n"}
}

// printWgmmaNoopBarrier prints T.cuda.wgmma.noop_barrier(reg): an empty asm
// with the register as an in-out operand (the reference's
// ptx_wgmma_fence_uint32_t / ptx_wgmma_fence_float), for uint32 and
// float32 registers.
func printWgmmaNoopBarrier(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 1) {
		return ""
	}
	var ct, cons string
	switch typeOf(c.Args[0]) {
	case ir.UInt32:
		ct, cons = "uint32_t", "r"
	case ir.Float32:
		ct, cons = "float", "f"
	default:
		k.fail("Only support uint32/float32 for wgmma_fence, but got %s.", typeOf(c.Args[0]))
		return ""
	}
	name := "ptx_wgmma_fence_" + ct
	return k.callHelper(&helper{name: name, rank: rankUser, code: "__forceinline__ __device__ void " + name + "(" + ct + " reg) {\n" +
		"  asm volatile(\"\" : \"+" + cons + "\"(reg) :: \"memory\");\n}\n"}, c.Args)
}

// printLog prints log by its type, as math (expr.go) prints log2.
func printLog(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 1) {
		return ""
	}
	t := c.Type
	if !t.IsValid() {
		t = typeOf(c.Args[0])
	}
	x := k.top(c.Args[0])
	switch {
	case t.Code == ir.Float && t.Bits == 32:
		return "logf(" + x + ")"
	case t.Code == ir.Float && t.Bits == 64:
		return "log(" + x + ")"
	case t.Code == ir.BFloat, t.Code == ir.Float && t.Bits == 16:
		return "hlog(" + x + ")"
	}
	k.fail("%s of %s values", c.Op, t)
	return ""
}

// tensorCopyForm is a bulk tensor copy in its tile forms:
//
//	cp.async.bulk.tensor.<n>d.<shared::cluster|shared::cta>.global{.tile}.mbarrier::complete_tx::bytes
//	    {.multicast::cluster}{.cta_group::<g>}{.L2::cache_hint}
//	    [dst], [tensorMap, {c0, ...}], [mbar]{, ctaMask}{, cache_policy}
//	cp.async.bulk.tensor.<n>d.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//	    [tensorMap, {c0, ...}], [src]{, cache_policy}
//
// with the tensor map a generic pointer, the coordinates int32, ctaMask a
// 16-bit register (shared::cluster only) and cache_policy a 64-bit one, in
// the operand order of the reference's table (cp_async_bulk_tensor_g2s_*,
// _s2g); the im2col and gather/scatter forms stay unknown.
func tensorCopyForm(toks []string, text string) *extOp {
	if len(toks) >= 9 && strings.Join(toks[:5], ".") == "cp.reduce.async.bulk.tensor" {
		return tensorReduceForm(toks, text)
	}
	if len(toks) < 8 || strings.Join(toks[:4], ".") != "cp.async.bulk.tensor" {
		return nil
	}
	d := toks[4]
	if len(d) != 2 || d[1] != 'd' || d[0] < '1' || d[0] > '5' {
		return nil
	}
	dims := int(d[0] - '0')
	rest := toks[5:]
	tmap := ptxOperand{kind: 'T', lanes: dims + 1}
	if rest[0] == "global" {
		// shared -> global
		rest = rest[1:]
		if rest[0] != "shared::cta" {
			return nil
		}
		rest = rest[1:]
		if len(rest) > 0 && rest[0] == "tile" {
			rest = rest[1:]
		}
		if len(rest) == 0 || rest[0] != "bulk_group" {
			return nil
		}
		ops := []ptxOperand{tmap, {kind: 'a'}}
		if len(rest) == 2 && rest[1] == "L2::cache_hint" {
			ops = append(ops, ptxOperand{kind: 'r', typ: "u64"})
		} else if len(rest) != 1 {
			return nil
		}
		return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, shared: true, operands: ops})
	}
	form := &ptxForm{text: text, volatile: true, minSM: 90, shared: true, operands: []ptxOperand{{kind: 'a'}, tmap, {kind: 'a'}}}
	switch rest[0] {
	case "shared::cluster":
	case "shared::cta":
		form.minSM = 100 // a .shared::cta destination is PTX ISA 8.6
	default:
		return nil
	}
	rest = rest[1:]
	if len(rest) == 0 || rest[0] != "global" {
		return nil
	}
	rest = rest[1:]
	if len(rest) > 0 && rest[0] == "tile" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "mbarrier::complete_tx::bytes" {
		return nil
	}
	rest = rest[1:]
	if len(rest) > 0 && rest[0] == "multicast::cluster" {
		if toks[5] != "shared::cluster" {
			return nil
		}
		form.operands = append(form.operands, ptxOperand{kind: 'r', typ: "u16"})
		rest = rest[1:]
	}
	if len(rest) > 0 && (rest[0] == "cta_group::1" || rest[0] == "cta_group::2") {
		form.minSM, form.family = 100, true
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == "L2::cache_hint" {
		form.operands = append(form.operands, ptxOperand{kind: 'r', typ: "u64"})
		rest = rest[1:]
	}
	if len(rest) != 0 {
		return nil
	}
	return formPrinter(form)
}

// lastArg is c's last argument, nil when it has none.
func lastArg(c *ir.Call) ir.Expr {
	if len(c.Args) == 0 {
		return nil
	}
	return c.Args[len(c.Args)-1]
}

// cpAsyncForm is cp.async.{ca,cg}.shared{::cta}.global{.L2::<n>B}
// [dst], [src], cp-size {, src-size | , ignore-src}: the cp-size an
// immediate, src-size a u32 that zero-fills the tail, ignore-src (written
// T.ptx.pred(x)) a .pred that zero-fills all of it.
func cpAsyncForm(toks []string, text string) *extOp {
	if len(toks) < 5 || toks[0] != "cp" || toks[1] != "async" || toks[2] != "ca" && toks[2] != "cg" ||
		toks[3] != "shared" && toks[3] != "shared::cta" || toks[4] != "global" {
		return nil
	}
	switch strings.Join(toks[5:], ".") {
	case "", "L2::64B", "L2::128B", "L2::256B":
	default:
		return nil
	}
	return user(opNeed{sm: 80}, func(k *kernel, c *ir.Call) string {
		ops := []ptxOperand{{kind: 'a', space: 's'}, {kind: 'a', space: 'g'}, {kind: 'i'}}
		if g, ok := lastArg(c).(*ir.Call); ok && g.Op == ir.OpPredGuard && len(g.Args) == 1 && len(c.Args) == 4 {
			// pred= (ir.OpPredGuard): the @p-guarded twin, not a src-size.
			guarded := *c
			guarded.Args = append(append([]ir.Expr{}, c.Args[:3]...), g.Args[0])
			return k.printPTXForm(&guarded, &ptxForm{text: text, volatile: true, minSM: 80, operands: ops})
		}
		suffix := ""
		if len(c.Args) == 4 {
			if p, ok := c.Args[3].(*ir.Call); ok && p.Op == "ptx.pred" {
				ops = append(ops, ptxOperand{kind: 'Q'})
				suffix = "ignore_src"
			} else {
				ops = append(ops, ptxOperand{kind: 'r', typ: "u32"})
				suffix = "src_size" // not the 3-operand helper's name
			}
		}
		return k.printPTXForm(c, &ptxForm{text: text, volatile: true, minSM: 80, operands: ops, nameSuffix: suffix})
	})
}

// mixedArithForm is add/sub{.rnd}{.sat}.f32.atype d, a, c or
// fma.rnd{.sat}.f32.atype d, a, b, c (atype .f16 or .bf16): a float32
// result of half-precision sources (a, and b for fma) and a float32 c.
func mixedArithForm(toks []string, text string) *extOp {
	halves := map[string]int{"add": 1, "sub": 1, "fma": 2}[toks[0]]
	if halves == 0 {
		return nil
	}
	for _, t := range toks[1 : len(toks)-2] {
		switch t {
		case "rn", "rz", "rm", "rp", "sat":
		default:
			return nil
		}
	}
	ops := []ptxOperand{{kind: 'w', typ: "f32"}}
	for range halves {
		ops = append(ops, ptxOperand{kind: 'r', typ: "b16"})
	}
	ops = append(ops, ptxOperand{kind: 'r', typ: "f32"})
	return formPrinter(&ptxForm{text: text, volatile: true, minSM: 100, operands: ops})
}

// tensorReduceForm is cp.reduce.async.bulk.tensor.<n>d.global.shared::cta.<redop>{.tile}.bulk_group{.L2::cache_hint}
// [tensorMap, {c0, ...}], [src]{, cache_policy}: the shared tile reduced
// into the global tensor in place (the reference's cp_reduce_async_bulk_tensor).
func tensorReduceForm(toks []string, text string) *extOp {
	d := toks[5]
	if len(d) != 2 || d[1] != 'd' || d[0] < '1' || d[0] > '5' {
		return nil
	}
	rest := toks[6:]
	if len(rest) < 4 || rest[0] != "global" || rest[1] != "shared::cta" {
		return nil
	}
	switch rest[2] {
	case "add", "min", "max", "inc", "dec", "and", "or", "xor":
	default:
		return nil
	}
	rest = rest[3:]
	if len(rest) > 0 && rest[0] == "tile" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "bulk_group" {
		return nil
	}
	ops := []ptxOperand{{kind: 'T', lanes: int(d[0]-'0') + 1}, {kind: 'a'}}
	switch strings.Join(rest[1:], ".") {
	case "":
	case "L2::cache_hint":
		ops = append(ops, ptxOperand{kind: 'r', typ: "u64"})
	default:
		return nil
	}
	return formPrinter(&ptxForm{text: text, volatile: true, minSM: 90, shared: true, operands: ops})
}

// unaryOperand is a one-argument math call's value type (the call's, else
// its operand's) and its printed operand; ok is false (and the kernel
// failed) for another argument count.
func (k *kernel) unaryOperand(c *ir.Call) (t ir.DataType, x string, ok bool) {
	if !k.wantArgs(c, 1) {
		return t, "", false
	}
	t = c.Type
	if !t.IsValid() {
		t = typeOf(c.Args[0])
	}
	return t, k.top(c.Args[0]), true
}
