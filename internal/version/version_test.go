package version

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// vscodeVersion is editors/vscode/src/server.ts parseVersion's pattern,
// applied (as there) to the trimmed output with the m flag.
var vscodeVersion = regexp.MustCompile(`(?m)^tilels (\d+)\.(\d+)\.(\d+)((?:[-+][0-9A-Za-z.+-]*)?)\s*$`)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want []string
	}{
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "ab02162"}, {Key: "vcs.time", Value: "2026-07-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"tilels " + Release, "module: github.com/tilels/tilels (devel)", "revision: ab02162+dirty (2026-07-01T10:00:00Z)", "profiles: apache-tvm 0.25.0.post1, 0.26.0, 0.27.0.post1", "go: go1.26.8"}},
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "ab02162"}, {Key: "vcs.modified", Value: "false"}}},
			[]string{"tilels " + Release, "module: github.com/tilels/tilels v0.2.0", "revision: ab02162", "profiles: apache-tvm 0.25.0.post1, 0.26.0, 0.27.0.post1", "go: go1.26.8"}},
		{debug.BuildInfo{}, []string{"tilels " + Release, "profiles: apache-tvm 0.25.0.post1, 0.26.0, 0.27.0.post1"}},
	} {
		got := Text(fromInfo(&tc.bi), "")
		if want := strings.Join(tc.want, "\n") + "\n"; got != want {
			t.Errorf("Text:\n%s\nwant:\n%s", got, want)
		}
		m := vscodeVersion.FindStringSubmatch(strings.TrimSpace(got))
		if m == nil || m[1]+"."+m[2]+"."+m[3]+m[4] != Release {
			t.Errorf("the VS Code extension does not read version %s from %q (got %v)", Release, got, m)
		}
	}
}
