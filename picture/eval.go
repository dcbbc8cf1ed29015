package picture

// A minimal per-thread evaluator of a lowered call's body: it runs the
// body once for each thread of the call and records every memory access
// (buffer, physical element offset, bytes). It knows the ops the copy and
// elementwise variants emit (cuda.copy_bytes, cp.async, ldmatrix and
// stmatrix, the ptx.ld/ptx.st chains, plain loads and stores); other
// calls are evaluated for the loads in their arguments only. The
// partition reads who moves each element from it; the bank map does not
// (it is the memory analysis', perf/memory, passed in Call.Bank).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// maxSteps bounds the statements and expressions one picture evaluates
// (all threads together); a larger call is drawn from what was evaluated.
const maxSteps = 4 << 20

// access is one memory access of one thread.
type access struct {
	root  *ir.Buffer // the storage (a view's base)
	off   int64      // physical element offset in root
	bytes int
	kind  string // "ld", "st", "ldmatrix", ...
	// site and vec identify the IR node and the vectorized-loop instance
	// that made it (vec 0: not in a vectorized loop), for merging lanes.
	site ir.Node
	vec  int
}

func (a access) elems() int64 { return max(int64(a.bytes)*8/int64(max(a.root.Dtype.Bits, 1)), 1) }

func (a access) shared() bool { return strings.HasPrefix(a.root.Scope, "shared") }

type evaluator struct {
	axes    threadIndex
	vars    map[*ir.Var]int64
	acc     []access
	steps   int
	vecInst int // the vectorized-loop instance now running (0: none)
	nextVec int
	// out of budget, or a construct the evaluator does not run
	stop    string
	unbound map[string]bool
	offs    offsets
	budget  int // maxSteps, or a caller's smaller one
}

// threadIndex is the calling thread's index: the layout thread axes derive
// from it (tx = t, laneid = t % 32, warpid = t / 32, tid_in_wg = t % 128,
// wid_in_wg = (t / 32) % 4, wgid = t / 128); other axes are 0.
type threadIndex int64

func (t threadIndex) get(name string) int64 {
	switch name {
	case "tx":
		return int64(t)
	case "laneid":
		return int64(t) % 32
	case "warpid":
		return int64(t) / 32
	case "tid_in_wg":
		return int64(t) % 128
	case "wid_in_wg":
		return int64(t) / 32 % 4
	case "wgid":
		return int64(t) / 128
	}
	return 0
}

// run evaluates body for threads 0..threads-1 and returns each thread's
// accesses (lanes of a vectorized loop merged), the notes, and whether
// the whole body was evaluated.
func run(body *ir.Block, threads int, offs offsets, budget int, scope map[*ir.Var]string) ([][]access, []string) {
	out := make([][]access, threads)
	unbound := map[string]bool{}
	steps := 0
	stop := ""
	nextVec := 0
	for t := range threads {
		e := &evaluator{axes: threadIndex(t), vars: map[*ir.Var]int64{}, unbound: unbound, steps: steps, nextVec: nextVec,
			offs: offs, budget: budget}
		for v, axis := range scope {
			e.vars[v] = e.axes.get(axis)
		}
		e.block(body)
		steps, nextVec = e.steps, e.nextVec
		out[t] = merge(e.acc)
		if e.stop != "" {
			stop = e.stop
			break
		}
	}
	var notes []string
	if len(unbound) > 0 {
		names := make([]string, 0, len(unbound))
		for n := range unbound {
			names = append(names, n)
		}
		slices.Sort(names)
		notes = append(notes, "taken as 0 (set outside the call): "+strings.Join(names, ", "))
	}
	if stop != "" {
		notes = append(notes, "evaluation stopped: "+stop)
	}
	return out, notes
}

func (e *evaluator) step() bool {
	e.steps++
	if e.steps > e.budget && e.stop == "" {
		e.stop = fmt.Sprintf("more than %d steps", e.budget)
	}
	return e.stop == ""
}

func (e *evaluator) block(b *ir.Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		if !e.step() {
			return
		}
		e.stmt(s)
	}
}

