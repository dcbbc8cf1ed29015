package tirxlib

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// tvm.backend.cuda.iket (0.26 and later; tvm.tirx.cuda.iket as kernels
// import it): IketProfiler, the T.meta_class whose methods annotate a
// kernel for NVIDIA's IKET profiler (mark, range_start/range_end,
// range_push/range_pop, sentinel_token), each a T.cuda.iket.* intrinsic
// (backend/cuda/op.py's cuda_iket_*), which kernels may also call
// directly.
//
// A regular compilation strips them: the tirx pipelines run
// backend/cuda/transforms' LowerIket after SplitHostDevice, and it
// removes every annotation, its payload with it, and the token variables
// (TVM's test_regular_lowering_strips_annotations_and_tokens: no
// `cuda.iket`, no token left, a kernel's CUDA the same with and without
// them). Only IketProfiler.compile, which the host calls to build an
// instrumented executable, keeps them; tilels prints the regular
// compilation. So an annotation emits nothing here, and a token is a
// value of its own (eval.IketTokenV) that range_end takes.
//
// LowerIket still checks the annotations before it strips them, and the
// compilation fails when one is wrong; tilels reports the same errors
// with the pass's texts (checked against the 0.26.0 and 0.27.0.post1
// wheels, testdata/iket.txtar):
//   - an event name is a string literal;
//   - a payload is a scalar of bool, int/uint 8-64, float32 or float64;
//   - range_end's token is a RangeToken loaded from a token variable;
//   - one name is one kind of event (mark, range, push_pop), always with a
//     payload of one type or always without;
//   - every range_end a range's token may reach (through its variable, in
//     any order) has the same payload presence and type, and they match
//     the range_start's.
//
// The checks that need the whole kernel (the tokens a variable holds)
// run once its body is evaluated. A vector payload (the pass's "must be
// a scalar value") is not checked: tilels does not model vector dtypes.
// The module's host side (run, profile, the result classes) stays opaque.

const iketPath = "tvm.backend.cuda.iket"

func iketAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if name != "IketProfiler" {
		return nil, false
	}
	return eval.Builtin("IketProfiler", func(ev *eval.Evaluator, c *eval.Call) eval.Value {
		if !ev.CheckArgs(c, "IketProfiler", 0) {
			return eval.Poison(c.At)
		}
		return &iketProfilerV{Base: eval.Base{At: c.At}}
	}), true
}

// iketProfilerV is an IketProfiler instance.
type iketProfilerV struct{ eval.Base }

func (*iketProfilerV) TypeName() string { return "IketProfiler" }

// iketOp is one annotation: its parameters (after self), how many are
// required, and whether it returns a token.
type iketOp struct {
	params []string
	min    int
	token  bool
}

var iketOps = map[string]iketOp{
	"mark":           {[]string{"name", "payload"}, 1, false},
	"range_start":    {[]string{"name", "payload"}, 1, true},
	"range_end":      {[]string{"token", "payload"}, 1, false},
	"range_push":     {[]string{"name", "payload"}, 1, false},
	"range_pop":      {nil, 0, false},
	"sentinel_token": {[]string{"name"}, 1, true},
}

// LibAttr implements eval.AttrValue.
func (p *iketProfilerV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	op, ok := iketOps[name]
	if !ok {
		return nil
	}
	full := "IketProfiler." + name
	return eval.Method(full, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
		return iketCall(ev, c, name, full, op)
	})
}

// strippedIntrinsic is eval.Hooks.StrippedIntrinsic: T.cuda.iket.<name>
// (tvm.backend.cuda.op spells it cuda.iket_<name>).
func strippedIntrinsic(ev *eval.Evaluator, path string, c *eval.Call) (eval.Value, bool) {
	name, ok := strings.CutPrefix(path, "cuda.iket.")
	if !ok {
		name, ok = strings.CutPrefix(path, "cuda.iket_")
	}
	op, known := iketOps[name]
	if !ok || !known {
		return nil, false // (official_event is the instrumented compilation's own)
	}
	return iketCall(ev, c, name, "T.cuda.iket."+name, op), true
}

