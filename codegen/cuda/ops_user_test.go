package cuda_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/ir"
)

// TestUserOps: what the user-intrinsic families (ops_user_*.go) print for
// forms the goldens (lower/testdata/user_*.txtar) do not show, and what
// they refuse: the error names the intrinsic and the reason, and forms no
// family knows stay "unknown intrinsic".
func TestUserOps(t *testing.T) {
	bar := smem("B", 2)
	bar.Dtype = ir.DataType{Code: ir.UInt, Bits: 64}
	addr := &ir.AddressOf{Buf: bar, Indices: []ir.Expr{ir.Const(0)}}
	u32 := func(v int64) ir.Expr { return &ir.IntImm{Value: v, Type: ir.UInt32} }
	dst := &ir.Var{Name: "d", Type: ir.UInt32}
	let := &ir.Let{Var: dst, Value: u32(0)}
	u128 := ir.DataType{Code: ir.UInt, Bits: 128}
	resp := &ir.Var{Name: "r", Type: u128}
	letResp := &ir.Let{Var: resp, Value: &ir.IntImm{Value: 0, Type: u128}}
	ctaid := "ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128"
	for _, tc := range []struct {
		name string
		arch string
		body []ir.Stmt
		want string // substring of the output, or of the error when err
		err  bool
	}{
		{"predicated bar.sync", "", []ir.Stmt{evalCall("ptx.bar.sync", u32(1), u32(128), u32(1))},
			`"{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p bar.sync %0, %1;\n}"`, false},
		{"escaped keyword", "", []ir.Stmt{let, evalCall("ptx.and_.b32", dst, dst, u32(3))},
			`asm volatile("and.b32 %0, %1, %2;" : "=r"(__0) : "r"(__1), "r"(__2) : "memory");`, false},
		{"addr offset", "", []ir.Stmt{&ir.Alloc{Buf: bar}, let, evalCall("ptx.ld.shared.u32", dst, &ir.Call{Op: "ptx.addr", Args: []ir.Expr{addr, ir.Const(8)}})},
			`tvm_builtin_ptx_ld_shared_u32(d, (((uint32_t)__cvta_generic_to_shared((&(B_ptr[0])))) + 8));`, false},
		{"integer shared address", "", []ir.Stmt{let, evalCall("ptx.mbarrier.init.shared.b64", dst, u32(1))},
			`tvm_builtin_ptx_mbarrier_init_shared_b64(((uint32_t)d), ((unsigned int)1u));`, false},
		{"nvshmem", "", []ir.Stmt{evalCall("nvshmem.my_pe")},
			"not modelled: nvshmem.my_pe (NVSHMEM device calls need the NVSHMEM headers and library)", true},
		{"tensormap fence", "", []ir.Stmt{evalCall("ptx.fence.proxy.tensormap__generic.acquire.gpu", addr, ir.Const(128))},
			`unknown intrinsic "ptx.fence.proxy.tensormap__generic.acquire.gpu"`, true},
		{"integer mma", "", []ir.Stmt{evalCall("ptx.mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")},
			`unknown intrinsic "ptx.mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"`, true},
		// pred=p, preserve_dst=True: the destination keeps its value when
		// p is false ("+r"); preserve_dst=False leaves it undefined ("=r")
		{"pred keep", "", []ir.Stmt{&ir.Alloc{Buf: bar}, let, evalCall("ptx.ld.shared.u32", dst, addr, u32(1), ir.Const(1))},
			`"{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p ld.shared.u32 %0, [%1];\n}" : "+r"(__0)`, false},
		{"pred undefined", "", []ir.Stmt{&ir.Alloc{Buf: bar}, let, evalCall("ptx.ld.shared.u32", dst, addr, u32(1), ir.Const(0))},
			`"{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p ld.shared.u32 %0, [%1];\n}" : "=r"(__0)`, false},
		// a .pred operand takes a bool, or T.ptx.pred(x) (the reference's
		// engine refuses a bare integer)
		{"pred operand integer", "sm_100a", []ir.Stmt{evalCall("ptx.tcgen05.mma.ws.cta_group__1.kind__f16", u32(0), &ir.IntImm{Value: 0, Type: ir.DataType{Code: ir.UInt, Bits: 64}},
			&ir.IntImm{Value: 0, Type: ir.DataType{Code: ir.UInt, Bits: 64}}, u32(0), u32(1), &ir.IntImm{Value: 0, Type: ir.DataType{Code: ir.UInt, Bits: 64}})},
			"argument 5 is a .pred operand. Pass a bool expression, or wrap an integer one so the register class is explicit: T.ptx.pred(x)", true},
		{"pred operand wrapped", "sm_100a", []ir.Stmt{evalCall("ptx.tcgen05.mma.ws.cta_group__1.kind__f16", u32(0), &ir.IntImm{Value: 0, Type: ir.DataType{Code: ir.UInt, Bits: 64}},
			&ir.IntImm{Value: 0, Type: ir.DataType{Code: ir.UInt, Bits: 64}}, u32(0), &ir.Call{Op: "ptx.pred", Args: []ir.Expr{u32(1)}}, &ir.IntImm{Value: 0, Type: ir.DataType{Code: ir.UInt, Bits: 64}})},
			"tcgen05.mma.ws.cta_group::1.kind::f16 [%0], %1, %2, %3, ps0, %5;", false},
		{"widening arithmetic", "", []ir.Stmt{evalCall("ptx.mul.wide.s32")}, `unknown intrinsic "ptx.mul.wide.s32"`, true},
		{"mixed-type arithmetic arity", "", []ir.Stmt{evalCall("ptx.add.rn.f32.f16")}, "ptx.add.rn.f32.f16 takes 3 arguments, got 0", true},
		{"bad ld token", "", []ir.Stmt{evalCall("ptx.ld.global_.bogus.b32")}, `unknown intrinsic "ptx.ld.global_.bogus.b32"`, true},
		{"arity", "", []ir.Stmt{evalCall("ptx.mbarrier.init.shared.b64", addr)},
			"ptx.mbarrier.init.shared.b64 takes 2 arguments, got 1", true},
		{"destination", "", []ir.Stmt{&ir.Alloc{Buf: bar}, evalCall("ptx.ld.shared.u32", u32(0), addr)},
			"ptx.ld.shared.u32: argument 1 must be a variable or buffer element (the instruction writes it)", true},
		{"immediate", "", []ir.Stmt{let, evalCall("ptx.setmaxnreg.inc.sync.aligned.u32", dst)},
			"ptx.setmaxnreg.inc.sync.aligned.u32: argument 1 must be an integer constant", true},
		{"arch", "sm_80", []ir.Stmt{evalCall("ptx.setmaxnreg.inc.sync.aligned.u32", ir.Const(232))},
			"ptx.setmaxnreg.inc.sync.aligned.u32 needs sm_90 or later, target is sm_80", true},
		{"addr offset in a loop", "", []ir.Stmt{&ir.Alloc{Buf: bar}, let, evalCall("ptx.ld.shared.u32", dst, &ir.Call{Op: "ptx.addr", Args: []ir.Expr{addr, dst}})},
			"tvm_builtin_ptx_ld_shared_u32(d, (((uint32_t)__cvta_generic_to_shared((&(B_ptr[0])))) + d));", false},
		{"mov_sreg width", "", []ir.Stmt{evalCall("cuda.mov_sreg", ir.Const(16), str("laneid"))},
			"Only support 32/64 bits for cuda_mov_sreg, but got 16.", true},
		{"func_call source", "", []ir.Stmt{evalCall("cuda.func_call", str("f"), ir.Const(1), str("int g() { return 0; }"))},
			"cuda.func_call: source_code must be a string constant defining f", true},
		// prefetch: one target, .tensormap with .const/.param or generic
		// addressing (PTX ISA 9.7.10.16; the reference table's
		// _check_prefetch)
		{"prefetch tensormap", "", []ir.Stmt{&ir.Alloc{Buf: bar}, evalCall("ptx.prefetch.tensormap", addr)},
			`asm volatile("prefetch.tensormap [%0];"`, false},
		{"prefetch param tensormap", "", []ir.Stmt{&ir.Alloc{Buf: bar}, evalCall("ptx.prefetch.param.tensormap", addr)},
			`asm volatile("prefetch.param.tensormap [%0];"`, false},
		{"prefetch global tensormap", "", []ir.Stmt{evalCall("ptx.prefetch.global_.tensormap", addr)},
			`unknown intrinsic "ptx.prefetch.global_.tensormap"`, true},
		{"prefetch two targets", "", []ir.Stmt{evalCall("ptx.prefetch.L2.tensormap", addr)},
			`unknown intrinsic "ptx.prefetch.L2.tensormap"`, true},
		{"prefetch const level", "", []ir.Stmt{evalCall("ptx.prefetch.const.L2", addr)},
			`unknown intrinsic "ptx.prefetch.const.L2"`, true},
		// clusterlaunchcontrol.query_cancel (clc.py): the test is a
		// predicate destination; the extraction reads and writes its
		// destination ("+r") so that a false guard leaves the seed
		{"query_cancel is_canceled", "sm_100a", []ir.Stmt{let, letResp, evalCall("ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", dst, resp)},
			`clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 pd0, %1;\nselp.b32 %0, 1, 0, pd0;\n}" : "=r"(__0_reg) : "q"(__1)`, false},
		{"query_cancel get_first_ctaid guarded", "sm_100a", []ir.Stmt{let, letResp, evalCall(ctaid, dst, resp, dst)},
			`@p clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, %1;\n}" : "+r"(__0) : "q"(__1), "r"(__pred)`, false},
		{"query_cancel get_first_ctaid", "sm_100a", []ir.Stmt{let, letResp, evalCall(ctaid, dst, resp)},
			`asm("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, %1;" : "+r"(__0) : "q"(__1) : "memory");`, false},
		{"query_cancel arch", "sm_90a", []ir.Stmt{let, letResp, evalCall(ctaid, dst, resp)},
			ctaid + " needs sm_100 or later, target is sm_90a", true},
		// the vector __ldg takes 32-bit elements only (the reference's
		// _CUDA_LDG_VECTOR_CTYPES)
		{"vector ldg dtype", "", []ir.Stmt{&ir.Alloc{Buf: bar}, evalCall("cuda.ldg", addr, addr, addr, str("float16"), str("v2"), ir.Const(2))},
			"Unsupported vector CUDA __ldg dtype 'float16'", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := cuda.Print(kernel(tc.body...), cuda.Options{Arch: tc.arch})
			switch {
			case tc.err && err == nil:
				t.Fatalf("no error; printed:\n%s", src)
			case tc.err && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q does not mention %q", err, tc.want)
			case !tc.err && err != nil:
				t.Fatal(err)
			case !tc.err && !strings.Contains(src, tc.want):
				t.Errorf("output does not contain %s:\n%s", tc.want, src)
			}
		})
	}
}

