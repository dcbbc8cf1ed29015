package layout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// show renders a result or error for inline expectations.
func show(l Layout, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case l == nil:
		return "nil"
	}
	return l.String()
}

// showMap renders an Apply result with axes in the fixed axis order.
func showMap(m map[*Axis]int64) string {
	axes := slices.SortedFunc(maps.Keys(m), axisCmp)
	var parts []string
	for _, a := range axes {
		parts = append(parts, fmt.Sprintf("%s=%d", a.Name, m[a]))
	}
	return strings.Join(parts, " ")
}

func showGroup(g *TileLayout, seps []int) string {
	var parts []string
	for d := 0; d+1 < len(seps); d++ {
		var its []string
		for _, it := range g.Shard[seps[d]:seps[d+1]] {
			its = append(its, "("+it.String()+")")
		}
		parts = append(parts, "["+strings.Join(its, ",")+"]")
	}
	return strings.Join(parts, " ")
}

func check(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s\n got: %s\nwant: %s", what, got, want)
	}
}

func TestParseString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"S[8,4,2]", "S[(8,4,2):(8,2,1)]"},
		{"S[(8,4,2)]", "S[(8,4,2):(8,2,1)]"},
		{"S[8]", "S[(8,):(1,)]"},
		{"S[8 : 4@laneid]", "S[(8,):(4@laneid,)]"},
		{"S[(32, 8) : (1 @ laneid, 1)]", "S[(32,8):(1@laneid,1)]"},
		{`S[(32,8):("laneid",1)]`, "S[(32,8):(1@laneid,1)]"},
		{"S[(4,):((2,laneid),)]", "S[(4,):(2@laneid,)]"},
		{"S[4:(2,'warpid')]", "S[(4,):(2@warpid,)]"},
		{"S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid",
			"S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[(2,):(4@warpid,)] + 5@warpid"},
		{"5@warpid + R[2:4@warpid] + S[4] + 512 + 1@warpid", "S[(4,):(1,)] + R[(2,):(4@warpid,)] + 512 + 6@warpid"},
		{"S[4] + S[8] + R[2] + R[3:7]", "S[(4,):(1,)] + R[(3,):(7,)]"},
		{"S[(2,128,112):(112@TCol,1@TLane,1@TCol)]", "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]"},
		{"TileLayout(S[(32,8):(1@Axis.laneid,1)] + (16@TLane))", "S[(32,8):(1@laneid,1)] + 16@TLane"},
		{"S[(4,16):(32,1)] + 3", "S[(4,16):(32,1)] + 3"},
		{"S[(4,16):(-32,1)] + -3 + 0@laneid", "S[(4,16):(-32,1)] + -3 + 0@laneid"},
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", "Compose(3,3,3, S[(8,4,64):(64,512,1)])"},
		{"Compose(3,3,3,false, S[512])", "Compose(3,3,3,false, S[(512,):(1,)])"},
		{"S[():()]", "S[():()]"},
		{"S[(4,2):(1)]", `error: parse layout "S[(4,2):(1)]": 2 extents but 1 strides at offset 11 ("]")`},
		{"S[0]", `error: parse layout "S[0]": extent 0 must be positive at offset 3 ("]")`},
		{"S[4] +", `error: parse layout "S[4] +": expected S[...], R[...] or an offset at offset 6 (end of input)`},
		{"Compose(1,3,2, S[4])", `error: parse layout "Compose(1,3,2, S[4])": the compose layout is not well-formed: Compose(1,3,2)`},
		{"S[4] junk", `error: parse layout "S[4] junk": unexpected "junk" at offset 5`},
	} {
		l, err := Parse(c.in)
		check(t, "Parse("+c.in+")", show(l, err), c.want)
		if err == nil {
			back, err := Parse(l.String())
			if err != nil || !Equal(back, l) {
				t.Errorf("round trip of %s: %s", l, show(back, err))
			}
		}
	}
}

