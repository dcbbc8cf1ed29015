package common

import (
	"slices"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
)

// Iter is a layout iter (extent, stride, axis).
type Iter = layout.Iter

// logical is LogicalIterDim without its bind expression (the decision
// reads only strides and extents).
type logical struct{ stride, extent int64 }

// Inst is InstructionRepr: an instruction of Size elements at Stride over
// the selected data iters of a region's split layout (Selected nil after
// BoundSize shrank it).
type Inst struct {
	Region   *Region
	Size     int64
	Stride   int64
	Selected []int
	bounded  bool
}

func newInst(r *Region, size, stride int64, ids []int) *Inst {
	if size == 0 {
		size = 1
	}
	if stride == 0 {
		stride = 1
	}
	return &Inst{Region: r, Size: size, Stride: stride, Selected: ids}
}

// BoundSize is InstructionRepr.bound_inst_size.
func (in *Inst) BoundSize(maxSize int64) {
	if in.Size <= maxSize {
		return
	}
	Assert(in.Size%maxSize == 0, "The instruction size %d is not a multiple of the max instruction size %d", in.Size, maxSize)
	in.Size = maxSize
	in.Selected, in.bounded = nil, true
}

// Gen is the reference's InstructionGenerator (instruction_generator.py):
// each region's layout split to the region (split layout view and seps),
// linked to the others through dimension maps, and the logical iters the
// instruction and block loops bind on each data iter. Every assertion of
// the reference is kept with its message; bind expressions and index
// generation are not modelled (the decision does not read them).
type Gen struct {
	an      *Analyzer
	regions []*Region
	layouts map[*Region][]Iter
	seps    map[*Region][]int
	binds   map[*Region][][][]logical // nil until the first bind
	dm      dimMapper
}

// NewGen is InstructionGenerator.__init__ over the regions (nil entries,
// the reference's non-region operands, are skipped).
func NewGen(an *Analyzer, regions ...*Region) *Gen {
	g := &Gen{an: an, layouts: map[*Region][]Iter{}, seps: map[*Region][]int{}}
	g.dm.m = map[*Region]map[*Region]map[int]int{}
	for _, r := range regions {
		if r == nil {
			continue
		}
		g.regions = append(g.regions, r)
		shard, seps := g.subLayout(r)
		g.layouts[r], g.seps[r] = shard, seps
	}
	return g
}

// normalizeAndGroup is dim_utils.normalize_and_group: canonicalize, then
// group by shape. A layout the reference cannot group raises inside TVM
// (its message is not modelled).
func normalizeAndGroup(l *layout.TileLayout, shape []int64) ([]Iter, []int) {
	if l == nil {
		dispatch.Raise("ValueError", "Invalid layout")
	}
	c := layout.CanonicalTile(l)
	gl, seps, ok := layout.TryGroup(c, shape)
	if !ok {
		Unmodelled("TVM's error for layout %s grouped by shape %v", c, shape)
	}
	return gl.Shard, seps
}

// subLayout is _get_sub_layout: the layout of the buffer restricted to
// the region, per dimension the innermost iters the region covers whole
// and at most one partial iter.
func (g *Gen) subLayout(r *Region) ([]Iter, []int) {
	shard, seps := normalizeAndGroup(r.Layout(), r.Buf.Shape)
	var out []Iter
	newSeps := []int{0}
	for i := 0; i < len(seps)-1; i++ {
		st, ext := r.Min[i], r.Ext[i]
		var rev []Iter
		for j := seps[i+1] - 1; j >= seps[i]; j-- {
			if ext == 1 {
				break
			}
			it := shard[j]
			whole := ext%it.Extent == 0 && g.an.Divisible(st, it.Extent)
			if it.Axis == layout.P && !whole {
				Assert(false, "Invalid layout")
			}
			if whole {
				st, ext = st.div(it.Extent), ext/it.Extent
				rev = append(rev, it)
				continue
			}
			if m, ok := g.an.Max(st); ok && m+ext <= it.Extent {
				rev = append(rev, Iter{Extent: ext, Stride: it.Stride, Axis: it.Axis})
				break
			}
			Assert(false, "Cannot analyze physical tensor region for: %s", RegionText(r))
		}
		slices.Reverse(rev)
		out = append(out, rev...)
		newSeps = append(newSeps, newSeps[len(newSeps)-1]+len(rev))
	}
	return out, newSeps
}

