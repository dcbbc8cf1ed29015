package syntax

import (
	"reflect"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

var nodeType = reflect.TypeOf((*Node)(nil)).Elem()

// children lists the nodes held in the fields of n, found by reflection.
func children(n Node) []Node {
	var out []Node
	v := reflect.ValueOf(n).Elem()
	var add func(f reflect.Value)
	add = func(f reflect.Value) {
		switch f.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !f.IsNil() && f.Type().Implements(nodeType) {
				out = append(out, f.Interface().(Node))
			}
		case reflect.Slice:
			for i := 0; i < f.Len(); i++ {
				add(f.Index(i))
			}
		}
	}
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Name == "Src" {
			continue
		}
		add(v.Field(i))
	}
	return out
}

// TestWalkComplete checks that Walk visits every child node held in any
// field of every node, on all the dump test inputs and the benchmark corpus.
func TestWalkComplete(t *testing.T) {
	srcs := []string{string(genKernels(200))}
	for _, tc := range dumpTests {
		srcs = append(srcs, tc.src)
	}
	for _, tc := range recoveryTests {
		srcs = append(srcs, tc.src)
	}
	for _, src := range srcs {
		f, _ := Parse(source.NewFile("t.py", []byte(src)))
		visited := make(map[Node]bool)
		Inspect(f, func(n Node) bool {
			if n != nil {
				if visited[n] {
					t.Errorf("%q: %T visited twice", src, n)
				}
				visited[n] = true
			}
			return true
		})
		for n := range visited {
			for _, c := range children(n) {
				if !visited[c] {
					t.Errorf("%q: Walk misses a %T child of %T", src, c, n)
				}
			}
		}
	}
}

// TestInspectPrune checks that returning false skips the children.
func TestInspectPrune(t *testing.T) {
	f, _ := Parse(source.NewFile("t.py", []byte("def f():\n    return g(1)\nx = 2\n")))
	var kinds []string
	Inspect(f, func(n Node) bool {
		if n == nil {
			return true
		}
		kinds = append(kinds, reflect.TypeOf(n).Elem().Name())
		_, isDef := n.(*FunctionDef)
		return !isDef
	})
	want := []string{"File", "FunctionDef", "Assign", "Name", "Constant"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("got %v, want %v", kinds, want)
	}
}

// TestComments checks that comments, including tilels directives, are kept
// with their spans, and that comments inside brackets and after code count.
func TestComments(t *testing.T) {
	src := "# tilels: bind M=4096\n@T.prim_func\ndef k(A,  # first\n      B):\n    pass  # done\n"
	f, diags := Parse(source.NewFile("t.py", []byte(src)))
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics %v", diags)
	}
	want := []string{"# tilels: bind M=4096", "# first", "# done"}
	if len(f.Comments) != len(want) {
		t.Fatalf("got %d comments, want %d", len(f.Comments), len(want))
	}
	for i, c := range f.Comments {
		if c.Text != want[i] || f.Src.Text(c.Span) != want[i] {
			t.Errorf("comment %d: text %q, span text %q, want %q", i, c.Text, f.Src.Text(c.Span), want[i])
		}
	}
	def := f.Body[0].(*FunctionDef)
	if f.Comments[0].Span.End > def.Loc.Start {
		t.Errorf("directive %v should end before the decorated def at %d", f.Comments[0].Span, def.Loc.Start)
	}
}
