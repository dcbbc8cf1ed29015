package cuda

import common "github.com/tilels/tilels/dispatch/cuda/common"
import cudacopy "github.com/tilels/tilels/dispatch/cuda/copy"
import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Table tests for every copy row of spec §6.1–6.3 (rows 1–53). Each case
// builds a kernel, runs dispatch.Lower with Variants() and checks every
// decision through checkCopy. Rows 19–22 are algorithm-only and check
// alignLayoutsGS directly (checkAlign).

// want is what every decision of a case must show.
type want struct {
	variant           string
	vec, outer, bytes int64  // 0: not checked
	partition         string // substring of Result.Partition
	declined          string // substring of some declined variant's reason
	err               string // substring of an error diagnostic
	body              string // substring of the rendered body
	extra             func(d *dispatch.Decision) error
}

type copyCase struct {
	row   int
	name  string
	build func(k *kb)
	want  want
}

// knownBad lists cases that are expected to fail, with the reason. The test
// fails when one of them passes, so fixing a case forces its removal.
var knownBad = map[string]string{}

func TestCopyTable(t *testing.T) {
	cases := copyCases(t)
	rows := make([]tableRow, len(cases))
	for i, c := range cases {
		rows[i] = tableRow{c.row, c.name}
	}
	checkTable(t, "copy table", rows, func(i int) []string { return runCase(t, cases[i]) }, knownBad)
}

func runCase(t *testing.T, c copyCase) (errs []string) {
	defer func() {
		if r := recover(); r != nil {
			errs = append(errs, fmt.Sprintf("panic: %v", r))
		}
	}()
	k := newKernel(t)
	c.build(k)
	out := dispatch.Lower(k.fn, targetOf(k.fn), Variants())
	return checkCopy(out, c.want)
}

// checkCopy checks every decision of out against w.
func checkCopy(out *dispatch.Output, w want) []string {
	var errs []string
	bad := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }
	if len(out.Decisions) == 0 {
		bad("no decisions")
	}
	if w.err != "" {
		found := false
		for _, d := range out.Diags {
			if strings.Contains(d.Message, w.err) {
				found = true
			}
		}
		if !found {
			bad("no diagnostic contains %q; diags: %v", w.err, out.Diags)
		}
	}
	for i, d := range out.Decisions {
		if d.Variant != w.variant {
			msg := ""
			if d.Explanation != nil {
				msg = d.Explanation.TableCompact()
			}
			bad("call %d: variant %q, want %q\n%s", i, d.Variant, w.variant, msg)
			continue
		}
		if r := d.Result; r != nil {
			if w.vec != 0 && r.Vec != w.vec {
				bad("call %d: vec %d, want %d (%s)", i, r.Vec, w.vec, r.Partition)
			}
			if w.outer != 0 && r.Outer != w.outer {
				bad("call %d: outer %d, want %d (%s)", i, r.Outer, w.outer, r.Partition)
			}
			if w.bytes != 0 && r.VecBits/8 != w.bytes {
				bad("call %d: bytes %d, want %d", i, r.VecBits/8, w.bytes)
			}
			if w.partition != "" && !strings.Contains(r.Partition+" "+strings.Join(r.Notes, " "), w.partition) {
				bad("call %d: partition %q (notes %v) lacks %q", i, r.Partition, r.Notes, w.partition)
			}
			if w.body != "" {
				if s := blockText(r.Body); !strings.Contains(s, w.body) {
					bad("call %d: body lacks %q:\n%s", i, w.body, s)
				}
			}
		}
		if w.declined != "" {
			found := false
			for _, dv := range d.Declined {
				if strings.Contains(dv.Reason, w.declined) {
					found = true
				}
			}
			if !found {
				bad("call %d: no declined reason contains %q: %+v", i, w.declined, d.Declined)
			}
		}
		if w.extra != nil {
			if err := w.extra(d); err != nil {
				bad("call %d: %v", i, err)
			}
		}
	}
	return errs
}

