package memory_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
)

func TestDebugGoldens(t *testing.T) {
	if os.Getenv("MEMDEBUG") == "" {
		return
	}
	paths, _ := filepath.Glob("../../lower/testdata/*.txtar")
	reasons := map[string]int{}
	known, unknown := 0, 0
	var slow []string
	for _, p := range paths {
		ar, _ := txtar.ParseFile(p)
		src, _ := ar.Get("kernel.py")
		res := lower.Analyze(source.NewFile("kernel.py", src), lower.Options{})
		for _, k := range res.Kernels {
			t0 := time.Now()
			m := k.Memory()
			if d := time.Since(t0); d > 5*time.Millisecond {
				slow = append(slow, filepath.Base(p)+" "+k.Name+" "+d.String())
			}
			for _, f := range m.Calls {
				if f.Unknown != "" {
					unknown++
					r := f.Unknown
					if i := strings.Index(r, "["); i > 0 {
						r = r[:i]
					}
					reasons[r]++
				} else {
					known++
				}
			}
		}
	}
	t.Logf("calls known %d unknown %d", known, unknown)
	var ks []string
	for r, n := range reasons {
		ks = append(ks, strings.Repeat(" ", 4-len(string(rune('0'+n%10))))+r+" x"+itoa(n))
	}
	sort.Strings(ks)
	for _, k := range ks {
		t.Log(k)
	}
	for _, s := range slow {
		t.Log("slow:", s)
	}
}

func itoa(n int) string {
	s := ""
	for n >= 10 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return string(rune('0'+n)) + s
}

func TestDebugOne(t *testing.T) {
	name := os.Getenv("MEMONE")
	if name == "" {
		return
	}
	var src []byte
	if strings.HasSuffix(name, ".py") {
		src, _ = os.ReadFile(name)
	} else {
		ar, _ := txtar.ParseFile("../../lower/testdata/" + name + ".txtar")
		src, _ = ar.Get("kernel.py")
	}
	res := lower.Analyze(source.NewFile("kernel.py", src), lower.Options{})
	t.Log("\n" + lower.ExplainMemory(res, lower.Options{}))
}
