package codegen_test

import (
	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Hand-built lowered kernels, one per golden file. Each models the
// "-- kernel.py --" section of its txtar file after dispatch, in the shape
// spec §4 gives for the chosen variant.

type fixture struct {
	name    string
	opts    cuda.Options
	kernels []cuda.Kernel
}

var ns = source.NoSpan

var (
	f32  = ir.Float32
	f16  = ir.Float16
	bf16 = ir.BF16
	i32  = ir.Int32
	u8   = ir.DataType{Code: ir.UInt, Bits: 8}
	u64  = ir.DataType{Code: ir.UInt, Bits: 64}
	e4m3 = ir.DataType{Code: ir.Float8E4M3, Bits: 8}
)

func launch(grid, threads int64) ir.Launch {
	return ir.Launch{Grid: [3]int64{grid, 1, 1}, Block: [3]int64{threads, 1, 1}, Cluster: [3]int64{1, 1, 1}}
}

func ivar(name string) *ir.Var { return &ir.Var{Name: name, Type: i32, Span: ns} }

func c(v int64) ir.Expr { return ir.Const(v) }

func fimm(v float64, t ir.DataType) ir.Expr { return &ir.FloatImm{Value: v, Type: t, Span: ns} }

func str(s string) ir.Expr { return &ir.StringImm{Value: s, Span: ns} }

func add(a, b ir.Expr) ir.Expr { return ir.AddE(a, b) }
func mul(a, b ir.Expr) ir.Expr { return ir.MulE(a, b) }
func div(a, b ir.Expr) ir.Expr { return ir.DivE(a, b) }
func mod(a, b ir.Expr) ir.Expr { return ir.ModE(a, b) }
func bin(op ir.BinOp, a, b ir.Expr) ir.Expr {
	return ir.Bin(op, a, b)
}

func tidx(axis string) ir.Expr { return &ir.ThreadIndex{Axis: axis, Span: ns} }

func rowMajor(shape ...int64) layout.Layout { return layout.RowMajor(shape...) }

func mustCompose(p, sw, at int, tile *layout.TileLayout) layout.Layout {
	l, err := layout.NewCompose(p, sw, at, true, tile)
	if err != nil {
		panic(err)
	}
	return l
}

// paramBuf is T.match_buffer(<name>_ptr, shape, dtype, layout=l).
func paramBuf(name string, shape []int64, dt ir.DataType, l layout.Layout) (*ir.Param, *ir.Buffer) {
	h := &ir.Var{Name: name + "_ptr", Type: ir.HandleT, Span: ns}
	b := &ir.Buffer{Name: name, Data: h, Shape: shape, Dtype: dt, Scope: "global", Layout: l, Kind: ir.ParamBuffer, Span: ns}
	return &ir.Param{Var: h, Buf: b, Span: ns}, b
}

func allocBuf(name string, shape []int64, dt ir.DataType, scope string, l layout.Layout) *ir.Buffer {
	return &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: scope, Layout: l, Kind: ir.AllocBuffer, Span: ns}
}

func declBuf(name string, shape []int64, dt ir.DataType, scope string, l layout.Layout, base *ir.Buffer, off int64) *ir.Buffer {
	return &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: scope, Layout: l, Kind: ir.DeclBuffer, Base: base, ElemOffset: off, Span: ns}
}

func alloc(b *ir.Buffer) ir.Stmt { return &ir.Alloc{Buf: b, Span: ns} }
func decl(b *ir.Buffer) ir.Stmt  { return &ir.Decl{Buf: b, Span: ns} }

func scopeID(kind ir.ScopeIDKind, ext []int64, vars ...*ir.Var) ir.Stmt {
	return &ir.ScopeID{Kind: kind, Vars: vars, Extents: ext, Span: ns}
}

func blk(ss ...ir.Stmt) *ir.Block { return &ir.Block{Stmts: ss, Span: ns} }

func loop(v *ir.Var, ext int64, kind ir.ForKind, body ...ir.Stmt) ir.Stmt {
	return &ir.For{Var: v, Extent: c(ext), Kind: kind, Body: blk(body...), Span: ns}
}