func (g *Gen) shapeView(r *Region) [][]int64 {
	seps, l := g.seps[r], g.layouts[r]
	out := make([][]int64, len(seps)-1)
	for i := range out {
		for j := seps[i]; j < seps[i+1]; j++ {
			out[i] = append(out[i], l[j].Extent)
		}
	}
	return out
}

// commonFactor is InstructionGenerator.common_factor.
func commonFactor(a, b []int64) []int64 {
	if len(a) == 0 && len(b) == 0 {
		return a
	}
	sa, sb := int64(1), int64(1)
	for _, x := range a {
		sa *= x
	}
	for _, x := range b {
		sb *= x
	}
	Assert(sa == sb, "Shapes hold different numbers of elements")
	if len(a) == 0 || len(b) == 0 {
		dispatch.Raise("IndexError", "list index out of range")
	}
	i, j := 0, 0
	ra, rb := a[0], b[0]
	var out []int64
	for i < len(a) && j < len(b) {
		gg := gcd(ra, rb)
		Assert(gg > 1 || ra == 1 && rb == 1, "Incompatible factor ordering")
		out = append(out, gg)
		ra /= gg
		rb /= gg
		if ra == 1 {
			i++
			ra = 1
			if i < len(a) {
				ra = a[i]
			}
		}
		if rb == 1 {
			j++
			rb = 1
			if j < len(b) {
				rb = b[j]
			}
		}
	}
	Assert(i == len(a) && j == len(b), "Did not exhaust both shapes")
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}

func (g *Gen) link1(r, to *Region, dm map[int]int) {
	v1, v2 := g.shapeView(r), g.shapeView(to)
	nv := make([][]int64, len(r.Ext))
	var flat []int64
	for i := range r.Ext {
		if j, ok := dm[i]; ok {
			nv[i] = commonFactor(v2[j], v1[i])
		} else {
			nv[i] = v1[i]
		}
		flat = append(flat, nv[i]...)
	}
	shard, tiled := normalizeAndGroup(layout.NewTile(g.layouts[r], nil, nil), flat)
	actual := []int{0}
	ptr := 0
	for i := range r.Ext {
		ptr += len(nv[i])
		actual = append(actual, tiled[ptr])
	}
	g.layouts[r], g.seps[r] = shard, actual
}

// Link is link_buffer_regions(a, b, dimMap).
func (g *Gen) Link(a, b *Region, dimMap map[int]int) {
	g.dm.register(a, b, dimMap)
	for _, r := range g.regions {
		if r == b {
			continue
		}
		dm := g.dm.get(r, b)
		g.link1(r, b, dm)
		g.link1(b, r, reverse(dm))
		s1, s2 := g.seps[r], g.seps[b]
		for _, i := range sortedKeys(dm) {
			j := dm[i]
			Assert(s1[i+1]-s1[i] == s2[j+1]-s2[j], "The number of data iters at dim %d of %s is not equal to the number of data iters at dim %d of %s", i, a.Name(), j, b.Name())
		}
	}
}

func reverse(m map[int]int) map[int]int {
	out := make(map[int]int, len(m))
	for i, j := range m {
		out[j] = i
	}
	return out
}

func sortedKeys(m map[int]int) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// DimMap is dim_mapper.get_dim_map(a, b).
func (g *Gen) DimMap(a, b *Region) map[int]int { return g.dm.get(a, b) }

// dimMapper is dim_utils.DimensionMapper.
type dimMapper struct {
	m map[*Region]map[*Region]map[int]int
	// order keeps each region's neighbours in insertion order (Python
	// dicts iterate in insertion order; the BFS depends on it).
	order map[*Region][]*Region
}

