package common

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Shared helpers of the copy variants (TVM copy/_common.py, copy/utils.py,
// common.py).

// tidAxisForScope is TVM _TID_AXIS_FOR_SCOPE: the layout axis that indexes
// a thread inside one instance of the scope.
var TidAxisForScope = map[string]string{
	"warp":      "laneid",
	"warpgroup": "tid_in_wg",
	"cta":       "tx",
}

// region is a tile-call region with constant bounds.
type Region struct {
	R      *ir.Region
	arg    int           // argument index (for spans)
	Mins   []ir.Expr     // per dim
	Exts   []int64       // per dim
	Bounds [][2]int64    // [min, min+ext) when Static
	Static bool          // all mins constant
	Span   source.Span   // the argument's span
	Buf    *ir.Buffer    // r.Buf
	Lay    layout.Layout // r.Buf.Layout (RegionLayout's over a runtime dimension)
	Shape  []int64       // r.Buf.Shape (RegionLayout's over a runtime dimension)
	memo   *operandMemo  // the call's memo of this operand (nil: none)
}

// ---- per-call memo ----
//
// The predicates and the emitters of a call's variants read the same two
// operands again and again (constRegion up to 6 times per operand per
// tile call). constRegion, sliceLayout and symOffsets are pure functions of
// the call's operand, so each call memoizes them (dispatch.Call.Scratch):
// 9% fewer BenchmarkDispatch3000 allocations (83.5k → 76.3k allocs/op).
// Callers treat the results as read-only, as they already had to (layouts
// are immutable; region slices are never written).

// callMemo is the cuda package's per-call scratch value.
type callMemo struct{ ops [2]operandMemo }

// operandMemo caches the work on one region operand (argument 0 or 1).
type operandMemo struct {
	region            Region
	regionOK, haveRgn bool
	slice             layout.Layout
	haveSlice         bool
	sym               map[*layout.Axis]ir.Expr
	symOK, haveSym    bool
}

func memoOf(c *dispatch.Call) *callMemo {
	if m, ok := c.Scratch().(*callMemo); ok {
		return m
	}
	m := &callMemo{}
	c.SetScratch(m)
	return m
}

// zero is the shared constant 0 of region starts (IR nodes are immutable).
var Zero = Cst(0)

// constRegion reads region arg i of c; ok is false when an extent is not a
// constant (the mins may be symbolic). Memoized per call for args 0 and 1.
func ConstRegion(c *dispatch.Call, i int) (Region, bool) {
	if i != 0 && i != 1 {
		return ReadRegion(c, i)
	}
	m := &memoOf(c).ops[i]
	if !m.haveRgn {
		m.region, m.regionOK = ReadRegion(c, i)
		m.region.memo = m
		m.haveRgn = true
	}
	return m.region, m.regionOK
}

func ReadRegion(c *dispatch.Call, i int) (Region, bool) {
	r, ok := c.Region(i)
	if !ok {
		return Region{}, false
	}
	g := Region{R: r, arg: i, Span: c.ArgSpan(i), Buf: r.Buf, Lay: r.Buf.Layout, Shape: r.Buf.Shape, Static: true}
	if r.Buf.RuntimeDim() >= 0 { // runtime_shape.go
		if g.Lay, g.Shape, ok = RegionLayout(r); !ok {
			return g, false
		}
	}
	n := len(r.Extent)
	g.Mins, g.Exts, g.Bounds = make([]ir.Expr, 0, n), make([]int64, 0, n), make([][2]int64, 0, n)
	for d := range r.Extent {
		e, ok := ir.ConstInt(r.Extent[d])
		if !ok {
			return g, false
		}
		var m ir.Expr = Zero
		if d < len(r.Min) && r.Min[d] != nil {
			m = r.Min[d]
		}
		g.Mins = append(g.Mins, m)
		g.Exts = append(g.Exts, e)
		if mv, ok := ir.ConstInt(m); ok && (mv == 0 || d >= len(r.Buf.ShapeExpr) || r.Buf.ShapeExpr[d] == nil) {
			g.Bounds = append(g.Bounds, [2]int64{mv, mv + e})
		} else {
			g.Static = false
			g.Bounds = append(g.Bounds, [2]int64{0, e})
		}
	}
	return g, true
}

func (g Region) numElements() int64 {
	n := int64(1)
	for _, e := range g.Exts {
		n *= e
	}
	return n
}

// extentsText prints region extents like a Python list.
func ProdExprs(es []ir.Expr) (int64, ir.Expr, bool) {
	n := int64(1)
	for _, e := range es {
		v, ok := ir.ConstInt(e)
		if !ok {
			return 0, e, false
		}
		n *= v
	}
	return n, nil, true
}

// matchScope is TVM match_scope: "shared*" is a prefix match.
func MatchScope(scope, pattern string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(scope, p)
	}
	return scope == pattern
}