func TestConstructors(t *testing.T) {
	s, err := ShardSpec([]int64{32, 8}, []Stride{{1, Laneid}, {1, nil}})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := ReplicaSpec([]int64{2}, []Stride{{4, Warpid}})
	got := Combine(OffsetSpec(5, Warpid), s, r, OffsetSpec(512, nil), OffsetSpec(1, Warpid))
	check(t, "Combine", got.String(), "S[(32,8):(1@laneid,1)] + R[(2,):(4@warpid,)] + 512 + 6@warpid")
	if _, err := ShardSpec([]int64{32, 8}, []Stride{{1, Laneid}}); err == nil {
		t.Error("ShardSpec with too few strides: no error")
	}
	check(t, "NewTile", NewTile([]Iter{It(4, 2, nil)}, nil, map[*Axis]int64{nil: 3}).String(), "S[(4,):(2,)] + 3")
	check(t, "RowMajor", RowMajor(2, 3, 4).String(), "S[(2,3,4):(12,4,1)]")
	if AxisByName("laneid") != Laneid || AxisByName("my_axis") != AxisByName("my_axis") || AxisByName("my_axis").IsThread() {
		t.Error("axis interning")
	}
}

func TestAxes(t *testing.T) {
	for _, c := range []struct {
		a    *Axis
		want string
	}{
		{M, "memory"}, {TCol, "memory"}, {Laneid, "warp/thread"}, {Warpid, "cta/warp"},
		{Wgid, "cta/warpgroup"}, {TidInWG, "warpgroup/thread"}, {WidInWG, "warpgroup/warp"},
		{Tx, "cta/thread"}, {Bx, "thread/cta"}, {Cbz, "cluster/cta"},
	} {
		got := "memory"
		if o, i, ok := c.a.Scope(); ok {
			got = o.String() + "/" + i.String()
		}
		check(t, c.a.Name, got, c.want)
	}
}

// TestApplyDocsExample is the §2.3 docs example: element (i, j) of an (8, 16)
// tile → laneid = 4i + (j/2 mod 4), warpid = j/8 + 5 + 4r, m = j mod 2.
func TestApplyDocsExample(t *testing.T) {
	l := MustParseTile("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid")
	for i := range int64(8) {
		for j := range int64(16) {
			got := ApplyShape(l, []int64{i, j}, []int64{8, 16})
			want := map[*Axis]int64{Laneid: 4*i + (j/2)%4, Warpid: j/8 + 5, M: j % 2}
			if !maps.Equal(got, want) {
				t.Fatalf("(%d,%d): got %s want %s", i, j, showMap(got), showMap(want))
			}
			if lin := l.Apply(i*16 + j); !maps.Equal(lin, want) {
				t.Fatalf("linear (%d,%d): got %s", i, j, showMap(lin))
			}
		}
	}
	// The replica r = 1 adds its stride to warpid.
	check(t, "replica", fmt.Sprint(l.Replica), "[2:4@warpid]")
}

func TestApply(t *testing.T) {
	for _, c := range []struct {
		l     string
		coord []int64
		shape []int64 // nil: plain Apply
		want  string
	}{
		{"S[(32,8):(1@laneid,1)]", []int64{9}, nil, "m=1 laneid=1"},
		{"S[(32,8):(1@laneid,1)]", []int64{3, 5}, nil, "m=5 laneid=3"},
		{"S[(32,8):(1@laneid,1)] + 7", []int64{3, 5}, []int64{32, 8}, "m=12 laneid=3"},
		{"S[(8,32,4):(128,4,1)]", []int64{2, 5, 3}, []int64{8, 32, 4}, "m=279"},
		{"S[(8,16,8,8):(128,8,1024,1)]", []int64{0, 1, 0}, []int64{8, 128, 8}, "m=1024"},
		{"S[(8,128,8):(1024,8,1)]", []int64{0, 1, 0}, []int64{8, 128, 8}, "m=8"},
		{"S[(6,4):(10,1)]", []int64{1, 5}, []int64{4, 6}, "m=23"}, // not groupable: flatten+split
		{"S[(4,):(1,)]", []int64{9}, nil, "m=9"},                  // first digit not reduced
		{"S[(2,3):(1,2)]", []int64{7}, nil, "m=4"},
		{"S[():()] + 4@laneid", []int64{}, nil, "laneid=4"},
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", []int64{1, 0}, []int64{8, 256}, "m=72"},
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", []int64{1, 64}, []int64{8, 256}, "m=584"},
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", []int64{2, 1, 3}, nil, "m=659"},
		{"Compose(3,3,3,false, S[512])", []int64{8}, nil, "m=72"},
	} {
		l := MustParse(c.l)
		var got map[*Axis]int64
		if c.shape == nil {
			got = l.Apply(c.coord...)
		} else {
			got = ApplyShape(l, c.coord, c.shape)
		}
		check(t, fmt.Sprintf("%s.Apply(%v, shape=%v)", c.l, c.coord, c.shape), showMap(got), c.want)
	}
}

