package eval

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// ---- linear forms: enough arithmetic to prove region extents equal ----

type linTerm struct {
	coef int64
	atom ir.Expr
}

// linear decomposes e into Σ coef·atom + const over non-arithmetic atoms.
func linear(e ir.Expr, p *printer) (map[string]linTerm, int64) {
	terms := map[string]linTerm{}
	var c int64
	var walk func(e ir.Expr, k int64)
	walk = func(e ir.Expr, k int64) {
		switch x := e.(type) {
		case *ir.IntImm:
			c += k * x.Value
			return
		case *ir.Neg:
			walk(x.X, -k)
			return
		case *ir.Binary:
			switch x.Op {
			case ir.Add:
				walk(x.A, k)
				walk(x.B, k)
				return
			case ir.Sub:
				walk(x.A, k)
				walk(x.B, -k)
				return
			case ir.Mul:
				if n, ok := ir.ConstInt(x.B); ok {
					walk(x.A, k*n)
					return
				}
				if n, ok := ir.ConstInt(x.A); ok {
					walk(x.B, k*n)
					return
				}
			case ir.FloorDiv:
				// (Σ c·a + c0) // d = Σ (c/d)·a + c0 // d when d divides
				// every coefficient (Σ (c/d)·a is an integer), as TVM's
				// canonical simplifier folds ((i + 1) * 128) // 4.
				if d, ok := ir.ConstInt(x.B); ok && d > 0 {
					in, c0 := linear(x.A, p)
					exact := true
					for _, t := range in {
						if t.coef%d != 0 {
							exact = false
						}
					}
					if exact {
						for key, t := range in {
							u := terms[key]
							u.coef += k * (t.coef / d)
							u.atom = t.atom
							terms[key] = u
						}
						q := c0 / d
						if c0%d != 0 && c0 < 0 {
							q-- // floor
						}
						c += k * q
						return
					}
				}
			}
		}
		key := p.expr(e)
		t := terms[key]
		t.coef += k
		t.atom = e
		terms[key] = t
	}
	walk(e, 1)
	for k, t := range terms {
		if t.coef == 0 {
			delete(terms, k)
		}
	}
	return terms, c
}

// proveEqual reports whether a and b are provably equal as linear forms.
func ProveEqual(a, b ir.Expr) bool {
	p := newPrinter(true)
	ta, ca := linear(a, p)
	tb, cb := linear(b, p)
	if ca != cb || len(ta) != len(tb) {
		return false
	}
	for k, t := range ta {
		if tb[k].coef != t.coef {
			return false
		}
	}
	return true
}

// SimplifySub returns hi − lo, folded to a constant when the difference of
// the linear forms is constant (A[i*8 : i*8 + 8] has extent 8).
func SimplifySub(hi, lo ir.Expr, span source.Span) ir.Expr {
	// Constant bounds (A[0:32]), the common case, without the printer
	// and maps below (5 % of evaluating the 3,000-line benchmark file);
	// the same result.
	if h, ok := hi.(*ir.IntImm); ok {
		if l, ok := lo.(*ir.IntImm); ok {
			return &ir.IntImm{Value: h.Value - l.Value, Type: ir.Int32, Span: span}
		}
	}
	p := newPrinter(true)
	th, ch := linear(hi, p)
	tl, cl := linear(lo, p)
	same := len(th) == len(tl)
	for k, t := range th {
		if tl[k].coef != t.coef {
			same = false
		}
	}
	if same {
		return &ir.IntImm{Value: ch - cl, Type: ir.Int32, Span: span}
	}
	return MkBin(ir.Sub, hi, lo, span)
}

// ---- printing ----

// ExprString prints e in TVMScript-like syntax ("f * 128 + tid * 4").
func ExprString(e ir.Expr) string { return newPrinter(false).expr(e) }

// RegionString prints a region as buf[min:min+extent, ...].
func RegionString(r *ir.Region) string { return newPrinter(false).region(r) }

// printer prints expressions; with unique set, distinct *ir.Var with the
// same name get suffixes (x, x_1, ...), and distinct buffers likewise.
type printer struct {
	unique  bool
	vars    map[*ir.Var]string
	bufs    map[*ir.Buffer]string
	used    map[string]bool
	usedBuf map[string]bool
}

