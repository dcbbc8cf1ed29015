package memory

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

// laneLine is an event's addresses when its active lanes' lie on one
// line, base + lane*stride (ok): the lanes of a pending list's events
// mostly do, and three events on lines of one stride are apart by the
// same distances in every lane, so that interleaved decides in one
// comparison what it decides lane by lane (flush asks it for each event
// a run steps over, up to maxSkips of them for each run). One active
// lane is a line of stride 0; done marks a line computed (lineAt).
type laneLine struct {
	done, ok     bool
	base, stride int64
}

// lineAt returns the line of p[i], computed once in lines[i].
func lineAt(p []event, lines []laneLine, i int) laneLine {
	if !lines[i].done {
		lines[i] = lineOf(&p[i])
		lines[i].done = true
	}
	return lines[i]
}

func lineOf(e *event) laneLine {
	first, second := -1, -1
	var stride int64
	for i := range 32 {
		if e.mask&(1<<i) == 0 {
			continue
		}
		switch {
		case first < 0:
			first = i
			continue
		case second < 0:
			second = i
			d := e.addr[i] - e.addr[first]
			if d%int64(i-first) != 0 {
				return laneLine{}
			}
			stride = d / int64(i-first)
		}
		if e.addr[i] != e.addr[first]+int64(i-first)*stride {
			return laneLine{}
		}
	}
	if first < 0 {
		return laneLine{}
	}
	return laneLine{ok: true, base: e.addr[first] - int64(first)*stride, stride: stride}
}

// interleavedOn is interleaved(&p[first], &p[last], &p[q]) for events of
// one mask, on their lines when the three share a stride (q's line first:
// a swizzled access is on none, and then the others' are not needed).
func interleavedOn(p []event, lines []laneLine, first, last, q int) bool {
	if lq := lineAt(p, lines, q); lq.ok {
		if ll := lineAt(p, lines, last); ll.ok && ll.stride == lq.stride {
			if lf := lineAt(p, lines, first); lf.ok && lf.stride == lq.stride {
				return !(lq.base < ll.base+2*p[last].width && lf.base < lq.base+p[q].width)
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
