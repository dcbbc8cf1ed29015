package permutelayout

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// ---- call construction ----

func buf(t *testing.T, name, scope, dtype, lay string, shape ...int64) *ir.Buffer {
	t.Helper()
	dt, ok := ir.ParseDType(dtype)
	if !ok {
		t.Fatalf("bad dtype %q", dtype)
	}
	b := &ir.Buffer{Name: name, Shape: shape, Dtype: dt, Scope: scope, Kind: ir.ParamBuffer}
	b.Data = &ir.Var{Name: name + "_ptr", Type: ir.HandleT}
	if lay != "" {
		l, err := layout.Parse(lay)
		if err != nil {
			t.Fatalf("layout %q: %v", lay, err)
		}
		b.Layout = l
	}
	return b
}

// view is a decl_buffer over b's storage with another layout.
func view(t *testing.T, b *ir.Buffer, name, lay string) *ir.Buffer {
	v := buf(t, name, b.Scope, b.Dtype.String(), lay, b.Shape...)
	v.Kind, v.Base, v.Data = ir.DeclBuffer, b, b.Data
	return v
}

func full(b *ir.Buffer) *ir.Region {
	r := &ir.Region{Buf: b}
	for _, e := range b.Shape {
		r.Min = append(r.Min, ir.Const(0))
		r.Extent = append(r.Extent, ir.Const(e))
	}
	return r
}

// sub is b[mins[d] : mins[d]+exts[d]]; a nil min is the loop variable i.
func sub(b *ir.Buffer, i *ir.Var, mins []any, exts ...int64) *ir.Region {
	r := &ir.Region{Buf: b}
	for d, m := range mins {
		switch m := m.(type) {
		case int:
			r.Min = append(r.Min, ir.Const(int64(m)))
		case nil:
			r.Min = append(r.Min, i)
		}
		r.Extent = append(r.Extent, ir.Const(exts[d]))
	}
	return r
}

func call(scope string, dst, src *ir.Region, threads int64) *dispatch.Call {
	tc := &ir.TileCall{Op: "permute_layout", Scope: scope, Args: []ir.Arg{dst, src}}
	return dispatch.NewCall(tc, dispatch.DefaultTarget(), threads)
}

func selectCall(c *dispatch.Call) (*dispatch.Result, string, *dispatch.Explanation) {
	return dispatch.NewRegistry(Variants()).Select(c)
}

// ---- decisions ----

func TestRegistration(t *testing.T) {
	vs := Variants()
	if len(vs) != 1 {
		t.Fatalf("%d variants, want 1", len(vs))
	}
	v := vs[0]
	if v.Op != "permute_layout" || v.Name != "warp_xor_swizzle" || v.Target != "cuda" || v.Priority != 20 || len(v.When) != 0 {
		t.Errorf("variant %+v", v)
	}
}

