package lower

import (
	"bytes"
	"context"
	"sort"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Session analyses successive versions of one file, as an editor produces
// them, and analyses again only what an edit can change. Every analysis
// is a call of Analyze, the pipeline --lower runs: on the whole file, or
// on a reduced file that keeps the module-level code and the kernels to
// analyse and replaces every other top-level kernel by a one-line stub.
//
// An edit first re-parses only its region (syntax.ParseRegion): the
// top-level statements from a seam before it to the first seam after it
// where the new parse meets the previous one again. Outside the region the
// statements, seams and syntax errors are the previous ones, moved. Then:
//
//   - An edit that changes no token (text between two logical lines: a
//     comment, blank lines, line breaks; not on a line that mentions
//     `tilels`, which may be a `# tilels: bind` directive) analyses
//     nothing: the previous results are moved by the edit's length. A
//     kernel whose own spans lie on both sides of the edit (a comment typed
//     in its body) is analysed again.
//   - An edit inside one top-level @T.prim_func (or @T.jit) def, whose
//     region is that def alone and still a kernel def of the same name,
//     analyses that kernel in a reduced file.
//   - An edit of module-level code only (no kernel def added, removed or
//     renamed) analyses the module-level code again, with the kernels that
//     may read a name it changed (session_deps.go: the names the old and
//     new statements bind, closed over the module-level statements that
//     read them), the kernels the module-level code names, and the kernels
//     whose directive lines it may have changed. Its records and
//     diagnostics replace the previous module-level ones.
//
// Anything else is analysed whole, and so is every edit when: kernels are
// not independent (a kernel's text names another top-level kernel, or two
// kernels share a name); the file has constructs that change state other
// than by binding module-level names (see session_deps.go) and the edit is
// module-level; the edited kernel is named by module-level code or comes
// after module-level code that names a kernel, or has `global`,
// `nonlocal` or `tilels` in its text; the parser collected errors past its
// caps (50 reported, 200 collected); an evaluation budget ran out; a
// reduced parse does not have the real one's statements and, in the
// region, syntax errors; a kernel def with several cases reports a
// diagnostic outside its segment (such a def is module-level code); or
// more than 16 reduced analyses would be retained.
//
// An edit that changes tokens inside a kernel named by module-level code
// (a factory's `_kernel.specialize(...)`, as the largest TIRx-kernels
// files do) is analysed whole without parsing its region first
// (session_pinned.go). A whole-file analysis runs under the previous
// version's reference while the reference is chosen on another goroutine,
// and again under the chosen one when its release differs
// (session_guess.go).
//
// A top-level kernel def is one segment whatever it yields: one record,
// one record per bound case (a @T.jit kernel with several `# tilels: bind`
// lines), or a partial record (a @T.jit kernel whose T.constexpr
// parameters have no value). An edit may change which: the records of
// the segment are replaced by those of the reduced analysis. When another
// kernel's segment is stubbed, a comment block at its end (a directive
// for the def below it) is kept.
//
// Invariant (checked by TestSessionMatchesAnalyze on random edits): a
// Snapshot's diagnostics, kernels, dispatch decisions and printed CUDA
// equal those of Analyze on the same text.
//
// A Session is not safe for concurrent use; Snapshots are immutable and
// safe to share.
type Session struct {
	opts Options
	last *Snapshot
	gen  uint32 // numbers the reduced analyses (KernelView.gen)
	// early receives the preview of the update in progress
	// (AnalyzeWithPreview, session_preview.go).
	early func(*Preview)
	// cancel reports whether the update in progress is no longer wanted
	// (its context is done); nil between updates.
	cancel func() bool
}

// NewSession returns a session that analyses with opts.
func NewSession(opts Options) *Session { return &Session{opts: opts} }

// Options returns the options the session analyses with.
func (s *Session) Options() Options { return s.opts }

// Snapshot is the analysis of one version of a file.
type Snapshot struct {
	File *source.File
	// Kernels are the file's kernels in source order (as Result.Kernels):
	// the cases of one def are adjacent, in case order.
	Kernels []*KernelView
	// Partial are the partial records (as Result.Partial): kernel defs
	// without a complete case, whose tile calls are unresolved. Their
	// Buffers and Layouts are what the incomplete evaluation declared.
	Partial []*KernelView
	// Diags holds every diagnostic of the file, positions in File, sorted
	// and deduplicated as Result.Diags.
	Diags []diag.Diagnostic
	// Full reports whether this version was analysed as a whole file;
	// Reanalysed is the number of kernels evaluated and dispatched for it.
	Full       bool
	Reanalysed int
	// Imports lists the files of the workspace modules the analyses of
	// this version read (Result.Imports; for a version analysed in part,
	// also those of the version before): the version must be analysed
	// again, as a whole, when one of them changes.
	Imports []string
	// Reference is the reference release the version was analysed under.
	Reference Reference

	segs []segment
	// seams are where a re-parse may start and stop (syntax.Seam); nil
	// when the whole file must be parsed again.
	seams    []syntax.Seam
	ctxDiags []diag.Diagnostic // diagnostics owned by no kernel segment
	idx      *sessionIndex
	fixes    *fixCache // the verified quick fixes computed for it (fix_first.go)
}

// KernelView is one kernel of a Snapshot. Its Kernel, Buffers and Layouts
// were produced by an analysis of an earlier version of the file, or of a
// reduced file: their spans are in that analysis' coordinates, and a span
// inside the kernel's segment maps to the Snapshot's file by adding Shift.
//
// A view keeps what hovers and symbols need from the evaluation (the
// buffer and layout sites) but not the syntax tree: with twenty 3,000-line
// files open that halves the server's live heap (measured: 4.6 -> 2.5 MB
// per file).
type KernelView struct {
	Kernel *Kernel
	// Buffers and Layouts are the kernel's eval.Kernel sites.
	Buffers []eval.BufferSite
	Layouts []eval.LayoutSite
	Shift   source.Pos
	// Seg is the kernel's segment in the Snapshot's file: its first
	// decorator to the next top-level statement. For a kernel built by a
	// factory it is the kernel's def span.
	Seg source.Span
	// Diags are the diagnostics this kernel owns (reported inside its
	// segment or while evaluating it), positions in the Snapshot's file.
	// The views of a top-level def with several cases share Seg and
	// Shift, and the first of them holds the def's diagnostics (merged
	// across the cases, as in Result.Diags); the others have none.
	Diags []diag.Diagnostic
	// TopLevel reports whether the kernel is a top-level def (it has its
	// own segment and can be re-analysed alone).
	TopLevel bool

	// gen numbers the reduced analysis the view comes from (0: a
	// whole-file analysis); ext covers the spans of the view that the
	// language server maps (Kernel.Span, calls, buffers, layouts), in the
	// analysis' coordinates, to tell on which side of an edit they lie.
	gen uint32
	ext source.Span
}

// newView returns the view of a record with its buffer and layout sites,
// its ext computed.
func newView(k *Kernel, bufs []eval.BufferSite, lays []eval.LayoutSite) *KernelView {
	v := &KernelView{Kernel: k, Buffers: bufs, Layouts: lays, Seg: k.Span}
	x := k.Span
	add := func(s source.Span) {
		if s.IsValid() {
			x = source.Join(x, s)
		}
	}
	for _, c := range k.Calls {
		add(c.Call.Span)
		add(c.Call.OpSpan)
	}
	for _, c := range k.Unresolved {
		add(c.Span)
		add(c.OpSpan)
	}
	for _, b := range bufs {
		add(b.NameSpan)
		add(b.DeclSpan)
		add(b.LayoutSpan)
	}
	for _, l := range lays {
		add(l.Span)
	}
	v.ext = x
	return v
}

// ToFile maps a span of the kernel's analysis to the Snapshot's file.
func (v *KernelView) ToFile(s source.Span) source.Span {
	if !s.IsValid() {
		return s
	}
	return source.Span{Start: s.Start + v.Shift, End: s.End + v.Shift}
}

// FromFile maps a position of the Snapshot's file to the kernel's analysis.
func (v *KernelView) FromFile(p source.Pos) source.Pos { return p - v.Shift }

// Name is the kernel's name.
func (v *KernelView) Name() string { return v.Kernel.Name }

// KernelList returns the lower.Kernels of the views, for CUDA and TIRx.
func (s *Snapshot) KernelList() []*Kernel {
	ks := make([]*Kernel, len(s.Kernels))
	for i, v := range s.Kernels {
		ks[i] = v.Kernel
	}
	return ks
}

// Select returns the views of the kernels named name (all when name is empty).
func (s *Snapshot) Select(name string) []*KernelView {
	if name == "" {
		return s.Kernels
	}
	var out []*KernelView
	for _, v := range s.Kernels {
		if v.Kernel.Name == name {
			out = append(out, v)
		}
	}
	return out
}

// HasErrors reports whether any diagnostic is an error.
func (s *Snapshot) HasErrors() bool {
	for _, d := range s.Diags {
		if d.Severity == diag.Error {
			return true
		}
	}
	return false
}

// segment is a top-level statement with the text up to the next one (the
// prelude before the first statement has lo -1 and no statement). Its
// int32 fields keep it at 24 bytes: every keystroke copies the list.
type segment struct {
	span source.Span
	// lo and hi index the records of the top-level kernel def the segment
	// holds: Kernels[lo:hi] (one per case), or Partial[lo:hi] (one) when
	// partial; lo is -1 for other segments.
	lo, hi  int32
	syntaxN int32 // syntax diagnostics inside (kernel segments)
	partial bool
	stmt    bool // false for the prelude
	// directive is set on a kernel segment whose text contains the word
	// `tilels`: it may end with a bind directive for the def below it.
	directive bool
	// uncertain is set on a segment that changes module-level state other
	// than by binding names (session_deps.go).
	uncertain bool
	// marks are the referenceMarks of the segment's statement, once an
	// incremental update parsed it (marked); a version analysed whole
	// has none (session_reference.go).
	marks  []string
	marked bool
}

func (sg segment) kernel() bool { return sg.lo >= 0 }

// views returns the records of a kernel segment.
func (s *Snapshot) views(sg segment) []*KernelView {
	if sg.partial {
		return s.Partial[sg.lo:sg.hi]
	}
	return s.Kernels[sg.lo:sg.hi]
}

// sessionIndex is what the independence rules need; it depends only on
// the module-level text and the kernel names, which a reduced update does
// not change, so snapshots share it.
type sessionIndex struct {
	names map[string]int // top-level kernel name -> count
	// ctxFirst maps an identifier to the index of the first non-kernel
	// segment whose text contains it.
	ctxFirst map[string]int
	// minKernelRef is the first non-kernel segment naming any kernel
	// (len(segs) when none).
	minKernelRef int
	// ok is false when some kernel names another kernel, two kernels
	// share a name, or an evaluation budget ran out: every update then
	// analyses the whole file.
	ok bool
	// uncertain is set when some segment is (segment.uncertain): a
	// module-level edit then analyses the whole file.
	uncertain bool
	// effectful are the module-level names a kernel may not call to be
	// analysed alone (effectfulNames).
	effectful map[string]bool
}

// maxReduced bounds how many reduced analyses the views of a snapshot may
// come from before the whole file is analysed again (each retains its
// reduced file's text).
const maxReduced = 16

// maxSyntaxErrors is the parser's global cap (see dsl/syntax).
const maxSyntaxErrors = 50

// cutStub replaces a top-level kernel in a reduced file. Like the kernel's
// decorator it starts a column-0 line with a keyword that closes brackets
// left open above it, so the parser recovers at the same place.
const cutStub = "def __tilels_cut__(): pass\n"

// Analyze analyses f, a new version of the session's file. It returns
// ctx.Err() and keeps the previous state when ctx is done before the
// analysis ends: the evaluation checks it every 1,024 steps and the
// dispatch before each kernel, so that a language server's newer version
// does not wait for the whole analysis of one it replaced
// (flash_attention4.py's 32 cases: 70 ms).
func (s *Session) Analyze(ctx context.Context, f *source.File) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		s.cancel = func() bool { return ctx.Err() != nil }
		defer func() { s.cancel = nil }()
	}
	if s.last != nil {
		if snap := s.incremental(f); snap != nil {
			s.last = snap
			return snap, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err // the partial analysis was cancelled
		}
	}
	opts := s.opts
	opts.cancel = s.cancel
	if s.last != nil {
		// The previous version's reference, checked (session_guess.go).
		guess := s.last.Reference
		opts.guess = &guess
		s.previewFirst(f, len(s.last.Kernels)+len(s.last.Partial))
	}
	res := Analyze(f, opts)
	if res.cancelled {
		return nil, ctx.Err()
	}
	snap := snapshotOf(res)
	s.last = snap
	return snap, nil
}

