package cuda

import (
	"fmt"
	"slices"
	"strings"
)

// helper is one __forceinline__ __device__ function emitted once per file.
// Bodies are written from the PTX ISA and the CUDA programming guide.
type helper struct {
	name  string
	rank  int    // emission order: helper family, then name
	minSM int    // lowest SM version that has the instruction (0: any)
	what  string // what needs minSM, for the error message
	code  string // full definition, ending in a newline
	// sm100Family marks an instruction that ptxas accepts only for an
	// arch-specific target of the sm_100 family (.cta_group).
	sm100Family bool
}

// Helper families, in emission order.
const (
	rankHeader = iota // an extra #include
	rankPointer
	rankCopy
	rankSync
	rankMbarrier
	rankFence
	rankSpecialReg
	rankMatrix
	rankAsync
	rankTMA
	rankCast
	rankPacked
	rankUser // the intrinsics a kernel writes itself (ops_user*.go)
)

var pointerOffsetHelper = &helper{
	name: "tvm_builtin_pointer_offset",
	rank: rankPointer,
	code: `template <typename T>
__forceinline__ __device__ T* tvm_builtin_pointer_offset(T* ptr, int offset) {
  return ptr + offset;
}
`,
}

// copyHelpers holds the copy helpers, built once: building one per
// copy_bytes call was 5% of BenchmarkPrintCUDA3000 allocations (23.4k →
// 22.2k allocs/op).
var copyHelpers = func() map[int64]*helper {
	m := map[int64]*helper{}
	for _, n := range []int64{1, 2, 4, 8, 16, 32} {
		m[n], _ = newCopyHelper(n)
	}
	return m
}()

// copyHelper copies n bytes (1, 2, 4, 8, 16 or 32) between two pointers
// naturally aligned for that width (spec §5.3a).
func copyHelper(n int64) (*helper, bool) {
	h, ok := copyHelpers[n]
	return h, ok
}

func newCopyHelper(n int64) (*helper, bool) {
	var body string
	switch n {
	case 1:
		body = "  *reinterpret_cast<unsigned char*>(dst) = *reinterpret_cast<const unsigned char*>(src);\n"
	case 2:
		body = "  *reinterpret_cast<unsigned short*>(dst) = *reinterpret_cast<const unsigned short*>(src);\n"
	case 4:
		body = "  *reinterpret_cast<unsigned int*>(dst) = *reinterpret_cast<const unsigned int*>(src);\n"
	case 8:
		body = "  *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);\n"
	case 16:
		body = "  *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);\n"
	case 32:
		body = "  uint4* d = reinterpret_cast<uint4*>(dst);\n" +
			"  const uint4* s = reinterpret_cast<const uint4*>(src);\n" +
			"  const uint4 lo = s[0];\n" +
			"  const uint4 hi = s[1];\n" +
			"  d[0] = lo;\n" +
			"  d[1] = hi;\n"
	default:
		return nil, false
	}
	name := fmt.Sprintf("tvm_builtin_copy_%db", 8*n)
	return &helper{
		name: name,
		rank: rankCopy,
		code: "__forceinline__ __device__ void " + name + "(void* dst, void* src) {\n" + body + "}\n",
	}, true
}

var warpgroupSyncHelper = &helper{
	name: "tvm_builtin_warpgroup_sync",
	rank: rankSync,
	code: `__forceinline__ __device__ void tvm_builtin_warpgroup_sync(int barrier_id) {
  asm volatile("bar.sync %0, 128;" : : "r"(barrier_id) : "memory");
}
`,
}

// smemAddr is the shared-window address of a generic pointer to shared memory.
const smemAddr = "  unsigned int addr = static_cast<unsigned int>(__cvta_generic_to_shared(bar));\n"

var mbarrierInitHelper = &helper{
	name: "tvm_builtin_ptx_mbarrier_init",
	rank: rankMbarrier, minSM: 80, what: "ptx.mbarrier.init",
	code: "__forceinline__ __device__ void tvm_builtin_ptx_mbarrier_init(void* bar, int count) {\n" + smemAddr +
		`  asm volatile("mbarrier.init.shared.b64 [%0], %1;" : : "r"(addr), "r"(count) : "memory");
}
`,
}

