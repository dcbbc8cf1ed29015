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
func osAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	switch name {
	case "environ":
		return &ModuleV{Base: Base{span}, Path: "os.environ", Name: "environ", Attr: environAttr}, true
	case "getenv":
		return Builtin("os.getenv", envGet("getenv")), true
	}
	return nil, false
}

// environAttr models os.environ.get.
func environAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	if name == "get" {
		return Method("get", envGet("get")), true
	}
	return nil, false
}

// envGet is os.environ.get(key, default=None) and os.getenv(key,
// default=None) with the variable unset: the default.
func envGet(fname string) func(ev *Evaluator, c *Call) Value {
	return func(ev *Evaluator, c *Call) Value {
		var key, def Value
		switch len(c.Args) {
		case 2:
			key, def = c.Args[0], c.Args[1]
		case 1:
			key = c.Args[0]
		default:
			if len(c.Args) > 2 {
				return ev.PyErrorf(c.At, "%s() takes at most 2 arguments (%d given)", fname, len(c.Args))
			}
		}
		for _, k := range c.Kwargs {
			switch {
			case k.Name == "key" && key == nil:
				key = k.V
			case k.Name == "default" && def == nil:
				def = k.V
			default:
				return ev.PyErrorf(k.At, "%s() got an unexpected keyword argument '%s'", fname, k.Name)
			}
		}
		if key == nil {
			return ev.PyErrorf(c.At, "%s() missing required argument 'key'", fname)
		}
		if IsErr(key) {
			return key
		}
		if def == nil {
			return &NoneV{Base{c.At}}
		}
		return def
	}
}
