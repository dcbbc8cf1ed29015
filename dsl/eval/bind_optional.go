package eval

import "github.com/tilels/tilels/dsl/syntax"

// T.Optional parameters of @T.jit kernels (TVM's TIRJit after 0.25): a
// parameter annotated `T.Optional(T.handle)` may be given to .specialize
// as None, which removes it from the kernel's parameters and binds its
// name to None in the body (so `if topk_length_h is not None:` is decided
// per case); left out, it is an ordinary parameter of the inner
// annotation. Anything but None is the reference's TypeError.

// optionalAnnotation reports whether e is `T.Optional(inner)` (or
// `Optional(inner)`), as the reference recognizes it, and returns inner.
func optionalAnnotation(e syntax.Expr) (syntax.Expr, bool) {
	c, ok := e.(*syntax.Call)
	if !ok || len(c.Args) != 1 || len(c.Keywords) != 0 {
		return nil, false
	}
	switch f := c.Func.(type) {
	case *syntax.Attribute:
		if f.Attr.Id != "Optional" {
			return nil, false
		}
	case *syntax.Name:
		if f.Id != "Optional" {
			return nil, false
		}
	default:
		return nil, false
	}
	if _, ok := c.Args[0].(*syntax.Starred); ok {
		return nil, false
	}
	return c.Args[0], true
}

// optionalParams returns the names of a def's T.Optional parameters.
func optionalParams(ps *syntax.Params) map[string]bool {
	var out map[string]bool
	if ps == nil {
		return nil
	}
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if p.Annotation == nil {
				continue
			}
			if _, ok := optionalAnnotation(p.Annotation); ok {
				if out == nil {
					out = map[string]bool{}
				}
				out[p.Name.Id] = true
			}
		}
	}
	return out
}