type ScopePair struct{ Src, Dst string }

var (
	DefaultPairs = []ScopePair{
		{"global", "shared*"}, {"shared*", "global"}, {"global", "local"},
		{"local", "global"}, {"shared*", "local"}, {"local", "shared*"},
	}
	GmemSmemPairs = []ScopePair{{"global", "shared*"}, {"shared*", "global"}}
	RegPairs      = []ScopePair{{"local", "shared*"}, {"shared*", "local"}, {"local", "global"}, {"global", "local"}}
	RegSmemPairs  = []ScopePair{{"local", "shared*"}, {"shared*", "local"}}
)

// vecCandidates is TVM _vec_len_candidates: element counts for
// {128,64,32,16,8} bits, widest first, plus 1 when allowed is nil.
func VecCandidates(elemBits int, allowed []int) []int64 {
	return AppendVecCandidates(nil, elemBits, allowed)
}

var defaultVecBits = []int{128, 64, 32, 16, 8}

// appendVecCandidates is vecCandidates appending to out.
func AppendVecCandidates(out []int64, elemBits int, allowed []int) []int64 {
	bitsList := allowed
	if bitsList == nil {
		bitsList = defaultVecBits
	}
	for _, vb := range bitsList {
		if vb < elemBits || vb%elemBits != 0 {
			continue
		}
		n := int64(vb / elemBits)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if allowed == nil && !slices.Contains(out, 1) {
		out = append(out, 1)
	}
	return out
}

// carveTail is TVM _carve_tail: carve chunk elements off the tail of iters,
// splitting at most one iter.
func CarveTail(iters []layout.Iter, chunk int64) ([]layout.Iter, bool) {
	if len(iters) == 0 || chunk <= 0 {
		return nil, false
	}
	rem := chunk
	// Room for the split iter, so Insert below does not copy again.
	work := append(make([]layout.Iter, 0, len(iters)+1), iters...)
	for i := len(work) - 1; i >= 0; i-- {
		it := work[i]
		switch {
		case it.Extent == rem:
			return work, true
		case it.Extent < rem:
			if rem%it.Extent != 0 {
				return nil, false
			}
			rem /= it.Extent
		default:
			if it.Extent%rem != 0 {
				return nil, false
			}
			work[i] = layout.Iter{Extent: it.Extent / rem, Stride: it.Stride * rem, Axis: it.Axis}
			return slices.Insert(work, i+1, layout.Iter{Extent: rem, Stride: it.Stride, Axis: it.Axis}), true
		}
	}
	return nil, false
}

// verifyTail is TVM _verify_s_tail_contig.
func VerifyTail(s *layout.TileLayout, vec int64) bool {
	its := s.Shard
	if len(its) == 0 {
		return vec == 1
	}
	last := its[len(its)-1]
	if last.Stride != 1 {
		return false
	}
	acc := last.Extent
	if acc == vec {
		return true
	}
	for k := len(its) - 2; k >= 0; k-- {
		if its[k].Stride != acc {
			break
		}
		acc *= its[k].Extent
		if acc == vec {
			return true
		}
		if acc > vec {
			return false
		}
	}
	return acc >= vec && acc%vec == 0
}

// sortByStrideDesc is TVM _sort_by_stride_desc (stable).
func SortByStrideDesc(l *layout.TileLayout) *layout.TileLayout {
	perm := make([]int, len(l.Shard))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return CmpDesc(l.Shard[a].Stride, l.Shard[b].Stride) })
	return layout.PermuteDims(l, perm)
}

func CmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func Canon(l *layout.TileLayout) *layout.TileLayout { return layout.CanonicalTile(l) }

func MustTile(l layout.Layout) *layout.TileLayout {
	t, ok := l.(*layout.TileLayout)
	if !ok {
		dispatch.Raise("TypeError", "expected a TileLayout, got %s", l)
	}
	return t
}

// sliceLayout slices buf's layout to the region; a Go error (a grouping
// failure, which TVM raises) becomes a Raise.
func SliceLayout(g Region) (layout.Layout, bool) {
	if g.memo != nil && g.memo.haveSlice {
		return g.memo.slice, g.memo.slice != nil
	}
	if msg := runtimeGroupFails(g.Buf); msg != "" { // runtime_shape.go
		dispatch.Raise("TVMError", "%s", msg)
	}
	l, err := layout.Slice(g.Lay, g.shape(), g.Bounds)
	if err != nil {
		dispatch.Raise("TVMError", "%v", err)
	}
	if g.memo != nil {
		g.memo.slice, g.memo.haveSlice = l, true
	}
	return l, l != nil
}

// ---- symbolic layout application ----

// digitExprs splits coordinate c (with 0 <= c < prod(exts)) into
// mixed-radix digits over exts, last fastest; the first digit is not
// reduced (TVM SplitCoord).
func DigitExprs(c ir.Expr, exts []int64) []ir.Expr {
	out := make([]ir.Expr, len(exts))
	digitExprsInto(out, c, exts)
	return out
}

// digitExprsInto is digitExprs writing the len(exts) digits into out.
func digitExprsInto(out []ir.Expr, c ir.Expr, exts []int64) {
	p := int64(1)
	for k := len(exts) - 1; k >= 0; k-- {
		q := ir.DivE(c, Cst(p))
		if k > 0 {
			q = ir.ModE(q, Cst(exts[k]))
		}
		out[k] = q
		p *= exts[k]
	}
}

// applyExpr is TVM layout.apply(*coord, shape=shape)["m"] on symbolic
// coordinates: group-first, else flatten and split.
func ApplyExpr(l *layout.TileLayout, coord []ir.Expr, shape []int64) ir.Expr {
	digits, g := DigitsForShape(l, coord, shape)
	var off ir.Expr = Cst(0)
	for i, it := range g.Shard {
		if it.Axis == layout.M {
			off = ir.AddE(off, ir.MulE(digits[i], Cst(it.Stride)))
		}
	}
	if v := l.Offset[layout.M]; v != 0 {
		off = ir.AddE(off, Cst(v))
	}
	return off
}

// digitsForShape returns one digit expression per iter of the grouped
// layout it also returns. The digits go straight into one slice (the
// extents on the stack): a slice per dimension plus the extents were 3% of
// BenchmarkDispatch3000 allocations (66.0k → 63.9k allocs/op).
func DigitsForShape(l *layout.TileLayout, coord []ir.Expr, shape []int64) ([]ir.Expr, *layout.TileLayout) {
	if g, seps, ok := layout.TryGroup(l, shape); ok {
		digits := make([]ir.Expr, len(g.Shard))
		var extBuf [16]int64
		exts := extBuf[:0]
		for _, it := range g.Shard {
			exts = append(exts, it.Extent)
		}
		for d := range shape {
			digitExprsInto(digits[seps[d]:seps[d+1]], coord[d], exts[seps[d]:seps[d+1]])
		}
		return digits, g
	}
	var flat ir.Expr = Cst(0)
	for d := range coord {
		flat = ir.AddE(ir.MulE(flat, Cst(shape[d])), coord[d])
	}
	return DigitExprs(flat, l.Extents()), l
}

