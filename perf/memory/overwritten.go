package memory

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// Loads whose registers are overwritten before anything reads them, as
// ptxas deletes them. A kernel's own `T.ptx.ld...` into register
// elements is inline asm, but at the PTX level its destinations are
// plain registers: when the straight-line code after it writes every one
// of them again (another ld, a store to the element) before any reads
// it, ptxas deletes the load. Measured (lower/testdata/user_ldst, H200,
// nvcc 13.0): `ld.shared.u32 v[0]` and `ld.global.acquire.gpu.b32 v[1]`
// followed by `ld.global.nc.v4.u32 v[0], v[1], v[2], v[3]` issue no LDS
// and no LDG of their own (SASS: one LDS.128, three LDG per thread; ncu
// 4 shared load instructions and 12 global load requests over 4 warps):
// the acquire load goes too. Only the code after the load in its own
// block is looked at, up to the first statement that is not a plain
// statement (a loop, a branch, a barrier), and only register elements at
// constant indices of a local allocation are followed: anything else
// keeps the load.

// overwrittenLoads returns the ptx.ld calls of fn that this rule deletes
// (nil when none).
func overwrittenLoads(fn *ir.Func) map[*ir.Call]bool {
	var dead map[*ir.Call]bool
	var block func(ss []ir.Stmt)
	block = func(ss []ir.Stmt) {
		for i, s := range ss {
			switch s := s.(type) {
			case *ir.Block:
				block(s.Stmts)
			case *ir.For:
				block(s.Body.Stmts)
			case *ir.While:
				block(s.Body.Stmts)
			case *ir.If:
				block(s.Then.Stmts)
				if s.Else != nil {
					block(s.Else.Stmts)
				}
			case *ir.Lowered:
				block(s.Body.Stmts)
			case *ir.Evaluate:
				c, ok := s.X.(*ir.Call)
				if !ok {
					continue
				}
				dsts := ldElems(c)
				if dsts == nil || !overwrittenAfter(dsts, ss[i+1:]) {
					continue
				}
				if dead == nil {
					dead = map[*ir.Call]bool{}
				}
				dead[c] = true
			}
		}
	}
	block(fn.Body.Stmts)
	return dead
}

// regElem is a register element at a constant index of a local
// allocation.
type regElem struct {
	buf *ir.Buffer
	idx int64
}

// constElem is the register element l names, ok false when it is not one
// (a view, an index that is not a constant).
func constElem(l *ir.Load) (regElem, bool) {
	if l.Buf.Scope != "local" || l.Buf.Base != nil || l.Buf.PtrBase != nil || len(l.Indices) != 1 {
		return regElem{}, false
	}
	n, ok := ir.ConstInt(l.Indices[0])
	return regElem{l.Buf, n}, ok
}

// ldElems returns the register elements a ptx.ld writes (plain, .nc or
// .acquire: not .relaxed, .volatile or .mmio), nil when it is no such
// load or a destination is not a constant element.
func ldElems(c *ir.Call) []regElem {
	n, _, ok := ldForm(c) // (dead.go; an acquire load too: measured)
	if !ok || len(c.Args) <= n {
		return nil
	}
	out := make([]regElem, n)
	for i, a := range c.Args[:n] {
		l, ok := a.(*ir.Load)
		if !ok {
			return nil
		}
		if out[i], ok = constElem(l); !ok {
			return nil
		}
	}
	return out
}

// overwrittenAfter reports whether the statements ss (what follows a
// load in its block) write every element of live before anything reads
// one of them.
func overwrittenAfter(live []regElem, ss []ir.Stmt) bool {
	left := append([]regElem(nil), live...)
	// reads reports whether e may read an element of left
	var reads func(e ir.Expr) bool
	reads = func(e ir.Expr) bool {
		found := false
		walkExpr(e, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.Load:
				for _, r := range left {
					if rootOf(x.Buf) == r.buf {
						if el, ok := constElem(x); !ok || el == r {
							found = true
						}
					}
				}
			case *ir.AddressOf:
				for _, r := range left {
					if rootOf(x.Buf) == r.buf {
						found = true
					}
				}
			case *ir.BufferData:
				for _, r := range left {
					if rootOf(x.Buf) == r.buf {
						found = true
					}
				}
			}
		})
		return found
	}
	kill := func(el regElem) {
		for i, r := range left {
			if r == el {
				left = append(left[:i], left[i+1:]...)
				return
			}
		}
	}
	for _, s := range ss {
		switch s := s.(type) {
		case *ir.Comment:
		case *ir.Let:
			if reads(s.Value) {
				return false
			}
		case *ir.Store:
			for _, x := range s.Indices {
				if reads(x) {
					return false
				}
			}
			if reads(s.Value) {
				return false
			}
			if s.Buf.Scope == "local" {
				if el, ok := constElem(&ir.Load{Buf: s.Buf, Indices: s.Indices}); ok {
					kill(el)
				}
			}
		case *ir.Evaluate:
			c, ok := s.X.(*ir.Call)
			if !ok {
				return false
			}
			if els := ldElems(c); els != nil {
				// its destinations are written, not read; its address is read
				for _, a := range c.Args[len(els):] {
					if reads(a) {
						return false
					}
				}
				for _, el := range els {
					kill(el)
				}
			} else if syncOp(c) || reads(c) {
				return false // a barrier or fence, or a use
			}
		default:
			return false // a loop, a branch: not followed
		}
		if len(left) == 0 {
			return true
		}
	}
	return false
}

// syncOp reports whether c orders memory or threads (a barrier, a fence,
// an mbarrier operation): the rule does not look past one.
func syncOp(c *ir.Call) bool {
	op := c.Op
	return strings.Contains(op, "sync") || strings.Contains(op, "fence") || strings.Contains(op, "mbarrier") || strings.Contains(op, "bar.")
}
