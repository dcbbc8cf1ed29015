package eval

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// ctrl is how a statement ended.
type ctrl uint8

const (
	ctrlNone ctrl = iota
	ctrlReturn
	ctrlBreak
	ctrlContinue
	ctrlRaise // a Python exception (raise, failed assert) or a halted budget
)

func (ev *Evaluator) execBlock(fr *frame, ss []syntax.Stmt) ctrl {
	for _, s := range ss {
		if ev.Halted {
			return ctrlRaise
		}
		if c := ev.execStmt(fr, s); c != ctrlNone {
			return c
		}
	}
	return ctrlNone
}

// inKernelTIR reports whether fr's statements build kernel IR.
func (ev *Evaluator) inKernelTIR(fr *frame) bool { return fr.tir && ev.Emit != nil }

func (ev *Evaluator) EmitStmt(s ir.Stmt) {
	if ev.Emit != nil && ev.countIR(s) {
		*ev.Emit = append(*ev.Emit, s)
	}
}

// execStmt executes s; in a kernel's body, a statement the evaluation
// left out (an eval/unresolved warning while executing it, not while
// executing a statement inside it, or a value an earlier warning
// poisoned that it needed: flash_attention_backward.py's stores through
// a layout built on runtime strides) that may access memory is marked in
// the IR (ir.Comment.LeftOut).
func (ev *Evaluator) execStmt(fr *frame, s syntax.Stmt) ctrl {
	if !ev.inKernelTIR(fr) || ev.Kern == nil {
		return ev.execStmtIn(fr, s)
	}
	k := ev.Kern
	count := func() int { return ev.unresolved + len(k.ignored) + ev.poisoned }
	saved := ev.nestedWarnings
	ev.nestedWarnings = 0
	before := count()
	c := ev.execStmtIn(fr, s)
	all := count() - before
	// its own: not those of the statements inside it (a branch whose
	// profiler call was left out is not left out itself)
	own := all - ev.nestedWarnings
	ev.nestedWarnings = saved + all
	if own > 0 && ev.touchesMemory(fr, s) {
		ev.EmitStmt(&ir.Comment{Text: Clip(ev.Text(s.Span()), 60), Span: s.Span(), LeftOut: true})
	}
	return c
}

