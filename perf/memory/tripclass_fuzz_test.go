package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// FuzzTripClasses builds a grid of more than MaxCTAs CTAs whose CTAs run
// a loop as many times as their index says (a persistent tile loop that
// steps by the grid, a for loop whose extent the index sets, falling or
// rising, a tile loop that runs once over as many blocks as a register
// set from the index says, or rows from offsets a bind line gives: launch
// data), each iteration copying a tile at an address of its tile (or,
// nested, a growing number of tiles: figures that do not grow by the same
// amount with each iteration), and checks that a launch counted by trip
// class (ctas.go's classPlan, tripkeys.go: more than one CTA executed)
// has the figures of executing every CTA, that one counted exactly has
// them too, and that one counted otherwise says why it is CTA 0
// multiplied. The seeds run in plain go test; each is one of the forms.
func FuzzTripClasses(f *testing.F) {
	// form, grid, tiles, div, nest, lanes
	f.Add(uint8(0), uint16(256), uint16(300), uint8(0), uint8(0), uint8(0))  // 300 tiles over 256 CTAs: two classes
	f.Add(uint8(0), uint16(100), uint16(1000), uint8(0), uint8(0), uint8(1)) // 10 or 9 tiles each
	f.Add(uint8(0), uint16(148), uint16(18), uint8(0), uint8(0), uint8(2))   // CTAs that run none
	f.Add(uint8(1), uint16(256), uint16(0), uint8(64), uint8(0), uint8(0))   // a for loop, four classes
	f.Add(uint8(1), uint16(512), uint16(0), uint8(16), uint8(0), uint8(2))   // 32 classes
	f.Add(uint8(1), uint16(256), uint16(0), uint8(64), uint8(1), uint8(0))   // growing, four classes: all executed
	f.Add(uint8(1), uint16(256), uint16(0), uint8(16), uint8(1), uint8(0))   // growing, 16 classes: CTA 0 multiplied
	f.Add(uint8(1), uint16(192), uint16(0), uint8(64), uint8(1), uint8(1))   // growing, three classes: all executed
	f.Add(uint8(3), uint16(256), uint16(0), uint8(64), uint8(0), uint8(0))   // CTA 0 runs the fewest
	f.Add(uint8(2), uint16(256), uint16(0), uint8(64), uint8(0), uint8(0))   // blocks through a register
	f.Add(uint8(2), uint16(384), uint16(0), uint8(32), uint8(1), uint8(2))   // through a register, growing
	f.Add(uint8(4), uint16(100), uint16(5), uint8(6), uint8(0), uint8(0))    // rows from offsets a bind line gives
	f.Add(uint8(4), uint16(200), uint16(3), uint8(3), uint8(1), uint8(1))    // from offsets, growing
	f.Fuzz(func(t *testing.T, form uint8, grid, tiles uint16, div, nest, lanes uint8) {
		src, n := fuzzTrips(form, grid, tiles, div, nest, lanes)
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		if res.HasErrors() || len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Skipf("not lowered: %v\n%s", res.Diags, src)
		}
		k := res.Kernels[0]
		m := memory.Analyze(k.Lowered, k.Launch)
		f := m.Total
		if f.CTAs != n || f.Unknown != "" {
			t.Fatalf("%d CTAs, unknown %q, want %d:\n%s", f.CTAs, f.Unknown, n, src)
		}
		all := everyCTA(k)
		if all.Total.Unknown != "" {
			return // (past the step bound)
		}
		same := countsText(m, k) == countsText(all, k)
		switch {
		case f.Scaled && f.Executed > 1 && !same:
			t.Errorf("counting by trip class differs:\n%s\nexecuting every CTA:\n%s\nkernel:\n%s", countsText(m, k), countsText(all, k), src)
		case f.Scaled && f.Executed <= 1 && same && f.ScaledWhy == "":
			t.Errorf("CTA 0 multiplied without a reason:\n%s", src)
		case !f.Scaled && !same:
			t.Errorf("counted exactly, and differs:\n%s\nexecuting every CTA:\n%s\nkernel:\n%s", countsText(m, k), countsText(all, k), src)
		}
	})
}

