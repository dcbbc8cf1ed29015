package release

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Release
		ok   bool
	}{
		{"0.25", R025, true}, {"0.25.0.post1", R025, true}, {"0.26.0", R026, true},
		{"0.27.0.post1", R027, true}, {" v0.27 ", R027, true}, {"0.27.1.dev4", R027, true},
		{"0.24.0", 0, false}, {"latest", 0, false}, {"", 0, false},
	} {
		got, ok := Parse(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestSet(t *testing.T) {
	if s := From(R026); s.Has(R025) || !s.Has(R026) || !s.Has(R027) || s.String() != "0.26, 0.27" {
		t.Errorf("From(R026) = %v", s)
	}
	if s := Until(R025); !s.Has(R025) || s.Has(R026) || s.String() != "0.25" {
		t.Errorf("Until(R025) = %v", s)
	}
	var all Set
	if !all.Has(R027) || all.String() != "all" {
		t.Errorf("zero Set = %v", all)
	}
	if Newest.String() != "0.27.0.post1" || R025.Short() != "0.25" {
		t.Errorf("names: %v %v", Newest, R025.Short())
	}
}
