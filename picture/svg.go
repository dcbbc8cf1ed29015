package picture

import (
	"fmt"
	"strings"
)

// Which picks the pictures a renderer draws.
type Which int

const (
	// Both draws the partition and, below it, the bank map.
	Both Which = iota
	PartitionOnly
	BankOnly
)

// ParseWhich reads a --picture value: "partition", "bank" or "both".
func ParseWhich(s string) (Which, bool) {
	switch s {
	case "both", "":
		return Both, true
	case "partition":
		return PartitionOnly, true
	case "bank":
		return BankOnly, true
	}
	return 0, false
}

const font = `font-family="ui-monospace,Menlo,Consolas,monospace"`

// svgWriter lays pictures out top to bottom.
type svgWriter struct {
	b    strings.Builder
	y, w int
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func (s *svgWriter) text(x, y, size int, anchor, weight, fill, str string) {
	fmt.Fprintf(&s.b, `<text x="%d" y="%d" font-size="%d"`, x, y, size)
	if anchor != "" {
		fmt.Fprintf(&s.b, ` text-anchor="%s"`, anchor)
	}
	if weight != "" {
		fmt.Fprintf(&s.b, ` font-weight="%s"`, weight)
	}
	if fill != "" {
		fmt.Fprintf(&s.b, ` fill="%s"`, fill)
	}
	fmt.Fprintf(&s.b, ">%s</text>\n", esc(str))
}

// SVG draws the chosen pictures of p in one SVG document (stacked, the
// partition first); a missing picture is one line saying why.
func (p *Pictures) SVG(which Which) string {
	s := &svgWriter{y: 0, w: 360}
	var body strings.Builder
	if which != BankOnly {
		if p.Partition != nil {
			p.Partition.draw(s)
		} else {
			s.missing("partition", p.NoPartition)
		}
	}
	if which != PartitionOnly {
		if p.Bank != nil {
			p.Bank.draw(s, which == BankOnly || p.Partition == nil)
		} else {
			s.missing("bank map", p.NoBank)
		}
	}
	fmt.Fprintf(&body, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s>`+"\n", s.w, s.y+8, s.w, s.y+8, font)
	fmt.Fprintf(&body, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", s.w, s.y+8)
	body.WriteString(s.b.String())
	body.WriteString("</svg>\n")
	return body.String()
}

func (s *svgWriter) missing(what, why string) {
	s.y += 22
	s.text(8, s.y, 13, "", "", "#555555", fmt.Sprintf("no %s: %s", what, why))
	s.w = max(s.w, 16+7*len(why)+7*len(what)+40)
	s.y += 6
}

// cellSize is the side of a partition cell: the grid fits about 640
// pixels, cells between 6 and 28 pixels.
func cellSize(rows, cols int) int {
	return min(max(640/max(rows, cols, 1), 6), 28)
}

func (p *Partition) draw(s *svgWriter) {
	const left, top = 44, 16
	cs := cellSize(p.Rows, p.Cols)
	s.y += 20
	s.text(8, s.y, 14, "", "bold", "", p.Title)
	s.y += 18
	s.text(8, s.y, 12, "", "", "#333333", fmt.Sprintf("partition of %s: %d threads, from %s", p.Region, p.Threads, p.From))
	s.y += top
	y0 := s.y
	// Column and row indices every 8 (every 1 when they fit).
	step := 8
	if cs >= 20 {
		step = 1
	}
	for c := 0; c < p.Cols; c += step {
		s.text(left+c*cs+cs/2, y0-3, min(10, max(cs-2, 7)), "middle", "", "#666666", fmt.Sprint(c))
	}
	for r := 0; r < p.Rows; r += step {
		s.text(left-4, y0+r*cs+cs/2+4, min(10, max(cs-2, 7)), "end", "", "#666666", fmt.Sprint(r))
	}
	label := cs >= 16
	fs := cs * 9 / 20
	for r := range p.Rows {
		for c := range p.Cols {
			cell := p.At(r, c)
			x, y := left+c*cs, y0+r*cs
			fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>(%d, %d) %s</title></rect>`+"\n",
				x, y, cs, cs, Colour(cell.Thread), r, c, esc(cell.describe(p)))
			if label && cell.Thread >= 0 {
				s.text(x+cs/2, y+cs/2+fs/3+1, fs, "middle", "", TextColour(cell.Thread), fmt.Sprint(cell.Thread))
			}
		}
	}
	// Thin lines between cells of different accesses (thread, slot).
	var lines strings.Builder
	for r := range p.Rows {
		for c := range p.Cols {
			a := p.At(r, c)
			if c+1 < p.Cols && !sameAccess(a, p.At(r, c+1)) {
				fmt.Fprintf(&lines, "M%d %dv%d", left+(c+1)*cs, y0+r*cs, cs)
			}
			if r+1 < p.Rows && !sameAccess(a, p.At(r+1, c)) {
				fmt.Fprintf(&lines, "M%d %dh%d", left+c*cs, y0+(r+1)*cs, cs)
			}
		}
	}
	if lines.Len() > 0 {
		fmt.Fprintf(&s.b, `<path d="%s" stroke="#ffffff" stroke-width="1" fill="none"/>`+"\n", lines.String())
	}
	fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333333"/>`+"\n", left, y0, p.Cols*cs, p.Rows*cs)
	s.w = max(s.w, left+p.Cols*cs+16)
	s.y = y0 + p.Rows*cs
	s.legend(p.Threads)
	s.notes(p.Notes)
}

