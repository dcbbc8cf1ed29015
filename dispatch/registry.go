package dispatch

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Decline is why a predicate rejected a call or an emitter declined it.
// Pred is the predicate's name ("" for an emitter's decline); Reason is
// TVM's message text; Span is the smallest thing the user would change.
type Decline struct {
	Pred, Reason string
	Span         source.Span
	// Note is what tilels adds to the reference's text (a Raised's Note):
	// never part of Reason, which stays the reference's.
	Note string
}

func (d *Decline) Error() string { return d.Reason }

// Pred is a named predicate; Check returns nil when the call passes.
type Pred struct {
	Name  string
	Check func(*Call) *Decline
}

// Variant is one way to lower an op for a target (TVM DispatchCase).
type Variant struct {
	Op, Name string
	// Target is the target kind this variant is registered for; "" means
	// every target.
	Target   string
	Priority int
	// ExplicitOnly marks variants that only apply when `dispatch=` names
	// them (the forced vec_* widths). They are still tried (and rejected)
	// like every other variant, but never count as "faster variants" in
	// the fallback-only warning.
	ExplicitOnly bool
	// Releases are the reference releases that register this variant (the
	// zero Set: every release). Each release's registry holds exactly what
	// its wheel registers: `dispatch="vec_64b"` under 0.25 is the wheel's
	// "no variant named 'vec_64b' is registered".
	Releases release.Set
	// Renamed are the names other releases register this variant's
	// behaviour under (vec_auto: gmem_smem and reg; gmem_smem: vec_auto):
	// a forced `dispatch=` of one of them that the call's release does not
	// register is offered this variant instead (Explanation.Renames).
	Renamed []string
	When    []Pred
	// Emit lowers the call. It returns (result, nil) or (nil, decline).
	Emit func(*Call) (*Result, *Decline)
}

// Result is a lowered call.
type Result struct {
	Body *ir.Block
	// Vec is the elements per transfer, VecBits its width in bits (0 when
	// not applicable), Outer the loop iterations per thread (total_outer),
	// Threads the number of cooperating threads the partition assumes.
	Vec, VecBits, Outer, Threads int64
	// Partition is a human-readable per-thread partition, e.g.
	// "S[(8,32,4):(128,4,1)]" for [outer, thread, vec].
	Partition string
	// Notes are extra facts for hovers and -explain output.
	Notes []string
	// Plan is the variant's plan as named facts, in the order a reader
	// wants them (an MMA's shape and count per warp, a reduction's shuffle
	// steps, a descriptor and its decoded fields): the hover lists them and
	// the JSON record carries them as "plan".
	Plan []PlanItem
	// TMA describes the descriptor and issue loop of a copy_async TMA
	// variant (printed in the JSON report and hovers); nil otherwise.
	TMA *TMA
	// TensorMaps are descriptors this call needs that no earlier call of
	// the same Lower run created (TVM host init statements, deduplicated
	// through CacheGet/CacheSet by the variant). Lower appends them to the
	// lowered function's TensorMaps.
	TensorMaps []*ir.TensorMap
	// Init are device statements that run once at the start of the kernel
	// (TVM sctx.add_init_stmt without host=True, e.g. prefetch.tensormap).
	// Lower puts them after the kernel's leading scope-id declarations.
	Init []ir.Stmt
	// PostDef are statements to run right after a buffer's definition
	// (TVM sctx.add_post_buffer_def_stmt): a gemm_async's shared-memory
	// descriptors, encoded once where the operand is declared. Lower puts
	// each group after the Alloc or Decl of its buffer, in dispatch order.
	PostDef []PostDef
}

// PostDef is a group of statements that runs right after the definition
// of Buf (an ir.Alloc or ir.Decl). When the kernel holds no definition of
// Buf, Lower puts them at the start of the call's own lowering.
type PostDef struct {
	Buf   *ir.Buffer
	Stmts []ir.Stmt
}

// PlanItem is one named fact of a variant's plan. Fields are its decoded
// parts (a descriptor's bit fields), shown indented under it.
type PlanItem struct {
	Key, Value string
	Fields     []PlanItem
}