func TestSwizzleAddr(t *testing.T) {
	// 128B swizzle on fp16: row r, 16-byte chunk k lands in chunk k ^ (r % 8).
	c := MMAAtomLayout(16, Swizzle128B)
	check(t, "atom", c.String(), "Compose(3,3,3, S[(512,):(1,)])")
	for r := range int64(16) {
		for col := range int64(64) {
			want := r*64 + ((col/8)^(r%8))*8 + col%8
			if got := c.SwizzleAddr(r*64 + col); got != want {
				t.Fatalf("(%d,%d): got %d want %d", r, col, got, want)
			}
		}
	}
	out := &ComposeLayout{PerElement: 2, SwizzleLen: 2, AtomLen: 3, Tile: RowMajor(128)}
	// swizzle_inner=False: q ^= (q & 3) << 3.
	check(t, "outer", fmt.Sprint(out.SwizzleAddr(4*1+1)), fmt.Sprint(4*(1^8)+1))
}

func TestStorageSizeSpan(t *testing.T) {
	for _, c := range []struct{ l, storage, size, span, lin string }{
		// §2.4: a gapped per-thread footprint.
		{"S[(32,2,2):(1@laneid,2,4)]", "S[(2,2):(2,4)]", "4", "7", "[0 4 2 6]"},
		{"S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid",
			"S[(2,):(1,)]", "2", "2", "[0 1]"},
		{"S[(4,16):(32,1)] + 3 + 2@laneid", "S[(4,16):(32,1)] + 3", "64", "115", ""},
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", "Compose(3,3,3, S[(8,4,64):(64,512,1)])", "2048", "2048", ""},
	} {
		l := MustParse(c.l)
		st := Storage(l)
		check(t, "storage "+c.l, st.String(), c.storage)
		check(t, "size "+c.l, fmt.Sprint(Size(st, nil)), c.size)
		check(t, "span "+c.l, fmt.Sprint(SpanOf(st, nil)), c.span)
		if c.lin != "" {
			var lin []int64
			for x := range Size(st, nil) {
				lin = append(lin, st.Apply(x)[M])
			}
			check(t, "offsets "+c.l, fmt.Sprint(lin), c.lin)
		}
	}
	l := MustParse("S[(32,2,2):(1@laneid,2,4)] + R[2:3@laneid] + 1@laneid")
	check(t, "size(laneid)", fmt.Sprint(Size(l, Laneid)), "32")
	check(t, "span(laneid)", fmt.Sprint(SpanOf(l, Laneid)), "36")
	check(t, "size()", fmt.Sprint(Size(l, nil)), "128")
}

func TestCanonicalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"S[64,64]", "S[(4096,):(1,)]"},
		{"S[(1,1)]", "S[(1,):(1,)]"},
		{"S[(1,4,1):(1@laneid,2,5)]", "S[(4,):(2,)]"},
		{"S[(1,1):(3@laneid,5)]", "S[(1,):(1@laneid,)]"},
		{"S[(8,4,64):(64,512,1)] + 0 + 0@laneid", "S[(8,4,64):(64,512,1)]"},
		{"S[(4,32):(1@wid_in_wg,1@laneid)]", "S[(128,):(1@tid_in_wg,)]"},
		{"S[(4,32):(1@warpid,1@laneid)] + 1@warpid", "S[(128,):(1@tx,)] + 32@tx"},
		{"S[(2,4,32):(1@wgid,1@wid_in_wg,1@laneid)]", "S[(256,):(1@tx,)]"},
		{"S[(2,4):(1@wgid,1@wid_in_wg)]", "S[(2,4):(4@wgid,1@warpid)]"}, // sic: wgid kept
		{"S[(32,8):(1@laneid,1)]", "S[(32,8):(1@laneid,1)]"},
		{"S[(4,32):(1@wid_in_wg,1@laneid)] + 3@laneid + 1@wid_in_wg", "S[(128,):(1@tid_in_wg,)] + 35@tid_in_wg"},
		{"S[8] + R[(2,2):(4@laneid,1)] + R[2:1@warpid]", "S[(8,):(1,)] + R[(2,):(1@warpid,)]"},
		{"S[8] + R[(2,2,2):(4@laneid,1,8@laneid)]", "S[(8,):(1,)] + R[(2,2,2):(1,4@laneid,8@laneid)]"},
		{"Compose(3,3,3, S[(8,8,64):(64,512,1)])", "Compose(3,3,3, S[(8,8,64):(64,512,1)])"},
		{"Compose(3,3,3, S[(8,64):(64,1)])", "Compose(3,3,3, S[(512,):(1,)])"},
	} {
		got := Canonicalize(MustParse(c.in), true)
		check(t, "Canonicalize("+c.in+")", got.String(), c.want)
	}
	check(t, "no target", Canonicalize(MustParse("S[(4,32):(1@wid_in_wg,1@laneid)]"), false).String(),
		"S[(4,32):(1@wid_in_wg,1@laneid)]")
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"S[64,64]", true}, {"S[(4,):(1,)] + 1", false}, {"S[(4,):(2,)]", false},
		{"S[(4,):(1@laneid,)]", false}, {"S[(1,4,1)]", true}, {"Compose(3,3,3, S[512])", false},
	} {
		check(t, "IsTrivial("+c.in+")", fmt.Sprint(IsTrivial(MustParse(c.in))), fmt.Sprint(c.want))
	}
}

func TestGroup(t *testing.T) {
	for _, c := range []struct {
		l     string
		shape []int64
		want  string
	}{
		{"S[(4096,):(1,)]", []int64{64, 64}, "[(64:64)] [(64:1)]"},
		{"S[(1024,):(1,)]", []int64{8, 32, 4}, "[(8:128)] [(32:4)] [(4:1)]"},
		{"S[(128,8,8):(8,1024,1)]", []int64{8, 128, 8}, "[(8:128)] [(16:8),(8:1024)] [(8:1)]"},
		{"S[(8,4,64):(64,512,1)]", []int64{8, 256}, "[(8:64)] [(4:512),(64:1)]"},
		{"S[(4096,):(1,)]", []int64{1, 64, 1, 64, 1}, "[(1:4096)] [(64:64)] [(1:64)] [(64:1)] [(1:1)]"},
		{"S[(1,8,1):(1,1,1)]", []int64{8}, "[(8:1)]"},
		{"S[(32,8):(1@laneid,1)]", []int64{16, 16}, "[(16:2@laneid)] [(2:1@laneid),(8:1)]"},
		{"S[(6,4):(10,1)]", []int64{4, 6}, "error: layout S[(6,4):(10,1)] can not be grouped by shape [4, 6]"},
		{"S[(8,):(1,)]", []int64{4}, "error: layout S[(8,):(1,)] can not be grouped by shape [4]"},
		{"S[(8,):(1,)]", []int64{16}, "error: layout S[(8,):(1,)] can not be grouped by shape [16]"},
	} {
		g, seps, err := Group(MustParseTile(c.l), c.shape)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = showGroup(g, seps)
			if _, _, ok := TryGroup(MustParseTile(c.l), c.shape); !ok {
				t.Errorf("TryGroup disagrees with Group on %s", c.l)
			}
		}
		check(t, fmt.Sprintf("Group(%s, %v)", c.l, c.shape), got, c.want)
	}
}

