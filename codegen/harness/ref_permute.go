package harness

import "github.com/tilels/tilels/ir"

// permuteCall writes the whole-tile semantics of a permute call (dst = src under another layout) on logical
// coordinates.
func (g *gen) permuteCall(c *ir.TileCall) {
	g.fail(c.Span, "Tx.%s is not modelled by the reference yet", c.Op)
}
