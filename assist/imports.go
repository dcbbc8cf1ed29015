package assist

import (
	"bytes"
	"strings"
)

// Namespaces completion knows, by what a name is bound to.
const (
	nsTile      = "Tx"          // tvm.script.tirx.tile: scopes and tile ops
	nsT         = "T"           // tvm.script.tirx: the T functions
	nsLayout    = "layout"      // tvm.tirx.layout
	nsAxis      = "Axis"        // tvm.tirx.layout.Axis
	nsTMA       = "tma_utils"   // ...tile_primitive.tma_utils
	nsSwizzle   = "SwizzleMode" // tma_utils.SwizzleMode
	nsScopeName = "scope"       // Tx.<scope>
)

// moduleNS classifies a dotted module path.
func moduleNS(path string) string {
	switch {
	case path == "tvm.script.tirx.tile" || path == "tvm.tirx.script.tile":
		return nsTile
	case path == "tvm.script.tirx" || path == "tvm.tirx.script" || path == "tvm.script.tir":
		return nsT
	case path == "tvm.tirx.layout":
		return nsLayout
	case strings.HasSuffix(path, ".layout.Axis") || path == "Axis":
		return nsAxis
	case strings.HasSuffix(path, "tma_utils.SwizzleMode"):
		return nsSwizzle
	case strings.HasSuffix(path, ".tma_utils"):
		return nsTMA
	}
	return ""
}

// imports maps the names a file binds with import statements to the
// module paths they stand for ("Tx" → "tvm.script.tirx.tile"). It reads
// the lines that start with "import" or "from" at column 0 (how kernel
// files import), one statement per line.
func imports(src []byte) map[string]string {
	m := map[string]string{}
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		// Only import lines are converted to strings: converting every line
		// of a 3,000-line file was 31% of BenchmarkCompletion3000's bytes.
		t := bytes.TrimLeft(line, " \t")
		if !bytes.HasPrefix(t, []byte("from ")) && !bytes.HasPrefix(t, []byte("import ")) {
			continue
		}
		s := strings.TrimSpace(string(t))
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.NewReplacer("(", " ", ")", " ").Replace(s)
		if rest, ok := strings.CutPrefix(s, "from "); ok {
			mod, names, ok := strings.Cut(rest, " import ")
			if !ok {
				continue
			}
			mod = strings.TrimSpace(mod)
			for _, n := range strings.Split(names, ",") {
				f := strings.Fields(n)
				switch {
				case len(f) == 1:
					m[f[0]] = mod + "." + f[0]
				case len(f) == 3 && f[1] == "as":
					m[f[2]] = mod + "." + f[0]
				}
			}
			continue
		}
		for _, n := range strings.Split(strings.TrimPrefix(s, "import "), ",") {
			f := strings.Fields(n)
			switch {
			case len(f) == 1:
				first, _, _ := strings.Cut(f[0], ".")
				m[first] = first
			case len(f) == 3 && f[1] == "as":
				m[f[2]] = f[0]
			}
		}
	}
	return m
}

// resolve says which namespace the dotted names stand for ("" when none
// completion knows), and for Tx.<scope> the scope label.
func resolve(names []string, imp map[string]string) (ns, scope string) {
	if len(names) == 0 {
		return "", ""
	}
	path, ok := imp[names[0]]
	if !ok {
		// A snippet without imports: the conventional aliases.
		switch names[0] {
		case "Tx":
			path = "tvm.script.tirx.tile"
		case "T":
			path = "tvm.script.tirx"
		case "Axis", "SwizzleMode":
			path = names[0]
		default:
			return "", ""
		}
	}
	if names[0] == "SwizzleMode" && !strings.Contains(path, "SwizzleMode") {
		path = "tma_utils.SwizzleMode"
	}
	for _, n := range names[1:] {
		path += "." + n
	}
	if ns := moduleNS(path); ns != "" {
		return ns, ""
	}
	// Tx.<scope>: the tile namespace plus one scope label.
	if len(names) >= 2 {
		if moduleNS(strings.TrimSuffix(path, "."+names[len(names)-1])) == nsTile {
			return nsScopeName, names[len(names)-1]
		}
	}
	// T.Axis, layout.Axis
	if names[len(names)-1] == "Axis" {
		return nsAxis, ""
	}
	if names[len(names)-1] == "SwizzleMode" {
		return nsSwizzle, ""
	}
	return "", ""
}
