package lower

import (
	"bytes"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// Codes of the file-level findings only the headless tool (tilels
// --lower) reports; see AddHeadlessDiags and docs/diagnostics.md.
const (
	CodeNoKernel         = "lower/no-kernel"
	CodeUnresolvedKernel = "lower/unresolved-kernel"
	// CodeNotCUDA is the note at a kernel written for another target.
	CodeNotCUDA  = "lower/not-cuda"
	CodeTooLarge = "lower/too-large"
)

// AddHeadlessDiags adds to r the findings of a headless run that the
// language server leaves out: an editor opens Python files that hold no
// kernel, and shows an unresolved kernel's calls as "unresolved: needs M"
// in place, where a CI log has only the diagnostics.
//
//   - lower/no-kernel (information), at the start of the file, when r has
//     no kernel, evaluated or unresolved;
//   - lower/unresolved-kernel (warning), at the name of each kernel def
//     that no case could evaluate (Result.Partial): nothing is checked or
//     printed for it.
//
// They join r.Diags (kept sorted) and, for the second, the kernel
// record's Diags.
func (r *Result) AddHeadlessDiags() {
	var add []diag.Diagnostic
	if len(r.Kernels) == 0 && len(r.Partial) == 0 {
		add = append(add, diag.Infof(source.Span{}, CodeNoKernel, "no TIRx kernel in this file"))
	}
	for _, k := range r.Partial {
		if k.Foreign != "" {
			continue // its lower/not-cuda note is already there
		}
		at := k.Span
		if k.Func != nil && k.Func.NameSpan.IsValid() {
			at = k.Func.NameSpan
		}
		needs := strings.Join(k.Needs, ", ")
		if needs == "" {
			needs = "parameters no binding source gives"
		}
		d := diag.Warningf(at, CodeUnresolvedKernel, "kernel %s is not lowered: it needs %s (bind with `# tilels: bind` above the def, or --bind)", k.Name, needs)
		add = append(add, d)
		k.Diags = append(k.Diags, d)
		diag.Sort(k.Diags)
	}
	if len(add) == 0 {
		return
	}
	r.Diags = append(r.Diags, add...)
	diag.Sort(r.Diags)
}

// TooLarge is the diagnostic of an input file tilels does not read
// whole: more than limit bytes.
func TooLarge(limit int64) diag.Diagnostic {
	return diag.Errorf(source.Span{}, CodeTooLarge, "file is larger than %d bytes (%d MiB); tilels reads at most that much", limit, limit>>20)
}

// Defines returns which of names f defines as a function: a def of that
// name anywhere in the file (at the top level, nested in a function or a
// class), or, for a dotted name ("make.kernel"), a def whose enclosing
// defs and classes end with it — the names a bind setting may use
// (eval.Options.Bind).
func Defines(f *source.File, names []string) map[string]bool {
	found := map[string]bool{}
	if len(names) == 0 {
		return found
	}
	syn, _ := syntax.Parse(f)
	var paths []string
	var walk func(prefix string, body []syntax.Stmt)
	walk = func(prefix string, body []syntax.Stmt) {
		for _, s := range body {
			syntax.Inspect(s, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.FunctionDef:
					if n.Name == nil {
						return false
					}
					p := prefix + n.Name.Id
					paths = append(paths, p)
					walk(p+".", n.Body)
					return false
				case *syntax.ClassDef:
					if n.Name == nil {
						return false
					}
					walk(prefix+n.Name.Id+".", n.Body)
					return false
				}
				return true
			})
		}
	}
	walk("", syn.Body)
	for _, name := range names {
		for _, p := range paths {
			if p == name || strings.HasSuffix(p, "."+name) {
				found[name] = true
				break
			}
		}
	}
	return found
}

// ImportsTIRx reports whether src imports the TIRx DSL: a module
// tvm.script.tirx or tvm.tirx, or something below them (`from
// tvm.script import tirx as T`, `from tvm.tirx.layout import S`, `import
// tvm.script.tirx`). The directory walk of tilels --lower takes only
// such files.
func ImportsTIRx(name string, src []byte) bool {
	if !bytes.Contains(src, []byte("tirx")) {
		return false // no parse for the common case
	}
	syn, _ := syntax.Parse(source.NewFile(name, src))
	found := false
	tirx := func(mod string) bool {
		for _, m := range []string{"tvm.script.tirx", "tvm.tirx"} {
			if mod == m || strings.HasPrefix(mod, m+".") {
				return true
			}
		}
		return false
	}
	syntax.Inspect(syn, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.Import:
			for _, a := range n.Names {
				found = found || tirx(a.Name)
			}
		case *syntax.ImportFrom:
			if n.Level > 0 {
				break
			}
			found = found || tirx(n.Module)
			for _, a := range n.Names {
				found = found || tirx(n.Module+"."+a.Name)
			}
		}
		return !found
	})
	return found
}
