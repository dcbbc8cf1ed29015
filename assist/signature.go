package assist

import (
	"strings"
)

// Help is the signature help at a cursor: the callee's signature, its
// parameters with their meaning, and the parameter the cursor is in.
type Help struct {
	Label string // "Tx.copy(dst, src, workspace=None, dispatch=None, **kwargs)"
	Doc   string // Markdown
	// Params are the parameters, with their byte offsets in Label.
	Params []HelpParam
	// Active indexes Params (-1 when the cursor is in no parameter: a
	// positional argument past the last one, an unknown keyword).
	Active int
}

// HelpParam is one parameter of a Help.
type HelpParam struct {
	Start, End int // in Label
	Doc        string
}

// Signature returns the signature help at off in src: the innermost call
// around the cursor whose callee is a tile op, a T function, a layout
// constructor or a swizzle helper of the reference (nil when none).
func Signature(src []byte, off int, env Env) *Help {
	off = min(max(off, 0), len(src))
	c := scanTo(src, off)
	if c.comment {
		return nil
	}
	for k := len(c.open) - 1; k >= 0; k-- {
		br := c.open[k]
		if br.ch != '(' {
			continue
		}
		names, _ := chainBefore(src, br.pos)
		if len(names) == 0 {
			continue
		}
		var e *Entry
		if len(names) == 1 {
			e = bareEntry(names[0], imports(src), env)
		} else {
			ns, scope := resolve(names[:len(names)-1], imports(src))
			e = calleeEntry(ns, scope, names[len(names)-1], env.Release)
		}
		if e == nil || e.Kind == "axis" || e.Kind == "scope" {
			continue
		}
		return help(e, names, src[br.arg:off], br.commas, env)
	}
	return nil
}

// bareEntry is the entry a bare callee names: a layout constructor or
// swizzle helper imported by name (from tvm.tirx.layout import TileLayout).
func bareEntry(name string, imp map[string]string, env Env) *Entry {
	path, ok := imp[name]
	if !ok {
		return nil
	}
	mod := path[:max(strings.LastIndexByte(path, '.'), 0)]
	orig := path[strings.LastIndexByte(path, '.')+1:]
	switch moduleNS(mod) {
	case nsLayout:
		return Lookup(env.Release, "layout", orig)
	case nsTMA:
		return Lookup(env.Release, "tma_utils", orig)
	case nsT:
		return Lookup(env.Release, "T", orig)
	}
	return nil
}

func help(e *Entry, names []string, arg []byte, commas int, env Env) *Help {
	label, spans := signatureParts(e)
	if len(names) > 1 && e.NS == "Tx" {
		// As written: Tx.warp.copy(...)
		q := strings.Join(names, ".")
		shift := len(q) - len(e.Qualified())
		label = q + label[len(e.Qualified()):]
		for i := range spans {
			spans[i][0] += shift
			spans[i][1] += shift
		}
	}
	h := &Help{Label: label, Doc: entryDoc(e, env.Release), Active: -1}
	for i, p := range e.Params {
		doc := p.ParamDoc()
		if p.Type != "" {
			doc = "`" + p.Type + "` " + doc
		}
		h.Params = append(h.Params, HelpParam{Start: spans[i][0], End: spans[i][1], Doc: strings.TrimSpace(doc)})
	}
	if kw, ok := keywordOf(string(arg)); ok {
		for i, p := range e.Params {
			if p.Name == kw {
				h.Active = i
				return h
			}
		}
		for i, p := range e.Params {
			if strings.HasPrefix(p.Name, "**") {
				h.Active = i
			}
		}
		return h
	}
	if commas < len(e.Params) && !e.Params[commas].KwOnly && !strings.HasPrefix(e.Params[commas].Name, "**") {
		h.Active = commas
	} else {
		for i, p := range e.Params {
			if strings.HasPrefix(p.Name, "*") && !strings.HasPrefix(p.Name, "**") && i <= commas {
				h.Active = i
			}
		}
	}
	return h
}