func TestGroupMany(t *testing.T) {
	for _, c := range []struct {
		l      string
		shapes [][]int64
		want   string
	}{
		{"S[(4096,):(1,)]", [][]int64{{64, 64}, {8, 512}}, "S[(8,8,64):(512,64,1)] seps [[0 2 3] [0 1 3]]"},
		{"S[(8,4,64):(64,512,1)]", [][]int64{{8, 256}}, "S[(8,4,64):(64,512,1)] seps [[0 1 3]]"},
		{"S[(8,256):(256,1)]", [][]int64{{8, 256}, {8, 4, 64}}, "S[(8,4,64):(256,64,1)] seps [[0 1 3] [0 1 2 3]]"},
		{"S[(2,4):(4,1)]", [][]int64{{1, 8}, {8, 1}}, "S[(1,2,4,1):(8,4,1,1)] seps [[0 1 4] [0 3 4]]"},
		{"S[(8,):(1,)]", [][]int64{{4}}, "error: group_many cannot prove that the layout and shapes have equal total products: 8 vs 4"},
		{"S[(6,):(1,)]", [][]int64{{2, 3}, {3, 2}}, "error: group_many has incompatible cumulative boundaries: 2 does not divide 3"},
		{"S[(8,):(1,)]", nil, "error: group_many requires at least one shape"},
	} {
		g, seps, err := GroupMany(MustParseTile(c.l), c.shapes)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = fmt.Sprintf("%s seps %v", g, seps)
		}
		check(t, fmt.Sprintf("GroupMany(%s, %v)", c.l, c.shapes), got, c.want)
	}
}

func TestPermute(t *testing.T) {
	l := MustParseTile("S[(8,16,8,8):(128,8,1024,1)] + 3")
	check(t, "PermuteDims", PermuteDims(l, []int{3, 1, 2, 0}).String(), "S[(8,16,8,8):(1,8,1024,128)] + 3")
	check(t, "PermuteByGroups", PermuteByGroups(l, []int{0, 1, 3, 4}, []int{2, 0, 1}).String(),
		"S[(8,8,16,8):(1,128,8,1024)] + 3")
}

