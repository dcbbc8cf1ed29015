package dispatch

import (
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestWithPostDefs: each group lands right after its buffer's Alloc or
// Decl, at any depth, groups of one buffer in the order given; a group
// whose buffer the kernel does not define opens its call's lowering; the
// input tree is not modified.
func TestWithPostDefs(t *testing.T) {
	a := &ir.Buffer{Name: "a"}
	b := &ir.Buffer{Name: "b"}
	missing := &ir.Buffer{Name: "param"}
	mark := func(s string) ir.Stmt { return &ir.Comment{Text: s} }
	low := &ir.Lowered{Body: &ir.Block{Stmts: []ir.Stmt{mark("mma")}}}
	inner := &ir.Block{Stmts: []ir.Stmt{&ir.Decl{Buf: b}, mark("use b")}}
	body := &ir.Block{Stmts: []ir.Stmt{
		&ir.Alloc{Buf: a},
		mark("after a"),
		&ir.For{Body: &ir.Block{Stmts: []ir.Stmt{&ir.If{Then: inner}}}},
		low,
	}}
	pds := []postDef{
		{PostDef{Buf: b, Stmts: []ir.Stmt{mark("desc b")}}, low},
		{PostDef{Buf: a, Stmts: []ir.Stmt{mark("desc a 1")}}, low},
		{PostDef{Buf: missing, Stmts: []ir.Stmt{mark("desc param")}}, low},
		{PostDef{Buf: a, Stmts: []ir.Stmt{mark("desc a 2")}}, low},
	}
	out := withPostDefs(body, pds)
	var got []string
	ir.WalkStmts(out, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Comment:
			got = append(got, s.Text)
		case *ir.Alloc:
			got = append(got, "alloc "+s.Buf.Name)
		case *ir.Decl:
			got = append(got, "decl "+s.Buf.Name)
		}
	})
	want := []string{"alloc a", "desc a 1", "desc a 2", "after a", "decl b", "desc b", "use b", "desc param", "mma"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if len(body.Stmts) != 4 || len(inner.Stmts) != 2 {
		t.Errorf("the input tree was modified: %d top statements, %d inner", len(body.Stmts), len(inner.Stmts))
	}
	if same := withPostDefs(body, nil); same != body {
		t.Errorf("no groups: the block was rebuilt")
	}
}
