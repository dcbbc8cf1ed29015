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
//     `global`/`nonlocal` in the edited kernel.
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
	// Kernels are the file's kernels in source order (as Result.Kernels).
	Kernels []*KernelView
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
// prelude before the first statement has view -1 and no statement).
type segment struct {
	span    source.Span
	view    int  // index into Kernels for a kernel segment, else -1
	stmt    bool // false for the prelude
	syntaxN int  // syntax diagnostics inside (kernel segments)
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
	snap := &Snapshot{File: res.File, Full: true, Reanalysed: len(res.Kernels)}
	evals := evalKernels(res)
	// byDef maps a def to its one view (-1 when it has several: a def
	// analysed under several bindings is not re-analysed alone).
	byDef := map[*syntax.FunctionDef]int{}
	snap.Kernels = make([]*KernelView, len(res.Kernels))
	for i, k := range res.Kernels {
		v := &KernelView{Kernel: k, Seg: k.Span}
		if ek := evals[i]; ek != nil {
			v.Buffers, v.Layouts = ek.Buffers, ek.Layouts
			if _, dup := byDef[ek.Def]; dup {
				byDef[ek.Def] = -1
			} else {
				byDef[ek.Def] = i
			}
		}
		snap.Kernels[i] = v
	}
	// Segments: the prelude, then one per top-level statement.
	stmts := res.Syntax.Body
	first := source.Pos(len(src))
	if len(stmts) > 0 {
		first = stmts[0].Span().Start
	}
	snap.segs = append(snap.segs, segment{span: source.Span{Start: 0, End: first}, view: -1})
	for j, st := range stmts {
		start := st.Span().Start
		end := source.Pos(len(src))
		if j+1 < len(stmts) {
			end = stmts[j+1].Span().Start
		}
		seg := segment{span: source.Span{Start: start, End: end}, view: -1, stmt: true}
		if fd, ok := st.(*syntax.FunctionDef); ok {
			if i, ok := byDef[fd]; ok && i >= 0 && lineStart(src, start) && (int(end) == len(src) || lineStart(src, end)) && end > start && src[end-1] == '\n' {
				seg.view = i
				v := snap.Kernels[i]
				v.Seg, v.TopLevel = seg.span, true
			}
		}
		snap.segs = append(snap.segs, seg)
	}
	// Ownership: a diagnostic inside a kernel segment, or reported while
	// evaluating that kernel, belongs to the kernel; the rest to the module.
	owned := map[diagKey]bool{}
	for _, d := range res.Diags {
		if i := segAt(snap.segs, d.Span.Start); i >= 0 && snap.segs[i].view >= 0 {
			v := snap.Kernels[snap.segs[i].view]
			v.Diags = append(v.Diags, d)
			owned[keyOf(d)] = true
			if strings.HasPrefix(d.Code, "syntax/") {
				snap.segs[i].syntaxN++
			}
		}
	}
	for i, v := range snap.Kernels {
		if !v.TopLevel {
			continue
		}
		for _, d := range evals[i].Diags {
			if !v.Seg.Contains(d.Span.Start) {
				v.Diags = append(v.Diags, d)
				owned[keyOf(d)] = true
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
		if seg.view >= 0 {
			idx.names[snap.Kernels[seg.view].Kernel.Name]++
		}
	}
	for _, n := range idx.names {
		if n > 1 {
			idx.ok = false
		}
	}
	for i, seg := range snap.segs {
		text := src[seg.span.Start:seg.span.End]
		if seg.view >= 0 {
			own := snap.Kernels[seg.view].Kernel.Name
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
	if seg.view < 0 || int(seg.span.Start) >= p || oldEnd > int(seg.span.End)-1 {
		return nil
	}
	view := prev.Kernels[seg.view]
	name := view.Kernel.Name
	reduced := prev.reduced
	if !view.reduced {
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
		if w == "global" || w == "nonlocal" || (w != name && prev.idx.names[w] > 0) {
			bad = true
		}
	})
	if bad {
		return nil
	}

	// The reduced file: every segment's text from the new version, except
	// other top-level kernels, which become stubs.
	shift := func(sp source.Span) source.Span {
		if sp.Start >= seg.span.End {
			return source.Span{Start: sp.Start + delta, End: sp.End + delta}
		}
		return sp
	}
	var buf []byte
	var pieces []piece
	stmtStarts := make([]source.Pos, 0, len(prev.segs))
	kStmt, kPiece := -1, -1
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
		}
		if sg.view >= 0 && i != j {
			pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: real.Start, n: source.Pos(len(cutStub)), stub: true})
			buf = append(buf, cutStub...)
			continue
		}
		if i == j {
			kPiece = len(pieces)
		}
		pieces = append(pieces, piece{syn: source.Pos(len(buf)), real: real.Start, n: real.End - real.Start})
		buf = append(buf, cur[real.Start:real.End]...)
	}
	res := Analyze(source.NewFile(f.Name, buf), s.opts)

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
	evals := evalKernels(res)
	ki := -1
	for i, ek := range evals {
		if ek != nil && ek.Def == fd {
			if ki >= 0 {
				return nil // several analyses of the def
			}
			ki = i
		}
	}
	ctxKernels := 0
	for _, v := range prev.Kernels {
		if !v.TopLevel {
			ctxKernels++
		}
	}
	if ki < 0 || len(res.Kernels) != ctxKernels+1 {
		return nil
	}
	kp := pieces[kPiece]
	kSyn := source.Span{Start: kp.syn, End: kp.syn + kp.n}
	ek := evals[ki]
	nv := &KernelView{Kernel: res.Kernels[ki], Buffers: ek.Buffers, Layouts: ek.Layouts, Shift: kp.real - kp.syn, Seg: newSeg, TopLevel: true, reduced: true}
	syntaxN := 0
	seen := map[diagKey]bool{}
	for _, d := range res.Diags {
		if kSyn.Contains(d.Span.Start) {
			nv.Diags = append(nv.Diags, mapDiag(d, pieces))
			seen[keyOf(d)] = true
			if strings.HasPrefix(d.Code, "syntax/") {
				syntaxN++
			}
		}
	}
	for _, d := range ek.Diags {
		if !kSyn.Contains(d.Span.Start) && !seen[keyOf(d)] {
			nv.Diags = append(nv.Diags, mapDiag(d, pieces))
			seen[keyOf(d)] = true
		}
	}
	diag.Sort(nv.Diags)

	// Every other kernel's syntax errors still count towards the cap.
	total := prev.idx.ctxSyntax + syntaxN
	for i, sg := range prev.segs {
		if i != j {
			total += sg.syntaxN
		}
	}
	if total >= maxSyntaxErrors {
		return nil
	}

	// Assemble: shift what follows the edit, remap the diagnostics.
	e := edit{at: source.Pos(p), oldEnd: source.Pos(oldEnd), delta: delta}
	snap := &Snapshot{File: f, Reanalysed: 1, idx: prev.idx, reduced: reduced}
	snap.segs = make([]segment, len(prev.segs))
	for i, sg := range prev.segs {
		sg.span = shift(sg.span)
		if i == j {
			sg.span, sg.syntaxN = newSeg, syntaxN
		}
		snap.segs[i] = sg
	}
	snap.Kernels = make([]*KernelView, len(prev.Kernels))
	for i, v := range prev.Kernels {
		if i == seg.view {
			snap.Kernels[i] = nv
			continue
		}
		if v.Seg.Start < seg.span.End {
			snap.Kernels[i] = v
			continue
		}
		nv := *v
		nv.Shift += delta
		nv.Seg = shift(v.Seg)
		nv.Diags = e.diags(v.Diags)
		snap.Kernels[i] = &nv
	}
	snap.ctxDiags = e.diags(prev.ctxDiags)
	all := append([]diag.Diagnostic(nil), snap.ctxDiags...)
	for _, v := range snap.Kernels {
		all = append(all, v.Diags...)
	}
	diag.Sort(all)
	snap.Diags = dedup(all)
	return snap
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
