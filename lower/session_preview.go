package lower

import (
	"bytes"
	"context"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

// Early diagnostics of an update that re-analyses a def with many cases
// (issue 17: keystroke -> diagnostics within 25 ms). flash_attention4.py
// builds one kernel for each of its 32 CONFIGS entries; a keystroke in its
// body evaluates and dispatches all 32 again, 55-65 ms on two cores.
// Before that, the session analyses the new text with one case per def
// (the first, as the case cap picks it, or the first CONFIGS case that
// runs a tile call on the edited lines: editedCase; 4-5 ms) and hands its
// diagnostics, completed by what only the other cases can tell from the
// previous version, to the caller, who publishes them; the complete analysis
// follows and its publish replaces them. rust-analyzer does the same with
// its two kinds of diagnostics: its own at once, cargo check's later, the
// previous check's kept until then.
//
// The preview of a version is exact for the case it analyses of each def
// and for every def with one case. From the previous version (positions mapped
// through the edit) it carries only what depends on the other cases:
//
//   - a finding reported by some cases only (its message ends with
//     "[case L]", eval.MergeCaseDiags); the first case's own finding with
//     the same place and text is shown in that form;
//   - the case-cap notes (the preview's own cap of one is not shown) and
//     the unbound-parameter notes (a def only later cases call is
//     evaluated alone in the preview);
//   - the not-reached and not-analysed notes of the calls of a kernel
//     whose name has several records (whether a call is reached depends
//     on every case, and the note counts them);
//   - everything inside a kernel def the preview did not build (a
//     factory branch only later cases take);
//   - the performance warnings of the other cases' calls (the first
//     case's come first, as in the complete list).
//
// So an edit that changes no case's outcome (white space, a comment, an
// equivalent expression) previews exactly what the complete analysis
// publishes (TestPreviewExact over the corpus), and an error made in a
// call the first case runs is in the preview (TestPreviewFresh). An edit
// that changes another case's outcome shows that case's findings as they
// were until the complete publish, 2-8 ms (most kernels) to 65 ms
// (flash_attention4.py) later.

// previewMinWork is the least number of case records an update must
// re-analyse for a preview to be made first, and previewGain how many
// times the records a preview analyses. Measured over stdio on 2 cores
// (BenchmarkKeystrokeProductionStdio, the corpus's production kernels
// of 4 to 32 cases): the first publish 2-12 times sooner (p99 at most
// 13 ms), the complete one 2-8 ms later (the preview's own analysis).
const (
	previewMinWork = 4
	previewGain    = 3
)

// Preview is the early diagnostics of a version (see above).
type Preview struct {
	// Diags are the version's diagnostics as the preview knows them,
	// positions in its file, sorted (the performance warnings included).
	Diags []diag.Diagnostic
	// Records is the number of kernel records analysed for the preview;
	// Carried the number of its diagnostics taken from the previous version.
	Records, Carried int
}

// AnalyzeWithPreview is Analyze that first calls early with a Preview
// when the update will re-analyse a def with many cases (at least
// previewMinWork records, previewGain times as many as a preview
// analyses). early is called on the caller's goroutine, before the
// complete analysis starts, at most once.
func (s *Session) AnalyzeWithPreview(ctx context.Context, f *source.File, early func(*Preview)) (*Snapshot, error) {
	s.early = early
	defer func() { s.early = nil }()
	return s.Analyze(ctx, f)
}

// previewFirst makes the preview of f and hands it over when the early
// callback is set and the analysis about to run re-analyses work records
// (all of them for a whole-file analysis).
func (s *Session) previewFirst(f *source.File, work int) {
	if s.early == nil || s.last == nil {
		return
	}
	early := s.early
	s.early = nil // at most once an update
	if work < previewMinWork || previewGain*previewCost(s.last) > work {
		return
	}
	if pv := s.preview(f); pv != nil {
		early(pv)
	}
}

// previewCost is the number of records a preview of a version like snap
// analyses: one per def.
func previewCost(snap *Snapshot) int {
	n := 0
	for _, v := range snap.Kernels {
		if v.Kernel.CaseIndex <= 1 {
			n++
		}
	}
	return n + len(snap.Partial)
}

// preview analyses f with one case per def and completes its
// diagnostics from the session's previous snapshot; nil when the two
// cannot be combined (the release changed) or the update was cancelled.
func (s *Session) preview(f *source.File) *Preview {
	prev := s.last
	opts := s.opts
	guess := prev.Reference
	opts.guess = &guess
	opts.MaxCases = 1
	opts.cancel = s.cancel
	p, oldEnd, newEnd := diffRegion(prev.File.Src, f.Src)
	e := edit{at: source.Pos(p), oldEnd: source.Pos(oldEnd), delta: source.Pos(newEnd - oldEnd)}
	opts.oneCase = editedCase(prev, e)
	later := source.NoSpan
	if opts.oneCase != "" {
		later = editedLines(f.Src, e)
	}
	lim := Analyze(f, opts)
	if lim.cancelled || lim.Reference.Release != prev.Reference.Release {
		return nil
	}
	var limPerf [][]diag.Diagnostic
	for _, k := range lim.Kernels {
		ds, _ := kernelPerfWithin(k, PublishWork)
		limPerf = append(limPerf, ds)
	}
	prevPerf, _ := prev.PerfDiagsBudget(0) // the warnings known, none computed
	multi, gone := prevDefSpans(prev, e, lim)
	ds, carried := composePreview(lim, limPerf, multi, gone, later, e.diags(prev.Diags), e.diags(prevPerf))
	return &Preview{Diags: ds, Records: len(lim.Kernels) + len(lim.Partial), Carried: carried}
}

// editedCase returns the CONFIGS case a preview of edit e should analyse
// instead of the first ("" for the first): when the first case of the def
// around the edit decided no tile call on the edited lines and a later
// case did, the first such case. flash_attention4.py's first CONFIGS entry
// is not causal: an edit of its causal mask would otherwise preview the
// old findings of the only cases that run it.
func editedCase(prev *Snapshot, e edit) string {
	lines := editedLines(prev.File.Src, edit{at: e.at, oldEnd: e.oldEnd})
	onLines := func(v *KernelView) bool {
		for _, d := range v.Kernel.Calls {
			if sp := v.ToFile(d.Call.Span); sp.Start <= lines.End && lines.Start <= sp.End {
				return true
			}
		}
		return false
	}
	for i, v := range prev.Kernels {
		k := v.Kernel
		if k.CaseIndex != 1 || k.CaseCount < 2 || !v.ToFile(k.Span).Contains(e.at) || onLines(v) {
			continue
		}
		for _, w := range prev.Kernels[i+1 : min(i+k.CaseCount, len(prev.Kernels))] {
			if w.Kernel.CaseSource == "configs" && onLines(w) {
				return w.Kernel.CaseID
			}
		}
	}
	return ""
}

// editedLines returns the lines of src that edit e's text spans, in src's
// coordinates after the edit (from the start of its first line to the end
// of its last).
func editedLines(src []byte, e edit) source.Span {
	end := int(e.oldEnd + e.delta)
	lo := bytes.LastIndexByte(src[:e.at], '\n') + 1
	hi := len(src)
	if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
		hi = end + i
	}
	return source.Span{Start: source.Pos(lo), End: source.Pos(hi)}
}