func TestDeclineReasons(t *testing.T) {
	lin, tr := "S[(4,32):(32,1)]", "S[(4,32):(1,4)]"
	i := &ir.Var{Name: "i", Type: ir.Int32}
	cases := []struct {
		name string
		make func(t *testing.T) *dispatch.Call
		want string
	}{
		{"cta scope", func(t *testing.T) *dispatch.Call {
			return call("cta", full(buf(t, "B", "global", "uint32", tr, 4, 32)), full(buf(t, "A", "global", "uint32", lin, 4, 32)), 32)
		}, "scope 'cta' is not 'warp'"},
		{"thread scope", func(t *testing.T) *dispatch.Call {
			return call("thread", full(buf(t, "B", "global", "uint32", tr, 4, 32)), full(buf(t, "A", "global", "uint32", lin, 4, 32)), 32)
		}, "scope 'thread' is not 'warp'"},
		{"threadIdx.y", func(t *testing.T) *dispatch.Call {
			c := call("warp", full(buf(t, "B", "global", "uint32", tr, 4, 32)), full(buf(t, "A", "global", "uint32", lin, 4, 32)), 32)
			c.LaunchTags["threadIdx.y"] = true
			return c
		}, "multi-dim threadIdx is not supported"},
		{"dtype", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint16", lin, 4, 32)), full(buf(t, "A", "global", "uint32", lin, 4, 32)), 32)
		}, "dtype mismatch: dst=uint16 vs src=uint32"},
		{"symbolic extent", func(t *testing.T) *dispatch.Call {
			r := full(buf(t, "A", "global", "uint32", lin, 4, 32))
			r.Extent[0] = i
			return call("warp", full(buf(t, "B", "global", "uint32", tr, 4, 32)), r, 32)
		}, "extents must be compile-time integers"},
		{"shape", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint32", "S[(8,16):(16,1)]", 8, 16)), full(buf(t, "A", "global", "uint32", lin, 4, 32)), 32)
		}, "slice shape mismatch: src=[4, 32] vs dst=[8, 16]"},
		{"swizzled src", func(t *testing.T) *dispatch.Call {
			a := buf(t, "A", "shared", "uint32", "", 4, 32)
			sw, err := layout.NewCompose(2, 2, 4, false, layout.MustParseTile(lin))
			if err != nil {
				t.Fatal(err)
			}
			a.Layout = sw
			return call("warp", full(buf(t, "B", "shared", "uint32", tr, 4, 32)), full(a), 32)
		}, "src buffer's layout is not a plain TileLayout"},
		{"swizzled dst", func(t *testing.T) *dispatch.Call {
			b := buf(t, "B", "shared", "uint32", "", 4, 32)
			sw, _ := layout.NewCompose(2, 2, 4, false, layout.MustParseTile(lin))
			b.Layout = sw
			return call("warp", full(b), full(buf(t, "A", "shared", "uint32", lin, 4, 32)), 32)
		}, "dst buffer's layout is not a plain TileLayout"},
		{"group", func(t *testing.T) *dispatch.Call {
			a := buf(t, "A", "global", "uint32", "S[(2,2,3):(6,1,2)]", 2, 6)
			b := buf(t, "B", "global", "uint32", "S[(2,3,2):(6,1,3)]", 2, 6)
			return call("warp", sub(b, nil, []any{1, 0}, 1, 6), sub(a, nil, []any{1, 0}, 1, 6), 32)
		}, "layout.group failed: Check failed: (analyzer->CanProveEqual(floormod(extent_i, c), 0)) is false: layout T.TileLayout(T.S[(2, 3):(1, 2)] + 6) can not be grouped by shape (3, 2)"},
		{"shard mismatch", func(t *testing.T) *dispatch.Call {
			a := buf(t, "A", "global", "uint32", "S[(4,16):(1,4)]", 64)
			b := buf(t, "B", "global", "uint32", "", 64)
			return call("warp", full(b), full(a), 32)
		}, "src shard [4, 16] doesn't match dst shard [64] after regrouping"},
		{"volume", func(t *testing.T) *dispatch.Call {
			a := buf(t, "A", "global", "uint32", "S[(4,8):(8,1)]", 4, 8)
			b := buf(t, "B", "global", "uint32", "S[(4,8):(1,4)]", 4, 8)
			return call("warp", sub(b, nil, []any{0, 0}, 2, 8), sub(a, nil, []any{0, 0}, 2, 8), 32)
		}, "volume 16 not divisible by warp size 32"},
		{"per lane 64", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint32", "S[(64,32):(1,64)]", 64, 32)), full(buf(t, "A", "global", "uint32", "", 64, 32)), 32)
		}, "per-thread count 64 must be power of 2 in [1, 32]"},
		{"per lane 3", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint32", "S[(3,32):(1,3)]", 3, 32)), full(buf(t, "A", "global", "uint32", "", 3, 32)), 32)
		}, "per-thread count 3 must be power of 2 in [1, 32]"},
		{"src aliased", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint32", tr, 4, 32)), full(buf(t, "A", "global", "uint32", "S[(4,32):(0,1)]", 4, 32)), 32)
		}, "src layout (regrouped) is not a bijection on the slice"},
		{"dst aliased", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint32", "S[(4,32):(1,0)]", 4, 32)), full(buf(t, "A", "global", "uint32", lin, 4, 32)), 32)
		}, "dst layout is not a bijection on the slice"},
		{"f16 banks", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "float16", tr, 4, 32)), full(buf(t, "A", "global", "float16", lin, 4, 32)), 32)
		}, "no XOR-bits k ∈ [0, log2(P)=2] makes both phases bank-free"},
		{"u64 banks", func(t *testing.T) *dispatch.Call {
			return call("warp", full(buf(t, "B", "global", "uint64", "", 1, 32)), full(buf(t, "A", "global", "uint64", "", 1, 32)), 32)
		}, "no XOR-bits k ∈ [0, log2(P)=0] makes both phases bank-free"},
	}
	for _, tc := range cases {
		c := tc.make(t)
		res, v, e := selectCall(c)
		if res != nil || v != "" {
			t.Errorf("%s: selected %q", tc.name, v)
			continue
		}
		if len(e.Attempts) != 1 || e.Attempts[0].Outcome != dispatch.Declined {
			t.Errorf("%s: attempts %+v", tc.name, e.Attempts)
			continue
		}
		if got := e.Attempts[0].Messages[0]; got != "declined — "+tc.want {
			t.Errorf("%s:\n got %s\nwant declined — %s", tc.name, got, tc.want)
		}
	}
}

