package elementwise

// elementwise/smem: an elementwise op whose operands all live in shared
// memory (spec §4.4 "smem predicate" and "smem algorithm"), variant `smem`,
// priority 10, predicate `{op}_smem`.
//
// Mirrors TVM python/tvm/backend/cuda/operator/tile_primitive/elementwise/
// smem.py at PRE abe2526b3e (SEED is identical). The partition is
// synthesized, not read from a layout: the T threads of the scope (cta: the
// threadIdx.x extent, warpgroup 128, warp 32, thread 1) split the flat
// logical index of the dst region into [n_outer, T, vec] chunks, and every
// access goes through the buffer's own layout (multi-dimensional indices).
// vec is the widest of 128..8 bits over the widest operand dtype that
// divides the per-thread count and every operand's innermost extent (1 when
// the region does not split evenly over T); a packed impl of the op (f32x2
// on sm_100+, cast_vec2) takes over when one divides vec and applies.
//
// Rejects (predicate {op}_smem, first failure): a non-cuda target
// ("non-cuda target"), scopes other than thread/warp/warpgroup/cta
// ("unsupported scope {k}"), a narrowed scope (_all_threads_active), parse
// failures (their message), an operand outside shared* ("operand scope {s}
// != shared*") or without a layout ("shared operand has no layout"), bad
// scale/bias dtypes (check_extras), and shapes that do not broadcast to
// dst ("shape incompat: ..."). The emitter declines only when the scope
// has no thread count.
//
// Emits
//
//	for s in serial(n_outer):
//	    for v in vectorized(vec):
//	        fused = s*vec*T + tid*vec + v
//	        if fused < total:            # only when total % (vec*T) != 0
//	            dst[idx(fused)] = cast(compute(srcs at idx(fused)), dst.dtype)
//	<scope sync>
//
// or, with a packed impl, one call per chunk guarded by fused0+vec <= total.
// TVM emits the guard always and its simplifier drops it when it is
// provably true; tilels only emits it when it is not (the same program
// after simplification). A loop of extent 1 binds its variable to 0, and
// vec = 1 has no vectorized loop.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// ewiseSmemPred is TVM is_smem_ewise(spec).
func ewiseSmemPred(spec *ewiseOpSpec) func(*dispatch.Call) *dispatch.Decline {
	return func(c *dispatch.Call) *dispatch.Decline {
		p, d := ewiseHead(c, spec)
		if d != nil {
			return d
		}
		for _, o := range p.operands() {
			span := c.ArgSpan(o.Arg)
			if !common.MatchScope(o.R.Buf.Scope, "shared*") {
				return c.Declinef(span, "operand scope %s != shared*", o.R.Buf.Scope)
			}
			if o.R.Buf.Layout == nil {
				return c.Declinef(span, "shared operand has no layout")
			}
		}
		if spec.CheckExtras != nil {
			if why := spec.CheckExtras(p.Extras, p.computeDtype()); why != "" {
				return ewiseExtrasDecline(c, why)
			}
		}
		return ewiseBroadcastCheck(c, p)
	}
}

// ewiseExtrasDecline spans a check_extras failure at the scale or bias
// argument it names.
func ewiseExtrasDecline(c *dispatch.Call, why string) *dispatch.Decline {
	arg := 2
	if strings.HasPrefix(why, "scale") {
		arg = 3
	}
	return c.Declinef(c.ArgSpan(arg), "%s", why)
}

// ewiseMaxLayoutVec is TVM _max_layout_vec.
func ewiseMaxLayoutVec(p *ewisePlan, shapes [][]int64, total, t int64) int64 {
	maxBits := int64(ewiseMaxBits(p))
	if total%t != 0 {
		return 1
	}
	perThread := total / t
	var inners []int64
	for _, s := range shapes {
		inners = append(inners, s[len(s)-1])
	}
	for _, cand := range []int64{128, 64, 32, 16, 8} {
		n := cand / maxBits
		if n <= 0 || perThread%n != 0 {
			continue
		}
		ok := true
		for _, i := range inners {
			if i%n != 0 {
				ok = false
				break
			}
		}
		if ok {
			return n
		}
	}
	return 1
}

// ewisePickVecChunk is TVM pick_vec_chunk: the widest packed impl whose
// width divides vecMax and that applies, else (vecMax, nil).
func ewisePickVecChunk(spec *ewiseOpSpec, c *dispatch.Call, p *ewisePlan, vecMax int64) (int64, *ewiseVecImpl) {
	if vecMax <= 0 {
		return 1, nil
	}
	for i := range spec.VecImpls {
		impl := &spec.VecImpls[i]
		if impl.VecLen > vecMax || vecMax%impl.VecLen != 0 {
			continue
		}
		if impl.Applies(c, p) == "" {
			return impl.VecLen, impl
		}
	}
	return vecMax, nil
}

