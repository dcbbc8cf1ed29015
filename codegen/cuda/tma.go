package cuda

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Async copies: cp.async (LDGSTS) and the TMA bulk-tensor instructions
// (spec §4.5.4, §5.5). Helper bodies are written from the PTX ISA; their
// names and operand order follow TVM's cp_async intrinsics
// (tvm/backend/cuda/operator/intrinsics/cp_async.py).

// cachePolicies are the L2 cache-policy operands TVM passes for a
// cache_hint string (python/tvm/backend/cuda/op.py _PTX_CACHE_POLICY: the
// createpolicy encodings CUTLASS also uses). TVM accepts "evict_last_use"
// as a hint but has no policy for it ("pass cache_policy explicitly"); the
// IR carries no explicit policy, so it is an error here too.
var cachePolicies = map[string]string{
	"evict_normal": "0x1000000000000000ull",
	"evict_first":  "0x12F0000000000000ull",
	"evict_last":   "0x14F0000000000000ull",
}

// reduceOps are the redOp values of cp.reduce.async.bulk.tensor.
var reduceOps = map[string]bool{"add": true, "min": true, "max": true, "inc": true, "dec": true, "and": true, "or": true, "xor": true}

// cpAsyncHelper is cp.async of n bytes (4, 8: .ca; 16: .cg, the only size
// .cg takes) from global to shared memory.
func cpAsyncHelper(n int64) (*helper, bool) {
	cache := "ca"
	switch n {
	case 4, 8:
	case 16:
		cache = "cg"
	default:
		return nil, false
	}
	name := fmt.Sprintf("tvm_builtin_ptx_cp_async_%s_%d", cache, n)
	return &helper{
		name: name, rank: rankAsync, minSM: 80, what: "ptx.cp_async",
		code: "__forceinline__ __device__ void " + name + "(void* dst, void* src) {\n" +
			"  unsigned int dst_addr = static_cast<unsigned int>(__cvta_generic_to_shared(dst));\n" +
			fmt.Sprintf("  asm volatile(\"cp.async.%s.shared.global [%%0], [%%1], %d;\" : : \"r\"(dst_addr), \"l\"(src) : \"memory\");\n", cache, n) +
			"}\n",
	}, true
}

var prefetchTensormapHelper = &helper{
	name: "tvm_builtin_ptx_prefetch_tensormap",
	rank: rankTMA, minSM: 90, what: "ptx.prefetch_tensormap",
	code: `__forceinline__ __device__ void tvm_builtin_ptx_prefetch_tensormap(unsigned long long tensormap_addr) {
  asm volatile("prefetch.tensormap [%0];" : : "l"(tensormap_addr) : "memory");
}
`,
}

// coordOperands returns the PTX coordinate list {%first, ...} and the
// coordinate parameters and constraints of a rank-r helper.
func coordOperands(r int64, first int) (tpl string, params, cons []string) {
	var slots []string
	for i := range r {
		slots = append(slots, "%"+strconv.Itoa(first+int(i)))
		params = append(params, fmt.Sprintf("int coord%d", i))
		cons = append(cons, fmt.Sprintf(`"r"(coord%d)`, i))
	}
	return "{" + strings.Join(slots, ", ") + "}", params, cons
}

// asmHelper assembles a bulk-tensor helper: the shared-window conversions,
// then one asm statement with inputs only and a memory clobber.
//
// An sm100Family helper (.cta_group) keeps its body under
// __CUDA_ARCH_FAMILY_SPECIFIC__ and traps elsewhere: nvcc 13's
// -arch=sm_100a also embeds portable compute_100 PTX, which ptxas
// assembles for plain sm_100, where .cta_group does not exist.
func asmHelper(name, what string, params []string, prologue, instr string, operands []string, sm100Family bool) *helper {
	var b strings.Builder
	fmt.Fprintf(&b, "__forceinline__ __device__ void %s(%s) {\n", name, strings.Join(params, ", "))
	if sm100Family {
		b.WriteString("#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)\n")
	}
	b.WriteString(prologue)
	fmt.Fprintf(&b, "  asm volatile(\n      \"%s\"\n      :\n      : %s\n      : \"memory\");\n", instr, strings.Join(operands, ",\n        "))
	if sm100Family {
		b.WriteString("#else\n  __trap();  // portable PTX: .cta_group needs an sm_100-family arch-specific target\n#endif\n")
	}
	b.WriteString("}\n")
	return &helper{name: name, rank: rankTMA, minSM: 90, what: what, code: b.String(), sm100Family: sm100Family}
}

