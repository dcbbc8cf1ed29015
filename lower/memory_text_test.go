package lower

import "testing"

// TestThreadList checks the thread lists of the bank-conflict texts: runs
// of three or more consecutive threads as a range, the others one by one.
func TestThreadList(t *testing.T) {
	for _, c := range []struct {
		ts   []int64
		want string
	}{
		{nil, ""},
		{[]int64{7}, "7"},
		{[]int64{1, 2}, "1, 2"},
		{[]int64{1, 2, 3}, "1..3"},
		{[]int64{0, 1, 2, 5, 7, 8}, "0..2, 5, 7, 8"},
		{[]int64{0, 32, 64, 65, 66, 67, 100}, "0, 32, 64..67, 100"},
	} {
		if got := threadList(c.ts); got != c.want {
			t.Errorf("threadList(%v) = %q, want %q", c.ts, got, c.want)
		}
	}
}
