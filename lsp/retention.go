package lsp

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/tilels/tilels/lower"
)

// Memory that scales with what is open.
//
// A document's analysis (its lower.Session and its snapshot: every
// kernel's evaluated and lowered IR, dispatch decisions, buffer and
// layout sites, and the printing caches) is about 2.9 MB of live heap for
// a 3,000-line file, against 0.1 MB for its text. The server keeps the
// analyses of the warmDocs documents used most recently and lets every
// other open document fall asleep: it keeps its text, and its
// diagnostics stay published, but its analysis is dropped as soon as
// none is running.
//
// LSP has no notification for which documents an editor shows, so
// "used" is recency: a document is used when it is opened or edited and
// whenever a request names it (hover, inlay hints, code lenses, symbols,
// definition, code actions, commands, lowered views). Editors ask for
// hints, lenses and hovers of the documents they show, so those stay
// warm. A request for an asleep document wakes it: its newest text is
// analysed again, whole (about 20 ms for 3,000 lines on the 2-core
// development machine), and the request answers from that analysis, as
// it does for a document just opened. The diagnostics of a wake-up
// analysis are not published again: the same text under the same
// settings has the same diagnostics. A settings change analyses asleep
// documents too (their diagnostics may change), and they fall asleep
// again afterwards.
//
// Measured with BenchmarkResidentMemory20Files and the With20Open
// benchmarks (twenty other 3,000-line files open): see runtime.go.
const warmDocs = 4

// retention orders the open documents by their last use.
type retention struct {
	clock atomic.Int64
	// last is the document used most recently: using it again changes no
	// ranking, so no sweep is needed (a hover per keystroke costs nothing
	// here).
	last atomic.Pointer[document]
}

// use marks d as used now; when that changed the ranking, the documents
// it pushed out of the warm set fall asleep.
func (s *Server) use(d *document) {
	d.lastUse.Store(s.keep.clock.Add(1))
	if s.keep.last.Swap(d) != d {
		s.sweep()
	}
}

// sweep puts every open document outside the warmDocs most recently used
// to sleep (those with an analysis running or pending fall asleep when
// it completes: the worker sweeps when it stops).
func (s *Server) sweep() {
	s.mu.Lock()
	if len(s.docs) <= warmDocs {
		s.mu.Unlock()
		return
	}
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	slices.SortFunc(docs, func(a, b *document) int { return cmp.Compare(b.lastUse.Load(), a.lastUse.Load()) })
	for _, d := range docs[warmDocs:] {
		d.sleep()
		s.sleepMachine(d) // machine.go
	}
}

// sleep drops d's analysis when no analysis of it is running or pending:
// the snapshot (with its printing caches) and the session, whose next
// analysis is then of the whole file.
func (d *document) sleep() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.asleep || d.running || d.want != nil || d.snap.Load() == nil {
		return
	}
	d.asleep = true
	d.snap.Store(nil)
	d.session = lower.NewSession(d.session.Options())
	d.fixes.drop() // fix_first.go: its pending round held the snapshot
}

// wake starts the analysis of an asleep document's newest text (the
// caller then waits for it, as for a document just opened).
func (d *document) wake() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.asleep {
		d.enqueueLocked(d.cur.Load())
	}
}

// republish reports whether snap's diagnostics must be published: not
// when they are those of the version and settings published last (the
// analysis that woke an asleep document up). Called by the worker only.
func (d *document) republish(snap *snapshot) bool {
	if d.shown.ok && d.shown.version == snap.text.version && d.shown.epoch == snap.epoch {
		return false
	}
	d.shown.ok, d.shown.version, d.shown.epoch = true, snap.text.version, snap.epoch
	return true
}
