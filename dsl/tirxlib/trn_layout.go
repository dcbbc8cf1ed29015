package tirxlib

import (
	"fmt"
	"github.com/tilels/tilels/dsl/eval"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
)

// trainiumLayout is TileLayout.trainium(annotation, shape, is_psum) of
// the reference's tirx/layout.py (0.27; backend/trn/layout.py's
// trainium_layout is the same): the layout= string of a buffer in
// trn.sbuf ("PF", one letter per dimension: partition or free) becomes
// a TileLayout over the P and F axes, row-major within each axis; a
// single P dimension over 128 puts its higher part on the free axis with
// the largest stride; in trn.psum the F iters then move to PSUM banks
// (to_psum). msg is the reference's assertion text when it raises.
func trainiumLayout(annotation string, shape []int64, psum bool) (l *layout.TileLayout, msg string) {
	for _, c := range annotation {
		if c != 'P' && c != 'F' {
			return nil, fmt.Sprintf("annotation %s must be a string of 'P' and 'F'", annotation)
		}
	}
	if len(annotation) != len(shape) {
		return nil, fmt.Sprintf("annotation %s and shape %s must have the same length", annotation, pyTuple(shape))
	}
	nP := strings.Count(annotation, "P")
	pIdx, split := -1, false
	if nP == 1 {
		pIdx = strings.Index(annotation, "P")
		p := shape[pIdx]
		if !(p <= 128 || p%128 == 0) {
			return nil, fmt.Sprintf("There is only 1 P in the annotation. Partition size %d must be less than or equal to 128 or a multiple of 128", p)
		}
		if p > 128 {
			split = true
			annotation = "F" + annotation
			ns := []int64{p / 128}
			ns = append(ns, shape[:pIdx]...)
			ns = append(ns, 128)
			shape = append(ns, shape[pIdx+1:]...)
		}
	} else if nP > 1 {
		prod := int64(1)
		for i, c := range annotation {
			if c == 'P' {
				prod *= shape[i]
			}
		}
		if prod > 128 {
			return nil, fmt.Sprintf("There are %d Ps in the annotation. Partition size %d must be less than or equal to 128", nP, prod)
		}
	}
	rowMajor := func(axis *layout.Axis, want byte) []layout.Iter {
		var ext []int64
		for i := range annotation {
			if annotation[i] == want {
				ext = append(ext, shape[i])
			}
		}
		its := make([]layout.Iter, len(ext))
		s := int64(1)
		for k := len(ext) - 1; k >= 0; k-- {
			its[k] = layout.Iter{Extent: ext[k], Stride: s, Axis: axis}
			s *= ext[k]
		}
		return its
	}
	fs, ps := rowMajor(layout.F, 'F'), rowMajor(layout.P, 'P')
	var res []layout.Iter
	fi, pi := 0, 0
	for i := range annotation {
		if annotation[i] == 'F' {
			res = append(res, fs[fi])
			fi++
		} else {
			res = append(res, ps[pi])
			pi++
		}
	}
	if split {
		hi := res[0]
		rest := append([]layout.Iter(nil), res[1:]...)
		res = append(append(append([]layout.Iter(nil), rest[:pIdx]...), hi), rest[pIdx:]...)
	}
	l = layout.NewTile(res, nil, nil)
	if psum {
		return toPsum(l)
	}
	return l, ""
}

// psumElemsPerBank is TileLayout.kPSUMMaxElemPerBank.
const psumElemsPerBank = 512

// toPsum is TileLayout.to_psum: an F iter whose stride is a multiple of
// a bank's 512 elements moves to the Bank axis; one that spans banks is
// split into banks and the F part within a bank.
func toPsum(l *layout.TileLayout) (*layout.TileLayout, string) {
	var shard []layout.Iter
	for _, it := range l.Shard {
		if it.Axis != layout.F {
			shard = append(shard, it)
			continue
		}
		switch {
		case it.Stride%psumElemsPerBank == 0:
			shard = append(shard, layout.Iter{Extent: it.Extent, Stride: it.Stride / psumElemsPerBank, Axis: layout.Bank})
		case psumElemsPerBank%it.Stride == 0:
			c := psumElemsPerBank / it.Stride
			switch {
			case it.Extent < c:
				shard = append(shard, it)
			case it.Extent%c == 0:
				shard = append(shard, layout.Iter{Extent: it.Extent / c, Stride: 1, Axis: layout.Bank},
					layout.Iter{Extent: c, Stride: it.Stride, Axis: layout.F})
			default:
				return nil, fmt.Sprintf("layout %s can not be converted to psum layout", l)
			}
		default:
			return nil, fmt.Sprintf("layout %s can not be converted to psum layout", l)
		}
	}
	return layout.NewTile(shard, nil, nil), ""
}

// pyTuple prints a shape as Python prints a tuple of ints.
func pyTuple(s []int64) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// toPsumV is TileLayout.to_psum() called in a program (layout.py); its
// assertion is the reference's AssertionError.
func toPsumV(ev *eval.Evaluator, l layout.Layout, c *eval.Call) eval.Value {
	t, ok := l.(*layout.TileLayout)
	if !ok {
		return ev.Errorf(c.At, eval.CodeType, "to_psum() needs a TileLayout")
	}
	p, msg := toPsum(t)
	if msg != "" {
		return ev.Errorf(c.At, eval.CodeType, "%s", msg)
	}
	return newLayoutV(ev, p, c.At)
}