func (e *evaluator) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Block:
		e.block(s)
	case *ir.For:
		lo := int64(0)
		if s.Min != nil {
			lo = e.eval(s.Min)
		}
		n := e.eval(s.Extent)
		outer := e.vecInst
		if s.Kind == ir.Vectorized {
			e.nextVec++
			e.vecInst = e.nextVec
		}
		for i := lo; i < lo+n && e.stop == ""; i++ {
			e.vars[s.Var] = i
			e.block(s.Body)
		}
		e.vecInst = outer
	case *ir.Let:
		e.vars[s.Var] = e.eval(s.Value)
	case *ir.Assign:
		e.vars[s.Var] = e.eval(s.Value)
	case *ir.If:
		if e.eval(s.Cond) != 0 {
			e.block(s.Then)
		} else {
			e.block(s.Else)
		}
	case *ir.Store:
		e.eval(s.Value)
		e.record(s.Buf, e.index(s.Buf, s.Indices), bytesOf(s.Buf.Dtype), "st", s)
	case *ir.Evaluate:
		e.eval(s.X)
	case *ir.Lowered:
		e.block(s.Body)
	case *ir.While, *ir.Break, *ir.Continue:
		e.stop = "a device while loop, break or continue"
	}
}

func bytesOf(t ir.DataType) int { return max(t.Bits/8, 1) }

// record adds an access to root storage; accesses to per-thread local
// memory are not recorded.
func (e *evaluator) record(b *ir.Buffer, off int64, bytes int, kind string, site ir.Node) {
	root, off := rootOf(b, off, e)
	if root.Scope == "local" || root.Scope == "" {
		return
	}
	e.acc = append(e.acc, access{root: root, off: off, bytes: bytes, kind: kind, site: site, vec: e.vecInst})
}

func rootDtype(b *ir.Buffer) ir.DataType {
	for b.Base != nil {
		b = b.Base
	}
	return b.Dtype
}

func rootScope(b *ir.Buffer) string {
	for b.Base != nil {
		b = b.Base
	}
	return b.Scope
}

// rootOf follows decl_buffer views to their storage.
func rootOf(b *ir.Buffer, off int64, e *evaluator) (*ir.Buffer, int64) {
	for b.Base != nil {
		off += b.ElemOffset
		if b.ElemOffsetExpr != nil && e != nil {
			off += e.eval(b.ElemOffsetExpr)
		}
		b = b.Base
	}
	return b, off
}

// index is the physical element offset of a Load/Store/AddressOf: one
// index is already flat; one per dimension goes through the layout.
func (e *evaluator) index(b *ir.Buffer, idx []ir.Expr) int64 {
	if len(idx) == 1 {
		return e.eval(idx[0])
	}
	coord := make([]int64, len(idx))
	for i, x := range idx {
		coord[i] = e.eval(x)
	}
	return e.offs.of(b, coord)
}

// physical maps a logical coordinate of b to its physical element offset
// and, for a register tile, the layout's output (thread axes included).
func physical(b *ir.Buffer, coord []int64) (int64, map[*layout.Axis]int64) {
	if b.Layout == nil || len(coord) != len(b.Shape) {
		return layout.FlattenCoord(coord, b.Shape), nil
	}
	var m map[*layout.Axis]int64
	switch l := b.Layout.(type) {
	case *layout.ComposeLayout:
		m = layout.ApplyShape(composeTile(b, l), coord, b.Shape)
		m[layout.M] = layout.BareSwizzle(l).SwizzleAddr(m[layout.M])
	default:
		m = layout.ApplyShape(l, coord, b.Shape)
	}
	return m[layout.M], m
}

// composeTile is the tile a swizzled buffer's coordinates go through (a
// bare swizzle over a trivial tile is row-major over the buffer).
func composeTile(b *ir.Buffer, l *layout.ComposeLayout) *layout.TileLayout {
	if layout.IsTrivial(l.Tile) && layout.Size(l.Tile, nil) != b.NumElements() {
		return layout.RowMajor(b.Shape...)
	}
	return l.Tile
}

// offsets caches, per buffer, the function from a logical coordinate to
// the physical element offset (physical's M output), grouped once
// (layout.ShapeApplier): one picture applies a layout to every cell and
// every access. Not safe for concurrent use.
type offsets map[*ir.Buffer]func([]int64) int64

func (o offsets) of(b *ir.Buffer, coord []int64) int64 {
	if b.Layout == nil || len(coord) != len(b.Shape) {
		return layout.FlattenCoord(coord, b.Shape)
	}
	f := o[b]
	if f == nil {
		switch l := b.Layout.(type) {
		case *layout.ComposeLayout:
			tile := layout.ShapeApplier(composeTile(b, l), b.Shape, layout.M)
			sw := layout.BareSwizzle(l)
			f = func(c []int64) int64 { return sw.SwizzleAddr(tile(c)) }
		default:
			f = layout.ShapeApplier(l, b.Shape, layout.M)
		}
		o[b] = f
	}
	return f(coord)
}

