package lower

// Quick fixes of perf/uncoalesced (issue 17, item 2). The one cause a
// local change removes is a register tile whose layout gives each thread
// whole rows: `R = T.alloc_buffer((32, 64), "float16", scope="local",
// layout=TileLayout(S[(32, 64):(1@laneid, 1)]))` copied to or from a
// row-major global tile makes lane i touch row i, so a warp's 16-byte
// accesses land in 32 rows, 32 sectors where 16 would do. Giving
// neighbouring lanes neighbouring 16-byte pieces of the rows (each lane
// then holds pieces of several rows) makes every access of a warp one
// contiguous run. The fix rewrites the literal layout argument of the
// allocation; it is offered only when the tile is used by tile calls
// alone (raw subscripts, views or helpers that read its registers by
// index would see other elements) and when the changed program, analysed
// again whole, no longer has the call over its ideal sectors and is no
// worse anywhere in the kernel (verifyFix). Other causes (a thread-scope
// copy of one row per thread, a narrow forced vector width) need the
// program restructured and get the warning's advice only. The same
// layouts fix a bank-conflict warning on a copy between shared memory and
// such a tile (each lane reading its own row: lanes a row-length apart in
// the same banks), offered after the shared buffer's swizzle and padding.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/perf/memory"
)

// literalTileLayout matches a layout argument written as one TileLayout
// of a shard: its module prefixes (`T.`), the shard's text between the
// brackets.
var literalTileLayout = regexp.MustCompile(`^((?:[A-Za-z_]\w*\.)*)TileLayout\(\s*((?:[A-Za-z_]\w*\.)*)S\[([^\[\]]*)\]\s*\)$`)

// axisRef matches a thread axis written in a stride (`1 @ laneid`).
var axisRef = regexp.MustCompile(`(\s*)@(\s*)([A-Za-z_]\w*)`)

// coalesceFixes computes the verified fixes of the perf/uncoalesced
// warning of call i of k (k's spans plus shift are positions in f).
func coalesceFixes(f *source.File, opts Options, k *Kernel, i int, shift source.Pos) []Fix {
	return relayoutFixes(f, opts, k, i, shift, CodeUncoalesced)
}

// relayoutFixes is coalesceFixes for the warning of code on call i: for
// CodeUncoalesced the layouts are judged by the call's global sectors
// (then requests), for CodeBankConflicts (a copy between shared memory
// and a register tile of one row per thread, whose lanes read or write
// rows a row-length apart: mem_rows_cols's read of A_s) by its shared
// wavefronts (then instructions); the best one that verifies is
// returned, preferred for CodeUncoalesced only (a bank-conflict warning's
// preferred fix is the swizzle of the shared buffer, perfFixes).
func relayoutFixes(f *source.File, opts Options, k *Kernel, i int, shift source.Pos, code string) []Fix {
	d := k.Calls[i]
	fig := k.CallMemory(d.Call)
	shared, global := fig.ExceedsIdeal()
	switch {
	case d.Call.Op != "copy":
		return nil
	case code == CodeUncoalesced && (!global || fig.WorstGlobal == nil):
		return nil
	case code == CodeBankConflicts && (!shared || fig.Worst == nil):
		return nil
	}
	b := registerOperand(d.Call)
	if b == nil || b.Kind != ir.AllocBuffer || !b.Span.IsValid() {
		return nil
	}
	decl := source.Span{Start: b.Span.Start + shift, End: b.Span.End + shift}
	if decl.Start < 0 || int(decl.End) > len(f.Src) {
		return nil
	}
	text := f.Text(decl)
	lo, hi, ok := kwargSpan(text, "layout")
	if !ok {
		return nil
	}
	arg := literalTileLayout.FindStringSubmatch(text[lo:hi])
	if arg == nil {
		return nil
	}
	axes := axisRef.FindAllStringSubmatch(arg[3], -1)
	if len(axes) != 1 {
		return nil // one thread axis, written once
	}
	if !onlyTileCalls(f, k, b, decl, shift) {
		return nil
	}
	rows, cols, ok := rowsPerThread(b)
	if !ok {
		return nil
	}
	at := "@" + axes[0][3]
	if axes[0][1] != "" || axes[0][2] != "" {
		at = " @ " + axes[0][3]
	}
	// the figure a layout is judged by, and the one after it
	measure := func(g *memory.Figures) (int64, int64) {
		if code == CodeBankConflicts {
			return g.SharedLoad.Wavefronts + g.SharedStore.Wavefronts, g.SharedLoad.Instructions + g.SharedStore.Instructions
		}
		return g.GlobalLoad.Sectors + g.GlobalStore.Sectors, g.GlobalLoad.Requests + g.GlobalStore.Requests
	}
	unit := "global sectors"
	if code == CodeBankConflicts {
		unit = "shared wavefronts"
	}
	before, _ := measure(fig)
	var best *Fix
	var bestN, bestM int64
	for _, c := range coalescedLayouts(b, rows, cols, at) {
		fix := Fix{
			Kind: QuickFix, Span: source.Span{Start: decl.Start + source.Pos(lo), End: decl.Start + source.Pos(hi)},
			NewText: arg[1] + "TileLayout(" + arg[2] + "S[" + c.text + "])", Diag: code,
			For: source.Span{Start: d.Call.OpSpan.Start + shift, End: d.Call.OpSpan.End + shift},
		}
		after, ok := verifyFix(f, opts, k, k.Span.Start+shift, i, fix)
		if !ok {
			continue
		}
		n, m := measure(after)
		if best == nil || n < bestN || n == bestN && m < bestM {
			fix.Title = fmt.Sprintf("%s: %d → %d %s (verified)", capital(c.title), before, n, unit)
			fix.Preferred = code == CodeUncoalesced
			best, bestN, bestM = &fix, n, m
		}
	}
	if best == nil {
		return nil
	}
	return []Fix{*best}
}

