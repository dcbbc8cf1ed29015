package cuda

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/ir"
)

// Tests of the copy_async variants other than tma: the ldgsts table (the
// kernels of TVM test_ldgsts.py plus scopes, widths, swizzles, odd sizes
// and declines of our own), every lowered ldgsts copy run through the
// simulator, the try order against tma, and the exact decline messages of
// dsmem, smem->tmem and tmem<->local and the plans of the calls they
// lower (TVM test_dsmem.py's bulk copy counts).

// copyAsyncCall appends Tx.<scope>.copy_async(dst, src[, dispatch=...]).
func (k *kb) copyAsyncCall(scope string, dst, src *ir.Region, dispatch string, cfg ...ir.KV) *ir.TileCall {
	tc := k.copyCall(scope, dst, src, dispatch, cfg...)
	tc.Op = "copy_async"
	return tc
}

// cfgKV is one config entry (mbar=..., remote_cta_id=...).
func cfgKV(key string, v ir.Expr) ir.KV { return ir.KV{Key: key, Value: v} }

// knownBadAsync lists copy_async cases expected to fail, with the reason.
var knownBadAsync = map[string]string{}

func TestCopyAsyncTable(t *testing.T) {
	cases := copyAsyncCases(t)
	rows := make([]tableRow, len(cases))
	for i, c := range cases {
		rows[i] = tableRow{c.row, c.name}
	}
	checkTable(t, "copy_async table", rows, func(i int) []string { return runCase(t, cases[i]) }, knownBadAsync)
}