// ptr evaluates a pointer operand: address_of(buf[i]), optionally
// through tvm_builtin_pointer_offset, or buf.data.
func (e *evaluator) ptr(x ir.Expr) (*ir.Buffer, int64, bool) {
	switch x := x.(type) {
	case *ir.Call:
		if x.Op == ir.OpPointerOffset && len(x.Args) == 2 {
			b, off, ok := e.ptr(x.Args[0])
			return b, off + e.eval(x.Args[1]), ok
		}
	case *ir.AddressOf:
		return x.Buf, e.index(x.Buf, x.Indices), true
	case *ir.BufferData:
		return x.Buf, 0, true
	}
	return nil, 0, false
}

// chainBytes is the width of a ptx.ld/ptx.st chain from its tail
// ("...v4.u32": 16 bytes).
func chainBytes(op string) int {
	toks := strings.Split(op, ".")
	n, bits := 1, 0
	for _, t := range toks {
		if len(t) > 1 && t[0] == 'v' {
			if v, err := strconv.Atoi(t[1:]); err == nil {
				n = v
			}
		}
	}
	last := toks[len(toks)-1]
	if len(last) > 1 && strings.ContainsRune("ubsf", rune(last[0])) {
		if v, err := strconv.Atoi(last[1:]); err == nil {
			bits = v
		}
	}
	return max(n*bits/8, 1)
}

func (e *evaluator) call(c *ir.Call) {
	switch {
	case c.Op == ir.OpCopyBytes || c.Op == ir.OpCpAsync ||
		strings.HasPrefix(c.Op, "ptx.cp.async.") && !strings.Contains(c.Op, ".bulk"):
		// cp.async in the chain spelling (0.27): dst, src, cp-size, then
		// an optional src-size or predicate (ptx.pred_guard).
		if len(c.Args) < 3 {
			return
		}
		if g, ok := c.Args[len(c.Args)-1].(*ir.Call); ok && g.Op == ir.OpPredGuard && len(g.Args) == 1 && e.eval(g.Args[0]) == 0 {
			return
		}
		n := int(e.eval(c.Args[2]))
		if b, off, ok := e.ptr(c.Args[1]); ok {
			e.record(b, off, n, "ld", c)
		}
		if b, off, ok := e.ptr(c.Args[0]); ok {
			e.record(b, off, n, "st", c)
		}
		return
	case c.Op == ir.OpLdmatrix || c.Op == ir.OpStmatrix:
		// Lane l gives the address of row l%8 of matrix l/8 (16 bytes).
		if len(c.Args) < 4 {
			return
		}
		num := e.eval(c.Args[0])
		if e.axes.get("laneid") < 8*num {
			if b, off, ok := e.ptr(c.Args[2]); ok {
				e.record(b, off, 16, strings.TrimPrefix(c.Op, "ptx."), c)
			}
		}
		return
	case strings.HasPrefix(c.Op, "ptx.ldmatrix.") || strings.HasPrefix(c.Op, "ptx.stmatrix."):
		// The chain spelling (0.27): ptx.ldmatrix.sync.aligned.m8n8.x4...
		num := int64(1)
		for _, t := range strings.Split(c.Op, ".") {
			if len(t) == 2 && t[0] == 'x' && t[1] >= '1' && t[1] <= '4' {
				num = int64(t[1] - '0')
			}
		}
		for _, a := range c.Args {
			if b, off, ok := e.ptr(a); ok && strings.HasPrefix(rootScope(b), "shared") {
				if e.axes.get("laneid") < 8*num {
					e.record(b, off, 16, c.Op[4:12], c)
				}
			}
		}
		return
	case c.Op == ir.OpCastVec2:
		// Two packed elements: dst ptr, src ptr, src dtype, dst dtype.
		if len(c.Args) < 2 {
			return
		}
		if b, off, ok := e.ptr(c.Args[1]); ok {
			e.record(b, off, 2*bytesOf(rootDtype(b)), "ld", c)
		}
		if b, off, ok := e.ptr(c.Args[0]); ok {
			e.record(b, off, 2*bytesOf(rootDtype(b)), "st", c)
		}
		return
	case c.Op == ir.OpPtxLdSharedPlain:
		if b, off, ok := e.ptr(c.Args[0]); ok {
			e.record(b, off, bytesOf(c.Type), "ld", c)
		}
		return
	case strings.HasPrefix(c.Op, "ptx.ld.") || strings.HasPrefix(c.Op, "ptx.st."):
		kind := c.Op[4:6]
		for _, a := range c.Args {
			if b, off, ok := e.ptr(a); ok {
				e.record(b, off, chainBytes(c.Op), kind, c)
			} else {
				e.eval(a)
			}
		}
		return
	}
	for _, a := range c.Args {
		e.eval(a)
	}
}

