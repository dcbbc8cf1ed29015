package headless

import (
	"fmt"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// checkSVG validates --emit svg: one input file and the line of a call.
func checkSVG(c Config) error {
	if c.Call <= 0 {
		return usagef("--emit svg needs --call LINE (the 1-based line of a tile call)")
	}
	if len(c.Inputs) != 1 {
		return usagef("--emit svg draws one call: give one input file")
	}
	if !lower.ValidPicture(c.Picture) {
		return usagef("unknown --picture %q (want partition, bank or both)", c.Picture)
	}
	return nil
}

// svg draws the call at line c.Call of the first kernel of ks that has
// one (lower.Pictures), or reports why not and returns nil.
func (r *runner) svg(f *source.File, ks []*lower.Kernel) []byte {
	k, d, why := lower.CallAtLine(f, ks, r.c.Call)
	if k == nil {
		fmt.Fprintf(r.errOut(), "tilels: %s: %s\n", f.Name, why)
		r.fail()
		return nil
	}
	line, _ := f.Position(d.Call.Span.Start)
	return []byte(lower.RenderPictures(lower.Pictures(k, d, line), "svg", r.c.Picture))
}
