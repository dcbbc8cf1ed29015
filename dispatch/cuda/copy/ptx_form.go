package copy

// The PTX forms the 0.26+ synchronous copies emit: one ld and one st of a
// {vec.}type chain per transfer, through registers of the PTX container
// type (these copies move bits, not values).
//
// Mirrors copy_ptx_form and copy_ptx_ld_chain of TVM python/tvm/backend/
// cuda/tile_primitive/copy/_common.py at 0.27.0.post1 (0.26.0 has the same
// widths and types, spelled through T.ptx.ld/T.ptx.st keywords).

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// ptxForm is copy_ptx_form: the chain tail, the operand count and the
// register container type of an n-byte transfer.
type ptxForm struct {
	tail  string
	lanes int
	reg   ir.DataType
}

var ptxForms = map[int64]ptxForm{
	32: {"v8.u32", 8, ir.UInt32},
	16: {"v4.u32", 4, ir.UInt32},
	8:  {"v2.u32", 2, ir.UInt32},
	4:  {"u32", 1, ir.UInt32},
	2:  {"u16", 1, ir.DataType{Code: ir.UInt, Bits: 16}},
	1:  {"u8", 1, ir.DataType{Code: ir.UInt, Bits: 8}},
}

func copyPtxForm(numBytes int64) ptxForm {
	f, ok := ptxForms[numBytes]
	if !ok {
		dispatch.Raise("KeyError", "%d", numBytes)
	}
	return f
}

// ldHints are the load qualifiers of copy_ptx_ld_chain.
type ldHints struct {
	nc                         bool
	l1Evict, l2Evict, prefetch string
	// table: 0.27's T.ptx chain table and copy_ptx_ld_chain check an
	// .L2::evict_* load (256-bit lines only); 0.26's T.ptx.ld keywords
	// print any width.
	table bool
}

// ldChain is copy_ptx_ld_chain: ld.<space>[.nc][.L1][.L2 evict][.L2 size].<tail>.
func ldChain(space, tail string, h ldHints) string {
	toks := []string{"ld", space}
	if h.nc {
		toks = append(toks, "nc")
	}
	if h.l1Evict != "" {
		toks = append(toks, h.l1Evict)
	}
	if h.l2Evict != "" {
		if h.table && !strings.HasPrefix(tail, "v") {
			// The ISA spells .level2::eviction_priority only on the vector lines.
			dispatch.Raise("ValueError", "L2 eviction priorities are vector-only")
		}
		toks = append(toks, h.l2Evict)
	}
	if h.prefetch != "" {
		toks = append(toks, h.prefetch)
	}
	if h.table && h.l2Evict != "" && space == "global" && tail != "v8.u32" {
		l2EvictNot256(tail, h)
	}
	return strings.Join(append(toks, tail), ".")
}

// l2EvictNot256 raises what 0.27's T.ptx chain table answers for an
// .L2::evict_* load that is not one of its 256-bit lines: .v4.u32 is the
// ld_vec256 family's own error; .v2.u32 is not a modifier of any ld line
// left once the eviction priority is spelled (the message lists the slots
// still open, those the chain has not filled).
func l2EvictNot256(tail string, h ldHints) {
	if tail == "v4.u32" {
		dispatch.Raise("DiagnosticError", "error: ld_vec256: the 256-bit lines are .v8 with a 32-bit type or .v4 with a 64-bit type")
	}
	slots := []string{"sem∈{weak,acquire,relaxed,volatile}", "scope∈{cta,cluster,gpu,sys}", "cop∈{ca,cg,cs,lu,cv}"}
	if !h.nc {
		slots = append(slots, "nc∈{nc}")
	}
	if h.l1Evict == "" {
		slots = append(slots, "l1ev∈{L1::evict_normal,L1::evict_unchanged,L1::evict_first,L1::evict_last,L1::no_allocate}")
	}
	slots = append(slots, "cache∈{L2::cache_hint}")
	if h.prefetch == "" {
		slots = append(slots, "prefetch∈{L2::64B,L2::128B,L2::256B}")
	}
	slots = append(slots, "vec∈{v4,v8}", "type∈{b32,u32,s32,f32,b64,u64,s64,f64}")
	v, _, _ := strings.Cut(tail, ".")
	dispatch.Raise("DiagnosticError", "error: KeyError: \"'%s' is not a valid modifier for 'ld'; open slots: %s\"", v, strings.Join(slots, "; "))
}

// ptxSpace is _ptx_space: shared* -> shared, else the scope.
func ptxSpace(scope string) string {
	if strings.HasPrefix(scope, "shared") {
		return "shared"
	}
	return scope
}

// ldCacheConfig is _ld_cache_config: cache ("" when None) and the hints.
func ldCacheConfig(c *dispatch.Call) (cache string, hasCache bool, h ldHints) {
	h.table = c.Target.Release >= release.R027
	cache, hasCache = configString(c, "cache")
	h.l1Evict, _ = configString(c, "l1_evict")
	h.l2Evict, _ = configString(c, "l2_evict")
	h.prefetch, _ = configString(c, "prefetch_size")
	return cache, hasCache, h
}

// ptxLd is T.ptx[chain](*regs, addr); ptxSt is T.ptx[chain](addr, *regs).
func ptxLd(chain string, regs []ir.Expr, addr ir.Expr, span source.Span) ir.Stmt {
	args := append(append([]ir.Expr{}, regs...), addr)
	return &ir.Evaluate{X: &ir.Call{Op: "ptx." + chain, Args: args, Span: span}, Span: span}
}

func ptxSt(chain string, addr ir.Expr, regs []ir.Expr, span source.Span) ir.Stmt {
	args := append([]ir.Expr{addr}, regs...)
	return &ir.Evaluate{X: &ir.Call{Op: "ptx." + chain, Args: args, Span: span}, Span: span}
}

// localTmp is T.alloc_local((lanes,), reg_dtype) and its elements.
func localTmp(name string, f ptxForm, span source.Span) (*ir.Buffer, []ir.Expr) {
	b := &ir.Buffer{Name: name, Shape: []int64{int64(f.lanes)}, Dtype: f.reg, Scope: "local", Kind: ir.AllocBuffer, Span: span}
	b.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: span}
	return b, elems(b, common.Cst(0), f.lanes, span)
}

// elems is [buf[base + i] for i in range(n)].
func elems(b *ir.Buffer, base ir.Expr, n int, span source.Span) []ir.Expr {
	out := make([]ir.Expr, n)
	for i := range out {
		out[i] = &ir.Load{Buf: b, Indices: []ir.Expr{ir.SimplifyIndex(ir.AddE(base, ir.Const(int64(i))))}, Span: span}
	}
	return out
}
