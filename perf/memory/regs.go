package memory

// Register round trips, as nvcc -O2 removes them. A tvm_builtin_copy
// into a register buffer (the "reg" dispatch: R <- A_s) puts known bytes
// in registers; the model remembers, per register slot, which memory
// bytes it holds:
//   - a copy of the slot back to the bytes it came from, with no memory
//     write at all and no barrier in between, writes what is there: it is
//     not issued (nvcc deletes the store; its redundant-store check gives
//     up at any write, whatever the address: reg_copy_wg_cta's cta_regs
//     copies H -> H_r, stores F and U, then H_r -> H, and keeps the H
//     STG.128s, ncu 40 global store requests; r042's A -> L -> A with
//     nothing between has no memory instruction at all);
//   - a load whose slot is overwritten before anything reads it, or never
//     read at all, is dead: its counts are taken back (nvcc deletes it).
// Measured: r035-r041's reg_* kernels copy A -> A_s, barrier, A_s -> R,
// R -> A_s, A -> R, R -> B: the SASS keeps the first STS and one
// LDG/STG pair (the LDS and the second STS are gone).

import "github.com/tilels/tilels/ir"

// regSlot is a register buffer's bytes [off, off+width) of every lane.
type regSlot struct {
	buf *ir.Buffer
	off int64
}

// regVal is what a register slot holds.
type regVal struct {
	width int64
	mask  uint32
	buf   *ir.Buffer // the memory it was loaded from (root)
	addr  lanes
	stale bool // the memory may have changed since
	read  bool // something read the slot
	// over holds the bytes of the slot element stores overwrote (bit i:
	// byte i), in every lane of mask: all of them make its load dead
	over uint32
	gen  int64 // machine.memGen at the load
	undo *loadCount
}

// loadCount is what counting one load instruction added to its figures;
// left is how many register slots it filled that are still live (merged
// loads of an unrolled nest fill several).
type loadCount struct {
	fig    *Figures
	shared Shared
	global Global
	left   int
}

// regCopy handles a tvm_builtin_copy chunk of w bytes between a register
// buffer and memory; it reports whether it did (false: not a register
// copy, count it as usual).
func (m *machine) regCopy(dst, src ptr, w int64, node ir.Node) bool {
	dl, sl := dst.buf.Scope == "local", src.buf.Scope == "local"
	if m.mask == 0 {
		return false
	}
	switch {
	case dl && !sl && scopeOf(src.buf) != "":
		off, ok := m.uniform(dst.addr)
		if !ok {
			m.regsRead(dst.buf)
			return false
		}
		k := globalLoad
		if scopeOf(src.buf) == "shared" {
			k = sharedLoad
		}
		e := event{k: k, mask: m.mask, width: w, addr: src.addr, buf: src.buf, view: src.view, node: node, align: src.align}
		v := &regVal{width: w, mask: m.mask, buf: src.buf, addr: src.addr, gen: m.memGen}
		if m.redundantPeek(&e) {
			// reuses an earlier load's registers: that load is read
			m.regsReadMem(src.buf, src.addr)
			m.emit(&e)
		} else if m.inUnr > 0 && k == sharedLoad {
			e.rv = v // counted when the nest is merged (flush)
			m.emit(&e)
		} else {
			lc := &loadCount{fig: m.cur, shared: m.cur.SharedLoad, global: m.cur.GlobalLoad, left: 1}
			m.emit(&e)
			lc.shared = sub(m.cur.SharedLoad, lc.shared)
			lc.global = subG(m.cur.GlobalLoad, lc.global)
			v.undo = lc
		}
		m.regWrite(dst.buf, off, w)
		if m.regs == nil {
			m.regs = map[regSlot]*regVal{}
		}
		m.regs[regSlot{dst.buf, off}] = v
		return true
	case sl && !dl && scopeOf(dst.buf) != "":
		off, ok := m.uniform(src.addr)
		if !ok {
			m.regsRead(src.buf)
			return false
		}
		v := m.regs[regSlot{src.buf, off}]
		if v != nil && !v.stale && v.gen == m.memGen && v.buf == dst.buf && v.width == w && v.mask&m.mask == m.mask && sameLanes(&v.addr, &dst.addr, m.mask) {
			m.elided("nvcc deletes the copy of registers back to the bytes they were loaded from: ", dst.buf)
			return true // writes back what is there
		}
		m.regReadRange(src.buf, off, w)
		return false
	}
	return false
}

// uniform is the value of a per-lane register offset when every active
// lane has the same.
func (m *machine) uniform(a lanes) (int64, bool) {
	first := true
	var v int64
	for i := range 32 {
		if m.mask&(1<<i) == 0 {
			continue
		}
		if first {
			v, first = a[i], false
		} else if a[i] != v {
			return 0, false
		}
	}
	return v, true
}

func sameLanes(a, b *lanes, mask uint32) bool {
	for i := range 32 {
		if mask&(1<<i) != 0 && a[i] != b[i] {
			return false
		}
	}
	return true
}

