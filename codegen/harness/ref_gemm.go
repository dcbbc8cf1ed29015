package harness

import "github.com/tilels/tilels/ir"

// gemm's result depends on the order the tensor cores add the K products
// in, so a kernel with one is compared within the tolerance of its dtypes.
func init() { inexactOps["gemm"] = true }

// gemmCall writes the whole-tile semantics of a gemm call (D = A·B·alpha + C·beta) on logical
// coordinates.
//
// Args are [D, A, B, C, transpose_A, transpose_B, alpha, beta] (nil: False,
// False, 1.0, 0.0). Each operand's two non-unit region dims are its matrix
// dims: D and C are M×N, A is M×K (K×M when transpose_A), B is K×N (N×K
// when transpose_B). For every (i, j) the K products are summed in order,
// rounded to D's dtype after every addition (the accumulator's type), then
// scaled: D[i, j] = acc·alpha + C[i, j]·beta. C is not read when beta is the
// constant 0 (the mma lowering does not read it either), so an unwritten C
// leaves D defined. An element computed from unwritten memory is not
// compared (the NOTE count).
func (g *gen) gemmCall(c *ir.TileCall) {
	if len(c.Args) < 4 {
		g.fail(c.Span, "Tx.%s with %d arguments", c.Op, len(c.Args))
		return
	}
	var rs [4]*ir.Region
	var dims [4][2]int
	var exts [4][2]int64
	for i := range rs {
		r, ok := c.Args[i].(*ir.Region)
		if !ok {
			g.fail(c.Span, "Tx.%s operands must be regions", c.Op)
			return
		}
		if !dtypeOK(r.Buf.Dtype) {
			g.fail(c.Span, "Tx.%s on %s values is not modelled", c.Op, r.Buf.Dtype)
			return
		}
		n := 0
		for d, e := range r.Extent {
			v, ok := ir.ConstInt(ir.SimplifyIndex(e))
			if !ok {
				g.fail(c.Span, "Tx.%s: non-constant extent of %s", c.Op, r.Buf.Name)
				return
			}
			if v == 1 {
				continue
			}
			if n == 2 {
				n = 3
				break
			}
			dims[i][n], exts[i][n] = d, v
			n++
		}
		if n != 2 {
			g.fail(c.Span, "Tx.%s: %s is not a 2-D region", c.Op, r.Buf.Name)
			return
		}
		rs[i] = r
	}
	arg := func(i int) ir.Expr {
		if i < len(c.Args) {
			return c.Args[i]
		}
		return nil
	}
	flag := func(i int) (bool, bool) {
		e := arg(i)
		if e == nil {
			return false, true
		}
		v, ok := ir.ConstInt(ir.SimplifyIndex(e))
		return v != 0, ok
	}
	transA, ok1 := flag(4)
	transB, ok2 := flag(5)
	if !ok1 || !ok2 {
		g.fail(c.Span, "Tx.%s: transpose flags must be constants", c.Op)
		return
	}
	// (row, col) of each operand's logical matrix as region dims.
	aM, aK := dims[1][0], dims[1][1]
	M, K := exts[1][0], exts[1][1]
	if transA {
		aM, aK = aK, aM
		M, K = K, M
	}
	bK, bN := dims[2][0], dims[2][1]
	BK, N := exts[2][0], exts[2][1]
	if transB {
		bK, bN = bN, bK
		BK, N = N, BK
	}
	if BK != K || exts[0] != [2]int64{M, N} || exts[3] != [2]int64{M, N} {
		g.fail(c.Span, "Tx.%s: operand shapes do not agree (M=%d, N=%d, K=%d)", c.Op, M, N, K)
		return
	}
	alpha, beta := arg(6), arg(7)
	if alpha == nil {
		alpha = &ir.FloatImm{Value: 1, Type: ir.Float32}
	}
	readC := true
	if beta == nil {
		readC = false
	} else if v, ok := constFloat(beta); ok && v == 0 {
		readC = false
	}
	rd, ra, rb := g.region(rs[0]), g.region(rs[1]), g.region(rs[2])
	rc := ""
	if readC {
		rc = g.region(rs[3])
	}
	accT := dtypeEnum(rs[0].Buf.Dtype)
	al := g.exprD(alpha, "t")
	be := ""
	if readC {
		be = g.exprD(beta, "t")
	}
	g.line("for (long long i = 0; i < %d; i++) for (long long j = 0; j < %d; j++) {", M, N)
	g.indent++
	g.line("long long di[8], ai[8], bi[8];")
	g.line("for (int d = 0; d < 8; d++) { di[d] = d < %s.rank ? %s.mn[d] : 0; ai[d] = d < %s.rank ? %s.mn[d] : 0; bi[d] = d < %s.rank ? %s.mn[d] : 0; }", rd, rd, ra, ra, rb, rb)
	g.line("di[%d] += i; di[%d] += j;", dims[0][0], dims[0][1])
	g.line("int def = 1;")
	g.line("double acc = 0.0;")
	g.line("for (long long k = 0; k < %d; k++) {", K)
	g.indent++
	g.line("ai[%d] = %s.mn[%d] + i; ai[%d] = %s.mn[%d] + k;", aM, ra, aM, aK, ra, aK)
	g.line("bi[%d] = %s.mn[%d] + k; bi[%d] = %s.mn[%d] + j;", bK, rb, bK, bN, rb, bN)
	g.line("const unsigned char* pa = tl_addr(*%s.b, ai, 0, t, NT);", ra)
	g.line("const unsigned char* pb = tl_addr(*%s.b, bi, 0, t, NT);", rb)
	g.line("tl_check(*%s.b, pa, nullptr); tl_check(*%s.b, pb, nullptr);", ra, rb)
	g.line("def = def && tl_defined(*%s.b, pa) && tl_defined(*%s.b, pb);", ra, rb)
	g.line("acc = tl_round(%s, acc + tl_load(*%s.b, pa) * tl_load(*%s.b, pb));", accT, ra, rb)
	g.indent--
	g.line("}")
	g.line("double val = acc * %s;", al)
	if readC {
		g.line("long long ci[8];")
		g.line("for (int d = 0; d < %s.rank; d++) ci[d] = %s.mn[d];", rc, rc)
		g.line("ci[%d] += i; ci[%d] += j;", dims[3][0], dims[3][1])
		g.line("const unsigned char* pc = tl_addr(*%s.b, ci, 0, t, NT);", rc)
		g.line("tl_check(*%s.b, pc, nullptr);", rc)
		g.line("def = def && tl_defined(*%s.b, pc);", rc)
		g.line("val = val + tl_load(*%s.b, pc) * %s;", rc, be)
	}
	g.line("unsigned char v[16];")
	g.line("tl_store(*%s.b, v, val);", rd)
	g.line("tl_write(*%s.b, di, t, NT, [&](unsigned char* p) { tl_put(*%s.b, p, v, def); });", rd, rd)
	g.indent--
	g.line("}")
}

// constFloat is the value of a constant scalar.
func constFloat(e ir.Expr) (float64, bool) {
	switch e := e.(type) {
	case *ir.FloatImm:
		return e.Value, true
	case *ir.IntImm:
		return float64(e.Value), true
	}
	return 0, false
}
