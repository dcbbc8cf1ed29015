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

// fixState is a document's pending round.
type fixState struct {
	mu    sync.Mutex
	timer *time.Timer
}

// withFixFirst returns ds with the known fixes first in their warnings
// (lower.Snapshot.FixFirst) and schedules a round for the others.
func (s *Server) withFixFirst(d *document, snap *snapshot, ds []diag.Diagnostic) []diag.Diagnostic {
	ds, pending := snap.low.FixFirst(ds)
	st := &d.fixes
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
	if len(pending) == 0 {
		return ds
	}
	v := snap.text.version
	st.timer = time.AfterFunc(fixDelay, func() {
		s.background("fallback fixes", func(ctx context.Context) {
			for i, dg := range pending {
				if i == fixAhead {
					break
				}
				if ctx.Err() != nil || d.isClosed() || d.cur.Load().version != v {
					return
				}
				snap.low.FallbackNote(snap.opts, dg)
			}
			s.publishDiagnostics(d, snap)
		})
	})
	return ds
}
