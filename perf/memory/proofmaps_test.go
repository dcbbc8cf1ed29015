package memory

import (
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestProofMapsReused: the proofs and maps handed out in one analysis
// come back empty in the next one, and none is handed out twice in one.
func TestProofMapsReused(t *testing.T) {
	m := &machine{}
	v := &ir.Var{Name: "i"}
	p := m.newShiftProof()
	p.vars.set(v, 3)
	p.axes.set(v, "tx")
	p.setRange(v, mkIval(0, 7))
	q := m.newShiftProof()
	if q == p || q.vars == p.vars || q.axes == p.axes {
		t.Fatal("one analysis got the same proof or map twice")
	}
	first := map[*shiftProof]bool{p: true, q: true}
	maps := map[*ptrMap[ir.Var, int64]]bool{p.vars: true, q.vars: true}
	m.proofMaps.release()
	for range 2 {
		r := m.newShiftProof()
		if !first[r] {
			t.Errorf("a new proof, not one of the last analysis's")
		}
		if !maps[r.vars] {
			t.Errorf("a new vars map, not one of the last analysis's")
		}
		if r.vars.Len() != 0 || r.axes.Len() != 0 || len(r.local) != 0 || r.ranges != nil || r.loop != nil {
			t.Errorf("a proof handed out again is not empty: %+v", r)
		}
		r.setRange(v, mkIval(1, 2))
		if got := r.ranges.get(v); got != mkIval(1, 2) {
			t.Errorf("range %v, want [1, 2] (the last analysis's [0, 7] emptied)", got)
		}
	}
	if m.newShiftProof(); len(m.proofMaps.proofs) != 3 {
		t.Errorf("%d proofs made, want 3 (two kept, one new)", len(m.proofMaps.proofs))
	}
}
