package lower

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/release"
)

// referenceRegionChanges reports whether the edit may change the release
// ChooseReference picks through what it reads of the syntax tree, which
// referenceEditChanges (counts of texts near the edit) cannot see: an
// unclosed bracket far from a `dispatch="tma"` makes it no keyword
// argument (the file shows nothing: the newest release), and an import
// made `tile as T` instead of `tile as Tx` turns every `T.Buffer` into
// `Tx.Buffer` (0.25 only). Outside the region the statements are the
// previous ones, so the release is the same when the region's marks
// (referenceMarks, in order) are; and the comments (a `# tilels:
// reference=` pin) are the same when the edit is not on a pin's line and
// the region holds no pin text after the edit's start or the edit types
// or removes nothing that starts or ends a string or comment there (an
// edit of the release a pin names, on its line, kept the incremental
// path too: referenceEditChanges counts the pins, not what they name).
func (u *incr) referenceRegionChanges() bool {
	src := u.prev.Reference.Source
	if src == RefSetting {
		return false
	}
	old, cur := u.prev.File.Src, u.f.Src
	pin := []byte("reference=")
	// An edit on a pin's line may change the release it names.
	if bytes.Contains(lineAround(old, u.e.at, u.e.oldEnd), pin) || bytes.Contains(lineAround(cur, u.e.at, u.newEnd), pin) {
		return true
	}
	// The lexer reads left to right: the edit changes what is a comment
	// only after its start. A quote, '#' or '\\' may change it anywhere
	// after; a line break only on its own line (the end of a one-line
	// string), which the check above covers.
	from := max(u.r.Start, u.e.at-source.Pos(len(pin)))
	if bytes.Contains(old[from:u.r.End-u.e.delta], pin) || bytes.Contains(cur[from:u.r.End], pin) {
		const lexical = "\"'#\\"
		edOld, edNew := old[u.e.at:u.e.oldEnd], cur[u.e.at:u.newEnd]
		if bytes.ContainsAny(edOld, lexical) || bytes.ContainsAny(edNew, lexical) {
			return true
		}
	}
	if src != RefFile && src != RefDefault {
		return false // a pin or the environment: the tree is not read
	}
	newMarks := u.regionMarks()
	oldMarks, ok := u.prevMarks()
	if !ok {
		ro := u.oldRegion()
		if ro == nil {
			return true
		}
		oldMarks = referenceMarks(ro.Body)
	}
	return !slices.Equal(oldMarks, newMarks)
}

// regionMarks returns the referenceMarks of the new region and keeps
// each statement's in its segment, for the next update.
func (u *incr) regionMarks() []string {
	var all []string
	k := u.j0
	if k == 0 {
		k++ // the prelude: comments and blank lines
	}
	for i, st := range u.r.Body {
		m := referenceMarks([]syntax.Stmt{st})
		u.segs[k+i].marks, u.segs[k+i].marked = m, true
		all = append(all, m...)
	}
	return all
}

// prevMarks returns the referenceMarks of the previous region from its
// segments (ok false when one was not marked: the region is parsed).
// Measured (a keystroke in a kernel of the 3,000-line benchmark file
// without its pin): parsing the previous region was 50 us of 300.
func (u *incr) prevMarks() (all []string, ok bool) {
	for _, sg := range u.prev.segs[u.j0:u.j1] {
		if !sg.stmt {
			continue
		}
		if !sg.marked {
			return nil, false
		}
		all = append(all, sg.marks...)
	}
	return all, true
}

// referenceMarks lists, in source order, what of the statements ss
// InferReference and libraryAliases read, without spans and independent
// of the file's aliases: each attribute chain (root and path) that is a
// library name with evidence under the T or Tx prefix, the release set of
// each other piece of evidence (a ComposeLayout call form, a `dispatch=`
// name, an import path or imported name), and each alias of T or Tx an
// import binds. InferReference and libraryAliases read the same nodes
// (keep them in step).
func referenceMarks(ss []syntax.Stmt) []string {
	var out []string
	for _, st := range ss {
		syntax.Inspect(st, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Attribute:
				if _, ok := chainRoot(n); ok {
					if root, path, ok := dottedPath(n); ok && libraryChain(path) {
						out = append(out, "a"+root+"."+path)
					}
					return false
				}
			case *syntax.Call:
				if ev, ok := composeFormEvidence(n); ok {
					out = append(out, evidenceMark(ev.in))
				}
			case *syntax.Keyword:
				if n.Name != nil && n.Name.Id == "dispatch" {
					if c, ok := n.Value.(*syntax.Constant); ok && c.Kind == syntax.String {
						if ev, ok := dispatchEvidence[c.Str]; ok {
							out = append(out, evidenceMark(ev.in))
						}
					}
				}
			case *syntax.ImportFrom:
				for _, m := range moduleEvidence {
					if n.Module == m.prefix || strings.HasPrefix(n.Module, m.prefix+".") {
						out = append(out, evidenceMark(m.ev.in))
					}
				}
				pre := libraryPrefix(n.Module)
				for _, a := range n.Names {
					full := n.Module + "." + a.Name
					for _, m := range moduleEvidence {
						if !strings.HasPrefix(n.Module, m.prefix) && (full == m.prefix || strings.HasPrefix(full, m.prefix+".")) {
							out = append(out, evidenceMark(m.ev.in))
						}
					}
					if pre != "" {
						if ev, ok := libraryEvidence(pre + a.Name); ok {
							out = append(out, evidenceMark(ev.in))
						}
					}
					if p := libraryPrefix(full); p != "" && p != "layout." {
						name := a.Name
						if a.AsName != nil {
							name = a.AsName.Id
						}
						out = append(out, "b"+name+"="+p)
					}
				}
			case *syntax.Import:
				for _, a := range n.Names {
					for _, m := range moduleEvidence {
						if a.Name == m.prefix || strings.HasPrefix(a.Name, m.prefix+".") {
							out = append(out, evidenceMark(m.ev.in))
						}
					}
					if p := libraryPrefix(a.Name); p != "" && p != "layout." && a.AsName != nil {
						out = append(out, "b"+a.AsName.Id+"="+p)
					}
				}
			}
			return true
		})
	}
	return out
}

// libraryChain reports whether a chain's path (after its root name) is a
// library name with evidence when the root is an alias of T or Tx.
func libraryChain(path string) bool {
	if _, ok := libraryEvidence("T." + path); ok {
		return true
	}
	if _, ok := libraryEvidence("Tx." + path); ok {
		return true
	}
	if scope, op, ok := strings.Cut(path, "."); ok && txScopes[scope] {
		_, ok := libraryEvidence("Tx." + op)
		return ok
	}
	return false
}

// evidenceMark is the mark of a piece of evidence: its release set.
func evidenceMark(in release.Set) string {
	return "e" + strconv.FormatUint(uint64(in), 10)
}