func ifThen(cond ir.Expr, then ...ir.Stmt) ir.Stmt {
	return &ir.If{Cond: cond, Then: blk(then...), Span: ns}
}

func load(b *ir.Buffer, idx ...ir.Expr) ir.Expr { return &ir.Load{Buf: b, Indices: idx, Span: ns} }

func store(b *ir.Buffer, v ir.Expr, idx ...ir.Expr) ir.Stmt {
	return &ir.Store{Buf: b, Indices: idx, Value: v, Span: ns}
}

func call(op string, t ir.DataType, args ...ir.Expr) *ir.Call {
	return &ir.Call{Op: op, Args: args, Type: t, Span: ns}
}

func eval(e ir.Expr) ir.Stmt { return &ir.Evaluate{X: e, Span: ns} }

func let(v *ir.Var, e ir.Expr) ir.Stmt { return &ir.Let{Var: v, Value: e, Span: ns} }

// flat is T.address_of(buf[off]) on the flattened storage.
func flat(b *ir.Buffer, off ir.Expr) ir.Expr {
	return &ir.AddressOf{Buf: b, Indices: []ir.Expr{off}, FlatIndex: true, Span: ns}
}

func addr(b *ir.Buffer, idx ...ir.Expr) ir.Expr {
	return &ir.AddressOf{Buf: b, Indices: idx, Span: ns}
}

func ptrOff(ptr, off ir.Expr) ir.Expr { return call(ir.OpPointerOffset, ir.HandleT, ptr, off) }

func copyBytes(dst, src ir.Expr, n int64) ir.Stmt {
	return eval(call(ir.OpCopyBytes, ir.DataType{}, dst, src, c(n)))
}

func sync(op string, args ...ir.Expr) ir.Stmt { return eval(call(op, ir.DataType{}, args...)) }

// full is the whole-buffer region b[0:n0, 0:n1, ...].
func full(b *ir.Buffer) ir.Expr {
	r := &ir.Region{Buf: b, Span: ns}
	for _, e := range b.Shape {
		r.Min = append(r.Min, c(0))
		r.Extent = append(r.Extent, c(e))
	}
	return r
}

func tile(scope, op string, args ...ir.Expr) *ir.TileCall {
	return &ir.TileCall{Op: op, Scope: scope, Args: args, Span: ns, OpSpan: ns}
}

func lowered(tc *ir.TileCall, variant string, body ...ir.Stmt) ir.Stmt {
	return &ir.Lowered{Call: tc, Variant: variant, Body: blk(body...), Span: ns}
}

func fn(name string, params []*ir.Param, body ...ir.Stmt) *ir.Func {
	return &ir.Func{Name: name, Params: params, Host: blk(), Body: blk(body...), Span: ns, NameSpan: ns}
}

// vecCopy is the seed gmem_smem / reg emit (spec §4.1 step 5): total
// iterations of one n-byte copy at per-thread offsets.
func vecCopy(dst, src *ir.Buffer, total int64, dstOff, srcOff func(f ir.Expr) ir.Expr, n int64) ir.Stmt {
	f := ivar("f")
	return loop(f, total, ir.Serial,
		copyBytes(ptrOff(flat(dst, c(0)), dstOff(f)), ptrOff(flat(src, c(0)), srcOff(f)), n))
}

func fixtures() []fixture {
	return append([]fixture{
		gmemSmemRoundTrip(),
		fallbackElection(),
		regCopy(),
		ewiseSqrt(),
		mbarrierOps(),
		ldmatrixOps(),
		halfTypes(),
		sharedDyn(),
		packedF32x2(),
		packedF32x2Scalar(),
		clusterIDs(),
	}, tmaFixtures()...)
}

