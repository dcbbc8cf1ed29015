package coverage

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TestEverySiteShown checks the rule of issue 15 over the corpus (-dir)
// or the bundled examples: every tile call of every file ends in one
// outcome of lower.Result.Sites, shown at the call (a record holds it or
// a diagnostic lies inside it), and the sites are the ones this package
// counts.
//
//	go test ./internal/coverage -run TestEverySiteShown -v -dir /path/to/corpus
func TestEverySiteShown(t *testing.T) {
	root := *dir
	if root == "" {
		root = "../../testdata/examples"
	}
	var opts lower.Options
	kinds := map[lower.SiteKind]int{}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		name, _ := filepath.Rel(root, path)
		fopts := opts
		fopts.Path = path // imports resolve under its package root
		res := lower.Analyze(source.NewFile(name, src), fopts)
		sites := res.Sites()
		if n := len(txSites(res.Syntax)); len(sites) != n {
			t.Errorf("%s: %d sites, this package counts %d", name, len(sites), n)
		}
		for _, s := range sites {
			kinds[s.Kind]++
			if *details && (s.Kind == lower.SiteBlocked || s.Kind == lower.SiteNotReached) {
				line, _ := res.File.Position(s.Span.Start)
				t.Logf("%s:%d: %s: %s", name, line, s.Kind, s.Message)
			}
			if !res.Shown(s) {
				line, _ := res.File.Position(s.Span.Start)
				t.Errorf("%s:%d: %s (%s) is shown nowhere", name, line, s.Kind, s.Message)
			}
			if s.Kind != lower.SiteVariant && s.Message == "" {
				line, _ := res.File.Position(s.Span.Start)
				t.Errorf("%s:%d: %s without a message", name, line, s.Kind)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no .py file under %s", root)
	}
	t.Logf("%d files: %v", files, kinds)
}
