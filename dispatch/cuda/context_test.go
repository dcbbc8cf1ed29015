package cuda

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Golden text of TVM's failure table for a forced variant that cannot
// apply (spec §6.3 row 50: dispatch="vec_64b" on four floats).
func TestForcedVariantTable(t *testing.T) {
	k := newKernel(t)
	k.ctaKernel(32)
	l := k.buf("L", "local", "float32", "", 4)
	s := k.buf("S", "shared", "float32", "", 4)
	k.copyCall("thread", full(l), full(s), "vec_64b")
	target := dispatch.DefaultTarget()
	target.Release = release.R027 // 0.25 registers no forced widths
	out := dispatch.Lower(k.fn, target, Variants())
	got := out.Decisions[0].Explanation.Table()
	want := `TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda
+-------------------+-------------------------------------------------------------------------------+
| Variant           | Error                                                                         |
+-------------------+-------------------------------------------------------------------------------+
| vec_64b (prio=20) | rejected: vec_64b_applicable — src region does not contain exactly 2 elements |
|                   | opcall:                                                                       |
|                   | Tx.copy(L[0:4], S[0:4], dispatch="vec_64b")                                   |
+-------------------+-------------------------------------------------------------------------------+`
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	if len(out.Diags) != 1 || out.Diags[0].Code != "dispatch/forced-variant" || out.Diags[0].Severity != diag.Error {
		t.Fatalf("diags: %+v", out.Diags)
	}
}

// ctxCase is one exec-context scenario: a kernel, one copy inside it, and
// what the dispatcher must decide.
type ctxCase struct {
	name    string
	build   func(k *kb)
	variant string
	threads int64
	reason  string // substring of some declined reason ("" = none checked)
	diag    string // "code: message substring" of some diagnostic
}

func TestExecContext(t *testing.T) {
	g2sIn := func(scope string, rows, cols int64) func(k *kb) {
		return func(k *kb) {
			a := k.buf("A", "global", "float16", "", rows, cols)
			s := k.buf("A_smem", "shared", "float16", "", rows, cols)
			k.copyCall(scope, full(s), full(a), "")
		}
	}
	cases := []ctxCase{
		{"warp inside if warp_id == 5 keeps laneid full", func(k *kb) {
			k.ctaKernel(256)
			w := k.scope(ir.WarpID)
			k.scope(ir.LaneID)
			k.ifThen(cmpE(ir.EQ, w, 5))
			g2sIn("warp", 32, 8)(k)
			k.end()
		}, "gmem_smem", 32, "", ""},
		{"warpgroup inside if wg_id == 1", func(k *kb) {
			k.ctaKernel(256)
			wg := k.scope(ir.WarpgroupID)
			k.ifThen(cmpE(ir.EQ, wg, 1))
			g2sIn("warpgroup", 128, 8)(k)
			k.end()
		}, "gmem_smem", 128, "", ""},
		{"cta under if tid < 64 falls back", func(k *kb) {
			tid := k.ctaKernel(256)
			k.ifThen(cmpE(ir.LT, tid, 64))
			g2sIn("cta", 32, 32)(k)
			k.end()
		}, "fallback", 64, "warpid narrowed to [0, 2) vs full [0, 8)",
			"dispatch/fallback-only: copy lowers only through fallback (scalar, single thread): gmem_smem: warpid narrowed to [0, 2) vs full [0, 8)"},
		{"mirrored and merged range atoms", func(k *kb) {
			tid := k.ctaKernel(256)
			k.ifThen(&ir.Binary{Op: ir.And, A: &ir.Binary{Op: ir.LE, A: ir.Const(32), B: tid},
				B: cmpE(ir.LT, tid, 64)})
			g2sIn("warp", 32, 8)(k)
			k.end()
		}, "gmem_smem", 32, "", ""},
		{"warp under if lane < 16 falls back", func(k *kb) {
			k.ctaKernel(64)
			lane := k.scope(ir.LaneID)
			k.ifThen(cmpE(ir.LT, lane, 16))
			g2sIn("warp", 32, 8)(k)
			k.end()
		}, "fallback", 16, "laneid narrowed to [0, 16) vs full [0, 32)", ""},
		{"elect_sync narrows laneid to a selector", func(k *kb) {
			k.ctaKernel(32)
			k.scope(ir.LaneID)
			k.ifThen(&ir.Call{Op: ir.OpElectSync, Type: ir.Int32})
			g2sIn("warp", 32, 8)(k)
			k.end()
		}, "", 1, "non-static range for laneid: (1, selector(lane_id, ptx.elect_sync()))",
			"dispatch/no-variant: no variant of copy applies: gmem_smem: non-static range for laneid"},
		{"data branch does not narrow", func(k *kb) {
			tid := k.ctaKernel(256)
			x := &ir.Var{Name: "x", Type: ir.Int32}
			k.ifThen(&ir.Binary{Op: ir.And, A: cmpE(ir.LT, tid, 64), B: cmpE(ir.GT, x, 3)})
			g2sIn("cta", 32, 32)(k)
			k.end()
		}, "gmem_smem", 256, "", ""},
		{"8-thread cta is degenerate", func(k *kb) {
			k.ctaKernel(8)
			g2sIn("cta", 8, 256)(k)
		}, "fallback", 0, "degenerate thread_cnt=0 (scope has empty intra)", ""},
		{"cluster scope: fallback raises KeyError", func(k *kb) {
			k.ctaKernel(128)
			g2sIn("cluster", 8, 8)(k)
		}, "", 128, "KeyError: 'cluster'", "dispatch/no-variant: no variant of copy applies: gmem_smem: unsupported exec_scope cluster"},
		{"warp id inferred from lane and thread ids", func(k *kb) {
			k.scope(ir.CTAID, 1)
			k.scope(ir.LaneID, 32)
			k.scope(ir.WarpID, 4)
			g2sIn("cta", 32, 32)(k)
		}, "gmem_smem", 128, "", ""},
		{"inconsistent extents", func(k *kb) {
			k.ctaKernel(128)
			k.scope(ir.WarpID, 8)
			k.scope(ir.LaneID, 32)
			g2sIn("warp", 32, 8)(k)
		}, "gmem_smem", 32, "", "dispatch/launch: Inconsistent extents for scope binding"},
		{"non-divisible extents", func(k *kb) {
			k.ctaKernel(48)
			k.scope(ir.LaneID, 32)
			g2sIn("warp", 32, 8)(k)
		}, "", -1, "", "dispatch/launch: scope binding 4 (cta->warp) has non-divisible extents: 48 is not divisible by 32"},
		{"no thread launch parameters", func(k *kb) {
			k.scope(ir.CTAID, 4)
			g2sIn("thread", 4, 8)(k)
		}, "gmem_smem", 1, "", "dispatch/launch: kernel has no thread launch parameters. At minimum, declare cta->thread extent (e.g., Tx.thread_id([128]))"},
		{"no registered variants", func(k *kb) {
			k.ctaKernel(32)
			a := k.buf("A", "shared", "float32", "", 4)
			k.add(&ir.TileCall{Op: "frobnicate", Scope: "cta", Args: []ir.Arg{full(a)}, Span: k.span()})
		}, "", 32, "", "dispatch/no-variant: TIRx schedule dispatch failed: op=tirx.tile.frobnicate target=cuda: no registered variants for this op/target"},
		{"forced name not registered", func(k *kb) {
			k.ctaKernel(32)
			a := k.buf("A", "global", "float32", "", 32)
			s := k.buf("S", "shared", "float32", "", 32)
			k.copyCall("cta", full(s), full(a), "nope")
		}, "", 32, "", "dispatch/forced-variant: dispatch=\"nope\" does not apply\nTIRx schedule dispatch failed: op=tirx.tile.copy target=cuda\nno variant named 'nope' is registered"},
		{"vec_auto is not registered under 0.25", func(k *kb) {
			k.ctaKernel(32)
			a := k.buf("A", "global", "float32", "", 32)
			s := k.buf("S", "shared", "float32", "", 32)
			k.copyCall("cta", full(s), full(a), "vec_auto")
		}, "", 32, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkCtx(t, c) })
	}
}

