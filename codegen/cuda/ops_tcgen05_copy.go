package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// tcgen05CopyOps prints the intrinsics of the tcgen05_copy lowering (see
// ext.go): the copy_async variants smem->tmem (tcgen05.cp), tmem<->local
// (tcgen05.ld / tcgen05.st) and dsmem (mapa + cp.async.bulk
// shared::cluster.shared::cta). The helpers are written from the PTX ISA
// (tcgen05 data movement, §9.7.16.8; the shared memory descriptor,
// §9.7.16.4.1; cp.async.bulk, §9.7.9.25.4) and named as TVM names them so
// the kernels read alike. The descriptor ops (encode_matrix_descriptor,
// smem_desc_add_16B_offset) are gemm_async's (ops_gemm_async.go); an op
// name another family's table already prints is left to that table.
var tcgen05CopyOps = withoutOpsOf(map[string]extOp{
	ir.OpTcgen05Cp:      {need: opNeed{sm: 100, family: true}, print: printTcgen05Copy},
	ir.OpTcgen05Ld:      {need: opNeed{sm: 100, family: true}, print: printTcgen05Copy},
	ir.OpTcgen05St:      {need: opNeed{sm: 100, family: true}, print: printTcgen05Copy},
	ir.OpMapSharedRank:  {need: opNeed{sm: 90}, print: printTcgen05Copy},
	ir.OpCpAsyncBulkS2C: {need: opNeed{sm: 90}, print: printTcgen05Copy},
}, gemmOps, gemmAsyncOps, reductionOps, permuteOps)

// tcgen05CopyPrinters is set in init: the printers reach extOps (through
// k.top), so naming them in the table's initializer would be an
// initialization cycle.
var tcgen05CopyPrinters map[string]func(*kernel, *ir.Call) string

func init() {
	tcgen05CopyPrinters = map[string]func(*kernel, *ir.Call) string{
		ir.OpTcgen05Cp:      printTcgen05Cp,
		ir.OpTcgen05Ld:      printTcgen05LdSt,
		ir.OpTcgen05St:      printTcgen05LdSt,
		ir.OpMapSharedRank:  printMapSharedRank,
		ir.OpCpAsyncBulkS2C: printCpAsyncBulkS2C,
	}
}

func printTcgen05Copy(k *kernel, c *ir.Call) string { return tcgen05CopyPrinters[c.Op](k, c) }

// withoutOpsOf returns ops without the names that one of others prints.
func withoutOpsOf(ops map[string]extOp, others ...map[string]extOp) map[string]extOp {
	for name := range ops {
		for _, o := range others {
			if _, dup := o[name]; dup {
				delete(ops, name)
			}
		}
	}
	return ops
}

// tmemAddrCode computes the TMEM address of (taddr lane + row, column +
// col) in a helper body: lane in bits [16, 32), column in [0, 16).
const tmemAddrCode = `  uint32_t addr_ = ((((taddr >> 16) + (uint32_t)row_offset) & 0xFFFFu) << 16) | (((taddr & 0xFFFFu) + (uint32_t)col_offset) & 0xFFFFu);
`

// familyOnly keeps a tcgen05 body under __CUDA_ARCH_FAMILY_SPECIFIC__ and
// traps elsewhere: nvcc 13's -arch=sm_100a also embeds portable
// compute_100 PTX, which ptxas assembles for plain sm_100, where tcgen05
// does not exist (as codegen/cuda/tma.go asmHelper does for .cta_group).
func familyOnly(body string) string { return familyOnlyFor(body, "tcgen05") }

// familyOnlyFor is familyOnly for a body whose instruction the trap's
// comment names what.
func familyOnlyFor(body, what string) string {
	return "#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)\n" + body +
		"#else\n  __trap();  // portable PTX: " + what + " needs an sm_100-family arch-specific target\n#endif\n"
}

// tcgen05CpHelper is one tcgen05.cp of a shape, cta_group and multicast.
func tcgen05CpHelper(shape string, ctaGroup int64, multicast string) *helper {
	name := fmt.Sprintf("ptx_tcgen05_cp_cta_group_%d_shape_%s_multicast_%s_decompress_", ctaGroup, shape, strings.ReplaceAll(multicast, "::", "_"))
	mc := ""
	if multicast != "" {
		mc = "." + multicast
	}
	code := "__forceinline__ __device__ void " + name + "(uint32_t taddr, int row_offset, int col_offset, uint64_t src_desc) {\n" +
		familyOnly(tmemAddrCode+
			"  asm volatile(\"tcgen05.cp.cta_group::"+strconv.FormatInt(ctaGroup, 10)+"."+shape+mc+" [%0], %1;\" :: \"r\"(addr_), \"l\"(src_desc) : \"memory\");\n") + "}\n"
	return &helper{name: name, rank: rankAsync, minSM: 100, what: "tcgen05.cp", code: code, sm100Family: true}
}

func printTcgen05Cp(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 5) {
		return ""
	}
	shape, ok1 := k.stringArg(c, 2)
	group, ok2 := k.constArg(c, 3)
	mc, ok3 := k.stringArg(c, 4)
	if !ok1 || !ok2 || !ok3 {
		return ""
	}
	switch shape {
	case "128x256b", "4x256b", "128x128b", "64x128b", "32x128b":
	default:
		k.fail("%s: unknown shape %q", c.Op, shape)
		return ""
	}
	if group != 1 && group != 2 {
		k.fail("%s: cta_group %d (want 1 or 2)", c.Op, group)
		return ""
	}
	h := tcgen05CpHelper(shape, group, mc)
	k.use(h)
	return h.name + "(" + k.top(c.Args[0]) + ", 0, 0, " + k.top(c.Args[1]) + ")"
}

