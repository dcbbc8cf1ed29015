package eval

import (
	"os"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

func TestSmoke(t *testing.T) {
	src, err := os.ReadFile(os.Getenv("SMOKE"))
	if err != nil {
		t.Skip()
	}
	f, d := syntax.Parse(source.NewFile("k.py", src))
	for _, x := range d {
		t.Log(x)
	}
	p := Evaluate(f, Options{})
	t.Log("\n" + Dump(p))
}
