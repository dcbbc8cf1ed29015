package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"fmt"
	"slices"

	"github.com/tilels/tilels/dispatch/layout"
)

// The TMEM datapath layouts of tvm.tirx.layout (tvm/tirx/layout.py, PTX ISA
// §9.7.16.10.5): tmem_datapath_layout(datapath, rows, cols, sub_slab=0)
// and tmem_mma_operand_layout(operand, shape, dtype, *, M, cta_group,
// ws=False, sparse=False, group=None), which TMEMPool's
// alloc_tcgen05_mma_A/D build their buffers with (alloc_pool.go).
// Errors carry the reference's ValueError text.

// tmemDatapathRows is the logical row count each datapath letter expects.
var tmemDatapathRows = map[string]int64{"A": 128, "B": 64, "C": 64, "D": 128, "E": 64, "F": 64, "G": 32}

// tmemDatapathLayout is tmem_datapath_layout: the lane/column layout the
// MMA datapath `dp` writes a (rows, cols) matrix with.
func tmemDatapathLayout(dp string, rows, cols, subSlab int64) (*layout.TileLayout, error) {
	want, known := tmemDatapathRows[dp]
	if !known {
		return nil, fmt.Errorf("tmem_datapath_layout: unknown datapath %s; supported: ['A', 'B', 'C', 'D', 'E', 'F', 'G']", eval.PyQuote(dp))
	}
	if rows != want {
		return nil, fmt.Errorf("tmem_datapath_layout: datapath=%s expects rows=%d, got %d", eval.PyQuote(dp), want, rows)
	}
	if subSlab != 0 && subSlab != 1 {
		return nil, fmt.Errorf("tmem_datapath_layout: sub_slab must be 0 or 1, got %d", subSlab)
	}
	it, lane, col := layout.It, layout.TLane, layout.TCol
	switch dp {
	case "A", "D":
		if subSlab != 0 {
			return nil, fmt.Errorf("tmem_datapath_layout: datapath=%s (M=128) already spans both sub-slabs; sub_slab must be 0", eval.PyQuote(dp))
		}
		return layout.NewTile([]layout.Iter{it(rows, 1, lane), it(cols, 1, col)}, nil, nil), nil
	case "G":
		if subSlab != 0 {
			return nil, fmt.Errorf("tmem_datapath_layout: datapath='G' folds column quarters across full 32-lane slabs; sub_slab must be 0")
		}
		if cols%4 != 0 {
			return nil, fmt.Errorf("tmem_datapath_layout: datapath='G' requires cols %% 4 == 0, got %d", cols)
		}
		return layout.NewTile([]layout.Iter{it(rows, 1, lane), it(4, 32, lane), it(cols/4, 1, col)}, nil, nil), nil
	case "B", "E":
		if subSlab != 0 {
			return nil, fmt.Errorf("tmem_datapath_layout: datapath=%s folds column halves across full 64-lane halves; sub_slab must be 0", eval.PyQuote(dp))
		}
		if cols%2 != 0 {
			return nil, fmt.Errorf("tmem_datapath_layout: datapath=%s expects even cols, got %d", eval.PyQuote(dp), cols)
		}
		return layout.NewTile([]layout.Iter{it(rows, 1, lane), it(2, 64, lane), it(cols/2, 1, col)}, nil, nil), nil
	}
	// C and F: 16 rows per warp slab, in the lower or upper half of it.
	var off map[*layout.Axis]int64
	if subSlab != 0 {
		off = map[*layout.Axis]int64{lane: 16}
	}
	return layout.NewTile([]layout.Iter{it(4, 32, lane), it(16, 1, lane), it(cols, 1, col)}, nil, off), nil
}