func TestSlice(t *testing.T) {
	for _, c := range []struct {
		l      string
		shape  []int64
		region [][2]int64
		want   string
	}{
		// §2.7 examples.
		{"S[64,64]", []int64{64, 64}, [][2]int64{{32, 64}, {32, 64}}, "S[(32,32):(64,1)] + 2080"},
		{"S[(4,32)]", []int64{4, 32}, [][2]int64{{0, 4}, {3, 19}}, "S[(4,16):(32,1)] + 3"},
		// §4.1 worked example: full region of the seed's 32×32 tile.
		{"S[32,32]", []int64{32, 32}, [][2]int64{{0, 32}, {0, 32}}, "S[(32,32):(32,1)] + 0"},
		{"S[32,32]", []int64{32, 32}, [][2]int64{{8, 16}, {0, 32}}, "S[(8,32):(32,1)] + 256"},
		{"S[(2,16):(20,1)]", []int64{2, 16}, [][2]int64{{0, 2}, {0, 16}}, "S[(2,16):(20,1)] + 0"},
		// Peeling: the region covers whole inner iters.
		{"S[(4,8):(100,1)]", []int64{32}, [][2]int64{{8, 24}}, "S[(2,8):(100,1)] + 100"},
		// Wrap-around: two halves straddling the next-outer iter.
		{"S[(4,8):(100,1)]", []int64{32}, [][2]int64{{6, 10}}, "S[(2,2):(94,1)] + 6"},
		{"S[(4,8):(100,1)]", []int64{32}, [][2]int64{{6, 13}}, "nil"},
		{"S[(4,8):(100,1)]", []int64{32}, [][2]int64{{4, 12}}, "S[(2,4):(96,1)] + 4"},
		{"S[(4,8):(100,1@laneid)]", []int64{32}, [][2]int64{{6, 10}}, "nil"},
		// Thread layouts keep their axes; the base offset survives (HEAD).
		{"S[(32,8):(1@laneid,1)] + 1@warpid", []int64{32, 8}, [][2]int64{{0, 32}, {2, 6}}, "S[(32,4):(1@tx,1)] + 2 + 32@tx"},
		{"S[(4,32):(1@wid_in_wg,1@laneid)]", []int64{128}, [][2]int64{{32, 64}}, "S[(32,):(1@tid_in_wg,)] + 32@tid_in_wg"},
		// A replica rides along.
		{"S[(4,8)] + R[2:4@warpid]", []int64{4, 8}, [][2]int64{{1, 2}, {0, 8}}, "S[(1,8):(8,1)] + R[(2,):(4@warpid,)] + 8"},
		// Errors.
		{"S[(6,4):(10,1)]", []int64{4, 6}, [][2]int64{{0, 4}, {0, 6}}, "error: layout S[(6,4):(10,1)] can not be grouped by shape [4, 6]"},
		{"S[8]", []int64{8}, [][2]int64{{4, 12}}, "error: region [4, 12) of dim 0 is empty or outside extent 8"},
		{"S[8]", []int64{8}, nil, "error: shape and region must have the same length: 1 vs 0"},
		// ComposeLayout: the tile is sliced, the swizzle kept; a trivial tile
		// is replaced by the identity over the shape first.
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", []int64{8, 256}, [][2]int64{{0, 8}, {64, 128}}, "Compose(3,3,3, S[(8,1,64):(64,512,1)] + 512)"},
		{"Compose(3,3,3, S[512])", []int64{128, 64}, [][2]int64{{64, 128}, {0, 64}}, "Compose(3,3,3, S[(64,64):(64,1)] + 4096)"},
		{"Compose(3,3,3, S[(3,64,4,64):(16384,64,4096,1)])", []int64{3, 64, 256}, [][2]int64{{1, 2}, {0, 64}, {0, 256}},
			"Compose(3,3,3, S[(1,64,4,64):(16384,64,4096,1)] + 16384)"},
	} {
		got, err := Slice(MustParse(c.l), c.shape, c.region)
		check(t, fmt.Sprintf("Slice(%s, %v, %v)", c.l, c.shape, c.region), show(got, err), c.want)
	}
}

func TestTile(t *testing.T) {
	atom := MMAAtomLayout(16, Swizzle128B)
	l1, err := TileTo(atom, []int64{16, 256}, []int64{8, 64})
	check(t, "tile_to 1", show(l1, err), "Compose(3,3,3, S[(2,8,4,64):(2048,64,512,1)])")
	l2, err := TileTo(l1, []int64{32, 512}, []int64{16, 256})
	// §4.5.6: the atom-tiled 32×512 fp16 smem tile.
	check(t, "tile_to 2", show(l2, err), "Compose(3,3,3, S[(2,2,8,2,4,64):(8192,2048,64,4096,512,1)])")

	for _, c := range []struct {
		inner, outer         string
		outerShape, innerShp []int64
		want                 string
	}{
		{"S[(8,64)]", "S[(2,4)]", []int64{2, 4}, []int64{8, 64}, "S[(2,8,4,64):(2048,64,512,1)]"},
		{"S[(32,8):(1@laneid,1)]", "S[(2,2):(1@warpid,1)]", []int64{2, 2}, []int64{32, 8},
			"S[(64,16):(1@tx,1)]"},
		{"S[(4,):(2,)] + 1", "S[(3,):(1,)] + 5", []int64{3}, []int64{4}, "S[(12,):(2,)] + 6"},
		{"S[(8,64)]", "S[(2,4)]", []int64{2}, []int64{8, 64}, "error: Outer and inner shape size must match"},
	} {
		got, err := Tile(MustParse(c.inner), MustParse(c.outer), c.outerShape, c.innerShp)
		check(t, "Tile("+c.inner+", "+c.outer+")", show(got, err), c.want)
	}
	_, err = TileTo(MustParse("S[8]"), []int64{12}, []int64{8})
	check(t, "tile_to error", show(nil, err), "error: tile_to: shape [12] is not a multiple of [8]")
	// §4.1: Compose(3,3,3, S[8,64]).tile_to((16,128),(8,64)).tile_to((32,256),(16,128)).
	l3, _ := TileTo(MustParse("Compose(3,3,3, S[8,64])"), []int64{16, 128}, []int64{8, 64})
	l3, err = TileTo(l3, []int64{32, 256}, []int64{16, 128})
	check(t, "swizzled smem", show(l3, err), "Compose(3,3,3, S[(2,2,8,2,2,64):(4096,1024,64,2048,512,1)])")
}

