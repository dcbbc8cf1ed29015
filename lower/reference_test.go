package lower

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/release"
)

// TestInferReference: the release a file's own constructs point to, the
// newest every piece of evidence admits. The snippets are spelled as each
// wheel takes them (each construct checked with that release's python:
// importlib / getattr over T; 0.27's PTX chains through its engine).
func TestInferReference(t *testing.T) {
	const hdr = "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n"
	for _, c := range []struct {
		name, src string
		want      release.Release
		ok        bool
		why       string // a fragment of Reference.Why
	}{
		{"nothing", hdr + "x = 1\n", release.Newest, false, ""},
		{"swizzle-0.25", hdr + "from tvm.tirx.layout import SwizzleLayout, ComposeLayout\nL = ComposeLayout(SwizzleLayout(3, 3, 3), tile)\n",
			release.R025, true, "SwizzleLayout"},
		{"compose-form-0.25", hdr + "L = T.ComposeLayout(sw, T.TileLayout(T.S[8, 64]))\n", release.R025, true, "ComposeLayout(swizzle, tile)"},
		{"compose-form-0.26+", hdr + "L = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[8, 64]))\n", release.R027, true, "0.26 and later"},
		{"module-0.25", "from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout\n", release.R025, true, "tvm.tirx.cuda.operator"},
		{"module-0.26+", "import tvm.backend.cuda.tile_primitive\n", release.R027, true, "tvm.backend.cuda.tile_primitive"},
		{"from-submodule", "from tvm.backend.cuda import tile_primitive\n", release.R027, true, "tvm.backend.cuda.tile_primitive"},
		{"module-0.26-only", "from tvm.backend.cuda.intrinsics import registry\n", release.R026, true, "0.26 only"},
		{"elect-0.27", hdr + "def k():\n    if T.cuda.elect_sync():\n        pass\n", release.R027, true, "T.cuda.elect_sync"},
		{"ptx-chain-0.27", hdr + "def k():\n    T.ptx.mbarrier.init.shared.b64(bar, 1)\n", release.R027, true, "0.27 only"},
		{"ptx-legacy-0.25/0.26", hdr + "def k():\n    T.ptx.fence.proxy_async(\"shared::cta\")\n", release.R026, true, "0.25 and 0.26"},
		// 0.26's import path with the ptx functions 0.27 renamed: only 0.26 has both.
		{"0.26-by-intersection", "import tvm.backend.cuda.tile_primitive\n" + hdr + "def k():\n    T.ptx.mbarrier.init(bar, 1)\n    T.ptx.cp_async.bulk.commit_group()\n",
			release.R026, true, "tvm.backend.cuda.tile_primitive"},
		{"0.26-only-ptx", hdr + "def k():\n    T.ptx.ld_global_nc(x)\n", release.R026, true, "0.26 only"},
		{"0.25-only-cuda", hdr + "def k():\n    T.cuda.copy_128b(a, b)\n", release.R025, true, "0.25 only"},
		{"alias", "from tvm.script import tirx as TT\ndef k():\n    TT.cuda.mbarrier_wait(bar, 0)\n", release.R027, true, "T.cuda.mbarrier_wait"},
		{"tx-scope", hdr + "def k():\n    Tx.cta.log2(d, s)\n", release.R027, true, "Tx.log2"},
		{"ptx-everywhere", hdr + "def k():\n    T.ptx.elect_sync()\n    T.ptx.bar.sync(1, 128)\n", release.Newest, false, ""},
		{"dispatch", hdr + "def k():\n    Tx.copy(a, b, dispatch=\"gmem_smem\")\n", release.R025, true, "gmem_smem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _ := syntax.Parse(source.NewFile("k.py", []byte(c.src)))
			r, ok := InferReference(f)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, c.ok, r)
			}
			if !ok {
				return
			}
			if r.Release != c.want || !strings.Contains(r.Why, c.why) {
				t.Errorf("got %s (%q), want %s with %q", r.Release.Short(), r.Why, c.want.Short(), c.why)
			}
		})
	}
}

// TestReferencePrintChains: an edit that changes which release a library
// chain shows changes the print (so a session re-infers the release).
func TestReferencePrintChains(t *testing.T) {
	for _, c := range [][2]string{
		{"T.ptx.mbarrier.init(bar, 1)", "T.ptx.mbarrier.init.shared.b64(bar, 1)"},
		{"ComposeLayout(sw, tile)", "ComposeLayout(3, 3, 3, tile)"},
		{"T.cuda.elect_sync()", "T.ptx.elect_sync()"},
	} {
		if referencePrint([]byte(c[0])) == referencePrint([]byte(c[1])) {
			t.Errorf("%q and %q print the same", c[0], c[1])
		}
	}
}

// TestComposeSpellingsLowerAlike: 0.25's ComposeLayout(SwizzleLayout(3, 3,
// 3), tile) and 0.26's ComposeLayout(3, 3, 3, tile) are one layout. Under
// 0.27 (the 0.25 spelling modelled as 0.25 does, with a warning) both
// programs lower to the same CUDA as the 0.27 golden's out/cuda.
func TestComposeSpellingsLowerAlike(t *testing.T) {
	golden := func(name string) (src, cu string) {
		ar, err := txtar.ParseFile("testdata/" + name + ".txtar")
		if err != nil {
			t.Fatal(err)
		}
		s, _ := ar.Get("kernel.py")
		c, _ := ar.Get("out/cuda")
		return string(s), string(c)
	}
	src25, _ := golden("surface_compose_025")
	_, cu27 := golden("surface_compose_027")
	opts := Options{Reference: "0.27"}
	res := Analyze(source.NewFile("kernel.py", []byte(src25)), opts)
	cu, err := CUDA(res.Kernels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cu != cu27 {
		t.Errorf("the two spellings lower differently under 0.27:\n--- SwizzleLayout\n%s\n--- ComposeLayout(p, b, s, tile)\n%s", cu, cu27)
	}
	if !strings.Contains(cu, "__global__") {
		t.Errorf("no kernel in the CUDA:\n%s", cu)
	}
	warned := false
	for _, d := range res.Diags {
		warned = warned || strings.Contains(d.Message, "SwizzleLayout")
	}
	if !warned {
		t.Errorf("no warning at 0.25's SwizzleLayout under 0.27: %v", res.Diags)
	}
}
