package dispatch

import "github.com/tilels/tilels/ir"

// This file is the active-thread-set model of spec §1.6 and §3.3 (TVM
// src/tirx/analysis/exec_context.cc): the set of threads that execute a
// statement is a box over named axes (laneid, warpid, and cta_id or its
// factors bx/by/bz or cbx/cby/cbz), each axis an AxisRange.

const (
	warpSize = 32
	wgSize   = 4 // warps per warpgroup

	negInf = -(int64(1) << 62)
	posInf = int64(1) << 62
)

type axisEntry struct {
	name string
	r    AxisRange
}

// activeSet is an ordered list of axes (laneid, warpid, then cta axes).
type activeSet []axisEntry

func rng(ext, off int64) AxisRange { return AxisRange{Extent: ext, Offset: off, Stride: 1} }

// initialActiveSet is TVM InitialActiveSet: laneid [0,lane), warpid
// [0,warp), then cta_id [0,cta) or the given per-dimension cta axes.
func initialActiveSet(lane, warp, cta int64, ctaAxes []axisExtent) activeSet {
	a := activeSet{{"laneid", rng(lane, 0)}, {"warpid", rng(warp, 0)}}
	if len(ctaAxes) == 0 {
		return append(a, axisEntry{"cta_id", rng(cta, 0)})
	}
	for _, c := range ctaAxes {
		a = append(a, axisEntry{c.axis, rng(c.extent, 0)})
	}
	return a
}

type axisExtent struct {
	axis   string
	extent int64
}

func (a activeSet) get(name string) (AxisRange, bool) {
	for _, e := range a {
		if e.name == name {
			return e.r, true
		}
	}
	return AxisRange{}, false
}