// TestCopyAsyncSemantics runs every lowered ldgsts copy of the table through
// the simulator: every element arrives, every cp.async is 4, 8 or 16 bytes,
// global to shared, and naturally aligned.
func TestCopyAsyncSemantics(t *testing.T) {
	checked := 0
	for _, c := range copyAsyncCases(t) {
		k := newKernel(t)
		c.build(k)
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		for i, d := range out.Decisions {
			if d.Result == nil || d.Variant != "ldgsts" {
				continue
			}
			if err := simulate(d, out.Launch.Block[0], nil); err != nil {
				t.Errorf("%s call %d: %v", c.name, i, err)
			}
			if s := blockText(d.Result.Body); !strings.Contains(s, ir.OpCpAsync+"(") || strings.Contains(s, ir.OpCopyBytes) {
				t.Errorf("%s call %d: want cp.async only:\n%s", c.name, i, s)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("simulated only %d ldgsts copies", checked)
	}
	t.Logf("simulated %d lowered ldgsts copies", checked)
}

// ldgstsG2S: Tx.<scope>.copy_async(smem, A[region]) of a kernel with the
// given header; slay, when set, is the shared layout spec.
func ldgstsG2S(row int, name, scope string, threads int64, dtype string, gshape []int64, greg [][2]int64,
	sshape []int64, slay string, w want) copyCase {
	return copyCase{row, name, func(k *kb) {
		k.kernelFor(scope, threads)
		a := k.buf("A", "global", dtype, "", gshape...)
		s := k.buf("A_smem", "shared", dtype, slay, sshape...)
		k.copyAsyncCall(scope, full(s), sub(a, greg...), "")
	}, w}
}

// ldgstsWant is a selected ldgsts with vec elements per cp.async and outer
// rounds.
func ldgstsWant(dtype string, vec, outer int64) want {
	return want{variant: "ldgsts", vec: vec, outer: outer, bytes: vec * elemBits(dtype) / 8, body: ir.OpCpAsync + "("}
}

func elemBits(dtype string) int64 {
	dt, ok := ir.ParseDType(dtype)
	if !ok {
		panic("bad dtype " + dtype)
	}
	return int64(dt.Bits)
}

func copyAsyncCases(t *testing.T) []copyCase {
	var cs []copyCase
	add := func(c ...copyCase) { cs = append(cs, c...) }
	f16, f32, u8 := "float16", "float32", "uint8"

	// Rows 1–3: test_ldgsts.py test_copy_g2s_s2g_cta_vec_load, a CTA of 32
	// threads, dispatch="ldgsts", every dtype of the test (its trailing
	// Tx.copy back to global is gmem_smem's and left out). The widths and
	// rounds are gmem_smem's (copy table rows 10, 12, 14): cp.async takes
	// the same 16-byte transfers.
	type task struct {
		gshape, sshape []int64
		greg           [][2]int64
		outer8         int64 // rounds of 8-bit elements (16 per cp.async)
	}
	tasks := []task{
		{[]int64{128, 32}, []int64{128, 32}, [][2]int64{{0, 128}, {0, 32}}, 8},
		{[]int64{64, 64}, []int64{32, 32}, [][2]int64{{32, 64}, {0, 32}}, 2},
		{[]int64{4, 32, 32}, []int64{32, 32}, [][2]int64{{0, 1}, {0, 32}, {0, 32}}, 2},
	}
	for ti, tk := range tasks {
		for _, dt := range []string{"int8", "float8_e4m3fn", "float8_e5m2", f16, "bfloat16", f32} {
			vec := 128 / elemBits(dt)
			w := ldgstsWant(dt, vec, tk.outer8*16/vec)
			add(copyCase{ti + 1, fmt.Sprintf("row%d/test_ldgsts-task%d/%s", ti+1, ti, dt), func(k *kb) {
				k.ctaKernel(32)
				a := k.buf("A", "global", dt, "", tk.gshape...)
				s := k.buf("A_smem", "shared", dt, "", tk.sshape...)
				k.copyAsyncCall("cta", full(s), sub(a, tk.greg...), "ldgsts")
			}, w})
		}
	}

	// Row 4: each exec scope, 128-bit transfers.
	add(ldgstsG2S(4, "row4/thread-32x32/float32", "thread", 32, f32, []int64{32, 32}, [][2]int64{{0, 32}, {0, 32}}, []int64{32, 32}, "", ldgstsWant(f32, 4, 256)))
	add(ldgstsG2S(4, "row4/warp-32x32/float16", "warp", 32, f16, []int64{32, 32}, [][2]int64{{0, 32}, {0, 32}}, []int64{32, 32}, "", ldgstsWant(f16, 8, 4)))
	add(ldgstsG2S(4, "row4/warpgroup-128x32/float16", "warpgroup", 128, f16, []int64{128, 32}, [][2]int64{{0, 128}, {0, 32}}, []int64{128, 32}, "", ldgstsWant(f16, 8, 4)))
	add(ldgstsG2S(4, "row4/cta-256-256x32/float16", "cta", 256, f16, []int64{256, 32}, [][2]int64{{0, 256}, {0, 32}}, []int64{256, 32}, "", ldgstsWant(f16, 8, 4)))
	add(ldgstsG2S(4, "row4/cta-128-64x64/float16-partition", "cta", 128, f16, []int64{64, 64}, [][2]int64{{0, 64}, {0, 64}}, []int64{64, 64}, "",
		want{variant: "ldgsts", vec: 8, outer: 4, bytes: 16, partition: "S[(4,128,8):(1024,8,1)]", body: "for f in range(4)"}))

	// Row 5: each element width at warp scope, always 16 bytes.
	for _, v := range []vob{{u8, 16, 2}, {"int8", 16, 2}, {f16, 8, 4}, {"bfloat16", 8, 4}, {f32, 4, 8}, {"int32", 4, 8}, {"float64", 2, 16}} {
		add(ldgstsG2S(5, "row5/warp-32x32/"+v.dtype, "warp", 32, v.dtype, []int64{32, 32}, [][2]int64{{0, 32}, {0, 32}}, []int64{32, 32}, "", ldgstsWant(v.dtype, v.vec, v.outer)))
	}

	// Row 6: swizzled shared layouts. The §4.1.1 fast path (3 signed
	// strides, as copy table row 24), and the swizzle chunk capping 8-bit
	// elements at 8 bytes (copy table row 17, Compose(3,3,3) tiled to
	// 32x256 under a 96x512 global region).
	add(copyCase{6, "row6/swizzle-fast-path-warp-32x64/float16", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", f16, "", 32, 64)
		s := withLayout(k.buf("A_smem", "shared", f16, "", 32, 64), mustCompose(t, 3, 3, 3, "S[32,64]"))
		k.copyAsyncCall("warp", full(s), full(a), "")
	}, want{variant: "ldgsts", vec: 8, outer: 8, bytes: 16, body: "& 1) * signed_strides[", extra: signedStrides(3)}})
	add(copyCase{6, "row6/swizzle-full-formula-wg-128x32/float16", func(k *kb) {
		k.wgKernel()
		a := k.buf("A", "global", f16, "", 128, 32)
		s := withLayout(k.buf("A_smem", "shared", f16, "", 128, 32), mustCompose(t, 3, 3, 3, "S[128,32]"))
		k.copyAsyncCall("warpgroup", full(s), full(a), "")
	}, want{variant: "ldgsts", vec: 8, outer: 4, bytes: 16, body: "^"}})
	for _, v := range []vob{{"int8", 8, 32}, {f16, 8, 32}, {f32, 4, 64}} {
		v := v
		add(copyCase{6, "row6/swizzle-chunk-cta-32/" + v.dtype, func(k *kb) {
			k.ctaKernel(32)
			a := k.buf("A", "global", v.dtype, "", 96, 512)
			s := withLayout(k.buf("A_smem", "shared", v.dtype, "", 32, 256), swz4(t))
			k.copyAsyncCall("cta", full(s), sub(a, [2]int64{16, 48}, [2]int64{256, 512}), "")
		}, ldgstsWant(v.dtype, v.vec, v.outer)})
	}

	// Row 7: sizes and strides that leave only 8- or 4-byte cp.async.
	add(ldgstsG2S(7, "row7/warp-32x12-8B/float16", "warp", 32, f16, []int64{32, 12}, [][2]int64{{0, 32}, {0, 12}}, []int64{32, 12}, "",
		want{variant: "ldgsts", vec: 4, outer: 3, bytes: 8, partition: "S[(3,32,4):(128,4,1)]"}))
	add(ldgstsG2S(7, "row7/warp-32x6-4B/float16", "warp", 32, f16, []int64{32, 6}, [][2]int64{{0, 32}, {0, 6}}, []int64{32, 6}, "",
		want{variant: "ldgsts", vec: 2, outer: 3, bytes: 4, partition: "S[(3,32,2):(64,2,1)]"}))
	add(ldgstsG2S(7, "row7/warp-2x48-4B/float32", "warp", 32, f32, []int64{2, 48}, [][2]int64{{0, 2}, {0, 48}}, []int64{2, 48}, "",
		want{variant: "ldgsts", vec: 1, outer: 3, bytes: 4}))
	for _, c := range []struct {
		stride       int64
		vec, outer   int64
		bytes        int64
		globalLayout string
	}{{20, 4, 8, 8, "S[(2,16):(20,1)]"}, {18, 2, 16, 4, "S[(2,16):(18,1)]"}} {
		c := c
		add(copyCase{7, fmt.Sprintf("row7/thread-row-stride-%d/float16", c.stride), func(k *kb) {
			k.ctaKernel(32)
			a := k.buf("A", "global", f16, c.globalLayout, 2, 16)
			s := k.buf("A_smem", "shared", f16, c.globalLayout, 2, 16)
			k.copyAsyncCall("thread", full(s), full(a), "")
		}, want{variant: "ldgsts", vec: c.vec, outer: c.outer, bytes: c.bytes}})
	}
	add(ldgstsG2S(7, "row7/unaligned-region-offset-4B/float32", "thread", 32, f32, []int64{4, 32}, [][2]int64{{0, 4}, {3, 19}}, []int64{4, 16}, "",
		want{variant: "ldgsts", vec: 1, outer: 64, bytes: 4}))

	// Row 8: the layout-permuting copy (copy table row 19): G row-major,
	// S K-tiled, the shared side keeps its own strides.
	add(ldgstsG2S(8, "row8/layout-permute-cta-128/float16", "cta", 128, f16, []int64{128, 64}, [][2]int64{{0, 128}, {0, 64}}, []int64{128, 64}, "S[(128,8,8):(8,1024,1)]",
		want{variant: "ldgsts", vec: 8, outer: 8, bytes: 16, partition: "S[(8,128,8):(1024,8,1)]"}))

	// Row 9: declines. No cp.async width fits 2- and 1-byte elements here;
	// shared -> global is not cp.async; sizes that do not divide; a CTA of
	// fewer than 32 threads; a narrowed scope; a dtype mismatch.
	noVariant := func(declined string) want { return want{variant: "", declined: declined} }
	add(ldgstsG2S(9, "row9/no-cp-size/float16", "warp", 32, f16, []int64{2, 48}, [][2]int64{{0, 2}, {0, 48}}, []int64{2, 48}, "",
		noVariant("ldgsts: cannot find a cp.async-compatible vec_len for elem_bits=16")))
	add(ldgstsG2S(9, "row9/no-cp-size/int8", "warp", 32, "int8", []int64{4, 24}, [][2]int64{{0, 4}, {0, 24}}, []int64{4, 24}, "",
		noVariant("ldgsts: cannot find a cp.async-compatible vec_len for elem_bits=8")))
	add(copyCase{9, "row9/shared-to-global/float16", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", f16, "", 32, 32)
		s := k.buf("A_smem", "shared", f16, "", 32, 32)
		k.copyAsyncCall("warp", full(a), full(s), "")
	}, noVariant("unsupported memory scopes src=shared dst=global; allowed: global->shared*")})
	add(copyCase{9, "row9/local-to-shared/float32", func(k *kb) {
		k.ctaKernel(32)
		l := k.buf("L", "local", f32, "", 4)
		s := k.buf("S", "shared.dyn", f32, "", 4)
		k.copyAsyncCall("warp", full(s), full(l), "")
	}, noVariant("unsupported memory scopes src=local dst=shared.dyn; allowed: global->shared*")})
	add(ldgstsG2S(9, "row9/not-divisible-warp/float32", "warp", 32, f32, []int64{4, 6}, [][2]int64{{0, 4}, {0, 6}}, []int64{4, 6}, "",
		noVariant("region size 24 not divisible by thread_cnt=32")))
	add(ldgstsG2S(9, "row9/not-divisible-cta-256/float16", "cta", 256, f16, []int64{4, 8}, [][2]int64{{0, 4}, {0, 8}}, []int64{4, 8}, "",
		noVariant("region size 32 not divisible by thread_cnt=256")))
	add(copyCase{9, "row9/cta-8-threads/float16", func(k *kb) {
		k.scope(ir.CTAID, 1)
		k.scope(ir.ThreadID, 8)
		a := k.buf("A", "global", f16, "", 8, 256)
		s := k.buf("A_smem", "shared", f16, "", 8, 256)
		k.copyAsyncCall("cta", full(s), full(a), "")
	}, noVariant("degenerate thread_cnt=0 (scope has empty intra)")})
	add(copyCase{9, "row9/narrowed-cta/float16", func(k *kb) {
		tid := k.ctaKernel(128)
		k.ifThen(cmpE(ir.LT, tid, 64))
		a := k.buf("A", "global", f16, "", 64, 64)
		s := k.buf("A_smem", "shared", f16, "", 64, 64)
		k.copyAsyncCall("cta", full(s), full(a), "")
		k.end()
	}, noVariant("warpid narrowed to [0, 2) vs full [0, 4)")})
	add(copyCase{9, "row9/dtype-mismatch", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", f32, "", 32, 32)
		s := k.buf("A_smem", "shared", f16, "", 32, 32)
		k.copyAsyncCall("warp", full(s), full(a), "")
	}, noVariant("validate_copy_op failed")})

	// Row 10: dispatch="ldgsts" that applies, and one that cannot.
	add(copyCase{10, "row10/forced-ldgsts-warp/float32", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", f32, "", 32, 32)
		s := k.buf("A_smem", "shared", f32, "", 32, 32)
		k.copyAsyncCall("warp", full(s), full(a), "ldgsts")
	}, ldgstsWant(f32, 4, 8)})
	add(copyCase{10, "row10/forced-ldgsts-shared-to-global/float32", func(k *kb) {
		k.ctaKernel(32)
		a := k.buf("A", "global", f32, "", 32, 32)
		s := k.buf("A_smem", "shared", f32, "", 32, 32)
		k.copyAsyncCall("thread", full(a), full(s), "ldgsts")
	}, want{variant: "", err: "dispatch=\"ldgsts\" does not apply\nTIRx schedule dispatch failed: op=tirx.tile.copy_async target=cuda",
		declined: "unsupported memory scopes src=shared dst=global; allowed: global->shared*"}})
	add(copyCase{10, "row10/forced-ldgsts-no-cp-size/uint8", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", u8, "", 4, 24)
		s := k.buf("A_smem", "shared", u8, "", 4, 24)
		k.copyAsyncCall("warp", full(s), full(a), "ldgsts")
	}, want{variant: "", err: "declined — ldgsts: cannot find a cp.async-compatible vec_len for elem_bits=8"}})

	// Row 11: a plain thread-scope copy_async(smem, gmem) without dispatch=
	// takes ldgsts, the only priority-20 copy_async variant, before tma.
	add(copyCase{11, "row11/thread-plain-copy-async-picks-ldgsts/float16", func(k *kb) {
		tid := k.ctaKernel(128)
		k.ifThen(cmpE(ir.EQ, tid, 0))
		a := k.buf("A", "global", f16, "", 8, 256)
		s := k.buf("A_smem", "shared", f16, "", 8, 256)
		k.copyAsyncCall("thread", full(s), full(a), "")
		k.end()
	}, want{variant: "ldgsts", vec: 8, outer: 256, bytes: 16, extra: selectedBefore("ldgsts", "tma")}})
	return cs
}