func (d *dimMapper) set(a, b *Region, m map[int]int) {
	if d.m[a] == nil {
		d.m[a] = map[*Region]map[int]int{}
	}
	if d.order == nil {
		d.order = map[*Region][]*Region{}
	}
	if _, ok := d.m[a][b]; !ok {
		d.order[a] = append(d.order[a], b)
	}
	d.m[a][b] = m
}

func (d *dimMapper) register(a, b *Region, m map[int]int) {
	d.set(a, b, m)
	d.set(b, a, reverse(m))
}

func (d *dimMapper) get(a, b *Region) map[int]int {
	if m, ok := d.m[a][b]; ok {
		return m
	}
	type item struct {
		r *Region
		m map[int]int
	}
	visited := map[*Region]bool{a: true}
	var queue []item
	for _, n := range d.order[a] {
		visited[n] = true
		queue = append(queue, item{n, d.m[a][n]})
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur.r == b {
			d.register(a, b, cur.m)
			return cur.m
		}
		for _, n := range d.order[cur.r] {
			if visited[n] {
				continue
			}
			visited[n] = true
			comp := map[int]int{}
			for i, j := range cur.m {
				if k, ok := d.m[cur.r][n][j]; ok {
					comp[i] = k
				}
			}
			if len(comp) > 0 {
				queue = append(queue, item{n, comp})
			}
		}
	}
	return map[int]int{}
}

func (g *Gen) initBinds() {
	g.binds = map[*Region][][][]logical{}
	for _, r := range g.regions {
		seps := g.seps[r]
		b := make([][][]logical, len(r.Ext))
		for i := range b {
			b[i] = make([][]logical, seps[i+1]-seps[i])
		}
		g.binds[r] = b
	}
}

func (g *Gen) addBinds(r *Region, list [][][]logical) {
	if g.binds == nil {
		g.initBinds()
	}
	seps := g.seps[r]
	for i := range r.Ext {
		for j := seps[i]; j < seps[i+1]; j++ {
			if i >= len(list) || j-seps[i] >= len(list[i]) {
				dispatch.Raise("IndexError", "list index out of range")
			}
			g.binds[r][i][j-seps[i]] = append(g.binds[r][i][j-seps[i]], list[i][j-seps[i]]...)
		}
	}
}

func (g *Gen) empties(r *Region) [][][]logical {
	seps := g.seps[r]
	out := make([][][]logical, len(r.Ext))
	for i := range out {
		out[i] = make([][]logical, seps[i+1]-seps[i])
	}
	return out
}

func (g *Gen) propagate(r *Region, list [][][]logical) {
	for _, to := range g.regions {
		if to == r {
			continue
		}
		rev := reverse(g.dm.get(r, to))
		p := g.empties(to)
		for i := range to.Ext {
			if k, ok := rev[i]; ok {
				p[i] = list[k]
			}
		}
		g.addBinds(to, p)
	}
}

// Bind is bind_inst_iter(region, bind, size, stride, is_free_dim,
// no_propagate).
func (g *Gen) Bind(r *Region, size, stride int64, free, noPropagate bool) {
	l := g.layouts[r]
	Assert(IsTrainiumLayout(layout.NewTile(l, nil, nil)), " Cannot propagate instruction information from HBM tensor")
	seps := g.seps[r]
	ret := g.empties(r)
	for i := range r.Ext {
		for j := seps[i]; j < seps[i+1]; j++ {
			it := l[j]
			if isFree(it.Axis) != free {
				continue
			}
			if it.Stride*it.Extent <= stride || it.Stride >= size*stride {
				continue
			}
			span, want := it.Stride*it.Extent, size*stride
			switch {
			case span < want && stride <= it.Stride:
				Assert(want%span == 0 && it.Stride%stride == 0, "")
				ret[i][j-seps[i]] = append(ret[i][j-seps[i]], logical{1, it.Extent})
			case span < want && stride > it.Stride:
				Assert(want%span == 0 && stride%it.Stride == 0, "")
				ret[i][j-seps[i]] = append(ret[i][j-seps[i]], logical{stride / it.Stride, span / stride})
			case span >= want && stride <= it.Stride:
				Assert(span%want == 0 && it.Stride%stride == 0, "")
				ret[i][j-seps[i]] = append(ret[i][j-seps[i]], logical{1, want / it.Stride})
			}
		}
	}
	g.addBinds(r, ret)
	if !noPropagate {
		g.propagate(r, ret)
	}
}