var mbarrierArriveHelper = &helper{
	name: "tvm_builtin_ptx_mbarrier_arrive",
	rank: rankMbarrier, minSM: 80, what: "ptx.mbarrier.arrive",
	code: "__forceinline__ __device__ void tvm_builtin_ptx_mbarrier_arrive(void* bar) {\n" + smemAddr +
		`  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.shared.b64 state, [%0];\n"
      "}\n"
      :
      : "r"(addr)
      : "memory");
}
`,
}

var mbarrierExpectTxHelper = &helper{
	name: "tvm_builtin_ptx_mbarrier_arrive_expect_tx",
	rank: rankMbarrier, minSM: 90, what: "ptx.mbarrier.arrive.expect_tx",
	code: "__forceinline__ __device__ void tvm_builtin_ptx_mbarrier_arrive_expect_tx(void* bar, int bytes) {\n" + smemAddr +
		`  asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" : : "r"(addr), "r"(bytes) : "memory");
}
`,
}

// The PTX labels are local to the { } block, so every inlined copy of the
// loop has its own LAB_WAIT/DONE (spec §5.4).
var mbarrierTryWaitHelper = &helper{
	name: "tvm_builtin_ptx_mbarrier_try_wait",
	rank: rankMbarrier, minSM: 90, what: "ptx.mbarrier.try_wait",
	code: "__forceinline__ __device__ void tvm_builtin_ptx_mbarrier_try_wait(void* bar, int phase) {\n" + smemAddr +
		`  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "LAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2;\n"
      "@P1 bra.uni DONE;\n"
      "bra.uni LAB_WAIT;\n"
      "DONE:\n"
      "}\n"
      :
      : "r"(addr), "r"(phase), "r"(0x989680)
      : "memory");
}
`,
}

// fenceProxyAsyncHelper is fence.proxy.async[.<space>].
func fenceProxyAsyncHelper(space string) (*helper, bool) {
	suffix := ""
	switch space {
	case "":
	case "global", "shared::cta", "shared::cluster":
		suffix = "." + space
	default:
		return nil, false
	}
	name := "tvm_builtin_ptx_fence_proxy_async" + strings.NewReplacer(".", "_", "::", "_").Replace(suffix)
	return &helper{
		name: name, rank: rankFence, minSM: 90, what: "ptx.fence.proxy_async",
		code: "__forceinline__ __device__ void " + name + "() {\n" +
			"  asm volatile(\"fence.proxy.async" + suffix + ";\" : : : \"memory\");\n}\n",
	}, true
}

var electSyncHelper = &helper{
	name: "tvm_builtin_elect_one_sync",
	rank: rankFence, minSM: 90, what: "ptx.elect_sync",
	code: `__forceinline__ __device__ int tvm_builtin_elect_one_sync() {
  unsigned int pred = 0;
  asm volatile(
      "{\n"
      ".reg .b32 %%rx;\n"
      ".reg .pred %%px;\n"
      "elect.sync %%rx|%%px, %1;\n"
      "@%%px mov.u32 %0, 1;\n"
      "}\n"
      : "+r"(pred)
      : "r"(0xffffffffu));
  return static_cast<int>(pred);
}
`,
}

// specialRegHelper reads a cluster special register (%clusterid.x,
// %cluster_ctaid.y, ...).
func specialRegHelper(reg string) *helper {
	name := "tvm_builtin_" + strings.ReplaceAll(reg, ".", "_")
	return &helper{
		name: name, rank: rankSpecialReg, minSM: 90, what: "%" + reg,
		code: "__forceinline__ __device__ int " + name + "() {\n" +
			"  unsigned int r;\n" +
			"  asm volatile(\"mov.u32 %0, %%" + reg + ";\" : \"=r\"(r));\n" +
			"  return static_cast<int>(r);\n}\n",
	}
}