// g2cHelper is cp.async.bulk.tensor.<r>d global -> shared::cluster,
// completing on an mbarrier, with the optional .multicast::cluster,
// .cta_group::<ctaGroup> (0: none) and .L2::cache_hint modifiers. Operands:
// %0 dst, %1 tensor map, %2 mbarrier, then the CTA mask, the cache policy
// and the coordinates (innermost first).
func g2cHelper(r int64, multicast bool, ctaGroup int64, cacheHint bool, gather4 bool) *helper {
	name := fmt.Sprintf("tvm_builtin_ptx_cp_async_bulk_tensor_g2c_%dd", r)
	instr := fmt.Sprintf("cp.async.bulk.tensor.%dd.shared::cluster.global.mbarrier::complete_tx::bytes", r)
	coords := r
	if gather4 {
		name += "_gather4"
		instr = fmt.Sprintf("cp.async.bulk.tensor.%dd.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes", r)
		coords = 5 // the column, then four rows
	}
	params := []string{"void* dst", "void* bar", "unsigned long long tensormap_addr"}
	operands := []string{`"r"(dst_addr)`, `"l"(tensormap_addr)`, `"r"(bar_addr)`}
	var tail []string
	if multicast {
		name += "_multicast"
		instr += ".multicast::cluster"
		params = append(params, "uint16_t cta_mask")
		tail = append(tail, "%"+strconv.Itoa(len(operands)))
		operands = append(operands, `"h"(cta_mask)`)
	}
	if ctaGroup != 0 {
		name += fmt.Sprintf("_cta_group_%d", ctaGroup)
		instr += fmt.Sprintf(".cta_group::%d", ctaGroup)
	}
	if cacheHint {
		name += "_cache_hint"
		instr += ".L2::cache_hint"
		params = append(params, "unsigned long long cache_policy")
		tail = append(tail, "%"+strconv.Itoa(len(operands)))
		operands = append(operands, `"l"(cache_policy)`)
	}
	tpl, cp, cons := coordOperands(coords, len(operands))
	instr += " [%0], [%1, " + tpl + "], [%2]"
	for _, t := range tail {
		instr += ", " + t
	}
	what := "ptx.cp_async.bulk.tensor.g2c"
	if gather4 {
		what += " with .tile::gather4"
	}
	if ctaGroup != 0 {
		what = fmt.Sprintf("ptx.cp_async.bulk.tensor.g2c with .cta_group::%d", ctaGroup)
	}
	return asmHelper(name, what, append(params, cp...),
		"  unsigned int dst_addr = static_cast<unsigned int>(__cvta_generic_to_shared(dst));\n"+
			"  unsigned int bar_addr = static_cast<unsigned int>(__cvta_generic_to_shared(bar));\n",
		instr+";", append(operands, cons...), ctaGroup != 0 || gather4)
}

// s2gHelper is cp.async.bulk.tensor.<r>d shared::cta -> global with
// bulk_group completion, or with reduce != "" its cp.reduce form. Operands:
// %0 tensor map, %1 src, then the cache policy and the coordinates.
func s2gHelper(r int64, reduce string, cacheHint bool) *helper {
	name := fmt.Sprintf("tvm_builtin_ptx_cp_async_bulk_tensor_s2g_%dd", r)
	instr := fmt.Sprintf("cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group", r)
	what := "ptx.cp_async.bulk.tensor.s2g"
	if reduce != "" {
		name = fmt.Sprintf("tvm_builtin_ptx_cp_reduce_async_bulk_tensor_s2g_%s_%dd", reduce, r)
		instr = fmt.Sprintf("cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.tile.bulk_group", r, reduce)
		what = "ptx.cp_async.bulk.tensor.s2g_reduce"
	}
	params := []string{"void* src", "unsigned long long tensormap_addr"}
	operands := []string{`"l"(tensormap_addr)`, `"r"(src_addr)`}
	tail := ""
	if cacheHint {
		name += "_cache_hint"
		instr += ".L2::cache_hint"
		params = append(params, "unsigned long long cache_policy")
		tail = ", %2"
		operands = append(operands, `"l"(cache_policy)`)
	}
	tpl, cp, cons := coordOperands(r, len(operands))
	instr += " [%0, " + tpl + "], [%1]" + tail + ";"
	return asmHelper(name, what, append(params, cp...),
		"  unsigned int src_addr = static_cast<unsigned int>(__cvta_generic_to_shared(src));\n",
		instr, append(operands, cons...), false)
}

// sm100FamilySpecific reports an arch-specific target of the sm_100 family
// (sm_100a, sm_100f, sm_103a, sm_110f, ...): ptxas takes .cta_group there
// and nowhere else (it rejects sm_90a, sm_100 and sm_120a).
func sm100FamilySpecific(arch string, sm int) bool {
	return sm >= 100 && sm < 120 && (strings.HasSuffix(arch, "a") || strings.HasSuffix(arch, "f"))
}

