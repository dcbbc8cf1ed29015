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
// them, and re-analyses only the kernel an edit touched. Every analysis is
// a call of Analyze, the pipeline --lower runs: either on the whole file,
// or on a reduced file that keeps the module-level code and the edited
// kernel and replaces every other top-level kernel by a one-line stub.
//
// The reduced path (one kernel) is taken when all of these hold, and the
// whole file is analysed otherwise:
//
//   - the text that changed since the previous version lies inside one
//     top-level @T.prim_func (or @T.jit) segment: from its first decorator
//     to the next top-level statement, not touching its first byte or its
//     final newline;
//   - the reduced parse has the same top-level statements at the same
//     places as the full one, and the edited kernel still parses as one
//     kernel def with the same name;
//   - kernels are independent: no kernel's text names another top-level
//     kernel, no module-level code before the edited kernel names any
//     kernel, no module-level code names the edited kernel, and no two
//     kernels share a name;
//   - fewer than 50 syntax errors in all (the parser's global cap), and no
//     `global`/`nonlocal` in the edited kernel;
//   - the edited segment does not contain the word `tilels` (before or
//     after the edit): a `# tilels: bind` directive at the end of one
//     kernel's segment binds the def that follows it;
//   - a kernel def with several cases reports no diagnostic outside its
//     segment (such a def is treated as module-level code).
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
// equal those of Analyze on the same text. Known assumption: kernels do
// not communicate through mutable module-level state (a helper that
// appends to a global list while one kernel is evaluated).
//
// A Session is not safe for concurrent use; Snapshots are immutable and
// safe to share.
type Session struct {
	opts Options
	last *Snapshot
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

	segs     []segment
	ctxDiags []diag.Diagnostic // diagnostics owned by no kernel segment
	idx      *sessionIndex
	// reduced counts the kernels whose analysis came from a reduced file
	// (each retains its own small Result); an update that would make it
	// exceed maxReduced analyses the whole file again.
	reduced int
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

	reduced bool // analysed in a reduced file
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
	// ok is false when some kernel names another kernel or two kernels
	// share a name: every update then analyses the whole file.
	ok bool
	// ctxSyntax is the number of syntax diagnostics outside kernel segments.
	ctxSyntax int
}

// maxReduced bounds how many kernels may come from reduced analyses
// before the whole file is analysed again (each retains its reduced
// file's tree and text).
const maxReduced = 16

// maxSyntaxErrors is the parser's global cap (see dsl/syntax).
const maxSyntaxErrors = 50

// cutStub replaces a top-level kernel in a reduced file. Like the kernel's
// decorator it starts a column-0 line with a keyword that closes brackets
// left open above it, so the parser recovers at the same place.
const cutStub = "def __tilels_cut__(): pass\n"

// Analyze analyses f, a new version of the session's file. It returns
// ctx.Err() (and keeps the previous state) when ctx is done before the
// analysis starts; an analysis that has started runs to completion.
func (s *Session) Analyze(ctx context.Context, f *source.File) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.last != nil {
		if snap := s.incremental(f); snap != nil {
			s.last = snap
			return snap, nil
		}
	}
	snap := snapshotOf(Analyze(f, s.opts))
	s.last = snap
	return snap, nil
}

// Last returns the latest snapshot (nil before the first Analyze).
func (s *Session) Last() *Snapshot { return s.last }