// regWrite overwrites a register buffer's bytes [off, off+w): a slot
// there that nothing read held a dead load.
func (m *machine) regWrite(b *ir.Buffer, off, w int64) {
	for s, v := range m.regs {
		if s.buf == b && s.off < off+w && off < s.off+v.width {
			m.dead(v)
			delete(m.regs, s)
		}
	}
}

// regElemWrite handles a store to element idx of register buffer b: the
// bytes it overwrites in every lane of a slot count toward the slot's
// whole (Tx.zero's element stores over a register tile a copy just
// filled: r065's loads, which nvcc deletes). A store whose element is
// not one offset in every lane, or that leaves some of a slot's lanes
// alone, makes the slots read and forgets them (regsClobbered).
func (m *machine) regElemWrite(b *ir.Buffer, idx []ir.Expr) {
	root, off, ok := m.regElem(b, idx)
	if !ok {
		m.regsClobbered(b)
		return
	}
	w := elemBytes(b.Dtype)
	for s, v := range m.regs {
		if s.buf != root || s.off >= off+w || off >= s.off+v.width {
			continue
		}
		if v.mask&m.mask != v.mask || v.width > 32 {
			v.read = true
			delete(m.regs, s)
			continue
		}
		lo, hi := max(off, s.off)-s.off, min(off+w, s.off+v.width)-s.off
		v.over |= (uint32(1)<<hi - 1) &^ (uint32(1)<<lo - 1)
		v.stale = true // the registers no longer hold the memory's bytes
		if v.over == uint32(1)<<v.width-1 {
			m.dead(v)
			delete(m.regs, s)
		}
	}
}

// regElemRead marks the slots an element load of register buffer b reads
// (every slot of b when the element is not one offset in every lane).
func (m *machine) regElemRead(b *ir.Buffer, idx []ir.Expr) {
	root, off, ok := m.regElem(b, idx)
	if !ok {
		m.regsRead(b)
		return
	}
	m.regReadRange(root, off, elemBytes(b.Dtype))
}

// regElem returns the root and byte offset of element idx of register
// buffer b, when the offset is one in every lane.
func (m *machine) regElem(b *ir.Buffer, idx []ir.Expr) (*ir.Buffer, int64, bool) {
	var p ptr
	if why := m.addressOfTo(&p, b, idx, false); why != "" {
		return nil, 0, false
	}
	off, ok := m.uniform(p.addr)
	return p.buf, off, ok
}

// regValueReads marks the slots the register loads in e read (a store's
// value, which a data register's store does not evaluate: dataregs.go).
func (m *machine) regValueReads(e ir.Expr) {
	walkExpr(e, func(x ir.Expr) {
		if l, ok := x.(*ir.Load); ok && l.Buf.Scope == "local" {
			m.regElemRead(l.Buf, l.Indices)
		}
	})
}

// regReadRange marks the slots of b overlapping [off, off+w) read.
func (m *machine) regReadRange(b *ir.Buffer, off, w int64) {
	for s, v := range m.regs {
		if s.buf == b && s.off < off+w && off < s.off+v.width {
			v.read = true
		}
	}
}

// regsRead marks every slot of register buffer b read (an access the
// model does not follow).
func (m *machine) regsRead(b *ir.Buffer) {
	b = rootOf(b)
	for s, v := range m.regs {
		if s.buf == b {
			v.read = true
		}
	}
}

// regsClobbered forgets what register buffer b holds: something the
// model does not follow (a store to an element, an intrinsic given its
// registers) may have read and changed it.
func (m *machine) regsClobbered(b *ir.Buffer) {
	b = rootOf(b)
	for s, v := range m.regs {
		if s.buf == b {
			v.read = true
			delete(m.regs, s)
		}
	}
}

// regsReadMem marks the slots loaded from buf at addr read (a later load
// reused their registers).
func (m *machine) regsReadMem(buf *ir.Buffer, addr lanes) {
	for _, v := range m.regs {
		if v.buf == buf && sameLanes(&v.addr, &addr, v.mask&m.mask) {
			v.read = true
		}
	}
}

// regStored marks the slots loaded from bytes a store e overwrites stale.
func (m *machine) regStored(e *event) {
	for _, v := range m.regs {
		if v.buf == e.buf && overlaps(&v.addr, v.width, v.mask, e) {
			v.stale = true
		}
	}
}

// regBarrier marks every slot loaded from shared memory stale: other
// threads may have written it.
func (m *machine) regBarrier() {
	m.memGen++
	for _, v := range m.regs {
		if scopeOf(v.buf) == "shared" {
			v.stale = true
		}
	}
}

// dead takes back the counts of v's load when nothing read it (and
// nothing read the other slots the same instruction filled).
func (m *machine) dead(v *regVal) {
	lc := v.undo
	if v.read || lc == nil {
		return
	}
	v.undo = nil
	if lc.left--; lc.left > 0 {
		return
	}
	f := lc.fig
	f.SharedLoad = sub(f.SharedLoad, lc.shared)
	f.GlobalLoad = subG(f.GlobalLoad, lc.global)
	if f.Elided == "" {
		f.Elided = "nvcc deletes the loads whose registers are overwritten or never read"
	}
}

