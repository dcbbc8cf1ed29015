package memory

import (
	"math/rand/v2"
	"testing"
)

type ptrKey struct{ id int }

// checkPtrMap replays ops (a byte each: the low 2 bits pick set, del,
// lookup or clear, the rest the key) on a ptrMap and on a Go map, and
// fails where they disagree.
func checkPtrMap(t *testing.T, ops []byte) {
	keys := make([]*ptrKey, 64)
	for i := range keys {
		keys[i] = &ptrKey{i}
	}
	var pm ptrMap[ptrKey, int]
	gm := map[*ptrKey]int{}
	for step, op := range ops {
		k := keys[int(op>>2)%len(keys)]
		switch op & 3 {
		case 0:
			pm.set(k, step)
			gm[k] = step
		case 1:
			pm.del(k)
			delete(gm, k)
		case 2:
			v, ok := pm.lookup(k)
			w, ok2 := gm[k]
			if v != w || ok != ok2 {
				t.Fatalf("step %d: lookup(%d) = %d, %v; want %d, %v", step, k.id, v, ok, w, ok2)
			}
		case 3:
			if step%7 == 0 { // (rarely: most sequences should grow)
				pm.clear()
				clear(gm)
			}
		}
		if pm.Len() != len(gm) {
			t.Fatalf("step %d: Len = %d, want %d", step, pm.Len(), len(gm))
		}
	}
	seen := 0
	for k, v := range pm.all() {
		if w, ok := gm[k]; !ok || v != w {
			t.Fatalf("all yields %d = %d; the map holds %d, %v", k.id, v, w, ok)
		}
		seen++
	}
	if seen != len(gm) {
		t.Fatalf("all yields %d keys, want %d", seen, len(gm))
	}
	for _, k := range keys {
		v, ok := pm.lookup(k)
		w, ok2 := gm[k]
		if v != w || ok != ok2 || pm.has(k) != ok2 || pm.get(k) != w {
			t.Fatalf("end: lookup(%d) = %d, %v; want %d, %v", k.id, v, ok, w, ok2)
		}
	}
}

// TestPtrMapRandom compares ptrMap with Go's map over random operation
// sequences, long enough to grow the table several times and to delete
// inside long probe runs.
func TestPtrMapRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ops := make([]byte, 1+r.IntN(2000))
		for i := range ops {
			ops[i] = byte(r.IntN(256))
			if r.IntN(3) == 0 {
				ops[i] &^= 3 // more sets than the rest
			}
		}
		checkPtrMap(t, ops)
	}
}

// TestPtrMapDeleteRuns deletes every key of a full table in several
// orders: each deletion must keep the keys after it in its probe run
// reachable.
func TestPtrMapDeleteRuns(t *testing.T) {
	keys := make([]*ptrKey, 500)
	for i := range keys {
		keys[i] = &ptrKey{i}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		var pm ptrMap[ptrKey, int]
		for i, k := range keys {
			pm.set(k, i)
		}
		order := r.Perm(len(keys))
		for n, i := range order {
			pm.del(keys[i])
			if pm.has(keys[i]) {
				t.Fatalf("key %d held after del", i)
			}
			for _, j := range order[n+1:] {
				if v, ok := pm.lookup(keys[j]); !ok || v != j {
					t.Fatalf("after deleting %d keys: key %d = %d, %v", n+1, j, v, ok)
				}
			}
		}
		if pm.Len() != 0 {
			t.Fatalf("Len = %d after deleting every key", pm.Len())
		}
	}
}

// FuzzPtrMap is checkPtrMap on fuzzed operation sequences; its seeds run
// in plain go test.
func FuzzPtrMap(f *testing.F) {
	f.Add([]byte{0, 4, 8, 2, 6, 1, 2, 5, 6})
	f.Add([]byte{0, 0, 1, 1, 2, 3, 0, 2})
	seq := make([]byte, 300)
	for i := range seq {
		seq[i] = byte(i*37) &^ 2
	}
	f.Add(seq)
	f.Fuzz(func(t *testing.T, ops []byte) { checkPtrMap(t, ops) })
}

// TestRegElems compares regElems with a Go map over random offsets: small
// ones (its slice), negative and large ones (its map).
func TestRegElems(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		var re regElems
		gm := map[int64]*binding{}
		for range 300 {
			var i int64
			switch r.IntN(3) {
			case 0:
				i = r.Int64N(64)
			case 1:
				i = r.Int64N(2*maxDenseElem) - maxDenseElem
			default:
				i = r.Int64N(1 << 40)
			}
			if r.IntN(2) == 0 {
				b := &binding{}
				re.set(i, b)
				gm[i] = b
			} else if re.get(i) != gm[i] {
				t.Fatalf("get(%d) = %p, want %p", i, re.get(i), gm[i])
			}
			if re.Len() != len(gm) {
				t.Fatalf("Len = %d, want %d", re.Len(), len(gm))
			}
		}
		n := 0
		for i, b := range re.all() {
			if gm[i] != b {
				t.Fatalf("all yields %d = %p, want %p", i, b, gm[i])
			}
			n++
		}
		if n != len(gm) {
			t.Fatalf("all yields %d elements, want %d", n, len(gm))
		}
	}
	var nilElems *regElems
	if nilElems.get(3) != nil || nilElems.Len() != 0 {
		t.Fatal("a nil regElems is not empty")
	}
}

// BenchmarkPtrMapLookup is a lookup of one of 300 pointer keys: in a
// ptrMap (sub-benchmark ptrmap) and in a Go map (gomap), the table the
// machine used before for its variables and intrinsics.
func BenchmarkPtrMapLookup(b *testing.B) {
	keys := make([]*ptrKey, 300)
	var pm ptrMap[ptrKey, int]
	gm := map[*ptrKey]int{}
	for i := range keys {
		keys[i] = &ptrKey{i}
		pm.set(keys[i], i)
		gm[keys[i]] = i
	}
	b.Run("ptrmap", func(b *testing.B) {
		s := 0
		for b.Loop() {
			for _, k := range keys {
				s += pm.get(k)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/lookup")
	})
	b.Run("gomap", func(b *testing.B) {
		s := 0
		for b.Loop() {
			for _, k := range keys {
				s += gm[k]
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/lookup")
	})
}
