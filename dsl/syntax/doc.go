// Package syntax is a hand-written lexer and recursive-descent parser for the
// whole Python 3.12 grammar (PEP 701 f-strings, PEP 695 type parameters,
// match statements), producing the tree that tilels evaluates.
//
// Contract:
//
//   - Parse never fails: for any input, including invalid UTF-8 and NUL
//     bytes, it returns a non-nil *File and the syntax diagnostics.
//   - Every node has a Span: a half-open [Start, End) range of byte offsets
//     into the whole file (source.Pos), never re-based. A child's span lies
//     inside its parent's. Spans follow CPython's ast (a parenthesized
//     operand's parentheses belong to the enclosing node), except that a
//     decorated def or class starts at its first "@".
//   - Bad input becomes *BadExpr / *BadStmt nodes, and a file without
//     diagnostics contains none.
//   - Recovery is per statement: after an error the parser skips to the end
//     of the logical line and goes on with the rest of the enclosing block,
//     so an error inside one function never hides the other functions. A
//     compound statement whose header is broken keeps its block. Inside
//     brackets, a line starting with a word no expression can contain
//     (return, pass, while, def, ...), or at column 0 with def, class,
//     @name, import, from or async, closes the brackets left open, with a
//     "never closed" error at the innermost one; errors inside that bracket
//     are not reported separately.
//   - At most one syntax error is reported per line, and at most 50 in all,
//     sorted by position. Codes are the stable Code* constants
//     ("syntax/unexpected-token", ...); messages are one lowercase fragment.
//
// Comments are kept in File.Comments (the "# tilels: ..." directives are read
// from there) but are not tree nodes. Identifiers, raw literal text and
// escape-free string values are substrings of one copy of the source.
//
// Known limits: identifiers are not NFKC-normalized, and \N{NAME} escapes
// are left undecoded in Constant.Str (Go's standard library has no Unicode
// name table).
//
// Example:
//
//	f, diags := syntax.Parse(source.NewFile("k.py", src))
//	syntax.Inspect(f, func(n syntax.Node) bool {
//		if call, ok := n.(*syntax.Call); ok {
//			_ = call.Func
//		}
//		return true
//	})
package syntax
