// Package version holds what a tilels binary says about itself: the
// release (editors check it, the --emit json document carries it), the
// reference release of apache-tvm whose dispatcher it models, and the
// build's module version and VCS revision.
package version

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Release is the tilels release. editors/vscode reads it from the first
// line of `tilels --version` ("tilels 0.2.0") and checks it against its
// MIN_VERSION.
const Release = "0.2.0"

// Reference is the apache-tvm release (on PyPI) whose TIRx dispatcher
// tilels models: the one scripts/agreement compares against
// (docs/reference-agreement.md).
const Reference = "0.25.0.post1"

// Build describes the binary from its build information.
type Build struct {
	// Module is the main module's version: "(devel)" for a build in a
	// checkout, "v0.2.0" for `go install ...@v0.2.0`, "" when unknown.
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
func Text(b Build) string {
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
	fmt.Fprintf(&s, "reference: apache-tvm %s\n", Reference)
	if b.Go != "" {
		fmt.Fprintf(&s, "go: %s\n", b.Go)
	}
	return s.String()
}