func (g *Gen) normalize() {
	if g.binds == nil {
		dispatch.Raise("TypeError", "'NoneType' object is not subscriptable")
	}
	for _, b := range g.binds {
		for _, dim := range b {
			for _, ls := range dim {
				slices.SortStableFunc(ls, func(x, y logical) int {
					if x.stride != y.stride {
						return int(x.stride - y.stride)
					}
					return int(x.extent - y.extent)
				})
			}
		}
	}
}

// FillBlock is fill_in_block_dim(region, bind, dims) (no dims: every
// dimension): it returns the block loop's extent.
func (g *Gen) FillBlock(r *Region, dims ...int) int64 {
	if len(dims) == 0 {
		for i := range r.Buf.Shape {
			dims = append(dims, i)
		}
	}
	l := g.layouts[r]
	trn := IsTrainiumLayout(layout.NewTile(l, nil, nil))
	g.normalize()
	seps := g.seps[r]
	block := g.empties(r)
	acc := int64(1)
	for k := len(dims) - 1; k >= 0; k-- {
		i := dims[k]
		if i >= len(seps)-1 {
			dispatch.Raise("IndexError", "list index out of range")
		}
		for j := seps[i+1] - 1; j >= seps[i]; j-- {
			it := l[j]
			part := trn && it.Axis == layout.P
			ds := g.binds[r][i][j-seps[i]]
			for d := -1; d < len(ds); d++ {
				next := it.Extent
				if d+1 < len(ds) {
					next = ds[d+1].stride
				}
				cur := int64(1)
				if d >= 0 {
					cur = ds[d].stride * ds[d].extent
				}
				Assert(next%cur == 0, "Fail to infer block dim for %s at dim %d", r.Name(), i)
				gap := next / cur
				if part {
					Assert(gap == 1, "Fail to propagate partition dim. The propagated dim does not cover the whole partition on %s at dim %d", r.Name(), i)
				} else if gap > 1 {
					block[i][j-seps[i]] = append(block[i][j-seps[i]], logical{cur, gap})
					acc *= gap
				}
			}
		}
	}
	g.addBinds(r, block)
	g.propagate(r, block)
	return acc
}

// CheckCoverage is _check_bind_iter_coverage, run by generate_indices and
// generate_axes.
func (g *Gen) CheckCoverage(r *Region) {
	g.normalize()
	seps, l := g.seps[r], g.layouts[r]
	for i := range r.Ext {
		for j := seps[i]; j < seps[i+1]; j++ {
			ds := g.binds[r][i][j-seps[i]]
			for d := range ds {
				next := l[j].Extent
				if d+1 < len(ds) {
					next = ds[d+1].stride
				}
				cur := ds[d].stride * ds[d].extent
				Assert(next%cur == 0, "Fail to infer block dim for %s at dim %d", r.Name(), i)
				Assert(next/cur == 1, "Call fill_in_block_dim() before calling generate_indices()")
			}
		}
	}
}

type idxIter struct {
	i  int
	it Iter
}

// maxLinear is _find_max_linear_inst.
func maxLinear(its []idxIter, minStride int64) (size, stride int64, ids []int) {
	if minStride == 0 {
		minStride = 1
	}
	its = slices.Clone(its)
	slices.SortStableFunc(its, func(a, b idxIter) int { return int(a.it.Stride - b.it.Stride) })
	size = 1
	for _, x := range its {
		it := x.it
		if it.Extent == 1 || it.Stride*it.Extent < minStride {
			continue
		}
		Assert(it.Stride%minStride == 0 || minStride%it.Stride == 0, "Invalid instruction stride %d", minStride)
		if stride != 0 && stride*size != it.Stride {
			break
		} else if stride == 0 {
			stride = max(minStride, it.Stride)
		}
		if minStride%it.Stride == 0 {
			size = it.Extent * it.Stride / stride
		} else {
			size *= it.Extent
		}
		ids = append(ids, x.i)
	}
	return size, stride, ids
}

