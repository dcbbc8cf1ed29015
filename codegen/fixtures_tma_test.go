package codegen_test

import (
	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Async-copy fixtures: cp.async (ldgsts) and TMA bulk-tensor copies in the
// shape spec §4.5.4 gives the copy_async → tma emit (an unrolled issue
// loop per call, the tensor map a trailing kernel parameter that the
// host encodes). Each kernel copies its input through shared memory into
// its output, so a GPU run can compare the two (B == A, or 2·A after a
// reduce-add).

func tensorMap(name string, buf *ir.Buffer, dt ir.DataType, dims, strides, box []int64, swizzle int) *ir.TensorMap {
	es := make([]int64, len(dims))
	for i := range es {
		es[i] = 1
	}
	return &ir.TensorMap{Name: name, Buf: buf, DType: dt, Rank: len(dims), GlobalDims: dims, GlobalStrides: strides,
		Box: box, ElemStrides: es, Swizzle: swizzle, L2Promotion: 2, ForceDType: -1, Span: ns}
}

func tmAddr(m *ir.TensorMap) ir.Expr { return &ir.TensorMapAddr{Map: m, Span: ns} }

// g2c is T.ptx.cp_async.bulk.tensor.g2c(rank, dst, mbar, map, cta_mask,
// cta_group, cache_hint, *coords).
func g2c(dst, bar ir.Expr, m *ir.TensorMap, mask ir.Expr, group int64, hint string, coords ...ir.Expr) ir.Stmt {
	args := append([]ir.Expr{c(int64(m.Rank)), dst, bar, tmAddr(m), mask, c(group), str(hint)}, coords...)
	return eval(call(ir.OpCpAsyncBulkTensorG2C, ir.DataType{}, args...))
}

// s2g is T.ptx.cp_async.bulk.tensor.s2g(rank, src, map, cache_hint,
// *coords), or its s2g_reduce form when op is not empty.
func s2g(src ir.Expr, m *ir.TensorMap, hint, op string, coords ...ir.Expr) ir.Stmt {
	if op == "" {
		args := append([]ir.Expr{c(int64(m.Rank)), src, tmAddr(m), str(hint)}, coords...)
		return eval(call(ir.OpCpAsyncBulkTensorS2G, ir.DataType{}, args...))
	}
	args := append([]ir.Expr{c(int64(m.Rank)), src, tmAddr(m), str(hint), str(op)}, coords...)
	return eval(call(ir.OpCpAsyncBulkTensorS2GReduce, ir.DataType{}, args...))
}

func withConfig(tc *ir.TileCall, kv ...ir.KV) *ir.TileCall {
	tc.Config = kv
	return tc
}

func kv(key string, v ir.Expr) ir.KV { return ir.KV{Key: key, Value: v, Span: ns} }

func mmaShared(elemBits, mode int, shape ...int64) layout.Layout {
	l, err := layout.MMASharedLayout(elemBits, mode, shape, false)
	if err != nil {
		panic(err)
	}
	return l
}

func u64Buf(name string) *ir.Buffer { return allocBuf(name, []int64{1}, u64, "shared", rowMajor(1)) }

// initBarrier is thread 0 initialising bar for one arrival, the fence
// that makes it visible to the async proxy, and a CTA barrier.
func initBarrier(tid *ir.Var, bar *ir.Buffer) []ir.Stmt {
	return []ir.Stmt{
		ifThen(bin(ir.EQ, tid, c(0)),
			sync(ir.OpMbarrierInit, addr(bar, c(0)), c(1)),
			sync(ir.OpFenceProxyAsync, str("shared::cta"))),
		sync(ir.OpCTASync),
	}
}

// copyOut is a CTA copying n elements from src to dst with plain loads and
// stores: threads elements per step, element idx split over shape.
func copyOut(dst, src *ir.Buffer, tid *ir.Var, threads int64, name string) ir.Stmt {
	f := ivar(name)
	idx := add(mul(f, c(threads)), tid)
	shape := src.Shape
	var at []ir.Expr
	below := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		x := div(idx, c(below))
		if d > 0 {
			x = mod(x, c(shape[d]))
		}
		at = append([]ir.Expr{x}, at...)
		below *= shape[d]
	}
	return loop(f, below/threads, ir.Serial, store(dst, load(src, at...), at...))
}

func tmaFixtures() []fixture {
	return []fixture{
		tmaG2S(),
		tmaS2G(),
		tmaMultiIssue(),
		tmaMulticast(),
		tmaPrefetch(),
		ldgsts(),
		tmaTwoKernels(),
	}
}