// gmemSmemRoundTrip: warp, 32x32 fp32, 8 iterations of 16-byte copies each
// way (spec §4.1 worked example).
func gmemSmemRoundTrip() fixture {
	pa, a := paramBuf("A", []int64{32, 32}, f32, rowMajor(32, 32))
	pb, b := paramBuf("B", []int64{32, 32}, f32, rowMajor(32, 32))
	smem := allocBuf("A_smem", []int64{32, 32}, f32, "shared", rowMajor(32, 32))
	off := func(f ir.Expr) ir.Expr { return add(mul(f, c(128)), mul(tidx("laneid"), c(4))) }
	in := tile("warp", "copy", full(smem), full(a))
	out := tile("warp", "copy", full(b), full(smem))
	k := fn("gmem_smem_roundtrip", []*ir.Param{pa, pb},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.LaneID, []int64{32}),
		scopeID(ir.ThreadID, []int64{32}),
		alloc(smem),
		lowered(in, "gmem_smem", vecCopy(smem, a, 8, off, off, 16)),
		sync(ir.OpCTASync),
		lowered(out, "gmem_smem", vecCopy(b, smem, 8, off, off, 16)),
	)
	return fixture{name: "gmem_smem_roundtrip", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 32)}}}
}

// fallbackElection: the §4.2 fallback for a 4x6 fp32 copy, once at warp
// scope in a 32-thread CTA (lane 0 is threadIdx.x == 0) and once at cta
// scope in a 256-thread CTA.
func fallbackElection() fixture {
	mk := func(name, scope string, threads int64, elect ir.Expr) cuda.Kernel {
		pa, a := paramBuf("A", []int64{4, 6}, f32, rowMajor(4, 6))
		smem := allocBuf("A_smem", []int64{4, 6}, f32, "shared", rowMajor(4, 6))
		v3, v4 := ivar("v_3"), ivar("v_4")
		tc := tile(scope, "copy", full(smem), full(a))
		k := fn(name, []*ir.Param{pa},
			scopeID(ir.CTAID, []int64{1}),
			scopeID(ir.ThreadID, []int64{threads}),
			alloc(smem),
			lowered(tc, "fallback",
				ifThen(bin(ir.EQ, elect, c(0)),
					loop(v3, 4, ir.Serial, loop(v4, 6, ir.Serial,
						store(smem, load(a, v3, v4), v3, v4))))),
			sync(ir.OpCTASync),
		)
		return cuda.Kernel{Func: k, Launch: launch(1, threads)}
	}
	return fixture{name: "fallback_election", kernels: []cuda.Kernel{
		mk("fallback_warp", "warp", 32, tidx("laneid")),
		mk("fallback_cta", "cta", 256, tidx("tx")),
	}}
}

// regCopy: warp, 32x8 fp32 through a register file laid out
// S[(32,8):(1@laneid,1)] (8 registers per lane, spec §4.3 worked example):
// global -> registers, then registers -> global, two 16-byte copies each.
func regCopy() fixture {
	pa, a := paramBuf("A", []int64{32, 8}, f32, rowMajor(32, 8))
	pb, b := paramBuf("B", []int64{32, 8}, f32, rowMajor(32, 8))
	rl, err := layout.ShardSpec([]int64{32, 8}, []layout.Stride{{Value: 1, Axis: layout.Laneid}, {Value: 1}})
	if err != nil {
		panic(err)
	}
	r := allocBuf("R", []int64{32, 8}, f32, "local", rl.Layout())
	lane := ivar("lane")
	gOff := func(f ir.Expr) ir.Expr { return add(mul(lane, c(8)), mul(f, c(4))) }
	rOff := func(f ir.Expr) ir.Expr { return mul(f, c(4)) }
	view := func() *ir.Buffer { return declBuf("R_local", []int64{8}, f32, "local", rowMajor(8), r, 0) }
	v1, v2 := view(), view()
	k := fn("reg_copy", []*ir.Param{pa, pb},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.LaneID, []int64{32}, lane),
		alloc(r),
		lowered(tile("warp", "copy", full(r), full(a)), "reg",
			decl(v1), vecCopy(v1, a, 2, rOff, gOff, 16)),
		lowered(tile("warp", "copy", full(b), full(r)), "reg",
			decl(v2), vecCopy(b, v2, 2, gOff, rOff, 16)),
	)
	return fixture{name: "reg_copy", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 32)}}}
}

