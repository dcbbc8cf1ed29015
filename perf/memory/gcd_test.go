package memory

import "testing"

// TestGCD checks the binary gcd against Euclid's on signed values, zeros
// and the large divisibilities (bigDiv) the analysis combines.
func TestGCD(t *testing.T) {
	euclid := func(a, b int64) int64 {
		a, b = abs(a), abs(b)
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	vals := []int64{0, 1, -1, 2, 3, -4, 6, 12, 16, 18, 64, 96, 100, 128, 255, 256, 1000, 4096, bigDiv, 3 * bigDiv, bigDiv * 64, 1<<40 + 12, -(1 << 33)}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := gcd(a, b), euclid(a, b); got != want {
				t.Errorf("gcd(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}
