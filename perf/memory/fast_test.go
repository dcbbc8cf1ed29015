package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// randomEvent returns a warp access whose per-lane addresses follow one of
// the patterns lowered code makes (strided, swizzled, broadcast, row
// blocks, random) with a random active mask.
func randomEvent(r *rand.Rand, k kind, width int64) event {
	e := event{k: k, width: width, bytes: width, mask: 0xffffffff, src: new(lanes)}
	switch r.IntN(4) {
	case 0:
		e.mask = r.Uint32() | 1
	case 1:
		e.mask = 1<<(1+r.IntN(31)) - 1
	}
	stride := width << r.IntN(6)
	base := int64(r.IntN(64)) * width
	for i := range int64(32) {
		switch r.IntN(5) {
		case 0:
			e.addr[i] = base + i*stride
		case 1:
			e.addr[i] = base + ((i&^7)+((i&7)^int64(r.IntN(8))))*width
		case 2:
			e.addr[i] = base
		case 3:
			e.addr[i] = base + (i%8)*128 + (i/8)*width
		default:
			e.addr[i] = int64(r.IntN(256)) * width
		}
		e.src[i] = int64(r.IntN(1024)) * width
		if r.IntN(2) == 0 {
			e.src[i] = i * width * int64(1+r.IntN(4))
		}
	}
	return e
}

// TestCpAsyncSectorsFast compares the fixed-size cp.async pass counting
// (copies of at most 16 bytes) with the general one on generated patterns.
func TestCpAsyncSectorsFast(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for n := range 20000 {
		w := []int64{4, 8, 16}[n%3]
		e := randomEvent(r, cpAsync, w)
		n1, i1 := cpAsyncSectors(&e)
		n2, i2 := cpAsyncSectorsWide(&e)
		if n1 != n2 || i1 != i2 {
			t.Fatalf("width %d mask %#x addr %v src %v: fast %d/%d, general %d/%d", w, e.mask, e.addr, e.src, n1, i1, n2, i2)
		}
	}
}

// TestLanePasses checks Instruction.Lanes (what the bank-map picture
// draws) against the counting rule on generated accesses: one pass per
// counted pass, and the most distinct words one bank holds in each pass
// summed over the passes is the instruction's wavefronts.
func TestLanePasses(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	for n := range 20000 {
		k := []kind{sharedLoad, sharedStore, ldmatrix, stmatrix}[n%4]
		w := []int64{1, 2, 4, 8, 16}[r.IntN(5)]
		if k == ldmatrix || k == stmatrix {
			w = []int64{1, 2, 4}[r.IntN(3)]
		}
		e := randomEvent(r, k, w)
		if k == ldmatrix || k == stmatrix {
			for i := range e.addr {
				e.addr[i] &^= 15
			}
		}
		var wf, ideal int64
		if k == ldmatrix || k == stmatrix {
			wf, ideal, _ = matrixWavefronts(&e, &bankWords{})
		} else {
			wf, ideal, _ = sharedWavefronts(&e)
		}
		words := map[int]map[int64]bool{} // pass*32+bank -> words
		passes := map[int]bool{}
		// (what describe keeps of the access: Lanes lists it when asked)
		in := &Instruction{rec: &laneRecord{k: e.k, mask: e.mask, width: e.width, addr: e.addr}}
		for _, l := range in.Lanes() {
			passes[l.Pass] = true
			for wd := l.Addr >> 2; wd <= (l.Addr+l.Bytes-1)>>2; wd++ {
				key := l.Pass*32 + int(wd&31)
				if words[key] == nil {
					words[key] = map[int64]bool{}
				}
				words[key][wd] = true
			}
		}
		depth := map[int]int64{}
		for key, ws := range words {
			depth[key/32] = max(depth[key/32], int64(len(ws)))
		}
		var sum int64
		for _, d := range depth {
			sum += d
		}
		if int64(len(passes)) != ideal || sum != wf {
			t.Fatalf("%v width %d mask %#x addr %v: lanes give %d passes, %d wavefronts; counted %d, %d", k, w, e.mask, e.addr, len(passes), sum, ideal, wf)
		}
	}
}

