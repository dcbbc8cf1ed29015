package lower

// Migration help between reference releases (issue 16): the edits an
// editor offers as code actions. A `dispatch=` name the chosen release
// does not register ("no variant named 'gmem_smem' is registered") is
// renamed to what that release calls the same behaviour; the renames are
// data on the variants (dispatch.Variant.Renamed: under 0.26 and later
// gmem_smem and reg (copy) become vec_auto, tma becomes tma_auto or
// tma_explicit; under 0.25 vec_auto becomes gmem_smem or reg, tma_auto and
// tma_explicit become tma), and the dispatcher says which of them holds
// for the call (dispatch.Explanation.Renames). A file that does not pin
// its release can be pinned to the one it is analysed under.

import (
	"fmt"
	"slices"

	"github.com/tilels/tilels/dsl/source"
)

// FixKind is what kind of code action a Fix is.
type FixKind uint8

const (
	// QuickFix repairs a diagnostic.
	QuickFix FixKind = iota
	// SourceFix changes the file as a whole (no diagnostic).
	SourceFix
)

// Fix is one edit an editor offers: replace Span of the file (an empty
// span inserts) by NewText.
type Fix struct {
	Title string
	Kind  FixKind
	// Preferred marks the fix an editor may apply on its own (the one
	// rename whose variant applies).
	Preferred bool
	Span      source.Span
	NewText   string
	// Diag is the code of the diagnostic at Span the fix resolves ("" for
	// none).
	Diag string
	// For is the span of the diagnostic the fix resolves when it is not
	// Span (a performance warning at a call fixed at an allocation).
	For source.Span
	// More are further replacements made with the first (a tile extent
	// changed at each place that writes it; fix.go), none overlapping.
	More []Edit
}

// Edit replaces Span of the file by NewText.
type Edit struct {
	Span    source.Span
	NewText string
}

// CodeForcedVariant is the diagnostic a rename fix resolves.
const CodeForcedVariant = "dispatch/forced-variant"

// DispatchFixes returns the rename fixes of the snapshot's tile calls
// whose `dispatch=` string names a variant the release does not register,
// in source order, each span once (the cases of a def repeat its calls).
// For each such call it offers the renamed variants whose predicates hold
// for the call (all of them when none holds in any case), the first that
// holds preferred (tma_auto before tma_explicit; gmem_smem before reg, as
// vec_auto tries them). A name given through a variable
// rather than a string literal gets none.
func (s *Snapshot) DispatchFixes() []Fix {
	type site struct {
		span      source.Span
		from      string
		all, hold []string
	}
	var sites []*site
	at := map[source.Span]*site{}
	for _, kv := range s.Kernels {
		for _, d := range kv.Kernel.Calls {
			e := d.Explanation
			if e == nil || len(e.Renames) == 0 || !d.Call.DispatchSpan.IsValid() {
				continue
			}
			span := kv.ToFile(d.Call.DispatchSpan)
			st := at[span]
			if st == nil {
				st = &site{span: span, from: d.Call.Dispatch}
				at[span] = st
				sites = append(sites, st)
			}
			for _, r := range e.Renames {
				if !slices.Contains(st.all, r.Variant) {
					st.all = append(st.all, r.Variant)
				}
				if r.Holds && !slices.Contains(st.hold, r.Variant) {
					st.hold = append(st.hold, r.Variant)
				}
			}
		}
	}
	slices.SortFunc(sites, func(a, b *site) int { return int(a.span.Start - b.span.Start) })
	var out []Fix
	for _, st := range sites {
		quote, ok := stringLiteral(s.File, st.span, st.from)
		if !ok {
			continue
		}
		to := st.hold
		if len(to) == 0 {
			to = st.all
		}
		for i, name := range to {
			out = append(out, Fix{
				Title:     fmt.Sprintf("Rename dispatch=%q to %q (registered by apache-tvm %s)", st.from, name, s.Reference.Release),
				Kind:      QuickFix,
				Preferred: i == 0 && len(st.hold) > 0,
				Span:      st.span,
				NewText:   quote + name + quote,
				Diag:      CodeForcedVariant,
			})
		}
	}
	return out
}

// stringLiteral reports whether span of f is the plain string literal of
// name ('name' or "name"), and its quote.
func stringLiteral(f *source.File, span source.Span, name string) (string, bool) {
	if f == nil || span.Start < 0 || int(span.End) > len(f.Src) || span.Len() != len(name)+2 {
		return "", false
	}
	text := f.Text(span)
	q := text[:1]
	if (q != `"` && q != `'`) || text != q+name+q {
		return "", false
	}
	return q, true
}

// PinFix returns the fix that pins the file to the release it is
// analysed under (a "# tilels: reference=0.27" line at its end) when that
// release was chosen automatically (not set, not pinned already).
func (s *Snapshot) PinFix() (Fix, bool) {
	if s.Reference.Source == RefDirective || s.Reference.Source == RefSetting || s.File == nil {
		return Fix{}, false
	}
	src := s.File.Src
	end := source.Pos(len(src))
	text := "# tilels: reference=" + s.Reference.Release.Short() + "\n"
	if len(src) > 0 && src[len(src)-1] != '\n' {
		text = "\n" + text
	}
	return Fix{
		Title:   "Pin this file to apache-tvm " + s.Reference.Release.Short() + " (# tilels: reference=" + s.Reference.Release.Short() + ")",
		Kind:    SourceFix,
		Span:    source.Span{Start: end, End: end},
		NewText: text,
	}, true
}
