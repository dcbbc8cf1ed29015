package common

import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

var sprintf = fmt.Sprintf

// Sprintf is fmt.Sprintf (the families print their plans with it).
func Sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// Region is a buffer region of a call with affine starts and constant
// extents (what the reference's analyses read from a TensorRegion).
type Region struct {
	R   *ir.Region
	Buf *ir.Buffer
	Min []Aff
	// Ext are the extents bounded by the analyzer (TVM
	// _bound_buffer_region: const_int_bound(extent).max_value); ExtAff the
	// written extents; Bounded is set when one of them is not a constant
	// (the reference then guards the instruction loops: make_guard).
	Ext     []int64
	ExtAff  []Aff
	Bounded bool
	// Opaque is set when the start of an extent-1 dimension is not an
	// affine index (it stands for an unknown variable then).
	Opaque bool
}

// opaque stands for a start tilels cannot read.
var opaque = &ir.Var{Name: "<opaque>"}

// Name is the buffer's name (TVM buffer_region.source.name).
func (r *Region) Name() string { return r.Buf.Name }

// Scope is the buffer's storage scope.
func (r *Region) Scope() string { return r.Buf.Scope }

// Layout is the buffer's layout as a TileLayout, nil for layout=None.
func (r *Region) Layout() *layout.TileLayout {
	if r.Buf.Layout == nil {
		return nil
	}
	return layout.ToTile(r.Buf.Layout)
}

// SizeP is layout.size("P"): the product of the P iters' extents.
func (r *Region) SizeP() int64 { return SizeOf(r.Layout(), layout.P) }

// SizeOf is TileLayout.size(axis).
func SizeOf(l *layout.TileLayout, axis *layout.Axis) int64 {
	if l == nil {
		return 0
	}
	return layout.Size(l, axis)
}

// ReadRegion reads argument i of c as a region; a region tilels cannot
// analyse (a runtime extent, a start that is not affine) is Unmodelled.
func ReadRegion(c *dispatch.Call, an *Analyzer, i int) *Region {
	r, ok := c.Region(i)
	if !ok {
		Unmodelled("argument %d of %s, which is not a buffer region", i, c.Tile.Op)
	}
	return FromRegion(an, r)
}

// FromRegion is ReadRegion for a region value.
func FromRegion(an *Analyzer, r *ir.Region) *Region {
	if r.Buf.RuntimeDim() >= 0 {
		Unmodelled("buffer %s with a runtime shape", r.Buf.Name)
	}
	out := &Region{R: r, Buf: r.Buf}
	for d := range r.Min {
		a, ok := Affine(r.Min[d])
		if !ok {
			// The start of an extent-1 dimension is read by no analysis
			// (_get_sub_layout stops at extent 1): keep it opaque.
			if e, isConst := ConstInt(r.Extent[d]); isConst && e == 1 {
				a = Aff{Coef: map[*ir.Var]int64{opaque: 1}}
				out.Opaque = true
			} else {
				Unmodelled("the start of dimension %d of %s (not an affine index)", d, r.Buf.Name)
			}
		}
		ea, ok := Affine(r.Extent[d])
		if !ok {
			Unmodelled("the extent of dimension %d of %s (not an affine expression)", d, r.Buf.Name)
		}
		e, ok := ea.Const()
		if !ok {
			if e, ok = an.Max(ea); !ok {
				Unmodelled("the extent of dimension %d of %s (no constant bound)", d, r.Buf.Name)
			}
			out.Bounded = true
		}
		out.Min = append(out.Min, a)
		out.Ext = append(out.Ext, e)
		out.ExtAff = append(out.ExtAff, ea)
	}
	return out
}

// IsTrainiumLayout is TVM is_trainium_layout: a TileLayout none of whose
// shard iters is on a memory axis other than P, F and Bank.
func IsTrainiumLayout(l *layout.TileLayout) bool {
	if l == nil {
		return false
	}
	for _, it := range l.Shard {
		if it.Axis.IsMemory() && !trnAxis(it.Axis) {
			return false
		}
	}
	return true
}

func trnAxis(a *layout.Axis) bool { return a == layout.P || a == layout.F || a == layout.Bank }

// isFree reports whether a is F or Bank (the reference's free axes).
func isFree(a *layout.Axis) bool { return a == layout.F || a == layout.Bank }

// Assert raises the reference's AssertionError with msg when cond is
// false.
func Assert(cond bool, msg string, args ...any) {
	if !cond {
		dispatch.Raise("AssertionError", msg, args...)
	}
}

// NonUnit returns the written extents of r that are not the constant 1
// (Python `e != 1`: a symbolic extent is never 1).
func (r *Region) NonUnit() []Aff {
	var out []Aff
	for _, e := range r.ExtAff {
		if c, ok := e.Const(); !ok || c != 1 {
			out = append(out, e)
		}
	}
	return out
}

// unit is can_prove_equal(extent, 1).
func (r *Region) unit(d int) bool {
	c, ok := r.ExtAff[d].Const()
	return ok && c == 1
}

// Equal is can_prove_equal(a, b) on affine forms.
func Equal(a, b Aff) bool {
	d := a.add(b, -1)
	c, ok := d.Const()
	return ok && c == 0
}

// SameExtents is the reference's check that two lists of non-unit
// extents have the same length and provably equal members.
func SameExtents(a, b []Aff) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !Equal(a[k], b[k]) {
			return false
		}
	}
	return true
}

// EwiseDimMap is dim_utils.get_ewise_dim_map: the dims of a and b with
// extent other than 1, paired in order. It asserts (no message) that the
// non-unit extents agree.
func EwiseDimMap(a, b *Region) map[int]int {
	Assert(SameExtents(a.NonUnit(), b.NonUnit()), "")
	m := map[int]int{}
	i, j := 0, 0
	for i < len(a.Ext) && j < len(b.Ext) {
		if a.unit(i) {
			i++
			continue
		}
		if b.unit(j) {
			j++
			continue
		}
		m[i] = j
		i++
		j++
	}
	return m
}

// ReductionDimMap is dim_utils.get_reduction_dim_map.
func ReductionDimMap(src, dst *Region, axes []int) map[int]int {
	type ie struct {
		i int
		e Aff
	}
	notOne := func(e Aff) bool { c, ok := e.Const(); return !ok || c != 1 }
	var dstNU, srcNR []ie
	for i, e := range dst.ExtAff {
		if notOne(e) {
			dstNU = append(dstNU, ie{i, e})
		}
	}
	for i, e := range src.ExtAff {
		if !notOne(e) {
			continue
		}
		red := false
		for _, a := range axes {
			red = red || a == i
		}
		if !red {
			srcNR = append(srcNR, ie{i, e})
		}
	}
	Assert(len(srcNR) == len(dstNU), "Source and destination must have the same number of non-reduction extents: %d != %d", len(srcNR), len(dstNU))
	m := map[int]int{}
	for k := range srcNR {
		if !Equal(srcNR[k].e, dstNU[k].e) {
			a, ok1 := srcNR[k].e.Const()
			b, ok2 := dstNU[k].e.Const()
			if !ok1 || !ok2 {
				Unmodelled("the text of a symbolic extent in the reference's assertion")
			}
			Assert(false, "Source and destination must have the same extent for non-reduction axes: %d != %d", a, b)
		}
		m[srcNR[k].i] = dstNU[k].i
	}
	return m
}
