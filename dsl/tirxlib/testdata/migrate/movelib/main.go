package main

// split moves files of one Go package into a new package, exporting what
// crosses the boundary. See usage in main.

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

type edit struct {
	pos, end int
	text     string
	prio     int
}

var (
	fset  = token.NewFileSet()
	edits = map[string][]edit{} // filename -> edits
)

func addEdit(p, e token.Pos, text string) {
	f := fset.Position(p).Filename
	prio := 0
	if p == e {
		prio = 2
		if strings.HasSuffix(text, ".") {
			prio = 1
		}
	}
	edits[f] = append(edits[f], edit{fset.Position(p).Offset, fset.Position(e).Offset, text, prio})
}

func main() {
	dir := flag.String("dir", "", "package dir")
	newdir := flag.String("new", "", "new package dir")
	newpkg := flag.String("newpkg", "tirxlib", "")
	newimp := flag.String("newimp", "github.com/tilels/tilels/dsl/tirxlib", "")
	oldimp := flag.String("oldimp", "github.com/tilels/tilels/dsl/eval", "")
	evType := flag.String("evtype", "evaluator", "")
	overrides := flag.String("rename", "", "comma list old=New for exported names (key Type.field or name)")
	dry := flag.Bool("n", false, "report only")
	flag.Parse()
	lib := map[string]bool{}
	for _, a := range flag.Args() {
		lib[a] = true
	}
	ov := map[string]string{}
	for _, kv := range strings.Split(*overrides, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			ov[k] = v
		}
	}
	matches, _ := filepath.Glob(filepath.Join(*dir, "*.go"))
	var files []*ast.File
	src := map[string][]byte{}
	for _, m := range matches {
		b, _ := os.ReadFile(m)
		f, err := parser.ParseFile(fset, m, b, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		if f.Name.Name != "eval" {
			continue
		}
		src[m] = b
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
	pkg, err := conf.Check("x", fset, files, info)
	if err != nil {
		panic(err)
	}
	// home: "c" core, "l" lib, "t" test (external)
	home := func(p token.Pos) string {
		fn := fset.Position(p).Filename
		if strings.HasSuffix(fn, "_test.go") {
			if lib[filepath.Base(fn)] {
				return "lt" // test moved with lib: internal test of lib
			}
			return "t"
		}
		if lib[filepath.Base(fn)] {
			return "l"
		}
		return "c"
	}
	pkgOf := func(h string) string {
		switch h {
		case "c":
			return "eval"
		case "l", "lt":
			return "tirxlib"
		}
		return "eval_test"
	}
	// objects to export
	export := map[types.Object]bool{}
	evT := pkg.Scope().Lookup(*evType).(*types.TypeName)
	isEvMethod := func(o types.Object) bool {
		f, ok := o.(*types.Func)
		if !ok {
			return false
		}
		sig := f.Type().(*types.Signature)
		if sig.Recv() == nil {
			return false
		}
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		return ok && n.Obj() == evT
	}
	// converted evaluator methods (defined in lib)
	conv := map[types.Object]bool{}
	for id, o := range info.Defs {
		if o != nil && isEvMethod(o) && home(id.Pos()) == "l" {
			conv[o] = true
		}
	}
	var problems []string
	prob := func(p token.Pos, f string, a ...any) {
		problems = append(problems, fset.Position(p).String()+": "+fmt.Sprintf(f, a...))
	}
	// selector idents which are method calls to convert
	callOf := map[*ast.Ident]*ast.CallExpr{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if s, ok := c.Fun.(*ast.SelectorExpr); ok {
					callOf[s.Sel] = c
				}
			}
			return true
		})
	}
	selX := map[*ast.Ident]*ast.SelectorExpr{}
	for s := range info.Selections {
		selX[s.Sel] = s
	}
	qualified := map[*ast.Ident]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok {
					if _, ok := info.Uses[x].(*types.PkgName); ok {
						qualified[s.Sel] = true
					}
				}
			}
			return true
		})
	}
	for id, o := range info.Uses {
		if o == nil || o.Pkg() != pkg {
			continue
		}
		if _, ok := o.(*types.PkgName); ok {
			continue
		}
		hu, ho := home(id.Pos()), home(o.Pos())
		if conv[o] {
			if hu != "l" && hu != "lt" {
				prob(id.Pos(), "lib evaluator method %s used outside lib (hook needed)", o.Name())
				continue
			}
			c := callOf[id]
			s := selX[id]
			if s != nil && info.Selections[s].Kind() == types.MethodExpr {
				addEdit(s.Pos(), s.End(), o.Name())
				continue
			}
			if c == nil || s == nil || c.Fun != ast.Expr(s) {
				prob(id.Pos(), "method value %s", o.Name())
				continue
			}
			// X.m(args) -> m(X, args)
			xs := string(src[fset.Position(s.X.Pos()).Filename][fset.Position(s.X.Pos()).Offset:fset.Position(s.X.End()).Offset])
			addEdit(s.X.Pos(), id.End(), o.Name())
			if len(c.Args) == 0 {
				addEdit(c.Lparen+1, c.Lparen+1, xs)
			} else {
				addEdit(c.Lparen+1, c.Lparen+1, xs+", ")
			}
			continue
		}
		if pkgOf(hu) == pkgOf(ho) {
			continue
		}
		if o.Parent() == pkg.Scope() {
			if !o.Exported() {
				export[o] = true
			}
			if !qualified[id] {
				q := pkgOf(ho)
				if q == "eval_test" {
					prob(id.Pos(), "use of test object %s from non-test", o.Name())
				}
				addEdit(id.Pos(), id.Pos(), q+".")
			}
			continue
		}
		// fields / methods
		if v, ok := o.(*types.Var); ok && !v.IsField() {
			continue
		}
		if _, ok := o.(*types.Func); !ok {
			if v, ok := o.(*types.Var); !ok || !v.IsField() {
				continue
			}
		}
		if !o.Exported() {
			export[o] = true
		}
	}
	// positional composite literals of other-home struct types
	for _, f := range files {
		hf := home(f.Pos())
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || len(cl.Elts) == 0 {
				return true
			}
			if _, ok := cl.Elts[0].(*ast.KeyValueExpr); ok {
				return true
			}
			t := info.Types[cl].Type
			if t == nil {
				return true
			}
			nt, ok := t.(*types.Named)
			if !ok || nt.Obj().Pkg() != pkg {
				return true
			}
			st, ok := nt.Underlying().(*types.Struct)
			if !ok || pkgOf(home(nt.Obj().Pos())) == pkgOf(hf) {
				return true
			}
			for i := 0; i < st.NumFields(); i++ {
				if !st.Field(i).Exported() {
					export[st.Field(i)] = true
				}
			}
			return true
		})
	}
	// embedded fields follow their type
	for o := range export {
		if tn, ok := o.(*types.TypeName); ok {
			for id, d := range info.Defs {
				if v, ok := d.(*types.Var); ok && v.Embedded() && v.Pkg() == pkg {
					t := v.Type()
					if p, ok := t.(*types.Pointer); ok {
						t = p.Elem()
					}
					if n, ok := t.(*types.Named); ok && n.Obj() == tn {
						export[v] = true
						_ = id
					}
				}
			}
		}
	}
	// names
	newName := map[types.Object]string{}
	keyOf := func(o types.Object) string {
		if v, ok := o.(*types.Var); ok && v.IsField() {
			return "field." + o.Name()
		}
		if f, ok := o.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
			return "method." + o.Name()
		}
		return o.Name()
	}
	taken := map[string]bool{}
	for _, n := range pkg.Scope().Names() {
		taken[n] = true
	}
	var rep []string
	for o := range export {
		nn := string(unicode.ToUpper(rune(o.Name()[0]))) + o.Name()[1:]
		if x, ok := ov[keyOf(o)]; ok {
			nn = x
		} else if x, ok := ov[o.Name()]; ok {
			nn = x
		}
		if v, ok := o.(*types.Var); ok && v.Embedded() {
			t := v.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			nn = newName[t.(*types.Named).Obj()]
			if nn == "" {
				nn = string(unicode.ToUpper(rune(o.Name()[0]))) + o.Name()[1:]
				if x, ok := ov[t.(*types.Named).Obj().Name()]; ok {
					nn = x
				}
			}
		}
		if o.Parent() == pkg.Scope() && taken[nn] {
			prob(o.Pos(), "collision exporting %s as %s", o.Name(), nn)
		}
		newName[o] = nn
		rep = append(rep, fmt.Sprintf("%s %s -> %s (%s)", keyOf(o), fset.Position(o.Pos()), nn, home(o.Pos())))
	}
	// field/method collisions: check receiver types
	for o, nn := range newName {
		if o.Parent() == pkg.Scope() {
			continue
		}
		// find owning type by looking up across all named types
		for _, n := range pkg.Scope().Names() {
			tn, ok := pkg.Scope().Lookup(n).(*types.TypeName)
			if !ok {
				continue
			}
			for _, ptr := range []bool{false, true} {
				var t types.Type = tn.Type()
				if ptr {
					t = types.NewPointer(t)
				}
				obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, o.Name())
				if obj == o {
					other, _, _ := types.LookupFieldOrMethod(t, true, pkg, nn)
					if other != nil && other != o {
						prob(o.Pos(), "collision %s.%s -> %s", n, o.Name(), nn)
					}
				}
			}
		}
	}
	sort.Strings(rep)
	for _, r := range rep {
		fmt.Fprintln(os.Stderr, "export", r)
	}
	// rename idents
	for id, o := range info.Defs {
		if nn, ok := newName[o]; ok && id.Name == o.Name() {
			if v, ok := o.(*types.Var); ok && v.Embedded() {
				continue // the ident is the type's use
			}
			addEdit(id.Pos(), id.End(), nn)
		}
	}
	for id, o := range info.Uses {
		if nn, ok := newName[o]; ok {
			addEdit(id.Pos(), id.End(), nn)
		}
	}
	// selections of embedded fields by name (x.base) are Uses already.
	// convert method decls in lib
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			o := info.Defs[fd.Name]
			if !conv[o] {
				continue
			}
			if taken[o.Name()] {
				prob(fd.Pos(), "converted method %s collides with package name", o.Name())
			}
			r := fd.Recv.List[0]
			rn := "ev"
			if len(r.Names) > 0 {
				rn = r.Names[0].Name
			}
			addEdit(fd.Recv.Pos(), fd.Name.Pos(), "")
			p := fd.Type.Params
			if len(p.List) == 0 {
				addEdit(p.Opening+1, p.Opening+1, rn+" *eval.Evaluator")
			} else {
				addEdit(p.Opening+1, p.Opening+1, rn+" *eval.Evaluator, ")
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		fmt.Println("PROBLEM", p)
	}
	if *dry {
		return
	}
	_ = bytes.MinRead
	// apply
	for fn, b := range src {
		es := edits[fn]
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].pos != es[j].pos {
				return es[i].pos > es[j].pos
			}
			return es[i].prio < es[j].prio
		})
		// dedupe identical
		out := append([]byte(nil), b...)
		// apply from end; for same pos insertion order: keep stable reversed
		seen := map[edit]bool{}
		inside := func(e edit) bool {
			for _, r := range es {
				if r.end > r.pos && r.pos < e.pos && e.pos < r.end {
					return true
				}
			}
			return false
		}
		for _, e := range es {
			if seen[e] || inside(e) {
				continue
			}
			seen[e] = true
			out = append(out[:e.pos], append([]byte(e.text), out[e.end:]...)...)
		}
		h := home(filesPos(fn))
		target := fn
		switch h {
		case "l", "lt":
			target = filepath.Join(*newdir, strings.TrimPrefix(filepath.Base(fn), "lib_"))
			out = bytes.Replace(out, []byte("package eval"), []byte("package "+*newpkg), 1)
		case "t":
			out = bytes.Replace(out, []byte("package eval"), []byte("package eval_test"), 1)
		}
		if h != "c" {
			var imps []string
			if bytes.Contains(out, []byte("eval.")) {
				imps = append(imps, *oldimp)
			}
			if h == "t" && bytes.Contains(out, []byte(*newpkg+".")) {
				imps = append(imps, *newimp)
			}
			out = addImports(out, imps)
		}
		if target != fn {
			os.Remove(fn)
		}
		os.MkdirAll(filepath.Dir(target), 0o755)
		os.WriteFile(target, out, 0o644)
	}
}

var posOf = map[string]token.Pos{}

func filesPos(fn string) token.Pos {
	var p token.Pos
	fset.Iterate(func(f *token.File) bool {
		if f.Name() == fn {
			p = token.Pos(f.Base())
			return false
		}
		return true
	})
	return p
}

func addImports(out []byte, imps []string) []byte {
	if len(imps) == 0 {
		return out
	}
	var b strings.Builder
	for _, i := range imps {
		b.WriteString("\t\"" + i + "\"\n")
	}
	if i := bytes.Index(out, []byte("import (\n")); i >= 0 {
		j := i + len("import (\n")
		return append(out[:j], append([]byte(b.String()+"\n"), out[j:]...)...)
	}
	if i := bytes.Index(out, []byte("\nimport \"")); i >= 0 {
		j := i + 1
		return append(out[:j], append([]byte("import (\n"+b.String()+")\n"), out[j:]...)...)
	}
	// after package line
	i := bytes.Index(out, []byte("\npackage "))
	if bytes.HasPrefix(out, []byte("package ")) {
		i = 0
	} else {
		i++
	}
	j := i + bytes.IndexByte(out[i:], '\n') + 1
	return append(out[:j], append([]byte("\nimport (\n"+b.String()+")\n"), out[j:]...)...)
}
