package memory

import (
	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/ir"
)

// Registers an intrinsic writes. An instruction of the T.ptx dialect that
// the printer binds to a table form (codegen/cuda's ArgRoles) writes the
// registers its inline asm takes as outputs: `T.ptx.ld.shared.u32(n, p)`
// leaves in n what shared memory holds at run time, `T.ptx.mapa...(dst,
// ...)` an address the machine does not compute. The machine gives each
// such register element the value the instruction leaves, which it does
// not know (it used to keep the value stored before: a loop bounded by a
// register loaded from shared memory ran as many times as the constant
// the register held before the load), except where a model below says
// what the value is. An operand the instruction reads and writes
// (inline asm's "+") under a guard (pred=) keeps its value where the
// guard is known false.
//
// Cluster launch control (clc.py's query_cancel_first_ctaid_x, the CLC
// tile scheduler of tile_scheduler.py): a CTA asks the hardware to
// cancel a cluster of the grid not launched yet and runs that cluster's
// tile instead; query_cancel.is_canceled says whether it got one. The
// machine takes every answer to be no: each cluster runs its own tile
// and stops. That is the launch's count whatever the hardware schedules:
// every cluster of the grid either runs its own tile or is cancelled and
// has its tile run by a cluster that asked, so the grid's tiles are each
// run once, and every tile run is one more handshake (the clusters that
// ran ask once more than the tiles they took, and the clusters cancelled
// never ask). What a tile costs does not depend on which cluster runs
// it, up to the pipeline stage it starts at: its shared addresses then
// move by a multiple of the stage's bytes.

// argWrites is what opInfoParsed keeps of cuda.ArgRoles for an op that
// writes a register (nil for the others).
type argWrites struct {
	roles     []byte
	optional  int
	guardable bool
	canceled  bool // query_cancel.is_canceled: no cluster is cancelled (above)
}

// parseWrites is the argWrites of op (nil when it writes no register or
// the printer does not bind it through a table form).
func parseWrites(op string, toks []string) *argWrites {
	roles, optional, guardable, known := cuda.ArgRoles(op)
	if !known {
		return nil
	}
	for _, r := range roles {
		if r == 'w' || r == 'm' {
			w := &argWrites{roles: roles, optional: optional, guardable: guardable}
			w.canceled = len(toks) > 2 && toks[0] == "clusterlaunchcontrol" && toks[1] == "query_cancel" && toks[2] == "is_canceled"
			return w
		}
	}
	return nil
}

// shape is the roles of a call's n arguments (codegen/cuda's form
// shape): guarded when the last is the guard of a predicated call; ok is
// false for a count the printer refuses.
func (w *argWrites) shape(n int) (roles []byte, guarded, ok bool) {
	switch {
	case n == len(w.roles)+1 && w.guardable:
		return w.roles, true, true
	case n < len(w.roles) && len(w.roles)-n <= w.optional:
		return w.roles[:n], false, true
	}
	return w.roles, false, n == len(w.roles)
}

// writes is the register scan's side of callWrites: a guarded write is a
// store whose value depends on its guard, so the guard matters wherever
// the register it writes does (dataregs.go). An unguarded write's value
// depends on nothing the kernel holds.
func (s *regScan) writes(c *ir.Call, w *argWrites) {
	roles, guarded, ok := w.shape(len(c.Args))
	if !ok || !guarded {
		return
	}
	guard := c.Args[len(c.Args)-1]
	for i, r := range roles {
		ld, isLoad := c.Args[i].(*ir.Load)
		if r != 'w' && r != 'm' || !isLoad || ld.Buf.Scope != "local" {
			continue
		}
		root := s.root(ld.Buf)
		if s.control.get(root) {
			s.value(guard)
		} else {
			s.data(guard)
			s.pendRoots[root] = append(s.pendRoots[root], guard)
		}
	}
}

// callWrites gives the register elements intrinsic c writes their
// values after it (unknown unless modelled).
func (m *machine) callWrites(c *ir.Call, w *argWrites) {
	if w == nil {
		return
	}
	roles, guarded, ok := w.shape(len(c.Args))
	if !ok {
		return // (a shape the printer refuses)
	}
	n := len(c.Args)
	var g lanes
	gwhy := ""
	if guarded {
		gwhy = m.evalTo(&g, c.Args[n-1])
	}
	for i, r := range roles {
		if r != 'w' && r != 'm' {
			continue
		}
		ld, ok := c.Args[i].(*ir.Load)
		if !ok || ld.Buf.Scope != "local" || m.dataRegSet().get(rootOf(ld.Buf)) {
			continue // (data: the machine keeps nothing of it)
		}
		idx, why := m.elemAddr(ld.Buf, ld.Indices)
		if why != "" {
			continue // an unknown element: loads of the buffer say so
		}
		mask := m.mask
		if guarded && gwhy == "" {
			mask &= truth(&g) // lanes whose guard is false keep theirs
			if mask == 0 {
				continue
			}
		}
		var val lanes
		vwhy := ""
		if !w.canceled {
			vwhy = m.reason(writtenBy{ld.Buf, c.Op}, "the value of "+ld.Buf.Name+"[...] is written by ", c.Op, " at run time")
		}
		saved := m.mask
		m.mask = mask
		m.localSet(ld.Buf, &idx, &val, vwhy)
		m.mask = saved
		if len(m.regs) > 0 {
			m.regElemWrite(ld.Buf, ld.Indices)
		}
	}
}

// writtenBy keys the reason a register holds what an intrinsic wrote.
type writtenBy struct {
	b  *ir.Buffer
	op string
}

// pointerWrites forgets what the register buffers hold whose addresses
// intrinsic c is given, when the printer does not bind c through a table
// form (w nil): its hand-printed inline asm may write through them
// (tcgen05.ld's destinations, an mma's accumulators, a cuda.func_call's
// out-parameters), so the machine may not keep the values stored before.
// A later read that matters says so ("... may be written by OP at run
// time"); data registers (dataregs.go) hold nothing the machine keeps.
// An intrinsic that only reads through such a pointer loses the values
// too: the model does not know which ones do.
func (m *machine) pointerWrites(c *ir.Call, w *argWrites) {
	if w != nil {
		return // (callWrites: the table form's roles)
	}
	for _, a := range c.Args {
		switch a.(type) {
		case *ir.AddressOf, *ir.BufferData, *ir.Call, *ir.Cast:
		default:
			continue
		}
		b := bufferOf(a)
		if b == nil || b.Scope != "local" || m.dataRegSet().get(rootOf(b)) {
			continue
		}
		m.taintLocal(b, m.reason(writtenBy{b, c.Op}, "the value of "+b.Name+"[...] may be written by ", c.Op, " at run time (its address is an operand)"))
	}
}
