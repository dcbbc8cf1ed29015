package memory

import (
	"iter"
	"math/bits"
	"unsafe"
)

// ptrMap is a hash map keyed by pointers to IR nodes (variables, calls,
// buffers), open addressing with linear probing. The machine looks its
// variables and intrinsics up at every statement it executes: with Go's
// map, hashing the pointer and probing its groups were a fifth of
// flash_attention4.py's analysis. Here the hash is the pointer's
// address times the golden ratio (Go's collector does not move heap
// objects, and the IR lives on the heap), kept in the table's top bits.
//
// Iteration order is the table's, which depends on the addresses, so no
// caller may depend on it (as with Go's maps), and no key may be set or
// deleted during an iteration. The zero value is an empty map, and as
// with Go's maps a nil *ptrMap reads as empty (set panics). Unlike a Go
// map, it holds no nil key.
type ptrMap[K any, V any] struct {
	slots []ptrSlot[K, V]
	n     int  // keys held
	shift uint // 64 - log2(len(slots))
}

type ptrSlot[K any, V any] struct {
	k *K
	v V
}

// minPtrSlots is the table size of a map's first key.
const minPtrSlots = 16

func (m *ptrMap[K, V]) index(k *K) uint {
	return uint((uint64(uintptr(unsafe.Pointer(k))) * 0x9E3779B97F4A7C15) >> m.shift)
}

// Len is the number of keys held.
func (m *ptrMap[K, V]) Len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// get returns k's value (the zero value when k is not held).
func (m *ptrMap[K, V]) get(k *K) V {
	v, _ := m.lookup(k)
	return v
}

// has reports whether k is held.
func (m *ptrMap[K, V]) has(k *K) bool {
	_, ok := m.lookup(k)
	return ok
}

// lookup returns k's value and whether k is held.
func (m *ptrMap[K, V]) lookup(k *K) (V, bool) {
	if m == nil || m.n == 0 || k == nil {
		var zero V
		return zero, false
	}
	mask := uint(len(m.slots) - 1)
	for i := m.index(k); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.k == k {
			return s.v, true
		}
		if s.k == nil {
			var zero V
			return zero, false
		}
	}
}

// set holds v at k; a nil k is never held (no lookup asks for one).
func (m *ptrMap[K, V]) set(k *K, v V) {
	if k == nil {
		return
	}
	if (m.n+1)*4 > len(m.slots)*3 {
		m.grow()
	}
	mask := uint(len(m.slots) - 1)
	for i := m.index(k); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.k == k {
			s.v = v
			return
		}
		if s.k == nil {
			s.k, s.v = k, v
			m.n++
			return
		}
	}
}

func (m *ptrMap[K, V]) grow() {
	old := m.slots
	size := max(minPtrSlots, 2*len(old))
	m.slots = make([]ptrSlot[K, V], size)
	m.shift = uint(64 - bits.TrailingZeros(uint(size)))
	m.n = 0
	for _, s := range old {
		if s.k != nil {
			m.set(s.k, s.v)
		}
	}
}

// del removes k (backward-shift deletion: the keys after it in its probe
// run move back, so that no lookup stops early).
func (m *ptrMap[K, V]) del(k *K) {
	if m == nil || m.n == 0 || k == nil {
		return
	}
	mask := uint(len(m.slots) - 1)
	i := m.index(k)
	for {
		s := &m.slots[i]
		if s.k == nil {
			return
		}
		if s.k == k {
			break
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := &m.slots[j]
		if s.k == nil {
			break
		}
		// s may move to the hole at i when its home is not in (i, j]
		if h := m.index(s.k); (j-h)&mask >= (j-i)&mask {
			m.slots[i] = *s
			i = j
		}
	}
	m.slots[i] = ptrSlot[K, V]{}
	m.n--
}

// clear removes every key, keeping the table (up to maxKeptSlots) for
// the next analysis.
func (m *ptrMap[K, V]) clear() {
	if m == nil || m.n == 0 {
		return
	}
	if len(m.slots) > maxKeptSlots {
		*m = ptrMap[K, V]{}
		return
	}
	clear(m.slots)
	m.n = 0
}

// maxKeptSlots bounds the table a cleared map keeps.
const maxKeptSlots = 1 << 14

// all yields every key and its value, in the table's order.
func (m *ptrMap[K, V]) all() iter.Seq2[*K, V] {
	return func(yield func(*K, V) bool) {
		if m == nil {
			return
		}
		for _, s := range m.slots {
			if s.k != nil && !yield(s.k, s.v) {
				return
			}
		}
	}
}

// ptrMapList hands out empty ptrMaps, kept ones first (as mapList does
// Go maps).
type ptrMapList[K any, V any] struct {
	free, used []*ptrMap[K, V]
}

func (l *ptrMapList[K, V]) take() *ptrMap[K, V] {
	var mp *ptrMap[K, V]
	if n := len(l.free); n > 0 {
		mp = l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
	} else {
		mp = &ptrMap[K, V]{}
	}
	l.used = append(l.used, mp)
	return mp
}

func (l *ptrMapList[K, V]) release() {
	for i, mp := range l.used {
		mp.clear()
		if len(l.free) < maxFreeMaps {
			l.free = append(l.free, mp)
		}
		l.used[i] = nil
	}
	l.used = l.used[:0]
}

// ptrMapOf is a ptrMap holding m's keys and values (tests).
func ptrMapOf[K any, V any](m map[*K]V) *ptrMap[K, V] {
	pm := &ptrMap[K, V]{}
	for k, v := range m {
		pm.set(k, v)
	}
	return pm
}

// regElems holds the elements of one register buffer a warp wrote so
// far, by element offset: those below maxDenseElem in a slice (a
// register table's offsets are small), the others in a map. Looked up at
// every register load and store, a Go map of offsets was most of them.
type regElems struct {
	dense  []*binding
	sparse map[int64]*binding
	n      int
}

// maxDenseElem bounds the offsets regElems keeps in its slice.
const maxDenseElem = 1 << 12

func (r *regElems) get(i int64) *binding {
	if r == nil {
		return nil
	}
	if i >= 0 && i < int64(len(r.dense)) {
		return r.dense[i]
	}
	if i >= 0 && i < maxDenseElem {
		return nil
	}
	return r.sparse[i]
}

func (r *regElems) set(i int64, b *binding) {
	if i >= 0 && i < maxDenseElem {
		if i >= int64(len(r.dense)) {
			n := max(int(i)+1, 2*len(r.dense), 8)
			r.dense = append(r.dense, make([]*binding, min(n, maxDenseElem)-len(r.dense))...)
		}
		if r.dense[i] == nil {
			r.n++
		}
		r.dense[i] = b
		return
	}
	if r.sparse == nil {
		r.sparse = map[int64]*binding{}
	}
	if _, ok := r.sparse[i]; !ok {
		r.n++
	}
	r.sparse[i] = b
}

// Len is the number of elements held.
func (r *regElems) Len() int {
	if r == nil {
		return 0
	}
	return r.n
}

// all yields every element held and its offset (the dense ones in
// increasing order, then the others in the map's order).
func (r *regElems) all() iter.Seq2[int64, *binding] {
	return func(yield func(int64, *binding) bool) {
		if r == nil {
			return
		}
		for i, b := range r.dense {
			if b != nil && !yield(int64(i), b) {
				return
			}
		}
		for i, b := range r.sparse {
			if !yield(i, b) {
				return
			}
		}
	}
}
