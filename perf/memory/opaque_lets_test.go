package memory

import (
	"maps"
	"slices"
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestOpaqueLets: a let binds an opaque variable when its value is never
// known, directly or through opaque variables bound before it, and
// nothing binds the variable again, before or after (an assignment, a
// second let): then neither it nor what was found opaque through it is.
func TestOpaqueLets(t *testing.T) {
	v := func(name string) *ir.Var { return &ir.Var{Name: name, Type: ir.Int32} }
	never := func() ir.Expr { return &ir.Cast{To: ir.Float32, X: &ir.IntImm{Value: 1, Type: ir.Int32}} }
	known := func() ir.Expr { return &ir.IntImm{Value: 2, Type: ir.Int32} }
	plus := func(x ir.Expr) ir.Expr { return &ir.Binary{Op: ir.Add, A: x, B: known()} }
	a, b, c, d, e, f := v("a"), v("b"), v("c"), v("d"), v("e"), v("f")
	fn := &ir.Func{Body: &ir.Block{Stmts: []ir.Stmt{
		&ir.Let{Var: a, Value: never()}, // opaque
		&ir.Let{Var: b, Value: plus(a)}, // opaque through a
		&ir.Let{Var: c, Value: never()}, // assigned below: not opaque
		&ir.Let{Var: d, Value: plus(c)}, // through c: not opaque either
		&ir.Let{Var: e, Value: never()}, // bound again below
		&ir.Let{Var: f, Value: known()}, // known
		&ir.Block{Stmts: []ir.Stmt{
			&ir.Assign{Var: c, Value: known()},
			&ir.Let{Var: e, Value: never()},
		}},
	}}}
	got := slices.SortedFunc(maps.Keys(opaqueLets(fn)), func(x, y *ir.Var) int {
		if x.Name < y.Name {
			return -1
		}
		return 1
	})
	var names []string
	for _, x := range got {
		names = append(names, x.Name)
	}
	if !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("opaque lets %v, want [a b]", names)
	}
}