// ---- lowering ----

type lowered struct {
	res  *dispatch.Result
	call *dispatch.Call
}

func lower(t *testing.T, c *dispatch.Call) lowered {
	t.Helper()
	res, v, e := selectCall(c)
	if v != "warp_xor_swizzle" || res == nil {
		t.Fatalf("not selected:\n%s", e.TableCompact())
	}
	return lowered{res, c}
}

func planValue(t *testing.T, items []dispatch.PlanItem, path ...string) string {
	t.Helper()
	for _, it := range items {
		if it.Key == path[0] {
			if len(path) == 1 {
				return it.Value
			}
			return planValue(t, it.Fields, path[1:]...)
		}
	}
	t.Fatalf("no plan item %v in %+v", path, items)
	return ""
}

func TestPlans(t *testing.T) {
	i := &ir.Var{Name: "s", Type: ir.Int32}
	cases := []struct {
		name                string
		dst, src            func(t *testing.T) *ir.Region
		p, k                int64
		iter, pattern, fmla string
		inPlace             bool
	}{
		{"sf128", func(t *testing.T) *ir.Region {
			return sub(buf(t, "B", "global", "uint32", "S[(2,1,4,32):(128,128,1,4)]", 2, 1, 4, 32), i, []any{nil, 0, 0, 0}, 1, 1, 4, 32)
		}, func(t *testing.T) *ir.Region {
			return sub(buf(t, "A", "global", "uint32", "S[(2,1,4,32):(128,128,32,1)]", 2, 1, 4, 32), i, []any{nil, 0, 0, 0}, 1, 1, 4, 32)
		}, 4, 2, "[4, 32] = 128 elements, element i = lane + 32*j", "j = r ^ ((lane >> 3) & 3)", "read 1-way, write 4-way bank conflict", false},
		{"sf256", func(t *testing.T) *ir.Region {
			return sub(buf(t, "B", "global", "float32", "S[(2,2,4,32):(256,128,1,4)]", 2, 2, 4, 32), i, []any{nil, 0, 0, 0}, 1, 2, 4, 32)
		}, func(t *testing.T) *ir.Region {
			return sub(buf(t, "A", "global", "float32", "S[(2,2,4,32):(256,128,32,1)]", 2, 2, 4, 32), i, []any{nil, 0, 0, 0}, 1, 2, 4, 32)
		}, 8, 2, "[2, 4, 32] = 256 elements, element i = lane + 32*j", "j = r ^ ((lane >> 3) & 3)", "read 1-way, write 4-way bank conflict", false},
		{"identity", func(t *testing.T) *ir.Region {
			return full(buf(t, "B", "global", "uint32", "", 4, 32))
		}, func(t *testing.T) *ir.Region {
			return full(buf(t, "A", "global", "uint32", "S[(4,32):(32,1)]", 4, 32))
		}, 4, 0, "[4, 32] = 128 elements, element i = lane + 32*j", "j = r (no XOR: both phases are conflict-free as is)", "read 1-way, write 1-way bank conflict", false},
		{"transpose 8x32", func(t *testing.T) *ir.Region {
			return full(buf(t, "B", "global", "float32", "S[(8,32):(1,8)]", 8, 32))
		}, func(t *testing.T) *ir.Region {
			return full(buf(t, "A", "global", "float32", "S[(8,32):(32,1)]", 8, 32))
		}, 8, 3, "[8, 32] = 256 elements, element i = lane + 32*j", "j = r ^ ((lane >> 2) & 7)", "read 1-way, write 8-way bank conflict", false},
		{"transpose 16x32", func(t *testing.T) *ir.Region {
			return full(buf(t, "B", "global", "int32", "S[(16,32):(1,16)]", 16, 32))
		}, func(t *testing.T) *ir.Region {
			return full(buf(t, "A", "global", "int32", "S[(16,32):(32,1)]", 16, 32))
		}, 16, 4, "[16, 32] = 512 elements, element i = lane + 32*j", "j = r ^ ((lane >> 1) & 15)", "read 1-way, write 16-way bank conflict", false},
		{"digit straddling the lane bits", func(t *testing.T) *ir.Region {
			return full(buf(t, "B", "global", "float32", "S[(2,64):(1,2)]", 2, 64))
		}, func(t *testing.T) *ir.Region {
			return full(buf(t, "A", "global", "float32", "S[(2,64):(64,1)]", 2, 64))
		}, 4, 2, "[2, 64] = 128 elements, element i = lane + 32*j", "j = r ^ ((lane >> 3) & 3)", "read 1-way, write 2-way bank conflict", false},
	}
	for _, tc := range cases {
		l := lower(t, call("warp", tc.dst(t), tc.src(t), 32))
		r := l.res
		if r.Vec != 1 || r.Outer != tc.p || r.Threads != 32 {
			t.Errorf("%s: vec %d outer %d threads %d, want 1 %d 32", tc.name, r.Vec, r.Outer, r.Threads, tc.p)
		}
		if got := planValue(t, r.Plan, "iteration"); got != tc.iter {
			t.Errorf("%s: iteration %q, want %q", tc.name, got, tc.iter)
		}
		if got := planValue(t, r.Plan, "xor pattern"); got != tc.pattern {
			t.Errorf("%s: pattern %q, want %q", tc.name, got, tc.pattern)
		}
		if got := planValue(t, r.Plan, "xor pattern", "without xor"); got != tc.fmla {
			t.Errorf("%s: without xor %q, want %q", tc.name, got, tc.fmla)
		}
		if got := planValue(t, r.Plan, "xor pattern", "k"); !strings.HasPrefix(got, fmt.Sprint(tc.k)+" ") {
			t.Errorf("%s: k %q, want %d", tc.name, got, tc.k)
		}
		if got := planValue(t, r.Plan, "per lane"); !strings.HasPrefix(got, fmt.Sprintf("%d × ", tc.p)) {
			t.Errorf("%s: per lane %q", tc.name, got)
		}
		if got := planValue(t, r.Plan, "placement"); strings.HasPrefix(got, "in place") != tc.inPlace {
			t.Errorf("%s: placement %q", tc.name, got)
		}
		checkBody(t, tc.name, l, tc.k)
	}
}

