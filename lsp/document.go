package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// docText is one version of a document's text. It is never modified.
type docText struct {
	version int32
	src     []byte
	m       *Mapper
}

func newText(version int32, src []byte) *docText {
	return &docText{version: version, src: src, m: NewMapper(src)}
}

// snapshot is the complete analysis of one docText. It is never modified;
// the kernel defs are computed once, on first use.
type snapshot struct {
	text  *docText
	low   *lower.Snapshot
	opts  lower.Options
	epoch int64 // the document's settings epoch it was analysed under
	defs  func() []*kdef
	// prints holds what hovers, views and summaries printed of the
	// kernels, each kernel once: the snapshots of a document share it
	// under the same settings (keepPrints), so a kernel an edit did not
	// touch is not printed again.
	prints *lower.Prints
}

func newSnapshot(t *docText, low *lower.Snapshot, opts lower.Options, epoch int64) *snapshot {
	return &snapshot{
		text: t, low: low, opts: opts, epoch: epoch,
		defs:   sync.OnceValue(func() []*kdef { return buildDefs(low) }),
		prints: lower.NewPrints(opts),
	}
}

// keepPrints makes s share prev's printing cache, when prev was analysed
// under the same settings, less the kernels s no longer has.
func (s *snapshot) keepPrints(prev *snapshot) {
	if prev == nil || prev.epoch != s.epoch || prev.prints.Len() == 0 {
		return
	}
	s.prints = prev.prints
	s.prints.Retain(s.low.KernelList())
}

// kernels returns the records to print for the named kernel (every def
// when name is empty): the selected case of each def with that name.
// Partial defs have nothing to print.
func (s *snapshot) kernels(sel selection, name string) (ks []*lower.Kernel, cased []*lower.Kernel) {
	for _, d := range s.defs() {
		if d.partial || (name != "" && d.name() != name) {
			continue
		}
		k := sel.chosen(d).Kernel
		ks = append(ks, k)
		if d.cases() {
			cased = append(cased, k)
		}
	}
	return ks, cased
}

// lowered returns the CUDA and TIRx of the named kernel (all kernels when
// name is empty), each def in its selected case.
func (s *snapshot) lowered(sel selection, name string) (cuda, tirx string, err error) {
	ks, _ := s.kernels(sel, name)
	if len(ks) == 0 && name != "" {
		return "", "", s.noKernel(name)
	}
	if s.opts.LineDirectives != nil {
		// The lineDirectives setting: printed anew, lines of this text.
		var views []*lower.KernelView
		for _, d := range s.defs() {
			if !d.partial && (name == "" || d.name() == name) {
				views = append(views, sel.chosen(d))
			}
		}
		cuda, err = lower.CUDALines(views, s.opts, lower.LineDirectives{Source: s.low.File, Path: s.opts.Path})
	} else {
		cuda, err = s.prints.CUDA(ks)
	}
	return cuda, s.prints.TIRx(ks), err
}

// noKernel explains why name has nothing to print.
func (s *snapshot) noKernel(name string) error {
	for _, d := range s.defs() {
		if d.partial && d.name() == name {
			return fmt.Errorf("kernel %s is unresolved: it needs %s (see the information diagnostic at the parameter)", name, strings.Join(d.recs[0].Kernel.Needs, ", "))
		}
	}
	return fmt.Errorf("no kernel named %q", name)
}

// document is one open text document.
type document struct {
	uri  uri.URI
	path string // file system path ("" when the URI is not a file)
	srv  *Server

	cur  atomic.Pointer[docText]   // the newest text (written on the read loop)
	snap atomic.Pointer[snapshot]  // the last complete analysis
	sel  atomic.Pointer[selection] // the selected cases (written under mu)

	mu      sync.Mutex
	want    *docText // newest text not yet taken by the worker
	running bool
	cancel  context.CancelFunc // cancels the analysis in flight
	session *lower.Session     // used by the worker only
	epoch   int64              // bumped when the settings change
	closed  bool
	failed  *int32        // the last version whose analysis panicked (nil: none)
	changed chan struct{} // closed (and replaced) when snap or failed changes

	pubMu      sync.Mutex
	published  bool
	pubVersion int32
	pubCount   int      // publishDiagnostics sent (previews included), for hookPublished
	fixes      fixState // the background fallback fixes (fix_first.go)

	// Retention (retention.go): lastUse ranks the document by its last
	// use; an asleep document (under mu) has dropped its analysis; shown
	// is the version and settings epoch whose diagnostics the worker
	// published last (worker only).
	lastUse atomic.Int64
	asleep  bool
	shown   struct {
		ok      bool
		version int32
		epoch   int64
	}
}