// MaxInst is find_max_inst_size_from_one_region(region, allowed_f_dim,
// min_stride); allowed nil means every dimension.
func (g *Gen) MaxInst(r *Region, allowed []int, minStride int64) *Inst {
	if len(allowed) == 0 {
		for i := range r.Ext {
			allowed = append(allowed, i)
		}
	}
	seps, l := g.seps[r], g.layouts[r]
	var its []idxIter
	for _, d := range allowed {
		for j := seps[d]; j < seps[d+1]; j++ {
			if isFree(l[j].Axis) {
				its = append(its, idxIter{j, l[j]})
			}
		}
	}
	size, stride, ids := maxLinear(its, minStride)
	return newInst(r, size, stride, ids)
}

// Fit is fit_inst_tile_to_region(inst, to, allowed_to_f_dim, broadcast).
func (g *Gen) Fit(in *Inst, to *Region, allowed []int, broadcast bool) *Inst {
	if len(allowed) == 0 {
		for i := range to.Ext {
			allowed = append(allowed, i)
		}
	}
	from := in.Region
	fl, tl := g.layouts[from], g.layouts[to]
	fs, ts := g.seps[from], g.seps[to]
	dm := map[int]int{}
	for i, j := range g.dm.get(from, to) {
		if slices.Contains(allowed, j) {
			dm[i] = j
		}
	}
	dataMap := map[int]int{}
	for i, j := range dm {
		for k := 0; k < fs[i+1]-fs[i]; k++ {
			dataMap[fs[i]+k] = ts[j] + k
		}
	}
	if in.bounded {
		dispatch.Raise("TypeError", "'NoneType' object is not iterable")
	}
	if broadcast {
		dimOf := map[int]int{}
		for i := range from.Ext {
			for j := fs[i]; j < fs[i+1]; j++ {
				dimOf[j] = i
			}
		}
		var its []idxIter
		for _, i := range in.Selected {
			if _, ok := dm[dimOf[i]]; !ok {
				its = append(its, idxIter{i, fl[i]})
			}
		}
		size, stride, ids := maxLinear(its, 1)
		return newInst(from, size, stride, ids)
	}
	var its []idxIter
	for _, i := range in.Selected {
		its = append(its, idxIter{i, fl[i]})
	}
	slices.SortStableFunc(its, func(a, b idxIter) int { return int(a.it.Stride - b.it.Stride) })
	size := int64(1)
	var sFrom, sTo int64
	started := false
	var ids []int
	toTrn := IsTrainiumLayout(layout.NewTile(tl, nil, nil))
	for _, x := range its {
		k, ok := dataMap[x.i]
		if !ok {
			if !started {
				continue
			}
			break
		}
		m := tl[k]
		if !started {
			started = true
			sFrom = x.it.Stride
			if !toTrn && m.Stride != 1 {
				break
			}
			sTo = m.Stride
		} else if sTo*size != m.Stride {
			break
		}
		size *= x.it.Extent
		ids = append(ids, x.i)
	}
	return newInst(from, size, sFrom, ids)
}

// PartitionMatch is check_partition_dim_match(a, b).
func (g *Gen) PartitionMatch(a, b *Region) bool {
	dm := g.dm.get(a, b)
	l1, l2 := g.layouts[a], g.layouts[b]
	if !IsTrainiumLayout(layout.NewTile(l1, nil, nil)) || !IsTrainiumLayout(layout.NewTile(l2, nil, nil)) {
		return true
	}
	s1, s2 := g.seps[a], g.seps[b]
	for _, i := range sortedKeys(dm) {
		j := dm[i]
		for k := 0; k < s1[i+1]-s1[i]; k++ {
			x, y := l1[s1[i]+k], l2[s2[j]+k]
			if x.Axis.Name != y.Axis.Name {
				return false
			}
			if isFree(x.Axis) {
				continue
			}
			if x.Stride != y.Stride || x.Extent != y.Extent {
				return false
			}
		}
	}
	return true
}

