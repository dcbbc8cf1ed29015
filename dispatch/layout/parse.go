package layout

import (
	"fmt"
	"strconv"
)

// Parse reads a layout in the §2.3 mini-language, as printed by String:
//
//	S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid
//	S[8,4,2]                      (row-major over m)
//	S[(32,8):("laneid",1)]        (a string stride is 1@axis)
//	S[(4,):((2,"laneid"),)]       (a (value, axis) pair)
//	Compose(3,3,3, S[(8,4,64):(64,512,1)])
//	Compose(3,3,3,false, S[(8192,):(1,)])   (swizzle_inner=False)
//
// Terms of a "+" chain combine per §2.3 (Spec.Plus). An optional
// "TileLayout(...)" wrapper and "Axis." prefixes are accepted. Extents must
// be positive. Unknown axis names are registered as memory axes.
func Parse(s string) (Layout, error) {
	p := &parser{src: s}
	l, err := p.layout()
	if err != nil {
		return nil, fmt.Errorf("parse layout %q: %w", s, err)
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("parse layout %q: unexpected %q at offset %d", s, p.src[p.pos:], p.pos)
	}
	return l, nil
}

// MustParse is Parse that panics on error, for tests and tables.
func MustParse(s string) Layout {
	l, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return l
}

// MustParseTile is MustParse for a TileLayout.
func MustParseTile(s string) *TileLayout {
	l, ok := MustParse(s).(*TileLayout)
	if !ok {
		panic("layout: " + s + " is not a TileLayout")
	}
	return l
}

type parser struct {
	src string
	pos int
}

func (p *parser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
}

func (p *parser) peek() byte {
	p.space()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) accept(c byte) bool {
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(c byte) error {
	if !p.accept(c) {
		return p.errorf("expected %q", c)
	}
	return nil
}

func (p *parser) errorf(format string, args ...any) error {
	at := "end of input"
	if p.pos < len(p.src) {
		at = strconv.Quote(p.src[p.pos:])
	}
	return fmt.Errorf(format+" at offset %d (%s)", append(args, p.pos, at)...)
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

// ident reads an identifier without consuming leading-space errors.
func (p *parser) ident() string {
	p.space()
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos], p.pos == start) {
		p.pos++
	}
	return p.src[start:p.pos]
}

// keyword consumes kw followed by open if present.
func (p *parser) keyword(kw string, open byte) bool {
	p.space()
	save := p.pos
	if p.ident() == kw && p.accept(open) {
		return true
	}
	p.pos = save
	return false
}

func (p *parser) int() (int64, error) {
	p.space()
	start := p.pos
	if p.pos < len(p.src) && (p.src[p.pos] == '-' || p.src[p.pos] == '+') {
		p.pos++
		p.space()
	}
	digits := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == digits {
		p.pos = start
		return 0, p.errorf("expected integer")
	}
	v, err := strconv.ParseInt(p.src[digits:p.pos], 10, 64)
	if err != nil {
		p.pos = start
		return 0, p.errorf("bad integer")
	}
	if p.src[start] == '-' {
		v = -v
	}
	return v, nil
}

func (p *parser) axis() (*Axis, error) {
	name := p.ident()
	if name == "Axis" && p.accept('.') {
		name = p.ident()
	}
	if name == "" {
		return nil, p.errorf("expected axis name")
	}
	return AxisByName(name), nil
}

func (p *parser) str() (string, bool) {
	q := p.peek()
	if q != '"' && q != '\'' {
		return "", false
	}
	start := p.pos + 1
	for i := start; i < len(p.src); i++ {
		if p.src[i] == q {
			p.pos = i + 1
			return p.src[start:i], true
		}
	}
	return "", false
}

