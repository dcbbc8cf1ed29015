package lower

import (
	"bytes"
	"sort"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
)

// incr is one incremental update of a Session: the previous snapshot,
// the new file, the edit between them and what re-parsing its region
// found.
type incr struct {
	s    *Session
	prev *Snapshot
	f    *source.File
	e    edit
	// newEnd is where the edit's text ends in the new file.
	newEnd source.Pos

	// r is the new file's region around the edit (syntax.ParseRegion),
	// ro the same region of the previous file (parsed when needed). The
	// previous segments prev.segs[j0:j1] are the region's; segs are the
	// new file's segments, rs the region's among them: segs[j0:j0+rs].
	r, ro  *syntax.Region
	j0, j1 int
	segs   []segment
	rs     int
	seams  []syntax.Seam
	// newEffectful are the effectful names of the new module-level code
	// (effectfulNames), once parsed.
	newEffectful map[string]bool
}

// incremental tries the incremental paths; nil means "analyse the whole
// file".
func (s *Session) incremental(f *source.File) *Snapshot {
	prev := s.last
	old, cur := prev.File.Src, f.Src
	if bytes.Equal(old, cur) {
		snap := *prev
		snap.File, snap.Full, snap.Reanalysed = f, false, 0
		return &snap
	}
	if !prev.idx.ok || prev.seams == nil {
		return nil
	}
	p, oldEnd, newEnd := diffRegion(old, cur)
	// An edit that may change which release the file shows (a dispatch=
	// name, an import only some releases have, a pin) analyses the whole
	// file under the release chosen again. Only the edited region, widened
	// by the longest needle, can change the needles' counts.
	if prev.Reference.Source != RefSetting {
		if referenceEditChanges(old, cur, p, oldEnd, newEnd) {
			return nil
		}
	}
	if prev.pinnedEdit(old, cur, p, oldEnd, newEnd) {
		return nil
	}
	u := &incr{s: s, prev: prev, f: f, newEnd: source.Pos(newEnd),
		e: edit{at: source.Pos(p), oldEnd: source.Pos(oldEnd), delta: source.Pos(newEnd - oldEnd)}}
	if !u.region() || u.referenceRegionChanges() {
		return nil
	}
	if snap, done := u.unchanged(); done {
		return snap
	}
	return u.changed()
}

// region re-parses the region around the edit (syntax.ParseRegion): from
// the seam RegionStart picks to the first seam after the edit that was a
// seam of the previous version, so that the statements, seams and syntax
// errors outside the region are the previous ones (shifted after it). It
// builds the new segment list. The measurement that justified it: the
// whole-file parse that checked the structure of a one-kernel update was
// 48 % of a keystroke's CPU in a 3,000-line file (issue 13).
func (u *incr) region() bool {
	prev, e := u.prev, u.e
	seams := prev.seams
	k := syntax.RegionStart(seams, prev.File.Src, e.at)
	from := seams[k].Pos
	stop := func(q source.Pos) bool {
		qo := q - e.delta
		i := sort.Search(len(seams), func(i int) bool { return seams[i].Pos >= qo })
		return i < len(seams) && seams[i].Pos == qo && seams[i].CanStop()
	}
	r, ok := syntax.ParseRegion(u.f, from, u.newEnd, stop)
	if !ok {
		return false
	}
	u.r = r
	qOld := r.End - e.delta
	// The previous segments the region replaces: from the one at from to
	// the one at qOld (the end of the file when the region runs to it).
	u.j0 = segAt(prev.segs, from)
	if u.j0 < 0 || prev.segs[u.j0].span.Start != from {
		return false
	}
	u.j1 = len(prev.segs)
	if int(qOld) < len(prev.File.Src) {
		u.j1 = segAt(prev.segs, qOld)
		if u.j1 < 0 || prev.segs[u.j1].span.Start != qOld {
			return false
		}
	}
	// The region's segments.
	var rsegs []segment
	if u.j0 == 0 {
		first := r.End
		if len(r.Body) > 0 {
			first = r.Body[0].Span().Start
		}
		rsegs = append(rsegs, segment{span: source.Span{Start: 0, End: first}, lo: -1})
	} else if len(r.Body) == 0 || r.Body[0].Span().Start != from {
		return false
	}
	for i, st := range r.Body {
		end := r.End
		if i+1 < len(r.Body) {
			end = r.Body[i+1].Span().Start
		}
		rsegs = append(rsegs, segment{span: source.Span{Start: st.Span().Start, End: end}, lo: -1, stmt: true})
	}
	u.rs = len(rsegs)
	u.segs = make([]segment, 0, len(prev.segs)-(u.j1-u.j0)+len(rsegs))
	u.segs = append(u.segs, prev.segs[:u.j0]...)
	u.segs = append(u.segs, rsegs...)
	for _, sg := range prev.segs[u.j1:] {
		sg.span = source.Span{Start: sg.span.Start + e.delta, End: sg.span.End + e.delta}
		u.segs = append(u.segs, sg)
	}
	// The seams, and the error counts they carry: past the parser's
	// collection cap a region's errors depend on the whole file.
	ks := sort.Search(len(seams), func(i int) bool { return seams[i].Pos >= qOld })
	if int(qOld) >= len(prev.File.Src) {
		ks = len(seams)
	}
	u.seams = make([]syntax.Seam, 0, k+len(r.Seams)+len(seams)-ks)
	u.seams = append(u.seams, seams[:k]...)
	u.seams = append(u.seams, r.Seams...)
	for _, sm := range seams[ks:] {
		sm.Pos += e.delta
		u.seams = append(u.seams, sm)
	}
	raw := 0
	for _, sm := range u.seams {
		raw += int(sm.Errs)
	}
	if raw >= maxCollectedSyntax {
		return false
	}
	// The syntax errors reported in all: under the parser's cap of 50.
	n := len(r.Diags)
	for _, d := range prev.Diags {
		if strings.HasPrefix(d.Code, "syntax/") && (d.Span.Start < from || d.Span.Start >= qOld) {
			n++
		}
	}
	return n < maxSyntaxErrors
}