// Last returns the latest snapshot (nil before the first Analyze).
func (s *Session) Last() *Snapshot { return s.last }

// snapshotOf builds a snapshot from a whole-file analysis.
func snapshotOf(res *Result) *Snapshot {
	src := res.File.Src
	snap := &Snapshot{File: res.File, Full: true, fixes: &fixCache{}, Reanalysed: len(res.Kernels) + len(res.Partial), Imports: res.Imports,
		Reference: res.Reference}
	evals := evalKernels(res)
	// byDef maps a def to its records: Kernels[lo:hi] (adjacent) or
	// Partial[lo:hi]; bad when they are not adjacent or both kinds.
	type recs struct {
		lo, hi       int
		partial, bad bool
	}
	byDef := map[*syntax.FunctionDef]recs{}
	snap.Kernels = make([]*KernelView, len(res.Kernels))
	for i, k := range res.Kernels {
		var v *KernelView
		if ek := evals[i]; ek == nil {
			v = newView(k, nil, nil)
		} else {
			v = newView(k, ek.Buffers, ek.Layouts)
			r, seen := byDef[ek.Def]
			switch {
			case !seen:
				r = recs{lo: i, hi: i + 1}
			case r.hi == i:
				r.hi++
			default:
				r.bad = true
			}
			byDef[ek.Def] = r
		}
		snap.Kernels[i] = v
	}
	snap.Partial = make([]*KernelView, len(res.Partial))
	for i, k := range res.Partial {
		ek := res.Program.Partial[i]
		v := newView(k, ek.Buffers, ek.Layouts)
		if _, seen := byDef[ek.Def]; seen {
			byDef[ek.Def] = recs{bad: true}
		} else {
			byDef[ek.Def] = recs{lo: i, hi: i + 1, partial: true}
		}
		snap.Partial[i] = v
	}
	// evalOf returns the evaluated kernel of record i of a segment.
	evalOf := func(sg segment, i int) *eval.Kernel {
		if sg.partial {
			return res.Program.Partial[i]
		}
		return evals[i]
	}
	// Segments: the prelude, then one per top-level statement.
	stmts := res.Syntax.Body
	first := source.Pos(len(src))
	if len(stmts) > 0 {
		first = stmts[0].Span().Start
	}
	snap.segs = append(snap.segs, segment{span: source.Span{Start: 0, End: first}, lo: -1})
	for j, st := range stmts {
		start := st.Span().Start
		end := source.Pos(len(src))
		if j+1 < len(stmts) {
			end = stmts[j+1].Span().Start
		}
		seg := segment{span: source.Span{Start: start, End: end}, lo: -1, stmt: true, uncertain: factsOf(st).uncertain}
		if fd, ok := st.(*syntax.FunctionDef); ok {
			if r, ok := byDef[fd]; ok && !r.bad && lineStart(src, start) && (int(end) == len(src) || lineStart(src, end)) && end > start && src[end-1] == '\n' {
				seg.lo, seg.hi, seg.partial = int32(r.lo), int32(r.hi), r.partial
				// A def with several cases whose evaluation reported
				// diagnostics elsewhere (in a helper) stays module-level
				// code: its merged diagnostics cannot be split by case.
				for i := r.lo; i < r.hi && r.hi-r.lo > 1; i++ {
					for _, d := range evalOf(seg, i).Diags {
						if !seg.span.Contains(d.Span.Start) {
							seg.lo, seg.hi = -1, -1
						}
					}
				}
				if seg.kernel() {
					for _, v := range snap.views(seg) {
						v.Seg, v.TopLevel = seg.span, true
					}
				}
			}
		}
		snap.segs = append(snap.segs, seg)
	}
	// A segment that mentions `tilels` may end with a directive for the
	// def below it: the diagnostics in the comment block at its end (the
	// directive's) belong to that def, a kernel segment or module-level
	// code, never to the segment itself.
	tails := map[int]source.Pos{}
	for i, sg := range snap.segs {
		if mentionsTilels(src[sg.span.Start:sg.span.End]) {
			snap.segs[i].directive = sg.kernel()
			tails[i] = commentTail(src, sg.span)
		}
	}
	// Ownership: a diagnostic inside a kernel segment, or reported while
	// evaluating that kernel, belongs to the kernel (the first record of
	// its def); the rest to the module.
	owned := map[diagKey]bool{}
	for _, d := range res.Diags {
		i := segAt(snap.segs, d.Span.Start)
		if t, ok := tails[i]; ok && d.Span.Start >= t {
			i++
		}
		if i >= 0 && i < len(snap.segs) && snap.segs[i].kernel() {
			v := snap.views(snap.segs[i])[0]
			v.Diags = append(v.Diags, d)
			owned[keyOf(d)] = true
			if strings.HasPrefix(d.Code, "syntax/") {
				snap.segs[i].syntaxN++
			}
		}
	}
	for _, sg := range snap.segs {
		if !sg.kernel() {
			continue
		}
		v := snap.views(sg)[0]
		if sg.hi-sg.lo == 1 {
			for _, d := range evalOf(sg, int(sg.lo)).Diags {
				if !v.Seg.Contains(d.Span.Start) {
					v.Diags = append(v.Diags, d)
					owned[keyOf(d)] = true
				}
			}
		}
		diag.Sort(v.Diags)
	}
	for _, d := range res.Diags {
		if !owned[keyOf(d)] {
			snap.ctxDiags = append(snap.ctxDiags, d)
		}
	}
	snap.Diags = res.Diags
	snap.seams = res.Syntax.Seams
	snap.idx = buildIndex(snap, src, res.Syntax.Body)
	return snap
}

