package version

import (
	"os"
	"regexp"
	"testing"
)

// TestVSCodeVersionMatchesRelease checks that the VS Code extension's
// package.json (and its package-lock.json) carry Release, so the
// extension a user installs says the same version as the server beside
// it. The version is read with a pattern: only lsp/ and report/ import
// encoding/json.
func TestVSCodeVersionMatchesRelease(t *testing.T) {
	top := regexp.MustCompile(`(?m)^  "version": "([^"]*)"`)
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile("../../editors/vscode/" + name)
		if err != nil {
			t.Fatal(err)
		}
		m := top.FindSubmatch(data)
		if m == nil {
			t.Fatalf("editors/vscode/%s has no top-level \"version\"", name)
		}
		if got := string(m[1]); got != Release {
			t.Errorf("editors/vscode/%s version %q, want internal/version.Release %q", name, got, Release)
		}
	}
}
