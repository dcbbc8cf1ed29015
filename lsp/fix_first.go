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
	st := &d.fixes
	st.mu.Lock()
	defer st.mu.Unlock()
	if pending == 0 {
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

// fixRound computes the fixes of the next fixAhead warnings of the
// document's last published version and publishes it again.
func (s *Server) fixRound(d *document) {
	st := &d.fixes
	st.mu.Lock()
	snap, ds := st.snap, st.ds
	st.mu.Unlock()
	if snap == nil {
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
		s.publishDiagnostics(d, snap)
	})
}