// matrixHelper is ldmatrix (load) or stmatrix (store) of num 8x8 b16
// matrices; regs points at num 32-bit registers of the calling thread.
func matrixHelper(store bool, num int64, trans bool) (*helper, bool) {
	if num != 1 && num != 2 && num != 4 {
		return nil, false
	}
	op, minSM := "ldmatrix", 75
	if store {
		op, minSM = "stmatrix", 90
	}
	shape := fmt.Sprintf(".x%d", num)
	name := fmt.Sprintf("tvm_builtin_ptx_%s_x%d", op, num)
	if trans {
		shape += ".trans"
		name += "_trans"
	}
	var regs, outs, ins []string
	for i := range num {
		if store {
			regs = append(regs, fmt.Sprintf("%%%d", i+1))
			ins = append(ins, fmt.Sprintf(`"r"(r[%d])`, i))
		} else {
			regs = append(regs, fmt.Sprintf("%%%d", i))
			outs = append(outs, fmt.Sprintf(`"=r"(r[%d])`, i))
		}
	}
	var asm string
	if store {
		asm = fmt.Sprintf(`  asm volatile("%s.sync.aligned.m8n8%s.shared.b16 [%%0], {%s};"
               :
               : "r"(addr), %s
               : "memory");
`, op, shape, strings.Join(regs, ", "), strings.Join(ins, ", "))
	} else {
		asm = fmt.Sprintf(`  asm volatile("%s.sync.aligned.m8n8%s.shared.b16 {%s}, [%%%d];"
               : %s
               : "r"(addr)
               : "memory");
`, op, shape, strings.Join(regs, ", "), num, strings.Join(outs, ", "))
	}
	return &helper{
		name: name, rank: rankMatrix, minSM: minSM, what: "ptx." + op,
		code: "__forceinline__ __device__ void " + name + "(void* smem, void* regs) {\n" +
			"  unsigned int addr = static_cast<unsigned int>(__cvta_generic_to_shared(smem));\n" +
			"  unsigned int* r = reinterpret_cast<unsigned int*>(regs);\n" + asm + "}\n",
	}, true
}

var cpAsyncCommitHelper = &helper{
	name: "tvm_builtin_ptx_cp_async_commit_group",
	rank: rankAsync, minSM: 80, what: "ptx.cp_async.commit_group",
	code: `__forceinline__ __device__ void tvm_builtin_ptx_cp_async_commit_group() {
  asm volatile("cp.async.commit_group;" : : : "memory");
}
`,
}

var cpAsyncWaitHelper = &helper{
	name: "tvm_builtin_ptx_cp_async_wait_group",
	rank: rankAsync, minSM: 80, what: "ptx.cp_async.wait_group",
	code: `template <int N>
__forceinline__ __device__ void tvm_builtin_ptx_cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;" : : "n"(N) : "memory");
}
`,
}

var fenceMbarrierInitHelper = &helper{
	name: "tvm_builtin_ptx_fence_mbarrier_init",
	rank: rankAsync, minSM: 90, what: "ptx.fence.mbarrier_init",
	code: `__forceinline__ __device__ void tvm_builtin_ptx_fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
}
`,
}

var cpAsyncBulkCommitHelper = &helper{
	name: "tvm_builtin_ptx_cp_async_bulk_commit_group",
	rank: rankAsync, minSM: 90, what: "ptx.cp_async.bulk.commit_group",
	code: `__forceinline__ __device__ void tvm_builtin_ptx_cp_async_bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" : : : "memory");
}
`,
}

var cpAsyncBulkWaitHelper = &helper{
	name: "tvm_builtin_ptx_cp_async_bulk_wait_group",
	rank: rankAsync, minSM: 90, what: "ptx.cp_async.bulk.wait_group",
	code: `template <int N>
__forceinline__ __device__ void tvm_builtin_ptx_cp_async_bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" : : "n"(N) : "memory");
}
`,
}