// TestInPlaceViews: an in-place permute through two views of one shared
// arena (shape (2, 8, 32), layout shards of rank 4, the stage a loop
// variable), as in the reference's docstring example.
func TestInPlaceViews(t *testing.T) {
	arena := buf(t, "arena", "shared", "uint32", "", 512)
	arena.Kind = ir.AllocBuffer
	smem := view(t, arena, "SFA_smem", "S[(2,2,4,32):(256,128,32,1)]")
	smem.Shape = []int64{2, 8, 32}
	post := view(t, arena, "SFA_post", "S[(2,2,4,32):(256,128,1,4)]")
	post.Shape = []int64{2, 8, 32}
	ks := &ir.Var{Name: "ks", Type: ir.Int32}
	c := call("warp", sub(post, ks, []any{nil, 0, 0}, 1, 8, 32), sub(smem, ks, []any{nil, 0, 0}, 1, 8, 32), 32)
	l := lower(t, c)
	if got := planValue(t, l.res.Plan, "placement"); !strings.HasPrefix(got, "in place") {
		t.Errorf("placement %q", got)
	}
	if got := planValue(t, l.res.Plan, "iteration"); got != "[2, 4, 32] = 256 elements, element i = lane + 32*j" {
		t.Errorf("iteration %q", got)
	}
	if got := planValue(t, l.res.Plan, "buffer index"); got != "dim 1 ← [2, 4], dim 2 ← [32] (mixed radix, plus the region's starts)" {
		t.Errorf("buffer index %q", got)
	}
	checkBody(t, "in place", l, 2)
}

