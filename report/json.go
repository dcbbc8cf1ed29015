package report

import (
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The document's JSON is written by hand, in one pass, exactly as
// encoding/json's MarshalIndent(doc, "", "  ") writes it (field order,
// null for nil slices, maps and pointers, sorted map keys, HTML-safe
// string escapes): MarshalIndent marshals, then re-scans its own output
// to indent it, which was 71 % of the JSON time of `tilels --lower
// --emit json` on the 3,000-line benchmark file. TestJSONMatchesMarshal
// checks the two byte for byte, on every golden program and on documents
// with every optional field set and hostile strings; a field added to a
// record type must be added here too (the test fails until it is).

// JSON renders the document, indented, with a trailing newline.
func JSON(doc *Document) []byte {
	e := encoder{b: make([]byte, 0, 64<<10)}
	e.document(doc)
	e.b = append(e.b, '\n')
	return e.b
}

// WriteJSON writes JSON(doc) to w in pieces of about 64 KiB, without
// building the whole text (546 KB for the 3,000-line benchmark file; its
// growing buffer's copies and page faults were a third of JSON's time in
// the one-shot process).
func WriteJSON(w io.Writer, doc *Document) error {
	e := encoder{b: make([]byte, 0, flushAt+4<<10), w: w}
	e.document(doc)
	e.b = append(e.b, '\n')
	return e.flush()
}

// flushAt is the size of the pieces WriteJSON writes.
const flushAt = 64 << 10

// encoder appends indented JSON to b; with w set, flush writes b out
// when it passes flushAt (at the start of an array element) and at the
// end.
type encoder struct {
	b     []byte
	depth int
	w     io.Writer
	err   error
}

func (e *encoder) flush() error {
	if e.w == nil || e.err != nil {
		return e.err
	}
	_, e.err = e.w.Write(e.b)
	e.b = e.b[:0]
	return e.err
}

// indents is a newline and the indentation of the deepest record (a TMA
// descriptor's dims are at depth 9).
const indents = "\n                                "

// newline starts a line at the current depth.
func (e *encoder) newline() {
	if n := 1 + 2*e.depth; n <= len(indents) {
		e.b = append(e.b, indents[:n]...)
		return
	}
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, "  "...)
	}
}

// open starts an object or array with n members (c is '{' or '['); an
// empty one is written whole.
func (e *encoder) open(c byte, n int) bool {
	if n == 0 {
		e.b = append(e.b, c, c+2) // {} and []
		return false
	}
	e.b = append(e.b, c)
	e.depth++
	return true
}

func (e *encoder) close(c byte) {
	e.depth--
	e.newline()
	e.b = append(e.b, c)
}

// key starts member i of an object: the separator, the line, the key.
func (e *encoder) key(i int, k string) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
	e.newline()
	e.b = appendString(e.b, k)
	e.b = append(e.b, ':', ' ')
}

// elem starts element i of an array.
func (e *encoder) elem(i int) {
	if e.w != nil && len(e.b) >= flushAt {
		e.flush()
	}
	if i > 0 {
		e.b = append(e.b, ',')
	}
	e.newline()
}

func (e *encoder) null() { e.b = append(e.b, "null"...) }

func (e *encoder) str(s string) { e.b = appendString(e.b, s) }