func (s *Server) newDocument(u uri.URI, t *docText) *document {
	path := ""
	if u.IsFile() {
		path = u.FsPath()
	}
	d := &document{uri: u, path: path, srv: s, changed: make(chan struct{}), session: lower.NewSession(s.docOptionsIn(s.settings(), path, slices.Clone(s.folders)))} // s.mu is held
	d.cur.Store(t)
	return d
}

// name is the document's file name for diagnostics and output files.
func (d *document) name() string {
	if d.path != "" {
		return filepath.Base(d.path)
	}
	return uri.Basename(d.uri)
}

// schedule makes t the next text to analyse and cancels the analysis in
// flight; one worker goroutine per document analyses the newest text.
// The document counts as used (retention.go).
func (d *document) schedule(t *docText) {
	d.srv.use(d)
	d.enqueue(t)
}

// enqueue is schedule without the use: a settings change re-analyses
// every document, used or not.
func (d *document) enqueue(t *docText) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.enqueueLocked(t)
}

func (d *document) enqueueLocked(t *docText) {
	if d.closed {
		return
	}
	d.want = t
	d.asleep = false
	if d.cancel != nil {
		d.cancel()
	}
	if !d.running {
		d.running = true
		go d.work()
	}
}

// reconfigure starts a new session with opts and re-analyses the newest text.
func (d *document) reconfigure(opts lower.Options) {
	d.mu.Lock()
	d.session = lower.NewSession(opts)
	d.epoch++
	d.mu.Unlock()
	d.enqueue(d.cur.Load())
}

func (d *document) work() {
	for {
		d.mu.Lock()
		t := d.want
		d.want = nil
		if t == nil || d.closed {
			d.running, d.cancel = false, nil
			d.mu.Unlock()
			d.srv.sweep() // an idle document outside the warm set falls asleep
			if d.srv.hookIdle != nil {
				d.srv.hookIdle()
			}
			return
		}
		ctx, cancel := context.WithCancel(d.srv.ctx)
		d.cancel = cancel
		sess, epoch := d.session, d.epoch
		d.mu.Unlock()

		snap := d.analyze(ctx, sess, epoch, t)
		cancelled := ctx.Err() != nil
		cancel()
		if snap == nil {
			continue
		}
		d.mu.Lock()
		current := d.session == sess && !d.closed
		if current {
			snap.keepPrints(d.snap.Load())
			d.snap.Store(snap)
			close(d.changed)
			d.changed = make(chan struct{})
		}
		d.mu.Unlock()
		if current && !cancelled && d.republish(snap) {
			d.srv.published(d, snap)
		}
	}
}

