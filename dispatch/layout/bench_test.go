package layout

import "testing"

func BenchmarkSlice(b *testing.B) {
	l := MustParse("Compose(3,3,3, S[(2,2,8,2,4,64):(8192,2048,64,4096,512,1)])")
	shape := []int64{32, 512}
	region := [][2]int64{{16, 32}, {256, 512}}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := Slice(l, shape, region); r == nil || err != nil {
			b.Fatal(r, err)
		}
	}
}

func BenchmarkCanonicalize(b *testing.B) {
	l := MustParse("S[(1,4,32,8,2):(7,1@wid_in_wg,1@laneid,2,1)] + R[2:4@warpid] + 0 + 3@laneid")
	b.ReportAllocs()
	for b.Loop() {
		Canonicalize(l, true)
	}
}

func BenchmarkApplyShape(b *testing.B) {
	l := MustParse("S[(8,16,8,8):(128,8,1024,1)]")
	coord, shape := []int64{3, 77, 5}, []int64{8, 128, 8}
	b.ReportAllocs()
	for b.Loop() {
		ApplyShape(l, coord, shape)
	}
}
