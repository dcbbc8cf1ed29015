package assist

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tilels/tilels/dispatch"
	dtrn "github.com/tilels/tilels/dispatch/trn"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/release"
)

// ItemKind says what a completion item names.
type ItemKind uint8

const (
	KindScope       ItemKind = iota + 1 // Tx.warp
	KindOp                              // Tx.copy
	KindFunction                        // T.alloc_buffer, wg_local_layout
	KindClass                           // TileLayout, S
	KindAxis                            // laneid
	KindConstant                        // SwizzleMode.SWIZZLE_128B_ATOM
	KindVariant                         // dispatch="vec_auto"
	KindBufferScope                     // scope="shared"
	KindKeyword                         // dispatch= (a parameter by keyword)
)

// Item is one completion item.
type Item struct {
	Label  string
	Kind   ItemKind
	Detail string // one line: a signature, or whether a variant applies
	Doc    string // Markdown
	// Sort orders the items as tilels means them ("" keeps the label).
	Sort string
	// Preselect marks the item to select first (the variant the
	// dispatcher picks without dispatch=).
	Preselect bool
	// Ref, when set, names the item for ResolveDoc: a client may take
	// the list without documentation and ask for one item's later.
	Ref string
}

// List is what Complete offers: the items and the span of the text they
// replace (the partial word, or the string's text).
type List struct {
	Items   []Item
	Replace source.Span
}

// Env is what Complete and Signature know beyond the text.
type Env struct {
	// Release is the reference release the document is analysed under.
	Release release.Release
	// Snap is the document's last complete analysis, nil before the
	// first; its text may be older than the one completed in.
	Snap *lower.Snapshot
	// SnapPos maps an offset of the newest text to the snapshot's text
	// (false when it lies in the region edited since); nil: identity.
	SnapPos func(off int) (source.Pos, bool)
}

// Complete returns the completion items at off in src (nil when tilels
// has nothing to offer there).
func Complete(src []byte, off int, env Env) *List {
	off = min(max(off, 0), len(src))
	c := scanTo(src, off)
	if c.comment {
		return nil
	}
	if c.str >= 0 {
		return completeString(c, env)
	}
	start := wordBefore(src, off)
	repl := source.Span{Start: source.Pos(start), End: source.Pos(wordAfter(src, off))}
	if start > 0 && src[start-1] == '.' {
		names, _ := chainBefore(src, start-1)
		ns, scope := resolve(names, imports(src))
		items := memberItems(ns, scope, env.Release)
		if items == nil {
			return nil
		}
		return &List{Items: items, Replace: repl}
	}
	// After "@" in a layout spec: the axis names.
	i := start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] == '@' && len(c.open) > 0 {
		return &List{Items: memberItems(nsAxis, "", env.Release), Replace: repl}
	}
	// At the start of an argument of a known call: its parameters by
	// keyword (those not given yet).
	if n := len(c.open); n > 0 && c.open[n-1].ch == '(' && strings.TrimSpace(string(src[c.open[n-1].arg:start])) == "" {
		if items := keywordItems(c, c.open[n-1], env); len(items) > 0 {
			if int(repl.End) < len(src) && src[repl.End] == '=' {
				repl.End++ // the keyword's "=" is part of the label
			}
			return &List{Items: items, Replace: repl}
		}
	}
	return nil
}

// keywordItems are the parameters of the call opened at br, by keyword
// ("dispatch="), less those the call already names.
func keywordItems(c *cursor, br bracket, env Env) []Item {
	names, _ := chainBefore(c.src, br.pos)
	if len(names) == 0 {
		return nil
	}
	var e *Entry
	if len(names) == 1 {
		e = bareEntry(names[0], imports(c.src), env)
	} else {
		ns, scope := resolve(names[:len(names)-1], imports(c.src))
		e = calleeEntry(ns, scope, names[len(names)-1], env.Release)
	}
	if e == nil {
		return nil
	}
	given := string(c.src[br.pos:c.off])
	positional := br.commas // the arguments before the cursor, less those by keyword
	for _, p := range e.Params {
		if strings.Contains(given, p.Name+"=") {
			positional--
		}
	}
	var out []Item
	for i, p := range e.Params {
		if strings.HasPrefix(p.Name, "*") || i < positional && !p.KwOnly || strings.Contains(given, p.Name+"=") {
			continue
		}
		detail := p.Name
		if p.Type != "" {
			detail += ": " + p.Type
		}
		if p.Default != "" {
			detail += " = " + p.Default
		}
		out = append(out, Item{Label: p.Name + "=", Kind: KindKeyword, Detail: detail, Doc: p.ParamDoc(), Sort: fmt.Sprintf("%02d", i)})
	}
	return out
}

