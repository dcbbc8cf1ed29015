// Package names hands out deterministic unique identifiers for the two
// printers (codegen/cuda and codegen/tirx).
//
// Contract: a Namer maps keys (an *ir.Var, an *ir.Buffer, ...) to
// identifiers. The first request for a key fixes its name; later requests
// return it. Names are the wanted name sanitised to [A-Za-z0-9_] (never
// starting with a digit), and when that is taken or reserved, the first free
// of want_1, want_2, ... Invariant: distinct keys never share a name, and a
// fixed sequence of requests gives the same names on every run.

package names

import (
	"strconv"
	"strings"
)

// Namer hands out unique identifiers. The zero value is not usable; call New.
type Namer struct {
	reserved map[string]bool // shared, read-only
	used     map[string]bool
	names    map[any]string
	// next is, per wanted name, the first suffix Fresh has not tried:
	// want_1 ... want_{next-1} are all used, so the scan starts there
	// (from 1 every time, 30,000 unrolled copies of one call took 69 s to
	// print; names are the same either way).
	next map[string]int
}

// newNamer returns a Namer that never hands out a name of reserved (a set
// built by reservedSet, shared and never modified; nil for none).
func New(reserved map[string]bool) *Namer {
	return &Namer{reserved: reserved, used: map[string]bool{}, names: map[any]string{}, next: map[string]int{}}
}

// reservedSet builds the set of names a Namer must not hand out. Build it
// once: copying the ~80 C reserved words into every kernel's Namer was 17%
// of BenchmarkPrintCUDA3000 CPU (map growth) and 7% of its allocations.
func Reserved(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, r := range names {
		m[r] = true
	}
	return m
}

// name returns the identifier of key, allocating one based on want on the
// first request.
func (n *Namer) Name(key any, want string) string {
	if s, ok := n.names[key]; ok {
		return s
	}
	s := n.Fresh(want)
	n.names[key] = s
	return s
}

// fresh returns a new identifier based on want that no key owns.
func (n *Namer) Fresh(want string) string {
	base := Sanitize(want)
	s := base
	if n.used[s] || n.reserved[s] {
		i := max(n.next[base], 1)
		for s = base + "_" + strconv.Itoa(i); n.used[s] || n.reserved[s]; i++ {
			s = base + "_" + strconv.Itoa(i+1)
		}
		n.next[base] = i + 1
	}
	n.used[s] = true
	return s
}

// sanitize maps want to a C/Python identifier: every byte outside
// [A-Za-z0-9_] becomes '_', a leading digit gets a '_' prefix, and the
// empty string becomes "v".
func Sanitize(want string) string {
	if want == "" {
		return "v"
	}
	if IsIdent(want) {
		return want // the usual case: copying it was 10% of BenchmarkPrintCUDA3000 allocations
	}
	var b strings.Builder
	for i := 0; i < len(want); i++ {
		c := want[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			b.WriteByte(c)
		case c >= '0' && c <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// isIdent reports whether want is already a valid identifier:
// [A-Za-z_][A-Za-z0-9_]*.
func IsIdent(want string) bool {
	for i := 0; i < len(want); i++ {
		c := want[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
