package txtar

import "testing"

func TestRoundTrip(t *testing.T) {
	for _, in := range []string{
		"comment\n-- a.py --\nx = 1\n-- out/b --\nhello\n",
		"-- a --\n-- b --\nline\n",
		"no sections at all\n",
	} {
		a := Parse([]byte(in))
		if got := string(Format(a)); got != in {
			t.Errorf("round trip of %q gave %q", in, got)
		}
	}
	a := Parse([]byte("-- x --\n1\n"))
	a.Set("y", []byte("2\n"))
	a.Set("x", []byte("3\n"))
	if got := string(Format(a)); got != "-- x --\n3\n-- y --\n2\n" {
		t.Errorf("Set: got %q", got)
	}
	if _, ok := a.Get("z"); ok {
		t.Error("Get of a missing section succeeded")
	}
	if got := Parse([]byte("-- not a marker\n-- m --")); len(got.Files) != 1 || got.Files[0].Name != "m" {
		t.Errorf("marker parsing: %+v", got)
	}
}
