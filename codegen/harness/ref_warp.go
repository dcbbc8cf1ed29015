package harness

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/ir"
)

// A kernel's own warp-collective matrix instructions, as the PTX ISA
// defines them (the fragment layouts of "Warp-level matrix load and
// store" and of mma.m16n8k16 / m16n8k8 with 16-bit inputs):
//
//   - ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: lane l gives
//     the address of row l % 8 of matrix l / 8 (16 bytes); register j of
//     lane l receives row l / 4, columns 2(l % 4) and 2(l % 4) + 1 of
//     matrix j (with .trans, rows 2(l % 4) and 2(l % 4) + 1 of column
//     l / 4);
//   - stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: the same
//     places, written;
//   - mma.sync.aligned.m16n8k{16,8}.row.col.f32.{f16,bf16}.{f16,bf16}.f32:
//     D = A B + C over the warp's fragments (groupID g = lane / 4,
//     threadID_in_group q = lane % 4): A's element i of lane l at row
//     g + 8 (i / 2 % 2), column 2q + i % 2 + 8 (i / 4); B's at row (k)
//     2q + i % 2 + 8 (i / 2), column g; C's and D's at row g + 8 (i / 2),
//     column 2q + i % 2. The products are summed in double and rounded to
//     float32 once; the GPU's order of addition differs, so a kernel with
//     an mma is compared within the float tolerances (kernelTraits).
//
// Each runs once per warp whose 32 lanes are all active (a warp with some
// of them off stops the reference: the instructions are .aligned).

// matrixOp parses ldmatrix/stmatrix ops: load, the matrix count, trans.
func matrixOp(op string) (load bool, n int, trans, ok bool) {
	rest, isLd := strings.CutPrefix(op, "ptx.ldmatrix.sync.aligned.m8n8.")
	if !isLd {
		var isSt bool
		rest, isSt = strings.CutPrefix(op, "ptx.stmatrix.sync.aligned.m8n8.")
		if !isSt {
			return false, 0, false, false
		}
	}
	toks := strings.Split(rest, ".")
	if len(toks) < 3 || toks[len(toks)-1] != "b16" {
		return false, 0, false, false
	}
	switch toks[0] {
	case "x1":
		n = 1
	case "x2":
		n = 2
	case "x4":
		n = 4
	default:
		return false, 0, false, false
	}
	mid := toks[1 : len(toks)-1]
	if len(mid) > 0 && mid[0] == "trans" {
		trans, mid = true, mid[1:]
	}
	if len(mid) != 1 || mid[0] != "shared" && mid[0] != "shared__cta" && mid[0] != "shared::cta" {
		return false, 0, false, false
	}
	return isLd, n, trans, true
}

// mmaOp parses the mma.sync forms the reference models: k (16 or 8) and
// the inputs' dtype enum.
func mmaOp(op string) (k int, in string, ok bool) {
	for _, f := range []struct {
		k  int
		ab string
	}{{16, "f16"}, {16, "bf16"}, {8, "f16"}, {8, "bf16"}} {
		if op == fmt.Sprintf("ptx.mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32", f.k, f.ab, f.ab) {
			enum := "TL_F16"
			if f.ab == "bf16" {
				enum = "TL_BF16"
			}
			return f.k, enum, true
		}
	}
	return 0, "", false
}

// warpOp prints a warp-collective matrix instruction; false when c is none.
func (g *gen) warpOp(c *ir.Call) bool {
	if load, n, trans, ok := matrixOp(c.Op); ok {
		g.matrixCall(c, load, n, trans)
		return true
	}
	if k, in, ok := mmaOp(c.Op); ok {
		g.mmaCall(c, k, in)
		return true
	}
	return false
}

// regOperand is the register element a warp instruction's operand names
// (a local buffer's element of want bytes), printed for thread t.
func (g *gen) regOperand(c *ir.Call, e ir.Expr, want int, t string) (buf, ptr string, ok bool) {
	ld, isLoad := e.(*ir.Load)
	if !isLoad || ld.Buf.Scope != "local" || ld.Buf.Dtype.Bytes() != want {
		g.fail(c.Span, "T.%s with an operand other than a register element of %d bytes is not modelled by the reference", c.Op, want)
		return "", "", false
	}
	b := g.buf(ld.Buf, ld.Span)
	return b, fmt.Sprintf("tl_at(%s, {%s}, %s, NT)", b, g.indexList(ld.Indices, t), t), true
}

// warpBegin opens the loop over the CTA's warps of a warp instruction.
func (g *gen) warpBegin(c *ir.Call) {
	g.line("tl_site = %d;", g.site(c.Span, "T."+c.Op))
	g.line("for (int w0 = 0; w0 < NT; w0 += 32) {")
	g.indent++
	g.line("int on = 0;")
	g.line("for (int l = 0; l < 32 && w0 + l < NT; l++) if (%s) on++;", g.guard("(w0 + l)"))
	g.line("if (on == 0) continue;")
	g.line("if (on != 32) tl_die(\"a warp instruction (.aligned) with some lanes off is not modelled\", %q);", c.Op)
	g.line("tl_actor = -(++tl_seq);")
}

