package eval

import (
	"fmt"

	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// ldgCall is T.cuda.ldg called with keywords: cuda_ldg(addr, dtype, *,
// dst=None, vec="") of 0.26 and later (backend/cuda/op.py; 0.25's takes
// addr and dtype only, and Python rejects a keyword). Without dst it is
// the scalar load, an expression of dtype (vec must then be empty). With
// dst, a tuple or list of vec_len pointers and vec "v2" or "v4", it is
// one vector __ldg whose lanes are stored through the pointers: a void
// call tirx.cuda.ldg(*dst, addr, dtype, vec, vec_len), as the reference
// builds it. FlashMLA's sparse_decode_head64.py loads its four fp8
// scales this way. The messages are the reference's (ValueError and
// TypeError).
func (ev *Evaluator) ldgCall(f *IntrinsicV, c *Call) Value {
	for _, k := range c.Kwargs {
		if k.Name == "dst" || k.Name == "vec" {
			if ev.Opts.Release < release.R026 {
				return ev.Errorf(k.At, CodeType, "cuda_ldg() got an unexpected keyword argument '%s'", k.Name)
			}
			continue
		}
		return ev.Errorf(k.At, CodeType, "cuda_ldg() got an unexpected keyword argument '%s'", k.Name)
	}
	addr, dtype := c.Arg(0, "addr"), c.Arg(1, "dtype")
	if addr == nil || dtype == nil {
		return ev.Errorf(c.At, CodeType, "cuda_ldg() missing required positional arguments 'addr' and 'dtype'")
	}
	for _, a := range []Value{addr, dtype} {
		if IsErr(a) {
			return ev.NeedConcrete(a, a.Span(), "T.cuda.ldg's arguments")
		}
	}
	vec := ""
	if v, ok := c.Kw("vec"); ok {
		s, isStr := v.(*StrV)
		if !isStr {
			if IsErr(v) {
				return ev.NeedConcrete(v, v.Span(), "T.cuda.ldg's vec")
			}
			return ev.Errorf(v.Span(), CodeType, "vector cuda.ldg expects vec in {'v2', 'v4'}, got %s", Describe(v))
		}
		vec = s.V
	}
	dst, hasDst := c.Kw("dst")
	if hasDst {
		if _, none := dst.(*NoneV); none {
			hasDst = false
		}
	}
	if !hasDst {
		if vec != "" {
			return ev.Errorf(c.At, CodeType, "vector cuda.ldg requires dst")
		}
		// the scalar form: as T.cuda.ldg(addr, dtype)
		plain := *c
		plain.Args, plain.Kwargs = []Value{addr, dtype}, nil
		return ev.IntrinsicCall(f, &plain)
	}
	if vec != "v2" && vec != "v4" {
		return ev.Errorf(c.At, CodeType, "vector cuda.ldg expects vec in {'v2', 'v4'}, got %s", pyRepr(vec))
	}
	var ptrs []Value
	switch d := dst.(type) {
	case *TupleV:
		ptrs = d.Elts
	case *ListV:
		ptrs = d.Elts
	default:
		if IsErr(dst) {
			return ev.NeedConcrete(dst, dst.Span(), "T.cuda.ldg's dst")
		}
		return ev.Errorf(dst.Span(), CodeType, "vector cuda.ldg requires tuple/list dst")
	}
	n := int64(vec[1] - '0')
	if int64(len(ptrs)) != n {
		return ev.Errorf(dst.Span(), CodeType, "cuda.ldg dst length must match %s: got %d", vec, len(ptrs))
	}
	args := make([]ir.Expr, 0, len(ptrs)+4)
	for _, p := range append(ptrs[:len(ptrs):len(ptrs)], addr) {
		if IsErr(p) {
			return ev.NeedConcrete(p, p.Span(), "T.cuda.ldg's arguments")
		}
		e, ok := ev.ToIR(p, ir.DataType{})
		if !ok {
			return ev.Errorf(p.Span(), CodeType, "T.cuda.ldg argument must be a pointer, got %s", Describe(p))
		}
		args = append(args, e)
	}
	var dt string
	switch d := dtype.(type) {
	case *StrV:
		dt = d.V
	case *DTypeV:
		dt = d.DT.String()
	default:
		return ev.Errorf(dtype.Span(), CodeType, "T.cuda.ldg dtype must be a string, got %s", Describe(dtype))
	}
	args = append(args, &ir.StringImm{Value: dt, Span: dtype.Span()}, &ir.StringImm{Value: vec, Span: c.At},
		&ir.IntImm{Value: n, Type: ir.Int32, Span: c.At})
	x := &exprCall{c: ir.Call{Op: f.Path, Args: args, Span: c.At}}
	x.v = ExprV{Base: Base{c.At}, E: &x.c}
	return &x.v
}

// pyRepr is Python's repr of a string.
func pyRepr(s string) string { return fmt.Sprintf("'%s'", s) }
