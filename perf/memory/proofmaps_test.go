package memory

import (
	"reflect"
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestProofMapsReused: the proofs and maps handed out in one analysis
// come back empty in the next one, and none is handed out twice in one.
func TestProofMapsReused(t *testing.T) {
	m := &machine{}
	v := &ir.Var{Name: "i"}
	p := m.newShiftProof()
	p.vars[v], p.axes[v] = 3, "tx"
	p.setRange(v, mkIval(0, 7))
	q := m.newShiftProof()
	if q == p || mapID(q.vars) == mapID(p.vars) || mapID(q.axes) == mapID(p.axes) {
		t.Fatal("one analysis got the same proof or map twice")
	}
	first := map[*shiftProof]bool{p: true, q: true}
	maps := map[uintptr]bool{mapID(p.vars): true, mapID(q.vars): true}
	m.proofMaps.release()
	for range 2 {
		r := m.newShiftProof()
		if !first[r] {
			t.Errorf("a new proof, not one of the last analysis's")
		}
		if !maps[mapID(r.vars)] {
			t.Errorf("a new vars map, not one of the last analysis's")
		}
		if len(r.vars) != 0 || len(r.axes) != 0 || len(r.local) != 0 || r.ranges != nil || r.loop != nil {
			t.Errorf("a proof handed out again is not empty: %+v", r)
		}
		r.setRange(v, mkIval(1, 2))
		if got := r.ranges[v]; got != mkIval(1, 2) {
			t.Errorf("range %v, want [1, 2] (the last analysis's [0, 7] emptied)", got)
		}
	}
	if m.newShiftProof(); len(m.proofMaps.proofs) != 3 {
		t.Errorf("%d proofs made, want 3 (two kept, one new)", len(m.proofMaps.proofs))
	}
}

// mapID identifies a map.
func mapID[K comparable, V any](mp map[K]V) uintptr {
	return reflect.ValueOf(mp).Pointer()
}