// emitEwiseSmem is TVM emit_smem.
func emitEwiseSmem(spec *ewiseOpSpec) func(*dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	return func(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
		p, d := spec.Parse(c)
		if d != nil {
			return nil, d
		}
		t, ok := c.GetThreadCnt()
		if !ok {
			return nil, c.Declinef(common.OpSpan(c), "unsupported scope %s for smem emit", c.Scope)
		}
		if t <= 0 {
			return nil, c.Declinef(common.OpSpan(c), "non-positive thread_cnt %d", t)
		}
		if c.LaunchTags["threadIdx.y"] || c.LaunchTags["threadIdx.z"] {
			dispatch.Raise("AssertionError", "smem emit currently assumes 1D threadIdx")
		}
		ops := p.operands()
		shapes := make([][]int64, len(ops))
		for i, o := range ops {
			if shapes[i], d = ewiseShape(c, o); d != nil {
				return nil, d
			}
		}
		dstShape := shapes[0]
		total := ewiseProd(dstShape)
		vecMax := ewiseMaxLayoutVec(p, shapes, total, t)
		vec, impl := ewisePickVecChunk(spec, c, p, vecMax)
		if impl != nil && !ewisePackedContiguous(ops, shapes, impl.VecLen) {
			// Deviation from TVM (PRE and SEED): its _max_layout_vec does not
			// check that a packed impl's lanes are adjacent in memory, and the
			// packed cast then reads the wrong pair (or traps on a misaligned
			// address, seen on an H200) for e.g. a transposed shared tile.
			vec, impl = vecMax, nil
		}
		nOuter := (total + vec*t - 1) / (vec * t)
		e := &ewiseSmemEmitter{c: c, spec: spec, p: p, shapes: shapes, t: t, vec: vec, total: total}
		var body []ir.Stmt
		if impl != nil {
			body = common.SerialLoop("s", nOuter, c.Span(), e.packed(impl))
		} else {
			body = common.SerialLoop("s", nOuter, c.Span(), e.scalar)
		}
		if s := ewiseScopeSync(c.Scope, c.Span()); s != nil {
			body = append(body, s)
		}
		bits := int64(ewiseMaxBits(p))
		part := layout.NewTile([]layout.Iter{layout.It(nOuter, vec*t, nil), layout.It(t, vec, nil), layout.It(vec, 1, nil)}, nil, nil)
		res := &dispatch.Result{
			Body: &ir.Block{Stmts: body, Span: c.Span()},
			Vec:  vec, VecBits: vec * bits, Outer: nOuter, Threads: t,
			Partition: part.String(),
		}
		if impl != nil {
			res.Notes = append(res.Notes, "packed "+impl.Name)
		}
		if total%(vec*t) != 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("guarded: %d elements do not fill %d rounds of %d", total, nOuter, vec*t))
		}
		return res, nil
	}
}

type ewiseSmemEmitter struct {
	c      *dispatch.Call
	spec   *ewiseOpSpec
	p      *ewisePlan
	shapes [][]int64 // dst, then region srcs in plan order
	t, vec int64
	total  int64
}

// tid is 0 at thread scope, else the thread's index in the scope.
func (e *ewiseSmemEmitter) tid() ir.Expr {
	if e.c.Scope == "thread" {
		return common.Cst(0)
	}
	return e.c.AxisDecl(common.TidAxisForScope[e.c.Scope])
}

// guarded wraps stmt in `if cond` when the last round is partial.
func (e *ewiseSmemEmitter) guarded(cond ir.Expr, stmt ir.Stmt) ir.Stmt {
	if e.total%(e.vec*e.t) == 0 {
		return stmt
	}
	sp := e.c.Span()
	return &ir.If{Cond: cond, Then: &ir.Block{Stmts: []ir.Stmt{stmt}, Span: sp}, Span: sp}
}

// srcValues returns the value of every src for the dst element with
// relative digits rel.
func (e *ewiseSmemEmitter) srcValues(rel []ir.Expr) []ir.Expr {
	sp := e.c.Span()
	vals := make([]ir.Expr, len(e.p.Srcs))
	k := 1
	for i, s := range e.p.Srcs {
		if s.Region == nil {
			vals[i] = s.Scalar
			continue
		}
		idx := ewiseSrcIndices(rel, e.shapes[0], s.Region, e.shapes[k])
		k++
		vals[i] = &ir.Load{Buf: s.Region.Buf, Indices: idx, Span: sp}
	}
	return vals
}