// ewiseSqrt: cta 256 threads, in-place sqrt of a 32x32 fp32 shared tile
// (spec §4.4 worked example: vec 4, n_outer 1, trailing cta_sync), with
// gmem_smem copies around it.
func ewiseSqrt() fixture {
	pa, a := paramBuf("A", []int64{32, 32}, f32, rowMajor(32, 32))
	smem := allocBuf("A_smem", []int64{32, 32}, f32, "shared", rowMajor(32, 32))
	tid := ivar("tid")
	off := func(f ir.Expr) ir.Expr { return add(mul(f, c(1024)), mul(tidx("tx"), c(4))) }
	s, v, fused := ivar("s"), ivar("v"), ivar("fused")
	at := func() []ir.Expr { return []ir.Expr{div(fused, c(32)), mod(fused, c(32))} }
	k := fn("ewise_sqrt", []*ir.Param{pa},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{256}, tid),
		alloc(smem),
		lowered(tile("cta", "copy", full(smem), full(a)), "gmem_smem", vecCopy(smem, a, 1, off, off, 16)),
		sync(ir.OpCTASync),
		lowered(tile("cta", "sqrt", full(smem), full(smem), nil, nil), "smem",
			loop(s, 1, ir.Serial,
				loop(v, 4, ir.Vectorized,
					let(fused, add(add(mul(s, c(1024)), mul(tid, c(4))), v)),
					ifThen(bin(ir.LT, fused, c(1024)),
						store(smem, call(ir.OpSqrt, f32, load(smem, at()...)), at()...)))),
			sync(ir.OpCTASync)),
		lowered(tile("cta", "copy", full(a), full(smem)), "gmem_smem", vecCopy(a, smem, 1, off, off, 16)),
	)
	return fixture{name: "ewise_sqrt", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 256)}}}
}

// mbarrierOps: one warpgroup-sized CTA that initialises an mbarrier,
// fences, elects a lane to arrive with an expected byte count, waits with a
// flipping phase, and uses the remaining sync intrinsics.
func mbarrierOps() fixture {
	pa, a := paramBuf("A", []int64{128}, f32, rowMajor(128))
	bar := allocBuf("bar", []int64{1}, u64, "shared", rowMajor(1))
	tid, warp, phase, it := ivar("tid"), ivar("warp"), ivar("phase"), ivar("it")
	k := fn("mbarrier_ops", []*ir.Param{pa},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		scopeID(ir.WarpID, []int64{4}, warp),
		alloc(bar),
		ifThen(bin(ir.EQ, tid, c(0)),
			sync(ir.OpMbarrierInit, addr(bar, c(0)), c(2)),
			sync(ir.OpFenceProxyAsync, str("shared::cta")),
			sync(ir.OpFenceMbarrierInit)),
		sync(ir.OpCTASync),
		&ir.Let{Var: phase, Value: c(0), Mutable: true, Span: ns},
		loop(it, 2, ir.Serial,
			ifThen(bin(ir.And, bin(ir.EQ, warp, c(0)), call(ir.OpElectSync, i32)),
				sync(ir.OpMbarrierArriveExpect, addr(bar, c(0)), c(0)),
				sync(ir.OpMbarrierArrive, addr(bar, c(0)))),
			sync(ir.OpMbarrierTryWait, addr(bar, c(0)), phase),
			&ir.Assign{Var: phase, Value: bin(ir.BitXor, phase, c(1)), Span: ns},
			sync(ir.OpCTASync)), // no warp may run a phase ahead of a waiter
		sync(ir.OpCpAsyncBulkCommit),
		sync(ir.OpCpAsyncBulkWait, c(0)),
		sync(ir.OpWarpgroupSync, c(8)),
		sync(ir.OpWarpSync),
		store(a, &ir.Cast{To: f32, X: warp, Span: ns}, tid),
	)
	return fixture{name: "mbarrier_ops", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 128)}}}
}