func (g *gen) matrixCall(c *ir.Call, load bool, n int, trans bool) {
	if len(c.Args) != n+1 {
		g.fail(c.Span, "T.%s with %d operands is not modelled by the reference", c.Op, len(c.Args))
		return
	}
	addr, regs := c.Args[n], c.Args[:n]
	if !load {
		addr, regs = c.Args[0], c.Args[1:]
	}
	g.warpBegin(c)
	defer g.end()
	// every lane's row address (lanes past the matrices give none)
	g.line("unsigned char* rows[32] = {};")
	g.line("for (int l = 0; l < %d; l++) {", 8*n)
	g.indent++
	g.line("const int t = w0 + l;")
	mb, mp, ok := g.pointer(addr, "t", 16)
	if !ok {
		g.end()
		return
	}
	g.line("rows[l] = %s;", mp)
	g.end()
	for j, r := range regs {
		g.line("for (int l = 0; l < 32; l++) {")
		g.indent++
		g.line("const int t = w0 + l;")
		rb, rp, ok := g.regOperand(c, r, 4, "t")
		if !ok {
			g.end()
			return
		}
		g.line("unsigned char* reg = %s;", rp)
		g.line("for (int h = 0; h < 2; h++) {")
		if trans {
			g.line("  unsigned char* m = rows[%d + (l %% 4) * 2 + h] + (l / 4) * 2;", 8*j)
		} else {
			g.line("  unsigned char* m = rows[%d + l / 4] + ((l %% 4) * 2 + h) * 2;", 8*j)
		}
		if load {
			g.line("  tl_mov_n(%s, reg + 2 * h, %s, m, 2);", rb, mb)
		} else {
			g.line("  tl_mov_n(%s, m, %s, reg + 2 * h, 2);", mb, rb)
		}
		g.line("}")
		g.end()
	}
}

func (g *gen) mmaCall(c *ir.Call, k int, in string) {
	na, nb := k/4, k/8 // A's and B's registers a lane holds
	if len(c.Args) != 4+na+nb+4 {
		g.fail(c.Span, "T.%s with %d operands is not modelled by the reference", c.Op, len(c.Args))
		return
	}
	d, a, b, cc := c.Args[:4], c.Args[4:4+na], c.Args[4+na:4+na+nb], c.Args[4+na+nb:]
	g.warpBegin(c)
	defer g.end()
	g.line("double A[16][16], B[16][8], C[16][8];")
	g.line("int def = 1;")
	g.line("for (int l = 0; l < 32; l++) {")
	g.indent++
	g.line("const int t = w0 + l, gq = l / 4, q = l %% 4;")
	g.line("(void)gq; (void)q;")
	half := func(ops []ir.Expr, place string) bool {
		for r, e := range ops {
			rb, rp, ok := g.regOperand(c, e, 4, "t")
			if !ok {
				return false
			}
			g.line("{ const unsigned char* p = %s; if (!tl_defined(%s, p)) def = 0;", rp, rb)
			g.line("  for (int h = 0; h < 2; h++) { const int i = %d + h; uint16_t v; memcpy(&v, p + 2 * h, 2);", 2*r)
			g.line("    %s = %s == TL_F16 ? tl_f16_to_f32(v) : tl_bf16_to_f32(v); } }", place, in)
		}
		return true
	}
	if !half(a, "A[gq + 8 * (i / 2 % 2)][2 * q + i % 2 + 8 * (i / 4)]") ||
		!half(b, "B[2 * q + i % 2 + 8 * (i / 2)][gq]") {
		g.end()
		return
	}
	for i, e := range cc {
		rb, rp, ok := g.regOperand(c, e, 4, "t")
		if !ok {
			g.end()
			return
		}
		g.line("{ const unsigned char* p = %s; if (!tl_defined(%s, p)) def = 0; float v; memcpy(&v, p, 4); C[gq + %d][2 * q + %d] = v; }", rp, rb, 8*(i/2), i%2)
	}
	g.end()
	g.line("for (int l = 0; l < 32; l++) {")
	g.indent++
	g.line("const int t = w0 + l, gq = l / 4, q = l %% 4;")
	for i, e := range d {
		rb, rp, ok := g.regOperand(c, e, 4, "t")
		if !ok {
			g.end()
			return
		}
		g.line("{ double s = C[gq + %d][2 * q + %d]; for (int kk = 0; kk < %d; kk++) s += A[gq + %d][kk] * B[kk][2 * q + %d];", 8*(i/2), i%2, k, 8*(i/2), i%2)
		g.line("  float v = (float)s; tl_put(%s, %s, (const unsigned char*)&v, def); }", rb, rp)
	}
	g.end()
}
