// Package version holds what a tilels binary says about itself: the
// release (editors check it, the --emit json document carries it), the
// reference release of apache-tvm whose dispatcher it models, and the
// build's module version and VCS revision.
package version

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/tilels/tilels/release"
)

// Release is the tilels release. editors/vscode reads it from the first
// line of `tilels --version` ("tilels 0.3.0") and checks it against its
// MIN_VERSION. It is the newest version of CHANGELOG.md and the tag
// vRelease releases it (TestReleaseMatchesChangelog); scripts/release
// stamps the version it builds over it (-ldflags -X), so a variable.
var Release = "0.3.0"

// Profiles are the apache-tvm releases (on PyPI) whose TIRx dispatchers
// tilels models, oldest first: the ones scripts/agreement compares against
// (docs/reference-agreement.md).
var Profiles = func() string {
	var out []string
	for _, r := range release.All {
		out = append(out, r.String())
	}
	return strings.Join(out, ", ")
}()

// Build describes the binary from its build information.
type Build struct {
	// Module is the main module's version: "(devel)" for a build in a
	// checkout, "v0.3.0" for `go install ...@v0.3.0`, "" when unknown.
	Module string
	// Revision is the VCS commit the binary was built from ("" when the
	// build has none: go run, go test, a build outside a checkout), with
	// "+dirty" when the work tree had local changes. Time is the commit
	// time.
	Revision, Time string
	// Go is the toolchain that built the binary.
	Go string
}

// Read returns the running binary's build information.
func Read() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{}
	}
	return fromInfo(bi)
}

func fromInfo(bi *debug.BuildInfo) Build {
	b := Build{Module: bi.Main.Version, Go: bi.GoVersion}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if b.Revision != "" && dirty {
		b.Revision += "+dirty"
	}
	return b
}

// Text is the --version output: "tilels <Release>" alone on the first
// line, then one "key: value" line each for the module version, the
// revision (when known), the reference and the Go version.
// Text is the --version text; inUse (when not "") is the line saying which
// profile an analysis started here would use and why.
func Text(b Build, inUse string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "tilels %s\n", Release)
	if b.Module != "" {
		fmt.Fprintf(&s, "module: github.com/tilels/tilels %s\n", b.Module)
	}
	if b.Revision != "" {
		rev := b.Revision
		if b.Time != "" {
			rev += " (" + b.Time + ")"
		}
		fmt.Fprintf(&s, "revision: %s\n", rev)
	}
	if inUse != "" {
		fmt.Fprintf(&s, "reference: %s\n", inUse)
	}
	fmt.Fprintf(&s, "profiles: apache-tvm %s\n", Profiles)
	if b.Go != "" {
		fmt.Fprintf(&s, "go: %s\n", b.Go)
	}
	return s.String()
}
