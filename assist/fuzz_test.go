package assist

import (
	"testing"

	"github.com/tilels/tilels/release"
)

// FuzzAssist: Complete and Signature accept any text and any offset, and
// what they return points into the text.
func FuzzAssist(f *testing.F) {
	for _, s := range []string{
		"Tx.", "T.alloc_buffer((8,), scope=\"", "Tx.copy(A, B, dispatch='", "x = (\"\"\"Tx.\n", "#\nTx.warp.copy(\n  A,\n  B, dis",
		"from tvm.script.tirx import tile as Q\nQ.cta.", "S[(8, 4) : (4 @ ", "f(\"\\\"\", Tx.", ")))]]]Tx.", "\xff\xfeTx.\x00",
	} {
		f.Add(s, len(s))
		f.Add(s, len(s)/2)
	}
	f.Fuzz(func(t *testing.T, src string, off int) {
		env := Env{Release: release.Newest}
		if l := Complete([]byte(src), off, env); l != nil {
			if l.Replace.Start < 0 || int(l.Replace.End) > len(src) || l.Replace.End < l.Replace.Start {
				t.Errorf("replace span %v outside the text (%d bytes)", l.Replace, len(src))
			}
		}
		if h := Signature([]byte(src), off, env); h != nil {
			for _, p := range h.Params {
				if p.Start < 0 || p.End > len(h.Label) || p.End < p.Start {
					t.Errorf("parameter span [%d, %d) outside the label %q", p.Start, p.End, h.Label)
				}
			}
		}
	})
}
