package cuda

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
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

// ldstmatrix with a loop variable in the shared region's start
// (A_s[:, j*16:j*16+16] in a loop): TVM slices at the symbolic start and
// takes ldmatrix/stmatrix; tilels used to decline with "non-constant region"
// and fall back to reg (found by the reference-agreement corpus,
// testdata/agreement/v_ldstmatrix_loop_region.py). Each lowering is
// executed by the simulator for every value of j.
func TestLdstmatrixSymbolicStart(t *testing.T) {
	const frag = "S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]"
	cases := []struct {
		name string
		swz  bool
		cols int64 // shared tile columns; the region is 16 of them at j*16
		want string
	}{
		{"row-major smem", false, 64, "ldstmatrix"},
		{"128B-swizzled smem", true, 64, "ldstmatrix"},
	}
	for _, c := range cases {
		k := newKernel(t)
		k.warpKernel()
		j := &ir.Var{Name: "j", Type: ir.Int32}
		r := k.buf("R", "local", "float16", frag, 16, 16)
		s := k.buf("S", "shared", "float16", "", 16, c.cols)
		if c.swz {
			withLayout(s, mustCompose(t, 3, 3, 3, "S[16,64]"))
		}
		region := func() *ir.Region {
			return &ir.Region{Buf: s, Min: []ir.Expr{ir.Const(0), ir.MulE(j, ir.Const(16))},
				Extent: []ir.Expr{ir.Const(16), ir.Const(16)}}
		}
		k.copyCall("warp", full(r), region(), "")
		k.copyCall("warp", region(), full(r), "")
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		for i, d := range out.Decisions {
			if d.Variant != c.want {
				t.Errorf("%s call %d: variant %q, want %q\n%s", c.name, i, d.Variant, c.want, d.Explanation.TableCompact())
				continue
			}
			if d.Result.Vec != 8 || d.Result.Outer != 1 {
				t.Errorf("%s call %d: vec/outer %d/%d, want 8/1", c.name, i, d.Result.Vec, d.Result.Outer)
			}
			for jv := range c.cols / 16 {
				if err := simulate(d, out.Launch.Block[0], map[*ir.Var]int64{j: jv}); err != nil {
					t.Errorf("%s call %d, j=%d: %v\n%s", c.name, i, jv, err, blockText(d.Result.Body))
				}
			}
		}
	}
}