// selectedBefore checks that sel was selected and that later, when
// registered, comes after it and was not tried.
func selectedBefore(sel, later string) func(d *dispatch.Decision) error {
	return func(d *dispatch.Decision) error {
		si, li := -1, -1
		for i, a := range d.Explanation.Attempts {
			switch a.Variant {
			case sel:
				si = i
				if a.Outcome != dispatch.Selected {
					return fmt.Errorf("%s: %s", sel, a.Outcome)
				}
			case later:
				li = i
				if a.Outcome != dispatch.Skipped {
					return fmt.Errorf("%s: %s, want skipped", later, a.Outcome)
				}
			}
		}
		if si < 0 || (li >= 0 && li < si) {
			return fmt.Errorf("attempt order: %s at %d, %s at %d", sel, si, later, li)
		}
		return nil
	}
}

// TestCopyAsyncOrder checks the registry's try order for copy_async: TVM's
// (-priority, name) sort, ldgsts first, and "dsmem" < "smem->tmem" < "tma" <
// "tmem<->local" among the priority-10 variants (tma is skipped when it is
// not registered yet).
func TestCopyAsyncOrder(t *testing.T) {
	got := []string{}
	for _, v := range dispatch.NewRegistry(Variants()).Variants("copy_async", "cuda") {
		got = append(got, v.Name)
	}
	want := []string{"ldgsts", "dsmem", "smem->tmem", "tma", "tmem<->local"}
	if !slices.Contains(got, "tma") {
		want = slices.DeleteFunc(want, func(s string) bool { return s == "tma" })
	}
	if !slices.Equal(got, want) {
		t.Errorf("copy_async order %v, want %v", got, want)
	}
	prio := map[string]int{}
	for _, v := range Variants() {
		if v.Op == "copy_async" {
			prio[v.Name] = v.Priority
		}
	}
	for name, p := range map[string]int{"ldgsts": 20, "dsmem": 10, "smem->tmem": 10, "tmem<->local": 10} {
		if prio[name] != p {
			t.Errorf("%s priority %d, want %d", name, prio[name], p)
		}
	}
}

