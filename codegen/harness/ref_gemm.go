package harness

import "github.com/tilels/tilels/ir"

// gemmCall writes the whole-tile semantics of a gemm call (D = A·B·alpha + C·beta) on logical
// coordinates.
func (g *gen) gemmCall(c *ir.TileCall) {
	g.fail(c.Span, "Tx.%s is not modelled by the reference yet", c.Op)
}
