package cuda

import cudacopy "github.com/tilels/tilels/dispatch/cuda/copy"
import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/ir"
)

// TestCopySemantics executes every lowered vector copy of the table (all
// threads, all iterations) with a tiny interpreter and checks that the
// element pairs it moves are exactly the logical copy: dst[c] = src[c] for
// every coordinate c of the regions, through both layouts (swizzle and
// thread axes included). It also checks natural alignment of each access,
// and that every cp.async moves 4, 8 or 16 bytes from global to shared.
func TestCopySemantics(t *testing.T) {
	checked := 0
	for _, c := range copyCases(t) {
		k := newKernel(t)
		c.build(k)
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		for i, d := range out.Decisions {
			if d.Result == nil || (d.Variant != "gmem_smem" && d.Variant != "reg" && d.Variant != "ldstmatrix") {
				continue
			}
			if err := simulate(d, out.Launch.Block[0], nil); err != nil {
				t.Errorf("%s call %d (%s): %v", c.name, i, d.Variant, err)
			}
			checked++
		}
	}
	t.Logf("simulated %d lowered copies", checked)
}

// elem is one element location: buffer, owning thread (-1 for memory
// shared by all threads) and physical element offset.
type elem struct {
	buf    string
	thread int64
	off    int64
}

var axesCache []map[string]int64

var ownerIndex = map[string]map[string][]int64{}

func axesOf(t int64) map[string]int64 {
	for int64(len(axesCache)) <= t {
		axesCache = append(axesCache, threadAxes(int64(len(axesCache))))
	}
	return axesCache[t]
}

func threadAxes(t int64) map[string]int64 {
	return map[string]int64{"laneid": t % 32, "tx": t, "tid_in_wg": t % 128, "wid_in_wg": (t / 32) % 4,
		"warpid": t / 32, "wgid": t / 128}
}

// physical maps a logical coordinate of b to its element location; the
// owner is the thread whose axis values match (registers), or -1.
func physical(b *ir.Buffer, coord []int64, threads int64) ([]elem, error) {
	var tile *layout.TileLayout
	var sw *layout.ComposeLayout
	switch l := b.Layout.(type) {
	case *layout.TileLayout:
		tile = l
	case *layout.ComposeLayout:
		tile = l.Tile
		if layout.IsTrivial(l.Tile) && layout.Size(l.Tile, nil) != b.NumElements() {
			tile = layout.RowMajor(b.Shape...)
		}
		sw = layout.BareSwizzle(l)
	}
	m := layout.ApplyShape(tile, coord, b.Shape)
	off := m[layout.M]
	if sw != nil {
		off = sw.SwizzleAddr(off)
	}
	if b.Scope != "local" || tile.IsMemoryOnly() {
		return []elem{{b.Name, -1, off}}, nil
	}
	var names []string
	for a := range m {
		if a.IsThread() {
			names = append(names, a.Name)
		}
	}
	sort.Strings(names)
	key := fmt.Sprint(names, threads)
	idx, ok := ownerIndex[key]
	if !ok {
		idx = map[string][]int64{}
		for t := range threads {
			ax := axesOf(t)
			vals := make([]int64, len(names))
			for i, n := range names {
				vals[i] = ax[n]
			}
			k := fmt.Sprint(vals)
			idx[k] = append(idx[k], t)
		}
		ownerIndex[key] = idx
	}
	vals := make([]int64, len(names))
	for i, n := range names {
		for a, v := range m {
			if a.Name == n {
				vals[i] = v
			}
		}
	}
	var out []elem
	for _, t := range idx[fmt.Sprint(vals)] {
		out = append(out, elem{b.Name, t, off})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no thread owns %s%v", b.Name, coord)
	}
	return out, nil
}

type pair struct{ dst, src elem }

