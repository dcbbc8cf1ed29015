package eval

import "github.com/tilels/tilels/dsl/source"

// The environment as a binding source. Kernel modules read their default
// shapes and switches from environment variables with a fallback:
//
//	M = int(os.environ.get("TIRX_INTERNAL_ALLGATHER_GEMM_M", "8192"))
//
// tilels reads no environment (the editor's is not the one the kernel
// runs with), so it analyses the module as it is with the variables
// unset: os.environ.get and os.getenv give their default (None without
// one). Whatever else the module does with os — os.environ[...], a path
// function — stays opaque.

// osAttr models the os module: environ and getenv.
func osAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "environ":
		return &ModuleV{base: base{span}, Path: "os.environ", Name: "environ", attr: environAttr}, true
	case "getenv":
		return builtin("os.getenv", envGet("getenv")), true
	}
	return nil, false
}

// environAttr models os.environ.get.
func environAttr(ev *evaluator, name string, span source.Span) (Value, bool) {
	if name == "get" {
		return method("get", envGet("get")), true
	}
	return nil, false
}

// envGet is os.environ.get(key, default=None) and os.getenv(key,
// default=None) with the variable unset: the default.
func envGet(fname string) func(ev *evaluator, c *call) Value {
	return func(ev *evaluator, c *call) Value {
		var key, def Value
		switch len(c.args) {
		case 2:
			key, def = c.args[0], c.args[1]
		case 1:
			key = c.args[0]
		default:
			if len(c.args) > 2 {
				return ev.pyErrorf(c.span, "%s() takes at most 2 arguments (%d given)", fname, len(c.args))
			}
		}
		for _, k := range c.kwargs {
			switch {
			case k.name == "key" && key == nil:
				key = k.v
			case k.name == "default" && def == nil:
				def = k.v
			default:
				return ev.pyErrorf(k.span, "%s() got an unexpected keyword argument '%s'", fname, k.name)
			}
		}
		if key == nil {
			return ev.pyErrorf(c.span, "%s() missing required argument 'key'", fname)
		}
		if isErr(key) {
			return key
		}
		if def == nil {
			return &NoneV{base{c.span}}
		}
		return def
	}
}
