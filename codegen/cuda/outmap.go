package cuda

import (
	"strings"

	"github.com/tilels/tilels/dsl/source"
)

// Where each kernel and each tile call's lowering is in a printed .cu
// file: what an editor needs to colour-link a source call with its output
// lines (the language server's tilels/outputRanges). It is the model of
// the #line directives (linedir.go) read the other way: a directive says
// which .py line an output line comes from, a KernelLines says which
// output lines a kernel and each of its tile calls produced.

// KernelLines is where one kernel is in a printed file: lines [Start,
// End) (0-based, End exclusive) from its signature (its #line directive
// when there are directives) to its closing brace, and its top-level tile
// calls in printing order. A tile call nested in another's lowering is
// part of the outer call's lines.
type KernelLines struct {
	Start, End int
	Calls      []CallLines
}

// CallLines is where one tile call's lowering is: its "// Tx...(...) ->
// variant" comment to the closing brace of its block, lines [Start, End).
// Call is the tile call's span in the text its kernel was analysed on
// (LineDirectives.Shift does not move it).
type CallLines struct {
	Call       source.Span
	Start, End int
}

// callMark is a tile call's lowering as bytes [start, end) of the text
// being printed.
type callMark struct {
	span       source.Span
	start, end int
}

// PrintMap is Print, with where each kernel (in the order of fns) and
// each of its tile calls is in the text.
func PrintMap(fns []Kernel, opts Options) (string, []KernelLines, error) {
	f, err := printFile(fns, opts)
	if err != nil {
		return "", nil, err
	}
	s := f.String()
	return s, f.lineMap(s), nil
}

// AssembleMap is Assemble, with where each part's kernel and its tile
// calls are in the text.
func AssembleMap(parts []*Part, opts Options) (string, []KernelLines, error) {
	f, err := assembleFile(parts, opts)
	if err != nil {
		return "", nil, err
	}
	s := f.String()
	return s, f.lineMap(s), nil
}

// lineMap turns the byte offsets String recorded into lines of s, in one
// pass over s.
func (f *file) lineMap(s string) []KernelLines {
	out := make([]KernelLines, len(f.kernels))
	at, line := 0, 0
	lineOf := func(off int) int { // offsets asked in increasing order
		line += strings.Count(s[at:off], "\n")
		at = off
		return line
	}
	for i, k := range f.kernels {
		base := f.kernelAt[i]
		kl := KernelLines{Start: lineOf(base)}
		for _, c := range f.calls[i] {
			start := lineOf(base + c.start)
			kl.Calls = append(kl.Calls, CallLines{Call: c.span, Start: start, End: lineOf(base + c.end)})
		}
		kl.End = lineOf(base + len(k))
		out[i] = kl
	}
	return out
}