// tcgen05LdStRegs is the number of 32-bit registers per thread of one
// tcgen05.ld/st of shape .x<num> (PTX ISA table "tcgen05 matrix fragments").
func tcgen05LdStRegs(shape string, num int64) (int64, bool) {
	if num < 1 || num > 128 || num&(num-1) != 0 {
		return 0, false
	}
	switch shape {
	case "32x32b", "16x64b":
		return num, true
	case "16x128b":
		return 2 * num, num <= 64
	case "16x256b":
		return 4 * num, num <= 32
	}
	return 0, false
}

// tcgen05LdStHelper is one tcgen05.ld or tcgen05.st of shape .x<num>.
func tcgen05LdStHelper(load bool, shape string, num, regs int64) *helper {
	op := "st"
	if load {
		op = "ld"
	}
	name := fmt.Sprintf("tvm_builtin_ptx_tcgen05_%s_%s_x%d", op, shape, num)
	var params, ops, cons []string
	for i := range regs {
		params = append(params, fmt.Sprintf("void* reg%d", i))
	}
	addrParams := "uint32_t taddr, uint32_t row_offset, uint32_t col_offset"
	var b strings.Builder
	b.WriteString("__forceinline__ __device__ void " + name + "(")
	if load {
		b.WriteString(strings.Join(params, ", ") + ", " + addrParams)
	} else {
		b.WriteString(addrParams + ", " + strings.Join(params, ", "))
	}
	b.WriteString(") {\n#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)\n" + tmemAddrCode)
	for i := range regs {
		ops = append(ops, fmt.Sprintf("%%%d", i))
		if load {
			cons = append(cons, fmt.Sprintf(`"=r"(*(uint32_t*)reg%d)`, i))
		} else {
			cons = append(cons, fmt.Sprintf(`"r"(*(uint32_t*)reg%d)`, i))
		}
	}
	ptx := fmt.Sprintf("tcgen05.%s.sync.aligned.%s.x%d.b32 ", op, shape, num)
	if load {
		fmt.Fprintf(&b, "  asm volatile(\"%s{%s}, [%%%d];\"\n    : %s\n    : \"r\"(addr_)\n    : \"memory\");\n",
			ptx, strings.Join(ops, ", "), regs, strings.Join(cons, ", "))
	} else {
		for i := range ops {
			ops[i] = fmt.Sprintf("%%%d", i+1)
		}
		fmt.Fprintf(&b, "  asm volatile(\"%s[%%0], {%s};\"\n    :\n    : \"r\"(addr_), %s\n    : \"memory\");\n",
			ptx, strings.Join(ops, ", "), strings.Join(cons, ", "))
	}
	b.WriteString("#else\n  __trap();  // portable PTX: tcgen05 needs an sm_100-family arch-specific target\n#endif\n}\n")
	return &helper{name: name, rank: rankAsync, minSM: 100, what: "tcgen05." + op, code: b.String(), sm100Family: true}
}

func printTcgen05LdSt(k *kernel, c *ir.Call) string {
	if len(c.Args) < 6 {
		k.fail("%s takes at least 6 arguments, got %d", c.Op, len(c.Args))
		return ""
	}
	shape, ok1 := k.stringArg(c, 0)
	num, ok2 := k.constArg(c, 1)
	if !ok1 || !ok2 {
		return ""
	}
	regs, ok := tcgen05LdStRegs(shape, num)
	if !ok {
		k.fail("%s: shape %s.x%d is not a tcgen05 shape", c.Op, shape, num)
		return ""
	}
	if !k.wantArgs(c, 5+int(regs)) {
		return ""
	}
	load := c.Op == ir.OpTcgen05Ld
	h := tcgen05LdStHelper(load, shape, num, regs)
	k.use(h)
	addr := k.args(c.Args[2:5])
	rs := k.args(c.Args[5:])
	if load {
		return h.name + "(" + rs + ", " + addr + ")"
	}
	return h.name + "(" + addr + ", " + rs + ")"
}

var mapaHelper = &helper{
	name:  "tvm_builtin_ptx_mapa_u64",
	rank:  rankAsync,
	minSM: 90,
	what:  "mapa (distributed shared memory)",
	code: `__forceinline__ __device__ uint64_t tvm_builtin_ptx_mapa_u64(void* addr, uint32_t rank) {
  uint64_t result;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(result) : "l"(addr), "r"(rank));
  return result;
}
`,
}

func printMapSharedRank(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 2) {
		return ""
	}
	return k.callHelper(mapaHelper, c.Args)
}

// cpAsyncBulkS2CHelper copies size bytes from this CTA's shared memory to
// a shared::cluster address, completing on the (remote) mbarrier. mapa.u64
// of a shared variable yields its shared::cluster address in the low 32
// bits, which the .shared::cluster operands take.
var cpAsyncBulkS2CHelper = &helper{
	name:  "tvm_builtin_ptx_cp_async_bulk_s2s_cluster",
	rank:  rankAsync,
	minSM: 90,
	what:  "cp.async.bulk.shared::cluster.shared::cta",
	code: `__forceinline__ __device__ void tvm_builtin_ptx_cp_async_bulk_s2s_cluster(uint64_t dst, void* src, int size, uint64_t mbar) {
  unsigned int dst_addr = static_cast<unsigned int>(dst);
  unsigned int src_addr = static_cast<unsigned int>(__cvta_generic_to_shared(src));
  unsigned int mbar_addr = static_cast<unsigned int>(mbar);
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(dst_addr), "r"(src_addr), "r"(size), "r"(mbar_addr) : "memory");
}
`,
}

func printCpAsyncBulkS2C(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 4) {
		return ""
	}
	return k.callHelper(cpAsyncBulkS2CHelper, c.Args)
}
