// Package layout is the integer layout algebra of the TIRx tile dispatcher
// (spec §2 of reference/tirx-dispatch.md; reference: apache/tvm
// src/tirx/ir/layout/*.cc and python/tvm/tirx/layout.py at PRE abe2526b3e).
//
// A layout maps a logical element index to a set of coordinates on named
// axes: memory axes ("m", TMEM "TCol"/"TLane", ...) and thread axes
// ("laneid", "warpid", "tx", ...). Two concrete layouts exist:
//
//   - *TileLayout: shard iters (mixed-radix digits of the flat logical
//     index, last iter fastest), replica iters (every combination is an
//     extra copy) and per-axis offsets.
//   - *ComposeLayout: an XOR swizzle (§2.9) applied to the "m" output of a
//     TileLayout. This is the SEED data model; a PRE bare SwizzleLayout is a
//     ComposeLayout whose tile is trivial (S[(2^(p+sw+at),)]).
//
// Contract and invariants:
//
//   - All values are int64; there are no symbolic expressions. A dispatcher
//     that needs a symbolic thread index evaluates Apply per thread or
//     multiplies the returned per-iter digits itself.
//   - Axes are interned: two *Axis are equal iff they are the same pointer.
//     AxisByName registers unknown names as memory axes.
//   - Layout values are immutable once built. A result may share its Replica
//     and Offset (never its Shard) with an argument, e.g. Group, PermuteDims
//     and Canonicalize when they leave them as they are; callers may not
//     mutate the fields of a layout they did not build themselves. Offset is
//     never nil in a result.
//   - Canonicalize always runs as if a CUDA target is active when
//     fuseThreads is true (the dispatcher always passes true).
//   - Failures that TVM reports with ICHECK inside a user-reachable operation
//     (grouping, GetScope) are Go errors carrying TVM's message text.
//     Contract violations by the caller (wrong number of coordinates,
//     ComposeLayout over a non-"m" tile) panic.
//   - String and Parse round-trip: Parse(l.String()) is Equal to l.
//   - Results keep TVM's structure exactly, including zero offset entries
//     and unit iters that Slice and Group produce (S[32,32] sliced whole is
//     "S[(32,32):(32,1)] + 0"); canonicalize before comparing or printing
//     for users.
//
// Deliberate deviations from TVM (each documented where it happens):
// replica iters sort by axis order instead of a structural hash; fused
// offsets landing on one axis are summed, not overwritten; Slice keeps the
// layout's own offsets (the HEAD fix; PRE dropped them); the SlicePerGroup
// wrap-around requires d0[piv-1]+1 < e[piv-1] (TVM's <= yields wrong
// addresses); TileTo rejects non-divisible shapes; cyclic scope chains are
// reported as disconnected instead of looping; ill-formed scopes skip
// thread fusion instead of aborting.
//
// Example:
//
//	l, _ := layout.Parse("S[(32,8):(1@laneid,1)]")
//	r := l.Apply(9) // element 9: r[layout.Laneid] == 1, r[layout.M] == 1
package layout

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ScopeKind is an execution scope level (§2.1). Lower values are outer
// ("higher") scopes.
type ScopeKind int

// Scope kinds, outer to inner.
const (
	ScopeNone ScopeKind = 0
	Cluster   ScopeKind = 2
	CTA       ScopeKind = 3
	Warpgroup ScopeKind = 4
	Warp      ScopeKind = 5
	Thread    ScopeKind = 6
)

// String returns the TVM scope name ("cluster", "cta", "warpgroup", "warp",
// "thread").
func (k ScopeKind) String() string {
	switch k {
	case Cluster:
		return "cluster"
	case CTA:
		return "cta"
	case Warpgroup:
		return "warpgroup"
	case Warp:
		return "warp"
	case Thread:
		return "thread"
	}
	return "scope(" + strconv.Itoa(int(k)) + ")"
}

// Higher reports whether k is an outer scope relative to o (rank(k) < rank(o)).
func (k ScopeKind) Higher(o ScopeKind) bool { return k < o }

// Axis is an interned, named layout axis (§2.1). Compare axes by pointer.
type Axis struct {
	Name string

	thread   bool
	scope    ScopeKind // outer scope of a thread axis
	subscope ScopeKind // inner scope of a thread axis
	rank     int       // position among predefined axes; -1 for auto-registered
}