func simulate(d *dispatch.Decision, threads int64, bind map[*ir.Var]int64) error {
	dst, src := d.Call.Args[0].(*ir.Region), d.Call.Args[1].(*ir.Region)
	hasLocal := dst.Buf.Scope == "local" || src.Buf.Scope == "local"
	// Expected pairs.
	want := map[pair]bool{}
	dIdx, sIdx := cudacopy.NonUnitDims(dst), cudacopy.NonUnitDims(src)
	var exts []int64
	for _, di := range dIdx {
		e, _ := ir.ConstInt(dst.Extent[di])
		exts = append(exts, e)
	}
	n := int64(1)
	for _, e := range exts {
		n *= e
	}
	start := func(r *ir.Region) []int64 {
		out := make([]int64, len(r.Min))
		ev := &interp{vars: bind}
		for i, m := range r.Min {
			out[i] = ev.eval(m)
		}
		return out
	}
	for flat := range n {
		digits := layout.SplitCoord(flat, exts)
		dc, sc := start(dst), start(src)
		for k := range digits {
			dc[dIdx[k]] += digits[k]
			sc[sIdx[k]] += digits[k]
		}
		de, err := physical(dst.Buf, dc, threads)
		if err != nil {
			return err
		}
		se, err := physical(src.Buf, sc, threads)
		if err != nil {
			return err
		}
		for _, a := range de {
			for _, b := range se {
				if hasLocal && a.thread < 0 && b.thread < 0 {
					a.thread, b.thread = 0, 0 // per-thread memory at thread scope
				}
				if a.thread >= 0 && b.thread >= 0 && a.thread != b.thread {
					continue
				}
				if a.thread < 0 && b.thread >= 0 {
					a.thread = b.thread
				}
				if b.thread < 0 && a.thread >= 0 {
					b.thread = a.thread
				}
				want[pair{a, b}] = true
			}
		}
	}
	// Executed pairs.
	got := map[pair]bool{}
	active := d.Threads
	if active == 0 {
		active = 1
	}
	var calls [][]ldmCall
	for t := range active {
		in := &interp{thread: threadAxes(t), vars: map[*ir.Var]int64{}, mem: map[*ir.Buffer][]int64{}}
		for v, x := range bind {
			in.vars[v] = x
		}
		var err error
		in.copyFn = func(dp, sp ptr, nbytes int64) {
			bits := int64(dst.Buf.Dtype.Bits)
			v := nbytes * 8 / bits
			if dp.off%v != 0 || sp.off%v != 0 {
				err = fmt.Errorf("misaligned %d-byte access: dst %d src %d", nbytes, dp.off, sp.off)
			}
			for j := range v {
				a, b := elem{dp.buf.Name, -1, dp.off + j}, elem{sp.buf.Name, -1, sp.off + j}
				if hasLocal {
					a.thread, b.thread = t, t
				}
				got[pair{a, b}] = true
			}
		}
		in.block(d.Result.Body)
		if err != nil {
			return err
		}
		if in.bad != "" {
			return fmt.Errorf("thread %d: %s", t, in.bad)
		}
		calls = append(calls, in.ldm)
	}
	// ldmatrix / stmatrix: lane l of a warp gives the row address of
	// matrix l/8, row l%8; thread t holds (row t/4, cols 2(t%4)+e) of each
	// matrix in register handle+2j+e (transposed: row 2(t%4)+e, col t/4).
	for t, cs := range calls {
		warp := int64(t) / 32 * 32
		for k, c := range cs {
			lane := int64(t) % 32
			for j := range c.num {
				for e := range int64(2) {
					row, col := lane/4, 2*(lane%4)+e
					if c.trans {
						row, col = 2*(lane%4)+e, lane/4
					}
					a := calls[warp+8*j+row][k].smem
					sm := elem{a.buf.Name, int64(t), a.off + col}
					rg := elem{c.reg.buf.Name, int64(t), c.reg.off + 2*j + e}
					if c.ld {
						got[pair{rg, sm}] = true
					} else {
						got[pair{sm, rg}] = true
					}
				}
			}
		}
	}
	if !hasLocal {
		// Memory pairs are thread-independent.
		w2 := map[pair]bool{}
		for p := range want {
			p.dst.thread, p.src.thread = -1, -1
			w2[p] = true
		}
		want = w2
	}
	var missing, extra []string
	for p := range want {
		if !got[p] {
			missing = append(missing, fmt.Sprint(p))
		}
	}
	for p := range got {
		if !want[p] {
			extra = append(extra, fmt.Sprint(p))
		}
	}
	if len(missing)+len(extra) > 0 {
		sort.Strings(missing)
		sort.Strings(extra)
		return fmt.Errorf("%d missing (e.g. %v), %d extra (e.g. %v)", len(missing), head(missing), len(extra), head(extra))
	}
	return nil
}

func head(xs []string) string {
	if len(xs) > 3 {
		xs = xs[:3]
	}
	return strings.Join(xs, " ")
}

type ptr struct {
	buf *ir.Buffer
	off int64
}

