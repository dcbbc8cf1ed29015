package dispatch

import "github.com/tilels/tilels/ir"

// postDef is a Result.PostDef with the lowering of the call that asked for
// it.
type postDef struct {
	PostDef
	owner *ir.Lowered
}

// withPostDefs puts every post-definition group right after the Alloc or
// Decl that defines its buffer (TVM's LowerTIRx inserts the statements of
// add_post_buffer_def_stmt after the buffer's DeclBuffer/AllocBuffer, in
// the order the calls added them). A group whose buffer the kernel does
// not define goes to the start of its call's lowering. The lowered body is
// rebuilt only along the paths that change; the Lowered nodes that take a
// fallback group are edited in place (dispatch built them).
func withPostDefs(b *ir.Block, pds []postDef) *ir.Block {
	defined := map[*ir.Buffer]bool{}
	ir.WalkStmts(b, func(s ir.Stmt) {
		switch d := s.(type) {
		case *ir.Alloc:
			defined[d.Buf] = true
		case *ir.Decl:
			defined[d.Buf] = true
		}
	})
	byBuf := map[*ir.Buffer][]ir.Stmt{}
	for i := len(pds) - 1; i >= 0; i-- {
		pd := pds[i]
		if defined[pd.Buf] {
			continue
		}
		// (before the walk below, which may copy the Lowered node)
		body := pd.owner.Body
		stmts := make([]ir.Stmt, 0, len(pd.Stmts)+len(body.Stmts))
		stmts = append(append(stmts, pd.Stmts...), body.Stmts...)
		pd.owner.Body = &ir.Block{Stmts: stmts, Span: body.Span}
	}
	for _, pd := range pds {
		if defined[pd.Buf] {
			byBuf[pd.Buf] = append(byBuf[pd.Buf], pd.Stmts...)
		}
	}
	if len(byBuf) == 0 {
		return b
	}
	nb, _ := postDefBlock(b, byBuf, map[*ir.Buffer]bool{})
	return nb
}

// postDefBlock inserts the groups of byBuf after their definitions in b
// and below, marking each buffer placed. It returns b itself when nothing
// changed.
func postDefBlock(b *ir.Block, byBuf map[*ir.Buffer][]ir.Stmt, placed map[*ir.Buffer]bool) (*ir.Block, bool) {
	if b == nil {
		return nil, false
	}
	var out []ir.Stmt
	for i, s := range b.Stmts {
		ns, changed := postDefStmt(s, byBuf, placed)
		var after []ir.Stmt
		var buf *ir.Buffer
		switch d := s.(type) {
		case *ir.Alloc:
			buf = d.Buf
		case *ir.Decl:
			buf = d.Buf
		}
		if buf != nil && !placed[buf] {
			if st, ok := byBuf[buf]; ok {
				after = st
				placed[buf] = true
			}
		}
		if (changed || after != nil) && out == nil {
			out = make([]ir.Stmt, i, len(b.Stmts)+len(after))
			copy(out, b.Stmts[:i])
		}
		if out != nil {
			out = append(out, ns)
			out = append(out, after...)
		}
	}
	if out == nil {
		return b, false
	}
	return &ir.Block{Stmts: out, Span: b.Span}, true
}

func postDefStmt(s ir.Stmt, byBuf map[*ir.Buffer][]ir.Stmt, placed map[*ir.Buffer]bool) (ir.Stmt, bool) {
	switch s := s.(type) {
	case *ir.Block:
		return postDefBlock(s, byBuf, placed)
	case *ir.For:
		if nb, ok := postDefBlock(s.Body, byBuf, placed); ok {
			n := *s
			n.Body = nb
			return &n, true
		}
	case *ir.While:
		if nb, ok := postDefBlock(s.Body, byBuf, placed); ok {
			n := *s
			n.Body = nb
			return &n, true
		}
	case *ir.If:
		then, ok1 := postDefBlock(s.Then, byBuf, placed)
		els, ok2 := postDefBlock(s.Else, byBuf, placed)
		if ok1 || ok2 {
			n := *s
			n.Then, n.Else = then, els
			return &n, true
		}
	case *ir.Lowered:
		if nb, ok := postDefBlock(s.Body, byBuf, placed); ok {
			n := *s
			n.Body = nb
			return &n, true
		}
	}
	return s, false
}
