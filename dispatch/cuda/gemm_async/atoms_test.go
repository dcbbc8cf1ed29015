package gemmasync

import (
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
)

// TestAtomMatchesRemembered: matchAtoms answers as matchAtomsOf does, the
// first time and from its memory, for matching and refused layouts.
func TestAtomMatchesRemembered(t *testing.T) {
	for _, tc := range []struct {
		layout string
		shape  []int64
		bits   int
		match  bool
	}{
		// 128-byte swizzle, bf16: a 64x64 tile, row-major, is eight
		// K-major atoms of 8x64 stacked along the rows
		{"Compose(3,3,3, S[(64,64):(64,1)])", []int64{64, 64}, 16, true},
		{"Compose(3,3,3, S[(8,8,64):(512,64,1)])", []int64{64, 64}, 16, true},
		// the rows of an atom 512 elements apart: no tiler is additive
		{"Compose(3,3,3, S[(8,8,64):(64,512,1)])", []int64{64, 64}, 16, false},
	} {
		l := layout.MustParse(tc.layout)
		want, wantOK := matchAtomsOf(l.(*layout.ComposeLayout), tc.shape, tc.bits, false, true)
		if wantOK != tc.match {
			t.Errorf("%s %v: matched %v, want %v", tc.layout, tc.shape, wantOK, tc.match)
		}
		for i := range 2 {
			got, ok := matchAtoms(l, tc.shape, tc.bits, false, true)
			if got != want || ok != wantOK {
				t.Errorf("%s %v, call %d: %+v %v, want %+v %v", tc.layout, tc.shape, i, got, ok, want, wantOK)
			}
		}
		atomMatches.Lock()
		_, kept := atomMatches.m[atomKey{l.String(), tc.shape[0], tc.shape[1], tc.bits, false, true}]
		atomMatches.Unlock()
		if !kept {
			t.Errorf("%s %v: not remembered", tc.layout, tc.shape)
		}
	}
}