// tmaG2S: the §4.5.5 plan at 128x256 fp16 into a 128B-swizzled tile in
// dynamic shared memory (64 KiB, above the 48 KiB default): rank 3, dims
// (64, 128, 4), byte strides (512, 128), box (64, 128, 4), one issue,
// completing on an mbarrier; then every thread reads the tile back through
// the layout's swizzle formula.
func tmaG2S() fixture {
	pa, a := paramBuf("A", []int64{128, 256}, f16, rowMajor(128, 256))
	pb, b := paramBuf("B", []int64{128, 256}, f16, rowMajor(128, 256))
	arena := allocBuf("buf", []int64{65536}, u8, "shared.dyn", rowMajor(65536))
	sl := mmaShared(16, 3, 128, 256)
	as := declBuf("A_s", []int64{128, 256}, f16, "shared.dyn", sl, arena, 0)
	bar := u64Buf("bar")
	m := tensorMap("A_ptr_tensormap", a, f16, []int64{64, 128, 4}, []int64{512, 128}, []int64{64, 128, 4}, 3)
	tid, it := ivar("tid"), ivar("it")
	tc := withConfig(tile("thread", "copy_async", full(as), full(a)), kv("mbar", addr(bar, c(0))))
	body := []ir.Stmt{
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		alloc(arena), decl(as), alloc(bar),
	}
	body = append(body, initBarrier(tid, bar)...)
	body = append(body,
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(tc, "tma",
				loop(it, 1, ir.Unrolled,
					g2c(flat(as, c(0)), addr(bar, c(0)), m, c(0), -1, "", c(0), c(0), c(0)))),
			sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(65536))),
		sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(0)),
		copyOut(b, as, tid, 128, "f"),
	)
	k := fn("tma_g2s", []*ir.Param{pa, pb}, body...)
	k.TensorMaps = []*ir.TensorMap{m}
	l := launch(1, 128)
	l.DynamicSmem = 65536
	return fixture{name: "tma_g2s", kernels: []cuda.Kernel{{Func: k, Launch: l}}}
}

// tmaS2G: a 32x64 fp32 tile filled with plain stores, fenced for the async
// proxy, then stored with a TMA copy (L2 evict_first hint) and added once
// more with a reduce-add, each waited for with bulk commit/wait: B = 2·A.
func tmaS2G() fixture {
	pa, a := paramBuf("A", []int64{32, 64}, f32, rowMajor(32, 64))
	pb, b := paramBuf("B", []int64{32, 64}, f32, rowMajor(32, 64))
	as := allocBuf("A_s", []int64{32, 64}, f32, "shared", rowMajor(32, 64))
	m := tensorMap("B_ptr_tensormap", b, f32, []int64{64, 32}, []int64{256}, []int64{64, 32}, 0)
	tid, it, it2 := ivar("tid"), ivar("it"), ivar("it")
	k := fn("tma_s2g", []*ir.Param{pa, pb},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		alloc(as),
		copyOut(as, a, tid, 128, "f"),
		sync(ir.OpFenceProxyAsync, str("shared::cta")),
		sync(ir.OpCTASync),
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(withConfig(tile("thread", "copy_async", full(b), full(as)), kv("cache_hint", str("evict_first"))), "tma",
				loop(it, 1, ir.Unrolled, s2g(flat(as, c(0)), m, "evict_first", "", c(0), c(0)))),
			sync(ir.OpCpAsyncBulkCommit),
			sync(ir.OpCpAsyncBulkWait, c(0)),
			lowered(withConfig(tile("thread", "copy_async", full(b), full(as)), kv("use_tma_reduce", str("add"))), "tma",
				loop(it2, 1, ir.Unrolled, s2g(flat(as, c(0)), m, "", "add", c(0), c(0)))),
			sync(ir.OpCpAsyncBulkCommit),
			sync(ir.OpCpAsyncBulkWait, c(0))),
	)
	k.TensorMaps = []*ir.TensorMap{m}
	return fixture{name: "tma_s2g", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 128)}}}
}