// touchesMemory reports whether s may access memory (what a left-out
// statement's mark is for): an element of a buffer outside registers, a
// tile call (Tx), or an instruction that moves data (a T.ptx load, store,
// copy, reduction or matrix move, or one whose name is computed); a
// profiler's hook or a register move is not.
func (ev *Evaluator) touchesMemory(fr *frame, s syntax.Stmt) bool {
	found := false
	syntax.Inspect(s, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.Subscript:
			if x, ok := n.X.(*syntax.Name); ok {
				if v, ok := fr.env.lookup(x.Id); ok {
					if b, buf := v.(*BufferV); buf && b.B != nil && b.B.Scope != "local" {
						found = true
					}
					if o, ok := v.(*OpaqueV); ok && strings.HasPrefix(o.Path, DynShapePrefix) {
						found = true // a buffer tilels could not build (dynamic_shape.go)
					}
				}
			}
			if t := ev.Text(n.X.Span()); t == "T.ptx" {
				found = true // T.ptx[name](...): a computed instruction
			}
		case *syntax.Call:
			t := ev.Text(n.Func.Span())
			switch {
			case strings.HasPrefix(t, "Tx."):
				// a tile op; not a scope's index or constructor
				last := t[strings.LastIndexByte(t, '.')+1:]
				switch {
				case strings.HasSuffix(last, "_id"):
				case last == "warpgroup", last == "warp", last == "thread", last == "cta", last == "cluster", last == "filter":
				default:
					found = true
				}
			case strings.HasPrefix(t, "T.ptx."):
				for _, w := range []string{".ld", ".st", "cp", "ldmatrix", "stmatrix", ".red", ".atom", "bulk", "tensor", "tma"} {
					if strings.Contains(t, w) {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func (ev *Evaluator) execStmtIn(fr *frame, s syntax.Stmt) ctrl {
	if !ev.step(s.Span()) {
		return ctrlRaise
	}
	if ev.badSyntax && hasSyntaxError(s) {
		return ctrlNone // the parser reported it; evaluating it would only add noise
	}
	switch s := s.(type) {
	case *syntax.ExprStmt:
		if ev.execExprStmt(fr, s) {
			return ctrlRaise
		}
	case *syntax.Assign:
		ev.execAssign(fr, s)
	case *syntax.AugAssign:
		ev.execAugAssign(fr, s)
	case *syntax.AnnAssign:
		ev.execAnnAssign(fr, s)
	case *syntax.FunctionDef:
		ev.execFunctionDef(fr, s)
	case *syntax.ClassDef:
		ev.execClassDef(fr, s) // class.go
	case *syntax.Return:
		if s.Value != nil {
			fr.ret = ev.expr(fr, s.Value)
		} else {
			fr.ret = &NoneV{Base{s.Loc}}
		}
		return ctrlReturn
	case *syntax.Delete:
		for _, t := range s.Targets {
			ev.execDelete(fr, t)
		}
	case *syntax.If:
		return ev.execIf(fr, s)
	case *syntax.For:
		return ev.execFor(fr, s)
	case *syntax.While:
		return ev.execWhile(fr, s)
	case *syntax.With:
		var oldScopes []*oldScopeV // the older dialect's scope blocks (dialect_old.go)
		for _, it := range s.Items {
			v := ev.expr(fr, it.Context)
			if sc, ok := v.(*oldScopeV); ok {
				oldScopes = append(oldScopes, sc)
			}
			if it.Vars != nil {
				ev.assign(fr, it.Vars, &OpaqueV{Base{it.Context.Span()}, "with " + Repr(v)}, it.Context.Span(), false)
			}
		}
		if len(oldScopes) > 0 {
			return ev.execOldScope(fr, oldScopes, s.Body, s.Loc)
		}
		if composeOpBlock(s) { // lib_trn_compose.go
			ev.ComposeOp++
			defer func() { ev.ComposeOp-- }()
		}
		return ev.execBlock(fr, s.Body)
	case *syntax.Try:
		if len(s.Handlers) > 0 {
			ev.tryDepth++
		}
		c := ev.execBlock(fr, s.Body)
		if len(s.Handlers) > 0 {
			ev.tryDepth--
		}
		if c == ctrlRaise && !ev.Halted && len(s.Handlers) > 0 {
			h := s.Handlers[0]
			if h.Name != nil {
				fr.env.set(h.Name.Id, &OpaqueV{Base{h.Name.Loc}, "exception"})
			}
			c = ev.execBlock(fr, h.Body)
		} else if c == ctrlNone {
			c = ev.execBlock(fr, s.Else)
		}
		if fc := ev.execBlock(fr, s.Finally); fc != ctrlNone {
			return fc
		}
		return c
	case *syntax.Raise:
		if s.Exc != nil {
			ev.expr(fr, s.Exc)
		}
		return ctrlRaise
	case *syntax.Assert:
		ev.execAssert(fr, s)
	case *syntax.Import:
		ev.execImport(fr, s)
	case *syntax.ImportFrom:
		ev.execImportFrom(fr, s)
	case *syntax.Global:
		if fr.env.globals == nil {
			fr.env.globals = map[string]bool{}
		}
		for _, n := range s.Names {
			fr.env.globals[n.Id] = true
		}
	case *syntax.Nonlocal:
		// Closures share scopes by pointer; writing through to the
		// enclosing scope that defines the name is what nonlocal needs.
		for _, n := range s.Names {
			for sc := fr.env.parent; sc != nil && sc.parent != nil; sc = sc.parent {
				if v, ok := sc.vars[n.Id]; ok {
					fr.env.vars[n.Id] = v
					break
				}
			}
		}
	case *syntax.Break:
		ev.lastCtrl = s.Loc
		return ctrlBreak
	case *syntax.Continue:
		ev.lastCtrl = s.Loc
		return ctrlContinue
	case *syntax.Pass, *syntax.Match, *syntax.TypeAlias, *syntax.BadStmt:
	}
	return ctrlNone
}

// execExprStmt evaluates an expression statement; it reports whether the
// expression raised (pytest.skip and its kin: pytest.go).
func (ev *Evaluator) execExprStmt(fr *frame, s *syntax.ExprStmt) bool {
	v := ev.expr(fr, s.X)
	if _, raised := v.(*RaisedV); raised {
		return true
	}
	if ev.Emit == nil {
		return false
	}
	switch v := v.(type) {
	case *ExprV:
		if _, isCall := v.E.(*ir.Call); isCall {
			ev.EmitStmt(&ir.Evaluate{X: v.E, Span: s.Loc})
		}
	case *OpaqueV:
		ev.IgnoreStatement(s.X.Span())
	case *UnboundV:
		ev.useUnbound(v.Origin)
	}
	return false
}

// IgnoreStatement records a statement of the kernel at span whose call
// tilels does not model (an expression statement, T.evaluate of an opaque
// value): one warning names the first and counts the others.
func (ev *Evaluator) IgnoreStatement(span source.Span) {
	if ev.Kern != nil {
		ev.Kern.ignored = append(ev.Kern.ignored, span)
	}
}

func Clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// nameHint1 is a nameHint with room for one name.
type nameHint1 struct {
	h    nameHint
	name [1]string
	span [1]source.Span
}

// hintFor prepares the name hint for `targets = value`.
func (ev *Evaluator) hintFor(targets []syntax.Expr, value syntax.Expr) *nameHint {
	c, ok := value.(*syntax.Call)
	if !ok || len(targets) == 0 {
		return nil
	}
	// One allocation for the hint and a single name (the common case).
	b := &nameHint1{}
	h := &b.h
	h.call = c
	switch t := targets[0].(type) {
	case *syntax.Name:
		b.name[0], b.span[0] = t.Id, t.Loc
		h.names, h.spans = b.name[:], b.span[:]
	case *syntax.Attribute:
		// `self.idx = T.local_scalar(...)`: the field names the buffer
		b.name[0], b.span[0] = t.Attr.Id, t.Attr.Loc
		h.names, h.spans = b.name[:], b.span[:]
	case *syntax.Tuple:
		for _, e := range t.Elts {
			if n, ok := e.(*syntax.Name); ok {
				h.names = append(h.names, n.Id)
				h.spans = append(h.spans, n.Loc)
			} else {
				return nil
			}
		}
	case *syntax.List:
		for _, e := range t.Elts {
			if n, ok := e.(*syntax.Name); ok {
				h.names = append(h.names, n.Id)
				h.spans = append(h.spans, n.Loc)
			} else {
				return nil
			}
		}
	default:
		return nil
	}
	return h
}

func (ev *Evaluator) execAssign(fr *frame, s *syntax.Assign) {
	saved := ev.hint
	ev.hint = ev.hintFor(s.Targets, s.Value)
	v := ev.expr(fr, s.Value)
	ev.hint = saved
	for _, t := range s.Targets {
		ev.assign(fr, t, v, s.Value.Span(), true)
	}
}

// assign binds v to target. letOK allows a device expression assigned to a
// name inside a kernel body to become an ir.Let.
// vspan is the span of the assigned value's expression (for errors).
func (ev *Evaluator) assign(fr *frame, target syntax.Expr, v Value, vspan source.Span, letOK bool) {
	switch t := target.(type) {
	case *syntax.Name:
		ev.assignName(fr, t, v, vspan, letOK)
	case *syntax.Tuple:
		ev.assignUnpack(fr, t.Elts, v, vspan)
	case *syntax.List:
		ev.assignUnpack(fr, t.Elts, v, vspan)
	case *syntax.Subscript:
		obj := ev.expr(fr, t.X)
		idx, isTuple := ev.indexValues(fr, t.Index)
		ev.setItem(fr, obj, idx, isTuple, v, vspan, t)
	case *syntax.Attribute:
		// stores on user objects are modelled (class.go); on others, ignored
		obj := ev.expr(fr, t.X)
		if ev.inKernelTIR(fr) && ev.StoreScalar(ev.heldAttr(obj, t.Attr.Id, t.Loc), v, t.Loc, vspan) {
			return // `self.idx = x` on a T.local_scalar field (parser.py visit_assign)
		}
		ev.setAttr(obj, t.Attr.Id, v, t.Loc)
	case *syntax.Starred:
		ev.Errorf(t.Loc, CodeType, "starred assignment target must be in a list or tuple")
	case *syntax.BadExpr:
	default:
		ev.Errorf(target.Span(), CodeType, "cannot assign to %s", Clip(ev.Text(target.Span()), 40))
	}
}

func (ev *Evaluator) assignName(fr *frame, t *syntax.Name, v Value, vspan source.Span, letOK bool) {
	if ev.inKernelTIR(fr) {
		if old, ok := fr.env.lookup(t.Id); ok {
			if tok, ok := v.(*IketTokenV); ok {
				if held, ok := old.(*IketTokenV); ok {
					// the variable holds every token stored in it (stripped.go)
					held.Cell.Names = append(held.Cell.Names, tok.Cell.Names...)
					tok.Cell.Names = nil
					tok.Cell.merged = held.Cell
					return
				}
			}
			// `buf = x` on a one-element 1-D buffer, or on a name holding
			// its element (a T.local_scalar), stores buf[0] = x (parser.py
			// visit_assign).
			if ev.StoreScalar(old, v, t.Loc, vspan) {
				return
			}
			if ov, ok := old.(*ExprV); ok {
				if vr, ok := ov.E.(*ir.Var); ok && ev.Kern.Mutable[vr] {
					e, ok := ev.ToIR(v, vr.Type)
					if !ok {
						if !IsErr(v) {
							ev.Errorf(vspan, CodeType, "cannot assign %s to mutable scalar `%s`", v.TypeName(), t.Id)
						}
						return
					}
					ev.EmitStmt(&ir.Assign{Var: vr, Value: e, Span: source.Join(t.Loc, vspan)})
					return
				}
			}
		}
		// TVMScript (parser.py bind_assign_value): `x = <PrimExpr>` in a
		// kernel body declares a mutable local scalar; later `x = ...`
		// assigns it. Fresh variables and T.meta_var values are only named.
		// A pointer (T.reinterpret to a PointerType) is bound immutably
		// (T.Bind), so it can be a decl_buffer's data.
		if ex, ok := v.(*ExprV); ok && letOK && !ex.Inline && isPointerExpr(ex.E) {
			vr := &ir.Var{Name: t.Id, Type: ir.HandleT, Span: t.Loc}
			ev.EmitStmt(&ir.Let{Var: vr, Value: ex.E, Span: source.Join(t.Loc, vspan)})
			ev.notePtrLet(vr, ex.E)
			v = &ExprV{Base: Base{t.Loc}, E: vr}
		} else if ex, ok := v.(*ExprV); ok && letOK && !ex.Inline && !ex.Fresh && needsLet(ex.E) {
			if typ := ExprType(ex.E); typ.IsValid() && typ != ir.HandleT {
				vr := &ir.Var{Name: t.Id, Type: typ, Span: t.Loc}
				ev.Kern.Mutable[vr] = true
				ev.EmitStmt(&ir.Let{Var: vr, Value: ex.E, Mutable: true, Span: source.Join(t.Loc, vspan)})
				v = &ExprV{Base: Base{t.Loc}, E: vr}
			}
		} else if ok && ex.Fresh {
			v = &ExprV{Base: ex.Base, E: ex.E} // named now: a later alias copies it
		}
	}
	fr.env.set(t.Id, v)
}

// StoreScalar emits buf[0] = v when old, the value an assignment target
// holds, is a one-element buffer or its element (scalarBuffer), as
// TVMScript does for names and attributes; false when it is not one or v
// is not a scalar.
func (ev *Evaluator) StoreScalar(old, v Value, target, vspan source.Span) bool {
	b := scalarBuffer(old)
	if b == nil {
		// A mutable scalar (`x: T.float16`, a one-element local buffer in
		// TVM) held by an attribute is assigned.
		if ov, ok := old.(*ExprV); ok && ev.Kern != nil {
			if vr, ok := ov.E.(*ir.Var); ok && ev.Kern.Mutable[vr] {
				if e, ok := ev.ToIR(v, vr.Type); ok {
					ev.EmitStmt(&ir.Assign{Var: vr, Value: e, Span: source.Join(target, vspan)})
					return true
				}
			}
		}
		return false
	}
	e, ok := ev.ToIR(v, b.Dtype)
	if !ok {
		return false
	}
	if typ := ExprType(e); typ.IsValid() && typ != b.Dtype {
		e = &ir.Cast{To: b.Dtype, X: e, Span: vspan}
	}
	ev.EmitStmt(&ir.Store{Buf: b, Indices: []ir.Expr{&ir.IntImm{Value: 0, Type: ir.Int32, Span: target}}, Value: e, Span: source.Join(target, vspan)})
	return true
}

// isPointerExpr reports whether e is a pointer value: T.reinterpret(PointerType(...), x),
// T.ptr_byte_offset(x, n, dtype) or T.handle_add_byte_offset(x, n).
func isPointerExpr(e ir.Expr) bool {
	c, ok := e.(*ir.Call)
	return ok && c.Type == ir.HandleT && (c.Op == "reinterpret" || c.Op == "ptr_byte_offset" || c.Op == "handle_add_byte_offset")
}

// needsLet reports whether binding e to a name in a kernel body introduces
// an ir.Let: variables and constants are bound directly (aliases).
func needsLet(e ir.Expr) bool {
	switch e.(type) {
	case *ir.StringImm, *ir.BufferData, *ir.AddressOf, *ir.Region:
		return false
	}
	return true
}

func (ev *Evaluator) assignUnpack(fr *frame, targets []syntax.Expr, v Value, span source.Span) {
	if IsErr(v) {
		for _, t := range targets {
			if st, ok := t.(*syntax.Starred); ok {
				t = st.X
			}
			ev.assign(fr, t, v, span, false)
		}
		return
	}
	elts, ok := ev.Iterate(v, span)
	if !ok {
		ev.PyErrorf(span, "cannot unpack non-iterable %s object", v.TypeName())
		for _, t := range targets {
			if st, ok := t.(*syntax.Starred); ok {
				t = st.X
			}
			ev.assign(fr, t, Poison(span), span, false)
		}
		return
	}
	star := -1
	for i, t := range targets {
		if _, ok := t.(*syntax.Starred); ok {
			star = i
		}
	}
	if star < 0 {
		if len(elts) != len(targets) {
			if len(elts) > len(targets) {
				ev.PyErrorf(span, "too many values to unpack (expected %d)", len(targets))
			} else {
				ev.PyErrorf(span, "not enough values to unpack (expected %d, got %d)", len(targets), len(elts))
			}
			for _, t := range targets {
				ev.assign(fr, t, Poison(span), span, false)
			}
			return
		}
		for i, t := range targets {
			ev.assign(fr, t, elts[i], span, true)
		}
		return
	}
	after := len(targets) - star - 1
	if len(elts) < star+after {
		ev.PyErrorf(span, "not enough values to unpack (expected at least %d, got %d)", star+after, len(elts))
		return
	}
	for i := 0; i < star; i++ {
		ev.assign(fr, targets[i], elts[i], span, false)
	}
	mid := ev.mkList(span, append([]Value(nil), elts[star:len(elts)-after]...), false)
	ev.assign(fr, targets[star].(*syntax.Starred).X, mid, span, false)
	for i := 0; i < after; i++ {
		ev.assign(fr, targets[star+1+i], elts[len(elts)-after+i], span, false)
	}
}

func (ev *Evaluator) execDelete(fr *frame, t syntax.Expr) {
	switch t := t.(type) {
	case *syntax.Name:
		delete(fr.env.vars, t.Id)
	case *syntax.Subscript:
		obj := ev.expr(fr, t.X)
		idx, isTuple := ev.indexValues(fr, t.Index)
		switch o := obj.(type) {
		case *DictV:
			// Deleting rebuilds the dict's index.
			k := keyOf(idx, isTuple, t.Loc)
			if ev.work(t.Loc, len(o.Keys), elemsPerStep) && ev.hashWork(t.Loc, k) {
				o.del(k)
			}
		case *ListV:
			if !ev.work(t.Loc, len(o.Elts), elemsPerStep) {
				return
			}
			if len(idx) == 1 {
				if n, ok := idx[0].(*IntV); ok {
					if i, ok := normIndex(n.V, len(o.Elts)); ok {
						o.Elts = append(o.Elts[:i:i], o.Elts[i+1:]...)
					}
				}
			}
		}
	case *syntax.Tuple:
		for _, e := range t.Elts {
			ev.execDelete(fr, e)
		}
	}
}

func (ev *Evaluator) execAugAssign(fr *frame, s *syntax.AugAssign) {
	switch t := s.Target.(type) {
	case *syntax.Name:
		old := ev.expr(fr, t)
		rhs := ev.expr(fr, s.Value)
		nv := ev.Binop(s.Op, old, rhs, s.Loc, true)
		ev.assignName(fr, t, nv, s.Loc, true)
	case *syntax.Subscript:
		obj := ev.expr(fr, t.X)
		idx, isTuple := ev.indexValues(fr, t.Index)
		old := ev.getItem(fr, obj, idx, isTuple, t)
		rhs := ev.expr(fr, s.Value)
		nv := ev.Binop(s.Op, old, rhs, s.Loc, true)
		ev.setItem(fr, obj, idx, isTuple, nv, s.Loc, t)
	case *syntax.Attribute:
		obj := ev.expr(fr, t.X)
		rhs := ev.expr(fr, s.Value)
		switch obj.(type) {
		case *InstanceV, *ClassV:
			old := ev.GetAttr(obj, t.Attr.Id, t.Attr.Loc, t.Loc)
			nv := ev.Binop(s.Op, old, rhs, s.Loc, true)
			if ev.inKernelTIR(fr) && ev.StoreScalar(old, nv, t.Loc, s.Loc) {
				return
			}
			ev.setAttr(obj, t.Attr.Id, nv, t.Loc)
		}
	default:
		ev.Errorf(s.Target.Span(), CodeType, "illegal expression for augmented assignment")
	}
}

func (ev *Evaluator) execAssert(fr *frame, s *syntax.Assert) {
	v := ev.expr(fr, s.Test)
	if IsErr(v) {
		return
	}
	if _, ok := v.(*ExprV); ok {
		return // a device assertion; not modelled
	}
	if !Truthy(v) {
		msg := "assertion failed"
		if s.Msg != nil {
			if m := ev.expr(fr, s.Msg); !IsErr(m) {
				msg = "assertion failed: " + pyStr(m)
			}
		}
		ev.PyErrorf(s.Test.Span(), "%s", msg)
	}
}

// hasSyntaxError reports whether a simple statement, or the header of a
// compound one, contains a Bad* node.
func hasSyntaxError(s syntax.Stmt) bool {
	var parts []syntax.Node
	switch x := s.(type) {
	case *syntax.If:
		parts = []syntax.Node{x.Test}
	case *syntax.While:
		parts = []syntax.Node{x.Test}
	case *syntax.For:
		parts = []syntax.Node{x.Target, x.Iter}
	case *syntax.With:
		for _, it := range x.Items {
			parts = append(parts, it)
		}
	case *syntax.FunctionDef, *syntax.ClassDef, *syntax.Try, *syntax.Match:
		return false
	default:
		parts = []syntax.Node{s}
	}
	bad := false
	for _, p := range parts {
		if p == nil {
			continue
		}
		syntax.Inspect(p, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.BadExpr, *syntax.BadStmt:
				bad = true
			}
			return !bad
		})
	}
	return bad
}

// skipUnknown handles a Python-level branch or loop whose condition or
// iterable is not concrete: it is skipped; a kernel inside it makes an
// unbound parameter worth reporting.
func (ev *Evaluator) skipUnknown(fr *frame, v Value, span source.Span, s syntax.Stmt, what string) {
	if ev.Kern != nil {
		if u, ok := v.(*UnboundV); ok {
			ev.skippedTileCalls(fr, s, u.Origin.Param)
		}
		ev.havoc(fr, ev.NeedConcrete(v, span, what), s)
		return
	}
	if u, ok := v.(*UnboundV); ok {
		for _, def := range ev.kernelDefsIn(s) {
			ev.noteUnbound(u.Origin, def)
		}
	}
	ev.havoc(fr, v, s)
}

// havoc binds every name a skipped statement could assign to v (an
// unknown value), so later uses see "unknown" rather than "undefined".
func (ev *Evaluator) havoc(fr *frame, v Value, s syntax.Stmt) {
	var target func(e syntax.Expr)
	target = func(e syntax.Expr) {
		switch t := e.(type) {
		case *syntax.Name:
			fr.env.set(t.Id, v)
		case *syntax.Tuple:
			for _, x := range t.Elts {
				target(x)
			}
		case *syntax.List:
			for _, x := range t.Elts {
				target(x)
			}
		case *syntax.Starred:
			target(t.X)
		}
	}
	var stmts func(ss []syntax.Stmt)
	stmts = func(ss []syntax.Stmt) {
		for _, s := range ss {
			switch x := s.(type) {
			case *syntax.Assign:
				for _, t := range x.Targets {
					target(t)
				}
			case *syntax.AugAssign:
				target(x.Target)
			case *syntax.AnnAssign:
				target(x.Target)
			case *syntax.FunctionDef:
				fr.env.set(x.Name.Id, v)
			case *syntax.ClassDef:
				fr.env.set(x.Name.Id, v)
			case *syntax.Import:
				for _, a := range x.Names {
					name := a.Name
					if a.AsName != nil {
						name = a.AsName.Id
					} else if i := strings.IndexByte(name, '.'); i >= 0 {
						name = name[:i]
					}
					fr.env.set(name, v)
				}
			case *syntax.ImportFrom:
				for _, a := range x.Names {
					if a.AsName != nil {
						fr.env.set(a.AsName.Id, v)
					} else if a.Name != "*" {
						fr.env.set(a.Name, v)
					}
				}
			case *syntax.If:
				stmts(x.Body)
				stmts(x.Else)
			case *syntax.For:
				target(x.Target)
				stmts(x.Body)
				stmts(x.Else)
			case *syntax.While:
				stmts(x.Body)
				stmts(x.Else)
			case *syntax.With:
				for _, it := range x.Items {
					if it.Vars != nil {
						target(it.Vars)
					}
				}
				stmts(x.Body)
			case *syntax.Try:
				stmts(x.Body)
				for _, h := range x.Handlers {
					stmts(h.Body)
				}
				stmts(x.Else)
				stmts(x.Finally)
			}
		}
	}
	stmts([]syntax.Stmt{s})
}

func (ev *Evaluator) execIf(fr *frame, s *syntax.If) ctrl {
	cond := ev.expr(fr, s.Test)
	switch c := cond.(type) {
	case *PoisonV:
		ev.skippedTileCalls(fr, s, "")
		return ctrlNone
	case *UnboundV, *OpaqueV:
		ev.skipUnknown(fr, c, s.Test.Span(), s, "this condition")
		return ctrlNone
	case *ExprV:
		if !ev.inKernelTIR(fr) {
			// A comparison of constants folds (`predicate == -1` with
			// predicate = T.int32(0), a pytest parameter of
			// test_codegen_cuda.py): Python branches on its value.
			if v, ok := ir.ConstInt(c.E); ok {
				if v != 0 {
					return ev.execBlock(fr, s.Body)
				}
				return ev.execBlock(fr, s.Else)
			}
			ev.Errorf(s.Test.Span(), CodeType, "cannot branch on device value `%s` in Python code", ExprString(c.E))
			return ctrlNone
		}
		stripped := ev.stripped
		thenB := ev.subBlock(fr, s.Body, s.Loc)
		var elseB *ir.Block
		if len(s.Else) > 0 {
			elseB = ev.subBlock(fr, s.Else, s.Loc)
		}
		if ev.stripped > stripped && emptyBlock(thenB) && emptyBlock(elseB) && pureExpr(c.E) {
			return ctrlNone // only stripped statements in it (stripped.go)
		}
		ev.EmitStmt(&ir.If{Cond: c.E, Then: thenB, Else: elseB, Span: s.Loc})
		return ctrlNone
	}
	if Truthy(cond) {
		return ev.execBlock(fr, s.Body)
	}
	return ev.execBlock(fr, s.Else)
}

// subBlock evaluates ss into a fresh ir.Block. Break and continue inside a
// device block are errors.
func (ev *Evaluator) subBlock(fr *frame, ss []syntax.Stmt, span source.Span) *ir.Block {
	saved := ev.Emit
	var stmts []ir.Stmt
	ev.Emit = &stmts
	c := ev.execBlock(fr, ss)
	ev.Emit = saved
	if c == ctrlBreak || c == ctrlContinue {
		if n := len(ev.loopKinds); n > 0 && ev.loopKinds[n-1] {
			// The innermost loop is a device loop: the break happens at run
			// time, where the evaluator stopped the block.
			if c == ctrlBreak {
				stmts = append(stmts, &ir.Break{Span: ev.lastCtrl})
			} else {
				stmts = append(stmts, &ir.Continue{Span: ev.lastCtrl})
			}
		} else {
			ev.Warnf(ev.lastCtrl, CodeUnresolved, "break and continue of a Python loop inside device control flow cannot be evaluated statically; ignored")
		}
	}
	sp := span
	if len(ss) > 0 {
		sp = source.Join(ss[0].Span(), ss[len(ss)-1].Span())
	}
	return &ir.Block{Stmts: stmts, Span: sp}
}

func (ev *Evaluator) execWhile(fr *frame, s *syntax.While) ctrl {
	saved := ev.curLoop
	defer func() { ev.curLoop = saved }()
	for iter := 0; ; iter++ {
		if iter == 1 {
			ev.curLoop = source.Span{Start: s.Loc.Start, End: s.Test.Span().End}
		}
		cond := ev.expr(fr, s.Test)
		switch c := cond.(type) {
		case *PoisonV:
			if iter == 0 {
				ev.skippedTileCalls(fr, s, "")
			}
			return ctrlNone
		case *UnboundV, *OpaqueV:
			ev.skipUnknown(fr, c, s.Test.Span(), s, "this loop condition")
			return ctrlNone
		case *ExprV:
			if iter > 0 || !ev.inKernelTIR(fr) {
				ev.Errorf(s.Test.Span(), CodeType, "cannot loop on device value `%s` in Python code", ExprString(c.E))
				return ctrlNone
			}
			body := withLoop(ev, true, func() *ir.Block { return ev.subBlock(fr, s.Body, s.Loc) })
			ev.EmitStmt(&ir.While{Cond: c.E, Body: body, Span: s.Loc})
			return ctrlNone
		}
		if !Truthy(cond) {
			return ev.execBlock(fr, s.Else)
		}
		if _, lit := s.Test.(*syntax.Constant); lit && iter == 0 && ev.inKernelTIR(fr) && len(s.Else) == 0 {
			// `while True:` / `while 1:` in TIR code is a device loop left
			// by a device break (parser.py visit_while: T.While(cond)), as
			// in a spin-wait; a loop on a Python variable is still unrolled.
			if e, ok := ev.ToIR(cond, ir.DataType{}); ok {
				body := withLoop(ev, true, func() *ir.Block { return ev.subBlock(fr, s.Body, s.Loc) })
				ev.EmitStmt(&ir.While{Cond: e, Body: body, Span: s.Loc})
				return ctrlNone
			}
		}
		if !ev.step(s.Loc) {
			return ctrlRaise
		}
		switch c := withLoop(ev, false, func() ctrl { return ev.execBlock(fr, s.Body) }); c {
		case ctrlBreak:
			return ctrlNone
		case ctrlReturn, ctrlRaise:
			return c
		}
	}
}

func (ev *Evaluator) execFor(fr *frame, s *syntax.For) ctrl {
	it := ev.expr(fr, s.Iter)
	switch v := it.(type) {
	case *PoisonV:
		ev.skippedTileCalls(fr, s, "")
		ev.assign(fr, s.Target, v, s.Iter.Span(), false)
		return ctrlNone
	case *UnboundV, *OpaqueV:
		ev.skipUnknown(fr, v, s.Iter.Span(), s, "this loop's iterable")
		return ctrlNone
	case *LoopV:
		if !ev.inKernelTIR(fr) {
			ev.Errorf(s.Iter.Span(), CodeType, "%s loops are only allowed in a prim_func body", v.What)
			return ctrlNone
		}
		ev.deviceLoop(fr, s, v)
		return ctrlNone
	case *RangeV:
		if ev.inKernelTIR(fr) {
			ev.deviceLoop(fr, s, rangeLoop(v))
			return ctrlNone
		}
	}
	// A Python loop: unrolled at evaluation time.
	saved := ev.curLoop
	ev.curLoop = source.Span{Start: s.Loc.Start, End: s.Iter.Span().End}
	defer func() { ev.curLoop = saved }()
	next, ok := ev.iterator(it, s.Iter.Span())
	if !ok {
		ev.PyErrorf(s.Iter.Span(), "'%s' object is not iterable", it.TypeName())
		return ctrlNone
	}
	for {
		x, more := next()
		if !more {
			break
		}
		if !ev.step(s.Loc) {
			return ctrlRaise
		}
		ev.assign(fr, s.Target, x, s.Iter.Span(), false)
		switch c := withLoop(ev, false, func() ctrl { return ev.execBlock(fr, s.Body) }); c {
		case ctrlBreak:
			return ctrlNone
		case ctrlReturn, ctrlRaise:
			return c
		}
	}
	return ev.execBlock(fr, s.Else)
}

// threadBinding evaluates `for bx in T.thread_binding(n, thread="blockIdx.x")`:
// the variable is the launch index the tag names, over [0, n) (TVM binds
// the loop to it), so the loop is the index's ir.ScopeID and its body the
// statements after it. The x indices of the grid, the block and the
// cluster (clusterCtaIdx.x: the CTA's rank in its cluster) are modelled;
// the others, a start other than 0 and a runtime extent are not (the
// loop and its body are left out, with the reason).
func (ev *Evaluator) threadBinding(fr *frame, s *syntax.For, lv *LoopV, names []string, spans []source.Span) {
	kinds := map[string]ir.ScopeIDKind{"blockIdx.x": ir.CTAID, "threadIdx.x": ir.ThreadID, "clusterCtaIdx.x": ir.CTAIDInCluster}
	kind, ok := kinds[lv.Thread]
	n, static := ir.ConstInt(lv.Extents[0])
	why := ""
	switch {
	case !ok:
		why = fmt.Sprintf("T.thread_binding to %q (tilels models blockIdx.x, threadIdx.x and clusterCtaIdx.x)", lv.Thread)
	case len(names) != 1 || len(lv.Extents) != 1:
		why = "T.thread_binding with several loop variables"
	case !isZero(lv.Mins[0]):
		why = "T.thread_binding from a start other than 0"
	case !static || n <= 0:
		why = "T.thread_binding over a runtime extent"
	case ev.Kern == nil:
		why = "T.thread_binding outside a kernel"
	}
	if why != "" {
		ev.skipUnknown(fr, &OpaqueV{Base{s.Iter.Span()}, why}, s.Iter.Span(), s, "this loop's iterable")
		return
	}
	// The index declared already (a T.cta_id_in_cluster, or an outer
	// binding loop): the loop names it again, as an inner
	// T.thread_binding of a bound tag does in TVM (gemm_reduce_scatter.py's
	// pipeline methods).
	var v *ir.Var
	for _, st := range ev.Kern.Body {
		if sc, ok := st.(*ir.ScopeID); ok && sc.Kind == kind && len(sc.Vars) >= 1 && len(sc.Extents) == len(sc.Vars) {
			// (its x index: the first of T.cta_id_in_cluster([2, 1])'s)
			if sc.Extents[0] != n {
				ev.skipUnknown(fr, &OpaqueV{Base{s.Iter.Span()}, fmt.Sprintf("T.thread_binding of %s over %d where the kernel's %s has %d", lv.Thread, n, kind, sc.Extents[0])}, s.Iter.Span(), s, "this loop's iterable")
				return
			}
			v = sc.Vars[0]
		}
	}
	switch {
	case v != nil:
	case ev.Emit != &ev.Kern.Body:
		ev.skipUnknown(fr, &OpaqueV{Base{s.Iter.Span()}, "T.thread_binding that declares its index inside a branch or loop"}, s.Iter.Span(), s, "this loop's iterable")
		return
	default:
		v = &ir.Var{Name: names[0], Type: ir.Int32, Span: spans[0]}
		ev.EmitStmt(&ir.ScopeID{Kind: kind, Vars: []*ir.Var{v}, Extents: []int64{n}, Span: s.Iter.Span()})
	}
	fr.env.set(names[0], &ExprV{Base: Base{spans[0]}, E: v, Fresh: true})
	ev.execBlock(fr, s.Body)
}

// deviceLoop emits one ir.For per loop dimension.
func (ev *Evaluator) deviceLoop(fr *frame, s *syntax.For, lv *LoopV) {
	var names []string
	var spans []source.Span
	switch t := s.Target.(type) {
	case *syntax.Name:
		names, spans = []string{t.Id}, []source.Span{t.Loc}
	case *syntax.Tuple:
		for _, e := range t.Elts {
			n, ok := e.(*syntax.Name)
			if !ok {
				ev.Errorf(e.Span(), CodeType, "loop target must be a name")
				return
			}
			names, spans = append(names, n.Id), append(spans, n.Loc)
		}
	default:
		ev.Errorf(s.Target.Span(), CodeType, "loop target must be a name or a tuple of names")
		return
	}
	if lv.Thread != "" {
		ev.threadBinding(fr, s, lv, names, spans)
		return
	}
	var vars []*ir.Var
	switch {
	case lv.Step != 0 && lv.Step != 1 && len(names) == 1 && len(lv.Extents) == 1:
		// range(start, stop, step): iterate k over the trip count and
		// bind the name to start + k*step.
		k := &ir.Var{Name: names[0], Type: ir.Int32, Span: spans[0]}
		vars = append(vars, k)
		val := ir.AddE(lv.Mins[0], ir.MulE(k, &ir.IntImm{Value: lv.Step, Type: ir.Int32, Span: spans[0]}))
		fr.env.set(names[0], &ExprV{Base: Base{spans[0]}, E: val})
		lv = &LoopV{Base: lv.Base, What: lv.What, Kind: lv.Kind, Mins: []ir.Expr{nil}, Extents: lv.Extents, Unroll: lv.Unroll}
	case len(names) == len(lv.Extents):
		for i, n := range names {
			vars = append(vars, &ir.Var{Name: n, Type: ir.Int32, Span: spans[i]})
			fr.env.set(n, &ExprV{Base: Base{spans[i]}, E: vars[i]})
		}
	case len(names) == 1:
		// `for lvs in T.grid(a, b)`: lvs is the tuple of loop variables.
		var elts []Value
		for i := range lv.Extents {
			v := &ir.Var{Name: fmt.Sprintf("%s_%d", names[0], i), Type: ir.Int32, Span: spans[0]}
			vars = append(vars, v)
			elts = append(elts, &ExprV{Base: Base{spans[0]}, E: v})
		}
		fr.env.set(names[0], &TupleV{Base{spans[0]}, elts})
	default:
		ev.Errorf(s.Target.Span(), CodeType, "%d loop variables for %d loop extents", len(names), len(lv.Extents))
		return
	}
	// A break in a T.grid body would leave only the innermost of the
	// nested loops, so only a one-dimensional device loop takes one.
	stripped := ev.stripped
	body := withLoop(ev, len(vars) == 1, func() *ir.Block { return ev.subBlock(fr, s.Body, s.Loc) })
	if ev.stripped > stripped && emptyBlock(body) && pureLoop(lv) {
		return // only stripped statements in it (stripped.go)
	}
	var stmt ir.Stmt
	for i := len(vars) - 1; i >= 0; i-- {
		f := &ir.For{Var: vars[i], Min: lv.Mins[i], Extent: lv.Extents[i], Kind: lv.Kind, Unroll: lv.Unroll, Body: body, Span: s.Loc}
		if isZero(f.Min) {
			f.Min = nil
		}
		stmt = f
		if i > 0 {
			body = &ir.Block{Stmts: []ir.Stmt{f}, Span: s.Loc}
		}
	}
	ev.EmitStmt(stmt)
}

func isZero(e ir.Expr) bool {
	c, ok := ir.ConstInt(e)
	return e == nil || ok && c == 0
}

func (ev *Evaluator) execFunctionDef(fr *frame, s *syntax.FunctionDef) {
	name := s.Name.Id
	if fr.fn != nil {
		name = fr.fn.Name + "." + name
	}
	var decos []Value
	for _, d := range s.Decorators {
		decos = append(decos, ev.expr(fr, d))
	}
	kernel, tirHelper := false, false
	var kernelDeco *MarkerV
	for _, d := range decos {
		if m, ok := d.(*MarkerV); ok {
			switch m.Name {
			case "T.prim_func", "T.jit":
				kernel, kernelDeco = true, m
			case "T.inline", "T.macro":
				tirHelper = true
			}
		}
	}
	if !kernel && isKernelDecorated(s) {
		// A prim_func decorator that did not resolve (e.g. an unresolved
		// import of T): report once, at the decorator.
		for i, d := range decos {
			if !IsErr(d) {
				continue
			}
			if o, ok := d.(*OpaqueV); ok {
				ev.Warnf(s.Decorators[i].Span(), CodeUnresolved, "kernel `%s` is not evaluated: `%s` is not modelled by tilels", s.Name.Id, o.Path)
			}
			if u, ok := d.(*UnboundV); ok {
				ev.noteUnbound(u.Origin, s)
			}
		}
	}
	if kernel && ev.inImported(fr) {
		// A kernel of an imported module is analysed in its own file (imports.go).
		fr.env.set(s.Name.Id, &OpaqueV{Base{s.Name.Loc}, ev.curModule(fr).name + "." + name})
		ev.imports().why[ev.curModule(fr).name+"."+name] = fmt.Sprintf("`%s` is a kernel of the imported module `%s` (it is analysed in its own file)", name, ev.curModule(fr).name)
		return
	}
	if kernel {
		v := ev.evalKernel(fr, s, name, kernelDeco)
		fr.env.set(s.Name.Id, v)
		return
	}
	fn := ev.makeFunc(fr, s, name)
	fn.TIR = tirHelper || (fr.tir && ev.Kern != nil && len(s.Decorators) == 0)
	if axes := gridDecorators(decos); len(axes) > 0 {
		if ev.grids == nil {
			ev.grids = map[*syntax.FunctionDef][]*ParametrizeV{}
		}
		ev.grids[s] = axes
	}
	var v Value = fn
	for i := len(decos) - 1; i >= 0; i-- {
		switch d := decos[i].(type) {
		case *FuncV:
			v = ev.CallValue(d, &Call{At: s.Decorators[i].Span(), Args: []Value{v}, ArgSpans: []source.Span{s.Name.Loc}})
		case *BuiltinV:
			if d.Name == "functools.cache" || d.Name == "functools.lru_cache" {
				continue
			}
			v = ev.CallValue(d, &Call{At: s.Decorators[i].Span(), Args: []Value{v}, ArgSpans: []source.Span{s.Name.Loc}})
		}
	}
	fr.env.set(s.Name.Id, v)
}

func (ev *Evaluator) makeFunc(fr *frame, s *syntax.FunctionDef, name string) *FuncV {
	fn := &FuncV{Base: Base{s.Name.Loc}, Name: name, Def: s, Params: s.Params, Env: fr.env, Defaults: map[*syntax.Param]Value{}}
	ev.evalDefaults(fr, fn)
	ev.funcByDef[s] = fn
	return fn
}

func (ev *Evaluator) evalDefaults(fr *frame, fn *FuncV) {
	ps := fn.Params
	if ps == nil {
		return
	}
	for _, list := range [][]*syntax.Param{ps.Posonly, ps.Args, ps.Kwonly} {
		for _, p := range list {
			if p.Default != nil {
				fn.Defaults[p] = ev.expr(fr, p.Default)
			}
		}
	}
}

// withLoop runs body inside a loop of the given kind (device or Python), so
// that a break or continue evaluated in it knows which loop it leaves.
func withLoop[T any](ev *Evaluator, device bool, body func() T) T {
	ev.loopKinds = append(ev.loopKinds, device)
	defer func() { ev.loopKinds = ev.loopKinds[:len(ev.loopKinds)-1] }()
	return body()
}