// fuzzTrips is FuzzTripClasses' kernel and its CTA count.
func fuzzTrips(form uint8, grid, tiles uint16, div, nest, lanes uint8) (string, int64) {
	n := int64(grid) % 512
	if n <= 64 {
		n += 65
	}
	d := max(int64(div), 1)
	lane := []string{"tid < 32", "tid < 16", "tid % 2 == 0"}[int(lanes)%3]
	// a tile's copy: rows of B from A, a tile a CTA's iteration names
	copyTile := func(ind, tile string) string {
		return fmt.Sprintf("%sif %s:\n%s    S[tid] = A[(%s) %% 4096 * 32 + tid]\n%sT.cuda.cta_sync()\n%sif %s:\n%s    B[(%s) %% 4096 * 32 + tid] = S[tid]\n%sT.cuda.cta_sync()\n",
			ind, lane, ind, tile, ind, ind, lane, ind, tile, ind)
	}
	body := ""
	inner := func(ind, it, tile string) string {
		if nest%2 == 0 {
			return copyTile(ind, tile)
		}
		return fmt.Sprintf("%sfor j in T.serial(%s + 1):\n", ind, it) + copyTile(ind+"    ", tile+" + j * 7")
	}
	lines, params := "", ""
	switch form % 5 {
	case 4:
		// rows from offsets a bind line gives (launch data): segments of
		// 0 to d % 7 rows
		offs := []string{"0"}
		at := int64(0)
		for i := range n {
			at += (i*int64(tiles) + 3) % (d%7 + 1)
			offs = append(offs, fmt.Sprint(at))
		}
		lines = "# tilels: bind offsets=[" + strings.Join(offs, ", ") + "]\n"
		params = fmt.Sprintf(", offsets: T.Buffer((%d,), \"int32\")", n+1)
		body = "    bos: T.int32 = offsets[bx]\n    eos: T.int32 = offsets[bx + 1]\n    for i in T.serial(eos - bos):\n" + inner("        ", "i", "bos + i")
	}
	switch form % 5 {
	case 0:
		t := int64(tiles)%2000 + 1
		body = fmt.Sprintf("    r = T.alloc_buffer((1,), \"int32\", scope=\"local\")\n    r[0] = bx\n    while r[0] < %d:\n", t) +
			inner("        ", "r[0] // "+fmt.Sprint(n), "r[0]") + fmt.Sprintf("        r[0] = r[0] + %d\n", n)
	case 1:
		top := (n-1)/d + 1
		body = fmt.Sprintf("    for i in T.serial(%d - bx // %d):\n", top, d) + inner("        ", "i", fmt.Sprintf("i * %d + bx", n))
	case 3:
		body = fmt.Sprintf("    for i in T.serial(bx // %d + 1):\n", d) + inner("        ", "i", fmt.Sprintf("i * %d + bx", n))
	case 2:
		top := (n-1)/d + 1
		body = fmt.Sprintf("    m = T.alloc_buffer((1,), \"int32\", scope=\"local\")\n    r = T.alloc_buffer((1,), \"int32\", scope=\"local\")\n    r[0] = bx\n    m[0] = %d - bx // %d\n    while r[0] < %d:\n        blocks: T.int32 = m[0]\n        for i in T.serial(blocks):\n", top, d, n) +
			inner("            ", "i", fmt.Sprintf("i * %d + bx", n)) + fmt.Sprintf("        r[0] = %d\n", n)
	}
	src := fmt.Sprintf(`from tvm.script import tirx as T


%s@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle%s):
    A = T.match_buffer(A_ptr, (131072,), "float32")
    B = T.match_buffer(B_ptr, (131072,), "float32")
    T.device_entry()
    bx = T.cta_id([%d])
    tid = T.thread_id([32])
    S = T.alloc_buffer((32,), "float32", scope="shared")
%s# tilels: reference=0.27
`, lines, params, n, body)
	return src, n
}