// TestBinaryConst compares the constant-operand fast path with the lane
// by lane operator on generated values (negative, zero and large ones).
func TestBinaryConst(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	ops := []ir.BinOp{ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.Div, ir.FloorMod, ir.Min, ir.Max, ir.EQ, ir.NE, ir.LT, ir.LE,
		ir.GT, ir.GE, ir.And, ir.Or, ir.BitAnd, ir.BitOr, ir.BitXor, ir.Shl, ir.Shr}
	for n := range 5000 {
		var a lanes
		for i := range a {
			a[i] = r.Int64N(2001) - 1000
		}
		c := r.Int64N(41) - 20
		if n%7 == 0 {
			c = 0
		}
		op := ops[n%len(ops)]
		want, b := a, bcast(c)
		w1 := binaryTo(op, &want, &a, &b)
		got := a
		w2 := binaryConst(op, &got, c)
		if got != want || w1 != w2 {
			t.Fatalf("op %v c %d: %v (%q), want %v (%q)", op, c, got, w2, want, w1)
		}
	}
}

// TestLinearLayouts compares the linear form of a buffer layout with
// layout.ShapeApplier (the per-coordinate path) on generated coordinates,
// in range and out of it, for layouts that are linear and ones that are
// not (which must fall back).
func TestLinearLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	it := layout.It
	tiles := []struct {
		l     *layout.TileLayout
		shape []int64
	}{
		{layout.RowMajor(32, 32), []int64{32, 32}},
		{layout.NewTile([]layout.Iter{it(32, 1, nil), it(32, 32, nil)}, nil, nil), []int64{32, 32}},
		{layout.NewTile([]layout.Iter{it(32, 33, nil), it(32, 1, nil)}, nil, map[*layout.Axis]int64{nil: 5}), []int64{32, 32}},
		{layout.RowMajor(4, 8, 16), []int64{4, 8, 16}},
		{layout.RowMajor(1024), []int64{32, 32}},
		{layout.NewTile([]layout.Iter{it(4, 8, nil), it(8, 1, nil), it(32, 32, nil)}, nil, nil), []int64{32, 32}},
		{layout.RowMajor(1, 64), []int64{1, 64}},
	}
	var lays []struct {
		l     layout.Layout
		shape []int64
	}
	for _, c := range tiles {
		lays = append(lays, struct {
			l     layout.Layout
			shape []int64
		}{c.l, c.shape})
		if sw, err := layout.NewCompose(2, 3, 3, true, c.l); err == nil {
			lays = append(lays, struct {
				l     layout.Layout
				shape []int64
			}{sw, c.shape})
		}
	}
	linearSeen := 0
	for _, c := range lays {
		b := &ir.Buffer{Name: "b", Shape: c.shape, Dtype: ir.Float32, Layout: c.l, Scope: "shared"}
		m := &machine{linears: map[*ir.Buffer]linear{}, appliers: map[*ir.Buffer]func([]int64) int64{}}
		ln := m.linearOf(b)
		if !ln.ok {
			continue
		}
		linearSeen++
		ap := m.applier(b)
		coord := make([]int64, len(c.shape))
		for range 2000 {
			v := ln.off
			for d := range coord {
				coord[d] = r.Int64N(c.shape[d])
				if r.IntN(8) == 0 {
					coord[d] = r.Int64N(4*c.shape[d]+1) - c.shape[d]
				}
				v += coord[d] * ln.strides[d]
			}
			if ln.swz != nil {
				v = ln.swz.SwizzleAddr(v)
			}
			if want := ap(coord); v != want {
				t.Fatalf("layout %v shape %v coord %v: linear %d, applier %d", c.l, c.shape, coord, v, want)
			}
		}
	}
	if linearSeen < 6 {
		t.Errorf("only %d of %d layouts linear", linearSeen, len(lays))
	}
}
