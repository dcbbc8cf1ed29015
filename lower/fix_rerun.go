package lower

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A verified fix analyses the file changed by the fix (Snapshot.reanalyse)
// and reads three things of the result: the error count, the count of
// some codes, and which variant one call of one kernel got. Warnings often
// share a fix: a module constant every copy of a kernel reads (`ROWS, COLS
// = 4, 6`, whose 6 -> 8 is the fix of each of their copies' calls) makes
// the same edit the first candidate of every one of their fallback-only
// warnings. Snapshot.rerunOf analyses each edit set once per snapshot and
// keeps only what the fixes read (a rerun), not the analysis.
//
// Measured (`tilels --lower` of the 3,000-line benchmark file, whose 36
// fallback-only warnings `--lower` gives their fix first, lower.
// FixFirstResult): each warning's fix analysed the whole file again
// (the edit is at module level), 36 analyses; now one per edit set.

// reanalyses counts Snapshot.reanalyse's analyses (TestRerunShared).
var reanalyses atomic.Int64

// rerun is what the verified fixes read of the analysis of an edited file.
type rerun struct {
	ok    bool // the analysis ran (reanalyse returned a snapshot)
	errs  int  // its diagnostics of severity error
	codes map[string]int
	// calls holds, for the first record of each def and case, each tile
	// call's op and variant
	calls map[rerunKey][]rerunCall
}

type rerunKey struct {
	name      string
	caseIndex int
}

type rerunCall struct{ op, variant string }

// summarize keeps what the fixes read of snap (nil: the analysis failed).
func summarize(snap *Snapshot) *rerun {
	r := &rerun{codes: map[string]int{}, calls: map[rerunKey][]rerunCall{}}
	if snap == nil {
		return r
	}
	r.ok = true
	r.errs, _ = count(snap.Diags)
	for _, d := range snap.Diags {
		r.codes[d.Code]++
	}
	for _, kv := range snap.Kernels {
		k := kv.Kernel
		key := rerunKey{k.Name, k.CaseIndex}
		if _, seen := r.calls[key]; seen {
			continue // (call looks at the first record only)
		}
		cs := make([]rerunCall, len(k.Calls))
		for i, d := range k.Calls {
			cs[i] = rerunCall{d.Call.Op, d.Variant}
		}
		r.calls[key] = cs
	}
	return r
}

// count is count(ds, codes...) of the analysis's diagnostics.
func (r *rerun) count(codes ...string) (errs, n int) {
	for _, c := range codes {
		n += r.codes[c]
	}
	return r.errs, n
}

// call returns the variant of call i of the record that is k's (the
// first of the same def and case) in the analysis, and false when there
// is none or the change did not keep the kernel's calls (their number,
// call i's op).
func (r *rerun) call(k *Kernel, i int) (string, bool) {
	cs, ok := r.calls[rerunKey{k.Name, k.CaseIndex}]
	if !ok || len(cs) != len(k.Calls) || cs[i].op != k.Calls[i].Call.Op {
		return "", false
	}
	return cs[i].variant, true
}

// rerunOf returns the rerun of the snapshot's file with edits made,
// analysed once per snapshot and edit set (when the snapshot keeps fixes;
// at most maxReruns edit sets are kept).
func (s *Snapshot) rerunOf(opts Options, edits []Edit) *rerun {
	compute := func() *rerun { return summarize(s.reanalyse(opts, edits)) }
	c := s.fixes
	if c == nil || !shareReruns {
		return compute()
	}
	key := editsKey(edits)
	c.mu.Lock()
	cell := c.reruns[key]
	if cell == nil && len(c.reruns) < maxReruns {
		if c.reruns == nil {
			c.reruns = map[string]*rerunCell{}
		}
		cell = &rerunCell{}
		c.reruns[key] = cell
	}
	c.mu.Unlock()
	if cell == nil {
		return compute()
	}
	cell.once.Do(func() { cell.r = compute() })
	return cell.r
}

// shareReruns enables keeping reruns; a test turns it off to compare.
var shareReruns = true

// maxReruns bounds the edit sets a snapshot keeps the reruns of.
const maxReruns = 256

// rerunCell computes one edit set's rerun once; a second caller waits for
// the first.
type rerunCell struct {
	once sync.Once
	r    *rerun
}

// editsKey encodes an edit set, in span order.
func editsKey(edits []Edit) string {
	es := slices.Clone(edits)
	slices.SortFunc(es, func(a, b Edit) int { return int(a.Span.Start - b.Span.Start) })
	var b strings.Builder
	for _, e := range es {
		b.WriteString(strconv.FormatInt(int64(e.Span.Start), 10))
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(int64(e.Span.End), 10))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(len(e.NewText)))
		b.WriteByte(':')
		b.WriteString(e.NewText)
		b.WriteByte(';')
	}
	return b.String()
}