// Predefined axes (§2.1).
var (
	M       = newAxis("m", false, ScopeNone, ScopeNone)
	Laneid  = newAxis("laneid", true, Warp, Thread)
	Warpid  = newAxis("warpid", true, CTA, Warp)
	Wgid    = newAxis("wgid", true, CTA, Warpgroup)
	TidInWG = newAxis("tid_in_wg", true, Warpgroup, Thread)
	WidInWG = newAxis("wid_in_wg", true, Warpgroup, Warp)
	Tx      = newAxis("tx", true, CTA, Thread)
	Bx      = newAxis("bx", true, Thread, CTA) // sic: TVM registers scope "thread", subscope "cta"
	By      = newAxis("by", true, Thread, CTA)
	Bz      = newAxis("bz", true, Thread, CTA)
	Cbx     = newAxis("cbx", true, Cluster, CTA)
	Cby     = newAxis("cby", true, Cluster, CTA)
	Cbz     = newAxis("cbz", true, Cluster, CTA)
	P       = newAxis("P", false, ScopeNone, ScopeNone)
	F       = newAxis("F", false, ScopeNone, ScopeNone)
	Bank    = newAxis("Bank", false, ScopeNone, ScopeNone)
	TCol    = newAxis("TCol", false, ScopeNone, ScopeNone)
	TLane   = newAxis("TLane", false, ScopeNone, ScopeNone)
)

var axisRegistry = struct {
	sync.Mutex
	byName map[string]*Axis
	n      int
}{byName: map[string]*Axis{}}

func newAxis(name string, thread bool, scope, subscope ScopeKind) *Axis {
	axisRegistry.Lock()
	defer axisRegistry.Unlock()
	a := &Axis{Name: name, thread: thread, scope: scope, subscope: subscope, rank: axisRegistry.n}
	axisRegistry.n++
	axisRegistry.byName[name] = a
	return a
}

// AxisByName returns the interned axis called name, registering unknown
// names as memory axes (TVM Axis.get, §2.1). It is safe for concurrent use.
func AxisByName(name string) *Axis {
	axisRegistry.Lock()
	defer axisRegistry.Unlock()
	if a, ok := axisRegistry.byName[name]; ok {
		return a
	}
	a := &Axis{Name: name, rank: -1}
	axisRegistry.byName[name] = a
	return a
}

// LookupAxis returns the axis called name if it is already registered.
func LookupAxis(name string) (*Axis, bool) {
	axisRegistry.Lock()
	defer axisRegistry.Unlock()
	a, ok := axisRegistry.byName[name]
	return a, ok
}

// String returns the axis name.
func (a *Axis) String() string { return a.Name }

// IsThread reports whether a is a thread axis (§2.1).
func (a *Axis) IsThread() bool { return a.thread }

// IsMemory reports whether a is a memory axis (every non-thread axis).
func (a *Axis) IsMemory() bool { return !a.thread }

// Scope returns the (outer scope, inner subscope) pair of a thread axis
// (§2.1 table columns "scope" and "subscope"); ok is false for memory axes.
func (a *Axis) Scope() (outer, inner ScopeKind, ok bool) {
	if !a.thread {
		return ScopeNone, ScopeNone, false
	}
	return a.scope, a.subscope, true
}

// axisLess is the deterministic axis order used for printing offsets and
// sorting replica iters: predefined axes in declaration order, then
// auto-registered axes by name.
func axisLess(a, b *Axis) bool { return axisCmp(a, b) < 0 }

