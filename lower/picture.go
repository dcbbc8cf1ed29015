package lower

import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/picture"
)

// Pictures draws one lowered tile call (package picture): the partition
// of its tile and the bank map of its worst shared instruction. line is
// the call's 1-based line, for the title. The pictures are what the
// CLI's --emit svg, the editor's tilels.picture command and the hover's
// grid all show.
func Pictures(k *Kernel, d *dispatch.Decision, line int) *picture.Pictures {
	name := "Tx."
	if d.Call.Scope != "" {
		name += d.Call.Scope + "."
	}
	name += d.Call.Op
	title := fmt.Sprintf("%s · line %d · %s", k.Name, line, name)
	if k.CaseLabel != "" {
		title = fmt.Sprintf("%s (%s) · line %d · %s", k.Name, k.CaseLabel, line, name)
	}
	c := picture.Call{Title: title, Tile: d.Call, Threads: int(d.Threads)}
	if d.Variant == "" {
		c.Title += " → no variant"
	} else {
		c.Title += " → " + d.Variant
		if r := d.Result; r != nil {
			c.Body = r.Body
			if r.Vec > 0 {
				c.Title += fmt.Sprintf(" vec %d", r.Vec)
			}
		}
	}
	return picture.Draw(c)
}

// CallAtLine finds the tile call at a 1-based line of f among ks: the
// first kernel (in ks' order) with a decision whose call starts on that
// line. ok is false, with a reason, when none does.
func CallAtLine(f *source.File, ks []*Kernel, line int) (*Kernel, *dispatch.Decision, string) {
	for _, k := range ks {
		for _, d := range k.Calls {
			if l, _ := f.Position(d.Call.Span.Start); l == line {
				return k, d, ""
			}
		}
	}
	if len(ks) == 1 {
		return nil, nil, fmt.Sprintf("kernel %s has no tile call at line %d", ks[0].Name, line)
	}
	return nil, nil, fmt.Sprintf("no analysed tile call at line %d", line)
}

// ValidPicture reports whether which names pictures: "partition", "bank",
// "both" or "" (both).
func ValidPicture(which string) bool {
	_, ok := picture.ParseWhich(which)
	return ok
}

// RenderPictures renders p as "svg" or "text" (the Unicode grids of
// terminal hovers); which is as ValidPicture takes it.
func RenderPictures(p *picture.Pictures, format, which string) string {
	w, _ := picture.ParseWhich(which)
	if format == "text" {
		return p.Text(w)
	}
	return p.SVG(w)
}
