// Package syntax is a hand-written lexer and recursive-descent parser for the
// whole Python 3.12 grammar, producing the tree that tilels evaluates.
//
// Contract:
//
//   - Parse never fails: it returns a non-nil *File and a list of syntax
//     diagnostics for any input, including invalid UTF-8 and NUL bytes.
//   - Every node has a Span: a half-open [Start, End) range of byte offsets
//     into the whole file (source.Pos), never re-based. Child spans lie inside
//     their parent's span.
//   - Bad input becomes *BadExpr / *BadStmt nodes. A file with no
//     diagnostics contains no Bad* nodes.
//   - Recovery is per statement: after an error the parser skips to the end
//     of the logical line and goes on with the rest of the enclosing block, so
//     an error inside one function never hides the other functions. Inside
//     brackets, a line starting with a word no expression can contain
//     (return, pass, while, def, ...), or at column 0 with def, class, @name,
//     import, from or async, closes the brackets left open, with an error at
//     the innermost one.
//   - At most one syntax error is reported per line, and at most 50 in all.
//     Codes are stable, "syntax/..." (see the code constants in errors.go).
//
// Comments are kept in File.Comments (the "# tilels: ..." directives are read
// from there), but are not tree nodes.
//
// Example:
//
//	f, diags := syntax.Parse(source.NewFile("k.py", src))
//	syntax.Inspect(f, func(n syntax.Node) bool {
//		if c, ok := n.(*syntax.Call); ok { ... }
//		return true
//	})
package syntax