func checkCtx(t *testing.T, c ctxCase) {
	k := newKernel(t)
	c.build(k)
	out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
	if len(out.Decisions) != 1 {
		t.Fatalf("%d decisions", len(out.Decisions))
	}
	d := out.Decisions[0]
	if c.threads >= 0 && d.Variant != c.variant {
		t.Errorf("variant %q, want %q\n%s", d.Variant, c.variant, d.Explanation.TableCompact())
	}
	if c.threads >= 0 && d.Threads != c.threads {
		t.Errorf("threads %d, want %d (intra %v)", d.Threads, c.threads, d.Intra)
	}
	if c.reason != "" {
		var all []string
		for _, r := range d.Declined {
			all = append(all, r.Variant+": "+r.Reason)
		}
		if !strings.Contains(strings.Join(all, "\n"), c.reason) {
			t.Errorf("no declined reason contains %q:\n%s", c.reason, strings.Join(all, "\n"))
		}
	}
	if c.diag != "" {
		code, msg, _ := strings.Cut(c.diag, ": ")
		found := false
		for _, dg := range out.Diags {
			if dg.Code == code && strings.Contains(dg.Message, msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s diagnostic containing %q: %+v", code, msg, out.Diags)
		}
	}
	// The input is never modified.
	for _, s := range k.fn.Body.Stmts {
		if _, ok := s.(*ir.Lowered); ok {
			t.Errorf("input function was modified")
		}
	}
}

// BenchmarkSelect times one Lower of a kernel with 20 copies of mixed
// kinds (gmem_smem, reg, fallback, swizzled).
func BenchmarkSelect(b *testing.B) {
	k := newKernel(b)
	k.ctaKernel(128)
	k.scope(ir.LaneID)
	k.scope(ir.WarpID)
	a := k.buf("A", "global", "float16", "", 128, 64)
	s := k.buf("S", "shared", "float16", "", 128, 64)
	sw := withLayout(k.buf("W", "shared", "float16", "", 32, 64), mustCompose(b, 3, 3, 3, "S[32,64]"))
	r := k.buf("R", "local", "float16", "S[(32,16):(1@laneid,1)]", 32, 16)
	for range 5 {
		k.copyCall("cta", full(s), full(a), "")
		k.copyCall("warp", full(sw), sub(a, [2]int64{0, 32}, [2]int64{0, 64}), "")
		k.copyCall("warp", full(r), sub(s, [2]int64{0, 32}, [2]int64{0, 16}), "")
		k.copyCall("cta", sub(s, [2]int64{0, 3}, [2]int64{0, 5}), sub(a, [2]int64{0, 3}, [2]int64{0, 5}), "")
	}
	b.ReportAllocs()
	for b.Loop() {
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		if len(out.Decisions) != 20 {
			b.Fatal(len(out.Decisions))
		}
	}
}