func TestMMASharedLayout(t *testing.T) {
	for _, c := range []struct {
		bits, mode int
		shape      []int64
		seed       bool
		want       string
	}{
		{16, Swizzle128B, []int64{8, 256}, false, "Compose(3,3,3, S[(8,4,64):(64,512,1)])"},
		{16, Swizzle128B, []int64{128, 64}, false, "Compose(3,3,3, S[(8192,):(1,)])"},
		{32, Swizzle128B, []int64{64, 64}, false, "Compose(2,3,3, S[(64,2,32):(32,2048,1)])"},
		{16, Swizzle64B, []int64{2, 64, 64}, true, "Compose(3,2,3, S[(2,64,2,32):(4096,32,2048,1)])"},
		{16, Swizzle128B, []int64{3, 64, 256}, false, "Compose(3,3,3, S[(3,64,4,64):(16384,64,4096,1)])"},
		{8, Swizzle32B, []int64{16, 64}, false, "Compose(4,1,3, S[(16,2,32):(32,512,1)])"},
		{16, SwizzleNone, []int64{64, 64}, false, "S[(4096,):(1,)]"},
		{16, SwizzleNone, []int64{64, 64}, true, "S[(64,8,8):(8,512,1)]"},
		{16, SwizzleNone, []int64{2, 64, 64}, true, "S[(2,64,8,8):(4096,8,512,1)]"},
		{16, SwizzleNone, []int64{64, 12}, true, "S[(768,):(1,)]"},
		{16, Swizzle128B, []int64{4, 32}, false, "error: tile_to: shape [4, 64] is not a multiple of [8, 64]"},
		{16, 5, []int64{8, 64}, false, "error: mma_shared_layout: unsupported swizzle mode 5"},
	} {
		got, err := MMASharedLayout(c.bits, c.mode, c.shape, c.seed)
		check(t, fmt.Sprintf("mma_shared_layout(%d, %d, %v, seed=%v)", c.bits, c.mode, c.shape, c.seed), show(got, err), c.want)
	}
	check(t, "atom shape", fmt.Sprint(MMAAtomShape(16, 3), MMAAtomShape(32, 1), MMAAtomShapeFor(8, 2, []int64{2, 3, 4}), MMAAtomShape(16, 0)),
		"[8 64] [8 8] [1 8 64] []")
}