// memberCache holds the item lists of memberItems (they depend only on
// the namespace, the scope and the release): building the documentation
// of 36 ops per request was a third of BenchmarkCompletion3000's bytes.
var memberCache sync.Map // memberKey → []Item

type memberKey struct {
	ns, scope string
	rel       release.Release
}

// memberItems are the items after "<ns>."; callers must not modify them.
func memberItems(ns, scope string, rel release.Release) []Item {
	k := memberKey{ns, scope, rel}
	if v, ok := memberCache.Load(k); ok {
		return v.([]Item)
	}
	items := buildMemberItems(ns, scope, rel)
	for i := range items {
		items[i].Ref = ns + "|" + scope + "|" + rel.Short() + "|" + items[i].Label
	}
	if items != nil {
		memberCache.Store(k, items)
	}
	return items
}

// ResolveDoc returns the documentation of the item named ref (Item.Ref).
func ResolveDoc(ref string) (string, bool) {
	f := strings.Split(ref, "|")
	if len(f) != 4 {
		return "", false
	}
	rel, ok := release.Parse(f[2])
	if !ok {
		return "", false
	}
	for _, it := range memberItems(f[0], f[1], rel) {
		if it.Label == f[3] {
			return it.Doc, true
		}
	}
	return "", false
}

func buildMemberItems(ns, scope string, rel release.Release) []Item {
	var out []Item
	switch ns {
	case nsTile:
		for _, e := range Entries(rel, "Tx", "scope") {
			out = append(out, Item{Label: e.Name, Kind: KindScope, Detail: "Tx." + e.Name + ": " + e.Scope + " scope", Doc: e.Doc, Sort: "0" + e.Name})
		}
		out = append(out, opItems(rel, "")...)
	case nsScopeName:
		e := Lookup(rel, "Tx", scope)
		if e == nil || e.Kind != "scope" {
			return nil
		}
		out = opItems(rel, e.Scope)
	case nsT:
		for _, e := range Entries(rel, "T", "") {
			out = append(out, entryItem(e, KindFunction, rel))
		}
		for _, e := range Entries(rel, "layout", "") {
			if e.Kind == "layout" && (e.Name == "TileLayout" || e.Name == "ComposeLayout" || e.Name == "SwizzleLayout" || e.Name == "Iter") || e.Kind == "spec" {
				out = append(out, entryItem(e, KindClass, rel))
			}
		}
	case nsLayout:
		for _, e := range Entries(rel, "layout", "") {
			switch e.Kind {
			case "axis":
				out = append(out, axisItem(e))
			case "spec":
				out = append(out, entryItem(e, KindClass, rel))
			default:
				k := KindFunction
				if e.Name[0] >= 'A' && e.Name[0] <= 'Z' {
					k = KindClass
				}
				out = append(out, entryItem(e, k, rel))
			}
		}
	case nsAxis:
		out = axisItems(rel)
	case nsTMA:
		for _, e := range Entries(rel, "tma_utils", "") {
			out = append(out, entryItem(e, KindFunction, rel))
		}
		out = append(out, Item{Label: "SwizzleMode", Kind: KindClass, Detail: "enum of the TMA/MMA shared-memory swizzles", Doc: "The swizzle modes of the TMA and MMA shared layouts: " + strings.Join(swizzleNames(rel), ", ") + "."})
	case nsSwizzle:
		for _, e := range Entries(rel, "SwizzleMode", "") {
			out = append(out, Item{Label: e.Name, Kind: KindConstant, Detail: e.Doc, Doc: "Swizzle mode of the TMA/MMA shared layouts (" + e.Origin + ", " + rel.Short() + ")."})
		}
	}
	return out
}

func swizzleNames(rel release.Release) []string {
	var out []string
	for _, e := range Entries(rel, "SwizzleMode", "") {
		out = append(out, e.Name)
	}
	return out
}

func axisItems(rel release.Release) []Item {
	var out []Item
	for _, e := range Entries(rel, "layout", "axis") {
		out = append(out, axisItem(e))
	}
	return out
}

// axisDocs say what each layout axis indexes (tilels' words; the
// reference registers the names in C++).
var axisDocs = map[string]string{
	"bx": "blockIdx.x", "by": "blockIdx.y", "bz": "blockIdx.z",
	"cbx": "the CTA's index in its cluster, x", "cby": "the CTA's index in its cluster, y", "cbz": "the CTA's index in its cluster, z",
	"tx": "threadIdx.x (thread in the CTA)", "warpid": "warp in the CTA", "laneid": "lane in the warp (0..31)",
	"wgid": "warpgroup in the CTA", "tid_in_wg": "thread in the warpgroup (0..127)", "wid_in_wg": "warp in the warpgroup (0..3)",
	"m": "memory (the element offset)", "P": "Trainium partition", "F": "Trainium free dimension",
	"Bank": "shared-memory bank", "TCol": "tensor-memory column", "TLane": "tensor-memory lane",
}

