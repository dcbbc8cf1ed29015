package harness

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// A kernel's own PTX loads and stores (T.ptx.ld.{shared,global}...,
// T.ptx.st.{shared,global}...): each thread moves the bytes of its vector
// between the storage its address names and its register elements, raw
// (the registers' dtype reinterprets them, as on the GPU). An address is a
// buffer element (ptr_to, T.address_of), a typed pointer offset from one
// (tvm_builtin_pointer_offset) or a byte offset from a buffer's data
// (T.ptr_byte_offset, T.handle_add_byte_offset). A register operand is an
// element of a local buffer whose dtype has the vector element's width.
// Reads of shared memory are race-checked and carry definedness, as the
// scalar statements' do.

// userLdSt is the form of a T.ptx ld/st op: load, the vector count and
// the element's bytes; ok false for any other op.
func userLdSt(op string) (load bool, vec int, width int64, ok bool) {
	toks := strings.Split(strings.TrimPrefix(op, "ptx."), ".")
	if len(toks) < 3 || toks[0] != "ld" && toks[0] != "st" {
		return false, 0, 0, false
	}
	load = toks[0] == "ld"
	vec = 1
	spaces := 0 // (the state space may follow a qualifier: st.weak.shared::cta.b128)
	for _, t := range toks[1 : len(toks)-1] {
		switch t {
		case "shared", "global", "global_", "shared::cta", "shared__cta":
			spaces++
		case "v2":
			vec = 2
		case "v4":
			vec = 4
		case "v8":
			vec = 8
		case "nc", "weak", "relaxed", "acquire", "release", "volatile", "gpu", "cta", "sys", "ca", "cg", "cs", "lu", "cv", "wb", "wt":
		default:
			return false, 0, 0, false // (a cache-hint operand's form, an unknown qualifier)
		}
	}
	if spaces != 1 {
		return false, 0, 0, false
	}
	typ := toks[len(toks)-1]
	if len(typ) < 2 || !strings.ContainsRune("busf", rune(typ[0])) {
		return false, 0, 0, false
	}
	bits, err := strconv.Atoi(typ[1:])
	if err != nil || bits < 8 || bits > 128 || bits&(bits-1) != 0 || bits == 128 && typ[0] != 'b' {
		return false, 0, 0, false
	}
	return load, vec, int64(bits / 8), true
}

// ldSt prints a T.ptx ld/st statement; false when c is none (or refused:
// g.err says why).
func (g *gen) ldSt(c *ir.Call) bool {
	if c.Op == "cuda.ldg" {
		return g.ldgVector(c)
	}
	load, vec, width, ok := userLdSt(c.Op)
	if !ok {
		return false
	}
	if len(c.Args) != vec+1 {
		g.fail(c.Span, "T.%s with %d operands is not modelled by the reference", c.Op, len(c.Args))
		return true
	}
	addr, regs := c.Args[vec], c.Args[:vec]
	if !load {
		addr, regs = c.Args[0], c.Args[1:]
	}
	g.line("tl_site = %d;", g.site(c.Span, "T."+c.Op))
	g.perThread()
	mb, mp, ok := g.pointer(addr, "t", int64(vec)*width)
	if !ok {
		g.end()
		return true
	}
	for k, r := range regs {
		ld, isLoad := r.(*ir.Load)
		if !isLoad || ld.Buf.Scope != "local" || int64(ld.Buf.Dtype.Bytes()) != width {
			g.fail(c.Span, "T.%s with an operand other than a register element of %d bytes is not modelled by the reference", c.Op, width)
			g.end()
			return true
		}
		rb := g.buf(ld.Buf, ld.Span)
		rp := fmt.Sprintf("tl_at(%s, {%s}, t, NT)", rb, g.indexList(ld.Indices, "t"))
		mk := fmt.Sprintf("%s + %d", mp, int64(k)*width)
		if load {
			g.line("tl_mov(%s, %s, %s, %s, %d);", rb, rp, mb, mk, width)
		} else {
			g.line("tl_mov(%s, %s, %s, %s, %d);", mb, mk, rb, rp, width)
		}
	}
	g.end()
	return true
}