// tmaMultiIssue: the §4.5.6 strided plan at 4x16x64 fp16 into
// S[(4,16,64):(2048,64,1)] (gaps between the 16x64 planes): rank 3, box
// (64, 16, 1), four unrolled issues with smem stride 2048 and coordinate
// +1 on the outermost dimension.
func tmaMultiIssue() fixture {
	pa, a := paramBuf("A", []int64{4, 16, 64}, f16, rowMajor(4, 16, 64))
	pb, b := paramBuf("B", []int64{4, 16, 64}, f16, rowMajor(4, 16, 64))
	sl, err := layout.Parse("S[(4, 16, 64):(2048, 64, 1)]")
	if err != nil {
		panic(err)
	}
	as := allocBuf("A_s", []int64{4, 16, 64}, f16, "shared", sl)
	bar := u64Buf("bar")
	m := tensorMap("A_ptr_tensormap", a, f16, []int64{64, 16, 4}, []int64{128, 2048}, []int64{64, 16, 1}, 0)
	tid, it := ivar("tid"), ivar("it")
	body := []ir.Stmt{
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		alloc(as), alloc(bar),
	}
	body = append(body, initBarrier(tid, bar)...)
	body = append(body,
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(withConfig(tile("thread", "copy_async", full(as), full(a)), kv("mbar", addr(bar, c(0)))), "tma",
				loop(it, 4, ir.Unrolled,
					g2c(flat(as, mul(it, c(2048))), addr(bar, c(0)), m, c(0), -1, "", c(0), c(0), it))),
			sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(8192))),
		sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(0)),
		copyOut(b, as, tid, 128, "f"),
	)
	k := fn("tma_multi_issue", []*ir.Param{pa, pb}, body...)
	k.TensorMaps = []*ir.TensorMap{m}
	return fixture{name: "tma_multi_issue", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 128)}}}
}

// tmaMulticast (sm_100a): a 2-CTA cluster. Each CTA loads half of a 64x64
// fp16 tile (128B swizzle) and multicasts it to both CTAs (cta_mask 0b11,
// cta_group 2, L2 evict_last), then re-loads its own half unicast with
// cta_group 1 (printed as .cta_group::1 on sm_100+). A real kernel would
// also synchronise the cluster after the mbarrier init.
func tmaMulticast() fixture {
	pa, a := paramBuf("A", []int64{64, 64}, f16, rowMajor(64, 64))
	pb, b := paramBuf("B", []int64{2, 64, 64}, f16, rowMajor(2, 64, 64))
	as := allocBuf("A_s", []int64{64, 64}, f16, "shared", mmaShared(16, 3, 64, 64))
	bar := u64Buf("bar")
	m := tensorMap("A_ptr_tensormap", a, f16, []int64{64, 64}, []int64{128}, []int64{64, 32}, 3)
	rank, tid, it, it2 := ivar("rank"), ivar("tid"), ivar("it"), ivar("it")
	row := mul(rank, c(32))
	f := ivar("f")
	idx := add(mul(f, c(128)), tid)
	body := []ir.Stmt{
		scopeID(ir.CTAIDInCluster, []int64{2}, rank),
		scopeID(ir.ThreadID, []int64{128}, tid),
		alloc(as), alloc(bar),
	}
	body = append(body, initBarrier(tid, bar)...)
	body = append(body,
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(withConfig(tile("thread", "copy_async", &ir.Region{Buf: as, Min: []ir.Expr{row, c(0)}, Extent: []ir.Expr{c(32), c(64)}, Span: ns},
				&ir.Region{Buf: a, Min: []ir.Expr{row, c(0)}, Extent: []ir.Expr{c(32), c(64)}, Span: ns}),
				kv("mbar", addr(bar, c(0))), kv("cta_mask", c(3)), kv("cta_group", c(2)), kv("cache_hint", str("evict_last"))), "tma",
				loop(it, 1, ir.Unrolled,
					g2c(flat(as, mul(rank, c(2048))), addr(bar, c(0)), m, c(3), 2, "evict_last", c(0), row))),
			sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(8192))),
		sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(0)),
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(withConfig(tile("thread", "copy_async", &ir.Region{Buf: as, Min: []ir.Expr{row, c(0)}, Extent: []ir.Expr{c(32), c(64)}, Span: ns},
				&ir.Region{Buf: a, Min: []ir.Expr{row, c(0)}, Extent: []ir.Expr{c(32), c(64)}, Span: ns}),
				kv("mbar", addr(bar, c(0))), kv("cta_group", c(1))), "tma",
				loop(it2, 1, ir.Unrolled,
					g2c(flat(as, mul(rank, c(2048))), addr(bar, c(0)), m, c(1), 1, "", c(0), row))),
			sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(4096))),
		sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(1)),
		loop(f, 32, ir.Serial,
			store(b, load(as, div(idx, c(64)), mod(idx, c(64))), rank, div(idx, c(64)), mod(idx, c(64)))),
	)
	k := fn("tma_multicast", []*ir.Param{pa, pb}, body...)
	k.TensorMaps = []*ir.TensorMap{m}
	l := ir.Launch{Grid: [3]int64{2, 1, 1}, Block: [3]int64{128, 1, 1}, Cluster: [3]int64{2, 1, 1}}
	return fixture{name: "tma_multicast", opts: cuda.Options{Arch: "sm_100a"}, kernels: []cuda.Kernel{{Func: k, Launch: l}}}
}

