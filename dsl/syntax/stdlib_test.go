package syntax

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

var stdlibOnce struct {
	sync.Once
	files []string
	err   error
}

// stdlibFiles lists the .py files of the installed CPython standard library
// (site-packages excluded), sorted. It skips the test without python3.
func stdlibFiles(t *testing.T) []string {
	t.Helper()
	python := python3(t)
	stdlibOnce.Do(func() {
		out, err := exec.Command(python, "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			stdlibOnce.err = err
			return
		}
		root := strings.TrimSpace(string(out))
		stdlibOnce.err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are not our concern
			}
			if d.IsDir() && (d.Name() == "site-packages" || d.Name() == "dist-packages") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".py") {
				stdlibOnce.files = append(stdlibOnce.files, path)
			}
			return nil
		})
		slices.Sort(stdlibOnce.files)
	})
	if stdlibOnce.err != nil {
		t.Fatal(stdlibOnce.err)
	}
	if len(stdlibOnce.files) == 0 {
		t.Skip("no standard library files found")
	}
	return stdlibOnce.files
}

// cpythonRejects returns the files that CPython itself cannot compile
// (py2 test data, deliberately bad files).
func cpythonRejects(t *testing.T, files []string) map[string]bool {
	t.Helper()
	script := `
import sys
for path in sys.stdin.read().splitlines():
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
    except Exception:
        print(path)
`
	cmd := exec.Command(python3(t), "-c", script)
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 compile check: %v", err)
	}
	bad := make(map[string]bool)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			bad[line] = true
		}
	}
	return bad
}

// TestStdlib parses every file of the standard library that CPython accepts
// and requires zero diagnostics and a deterministic result.
func TestStdlib(t *testing.T) {
	files := stdlibFiles(t)
	bad := cpythonRejects(t, files)
	t.Logf("%d files, %d rejected by CPython", len(files), len(bad))
	var total int
	for _, path := range files {
		if bad[path] {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		total += len(src)
		f, diags := Parse(source.NewFile(path, src))
		for i, d := range diags {
			if i == 3 {
				break
			}
			line, col := f.Src.Position(d.Span.Start)
			t.Errorf("%s:%d:%d: %s: %s", path, line, col, d.Code, d.Message)
		}
		if len(diags) == 0 && !testing.Short() {
			checkInvariants(t, path, f)
			again, _ := Parse(source.NewFile(path, src))
			if Dump(f) != Dump(again) {
				t.Errorf("%s: parse is not deterministic", path)
			}
		}
	}
	t.Logf("%d bytes parsed", total)
}
