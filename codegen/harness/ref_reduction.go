package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// Reduction semantics (Tx.sum / max / min(dst, src, axes=-1, accum=False)):
// the src region's dims split into the reduce dims (axes, negative counted
// from the end) and the spatial dims; the k-th element of the dst region
// (row-major) is the k-th spatial position (row-major over the spatial
// extents), and gets
//
//	op(... op(op(init, src[p, r0]), src[p, r1]) ..., src[p, rN-1])
//
// over the reduce positions r in row-major order, each step rounded to
// src's dtype; init is dst's value when accum, else 0 for a sum and -inf /
// +inf for a max / min (the GPU starts from ∓FLT_MAX: the same result on
// finite data). A sum is approximate (the GPU adds in another order: the
// harness compares it within the dtype's tolerance, on positive inputs).
//
// Calls whose result is not that function of the logical tiles are not
// modelled: src and dst the same buffer (the in-place shuffle of a partial
// result), a dst region whose size is not the spatial size (the laneid
// shard -> replica path reduces over the lanes whatever the axes), and a
// register reduction at warp or warpgroup scope whose reduce dims lie on
// threads without thread_reduce=True (each thread keeps a partial result),
// except the laneid shard -> replica pattern (a warp_reduce over the lanes).
func (g *gen) reduceCall(c *ir.TileCall) {
	if len(c.Args) < 2 {
		g.fail(c.Span, "Tx.%s with %d arguments", c.Op, len(c.Args))
		return
	}
	dst, ok1 := c.Args[0].(*ir.Region)
	src, ok2 := c.Args[1].(*ir.Region)
	if !ok1 || !ok2 {
		g.fail(c.Span, "Tx.%s operands must be regions", c.Op)
		return
	}
	dt := src.Buf.Dtype
	if !dtypeOK(dt) || dt.Code == ir.Float8E4M3 || dt.Code == ir.Float8E5M2 || dst.Buf.Dtype != dt {
		g.fail(c.Span, "Tx.%s on %s values into %s is not modelled", c.Op, dt, dst.Buf.Dtype)
		return
	}
	if src.Buf == dst.Buf {
		g.fail(c.Span, "Tx.%s with src == dst (an in-place shuffle of partial results) is not modelled", c.Op)
		return
	}
	axes := []int64{-1}
	if len(c.Args) > 2 && c.Args[2] != nil {
		axes = nil
		var es []ir.Expr
		if t, ok := c.Args[2].(*ir.Tuple); ok {
			es = t.Elems
		} else {
			es = []ir.Expr{c.Args[2]}
		}
		for _, e := range es {
			v, ok := ir.ConstInt(e)
			if !ok {
				g.fail(c.Span, "Tx.%s: non-constant axis", c.Op)
				return
			}
			axes = append(axes, v)
		}
	}
	accum := false
	if len(c.Args) > 3 && c.Args[3] != nil {
		v, ok := ir.ConstInt(c.Args[3])
		if !ok {
			g.fail(c.Span, "Tx.%s: non-constant accum", c.Op)
			return
		}
		accum = v != 0
	}
	threadReduce := false
	for _, kv := range c.Config {
		if kv.Key == "thread_reduce" {
			v, ok := ir.ConstInt(kv.Value)
			threadReduce = ok && v != 0
		}
	}
	n := len(src.Extent)
	var red []int
	for _, a := range axes {
		if a < 0 {
			a += int64(n)
		}
		if a < 0 || a >= int64(n) {
			g.fail(c.Span, "Tx.%s: axis out of range", c.Op)
			return
		}
		if !slices.Contains(red, int(a)) {
			red = append(red, int(a))
		}
	}
	slices.Sort(red)
	exts := make([]int64, n)
	for d, e := range src.Extent {
		v, ok := ir.ConstInt(e)
		if !ok {
			g.fail(c.Span, "Tx.%s: non-constant src extent", c.Op)
			return
		}
		exts[d] = v
	}
	spaN, redN := int64(1), int64(1)
	var spatial []int
	for d := range n {
		if slices.Contains(red, d) {
			redN *= exts[d]
		} else {
			spatial = append(spatial, d)
			spaN *= exts[d]
		}
	}
	dstN := int64(1)
	dexts := make([]int64, len(dst.Extent))
	for i, e := range dst.Extent {
		v, ok := ir.ConstInt(e)
		if !ok {
			g.fail(c.Span, "Tx.%s: non-constant dst extent", c.Op)
			return
		}
		dexts[i] = v
		dstN *= v
	}
	// keep: dst has src's rank and spatial extents; its reduce dims (of
	// any extent: a register result replicated over the lanes that
	// reduced it) all hold the result.
	keep := len(dexts) == n
	for _, d := range spatial {
		keep = keep && dexts[d] == exts[d]
	}
	if !keep && dstN != spaN {
		g.fail(c.Span, "Tx.%s: dst has %d elements for %d spatial positions (the result does not follow the axes)", c.Op, dstN, spaN)
		return
	}
	if src.Buf.Scope == "local" && (c.Scope == "warp" || c.Scope == "warpgroup") && !threadReduce &&
		reduceOnThreads(src.Buf, red) && !(c.Scope == "warp" && laneShardToReplica(src.Buf.Layout, dst.Buf.Layout)) {
		g.fail(c.Span, "Tx.%s.%s without thread_reduce leaves per-thread partial results (the reduce dims lie on threads)", c.Scope, c.Op)
		return
	}

	d, s := g.region(dst), g.region(src)
	e := dtypeEnum(dt)
	var step, init string
	switch c.Op {
	case "sum":
		step, init = "acc + v", "0.0"
	case "max":
		if dt.IsFloat() {
			step, init = "std::fmax(acc, v)", "-INFINITY"
		} else {
			step, init = "std::max(acc, v)", "-1e300"
		}
	default:
		if dt.IsFloat() {
			step, init = "std::fmin(acc, v)", "INFINITY"
		} else {
			step, init = "std::min(acc, v)", "1e300"
		}
	}
	list := func(xs []int) string {
		if len(xs) == 0 {
			return "0"
		}
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = fmt.Sprint(x)
		}
		return strings.Join(s, ", ")
	}
	g.line("{")
	g.indent++
	g.line("const int spa_d[] = {%s}, red_d[] = {%s};", list(spatial), list(red))
	g.line("long long di[8], si[8];")
	g.line("for (long long k = 0; k < %d; k++) {", dstN)
	g.indent++
	g.line("tl_unflatten(k, %s, di);", d)
	if keep {
		g.line("for (int j = 0; j < %d; j++) si[spa_d[j]] = %s.mn[spa_d[j]] + (di[spa_d[j]] - %s.mn[spa_d[j]]);", len(spatial), s, d)
	} else {
		g.line("long long q = k;")
		g.line("for (int j = %d; j >= 0; j--) { si[spa_d[j]] = %s.mn[spa_d[j]] + q %% %s.ext[spa_d[j]]; q /= %s.ext[spa_d[j]]; }", len(spatial)-1, s, s, s)
	}
	g.line("int def = 1;")
	if accum {
		g.line("const unsigned char* dp = tl_addr(*%s.b, di, 0, t, NT);", d)
		g.line("tl_check(*%s.b, dp, nullptr);", d)
		g.line("def = tl_defined(*%s.b, dp);", d)
		g.line("double acc = tl_load(*%s.b, dp);", d)
	} else {
		g.line("double acc = %s;", init)
	}
	g.line("for (long long r = 0; r < %d; r++) {", redN)
	g.indent++
	g.line("long long q2 = r;")
	g.line("for (int j = %d; j >= 0; j--) { si[red_d[j]] = %s.mn[red_d[j]] + q2 %% %s.ext[red_d[j]]; q2 /= %s.ext[red_d[j]]; }", len(red)-1, s, s, s)
	g.line("const unsigned char* sp = tl_addr(*%s.b, si, 0, t, NT);", s)
	g.line("tl_check(*%s.b, sp, nullptr);", s)
	g.line("def = def && tl_defined(*%s.b, sp);", s)
	g.line("double v = tl_load(*%s.b, sp);", s)
	g.line("acc = tl_round(%s, %s);", e, step)
	g.indent--
	g.line("}")
	g.line("unsigned char vb[16];")
	g.line("tl_store(*%s.b, vb, acc);", d)
	g.line("tl_write(*%s.b, di, t, NT, [&](unsigned char* p) { tl_put(*%s.b, p, vb, def); });", d, d)
	g.indent--
	g.line("}")
	g.indent--
	g.line("}")
}

