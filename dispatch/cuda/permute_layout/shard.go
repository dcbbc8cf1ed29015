package permutelayout

// Shard arithmetic of permute_layout/warp_xor_swizzle: TVM's Group with its
// exact failure texts, the bijection check and the bank-conflict simulation
// that picks the XOR bits (TVM warp_xor_swizzle.py _check_bijection,
// _bank_free, _choose_xor_k).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
)

const (
	warpSize = 32
	numBanks = 32
	bankW    = 4 // bytes per bank
)

// groupTVM is TVM tirx::Group (src/tirx/ir/layout/tile_tile_ops.cc) on
// constant extents. On failure it returns the text of the ICHECK that
// fails, as str(e) of the raised TVMError reads:
// "Check failed: (<cond>) is false: layout <L> can not be grouped by shape (a, b)".
func groupTVM(l *layout.TileLayout, shape []int64) (*layout.TileLayout, []int, string) {
	fail := func(cond string) (*layout.TileLayout, []int, string) {
		return nil, nil, fmt.Sprintf("Check failed: (%s) is false: layout %s can not be grouped by shape %s",
			cond, tvmLayoutString(l), pyTuple(shape))
	}
	idx := 0
	prod := int64(1)
	var shard []layout.Iter
	seps := []int{0}
	for _, it := range l.Shard {
		e, s := it.Extent, it.Stride
		prod *= e
		for idx < len(shape) && shape[idx] != 0 && floorMod(prod, shape[idx]) == 0 {
			c := prod / shape[idx]
			if c == 0 || floorMod(e, c) != 0 {
				return fail("analyzer->CanProveEqual(floormod(extent_i, c), 0)")
			}
			shard = append(shard, layout.Iter{Extent: e / c, Stride: s * c, Axis: it.Axis})
			e, prod = c, c
			idx++
			seps = append(seps, len(shard))
		}
		if e != 1 {
			if idx >= len(shape) {
				return fail("shape_idx < shape.size()")
			}
			shard = append(shard, layout.Iter{Extent: e, Stride: s, Axis: it.Axis})
		}
	}
	if idx != len(shape) {
		return fail("shape_idx == shape.size()")
	}
	return layout.NewTile(shard, l.Replica, l.Offset), seps, ""
}

// tvmLayoutString prints a TileLayout as TVM's repr does:
// T.TileLayout(T.S[(2, 3):(1, 2)] + 6), a single iter as T.S[6:1].
func tvmLayoutString(l *layout.TileLayout) string {
	var b strings.Builder
	b.WriteString("T.TileLayout(T.S")
	b.WriteString(tvmIters(l.Shard))
	if len(l.Replica) > 0 {
		b.WriteString(" + T.R")
		b.WriteString(tvmIters(l.Replica))
	}
	if v := l.Offset[layout.M]; v != 0 {
		b.WriteString(" + " + strconv.FormatInt(v, 10))
	}
	for a, v := range l.Offset {
		if a != layout.M && v != 0 {
			b.WriteString(fmt.Sprintf(" + %d@%s", v, a.Name))
		}
	}
	b.WriteString(")")
	return b.String()
}

func tvmIters(its []layout.Iter) string {
	str := func(it layout.Iter) string {
		if it.Axis == nil || it.Axis == layout.M {
			return strconv.FormatInt(it.Stride, 10)
		}
		return strconv.FormatInt(it.Stride, 10) + "@" + it.Axis.Name
	}
	if len(its) == 1 {
		return "[" + strconv.FormatInt(its[0].Extent, 10) + ":" + str(its[0]) + "]"
	}
	ext, st := make([]string, len(its)), make([]string, len(its))
	for i, it := range its {
		ext[i], st[i] = strconv.FormatInt(it.Extent, 10), str(it)
	}
	return "[(" + strings.Join(ext, ", ") + "):(" + strings.Join(st, ", ") + ")]"
}

// pyList prints a Python list of ints: [4, 32].
func pyList(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// pyTuple prints an ffi Array of ints as TVM's check message does: (3, 2), (4,).
func pyTuple(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// decompose splits flat row-major over extent (TVM _decompose_row_major).
func decompose(flat int64, extent []int64, out []int64) {
	for k := len(extent) - 1; k >= 0; k-- {
		out[k] = floorMod(flat, extent[k])
		flat = floorDiv(flat, extent[k])
	}
}

func offsetOf(idx, strides []int64) int64 {
	var off int64
	for i := range idx {
		off += idx[i] * strides[i]
	}
	return off
}

func product(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}

// isBijection: do extent and strides map [0, V) onto V distinct offsets
// (TVM _check_bijection)?
func isBijection(extent, strides []int64) bool {
	v := product(extent)
	seen := make(map[int64]bool, v)
	idx := make([]int64, len(extent))
	for i := int64(0); i < v; i++ {
		decompose(i, extent, idx)
		off := offsetOf(idx, strides)
		if seen[off] {
			return false
		}
		seen[off] = true
	}
	return int64(len(seen)) == v
}

// xorSlot is the iteration slot j that register r of lane holds under k
// XOR bits: r ^ ((lane >> (5-k)) & (2^k - 1)).
func xorSlot(r, lane int64, k int) int64 {
	return r ^ ((lane >> (5 - k)) & (int64(1)<<k - 1))
}

// conflictWays is the worst bank conflict of one phase under k XOR bits:
// for every register slot r, the most lanes of the warp that hit one bank
// (1 means conflict-free; TVM _bank_free is conflictWays == 1).
func conflictWays(extent, strides []int64, dtypeBytes, p int64, k int) int64 {
	worst := int64(1)
	idx := make([]int64, len(extent))
	for r := int64(0); r < p; r++ {
		var hits [numBanks]int64
		for lane := int64(0); lane < warpSize; lane++ {
			j := xorSlot(r, lane, k)
			decompose(lane+j*warpSize, extent, idx)
			bank := floorMod(floorDiv(offsetOf(idx, strides)*dtypeBytes, bankW), numBanks)
			hits[bank]++
			worst = max(worst, hits[bank])
		}
	}
	return worst
}

func bankFree(extent, strides []int64, dtypeBytes, p int64, k int) bool {
	return conflictWays(extent, strides, dtypeBytes, p, k) == 1
}

// log2 of a power of two.
func log2(p int64) int {
	n := 0
	for p > 1 {
		p >>= 1
		n++
	}
	return n
}

// chooseXorK is the smallest k in [0, log2(P)] that makes both phases
// conflict-free, or -1 (TVM _choose_xor_k).
func chooseXorK(extent, src, dst []int64, dtypeBytes, p int64) int {
	maxK := 0
	if p > 0 {
		maxK = log2(p)
	}
	for k := 0; k <= maxK; k++ {
		if bankFree(extent, src, dtypeBytes, p, k) && bankFree(extent, dst, dtypeBytes, p, k) {
			return k
		}
	}
	return -1
}
