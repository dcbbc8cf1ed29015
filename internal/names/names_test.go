package names

import "testing"

func TestNamer(t *testing.T) {
	n := New(Reserved("int", "for"))
	a, b, c := new(int), new(int), new(int)
	for _, tc := range []struct {
		key  any
		want string
		got  string
	}{
		{a, "x", "x"},
		{b, "x", "x_1"},
		{a, "ignored", "x"},
		{c, "int", "int_1"},
		{"k", "9 lives!", "_9_lives_"},
	} {
		if got := n.Name(tc.key, tc.want); got != tc.got {
			t.Errorf("Name(%v, %q) = %q, want %q", tc.key, tc.want, got, tc.got)
		}
	}
	if got := n.Fresh("x"); got != "x_2" {
		t.Errorf("Fresh(x) = %q", got)
	}
}
