package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestScalarBinary: the once-per-warp arithmetic (scalarBinary, used when
// every lane holds the same value) agrees with the per-lane operators
// (binaryTo, and binaryConst for a constant operand) on every operator,
// an unknown one included, over signed values, zeros, powers of two and
// shift counts past 63.
func TestScalarBinary(t *testing.T) {
	vals := []int64{0, 1, -1, 2, -2, 3, 7, -7, 8, -8, 31, 32, 64, 65, -65, 100, 1 << 20, -(1 << 20), 1<<62 - 1}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		vals = append(vals, r.Int64N(1<<40)-1<<39)
	}
	for op := ir.BinOp(0); op <= ir.Shr+1; op++ {
		for _, a := range vals {
			for _, b := range vals {
				got, gwhy := scalarBinary(op, a, b)
				la, lb := bcast(a), bcast(b)
				var want lanes
				wwhy := binaryTo(op, &want, &la, &lb)
				if got != want[0] || gwhy != wwhy {
					t.Fatalf("op %d on %d, %d: scalar %d %q, lanes %d %q", op, a, b, got, gwhy, want[0], wwhy)
				}
				c := bcast(a)
				cwhy := binaryConst(op, &c, b)
				if got != c[0] || gwhy != cwhy {
					t.Fatalf("op %d on %d, const %d: scalar %d %q, binaryConst %d %q", op, a, b, got, gwhy, c[0], cwhy)
				}
			}
		}
	}
}

// TestBinaryLanes compares every lane of binaryTo and binaryConst with
// scalarBinary on lanes that all differ (TestScalarBinary's broadcast
// lanes would not see a lane computed from another's operands).
func TestBinaryLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for op := ir.BinOp(0); op <= ir.Shr+1; op++ {
		for range 200 {
			var a, b lanes
			for i := range a {
				a[i], b[i] = r.Int64N(2001)-1000, r.Int64N(41)-20
			}
			var got lanes
			why := binaryTo(op, &got, &a, &b)
			c := b[r.IntN(32)]
			gotC := a
			whyC := binaryConst(op, &gotC, c)
			for i := range a {
				want, wwhy := scalarBinary(op, a[i], b[i])
				if wwhy == "" && why == "" && got[i] != want {
					t.Fatalf("op %d lane %d: %d op %d = %d, want %d", op, i, a[i], b[i], got[i], want)
				}
				wantC, cwhy := scalarBinary(op, a[i], c)
				if cwhy == "" && whyC == "" && gotC[i] != wantC {
					t.Fatalf("op %d lane %d: %d op const %d = %d, want %d", op, i, a[i], c, gotC[i], wantC)
				}
			}
		}
	}
}
