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
	implicit := "from tvm.script import tirx as T\n\n\nLINES@T.prim_func\ndef k(A_ptr: T.handle, n: T.int32, f: T.float32):\n    m = T.int32()\n" +
		strings.Replace(body, "(128, 32)", "(m, 32)", 1)
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
			"[n=4, A_ptr=3] launch [n=4]; a launch value binds an integer scalar parameter, or an integer buffer parameter to a list of integers: `A_ptr` is T.handle"},
		{"a float", prim, "# tilels: bind f=1.5\n", nil,
			"[f=1.5] launch []; a launch value binds an integer scalar parameter to an integer: `f` is float32, given 1.5"},
		{"jit", jit, "# tilels: bind n=4\n", nil, "[B=1, n=4] launch [n=4]; [B=2, n=4] launch [n=4]"},
		// a scalar the body declares as a buffer's runtime extent
		{"implicit", implicit, "# tilels: bind m=64\n", nil, "[m=64] launch [m=64]"},
		{"implicit and a parameter", implicit, "# tilels: bind m=64, n=2\n", nil, "[m=64, n=2] launch [n=2, m=64]"},
		{"implicit float", implicit, "# tilels: bind m=1.5\n", nil,
			"[m=1.5] launch []; a launch value binds an integer scalar to an integer: `m` is int32, given 1.5"},
		{"not declared", implicit, "# tilels: bind q=3\n", nil, "[] launch []; `q` is not a parameter of `k`"},
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

// TestLaunchData: a bind line's list of integers above a @T.prim_func is
// an integer buffer parameter's contents for the launch counted
// (ir.Func.LaunchData: a varlen kernel's sequence offsets); a float
// buffer, a value that is no list of integers, or more elements than the
// buffer holds are eval/directive errors.
func TestLaunchData(t *testing.T) {
	const handleSrc = `from tvm.script import tirx as T


LINES@T.prim_func
def k(cu_h: T.handle, raw_h: T.handle, w: T.Buffer((4,), "float32")):
    cu = T.match_buffer(cu_h, (3,), "int32")
    T.device_entry()
    tid = T.thread_id([32])
    w[tid % 3] = T.float32(cu[tid % 3])
`
	const src = `from tvm.script import tirx as T


LINES@T.prim_func
def k(offs: T.Buffer((4,), "int32"), w: T.Buffer((4,), "float32")):
    T.device_entry()
    tid = T.thread_id([32])
    w[tid % 4] = T.float32(offs[tid % 4])
`
	for _, tc := range []struct{ name, line, want string }{
		{"a list", "# tilels: bind offs=[0, 3, 7, 12]\n", "data [offs=[0 3 7 12]]"},
		{"a tuple, shorter", "# tilels: bind offs=(0, 5)\n", "data [offs=[0 5]]"},
		{"a float buffer", "# tilels: bind w=[1, 2]\n", "data []; a launch value binds an integer buffer parameter to a list of integers: `w` holds float32"},
		{"no list", "# tilels: bind offs=3\n", "data []; a launch value binds an integer buffer parameter to a list of integers: `offs` is given 3"},
		{"a float element", "# tilels: bind offs=[0, 1.5]\n", "data []; a launch value binds an integer buffer parameter to a list of integers: `offs` is given 1.5 at index 1"},
		{"too long", "# tilels: bind offs=[0, 1, 2, 3, 4]\n", "data []; a launch value binds an integer buffer parameter to a list of integers: `offs` has 4 elements, given 5"},
		// a T.handle parameter: the contents of the buffer T.match_buffer
		// binds it to (gdn_prefill_sm100.py's cu_seqlens_h)
		{"a handle", "# tilels: bind cu_h=[0, 4, 8]\n", "data [cu=[0 4 8]]"},
		{"a handle of floats", "# tilels: bind cu_h=[0, 4, 8]\nFLOAT", "data []; a launch value binds an integer buffer parameter to a list of integers: `cu_h` holds float32"},
		{"an unmatched handle", "# tilels: bind raw_h=[1]\n", "data []; a bind line gives `raw_h` a list, but no T.match_buffer binds it to a buffer whose contents the list could be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := src
			if strings.HasPrefix(tc.name, "a handle") || strings.HasPrefix(tc.name, "an unmatched") {
				text = handleSrc
			}
			line := tc.line
			if strings.Contains(line, "FLOAT") {
				line = strings.Replace(line, "FLOAT", "", 1)
				text = strings.Replace(text, `(3,), "int32"`, `(3,), "float32"`, 1)
			}
			p, _ := evalSource("k.py", []byte(strings.Replace(text, "LINES", line, 1)), eval.Options{})
			var got []string
			for _, k := range p.Kernels {
				var data []string
				for _, d := range k.Func.LaunchData {
					data = append(data, fmt.Sprintf("%s=%v", d.Buf.Name, d.Values))
				}
				got = append(got, "data ["+strings.Join(data, ", ")+"]")
				for _, d := range k.Diags {
					if d.Code == eval.CodeDirective {
						got = append(got, d.Message)
					}
				}
			}
			for _, d := range p.Diags {
				if d.Code == eval.CodeDirective && !strings.Contains(strings.Join(got, "; "), d.Message) {
					got = append(got, d.Message)
				}
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}