// swizzleExpr is the full swizzle formula of §2.9 over element offset m:
// ((q ^ ((q & outer_mask) >> at)) << p) | (m & (2^p - 1)), q = m >> p
// (swizzle_inner; the other direction XORs inner bits upwards). Constant
// offsets fold.
func SwizzleExpr(c *layout.ComposeLayout, m ir.Expr) ir.Expr {
	if v, ok := ir.ConstInt(m); ok {
		return Cst(c.SwizzleAddr(v))
	}
	if c.SwizzleLen == 0 {
		return m
	}
	p := int64(c.PerElement)
	inner := int64(1)<<c.SwizzleLen - 1
	q := ir.Bin(ir.Shr, m, Cst(p))
	var x ir.Expr
	if c.SwizzleInner {
		x = ir.Bin(ir.Shr, ir.Bin(ir.BitAnd, q, Cst(inner<<c.AtomLen)), Cst(int64(c.AtomLen)))
	} else {
		x = ir.Bin(ir.Shl, ir.Bin(ir.BitAnd, q, Cst(inner)), Cst(int64(c.AtomLen)))
	}
	hi := ir.Bin(ir.Shl, ir.Bin(ir.BitXor, q, x), Cst(p))
	if p == 0 {
		return hi
	}
	return ir.Bin(ir.BitOr, hi, ir.Bin(ir.BitAnd, m, Cst(int64(1)<<p-1)))
}

// ---- emission helpers ----

// elemPtr is `&buf[0]` as a flat element address.
func elemPtr(b *ir.Buffer, span source.Span) *ir.AddressOf {
	return &ir.AddressOf{Buf: b, Indices: []ir.Expr{Cst(0)}, FlatIndex: true, Span: span}
}

// ptrOff is tvm_builtin_pointer_offset(&buf[0], off) (spec §5.3b).
func PtrOff(b *ir.Buffer, off ir.Expr, span source.Span) ir.Expr {
	return &ir.Call{Op: ir.OpPointerOffset, Args: []ir.Expr{elemPtr(b, span), off}, Type: ir.HandleT, Span: span}
}

// copyBytes is T.cuda.copy_bytes(dst, src, n) (spec §5.3a).
func CopyBytes(dst, src ir.Expr, n int64, span source.Span) ir.Stmt {
	return &ir.Evaluate{X: &ir.Call{Op: ir.OpCopyBytes, Args: []ir.Expr{dst, src, Cst(n)}, Span: span}, Span: span}
}

// serialLoop wraps body in `for name in range(n)` (serial); n == 1 binds
// the variable to 0 instead of looping.
func SerialLoop(name string, n int64, span source.Span, body func(f ir.Expr) []ir.Stmt) []ir.Stmt {
	if n == 1 {
		return body(Cst(0))
	}
	v := &ir.Var{Name: name, Type: ir.Int32, Span: span}
	return []ir.Stmt{&ir.For{Var: v, Min: Cst(0), Extent: Cst(n), Kind: ir.Serial,
		Body: &ir.Block{Stmts: body(v), Span: span}, Span: span}}
}

// partitionString prints [outer..., thread..., vec] iters as a layout.
func PartitionString(l *layout.TileLayout) string { return l.String() }