// snapshotOf builds a snapshot from a whole-file analysis.
func snapshotOf(res *Result) *Snapshot {
	src := res.File.Src
	snap := &Snapshot{File: res.File, Full: true, Reanalysed: len(res.Kernels) + len(res.Partial)}
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
		v := &KernelView{Kernel: k, Seg: k.Span}
		if ek := evals[i]; ek != nil {
			v.Buffers, v.Layouts = ek.Buffers, ek.Layouts
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
		v := &KernelView{Kernel: k, Seg: k.Span}
		ek := res.Program.Partial[i]
		v.Buffers, v.Layouts = ek.Buffers, ek.Layouts
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
		seg := segment{span: source.Span{Start: start, End: end}, lo: -1, stmt: true}
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
	// def below it: when that def is a kernel segment, the diagnostics in
	// the comment block at the end (the directive's) belong to it.
	tails := map[int]source.Pos{}
	for i, sg := range snap.segs {
		if mentionsTilels(src[sg.span.Start:sg.span.End]) {
			snap.segs[i].directive = sg.kernel()
			if i+1 < len(snap.segs) && snap.segs[i+1].kernel() {
				tails[i] = commentTail(src, sg.span)
			}
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
		if i >= 0 && snap.segs[i].kernel() {
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
	snap.idx = buildIndex(snap, src)
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
func buildIndex(snap *Snapshot, src []byte) *sessionIndex {
	idx := &sessionIndex{names: map[string]int{}, ctxFirst: map[string]int{}, minKernelRef: len(snap.segs), ok: true}
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
	for _, d := range snap.ctxDiags {
		if strings.HasPrefix(d.Code, "syntax/") {
			idx.ctxSyntax++
		}
	}
	return idx
}

// incremental tries the reduced path; nil means "analyse the whole file".
func (s *Session) incremental(f *source.File) *Snapshot {
	prev := s.last
	old, cur := prev.File.Src, f.Src
	if bytes.Equal(old, cur) {
		snap := *prev
		snap.File, snap.Full, snap.Reanalysed = f, false, 0
		return &snap
	}
	if !prev.idx.ok {
		return nil
	}
	p, oldEnd, newEnd := diffRegion(old, cur)
	j := segAt(prev.segs, source.Pos(p))
	if j < 0 {
		return nil
	}
	seg := prev.segs[j]
	if !seg.kernel() || seg.directive || int(seg.span.Start) >= p || oldEnd > int(seg.span.End)-1 {
		return nil
	}
	oldViews := prev.views(seg)
	name := oldViews[0].Kernel.Name
	reduced := prev.reduced
	if !oldViews[0].reduced {
		reduced++
	}
	if reduced > maxReduced {
		return nil
	}
	if _, ok := prev.idx.ctxFirst[name]; ok || j > prev.idx.minKernelRef {
		return nil
	}
	delta := source.Pos(newEnd - oldEnd)
	newSeg := source.Span{Start: seg.span.Start, End: seg.span.End + delta}
	text := cur[newSeg.Start:newSeg.End]
	bad := false
	eachIdent(text, func(id []byte) {
		w := string(id) // no allocation: only compared and looked up
		if w == "global" || w == "nonlocal" || w == "tilels" || (w != name && prev.idx.names[w] > 0) {
			bad = true
		}
	})
	if bad {
		return nil
	}

	// The reduced file: every segment's text from the new version, except
	// other top-level kernels, which become stubs (keeping a comment block
	// at their end that may hold a directive for the def below).
	shift := func(sp source.Span) source.Span {
		if sp.Start >= seg.span.End {
			return source.Span{Start: sp.Start + delta, End: sp.End + delta}
		}
		return sp
	}
	var buf []byte
	var pieces []piece
	stmtStarts := make([]source.Pos, 0, len(prev.segs))
	realStarts := make([]source.Pos, 0, len(prev.segs))
	kStmt, kPiece := -1, -1
	// tailSyn is the comment block at the end of the segment before the
	// edited one (kept after the stub of a kernel segment): its
	// diagnostics (a directive's) are the edited def's.
	tailSyn := source.Span{Start: -1, End: -1}
	for i, sg := range prev.segs {
		real := shift(sg.span)
		if i == j {
			real = newSeg
		}
		if sg.stmt {
			if i == j {
				kStmt = len(stmtStarts)
			}
			stmtStarts = append(stmtStarts, source.Pos(len(buf)))
			realStarts = append(realStarts, real.Start)
		}
		if sg.kernel() && i != j {
			pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: real.Start, n: source.Pos(len(cutStub)), stub: true})
			buf = append(buf, cutStub...)
			if sg.directive {
				t := commentTail(cur, real)
				if i == j-1 {
					if mentionsTilels(cur[real.Start:t]) {
						// A directive comment may end a code line (it binds
						// the def below when only comments follow it).
						return nil
					}
					tailSyn = source.Span{Start: source.Pos(len(buf)), End: source.Pos(len(buf)) + real.End - t}
				}
				if t < real.End {
					pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: t, n: real.End - t})
					buf = append(buf, cur[t:real.End]...)
				}
			}
			continue
		}
		if i == j {
			kPiece = len(pieces)
		}
		if i == j-1 && mentionsTilels(cur[real.Start:real.End]) {
			t := commentTail(cur, real)
			tailSyn = source.Span{Start: source.Pos(len(buf)) + t - real.Start, End: source.Pos(len(buf)) + real.End - real.Start}
			if mentionsTilels(cur[real.Start:t]) {
				return nil // a directive comment ending a code line binds the def below too
			}
		}
		pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: real.Start, n: real.End - real.Start})
		buf = append(buf, cur[real.Start:real.End]...)
	}
	res := Analyze(source.NewFile(f.Name, buf), s.opts)
	// Error recovery depends on the text after the error, which the stubs
	// change (random edits with 40 seeds found unclosed brackets whose
	// messages differed): with a syntax error in the edited kernel, the
	// reduced parse stands in only if the real file's parse reports the
	// same syntax errors there.
	if kPiece >= 0 && !sameStructure(res.Diags, pieces[kPiece], pieces, f, newSeg, realStarts) {
		return nil
	}

	// The reduced parse must have the full parse's statement structure.
	body := res.Syntax.Body
	if len(body) != len(stmtStarts) {
		return nil
	}
	for i, st := range body {
		if st.Span().Start != stmtStarts[i] {
			return nil
		}
	}
	fd, ok := body[kStmt].(*syntax.FunctionDef)
	if !ok || fd.Name == nil || fd.Name.Id != name {
		return nil
	}
	// The edited def's records: adjacent kernels (one per case) or one
	// partial record.
	evals := evalKernels(res)
	var newEvals []*eval.Kernel
	var newRecs []*Kernel
	lo := -1
	for i, ek := range evals {
		if ek == nil || ek.Def != fd {
			continue
		}
		if lo >= 0 && lo+len(newRecs) != i {
			return nil // not adjacent
		}
		if lo < 0 {
			lo = i
		}
		newEvals, newRecs = append(newEvals, ek), append(newRecs, res.Kernels[i])
	}
	partial := false
	for i, ek := range res.Program.Partial {
		if ek.Def == fd {
			if len(newRecs) > 0 {
				return nil
			}
			newEvals, newRecs, partial = append(newEvals, ek), append(newRecs, res.Partial[i]), true
		}
	}
	// Another def inside the edited one's text (a def nested by an
	// unexpected indent) would be ordered differently from a whole-file
	// analysis: analyse the file whole.
	for i, ek := range evals {
		if ek != nil && ek.Def != fd && kSynOf(pieces, kPiece).Contains(res.Kernels[i].Span.Start) {
			return nil
		}
	}
	for i, ek := range res.Program.Partial {
		if ek.Def != fd && kSynOf(pieces, kPiece).Contains(res.Partial[i].Span.Start) {
			return nil
		}
	}
	ctxKernels, ctxPartial := 0, 0
	for _, v := range prev.Kernels {
		if !v.TopLevel {
			ctxKernels++
		}
	}
	for _, v := range prev.Partial {
		if !v.TopLevel {
			ctxPartial++
		}
	}
	nk, np := len(newRecs), 0
	if partial {
		nk, np = 0, len(newRecs)
	}
	if len(newRecs) == 0 || len(res.Kernels) != ctxKernels+nk || len(res.Partial) != ctxPartial+np {
		return nil
	}
	kp := pieces[kPiece]
	kSyn := source.Span{Start: kp.syn, End: kp.syn + kp.n}
	nvs := make([]*KernelView, len(newRecs))
	for i, k := range newRecs {
		ek := newEvals[i]
		nvs[i] = &KernelView{Kernel: k, Buffers: ek.Buffers, Layouts: ek.Layouts, Shift: kp.real - kp.syn, Seg: newSeg, TopLevel: true, reduced: true}
	}
	nv := nvs[0]
	syntaxN := 0
	seen := map[diagKey]bool{}
	for _, d := range res.Diags {
		if kSyn.Contains(d.Span.Start) || tailSyn.Contains(d.Span.Start) {
			nv.Diags = append(nv.Diags, mapDiag(d, pieces))
			seen[keyOf(d)] = true
			if strings.HasPrefix(d.Code, "syntax/") {
				syntaxN++
			}
		}
	}
	for _, ek := range newEvals {
		for _, d := range ek.Diags {
			if !kSyn.Contains(d.Span.Start) && !tailSyn.Contains(d.Span.Start) && !seen[keyOf(d)] {
				if len(newEvals) > 1 {
					return nil // see snapshotOf: merged across the cases
				}
				nv.Diags = append(nv.Diags, mapDiag(d, pieces))
				seen[keyOf(d)] = true
			}
		}
	}
	diag.Sort(nv.Diags)

	// Every other kernel's syntax errors still count towards the cap.
	total := prev.idx.ctxSyntax + syntaxN
	for i, sg := range prev.segs {
		if i != j {
			total += int(sg.syntaxN)
		}
	}
	if total >= maxSyntaxErrors {
		return nil
	}

	// Assemble: the edited def's records replace the old ones (at the
	// place of its def among the others), what follows the edit is
	// shifted, the diagnostics remapped.
	e := edit{at: source.Pos(p), oldEnd: source.Pos(oldEnd), delta: delta}
	snap := &Snapshot{File: f, Reanalysed: len(nvs), idx: prev.idx, reduced: reduced}
	snap.segs = make([]segment, len(prev.segs))
	for i, sg := range prev.segs {
		sg.span = shift(sg.span)
		sg.lo, sg.hi = -1, -1
		if i == j {
			sg.span, sg.syntaxN, sg.directive = newSeg, int32(syntaxN), false
		}
		snap.segs[i] = sg
	}
	splice := func(views []*KernelView, mine bool) []*KernelView {
		out := make([]*KernelView, 0, len(views)+len(nvs))
		placed := !mine
		for _, v := range views {
			if v.TopLevel && v.Seg == seg.span {
				continue // the edited def's old records
			}
			if !placed && v.ToFile(v.Kernel.Span).Start >= seg.span.End {
				out, placed = append(out, nvs...), true
			}
			if v.Seg.Start < seg.span.End {
				out = append(out, v)
				continue
			}
			sv := *v
			sv.Shift += delta
			sv.Seg = shift(v.Seg)
			sv.Diags = e.diags(v.Diags)
			out = append(out, &sv)
		}
		if !placed {
			out = append(out, nvs...)
		}
		return out
	}
	snap.Kernels = splice(prev.Kernels, !partial)
	snap.Partial = splice(prev.Partial, partial)
	for _, l := range []struct {
		views   []*KernelView
		partial bool
	}{{snap.Kernels, false}, {snap.Partial, true}} {
		for i, v := range l.views {
			if !v.TopLevel {
				continue
			}
			k := segAt(snap.segs, v.Seg.Start)
			sg := &snap.segs[k]
			if sg.lo < 0 {
				sg.lo, sg.partial = int32(i), l.partial
			}
			sg.hi = int32(i + 1)
		}
	}
	snap.ctxDiags = e.diags(prev.ctxDiags)
	all := append([]diag.Diagnostic(nil), snap.ctxDiags...)
	for _, v := range snap.Kernels {
		all = append(all, v.Diags...)
	}
	for _, v := range snap.Partial {
		all = append(all, v.Diags...)
	}
	diag.Sort(all)
	snap.Diags = dedup(all)
	return snap
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

