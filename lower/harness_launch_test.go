package lower

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// A kernel that arrives on another CTA's barrier through T.ptx.mapa in a
// grid without clusters cannot be launched (on an H200 the launch failed:
// unspecified launch failure): the harness refuses it. A mapa whose
// address nothing uses is no fault: user_ldst's kernel is launched and
// checked (the mapa's register is undefined to the reference).
func TestHarnessClusterMaps(t *testing.T) {
	load := func(name string) *Result {
		ar, err := txtar.ParseFile("testdata/" + name + ".txtar")
		if err != nil {
			t.Fatal(err)
		}
		src, _ := ar.Get("kernel.py")
		return Analyze(source.NewFile("kernel.py", src), Options{})
	}
	res := load("tile_views_remote_027")
	_, _, err := Harness(res.File, res.Kernels, Options{})
	var u *harness.Unsupported
	if !errors.As(err, &u) || !u.Launch || !strings.Contains(u.Msg, "launched without a cluster") {
		t.Errorf("tile_views_remote_027: got %v, want the launch refused (no cluster)", err)
	}
	res = load("user_ldst")
	cu, unchecked, err := Harness(res.File, res.Kernels, Options{})
	if err != nil || len(unchecked) != 0 || !strings.Contains(cu, "ldst_launch(") {
		t.Errorf("user_ldst: got err %v, unchecked %v; want it launched and checked", err, unchecked)
	}
}