func (a activeSet) with(name string, r AxisRange) activeSet {
	out := make(activeSet, len(a))
	copy(out, a)
	for i := range out {
		if out[i].name == name {
			out[i].r = r
			return out
		}
	}
	panic("dispatch: unknown active-set axis " + name)
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDivInt(a, b int64) int64 { return -floorDivInt(-a, b) }

// intersect is TVM AxisRange::Intersect with [lo, hi).
func (r AxisRange) intersect(lo, hi int64) (AxisRange, bool) {
	if !r.Static() || r.Stride <= 0 {
		return AxisRange{}, false
	}
	iLo := max(0, ceilDivInt(lo-r.Offset, r.Stride))
	iHi := min(r.Extent, floorDivInt(hi-1-r.Offset, r.Stride)+1)
	if iHi <= iLo {
		return AxisRange{}, false
	}
	return AxisRange{Extent: iHi - iLo, Offset: r.Offset + r.Stride*iLo, Stride: r.Stride}, true
}

func (a activeSet) narrowAxis(name string, lo, hi int64) (activeSet, bool) {
	cur, ok := a.get(name)
	if !ok {
		return nil, false
	}
	n, ok := cur.intersect(lo, hi)
	if !ok {
		return nil, false
	}
	return a.with(name, n), true
}

// addCtaAxes is TVM AddCtaAxes.
func addCtaAxes(a activeSet, side map[string]AxisRange) {
	if r, ok := a.get("cta_id"); ok {
		side["cta_id"] = r
		return
	}
	for _, e := range a {
		if e.name == "laneid" || e.name == "warpid" {
			continue
		}
		side[e.name] = e.r
	}
}

// factorWarpid splits warpid into (wid_in_wg, wgid) (spec §3.3).
func factorWarpid(wp AxisRange) (wid, wg AxisRange, ok bool) {
	if !wp.Static() || wp.Stride != 1 {
		return AxisRange{}, AxisRange{}, false
	}
	widOff, wgOff := wp.Offset%wgSize, wp.Offset/wgSize
	if widOff == 0 && wp.Extent%wgSize == 0 {
		return rng(wgSize, 0), rng(wp.Extent/wgSize, wgOff), true
	}
	if wp.Extent <= wgSize-widOff {
		return rng(wp.Extent, widOff), rng(1, wgOff), true
	}
	return AxisRange{}, AxisRange{}, false
}

// scopeSwitch is TVM ScopeSwitch; err is "" on success.
func scopeSwitch(a activeSet, kind string) (inter, intra map[string]AxisRange, err string) {
	inter, intra = map[string]AxisRange{}, map[string]AxisRange{}
	lane, _ := a.get("laneid")
	warp, _ := a.get("warpid")
	switch kind {
	case "thread":
		inter["laneid"], inter["warpid"] = lane, warp
		addCtaAxes(a, inter)
	case "warp":
		intra["laneid"], inter["warpid"] = lane, warp
		addCtaAxes(a, inter)
	case "cta":
		intra["laneid"], intra["warpid"] = lane, warp
		addCtaAxes(a, inter)
	case "cluster":
		intra["laneid"], intra["warpid"] = lane, warp
		addCtaAxes(a, intra)
	case "warpgroup":
		wid, wg, ok := factorWarpid(warp)
		if !ok {
			return nil, nil, "scope_switch(warpgroup) failed: warpid TileLayout axis crosses warpgroup boundary or has symbolic offset"
		}
		intra["laneid"], intra["wid_in_wg"] = lane, wid
		inter["wgid"] = wg
		addCtaAxes(a, inter)
	default:
		return nil, nil, "unknown ScopeKind"
	}
	return inter, intra, ""
}

// narrowFlatProduct is TVM NarrowFlatProductRange: narrow a flat thread
// index major*32 + lane to [lo, hi) when the result is a rectangle.
func narrowFlatProduct(major, lane AxisRange, lo, hi int64) (AxisRange, AxisRange, bool) {
	if !major.Static() || !lane.Static() || major.Extent <= 0 || lane.Extent <= 0 ||
		major.Stride <= 0 || lane.Stride <= 0 {
		return AxisRange{}, AxisRange{}, false
	}
	activeMin := major.Offset*warpSize + lane.Offset
	activeMax := (major.Offset+major.Stride*(major.Extent-1))*warpSize + lane.Offset + lane.Stride*(lane.Extent-1) + 1
	if lo <= activeMin && activeMax <= hi {
		return major, lane, true
	}
	if major.Stride != 1 || lane.Stride != 1 {
		return AxisRange{}, AxisRange{}, false
	}
	laneHi, majorHi := lane.Offset+lane.Extent, major.Offset+major.Extent
	hitLo := max(major.Offset, floorDivInt(lo-laneHi, warpSize)+1)
	hitHi := min(majorHi, ceilDivInt(hi-lane.Offset, warpSize))
	if hitHi <= hitLo {
		return AxisRange{}, AxisRange{}, false
	}
	if hitHi == hitLo+1 {
		m := hitLo
		nLo := max(lane.Offset, lo-m*warpSize)
		nHi := min(laneHi, hi-m*warpSize)
		if nHi <= nLo {
			return AxisRange{}, AxisRange{}, false
		}
		return rng(1, m), rng(nHi-nLo, nLo), true
	}
	if lo <= hitLo*warpSize+lane.Offset && (hitHi-1)*warpSize+laneHi <= hi {
		return rng(hitHi-hitLo, hitLo), lane, true
	}
	return AxisRange{}, AxisRange{}, false
}

func sameRange(a, b AxisRange) bool {
	return a.Static() && b.Static() && a.Extent == b.Extent && a.Offset == b.Offset && a.Stride == b.Stride
}

// filterNarrow is TVM FilterNarrow for a one-dimensional scope id.
func (a activeSet) filterNarrow(k ir.ScopeIDKind, lo, hi int64) (activeSet, bool) {
	if lo >= hi {
		return nil, false
	}
	switch k {
	case ir.LaneID:
		return a.narrowAxis("laneid", lo, hi)
	case ir.WarpID:
		return a.narrowAxis("warpid", lo, hi)
	case ir.CTAID, ir.CTAIDInCluster:
		return a.narrowAxis("cta_id", lo, hi)
	case ir.WarpgroupID:
		wp, ok := a.get("warpid")
		if !ok || !wp.Static() || wp.Offset%wgSize != 0 || wp.Extent%wgSize != 0 {
			return nil, false
		}
		outer, ok := rng(wp.Extent/wgSize, wp.Offset/wgSize).intersect(lo, hi)
		if !ok {
			return nil, false
		}
		return a.with("warpid", rng(outer.Extent*wgSize, outer.Offset*wgSize)), true
	case ir.WarpIDInWG:
		wp, ok := a.get("warpid")
		if !ok || !wp.Static() {
			return nil, false
		}
		innerOff := wp.Offset % wgSize
		if wp.Extent > wgSize-innerOff {
			return nil, false
		}
		inner, ok := rng(wp.Extent, innerOff).intersect(lo, hi)
		if !ok {
			return nil, false
		}
		return a.with("warpid", rng(inner.Extent, (wp.Offset/wgSize)*wgSize+inner.Offset)), true
	case ir.ThreadID:
		lane, ok1 := a.get("laneid")
		warp, ok2 := a.get("warpid")
		if !ok1 || !ok2 {
			return nil, false
		}
		nw, nl, ok := narrowFlatProduct(warp, lane, lo, hi)
		if !ok {
			return nil, false
		}
		return a.with("laneid", nl).with("warpid", nw), true
	case ir.ThreadIDInWG:
		lane, ok1 := a.get("laneid")
		warp, ok2 := a.get("warpid")
		if !ok1 || !ok2 {
			return nil, false
		}
		wid, wg, ok := factorWarpid(warp)
		if !ok {
			return nil, false
		}
		nw, nl, ok := narrowFlatProduct(wid, lane, lo, hi)
		if !ok {
			return nil, false
		}
		if wg.Extent != 1 {
			if sameRange(nl, lane) && sameRange(nw, wid) {
				return a, true
			}
			return nil, false
		}
		return a.with("laneid", nl).with("warpid", rng(nw.Extent, wg.Offset*wgSize+nw.Offset)), true
	}
	return nil, false
}
