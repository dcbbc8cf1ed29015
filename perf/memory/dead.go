package memory

// Dead shared stores, as nvcc -O2 removes them: shared memory ends with
// the kernel, so a plain store (a C++ assignment, not an inline-asm
// st.shared) into a shared allocation the kernel never reads, takes the
// address of or hands to an intrinsic writes nothing anyone sees; nvcc
// deletes it and then the loads that only fed its value. Measured:
// mem_vec128's `for i in range(4): F_s[tid*4 + i] = F[tid*4 + i]` (F_s
// never read) issues no STS and no LDG (ncu: 16 shared stores and 16
// global load requests, those of the A_s copies alone).
//
// Register buffers likewise: a local allocation that nothing reads (only
// plain stores and tvm_builtin_copy destinations) holds dead values, and
// the loads that fill it are deleted.

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// rootOf is the allocation a buffer view lies in.
func rootOf(b *ir.Buffer) *ir.Buffer {
	for b.Base != nil {
		b = b.Base
	}
	if b.PtrBase != nil {
		return b.PtrBase // (a root: ir.Buffer.PtrBase)
	}
	return b
}

// unreadShared returns the shared and local allocations of fn that
// nothing reads:
// no load of them or of a view of them, no address or data pointer of
// them anywhere (an intrinsic's operand), only plain stores. Nil when fn
// holds something the scan does not understand (an unlowered tile call,
// an expression kind it does not know).
//
// chained holds those of them something reads, only to compute values
// that never reach memory (dead with them).
func unreadShared(fn *ir.Func, sc *scanScratch) (dead, chained map[*ir.Buffer]bool) {
	if sc == nil {
		sc = &scanScratch{}
	}
	defer sc.clear()
	stored, read, data := &sc.a, &sc.b, &sc.data
	ok := true
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			data.set(s.Buf.Data, rootOf(s.Buf))
		case *ir.Decl:
			data.set(s.Buf.Data, rootOf(s.Buf))
		case *ir.Store:
			if isShared(s.Buf) || s.Buf.Scope == "local" {
				stored.set(rootOf(s.Buf), true)
			}
		case *ir.Evaluate:
			if b := copyLocalDst(s.X); b != nil {
				stored.set(rootOf(b), true)
			}
			for _, b := range ldLocalDsts(s.X) {
				stored.set(rootOf(b), true)
			}
		}
	})
	// A read inside the value or index of a store into a shared or
	// register allocation (into, non-nil while one is walked) feeds that
	// allocation: nvcc deletes it with the store when the allocation is
	// dead. feeds holds the pairs {allocation read so, allocation fed}:
	// a read is live when any allocation it feeds is.
	var into []*ir.Buffer
	var feeds map[[2]*ir.Buffer]bool // {read, target}, each pair once
	mark := func(root *ir.Buffer) {
		if into == nil {
			read.set(root, true)
			return
		}
		if feeds == nil {
			feeds = map[[2]*ir.Buffer]bool{}
		}
		for _, t := range into {
			feeds[[2]*ir.Buffer{root, t}] = true
		}
	}
	var expr func(e ir.Expr)
	use := func(b *ir.Buffer) { mark(rootOf(b)) }
	expr = func(e ir.Expr) {
		switch e := e.(type) {
		case nil, *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.ThreadIndex, *ir.TensorMapAddr:
		case *ir.Var:
			if b := data.get(e); b != nil {
				mark(b)
			}
		case *ir.Binary:
			expr(e.A)
			expr(e.B)
		case *ir.Not:
			expr(e.X)
		case *ir.Neg:
			expr(e.X)
		case *ir.Cast:
			expr(e.X)
		case *ir.Select:
			expr(e.Cond)
			expr(e.A)
			expr(e.B)
		case *ir.Load:
			use(e.Buf)
			for _, x := range e.Indices {
				expr(x)
			}
		case *ir.AddressOf:
			use(e.Buf)
			for _, x := range e.Indices {
				expr(x)
			}
		case *ir.BufferData:
			use(e.Buf)
		case *ir.Region:
			use(e.Buf)
			for _, x := range e.Min {
				expr(x)
			}
			for _, x := range e.Extent {
				expr(x)
			}
		case *ir.Call:
			for _, x := range e.Args {
				expr(x)
			}
		case *ir.Tuple:
			for _, x := range e.Elems {
				expr(x)
			}
		default:
			ok = false
		}
	}
	var intoBuf []*ir.Buffer // into's storage, reused
	intoOf := func(bs ...*ir.Buffer) []*ir.Buffer {
		intoBuf = intoBuf[:0]
		for _, b := range bs {
			intoBuf = append(intoBuf, rootOf(b))
		}
		return intoBuf
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		into = nil // (set below for the statement that feeds an allocation)
		switch s := s.(type) {
		case *ir.For:
			expr(s.Min)
			expr(s.Extent)
		case *ir.While:
			expr(s.Cond)
		case *ir.If:
			expr(s.Cond)
		case *ir.Store:
			if (isShared(s.Buf) || s.Buf.Scope == "local") && pureValue(s.Value) {
				into = intoOf(s.Buf)
			}
			for _, x := range s.Indices {
				expr(x)
			}
			expr(s.Value)
		case *ir.Evaluate:
			if b := copyLocalDst(s.X); b != nil {
				// the destination is written, not read: only its index
				// (what the copy reads feeds the destination: the copy
				// is deleted when it is dead)
				into = intoOf(b)
				c := s.X.(*ir.Call)
				dst := c.Args[0]
				for {
					pc, ok := dst.(*ir.Call)
					if !ok || pc.Op != ir.OpPointerOffset || len(pc.Args) == 0 {
						break
					}
					for _, x := range pc.Args[1:] {
						expr(x)
					}
					dst = pc.Args[0]
				}
				if a, ok := dst.(*ir.AddressOf); ok && a.Buf == b {
					for _, x := range a.Indices {
						expr(x)
					}
				} else {
					expr(dst)
				}
				for _, x := range c.Args[1:] {
					expr(x)
				}
				return
			}
			if dsts := ldLocalDsts(s.X); dsts != nil {
				// the registers an ld writes are not read: only their
				// indices (which, with its address, feed them: ptxas
				// deletes the ld when every one is dead)
				into = intoOf(dsts...)
				c := s.X.(*ir.Call)
				for _, a := range c.Args[:len(dsts)] {
					for _, x := range a.(*ir.Load).Indices {
						expr(x)
					}
				}
				for _, x := range c.Args[len(dsts):] {
					expr(x)
				}
				return
			}
			expr(s.X)
		case *ir.Let:
			expr(s.Value)
		case *ir.Assign:
			expr(s.Value)
		case *ir.Alloc, *ir.Comment, *ir.Break, *ir.Continue, *ir.Block, *ir.Lowered:
		case *ir.Decl:
			expr(s.Buf.ElemOffsetExpr)
			for _, x := range s.Buf.ShapeExpr {
				expr(x)
			}
		case *ir.ScopeID:
			for _, x := range s.Dynamic {
				expr(x)
			}
		default: // an unlowered tile call
			ok = false
		}
	})
	if !ok {
		return nil, nil
	}
	for b := range stored.all() {
		if !read.get(b) && b.Kind == ir.AllocBuffer {
			if dead == nil {
				dead = map[*ir.Buffer]bool{}
			}
			dead[b] = true
		}
	}
	// A register allocation whose reads only feed dead allocations is dead too
	// (its values never reach memory, a branch or an address): the
	// greatest such set, so that values that only feed each other (a
	// register tile updated in place, `Rw = Rw + Rw`, and never stored
	// out) are dead together. v_ewise_reg_fragments' frags: Rw and Rg
	// are loaded, doubled and scaled and never stored, and nvcc issues
	// only C's LDG.128 and STG.128.
	// Only registers: a local array is an alloca, which nvcc turns into
	// SSA values that dead-code elimination removes whole; a shared
	// allocation is a global, whose stores go only when no load of it is
	// left (rule 6), which the loads feeding other values are.
	for f := range feeds {
		if b := f[0]; dead[b] && b.Scope != "local" {
			delete(dead, b)
		}
	}
	for changed := len(feeds) > 0; changed; {
		changed = false
		for f := range feeds {
			if dead[f[0]] && !dead[f[1]] {
				delete(dead, f[0])
				changed = true
			}
		}
	}
	if len(dead) == 0 {
		return nil, nil
	}
	for f := range feeds {
		if dead[f[0]] {
			if chained == nil {
				chained = map[*ir.Buffer]bool{}
			}
			chained[f[0]] = true
		}
	}
	return dead, chained
}