func newPrinter(unique bool) *printer {
	return &printer{unique: unique, vars: map[*ir.Var]string{}, bufs: map[*ir.Buffer]string{}, used: map[string]bool{}, usedBuf: map[string]bool{}}
}

func (p *printer) varName(v *ir.Var) string {
	if !p.unique {
		return v.Name
	}
	if n, ok := p.vars[v]; ok {
		return n
	}
	n := v.Name
	for i := 1; p.used[n]; i++ {
		n = v.Name + "_" + strconv.Itoa(i)
	}
	p.used[n] = true
	p.vars[v] = n
	return n
}

func (p *printer) bufName(b *ir.Buffer) string {
	if !p.unique {
		return b.Name
	}
	if n, ok := p.bufs[b]; ok {
		return n
	}
	n := b.Name
	for i := 1; p.usedBuf[n]; i++ {
		n = b.Name + "_" + strconv.Itoa(i)
	}
	p.usedBuf[n] = true
	p.bufs[b] = n
	return n
}

var binOpText = map[ir.BinOp]string{
	ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.FloorDiv: "//", ir.FloorMod: "%", ir.Div: "/",
	ir.EQ: "==", ir.NE: "!=", ir.LT: "<", ir.LE: "<=", ir.GT: ">", ir.GE: ">=",
	ir.And: "and", ir.Or: "or", ir.BitAnd: "&", ir.BitOr: "|", ir.BitXor: "^", ir.Shl: "<<", ir.Shr: ">>",
}

func binPrec(op ir.BinOp) int {
	switch op {
	case ir.Or:
		return 1
	case ir.And:
		return 2
	case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
		return 4
	case ir.BitOr:
		return 5
	case ir.BitXor:
		return 6
	case ir.BitAnd:
		return 7
	case ir.Shl, ir.Shr:
		return 8
	case ir.Add, ir.Sub:
		return 9
	case ir.Mul, ir.Div, ir.FloorDiv, ir.FloorMod:
		return 10
	}
	return 12
}

func (p *printer) expr(e ir.Expr) string { return p.prec(e, 0) }

func (p *printer) prec(e ir.Expr, outer int) string {
	switch x := e.(type) {
	case nil:
		return "None"
	case *ir.IntImm:
		switch {
		case x.Type == ir.BoolT:
			if x.Value != 0 {
				return "True"
			}
			return "False"
		case x.Type == ir.Int32 || !x.Type.IsValid():
			if x.Value < 0 && outer > 0 {
				return "(" + strconv.FormatInt(x.Value, 10) + ")"
			}
			return strconv.FormatInt(x.Value, 10)
		}
		return fmt.Sprintf("T.%s(%d)", x.Type, x.Value)
	case *ir.FloatImm:
		return fmt.Sprintf("T.%s(%s)", x.Type, pyFloat(x.Value))
	case *ir.StringImm:
		return PyQuote(x.Value)
	case *ir.Var:
		return p.varName(x)
	case *ir.ThreadIndex:
		return x.Axis
	case *ir.Binary:
		if x.Op == ir.Min || x.Op == ir.Max {
			name := "min"
			if x.Op == ir.Max {
				name = "max"
			}
			return "T." + name + "(" + p.expr(x.A) + ", " + p.expr(x.B) + ")"
		}
		pr := binPrec(x.Op)
		s := p.prec(x.A, pr) + " " + binOpText[x.Op] + " " + p.prec(x.B, pr+1)
		if pr < outer {
			return "(" + s + ")"
		}
		return s
	case *ir.Not:
		s := "not " + p.prec(x.X, 3)
		if outer > 3 {
			return "(" + s + ")"
		}
		return s
	case *ir.Neg:
		return "-" + p.prec(x.X, 11)
	case *ir.Load:
		return p.bufName(x.Buf) + "[" + p.list(x.Indices) + "]"
	case *ir.Call:
		return "T." + x.Op + "(" + p.list(x.Args) + ")"
	case *ir.Cast:
		return fmt.Sprintf("T.Cast(%q, %s)", x.To.String(), p.expr(x.X))
	case *ir.Select:
		return "T.Select(" + p.expr(x.Cond) + ", " + p.expr(x.A) + ", " + p.expr(x.B) + ")"
	case *ir.AddressOf:
		if x.FlatIndex {
			return "T.address_of(" + p.bufName(x.Buf) + ".flat[" + p.list(x.Indices) + "])"
		}
		return "T.address_of(" + p.bufName(x.Buf) + "[" + p.list(x.Indices) + "])"
	case *ir.BufferData:
		return p.bufName(x.Buf) + ".data"
	case *ir.Region:
		return p.region(x)
	case *ir.Tuple:
		if len(x.Elems) == 1 {
			return "(" + p.expr(x.Elems[0]) + ",)"
		}
		return "(" + p.list(x.Elems) + ")"
	}
	return fmt.Sprintf("<%T>", e)
}