type interp struct {
	bad    string // a malformed instruction, "" when none
	ldm    []ldmCall
	thread map[string]int64
	vars   map[*ir.Var]int64
	mem    map[*ir.Buffer][]int64
	copyFn func(dst, src ptr, n int64)
}

func (in *interp) block(b *ir.Block) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.For:
			ext := in.eval(s.Extent)
			for i := range ext {
				in.vars[s.Var] = i
				in.block(s.Body)
			}
		case *ir.Let:
			in.vars[s.Var] = in.eval(s.Value)
		case *ir.Alloc:
			in.mem[s.Buf] = make([]int64, s.Buf.NumElements())
		case *ir.Store:
			in.mem[s.Buf][in.eval(s.Indices[0])] = in.eval(s.Value)
		case *ir.Evaluate:
			c := s.X.(*ir.Call)
			if c.Op == ir.OpLdmatrix || c.Op == ir.OpStmatrix {
				in.ldm = append(in.ldm, ldmCall{c.Op == ir.OpLdmatrix, in.eval(c.Args[0]), in.eval(c.Args[1]) == 1,
					in.ptr(c.Args[2]), in.ptr(c.Args[3])})
				continue
			}
			if c.Op == ir.OpCpAsync {
				// cp.async: a cp_size-byte global -> shared copy; the
				// alignment check is copyFn's.
				d, s, n := in.ptr(c.Args[0]), in.ptr(c.Args[1]), in.eval(c.Args[2])
				if (n != 4 && n != 8 && n != 16) || !strings.HasPrefix(d.buf.Scope, "shared") || s.buf.Scope != "global" {
					in.bad = fmt.Sprintf("cp.async of %d bytes from %s to %s", n, s.buf.Scope, d.buf.Scope)
				}
				in.copyFn(d, s, n)
				continue
			}
			if c.Op != ir.OpCopyBytes {
				panic("unexpected call " + c.Op)
			}
			in.copyFn(in.ptr(c.Args[0]), in.ptr(c.Args[1]), in.eval(c.Args[2]))
		case *ir.If:
			if in.eval(s.Cond) != 0 {
				in.block(s.Then)
			}
		default:
			panic(fmt.Sprintf("unexpected stmt %T", s))
		}
	}
}

func (in *interp) ptr(e ir.Expr) ptr {
	c := e.(*ir.Call)
	a := c.Args[0].(*ir.AddressOf)
	return ptr{a.Buf, in.eval(a.Indices[0]) + in.eval(c.Args[1])}
}

func (in *interp) eval(e ir.Expr) int64 {
	switch e := e.(type) {
	case *ir.IntImm:
		return e.Value
	case *ir.Var:
		v, ok := in.vars[e]
		if !ok {
			panic("unbound " + e.Name)
		}
		return v
	case *ir.ThreadIndex:
		return in.thread[e.Axis]
	case *ir.Load:
		return in.mem[e.Buf][in.eval(e.Indices[0])]
	case *ir.Binary:
		a, b := in.eval(e.A), in.eval(e.B)
		switch e.Op {
		case ir.Add:
			return a + b
		case ir.Sub:
			return a - b
		case ir.Mul:
			return a * b
		case ir.FloorDiv:
			return cudacopy.FloorDiv(a, b)
		case ir.FloorMod:
			return cudacopy.FloorMod(a, b)
		case ir.BitAnd:
			return a & b
		case ir.BitOr:
			return a | b
		case ir.BitXor:
			return a ^ b
		case ir.Shl:
			return a << b
		case ir.Shr:
			return a >> b
		case ir.EQ:
			if a == b {
				return 1
			}
			return 0
		}
	}
	panic(fmt.Sprintf("cannot evaluate %s", dispatch.ExprText(e)))
}