// copyLocalDst is the register (local) buffer a tvm_builtin_copy x
// writes, or nil.
func copyLocalDst(x ir.Expr) *ir.Buffer {
	c, ok := x.(*ir.Call)
	if !ok || c.Op != ir.OpCopyBytes || len(c.Args) < 3 {
		return nil
	}
	if b := bufferOf(c.Args[0]); b != nil && b.Scope == "local" {
		return b
	}
	return nil
}

// ldLocalDsts returns the register buffers a plain ld (ptx.ld.*: not
// acquire, relaxed or volatile, which order memory) writes, one per
// destination operand, when every destination is a register element;
// else nil. ptxas deletes such a load whose registers nothing reads
// (mem_swizzled: two vec_auto copies of A_s into register tiles nobody
// reads issue no LDS).
func ldLocalDsts(x ir.Expr) []*ir.Buffer {
	c, n := ldLocal(x)
	if n == 0 {
		return nil
	}
	dsts := make([]*ir.Buffer, n)
	for i, a := range c.Args[:n] {
		dsts[i] = a.(*ir.Load).Buf
	}
	return dsts
}

// ldForm reads a ptx.ld op: its destination count (the vector's) and
// whether it is an acquire load; ok is false for any other op and for a
// .relaxed, .volatile or .mmio load (which order memory, or may not be
// repeated or dropped).
func ldForm(c *ir.Call) (n int, acquire, ok bool) {
	rest, isLd := strings.CutPrefix(c.Op, "ptx.ld.")
	if !isLd {
		return 0, false, false
	}
	n = 1
	for t := range strings.SplitSeq(rest, ".") {
		switch t {
		case "v2":
			n = 2
		case "v4":
			n = 4
		case "v8":
			n = 8
		case "acquire":
			acquire = true
		case "relaxed", "volatile", "mmio":
			return 0, false, false
		}
	}
	return n, acquire, true
}