// checkBody runs the lowered body for the 32 lanes (stage/loop variables at
// 1) and checks: P register stores from src, a warp_sync, P stores to dst,
// a warp_sync; every logical element read exactly once and written to the
// same logical position of dst; and no bank conflict in either phase at the
// addresses the layouts give.
func checkBody(t *testing.T, name string, l lowered, k int64) {
	t.Helper()
	dst, src := l.call.Dst(), l.call.Src()
	stmts := l.res.Body.Stmts
	p := l.res.Outer
	if len(stmts) != int(2*p+3) {
		t.Fatalf("%s: %d statements, want %d", name, len(stmts), 2*p+3)
	}
	if _, ok := stmts[0].(*ir.Alloc); !ok {
		t.Errorf("%s: first statement %T, want the register Alloc", name, stmts[0])
	}
	for _, at := range []int{int(p) + 1, int(2*p) + 2} {
		ev, ok := stmts[at].(*ir.Evaluate)
		cl, ok2 := ev.X.(*ir.Call)
		if !ok || !ok2 || cl.Op != ir.OpWarpSync {
			t.Errorf("%s: statement %d is not T.cuda.warp_sync()", name, at)
		}
	}
	hasXor := false
	type elem struct{ lane, r int64 }
	readAt := map[string]elem{}
	for lane := int64(0); lane < 32; lane++ {
		env := evalEnv{lane: lane}
		regs := map[int64]string{}
		for r := int64(0); r < p; r++ {
			st := stmts[1+r].(*ir.Store)
			ld := st.Value.(*ir.Load)
			if ld.Buf != src.Buf {
				t.Fatalf("%s: read phase loads %s", name, ld.Buf.Name)
			}
			hasXor = hasXor || strings.Contains(dispatch.ExprText(ld.Indices[len(ld.Indices)-2]), "^") ||
				strings.Contains(dispatch.ExprText(ld.Indices[len(ld.Indices)-1]), "^")
			key := logical(env, src, ld.Indices)
			if prev, dup := readAt[key]; dup {
				t.Errorf("%s: element %s read by lane %d slot %d and lane %d slot %d", name, key, prev.lane, prev.r, lane, r)
			}
			readAt[key] = elem{lane, r}
			regs[env.eval(st.Indices[0])] = key
		}
		for r := int64(0); r < p; r++ {
			st := stmts[int(p)+2+int(r)].(*ir.Store)
			if st.Buf != dst.Buf {
				t.Fatalf("%s: write phase stores %s", name, st.Buf.Name)
			}
			slot := env.eval(st.Value.(*ir.Load).Indices[0])
			if got, want := logical(env, dst, st.Indices), regs[slot]; got != want {
				t.Errorf("%s: lane %d writes element %s from a register holding %s", name, lane, got, want)
			}
		}
	}
	if int64(len(readAt)) != 32*p {
		t.Errorf("%s: %d elements read, want %d", name, len(readAt), 32*p)
	}
	if hasXor != (k > 0) {
		t.Errorf("%s: XOR in the indices = %v with k = %d", name, hasXor, k)
	}
	// Bank conflicts, at the addresses of the buffers' layouts.
	for _, ph := range []struct {
		r     *ir.Region
		first int
		load  bool
	}{{src, 1, true}, {dst, int(p) + 2, false}} {
		for r := int64(0); r < p; r++ {
			banks := map[int64]int64{}
			st := stmts[ph.first+int(r)].(*ir.Store)
			for lane := int64(0); lane < 32; lane++ {
				env := evalEnv{lane: lane}
				idx := st.Indices
				if ph.load {
					idx = st.Value.(*ir.Load).Indices
				}
				addr := address(t, ph.r.Buf, env, idx) * int64(ph.r.Buf.Dtype.Bytes())
				bank := (addr / 4) % 32
				if other, hit := banks[bank]; hit {
					t.Errorf("%s: slot %d: lanes %d and %d hit bank %d", name, r, other, lane, bank)
					break
				}
				banks[bank] = lane
			}
		}
	}
}

// logical is the region-relative logical position of a buffer access.
func logical(env evalEnv, r *ir.Region, idx []ir.Expr) string {
	parts := make([]string, len(idx))
	for d, e := range idx {
		parts[d] = fmt.Sprint(env.eval(e) - env.eval(r.Min[d]))
	}
	return strings.Join(parts, ",")
}

func address(t *testing.T, b *ir.Buffer, env evalEnv, idx []ir.Expr) int64 {
	coord := make([]int64, len(idx))
	for d, e := range idx {
		coord[d] = env.eval(e)
	}
	l := b.Layout
	if l == nil {
		l = layout.RowMajor(b.Shape...)
	}
	return layout.ApplyShape(l, coord, b.Shape)[layout.M]
}

type evalEnv struct{ lane int64 }

