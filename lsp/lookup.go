package lsp

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
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

func source0(off int) source.Pos { return source.Pos(off) }