// pointer prints the storage address e names for thread t, with the Buf
// it lies in, checked to hold n bytes there.
func (g *gen) pointer(e ir.Expr, t string, n int64) (buf, ptr string, ok bool) {
	switch e := e.(type) {
	case *ir.AddressOf:
		b := g.buf(e.Buf, e.Span)
		return b, fmt.Sprintf("tl_span(%s, tl_at(%s, {%s}, %s, NT), %d)", b, b, g.indexList(e.Indices, t), t, n), true
	case *ir.BufferData:
		b := g.buf(e.Buf, e.Span)
		return b, fmt.Sprintf("tl_raw(%s, 0, %s, %d)", b, t, n), true
	case *ir.Call:
		switch {
		case e.Op == ir.OpPointerOffset && len(e.Args) == 2:
			if a, isAddr := e.Args[0].(*ir.AddressOf); isAddr {
				b := g.buf(a.Buf, a.Span)
				at := fmt.Sprintf("tl_at(%s, {%s}, %s, NT)", b, g.indexList(a.Indices, t), t)
				return b, fmt.Sprintf("tl_span(%s, %s + (%s) * %s.esize, %d)", b, at, g.exprI(e.Args[1], t), b, n), true
			}
		case e.Op == "ptx.addr" && len(e.Args) == 2:
			// T.ptx.addr(base, byte_offset): the address byte_offset bytes
			// past base's
			b, base, ok := g.pointer(e.Args[0], t, 0)
			if !ok {
				return "", "", false
			}
			return b, fmt.Sprintf("tl_span(%s, %s + (%s), %d)", b, base, g.exprI(e.Args[1], t), n), true
		case e.Op == "ptr_byte_offset" && len(e.Args) == 3, e.Op == "handle_add_byte_offset" && len(e.Args) == 2:
			if d, isData := e.Args[0].(*ir.BufferData); isData {
				b := g.buf(d.Buf, d.Span)
				return b, fmt.Sprintf("tl_raw(%s, %s, %s, %d)", b, g.exprI(e.Args[1], t), t, n), true
			}
		}
	}
	what := fmt.Sprintf("%T", e)
	if c, ok := e.(*ir.Call); ok {
		what = "T." + c.Op + "(...)"
	}
	g.fail(e.Pos(), "an address %s is not modelled by the reference", what)
	return "", "", false
}

// ldgVector prints T.cuda.ldg's vector form (0.26+: dst=(p0, ..., pn-1),
// vec="vN"; its operands the n destinations, the source, the dtype, the
// vector name and n): n elements of dtype from the source to the
// registers the destinations name.
func (g *gen) ldgVector(c *ir.Call) bool {
	k := len(c.Args)
	if k < 5 {
		g.fail(c.Span, "T.cuda.ldg as a statement with %d operands is not modelled by the reference", k)
		return true
	}
	n, ok := ir.ConstInt(c.Args[k-1])
	dt, isStr := c.Args[k-3].(*ir.StringImm)
	if !ok || !isStr || int(n) != k-4 {
		g.fail(c.Span, "this form of T.cuda.ldg is not modelled by the reference")
		return true
	}
	typ, ok := ir.ParseDType(dt.Value)
	if !ok || typ.Bytes() <= 0 {
		g.fail(c.Span, "T.cuda.ldg of %s is not modelled by the reference", dt.Value)
		return true
	}
	width := int64(typ.Bytes())
	g.line("tl_site = %d;", g.site(c.Span, "T.cuda.ldg"))
	g.perThread()
	defer g.end()
	sb, sp, ok := g.pointer(c.Args[n], "t", n*width)
	if !ok {
		return true
	}
	for i := range n {
		db, dp, ok := g.pointer(c.Args[i], "t", width)
		if !ok {
			return true
		}
		g.line("tl_mov(%s, %s, %s, %s + %d, %d);", db, dp, sb, sp, i*width, width)
	}
	return true
}

// ldgValue prints T.cuda.ldg(ptr, dtype) as a value: the element of the
// buffer the pointer names, when it has that dtype.
func (g *gen) ldgValue(c *ir.Call, t string) (string, ir.DataType, bool) {
	if len(c.Args) != 2 {
		return "", ir.DataType{}, false
	}
	a, isAddr := c.Args[0].(*ir.AddressOf)
	dt, isStr := c.Args[1].(*ir.StringImm)
	if !isAddr || !isStr || a.Buf.Dtype.String() != dt.Value {
		return "", ir.DataType{}, false
	}
	b := g.buf(a.Buf, a.Span)
	at := fmt.Sprintf("tl_at(%s, {%s}, %s, NT)", b, g.indexList(a.Indices, t), t)
	if a.Buf.Dtype.IsFloat() {
		return fmt.Sprintf("tl_rd(%s, %s)", b, at), a.Buf.Dtype, true
	}
	return fmt.Sprintf("tl_rd_i(%s, %s)", b, at), a.Buf.Dtype, true
}
