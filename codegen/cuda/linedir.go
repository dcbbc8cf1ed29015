package cuda

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// LineDirectives makes Print (and PrintPart/Assemble) map the generated
// .cu back to the .py it was lowered from with #line directives, so that
// nvcc's and ptxas' messages, -lineinfo (compute-sanitizer, cuda-gdb,
// Nsight Compute's source view) name the Python line:
//
//   - each kernel's signature and prologue are at the line of its def;
//   - every line printed for a tile call's lowering is at the line where
//     the tile call starts (one directive per printed line where needed:
//     an instruction of the lowering is never attributed to a later line);
//   - every other statement of the kernel body is at the line where its
//     Python statement starts (consecutive Python lines need no directive);
//   - before the host code (launchers, and the harness after them) one
//     `#line N "<Self>"` returns to the .cu's own line numbers. The
//     helpers before the first kernel keep their own lines (no directive).
//
// A kernel's first directive names the file; the later ones in the same
// kernel give the line alone.
type LineDirectives struct {
	// Source is the file whose byte offsets the IR's spans are.
	Source *source.File
	// Path names the .py in the directives (default Source.Name).
	Path string
	// Self names the .cu file itself (default Path with .py replaced by .cu).
	Self string
	// Shift, when set, moves the spans of a kernel (by its Func, as given
	// to Print) into Source: a language-server session keeps kernels
	// analysed on an earlier text (lower.KernelView.Shift).
	Shift map[*ir.Func]source.Pos
}

func (d *LineDirectives) path() string {
	if d.Path != "" {
		return d.Path
	}
	return d.Source.Name
}

func (d *LineDirectives) self() string {
	if d.Self != "" {
		return d.Self
	}
	return strings.TrimSuffix(d.path(), ".py") + ".cu"
}

// line is the 1-based line of p, a position in the analysis of a kernel
// whose spans are shift away from Source, or 0 when unknown.
func (d *LineDirectives) line(p, shift source.Pos) int {
	if !p.IsValid() || d.Source == nil {
		return 0
	}
	p += shift
	if p < 0 || int(p) > len(d.Source.Src) {
		return 0
	}
	l, _ := d.Source.Position(p)
	return l
}

// cQuote quotes s as a C string literal (the file name of a #line).
func cQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Directive is the text of `#line n "file"` with its newline.
func Directive(n int, file string) string {
	return "#line " + strconv.Itoa(n) + " " + cQuote(file) + "\n"
}

// atStmtLine sets the Python line the next printed lines belong to: the
// statement's own, unless a tile call's lowering is being printed (its
// lines stay at the call's line).
func (k *kernel) atStmtLine(s ir.Stmt) {
	d := k.f.lines
	if d == nil || k.inCall != nil || s == nil {
		return
	}
	var sp source.Span
	if l, ok := s.(*ir.Lowered); ok {
		if l == nil {
			return
		}
		sp = l.Span
		if l.Call != nil {
			sp = l.Call.Span
		}
	} else if n, ok := s.(interface{ Pos() source.Span }); ok {
		sp = n.Pos()
	}
	if n := d.line(sp.Start, k.shift); n > 0 {
		k.pyLine = n
	}
}

// directive writes, before a printed line, the #line that puts it at
// k.pyLine when the line would not be there by counting.
func (k *kernel) directive() {
	if k.pyLine <= 0 || k.pyLine == k.presumed {
		return
	}
	k.b.WriteString("#line ")
	var num [20]byte
	k.b.Write(strconv.AppendInt(num[:0], int64(k.pyLine), 10))
	k.b.WriteByte('\n')
	k.presumed = k.pyLine
}

// advance counts the lines written since start into the presumed line.
func (k *kernel) advance(start int) {
	if k.presumed > 0 {
		k.presumed += bytes.Count(k.b.Bytes()[start:], []byte{'\n'})
	}
}

// prologueDirective is the directive before a kernel's signature: the
// line of its def (of its name, else of its span), in the named file.
func (k *kernel) prologueDirective() string {
	d := k.f.lines
	n := d.line(k.fn.NameSpan.Start, k.shift)
	if n == 0 {
		n = d.line(k.fn.Span.Start, k.shift)
	}
	if n == 0 {
		n = 1
	}
	return Directive(n, d.path())
}

// selfDirective returns to the .cu's own numbering: b holds everything
// before the directive.
func (f *file) selfDirective(b *strings.Builder) {
	n := strings.Count(b.String(), "\n") + 2 // the line after the directive
	b.WriteString(Directive(n, f.lines.self()))
}

// structural reports whether a line of this format holds no code that an
// instruction could be attributed to (a brace, a comment, a pragma): it
// needs no directive of its own, and a directive between `#pragma unroll`
// and its loop is avoided. A directive before each line of a lowering
// doubled the text of the examples; this halves that.
func structural(format string) bool {
	switch format {
	case "{", "}", "} else {", "#pragma unroll", "#pragma unroll %d":
		return true
	}
	return strings.HasPrefix(format, "// ")
}
