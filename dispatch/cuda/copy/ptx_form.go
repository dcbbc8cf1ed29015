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
		if !strings.HasPrefix(tail, "v") {
			// The ISA spells .level2::eviction_priority only on the vector lines.
			dispatch.Raise("ValueError", "L2 eviction priorities are vector-only")
		}
		toks = append(toks, h.l2Evict)
	}
	if h.prefetch != "" {
		toks = append(toks, h.prefetch)
	}
	return strings.Join(append(toks, tail), ".")
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