// countRun counts a merged run of pending events (flush) and, when every
// event of it filled a register slot, lets those slots take it back.
func (m *machine) countRun(e *event, run []event) {
	for i := range run {
		if run[i].rv == nil {
			m.count(e)
			return
		}
	}
	f := e.fig
	lc := &loadCount{fig: f, shared: f.SharedLoad, global: f.GlobalLoad, left: len(run)}
	m.count(e)
	lc.shared = sub(f.SharedLoad, lc.shared)
	lc.global = subG(f.GlobalLoad, lc.global)
	for i := range run {
		if run[i].rv.read {
			lc.left = -1 << 30 // one was read already: never taken back
		}
		run[i].rv.undo = lc
	}
}

// regsEnd takes back the loads of the slots nothing read by the end of
// the warp.
func (m *machine) regsEnd() {
	for s, v := range m.regs {
		m.dead(v)
		delete(m.regs, s)
	}
}

func sub(a, b Shared) Shared {
	return Shared{a.Instructions - b.Instructions, a.Wavefronts - b.Wavefronts, a.Ideal - b.Ideal, a.Conflicts - b.Conflicts}
}

func subG(a, b Global) Global {
	return Global{a.Requests - b.Requests, a.Sectors - b.Sectors, a.IdealSectors - b.IdealSectors}
}

// localUses forgets the register buffers an intrinsic's operands e
// refer to (an inline-asm ld writes its operands, a st reads them).
func (m *machine) localUses(e ir.Expr) {
	if len(m.regs) == 0 {
		return
	}
	switch e := e.(type) {
	case *ir.Load:
		if e.Buf.Scope == "local" {
			m.regsClobbered(e.Buf)
		}
		for _, x := range e.Indices {
			m.localUses(x)
		}
	case *ir.AddressOf:
		if e.Buf.Scope == "local" {
			m.regsClobbered(e.Buf)
		}
	case *ir.BufferData:
		if e.Buf.Scope == "local" {
			m.regsClobbered(e.Buf)
		}
	case *ir.Call:
		for _, x := range e.Args {
			m.localUses(x)
		}
	case *ir.Binary:
		m.localUses(e.A)
		m.localUses(e.B)
	case *ir.Cast:
		m.localUses(e.X)
	case *ir.Not:
		m.localUses(e.X)
	case *ir.Neg:
		m.localUses(e.X)
	case *ir.Select:
		m.localUses(e.Cond)
		m.localUses(e.A)
		m.localUses(e.B)
	}
}

// regCopies handles a tvm_builtin_copy of n bytes with a register buffer
// at one end; it reports false for a copy between memories.
func (m *machine) regCopies(c *ir.Call, n int64) bool {
	d, b := bufferOf(c.Args[0]), bufferOf(c.Args[1])
	if d == nil || b == nil || (d.Scope == "local") == (b.Scope == "local") || m.mask == 0 {
		return false
	}
	dst, why := m.pointer(c.Args[0])
	if why != "" {
		return false
	}
	src, why := m.pointer(c.Args[1])
	if why != "" {
		return false
	}
	for n > 0 {
		w := min(n, 16) // tvm_builtin_copy_256b: two uint4 accesses
		if !m.regCopy(dst, src, w, c) {
			if dst.buf.Scope == "local" {
				m.emitAccess(src, w, false, c)
			} else {
				m.emitAccess(dst, w, true, c)
			}
		}
		for i := range 32 {
			dst.addr[i] += w
			src.addr[i] += w
		}
		n -= w
	}
	return true
}

// emitAccess is access for an evaluated pointer and one chunk.
func (m *machine) emitAccess(p ptr, w int64, store bool, node ir.Node) {
	var k kind
	switch sc := scopeOf(p.buf); {
	case sc == "shared" && store:
		k = sharedStore
	case sc == "shared":
		k = sharedLoad
	case sc == "global" && store:
		k = globalStore
	case sc == "global":
		k = globalLoad
	default:
		return
	}
	m.emit(&event{k: k, mask: m.mask, width: w, addr: p.addr, buf: p.buf, view: p.view, node: node, align: p.align})
}

// clobberSkipped forgets the register buffers code this warp skips (a
// branch its lanes do not take) may read or write: nvcc compiles the
// thread's code for every path, so a load the branch reads is live and a
// register the branch changes is not known to hold its memory bytes
// after it (r076's `if wid == 1: if lane < 16:
// Tx.add(a, a, b)` keeps every warp's STG of a).
func (m *machine) clobberSkipped(stmts []ir.Stmt) {
	ir.WalkStmts(&ir.Block{Stmts: stmts}, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Store:
			if s.Buf.Scope == "local" {
				m.regsClobbered(s.Buf)
			}
			m.localUses(s.Value)
			for _, x := range s.Indices {
				m.localUses(x)
			}
		case *ir.Evaluate:
			m.localUses(s.X)
		case *ir.Let:
			m.localUses(s.Value)
		case *ir.Assign:
			m.localUses(s.Value)
		case *ir.If:
			m.localUses(s.Cond)
		case *ir.While:
			m.localUses(s.Cond)
		case *ir.For:
			m.localUses(s.Min)
			m.localUses(s.Extent)
		}
	})
}
