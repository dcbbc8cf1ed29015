package lower

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// TestArchSafe checks the fast path of the arch check on every program
// under testdata/ at targets from sm_50 to sm_120a: a kernel that
// cuda.ArchSafe clears has nothing cuda.CheckArch reports and prints
// without an ArchError, and the fast path clears most kernels at sm_90a.
func TestArchSafe(t *testing.T) {
	var srcs []string
	goldens, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range goldens {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if src, ok := ar.Get("kernel.py"); ok {
			srcs = append(srcs, string(src))
		}
	}
	err := filepath.WalkDir("../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		srcs = append(srcs, string(readFile(t, p)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_50", "sm_75", "sm_80", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120a"} {
		safe, unsafe, found := 0, 0, 0
		for _, src := range srcs {
			res := Analyze(source.NewFile("kernel.py", []byte(src)), Options{Arch: arch})
			for _, k := range res.Kernels {
				if k.Lowered == nil {
					continue
				}
				in := []cuda.Kernel{{Func: k.Lowered, Launch: k.Launch}}
				errs, err := cuda.CheckArch(in, cuda.Options{Arch: arch})
				if err != nil {
					t.Fatal(err)
				}
				found += len(errs)
				if !cuda.ArchSafe(k.Lowered, arch) {
					unsafe++
					continue
				}
				safe++
				if len(errs) > 0 {
					t.Errorf("%s: kernel %s: ArchSafe, but CheckArch reports %v", arch, k.Name, errs[0])
				}
				var ae *cuda.ArchError
				if _, err := cuda.Print(in, cuda.Options{Arch: arch}); errors.As(err, &ae) {
					t.Errorf("%s: kernel %s: ArchSafe, but printing fails: %v", arch, k.Name, err)
				}
			}
		}
		t.Logf("%s: %d kernels cleared by ArchSafe, %d checked by printing, %d arch errors", arch, safe, unsafe, found)
		if arch == "sm_90a" && safe < 4*unsafe {
			t.Errorf("sm_90a: ArchSafe clears only %d of %d kernels", safe, safe+unsafe)
		}
		if arch == "sm_75" && found == 0 {
			t.Errorf("sm_75: no arch error in the whole corpus; the check finds nothing")
		}
	}
}
