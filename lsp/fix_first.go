package lsp

import (
	"context"
	"sync"
	"time"

	"github.com/tilels/tilels/dsl/diag"
)

// The verified fix first in the fallback warning (issue 18;
// lower/fix_first.go). A version's diagnostics are published at once,
// with the fixes its snapshot already knows; once the document has rested
// fixDelay, the fixes of at most fixAhead fallback-only warnings not known
// yet are computed in the background (lower.Snapshot.FallbackNote: each
// analyses changed copies of the file), and the version is published
// again with each fix first in its warning. A newer version stops the
// work between warnings and drops its result; the republish schedules the
// next fixAhead. The fixes stay with the snapshot: the code action on the
// warning offers the same result without computing it again.

// fixDelay is how long a document must rest before its fallback fixes are
// computed: typing never pays for them.
var fixDelay = 300 * time.Millisecond

// fixAhead bounds the warnings whose fixes one background round computes.
const fixAhead = 4

// fixState is a document's pending round: one timer, reset by each
// publish (no allocation on the keystroke path), and the snapshot whose
// fixes it computes.
type fixState struct {
	mu    sync.Mutex
	timer *time.Timer
	snap  *snapshot
	ds    []diag.Diagnostic // what the publish sent, before the notes
}

// withFixFirst returns ds with the known fixes first in their warnings
// (lower.Snapshot.FixFirst) and schedules a round for the others.
func (s *Server) withFixFirst(d *document, snap *snapshot, ds []diag.Diagnostic) []diag.Diagnostic {
	out, pending := snap.low.FixFirst(ds)
	asleep := d.isAsleep() // before st.mu: sleep holds d.mu, then st.mu
	st := &d.fixes
	st.mu.Lock()
	defer st.mu.Unlock()
	if pending == 0 || asleep {
		if st.timer != nil {
			st.timer.Stop()
		}
		st.snap, st.ds = nil, nil
		return out
	}
	st.snap, st.ds = snap, ds
	if st.timer == nil {
		st.timer = time.AfterFunc(fixDelay, func() { s.fixRound(d) })
	} else {
		st.timer.Reset(fixDelay)
	}
	return out
}

// drop forgets the pending round and its snapshot: an asleep document
// computes no fixes (they come when it is used again), and its dropped
// analysis must not stay reachable from here. Without it the twenty open
// files of BenchmarkResidentMemory20Files kept every analysis: 200-220
// MB resident instead of 50-60.
func (st *fixState) drop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.timer != nil {
		st.timer.Stop()
	}
	st.snap, st.ds = nil, nil
}

// fixRound computes the fixes of the next fixAhead warnings of the
// document's last published version and publishes it again.
func (s *Server) fixRound(d *document) {
	st := &d.fixes
	st.mu.Lock()
	snap, ds := st.snap, st.ds
	st.mu.Unlock()
	if snap == nil || d.isAsleep() {
		return
	}
	v := snap.text.version
	s.background("fallback fixes", func(ctx context.Context) {
		for _, dg := range snap.low.Pending(ds, fixAhead) {
			if ctx.Err() != nil || d.isClosed() || d.cur.Load().version != v {
				return
			}
			snap.low.FallbackNote(snap.opts, dg)
		}
		if d.isAsleep() {
			return // fell asleep meanwhile: no republish, no next round
		}
		s.publishDiagnostics(d, snap)
	})
}
