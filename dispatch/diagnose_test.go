package dispatch

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// oneCallFunc is a kernel of 128 threads (one CTA) whose body is a
// cta-scope copy from a global to a shared buffer with the given scopes.
func oneCallFunc(dstScope string, forced string) (*ir.Func, *ir.TileCall) {
	g := &ir.Buffer{Name: "A", Scope: "global", Dtype: ir.Float32, Shape: []int64{128}, Layout: layout.RowMajor(128)}
	s := &ir.Buffer{Name: "A_s", Scope: dstScope, Dtype: ir.Float32, Shape: []int64{128}, Layout: layout.RowMajor(128)}
	full := func(b *ir.Buffer) *ir.Region {
		return &ir.Region{Buf: b, Min: []ir.Expr{ir.Const(0)}, Extent: []ir.Expr{ir.Const(128)}}
	}
	tc := &ir.TileCall{Op: "copy", Scope: "cta", Args: []ir.Expr{full(s), full(g)}, Dispatch: forced,
		Span: source.Span{Start: 100, End: 140}, OpSpan: source.Span{Start: 100, End: 111}}
	tx := &ir.Var{Name: "tx", Type: ir.Int32}
	body := &ir.Block{Stmts: []ir.Stmt{
		&ir.ScopeID{Kind: ir.ThreadID, Vars: []*ir.Var{tx}, Extents: []int64{128}, Span: source.Span{Start: 10, End: 20}},
		&ir.Alloc{Buf: s, Span: source.Span{Start: 30, End: 40}},
		tc,
	}}
	fn := &ir.Func{Name: "k", Params: []*ir.Param{{Buf: g}}, Host: &ir.Block{}, Body: body, Span: source.Span{Start: 0, End: 200}}
	return fn, tc
}

func codes(ds []diag.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Severity.String()+" "+d.Code+": "+d.Message)
	}
	return strings.Join(out, "\n")
}

// TestDiagnoseFallbackForced: a forced fallback warns with the reference's
// own text (copy/fallback.py warns whenever it is picked).
func TestDiagnoseFallbackForced(t *testing.T) {
	fn, _ := oneCallFunc("shared.dyn", "fallback")
	vs := []Variant{
		{Op: "copy", Name: "fast", Priority: 10, When: []Pred{{"fast_applicable", pass}}, Emit: ok},
		{Op: "copy", Name: "fallback", Priority: 0, Emit: ok},
	}
	out := Lower(fn, DefaultTarget(), vs)
	got := codes(out.Diags)
	want := "warning dispatch/fallback: copy/fallback (scalar single-thread) picked for global -> shared.dyn at scope_kind=cta; all faster variants rejected."
	if got != want {
		t.Errorf("diagnostics:\n%s\nwant\n%s", got, want)
	}
}

// TestDiagnoseNotModelled: when nothing applies because a variant met a
// limitation of tilels (its own decline, or a Go panic), the call gets a
// warning that says so, not an error that calls the program wrong; a
// plain reference rejection stays an error.
func TestDiagnoseNotModelled(t *testing.T) {
	for _, c := range []struct {
		name string
		emit func(*Call) (*Result, *Decline)
		want string
	}{
		{"own decline", func(c *Call) (*Result, *Decline) {
			return nil, c.Decline(source.NoSpan, "tilels does not lower this shape yet")
		}, "warning dispatch/not-modelled: tilels cannot decide this copy call (not modelled): fast: tilels does not lower this shape yet"},
		{"panic", func(c *Call) (*Result, *Decline) {
			var xs []int
			_ = xs[3]
			return nil, nil
		}, "warning dispatch/not-modelled: tilels cannot decide this copy call (not modelled): fast: RuntimeError: runtime error: index out of range [3] with length 0"},
		{"reference rejection", func(c *Call) (*Result, *Decline) {
			return nil, c.Decline(source.NoSpan, "region size 100 not divisible by thread_cnt=128")
		}, "error dispatch/no-variant: no variant of copy applies: fast: region size 100 not divisible by thread_cnt=128"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fn, _ := oneCallFunc("shared.dyn", "")
			out := Lower(fn, DefaultTarget(), []Variant{{Op: "copy", Name: "fast", Priority: 10, Emit: c.emit}})
			if got := codes(out.Diags); got != c.want {
				t.Errorf("diagnostics:\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestForeignTarget: a kernel with a Trainium buffer is not dispatched as
// CUDA; ForeignTarget names the buffer.
func TestForeignTarget(t *testing.T) {
	fn, _ := oneCallFunc("trn.sbuf", "")
	kind, why, _ := ForeignTarget(fn)
	if kind != "trn" || why != "buffer A_s has scope trn.sbuf" {
		t.Errorf("ForeignTarget = %q, %q", kind, why)
	}
	out := Lower(fn, DefaultTarget(), []Variant{{Op: "copy", Name: "fast", Priority: 10, Emit: ok}})
	if out.Foreign != "trn" || len(out.Decisions) != 0 || out.Func != nil {
		t.Errorf("Lower of a trn kernel: Foreign %q, %d decisions, Func %v", out.Foreign, len(out.Decisions), out.Func != nil)
	}
	fn, _ = oneCallFunc("shared.dyn", "")
	if kind, _, _ := ForeignTarget(fn); kind != "" {
		t.Errorf("a CUDA kernel is foreign: %q", kind)
	}
	fn.Params[0].Buf.Layout = layout.NewTile([]layout.Iter{layout.It(128, 1, layout.P)}, nil, nil)
	if kind, why, _ := ForeignTarget(fn); kind != "trn" || why != "buffer A is laid out over the Trainium axis P" {
		t.Errorf("P-axis layout: %q, %q", kind, why)
	}
}