// tmaCall prints one of the async-copy intrinsics (ir/ops.go gives the
// argument conventions).
func (k *kernel) tmaCall(c *ir.Call) string {
	switch c.Op {
	case ir.OpCpAsync:
		if !k.wantArgs(c, 3) {
			return ""
		}
		n, ok := k.constArg(c, 2)
		if !ok {
			return ""
		}
		h, ok := cpAsyncHelper(n)
		if !ok {
			k.fail("%s of %d bytes (want 4, 8 or 16)", c.Op, n)
			return ""
		}
		return k.callHelper(h, c.Args[:2])
	case ir.OpPrefetchTensormap:
		if !k.wantArgs(c, 1) {
			return ""
		}
		return k.callHelper(prefetchTensormapHelper, c.Args)
	case ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4:
		return k.g2c(c)
	case ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce:
		return k.s2g(c)
	}
	k.fail("unknown intrinsic %q", c.Op)
	return ""
}

// bulkRank reads the leading rank argument and checks the argument count
// (fixed arguments before the coordinates) and the tensor map's rank.
func (k *kernel) bulkRank(c *ir.Call, fixed int, mapArg int) (int64, bool) {
	if len(c.Args) < fixed {
		k.fail("%s takes at least %d arguments, got %d", c.Op, fixed, len(c.Args))
		return 0, false
	}
	r, ok := k.constArg(c, 0)
	if !ok {
		return 0, false
	}
	if r < 1 || r > 5 {
		k.fail("%s: rank %d is outside 1..5", c.Op, r)
		return 0, false
	}
	if !k.wantArgs(c, fixed+int(r)) {
		return 0, false
	}
	if a, ok := c.Args[mapArg].(*ir.TensorMapAddr); ok && a.Map != nil && int64(a.Map.Rank) != r {
		k.fail("%s: rank %d does not match tensor map %s of rank %d", c.Op, r, a.Map.Name, a.Map.Rank)
		return 0, false
	}
	return r, true
}

// cachePolicy returns the policy operand of a cache_hint argument ("" when
// the hint is empty): a built-in policy's constant for a string, the
// expression itself otherwise.
func (k *kernel) cachePolicy(c *ir.Call, i int) (string, bool) {
	if i < len(c.Args) {
		if _, isStr := c.Args[i].(*ir.StringImm); !isStr {
			// 0.26+: a cache_hint expression is the 64-bit policy itself.
			return "(unsigned long long)(" + k.top(c.Args[i]) + ")", true
		}
	}
	hint, ok := k.stringArg(c, i)
	if !ok || hint == "" {
		return "", ok
	}
	p, ok := cachePolicies[hint]
	if !ok {
		k.fail("%s: unsupported cache_hint %q (want evict_normal, evict_first or evict_last)", c.Op, hint)
	}
	return p, ok
}

// g2c prints OpCpAsyncBulkTensorG2C. Args: rank, dst, mbar, tensor map,
// cta_mask, cta_group, cache_hint, coords.
func (k *kernel) g2c(c *ir.Call) string {
	gather4 := c.Op == ir.OpCpAsyncBulkTensorG2CGather4
	fixed := 7
	if gather4 {
		fixed = 10 // rank 2 with five coordinates: bulkRank counts rank of them
	}
	r, ok := k.bulkRank(c, fixed, 3)
	if !ok {
		return ""
	}
	if gather4 && r != 2 {
		k.fail("%s: rank %d, gather4 needs 2", c.Op, r)
		return ""
	}
	group, ok := k.constArg(c, 5)
	if !ok {
		return ""
	}
	if group != -1 && group != 1 && group != 2 {
		k.fail("%s: cta_group %d is not -1 (omit), 1 or 2", c.Op, group)
		return ""
	}
	// TVM _resolve_cta_group_str: .cta_group::N iff N == 2, or N != -1 on sm_100+.
	if !(group == 2 || (group != -1 && k.f.sm >= 100)) {
		group = 0
	}
	policy, ok := k.cachePolicy(c, 6)
	if !ok {
		return ""
	}
	// TVM _g2c_dispatch: unicast iff the mask is a constant with at most one bit set.
	mask, isConst := ir.ConstInt(c.Args[4])
	multicast := !isConst || bits.OnesCount64(uint64(mask)) > 1
	if multicast && isConst {
		if mask < 0 || mask > 0xffff {
			k.fail("%s: cta_mask %#x does not fit 16 bits", c.Op, mask)
			return ""
		}
		cl := k.launch.Cluster
		if n := cl[0] * cl[1] * cl[2]; n > 0 && mask>>n != 0 {
			k.fail("%s: cta_mask %#x names CTA %d, but the cluster has %d CTAs", c.Op, mask, bits.Len64(uint64(mask))-1, n)
			return ""
		}
	}
	h := g2cHelper(r, multicast, group, policy != "", gather4)
	args := []string{k.top(c.Args[1]), k.top(c.Args[2]), k.top(c.Args[3])}
	if multicast {
		args = append(args, k.top(c.Args[4]))
	}
	if policy != "" {
		args = append(args, policy)
	}
	for _, e := range c.Args[7:] {
		args = append(args, k.top(e))
	}
	k.use(h)
	return h.name + "(" + strings.Join(args, ", ") + ")"
}

