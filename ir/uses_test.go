package ir

import "testing"

// TestFirstUse: a variable read in an index, a condition or a loop bound
// is found, the first in statement order; one only defined (a Let's, a
// loop's) is not.
func TestFirstUse(t *testing.T) {
	x := &Var{Name: "x", Type: Int32}
	y := &Var{Name: "y", Type: Int32}
	i := &Var{Name: "i", Type: Int32}
	buf := &Buffer{Name: "out", Shape: []int64{32}, Dtype: Int32}
	body := &Block{Stmts: []Stmt{
		&Let{Var: y, Value: Const(1)},
		&For{Var: i, Extent: Const(4), Body: &Block{Stmts: []Stmt{
			&If{Cond: &Binary{Op: LT, A: i, B: Const(2)}, Then: &Block{Stmts: []Stmt{
				&Store{Buf: buf, Indices: []Expr{i}, Value: &Binary{Op: Add, A: x, B: y}},
			}}},
		}}},
	}}
	if v, at := FirstUse(body, map[*Var]bool{x: true, y: true}); v != x || at != x {
		t.Errorf("FirstUse(x, y) = %v, %v; want x (the store reads x + y)", v, at)
	}
	if v, _ := FirstUse(body, map[*Var]bool{y: true}); v != y {
		t.Errorf("FirstUse(y) = %v, want y (read, not only defined)", v)
	}
	if v, _ := FirstUse(body, map[*Var]bool{i: true}); v != i {
		t.Errorf("FirstUse(i) = %v, want i (read in the condition)", v)
	}
	defOnly := &Block{Stmts: []Stmt{&Let{Var: x, Value: Const(3)}, &For{Var: i, Extent: Const(2), Body: &Block{}}}}
	if v, _ := FirstUse(defOnly, map[*Var]bool{x: true, i: true}); v != nil {
		t.Errorf("FirstUse of defined-only variables = %v, want none", v)
	}
}
