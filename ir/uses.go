package ir

// FirstUse returns the first use, in statement order, of a variable of
// want in b: the variable and the expression that reads it (nil when none
// is read). A use is a read in an expression (an index, a value, a bound,
// a condition, a tile call's operand or config, a buffer's runtime shape
// or offset); a definition (a Let's, a loop's variable) is not one.
func FirstUse(b *Block, want map[*Var]bool) (*Var, Expr) {
	u := &uses{want: want}
	u.block(b)
	return u.v, u.at
}

type uses struct {
	want map[*Var]bool
	v    *Var
	at   Expr
}

func (u *uses) done() bool { return u.v != nil }

func (u *uses) block(b *Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		if u.done() {
			return
		}
		u.stmt(s)
	}
}

func (u *uses) stmt(s Stmt) {
	switch s := s.(type) {
	case *Block:
		u.block(s)
	case *For:
		u.expr(s.Min)
		u.expr(s.Extent)
		u.block(s.Body)
	case *While:
		u.expr(s.Cond)
		u.block(s.Body)
	case *If:
		u.expr(s.Cond)
		u.block(s.Then)
		u.block(s.Else)
	case *Store:
		u.buffer(s.Buf)
		u.exprs(s.Indices)
		u.expr(s.Value)
	case *Evaluate:
		u.expr(s.X)
	case *Let:
		u.expr(s.Value)
	case *Assign:
		u.expr(s.Value)
	case *Alloc:
		u.buffer(s.Buf)
	case *Decl:
		u.buffer(s.Buf)
	case *ScopeID:
		u.exprs(s.Dynamic)
	case *TileCall:
		u.exprs(s.Args)
		for _, kv := range s.Config {
			u.expr(kv.Value)
		}
	case *Lowered:
		u.block(s.Body)
	}
}

func (u *uses) buffer(b *Buffer) {
	if b == nil {
		return
	}
	u.exprs(b.ShapeExpr)
	u.expr(b.ElemOffsetExpr)
}

func (u *uses) exprs(es []Expr) {
	for _, e := range es {
		u.expr(e)
	}
}

func (u *uses) expr(e Expr) {
	if e == nil || u.done() {
		return
	}
	switch e := e.(type) {
	case *Var:
		if u.want[e] {
			u.v, u.at = e, e
		}
	case *Binary:
		u.expr(e.A)
		u.expr(e.B)
	case *Not:
		u.expr(e.X)
	case *Neg:
		u.expr(e.X)
	case *Cast:
		u.expr(e.X)
	case *Select:
		u.expr(e.Cond)
		u.expr(e.A)
		u.expr(e.B)
	case *Load:
		u.buffer(e.Buf)
		u.exprs(e.Indices)
	case *Call:
		u.exprs(e.Args)
	case *AddressOf:
		u.buffer(e.Buf)
		u.exprs(e.Indices)
	case *BufferData:
		u.buffer(e.Buf)
	case *Region:
		u.buffer(e.Buf)
		u.exprs(e.Min)
		u.exprs(e.Extent)
	case *Tuple:
		u.exprs(e.Elems)
	}
}