// ---- case families ----

var dtypeBits = map[string]int{"float32": 32, "float16": 16, "bfloat16": 16, "uint8": 8, "int8": 8,
	"float8_e4m3fn": 8, "uint16": 16, "uint32": 32, "int32": 32}

// vob is (vec, outer) per dtype; bytes derive from the dtype.
type vob struct {
	dtype      string
	vec, outer int64
}

func (v vob) bytes() int64 { return v.vec * int64(dtypeBits[v.dtype]) / 8 }

// roundtrip: Tx.<scope>.copy(smem, A) then Tx.<scope>.copy(B, smem).
func roundtrip(row int, scope string, threads int64, rows, cols int64, vs ...vob) []copyCase {
	var out []copyCase
	for _, v := range vs {
		v := v
		out = append(out, copyCase{row, fmt.Sprintf("row%d/%s-%d-%dx%d/%s", row, scope, threads, rows, cols, v.dtype),
			func(k *kb) {
				k.kernelFor(scope, threads)
				a := k.buf("A", "global", v.dtype, "", rows, cols)
				b := k.buf("B", "global", v.dtype, "", rows, cols)
				s := k.buf("A_smem", "shared", v.dtype, "", rows, cols)
				k.copyCall(scope, full(s), full(a), "")
				k.copyCall(scope, full(b), full(s), "")
			}, want{variant: "gmem_smem", vec: v.vec, outer: v.outer, bytes: v.bytes()}})
	}
	return out
}

// g2s: one global->shared copy of a global region into a whole smem buffer.
func g2s(row int, tag, scope string, threads int64, gshape []int64, greg [][2]int64, sshape []int64,
	slay func(t testing.TB) layout.Layout, ctas int64, vs ...vob) []copyCase {
	var out []copyCase
	for _, v := range vs {
		v := v
		out = append(out, copyCase{row, fmt.Sprintf("row%d/%s/%s", row, tag, v.dtype), func(k *kb) {
			if scope == "thread" {
				k.ctaKernel(32)
			} else {
				k.scope(ir.CTAID, ctas)
				k.scope(ir.ThreadID, threads)
			}
			a := k.buf("A", "global", v.dtype, "", gshape...)
			s := k.buf("A_smem", "shared", v.dtype, "", sshape...)
			if slay != nil {
				withLayout(s, slay(k.t))
			}
			k.copyCall(scope, full(s), sub(a, greg...), "")
			k.copyCall(scope, sub(a, greg...), full(s), "")
		}, want{variant: "gmem_smem", vec: v.vec, outer: v.outer, bytes: v.bytes()}})
	}
	return out
}

func swz4(t testing.TB) layout.Layout {
	c := mustCompose(t, 3, 3, 3, "S[8,64]")
	l := mustTileTo(t, c, []int64{16, 128}, []int64{8, 64})
	return mustTileTo(t, l, []int64{32, 256}, []int64{16, 128})
}

// fallbackCase: Tx.<scope>.copy(smem, A) of a small tile.
func fallbackCase(row int, scope string, threads, rows, cols int64, declined, body string) copyCase {
	return copyCase{row, fmt.Sprintf("row%d/fallback-%s-%d-%dx%d", row, scope, threads, rows, cols), func(k *kb) {
		k.kernelFor(scope, threads)
		a := k.buf("A", "global", "float32", "", rows, cols)
		s := k.buf("A_smem", "shared", "float32", "", rows, cols)
		k.copyCall(scope, full(s), full(a), "")
		k.copyCall(scope, full(a), full(s), "")
	}, want{variant: "fallback", declined: declined, body: body}}
}