// reduceOnThreads reports whether a reduce dim of b (grouped by its shape)
// has a thread iter.
func reduceOnThreads(b *ir.Buffer, red []int) bool {
	t, ok := b.Layout.(*layout.TileLayout)
	if !ok {
		return false
	}
	grp, seps, ok := layout.TryGroup(t, b.Shape)
	if !ok {
		return t.HasThreadAxis()
	}
	for _, d := range red {
		for _, it := range grp.Shard[seps[d]:seps[d+1]] {
			if it.Axis.IsThread() {
				return true
			}
		}
	}
	return false
}

// laneShardToReplica is the laneid shard -> replica pattern (src's laneid
// iters span the 32 lanes, dst replicates over lanes): the lanes are
// reduced by a warp_reduce.
func laneShardToReplica(src, dst layout.Layout) bool {
	s, ok1 := src.(*layout.TileLayout)
	d, ok2 := dst.(*layout.TileLayout)
	if !ok1 || !ok2 {
		return false
	}
	lane := layout.AxisByName("laneid")
	span, lanes := int64(1), 0
	for _, it := range layout.CanonicalTile(s).Shard {
		if it.Axis == lane {
			lanes++
			st := it.Stride
			if st < 0 {
				st = -st
			}
			span += st * (it.Extent - 1)
		}
	}
	if lanes == 0 || span != 32 {
		return false
	}
	for _, it := range layout.CanonicalTile(d).Replica {
		if it.Axis == lane {
			return true
		}
	}
	return false
}