// mmaDatapathLetter is _mma_datapath_letter(M, cta_group, ws, sparse).
func mmaDatapathLetter(m, ctaGroup int64, ws, sparse bool) (string, error) {
	if sparse {
		return "", fmt.Errorf("alloc_tcgen05_mma_AB: sparse A (Layout C) not supported in v1 (M=%d, cta_group=%d)", m, ctaGroup)
	}
	if ws && !(ctaGroup == 1 && m == 64) {
		return "", fmt.Errorf("alloc_tcgen05_mma_AB: ws=True only valid for cta_group=1, M=64 (Layout E); got M=%d, cta_group=%d", m, ctaGroup)
	}
	switch {
	case ctaGroup == 1 && m == 128:
		return "D", nil
	case ctaGroup == 1 && m == 64 && ws:
		return "E", nil
	case ctaGroup == 1 && m == 64:
		return "F", nil
	case ctaGroup == 2 && m == 256:
		return "A", nil
	case ctaGroup == 2 && m == 128:
		return "B", nil
	}
	return "", fmt.Errorf("alloc_tcgen05_mma_AB: no supported datapath for M=%d, cta_group=%d, ws=%s (supported: cta1 M in {64,128}, cta2 M in {128,256})", m, ctaGroup, pyBool(ws))
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// tmemOperand holds the instruction parameters of tmem_mma_operand_layout.
type tmemOperand struct {
	M, CtaGroup int64
	WS, Sparse  bool
	Group       []int64 // group=(s, 2, n) of a D operand, nil when absent
}

// tmemMMAOperandLayout is tmem_mma_operand_layout(operand, shape, dtype,
// M=, cta_group=, ws=, sparse=, group=), canonicalized as the reference
// returns it.
func tmemMMAOperandLayout(operand string, shape []int64, p tmemOperand) (layout.Layout, error) {
	dp, err := mmaDatapathLetter(p.M, p.CtaGroup, p.WS, p.Sparse)
	if err != nil {
		return nil, err
	}
	perCTA := p.M / p.CtaGroup
	ext := eval.ShapeList(shape)
	chk := func(rows int64) error {
		if rows != perCTA {
			return fmt.Errorf("alloc_mma_%s: M=%d, cta_group=%d expects per-CTA rows %d, got %d (shape %s)", operand, p.M, p.CtaGroup, perCTA, rows, ext)
		}
		return nil
	}
	it, lane, col := layout.It, layout.TLane, layout.TCol
	tile := func(its ...layout.Iter) *layout.TileLayout { return layout.NewTile(its, nil, nil) }
	bankBatched := func() (layout.Layout, error) {
		if err := chk(shape[1]); err != nil {
			return nil, err
		}
		return tile(it(2, 64, lane), it(shape[1], 1, lane), it(shape[2], 1, col)), nil
	}
	var l layout.Layout
	switch operand {
	case "D":
		halves := dp == "B" || dp == "E"
		switch {
		case p.Group != nil:
			if len(shape) != 2 {
				return nil, fmt.Errorf("alloc_tcgen05_mma_D group= requires 2D (m,N), got %s", ext)
			}
			m, n := shape[0], shape[1]
			if len(p.Group) != 3 || p.Group[1] != 2 {
				return nil, fmt.Errorf("alloc_tcgen05_mma_D group must be (s,2,n), got %s", tupleStr(p.Group))
			}
			s2, n2 := p.Group[0], p.Group[2]
			if s2*2*n2 != n {
				return nil, fmt.Errorf("alloc_tcgen05_mma_D group %s product != N=%d", tupleStr(p.Group), n)
			}
			if !halves {
				return nil, fmt.Errorf("alloc_tcgen05_mma_D group= only for Layout B/E, got %s", dp)
			}
			if err := chk(m); err != nil {
				return nil, err
			}
			l = tile(it(m, 1, lane), it(s2, n2, col), it(2, 64, lane), it(n2, 1, col))
		case len(shape) == 2:
			if err := chk(shape[0]); err != nil {
				return nil, err
			}
			t, err := tmemDatapathLayout(dp, shape[0], shape[1], 0)
			if err != nil {
				return nil, err
			}
			l = t
		case len(shape) == 3 && shape[0] == 2 && halves:
			if l, err = bankBatched(); err != nil {
				return nil, err
			}
		case len(shape) == 3 && shape[1] == 2 && halves:
			if err := chk(shape[0]); err != nil {
				return nil, err
			}
			l = tile(it(shape[0], 1, lane), it(2, 64, lane), it(shape[2], 1, col))
		case len(shape) == 4 && shape[2] == 2 && halves:
			if err := chk(shape[0]); err != nil {
				return nil, err
			}
			l = tile(it(shape[0], 1, lane), it(shape[1], shape[3], col), it(2, 64, lane), it(shape[3], 1, col))
		default:
			return nil, fmt.Errorf("alloc_tcgen05_mma_D: unsupported D shape %s for datapath %s", ext, dp)
		}
	case "A":
		switch dp {
		case "A", "D":
			if len(shape) != 2 {
				return nil, fmt.Errorf("alloc_tcgen05_mma_A: datapath %s identity needs 2D (m,K), got %s", dp, ext)
			}
			if err := chk(shape[0]); err != nil {
				return nil, err
			}
			t, err := tmemDatapathLayout(dp, shape[0], shape[1], 0)
			if err != nil {
				return nil, err
			}
			l = t
		case "B":
			switch {
			case len(shape) == 2:
				if err := chk(shape[0]); err != nil {
					return nil, err
				}
				l = layout.NewTile([]layout.Iter{it(shape[0], 1, lane), it(shape[1], 1, col)}, []layout.Iter{it(2, 64, lane)}, nil)
			case len(shape) == 3 && shape[0] == 2:
				if l, err = bankBatched(); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("alloc_tcgen05_mma_A: datapath B needs (64,K) replica or (2,64,K) bank-batched, got %s", ext)
			}
		case "E":
			if !(len(shape) == 3 && shape[0] == 2) {
				return nil, fmt.Errorf("alloc_tcgen05_mma_A: datapath E (M=64 .ws) requires bank-batched (2,64,K); flat %s rejected (hidden second-half read)", ext)
			}
			if l, err = bankBatched(); err != nil {
				return nil, err
			}
		default: // F
			if len(shape) != 2 {
				return nil, fmt.Errorf("alloc_tcgen05_mma_A: datapath F needs 2D (m,K), got %s", ext)
			}
			if err := chk(shape[0]); err != nil {
				return nil, err
			}
			l = tile(it(shape[0], 1, lane), it(shape[1], 1, col))
		}
	default:
		return nil, fmt.Errorf("tmem_mma_operand_layout: operand must be 'A' or 'D', got %s", eval.PyQuote(operand))
	}
	return layout.Canonicalize(l, false), nil
}

func tupleStr(xs []int64) string {
	s := eval.ShapeList(xs)
	s = "(" + s[1:len(s)-1]
	if len(xs) == 1 {
		s += ","
	}
	return s + ")"
}

// tmemMMAOperandLayoutCall is tvm.tirx.layout.tmem_mma_operand_layout.
func tmemMMAOperandLayoutCall(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "tmem_mma_operand_layout", 3, "operand", "shape", "dtype", "M", "cta_group", "ws", "sparse", "group") {
		return eval.Poison(c.At)
	}
	op, ok := ev.StrArg(c.Args[0], c.ArgSpans[0], "operand")
	if !ok {
		return eval.Poison(c.At)
	}
	shape, ok := ev.IntsArg(c.Args[1], c.ArgSpans[1], "shape")
	if !ok {
		return eval.Poison(c.At)
	}
	p, ok := tmemOperandArgs(ev, c, "tmem_mma_operand_layout", 3)
	if !ok {
		return eval.Poison(c.At)
	}
	l, err := tmemMMAOperandLayout(op, shape, p)
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	return newLayoutV(ev, l, c.At)
}