func (p *printer) list(es []ir.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = p.expr(e)
	}
	return strings.Join(parts, ", ")
}

func (p *printer) region(r *ir.Region) string {
	parts := make([]string, len(r.Min))
	for i := range r.Min {
		lo := r.Min[i]
		hi := MkBin(ir.Add, lo, r.Extent[i], source.NoSpan)
		if n, ok := ir.ConstInt(r.Extent[i]); ok && n == 1 {
			if _, isConst := ir.ConstInt(lo); !isConst {
				parts[i] = p.expr(lo)
				continue
			}
		}
		parts[i] = p.prec(lo, 9) + ":" + p.prec(hi, 9)
	}
	return p.bufName(r.Buf) + "[" + strings.Join(parts, ", ") + "]"
}

// ---- dump ----

// Dump renders the kernels of p and its diagnostics as deterministic text:
// one block per kernel (parameters, buffers, host and device statements),
// then one "line:col severity[code] message" line per diagnostic. Partial
// kernels are listed with the parameters they need. It is a debugging and
// golden-test aid; the format may change.
func Dump(p *Program) string {
	var b strings.Builder
	for _, k := range p.Kernels {
		DumpKernel(&b, k)
	}
	for _, k := range p.Partial {
		fmt.Fprintf(&b, "partial kernel %s needs %s\n", k.Func.Name, strings.Join(k.Unbound, ", "))
		for _, u := range k.Unresolved {
			line, col := p.File.Position(u.Span.Start)
			fmt.Fprintf(&b, "  %d:%d %s unresolved: needs %s\n", line, col, p.File.Text(u.OpSpan), strings.Join(u.Needs, ", "))
		}
	}
	for _, d := range p.Diags {
		line, col := p.File.Position(d.Span.Start)
		fmt.Fprintf(&b, "%d:%d %s[%s] %s\n", line, col, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

func DumpKernel(b *strings.Builder, k *Kernel) {
	p := newPrinter(true)
	f := k.Func
	var params []string
	for _, prm := range f.Params {
		params = append(params, p.varName(prm.Var)+": "+prm.Var.Type.String()+implicitNote(prm))
	}
	fmt.Fprintf(b, "kernel %s(%s)\n", f.Name, strings.Join(params, ", "))
	if k.Case != nil || k.CaseID != "" {
		fmt.Fprintf(b, "  case %s (%s", CaseString(k.Case), k.CaseSource)
		if k.CaseID != "" {
			fmt.Fprintf(b, " %s", k.CaseID)
		}
		b.WriteString(")\n")
	}
	for _, prm := range f.Params {
		if prm.Buf != nil {
			fmt.Fprintf(b, "  match %s -> %s\n", p.varName(prm.Var), bufDecl(p, prm.Buf))
		}
	}
	if len(f.Host.Stmts) > 0 {
		b.WriteString("  host:\n")
		dumpStmts(b, p, f.Host.Stmts, 2)
	}
	b.WriteString("  device:\n")
	dumpStmts(b, p, f.Body.Stmts, 2)
}

func bufDecl(p *printer, buf *ir.Buffer) string {
	s := fmt.Sprintf("%s: %s %s%s", p.bufName(buf), buf.Scope, buf.Dtype, ShapeList(buf.Shape))
	if buf.RuntimeDim() >= 0 { // dynamic_shape.go
		s = fmt.Sprintf("%s: %s %s%s layout=default", p.bufName(buf), buf.Scope, buf.Dtype, runtimeShapeList(p, buf))
	} else if buf.Layout == nil {
		s += " layout=None"
	} else {
		s += " layout=" + buf.Layout.String()
	}
	if buf.Base != nil {
		s += " view of " + p.bufName(buf.Base)
	}
	switch {
	case buf.ElemOffsetExpr != nil:
		s += " elem_offset=" + p.expr(ir.SimplifyIndex(ir.AddE(buf.ElemOffsetExpr, ir.Const(buf.ElemOffset))))
	case buf.ElemOffset != 0:
		s += fmt.Sprintf(" elem_offset=%d", buf.ElemOffset)
	}
	if buf.AllocatedAddr != nil {
		s += " allocated_addr=" + ExprString(buf.AllocatedAddr)
	}
	return s
}

func ShapeList(s []int64) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func dumpStmts(b *strings.Builder, p *printer, ss []ir.Stmt, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, s := range ss {
		switch x := s.(type) {
		case *ir.ScopeID:
			var names []string
			for _, v := range x.Vars {
				names = append(names, p.varName(v))
			}
			ext := "deferred"
			if x.Extents != nil {
				ext = ShapeList(x.Extents)
			} else if x.Dynamic != nil {
				es := make([]string, len(x.Dynamic))
				for i, e := range x.Dynamic {
					es[i] = p.expr(e)
				}
				ext = "[" + strings.Join(es, ", ") + "]"
			} else if x.Unresolved {
				ext = "unresolved"
			}
			fmt.Fprintf(b, "%s%s = %s %s\n", ind, strings.Join(names, ", "), x.Kind, ext)
		case *ir.Alloc:
			fmt.Fprintf(b, "%salloc %s\n", ind, bufDecl(p, x.Buf))
		case *ir.Decl:
			fmt.Fprintf(b, "%sdecl %s\n", ind, bufDecl(p, x.Buf))
		case *ir.TileCall:
			fmt.Fprintf(b, "%sTx.%s.%s(", ind, x.Scope, x.Op)
			for i, a := range x.Args {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(p.expr(a))
			}
			b.WriteString(")")
			if x.Dispatch != "" {
				fmt.Fprintf(b, " dispatch=%s", x.Dispatch)
			}
			for _, kv := range x.Config {
				fmt.Fprintf(b, " %s=%s", kv.Key, p.expr(kv.Value))
			}
			b.WriteString("\n")
		case *ir.For:
			mn := ir.Expr(ir.Const(0))
			if x.Min != nil {
				mn = x.Min
			}
			fmt.Fprintf(b, "%sfor %s in %s(%s, %s):\n", ind, p.varName(x.Var), x.Kind, p.expr(mn), p.expr(x.Extent))
			dumpStmts(b, p, x.Body.Stmts, depth+1)
		case *ir.While:
			fmt.Fprintf(b, "%swhile %s:\n", ind, p.expr(x.Cond))
			dumpStmts(b, p, x.Body.Stmts, depth+1)
		case *ir.If:
			fmt.Fprintf(b, "%sif %s:\n", ind, p.expr(x.Cond))
			dumpStmts(b, p, x.Then.Stmts, depth+1)
			if x.Else != nil {
				fmt.Fprintf(b, "%selse:\n", ind)
				dumpStmts(b, p, x.Else.Stmts, depth+1)
			}
		case *ir.Let:
			kw := "let"
			if x.Mutable {
				kw = "var"
			}
			fmt.Fprintf(b, "%s%s %s: %s = %s\n", ind, kw, p.varName(x.Var), x.Var.Type, p.expr(x.Value))
		case *ir.Assign:
			fmt.Fprintf(b, "%s%s = %s\n", ind, p.varName(x.Var), p.expr(x.Value))
		case *ir.Store:
			fmt.Fprintf(b, "%s%s[%s] = %s\n", ind, p.bufName(x.Buf), p.list(x.Indices), p.expr(x.Value))
		case *ir.Break:
			fmt.Fprintf(b, "%sbreak\n", ind)
		case *ir.Continue:
			fmt.Fprintf(b, "%scontinue\n", ind)
		case *ir.Evaluate:
			fmt.Fprintf(b, "%s%s\n", ind, p.expr(x.X))
		case *ir.Block:
			dumpStmts(b, p, x.Stmts, depth)
		case *ir.Comment:
			if x.LeftOut {
				fmt.Fprintf(b, "%sleft out: %s\n", ind, x.Text)
			} else {
				fmt.Fprintf(b, "%s# %s\n", ind, x.Text)
			}
		default:
			fmt.Fprintf(b, "%s<%T>\n", ind, s)
		}
	}
}
