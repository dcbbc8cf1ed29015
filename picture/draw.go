package picture

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Call is a lowered tile call as the pictures need it.
type Call struct {
	// Title names the kernel, the call and the variant.
	Title string
	Tile  *ir.TileCall
	// Body is the variant's lowered body (nil when no variant applies).
	Body *ir.Block
	// Threads is the number of threads of the call (its scope's size).
	Threads int
	// Scope maps the kernel's scope-id variables (tid = T.thread_id([128]))
	// to the thread axis each one is ("tx", "laneid", "warpid",
	// "tid_in_wg", "wid_in_wg", "wgid"): the lowered code may read them.
	Scope map[*ir.Var]string
	// MaxSteps bounds the evaluation of the lowered code (statements and
	// expressions of all threads); 0 means 4M. A call that needs more is
	// drawn from what was evaluated, and a note says so.
	MaxSteps int
	// Bank is the shared instruction the bank map draws, as the memory
	// analysis found it (the one the hover names as worst); nil with
	// NoBank saying why when there is none.
	Bank   *Instr
	NoBank string
}

// Instr is one warp-level shared instruction for the bank map: what it is
// (Desc), its lanes' accesses with their passes, and notes.
type Instr struct {
	Desc     string
	Accesses []BankAccess
	Notes    []string
}

// Pictures are a call's pictures. Partition or Bank is nil when the call
// has none; NoPartition or NoBank then says why.
type Pictures struct {
	Partition *Partition
	Bank      *BankMap
	// NoPartition and NoBank say why a picture is missing.
	NoPartition, NoBank string
}

// maxThreads bounds the threads a picture evaluates.
const maxThreads = 1024

// Draw computes the pictures of c. It never fails: a picture it cannot
// draw is nil with the reason.
func Draw(c Call) *Pictures {
	p := &Pictures{}
	threads := c.Threads
	if threads <= 0 {
		threads = 1
	}
	var regions []*ir.Region
	if c.Tile != nil {
		for _, a := range c.Tile.Args {
			if r, ok := a.(*ir.Region); ok && r.Buf != nil && r.Buf.RuntimeDim() < 0 {
				regions = append(regions, r)
			}
		}
	}
	if c.Bank != nil {
		p.Bank = BuildBanks(c.Title, c.Bank.Desc, c.Bank.Accesses)
		p.Bank.Notes = append(p.Bank.Notes, c.Bank.Notes...)
	} else {
		p.NoBank = c.NoBank
	}
	if threads > maxThreads {
		p.NoPartition = fmt.Sprintf("%d threads (pictures stop at %d)", threads, maxThreads)
		return p
	}
	var acc [][]access
	var notes []string
	offs := offsets{}
	budget := c.MaxSteps
	if budget <= 0 {
		budget = maxSteps
	}
	if c.Body != nil {
		acc, notes = run(c.Body, threads, offs, budget, c.Scope)
	}
	p.Partition, p.NoPartition = partition(c, regions, acc, notes, threads, offs)
	return p
}

// registerTile reports whether b is a register tile whose layout places
// elements on threads.
func registerTile(b *ir.Buffer) (*layout.TileLayout, bool) {
	if b.Scope != "local" {
		return nil, false
	}
	t, ok := b.Layout.(*layout.TileLayout)
	return t, ok && !t.IsMemoryOnly()
}

// view is the 2-D view of a region: its non-unit dimensions, the last
// one as columns and the others flattened into rows.
type view struct {
	r          *ir.Region
	min, ext   []int64
	dims       []int // the non-unit dims
	rows, cols int64
}

func viewOf(r *ir.Region, e *evaluator) (*view, bool) {
	v := &view{r: r, rows: 1, cols: 1}
	for i := range r.Min {
		lo := e.eval(r.Min[i])
		n, ok := ir.ConstInt(r.Extent[i])
		if !ok {
			return nil, false
		}
		v.min, v.ext = append(v.min, lo), append(v.ext, n)
		if n != 1 {
			v.dims = append(v.dims, i)
		}
	}
	if k := len(v.dims); k > 0 {
		v.cols = v.ext[v.dims[k-1]]
		for _, d := range v.dims[:k-1] {
			v.rows *= v.ext[d]
		}
	}
	return v, true
}

// coord is the buffer coordinate of cell (row, col) of the view.
func (v *view) coord(row, col int64) []int64 {
	c := append([]int64(nil), v.min...)
	if len(v.dims) == 0 {
		return c
	}
	c[v.dims[len(v.dims)-1]] += col
	for k := len(v.dims) - 2; k >= 0; k-- {
		d := v.dims[k]
		c[d] += row % v.ext[d]
		row /= v.ext[d]
	}
	return c
}