// eval evaluates an index expression for one lane (every variable is 1).
func (env evalEnv) eval(e ir.Expr) int64 {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value
	case *ir.Var:
		return 1
	case *ir.ThreadIndex:
		if e.Axis != "laneid" {
			panic("thread index " + e.Axis)
		}
		return env.lane
	case *ir.Binary:
		a, b := env.eval(e.A), env.eval(e.B)
		switch e.Op {
		case ir.Add:
			return a + b
		case ir.Sub:
			return a - b
		case ir.Mul:
			return a * b
		case ir.FloorDiv:
			return floorDiv(a, b)
		case ir.FloorMod:
			return floorMod(a, b)
		case ir.BitAnd:
			return a & b
		case ir.BitXor:
			return a ^ b
		case ir.Shr:
			return a >> b
		case ir.Shl:
			return a << b
		}
	}
	panic(fmt.Sprintf("eval: %T %s", e, dispatch.ExprText(e)))
}

// ---- shard arithmetic (TVM test_permute_layout.py's algorithm tests) ----

func TestChooseXorK(t *testing.T) {
	cases := []struct {
		extent, src, dst []int64
		bytes, p         int64
		want             int
	}{
		{[]int64{4, 32}, []int64{32, 1}, []int64{1, 4}, 4, 4, 2},
		{[]int64{2, 4, 32}, []int64{128, 32, 1}, []int64{128, 1, 4}, 4, 8, 2},
		{[]int64{4, 32}, []int64{32, 1}, []int64{32, 1}, 4, 4, 0},
		{[]int64{4, 32}, []int64{32, 1}, []int64{1, 4}, 2, 4, -1},
		{[]int64{4, 32}, []int64{32, 1}, []int64{1, 4}, 1, 4, -1},
	}
	for _, c := range cases {
		if got := chooseXorK(c.extent, c.src, c.dst, c.bytes, c.p); got != c.want {
			t.Errorf("chooseXorK(%v, %v, %v, %d, %d) = %d, want %d", c.extent, c.src, c.dst, c.bytes, c.p, got, c.want)
		}
	}
	ext := []int64{4, 32}
	if !bankFree(ext, []int64{32, 1}, 4, 4, 0) || bankFree(ext, []int64{1, 4}, 4, 4, 0) || !bankFree(ext, []int64{1, 4}, 4, 4, 2) {
		t.Error("bankFree of the SF 128 case")
	}
	if w := conflictWays(ext, []int64{1, 4}, 4, 4, 0); w != 4 {
		t.Errorf("write phase at k=0: %d-way, want 4", w)
	}
	if isBijection(ext, []int64{0, 1}) || !isBijection(ext, []int64{1, 4}) {
		t.Error("isBijection")
	}
}

func TestGroupTexts(t *testing.T) {
	cases := []struct {
		lay   string
		shape []int64
		want  string
	}{
		{"S[(2,3):(1,2)]", []int64{3, 2}, "Check failed: (analyzer->CanProveEqual(floormod(extent_i, c), 0)) is false: layout T.TileLayout(T.S[(2, 3):(1, 2)]) can not be grouped by shape (3, 2)"},
		{"S[(2,3):(1,2)]", []int64{6, 1, 5}, "Check failed: (shape_idx == shape.size()) is false: layout T.TileLayout(T.S[(2, 3):(1, 2)]) can not be grouped by shape (6, 1, 5)"},
		{"S[6:1]", []int64{4}, "Check failed: (shape_idx == shape.size()) is false: layout T.TileLayout(T.S[6:1]) can not be grouped by shape (4,)"},
		{"S[(4,8):(8,1)]", []int64{4}, "Check failed: (shape_idx < shape.size()) is false: layout T.TileLayout(T.S[(4, 8):(8, 1)]) can not be grouped by shape (4,)"},
		{"S[(4,8):(8,1)]", []int64{2, 16}, ""},
	}
	for _, c := range cases {
		_, _, msg := groupTVM(layout.MustParseTile(c.lay), c.shape)
		if msg != c.want {
			t.Errorf("group %s by %v:\n got %q\nwant %q", c.lay, c.shape, msg, c.want)
		}
	}
	g, seps, _ := groupTVM(layout.MustParseTile("S[(4,8):(8,1)]"), []int64{2, 16})
	if got := tvmLayoutString(g); got != "T.TileLayout(T.S[(2, 2, 8):(16, 8, 1)])" || fmt.Sprint(seps) != "[0 1 3]" {
		t.Errorf("grouped %s seps %v", got, seps)
	}
}
