package assist

import (
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/release"
)

// TestSignatureData checks the committed data (signatures_gen.go, made by
// scripts/gen-signatures from the wheels) against what tilels knows of
// the reference: one entry per name and release, the scope namespaces of
// every release, an entry with a dispatch= parameter for every op the
// dispatcher registers a CUDA variant for in that release.
func TestSignatureData(t *testing.T) {
	seen := map[key]bool{}
	for _, e := range signatures {
		if e.Releases == 0 {
			t.Errorf("%s.%s: no release", e.NS, e.Name)
		}
		for _, r := range release.All {
			if !e.Releases.Has(r) {
				continue
			}
			k := key{r, e.NS, e.Name}
			if seen[k] {
				t.Errorf("%s.%s: two entries for %s", e.NS, e.Name, r.Short())
			}
			seen[k] = true
		}
		names := map[string]bool{}
		for _, p := range e.Params {
			if names[p.Name] || p.Name == "" {
				t.Errorf("%s.%s: parameter %q twice or empty", e.NS, e.Name, p.Name)
			}
			names[p.Name] = true
		}
		if e.Kind == "op" && !names["dispatch"] && hasCUDAVariant(e) {
			t.Errorf("Tx.%s (%s): no dispatch parameter", e.Name, e.Releases)
		}
		if e.Kind == "op" && names["scope"] {
			t.Errorf("Tx.%s (%s): the scope parameter is bound by the namespace, not written", e.Name, e.Releases)
		}
	}
	for _, r := range release.All {
		for _, s := range []string{"thread", "warp", "warpgroup", "wg", "cta", "cluster"} {
			if e := Lookup(r, "Tx", s); e == nil || e.Kind != "scope" {
				t.Errorf("%s: no scope Tx.%s", r.Short(), s)
			}
		}
		for _, v := range lower.Variants() {
			if v.Releases.Has(r) && Lookup(r, "Tx", v.Op) == nil && v.Op != "compose_op" {
				t.Errorf("%s: variant %s of %s is registered but Tx.%s has no signature", r.Short(), v.Name, v.Op, v.Op)
			}
		}
		for _, n := range []string{"alloc_buffer", "thread_id", "match_buffer", "TileLayout", "laneid", "S"} {
			if Lookup(r, "T", n) == nil && Lookup(r, "layout", n) == nil {
				t.Errorf("%s: no entry %s", r.Short(), n)
			}
		}
	}
	// A difference between releases is data: SwizzleLayout is 0.25's only.
	if Lookup(release.R025, "layout", "SwizzleLayout") == nil || Lookup(release.R027, "layout", "SwizzleLayout") != nil {
		t.Errorf("SwizzleLayout: want 0.25 only")
	}
}

// TestContexts checks what Complete and Signature find at the | of each
// snippet (no analysis: the dispatch= variants are scenario tests).
func TestContexts(t *testing.T) {
	const head = "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\nfrom tvm.tirx import layout as L\n"
	for _, tc := range []struct {
		src  string
		want string // completion: some labels ("!label": not offered), "-" none; signature: "sig:LABEL|ACTIVE"
	}{
		{"def f():\n    Tx.|", "warp cta wg copy copy_async gemm"},
		{"def f():\n    Tx.warp.c|", "copy copy_async cast"},
		{"def f():\n    Tx.nope.|", "-"},
		{"def f():\n    T.|", "alloc_buffer thread_id TileLayout S"},
		{"A = L.|", "TileLayout laneid tid_in_wg"},
		{"A = T.TileLayout(S[(8, 4) : (4 @ |", "laneid warpid"},
		{"def f():\n    Tx.copy(A, B, dispatch=\"|\")", ""}, // variants: not analysed
		{"def f():\n    T.alloc_buffer((8,), \"float32\", scope=\"sh|\")", "shared shared.dyn tmem"},
		{"def f():\n    x = \"Tx.|\"", "-"},
		{"def f():\n    Tx.warp.copy(A, B, disp|)", "dispatch= workspace="},
		{"def f():\n    Tx.gemm(D, A, B, C, |)", "transpose_A= alpha= dispatch="},
		{"def f():\n    g(A, |)", "-"},
		{"def f():\n    Tx.copy(A, B, dispatch=\"fallback\", |)", "workspace= !dispatch= !src= !dst="},
		{"def f():\n    # Tx.|", "-"},
		{"def f():\n    Tx.copy(A[0:8],\n            B|", "sig:Tx.copy(dst, src, workspace=None, dispatch=None, **kwargs)|src"},
		{"def f():\n    Tx.warp.copy(A, B, dispatch=|", "sig:Tx.warp.copy(dst, src, workspace=None, dispatch=None, **kwargs)|dispatch"},
		{"def f():\n    Tx.copy(A, B, foo=|", "sig:Tx.copy(dst, src, workspace=None, dispatch=None, **kwargs)|**kwargs"},
		{"def f():\n    T.thread_id(|", "sig:T.thread_id(extents=None, dtype='int32')|extents"},
		{"def f():\n    Tx.gemm(D, A, B, C, f(x, |", "sig:Tx.gemm(D, A, B, C, transpose_A=False, transpose_B=False, alpha=1.0, beta=0.0, workspace=None, dispatch=None, **kwargs)|transpose_A"},
	} {
		i := strings.IndexByte(tc.src, '|')
		src := []byte(head + tc.src[:i] + tc.src[i+1:])
		off := len(head) + i
		env := Env{Release: release.R027}
		if sig, ok := strings.CutPrefix(tc.want, "sig:"); ok {
			label, active, _ := strings.Cut(sig, "|")
			h := Signature(src, off, env)
			if h == nil {
				t.Errorf("%q: no signature help", tc.src)
				continue
			}
			got := ""
			if h.Active >= 0 {
				p := h.Params[h.Active]
				got = h.Label[p.Start:p.End]
				got, _, _ = strings.Cut(got, "=")
			}
			if h.Label != label || got != active {
				t.Errorf("%q: signature %q active %q, want %q %q", tc.src, h.Label, got, label, active)
			}
			continue
		}
		l := Complete(src, off, env)
		if tc.want == "-" {
			if l != nil && len(l.Items) > 0 {
				t.Errorf("%q: unexpected items %d", tc.src, len(l.Items))
			}
			continue
		}
		if l == nil {
			t.Errorf("%q: no completion", tc.src)
			continue
		}
		var labels []string
		for _, it := range l.Items {
			labels = append(labels, it.Label)
		}
		for _, w := range strings.Fields(tc.want) {
			if not, ok := strings.CutPrefix(w, "!"); ok {
				if slices.Contains(labels, not) {
					t.Errorf("%q: %q offered", tc.src, not)
				}
				continue
			}
			if !slices.Contains(labels, w) {
				t.Errorf("%q: %q missing from %q", tc.src, w, labels)
			}
		}
	}
}

// hasCUDAVariant reports whether the dispatcher registers a CUDA variant
// for the op in one of the entry's releases.
func hasCUDAVariant(e Entry) bool {
	for _, v := range lower.Variants() {
		for _, r := range release.All {
			if v.Op == e.Name && v.Releases.Has(r) && e.Releases.Has(r) {
				return true
			}
		}
	}
	return false
}