// ldLocal is ldLocalDsts's count of destinations (0: not such a load),
// without the list (readArg asks it of every operand).
func ldLocal(x ir.Expr) (*ir.Call, int) {
	c, ok := x.(*ir.Call)
	if !ok {
		return nil, 0
	}
	n, acquire, ok := ldForm(c)
	if !ok || acquire || len(c.Args) <= n {
		return nil, 0
	}
	for _, a := range c.Args[:n] {
		l, ok := a.(*ir.Load)
		if !ok || l.Buf.Scope != "local" {
			return nil, 0
		}
	}
	return c, n
}

func isShared(b *ir.Buffer) bool {
	return b.Scope == "shared" || b.Scope == "shared.dyn"
}

// pureValue reports whether evaluating e has no effect but its loads
// (no intrinsic other than a math function).
func pureValue(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Binary:
		return pureValue(e.A) && pureValue(e.B)
	case *ir.Not:
		return pureValue(e.X)
	case *ir.Neg:
		return pureValue(e.X)
	case *ir.Cast:
		return pureValue(e.X)
	case *ir.Select:
		return pureValue(e.Cond) && pureValue(e.A) && pureValue(e.B)
	case *ir.Load:
		for _, x := range e.Indices {
			if !pureValue(x) {
				return false
			}
		}
		return true
	case *ir.Call:
		if !pureMath(e) {
			return false
		}
		for _, x := range e.Args {
			if !pureValue(x) {
				return false
			}
		}
		return true
	}
	return true
}

// allUnread reports whether every buffer of bs lies in an allocation
// nothing reads.
func (m *machine) allUnread(bs []*ir.Buffer) bool {
	for _, b := range bs {
		if !m.unreadSet()[rootOf(b)] {
			return false
		}
	}
	return true
}

// elided notes on the current figures why some accesses are left out.
func (m *machine) elided(why string, b *ir.Buffer) {
	if m.cur != nil && m.cur.Elided == "" && m.mask != 0 {
		m.cur.Elided = m.reason(elidedKey{why, b}, why, b.Name, "")
	}
}

// elidedDead is elided for an access to b, a dead allocation: why, or,
// when something reads b only to compute values that never reach memory,
// that (dead.go's chained registers).
func (m *machine) elidedDead(b *ir.Buffer, why string) {
	if m.unreadChained[rootOf(b)] {
		why = "nvcc deletes the registers whose values never reach memory, with the loads that fill them: "
	}
	m.elided(why, b)
}

type elidedKey struct {
	why string
	b   *ir.Buffer
}