// TMA is the plan of one TMA copy: its descriptor and how many bulk-tensor
// instructions the unrolled issue loop runs.
type TMA struct {
	Map *ir.TensorMap
	// Direction is "g2s" (global to shared) or "s2g".
	Direction string
	// Issues is the issue loop's trip count (the product of issue axes).
	Issues int64
	// IssueAxes describe each issue axis, outer to inner, for hovers:
	// "extent 8: smem +4096, coord dim 2 +1".
	IssueAxes []string
}

// Raised is a panic value that mimics a Python exception raised inside a
// TVM variant. Use Raise to throw one.
type Raised struct {
	Type, Msg string
	// Note, when set, explains the exception beyond the reference's text
	// (a bug of the release: common.RaiseNotWellFormedFrom); the call's
	// diagnostics say it apart (dispatch/release-bug).
	Note string
}

func (e *Raised) Error() string { return e.Type + ": " + e.Msg }

// Raise panics with a *Raised; the registry reports it as TVM reports the
// Python exception Type (e.g. Raise("KeyError", "'cluster'")).
func Raise(typ, format string, args ...any) {
	panic(&Raised{Type: typ, Msg: fmt.Sprintf(format, args...)})
}

// exceptionText renders a recovered panic as "Type: msg".
func exceptionText(r any) string {
	switch v := r.(type) {
	case *Raised:
		return v.Error()
	case runtime.Error:
		return "RuntimeError: " + v.Error()
	case error:
		return "Error: " + v.Error()
	}
	return fmt.Sprintf("panic: %v", r)
}

// Outcome is what happened to one variant.
type Outcome uint8

const (
	// Rejected: at least one predicate failed.
	Rejected Outcome = iota + 1
	// Declined: predicates passed, the emitter declined.
	Declined
	// Exception: a predicate or the emitter panicked (a bug, or a
	// deliberate Raise).
	Exception
	// Selected: the variant lowered the call.
	Selected
	// Skipped: not tried (a faster variant was selected, or `dispatch=`
	// forced another variant).
	Skipped
)

func (o Outcome) String() string {
	switch o {
	case Rejected:
		return "rejected"
	case Declined:
		return "declined"
	case Exception:
		return "exception"
	case Selected:
		return "selected"
	case Skipped:
		return "skipped"
	}
	return "outcome(?)"
}

// Attempt is one variant's row.
type Attempt struct {
	Variant  string
	Priority int
	// ExplicitOnly copies the variant's flag.
	ExplicitOnly bool
	Outcome      Outcome
	// Messages are TVM's cell lines without the "opcall:" part: one
	// "rejected: <pred> — <reason>" per failed predicate (joined by "; "
	// in the table), or a single "declined — <reason>" or
	// "exception — <Type>: <msg>". Read-only: rows may share the slice
	// and its strings.
	Messages []string
	// Declines are the structured reasons behind Messages (with spans).
	Declines []*Decline
}

// Label is TVM's "<variant> (prio=<p>)".
func (a *Attempt) Label() string { return fmt.Sprintf("%s (prio=%d)", a.Variant, a.Priority) }

// bareReason joins the reasons without the "rejected: pred —" prefixes.
// A predicate that fails without a reason (a bare False in the reference)
// is named instead, as its table row names it.
func (a *Attempt) bareReason() string {
	if len(a.Declines) == 1 && a.Declines[0].Reason != "" {
		return a.Declines[0].Reason // the usual case: no join, no allocation
	}
	var parts []string
	for _, d := range a.Declines {
		if d.Reason == "" {
			parts = append(parts, d.Pred)
			continue
		}
		parts = append(parts, d.Reason)
	}
	return strings.Join(parts, "; ")
}

// Explanation records one dispatch.
type Explanation struct {
	Op     string // "copy"
	Target string // target kind, "cuda"
	// Forced is the `dispatch=` value, "" when absent.
	Forced   string
	Attempts []Attempt
	// Error is set when dispatch failed before any variant was tried:
	// "no registered variants for this op/target" or
	// "no variant named 'X' is registered".
	Error string
	// CallText, when set, is the call text of the table's "opcall:" lines;
	// when empty the table renders the call itself (see OpCall). Select
	// leaves it empty: rendering every call eagerly cost 4% of
	// BenchmarkDispatch3000 allocations for tables that are rarely printed.
	CallText string
	// Renames, when the forced name is not registered in the call's
	// release, are the variants of that release that Renamed it, in
	// dispatch order, with whether their predicates hold for the call
	// (the migration quick fix; lower.DispatchFixes).
	Renames []Rename

	call *ir.TileCall
}