// iketCall is one annotation as the regular compilation keeps it: its
// arguments' errors, the pass's checks, and a token where it returns one.
func iketCall(ev *eval.Evaluator, c *eval.Call, name, full string, op iketOp) eval.Value {
	if !ev.RequireKernel(c, full+"()") || !ev.CheckArgs(c, name, op.min, op.params...) {
		return eval.Poison(c.At)
	}
	for _, a := range c.Args {
		if eval.IsErr(a) {
			return a
		}
	}
	for _, k := range c.Kwargs {
		if eval.IsErr(k.V) {
			return k.V
		}
	}
	st := iketStateOf(ev)
	site := iketSite{op: name, span: c.At}
	if len(op.params) > 0 {
		first := c.Arg(0, op.params[0])
		if name == "range_end" {
			tok, ok := first.(*eval.IketTokenV)
			if !ok {
				return iketTokenError(ev, first, c.ArgSpan(0, "token"))
			}
			site.cell = tok.Cell
		} else if s, ok := first.(*eval.StrV); ok {
			site.name = s.V
		} else {
			return ev.Errorf(c.ArgSpan(0, "name"), eval.CodeType, "tirx.cuda.iket_%s requires a string-literal event name", name)
		}
	}
	if len(op.params) > 1 {
		if p := c.Arg(1, "payload"); p != nil && !eval.IsNoneV(p) {
			t, ok := iketPayloadType(ev, p, c.ArgSpan(1, "payload"))
			if !ok {
				return eval.Poison(c.At)
			}
			site.payload, site.ptype = true, t
		}
	}
	if !st.declare(ev, site) {
		return eval.Poison(c.At)
	}
	if name == "range_end" {
		st.ends = append(st.ends, site)
	}
	if op.token {
		ev.NoteStripped()
		decl := site.name
		if name == "sentinel_token" {
			decl = "" // (a sentinel declares nothing)
		}
		return &eval.IketTokenV{Base: eval.Base{At: c.At}, Cell: &eval.TokenCell{Names: []string{decl}}}
	}
	return ev.Stripped(full, c.At)
}

// iketTokenError is range_end's error for an argument that is not a
// token: the pass's TypeError for a value that is not a uint32, its
// ValueError for a uint32 that is not a token variable's.
func iketTokenError(ev *eval.Evaluator, v eval.Value, at source.Span) eval.Value {
	var t ir.DataType
	switch x := v.(type) {
	case *eval.IntV:
		t = ir.Int32
	case *eval.ExprV:
		t = eval.ExprType(x.E)
	}
	if t != ir.UInt32 {
		return ev.Errorf(at, eval.CodeType, "IKET RangeToken must have dtype uint32")
	}
	return ev.Errorf(at, eval.CodeType, "range_end requires a directly loaded RangeToken")
}

// iketPayloadType is the schema name of a payload's type (the pass's:
// bool is UI8), else the pass's TypeError.
func iketPayloadType(ev *eval.Evaluator, v eval.Value, at source.Span) (string, bool) {
	var t ir.DataType
	switch x := v.(type) {
	case *eval.BoolV:
		t = ir.DataType{Code: ir.Bool, Bits: 1}
	case *eval.IntV:
		t = ir.Int32
		if x.V != int64(int32(x.V)) {
			t = ir.Int64
		}
	case *eval.FloatV:
		t = ir.Float32
	case *eval.BufferV:
		ev.Errorf(at, eval.CodeType, "IKET payload must be a scalar numeric value, but got %s.data", x.B.Name)
		return "", false
	case *eval.ExprV:
		t = eval.ExprType(x.E)
		if c, ok := x.E.(*ir.IntImm); ok && t == ir.Int64 && c.Value == int64(int32(c.Value)) {
			t = ir.Int32 // (NarrowDataType(32), before LowerIket)
		}
		if t.Code == ir.Handle {
			ev.Errorf(at, eval.CodeType, "IKET payload must be a scalar numeric value, but got %s", eval.ExprString(x.E))
			return "", false
		}
	default:
		ev.Errorf(at, eval.CodeType, "IKET payload must be a scalar numeric value, but got %s", eval.Describe(v))
		return "", false
	}
	switch {
	case t.Code == ir.Bool:
		return "UI8", true
	case (t.Code == ir.Int || t.Code == ir.UInt) && (t.Bits == 8 || t.Bits == 16 || t.Bits == 32 || t.Bits == 64):
		if t.Code == ir.UInt {
			return fmt.Sprintf("UI%d", t.Bits), true
		}
		return fmt.Sprintf("I%d", t.Bits), true
	case t.Code == ir.Float && (t.Bits == 32 || t.Bits == 64):
		return fmt.Sprintf("FP%d", t.Bits), true
	}
	ev.Errorf(at, eval.CodeType, "IKET payload supports only bool, int/uint 8/16/32/64, float32, and float64; got %s", t)
	return "", false
}