func axisCmp(a, b *Axis) int {
	if a == b {
		return 0
	}
	switch {
	case a.rank >= 0 && b.rank >= 0:
		return a.rank - b.rank
	case a.rank >= 0:
		return -1
	case b.rank >= 0:
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

// Iter is one (extent, stride, axis) term of a layout (§2.2).
type Iter struct {
	Extent, Stride int64
	Axis           *Axis
}

// It is a short constructor for Iter; a nil axis means M.
func It(extent, stride int64, axis *Axis) Iter {
	if axis == nil {
		axis = M
	}
	return Iter{Extent: extent, Stride: stride, Axis: axis}
}

// String prints "extent:stride" in the mini-language (stride "s@axis"
// unless the axis is "m").
func (it Iter) String() string {
	return strconv.FormatInt(it.Extent, 10) + ":" + strideString(it.Stride, it.Axis)
}

func strideString(s int64, a *Axis) string {
	if a == M || a == nil {
		return strconv.FormatInt(s, 10)
	}
	return strconv.FormatInt(s, 10) + "@" + a.Name
}

// Layout is a TileLayout or a ComposeLayout (§2.2).
type Layout interface {
	// String prints the layout in the §2.3 mini-language; Parse reads it back.
	String() string
	// Apply maps a coordinate: one linear index (split against the shard
	// extents, §2.4) or one digit per shard iter. The result holds every
	// axis that occurs in the shard or the offsets (replicas excluded).
	Apply(coord ...int64) map[*Axis]int64
	isLayout()
}

// TileLayout is shard + replica + offset (§2.2). Offset never holds a nil
// axis; zero entries are allowed until Canonicalize removes them.
type TileLayout struct {
	Shard   []Iter
	Replica []Iter
	Offset  map[*Axis]int64
}

func (*TileLayout) isLayout() {}

// ComposeLayout is an XOR swizzle over the "m" output of Tile (§2.2, §2.9;
// SEED data model). Tile is never nil.
type ComposeLayout struct {
	PerElement, SwizzleLen, AtomLen int
	SwizzleInner                    bool
	Tile                            *TileLayout
}

func (*ComposeLayout) isLayout() {}

// NewTile builds a TileLayout, copying its arguments. Nil axes in the iters
// and offsets mean M.
func NewTile(shard, replica []Iter, offset map[*Axis]int64) *TileLayout {
	t, sh := newTileCap(len(shard)) // one allocation, see canonTile
	t.Shard, t.Replica, t.Offset = appendFixed(sh, shard), fixIters(replica), map[*Axis]int64{}
	for a, v := range offset {
		if a == nil {
			a = M
		}
		t.Offset[a] += v
	}
	return t
}

func fixIters(in []Iter) []Iter { return appendFixed(make([]Iter, 0, len(in)), in) }

// appendFixed appends in to out with nil axes replaced by M.
func appendFixed(out, in []Iter) []Iter {
	for _, it := range in {
		if it.Axis == nil {
			it.Axis = M
		}
		out = append(out, it)
	}
	return out
}

// NewCompose builds a ComposeLayout over tile (§2.2); a nil tile means the
// bare swizzle S[(2^(p+sw+at),)]. It returns an error unless p ≥ 0, sw ≥ 0,
// at ≥ sw and p+sw+at ≤ 62 (TVM "The compose layout is not well-formed"),
// or when the tile uses an axis other than "m" (TVM fails later, in Apply).
func NewCompose(p, sw, at int, swizzleInner bool, tile *TileLayout) (*ComposeLayout, error) {
	if p < 0 || sw < 0 || at < sw || p+sw+at > 62 {
		return nil, fmt.Errorf("the compose layout is not well-formed: Compose(%d,%d,%d)", p, sw, at)
	}
	if tile == nil {
		tile = RowMajor(int64(1) << (p + sw + at))
	}
	if !tile.onlyM() {
		return nil, fmt.Errorf("the compose layout is not well-formed: tile %s must map only to axis m", tile)
	}
	return &ComposeLayout{PerElement: p, SwizzleLen: sw, AtomLen: at, SwizzleInner: swizzleInner, Tile: tile}, nil
}

// RowMajor returns S[shape]: row-major strides over M (§2.3, TVM
// TileLayoutNode::DefaultLayout).
func RowMajor(shape ...int64) *TileLayout {
	t := &TileLayout{Shard: make([]Iter, len(shape)), Offset: map[*Axis]int64{}}
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		t.Shard[i] = Iter{Extent: shape[i], Stride: s, Axis: M}
		s *= shape[i]
	}
	return t
}

// Identity returns S[(∏shape,)], TVM IdentityTileLayout; an empty shape
// gives a layout with no shard iters.
func Identity(shape []int64) *TileLayout {
	if len(shape) == 0 {
		return &TileLayout{Offset: map[*Axis]int64{}}
	}
	return RowMajor(prod(shape))
}

// Stride is one entry of a strides tuple in the mini-language: Value on
// Axis (nil Axis means M).
type Stride struct {
	Value int64
	Axis  *Axis
}

// Spec is one operand of the §2.3 "+" combination (a Python _LayoutSpec,
// or a bare offset term). Build with ShardSpec, ReplicaSpec and OffsetSpec;
// combine with Plus or Combine.
type Spec struct {
	HasShard, HasReplica bool
	Shard, Replica       []Iter
	Offset               map[*Axis]int64
}

// ShardSpec is S[extents : strides]; nil strides are row-major over M.
func ShardSpec(extents []int64, strides []Stride) (Spec, error) {
	its, err := specIters(extents, strides)
	return Spec{HasShard: true, Shard: its}, err
}

// ReplicaSpec is R[extents : strides]; nil strides are row-major over M.
func ReplicaSpec(extents []int64, strides []Stride) (Spec, error) {
	its, err := specIters(extents, strides)
	return Spec{HasReplica: true, Replica: its}, err
}

// OffsetSpec is the offset term value@axis (nil axis: a plain integer on M).
func OffsetSpec(value int64, axis *Axis) Spec {
	if axis == nil {
		axis = M
	}
	return Spec{Offset: map[*Axis]int64{axis: value}}
}

func specIters(extents []int64, strides []Stride) ([]Iter, error) {
	for _, e := range extents {
		if e <= 0 {
			return nil, fmt.Errorf("extent %d must be positive", e)
		}
	}
	if strides == nil {
		return RowMajor(extents...).Shard, nil
	}
	if len(strides) != len(extents) {
		return nil, fmt.Errorf("%d extents but %d strides", len(extents), len(strides))
	}
	its := make([]Iter, len(extents))
	for i, e := range extents {
		its[i] = It(e, strides[i].Value, strides[i].Axis)
	}
	return its, nil
}

// Plus combines s + t per §2.3: the shard of the first operand that has
// one, the replica of the last operand that has one, offsets summed.
func (s Spec) Plus(t Spec) Spec {
	r := Spec{HasShard: s.HasShard, Shard: s.Shard, HasReplica: s.HasReplica, Replica: s.Replica}
	if !s.HasShard {
		r.HasShard, r.Shard = t.HasShard, t.Shard
	}
	if t.HasReplica {
		r.HasReplica, r.Replica = true, t.Replica
	}
	if len(s.Offset)+len(t.Offset) > 0 {
		r.Offset = map[*Axis]int64{}
		for a, v := range s.Offset {
			r.Offset[a] += v
		}
		for a, v := range t.Offset {
			r.Offset[a] += v
		}
	}
	return r
}

// Layout builds TileLayout(spec).
func (s Spec) Layout() *TileLayout { return NewTile(s.Shard, s.Replica, s.Offset) }

// Combine folds specs with Plus and returns the TileLayout (§2.3).
func Combine(specs ...Spec) *TileLayout {
	var acc Spec
	for _, s := range specs {
		acc = acc.Plus(s)
	}
	return acc.Layout()
}

// String prints the layout in the mini-language, e.g.
// "S[(8,2):(4@laneid,1)] + R[(2,):(4@warpid,)] + 5@warpid + 3".
// Offsets print in a fixed axis order (M first, then the §2.1 axis order,
// then other axes by name); zero offsets are printed.
func (l *TileLayout) String() string {
	var b strings.Builder
	b.WriteString("S")
	writeIters(&b, l.Shard)
	if len(l.Replica) > 0 {
		b.WriteString(" + R")
		writeIters(&b, l.Replica)
	}
	for _, a := range sortedAxes(l.Offset) {
		b.WriteString(" + ")
		b.WriteString(strideString(l.Offset[a], a))
	}
	return b.String()
}

func writeIters(b *strings.Builder, its []Iter) {
	b.WriteString("[(")
	for i, it := range its {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strconv.FormatInt(it.Extent, 10))
	}
	if len(its) == 1 {
		b.WriteString(",")
	}
	b.WriteString("):(")
	for i, it := range its {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strideString(it.Stride, it.Axis))
	}
	if len(its) == 1 {
		b.WriteString(",")
	}
	b.WriteString(")]")
}

