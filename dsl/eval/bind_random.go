package eval

import (
	"math/bits"

	"github.com/tilels/tilels/dsl/source"
)

// Seeded random generators as a binding source. Kernel modules derive
// problem shapes from a seeded generator:
//
//	rng = random.Random(seed)
//	actual = [int(expected_m * rng.uniform(0.7, 1.3)) for _ in range(num_groups)]
//	M = sum(_align(m, 240) for m in actual)
//
// A generator seeded with an int is deterministic, so tilels computes the
// same values CPython does: the Mersenne Twister (MT19937) seeded by
// init_by_array with the seed's 32-bit words, random() from two outputs
// (53 bits), getrandbits, and the methods built on them as random.py
// defines them (uniform, randrange, randint, choice). Everything else —
// an unseeded generator, a str or float seed, the module-level functions
// (seeded from the OS), other methods — stays opaque.

// randomAttr models the random module: Random(seed).
func randomAttr(ev *Evaluator, name string, span source.Span) (Value, bool) {
	if name != "Random" {
		return nil, false
	}
	return Builtin("random.Random", func(ev *Evaluator, c *Call) Value {
		if len(c.Args) > 1 || len(c.Kwargs) > 0 {
			return &OpaqueV{Base{c.At}, "random.Random(...)"}
		}
		var seed Value = &NoneV{}
		if len(c.Args) == 1 {
			seed = c.Args[0]
		}
		m, ok := seededMT(seed)
		if !ok {
			return &OpaqueV{Base{c.At}, "random.Random(...)"}
		}
		return randomInstance(m, c.At)
	}), true
}

