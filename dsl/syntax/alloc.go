package syntax

// alloc hands out nodes and node slices carved from larger chunks, so a parse
// makes a few big allocations instead of one per node. A tree keeps its
// chunks alive as a whole, which is fine: trees are used as a whole.
type alloc struct {
	names     slab[Name]
	consts    slab[Constant]
	calls     slab[Call]
	attrs     slab[Attribute]
	binops    slab[BinOp]
	keywords  slab[Keyword]
	subs      slab[Subscript]
	tuples    slab[Tuple]
	slices    slab[Slice]
	exprStmts slab[ExprStmt]
	assigns   slab[Assign]
	params    slab[Param]
	compares  slab[Compare]
	lists     slab[List]

	exprBuf []Expr
	stmtBuf []Stmt
}

// slab allocates T values in chunks that grow from 8 to 512 elements.
type slab[T any] struct {
	buf  []T
	next int
}

func (s *slab[T]) new() *T {
	if len(s.buf) == 0 {
		s.next = min(max(2*s.next, 8), 512)
		s.buf = make([]T, s.next)
	}
	x := &s.buf[0]
	s.buf = s.buf[1:]
	return x
}

func (a *alloc) name() *Name { return a.names.new() }

// exprSlice returns a zeroed slice of length and capacity n.
func (a *alloc) exprSlice(n int) []Expr {
	if n > len(a.exprBuf) {
		if n > 64 {
			return make([]Expr, n)
		}
		a.exprBuf = make([]Expr, 256)
	}
	s := a.exprBuf[:n:n]
	a.exprBuf = a.exprBuf[n:]
	return s
}

// stmtSlice returns a zeroed slice of length and capacity n.
func (a *alloc) stmtSlice(n int) []Stmt {
	if n > len(a.stmtBuf) {
		if n > 64 {
			return make([]Stmt, n)
		}
		a.stmtBuf = make([]Stmt, 128)
	}
	s := a.stmtBuf[:n:n]
	a.stmtBuf = a.stmtBuf[n:]
	return s
}