// TestSymbolicStarts lowers copies whose region starts are loop variables
// and checks them for several values of the variables.
func TestSymbolicStarts(t *testing.T) {
	type symCase struct {
		name    string
		build   func(k *kb, i *ir.Var)
		variant string
		vec     int64
	}
	cases := []symCase{
		{"gmem_smem row tile", func(k *kb, i *ir.Var) {
			k.warpKernel()
			a := k.buf("A", "global", "float16", "", 128, 64)
			s := k.buf("S", "shared", "float16", "", 32, 64)
			r := &ir.Region{Buf: a, Min: []ir.Expr{ir.MulE(i, ir.Const(32)), ir.Const(0)}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			k.copyCall("warp", full(s), r, "")
		}, "gmem_smem", 8},
		{"gmem_smem odd column start clamps vec", func(k *kb, i *ir.Var) {
			k.warpKernel()
			a := k.buf("A", "global", "float16", "", 32, 128)
			s := withLayout(k.buf("S", "shared", "float16", "", 32, 64), mustCompose(t, 3, 3, 3, "S[32,64]"))
			r := &ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0), ir.AddE(ir.MulE(i, ir.Const(8)), ir.Const(2))}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			k.copyCall("warp", full(s), r, "")
		}, "gmem_smem", 2},
		{"reg register slice", func(k *kb, i *ir.Var) {
			k.warpKernel()
			rb := k.buf("R", "local", "float32", "S[(32,32):(1@laneid,1)]", 32, 32)
			s := k.buf("S", "shared", "float32", "", 32, 8)
			r := &ir.Region{Buf: rb, Min: []ir.Expr{ir.Const(0), ir.MulE(i, ir.Const(8))}, Extent: []ir.Expr{ir.Const(32), ir.Const(8)}}
			k.copyCall("warp", r, full(s), "")
		}, "reg", 4},
		// The column dimension of a 32x256 MMA tile is two layout iters,
		// (4 chunks):(2048) and (64):(1); a start that is a multiple of a
		// chunk selects whole chunks (found by the reference-agreement
		// corpus: tilels declined and fell back to the scalar copy).
		{"gmem_smem MMA column chunk", func(k *kb, i *ir.Var) {
			k.warpKernel()
			a := k.buf("A", "global", "float16", "", 32, 256)
			s := withLayout(k.buf("S", "shared", "float16", "", 32, 256), mustMMA(t, "float16", 3, 32, 256))
			lo := ir.MulE(i, ir.Const(64))
			sr := &ir.Region{Buf: s, Min: []ir.Expr{ir.Const(0), lo}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			gr := &ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0), lo}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			k.copyCall("warp", sr, gr, "")
		}, "gmem_smem", 8},
		{"gmem_smem MMA two column chunks", func(k *kb, i *ir.Var) {
			k.warpKernel()
			a := k.buf("A", "global", "float16", "", 32, 512)
			s := withLayout(k.buf("S", "shared", "float16", "", 32, 256), mustMMA(t, "float16", 3, 32, 256))
			sr := &ir.Region{Buf: s, Min: []ir.Expr{ir.Const(0), ir.MulE(ir.ModE(i, ir.Const(2)), ir.Const(128))},
				Extent: []ir.Expr{ir.Const(32), ir.Const(128)}}
			gr := &ir.Region{Buf: a, Min: []ir.Expr{ir.Const(0), ir.MulE(i, ir.Const(128))}, Extent: []ir.Expr{ir.Const(32), ir.Const(128)}}
			k.copyCall("warp", gr, sr, "")
		}, "gmem_smem", 8},
		{"reg into an MMA column chunk", func(k *kb, i *ir.Var) {
			k.warpKernel()
			rb := k.buf("R", "local", "float16", "S[(32,64):(1@laneid,1)]", 32, 64)
			s := withLayout(k.buf("S", "shared", "float16", "", 32, 256), mustMMA(t, "float16", 3, 32, 256))
			sr := &ir.Region{Buf: s, Min: []ir.Expr{ir.Const(0), ir.MulE(i, ir.Const(64))}, Extent: []ir.Expr{ir.Const(32), ir.Const(64)}}
			k.copyCall("warp", sr, full(rb), "")
		}, "reg", 8},
	}
	for _, c := range cases {
		k := newKernel(t)
		i := &ir.Var{Name: "i", Type: ir.Int32}
		c.build(k, i)
		out := dispatch.Lower(k.fn, dispatch.DefaultTarget(), Variants())
		d := out.Decisions[0]
		if d.Variant != c.variant || d.Result == nil || d.Result.Vec != c.vec {
			t.Errorf("%s: variant %q vec %v, want %s/%d\n%s", c.name, d.Variant, d.Result, c.variant, c.vec, d.Explanation.TableCompact())
			continue
		}
		for _, iv := range []int64{0, 1, 3} {
			if err := simulate(d, out.Launch.Block[0], map[*ir.Var]int64{i: iv}); err != nil {
				t.Errorf("%s i=%d: %v", c.name, iv, err)
			}
		}
	}
}

type ldmCall struct {
	ld    bool
	num   int64
	trans bool
	smem  ptr
	reg   ptr
}