// regCase: register <-> shared round trip with R = S[(n,k):(1@axis,1)].
func regCase(row int, scope string, n, kk int64, vs ...vob) []copyCase {
	axis := map[string]string{"warp": "laneid", "warpgroup": "tid_in_wg", "cta": "tx"}[scope]
	var out []copyCase
	for _, v := range vs {
		v := v
		for _, other := range []string{"shared", "global"} {
			out = append(out, copyCase{row, fmt.Sprintf("row%d/reg-%s-%d-%d/%s/%s", row, scope, n, kk, other, v.dtype), func(k *kb) {
				k.kernelFor(scope, n)
				r := k.buf("R", "local", v.dtype, fmt.Sprintf("S[(%d,%d):(1@%s,1)]", n, kk, axis), n, kk)
				s := k.buf("S", other, v.dtype, "", n, kk)
				k.copyCall(scope, full(r), full(s), "")
				k.copyCall(scope, full(s), full(r), "")
			}, want{variant: "reg", vec: v.vec, outer: v.outer, bytes: v.bytes()}})
		}
	}
	return out
}

// forcedCase: Tx.copy(local, shared) and back with dispatch=name.
func forcedCase(row int, name, dtype string, n int64, bytes int64) copyCase {
	return copyCase{row, fmt.Sprintf("row%d/%s-%s-%d", row, name, dtype, n), func(k *kb) {
		k.ctaKernel(32)
		l := k.buf("L", "local", dtype, "", n)
		s := k.buf("S", "shared", dtype, "", 64)
		k.copyCall("thread", full(l), sub(s, [2]int64{8, 8 + n}), name)
		k.copyCall("thread", sub(s, [2]int64{8, 8 + n}), full(l), name)
	}, want{variant: name, vec: n, outer: 1, bytes: bytes,
		// 0.27 vec_forced.py: ld/st of copy_ptx_form's chain straight into
		// the local registers (no scratch), T.ptx["ld.shared.v2.u32"](...).
		body: ".shared." + map[int64]string{2: "u16", 4: "u32", 8: "v2.u32", 16: "v4.u32"}[bytes] + "("}}
}