// Rename is a registered variant a forced name that is not registered
// may become.
type Rename struct {
	Variant string
	// Holds: every predicate of the variant passes for the call.
	Holds bool
}

// OpCall returns the call text of the "opcall:" lines: CallText, or the
// call rendered by CallText(call).
func (e *Explanation) OpCall() string {
	if e.CallText == "" && e.call != nil {
		return CallText(e.call)
	}
	return e.CallText
}

// Header is TVM's first line.
func (e *Explanation) Header() string {
	return fmt.Sprintf("TIRx schedule dispatch failed: op=tirx.tile.%s target=%s", e.Op, e.Target)
}

// Selected returns the selected attempt, or nil.
func (e *Explanation) Selected() *Attempt {
	for i := range e.Attempts {
		if e.Attempts[i].Outcome == Selected {
			return &e.Attempts[i]
		}
	}
	return nil
}

// Table renders TVM's failure report exactly: the header, then (when some
// variant was tried) the +---+ table with one row per rejected, declined or
// excepting variant; each cell is the message, "opcall:" and the call text
// (see CallText). For a pre-dispatch error the error line follows the
// header.
func (e *Explanation) Table() string { return e.table(true) }

// TableCompact is Table without the "opcall:" lines.
func (e *Explanation) TableCompact() string { return e.table(false) }

func (e *Explanation) table(withCall bool) string {
	header := e.Header()
	if e.Error != "" {
		return header + "\n" + e.Error
	}
	type row struct {
		label string
		lines []string
	}
	var rows []row
	callText := ""
	if withCall {
		callText = e.OpCall()
	}
	for i := range e.Attempts {
		a := &e.Attempts[i]
		var lines []string
		switch {
		case a.Outcome == Rejected || a.Outcome == Exception && len(a.Messages) > 0 &&
			strings.HasPrefix(a.Messages[0], "rejected: "):
			lines = []string{strings.Join(a.Messages, "; ")}
		case a.Outcome == Declined || a.Outcome == Exception:
			lines = slices.Clone(a.Messages)
		default:
			continue
		}
		if withCall {
			lines = append(lines, "opcall:")
			if callText != "" {
				lines = append(lines, strings.Split(callText, "\n")...)
			}
		}
		rows = append(rows, row{a.Label(), lines})
	}
	if len(rows) == 0 {
		return header
	}
	vw, ew := len("Variant"), len("Error")
	for _, r := range rows {
		vw = max(vw, runeLen(r.label))
		for _, l := range r.lines {
			ew = max(ew, runeLen(l))
		}
	}
	// TVM pads with str.ljust, which counts code points.
	pad := func(s string, w int) string { return s + strings.Repeat(" ", w-runeLen(s)) }
	rule := "+" + strings.Repeat("-", vw+2) + "+" + strings.Repeat("-", ew+2) + "+"
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("\n" + rule)
	b.WriteString("\n| " + pad("Variant", vw) + " | " + pad("Error", ew) + " |")
	b.WriteString("\n" + rule)
	for _, r := range rows {
		for i, l := range r.lines {
			label := ""
			if i == 0 {
				label = r.label
			}
			b.WriteString("\n| " + pad(label, vw) + " | " + pad(l, ew) + " |")
		}
	}
	b.WriteString("\n" + rule)
	return b.String()
}

func runeLen(s string) int { return len([]rune(s)) }

// Registry holds variants keyed by (op, target kind), built from an
// explicit table. It is safe for concurrent use: build it once and share
// it (Registry.Lower) rather than once per kernel.
type Registry struct {
	byOp map[string][]Variant // op → variants, sorted (-priority, name)
	// cases memoizes the try order of each (op, target kind) asked for:
	// Select used to filter byOp on every call (3.7% of
	// BenchmarkDispatch3000 CPU). Filled on first use, so NewRegistry stays
	// as cheap as it was for callers that build one per kernel.
	mu    sync.Mutex
	cases map[opTarget]*caseList
}

type opTarget struct {
	op, target string
	rel        release.Release
}