// MaxInstTranspose is find_max_inst_size_transpose(a, b).
func (g *Gen) MaxInstTranspose(a, b *Region) (*Inst, *Inst) {
	dm := g.dm.get(a, b)
	l1, l2 := g.layouts[a], g.layouts[b]
	s1, s2 := g.seps[a], g.seps[b]
	var its1, its2 []idxIter
	for _, i := range dictOrder(dm) {
		j := dm[i]
		for k := 0; k < s1[i+1]-s1[i]; k++ {
			x, y := l1[s1[i]+k], l2[s2[j]+k]
			if x.Axis.Name == y.Axis.Name {
				if isFree(x.Axis) {
					continue
				}
				dispatch.Raise("ValueError", "Transpose only part of P dimension is not supported")
			}
			if x.Axis == layout.P {
				its2 = append(its2, idxIter{s2[j] + k, y})
			} else {
				its1 = append(its1, idxIter{s1[i] + k, x})
			}
		}
	}
	sz1, st1, id1 := maxLinear(its1, 1)
	sz2, st2, id2 := maxLinear(its2, 1)
	r1, r2 := newInst(a, sz1, st1, id1), newInst(b, sz2, st2, id2)
	Assert(r1.Size == SizeOf(layout.NewTile(l2, nil, nil), layout.P), "The instruction size of %s does not match the partition size of %s", a.Name(), b.Name())
	Assert(r2.Size == SizeOf(layout.NewTile(l1, nil, nil), layout.P), "The instruction size of %s does not match the partition size of %s", b.Name(), a.Name())
	return r1, r2
}

// dictOrder iterates a dim map in key order: the maps the reference
// builds are filled in increasing key order.
func dictOrder(m map[int]int) []int { return sortedKeys(m) }

// RestrictOneDim is restrict_inst_to_one_dim: the selected data iters,
// by stride, while they belong to the first one's dimension. The
// reference maps iters to dimensions with {seps[j]: i for j in the
// dimension's iter range} (seps indexed by an iter index), so an iter
// index past the seps is its IndexError and an unmapped iter its
// KeyError, both kept.
func (g *Gen) RestrictOneDim(in *Inst) *Inst {
	r := in.Region
	l, seps := g.layouts[r], g.seps[r]
	if in.bounded {
		dispatch.Raise("TypeError", "'NoneType' object is not iterable")
	}
	dimOf := map[int]int{}
	for i := range r.Buf.Shape {
		if i+1 >= len(seps) {
			dispatch.Raise("IndexError", "list index out of range")
		}
		for j := seps[i]; j < seps[i+1]; j++ {
			if j >= len(seps) {
				dispatch.Raise("IndexError", "list index out of range")
			}
			dimOf[seps[j]] = i
		}
	}
	var its []idxIter
	for _, i := range in.Selected {
		its = append(its, idxIter{i, l[i]})
	}
	slices.SortStableFunc(its, func(a, b idxIter) int { return int(a.it.Stride - b.it.Stride) })
	size := int64(1)
	last := -1
	var ids []int
	for _, x := range its {
		d, ok := dimOf[x.i]
		if !ok {
			dispatch.Raise("KeyError", "%d", x.i)
		}
		if last == -1 {
			size *= x.it.Extent
			last = d
			ids = append(ids, x.i)
			continue
		}
		if d != last {
			break
		}
		size *= x.it.Extent
		ids = append(ids, x.i)
	}
	return &Inst{Region: r, Size: size, Stride: in.Stride, Selected: ids}
}

// Group is normalize_and_group(buffer layout, buffer shape) of a region's
// whole buffer.
func Group(r *Region) ([]Iter, []int) { return normalizeAndGroup(r.Layout(), r.Buf.Shape) }

// SameRegion reports whether a and b are structurally equal regions.
func SameRegion(a, b *Region) bool {
	if a.Buf != b.Buf || len(a.Min) != len(b.Min) {
		return false
	}
	if a.Opaque || b.Opaque {
		Unmodelled("the structural comparison of regions with non-affine starts")
	}
	for d := range a.Min {
		if !Equal(a.Min[d], b.Min[d]) || !Equal(a.ExtAff[d], b.ExtAff[d]) {
			return false
		}
	}
	return true
}
