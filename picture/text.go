package picture

import (
	"fmt"
	"strconv"
	"strings"
)

// Text bounds: at most TextWidth columns and TextRows grid rows.
const (
	TextWidth = 80
	TextRows  = 32
)

const base32 = "0123456789abcdefghijklmnopqrstuv"

// Text draws the chosen pictures of p as compact Unicode grids, at most
// TextWidth columns wide, for terminal editors' hovers.
func (p *Pictures) Text(which Which) string {
	var parts []string
	if which != BankOnly {
		if p.Partition != nil {
			parts = append(parts, p.Partition.Text())
		} else {
			parts = append(parts, "no partition: "+p.NoPartition+"\n")
		}
	}
	if which != PartitionOnly {
		if p.Bank != nil {
			parts = append(parts, p.Bank.Text())
		} else {
			parts = append(parts, "no bank map: "+p.NoBank+"\n")
		}
	}
	return strings.Join(parts, "\n")
}

// Text draws the partition: thread ids in hex when a row fits, else one
// character per cell (the lane, thread % 32, in base 32) with the warps
// of the row at its end.
func (p *Partition) Text() string {
	lines := []string{fmt.Sprintf("partition of %s: %d threads, from %s", p.Region, p.Threads, p.From)}
	digits := len(strconv.FormatInt(int64(max(p.Threads-1, 0)), 16))
	hex := 4+p.Cols*(digits+1) <= TextWidth
	cols := p.Cols
	var notes []string
	if hex {
		lines = append(lines, "cells: thread id in hex, · no thread")
	} else {
		cols = min(cols, TextWidth-4-12)
		lines = append(lines, "cells: lane (thread % 32) in base 32, then the row's warps; · no thread")
		if cols < p.Cols {
			notes = append(notes, fmt.Sprintf("columns %d.. not shown", cols))
		}
	}
	rows := min(p.Rows, TextRows)
	if rows < p.Rows {
		notes = append(notes, fmt.Sprintf("rows %d.. not shown", rows))
	}
	for r := range rows {
		var b strings.Builder
		fmt.Fprintf(&b, "%3d│", r)
		var warps []int
		for c := range cols {
			cell := p.At(r, c)
			switch {
			case hex && cell.Thread < 0:
				b.WriteString(strings.Repeat(" ", digits-1) + "· ")
			case hex:
				fmt.Fprintf(&b, "%0*x ", digits, cell.Thread)
			case cell.Thread < 0:
				b.WriteString("·")
			default:
				b.WriteByte(base32[cell.Thread%32])
				if w := cell.Thread / 32; !containsInt(warps, w) {
					warps = append(warps, w)
				}
			}
		}
		line := strings.TrimRight(b.String(), " ")
		if len(warps) > 0 {
			line += " " + warpList(warps)
		}
		lines = append(lines, line)
	}
	lines = append(lines, notes...)
	lines = append(lines, p.Notes...)
	return strings.Join(lines, "\n") + "\n"
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// warpList is "w0", "w0-3" or "w0,2,5" (at most 12 characters).
func warpList(ws []int) string {
	contiguous := true
	for i := 1; i < len(ws); i++ {
		if ws[i] != ws[i-1]+1 {
			contiguous = false
		}
	}
	var s string
	switch {
	case len(ws) == 1:
		s = fmt.Sprintf("w%d", ws[0])
	case contiguous:
		s = fmt.Sprintf("w%d-%d", ws[0], ws[len(ws)-1])
	default:
		parts := make([]string, len(ws))
		for i, w := range ws {
			parts[i] = strconv.Itoa(w)
		}
		s = "w" + strings.Join(parts, ",")
	}
	if len(s) > 12 {
		s = s[:11] + "…"
	}
	return s
}

// Text draws the bank map: one row per wavefront, two columns per bank:
// the lane (thread % 32) in base 32 and a mark (! a conflicting bank,
// * a word several threads share).
func (m *BankMap) Text() string {
	lines := []string{"bank map: " + m.Instr, m.Summary()}
	var head strings.Builder
	head.WriteString("bank     ")
	for b := 0; b < Banks; b += 4 {
		fmt.Fprintf(&head, "%-8d", b)
	}
	lines = append(lines, strings.TrimRight(head.String(), " "))
	rows := min(len(m.Wavefronts), TextRows)
	for i, wf := range m.Wavefronts[:rows] {
		var b strings.Builder
		fmt.Fprintf(&b, "wf%-3d p%d ", i, wf.Phase)
		for _, c := range wf.Banks {
			if c.Thread < 0 {
				b.WriteString("· ")
				continue
			}
			b.WriteByte(base32[c.Thread%32])
			switch {
			case c.Conflict:
				b.WriteByte('!')
			case c.Threads > 1:
				b.WriteByte('*')
			default:
				b.WriteByte(' ')
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	if rows < len(m.Wavefronts) {
		lines = append(lines, fmt.Sprintf("wavefronts %d.. not shown", rows))
	}
	lines = append(lines, "cells: lane (thread % 32) in base 32; ! conflicting bank, * shared word, · idle")
	lines = append(lines, m.Notes...)
	return strings.Join(lines, "\n") + "\n"
}
