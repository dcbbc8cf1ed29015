package tirxlib

import (
	"fmt"
	"testing"
)

// TestTrainiumLayout: layout= annotation strings of Trainium buffers, as
// the 0.27 wheel's TileLayout.trainium builds them (values printed by
// the wheel), and its assertion texts.
func TestTrainiumLayout(t *testing.T) {
	for _, c := range []struct {
		ann   string
		shape []int64
		psum  bool
		want  string // shard as (extent, stride@axis) ...; or the error
	}{
		{"PF", []int64{128, 512}, false, "(128,1@P) (512,1@F)"},
		{"PF", []int64{512, 64}, false, "(4,64@F) (128,1@P) (64,1@F)"},
		{"FPF", []int64{2, 128, 1}, false, "(2,1@F) (128,1@P) (1,1@F)"},
		{"PF", []int64{256, 1024}, true, "(2,2@Bank) (128,1@P) (2,1@Bank) (512,1@F)"},
		{"FP", []int64{1024, 128}, true, "(2,1@Bank) (512,1@F) (128,1@P)"},
		{"PPF", []int64{4, 32, 16}, false, "(4,32@P) (32,1@P) (16,1@F)"},
		{"PF", []int64{16384, 1}, false, "(128,1@F) (128,1@P) (1,1@F)"},
		{"PF", []int64{200, 4}, false, "There is only 1 P in the annotation. Partition size 200 must be less than or equal to 128 or a multiple of 128"},
		{"PPF", []int64{16, 16, 4}, false, "There are 2 Ps in the annotation. Partition size 256 must be less than or equal to 128"},
		{"PX", []int64{4, 4}, false, "annotation PX must be a string of 'P' and 'F'"},
	} {
		l, msg := trainiumLayout(c.ann, c.shape, c.psum)
		got := msg
		if l != nil {
			got = ""
			for i, it := range l.Shard {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("(%d,%d@%s)", it.Extent, it.Stride, it.Axis.Name)
			}
		}
		if got != c.want {
			t.Errorf("trainium(%q, %v, psum=%v) = %s, want %s", c.ann, c.shape, c.psum, got, c.want)
		}
	}
}
