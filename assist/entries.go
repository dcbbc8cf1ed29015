// Package assist computes what an editor offers while the user types a
// TIRx kernel: completion items (Complete) and signature help
// (Signature). It knows no LSP: positions are byte offsets into the
// document's newest text, and documentation is Markdown text.
//
// What it offers comes from two places. The reference's surface (the Tx
// scopes and tile ops, the T functions kernels use, layout constructors,
// axis names, swizzle modes, with their parameters and docstrings) is
// data generated from the apache-tvm wheels' Python by
// scripts/gen-signatures (signatures_gen.go, one entry per distinct text
// with the releases that define it so). The variants a `dispatch="…"`
// string may name are the dispatcher's registry for the analysed
// release; whether each applies to the call is the dispatcher's answer on
// the call's evaluated arguments (the analysis' decision, and
// dispatch.Registry.Probe for variants it did not try).
//
// Contract: Complete and Signature never fail and never modify the
// snapshot; they read the text around the cursor only (from the start of
// the enclosing top-level statement), so their cost does not grow with
// the file.
package assist

import (
	"slices"
	"strings"
	"sync"

	"github.com/tilels/tilels/release"
)

// Entry is one name of the reference's surface.
type Entry struct {
	// Kind: "scope" (Tx.warp), "op" (Tx.copy), "func" (T.alloc_buffer),
	// "layout" (TileLayout, wg_local_layout), "spec" (S, R), "axis"
	// (laneid), "swizzle" (mma_shared_layout, SwizzleMode.SWIZZLE_128B_ATOM).
	Kind string
	// NS is the namespace it is reached through: "Tx", "T", "layout",
	// "tma_utils", "SwizzleMode".
	NS, Name string
	// Releases are the wheels that define it with this text.
	Releases release.Set
	// Origin is the wheel file it was read from (relative to tvm/).
	Origin string
	// Scope is the exec scope of a "scope" entry ("warpgroup" for Tx.wg).
	Scope  string
	Doc    string
	Params []Param
}

// Param is one parameter of an entry, as the wheel declares it.
type Param struct {
	// Name is the parameter's name, "**kwargs" and "*args" with their stars.
	Name, Type, Default string
	KwOnly              bool
	Doc                 string
}

// index maps (release, ns, name) to the entry of that release.
type key struct {
	rel      release.Release
	ns, name string
}

var index = sync.OnceValue(func() map[key]*Entry {
	m := map[key]*Entry{}
	for i := range signatures {
		e := &signatures[i]
		for _, r := range release.All {
			if e.Releases.Has(r) {
				m[key{r, e.NS, e.Name}] = e
			}
		}
	}
	return m
})

// Lookup returns the entry ns.name of release rel (nil when the wheel
// defines none).
func Lookup(rel release.Release, ns, name string) *Entry { return index()[key{rel, ns, name}] }

// Entries returns the entries of namespace ns (and kind, when not "") in
// release rel, sorted by name.
func Entries(rel release.Release, ns, kind string) []*Entry {
	var out []*Entry
	for i := range signatures {
		e := &signatures[i]
		if e.NS == ns && e.Releases.Has(rel) && (kind == "" || e.Kind == kind) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *Entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Qualified is the name as a kernel writes it: "Tx.copy", "T.alloc_buffer",
// "TileLayout", "SwizzleMode.SWIZZLE_128B_ATOM".
func (e *Entry) Qualified() string {
	switch e.NS {
	case "Tx", "T", "SwizzleMode":
		return e.NS + "." + e.Name
	}
	return e.Name
}

// ParamDoc is the parameter's docstring text, or tilels' note for the
// parameters the wheels leave undocumented (dispatch, workspace, **kwargs).
func (p Param) ParamDoc() string {
	if p.Doc != "" {
		return p.Doc
	}
	return paramNotes[p.Name]
}

// OpDoc is the entry's docstring summary, or tilels' note for a tile op
// whose wheel function has none.
func (e *Entry) OpDoc() string {
	if e.Doc != "" {
		return e.Doc
	}
	if e.Kind == "op" {
		return opNotes[e.Name]
	}
	return ""
}

// paramNotes say what the wheels' undocumented tile-op parameters mean
// (tilels' words, from the dispatcher's behaviour: dispatch/registry.go).
var paramNotes = map[string]string{
	"dispatch":  "The name of the variant to force (TVM run_dispatch): only that variant is tried, and the call fails when it does not apply. Omit it to let the dispatcher try every registered variant by priority.",
	"workspace": "Scratch buffers some variants need, by name (e.g. a shared buffer for a cross-warp reduction).",
	"**kwargs":  "Variant configuration (the call's config dict), read by the variants that take options.",
	"src":       "The source buffer region.",
	"dst":       "The destination buffer region.",
	"dtype":     "The data type.",
}

// opNotes say what the tile ops whose wheel functions have no docstring do.
var opNotes = map[string]string{
	"copy_async":     "Asynchronous copy from src to dst (TMA, cp.async, tcgen05.cp/ld/st, DSMEM): the call issues the transfer; completion is tracked by the kernel's barriers.",
	"add":            "Elementwise dst = src0 + src1.",
	"sub":            "Elementwise dst = src0 - src1.",
	"mul":            "Elementwise dst = src0 * src1.",
	"fdiv":           "Elementwise dst = src0 / src1 (floating-point division).",
	"maximum":        "Elementwise dst = max(src0, src1).",
	"minimum":        "Elementwise dst = min(src0, src1).",
	"permute_layout": "Copy src to dst changing only the layout (a register-level permutation).",
	"compose_op":     "A composite of tile ops lowered together (Trainium).",
}

// BufferScope is a storage scope a buffer may be declared in.
type BufferScope struct{ Name, Doc string }

// BufferScopes are the storage scopes offered in a scope="…" string: the
// scopes the reference's CUDA and Trainium backends allocate, as tilels
// models them (dsl/tirxlib tir.go, buffer.go).
var BufferScopes = []BufferScope{
	{"global", "Device (global) memory: kernel parameters and T.match_buffer views."},
	{"shared", "Shared memory of one CTA (static allocation)."},
	{"shared.dyn", "Dynamic shared memory of one CTA (the pool T.alloc_buffer carves; size given at launch)."},
	{"local", "Registers of one thread (a per-thread array; with a layout, a fragment spread over threads)."},
	{"tmem", "Tensor memory of SM100 (tcgen05): 128 lanes × 512 columns of 32 bits per CTA."},
	{"trn.sbuf", "Trainium state buffer (on-chip SRAM, partition × free)."},
	{"trn.psum", "Trainium PSUM buffer (matmul accumulators)."},
}
