package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"strings"
	"testing"
)

// driveOrderSrc has a grid whose cases are expensive, then a test and a
// CONFIGS list after it.
const driveOrderSrc = `import pytest
from tvm.script import tirx as T


def make(n):
    @T.prim_func
    def k(A: T.Buffer((n,), "float32")):
        T.device_entry()
        T.thread_id([n])

    return k


@pytest.mark.parametrize("n", list(range(1, 41)))
def test_big(n):
    s = 0
    for i in range(3000):
        s += i
    make(n)


def test_small():
    make(64)


CONFIGS = [{"n": 128, "label": "c128"}]


def get_kernel(n):
    return make(n)
`

// TestDriveFirstCasesFirst checks that the first case of every binding
// source runs before the other cases of any: a grid that uses up the
// file's case budget leaves the later test and CONFIGS analysed, and the
// budget note is reported.
func TestDriveFirstCasesFirst(t *testing.T) {
	p, _ := evalSource("t.py", []byte(driveOrderSrc), eval.Options{MaxSteps: 20000})
	var got []string
	for _, k := range p.Kernels {
		got = append(got, eval.CaseString(k.Case)+" ("+k.CaseSource+" "+k.CaseID+")")
	}
	all := strings.Join(got, "; ")
	for _, want := range []string{"n=1 (pytest 1)", "n=64 (test )", "n=128 (configs c128)"} {
		if !strings.Contains(all, want) {
			t.Errorf("no case %q in %s", want, all)
		}
	}
	if len(got) >= 42 {
		t.Errorf("every case ran (%d); the budget should have stopped some", len(got))
	}
	// Records of one def are in evaluation order: the first cases in
	// source order (test_big's n=1, test_small, CONFIGS), then the grid.
	if len(got) < 4 || got[1] != "n=64 (test )" || got[2] != "n=128 (configs c128)" || !strings.HasPrefix(got[3], "n=2 ") {
		t.Errorf("evaluation order: %s", all)
	}
	noted := false
	for _, d := range p.Diags {
		noted = noted || d.Code == eval.CodeCaseCap && strings.Contains(d.Message, "bound cases stopped")
	}
	if !noted {
		t.Errorf("no budget note:\n%s", eval.Dump(p))
	}
}
