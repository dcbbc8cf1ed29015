package ir

// WalkStmts calls f on every statement under b in pre-order: a block, loop
// or if before the statements it holds, and the body of a Lowered call
// after the Lowered itself.
func WalkStmts(b *Block, f func(Stmt)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		f(s)
		switch s := s.(type) {
		case *Block:
			WalkStmts(s, f)
		case *For:
			WalkStmts(s.Body, f)
		case *While:
			WalkStmts(s.Body, f)
		case *If:
			WalkStmts(s.Then, f)
			WalkStmts(s.Else, f)
		case *Lowered:
			WalkStmts(s.Body, f)
		}
	}
}
