package eval

import "testing"

// Slab slots are handed out once: no two values share memory, and a
// slice taken from a slab cannot grow into the next one.
func TestSlabSlotsAreDistinct(t *testing.T) {
	var s slab[IntV]
	seen := map[*IntV]bool{}
	for i := 0; i < 3*slabSize; i++ {
		p := s.new()
		if seen[p] {
			t.Fatalf("slot %d handed out twice", i)
		}
		if p.V != 0 {
			t.Fatalf("slot %d not zero: %d", i, p.V)
		}
		p.V = int64(i + 1)
		seen[p] = true
	}
	var vs slab[Value]
	a := vs.take(1)
	b := vs.take(2)
	if cap(a) != 1 || cap(b) != 2 {
		t.Fatalf("capacities %d and %d, want 1 and 2", cap(a), cap(b))
	}
	a = append(a, &IntV{V: 7}) // past its capacity: a copy
	b[0] = &IntV{V: 8}
	if a[1].(*IntV).V != 7 || b[0].(*IntV).V != 8 {
		t.Fatal("appending to one taken slice changed another")
	}
	for i := 0; i < slabSize; i++ {
		if x := vs.take(3); len(x) != 3 || x[0] != nil {
			t.Fatalf("take %d: %v", i, x)
		}
	}
}

// An evaluated call's argument slices hold at most its arguments: an
// append past them copies instead of writing over another call's.
func TestNewCallCapacity(t *testing.T) {
	ev := &Evaluator{}
	for n := 0; n <= 6; n++ {
		c := ev.newCall(n)
		if n > 0 && n <= 4 && (cap(c.Args) != n || cap(c.ArgSpans) != n) {
			t.Errorf("newCall(%d): capacities %d, %d", n, cap(c.Args), cap(c.ArgSpans))
		}
		if len(c.Args) != 0 || len(c.ArgSpans) != 0 || c.Node != nil || c.Fr != nil {
			t.Errorf("newCall(%d) not empty", n)
		}
	}
	c1, c2 := ev.newCall(2), ev.newCall(2)
	c1.Args = append(c1.Args, &IntV{V: 1}, &IntV{V: 2}, &IntV{V: 3})
	c2.Args = append(c2.Args, &IntV{V: 4})
	if c1.Args[0].(*IntV).V != 1 || c2.Args[0].(*IntV).V != 4 {
		t.Fatal("calls share argument memory")
	}
}
