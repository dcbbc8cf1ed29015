package version

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestReleaseMatchesChangelog checks that Release is a semantic version
// and the newest versioned section of CHANGELOG.md, so the tag vRelease releases
// what the changelog describes (scripts/release refuses otherwise).
func TestReleaseMatchesChangelog(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Release) {
		t.Fatalf("Release %q is not X.Y.Z", Release)
	}
	data, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	// The newest versioned section; changes on main since that release
	// may stand above it under [Unreleased] (keep-a-changelog).
	var m []string
	for _, s := range regexp.MustCompile(`(?m)^## \[([^\]]+)\]`).FindAllStringSubmatch(string(data), -1) {
		if s[1] != "Unreleased" {
			m = s
			break
		}
	}
	if m == nil || m[1] != Release {
		t.Fatalf("the newest versioned section of CHANGELOG.md is %q, want [%s]", m, Release)
	}
}

// TestReleaseScriptDryRun runs scripts/release --dry-run: every target
// is built without cgo, with -trimpath and the version stamped, into an
// archive with its checksum, and the .vsix is packaged; a bad version or
// target stops it.
func TestReleaseScriptDryRun(t *testing.T) {
	out, err := exec.Command("bash", "../../scripts/release", "--dry-run").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/release --dry-run: %v\n%s", err, out)
	}
	text := string(out)
	for _, target := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"} {
		goos, arch, _ := strings.Cut(target, "/")
		build := "+ env CGO_ENABLED=0 GOOS=" + goos + " GOARCH=" + arch + ` go build -trimpath -ldflags -s\ -w\ -X\ github.com/tilels/tilels/internal/version.Release=` + Release
		if !strings.Contains(text, build) {
			t.Errorf("no %q in:\n%s", build, text)
		}
		if archive := "dist/tilels-" + Release + "-" + goos + "-" + arch + ".tar.gz"; !strings.Contains(text, archive) {
			t.Errorf("no archive %s in:\n%s", archive, text)
		}
	}
	for _, want := range []string{"vsix from a copy of editors/vscode (version " + Release, "sha256sum * > SHA256SUMS"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	for _, bad := range [][]string{{"--version", "1.x"}, {"--targets", "windows/amd64"}, {"--frobnicate"}} {
		args := append([]string{"../../scripts/release", "--dry-run"}, bad...)
		if out, err := exec.Command("bash", args...).CombinedOutput(); err == nil {
			t.Errorf("scripts/release %v succeeded:\n%s", bad, out)
		}
	}
}