func (p *parser) layout() (Layout, error) {
	if p.keyword("Compose", '(') {
		var ps [3]int64
		for i := range ps {
			v, err := p.int()
			if err != nil {
				return nil, err
			}
			if v < 0 || v > 62 {
				return nil, p.errorf("swizzle parameter %d out of range", v)
			}
			ps[i] = v
			if err := p.expect(','); err != nil {
				return nil, err
			}
		}
		inner := true
		save := p.pos
		switch p.ident() {
		case "true", "True":
			if err := p.expect(','); err != nil {
				return nil, err
			}
		case "false", "False":
			inner = false
			if err := p.expect(','); err != nil {
				return nil, err
			}
		default:
			p.pos = save
		}
		t, err := p.tile()
		if err != nil {
			return nil, err
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		return NewCompose(int(ps[0]), int(ps[1]), int(ps[2]), inner, t)
	}
	return p.tile()
}

func (p *parser) tile() (*TileLayout, error) {
	if p.keyword("TileLayout", '(') {
		t, err := p.tile()
		if err != nil {
			return nil, err
		}
		return t, p.expect(')')
	}
	var acc Spec
	for {
		s, err := p.term()
		if err != nil {
			return nil, err
		}
		acc = acc.Plus(s)
		if !p.accept('+') {
			break
		}
	}
	return acc.Layout(), nil
}

func (p *parser) term() (Spec, error) {
	switch {
	case p.keyword("S", '['):
		ext, strides, err := p.body()
		if err != nil {
			return Spec{}, err
		}
		return ShardSpec(ext, strides)
	case p.keyword("R", '['):
		ext, strides, err := p.body()
		if err != nil {
			return Spec{}, err
		}
		return ReplicaSpec(ext, strides)
	case p.accept('('):
		v, err := p.int()
		if err != nil {
			return Spec{}, err
		}
		var a *Axis
		if p.accept('@') {
			if a, err = p.axis(); err != nil {
				return Spec{}, err
			}
		}
		return OffsetSpec(v, a), p.expect(')')
	}
	v, err := p.int()
	if err != nil {
		return Spec{}, p.errorf("expected S[...], R[...] or an offset")
	}
	var a *Axis
	if p.accept('@') {
		if a, err = p.axis(); err != nil {
			return Spec{}, err
		}
	}
	return OffsetSpec(v, a), nil
}

// body parses "extents [: strides]]" after "S[" or "R[".
func (p *parser) body() ([]int64, []Stride, error) {
	var ext []int64
	if p.accept('(') {
		for p.peek() != ')' {
			v, err := p.int()
			if err != nil {
				return nil, nil, err
			}
			ext = append(ext, v)
			if !p.accept(',') {
				break
			}
		}
		if err := p.expect(')'); err != nil {
			return nil, nil, err
		}
	} else {
		for {
			v, err := p.int()
			if err != nil {
				return nil, nil, err
			}
			ext = append(ext, v)
			if !p.accept(',') {
				break
			}
		}
	}
	for _, e := range ext {
		if e <= 0 {
			return nil, nil, p.errorf("extent %d must be positive", e)
		}
	}
	var strides []Stride
	if p.accept(':') {
		if len(ext) > 1 && p.peek() != '(' {
			return nil, nil, p.errorf("strides of %d extents must be parenthesized", len(ext))
		}
		if p.peek() == '(' && !p.strideIsPair() {
			p.accept('(')
			strides = []Stride{}
			for p.peek() != ')' {
				s, err := p.stride()
				if err != nil {
					return nil, nil, err
				}
				strides = append(strides, s)
				if !p.accept(',') {
					break
				}
			}
			if err := p.expect(')'); err != nil {
				return nil, nil, err
			}
		} else {
			s, err := p.stride()
			if err != nil {
				return nil, nil, err
			}
			strides = []Stride{s}
		}
		if len(strides) != len(ext) {
			return nil, nil, p.errorf("%d extents but %d strides", len(ext), len(strides))
		}
	}
	return ext, strides, p.expect(']')
}

// strideIsPair reports whether the input at '(' is a single (INT, AXIS)
// stride rather than a tuple of strides.
func (p *parser) strideIsPair() bool {
	save := p.pos
	defer func() { p.pos = save }()
	p.accept('(')
	if _, err := p.int(); err != nil {
		return false
	}
	if !p.accept(',') {
		return false
	}
	if _, ok := p.str(); ok {
		return p.accept(')')
	}
	return p.ident() != "" && p.accept(')')
}

func (p *parser) stride() (Stride, error) {
	if name, ok := p.str(); ok {
		return Stride{1, AxisByName(name)}, nil
	}
	if p.accept('(') {
		v, err := p.int()
		if err != nil {
			return Stride{}, err
		}
		if err := p.expect(','); err != nil {
			return Stride{}, err
		}
		var a *Axis
		if name, ok := p.str(); ok {
			a = AxisByName(name)
		} else if a, err = p.axis(); err != nil {
			return Stride{}, err
		}
		return Stride{v, a}, p.expect(')')
	}
	v, err := p.int()
	if err != nil {
		return Stride{}, err
	}
	if p.accept('@') {
		a, err := p.axis()
		if err != nil {
			return Stride{}, err
		}
		return Stride{v, a}, nil
	}
	return Stride{v, M}, nil
}
