package harness

import "github.com/tilels/tilels/ir"

// reduceCall writes the whole-tile semantics of a reduction call (dst = reduce(src) over axes) on logical
// coordinates.
func (g *gen) reduceCall(c *ir.TileCall) {
	g.fail(c.Span, "Tx.%s is not modelled by the reference yet", c.Op)
}