// scalar is the body of one round of the scalar path.
func (e *ewiseSmemEmitter) scalar(s ir.Expr) []ir.Stmt {
	sp := e.c.Span()
	base := ir.AddE(ir.MulE(s, common.Cst(e.vec*e.t)), ir.MulE(e.tid(), common.Cst(e.vec)))
	elem := func(v ir.Expr) ir.Stmt {
		fused := ir.AddE(base, v)
		rel := common.DigitExprs(fused, e.shapes[0])
		dt := e.p.Dst.Buf.Dtype
		val := ewiseCast(e.spec.Compute(e.srcValues(rel), e.p.Extras, dt, sp), dt, sp)
		st := &ir.Store{Buf: e.p.Dst.Buf, Indices: ewiseAddStarts(rel, e.p.Dst), Value: val, Span: sp}
		return e.guarded(&ir.Binary{Op: ir.LT, A: fused, B: common.Cst(e.total), Span: sp}, st)
	}
	if e.vec == 1 {
		return []ir.Stmt{elem(common.Cst(0))}
	}
	v := &ir.Var{Name: "v", Type: ir.Int32, Span: sp}
	return []ir.Stmt{&ir.For{Var: v, Min: common.Cst(0), Extent: common.Cst(e.vec), Kind: ir.Vectorized,
		Body: &ir.Block{Stmts: []ir.Stmt{elem(v)}, Span: sp}, Span: sp}}
}

// packed is the body of one round of the packed path: one impl call for
// vec consecutive elements.
func (e *ewiseSmemEmitter) packed(impl *ewiseVecImpl) func(s ir.Expr) []ir.Stmt {
	return func(s ir.Expr) []ir.Stmt {
		sp := e.c.Span()
		fused0 := ir.AddE(ir.MulE(s, common.Cst(e.vec*e.t)), ir.MulE(e.tid(), common.Cst(e.vec)))
		rels := make([][]ir.Expr, e.vec)
		dstLanes := make([][]ir.Expr, e.vec)
		for k := range e.vec {
			rels[k] = common.DigitExprs(ir.AddE(fused0, common.Cst(k)), e.shapes[0])
			dstLanes[k] = ewiseAddStarts(rels[k], e.p.Dst)
		}
		args := make([]ewiseLaneArg, len(e.p.Srcs))
		j := 1
		for i, src := range e.p.Srcs {
			if src.Region == nil {
				args[i] = ewiseLaneArg{Scalar: src.Scalar}
				continue
			}
			lanes := make([][]ir.Expr, e.vec)
			for k := range e.vec {
				lanes[k] = ewiseSrcIndices(rels[k], e.shapes[0], src.Region, e.shapes[j])
			}
			j++
			args[i] = ewiseLaneArg{Buf: src.Region.Buf, Lanes: lanes}
		}
		call := ewiseEmit(e.c, impl, e.p.Dst.Buf, dstLanes, args, e.p.Extras, sp)
		cond := &ir.Binary{Op: ir.LE, A: ir.AddE(fused0, common.Cst(e.vec)), B: common.Cst(e.total), Span: sp}
		return []ir.Stmt{e.guarded(cond, call)}
	}
}

// ewisePackedContiguous reports whether, in every operand, each run of vec
// logically consecutive elements along the innermost dimension is physically
// consecutive and starts at a multiple of vec elements, so that a packed impl
// may treat &x[i] as vec adjacent, aligned elements. It works on the layout
// sliced to the region: the innermost dimension's last non-unit iter must
// have stride 1 and an extent that vec divides, every other stride and the
// offset must be multiples of vec, and under a swizzle vec must fit in one
// swizzle chunk (the XOR moves whole chunks). An exhaustive per-element check
// was exact but cost 4x the whole-file analysis time (620k vs 143k allocs on
// the 3,000-line benchmark); this one is a few allocations per operand.
func ewisePackedContiguous(ops []ewiseOperand, shapes [][]int64, vec int64) bool {
	for i, o := range ops {
		b := o.R.Buf
		shape := shapes[i]
		if b.Layout == nil || len(shape) == 0 {
			return false
		}
		region := make([][2]int64, len(shape))
		for d, m := range ewiseMins(o.R) {
			v, ok := ir.ConstInt(m)
			if !ok {
				return false
			}
			region[d] = [2]int64{v, v + shape[d]}
		}
		sl, err := layout.Slice(b.Layout, b.Shape, region)
		if err != nil || sl == nil {
			return false
		}
		var tile *layout.TileLayout
		switch l := sl.(type) {
		case *layout.TileLayout:
			tile = l
		case *layout.ComposeLayout:
			if l.SwizzleLen > 0 && vec > int64(1)<<l.PerElement {
				return false
			}
			tile = l.Tile
		default:
			return false
		}
		g, seps, ok := layout.TryGroup(tile, shape)
		if !ok {
			return false
		}
		inner := -1 // index of the innermost dim's last non-unit iter
		for k := seps[len(shape)] - 1; k >= seps[len(shape)-1]; k-- {
			if g.Shard[k].Extent != 1 {
				inner = k
				break
			}
		}
		if inner < 0 || g.Shard[inner].Stride != 1 || g.Shard[inner].Extent%vec != 0 {
			return false
		}
		for k, it := range g.Shard {
			if it.Axis != layout.M || (k != inner && it.Extent != 1 && it.Stride%vec != 0) {
				return false
			}
		}
		for a, off := range g.Offset {
			if a != layout.M || off%vec != 0 {
				return false
			}
		}
		if len(g.Replica) > 0 {
			return false
		}
	}
	return true
}
