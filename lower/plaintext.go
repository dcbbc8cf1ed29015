package lower

import (
	"strings"
	"unicode/utf8"
)

// PlainText renders the Markdown of a hover (the subset tilels writes:
// paragraphs, **bold**, `code` spans, backslash escapes, whole-line
// _italics_, "- " lists, pipe tables, fenced code blocks and images) as
// plain text for editors that show Markdown raw:
//
//   - a table becomes aligned columns, two spaces apart, with a rule of
//     dashes under its header row;
//   - a fenced code block loses its fences and is indented by four spaces;
//   - emphasis and code marks are dropped, escapes resolved;
//   - an image becomes its alt text in brackets.
//
// Everything else (blank lines, list items, their indentation) is kept,
// so the plain text has the Markdown's lines in the same order. The
// Markdown renderer stays the one source of a hover's content.
func PlainText(md string) string {
	lines := strings.Split(md, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "```"):
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				if lines[i] == "" {
					b.WriteString("\n")
				} else {
					b.WriteString("    " + lines[i] + "\n")
				}
			}
		case strings.HasPrefix(line, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			writeTable(&b, lines[i:j])
			i = j - 1
		default:
			b.WriteString(plainLine(line))
			if i < len(lines)-1 {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// writeTable writes the rows of a pipe table as aligned columns.
func writeTable(b *strings.Builder, rows []string) {
	var cells [][]string
	header := false
	for i, r := range rows {
		cs := splitRow(r)
		if i == 1 && isRule(cs) {
			header = true
			continue
		}
		for k := range cs {
			cs[k] = plainLine(cs[k])
		}
		cells = append(cells, cs)
	}
	var widths []int
	for _, cs := range cells {
		for k, c := range cs {
			if k >= len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], utf8.RuneCountInString(c))
		}
	}
	row := func(cs []string) {
		var line strings.Builder
		for k, c := range cs {
			if k > 0 {
				line.WriteString("  ")
			}
			line.WriteString(c)
			if k < len(cs)-1 {
				line.WriteString(strings.Repeat(" ", widths[k]-utf8.RuneCountInString(c)))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	for i, cs := range cells {
		row(cs)
		if i == 0 && header {
			rule := make([]string, len(widths))
			for k, w := range widths {
				rule[k] = strings.Repeat("-", w)
			}
			row(rule)
		}
	}
}

// splitRow splits "| a | b \| c |" into its cells, unescaping nothing but
// keeping escaped pipes inside their cell.
func splitRow(r string) []string {
	r = strings.TrimSpace(r)
	r = strings.TrimPrefix(r, "|")
	if strings.HasSuffix(r, "|") && !strings.HasSuffix(r, `\|`) {
		r = r[:len(r)-1]
	}
	var out []string
	var cur strings.Builder
	inCode := false
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\\' && i+1 < len(r):
			cur.WriteByte(c)
			cur.WriteByte(r[i+1])
			i++
		case c == '`':
			inCode = !inCode
			cur.WriteByte(c)
		case c == '|' && !inCode:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

func isRule(cs []string) bool {
	for _, c := range cs {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return len(cs) > 0
}

// plainLine drops a line's Markdown marks: **, code spans' backticks (the
// code kept verbatim), backslash escapes, whole-line _italics_, and turns
// an image into its alt text.
func plainLine(s string) string {
	if n := len(s); n >= 2 && s[0] == '_' && s[n-1] == '_' {
		s = s[1 : n-1]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_<>|[]#-!.()", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i++
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			end := strings.Index(s[i+n:], fence)
			if end < 0 {
				b.WriteString(fence)
				i += n - 1
				continue
			}
			code := s[i+n : i+n+end]
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			b.WriteString(code)
			i += n + end + n - 1
		case c == '*' && i+1 < len(s) && s[i+1] == '*':
			i++
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			close := strings.Index(s[i:], "](")
			paren := -1
			if close > 0 {
				paren = strings.IndexByte(s[i+close:], ')')
			}
			if close < 0 || paren < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString("[" + s[i+2:i+close] + "]")
			i += close + paren
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