// tmaPrefetch: prefetch_tensormap=True puts a prefetch.tensormap at the
// kernel start (warp 0, one elected lane); the copy is a rank-2 g2s of a
// 64x32 fp16 tile into a 64B-swizzled layout, with an L2 evict_normal
// hint.
func tmaPrefetch() fixture {
	pa, a := paramBuf("A", []int64{64, 32}, f16, rowMajor(64, 32))
	pb, b := paramBuf("B", []int64{64, 32}, f16, rowMajor(64, 32))
	as := allocBuf("A_s", []int64{64, 32}, f16, "shared", mmaShared(16, 2, 64, 32))
	bar := u64Buf("bar")
	m := tensorMap("A_ptr_tensormap", a, f16, []int64{32, 64}, []int64{64}, []int64{32, 64}, 2)
	tid, it := ivar("tid"), ivar("it")
	body := []ir.Stmt{
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		ifThen(bin(ir.And, bin(ir.EQ, tidx("warpid"), c(0)), call(ir.OpElectSync, i32)),
			eval(call(ir.OpPrefetchTensormap, ir.DataType{}, tmAddr(m)))),
		alloc(as), alloc(bar),
	}
	body = append(body, initBarrier(tid, bar)...)
	body = append(body,
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(withConfig(tile("thread", "copy_async", full(as), full(a)), kv("mbar", addr(bar, c(0))),
				kv("prefetch_tensormap", &ir.IntImm{Value: 1, Type: ir.BoolT, Span: ns}), kv("cache_hint", str("evict_normal"))), "tma",
				loop(it, 1, ir.Unrolled,
					g2c(flat(as, c(0)), addr(bar, c(0)), m, c(0), -1, "evict_normal", c(0), c(0)))),
			sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(4096))),
		sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(0)),
		copyOut(b, as, tid, 128, "f"),
	)
	k := fn("tma_prefetch", []*ir.Param{pa, pb}, body...)
	k.TensorMaps = []*ir.TensorMap{m}
	return fixture{name: "tma_prefetch", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 128)}}}
}

// ldgsts: cp.async (LDGSTS) copies into shared memory, 16 bytes per thread
// and step (cp.async.cg) for a 32x64 fp32 tile and 8 bytes per thread
// (cp.async.ca) for a 256-float row, one commit group, wait_group 0, then
// C = A + row.
func ldgsts() fixture {
	pa, a := paramBuf("A", []int64{32, 64}, f32, rowMajor(32, 64))
	pr, r := paramBuf("R", []int64{256}, f32, rowMajor(256))
	pc, cc := paramBuf("C", []int64{32, 64}, f32, rowMajor(32, 64))
	as := allocBuf("A_s", []int64{32, 64}, f32, "shared", rowMajor(32, 64))
	rs := allocBuf("R_s", []int64{256}, f32, "shared", rowMajor(256))
	tid, f, g := ivar("tid"), ivar("f"), ivar("f")
	off := mul(add(mul(f, c(128)), tid), c(4))
	idx := add(mul(g, c(128)), tid)
	k := fn("ldgsts", []*ir.Param{pa, pr, pc},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		alloc(as), alloc(rs),
		lowered(tile("cta", "copy_async", full(as), full(a)), "ldgsts",
			loop(f, 4, ir.Serial,
				eval(call(ir.OpCpAsync, ir.DataType{}, flat(as, off), flat(a, off), c(16))))),
		lowered(tile("cta", "copy_async", full(rs), full(r)), "ldgsts",
			eval(call(ir.OpCpAsync, ir.DataType{}, flat(rs, mul(tid, c(2))), flat(r, mul(tid, c(2))), c(8)))),
		sync(ir.OpCpAsyncCommit),
		sync(ir.OpCpAsyncWait, c(0)),
		sync(ir.OpCTASync),
		loop(g, 16, ir.Serial,
			store(cc, add(load(as, div(idx, c(64)), mod(idx, c(64))), load(rs, mod(idx, c(256)))), div(idx, c(64)), mod(idx, c(64)))),
	)
	return fixture{name: "ldgsts", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 128)}}}
}