func regionText(r *ir.Region, v *view) string {
	parts := make([]string, len(v.min))
	for i := range v.min {
		parts[i] = fmt.Sprintf("%d:%d", v.min[i], v.min[i]+v.ext[i])
	}
	return r.Buf.Name + "[" + strings.Join(parts, ", ") + "]"
}

// partition draws the region of c that shows the partition best: a
// register tile from its layout, else a shared, global or other region
// from the lowered code's accesses.
func partition(c Call, regions []*ir.Region, acc [][]access, notes []string, threads int, offs offsets) (*Partition, string) {
	if len(regions) == 0 {
		return nil, "the call has no static region"
	}
	e := &evaluator{vars: map[*ir.Var]int64{}, unbound: map[string]bool{}, budget: maxSteps, offs: offs}
	for _, r := range regions {
		if t, ok := registerTile(r.Buf); ok {
			if v, ok := viewOf(r, e); ok {
				return fromLayout(c, v, t, threads), ""
			}
		}
	}
	if c.Body == nil {
		return nil, "no variant lowers the call"
	}
	accessed := false
	for _, as := range acc {
		accessed = accessed || len(as) > 0
	}
	if !accessed {
		return nil, "the lowered code has no per-thread memory access (TMA, tensor-memory and register-only lowerings have none)"
	}
	// Regions in order of preference: shared, global, others, the larger
	// first within each (a reduction's input before its output); the
	// first whose elements the code moves is drawn.
	var cands []*ir.Region
	for _, pref := range []func(string) bool{
		func(sc string) bool { return strings.HasPrefix(sc, "shared") },
		func(sc string) bool { return sc == "global" },
		func(sc string) bool { return !strings.HasPrefix(sc, "shared") && sc != "global" },
	} {
		var class []*ir.Region
		for _, r := range regions {
			if pref(rootScope(r.Buf)) {
				class = append(class, r)
			}
		}
		slices.SortStableFunc(class, func(a, b *ir.Region) int { return cmp.Compare(regionSize(b), regionSize(a)) })
		cands = append(cands, class...)
	}
	for _, r := range cands {
		v, ok := viewOf(r, e)
		if !ok {
			continue
		}
		if p, owned := fromAccesses(c, v, acc, threads, offs); owned > 0 {
			p.Notes = append(p.Notes, notes...)
			return p, ""
		}
	}
	return nil, "the lowered code moves no element of the call's regions"
}

func newPartition(c Call, v *view, threads int) *Partition {
	p := &Partition{Title: c.Title, Region: regionText(v.r, v), TotalRows: v.rows, TotalCols: v.cols, Threads: threads,
		Rows: int(min(v.rows, MaxCells)), Cols: int(min(v.cols, MaxCells)), Vec: 1}
	if len(v.dims) > 2 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d dimensions flattened into rows", len(v.dims)-1))
	}
	if v.rows > MaxCells || v.cols > MaxCells {
		p.Notes = append(p.Notes, fmt.Sprintf("cropped: %d x %d of %d x %d elements drawn", p.Rows, p.Cols, v.rows, v.cols))
	}
	p.Cells = make([]Cell, p.Rows*p.Cols)
	return p
}

// fromAccesses reads the owners of v's elements from the lowered code.
func fromAccesses(c Call, v *view, acc [][]access, threads int, offs offsets) (*Partition, int) {
	p := newPartition(c, v, threads)
	p.From = "lowered code"
	// The drawn cells' offsets in the storage, then the owners of that
	// range only.
	at := make([]int64, len(p.Cells))
	var root *ir.Buffer
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for r := range p.Rows {
		for col := range p.Cols {
			var off int64
			root, off = rootOf(v.r.Buf, offs.of(v.r.Buf, v.coord(int64(r), int64(col))), nil)
			at[r*p.Cols+col] = off
			lo, hi = min(lo, off), max(hi, off)
		}
	}
	owner := ownersOf(acc, root, lo, hi)
	owned, none, vec := 0, 0, 0
	for i, off := range at {
		cell, ok := owner.at(off)
		if !ok {
			cell = Cell{Thread: -1}
			none++
		} else {
			owned++
			vec = max(vec, cell.Lane+1)
		}
		p.Cells[i] = cell
	}
	p.Vec = max(vec, 1)
	if none > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d drawn elements are moved by no thread of the call", none))
	}
	return p, owned
}