// seededMT returns a generator seeded as random.seed(seed) seeds it, for
// an int or bool seed (false for seeds tilels does not reproduce).
func seededMT(seed Value) (*mt19937, bool) {
	var n int64
	switch s := seed.(type) {
	case *IntV:
		n = s.V
	case *BoolV:
		if s.V {
			n = 1
		}
	default:
		return nil, false
	}
	// abs(seed) as little-endian 32-bit words, at least one.
	u := uint64(n)
	if n < 0 {
		u = uint64(-n) // math.MinInt64 wraps to itself: its magnitude
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	m := &mt19937{}
	m.initByArray(key)
	return m, true
}

// randomInstance is a random.Random object: a namespace whose methods
// share m.
func randomInstance(m *mt19937, span source.Span) *ModuleV {
	return &ModuleV{Base: Base{span}, Path: "random.Random(...)", Name: "Random", Attr: func(ev *Evaluator, name string, span source.Span) (Value, bool) {
		switch name {
		case "random":
			return Method("random", func(ev *Evaluator, c *Call) Value {
				if len(c.Args) > 0 || len(c.Kwargs) > 0 {
					return ev.PyErrorf(c.At, "random() takes no arguments")
				}
				return &FloatV{Base{c.At}, m.random()}
			}), true
		case "uniform":
			return Method("uniform", func(ev *Evaluator, c *Call) Value {
				a, b, bad := floatPair(ev, c, "uniform")
				if bad != nil {
					return bad
				}
				return &FloatV{Base{c.At}, a + (b-a)*m.random()}
			}), true
		case "getrandbits":
			return Method("getrandbits", func(ev *Evaluator, c *Call) Value {
				if len(c.Args) != 1 || len(c.Kwargs) > 0 {
					return ev.PyErrorf(c.At, "getrandbits() takes exactly one argument")
				}
				k, ok := c.Args[0].(*IntV)
				if !ok {
					return opaqueOrErr(ev, c.Args[0], c.At, "getrandbits")
				}
				if k.V < 0 {
					return ev.PyErrorf(c.At, "ValueError: number of bits must be non-negative")
				}
				if k.V > 63 {
					return &OpaqueV{Base{c.At}, "random.Random(...).getrandbits(...)"}
				}
				return &IntV{Base{c.At}, int64(m.getrandbits(uint(k.V)))}
			}), true
		case "randrange", "randint":
			return Method(name, func(ev *Evaluator, c *Call) Value {
				return m.randrange(ev, c, name)
			}), true
		case "choice":
			return Method("choice", func(ev *Evaluator, c *Call) Value {
				if len(c.Args) != 1 || len(c.Kwargs) > 0 {
					return ev.PyErrorf(c.At, "choice() takes exactly one argument")
				}
				elts, ok := ev.Iterate(c.Args[0], c.At)
				if !ok || IsErr(c.Args[0]) {
					return opaqueOrErr(ev, c.Args[0], c.At, "choice")
				}
				switch c.Args[0].(type) {
				case *ListV, *TupleV, *StrV, *RangeV:
				default:
					return &OpaqueV{Base{c.At}, "random.Random(...).choice(...)"}
				}
				if len(elts) == 0 {
					return ev.PyErrorf(c.At, "IndexError: Cannot choose from an empty sequence")
				}
				return elts[m.randbelow(uint64(len(elts)))]
			}), true
		}
		return nil, false
	}}
}

// opaqueOrErr is the result of a random method given a value it cannot
// use: the value itself when it is already an error, else opaque.
func opaqueOrErr(ev *Evaluator, v Value, span source.Span, fname string) Value {
	if IsErr(v) {
		return v
	}
	return &OpaqueV{Base{span}, "random.Random(...)." + fname + "(...)"}
}

// floatPair reads the two number arguments of uniform(a, b).
func floatPair(ev *Evaluator, c *Call, fname string) (float64, float64, Value) {
	args := append([]Value(nil), c.Args...)
	for _, k := range c.Kwargs {
		switch {
		case k.Name == "a" && len(args) == 0, k.Name == "b" && len(args) == 1:
			args = append(args, k.V)
		default:
			return 0, 0, ev.PyErrorf(k.At, "%s() got an unexpected keyword argument '%s'", fname, k.Name)
		}
	}
	if len(args) != 2 {
		return 0, 0, ev.PyErrorf(c.At, "%s() takes 2 arguments (%d given)", fname, len(args))
	}
	var out [2]float64
	for i, a := range args {
		switch x := a.(type) {
		case *IntV:
			out[i] = float64(x.V)
		case *FloatV:
			out[i] = x.V
		case *BoolV:
			if x.V {
				out[i] = 1
			}
		default:
			return 0, 0, opaqueOrErr(ev, a, c.At, fname)
		}
	}
	return out[0], out[1], nil
}

// randrange is randrange(start, stop=None, step=1) and randint(a, b) (=
// randrange(a, b+1)) on ints, as random.py computes them.
func (m *mt19937) randrange(ev *Evaluator, c *Call, fname string) Value {
	if len(c.Kwargs) > 0 {
		return &OpaqueV{Base{c.At}, "random.Random(...)." + fname + "(...)"}
	}
	var ns []int64
	for _, a := range c.Args {
		switch x := a.(type) {
		case *IntV:
			ns = append(ns, x.V)
		case *BoolV:
			n := int64(0)
			if x.V {
				n = 1
			}
			ns = append(ns, n)
		default:
			return opaqueOrErr(ev, a, c.At, fname)
		}
	}
	if fname == "randint" {
		if len(ns) != 2 {
			return ev.PyErrorf(c.At, "randint() takes 2 arguments (%d given)", len(ns))
		}
		ns[1]++
	}
	start, stop, step := int64(0), int64(0), int64(1)
	switch len(ns) {
	case 1:
		stop = ns[0]
	case 2:
		start, stop = ns[0], ns[1]
	case 3:
		start, stop, step = ns[0], ns[1], ns[2]
	default:
		return ev.PyErrorf(c.At, "%s() takes from 1 to 3 arguments (%d given)", fname, len(ns))
	}
	var n int64
	switch {
	case step > 0:
		n = (stop - start + step - 1) / step
	case step < 0:
		n = (stop - start + step + 1) / step
	default:
		return ev.PyErrorf(c.At, "ValueError: zero step for randrange()")
	}
	if n <= 0 {
		return ev.PyErrorf(c.At, "ValueError: empty range for %s()", fname)
	}
	if len(ns) <= 2 || step == 1 {
		return &IntV{Base{c.At}, start + int64(m.randbelow(uint64(n)))}
	}
	return &IntV{Base{c.At}, start + step*int64(m.randbelow(uint64(n)))}
}

// mt19937 is CPython's Mersenne Twister (Modules/_randommodule.c).
type mt19937 struct {
	state [624]uint32
	index int
}

func (m *mt19937) initGenrand(s uint32) {
	m.state[0] = s
	for i := 1; i < 624; i++ {
		m.state[i] = 1812433253*(m.state[i-1]^(m.state[i-1]>>30)) + uint32(i)
	}
	m.index = 624
}

func (m *mt19937) initByArray(key []uint32) {
	m.initGenrand(19650218)
	i, j := 1, 0
	k := len(key)
	if k < 624 {
		k = 624
	}
	for ; k > 0; k-- {
		m.state[i] = (m.state[i] ^ ((m.state[i-1] ^ (m.state[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			m.state[0] = m.state[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		m.state[i] = (m.state[i] ^ ((m.state[i-1] ^ (m.state[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			m.state[0] = m.state[623]
			i = 1
		}
	}
	m.state[0] = 0x80000000
	m.index = 624
}

func (m *mt19937) next() uint32 {
	const upper, lower = 0x80000000, 0x7fffffff
	if m.index >= 624 {
		mag := [2]uint32{0, 0x9908b0df}
		var kk int
		for ; kk < 624-397; kk++ {
			y := m.state[kk]&upper | m.state[kk+1]&lower
			m.state[kk] = m.state[kk+397] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < 623; kk++ {
			y := m.state[kk]&upper | m.state[kk+1]&lower
			m.state[kk] = m.state[kk+(397-624)] ^ (y >> 1) ^ mag[y&1]
		}
		y := m.state[623]&upper | m.state[0]&lower
		m.state[623] = m.state[396] ^ (y >> 1) ^ mag[y&1]
		m.index = 0
	}
	y := m.state[m.index]
	m.index++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// random is random.random(): 53 bits from two outputs.
func (m *mt19937) random() float64 {
	a, b := m.next()>>5, m.next()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// getrandbits returns k (at most 64) random bits, the words filled from
// the least significant as CPython does.
func (m *mt19937) getrandbits(k uint) uint64 {
	if k == 0 {
		return 0
	}
	if k <= 32 {
		return uint64(m.next() >> (32 - k))
	}
	var out uint64
	for shift := uint(0); k > 0; shift += 32 {
		r := m.next()
		if k < 32 {
			r >>= 32 - k
			k = 0
		} else {
			k -= 32
		}
		out |= uint64(r) << shift
	}
	return out
}

// randbelow is random.py's _randbelow_with_getrandbits: a value in [0, n)
// by rejection, n > 0.
func (m *mt19937) randbelow(n uint64) uint64 {
	k := uint(64 - bits.LeadingZeros64(n))
	r := m.getrandbits(k)
	for r >= n {
		r = m.getrandbits(k)
	}
	return r
}
