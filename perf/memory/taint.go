package memory

import "github.com/tilels/tilels/ir"

// Code the machine cannot execute (a branch on a value it does not know,
// a loop whose bounds it does not know) is skipped, and its calls'
// figures are unknown. What that code may write is not known either
// after it: a register buffer element it stores, a scalar it assigns,
// a loop it may leave. taint records those so that what reads them later
// says why it is unknown, instead of reading the value from before the
// skipped code. Without it a persistent kernel's `while not done:` whose
// `done[0] = 1` sits under a branch on the cluster launch control's
// answer (fp16_bf16_gemm's schedulers) ran until the step bound, 1.5-2 s
// per kernel, to end with every figure unknown.

// taint marks what b may write as unknown for why. loopBody says that b
// is the body of a loop being skipped: its own break and continue
// statements leave only that loop.
func (m *machine) taint(b *ir.Block, why string, loopBody bool) {
	depth := 0
	if loopBody {
		depth = 1
	}
	m.taintBlock(b, why, depth)
	if len(m.regs) > 0 {
		m.clobberSkipped(b.Stmts) // regs.go
	}
}

// taintBlock walks b; depth counts the loops of the skipped code around
// the statement (a break at depth 0 leaves a loop the machine runs).
func (m *machine) taintBlock(b *ir.Block, why string, depth int) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		m.taintStmt(s, why, depth)
	}
}

func (m *machine) taintStmt(s ir.Stmt, why string, depth int) {
	switch s := s.(type) {
	case *ir.Block:
		m.taintBlock(s, why, depth)
	case *ir.Lowered:
		m.taintBlock(s.Body, why, depth)
	case *ir.If:
		m.taintBlock(s.Then, why, depth)
		m.taintBlock(s.Else, why, depth)
	case *ir.For:
		m.taintVar(s.Var, why)
		m.taintBlock(s.Body, why, depth+1)
	case *ir.While:
		m.taintBlock(s.Body, why, depth+1)
	case *ir.Let:
		m.taintVar(s.Var, why)
	case *ir.Assign:
		m.taintVar(s.Var, why)
	case *ir.Store:
		if s.Buf.Scope == "local" {
			m.taintLocal(s.Buf, why)
		}
	case *ir.Break, *ir.Continue:
		if n := len(m.loops); depth == 0 && n > 0 && m.loops[n-1].why == "" {
			m.loops[n-1].why = why
		}
	}
}

func (m *machine) taintVar(v *ir.Var, why string) {
	b := m.vars.get(v)
	if b == nil {
		b = m.newBinding()
		m.vars.set(v, b)
	}
	b.why = why
}

// taintLocal marks every element of the register buffer buf unknown:
// those written so far, and (through m.poison) those never written,
// until a store writes them again.
func (m *machine) taintLocal(buf *ir.Buffer, why string) {
	for _, b := range m.local.get(buf).all() {
		b.why = why
	}
	if m.poison == nil {
		m.poison = map[*ir.Buffer]string{}
	}
	if _, ok := m.poison[buf]; !ok {
		m.poison[buf] = why
	}
}