// evalKernels returns, for each of res.Kernels, the evaluated kernel it
// was lowered from (matched by function, nil when none).
func evalKernels(res *Result) []*eval.Kernel {
	byFunc := make(map[*ir.Func]*eval.Kernel, len(res.Program.Kernels))
	for _, ek := range res.Program.Kernels {
		byFunc[ek.Func] = ek
	}
	out := make([]*eval.Kernel, len(res.Kernels))
	for i, k := range res.Kernels {
		out[i] = byFunc[k.Func]
	}
	return out
}

// buildIndex computes the independence facts of a whole-file snapshot.
func buildIndex(snap *Snapshot, src []byte, body []syntax.Stmt) *sessionIndex {
	idx := &sessionIndex{names: map[string]int{}, ctxFirst: map[string]int{}, minKernelRef: len(snap.segs), ok: true}
	var module []syntax.Stmt
	for _, st := range body {
		if k := segAt(snap.segs, st.Span().Start); k >= 0 && !snap.segs[k].kernel() {
			module = append(module, st)
		}
	}
	idx.effectful = effectfulNames(module)
	for _, seg := range snap.segs {
		if seg.kernel() {
			idx.names[snap.views(seg)[0].Kernel.Name]++
		}
	}
	for _, n := range idx.names {
		if n > 1 {
			idx.ok = false
		}
	}
	for i, seg := range snap.segs {
		text := src[seg.span.Start:seg.span.End]
		if seg.kernel() {
			own := snap.views(seg)[0].Kernel.Name
			eachIdent(text, func(id []byte) {
				if string(id) != own && idx.names[string(id)] > 0 {
					idx.ok = false
				}
			})
			continue
		}
		eachIdent(text, func(id []byte) {
			if _, ok := idx.ctxFirst[string(id)]; !ok {
				idx.ctxFirst[string(id)] = i
				if idx.names[string(id)] > 0 && i < idx.minKernelRef {
					idx.minKernelRef = i
				}
			}
		})
	}
	for _, seg := range snap.segs {
		idx.uncertain = idx.uncertain || seg.uncertain
	}
	if diagsIn(snap.Diags, eval.CodeBudget, eval.CodeTooLarge) {
		idx.ok = false
	}
	return idx
}

