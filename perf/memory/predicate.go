package memory

// If-conversion, as nvcc -O2 does it: an `if` with no else whose body is
// a few plain statements (stores, lets, no loop, branch or intrinsic)
// becomes predicated instructions, which every warp that reaches the
// `if` issues, its lanes off or not. Nsight counts such an instruction
// in smsp__inst_executed_op_shared_ld/st for a warp whose lanes are all
// off (and no wavefront). Measured: line_directives' staged runs
// `if tid == 0: A_s[0] = A_s[0] + 1.0` in 64 threads; SASS @!P0 LDS,
// @!P0 STS; ncu 16 shared load and 16 shared store instructions over 4
// iterations (2 warps each), not 12.

import "github.com/tilels/tilels/ir"

// At the end of the kernel, though, nvcc turns such an if into an early
// exit of the lanes that do not take it (`@P0 EXIT` before the body): a
// warp none of whose lanes take it issues nothing. Measured:
// lower/testdata/tma_runtime_rows' unit_rows ends with `if tid < 64:
// o[...] = sf_s[1, tid]` in 128 threads; SASS ISETP, @P0 EXIT, LDS, STG;
// ncu 8 shared load instructions over 4 CTAs (2 warps each), not 16.

// tailIf reports whether s is an if the kernel ends with: the last
// statement (comments aside) of the kernel's body, or of a block, an if
// arm or a tile call's lowering that is one itself. Nothing runs after
// it, so nvcc lets the lanes that do not take it exit.
func (m *machine) tailIf(s *ir.If) bool {
	if m.fn == nil {
		return false
	}
	if m.tailFn != m.fn {
		m.tailFn = m.fn
		if m.tailIfs == nil {
			m.tailIfs = map[*ir.If]bool{}
		}
		clear(m.tailIfs)
		markTailIfs(m.fn.Body, m.tailIfs)
	}
	return m.tailIfs[s]
}

// markTailIfs marks the ifs b ends with (tailIf).
func markTailIfs(b *ir.Block, set map[*ir.If]bool) {
	if b == nil {
		return
	}
	for i := len(b.Stmts) - 1; i >= 0; i-- {
		switch x := b.Stmts[i].(type) {
		case *ir.Comment:
			continue
		case *ir.If:
			set[x] = true
			markTailIfs(x.Then, set)
			markTailIfs(x.Else, set)
		case *ir.Block:
			markTailIfs(x, set)
		case *ir.Lowered:
			markTailIfs(x.Body, set)
		}
		return
	}
}

// maxPredicated is the most statements of an if-converted body.
const maxPredicated = 4

// predicable reports whether nvcc turns the if s into predicated code:
// no else, at most maxPredicated stores and lets, each cheap.
func predicable(s *ir.If) bool {
	if s.Else != nil && len(s.Else.Stmts) > 0 {
		return false
	}
	if s.Then == nil || len(s.Then.Stmts) == 0 || len(s.Then.Stmts) > maxPredicated {
		return false
	}
	ops := 0
	for _, x := range s.Then.Stmts {
		switch x := x.(type) {
		case *ir.Store:
			if !cheap(x.Value, &ops) {
				return false
			}
			for _, i := range x.Indices {
				if !cheap(i, &ops) {
					return false
				}
			}
		case *ir.Let:
			if !cheap(x.Value, &ops) {
				return false
			}
		case *ir.Comment:
		default:
			return false
		}
	}
	return ops <= maxPredicatedOps
}

// maxPredicatedOps is the most arithmetic operations (and loads) of an
// if-converted body: r056's `if s*64 + tid < 210: B_s[...] = ...` with
// its index divisions is a branch (BSSY, @P BRA) that a warp with no
// lane on skips, and Nsight counts nothing for it.
const maxPredicatedOps = 6

// cheap adds e's operations to *ops and reports whether e has no integer
// division or modulo (a dozen instructions each), no call and no
// load from the index of a load.
func cheap(e ir.Expr, ops *int) bool {
	switch e := e.(type) {
	case *ir.IntImm, *ir.FloatImm, *ir.Var, *ir.ThreadIndex:
		return true
	case *ir.Cast:
		return cheap(e.X, ops)
	case *ir.Neg:
		*ops++
		return cheap(e.X, ops)
	case *ir.Binary:
		if e.Op == ir.FloorDiv || e.Op == ir.FloorMod || e.Op == ir.Div {
			return false
		}
		*ops++
		return cheap(e.A, ops) && cheap(e.B, ops)
	case *ir.Load:
		*ops++
		for _, x := range e.Indices {
			if _, ok := x.(*ir.Load); ok || !cheap(x, ops) {
				return false
			}
		}
		return true
	}
	return false
}

// offInstruction counts a shared access of a warp whose lanes are all
// predicated off: one instruction, no wavefront.
func (m *machine) offInstruction(e *event) {
	switch e.k {
	case sharedLoad:
		m.cur.SharedLoad.Instructions++
	case sharedStore:
		m.cur.SharedStore.Instructions++
	}
}