func copyCases(t *testing.T) []copyCase {
	var cs []copyCase
	add := func(c ...copyCase) { cs = append(cs, c...) }
	f16, f32, u8 := "float16", "float32", "uint8"

	// §6.1 global <-> shared.
	add(roundtrip(1, "warp", 32, 32, 32, vob{f32, 4, 8})...)
	add(roundtrip(2, "warp", 32, 32, 32, vob{f16, 8, 4})...)
	add(roundtrip(3, "warp", 32, 32, 32, vob{u8, 16, 2})...)
	add(roundtrip(4, "warp", 32, 32, 64, vob{f16, 8, 8}, vob{f32, 4, 16}, vob{u8, 16, 4})...)
	add(roundtrip(5, "warpgroup", 128, 128, 32, vob{f16, 8, 4}, vob{f32, 4, 8}, vob{u8, 16, 2})...)
	add(roundtrip(6, "warpgroup", 128, 128, 64, vob{f16, 8, 8}, vob{f32, 4, 16}, vob{u8, 16, 4})...)
	add(roundtrip(7, "warpgroup", 128, 256, 16, vob{f16, 8, 4}, vob{f32, 4, 8}, vob{u8, 16, 2})...)
	add(roundtrip(8, "cta", 256, 256, 32, vob{f16, 8, 4}, vob{f32, 4, 8}, vob{u8, 16, 2})...)
	add(roundtrip(9, "cta", 256, 512, 16, vob{f16, 8, 4}, vob{f32, 4, 8}, vob{u8, 16, 2})...)
	all8 := func(v, o int64) []vob { return []vob{{"int8", v, o}, {"float8_e4m3fn", v, o}} }
	all16 := func(v, o int64) []vob { return []vob{{f16, v, o}, {"bfloat16", v, o}} }
	task := func(v8, o8, v16, o16, v32, o32 int64) []vob {
		return append(append(all8(v8, o8), all16(v16, o16)...), vob{f32, v32, o32})
	}
	g2 := [][2]int64{{0, 128}, {0, 32}}
	add(g2s(10, "task0-cta", "cta", 32, []int64{128, 32}, g2, []int64{128, 32}, nil, 2, task(16, 8, 8, 16, 4, 32)...)...)
	add(g2s(11, "task0-thread", "thread", 1, []int64{128, 32}, g2, []int64{128, 32}, nil, 1, task(16, 256, 8, 512, 4, 1024)...)...)
	g3 := [][2]int64{{32, 64}, {32, 64}}
	add(g2s(12, "task1-cta", "cta", 32, []int64{64, 64}, g3, []int64{32, 32}, nil, 1, task(16, 2, 8, 4, 4, 8)...)...)
	add(g2s(13, "task1-thread", "thread", 1, []int64{64, 64}, g3, []int64{32, 32}, nil, 1, task(16, 64, 8, 128, 4, 256)...)...)
	g4 := [][2]int64{{0, 1}, {0, 32}, {0, 32}}
	add(g2s(14, "task2-cta", "cta", 32, []int64{4, 32, 32}, g4, []int64{32, 32}, nil, 1, task(16, 2, 8, 4, 4, 8)...)...)
	g5 := [][2]int64{{0, 8}, {0, 8}}
	add(g2s(15, "task3-cta", "cta", 32, []int64{16, 16}, g5, []int64{8, 8}, nil, 1, task(2, 1, 2, 1, 2, 1)...)...)
	add(g2s(16, "task3-thread", "thread", 1, []int64{16, 16}, g5, []int64{8, 8}, nil, 1, task(8, 8, 8, 8, 4, 16)...)...)
	g6 := [][2]int64{{16, 48}, {256, 512}}
	add(g2s(17, "task4-cta", "cta", 32, []int64{96, 512}, g6, []int64{32, 256}, swz4, 1, task(8, 32, 8, 32, 4, 64)...)...)
	add(g2s(18, "task4-thread", "thread", 1, []int64{96, 512}, g6, []int64{32, 256}, swz4, 1, task(8, 1024, 8, 1024, 4, 2048)...)...)

	// Rows 19–22 run alignLayoutsGS directly (TestAlignLayouts); they are
	// counted here through an Lower-level equivalent where one exists.
	add(copyCase{23, "row23/swizzle-emit-wg-128x32/float16", func(k *kb) {
		k.wgKernel()
		a := k.buf("A", "global", f16, "", 128, 32)
		s := withLayout(k.buf("A_smem", "shared", f16, "", 128, 32), mustCompose(t, 3, 3, 3, "S[128,32]"))
		k.copyCall("warpgroup", full(s), full(a), "")
		k.copyCall("warpgroup", full(a), full(s), "")
	}, want{variant: "gmem_smem", vec: 8, outer: 4, bytes: 16, body: "^"}})
	add(copyCase{24, "row24/swizzle-fast-path-warp-32x64/float16", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", f16, "", 32, 64)
		s := withLayout(k.buf("A_smem", "shared", f16, "", 32, 64), mustCompose(t, 3, 3, 3, "S[32,64]"))
		k.copyCall("warp", full(s), full(a), "")
		k.copyCall("warp", full(a), full(s), "")
	}, want{variant: "gmem_smem", vec: 8, outer: 8, bytes: 16, body: "& 1) * signed_strides[",
		extra: signedStrides(3)}})

	// §6.2 fallback.
	add(fallbackCase(25, "warp", 32, 4, 6, "region size 24 not divisible by thread_cnt=32", "if (laneid == 0)"))
	add(fallbackCase(26, "warp", 32, 1, 8, "region size 8 not divisible by thread_cnt=32", "if (laneid == 0)"))
	add(fallbackCase(27, "warpgroup", 128, 4, 6, "region size 24 not divisible by thread_cnt=128", "if (tid_in_wg == 0)"))
	add(fallbackCase(28, "warpgroup", 128, 4, 8, "region size 32 not divisible by thread_cnt=128", "if (tid_in_wg == 0)"))
	add(fallbackCase(29, "cta", 256, 4, 8, "region size 32 not divisible by thread_cnt=256", "if (tx == 0)"))
	add(fallbackCase(30, "cta", 1024, 8, 8, "region size 64 not divisible by thread_cnt=1024", "if (tx == 0)"))
	add(copyCase{31, "row31/thread-4x6/float32", func(k *kb) {
		k.ctaKernel(32)
		a := k.buf("A", "global", f32, "", 4, 6)
		s := k.buf("A_smem", "shared", f32, "", 4, 6)
		k.copyCall("thread", full(s), full(a), "")
		k.copyCall("thread", full(a), full(s), "")
	}, want{variant: "gmem_smem", vec: 4, outer: 6, bytes: 16, partition: "S[(6,4):(4,1)]"}})
	add(fallbackCase(32, "cta", 256, 4, 6, "region size 24 not divisible by thread_cnt=256", "if (tx == 0)"))
	add(copyCase{33, "row33/local-scalar/float32", func(k *kb) {
		k.ctaKernel(32)
		dst := k.buf("dst", "local", f32, "", 4)
		src := k.buf("src", "local", f32, "", 1)
		k.copyCall("thread", sub(dst, [2]int64{2, 3}), full(src), "")
	}, want{variant: "fallback", body: "dst[2] = src[0]", declined: "unsupported memory scopes src=local dst=local"}})
	add(copyCase{34, "row34/cta-8-threads/float16", func(k *kb) {
		k.scope(ir.CTAID, 1)
		k.scope(ir.ThreadID, 8)
		a := k.buf("A_smem", "shared", f16, "", 8, 256)
		b := k.buf("B", "global", f16, "", 8, 256)
		k.copyCall("cta", full(b), full(a), "")
	}, want{variant: "fallback", declined: "degenerate thread_cnt=0 (scope has empty intra)", body: "if (tx == 0)"}})

	// §6.3 register <-> memory.
	add(regCase(35, "warpgroup", 128, 16, vob{f16, 8, 2}, vob{f32, 4, 4}, vob{u8, 16, 1})...)
	add(regCase(36, "warpgroup", 128, 32, vob{f16, 8, 4}, vob{f32, 4, 8}, vob{u8, 16, 2})...)
	add(regCase(37, "warpgroup", 128, 8, vob{f16, 8, 1}, vob{f32, 4, 2}, vob{u8, 8, 1})...)
	add(regCase(38, "warp", 32, 8, vob{f16, 8, 1}, vob{f32, 4, 2}, vob{u8, 8, 1})...)
	add(regCase(39, "warp", 32, 16, vob{f16, 8, 2}, vob{f32, 4, 4}, vob{u8, 16, 1})...)
	add(regCase(40, "cta", 256, 8, vob{f16, 8, 1}, vob{f32, 4, 2}, vob{u8, 8, 1})...)
	add(regCase(41, "cta", 256, 16, vob{f16, 8, 2}, vob{f32, 4, 4}, vob{u8, 16, 1})...)
	for _, v := range []vob{{"int8", 8, 8}, {"float8_e4m3fn", 8, 8}, {f16, 8, 8}, {"bfloat16", 8, 8}, {f32, 4, 16}} {
		v := v
		add(copyCase{42, "row42/g2l-l2g/" + v.dtype, func(k *kb) {
			k.ctaKernel(32)
			l := k.buf("L", "local", v.dtype, "", 8, 8)
			a := k.buf("A", "global", v.dtype, "", 4, 16, 16)
			r := [][2]int64{{3, 4}, {8, 16}, {8, 16}}
			k.copyCall("thread", full(l), sub(a, r...), "")
			k.copyCall("thread", sub(a, r...), full(l), "")
		}, want{variant: "reg", vec: v.vec, outer: v.outer, bytes: v.bytes(), partition: "+ 904"}})
	}
	add(copyCase{43, "row43/cache-nc-view/int32", func(k *kb) {
		tid := k.ctaKernel(32)
		k.ifThen(cmpE(ir.EQ, tid, 0))
		l := k.buf("L", "local", "int32", "", 4, 4)
		g := k.buf("G", "global", "int32", "S[(4,4):(16,1)] + 4", 4, 4)
		k.copyCall("thread", full(l), full(g), "", ir.KV{Key: "cache", Value: &ir.StringImm{Value: "nc"}})
		k.end()
	}, want{variant: "reg", vec: 4, outer: 4, bytes: 16}})
	add(copyCase{44, "row44/wg-local-to-swizzled-shared/float16", func(k *kb) {
		k.wgKernel()
		r := k.buf("R", "local", f16, "S[(128,64):(1@tid_in_wg,1)]", 128, 64)
		s := withLayout(k.buf("S", "shared", f16, "", 128, 64), mustCompose(t, 3, 3, 3, "S[512]"))
		k.copyCall("warpgroup", full(s), full(r), "")
	}, want{variant: "reg", vec: 8, outer: 8, bytes: 16, body: "& 1) * signed_strides["}})
	add(copyCase{45, "row45/tcgen05-16x256b-epilogue/float32", func(k *kb) {
		k.wgKernel()
		r := k.buf("R", "local", f32, "S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", 64, 64)
		ml, err := layout.MMASharedLayout(32, layout.Swizzle128B, []int64{64, 64}, false)
		if err != nil {
			t.Fatal(err)
		}
		s := withLayout(k.buf("S", "shared", f32, "", 64, 64), ml)
		k.copyCall("warpgroup", full(s), full(r), "")
	}, want{variant: "reg", vec: 2, outer: 16, bytes: 8, partition: "atoms [(2,2048,16),(4,8,4),(2,256,2),(2,1,1)]",
		extra: func(d *dispatch.Decision) error {
			if !strings.Contains(strings.Join(d.Result.Notes, " "), "32 registers per thread") {
				return fmt.Errorf("notes %v", d.Result.Notes)
			}
			return nil
		}}})
	add(forcedCase(46, "vec_16b", "uint16", 1, 2))
	add(forcedCase(47, "vec_32b", "uint32", 1, 4))
	add(forcedCase(48, "vec_64b", "uint32", 2, 8))
	add(forcedCase(49, "vec_128b", "uint32", 4, 16))
	add(copyCase{50, "row50/vec_64b-size-mismatch/float32", func(k *kb) {
		k.ctaKernel(32)
		l := k.buf("L", "local", f32, "", 4)
		s := k.buf("S", "shared", f32, "", 4)
		k.copyCall("thread", full(l), full(s), "vec_64b")
	}, want{variant: "", err: "src region does not contain exactly 2 elements"}})
	add(copyCase{51, "row51/vec_128b-warp/float32", func(k *kb) {
		k.warpKernel()
		l := k.buf("L", "local", f32, "", 4)
		s := k.buf("S", "shared", f32, "", 4)
		k.copyCall("warp", full(l), full(s), "vec_128b")
	}, want{variant: "", err: "expected thread exec_scope"}})
	add(copyCase{52, "row52/dispatch-reg-is-registered-in-PRE/float32", func(k *kb) {
		k.warpKernel()
		r := k.buf("R", "local", f32, "S[(32,8):(1@laneid,1)]", 32, 8)
		s := k.buf("S", "shared", f32, "", 32, 8)
		k.copyCall("warp", full(r), full(s), "reg")
	}, want{variant: "reg", vec: 4, outer: 2}})
	add(copyCase{52, "row52/dispatch-gmem_smem-is-registered-in-PRE/float32", func(k *kb) {
		k.warpKernel()
		a := k.buf("A", "global", f32, "", 32, 32)
		s := k.buf("S", "shared", f32, "", 32, 32)
		k.copyCall("warp", full(s), full(a), "gmem_smem")
	}, want{variant: "gmem_smem", vec: 4, outer: 8}})
	add(copyCase{53, "row53/vec_128b-dynamic-swizzled/float32", func(k *kb) {
		k.ctaKernel(32)
		row := &ir.Var{Name: "row", Type: ir.Int32}
		col := &ir.Var{Name: "col", Type: ir.Int32}
		l := k.buf("L", "local", f32, "", 4)
		s := withLayout(k.buf("S", "shared", f32, "", 64, 256), mustCompose(t, 2, 3, 3, "S[(64,8,32):(32,2048,1)]"))
		reg := &ir.Region{Buf: s, Min: []ir.Expr{row, ir.MulE(col, ir.Const(4))}, Extent: []ir.Expr{ir.Const(1), ir.Const(4)}}
		k.copyCall("thread", full(l), reg, "vec_128b")
		reg2 := &ir.Region{Buf: s, Min: reg.Min, Extent: reg.Extent}
		k.copyCall("thread", reg2, full(l), "vec_128b")
	}, want{variant: "vec_128b", vec: 4, bytes: 16, body: "^"}})
	return cs
}