// sameStructure reports whether the reduced analysis' syntax errors in
// the edited kernel (piece kp) are those a parse of the real file f reports
// in its segment seg, and whether the real file's top-level statements
// start at starts, so the reduced file has the real one's structure. It
// parses f: about 2 ms for 3,000 lines, against 20 ms for a whole-file
// analysis (random edits with 40 seeds found a tab-indented def that the
// real file nests in the kernel above it, and unclosed brackets whose
// recovery differed, both invisible in the reduced parse).
func sameStructure(reduced []diag.Diagnostic, kp piece, pieces []piece, f *source.File, seg source.Span, starts []source.Pos) bool {
	var got []diag.Diagnostic
	for _, d := range reduced {
		if strings.HasPrefix(d.Code, "syntax/") && d.Span.Start >= kp.syn && d.Span.Start <= kp.syn+kp.n {
			got = append(got, mapDiag(d, pieces))
		}
	}
	file, all := syntax.Parse(source.NewFile(f.Name, f.Src))
	if len(file.Body) != len(starts) {
		return false
	}
	for i, st := range file.Body {
		// A statement whose recovery ran past the next one's start (an
		// unclosed bracket) depends on text the reduced file replaces.
		if st.Span().Start != starts[i] || (i+1 < len(starts) && st.Span().End > starts[i+1]) {
			return false
		}
	}
	var want []diag.Diagnostic
	for _, d := range all {
		if d.Span.Start < seg.Start || d.Span.Start > seg.End {
			// Errors in two places interact through recovery in ways the
			// stubs change (random edits that pile up errors found them).
			return false
		}
		want = append(want, d)
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Span != want[i].Span || got[i].Code != want[i].Code || got[i].Message != want[i].Message {
			return false
		}
	}
	return true
}

// kSynOf is the span of piece k in the reduced file.
func kSynOf(pieces []piece, k int) source.Span {
	return source.Span{Start: pieces[k].syn, End: pieces[k].syn + pieces[k].n}
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

func (e edit) span(s source.Span) source.Span {
	if !s.IsValid() {
		return s
	}
	return source.Span{Start: e.pos(s.Start), End: e.pos(s.End)}
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