// registerOperand returns the register tile a copy reads or writes
// (nil when neither operand is one).
func registerOperand(c *ir.TileCall) *ir.Buffer {
	for _, a := range c.Args {
		if r, ok := a.(*ir.Region); ok && r.Buf != nil && r.Buf.Scope == "local" {
			return r.Buf
		}
	}
	return nil
}

// rowsPerThread reports whether b is a two-dimensional register tile
// whose layout gives thread t the whole row t: S[(R, C):(1@axis, 1)].
func rowsPerThread(b *ir.Buffer) (rows, cols int64, ok bool) {
	t, isTile := b.Layout.(*layout.TileLayout)
	if !isTile || len(b.Shape) != 2 || len(t.Replica) > 0 || len(t.Shard) != 2 {
		return 0, 0, false
	}
	for _, v := range t.Offset {
		if v != 0 {
			return 0, 0, false
		}
	}
	r, c := t.Shard[0], t.Shard[1]
	if r.Axis == nil || !r.Axis.IsThread() || r.Stride != 1 || c.Axis.IsThread() || c.Stride != 1 ||
		r.Extent != b.Shape[0] || c.Extent != b.Shape[1] {
		return 0, 0, false
	}
	return r.Extent, c.Extent, true
}

// coalescedLayout is a shard text (inside S[...]) a fix may give a
// register tile, and what it does.
type coalescedLayout struct {
	title, text string
}

// coalescedLayouts returns the layouts that give neighbouring threads
// neighbouring pieces of the rows of a rows x cols tile b: pieces of
// 16, 8 and 4 bytes (thread t holds pieces t, t + rows, ... in the
// row-major order of the pieces), and for a square tile the transposed
// layout (thread t holds column t). at is the thread axis as the source
// writes it ("@laneid", " @ tx").
func coalescedLayouts(b *ir.Buffer, rows, cols int64, at string) []coalescedLayout {
	eb := max(int64(b.Dtype.Bits)/8, 1)
	var out []coalescedLayout
	for _, bytes := range []int64{16, 8, 4} {
		if bytes%eb != 0 {
			continue
		}
		v := bytes / eb // elements a piece
		if cols%v != 0 {
			continue
		}
		k := cols / v // pieces a row
		if k < 2 || rows%k != 0 {
			continue
		}
		text := fmt.Sprintf("(%d, %d, %d, %d):(%d, %d%s, 1%s, 1)", k, rows/k, k, v, v, k, at, at)
		out = append(out, coalescedLayout{fmt.Sprintf("give neighbouring threads neighbouring %d-byte pieces of the rows of %s", bytes, b.Name), text})
	}
	if rows == cols {
		out = append(out, coalescedLayout{fmt.Sprintf("transpose the layout of %s (thread t holds column t)", b.Name), fmt.Sprintf("(%d, %d):(1, 1%s)", rows, cols, at)})
	}
	return out
}

