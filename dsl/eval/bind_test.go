package eval_test

import (
	"github.com/tilels/tilels/dsl/eval"

	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

const bindSrc = `from tvm.script import tirx as T


def make(n, dtype="float32"):
    @T.prim_func
    def k(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (n,), dtype)
        T.device_entry()
        T.thread_id([n])

    return k
`

// TestBindSetting checks Options.Bind: the setting of a factory nothing
// calls makes its case; a bad setting is reported at the def.
func TestBindSetting(t *testing.T) {
	cases := []struct {
		bind map[string]string
		want string // case strings, or the diagnostic
	}{
		{nil, "partial"},
		{map[string]string{"make": "n=64"}, "n=64, dtype='float32' (setting)"},
		{map[string]string{"make": `n=8, dtype="float16"`}, "n=8, dtype='float16' (setting)"},
		{map[string]string{"make": "m=8"}, "bind setting for `make`: `m` is not a parameter of `make`"},
		{map[string]string{"make": "n="}, "bind setting for `make`: unexpected ')'"},
		{map[string]string{"make": "n=UNDEFINED"}, "bind setting for `make`: name 'UNDEFINED' is not defined"},
	}
	for _, c := range cases {
		p, _ := evalSource("k.py", []byte(bindSrc), eval.Options{Bind: c.bind})
		var got []string
		for _, k := range p.Kernels {
			got = append(got, eval.CaseString(k.Case)+" ("+k.CaseSource+")")
			for _, b := range k.Case {
				if b.Name == "n" && b.Value.Span().IsValid() {
					t.Errorf("%v: setting value %s has a span", c.bind, eval.Repr(b.Value))
				}
			}
		}
		if len(p.Partial) > 0 {
			got = append(got, "partial")
		}
		for _, d := range p.Diags {
			if d.Code == eval.CodeDirective {
				got = append(got, d.Message)
				if n := strings.Count(d.Message, "bind setting for"); n != 1 {
					t.Errorf("bind %v: %q says where %d times", c.bind, d.Message, n)
				}
			}
		}
		if !strings.Contains(strings.Join(got, "; "), c.want) {
			t.Errorf("bind %v: got %q, want %q", c.bind, got, c.want)
		}
	}
}

// TestMaxCases checks the per-def cap with a module loop of calls.
func TestMaxCases(t *testing.T) {
	src := bindSrc + "\nKS = [make(n) for n in range(1, 11)]\n"
	for _, max := range []int{0, 3, 10} {
		p, _ := evalSource("k.py", []byte(src), eval.Options{MaxCases: max})
		want := max
		if max == 0 {
			want = 10
		}
		if len(p.Kernels) != want {
			t.Errorf("MaxCases %d: %d kernels", max, len(p.Kernels))
		}
		capped := false
		for _, d := range p.Diags {
			capped = capped || d.Code == eval.CodeCaseCap
		}
		if capped != (want < 10) {
			t.Errorf("MaxCases %d: cap reported %v\n%s", max, capped, eval.Dump(p))
		}
	}
}

func TestMergeCaseDiags(t *testing.T) {
	at := func(p int, msg string) diag.Diagnostic {
		return diag.Errorf(source.Span{Start: source.Pos(p), End: source.Pos(p + 1)}, "eval/type", "%s", msg)
	}
	groups := [][]diag.Diagnostic{
		{at(1, "shared"), at(2, "only a"), at(3, "a and b")},
		{at(1, "shared"), at(3, "a and b"), at(3, "a and b")},
		{at(1, "shared")},
	}
	got := eval.MergeCaseDiags(groups, []string{"n=1", "n=2", "n=3"})
	var msgs []string
	for _, d := range got {
		msgs = append(msgs, d.Message)
	}
	want := "shared|only a [case n=1]|a and b [case n=1] (and 1 more case)"
	if strings.Join(msgs, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(msgs, "|"), want)
	}
	if one := eval.MergeCaseDiags(groups[:1], []string{"x"}); len(one) != 3 || one[1].Message != "only a" {
		t.Errorf("one group must come back unchanged: %v", one)
	}
}