// signedStrides checks the §4.1.1 fast path allocated an n-slot array.
func signedStrides(n int64) func(d *dispatch.Decision) error {
	return func(d *dispatch.Decision) error {
		for _, s := range d.Result.Body.Stmts {
			if a, ok := s.(*ir.Alloc); ok && a.Buf.Name == "signed_strides" {
				if a.Buf.Shape[0] != n {
					return fmt.Errorf("signed_strides has %d slots, want %d", a.Buf.Shape[0], n)
				}
				return nil
			}
		}
		return fmt.Errorf("no signed_strides array:\n%s", blockText(d.Result.Body))
	}
}

// ---- rows 19–22: align_layouts_gs on its own ----

type alignCase struct {
	row          int
	name         string
	g, s         common.Region
	bits         int
	threads      int64
	vec, outer   int64
	gp, sp       string // expected layouts ("" = unchecked)
	offG1, offS1 int64  // offsets at tid=1 (-1 = unchecked)
}

func mkRegion(t testing.TB, spec string, lay layout.Layout, shape []int64, bounds [][2]int64) common.Region {
	if lay == nil {
		lay = layout.MustParse(spec)
	}
	b := &ir.Buffer{Name: "b", Shape: shape, Layout: lay}
	g := common.Region{Buf: b, Lay: lay, Bounds: bounds, Static: true}
	for _, bd := range bounds {
		g.Exts = append(g.Exts, bd[1]-bd[0])
	}
	return g
}

