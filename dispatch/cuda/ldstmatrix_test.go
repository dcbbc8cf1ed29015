package cuda

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
)

// ldstmatrix cases (no spec row applies it: its tests are GPU-only). Each
// selected lowering is executed by the interpreter of sim_test.go.
func TestLdstmatrix(t *testing.T) {
	// An m16n16 b16 fragment: lane = 4*row%8 + col/2%4, 8 registers.
	const frag = "S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]"
	cases := []struct {
		name, scope, rlay, slay, want, reason string
		rows, cols                            int64
		swz                                   bool
	}{
		{"x4 fragment <-> row-major smem", "warp", frag, "", "ldstmatrix", "", 16, 16, false},
		{"x4 fragment <-> 128B-swizzled smem", "warp", frag, "", "ldstmatrix", "", 16, 16, true},
		{"transposed smem", "warp", frag, "S[(16,16):(1,16)]", "ldstmatrix", "", 16, 16, false},
		{"row-major registers decline", "warp", "S[(32,8):(1@laneid,1)]", "", "reg", "ldstmatrix layout doesn't fit any num ∈ {4,2,1}", 32, 8, false},
		{"replica declines", "warp", "S[(32,8):(1@laneid,1)] + R[2:1@warpid]", "", "reg", "R layout has replica", 32, 8, false},
	}
	for _, c := range cases {
		k := newKernel(t)
		k.warpKernel()
		r := k.buf("R", "local", "float16", c.rlay, c.rows, c.cols)
		s := k.buf("S", "shared", "float16", c.slay, c.rows, c.cols)
		if c.swz {
			withLayout(s, mustCompose(t, 3, 3, 3, "S[16,16]"))
		}
		k.copyCall(c.scope, full(r), full(s), "")
		k.copyCall(c.scope, full(s), full(r), "")
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		for i, d := range out.Decisions {
			if d.Variant != c.want {
				t.Errorf("%s call %d: variant %q, want %q\n%s", c.name, i, d.Variant, c.want, d.Explanation.TableCompact())
				continue
			}
			if c.reason != "" {
				found := false
				for _, r := range d.Declined {
					found = found || strings.Contains(r.Reason, c.reason)
				}
				if !found {
					t.Errorf("%s call %d: no reason %q in %+v", c.name, i, c.reason, d.Declined)
				}
			}
			if d.Variant == "ldstmatrix" {
				op := map[int]string{0: "ptx.ldmatrix(", 1: "ptx.stmatrix("}[i]
				if body := blockText(d.Result.Body); !strings.Contains(body, op) {
					t.Errorf("%s call %d: body lacks %s:\n%s", c.name, i, op, body)
				}
				if err := simulate(d, out.Launch.Block[0], nil); err != nil {
					t.Errorf("%s call %d: %v\n%s", c.name, i, err, blockText(d.Result.Body))
				}
			}
		}
	}
}