// caseList is the try order of one (op, target kind) plus message caches.
// Every copy is rejected by the five forced-width predicates with the same
// reasons, call after call: building each "rejected: p — reason" string and
// each "not tried: v was selected" row anew was 5% of
// BenchmarkDispatch3000 allocations (59.7k → 56.7k allocs/op).
type caseList struct {
	vs []Variant
	// rejects[i][j] is the last message built for predicate j of vs[i].
	rejects [][]atomic.Pointer[rejectMsg]
	// skipped maps a selected variant's name to its "not tried" row.
	skipped map[string][]string
}

type rejectMsg struct{ reason, msg string }

func newCaseList(vs []Variant) *caseList {
	cl := &caseList{vs: vs, rejects: make([][]atomic.Pointer[rejectMsg], len(vs)), skipped: map[string][]string{}}
	for i, v := range vs {
		cl.rejects[i] = make([]atomic.Pointer[rejectMsg], len(v.When))
		cl.skipped[v.Name] = []string{"not tried: " + v.Name + " was selected"}
	}
	return cl
}

// rejected returns "rejected: <pred> — <reason>" for predicate j of vs[i],
// reusing the last message built for it when the reason is the same.
func (cl *caseList) rejected(i, j int, pred, reason string) string {
	if reason == "" {
		return "rejected: " + pred
	}
	slot := &cl.rejects[i][j]
	if m := slot.Load(); m != nil && m.reason == reason {
		return m.msg
	}
	msg := "rejected: " + pred + " — " + reason
	slot.Store(&rejectMsg{reason, msg})
	return msg
}

// NewRegistry builds a registry from variants (in any order).
func NewRegistry(variants []Variant) *Registry {
	r := &Registry{byOp: map[string][]Variant{}, cases: map[opTarget]*caseList{}}
	for _, v := range variants {
		r.byOp[v.Op] = append(r.byOp[v.Op], v)
	}
	for op, vs := range r.byOp {
		slices.SortStableFunc(vs, func(a, b Variant) int {
			if a.Priority != b.Priority {
				return b.Priority - a.Priority
			}
			return strings.Compare(a.Name, b.Name)
		})
		r.byOp[op] = vs
	}
	return r
}

// filter returns the variants of op registered for targetKind (or for
// every target) in release rel, in try order (nil when none).
func (r *Registry) filter(op, targetKind string, rel release.Release) []Variant {
	var out []Variant
	for _, v := range r.byOp[op] {
		if (v.Target == "" || v.Target == targetKind) && v.Releases.Has(rel) {
			out = append(out, v)
		}
	}
	return slices.Clip(out)
}

// lookup is Variants without the copy, memoized: callers must not modify
// the result.
func (r *Registry) lookup(op, targetKind string, rel release.Release) *caseList {
	k := opTarget{op, targetKind, rel}
	r.mu.Lock()
	defer r.mu.Unlock()
	cl, ok := r.cases[k]
	if !ok {
		cl = newCaseList(r.filter(op, targetKind, rel))
		r.cases[k] = cl
	}
	return cl
}

// Variants returns the variants of op for a target kind in the seeds'
// release, in try order.
func (r *Registry) Variants(op, targetKind string) []Variant {
	return slices.Clone(r.lookup(op, targetKind, release.R025).vs)
}

// VariantsIn returns the variants of op for a target in its release, in
// try order.
func (r *Registry) VariantsIn(op string, t Target) []Variant {
	return slices.Clone(r.lookup(op, t.Kind, t.Release).vs)
}