func TestAlignLayouts(t *testing.T) {
	fullB := func(shape ...int64) [][2]int64 {
		var b [][2]int64
		for _, e := range shape {
			b = append(b, [2]int64{0, e})
		}
		return b
	}
	cases := []alignCase{
		{19, "row19/layout-permute", mkRegion(t, "S[128,64]", nil, []int64{128, 64}, fullB(128, 64)),
			mkRegion(t, "S[(128,8,8):(8,1024,1)]", nil, []int64{128, 64}, fullB(128, 64)), 16, 128, 8, 8,
			"S[(8,128,8):(1024,8,1)]", "S[(8,16,8,8):(128,8,1024,1)]", 8, 1024},
		{20, "row20/unaligned-strides", mkRegion(t, "S[(2,16):(20,1)]", nil, []int64{2, 16}, fullB(2, 16)),
			mkRegion(t, "S[(2,16):(20,1)]", nil, []int64{2, 16}, fullB(2, 16)), 16, 4, 4, 2,
			"S[(2,4,4):(20,4,1)]", "", -1, -1},
		{21, "row21/unaligned-region-offset", mkRegion(t, "S[4,32]", nil, []int64{4, 32}, [][2]int64{{0, 4}, {3, 19}}),
			mkRegion(t, "S[4,16]", nil, []int64{4, 16}, fullB(4, 16)), 16, 4, 1, 16,
			"S[(4,4,4,1):(32,4,1,1)] + 3", "", -1, -1},
	}
	for _, p := range []int{2, 1, 0} {
		v := int64(1) << p
		c := mustCompose(t, p, 3, 3, "S[32,32]")
		cases = append(cases, alignCase{22, fmt.Sprintf("row22/swizzle-chunk-p%d", p),
			mkRegion(t, "S[32,32]", nil, []int64{32, 32}, fullB(32, 32)),
			mkRegion(t, "", c, []int64{32, 32}, fullB(32, 32)), 16, 32, v, 1024 / (32 * v), "", "", -1, -1})
	}
	pass := 0
	defer func() { t.Logf("align rows 19-22: %d/%d cases pass", pass, len(cases)) }()
	for _, c := range cases {
		al := cudacopy.AlignLayoutsGS(c.g, c.s, c.bits, c.threads, nil)
		n := layout.Size(al.S, nil)
		outer := n / (c.threads * al.Vec)
		var errs []string
		if al.Vec != c.vec || outer != c.outer {
			errs = append(errs, fmt.Sprintf("vec/outer %d/%d, want %d/%d", al.Vec, outer, c.vec, c.outer))
		}
		if c.gp != "" && al.G.String() != c.gp {
			errs = append(errs, fmt.Sprintf("g_p %s, want %s", al.G, c.gp))
		}
		if c.sp != "" && al.S.String() != c.sp {
			errs = append(errs, fmt.Sprintf("s_p %s, want %s", al.S, c.sp))
		}
		shape := []int64{outer, c.threads, al.Vec}
		if c.offG1 >= 0 {
			if g := layout.ApplyShape(al.G, []int64{0, 1, 0}, shape)[layout.M]; g != c.offG1 {
				errs = append(errs, fmt.Sprintf("global offset at tid 1 = %d, want %d", g, c.offG1))
			}
			if s := layout.ApplyShape(al.S, []int64{0, 1, 0}, shape)[layout.M]; s != c.offS1 {
				errs = append(errs, fmt.Sprintf("shared offset at tid 1 = %d, want %d", s, c.offS1))
			}
		}
		if len(errs) > 0 {
			t.Errorf("%s: %s", c.name, strings.Join(errs, "; "))
		} else {
			pass++
		}
	}
}

