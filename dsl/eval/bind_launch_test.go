package eval_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/eval"
)

// TestLaunchValues: bind lines above a @T.prim_func (or a @T.jit kernel)
// give its integer scalar parameters the values of a launch: one case per
// line, whose code keeps the parameter (ir.Func.LaunchArgs); a line
// binding a buffer handle or a float parameter is an eval/directive error.
func TestLaunchValues(t *testing.T) {
	const body = `    A = T.match_buffer(A_ptr, (128, 32), "float32")
    T.device_entry()
    bx = T.cta_id([n])
    tid = T.thread_id([32])
    A[bx, tid] = f
`
	prim := "from tvm.script import tirx as T\n\n\nLINES@T.prim_func\ndef k(A_ptr: T.handle, n: T.int32, f: T.float32):\n" + body
	jit := "from tvm.script import tirx as T\n\n\nLINES@T.jit\ndef k(A_ptr: T.handle, n: T.int32, f: T.float32, B: T.constexpr):\n" + body +
		"\n\nk1 = k.specialize(B=1)\nk2 = k.specialize(B=2)\n"
	for _, tc := range []struct {
		name, src, lines string
		bind             map[string]string
		want             string // per record: case and launch values; then directive errors
	}{
		{"no line", prim, "", nil, "[] launch []"},
		{"one line", prim, "# tilels: bind n=4\n", nil, "[n=4] launch [n=4]"},
		{"two lines", prim, "# tilels: bind n=4\n# tilels: bind n=8\n", nil, "[n=4] launch [n=4]; [n=8] launch [n=8]"},
		{"a setting", prim, "", map[string]string{"k": "n=16"}, "[n=16] launch [n=16]"},
		{"a handle", prim, "# tilels: bind n=4, A_ptr=3\n", nil,
			"[n=4, A_ptr=3] launch [n=4]; a launch value binds an integer scalar parameter: `A_ptr` is T.handle"},
		{"a float", prim, "# tilels: bind f=1.5\n", nil,
			"[f=1.5] launch []; a launch value binds an integer scalar parameter to an integer: `f` is float32, given 1.5"},
		{"jit", jit, "# tilels: bind n=4\n", nil, "[B=1, n=4] launch [n=4]; [B=2, n=4] launch [n=4]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(tc.src, "LINES", tc.lines, 1)
			p, _ := evalSource("k.py", []byte(src), eval.Options{Bind: tc.bind})
			var got []string
			for _, k := range p.Kernels {
				var args []string
				for _, a := range k.Func.LaunchArgs {
					args = append(args, fmt.Sprintf("%s=%d", a.Var.Name, a.Value))
				}
				got = append(got, "["+eval.CaseString(k.Case)+"] launch ["+strings.Join(args, ", ")+"]")
			}
			for _, d := range p.Diags {
				if d.Code == eval.CodeDirective {
					got = append(got, d.Message)
				}
			}
			for _, k := range p.Kernels {
				for _, d := range k.Diags {
					if d.Code == eval.CodeDirective && !strings.Contains(strings.Join(got, "; "), d.Message) {
						got = append(got, d.Message)
					}
				}
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}
