package layout_test

import (
	"fmt"

	"github.com/tilels/tilels/dispatch/layout"
)

func Example() {
	// 32 rows on lanes, 8 consecutive registers per lane.
	l, _ := layout.Parse("S[(32,8):(1@laneid,1)]")
	r := l.Apply(9) // element 9 = row 1, column 1
	fmt.Println(r[layout.Laneid], r[layout.M])

	// The per-thread register footprint.
	fmt.Println(layout.Storage(l), layout.SpanOf(layout.Storage(l), nil))

	// A 16-column slice of a 4×32 row-major tile starting at column 3.
	s, _ := layout.Slice(layout.RowMajor(4, 32), []int64{4, 32}, [][2]int64{{0, 4}, {3, 19}})
	fmt.Println(s)

	// The 128-byte-swizzled fp16 shared-memory layout of an 8×256 tile.
	m, _ := layout.MMASharedLayout(16, layout.Swizzle128B, []int64{8, 256}, false)
	fmt.Println(m, layout.ApplyShape(m, []int64{1, 0}, []int64{8, 256})[layout.M])
	// Output:
	// 1 1
	// S[(8,):(1,)] 8
	// S[(4,16):(32,1)] + 3
	// Compose(3,3,3, S[(8,4,64):(64,512,1)]) 72
}