// s2g prints OpCpAsyncBulkTensorS2G (args: rank, src, tensor map,
// cache_hint, coords) and OpCpAsyncBulkTensorS2GReduce (the same with the
// reduction op before the coords).
func (k *kernel) s2g(c *ir.Call) string {
	fixed := 4
	if c.Op == ir.OpCpAsyncBulkTensorS2GReduce {
		fixed = 5
	}
	r, ok := k.bulkRank(c, fixed, 2)
	if !ok {
		return ""
	}
	policy, ok := k.cachePolicy(c, 3)
	if !ok {
		return ""
	}
	reduce := ""
	if fixed == 5 {
		if reduce, ok = k.stringArg(c, 4); !ok {
			return ""
		}
		if !reduceOps[reduce] {
			k.fail("%s: unknown reduction %q (want add, min, max, inc, dec, and, or or xor)", c.Op, reduce)
			return ""
		}
	}
	h := s2gHelper(r, reduce, policy != "")
	args := []string{k.top(c.Args[1]), k.top(c.Args[2])}
	if policy != "" {
		args = append(args, policy)
	}
	for _, e := range c.Args[fixed:] {
		args = append(args, k.top(e))
	}
	k.use(h)
	return h.name + "(" + strings.Join(args, ", ") + ")"
}

// tensorMapAddr prints the generic address of a tensor-map parameter.
func (k *kernel) tensorMapAddr(e *ir.TensorMapAddr) string {
	if e.Map == nil {
		k.fail("address of a nil tensor map")
		return "0ull"
	}
	n, ok := k.maps[e.Map]
	if !ok {
		k.fail("tensor map %s is not a parameter of the kernel (missing from Func.TensorMaps)", e.Map.Name)
		return "0ull"
	}
	return "((unsigned long long)(&(" + n + ")))"
}

// ---- shared-memory alignment of TMA boxes ----

// tmaAlignments returns, for every allocated buffer that a bulk-tensor copy
// reads or writes, the alignment its box needs (swizzleAlign). Buffers are
// keyed by their root allocation (a view's Base chain).
func tmaAlignments(b *ir.Block) map[*ir.Buffer]int64 {
	var out map[*ir.Buffer]int64
	var visitExpr func(e ir.Expr)
	visitExpr = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Call:
			ptr, mp := -1, -1
			switch e.Op {
			case ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4:
				ptr, mp = 1, 3
			case ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce:
				ptr, mp = 1, 2
			}
			if ptr >= 0 && len(e.Args) > mp {
				align := int64(128)
				if a, ok := e.Args[mp].(*ir.TensorMapAddr); ok && a.Map != nil {
					align = swizzleAlign(a.Map.Swizzle)
				}
				if root := ptrRoot(e.Args[ptr]); root != nil {
					if out == nil {
						out = map[*ir.Buffer]int64{}
					}
					out[root] = max(out[root], align)
				}
			}
			for _, a := range e.Args {
				visitExpr(a)
			}
		case *ir.Binary:
			visitExpr(e.A)
			visitExpr(e.B)
		case *ir.Cast:
			visitExpr(e.X)
		case *ir.Select:
			visitExpr(e.Cond)
			visitExpr(e.A)
			visitExpr(e.B)
		case *ir.Not:
			visitExpr(e.X)
		case *ir.Neg:
			visitExpr(e.X)
		}
	}
	var visit func(s ir.Stmt)
	visitBlock := func(b *ir.Block) {
		if b != nil {
			for _, s := range b.Stmts {
				visit(s)
			}
		}
	}
	visit = func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Block:
			visitBlock(s)
		case *ir.For:
			visitBlock(s.Body)
		case *ir.While:
			visitBlock(s.Body)
		case *ir.If:
			visitBlock(s.Then)
			visitBlock(s.Else)
		case *ir.Lowered:
			visitBlock(s.Body)
		case *ir.Evaluate:
			visitExpr(s.X)
		case *ir.Let:
			visitExpr(s.Value)
		}
	}
	visitBlock(b)
	return out
}

// ptrRoot is the root allocation behind a pointer argument: &buf[...] or
// tvm_builtin_pointer_offset(&buf[...], off).
func ptrRoot(e ir.Expr) *ir.Buffer {
	switch e := e.(type) {
	case *ir.AddressOf:
		b := e.Buf
		for b != nil && b.Base != nil {
			b = b.Base
		}
		return b
	case *ir.Call:
		if e.Op == ir.OpPointerOffset && len(e.Args) > 0 {
			return ptrRoot(e.Args[0])
		}
	}
	return nil
}