func PyRepr(s string) string { return "'" + s + "'" }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// pyStrList prints a Python list of strings: ['laneid', 'warpid'].
func PyStrList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = PyRepr(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// ---- symbolic region starts ----
//
// The layout algebra is integer-only. A region whose start is symbolic
// (A[i*32:(i+1)*32, :] in a loop) is sliced at start 0 for its structure;
// the start then contributes its digits times the strides per axis. That
// is exact when the slice structure does not depend on the start:
//
//   - the dimension's group has a single iter (offset min·stride), or
//   - the group has several iters (e_0..e_n, outer first; B_k = ∏ e_{>k}),
//     and for some k the extent E is a multiple of B_k and the start m a
//     provable multiple of B_k, with no carry into iter k-1: k = 0, or
//     c = E/B_k divides e_k and m is a provable multiple of E. The start
//     then selects whole steps q = m/B_k of iters 0..k (offset Σ digit_i(q)
//     · s_i) and covers the inner iters from 0, as the slice at 0 does.
//     This is TVM's SlicePerGroup peeling the inner iters (their start
//     digits are provably 0) for a symbolic begin; a 32x256 MMA tile
//     sliced at columns [j*64, j*64+64) is the common case.
//
// Other symbolic starts decline (symOffsets); TVM proves more with its
// analyzer.

// symOffsets returns the per-axis offsets contributed by the symbolic
// starts of g (nil when g is static); ok is false when some symbolic
// dimension's slice would depend on the start.
func SymOffsets(g Region) (map[*layout.Axis]ir.Expr, bool) {
	if g.Static {
		return nil, true
	}
	if g.memo != nil && g.memo.haveSym {
		return g.memo.sym, g.memo.symOK
	}
	sym, ok := readSymOffsets(g)
	if g.memo != nil {
		g.memo.sym, g.memo.symOK, g.memo.haveSym = sym, ok, true
	}
	return sym, ok
}

func readSymOffsets(g Region) (map[*layout.Axis]ir.Expr, bool) {
	base := layout.ToTile(g.Lay)
	if cl, ok := g.Lay.(*layout.ComposeLayout); ok && layout.IsTrivial(cl.Tile) {
		base = layout.Identity(g.shape())
	}
	grp, seps, ok := layout.TryGroup(layout.CanonicalTile(base), g.shape())
	if !ok {
		return nil, false
	}
	out := map[*layout.Axis]ir.Expr{}
	addTo := func(a *layout.Axis, e ir.Expr) {
		prev, ok := out[a]
		if !ok {
			prev = Cst(0)
		}
		out[a] = ir.AddE(prev, e)
	}
	for d, m := range g.Mins {
		if _, isConst := ir.ConstInt(m); isConst {
			continue
		}
		its := grp.Shard[seps[d]:seps[d+1]]
		if len(its) == 1 {
			addTo(its[0].Axis, ir.MulE(m, Cst(its[0].Stride)))
			continue
		}
		terms, ok := SymGroupOffset(its, m, g.Exts[d])
		if !ok {
			return nil, false
		}
		for _, t := range terms {
			addTo(t.axis, t.off)
		}
	}
	return out, true
}

type symTerm struct {
	axis *layout.Axis
	off  ir.Expr
}

// symGroupOffset is the offset of a symbolic start m of extent e into a
// dimension laid out by several iters (see the section comment), or false.
func SymGroupOffset(its []layout.Iter, m ir.Expr, e int64) ([]symTerm, bool) {
	inner := make([]int64, len(its)) // inner[k] = B_k
	b := int64(1)
	for k := len(its) - 1; k >= 0; k-- {
		inner[k] = b
		b *= its[k].Extent
	}
	// The outermost usable k leaves the fewest digits (the offset of
	// A[:, j*64:j*64+64] is j*s_0, not (j*64 % 64)*s_1 + (j*64 / 64)*s_0).
	for k := range its {
		bk := inner[k]
		if e%bk != 0 || !Divisible(m, bk) {
			continue
		}
		if c := e / bk; k > 0 && (its[k].Extent%c != 0 || !Divisible(m, e)) {
			continue
		}
		q := divExact(m, bk)
		var terms []symTerm
		p := int64(1) // ∏ extents of iters i+1..k
		for i := k; i >= 0; i-- {
			digit := ir.DivE(q, Cst(p))
			if i > 0 {
				digit = ir.ModE(digit, Cst(its[i].Extent))
			}
			terms = append(terms, symTerm{its[i].Axis, ir.MulE(digit, Cst(its[i].Stride))})
			p *= its[i].Extent
		}
		return terms, true
	}
	return nil, false
}

// divExact is e / v for an e that divisible proved a multiple of v, kept
// in the form the program wrote (j*64 / 64 is j).
func divExact(e ir.Expr, v int64) ir.Expr {
	if v == 1 {
		return e
	}
	switch x := e.(type) {
	case *ir.IntImm:
		return Cst(x.Value / v)
	case *ir.Binary:
		switch x.Op {
		case ir.Add:
			if Divisible(x.A, v) && Divisible(x.B, v) {
				return ir.AddE(divExact(x.A, v), divExact(x.B, v))
			}
		case ir.Mul:
			if c, ok := ir.ConstInt(x.B); ok && c%v == 0 {
				return ir.MulE(x.A, Cst(c/v))
			}
			if c, ok := ir.ConstInt(x.A); ok && c%v == 0 {
				return ir.MulE(Cst(c/v), x.B)
			}
		}
	}
	return ir.DivE(e, Cst(v))
}

// memSym is the memory-axis part of symOffsets (nil when none).
func MemSym(g Region) ir.Expr {
	offs, _ := SymOffsets(g)
	return offs[layout.M]
}

// divisible reports whether e is provably a multiple of v.
func Divisible(e ir.Expr, v int64) bool {
	if v <= 1 {
		return true
	}
	switch e := e.(type) {
	case nil:
		return true
	case *ir.IntImm:
		return e.Value%v == 0
	case *ir.Binary:
		switch e.Op {
		case ir.Add, ir.Sub:
			return Divisible(e.A, v) && Divisible(e.B, v)
		case ir.Mul:
			if c, ok := ir.ConstInt(e.B); ok && v%gcd(c, v) == 0 && Divisible(e.A, v/gcd(c, v)) {
				return true
			}
			if c, ok := ir.ConstInt(e.A); ok && Divisible(e.B, v/gcd(c, v)) {
				return true
			}
			return Divisible(e.A, v) || Divisible(e.B, v)
		case ir.FloorDiv:
			// (k*c*v) // c = k*v, whatever the sign of k (TVM's rewrite
			// floordiv(x*c1, c2) -> x*(c1/c2) and its modular set: the
			// tmem<->local column offset of flash_attention4.py's
			// P_region[wg_id, 1, :, i*32:(i+1)*32] is (i*128)//4 + ...)
			if c, ok := ir.ConstInt(e.B); ok && c > 0 {
				return Divisible(e.A, c*v)
			}
		case ir.FloorMod:
			// x % c = x - c*(x//c): a multiple of v when x and c are
			if c, ok := ir.ConstInt(e.B); ok && c > 0 && c%v == 0 {
				return Divisible(e.A, v)
			}
		}
	}
	return false
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// sliceableRegions declines regions whose symbolic start cannot be sliced
// (a tilels limitation, see symOffsets).
func SliceableRegions(c *dispatch.Call) *dispatch.Decline {
	for i := range 2 {
		g, ok := ConstRegion(c, i)
		if !ok {
			continue // extents are checked by the TVM predicates
		}
		if _, ok := SymOffsets(g); !ok {
			return c.Declinef(c.ArgSpan(i), "non-constant region start %s: tilels cannot slice this layout at a symbolic offset", dispatch.ExprText(g.R))
		}
	}
	return nil
}

// smallConsts are shared int32 constants for cst (IR nodes are immutable,
// so one node can stand in many places).
var smallConsts = func() (cs [1024 + 64]*ir.IntImm) {
	for i := range cs {
		cs[i] = ir.Const(int64(i) - 64)
	}
	return cs
}()

// cst is ir.Const without the allocation for values in [-64, 1024):
// ir.Const was 12.7% of BenchmarkDispatch3000 allocations, 80% of them
// from this package.
func Cst(v int64) *ir.IntImm {
	if v >= -64 && v < 1024 {
		return smallConsts[v+64]
	}
	return ir.Const(v)
}
