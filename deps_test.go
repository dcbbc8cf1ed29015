package tilels_test

// The import policy of docs/architecture.md, checked: imports flow one way
// (cmd → {lsp, headless} → lower → {report, codegen, dispatch/cuda → dispatch/cuda/<family> → dispatch/cuda/common → dispatch} →
// dsl/eval → dsl/syntax → dsl/diag → dsl/source; ir under dispatch, codegen
// and eval; dispatch/layout and dsl/source are leaves). Change this table on
// purpose, never to make the build pass.

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tilels/tilels/"

// allowed lists, for each package, the tilels packages it may import.
var allowed = map[string][]string{
	"dsl/source":           {},
	"dispatch/layout":      {},
	"internal/txtar":       {},
	"internal/cudacheck":   {},
	"internal/names":       {},
	"internal/benchcorpus": {},
	"perf/machine":         {},
	"internal/version":     {"release"},
	"release":              {},
	"dsl/diag":             {"dsl/source"},
	"dsl/syntax":           {"dsl/diag", "dsl/source"},
	"ir":                   {"dsl/source", "release", "dispatch/layout"},
	"dsl/eval":             {"dsl/syntax", "dsl/diag", "dsl/source", "release", "dispatch/layout", "ir"},
	"dsl/tirxlib":          {"dsl/eval", "dsl/syntax", "dsl/diag", "dsl/source", "release", "dispatch/layout", "ir"},
	"dispatch":             {"ir", "dispatch/layout", "dsl/diag", "dsl/source", "release"},
	"dispatch/cuda": {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common",
		"dispatch/cuda/copy", "dispatch/cuda/copy_async", "dispatch/cuda/elementwise", "dispatch/cuda/gemm",
		"dispatch/cuda/gemm_async", "dispatch/cuda/reduction", "dispatch/cuda/permute_layout"},
	// One folder per op family; a family imports the shared helpers, and
	// copy_async the copy emitters it reuses (as the reference does).
	"dispatch/cuda/common":         {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release"},
	"dispatch/cuda/copy":           {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common"},
	"dispatch/cuda/copy_async":     {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common", "dispatch/cuda/copy"},
	"dispatch/cuda/elementwise":    {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common"},
	"dispatch/cuda/gemm":           {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common"},
	"dispatch/cuda/gemm_async":     {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common"},
	"dispatch/cuda/reduction":      {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common"},
	"dispatch/cuda/permute_layout": {"dispatch", "ir", "dispatch/layout", "dsl/diag", "dsl/source", "release", "dispatch/cuda/common"},
	"dispatch/trn":                 {"dispatch", "dispatch/trn/copy", "dispatch/trn/binary", "dispatch/trn/unary", "dispatch/trn/reduction", "dispatch/trn/gemm", "dispatch/trn/select", "dispatch/trn/compose_op"},
	"dispatch/trn/common":          {"dispatch", "ir", "dispatch/layout", "dsl/source"},
	"dispatch/trn/copy":            {"dispatch", "ir", "dispatch/layout", "dsl/source", "dispatch/trn/common"},
	"dispatch/trn/binary":          {"dispatch", "ir", "dispatch/layout", "dsl/source", "dispatch/trn/common"},
	"dispatch/trn/unary":           {"dispatch", "ir", "dispatch/layout", "dsl/source", "dispatch/trn/common"},
	"dispatch/trn/reduction":       {"dispatch", "ir", "dispatch/layout", "dsl/source", "dispatch/trn/common"},
	"dispatch/trn/gemm":            {"dispatch", "ir", "dispatch/layout", "dsl/source", "dispatch/trn/common"},
	"dispatch/trn/select":          {"dispatch", "ir", "dispatch/layout", "dsl/source", "dispatch/trn/common"},
	"dispatch/trn/compose_op":      {"dispatch", "ir", "dispatch/layout", "dsl/source", "release", "dispatch/trn/common"},
	"codegen/cuda":                 {"ir", "dispatch/layout", "dsl/source", "release"},
	"codegen/tirx":                 {"ir", "dispatch/layout", "dsl/source", "release"},
	"codegen/harness":              {"ir", "dispatch/layout", "dsl/source", "release"},
	"picture":                      {"ir", "dispatch/layout", "dsl/source", "release"},
	"perf/memory":                  {"ir", "dispatch/layout", "dsl/source", "release", "codegen/cuda"},
	"lower":                        {"*"},
	"assist":                       {"lower", "dispatch", "dispatch/trn", "dsl/source", "release"},
	"report":                       {"lower", "dispatch", "dsl/diag", "dsl/source", "release", "ir", "perf/memory"},
	"lsp":                          {"*"},
	"headless":                     {"lower", "report", "codegen/harness", "dsl/diag", "dsl/source", "release"},
	"cmd/tilels":                   {"lsp", "headless", "lower", "release"},
}

// jsonOK lists the packages that may import encoding/json: the protocol layer
// and the machine-readable report of the CLI.
var jsonOK = map[string]bool{"lsp": true, "report": true}

func TestImportPolicy(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "editors" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rules, known := allowed[pkg]
		if !known {
			t.Errorf("%s: package %s is not in the import policy table", path, pkg)
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "encoding/json" && !jsonOK[pkg] {
				t.Errorf("%s: only lsp and report may import encoding/json", path)
			}
			if strings.HasPrefix(p, "go.lsp.dev") && pkg != "lsp" {
				t.Errorf("%s: only lsp may import %s", path, p)
			}
			if !strings.HasPrefix(p, module) {
				continue
			}
			dep := strings.TrimPrefix(p, module)
			if strings.HasPrefix(dep, "internal/") {
				continue
			}
			ok := false
			for _, r := range rules {
				if r == "*" || r == dep {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s: %s may not import %s", path, pkg, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