// iketSite is one annotation of a kernel.
type iketSite struct {
	op   string
	name string          // the event's name (not range_end's)
	cell *eval.TokenCell // range_end's token
	// payload: the site passes one, of type ptype (its schema name)
	payload bool
	ptype   string
	span    source.Span
}

// iketDecl is what a kernel's sites say of one event name.
type iketDecl struct {
	kind    string // "mark", "range", "push_pop"
	payload bool
	ptype   string
	// the range_end sites': ended once one is checked
	ended, endPayload bool
	endType           string
	endAt             source.Span
}

// iketState is a kernel's annotations: its declarations by name and its
// range_end sites, checked once the body is evaluated (check).
type iketState struct {
	decls map[string]*iketDecl
	order []string // the declared names, in the order met
	ends  []iketSite
}

func iketStateOf(ev *eval.Evaluator) *iketState {
	var st *iketState
	return ev.Kern.Lib("iket", func() (any, func()) {
		st = &iketState{decls: map[string]*iketDecl{}}
		return st, func() { st.check(ev) }
	}).(*iketState)
}

var iketKinds = map[string]string{"mark": "mark", "range_start": "range", "range_push": "push_pop"}

// declare records a mark, range_start or range_push site under its name:
// false (reported) when the name's earlier sites disagree with it.
func (st *iketState) declare(ev *eval.Evaluator, s iketSite) bool {
	kind, ok := iketKinds[s.op]
	if !ok {
		return true
	}
	d := st.decls[s.name]
	if d == nil {
		st.decls[s.name] = &iketDecl{kind: kind, payload: s.payload, ptype: s.ptype}
		st.order = append(st.order, s.name)
		return true
	}
	switch {
	case d.kind != kind:
		ev.Errorf(s.span, eval.CodeType, "IKET declaration %s changes event kind from %s to %s", s.name, d.kind, kind)
	case d.payload != s.payload:
		ev.Errorf(s.span, eval.CodeType, "IKET declaration %s changes payload presence between sites", s.name)
	case d.ptype != s.ptype:
		ev.Errorf(s.span, eval.CodeType, "IKET declaration %s changes payload type from %s to %s between sites", s.name, d.ptype, s.ptype)
	default:
		return true
	}
	return false
}

// check runs the checks of the range_end sites, which a token variable's
// later stores reach too: every range a site's token may hold ends with
// one payload presence and type at all its sites, and they match its
// range_start's.
func (st *iketState) check(ev *eval.Evaluator) {
	for _, s := range st.ends {
		for _, name := range s.cell.Root().Names {
			d := st.decls[name]
			if d == nil {
				continue // a sentinel
			}
			switch {
			case !d.ended:
				d.ended, d.endPayload, d.endType, d.endAt = true, s.payload, s.ptype, s.span
			case d.endPayload != s.payload:
				ev.Errorf(s.span, eval.CodeType, "range_end for %s changes payload presence between sites", name)
			case d.endType != s.ptype:
				ev.Errorf(s.span, eval.CodeType, "range_end for %s changes payload type from %s to %s between sites", name, d.endType, s.ptype)
			}
		}
	}
	for _, name := range st.order {
		d := st.decls[name]
		if d.kind != "range" || !d.ended {
			continue
		}
		switch {
		case d.payload != d.endPayload:
			ev.Errorf(d.endAt, eval.CodeType, "IKET token range %s must use payloads at both range_start and range_end, or at neither endpoint", name)
		case d.ptype != d.endType:
			ev.Errorf(d.endAt, eval.CodeType, "IKET token range %s changes payload type from %s at range_start to %s at range_end", name, d.ptype, d.endType)
		}
	}
}