// ldmatrixOps: warp, a 16x16 fp16 tile loaded from shared memory into
// registers with ldmatrix (x4, x2.trans, x1) and stored back with stmatrix.
func ldmatrixOps() fixture {
	pa, a := paramBuf("A", []int64{16, 16}, f16, rowMajor(16, 16))
	pb, b := paramBuf("B", []int64{16, 16}, f16, rowMajor(16, 16))
	smem := allocBuf("A_smem", []int64{16, 16}, f16, "shared", rowMajor(16, 16))
	regs := allocBuf("frag", []int64{8}, f16, "local", rowMajor(8))
	lane := ivar("lane")
	off := func(f ir.Expr) ir.Expr { return mul(tidx("laneid"), c(8)) }
	row := add(mul(mod(lane, c(16)), c(16)), mul(div(lane, c(16)), c(8)))
	ld := func(num, trans int64, reg int64) ir.Stmt {
		return eval(call(ir.OpLdmatrix, ir.DataType{}, c(num), c(trans), flat(smem, row), flat(regs, c(reg))))
	}
	k := fn("ldmatrix_ops", []*ir.Param{pa, pb},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.LaneID, []int64{32}, lane),
		alloc(smem),
		alloc(regs),
		lowered(tile("warp", "copy", full(smem), full(a)), "gmem_smem", vecCopy(smem, a, 1, off, off, 16)),
		sync(ir.OpWarpSync),
		ld(4, 0, 0),
		ld(2, 1, 0),
		ld(1, 0, 6),
		eval(call(ir.OpStmatrix, ir.DataType{}, c(4), c(1), flat(smem, row), flat(regs, c(0)))),
		sync(ir.OpWarpSync),
		lowered(tile("warp", "copy", full(b), full(smem)), "gmem_smem", vecCopy(b, smem, 1, off, off, 16)),
	)
	return fixture{name: "ldmatrix", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 32)}}}
}

// halfTypes: thread-scope elementwise code over float16, bfloat16 and fp8
// registers: cast_vec2 f32->f16, a bf16 cast through float, bf16 exp2, a
// half max/select with half constants, an fp8 store, 16-byte copies.
func halfTypes() fixture {
	pa, a := paramBuf("A", []int64{8}, f32, rowMajor(8))
	pb, b := paramBuf("B", []int64{8}, f16, rowMajor(8))
	pc, cc := paramBuf("C", []int64{8}, bf16, rowMajor(8))
	pd, d := paramBuf("D", []int64{8}, e4m3, rowMajor(8))
	x := allocBuf("x", []int64{8}, f32, "local", rowMajor(8))
	h := allocBuf("h", []int64{8}, f16, "local", rowMajor(8))
	bb := allocBuf("bb", []int64{8}, bf16, "local", rowMajor(8))
	tid, i, j, k2, u := ivar("tid"), ivar("i"), ivar("i"), ivar("i"), ivar("i")
	one := func(f ir.Expr) ir.Expr { return mul(f, c(4)) }
	k := fn("half_types", []*ir.Param{pa, pb, pc, pd},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{64}, tid),
		alloc(x), alloc(h), alloc(bb),
		ifThen(bin(ir.EQ, tid, c(0)),
			lowered(tile("thread", "copy", full(x), full(a)), "reg", vecCopy(x, a, 2, one, one, 16)),
			lowered(tile("thread", "cast", full(h), full(x)), "reg",
				loop(i, 4, ir.Serial,
					eval(call(ir.OpCastVec2, ir.DataType{}, flat(h, mul(i, c(2))), flat(x, mul(i, c(2))), str("float32"), str("float16"))))),
			lowered(tile("thread", "cast", full(bb), full(h)), "reg",
				loop(j, 8, ir.Serial,
					store(bb, &ir.Cast{To: bf16, X: load(h, j), Span: ns}, j))),
			lowered(tile("thread", "exp2", full(bb), full(bb), nil, nil), "reg",
				loop(k2, 8, ir.Serial,
					store(bb, &ir.Cast{To: bf16, X: call(ir.OpExp2, bf16, load(bb, k2)), Span: ns}, k2))),
			loop(u, 8, ir.Unrolled, store(h, bin(ir.Mul, load(h, u), fimm(2, f16)), u)),
			store(h, &ir.Select{
				Cond: bin(ir.GT, load(h, c(0)), fimm(0, f16)),
				A:    bin(ir.Max, load(h, c(0)), fimm(1.5, f16)),
				B:    bin(ir.Mul, load(h, c(0)), fimm(-0.5, f16)),
				Span: ns,
			}, c(0)),
			store(d, &ir.Cast{To: e4m3, X: load(x, c(7)), Span: ns}, c(7)),
			copyBytes(flat(b, c(0)), flat(h, c(0)), 16),
			copyBytes(flat(cc, c(0)), flat(bb, c(0)), 16)),
	)
	return fixture{name: "half_types", kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 64)}}}
}