// kwargSpan returns the byte range of the value of keyword argument
// name in the text of a call (`layout=...` up to the comma or
// parenthesis that ends it at the call's own depth).
func kwargSpan(text, name string) (lo, hi int, ok bool) {
	depth := 0
	var quote byte
	for j := 0; j < len(text); j++ {
		c := text[j]
		switch {
		case quote != 0:
			if c == '\\' {
				j++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 1 && strings.HasPrefix(text[j:], name) && (j == 0 || !identByte(text[j-1])):
			rest := strings.TrimLeft(text[j+len(name):], " \t")
			if !strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "==") {
				continue
			}
			lo = len(text) - len(rest) + 1
			for lo < len(text) && (text[lo] == ' ' || text[lo] == '\t') {
				lo++
			}
			d := 0
			for hi = lo; hi < len(text); hi++ {
				switch text[hi] {
				case '(', '[', '{':
					d++
				case ')', ']', '}':
					if d == 0 {
						return lo, trimRight(text, lo, hi), true
					}
					d--
				case ',':
					if d == 0 {
						return lo, trimRight(text, lo, hi), true
					}
				case '"', '\'':
					return 0, 0, false // a string in the value: not a layout
				}
			}
			return 0, 0, false
		}
	}
	return 0, 0, false
}

func trimRight(text string, lo, hi int) int {
	for hi > lo && (text[hi-1] == ' ' || text[hi-1] == '\t' || text[hi-1] == '\n') {
		hi--
	}
	return hi
}

// onlyTileCalls reports whether every mention of b's name in k's def
// (decl excepted) lies in one of k's tile calls: no subscript, view or
// helper reads its registers by index, so that another layout keeps the
// program's meaning.
func onlyTileCalls(f *source.File, k *Kernel, b *ir.Buffer, decl source.Span, shift source.Pos) bool {
	def := source.Span{Start: k.Span.Start + shift, End: k.Span.End + shift}
	if def.Start < 0 || int(def.End) > len(f.Src) || decl.Start < def.Start || decl.End > def.End {
		return false
	}
	src := f.Src
	ok := true
	pythonNames(src[def.Start:def.End], func(off int, w string) {
		if w != b.Name || !ok {
			return
		}
		at := int(def.Start) + off
		if at > 0 && src[at-1] == '.' {
			return // an attribute of something else
		}
		pos := source.Pos(at)
		if decl.Start <= pos && pos < decl.End {
			return
		}
		if end := at + len(w); pos < decl.Start && strings.TrimSpace(string(src[end:decl.Start])) == "=" {
			return // the name the declaration assigns
		}
		for _, c := range k.Calls {
			s := source.Span{Start: c.Call.Span.Start + shift, End: c.Call.Span.End + shift}
			if s.Start <= pos && pos < s.End {
				return
			}
		}
		ok = false
	})
	return ok
}

// pythonNames calls f with the offset and text of each name in src, a
// piece of Python source, outside comments and string literals.
func pythonNames(src []byte, f func(off int, name string)) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			q := string(src[i : i+1])
			if i+2 < len(src) && src[i+1] == c && src[i+2] == c {
				q = string(src[i : i+3])
			}
			i += len(q)
			for i < len(src) && !strings.HasPrefix(string(src[i:min(len(src), i+len(q))]), q) {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i += len(q)
		case identStart(c):
			j := i
			for j < len(src) && identByte(src[j]) {
				j++
			}
			f(i, string(src[i:j]))
			i = j
		case c >= '0' && c <= '9':
			for i < len(src) && identByte(src[i]) {
				i++
			}
		default:
			i++
		}
	}
}