// describe is a cell's tooltip.
func (c Cell) describe(p *Partition) string {
	if c.Thread < 0 {
		return "no thread"
	}
	s := fmt.Sprintf("thread %d (warp %d, lane %d)", c.Thread, c.Thread/32, c.Thread%32)
	if strings.HasPrefix(p.From, "layout") {
		s += fmt.Sprintf(", register %d", c.Slot)
	} else {
		s += fmt.Sprintf(", access %d, lane %d", c.Slot, c.Lane)
	}
	if c.Owners > 1 {
		s += fmt.Sprintf(", shared by %d threads", c.Owners)
	}
	return s
}

func sameAccess(a, b Cell) bool { return a.Thread == b.Thread && a.Slot == b.Slot }

// legend draws one swatch row per warp (at most 8 warps), lanes 0..31.
func (s *svgWriter) legend(threads int) {
	const sw = 12
	warps := (threads + 31) / 32
	s.y += 10
	for w := range min(warps, 8) {
		s.y += sw + 2
		s.text(8, s.y-2, 10, "", "", "#333333", fmt.Sprintf("warp %d", w))
		for l := range min(32, threads-w*32) {
			fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", 60+l*sw, s.y-sw, sw, sw, Colour(w*32+l))
		}
	}
	if warps > 8 {
		s.y += 14
		s.text(8, s.y, 10, "", "", "#333333", fmt.Sprintf("… %d more warps", warps-8))
	}
	s.w = max(s.w, 60+32*sw+8)
}

func (s *svgWriter) notes(notes []string) {
	for _, n := range notes {
		s.y += 15
		s.text(8, s.y, 11, "", "", "#555555", n)
		s.w = max(s.w, 16+len(n)*7)
	}
	s.y += 6
}

// draw draws the bank map, under its title when title is set (alone,
// not under the partition of the same call).
func (m *BankMap) draw(s *svgWriter, title bool) {
	const left, cw, ch = 112, 22, 20
	s.y += 10
	if title {
		s.y += 10
		s.text(8, s.y, 14, "", "bold", "", m.Title)
	}
	s.y += 18
	s.text(8, s.y, 12, "", "", "#333333", "bank map: "+m.Instr)
	s.y += 16
	s.text(8, s.y, 12, "", "", "#333333", m.Summary())
	s.y += 18
	for b := range Banks {
		s.text(left+b*cw+cw/2, s.y-3, 9, "middle", "", "#666666", fmt.Sprint(b))
	}
	y0 := s.y
	for i, wf := range m.Wavefronts {
		y := y0 + i*ch
		s.text(left-6, y+ch/2+4, 10, "end", "", "#333333", fmt.Sprintf("wf %d · phase %d", i, wf.Phase))
		for b, c := range wf.Banks {
			x := left + b*cw
			stroke := `stroke="#ffffff" stroke-width="1"`
			if c.Conflict {
				stroke = `stroke="#d00000" stroke-width="2"`
			}
			tip := "idle"
			if c.Thread >= 0 {
				tip = fmt.Sprintf("bank %d: word %d (byte %d) of thread %d", b, c.Word, c.Word*4, c.Thread)
				if c.Threads > 1 {
					tip += fmt.Sprintf(", shared by %d threads", c.Threads)
				}
				if c.Conflict {
					tip += ", conflict"
				}
			}
			fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" %s><title>%s</title></rect>`+"\n",
				x+1, y+1, cw-2, ch-2, Colour(c.Thread), stroke, esc(tip))
			if c.Thread >= 0 {
				s.text(x+cw/2, y+ch/2+4, 10, "middle", "", TextColour(c.Thread), fmt.Sprint(c.Thread))
			}
		}
	}
	s.y = y0 + len(m.Wavefronts)*ch
	s.w = max(s.w, left+Banks*cw+16)
	s.y += 4
	s.notes(append([]string{"cells: the thread whose word the bank serves; red: a bank serving several words in one phase"}, m.Notes...))
}