func (e *evaluator) eval(x ir.Expr) int64 {
	if x == nil || !e.step() {
		return 0
	}
	switch x := x.(type) {
	case *ir.IntImm:
		return x.Value
	case *ir.Var:
		v, ok := e.vars[x]
		if !ok {
			e.unbound[x.Name] = true
		}
		return v
	case *ir.ThreadIndex:
		return e.axes.get(x.Axis)
	case *ir.Cast:
		return e.eval(x.X)
	case *ir.Not:
		if e.eval(x.X) == 0 {
			return 1
		}
		return 0
	case *ir.Neg:
		return -e.eval(x.X)
	case *ir.Select:
		if e.eval(x.Cond) != 0 {
			return e.eval(x.A)
		}
		return e.eval(x.B)
	case *ir.Load:
		e.record(x.Buf, e.index(x.Buf, x.Indices), bytesOf(x.Buf.Dtype), "ld", x)
		return 0
	case *ir.Call:
		e.call(x)
		return 0
	case *ir.Binary:
		return binary(x.Op, e.eval(x.A), e.eval(x.B))
	}
	return 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func floorDiv(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func binary(op ir.BinOp, a, b int64) int64 {
	switch op {
	case ir.Add:
		return a + b
	case ir.Sub:
		return a - b
	case ir.Mul:
		return a * b
	case ir.FloorDiv, ir.Div:
		return floorDiv(a, b)
	case ir.FloorMod:
		return a - floorDiv(a, b)*b
	case ir.Min:
		return min(a, b)
	case ir.Max:
		return max(a, b)
	case ir.EQ:
		return b2i(a == b)
	case ir.NE:
		return b2i(a != b)
	case ir.LT:
		return b2i(a < b)
	case ir.LE:
		return b2i(a <= b)
	case ir.GT:
		return b2i(a > b)
	case ir.GE:
		return b2i(a >= b)
	case ir.And:
		return b2i(a != 0 && b != 0)
	case ir.Or:
		return b2i(a != 0 || b != 0)
	case ir.BitAnd:
		return a & b
	case ir.BitOr:
		return a | b
	case ir.BitXor:
		return a ^ b
	case ir.Shl:
		return a << (b & 63)
	case ir.Shr:
		return a >> (b & 63)
	}
	return 0
}

// merge joins the accesses one IR node made in one vectorized loop
// instance into one access when they are contiguous and the run is
// naturally aligned and at most 16 bytes, as nvcc does; the merged
// access takes the place of the node's first one.
func merge(acc []access) []access {
	if !slices.ContainsFunc(acc, func(a access) bool { return a.vec != 0 }) {
		return acc
	}
	var out []access
	for i := 0; i < len(acc); {
		if acc[i].vec == 0 {
			out = append(out, acc[i])
			i++
			continue
		}
		j := i
		for j < len(acc) && acc[j].vec == acc[i].vec {
			j++
		}
		// Group by site, in order of first appearance (a few sites).
		var sites []ir.Node
		var groups [][]access
		for _, a := range acc[i:j] {
			k := slices.Index(sites, a.site)
			if k < 0 {
				k = len(sites)
				sites, groups = append(sites, a.site), append(groups, nil)
			}
			groups[k] = append(groups[k], a)
		}
		for _, g := range groups {
			out = append(out, mergeRun(g)...)
		}
		i = j
	}
	return out
}

// mergeRun returns run as one access when it can be one.
func mergeRun(run []access) []access {
	a := run[0]
	total := 0
	for k, b := range run {
		if b.root != a.root || b.bytes != a.bytes || b.off != a.off+int64(k)*a.elems() {
			return run
		}
		total += b.bytes
	}
	addr := a.off * int64(max(a.root.Dtype.Bits, 8)) / 8
	if len(run) == 1 || total > 16 || total&(total-1) != 0 || addr%int64(total) != 0 {
		return run
	}
	a.bytes = total
	return []access{a}
}