// analyze runs the session on t; nil when cancelled before it started or
// when the pipeline panicked (a bug: logged, and the session restarted).
func (d *document) analyze(ctx context.Context, sess *lower.Session, epoch int64, t *docText) (snap *snapshot) {
	defer func() {
		if r := recover(); r != nil {
			d.srv.log.Error("panic in analysis", "uri", string(d.uri), "version", t.version, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			d.mu.Lock()
			if d.session == sess {
				d.session = lower.NewSession(sess.Options())
			}
			if !d.closed {
				v := t.version
				d.failed = &v
				close(d.changed)
				d.changed = make(chan struct{})
			}
			d.mu.Unlock()
			snap = nil
		}
	}()
	select {
	case d.srv.analyses <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	defer func() { <-d.srv.analyses }()
	if d.srv.hookAnalyze != nil {
		d.srv.hookAnalyze()
	}
	if len(t.src) > maxDocumentBytes {
		return newSnapshot(t, refusedSnapshot(source.NewFile(d.name(), t.src)), sess.Options(), epoch)
	}
	// An update that re-analyses a def with many cases publishes a
	// preview first (lower.Session.AnalyzeWithPreview).
	low, err := sess.AnalyzeWithPreview(ctx, source.NewFile(d.name(), t.src), func(pv *lower.Preview) {
		d.srv.publishPreview(d, t, pv) // publish_diagnostics.go
	})
	if err != nil {
		return nil
	}
	return newSnapshot(t, low, sess.Options(), epoch)
}

// refusedSnapshot stands for the analysis of a document larger than
// maxDocumentBytes: nothing is analysed, and one lower/too-large error at
// its start says why.
func refusedSnapshot(f *source.File) *lower.Snapshot {
	d := diag.Errorf(source.Span{}, lower.CodeTooLarge, "document of %d bytes is larger than %d bytes (%d MiB); tilels does not analyse it", len(f.Src), maxDocumentBytes, maxDocumentBytes>>20)
	return &lower.Snapshot{File: f, Full: true, Diags: []diag.Diagnostic{d}}
}

// errClosed is returned to requests waiting on a document that was closed.
var errClosed = errors.New("the document was closed")

// await returns the first snapshot of the newest text under the current
// settings, waiting for its analysis (requests that must not answer from
// an older version: commands and lowered views).
func (d *document) await(ctx context.Context) (*snapshot, error) {
	d.srv.use(d)
	d.wake()
	for {
		d.mu.Lock()
		s, ch, closed, epoch, failed := d.snap.Load(), d.changed, d.closed, d.epoch, d.failed
		want := d.cur.Load().version
		d.mu.Unlock()
		if closed {
			return nil, errClosed
		}
		if failed != nil && *failed == want {
			return nil, fmt.Errorf("the analysis of version %d failed (a bug in tilels; see the server log)", want)
		}
		if s != nil && s.text.version >= want && s.epoch == epoch {
			return s, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (d *document) close() {
	d.mu.Lock()
	d.closed = true
	if d.cancel != nil {
		d.cancel()
	}
	// Nothing is read from a closed document: drop its analysis now
	// (requests in flight keep what they hold).
	d.snap.Store(nil)
	d.session = nil
	if d.srv != nil {
		d.srv.keep.last.CompareAndSwap(d, nil)
	}
	close(d.changed)
	d.changed = make(chan struct{})
	d.mu.Unlock()
}

func (d *document) isAsleep() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asleep
}

func (d *document) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// view pairs the newest text with the last complete snapshot. Positions
// the client sends refer to the newest text; what the snapshot knows is
// carried over through the one region where the two texts differ
// (anything inside that region has no counterpart).
type view struct {
	doc  *document
	cur  *docText
	snap *snapshot // nil before the first analysis completes
	same bool
	// snap.text.src[p:oldEnd] became cur.src[p:newEnd].
	p, oldEnd, newEnd int
}

// readView is view for a request: before the document's first analysis
// completes it waits for it (there is nothing older to answer from).
func (d *document) readView(ctx context.Context) (*view, error) {
	d.srv.use(d)
	if d.snap.Load() == nil {
		if _, err := d.await(ctx); err != nil {
			return nil, err
		}
	}
	return d.view(), nil
}

func (d *document) view() *view {
	v := &view{doc: d, cur: d.cur.Load(), snap: d.snap.Load()}
	if v.snap == nil {
		return v
	}
	if v.snap.text == v.cur {
		v.same = true
		return v
	}
	v.p, v.oldEnd, v.newEnd = diffRegion(v.snap.text.src, v.cur.src)
	v.same = v.p == v.oldEnd && v.p == v.newEnd
	return v
}

// snapPos maps an LSP position in the newest text to an offset in the
// snapshot's text.
func (v *view) snapPos(p protocol.Position) (source.Pos, bool) {
	off := v.cur.m.Offset(p)
	switch {
	case v.same || off < v.p:
		return source.Pos(off), true
	case off >= v.newEnd:
		return source.Pos(off - v.newEnd + v.oldEnd), true
	}
	return 0, false
}

// curOff maps an offset of the snapshot's text to the newest text.
func (v *view) curOff(off source.Pos, end bool) (int, bool) {
	o := int(off)
	switch {
	case v.same || o < v.p || (end && o == v.p):
		return o, true
	case o >= v.oldEnd:
		return o - v.oldEnd + v.newEnd, true
	}
	return 0, false
}

// rangeOf maps a span of the snapshot's text to a range of the newest text.
func (v *view) rangeOf(s source.Span) (protocol.Range, bool) {
	if !s.IsValid() {
		return protocol.Range{}, false
	}
	a, ok1 := v.curOff(s.Start, false)
	b, ok2 := v.curOff(s.End, true)
	if !ok1 || !ok2 || b < a {
		return protocol.Range{}, false
	}
	return protocol.Range{Start: v.cur.m.Position(a), End: v.cur.m.Position(b)}, true
}

// diffRegion returns the one replacement that turns a into b: a[p:aEnd]
// became b[p:bEnd], with maximal common prefix and suffix.
func diffRegion(a, b []byte) (p, aEnd, bEnd int) {
	n := min(len(a), len(b))
	for p+64 <= n && string(a[p:p+64]) == string(b[p:p+64]) {
		p += 64
	}
	for p < n && a[p] == b[p] {
		p++
	}
	s, m := 0, n-p
	for s+64 <= m && string(a[len(a)-s-64:len(a)-s]) == string(b[len(b)-s-64:len(b)-s]) {
		s += 64
	}
	for s < m && a[len(a)-s-1] == b[len(b)-s-1] {
		s++
	}
	return p, len(a) - s, len(b) - s
}
