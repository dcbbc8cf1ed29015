package assist

import "strings"

// cursor is what the text before a cursor says about where it is: inside
// which brackets, inside a string or not. It is computed by scanning
// forward from the start of the enclosing top-level statement (a line
// that starts at column 0 with code), so strings and comments before the
// cursor are skipped correctly.
type cursor struct {
	src []byte
	off int
	// open are the unclosed brackets, outermost first.
	open []bracket
	// str is the offset of the opening quote of the string the cursor is
	// in (-1 when none); strBody is where its text starts.
	str, strBody int
	// comment: the cursor is in a comment.
	comment bool
}

type bracket struct {
	pos    int  // offset of the bracket
	ch     byte // '(', '[' or '{'
	commas int  // top-level commas between the bracket and the cursor
	arg    int  // start of the current argument (after the last comma)
}

// maxScan bounds the text scanned before the cursor (a kernel of a few
// thousand lines is well under it).
const maxScan = 1 << 20

// stmtStart returns the start of the top-level statement around off.
func stmtStart(src []byte, off int) int {
	i := off
	for i > 0 && off-i < maxScan {
		ls := i
		for ls > 0 && src[ls-1] != '\n' {
			ls--
		}
		if ls < off && ls < len(src) {
			c := src[ls]
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '#' && c != ')' && c != ']' && c != '}' {
				return ls
			}
		}
		i = ls - 1
	}
	return max(i, 0)
}

// scanTo computes the cursor at off.
func scanTo(src []byte, off int) *cursor {
	off = min(max(off, 0), len(src))
	c := &cursor{src: src, off: off, str: -1}
	var quote byte
	triple := false
	for i := stmtStart(src, off); i < off; i++ {
		ch := src[i]
		if quote != 0 {
			switch {
			case ch == '\\':
				i++
			case ch == quote && (!triple || i+2 < len(src) && src[i+1] == quote && src[i+2] == quote):
				if triple {
					i += 2
				}
				quote, c.str = 0, -1
			case ch == '\n' && !triple:
				quote, c.str = 0, -1 // an unterminated string ends at its line
			}
			continue
		}
		switch ch {
		case '#':
			for i < off && src[i] != '\n' {
				i++
			}
			c.comment = i >= off
		case '"', '\'':
			quote, c.str, triple = ch, i, false
			if i+2 < len(src) && src[i+1] == ch && src[i+2] == ch {
				triple = true
				i += 2
			}
			c.strBody = i + 1
		case '(', '[', '{':
			c.open = append(c.open, bracket{pos: i, ch: ch, arg: i + 1})
		case ')', ']', '}':
			if n := len(c.open); n > 0 {
				c.open = c.open[:n-1]
			}
		case ',':
			if n := len(c.open); n > 0 {
				c.open[n-1].commas++
				c.open[n-1].arg = i + 1
			}
		}
	}
	return c
}

func isIdent(ch byte) bool {
	return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch >= 0x80
}

// wordBefore returns the start of the identifier characters ending at off.
func wordBefore(src []byte, off int) int {
	i := off
	for i > 0 && isIdent(src[i-1]) {
		i--
	}
	return i
}

// wordAfter returns the end of the identifier characters starting at off.
func wordAfter(src []byte, off int) int {
	i := off
	for i < len(src) && isIdent(src[i]) {
		i++
	}
	return i
}

// chainBefore returns the dotted names that end at end ("Tx.warp.copy"
// before a "(": ["Tx", "warp", "copy"]) and the offset of the first one.
func chainBefore(src []byte, end int) ([]string, int) {
	var names []string
	i := end
	for {
		j := wordBefore(src, i)
		if j == i {
			break
		}
		names = append(names, string(src[j:i]))
		i = j
		if i == 0 || src[i-1] != '.' {
			break
		}
		i--
	}
	if len(names) == 0 {
		return nil, end
	}
	for a, b := 0, len(names)-1; a < b; a, b = a+1, b-1 {
		names[a], names[b] = names[b], names[a]
	}
	return names, i
}

// keywordOf returns the keyword of the argument text (" dispatch = " →
// "dispatch"), "" for a positional argument.
func keywordOf(arg string) (kw string, ok bool) {
	s := strings.TrimSpace(arg)
	eq := strings.IndexByte(s, '=')
	if eq <= 0 || eq+1 < len(s) && s[eq+1] == '=' {
		return "", false
	}
	name := strings.TrimSpace(s[:eq])
	for i := 0; i < len(name); i++ {
		if !isIdent(name[i]) {
			return "", false
		}
	}
	return name, true
}