// tmaTwoKernels: two TMA kernels in one file share the rank-2 g2c helper,
// the mbarrier helpers and the tensor-map encoder. The second reads a
// bfloat16 parameter buffer at elem_offset 64 (the descriptors' base is
// A_ptr + 128 bytes) through two descriptors of the same buffer that differ
// in L2 promotion, rows 0-7 through one and rows 8-15 through the other,
// so its tensor-map parameters are A_ptr_tensormap and A_ptr_tensormap_1.
func tmaTwoKernels() fixture {
	first := func() cuda.Kernel {
		pa, a := paramBuf("A", []int64{32, 64}, f16, rowMajor(32, 64))
		pb, b := paramBuf("B", []int64{32, 64}, f16, rowMajor(32, 64))
		as := allocBuf("A_s", []int64{32, 64}, f16, "shared", rowMajor(32, 64))
		bar := u64Buf("bar")
		m := tensorMap("A_ptr_tensormap", a, f16, []int64{64, 32}, []int64{128}, []int64{64, 32}, 0)
		tid, it := ivar("tid"), ivar("it")
		body := []ir.Stmt{scopeID(ir.CTAID, []int64{1}), scopeID(ir.ThreadID, []int64{128}, tid), alloc(as), alloc(bar)}
		body = append(body, initBarrier(tid, bar)...)
		body = append(body,
			ifThen(bin(ir.EQ, tid, c(0)),
				lowered(withConfig(tile("thread", "copy_async", full(as), full(a)), kv("mbar", addr(bar, c(0)))), "tma",
					loop(it, 1, ir.Unrolled, g2c(flat(as, c(0)), addr(bar, c(0)), m, c(0), -1, "", c(0), c(0)))),
				sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(4096))),
			sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(0)),
			copyOut(b, as, tid, 128, "f"),
		)
		k := fn("tma_first", []*ir.Param{pa, pb}, body...)
		k.TensorMaps = []*ir.TensorMap{m}
		return cuda.Kernel{Func: k, Launch: launch(1, 128)}
	}
	second := func() cuda.Kernel {
		pa, a := paramBuf("A", []int64{16, 64}, bf16, rowMajor(16, 64))
		a.ElemOffset = 64
		pb, b := paramBuf("B", []int64{16, 64}, bf16, rowMajor(16, 64))
		as := allocBuf("A_s", []int64{16, 64}, bf16, "shared", mmaShared(16, 3, 16, 64))
		bar := u64Buf("bar")
		top := tensorMap("A_ptr_tensormap", a, bf16, []int64{64, 16}, []int64{128}, []int64{64, 8}, 3)
		bottom := tensorMap("A_ptr_tensormap", a, bf16, []int64{64, 16}, []int64{128}, []int64{64, 8}, 3)
		bottom.L2Promotion = 0
		tid, it, it2 := ivar("tid"), ivar("it"), ivar("it")
		body := []ir.Stmt{scopeID(ir.CTAID, []int64{1}), scopeID(ir.ThreadID, []int64{128}, tid), alloc(as), alloc(bar)}
		body = append(body, initBarrier(tid, bar)...)
		body = append(body,
			ifThen(bin(ir.EQ, tid, c(0)),
				lowered(withConfig(tile("thread", "copy_async", full(as), full(a)), kv("mbar", addr(bar, c(0)))), "tma",
					loop(it, 1, ir.Unrolled, g2c(flat(as, c(0)), addr(bar, c(0)), top, c(0), -1, "", c(0), c(0))),
					loop(it2, 1, ir.Unrolled, g2c(flat(as, c(512)), addr(bar, c(0)), bottom, c(0), -1, "", c(0), c(8)))),
				sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(2048))),
			sync(ir.OpMbarrierTryWait, addr(bar, c(0)), c(0)),
			copyOut(b, as, tid, 128, "f"),
		)
		k := fn("tma_second", []*ir.Param{pa, pb}, body...)
		k.TensorMaps = []*ir.TensorMap{top, bottom}
		return cuda.Kernel{Func: k, Launch: launch(1, 128)}
	}
	return fixture{name: "tma_two_kernels", kernels: []cuda.Kernel{first(), second()}}
}
