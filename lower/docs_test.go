package lower

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var codeRE = regexp.MustCompile(`"((?:syntax|eval|dispatch|lower|harness|perf)/[a-z][a-z0-9-]*)"`)

// importPaths are quoted strings of the code's shape that are package paths.
var importPaths = map[string]bool{"dispatch/layout": true, "dispatch/cuda": true}

// TestDiagnosticCodesDocumented checks that every diagnostic code used in
// the sources has a row in docs/diagnostics.md.
func TestDiagnosticCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.Walk("..", func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && (strings.HasPrefix(info.Name(), ".") && path != ".." || info.Name() == "testdata" || info.Name() == "editors") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codeRE.FindAllStringSubmatch(string(src), -1) {
			code := m[1]
			if importPaths[code] {
				continue
			}
			found++
			if !strings.Contains(string(doc), "`"+code+"`") {
				t.Errorf("%s: code %s is not documented in docs/diagnostics.md", path, code)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Errorf("found only %d diagnostic codes in the sources; the scan is broken", found)
	}
}
