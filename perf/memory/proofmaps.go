package memory

import "github.com/tilels/tilels/ir"

// proofMaps keeps an analysis's shift proofs (warps, CTAs, loops) and
// their maps for the next analysis: putMachine empties them. Made afresh
// for each proof, they were a fifth of the golden programs' analysis's
// allocated bytes, and a one-shot process, which runs no collection,
// touches a fresh page for every byte. No proof outlives its analysis.
type proofMaps struct {
	proofs []*shiftProof // [:nfree] free, the others handed out
	nfree  int
	vars   ptrMapList[ir.Var, int64]
	local  mapList[*ir.Buffer, int64]
	axes   ptrMapList[ir.Var, string]
	ranges ptrMapList[ir.Var, ival]
	lets   ptrMapList[ir.Var, ir.Expr]
}

// release empties the maps handed out since the last release, for the
// next analysis.
func (pm *proofMaps) release() {
	for _, p := range pm.proofs[pm.nfree:] {
		*p = shiftProof{} // (nothing of the analysis stays reachable)
	}
	if len(pm.proofs) > maxFreeMaps {
		clear(pm.proofs[maxFreeMaps:])
		pm.proofs = pm.proofs[:maxFreeMaps]
	}
	pm.nfree = len(pm.proofs)
	pm.vars.release()
	pm.local.release()
	pm.axes.release()
	pm.ranges.release()
	pm.lets.release()
}

// maxFreeMaps bounds the maps of each kind a pooled machine keeps.
const maxFreeMaps = 32

// mapList hands out empty maps: kept ones first.
type mapList[K comparable, V any] struct {
	free, used []map[K]V
}

func (l *mapList[K, V]) take() map[K]V {
	var mp map[K]V
	if n := len(l.free); n > 0 {
		mp = l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
	} else {
		mp = map[K]V{}
	}
	l.used = append(l.used, mp)
	return mp
}

func (l *mapList[K, V]) release() {
	for i, mp := range l.used {
		clear(mp)
		if len(l.free) < maxFreeMaps {
			l.free = append(l.free, mp)
		}
		l.used[i] = nil
	}
	l.used = l.used[:0]
}

// newShiftProof returns a proof with empty vars, local and axes maps
// (those of earlier analyses when m has them).
func (m *machine) newShiftProof() *shiftProof {
	pm := &m.proofMaps
	var p *shiftProof
	if pm.nfree > 0 {
		pm.nfree-- // (now among the handed out)
		p = pm.proofs[pm.nfree]
	} else {
		p = new(shiftProof)
		pm.proofs = append(pm.proofs, p)
	}
	*p = shiftProof{m: m, l: m.launch, vars: pm.vars.take(), local: pm.local.take(), axes: pm.axes.take()}
	return p
}