// mentionsTilels reports whether text has the word `tilels` (as in a
// `# tilels: bind` directive).
func mentionsTilels(text []byte) bool {
	if !bytes.Contains(text, []byte("tilels")) {
		return false
	}
	found := false
	eachIdent(text, func(id []byte) { found = found || string(id) == "tilels" })
	return found
}

// commentTail returns where the comment block at the end of span starts
// in src: the first of its trailing lines that are blank or comments
// (span.End when there is none).
func commentTail(src []byte, span source.Span) source.Pos {
	t := span.End
	for t > span.Start {
		// The line before t: [ls, t).
		ls := t - 1
		for ls > span.Start && src[ls-1] != '\n' {
			ls--
		}
		line := bytes.TrimLeft(src[ls:t], " \t")
		if len(line) > 0 && line[0] != '#' && line[0] != '\n' && line[0] != '\r' {
			break
		}
		t = ls
	}
	return t
}

// piece is a run of the reduced file copied from the real one (a stub
// maps every position to the start of the kernel it replaces).
type piece struct {
	syn, real, n source.Pos
	stub         bool
}

func mapPos(pieces []piece, p source.Pos, end bool) source.Pos {
	if p < 0 {
		return p
	}
	i := sort.Search(len(pieces), func(i int) bool {
		last := pieces[i].syn + pieces[i].n
		if end {
			return last >= p
		}
		return last > p
	})
	if i == len(pieces) {
		i = len(pieces) - 1
	}
	pc := pieces[i]
	if pc.stub {
		return pc.real
	}
	return pc.real + (p - pc.syn)
}

