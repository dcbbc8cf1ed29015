package memory

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// Read-only global buffers: a kernel parameter is __restrict__ (codegen),
// so when the kernel never writes it, nvcc may reuse a loaded value
// across a barrier (__syncthreads orders memory other threads write; no
// thread writes this buffer). Measured: r035-r041's reg_* load A[tid]
// into A_s, cta_sync, then load A[tid] again into registers: one LDG.128
// per thread in the SASS, ncu's global load requests those of one copy.

// readOnlyGlobals returns the global buffers of fn that nothing writes:
// every use of their address is the source of a tvm_builtin_copy, the
// address of a plain ptx.ld or cuda.ldg, or a load. Nil when fn holds a
// tensor map (TMA may store through it) or something the scan does not
// understand.
func readOnlyGlobals(fn *ir.Func, sc *scanScratch) map[*ir.Buffer]bool {
	if sc == nil {
		sc = &scanScratch{}
	}
	defer sc.clear()
	seen, escaped, data := &sc.a, &sc.b, &sc.data
	ok := true
	var expr func(e ir.Expr, readOnly bool)
	ptr := func(b *ir.Buffer, readOnly bool) {
		if b.Scope != "global" {
			return
		}
		r := rootOf(b)
		seen.set(r, true)
		if !readOnly {
			escaped.set(r, true)
		}
	}
	expr = func(e ir.Expr, readOnly bool) {
		switch e := e.(type) {
		case nil, *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.ThreadIndex:
		case *ir.TensorMapAddr:
			ok = false
		case *ir.Var:
			if b := data.get(e); b != nil {
				escaped.set(b, true)
			}
		case *ir.Binary:
			expr(e.A, false)
			expr(e.B, false)
		case *ir.Not:
			expr(e.X, false)
		case *ir.Neg:
			expr(e.X, false)
		case *ir.Cast:
			expr(e.X, readOnly)
		case *ir.Select:
			expr(e.Cond, false)
			expr(e.A, false)
			expr(e.B, false)
		case *ir.Load:
			ptr(e.Buf, true)
			for _, x := range e.Indices {
				expr(x, false)
			}
		case *ir.AddressOf:
			ptr(e.Buf, readOnly)
			for _, x := range e.Indices {
				expr(x, false)
			}
		case *ir.BufferData:
			ptr(e.Buf, readOnly)
		case *ir.Region:
			ptr(e.Buf, readOnly)
			for _, x := range e.Min {
				expr(x, false)
			}
			for _, x := range e.Extent {
				expr(x, false)
			}
		case *ir.Call:
			for i, x := range e.Args {
				expr(x, readOnly && e.Op == ir.OpPointerOffset && i == 0 || readArg(e, i))
			}
		case *ir.Tuple:
			for _, x := range e.Elems {
				expr(x, false)
			}
		default:
			ok = false
		}
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			data.set(s.Buf.Data, rootOf(s.Buf))
		case *ir.Decl:
			data.set(s.Buf.Data, rootOf(s.Buf))
		}
	})
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.For:
			expr(s.Min, false)
			expr(s.Extent, false)
		case *ir.While:
			expr(s.Cond, false)
		case *ir.If:
			expr(s.Cond, false)
		case *ir.Store:
			ptr(s.Buf, false)
			for _, x := range s.Indices {
				expr(x, false)
			}
			expr(s.Value, false)
		case *ir.Evaluate:
			expr(s.X, false)
		case *ir.Let:
			expr(s.Value, false)
		case *ir.Assign:
			expr(s.Value, false)
		case *ir.Alloc, *ir.Comment, *ir.Break, *ir.Continue, *ir.Block, *ir.Lowered:
		case *ir.Decl:
			expr(s.Buf.ElemOffsetExpr, false)
			if s.Buf.Base != nil {
				ptr(s.Buf, false) // a view: its uses are not followed
			}
		case *ir.ScopeID:
			for _, x := range s.Dynamic {
				expr(x, false)
			}
		default:
			ok = false
		}
	})
	if !ok {
		return nil
	}
	var ro map[*ir.Buffer]bool
	for b := range seen.all() {
		if !escaped.get(b) && b.Kind == ir.ParamBuffer {
			if ro == nil {
				ro = map[*ir.Buffer]bool{}
			}
			ro[b] = true
		}
	}
	return ro
}

// readArg reports whether argument i of c is an address c only reads
// through: a tvm_builtin_copy's source, a plain ld's address, ldg's.
func readArg(c *ir.Call, i int) bool {
	switch {
	case c.Op == ir.OpCopyBytes:
		return i == 1
	case c.Op == "cuda.ldg" && len(c.Args) > 4:
		return i == len(c.Args)-4 // the vector form: dst..., ptr, dtype, vec, n
	case c.Op == "cuda.ldg":
		return i == 0
	case strings.HasPrefix(c.Op, "ptx.ld."):
		_, n := ldLocal(c)
		return n > 0 && i == n
	}
	return false
}

// forgetBarrier is forget at a barrier, fence or other intrinsic: the
// loads of read-only global buffers stay available.
func (m *machine) forgetBarrier() {
	m.regBarrier()
	m.forgetWritable()
}

// forgetWritable drops the available loads but those of read-only
// global buffers.
func (m *machine) forgetWritable() {
	if m.rec == nil && len(m.availUsed) == 0 && len(m.ghosts) == 0 {
		return // nothing available to drop (and no comparison to record it)
	}
	readOnly := m.readOnlySet()
	if len(readOnly) == 0 {
		m.forget()
		return
	}
	if m.rec != nil {
		m.record(recForgetBarrier, nil)
	}
	for b := range m.ghosts {
		if !readOnly[b] {
			delete(m.ghosts, b)
		}
	}
	kept := m.availUsed[:0]
	for _, bs := range m.availUsed { // the sets stay, for the next loads
		if readOnly[bs.buf] {
			kept = append(kept, bs)
			continue
		}
		if len(bs.ents) > 0 {
			m.dropLoads(bs)
		}
		bs.listed = false
	}
	clear(m.availUsed[len(kept):])
	m.availUsed = kept
}
