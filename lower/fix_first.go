package lower

// The fix first in the warning (issue 18): a dispatch/fallback-only
// warning whose verified fix (fix.go, fallbackFixes) is known says it
// before the decline reasons:
//
//	copy lowers only through fallback (scalar, single thread); fix: change
//	the tile extent 30 to 32 and 10 to 12 (gmem_smem applies, verified) —
//	gmem_smem: region size 300 not divisible by thread_cnt=128
//
// The fix costs analyses of the changed file (up to maxVerify per
// warning), too much for the keystroke path: the language server
// publishes a version's diagnostics first, then computes the fixes of a
// few fallback-only warnings in the background (FallbackNote) and
// publishes the version again with FixFirst. The fixes are kept with the
// snapshot, so the quick fix a code action offers is the same result.
// `tilels --lower` computes them all before it prints (FixFirstResult).

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/tilels/tilels/dsl/diag"
)

// fixEntry is what a diagnostic's quick fixes are: the fixes, and for a
// fallback-only warning the note of the preferred one ("" for none).
type fixEntry struct {
	fixes []Fix
	note  string
}

// fixCell computes one diagnostic's entry once; a second caller waits for
// the first (the code action asked while the background computes it).
type fixCell struct {
	once sync.Once
	e    fixEntry
	done atomic.Bool // e is computed
}

// fixCache holds a snapshot's fix entries by diagnostic. Each snapshot
// constructor makes one; a version whose text did not change shares its
// predecessor's (session_update.go copies the snapshot). A nil cache
// keeps nothing.
type fixCache struct {
	mu    sync.Mutex
	cells map[perfKey]*fixCell
	// skipped are the warnings FallbackNote left out (maxFixCalls): no
	// note, while a code action still computes their fixes.
	skipped map[perfKey]bool
	// reruns are the analyses of the file changed by the candidates'
	// edits, by edit set (fix_rerun.go)
	reruns map[string]*rerunCell
	// assigns are the file's top-level assignment lines (moduleAssigns)
	assignsOnce sync.Once
	assigns     [][]int
}

// skip records that FallbackNote left key out.
func (c *fixCache) skip(key perfKey) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.skipped == nil {
		c.skipped = map[perfKey]bool{}
	}
	c.skipped[key] = true
}

// cell returns key's cell, made when make is set (nil otherwise when
// there is none).
func (c *fixCache) cell(key perfKey, make bool) *fixCell {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.cells[key]
	if fc == nil && make {
		if c.cells == nil {
			c.cells = map[perfKey]*fixCell{}
		}
		fc = &fixCell{}
		c.cells[key] = fc
	}
	return fc
}

// get returns key's entry, computed by compute the first time.
func (c *fixCache) get(key perfKey, compute func() fixEntry) fixEntry {
	if c == nil {
		return compute()
	}
	fc := c.cell(key, true)
	fc.once.Do(func() {
		fc.e = compute()
		fc.done.Store(true)
	})
	return fc.e
}

// known returns key's entry when its computation has finished, or an
// empty one when FallbackNote left it out.
func (c *fixCache) known(key perfKey) (fixEntry, bool) {
	if c == nil {
		return fixEntry{}, false
	}
	c.mu.Lock()
	fc, skipped := c.cells[key], c.skipped[key]
	c.mu.Unlock()
	if fc != nil && fc.done.Load() {
		return fc.e, true
	}
	return fixEntry{}, skipped
}

// fallbackMemo returns the fixes and note of the fallback-only warning d,
// computed once per snapshot.
func (s *Snapshot) fallbackMemo(opts Options, d diag.Diagnostic) fixEntry {
	return s.fixes.get(perfKey{d.Span, d.Code}, func() fixEntry { return s.fallbackEntry(opts, d, maxFixes) })
}

// maxFixCalls bounds the tile calls of a kernel whose fallback fix
// FallbackNote computes: each candidate analyses the kernel again (a
// kernel of 9,000 unrolled calls costs 150 MB an analysis). The code
// action computes it on demand all the same.
const maxFixCalls = 1024

// FallbackNote computes (once per snapshot) the verified fixes of the
// dispatch/fallback-only warning d of the snapshot analysed with opts,
// and returns the note FixFirst puts in its message ("" when no change
// makes a faster variant apply, or the call's kernel has more than
// maxFixCalls tile calls).
func (s *Snapshot) FallbackNote(opts Options, d diag.Diagnostic) string {
	if d.Code != CodeFallbackOnly {
		return ""
	}
	key := perfKey{d.Span, d.Code}
	if e, ok := s.fixes.known(key); ok {
		return e.note
	}
	if kv, _ := s.callAt(d.Span); kv == nil || len(kv.Kernel.Calls) > maxFixCalls {
		s.fixes.skip(key)
		return ""
	}
	return s.fallbackMemo(opts, d).note
}

