package lsp

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
)

// Lookups by position in a snapshot. Offsets are in the snapshot's text;
// a kernel's own spans are mapped with KernelView.ToFile.

// callsAt returns the decisions of the tile call whose span (or, with op,
// callee span) is the smallest containing off: several when a Python loop
// unrolled one call.
func callsAt(v *lower.KernelView, off source.Pos, op bool) []*dispatch.Decision {
	var out []*dispatch.Decision
	var best source.Span
	for _, d := range v.Kernel.Calls {
		sp := d.Call.Span
		if op {
			sp = d.Call.OpSpan
		}
		sp = v.ToFile(sp)
		if !sp.Contains(off) {
			continue
		}
		switch {
		case out == nil || sp.Len() < best.Len():
			out, best = []*dispatch.Decision{d}, sp
		case sp == best:
			out = append(out, d)
		}
	}
	return out
}

// identAt returns the identifier around off in src (or an empty span).
func identAt(src []byte, off source.Pos) source.Span {
	isID := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	a, b := int(off), int(off)
	if a > len(src) {
		return source.Span{Start: off, End: off}
	}
	for a > 0 && isID(src[a-1]) {
		a--
	}
	for b < len(src) && isID(src[b]) {
		b++
	}
	if a < b && src[a] >= '0' && src[a] <= '9' {
		return source.Span{Start: off, End: off}
	}
	return source.Span{Start: source.Pos(a), End: source.Pos(b)}
}

// bufferNamed returns the buffer a use of name at off refers to: the last
// declaration before off (Python rebinding), else the first one.
func bufferNamed(v *lower.KernelView, name string, off source.Pos) *eval.BufferSite {
	var first, last *eval.BufferSite
	for i := range v.Buffers {
		b := &v.Buffers[i]
		if b.Buf == nil || b.Buf.Name != name {
			continue
		}
		if first == nil {
			first = b
		}
		if at := v.ToFile(declSpan(b)); at.IsValid() && at.Start <= off {
			last = b
		}
	}
	if last != nil {
		return last
	}
	return first
}

// declSpan is where a buffer is named: the assigned name, else the call.
func declSpan(b *eval.BufferSite) source.Span {
	if b.NameSpan.IsValid() {
		return b.NameSpan
	}
	return b.DeclSpan
}

// layoutAt returns the smallest layout expression containing off.
func layoutAt(v *lower.KernelView, off source.Pos) *eval.LayoutSite {
	var best *eval.LayoutSite
	for i := range v.Layouts {
		l := &v.Layouts[i]
		if v.ToFile(l.Span).Contains(off) && (best == nil || l.Span.Len() < best.Span.Len()) {
			best = l
		}
	}
	return best
}

// loweredOf returns the ir.Lowered that replaced call in the kernel's
// lowered function, and its index among all Lowered nodes in walk order
// (the order printers emit them).
func loweredOf(k *lower.Kernel, call *ir.TileCall) (*ir.Lowered, int) {
	var found *ir.Lowered
	idx, n := -1, 0
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ir.Lowered:
				if s.Call == call && found == nil {
					found, idx = s, n
				}
				n++
			case *ir.Block:
				walk(s)
			case *ir.For:
				walk(s.Body)
			case *ir.While:
				walk(s.Body)
			case *ir.If:
				walk(s.Then)
				walk(s.Else)
			}
		}
	}
	if k.Lowered != nil {
		walk(k.Lowered.Host)
		walk(k.Lowered.Body)
	}
	return found, idx
}

func source0(off int) source.Pos { return source.Pos(off) }