// ---- rendering for body checks ----

func blockText(b *ir.Block) string {
	var sb strings.Builder
	writeBlock(&sb, b, "")
	return sb.String()
}

func writeBlock(sb *strings.Builder, b *ir.Block, ind string) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.For:
			fmt.Fprintf(sb, "%sfor %s in range(%s):\n", ind, s.Var.Name, dispatch.ExprText(s.Extent))
			writeBlock(sb, s.Body, ind+"    ")
		case *ir.If:
			fmt.Fprintf(sb, "%sif %s:\n", ind, dispatch.ExprText(s.Cond))
			writeBlock(sb, s.Then, ind+"    ")
		case *ir.Store:
			idx := make([]string, len(s.Indices))
			for i, x := range s.Indices {
				idx[i] = dispatch.ExprText(x)
			}
			fmt.Fprintf(sb, "%s%s[%s] = %s\n", ind, s.Buf.Name, strings.Join(idx, ", "), dispatch.ExprText(s.Value))
		case *ir.Evaluate:
			fmt.Fprintf(sb, "%s%s\n", ind, dispatch.ExprText(s.X))
		case *ir.Let:
			fmt.Fprintf(sb, "%s%s = %s\n", ind, s.Var.Name, dispatch.ExprText(s.Value))
		case *ir.Alloc:
			fmt.Fprintf(sb, "%s%s = alloc(%v, %s, %s)\n", ind, s.Buf.Name, s.Buf.Shape, s.Buf.Dtype, s.Buf.Scope)
		default:
			fmt.Fprintf(sb, "%s%T\n", ind, s)
		}
	}
}
