package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// TestFlatIndexMatchesLayout checks the symbolic address flatIndex prints
// against the layout algebra's own numbers: for random in-range coordinates
// the expression, evaluated, equals layout.ApplyShape(...)[m].
func TestFlatIndexMatchesLayout(t *testing.T) {
	compose := func(p, sw, at int, inner bool, tile *layout.TileLayout) layout.Layout {
		c, err := layout.NewCompose(p, sw, at, inner, tile)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	parse := func(s string) *layout.TileLayout {
		l, err := layout.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l.(*layout.TileLayout)
	}
	for _, tc := range []struct {
		shape []int64
		l     layout.Layout
	}{
		{[]int64{4, 6}, layout.RowMajor(4, 6)},
		{[]int64{128, 64}, parse("S[(128,8,8):(8,1024,1)]")},                       // K-tiled MMA smem (§4.1)
		{[]int64{2, 16}, parse("S[(2,16):(20,1)]")},                                // padded rows
		{[]int64{4, 16}, parse("S[(4,16):(32,1)] + 3")},                            // a slice with an offset
		{[]int64{32, 64}, compose(3, 3, 3, true, layout.RowMajor(32, 64))},         // 128B swizzle, fp16
		{[]int64{8, 256}, compose(3, 3, 3, true, parse("S[(8,4,64):(64,512,1)]"))}, // mma_shared_layout(f16,128B,(8,256))
		{[]int64{128, 64}, compose(3, 3, 3, true, layout.RowMajor(512))},           // bare swizzle atom over a larger buffer
		{[]int64{64, 64}, compose(2, 3, 3, true, parse("S[(64,2,32):(32,2048,1)]"))},
		{[]int64{16, 32}, compose(2, 2, 3, false, layout.RowMajor(16, 32))}, // swizzle_inner=False
		{[]int64{3, 5, 7}, parse("S[(105,):(1,)]")},                         // one iter split over three dims
		{[]int64{4, 6}, parse("S[(6,4):(1,6)]")},                            // grouping by shape fails: flatten+split
	} {
		b := &ir.Buffer{Name: "X", Shape: tc.shape, Dtype: ir.Float16, Scope: "shared", Layout: tc.l, Kind: ir.AllocBuffer}
		vars := make([]ir.Expr, len(tc.shape))
		for d := range vars {
			vars[d] = &ir.Var{Name: "i", Type: ir.Int32}
		}
		e, err := flatIndex(b, vars)
		if err != nil {
			t.Errorf("%s: %v", tc.l, err)
			continue
		}
		n, err := storageCount(b)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(tc.shape))))
		for range 200 {
			coord := make([]int64, len(tc.shape))
			env := map[*ir.Var]int64{}
			for d, ext := range tc.shape {
				coord[d] = rng.Int64N(ext)
				env[vars[d].(*ir.Var)] = coord[d]
			}
			want := layout.ApplyShape(tc.l, coord, tc.shape)[layout.M]
			if got := evalInt(t, e, env); got != want {
				t.Errorf("%s at %v: printed address gives %d, layout gives %d", tc.l, coord, got, want)
				break
			}
			if want < 0 || want >= n {
				t.Errorf("%s at %v: address %d outside the %d allocated elements", tc.l, coord, want, n)
				break
			}
		}
	}
}

func evalInt(t *testing.T, e ir.Expr, env map[*ir.Var]int64) int64 {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value
	case *ir.Var:
		v, ok := env[e]
		if !ok {
			t.Fatalf("unbound variable %s", e.Name)
		}
		return v
	case *ir.Binary:
		a, b := evalInt(t, e.A, env), evalInt(t, e.B, env)
		switch e.Op {
		case ir.Add:
			return a + b
		case ir.Sub:
			return a - b
		case ir.Mul:
			return a * b
		case ir.FloorDiv:
			return a / b // operands are non-negative
		case ir.FloorMod:
			return a % b
		case ir.BitAnd:
			return a & b
		case ir.BitOr:
			return a | b
		case ir.BitXor:
			return a ^ b
		case ir.Shl:
			return a << b
		case ir.Shr:
			return a >> b
		}
	}
	t.Fatalf("cannot evaluate %T", e)
	return 0
}

func TestStorageCount(t *testing.T) {
	thr, err := layout.Parse("S[(32,8):(1@laneid,1)]")
	if err != nil {
		t.Fatal(err)
	}
	gapped, err := layout.Parse("S[(32,2,2):(1@laneid,2,4)]")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		shape []int64
		l     layout.Layout
		want  int64
	}{
		{[]int64{32, 32}, nil, 1024},
		{[]int64{32, 32}, layout.RowMajor(32, 32), 1024},
		{[]int64{32, 8}, thr, 8},       // registers per lane (§4.3)
		{[]int64{32, 2, 2}, gapped, 7}, // storage span, not size (§2.4)
	} {
		b := &ir.Buffer{Name: "X", Shape: tc.shape, Dtype: ir.Float32, Scope: "local", Layout: tc.l}
		if got, err := storageCount(b); err != nil || got != tc.want {
			t.Errorf("storageCount(%v, %v) = %d, %v; want %d", tc.shape, tc.l, got, err, tc.want)
		}
	}
}