// castVec2Helper converts two packed elements (spec §4.4 cast_vec2).
func castVec2Helper(src, dst string) (*helper, bool) {
	type conv struct{ srcT, dstT, fn string }
	c, ok := map[[2]string]conv{
		{"float32", "float16"}:  {"float2", "half2", "__float22half2_rn"},
		{"float16", "float32"}:  {"half2", "float2", "__half22float2"},
		{"float32", "bfloat16"}: {"float2", "nv_bfloat162", "__float22bfloat162_rn"},
		{"bfloat16", "float32"}: {"nv_bfloat162", "float2", "__bfloat1622float2"},
	}[[2]string{src, dst}]
	if !ok {
		return nil, false
	}
	name := "tvm_builtin_cast_" + src + "x2_" + dst + "x2"
	return &helper{
		name: name, rank: rankCast,
		code: "__forceinline__ __device__ void " + name + "(void* dst, void* src) {\n" +
			"  *reinterpret_cast<" + c.dstT + "*>(dst) = " + c.fn + "(*reinterpret_cast<const " + c.srcT + "*>(src));\n}\n",
	}, true
}

// packedF32x2Helper is a packed two-lane f32 op (sm_100): op is add, sub,
// mul or fma, rnd a rounding mode ("rn", "rz", "rm", "rp"; empty means the
// instruction default for add/sub/mul and rn for fma). Every pointer
// addresses two consecutive floats; ftz is always on (spec §4.4).
// scalar[i] marks source i as an f32 value used for both lanes (TVM's
// make_float2(s, s)): that parameter is a float, and the helper's name
// gets a suffix with one letter per source, p (pointer) or s (scalar), so
// the all-pointer form keeps its name.
func packedF32x2Helper(op, rnd string, scalar []bool) (*helper, bool) {
	nsrc := 2
	switch op {
	case "add", "sub", "mul":
	case "fma":
		nsrc = 3
		if rnd == "" {
			rnd = "rn"
		}
	default:
		return nil, false
	}
	switch rnd {
	case "", "rn", "rz", "rm", "rp":
	default:
		return nil, false
	}
	instr := op
	if rnd != "" {
		instr += "." + rnd
	}
	instr += ".ftz.f32x2"
	if len(scalar) != nsrc {
		return nil, false
	}
	name := "tvm_builtin_ptx_" + strings.ReplaceAll(instr, ".", "_")
	if slices.Contains(scalar, true) {
		name += "_"
		for _, sc := range scalar {
			name += map[bool]string{false: "p", true: "s"}[sc]
		}
	}
	params := []string{"void* dst"}
	var b strings.Builder
	var pack, operands, regs []string
	for i := range nsrc {
		c := string(rune('a' + i))
		if scalar[i] {
			params = append(params, "float "+c)
			fmt.Fprintf(&b, "  const float2 %s2 = make_float2(%s, %s);\n", c, c, c)
		} else {
			params = append(params, "void* "+c)
			fmt.Fprintf(&b, "  const float2 %s2 = *reinterpret_cast<const float2*>(%s);\n", c, c)
		}
		pack = append(pack, fmt.Sprintf(`      "mov.b64 r%s, {%%%d, %%%d};\n"`, c, 2*i+1, 2*i+2))
		operands = append(operands, fmt.Sprintf(`"f"(%s2.x), "f"(%s2.y)`, c, c))
		regs = append(regs, "r"+c)
	}
	b.WriteString("  unsigned long long d;\n")
	b.WriteString("  asm volatile(\n      \"{\\n\"\n")
	fmt.Fprintf(&b, "      \".reg .b64 %s;\\n\"\n", strings.Join(regs, ", "))
	b.WriteString(strings.Join(pack, "\n") + "\n")
	fmt.Fprintf(&b, "      \"%s %%0, %s;\\n\"\n", instr, strings.Join(regs, ", "))
	b.WriteString("      \"}\\n\"\n")
	b.WriteString("      : \"=l\"(d)\n")
	fmt.Fprintf(&b, "      : %s);\n", strings.Join(operands, ", "))
	b.WriteString("  float2 r;\n")
	b.WriteString("  asm(\"mov.b64 {%0, %1}, %2;\" : \"=f\"(r.x), \"=f\"(r.y) : \"l\"(d));\n")
	b.WriteString("  *reinterpret_cast<float2*>(dst) = r;\n")
	return &helper{
		name: name, rank: rankPacked, minSM: 100, what: "ptx.f32x2 (" + instr + ")",
		code: "__forceinline__ __device__ void " + name + "(" + strings.Join(params, ", ") + ") {\n" + b.String() + "}\n",
	}, true
}