// maxCollectedSyntax is the parser's cap on the errors it collects before
// filtering them (dsl/syntax maxCollectedErrors).
const maxCollectedSyntax = 200

// oldRegion parses the previous file's text of the region (nil when it
// does not parse as one region, which does not happen for two seams of
// the same parse).
func (u *incr) oldRegion() *syntax.Region {
	if u.ro != nil {
		return u.ro
	}
	qOld := u.r.End - u.e.delta
	var stop func(source.Pos) bool
	if int(qOld) < len(u.prev.File.Src) {
		stop = func(q source.Pos) bool { return q == qOld }
	}
	ro, ok := syntax.ParseRegion(u.prev.File, u.r.Start, qOld, stop)
	if !ok || ro.End != qOld {
		return nil
	}
	u.ro = ro
	return ro
}

// unchanged handles an edit that changes no token: text between two
// logical lines (in a comment, in blank lines, in the line breaks and
// indentation that make the same INDENT and DEDENT tokens) whose lines do
// not mention `tilels` (a comment can be a `# tilels: bind` directive).
// Every analysis result is the previous one, its spans shifted: nothing is
// analysed again, unless a kernel's own spans lie on both sides of the
// edit (a comment typed inside a kernel), which its single Shift cannot
// express: such kernels are analysed again as if edited. done is false
// when the edit changes tokens. Measured: a comment typed on the first
// line of a 30,000-line file analysed the whole file (p99 335 ms).
func (u *incr) unchanged() (snap *Snapshot, done bool) {
	e, r := u.e, u.r
	if !r.BetweenLines(e.at, u.newEnd) {
		return nil, false
	}
	old, cur := u.prev.File.Src, u.f.Src
	if mentionsTilels(lineAround(old, e.at, e.oldEnd)) || mentionsTilels(lineAround(cur, e.at, u.newEnd)) {
		return nil, false
	}
	ro := u.oldRegion()
	// A line with a syntax error may end in an empty BadExpr at its NEWLINE:
	// text inserted right before that NEWLINE is then inside a span.
	if ro != nil && len(ro.Diags) > 0 && ro.NewlineAt(e.at) {
		return nil, false
	}
	if ro == nil || !ro.BetweenLines(e.at, e.oldEnd) || !syntax.SameTokens(ro, r) || len(ro.Seams) != len(r.Seams) || len(ro.Diags) != len(r.Diags) {
		return nil, false
	}
	for i, d := range ro.Diags {
		n := r.Diags[i]
		if e.span(d.Span) != n.Span || d.Code != n.Code || d.Message != n.Message {
			return nil, false
		}
	}
	for i, sm := range ro.Seams {
		n := r.Seams[i]
		if e.pos(sm.Pos) != n.Pos || sm.Errs != n.Errs || sm.ErrAtPos != n.ErrAtPos || sm.UnclosedToNext != n.UnclosedToNext {
			return nil, false
		}
	}
	if u.rs != u.j1-u.j0 {
		return nil, false
	}
	// The region's segments are the previous ones, moved.
	for i := range u.rs {
		sg := u.prev.segs[u.j0+i]
		sg.span = u.segs[u.j0+i].span
		u.segs[u.j0+i] = sg
	}
	// Kernels whose spans straddle the edit are analysed again.
	var again []int
	module := false
	for _, views := range [][]*KernelView{u.prev.Kernels, u.prev.Partial} {
		for _, v := range views {
			if u.side(v) != 0 {
				continue
			}
			if !v.TopLevel {
				module = true
				continue
			}
			if k := segAt(u.segs, e.pos(v.Seg.Start)); k >= 0 && (len(again) == 0 || again[len(again)-1] != k) {
				again = append(again, k)
			}
		}
	}
	if module || len(again) > 0 {
		return u.reanalyse(again, module, nil), true
	}
	prev := u.prev
	snap = &Snapshot{File: u.f, segs: u.segs, fixes: &fixCache{}, seams: u.seams, idx: prev.idx, Imports: prev.Imports,
		Reference: prev.Reference}
	snap.Kernels = u.moveViews(prev.Kernels)
	snap.Partial = u.moveViews(prev.Partial)
	snap.ctxDiags = e.diags(prev.ctxDiags)
	snap.Diags = e.diags(prev.Diags)
	return snap, true
}