func sortedAxes(m map[*Axis]int64) []*Axis {
	axes := make([]*Axis, 0, len(m))
	for a := range m {
		axes = append(axes, a)
	}
	slices.SortFunc(axes, axisCmp)
	return axes
}

// String prints "Compose(p,sw,at, TILE)", or "Compose(p,sw,at,false, TILE)"
// when the swizzle XORs outer bits with inner ones (swizzle_inner=False).
func (c *ComposeLayout) String() string {
	dir := ""
	if !c.SwizzleInner {
		dir = ",false"
	}
	return fmt.Sprintf("Compose(%d,%d,%d%s, %s)", c.PerElement, c.SwizzleLen, c.AtomLen, dir, c.Tile.String())
}

// Validate reports the first shard or replica iter with a non-positive
// extent. Layouts built by Parse and the Spec constructors are valid; the
// algebra assumes validity and may panic (division by zero) otherwise.
func (l *TileLayout) Validate() error {
	for _, its := range [][]Iter{l.Shard, l.Replica} {
		for _, it := range its {
			if it.Extent <= 0 {
				return fmt.Errorf("layout %s: extent %d must be positive", l, it.Extent)
			}
		}
	}
	return nil
}

func (l *TileLayout) onlyM() bool {
	for _, its := range [][]Iter{l.Shard, l.Replica} {
		for _, it := range its {
			if it.Axis != M {
				return false
			}
		}
	}
	for a := range l.Offset {
		if a != M {
			return false
		}
	}
	return true
}

// Clone returns a deep copy of l.
func (l *TileLayout) Clone() *TileLayout { return NewTile(l.Shard, l.Replica, l.Offset) }

// Extents returns the shard extents.
func (l *TileLayout) Extents() []int64 {
	e := make([]int64, len(l.Shard))
	for i, it := range l.Shard {
		e[i] = it.Extent
	}
	return e
}

func prod(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}