// sharedDyn: one dynamic shared memory arena (uint8) with two typed views:
// a 128B-swizzled fp16 32x64 tile (Compose(3,3,3)) and a row-major fp32
// 32x32 tile behind it; a fallback copy writes through the swizzle formula.
func sharedDyn() fixture {
	pa, a := paramBuf("A", []int64{32, 64}, f16, rowMajor(32, 64))
	pb, b := paramBuf("B", []int64{32, 32}, f32, rowMajor(32, 32))
	arena := allocBuf("buf", []int64{8192}, u8, "shared.dyn", rowMajor(8192))
	sw := declBuf("A_s", []int64{32, 64}, f16, "shared.dyn", mustCompose(3, 3, 3, layout.RowMajor(32, 64)), arena, 0)
	fs := declBuf("B_s", []int64{32, 32}, f32, "shared.dyn", rowMajor(32, 32), arena, 1024)
	tid, i, j := ivar("tid"), ivar("i"), ivar("j")
	k := fn("shared_dyn", []*ir.Param{pa, pb},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{128}, tid),
		alloc(arena),
		decl(sw),
		decl(fs),
		lowered(tile("cta", "copy", full(sw), full(a)), "fallback",
			ifThen(bin(ir.EQ, tidx("tx"), c(0)),
				loop(i, 32, ir.Serial, loop(j, 64, ir.Serial,
					store(sw, load(a, i, j), i, j))))),
		sync(ir.OpCTASync),
		store(fs, &ir.Cast{To: f32, X: load(sw, div(tid, c(4)), mul(mod(tid, c(4)), c(16))), Span: ns}, div(tid, c(4)), mod(tid, c(32))),
		sync(ir.OpCTASync),
		store(b, load(fs, div(tid, c(4)), mod(tid, c(32))), div(tid, c(4)), mod(tid, c(32))),
	)
	l := launch(1, 128)
	l.DynamicSmem = 8192
	return fixture{name: "shared_dyn", kernels: []cuda.Kernel{{Func: k, Launch: l}}}
}

// packedF32x2: sm_100a packed f32x2 add and fma over per-thread registers
// (spec §6.4 rows 77 and 80).
func packedF32x2() fixture {
	pa, a := paramBuf("A", []int64{32}, f32, rowMajor(32))
	x := allocBuf("x", []int64{32}, f32, "local", rowMajor(32))
	y := allocBuf("y", []int64{32}, f32, "local", rowMajor(32))
	f, g := ivar("f"), ivar("f")
	four := func(f ir.Expr) ir.Expr { return mul(f, c(4)) }
	k := fn("packed_f32x2", []*ir.Param{pa},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{1}),
		alloc(x), alloc(y),
		lowered(tile("thread", "copy", full(x), full(a)), "reg", vecCopy(x, a, 8, four, four, 16)),
		lowered(tile("thread", "add", full(y), full(x), full(x)), "reg",
			loop(f, 16, ir.Serial,
				eval(call(ir.OpPackedF32x2, ir.DataType{}, str("add"), str("rz"),
					flat(y, mul(f, c(2))), flat(x, mul(f, c(2))), flat(x, mul(f, c(2))))))),
		lowered(tile("thread", "fma", full(y), full(y), full(x), full(x)), "reg",
			loop(g, 16, ir.Serial,
				eval(call(ir.OpPackedF32x2, ir.DataType{}, str("fma"), str("rz"),
					flat(y, mul(g, c(2))), flat(y, mul(g, c(2))), flat(x, mul(g, c(2))), flat(x, mul(g, c(2))))))),
		lowered(tile("thread", "copy", full(a), full(y)), "reg", vecCopy(a, y, 8, four, four, 16)),
	)
	return fixture{name: "packed_f32x2", opts: cuda.Options{Arch: "sm_100a"},
		kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 1)}}}
}