func TestSwizzleHelpers(t *testing.T) {
	for _, c := range []struct{ l, mode, strip, bare string }{
		{"S[(8,256)]", "0", "S[(8,256):(256,1)]", "<nil>"},
		{"Compose(3,3,3, S[(8,4,64):(64,512,1)])", "3", "S[(8,4,64):(64,512,1)]", "Compose(3,3,3, S[(512,):(1,)])"},
		{"Compose(3,3,3, S[512])", "3", "S[(8,256):(256,1)]", "Compose(3,3,3, S[(512,):(1,)])"},
		{"Compose(3,3,3, S[2048])", "3", "S[(2048,):(1,)]", "Compose(3,3,3, S[(512,):(1,)])"},
		{"Compose(2,0,3, S[2048])", "0", "S[(2048,):(1,)]", "Compose(2,0,3, S[(32,):(1,)])"},
		{"Compose(3,2,3,false, S[2048])", "error: swizzle direction mismatch: TMA swizzle requires swizzle_inner=True, got Compose(3,2,3,false, S[(2048,):(1,)])",
			"S[(2048,):(1,)]", "Compose(3,2,3,false, S[(256,):(1,)])"},
		{"Compose(2,4,4, S[2048])", "error: unrecognized swizzle mode: swizzle_len=4 in Compose(2,4,4, S[(2048,):(1,)])",
			"S[(2048,):(1,)]", "Compose(2,4,4, S[(1024,):(1,)])"},
	} {
		l := MustParse(c.l)
		mode, err := SwizzleModeOf(l)
		got := fmt.Sprint(mode)
		if err != nil {
			got = "error: " + err.Error()
		}
		check(t, "SwizzleModeOf "+c.l, got, c.mode)
		check(t, "StripSwizzleToTile "+c.l, StripSwizzleToTile(l, []int64{8, 256}).String(), c.strip)
		bare := "<nil>"
		if b := BareSwizzle(l); b != nil {
			bare = b.String()
		}
		check(t, "BareSwizzle "+c.l, bare, c.bare)
	}
}

func TestGetScope(t *testing.T) {
	for _, c := range []struct{ l, want string }{
		{"S[(32,8):(1@laneid,1)]", "thread warp"},
		{"S[(128,4):(1@tid_in_wg,1)]", "thread warpgroup"},
		{"S[(4,32,2):(1@wid_in_wg,1@laneid,1)]", "thread warpgroup"},
		{"S[(256,2):(1@tx,1)]", "thread cta"},
		{"S[(4,32):(1@warpid,1@laneid)]", "thread cta"},
		{"S[(4,2):(1@warpid,1)]", "warp cta"},
		{"S[(2,4):(1@wgid,1@wid_in_wg)]", "warp cta"},
		{"S[(2,4):(1@cbx,1)]", "cta cluster"},
		{"S[(8,2):(1,1)] + R[2:1@laneid]", "none"},
		{"S[(8,2):(1@laneid,1)] + R[2:1@warpid]", "thread cta"},
		{"S[(8,2):(1@laneid,1)] + 1@wid_in_wg", "thread warpgroup"},
		{"S[(4,4):(1@warpid,1@wid_in_wg)]", "error: Ill-formed tile layout: conflicting scopes for warp"},
		{"S[(4,128):(1@warpid,1@tid_in_wg)]", "error: Ill-formed tile layout: disconnected scope chain"},
		{"S[(4,128):(1@bx,1@tx)]", "error: Ill-formed tile layout: disconnected scope chain"},
		{"S[(32,2):(1@laneid,1@bx)]", "error: Ill-formed tile layout: disconnected scope chain"},
	} {
		inner, outer, ok, err := GetScope(MustParse(c.l))
		got := "none"
		switch {
		case err != nil:
			got = "error: " + err.Error()
		case ok:
			got = inner.String() + " " + outer.String()
		}
		check(t, "GetScope("+c.l+")", got, c.want)
	}
}

func TestEqual(t *testing.T) {
	a := MustParse("S[(4,8):(8,1)] + 3")
	for _, c := range []struct {
		b    string
		want bool
	}{
		{"S[(4,8):(8,1)] + 3", true}, {"S[(4,8):(8,1)] + 3 + 0@laneid", false},
		{"S[(4,8):(8,1)] + 2", false}, {"S[(4,8):(8,1)]", false}, {"Compose(0,0,0, S[(4,8):(8,1)] + 3)", false},
	} {
		check(t, "Equal "+c.b, fmt.Sprint(Equal(a, MustParse(c.b))), fmt.Sprint(c.want))
	}
}
