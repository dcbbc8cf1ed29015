package tirxlib_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/dsl/tirxlib"
	"github.com/tilels/tilels/release"
)

// iketKernel writes IKET annotations a regular compilation strips, next
// to a branch the kernel leaves empty itself and Python misuses of the
// methods (lower/testdata/iket_strip.txtar and iket_checks.txtar hold the
// checks LowerIket makes and what the kernels lower to).
const iketKernel = `# tilels: reference=0.27
from tvm.script import tirx as T
from tvm.tirx.cuda.iket import IketProfiler

iket = IketProfiler()
iket.mark("host")

@T.prim_func
def k(n: T.int32, out: T.Buffer((32,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    iket.mark()
    iket.range_pop(1)
    iket.mark("a", payload=tx, extra=1)
    if tx < 4:
        pass
    if tx < 8:
        iket.mark("only")
    for i in T.serial(n):
        t = iket.range_start("loop")
        iket.range_end(t)
    out[tx] = tx
`

// TestIketStripped: the annotations emit nothing, a branch or loop they
// alone filled is not emitted, the kernel's own empty branch stays, and
// Python's argument errors are reported.
func TestIketStripped(t *testing.T) {
	got := evaluate(t, iketKernel, tirxlib.Library())
	for _, want := range []string{
		"if tx < 4:",
		"out[tx] = tx",
		"6:1 error[eval/type] IketProfiler.mark() is only allowed inside a prim_func body",
		"12:5 error[eval/type] mark() missing required argument 'name'",
		"13:5 error[eval/type] range_pop() takes at most 0 positional arguments (1 given)",
		"14:32 error[eval/type] mark() got an unexpected keyword argument 'extra'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	for _, not := range []string{"iket", "tx < 8", "for ", "eval/unresolved", "loop"} {
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, not) && !strings.Contains(line, "error[") && !strings.Contains(line, "other-release") {
				t.Errorf("%q left in the kernel: %s", not, line)
			}
		}
	}
}

// TestIketReleases: the module and the T.cuda.iket intrinsics are 0.26's
// and 0.27's; a file pinned to 0.25 is told so.
func TestIketReleases(t *testing.T) {
	src := strings.Replace(iketKernel, "reference=0.27", "reference=0.25", 1)
	src += "\n@T.prim_func\ndef j(out: T.Buffer((32,), \"int32\")):\n    T.device_entry()\n    tx = T.thread_id([32])\n    T.cuda.iket.mark(\"x\")\n    out[tx] = tx\n"
	f, _ := syntax.Parse(source.NewFile("k.py", []byte(src)))
	got := eval.Dump(eval.Evaluate(f, eval.Options{Library: tirxlib.Library(), Release: release.R025}))
	for _, want := range []string{
		"3:6 warning[eval/other-release] `tvm.tirx.cuda.iket` is 0.26's and 0.27's",
		"warning[eval/other-release] `T.cuda.iket.mark` is 0.26's and 0.27's",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