func (e *encoder) int(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

func (e *encoder) strPtr(s *string) {
	if s == nil {
		e.null()
		return
	}
	e.str(*s)
}

func (e *encoder) intPtr(n *int64) {
	if n == nil {
		e.null()
		return
	}
	e.int(*n)
}

func (e *encoder) strings(ss []string) {
	if ss == nil {
		e.null()
		return
	}
	if e.open('[', len(ss)) {
		for i, s := range ss {
			e.elem(i)
			e.str(s)
		}
		e.close(']')
	}
}

func (e *encoder) ints(ns []int64) {
	if ns == nil {
		e.null()
		return
	}
	if e.open('[', len(ns)) {
		for i, n := range ns {
			e.elem(i)
			e.int(n)
		}
		e.close(']')
	}
}

func (e *encoder) document(d *Document) {
	if d == nil {
		e.null()
		return
	}
	e.open('{', 4)
	e.key(0, "schema")
	e.int(int64(d.Schema))
	e.key(1, "tilels")
	e.str(d.Tilels)
	e.key(2, "reference")
	e.str(d.Reference)
	e.key(3, "files")
	if d.Files == nil {
		e.null()
	} else if e.open('[', len(d.Files)) {
		for i, f := range d.Files {
			e.elem(i)
			e.file(f)
		}
		e.close(']')
	}
	e.close('}')
}

func (e *encoder) file(f *File) {
	if f == nil {
		e.null()
		return
	}
	e.open('{', 4)
	e.key(0, "file")
	e.str(f.File)
	e.key(1, "reference")
	e.open('{', 3)
	e.key(0, "release")
	e.str(f.Reference.Release)
	e.key(1, "source")
	e.str(f.Reference.Source)
	e.key(2, "why")
	e.str(f.Reference.Why)
	e.close('}')
	e.key(2, "kernels")
	if f.Kernels == nil {
		e.null()
	} else if e.open('[', len(f.Kernels)) {
		for i := range f.Kernels {
			e.elem(i)
			e.kernel(&f.Kernels[i])
		}
		e.close(']')
	}
	e.key(3, "diagnostics")
	e.diagnostics(f.Diagnostics)
	e.close('}')
}

func (e *encoder) kernel(k *Kernel) {
	e.open('{', 10)
	e.key(0, "name")
	e.str(k.Name)
	e.key(1, "symbol")
	e.strPtr(k.Symbol)
	e.key(2, "line")
	e.int(int64(k.Line))
	e.key(3, "case")
	e.caseMap(k.Case)
	e.key(4, "case_id")
	e.strPtr(k.CaseID)
	e.key(5, "needs")
	e.strings(k.Needs)
	e.key(6, "calls")
	if k.Calls == nil {
		e.null()
	} else if e.open('[', len(k.Calls)) {
		for i := range k.Calls {
			e.elem(i)
			e.call(&k.Calls[i])
		}
		e.close(']')
	}
	e.key(7, "diagnostics")
	e.diagnostics(k.Diagnostics)
	e.key(8, "memory")
	e.memory(k.Memory)
	e.key(9, "machine")
	e.machine(k.Machine)
	e.close('}')
}

// memory writes a Memory record (null when nil).
func (e *encoder) memory(m *Memory) {
	if m == nil {
		e.null()
		return
	}
	e.open('{', 13)
	e.key(0, "source")
	e.str(m.Source)
	e.key(1, "ctas")
	e.int(m.CTAs)
	e.key(2, "scaled")
	e.b = strconv.AppendBool(e.b, m.Scaled)
	e.key(3, "scaled_why")
	e.strPtr(m.ScaledWhy)
	for i, s := range [...]struct {
		k string
		c *SharedCounts
	}{{"shared_load", &m.SharedLoad}, {"shared_store", &m.SharedStore}, {"ldmatrix", &m.Ldmatrix}, {"stmatrix", &m.Stmatrix}} {
		e.key(4+i, s.k)
		e.open('{', 4)
		e.key(0, "instructions")
		e.int(s.c.Instructions)
		e.key(1, "wavefronts")
		e.int(s.c.Wavefronts)
		e.key(2, "ideal_wavefronts")
		e.int(s.c.IdealWavefronts)
		e.key(3, "bank_conflicts")
		e.int(s.c.BankConflicts)
		e.close('}')
	}
	for i, g := range [...]struct {
		k string
		c *GlobalCounts
	}{{"global_load", &m.GlobalLoad}, {"global_store", &m.GlobalStore}} {
		e.key(8+i, g.k)
		e.open('{', 3)
		e.key(0, "requests")
		e.int(g.c.Requests)
		e.key(1, "sectors")
		e.int(g.c.Sectors)
		e.key(2, "ideal_sectors")
		e.int(g.c.IdealSectors)
		e.close('}')
	}
	for i, a := range [...]struct {
		k string
		c *AsyncCounts
	}{{"cp_async", &m.CpAsync}, {"tma", &m.TMA}} {
		e.key(10+i, a.k)
		e.open('{', 2)
		e.key(0, "instructions")
		e.int(a.c.Instructions)
		e.key(1, "bytes")
		e.int(a.c.Bytes)
		e.close('}')
	}
	e.key(12, "unknown")
	e.strPtr(m.Unknown)
	e.close('}')
}

// caseMap writes a map with its keys sorted, as encoding/json does.
func (e *encoder) caseMap(m map[string]string) {
	if m == nil {
		e.null()
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if e.open('{', len(keys)) {
		for i, k := range keys {
			e.key(i, k)
			e.str(m[k])
		}
		e.close('}')
	}
}

func (e *encoder) call(c *Call) {
	e.open('{', 15)
	e.key(0, "line")
	e.int(int64(c.Line))
	e.key(1, "column")
	e.int(int64(c.Column))
	e.key(2, "op")
	e.str(c.Op)
	e.key(3, "scope")
	e.str(c.Scope)
	e.key(4, "threads")
	e.int(c.Threads)
	e.key(5, "variant")
	e.strPtr(c.Variant)
	e.key(6, "vec")
	e.intPtr(c.Vec)
	e.key(7, "vec_bits")
	e.intPtr(c.VecBits)
	e.key(8, "outer")
	e.intPtr(c.Outer)
	e.key(9, "declined")
	if c.Declined == nil {
		e.null()
	} else if e.open('[', len(c.Declined)) {
		for i, d := range c.Declined {
			e.elem(i)
			e.open('{', 2)
			e.key(0, "variant")
			e.str(d.Variant)
			e.key(1, "reason")
			e.str(d.Reason)
			e.close('}')
		}
		e.close(']')
	}
	e.key(10, "tma")
	e.tma(c.TMA)
	e.key(11, "plan")
	e.plan(c.Plan)
	e.key(12, "needs")
	e.strings(c.Needs)
	e.key(13, "not_modelled")
	e.strPtr(c.NotModelled)
	e.key(14, "memory")
	e.memory(c.Memory)
	e.close('}')
}

func (e *encoder) plan(p []PlanItem) {
	if p == nil {
		e.null()
		return
	}
	if !e.open('[', len(p)) {
		return
	}
	for i := range p {
		e.elem(i)
		e.open('{', 3)
		e.key(0, "key")
		e.str(p[i].Key)
		e.key(1, "value")
		e.str(p[i].Value)
		e.key(2, "fields")
		e.plan(p[i].Fields)
		e.close('}')
	}
	e.close(']')
}

func (e *encoder) tma(t *TMA) {
	if t == nil {
		e.null()
		return
	}
	e.open('{', 13)
	e.key(0, "rank")
	e.int(int64(t.Rank))
	e.key(1, "dtype")
	e.str(t.DType)
	e.key(2, "direction")
	e.str(t.Direction)
	e.key(3, "global_dims")
	e.ints(t.GlobalDims)
	e.key(4, "global_strides")
	e.ints(t.GlobalStrides)
	e.key(5, "box")
	e.ints(t.Box)
	e.key(6, "element_strides")
	e.ints(t.ElementStrides)
	e.key(7, "interleave")
	e.int(int64(t.Interleave))
	e.key(8, "swizzle")
	e.int(int64(t.Swizzle))
	e.key(9, "l2_promotion")
	e.int(int64(t.L2Promotion))
	e.key(10, "oob_fill")
	e.int(int64(t.OOBFill))
	e.key(11, "issues")
	e.int(t.Issues)
	if t.RuntimeGlobalDims != nil {
		e.key(12, "runtime_global_dims")
		e.open('[', len(t.RuntimeGlobalDims))
		for i, s := range t.RuntimeGlobalDims {
			e.elem(i)
			e.str(s)
		}
		e.close(']')
	}
	e.close('}')
}

func (e *encoder) diagnostics(ds []Diagnostic) {
	if ds == nil {
		e.null()
		return
	}
	if !e.open('[', len(ds)) {
		return
	}
	for i := range ds {
		d := &ds[i]
		e.elem(i)
		e.open('{', 7)
		e.key(0, "line")
		e.int(int64(d.Line))
		e.key(1, "column")
		e.int(int64(d.Column))
		e.key(2, "end_line")
		e.int(int64(d.EndLine))
		e.key(3, "end_column")
		e.int(int64(d.EndCol))
		e.key(4, "severity")
		e.str(d.Severity)
		e.key(5, "code")
		e.str(d.Code)
		e.key(6, "message")
		e.str(d.Message)
		e.close('}')
	}
	e.close(']')
}

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes a JSON string holds as they are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it by default: `"` and `\`, control characters (\b, \f, \n,
// \r, \t by name, the others as \u00XX), <, > and & (HTML-safe), U+2028
// and U+2029, and each byte of invalid UTF-8 as \ufffd.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