// prevDefSpans returns the spans, mapped through e, of prev's kernel
// defs whose notes may depend on cases the preview lim does not analyse:
// multi, those whose name has several records (a not-reached note counts
// the records of the name); gone, those lim did not build at all (a
// factory branch only later cases take).
func prevDefSpans(prev *Snapshot, e edit, lim *Result) (multi, gone []source.Span) {
	names := map[string]int{}
	for _, v := range prev.Kernels {
		names[v.Kernel.Name]++
	}
	built := map[source.Span]bool{}
	for _, ks := range [][]*Kernel{lim.Kernels, lim.Partial} {
		for _, k := range ks {
			built[k.Span] = true
		}
	}
	for _, vs := range [][]*KernelView{prev.Kernels, prev.Partial} {
		for _, v := range vs {
			if v.Kernel.CaseIndex > 1 {
				continue
			}
			sp := e.span(v.ToFile(v.Kernel.Span))
			if !built[sp] {
				gone = append(gone, sp)
				multi = append(multi, sp)
			} else if names[v.Kernel.Name] > 1 {
				multi = append(multi, sp)
			}
		}
	}
	return multi, gone
}

// composePreview combines the one-case analysis lim (limPerf[i]: the
// performance warnings of lim.Kernels[i], spans in the file) with the
// previous version's diagnostics and performance warnings, positions
// mapped to lim's file (prevDefSpans gives multi and gone); later is the
// edited lines when lim analysed a later case than the first (NoSpan
// otherwise). It returns the sorted list and how many of it were carried.
func composePreview(lim *Result, limPerf [][]diag.Diagnostic, multi, gone []source.Span, later source.Span, prevDiags, prevPerf []diag.Diagnostic) ([]diag.Diagnostic, int) {
	in := func(spans []source.Span, d diag.Diagnostic) bool {
		for _, sp := range spans {
			if sp.Contains(d.Span.Start) {
				return true
			}
		}
		return false
	}
	// carry reports whether a diagnostic of the complete analysis may
	// depend on a case the preview does not analyse.
	carry := func(d diag.Diagnostic) bool {
		switch d.Code {
		case eval.CodeCaseCap, eval.CodeUnbound:
			return true
		case CodeNotReached, CodeNotAnalysed:
			return in(multi, d)
		}
		return in(gone, d)
	}
	type key struct {
		span      source.Span
		sev       diag.Severity
		code, msg string
	}
	var out []diag.Diagnostic
	// What only the other cases can tell, from the previous version.
	qualified := map[key]bool{}
	for _, d := range prevDiags {
		if base, ok := caseBase(d.Message); ok {
			qualified[key{d.Span, d.Severity, d.Code, base}] = true
		} else if !carry(d) {
			continue
		}
		out = append(out, d)
	}
	carried := len(out)
	for _, d := range lim.Diags {
		if carry(d) || qualified[key{d.Span, d.Severity, d.Code, d.Message}] {
			continue
		}
		out = append(out, d)
	}
	// The performance warnings: the analysed case's, then the previous
	// version's of the other calls (a def's cases repeat its calls; the
	// first record's warning is the one shown). When the preview analysed
	// a later case (editedCase), the previous version's come first but on
	// the edited lines: elsewhere the first record's are still the ones
	// the complete list shows.
	seen := map[perfKey]bool{}
	add := func(d diag.Diagnostic, prev bool) {
		if !seen[perfKey{d.Span, d.Code}] {
			seen[perfKey{d.Span, d.Code}] = true
			out = append(out, d)
			if prev {
				carried++
			}
		}
	}
	if later.IsValid() {
		for _, d := range prevPerf {
			if !later.Contains(d.Span.Start) {
				add(d, true)
			}
		}
	}
	for _, ds := range limPerf {
		for _, d := range ds {
			add(d, false)
		}
	}
	for _, d := range prevPerf {
		add(d, true)
	}
	diag.Sort(out)
	return dedup(out), carried
}

// caseBase returns the message of a finding eval.MergeCaseDiags qualified
// with the cases that reported it, without the qualification.
func caseBase(msg string) (string, bool) {
	i := strings.LastIndex(msg, " [case ")
	if i < 0 {
		return "", false
	}
	return msg[:i], true
}