// tmemOperandArgs reads the keyword-only M=, cta_group=, ws=, sparse= and
// group= of tmem_mma_operand_layout and the pool's alloc_tcgen05_mma_*,
// parameters at indices at, at+1, ... after checkArgs.
func tmemOperandArgs(ev *eval.Evaluator, c *eval.Call, fname string, at int) (tmemOperand, bool) {
	var p tmemOperand
	for i, req := range []string{"M", "cta_group"} {
		v := c.Arg(at+i, req)
		if v == nil {
			ev.PyErrorf(c.At, "%s() missing 1 required keyword-only argument: '%s'", fname, req)
			return p, false
		}
		n, ok := ev.IntArg(v, c.ArgSpan(at+i, req), req)
		if !ok {
			return p, false
		}
		if req == "M" {
			p.M = n
		} else {
			p.CtaGroup = n
		}
	}
	if p.CtaGroup == 0 {
		ev.Errorf(c.ArgSpan(at+1, "cta_group"), eval.CodeType, "cta_group must be 1 or 2, got 0")
		return p, false
	}
	if v := c.Arg(at+2, "ws"); v != nil {
		p.WS = eval.Truthy(v)
	}
	if v := c.Arg(at+3, "sparse"); v != nil {
		p.Sparse = eval.Truthy(v)
	}
	if v := c.Arg(at+4, "group"); v != nil && !eval.IsNoneV(v) && fname != "alloc_tcgen05_mma_A" {
		g, ok := ev.IntsArg(v, c.ArgSpan(at+4, "group"), "group")
		if !ok {
			return p, false
		}
		p.Group = slices.Clone(g)
	}
	return p, true
}

// tmemDatapathLayoutValue is tmem_datapath_layout(...) as a layout value.
func tmemDatapathLayoutValue(ev *eval.Evaluator, c *eval.Call) eval.Value {
	if !ev.CheckArgs(c, "tmem_datapath_layout", 3, "datapath", "rows", "cols", "sub_slab") {
		return eval.Poison(c.At)
	}
	dp, ok1 := ev.StrArg(c.Args[0], c.ArgSpans[0], "datapath")
	rows, ok2 := ev.IntArg(c.Args[1], c.ArgSpans[1], "rows")
	cols, ok3 := ev.IntArg(c.Args[2], c.ArgSpans[2], "cols")
	if !ok1 || !ok2 || !ok3 {
		return eval.Poison(c.At)
	}
	sub := int64(0)
	if v := c.Arg(3, "sub_slab"); v != nil {
		var ok bool
		if sub, ok = ev.IntArg(v, c.ArgSpan(3, "sub_slab"), "sub_slab"); !ok {
			return eval.Poison(c.At)
		}
	}
	l, err := tmemDatapathLayout(dp, rows, cols, sub)
	if err != nil {
		return ev.Errorf(c.At, eval.CodeType, "%v", err)
	}
	return newLayoutV(ev, l, c.At)
}
