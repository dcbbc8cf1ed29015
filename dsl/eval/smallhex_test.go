package eval

import (
	"math/big"
	"testing"
)

// TestSmallHex: the fast path parses what big.Int's SetString (base 0)
// parses, and leaves the rest to it.
func TestSmallHex(t *testing.T) {
	for _, s := range []string{"0x0", "0x40004040", "0XfF", "0xABCDEF", "0x7fffffffffffffff", "0xfffffffffffffff", "0x", "0x_1", "0xg", "0b101", "0o17", "12", "0x1_0"} {
		n, ok := smallHex(s)
		want, wok := new(big.Int).SetString(s, 0)
		if ok && (!wok || !want.IsInt64() || want.Int64() != n) {
			t.Errorf("smallHex(%q) = %d, big.Int says %v %v", s, n, want, wok)
		}
		if !ok && len(s) <= 17 && wok && want.IsInt64() && s[0] == '0' && len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && !containsUnderscore(s) {
			t.Errorf("smallHex(%q) declined a hex literal of at most 15 digits", s)
		}
	}
}

func containsUnderscore(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			return true
		}
	}
	return false
}
