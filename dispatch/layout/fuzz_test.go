package layout

import "testing"

// FuzzLayout checks the algebra's laws (checkProperties) on layouts decoded
// from the input bytes, and, when the first byte is a multiple of 4, feeds
// the rest to Parse: it must not panic, and what it accepts must round-trip
// and (when small) obey the laws too.
func FuzzLayout(f *testing.F) {
	for _, seed := range []string{
		"\x00S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid",
		"\x00Compose(3,3,3, S[(8,4,64):(64,512,1)])",
		"\x00S[(4,8):(100,1)] + 3",
		"\x00S[(3,2,4):(4,2@a,-1@a)]",
		"\x00Compose(3,3,3,false, S[512])",
		"\x00S[(4,32):(1@wid_in_wg,1@laneid)] + 1@laneid",
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c",
		"\x03\x07\x01\x05\x02\x04\x06\x03\x01\x02\x09\x00\x05",
		"\x01\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 && data[0]%4 == 0 {
			l, err := Parse(string(data[1:]))
			if err != nil {
				return
			}
			back, err := Parse(l.String())
			if err != nil || !Equal(back, l) {
				t.Fatalf("round trip of %s: %s", l, show(back, err))
			}
			if !small(l) {
				return
			}
			if err := checkProperties(l, &byteSource{b: data}); err != nil {
				t.Fatal(err)
			}
			return
		}
		s := &byteSource{b: data}
		if err := checkProperties(genLayout(s), s); err != nil {
			t.Fatal(err)
		}
	})
}

// small bounds the work checkProperties does on a parsed layout.
func small(l Layout) bool {
	t := tileOf(l)
	if c, ok := l.(*ComposeLayout); ok && c.PerElement+c.SwizzleLen+c.AtomLen > 12 {
		return false
	}
	n := int64(1)
	for _, its := range [][]Iter{t.Shard, t.Replica} {
		for _, it := range its {
			n *= it.Extent
			if n > 4096 || it.Stride > 1<<20 || it.Stride < -1<<20 {
				return false
			}
		}
	}
	for _, v := range t.Offset {
		if v > 1<<20 || v < -1<<20 {
			return false
		}
	}
	return true
}
