package eval

import "github.com/tilels/tilels/ir"

// Slabs for the small values an evaluation makes most often (integer
// constants, IR expressions of kernel bodies, one-index subscripts): each
// is taken from a chunk allocated for slabSize of them, so that a
// keystroke in a production file makes a fraction of the allocations
// (BenchmarkKeystrokeProduction). An evaluator is used by one goroutine
// (replicas have their own, parallel_cases.go), so the slabs need no
// locks. Each slot is handed out once and nothing is ever freed into them:
// what a value holds and who shares it is as with new.

const slabSize = 64

type slab[T any] struct{ buf []T }

func (s *slab[T]) new() *T {
	if len(s.buf) == 0 {
		s.buf = make([]T, slabSize)
	}
	p := &s.buf[0]
	s.buf = s.buf[1:]
	return p
}

// take returns a fresh slice of length and capacity n (n <= slabSize).
func (s *slab[T]) take(n int) []T {
	if len(s.buf) < n {
		s.buf = make([]T, slabSize)
	}
	out := s.buf[:n:n]
	s.buf = s.buf[n:]
	return out
}

type slabs struct {
	ints       slab[IntV]
	exprs      slab[ExprV]
	intImms    slab[ir.IntImm]
	values     slab[Value]
	irExprs    slab[ir.Expr]
	loads      slab[exprLoad]
	calls      slab[Call]
	calls2     slab[callBlock2]
	calls4     slab[callBlock4]
	intrinsics slab[IntrinsicV]
	bins       slab[ir.Binary]
	casts      slab[exprCast]
	// paths are the dotted paths joinPath made (T.ptx.x: one string per
	// path, not one per attribute access).
	paths map[[2]string]string
}

// joinPath returns path + "." + name, made once per evaluator.
func (ev *Evaluator) joinPath(path, name string) string {
	k := [2]string{path, name}
	if p, ok := ev.slabs.paths[k]; ok {
		return p
	}
	if ev.slabs.paths == nil {
		ev.slabs.paths = map[[2]string]string{}
	}
	p := path + "." + name
	ev.slabs.paths[k] = p
	return p
}