// TestArgRoles: what perf/memory learns of an intrinsic's arguments from
// the form that prints it: destinations ('w'), read-write ones ('m'),
// inputs ('r'), the rest ('x'); a guardable form may take a trailing
// guard; an op printed otherwise is not known.
func TestArgRoles(t *testing.T) {
	for _, tc := range []struct {
		op        string
		roles     string
		optional  int
		guardable bool
		known     bool
	}{
		{"ptx.ld.shared.u32", "wx", 0, true, true},
		{"ptx.ld.global.nc.v4.s32", "wwwwx", 0, true, true},
		{"ptx.ld.global_.L2__cache_hint.b32", "wxr", 0, true, true},
		{"ptx.st.shared.v2.u32", "xrr", 0, true, true},
		{"ptx.mapa.shared__cluster.u32", "wrr", 0, true, true},
		{"ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", "wr", 0, false, true},
		{"ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128", "mr", 0, true, true},
		{"ptx.mbarrier.init.shared.b64", "xr", 0, true, true},
		// (the forms added for the production kernels' own PTX: mega_moe.py,
		// sparse_decode_head64.py, gdn_prefill_sm100.py, flash_attention_backward.py)
		{"ptx.add.rn.f32.bf16", "wrr", 0, true, true},
		{"ptx.fma.rn.f32.f16", "wrrr", 0, true, true},
		{"ptx.cvt.rz.ue8m0x2.f32", "wrr", 0, true, true},
		{"ptx.cvt.rn.f16x2.f32", "wrr", 0, true, true},
		{"ptx.sub.f16x2", "wrr", 0, true, true},
		{"ptx.isspacep.global_", "wx", 0, false, true},
		{"ptx.tcgen05.cp.cta_group__1.32x128b.warpx4", "xr", 0, true, true},
		{"ptx.cp.async.bulk.global.shared__cta.bulk_group", "xxr", 0, true, true},
		{"ptx.cp.async.bulk.tensor.2d.shared__cluster.global.mbarrier__complete_tx__bytes.L2__cache_hint", "xxxxxr", 0, true, true},
		{"ptx.cp.reduce.async.bulk.tensor.4d.global.shared__cta.add.tile.bulk_group", "xxxxxx", 0, true, true},
		{"ptx.stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", "xr", 0, true, true},
		{"ptx.tcgen05.cp.cta_group__1.64x128b", "", 0, false, false}, // (64x128b needs its .warpx2 multicast)
		{"cuda.ldg", "", 0, false, false},
		{"ptx.no.such.op", "", 0, false, false},
	} {
		roles, optional, guardable, known := cuda.ArgRoles(tc.op)
		if string(roles) != tc.roles || optional != tc.optional || guardable != tc.guardable || known != tc.known {
			t.Errorf("ArgRoles(%s) = %q, %d, %v, %v; want %q, %d, %v, %v", tc.op, roles, optional, guardable, known,
				tc.roles, tc.optional, tc.guardable, tc.known)
		}
	}
}
