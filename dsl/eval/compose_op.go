package eval

import "github.com/tilels/tilels/dsl/syntax"

// composeOpBlock reports whether s is `with Tx.compose_op():` (0.25,
// 0.26: the tile calls of its body become one composite op, which the
// Trainium dispatcher lowers as a whole; 0.27 has no such op).
func composeOpBlock(s *syntax.With) bool {
	for _, it := range s.Items {
		c, ok := it.Context.(*syntax.Call)
		if !ok {
			continue
		}
		if a, ok := c.Func.(*syntax.Attribute); ok && a.Attr.Id == "compose_op" {
			return true
		}
	}
	return false
}