func mapSpan(pieces []piece, s source.Span) source.Span {
	if !s.IsValid() {
		return s
	}
	return source.Span{Start: mapPos(pieces, s.Start, false), End: mapPos(pieces, s.End, true)}
}

func mapDiag(d diag.Diagnostic, pieces []piece) diag.Diagnostic {
	d.Span = mapSpan(pieces, d.Span)
	if len(d.Related) > 0 {
		rel := make([]diag.Related, len(d.Related))
		for i, r := range d.Related {
			rel[i] = diag.Related{Span: mapSpan(pieces, r.Span), Message: r.Message}
		}
		d.Related = rel
	}
	return d
}

// edit is one replacement old[at:oldEnd] -> delta more bytes; positions
// after it move by delta, positions inside it move to its start.
type edit struct {
	at, oldEnd, delta source.Pos
}

func (e edit) pos(p source.Pos) source.Pos {
	switch {
	case p < e.at:
		return p
	case p >= e.oldEnd:
		return p + e.delta
	}
	return e.at
}

// movedSpan maps a span of text the edit does not touch (NoSpan for one
// that touches it).
func (e edit) movedSpan(s source.Span) source.Span {
	switch {
	case s.End < e.at:
		return s
	case s.Start > e.oldEnd:
		return source.Span{Start: s.Start + e.delta, End: s.End + e.delta}
	}
	return source.NoSpan
}

