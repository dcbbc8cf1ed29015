package memory

import "math/bits"

// interleaved reports whether q, an access of the same kind, buffer,
// lanes and width as the run from first to last that does not follow
// last, may be stepped over while the run looks for its next element: in
// every lane q touches neither the run's bytes nor the slot after it, so
// it belongs to another chain of the same unrolled nest. nvcc's load/store vectorizer groups
// the accesses of one base address by their constant offsets, not by
// program order. Measured: v_gs_transposed t_f16 copies
// A_s[(f/2) + (f%2)*512 + tid*16] for f < 32: the even f fill one
// 32-byte row, the odd f another; SASS has STS.128 x4 and LDS.128 x4
// per thread, ncu 4 shared store and 4 shared load instructions.
func interleaved(first, last, q *event) bool {
	for i := range 32 {
		if q.mask&(1<<i) == 0 {
			continue
		}
		// q's bytes meet the run's [first, last+width) or the next slot
		if q.addr[i] < last.addr[i]+2*last.width && first.addr[i] < q.addr[i]+q.width {
			return false
		}
	}
	return true
}

// laneShape places a pending event among the translations of one
// another: its addresses are base plus the offsets of shape id (the
// offsets from its first active lane, in flush's table of them). Three
// events of one mask and one shape are apart by the same distances in
// every lane, so that interleaved decides in one comparison what it
// decides lane by lane: flush asks it for each event a run steps over,
// up to maxSkips of them for each run, and an unroll loop's accesses of
// one instruction are translations (a swizzled one's too, when its
// iterations move by whole swizzle atoms). id 0: not placed yet; -1:
// none (the table is full).
type laneShape struct {
	id   int32
	base int64
}

// maxShapes bounds the shapes of one flush (each is searched for every
// event placed).
const maxShapes = 16

// shapeAt returns the shape of p[i], placed once in shapes[i] (tab: the
// flush's offset vectors).
func shapeAt(p []event, shapes []laneShape, tab *[]lanes, i int) laneShape {
	if shapes[i].id != 0 {
		return shapes[i]
	}
	e := &p[i]
	if e.mask == 0 {
		shapes[i].id = -1
		return shapes[i]
	}
	base := e.addr[bits.TrailingZeros32(e.mask)]
	var off lanes
	for rest := e.mask; rest != 0; rest &= rest - 1 {
		l := bits.TrailingZeros32(rest)
		off[l] = e.addr[l] - base
	}
	id := int32(-1)
	for j := range *tab {
		if (*tab)[j] == off {
			id = int32(j + 1)
			break
		}
	}
	if id < 0 && len(*tab) < maxShapes {
		*tab = append(*tab, off)
		id = int32(len(*tab))
	}
	shapes[i] = laneShape{id: id, base: base}
	return shapes[i]
}

// interleavedOn is interleaved(&p[first], &p[last], &p[q]) for events of
// one mask, on their bases when the three have one shape (q's first: the
// others' are not needed when it has none).
func interleavedOn(p []event, shapes []laneShape, tab *[]lanes, first, last, q int) bool {
	if sq := shapeAt(p, shapes, tab, q); sq.id > 0 {
		if sl := shapeAt(p, shapes, tab, last); sl.id == sq.id {
			if sf := shapeAt(p, shapes, tab, first); sf.id == sq.id {
				return !(sq.base < sl.base+2*p[last].width && sf.base < sq.base+p[q].width)
			}
		}
	}
	return interleaved(&p[first], &p[last], &p[q])
}

// maxSkips bounds the accesses a run steps over (the vectorizer looks at
// a window of instructions, and the flush stays linear).
const maxSkips = 64

// widened is a load run of k elements (k not a power of two, its
// power-of-two prefix n elements of width bytes) read as one access of
// the next power of two when the first address is aligned to it: the
// extra bytes lie in the same aligned block, so the load cannot fault
// and nvcc widens it (stores are never widened). Measured: v_gs_odd_sizes
// w7x9 copies a 7x9 f32 tile in one thread: the last three floats (240
// to 251 bytes) are one LDS.128 where the stores are STS.64 + STS (ncu
// 16 shared load and 17 shared store instructions); t5x7 reads the last
// three bytes of a 35-byte u8 tile with one 32-bit LDS. lim is the widest
// access the run may become (halfloads.go).
func widened(e *event, k, n int, width, lim int64) (int, int64) {
	c := 1
	for c < k {
		c *= 2
	}
	if w := int64(c) * e.width; w <= lim && e.align%w == 0 {
		return k, w
	}
	return n, width
}

// takeStepped extends a load run with the loads it stepped over, in
// address order: while one of stepped (indices of p, each interleaved
// with the run when it was stepped over) accesses the bytes right after
// the run's last in every lane, it joins the run (and leaves stepped),
// up to lim bytes. ptxas sorts independent loads of one base by address
// before it vectorizes them, whatever their program order. Measured:
// v_reg_permuted_regs' perm loads its row of A_s as eight 32-bit loads
// at bytes 0, 8, 16, 24, 4, 12, 20, 28 (its register layout's order):
// SASS has two LDS.128, ncu 2 shared load instructions and 16 wavefronts.
// Stores are not reordered: the same kernel's eight global stores in
// that order stay eight STG.
func takeStepped(p []event, run []int, last int, stepped []int, lim int64) ([]int, int, []int) {
	width := p[last].width
	for int64(len(run))*width < lim {
		k := -1
		for x, j := range stepped {
			if follows(&p[last], &p[j]) {
				k = x
				break
			}
		}
		if k < 0 {
			break
		}
		last = stepped[k]
		run = append(run, last)
		stepped = append(stepped[:k], stepped[k+1:]...)
	}
	return run, last, stepped
}