// side tells where a view's spans lie relative to the edit: -1 all before
// it, 1 all after it, 0 on both sides (or inside).
func (u *incr) side(v *KernelView) int {
	x := v.ToFile(v.ext)
	switch {
	case x.End <= u.e.at:
		return -1
	case x.Start >= u.e.oldEnd:
		return 1
	}
	return 0
}

// moveViews returns the views moved by the edit (their segments taken
// from u.segs); they all lie on one side of it.
func (u *incr) moveViews(views []*KernelView) []*KernelView {
	out := make([]*KernelView, len(views))
	for i, v := range views {
		seg := u.e.span(v.Seg)
		if v.TopLevel {
			seg = u.segs[u.newSeg(v)].span
		}
		out[i] = u.moveView(v, seg)
	}
	return out
}

// lineAround returns the lines of src that [from, to) touches.
func lineAround(src []byte, from, to source.Pos) []byte {
	a := bytes.LastIndexByte(src[:from], '\n') + 1
	b := bytes.IndexByte(src[to:], '\n')
	if b < 0 {
		return src[a:]
	}
	return src[a : int(to)+b]
}

// changed handles an edit that changes tokens: inside one top-level
// kernel (that kernel is analysed again), or in module-level code (the
// kernels that may read what it changed are, with the module-level code).
// Anything else is analysed whole.
func (u *incr) changed() *Snapshot {
	prev := u.prev
	oldSegs := prev.segs[u.j0:u.j1]
	newSegs := u.segs[u.j0 : u.j0+u.rs]
	kernels := 0
	for _, sg := range oldSegs {
		if sg.kernel() {
			kernels++
		}
	}
	if kernels == 1 && len(oldSegs) == 1 && len(newSegs) == 1 {
		return u.kernelEdit()
	}
	if kernels == 0 {
		return u.moduleEdit()
	}
	return nil
}

