package cuda

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// TestCopyReleases checks the synchronous copies and ldgsts where 0.25,
// 0.26 and 0.27 lower the same call differently: each case lowers one
// kernel under each release and looks for a substring of the body (or of
// the failure table). Expectations are the wheels' outputs (run through the
// wheels' own dispatch pass and CUDA printer):
//   - 0.25 gmem_smem: T.cuda.copy_bytes and the signed-stride swizzle fast path;
//     0.26/0.27 vec_auto: an ld.global.v4.u32 / st.shared.v4.u32 chain pair;
//   - vec_64b with l2_evict: 0.26 prints ld.global.L2::evict_first.v2.u32,
//     0.27's chain table rejects it (the KeyError of its .v2 slot);
//   - ldgsts prefetch_size: ignored by 0.25, .L2::128B from 0.26 on.
func TestCopyReleases(t *testing.T) {
	swizzled := func(k *kb) {
		k.wgKernel()
		g := k.buf("A", "global", "float16", "", 128, 64)
		s := withLayout(k.buf("A_s", "shared", "float16", "", 128, 64), mustCompose(t, 3, 3, 3, "S[(128,64):(64,1)]"))
		k.copyCall("warpgroup", full(s), full(g), "")
	}
	l2 := func(k *kb) {
		k.ctaKernel(32)
		g := k.buf("A", "global", "float16", "", 64)
		l := k.buf("L", "local", "float16", "", 4)
		k.copyCall("thread", full(l), sub(g, [2]int64{0, 4}), "vec_64b",
			ir.KV{Key: "l2_evict", Value: &ir.StringImm{Value: "L2::evict_first"}})
	}
	prefetch := func(k *kb) {
		k.ctaKernel(128)
		g := k.buf("A", "global", "float16", "", 128, 8)
		s := k.buf("A_s", "shared", "float16", "", 128, 8)
		tc := k.copyCall("cta", full(s), full(g), "", ir.KV{Key: "prefetch_size", Value: ir.Const(128)})
		tc.Op = "copy_async"
	}
	for _, tc := range []struct {
		name  string
		build func(*kb)
		rel   release.Release
		want  string // substring of the lowered body, or of the failure table
	}{
		{"gmem_smem 0.25", swizzled, release.R025, "cuda.copy_bytes("},
		{"gmem_smem 0.25 fast path", swizzled, release.R025, "signed_strides"},
		{"vec_auto 0.26", swizzled, release.R026, "ptx.ld.global.v4.u32(tmp[0], tmp[1], tmp[2], tmp[3], "},
		{"vec_auto 0.27", swizzled, release.R027, "ptx.st.shared.v4.u32("},
		{"vec_64b l2_evict 0.26", l2, release.R026, "ptx.ld.global.L2::evict_first.v2.u32(L_words[0], L_words[1], "},
		{"vec_64b l2_evict 0.27", l2, release.R027, `KeyError: "'v2' is not a valid modifier for 'ld'; open slots: sem∈{weak,acquire,relaxed,volatile}; scope∈{cta,cluster,gpu,sys}; cop∈{ca,cg,cs,lu,cv}; nc∈{nc}; l1ev∈`},
		{"ldgsts prefetch 0.25", prefetch, release.R025, "ptx.cp_async("},
		{"ldgsts prefetch 0.27", prefetch, release.R027, "ptx.cp.async.cg.shared.global.L2::128B("},
	} {
		k := newKernel(t)
		tc.build(k)
		target := dispatch.DefaultTarget()
		target.Release = tc.rel
		out := dispatch.Lower(k.fn, target, Variants())
		if len(out.Decisions) != 1 {
			t.Errorf("%s: %d decisions, want 1", tc.name, len(out.Decisions))
			continue
		}
		d := out.Decisions[0]
		got := ""
		if d.Result != nil {
			got = blockText(d.Result.Body)
		} else if d.Explanation != nil {
			got = d.Explanation.Table()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: variant %q, lacks %q:\n%s", tc.name, d.Variant, tc.want, got)
		}
	}
}
