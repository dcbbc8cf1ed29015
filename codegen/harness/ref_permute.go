package harness

import "github.com/tilels/tilels/ir"

// permuteCall writes the whole-tile semantics of a permute call (dst = src under another layout) on logical
// coordinates: dst[i] = src[i] for every logical index i of the regions (their extents are equal; the
// dispatcher declines anything else), each side addressed through its own buffer's layout. dst and src may
// alias the same storage (an in-place permute through two views), so every element is read, race-checked
// and kept with its definedness before the first write.
func (g *gen) permuteCall(c *ir.TileCall) {
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
	if dst.Buf.Dtype != src.Buf.Dtype {
		g.fail(c.Span, "Tx.%s between dtypes %s and %s", c.Op, src.Buf.Dtype, dst.Buf.Dtype)
		return
	}
	d, s := g.region(dst), g.region(src)
	n, ix, val, def := g.fresh("pn"), g.fresh("pix"), g.fresh("pval"), g.fresh("pdef")
	g.line("{")
	g.indent++
	g.line("long long %s = tl_numel(%s), %s[8];", n, s, ix)
	g.line("std::vector<unsigned char> %s(%s * %s.b->esize);", val, n, s)
	g.line("std::vector<int> %s(%s);", def, n)
	g.line("for (long long k = 0; k < %s; k++) {", n)
	g.indent++
	g.line("tl_unflatten(k, %s, %s);", s, ix)
	g.line("const unsigned char* p = tl_addr(*%s.b, %s, 0, t, NT);", s, ix)
	g.line("tl_check(*%s.b, p, nullptr);", s)
	g.line("%s[k] = tl_defined(*%s.b, p);", def, s)
	g.line("memcpy(&%s[k * %s.b->esize], p, %s.b->esize);", val, s, s)
	g.end()
	g.line("for (long long k = 0; k < %s; k++) {", n)
	g.indent++
	g.line("tl_unflatten(k, %s, %s);", d, ix)
	g.line("tl_write(*%s.b, %s, t, NT, [&](unsigned char* p) { tl_put(*%s.b, p, &%s[k * %s.b->esize], %s[k]); });",
		d, ix, d, val, d, def)
	g.end()
	g.end()
}