// kernelEdit is an edit inside one top-level kernel def: the reduced
// analysis of that kernel alone (see Session).
func (u *incr) kernelEdit() *Snapshot {
	prev := u.prev
	j := u.j0
	seg := prev.segs[j]
	if seg.directive {
		return nil
	}
	name := prev.views(seg)[0].Kernel.Name
	st, ok := u.r.Body[0].(*syntax.FunctionDef)
	if !ok || st.Name == nil || st.Name.Id != name || !kernelDecorated(st) || factsOf(st).uncertain {
		return nil
	}
	if _, ok := prev.idx.ctxFirst[name]; ok || j > prev.idx.minKernelRef {
		return nil
	}
	nseg := u.segs[j]
	bad := false
	eachIdent(u.f.Src[nseg.span.Start:nseg.span.End], func(id []byte) {
		w := string(id) // no allocation: only compared and looked up
		if w == "global" || w == "nonlocal" || w == "tilels" || (w != name && prev.idx.names[w] > 0) || prev.idx.effectful[w] {
			bad = true
		}
	})
	if bad {
		return nil
	}
	u.segs[j].lo = 0 // a kernel segment (reanalyse sets the records)
	return u.reanalyse([]int{j}, false, nil)
}

// kernelDecorated reports whether fd is decorated as a kernel (as
// dsl/eval recognises one: *.prim_func, *.jit, prim_func, or calls of
// them).
func kernelDecorated(fd *syntax.FunctionDef) bool {
	for _, d := range fd.Decorators {
		if c, ok := d.(*syntax.Call); ok {
			d = c.Func
		}
		if a, ok := d.(*syntax.Attribute); ok && (a.Attr.Id == "prim_func" || a.Attr.Id == "jit") {
			return true
		}
		if n, ok := d.(*syntax.Name); ok && n.Id == "prim_func" {
			return true
		}
	}
	return false
}

// kernelNames returns the names of the kernel-decorated top-level defs of ss.
func kernelNames(ss []syntax.Stmt) []string {
	var out []string
	for _, s := range ss {
		if fd, ok := s.(*syntax.FunctionDef); ok && kernelDecorated(fd) && fd.Name != nil {
			out = append(out, fd.Name.Id)
		}
	}
	return out
}

// moduleEdit is an edit of module-level code only: the module-level code
// is analysed again with the kernels that may read what the edit changed
// (session_deps.go); the other kernels keep their results.
func (u *incr) moduleEdit() *Snapshot {
	prev, r := u.prev, u.r
	ro := u.oldRegion()
	if ro == nil || prev.idx.uncertain {
		return nil
	}
	// The region must not add, remove or rename kernel defs (a def made a
	// kernel is a new segment of its own; whole-file analysis decides).
	if !equalStrings(kernelNames(ro.Body), kernelNames(r.Body)) {
		return nil
	}
	// changed: the names the old and new statements bind, but for those
	// with the same span (moved by the edit) in both versions, which have
	// the same text and, being top-level statements, the same meaning.
	same := map[source.Span]bool{}
	for _, st := range ro.Body {
		if sp := u.e.movedSpan(st.Span()); sp.IsValid() {
			same[sp] = true
		}
	}
	kept := map[source.Span]bool{}
	for _, st := range r.Body {
		if same[st.Span()] {
			kept[st.Span()] = true
		}
	}
	changed := map[string]bool{}
	for k, ss := range [][]syntax.Stmt{ro.Body, r.Body} {
		for _, st := range ss {
			sp := st.Span()
			if k == 0 {
				sp = u.e.movedSpan(sp)
			}
			if kept[sp] {
				continue
			}
			fs := factsOf(st)
			if fs.uncertain || fs.control {
				return nil
			}
			for _, b := range fs.binds {
				changed[b] = true
			}
		}
	}
	for i := u.j0; i < u.j0+u.rs; i++ {
		u.segs[i].uncertain = false
	}
	return u.reanalyse(nil, true, changed)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// directiveTail returns where the comment block at the end of segment i
// starts when the segment mentions `tilels` (it may end with a directive
// for the def below), and -1 otherwise.
func directiveTail(src []byte, sg segment) source.Pos {
	if !mentionsTilels(src[sg.span.Start:sg.span.End]) {
		return -1
	}
	return commentTail(src, sg.span)
}

// diagsIn reports whether some diagnostic of ds has a code with prefix.
func diagsIn(ds []diag.Diagnostic, prefixes ...string) bool {
	for _, d := range ds {
		for _, p := range prefixes {
			if strings.HasPrefix(d.Code, p) {
				return true
			}
		}
	}
	return false
}