func axisItem(e *Entry) Item {
	d := axisDocs[e.Name]
	return Item{Label: e.Name, Kind: KindAxis, Detail: "layout axis: " + d,
		Doc: fmt.Sprintf("Layout axis `%s`: %s. Write `stride @ %s` in a shard spec, e.g. `S[(8, 4) : (4 @ %s, 1)]`.", e.Name, d, e.Name, e.Name)}
}

// opItems are the tile ops of release rel (scope "": through Tx.),
// each with its signature and the variants registered for it.
func opItems(rel release.Release, scope string) []Item {
	var out []Item
	for _, e := range Entries(rel, "Tx", "op") {
		it := entryItem(e, KindOp, rel)
		it.Sort = "1" + e.Name
		vs := registry().VariantsIn(e.Name, dispatch.Target{Kind: "cuda", Release: rel})
		names := make([]string, len(vs))
		for i, v := range vs {
			names[i] = "`" + v.Name + "`"
		}
		if len(vs) == 0 {
			it.Doc += fmt.Sprintf("\n\nNo CUDA variant is registered for `%s` in %s.", e.Name, rel.Short())
		} else {
			it.Doc += fmt.Sprintf("\n\nCUDA variants registered in %s (try order): %s.", rel.Short(), strings.Join(names, ", "))
		}
		if scope != "" {
			it.Detail = strings.Replace(it.Detail, "Tx."+e.Name, "Tx."+scopeLabel(scope)+"."+e.Name, 1)
			it.Doc = fmt.Sprintf("At %s scope: every thread of one %s cooperates in the call.\n\n", scope, scope) + it.Doc
		}
		out = append(out, it)
	}
	return out
}

func scopeLabel(scope string) string {
	if scope == "warpgroup" {
		return "wg"
	}
	return scope
}

// entryItem is the item of an entry: its signature as detail, its
// docstring and parameters as documentation.
func entryItem(e *Entry, k ItemKind, rel release.Release) Item {
	it := Item{Label: e.Name, Kind: k, Detail: e.Qualified(), Doc: entryDoc(e, rel)}
	if e.Kind != "spec" && (len(e.Params) > 0 || k == KindFunction || k == KindOp) {
		it.Detail = SignatureLabel(e)
	}
	return it
}

// entryDoc is the Markdown documentation of an entry.
func entryDoc(e *Entry, rel release.Release) string {
	var b strings.Builder
	if d := e.OpDoc(); d != "" {
		b.WriteString(d + "\n\n")
	}
	for _, p := range e.Params {
		fmt.Fprintf(&b, "- `%s`", p.Name)
		if p.Type != "" {
			fmt.Fprintf(&b, " (%s)", p.Type)
		}
		if d := p.ParamDoc(); d != "" {
			b.WriteString(": " + d)
		}
		b.WriteString("\n")
	}
	if len(e.Params) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "_apache-tvm %s, tvm/%s_", rel, e.Origin)
	return b.String()
}

// SignatureLabel is "Tx.copy(dst, src, workspace=None, dispatch=None, **kwargs)".
func SignatureLabel(e *Entry) string {
	s, _ := signatureParts(e)
	return s
}

// signatureParts returns the label and each parameter's [start, end)
// byte offsets in it.
func signatureParts(e *Entry) (string, [][2]int) {
	var b strings.Builder
	b.WriteString(e.Qualified() + "(")
	var spans [][2]int
	star := false
	for i, p := range e.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if p.KwOnly && !star && !strings.HasPrefix(p.Name, "*") {
			b.WriteString("*, ")
			star = true
		}
		if strings.HasPrefix(p.Name, "*") {
			star = true
		}
		a := b.Len()
		b.WriteString(p.Name)
		if p.Default != "" {
			b.WriteString("=" + p.Default)
		}
		spans = append(spans, [2]int{a, b.Len()})
	}
	b.WriteString(")")
	return b.String(), spans
}

// registry is the dispatcher's variant table (every release's variants;
// VariantsIn filters by release).
var registry = sync.OnceValue(func() *dispatch.Registry { return dispatch.NewRegistry(append(lower.Variants(), dtrn.Variants()...)) })
