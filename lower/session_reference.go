package lower

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/syntax"
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
// reference=` pin) are the same when the region holds no pin text or the
// edit types or removes nothing that starts or ends a string or comment.
func (u *incr) referenceRegionChanges() bool {
	src := u.prev.Reference.Source
	if src == RefSetting {
		return false
	}
	oldText := u.prev.File.Src[u.r.Start : u.r.End-u.e.delta]
	newText := u.f.Src[u.r.Start:u.r.End]
	pin := []byte("reference=")
	if bytes.Contains(oldText, pin) || bytes.Contains(newText, pin) {
		const lexical = "\"'#\\\n\r"
		if bytes.ContainsAny(u.prev.File.Src[u.e.at:u.e.oldEnd], lexical) || bytes.ContainsAny(u.f.Src[u.e.at:u.newEnd], lexical) {
			return true
		}
	}
	if src != RefFile && src != RefDefault {
		return false // a pin or the environment: the tree is not read
	}
	ro := u.oldRegion()
	if ro == nil {
		return true
	}
	return !slices.Equal(referenceMarks(ro.Body), referenceMarks(u.r.Body))
}

// referenceMarks lists, in source order, what of the statements ss
// InferReference and libraryAliases read, without spans and independent
// of the file's aliases: each attribute chain (root and path) that is a
// library name with evidence under the T or Tx prefix, the release set of
// each ComposeLayout call form, each `dispatch=` name with evidence, and
// every import (which may bind an alias or be evidence itself).
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
					out = append(out, "c"+strconv.FormatUint(uint64(ev.in), 10))
				}
			case *syntax.Keyword:
				if n.Name != nil && n.Name.Id == "dispatch" {
					if c, ok := n.Value.(*syntax.Constant); ok && c.Kind == syntax.String {
						if _, ok := dispatchEvidence[c.Str]; ok {
							out = append(out, "k"+c.Str)
						}
					}
				}
			case *syntax.ImportFrom:
				out = append(out, "f"+strconv.Itoa(n.Level)+n.Module+importNames(n.Names))
			case *syntax.Import:
				out = append(out, "i"+importNames(n.Names))
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

// importNames writes the names (and as-names) of an import.
func importNames(as []*syntax.Alias) string {
	var b strings.Builder
	for _, a := range as {
		b.WriteByte(' ')
		b.WriteString(a.Name)
		if a.AsName != nil {
			b.WriteString(" as ")
			b.WriteString(a.AsName.Id)
		}
	}
	return b.String()
}