// ---- dsmem, smem->tmem, tmem<->local: exact decline messages, plans ----

type asyncDecline struct {
	name    string
	build   func(k *kb)
	variant string
	reason  string // the exact bare reason of variant's row
	ref     bool   // the reason (or the plan in it) is asserted by a TVM test
}

// lowered is the reason of a case whose variant is selected: the case
// checks the variant's note (the number of instructions) instead.
const lowered = "(lowered) "

// dsmemKernel: a single-thread CTA copying shared src to shared dst with
// the given layouts, at scope, with the config entries named in cfg.
func dsmemKernel(scope string, shape []int64, dtype, srcLay, dstLay string, cfg ...string) func(k *kb) {
	return func(k *kb) {
		if scope == "thread" {
			k.scope(ir.CTAID, 2)
			k.scope(ir.ThreadID, 1)
		} else {
			k.warpKernel()
		}
		src := k.buf("A", "shared.dyn", dtype, srcLay, shape...)
		dst := k.buf("B", "shared.dyn", dtype, dstLay, shape...)
		mbar := k.buf("mbar", "shared", "uint64", "", 1)
		var kvs []ir.KV
		for _, key := range cfg {
			switch key {
			case "mbar":
				kvs = append(kvs, cfgKV("mbar", &ir.AddressOf{Buf: mbar, Indices: []ir.Expr{ir.Const(0)}}))
			case "remote_cta_id":
				kvs = append(kvs, cfgKV("remote_cta_id", ir.Const(1)))
			}
		}
		k.copyAsyncCall(scope, full(dst), full(src), "", kvs...)
	}
}

