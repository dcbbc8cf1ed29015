package dispatch

import (
	"fmt"
	"sort"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// AxisRange is one axis of an active thread set: the values
// Offset + Stride*[0, Extent). When Selector is non-nil the offset is not a
// constant: it is the runtime lane picked by T.ptx.elect_sync() (TVM's
// `selector(lane, cond)`), and Offset is meaningless.
type AxisRange struct {
	Extent, Offset, Stride int64
	Selector               ir.Expr
}

// Static reports whether the range has a constant offset.
func (r AxisRange) Static() bool { return r.Selector == nil }

// String prints "[ext, off]" or "[ext, off, stride]" (TVM EncodeSplitSide).
func (r AxisRange) String() string {
	off := fmt.Sprint(r.Offset)
	if r.Selector != nil {
		off = ExprText(r.Selector)
	}
	if r.Stride != 1 {
		return fmt.Sprintf("[%d, %s, %d]", r.Extent, off, r.Stride)
	}
	return fmt.Sprintf("[%d, %s]", r.Extent, off)
}

// Call is one TileCall in its dispatch context (TVM DispatchContext plus
// the op call). Variants read it and never modify it, except through
// CacheSet.
type Call struct {
	Tile   *ir.TileCall
	Target Target
	// Scope is the call's scope kind: "thread", "warp", "warpgroup", "cta"
	// or "cluster" (TVM sctx.scope_kind).
	Scope string
	// Intra holds the active axes that cooperate inside one instance of the
	// scope; Inter the axes that tell instances apart (spec §3.3). Both are
	// empty when exec-context tracking is disabled (Tracked false). Both
	// are read-only and may be shared with other calls.
	Intra, Inter map[string]AxisRange
	// Tracked is false when the kernel has no constant thread extents (TVM
	// "ExecContext tracking disabled") or the scope switch failed.
	Tracked bool
	// Launch is the kernel's launch configuration.
	Launch ir.Launch
	// LaunchTags lists the declared launch parameters ("blockIdx.x",
	// "threadIdx.x", "clusterCtaIdx.x", ...).
	LaunchTags map[string]bool
	// Lets maps the immutable device lets (x: T.let = e) bound before the
	// call to their values (read-only; nil when none): TVM's analyzer sees
	// through them where a variant proves facts about a region start.
	Lets map[*ir.Var]ir.Expr
	// Loops are the loops around the call, outermost first (TVM
	// sctx.var_range_map: the analyzer binds each loop variable to its
	// range). Read-only; nil when none.
	Loops []*ir.For

	state   map[string]any
	scratch any
}

// Op returns the call's op name ("copy").
func (c *Call) Op() string { return c.Tile.Op }

// Span is the span of the whole call.
func (c *Call) Span() source.Span { return c.Tile.Span }

// ArgSpan returns the written span of argument i, or the call's span.
func (c *Call) ArgSpan(i int) source.Span {
	if i >= 0 && i < len(c.Tile.ArgSpans) && c.Tile.ArgSpans[i].IsValid() {
		return c.Tile.ArgSpans[i]
	}
	if i >= 0 && i < len(c.Tile.Args) && c.Tile.Args[i] != nil && c.Tile.Args[i].Pos().IsValid() {
		return c.Tile.Args[i].Pos()
	}
	return c.Tile.Span
}

// Region returns argument i when it is a region.
func (c *Call) Region(i int) (*ir.Region, bool) {
	if i < 0 || i >= len(c.Tile.Args) {
		return nil, false
	}
	r, ok := c.Tile.Args[i].(*ir.Region)
	return r, ok && r != nil && r.Buf != nil
}

// Dst and Src are the two regions of a copy-like call (args [dst, src]).
// They panic when the argument is not a region: a bug in the evaluator.
func (c *Call) Dst() *ir.Region { return c.mustRegion(0) }

// Src is the source region of a copy-like call; see Dst.
func (c *Call) Src() *ir.Region { return c.mustRegion(1) }

func (c *Call) mustRegion(i int) *ir.Region {
	r, ok := c.Region(i)
	if !ok {
		Raise("TypeError", "argument %d of %s is not a buffer region", i, c.Tile.Op)
	}
	return r
}

// ThreadCnt is TVM _thread_cnt: the product of the intra extents (1 at
// thread scope; 0 for a cta-scope call in a CTA of fewer than 32 threads).
func (c *Call) ThreadCnt() int64 {
	n := int64(1)
	for _, r := range c.Intra {
		n *= r.Extent
	}
	return n
}

// GetThreadCnt is TVM get_thread_cnt: cta → the threadIdx.x extent,
// warpgroup → 128, warp → 32, thread → 1; ok is false otherwise.
func (c *Call) GetThreadCnt() (n int64, ok bool) {
	switch c.Scope {
	case "cta":
		if !c.LaunchTags["threadIdx.x"] {
			return 0, false
		}
		return c.Launch.Block[0], true
	case "warpgroup":
		return 128, true
	case "warp":
		return 32, true
	case "thread":
		return 1, true
	}
	return 0, false
}

// ThreadIdxX returns the threadIdx.x extent when it is a launch parameter.
func (c *Call) ThreadIdxX() (int64, bool) {
	if !c.LaunchTags["threadIdx.x"] {
		return 0, false
	}
	return c.Launch.Block[0], true
}

// AxisDecl returns the runtime index of the calling thread along a layout
// thread axis (TVM _axis_decl): "tx", "laneid", "warpid", "wgid",
// "tid_in_wg", "wid_in_wg", "bx", ... It carries the call's span.
func (c *Call) AxisDecl(name string) ir.Expr {
	return &ir.ThreadIndex{Axis: name, Span: c.Tile.Span}
}

// Config returns the value of a config entry (a **kwargs key).
func (c *Call) Config(key string) (ir.Expr, bool) {
	for _, kv := range c.Tile.Config {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// ConfigSpan returns the span of a config entry, or the call's span.
func (c *Call) ConfigSpan(key string) source.Span {
	for _, kv := range c.Tile.Config {
		if kv.Key == key && kv.Span.IsValid() {
			return kv.Span
		}
	}
	return c.Tile.Span
}

// Declinef builds a decline at span; the registry fills in Pred.
func (c *Call) Declinef(span source.Span, format string, args ...any) *Decline {
	if !span.IsValid() {
		span = c.Tile.Span
	}
	return &Decline{Reason: fmt.Sprintf(format, args...), Span: span}
}

// Decline is Declinef for a reason that needs no formatting.
func (c *Call) Decline(span source.Span, reason string) *Decline {
	if !span.IsValid() {
		span = c.Tile.Span
	}
	return &Decline{Reason: reason, Span: span}
}

// Scratch returns the per-call value set by SetScratch (nil when none).
// Unlike CacheGet/CacheSet, which persist across the calls of one Lower
// run, it lives as long as the Call: every predicate and emitter of one
// Select sees it, the next tile call starts empty. Target packages use it
// to memoize pure functions of the call's operands (each owns its type).
func (c *Call) Scratch() any { return c.scratch }

// SetScratch sets the per-call value read by Scratch.
func (c *Call) SetScratch(v any) { c.scratch = v }

// CacheGet reads the per-pass shared state (TVM sctx.cache_get).
func (c *Call) CacheGet(key string) (any, bool) {
	v, ok := c.state[key]
	return v, ok
}

// CacheSet writes the per-pass shared state (TVM sctx.cache_set). Values
// persist across the calls of one Lower run.
func (c *Call) CacheSet(key string, v any) {
	if c.state == nil {
		c.state = map[string]any{}
	}
	c.state[key] = v
}

// IntraNames returns the intra axis names, sorted.
func (c *Call) IntraNames() []string { return sortedKeys(c.Intra) }

func sortedKeys(m map[string]AxisRange) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// NewCall builds a Call for tests and tools that dispatch one tile call
// without running Lower. Intra and Inter default to the full split of a
// kernel with `threads` threads per CTA and one CTA.
func NewCall(tc *ir.TileCall, target Target, threads int64) *Call {
	l := ir.Launch{Grid: [3]int64{1, 1, 1}, Block: [3]int64{threads, 1, 1}, Cluster: [3]int64{1, 1, 1}}
	c := &Call{Tile: tc, Target: target, Scope: tc.Scope, Launch: l,
		LaunchTags: map[string]bool{"threadIdx.x": true, "blockIdx.x": true}, state: map[string]any{}}
	a := initialActiveSet(32, threads/32, 1, nil)
	if inter, intra, err := scopeSwitch(a, tc.Scope); err == "" {
		c.Inter, c.Intra, c.Tracked = inter, intra, true
	}
	return c
}
