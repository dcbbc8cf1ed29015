package picture

import (
	"fmt"
	"sort"
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
	// labels are the cell labels of the picture being drawn, by size and
	// colour, written in one group each after its cells (flushLabels).
	labels map[[2]string][]string
	// notips leaves the cells' tooltips out (a picture shown as an image).
	notips bool
}

// tip is a cell's tooltip element, or nothing without tooltips.
func (s *svgWriter) tip(str string) string {
	if s.notips {
		return ""
	}
	return "<title>" + esc(str) + "</title>"
}

// label queues a centred cell label.
func (s *svgWriter) label(x, y, size int, fill, str string) {
	if s.labels == nil {
		s.labels = map[[2]string][]string{}
	}
	k := [2]string{fmt.Sprint(size), fill}
	s.labels[k] = append(s.labels[k], fmt.Sprintf(`<text x="%d" y="%d">%s</text>`, x, y, esc(str)))
}

// flushLabels writes the queued labels, in a stable order.
func (s *svgWriter) flushLabels() {
	keys := make([][2]string, 0, len(s.labels))
	for k := range s.labels {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		fmt.Fprintf(&s.b, `<g font-size="%s" text-anchor="middle" fill="%s">`+"\n", k[0], k[1])
		for _, l := range s.labels[k] {
			s.b.WriteString(l)
			s.b.WriteByte('\n')
		}
		s.b.WriteString("</g>\n")
	}
	s.labels = nil
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// esc escapes s for XML text and attribute values.
func esc(s string) string { return xmlEscaper.Replace(s) }

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
func (p *Pictures) SVG(which Which) string { return p.svg(which, false) }

// Image is SVG without the cells' tooltips: smaller, for a picture shown
// as an image (a hover), where tooltips do not show.
func (p *Pictures) Image(which Which) string { return p.svg(which, true) }

func (p *Pictures) svg(which Which, notips bool) string {
	s := &svgWriter{y: 0, w: 360, notips: notips}
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
	// One rect per run of cells of one access (lowered code) or one
	// thread (a layout), with one label and one tooltip.
	byLayout := strings.HasPrefix(p.From, "layout")
	s.b.WriteString(`<g stroke="#ffffff" stroke-width="0.5">` + "\n")
	fs := min(cs*9/20, 12)
	for r := range p.Rows {
		for c := 0; c < p.Cols; {
			cell := p.At(r, c)
			n := 1
			for c+n < p.Cols && sameRun(p.At(r, c+n-1), p.At(r, c+n), byLayout) {
				n++
			}
			x, y := left+c*cs, y0+r*cs
			fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s">%s</rect>`+"\n",
				x, y, n*cs, cs, Colour(cell.Thread), s.tip(p.describe(r, c, n)))
			if cs >= 12 && cell.Thread >= 0 && (n*cs >= 16 || cs >= 16) {
				s.label(x+n*cs/2, y+cs/2+fs/3+1, fs, TextColour(cell.Thread), fmt.Sprint(cell.Thread))
			}
			c += n
		}
	}
	s.b.WriteString("</g>\n")
	s.flushLabels()
	fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333333"/>`+"\n", left, y0, p.Cols*cs, p.Rows*cs)
	s.w = max(s.w, left+p.Cols*cs+16)
	s.y = y0 + p.Rows*cs
	s.legend(p.Threads)
	s.notes(p.Notes)
}

// describe is the tooltip of the n cells from (r, c).
func (p *Partition) describe(r, c, n int) string {
	cell := p.At(r, c)
	where := fmt.Sprintf("(%d, %d)", r, c)
	if n > 1 {
		where = fmt.Sprintf("(%d, %d..%d)", r, c, c+n-1)
	}
	if cell.Thread < 0 {
		return where + " no thread"
	}
	s := fmt.Sprintf("%s thread %d (warp %d, lane %d)", where, cell.Thread, cell.Thread/32, cell.Thread%32)
	if strings.HasPrefix(p.From, "layout") {
		last := p.At(r, c+n-1).Slot
		if n > 1 && last != cell.Slot {
			s += fmt.Sprintf(", registers %d..%d", cell.Slot, last)
		} else {
			s += fmt.Sprintf(", register %d", cell.Slot)
		}
	} else {
		s += fmt.Sprintf(", access %d", cell.Slot)
		if n < p.Vec || cell.Lane > 0 {
			s += fmt.Sprintf(", lanes %d..%d", cell.Lane, p.At(r, c+n-1).Lane)
		}
	}
	if cell.Owners > 1 {
		s += fmt.Sprintf(", shared by %d threads", cell.Owners)
	}
	return s
}

// sameRun reports whether b continues a's run: the same thread, and for
// the lowered code's partition the same access.
func sameRun(a, b Cell, byLayout bool) bool {
	return a.Thread == b.Thread && a.Owners == b.Owners && (byLayout || a.Slot == b.Slot && b.Lane == a.Lane+1 || a.Thread < 0)
}

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
	// Idle banks: one patterned rect under the grid.
	fmt.Fprintf(&s.b, `<defs><pattern id="idle" width="%d" height="%d" patternUnits="userSpaceOnUse" x="%d" y="%d"><rect x="1" y="1" width="%d" height="%d" fill="%s"/></pattern></defs>`+"\n",
		cw, ch, left, y0, cw-2, ch-2, Colour(-1))
	fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="url(#idle)"/>`+"\n", left, y0, Banks*cw, len(m.Wavefronts)*ch)
	for i, wf := range m.Wavefronts {
		y := y0 + i*ch
		s.text(left-6, y+ch/2+4, 10, "end", "", "#333333", fmt.Sprintf("wf %d · phase %d", i, wf.Phase))
		// One rect per run of banks holding consecutive words of one thread.
		for b := 0; b < Banks; {
			c := wf.Banks[b]
			if c.Thread < 0 {
				b++
				continue
			}
			n := 1
			for b+n < Banks {
				d := wf.Banks[b+n]
				if d.Thread != c.Thread || d.Word != c.Word+int64(n) || d.Conflict != c.Conflict || d.Threads != c.Threads {
					break
				}
				n++
			}
			x := left + b*cw
			stroke := ""
			if c.Conflict {
				stroke = ` stroke="#d00000" stroke-width="2"`
			}
			tip := fmt.Sprintf("thread %d: bank %d, word %d (byte %d)", c.Thread, b, c.Word, c.Word*4)
			if n > 1 {
				tip = fmt.Sprintf("thread %d: banks %d..%d, words %d..%d (bytes %d..%d)", c.Thread, b, b+n-1, c.Word, c.Word+int64(n-1), c.Word*4, c.Word*4+int64(4*n-1))
			}
			if c.Threads > 1 {
				tip += fmt.Sprintf(", shared by %d threads", c.Threads)
			}
			if c.Conflict {
				tip += ", conflict"
			}
			fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"%s>%s</rect>`+"\n",
				x+1, y+1, n*cw-2, ch-2, Colour(c.Thread), stroke, s.tip(tip))
			s.label(x+n*cw/2, y+ch/2+4, 10, TextColour(c.Thread), fmt.Sprint(c.Thread))
			b += n
		}
	}
	s.flushLabels()
	s.y = y0 + len(m.Wavefronts)*ch
	s.w = max(s.w, left+Banks*cw+16)
	s.y += 4
	s.notes(append([]string{"cells: the thread whose word the bank serves; red: a bank serving several words in one phase"}, m.Notes...))
}
