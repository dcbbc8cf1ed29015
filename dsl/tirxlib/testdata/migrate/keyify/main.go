package main

// keyify DIR PKGNAME: keys unkeyed composite literals of struct types from
// other packages of the module.
import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type edit struct {
	pos  int
	text string
}

func main() {
	dir, name := os.Args[1], os.Args[2]
	fset := token.NewFileSet()
	ms, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	src := map[string][]byte{}
	for _, m := range ms {
		b, _ := os.ReadFile(m)
		f, err := parser.ParseFile(fset, m, b, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		if f.Name.Name != name {
			continue
		}
		files = append(files, f)
		src[m] = b
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	pkg, err := conf.Check(name, fset, files, info)
	if err != nil {
		panic(err)
	}
	edits := map[string][]edit{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || len(cl.Elts) == 0 {
				return true
			}
			if _, ok := cl.Elts[0].(*ast.KeyValueExpr); ok {
				return true
			}
			t := info.Types[cl].Type
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			nt, ok := t.(*types.Named)
			if !ok || nt.Obj().Pkg() == pkg || nt.Obj().Pkg() == nil || !strings.HasPrefix(nt.Obj().Pkg().Path(), "github.com/tilels/") {
				return true
			}
			st, ok := nt.Underlying().(*types.Struct)
			if !ok {
				return true
			}
			for i, e := range cl.Elts {
				p := fset.Position(e.Pos())
				edits[p.Filename] = append(edits[p.Filename], edit{p.Offset, st.Field(i).Name() + ": "})
			}
			return true
		})
	}
	for fn, es := range edits {
		sort.Slice(es, func(i, j int) bool { return es[i].pos > es[j].pos })
		out := src[fn]
		for _, e := range es {
			out = append(out[:e.pos:e.pos], append([]byte(e.text), out[e.pos:]...)...)
		}
		os.WriteFile(fn, out, 0o644)
	}
}