// fromLayout reads the owners of v's elements from a register tile's
// layout: the threads whose axes match the layout's thread outputs (each
// replica too); the slot is the register index.
func fromLayout(c Call, v *view, t *layout.TileLayout, threads int) *Partition {
	p := newPartition(c, v, threads)
	p.From = "layout " + t.String()
	b := v.r.Buf
	// The thread axes the layout names (at most maxAxes), and every
	// thread's key on them.
	var axes []*layout.Axis
	add := func(a *layout.Axis) {
		if a.IsThread() && !containsAxis(axes, a) {
			axes = append(axes, a)
		}
	}
	for _, it := range t.Shard {
		add(it.Axis)
	}
	for _, it := range t.Replica {
		add(it.Axis)
	}
	for a := range t.Offset {
		add(a)
	}
	if len(axes) > maxAxes {
		p.Notes = append(p.Notes, fmt.Sprintf("a layout over %d thread axes (pictures read %d)", len(axes), maxAxes))
		axes = axes[:maxAxes]
	}
	n := max(threads, 1)
	byKey := map[axisKey][]int{}
	for th := range n {
		thread := threadIndex(th)
		var k axisKey
		for i, a := range axes {
			k[i] = thread.get(a.Name)
		}
		byKey[k] = append(byKey[k], th)
	}
	reps := int64(1)
	for _, it := range t.Replica {
		reps *= it.Extent
	}
	reps = min(reps, 1024)
	repExt := iterExtents(t.Replica)
	// One applier per output axis, grouped once.
	apply := make([]func([]int64) int64, len(axes))
	for i, a := range axes {
		apply[i] = layout.ShapeApplier(t, b.Shape, a)
	}
	applyM := layout.ShapeApplier(t, b.Shape, layout.M)
	none := 0
	for r := range p.Rows {
		for col := range p.Cols {
			coord := v.coord(int64(r), int64(col))
			var base axisKey
			for i := range axes {
				base[i] = apply[i](coord)
			}
			cell := Cell{Thread: -1}
			for rep := range reps {
				k := base
				if len(t.Replica) > 0 {
					digits := layout.SplitCoord(rep, repExt)
					for d, it := range t.Replica {
						for i, a := range axes {
							if a == it.Axis {
								k[i] += digits[d] * it.Stride
							}
						}
					}
				}
				for _, th := range byKey[k] {
					if cell.Thread < 0 || th < cell.Thread {
						cell.Thread = th
					}
					cell.Owners++
				}
			}
			if cell.Thread < 0 {
				none++
			}
			cell.Slot = int(applyM(coord))
			p.Cells[r*p.Cols+col] = cell
		}
	}
	if none > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d drawn elements belong to threads outside the call's %d", none, n))
	}
	return p
}

// maxAxes bounds the thread axes of a register tile's layout a picture
// reads (there are six: tx, laneid, warpid, tid_in_wg, wid_in_wg, wgid).
const maxAxes = 6

type axisKey [maxAxes]int64

func containsAxis(as []*layout.Axis, a *layout.Axis) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

func iterExtents(its []layout.Iter) []int64 {
	out := make([]int64, len(its))
	for i, it := range its {
		out[i] = it.Extent
	}
	return out
}

// owners maps the elements [lo, hi] of one storage to the thread that
// moves them first: a slice for a range of at most 64Ki elements, a map
// else.
type owners struct {
	lo, hi int64
	small  []Cell // Owners 0: nobody
	big    map[int64]Cell
}

func (o *owners) at(off int64) (Cell, bool) {
	if off < o.lo || off > o.hi {
		return Cell{}, false
	}
	if o.small != nil {
		c := o.small[off-o.lo]
		return c, c.Owners > 0
	}
	c, ok := o.big[off]
	return c, ok
}

func (o *owners) set(off int64, t, slot, lane int) {
	if off < o.lo || off > o.hi {
		return
	}
	var c Cell
	if o.small != nil {
		c = o.small[off-o.lo]
	} else {
		c = o.big[off]
	}
	switch {
	case c.Owners == 0:
		c = Cell{Thread: t, Owners: 1, Slot: slot, Lane: lane}
	case c.Thread != t:
		c.Owners++
	default:
		return
	}
	if o.small != nil {
		o.small[off-o.lo] = c
	} else {
		o.big[off] = c
	}
}

// ownersOf collects, from every thread's accesses, who moves each
// element [lo, hi] of root; the slot is the ordinal of the thread's
// access to root.
func ownersOf(acc [][]access, root *ir.Buffer, lo, hi int64) *owners {
	o := &owners{lo: lo, hi: hi}
	if hi < lo {
		return o
	}
	if hi-lo < 1<<16 {
		o.small = make([]Cell, hi-lo+1)
	} else {
		o.big = map[int64]Cell{}
	}
	for t, as := range acc {
		slot := 0
		for _, a := range as {
			if a.root != root {
				continue
			}
			for l := range a.elems() {
				o.set(a.off+l, t, slot, int(l))
			}
			slot++
		}
	}
	return o
}

// regionSize is the number of elements of r (0 when an extent is not a
// constant).
func regionSize(r *ir.Region) int64 {
	n := int64(1)
	for _, e := range r.Extent {
		v, ok := ir.ConstInt(e)
		if !ok {
			return 0
		}
		n *= v
	}
	return n
}