// end maps the end of a span: one at the edit's start stays there.
func (e edit) end(p source.Pos) source.Pos {
	if p <= e.at {
		return p
	}
	return e.pos(p)
}

func (e edit) span(s source.Span) source.Span {
	if !s.IsValid() {
		return s
	}
	return source.Span{Start: e.pos(s.Start), End: max(e.pos(s.Start), e.end(s.End))}
}

func (e edit) diags(ds []diag.Diagnostic) []diag.Diagnostic {
	if e.delta == 0 || len(ds) == 0 {
		return ds
	}
	out := make([]diag.Diagnostic, len(ds))
	for i, d := range ds {
		d.Span = e.span(d.Span)
		if len(d.Related) > 0 {
			rel := make([]diag.Related, len(d.Related))
			for k, r := range d.Related {
				rel[k] = diag.Related{Span: e.span(r.Span), Message: r.Message}
			}
			d.Related = rel
		}
		out[i] = d
	}
	return out
}

type diagKey struct {
	span      source.Span
	sev       diag.Severity
	code, msg string
}

func keyOf(d diag.Diagnostic) diagKey { return diagKey{d.Span, d.Severity, d.Code, d.Message} }

// segAt returns the index of the segment containing p (-1 when none).
func segAt(segs []segment, p source.Pos) int {
	i := sort.Search(len(segs), func(i int) bool { return segs[i].span.End > p })
	if i < len(segs) && segs[i].span.Start <= p {
		return i
	}
	return -1
}

func lineStart(src []byte, p source.Pos) bool {
	return p == 0 || (int(p) <= len(src) && src[p-1] == '\n')
}

// diffRegion returns the one replacement that turns a into b: a[p:aEnd]
// became b[p:bEnd] (the common prefix and suffix are maximal).
func diffRegion(a, b []byte) (p, aEnd, bEnd int) {
	n := min(len(a), len(b))
	// Compare 64-byte blocks with bytes.Equal (vectorized), then bytes.
	for p+64 <= n && bytes.Equal(a[p:p+64], b[p:p+64]) {
		p += 64
	}
	for p < n && a[p] == b[p] {
		p++
	}
	s := 0
	m := n - p
	for s+64 <= m && bytes.Equal(a[len(a)-s-64:len(a)-s], b[len(b)-s-64:len(b)-s]) {
		s += 64
	}
	for s < m && a[len(a)-s-1] == b[len(b)-s-1] {
		s++
	}
	return p, len(a) - s, len(b) - s
}

// eachIdent calls f for every identifier-like word of text (ASCII letters,
// digits, '_' and any non-ASCII byte; words inside strings and comments
// count too, which only makes the independence checks stricter).
func eachIdent(text []byte, f func([]byte)) {
	for i := 0; i < len(text); {
		c := text[i]
		if !identStart(c) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (identStart(text[j]) || text[j] >= '0' && text[j] <= '9') {
			j++
		}
		if i == 0 || !(text[i-1] >= '0' && text[i-1] <= '9') {
			f(text[i:j])
		}
		i = j
	}
}

func identStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