// Select runs TVM's run_dispatch for c: it returns the selected variant's
// result and name, or (nil, "") when nothing applies; the Explanation
// records every attempt either way.
func (r *Registry) Select(c *Call) (*Result, string, *Explanation) {
	e := &Explanation{Op: c.Tile.Op, Target: c.Target.Kind, Forced: c.Tile.Dispatch, call: c.Tile}
	cl := r.lookup(c.Tile.Op, c.Target.Kind, c.Target.Release)
	cases := cl.vs
	if len(cases) == 0 {
		e.Error = "no registered variants for this op/target"
		return nil, "", e
	}
	// forced lists the name `dispatch=` selects (nil when absent).
	var forced []string
	if f := c.Tile.Dispatch; f != "" {
		forced = []string{f}
		if !slices.ContainsFunc(cases, func(v Variant) bool { return v.Name == f }) {
			e.Error = fmt.Sprintf("no variant named '%s' is registered", f)
			e.Renames = renames(c, cases, f)
			return nil, "", e
		}
	}
	var res *Result
	selected := ""
	var forcedMsg []string // shared by every skipped row
	e.Attempts = make([]Attempt, 0, len(cases))
	// One backing array for the rows' predicate messages and declines, cut
	// into capacity-limited windows (two slice allocations per rejected
	// variant were 5% of BenchmarkDispatch3000 allocations).
	nPreds := 0
	for _, v := range cases {
		nPreds += len(v.When)
	}
	msgs, decls := make([]string, nPreds), make([]*Decline, nPreds)
	for vi, v := range cases {
		n := len(v.When)
		a := Attempt{Variant: v.Name, Priority: v.Priority, ExplicitOnly: v.ExplicitOnly,
			Messages: msgs[:0:n], Declines: decls[:0:n]}
		msgs, decls = msgs[n:], decls[n:]
		switch {
		case forced != nil && !slices.Contains(forced, v.Name):
			a.Outcome = Skipped
			if forcedMsg == nil {
				forcedMsg = []string{fmt.Sprintf("dispatch='%s' forces another variant", c.Tile.Dispatch)}
			}
			a.Messages = forcedMsg
		case selected != "":
			a.Outcome = Skipped
			a.Messages = cl.skipped[selected]
		default:
			res = tryVariant(c, cl, vi, &a)
			if res != nil {
				selected = v.Name
			}
		}
		if len(a.Messages) == 0 {
			a.Messages = nil
		}
		if len(a.Declines) == 0 {
			a.Declines = nil
		}
		e.Attempts = append(e.Attempts, a)
	}
	return res, selected, e
}

// renames lists the variants of cases (in dispatch order) that Renamed
// name, with whether their predicates hold for c.
func renames(c *Call, cases []Variant, name string) []Rename {
	var out []Rename
	for _, v := range cases {
		if !slices.Contains(v.Renamed, name) {
			continue
		}
		holds := true
		for _, p := range v.When {
			if d, _ := evalPred(c, p); d != nil {
				holds = false
				break
			}
		}
		out = append(out, Rename{Variant: v.Name, Holds: holds})
	}
	return out
}

// tryVariant evaluates every predicate of v, then its emitter; it fills a
// and returns the result when v lowered the call.
func tryVariant(c *Call, cl *caseList, vi int, a *Attempt) *Result {
	v := cl.vs[vi]
	a.Outcome = Rejected
	for j, p := range v.When {
		d, panicked := evalPred(c, p)
		if d == nil {
			continue
		}
		if panicked {
			a.Outcome = Exception
		}
		d.Pred = p.Name
		a.Messages = append(a.Messages, cl.rejected(vi, j, p.Name, d.Reason))
		a.Declines = append(a.Declines, d)
	}
	if len(a.Messages) > 0 {
		return nil
	}
	res, d, exc, note := runEmit(c, v)
	switch {
	case exc != "":
		a.Outcome = Exception
		a.Messages = []string{"exception — " + exc}
		a.Declines = []*Decline{{Reason: exc, Span: c.Tile.Span, Note: note}}
		return nil
	case d != nil:
		a.Outcome = Declined
		a.Messages = []string{"declined — " + d.Reason}
		a.Declines = []*Decline{d}
		return nil
	case res == nil:
		a.Outcome = Declined
		msg := "impl returned None; schedule must return PrimFunc or raise fail()"
		a.Messages = []string{"declined — " + msg}
		a.Declines = []*Decline{{Reason: msg, Span: c.Tile.Span}}
		return nil
	}
	a.Outcome = Selected
	return res
}

func evalPred(c *Call, p Pred) (d *Decline, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			d = &Decline{Reason: "predicate exception: " + exceptionText(r), Span: c.Tile.Span}
			panicked = true
		}
	}()
	d = p.Check(c)
	if d != nil && !d.Span.IsValid() {
		d.Span = c.Tile.Span
	}
	return d, false
}

func runEmit(c *Call, v Variant) (res *Result, d *Decline, exc, note string) {
	defer func() {
		if r := recover(); r != nil {
			res, d, exc = nil, nil, exceptionText(r)
			if e, ok := r.(*Raised); ok {
				note = e.Note
			}
		}
	}()
	res, d = v.Emit(c)
	if d != nil {
		res = nil
		if !d.Span.IsValid() {
			d.Span = c.Tile.Span
		}
	}
	return res, d, "", ""
}