// packedF32x2Scalar: packed f32x2 ops with a scalar operand, used for both
// lanes (a mul by a constant and an fma with a constant addend): the helper
// takes that operand as a float (found by the reference-agreement corpus,
// testdata/agreement/v_ewise_reg_packed_sm100.py: it used to pass the
// scalar where the helper wanted a pointer, which nvcc rejects).
func packedF32x2Scalar() fixture {
	pa, a := paramBuf("A", []int64{32}, f32, rowMajor(32))
	x := allocBuf("x", []int64{32}, f32, "local", rowMajor(32))
	f, g := ivar("f"), ivar("f")
	four := func(f ir.Expr) ir.Expr { return mul(f, c(4)) }
	k := fn("packed_f32x2_scalar", []*ir.Param{pa},
		scopeID(ir.CTAID, []int64{1}),
		scopeID(ir.ThreadID, []int64{1}),
		alloc(x),
		lowered(tile("thread", "copy", full(x), full(a)), "reg", vecCopy(x, a, 8, four, four, 16)),
		lowered(tile("thread", "mul", full(x), full(x), fimm(2, f32)), "reg",
			loop(f, 16, ir.Serial,
				eval(call(ir.OpPackedF32x2, ir.DataType{}, str("mul"), str("rz"),
					flat(x, mul(f, c(2))), flat(x, mul(f, c(2))), fimm(2, f32))))),
		lowered(tile("thread", "fma", full(x), full(x), full(x), fimm(0.5, f32)), "reg",
			loop(g, 16, ir.Serial,
				eval(call(ir.OpPackedF32x2, ir.DataType{}, str("fma"), str("rz"),
					flat(x, mul(g, c(2))), flat(x, mul(g, c(2))), flat(x, mul(g, c(2))), fimm(0.5, f32))))),
		lowered(tile("thread", "copy", full(a), full(x)), "reg", vecCopy(a, x, 8, four, four, 16)),
	)
	return fixture{name: "packed_f32x2_scalar", opts: cuda.Options{Arch: "sm_100a"},
		kernels: []cuda.Kernel{{Func: k, Launch: launch(1, 1)}}}
}

// clusterIDs: a 2-CTA cluster with a two-dimensional 32x4 thread block:
// cluster special registers, a linear thread index over threadIdx.x/y, and
// warp-derived ids through warp_id_in_cta.
func clusterIDs() fixture {
	pa, a := paramBuf("A", []int64{2, 128}, i32, rowMajor(2, 128))
	cid, rank, tx, ty, lane, wg, wid := ivar("cid"), ivar("rank"), ivar("tx"), ivar("ty"), ivar("lane"), ivar("wg"), ivar("wid")
	linear := add(mul(ty, c(32)), tx)
	k := fn("cluster_ids", []*ir.Param{pa},
		scopeID(ir.ClusterID, []int64{1}, cid),
		scopeID(ir.CTAIDInCluster, []int64{2}, rank),
		scopeID(ir.ThreadID, []int64{32, 4}, tx, ty),
		scopeID(ir.LaneID, []int64{32}, lane),
		scopeID(ir.WarpgroupID, []int64{1}, wg),
		scopeID(ir.WarpIDInWG, []int64{4}, wid),
		store(a, add(add(mul(cid, c(1000)), mul(wid, c(100))), add(lane, mul(wg, c(10000)))), rank, linear),
		ifThen(bin(ir.EQ, tidx("tid_in_wg"), c(0)),
			store(a, add(tidx("cbx"), tidx("wid_in_wg")), rank, c(0))),
	)
	l := ir.Launch{Grid: [3]int64{2, 1, 1}, Block: [3]int64{32, 4, 1}, Cluster: [3]int64{2, 1, 1}}
	return fixture{name: "cluster_ids", kernels: []cuda.Kernel{{Func: k, Launch: l}}}
}