func asyncDeclineCases() []asyncDecline {
	both := []string{"mbar", "remote_cta_id"}
	f16 := "float16"
	tmemLay := "S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]"
	noAddr := false // set by the allocated_addr case only
	smemTmemKernel := func(scope, srcScope, srcLay, tLay string) func(k *kb) {
		return func(k *kb) {
			tid := k.ctaKernel(128)
			if scope == "thread" {
				k.ifThen(cmpE(ir.EQ, tid, 0))
				defer k.end()
			}
			s := k.buf("A_smem", srcScope, "uint8", srcLay, 32, 16)
			tm := k.buf("tmem", "tmem", "uint8", tLay, 32, 16)
			if !noAddr {
				tm.AllocatedAddr = &ir.Var{Name: "tmem_addr", Type: ir.Int32}
			}
			k.copyAsyncCall(scope, full(tm), full(s), "", cfgKV("cta_group", ir.Const(1)))
		}
	}
	tmemLocalKernel := func(scope string, toLocal bool, localScope, localDtype string) func(k *kb) {
		return func(k *kb) {
			if scope == "warpgroup" {
				k.wgKernel()
			} else {
				k.ctaKernel(128)
			}
			tm := k.buf("tmem", "tmem", "float32", "S[(128,16):(1@TLane,1@TCol)]", 128, 16)
			tm.AllocatedAddr = &ir.Var{Name: "tmem_addr", Type: ir.UInt32}
			lay := "S[(128,16):(1@tid_in_wg,1)]"
			if localScope != "local" {
				lay = ""
			}
			l := k.buf("A_local", localScope, localDtype, lay, 128, 16)
			if toLocal {
				k.copyAsyncCall(scope, full(l), full(tm), "")
			} else {
				k.copyAsyncCall(scope, full(tm), full(l), "")
			}
		}
	}
	return []asyncDecline{
		// test_dsmem.py DSMEM_CONFIGS: the number of cp.async.bulk per copy,
		// or the incompatible-layout failure.
		{"dsmem/contiguous-2d", dsmemKernel("thread", []int64{128, 64}, f16, "S[128,64]", "S[128,64]", both...), "dsmem", lowered + "1 bulk copy of 16384 bytes to the remote CTA", true},
		{"dsmem/contiguous-1d", dsmemKernel("thread", []int64{256}, f16, "S[256]", "S[256]", both...), "dsmem", lowered + "1 bulk copy of 512 bytes to the remote CTA", true},
		{"dsmem/stride-gap", dsmemKernel("thread", []int64{8, 128}, f16, "S[(8,128):(256,1)]", "S[(8,128):(256,1)]", both...), "dsmem", lowered + "8 bulk copies of 256 bytes to the remote CTA", true},
		{"dsmem/partial-contiguity-diff-stride", dsmemKernel("thread", []int64{8, 128}, f16, "S[(8,128):(256,1)]", "S[(8,128):(512,1)]", both...), "dsmem", lowered + "8 bulk copies of 256 bytes to the remote CTA", true},
		{"dsmem/incompatible-row-vs-col", dsmemKernel("thread", []int64{4, 64}, f16, "S[4,64]", "S[(4,64):(1,4)]", both...), "dsmem",
			"Layouts not compatible for bulk DSMEM copy: chunk_bytes=2 (need >= 16 and multiple of 16)", true},
		// test_dsmem_dispatch_missing_config.
		{"dsmem/missing-remote_cta_id", dsmemKernel("thread", []int64{64}, f16, "S[64]", "S[64]", "mbar"), "dsmem", "remote_cta_id not set in config", true},
		{"dsmem/missing-mbar", dsmemKernel("thread", []int64{64}, f16, "S[64]", "S[64]", "remote_cta_id"), "dsmem", "mbar not set in config", true},
		// Each predicate failing once.
		{"dsmem/validate_copy_op", func(k *kb) {
			k.scope(ir.CTAID, 2)
			k.scope(ir.ThreadID, 1)
			a := k.buf("A", "shared", f16, "", 64)
			b := k.buf("B", "shared", "float32", "", 64)
			k.copyAsyncCall("thread", full(b), full(a), "")
		}, "dsmem", "not a valid copy op", false},
		{"dsmem/single_thread", dsmemKernel("warp", []int64{64}, f16, "S[64]", "S[64]", both...), "dsmem",
			`unsupported exec_scope T.ExecScope("warp"), expected single thread`, false},
		{"dsmem/is_shared_to_shared", func(k *kb) {
			k.ctaKernel(32)
			l := k.buf("L", "local", f16, "", 64)
			s := k.buf("S", "shared", f16, "", 64)
			k.copyAsyncCall("thread", full(s), full(l), "")
		}, "dsmem", "not a shared-to-shared copy", false},

		// smem->tmem: a passing call, then each check of each predicate.
		{"smem->tmem/passes", smemTmemKernel("thread", "shared", "S[(32,16):(16,1)]", tmemLay), "smem->tmem", lowered + "1 x tcgen05.cp.cta_group::1.32x128b.warpx4 from one shared memory descriptor", false},
		{"smem->tmem/scopes", smemTmemKernel("thread", "global", "", tmemLay), "smem->tmem", "expected shared->tmem, got global->tmem", false},
		{"smem->tmem/layouts", smemTmemKernel("thread", "shared.dyn", "none", tmemLay), "smem->tmem", "both buffers must have layouts", false},
		{"smem->tmem/allocated_addr", func(k *kb) {
			noAddr = true
			defer func() { noAddr = false }()
			smemTmemKernel("thread", "shared", "", tmemLay)(k)
		}, "smem->tmem", "tmem buffer must have allocated_addr", false},
		{"smem->tmem/no-replica", smemTmemKernel("thread", "shared", "", "S[(32,16):(1@TLane,1@TCol)]"), "smem->tmem",
			"requires R[4:32@TLane] on tmem, got replica=[]", false},
		{"smem->tmem/wrong-replica", smemTmemKernel("thread", "shared", "", "S[(32,16):(1@TLane,1@TCol)] + R[2:32@TLane]"), "smem->tmem",
			`requires R[4:32@TLane] on tmem, got replica=[T.Iter(2, 32, "TLane")]`, false},
		{"smem->tmem/exec_scope", smemTmemKernel("cta", "shared", "", tmemLay), "smem->tmem", "expected thread exec_scope, got cta", false},

		// tmem<->local: both directions pass, then each predicate.
		{"tmem<->local/tmem-to-local", tmemLocalKernel("warpgroup", true, "local", "float32"), "tmem<->local", lowered + "tcgen05.ld.sync.aligned.32x32b.x16.b32 per warp of the warpgroup; no tcgen05.wait is issued", false},
		{"tmem<->local/local-to-tmem", tmemLocalKernel("warpgroup", false, "local", "float32"), "tmem<->local", lowered + "tcgen05.st.sync.aligned.32x32b.x16.b32 per warp of the warpgroup; no tcgen05.wait is issued", false},
		{"tmem<->local/validate_copy_op", tmemLocalKernel("warpgroup", true, "local", "float16"), "tmem<->local", "validate_copy_op failed", false},
		{"tmem<->local/exec_scope", tmemLocalKernel("cta", true, "local", "float32"), "tmem<->local", "unsupported exec_scope cta", false},
		{"tmem<->local/storage_scope", tmemLocalKernel("warpgroup", true, "shared", "float32"), "tmem<->local",
			"unsupported memory scopes src=tmem dst=shared; allowed: tmem->local, local->tmem", false},
	}
}