// noteOnly is FallbackNote for a snapshot that offers no fixes (the
// headless tool's, FixFirstResult): the candidates are verified up to
// the first that applies, whose title is the note, not up to the three
// a code action offers. The 3,000-line benchmark file's 36 warnings cost
// 147 analyses of changed files for three fixes each (with the reruns
// their copies share, fix_rerun.go), 109 for the note: each warning's
// four cheaper candidates (Tx.cta, Tx.warpgroup, 64 and 96 threads) fail
// before its module constant's 6 -> 8 applies.
func (s *Snapshot) noteOnly(opts Options, d diag.Diagnostic) string {
	key := perfKey{d.Span, d.Code}
	if e, ok := s.fixes.known(key); ok {
		return e.note
	}
	if kv, _ := s.callAt(d.Span); kv == nil || len(kv.Kernel.Calls) > maxFixCalls {
		return ""
	}
	return s.fallbackEntry(opts, d, 1).note
}

// FixFirst returns ds (diagnostics of the snapshot) with the note of each
// dispatch/fallback-only warning whose fixes the snapshot has computed
// first in its message (fixFirst), and the number of fallback-only
// warnings whose fixes were not computed yet (Pending lists them). It
// computes nothing and allocates only to copy ds when a note changes it:
// cheap enough for the keystroke path.
func (s *Snapshot) FixFirst(ds []diag.Diagnostic) (out []diag.Diagnostic, pending int) {
	out = ds
	if s.fixes == nil {
		return ds, 0 // a snapshot made outside a session keeps no fixes
	}
	for i, d := range ds {
		if d.Code != CodeFallbackOnly {
			continue
		}
		e, ok := s.fixes.known(perfKey{d.Span, d.Code})
		switch {
		case !ok:
			pending++
		case e.note != "":
			if &out[0] == &ds[0] {
				out = append([]diag.Diagnostic(nil), ds...)
			}
			out[i].Message = fixFirst(d.Message, e.note)
		}
	}
	return out, pending
}

// Pending returns the first n (all when n < 0) fallback-only warnings of
// ds whose fixes the snapshot has not computed (FallbackNote computes
// them).
func (s *Snapshot) Pending(ds []diag.Diagnostic, n int) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ds {
		if n >= 0 && len(out) == n {
			break
		}
		if d.Code == CodeFallbackOnly {
			if _, ok := s.fixes.known(perfKey{d.Span, d.Code}); !ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// fixFirst puts note after the head of a fallback-only message ("copy
// lowers only through fallback (scalar, single thread)") and before its
// decline reasons.
func fixFirst(msg, note string) string {
	head, reasons, ok := strings.Cut(msg, ": ")
	if !ok {
		return msg + "; fix: " + note
	}
	return head + "; fix: " + note + " — " + reasons
}

// lowerFirst lowercases the first letter of a fix title ("Change the
// tile extent" -> "change the tile extent").
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// FixFirstResult is FixFirst for `tilels --lower`: it computes the
// verified fix of every dispatch/fallback-only warning of r (analysed with
// opts) and puts it first in the warning's message, in r.Diags and in
// the kernel records' Diags (what --emit json writes), so that the
// headless tool prints the text the editor shows once it has computed the
// fix in the background.
func FixFirstResult(r *Result, opts Options) {
	has := false
	for _, d := range r.Diags {
		has = has || d.Code == CodeFallbackOnly
	}
	if !has || r.File == nil {
		return
	}
	snap := snapshotOf(r)
	var ws []diag.Diagnostic
	for _, d := range r.Diags {
		if d.Code == CodeFallbackOnly {
			ws = append(ws, d)
		}
	}
	// (the warnings' notes are independent; the reruns they share are
	// computed once, the others wait for them)
	found := make([]string, len(ws))
	parallel(len(ws), func(i int) { found[i] = snap.noteOnly(opts, ws[i]) })
	notes := map[perfKey]string{}
	for i, d := range ws {
		if found[i] != "" {
			notes[perfKey{d.Span, d.Code}] = found[i]
		}
	}
	rewrite := func(ds []diag.Diagnostic) {
		for i, d := range ds {
			if n, ok := notes[perfKey{d.Span, d.Code}]; ok && d.Code == CodeFallbackOnly {
				ds[i].Message = fixFirst(d.Message, n)
			}
		}
	}
	rewrite(r.Diags)
	for _, k := range r.Kernels {
		rewrite(k.Diags)
	}
}