func TestCopyAsyncDeclines(t *testing.T) {
	cases := asyncDeclineCases()
	ref := 0
	for _, c := range cases {
		k := newKernel(t)
		c.build(k)
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		if len(out.Decisions) != 1 {
			t.Fatalf("%s: %d decisions", c.name, len(out.Decisions))
		}
		d := out.Decisions[0]
		if note, ok := strings.CutPrefix(c.reason, lowered); ok {
			// The variant lowers the call; its note gives the plan.
			switch {
			case d.Variant != c.variant:
				t.Errorf("%s: selected %q, want %s:\n%s", c.name, d.Variant, c.variant, d.Explanation.TableCompact())
			case d.Result == nil || d.Result.Body == nil || len(d.Result.Body.Stmts) == 0:
				t.Errorf("%s: %s lowered to nothing", c.name, c.variant)
			case !slices.Contains(d.Result.Notes, note):
				t.Errorf("%s: %s notes %q, want %q", c.name, c.variant, d.Result.Notes, note)
			case c.variant == "dsmem" && !slices.ContainsFunc(d.Result.Notes, func(n string) bool { return strings.Contains(n, "traps outside a cluster launch") }):
				t.Errorf("%s: a dsmem copy in a kernel without a cluster has no warning: %q", c.name, d.Result.Notes)
			case c.ref:
				ref++
			}
			for _, dg := range out.Diags {
				if dg.Severity == diag.Error {
					t.Errorf("%s: error diagnostic %s", c.name, dg.Message)
				}
			}
			continue
		}
		if d.Variant != "" {
			t.Errorf("%s: selected %s, want no variant", c.name, d.Variant)
			continue
		}
		got, found := "", false
		for _, r := range d.Declined {
			if r.Variant == c.variant {
				got, found = r.Reason, true
			}
		}
		switch {
		case !found:
			t.Errorf("%s: %s was not tried:\n%s", c.name, c.variant, d.Explanation.TableCompact())
		case got != c.reason:
			t.Errorf("%s: %s reason\n  got  %q\n  want %q", c.name, c.variant, got, c.reason)
		case c.ref:
			ref++
		}
		// The call is reported as an error (no variant applies).
		if !slices.ContainsFunc(out.Diags, func(dg diag.Diagnostic) bool { return strings.Contains(dg.Message, c.reason) }) {
			t.Errorf("%s: no diagnostic carries %q: %v", c.name, c.reason, out.Diags)
		}
	}
	t.Logf("copy_async declines: %d cases, %d with TVM-test expectations", len(cases), ref)
}

// TestCopyAsyncSymbolicStarts lowers ldgsts copies whose global region
// starts are a loop variable and simulates them for several values.
func TestCopyAsyncSymbolicStarts(t *testing.T) {
	cases := []struct {
		name  string
		build func(k *kb, i *ir.Var)
		vec   int64
	}{
		{"row tile", func(k *kb, i *ir.Var) {
			k.warpKernel()
			a := k.buf("A", "global", "float16", "", 128, 64)
			s := k.buf("S", "shared", "float16", "", 32, 64)
			r := &ir.Region{Buf: a, Min: []ir.Expr{ir.MulE(i, ir.Const(32)), ir.Const(0)}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			k.copyAsyncCall("warp", full(s), r, "")
		}, 8},
		{"odd column start into a swizzle clamps to 4 bytes", func(k *kb, i *ir.Var) {
			k.warpKernel()
			a := k.buf("A", "global", "float16", "", 32, 128)
			s := withLayout(k.buf("S", "shared", "float16", "", 32, 64), mustCompose(t, 3, 3, 3, "S[32,64]"))
			r := &ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0), ir.AddE(ir.MulE(i, ir.Const(8)), ir.Const(2))}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			k.copyAsyncCall("warp", full(s), r, "")
		}, 2},
	}
	for _, c := range cases {
		k := newKernel(t)
		i := &ir.Var{Name: "i", Type: ir.Int32}
		c.build(k, i)
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		d := out.Decisions[0]
		if d.Variant != "ldgsts" || d.Result == nil || d.Result.Vec != c.vec {
			t.Errorf("%s: variant %q result %+v, want ldgsts vec %d\n%s", c.name, d.Variant, d.Result, c.vec, d.Explanation.TableCompact())
			continue
		}
		for _, iv := range []int64{0, 1, 3} {
			if err := simulate(d, out.Launch.Block[0], map[*ir.Var]int64{i: iv}); err != nil {
				t.Errorf("%s i=%d: %v", c.name, iv, err)
			}
		}
	}
}
