package harness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/names"
	"github.com/tilels/tilels/ir"
)

// The reference generator: one C++ function per kernel that executes the
// evaluated kernel (before dispatch) on the host.
//
// Execution model. The grid runs one CTA after another. Inside a CTA every
// thread runs in lockstep, statement by statement, under an activity
// guard: scalar statements run for each active thread; an `if` splits the
// guard (both masks computed before either branch runs); a loop runs its
// iterations for the threads whose own bounds contain the iteration, and
// `break`/`continue` drop a thread for the rest of the loop / iteration.
// A tile call runs once per group of its scope (thread, warp, warpgroup,
// CTA) that has an active thread, with the group's first active thread as
// its leader: region starts are evaluated with the leader's variables, and
// a register tile's thread axes pick the holding thread within the group.
// Barriers, fences and mbarrier operations do nothing: every statement
// finished for every thread before the next starts, which is a legal
// schedule of any race-free program, and asynchronous copies (cp.async,
// TMA) complete at once.
//
// Tile calls are whole-tile semantics on logical coordinates (spec §1.5,
// §4.4): copy moves the k-th element of the source region to the k-th of
// the destination; elementwise ops compute each element in double,
// rounded to the IR type of every operation (TVM's typing: a literal takes
// the other operand's type). Nothing of the dispatcher or the variants is
// used: only the buffers' layouts, which are part of the program.

// Unsupported is a construct the reference does not model; the harness is
// not generated for that kernel.
type Unsupported struct {
	Kernel string
	Span   source.Span
	Msg    string
	// Launch is set when the harness cannot even launch the kernel (its
	// launch configuration, a scalar parameter's value, a buffer's size
	// or a tensor map is unknown); otherwise only the host reference
	// lacks the construct, and Print launches the kernel unchecked.
	Launch bool
}

func (e *Unsupported) Error() string { return fmt.Sprintf("kernel %s: %s", e.Kernel, e.Msg) }

// cxxReserved are names the generated code must not give a variable.
var cxxReserved = names.Reserved(
	"alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "class",
	"const", "constexpr", "continue", "default", "delete", "do", "double", "else", "enum",
	"explicit", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
	"long", "mutable", "namespace", "new", "operator", "private", "protected", "public",
	"register", "return", "short", "signed", "sizeof", "static", "struct", "switch",
	"template", "this", "throw", "true", "try", "typedef", "typename", "union", "unsigned",
	"using", "virtual", "void", "volatile", "while", "nullptr", "and", "or", "not", "xor",
	"NT", "t", "lead", "arg", "bx", "by", "bz", "std", "Buf", "Layout", "Region", "Operand",
)

// gen prints one kernel's reference function.
type gen struct {
	k      Kernel
	b      strings.Builder
	indent int
	names  *names.Namer
	nt     int64
	err    *Unsupported

	bufs map[*ir.Buffer]string // the Buf variable of each buffer
	vars map[*ir.Var]*varInfo
	// uniform holds the per-thread variables that have one value in every
	// thread of a CTA (its ids, and lets over uniform values)
	uniform map[*ir.Var]bool
	// dynViews holds the views whose element offset moves inside the
	// kernel, with their static part: placed at their declaration
	dynViews map[*ir.Buffer]int64
	tmp      int

	// guard prints the activity of thread t at the current statement;
	// stop is the innermost loop's stop array ("" outside loops) and brk
	// its break array.
	mask      string
	stop, brk string

	sites []string // call sites, for race reports
}

type varInfo struct {
	name   string
	scalar bool // a loop variable: one value for every thread
	typ    ir.DataType
	handle bool // a pointer value: only intrinsic arguments may use it
}

func (g *gen) fail(span source.Span, format string, args ...any) {
	if g.err == nil {
		g.err = &Unsupported{Kernel: g.k.Name, Span: span, Msg: fmt.Sprintf(format, args...)}
	}
}

func (g *gen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", g.indent))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *gen) fresh(prefix string) string {
	g.tmp++
	return prefix + strconv.Itoa(g.tmp)
}

// guard is the C++ condition that thread t is active.
func (g *gen) guard(t string) string {
	var parts []string
	if g.mask != "" {
		parts = append(parts, g.mask+"["+t+"]")
	}
	if g.stop != "" {
		parts = append(parts, "!"+g.stop+"["+t+"]")
	}
	if len(parts) == 0 {
		return "true"
	}
	return strings.Join(parts, " && ")
}

// refFunc prints the reference function of k, named fname, taking the
// host storage of each parameter buffer in parameter order.
func refFunc(k Kernel, fname string) (string, *Unsupported) {
	if u := launchable(k); u != nil {
		return "", u
	}
	g := &gen{k: k, names: names.New(cxxReserved), bufs: map[*ir.Buffer]string{},
		vars: map[*ir.Var]*varInfo{}}
	fn := k.Func
	g.nt = k.Launch.Threads()
	if fn.Host != nil {
		for _, s := range fn.Host.Stmts {
			if _, ok := s.(*ir.Comment); !ok {
				g.fail(s.Pos(), "host statements before T.device_entry() are not modelled")
			}
		}
	}
	g.line("static void %s(unsigned char* const* arg, unsigned char* const* argdef) {", fname)
	g.indent++
	g.line("using namespace tilels_ref;")
	g.line("constexpr int NT = %d;", g.nt)
	g.line("tl_sites = %s_sites;", fname)
	g.line("tl_race[0] = 0;")
	g.sites = []string{"kernel " + k.Name}
	arg := 0
	for _, p := range fn.Params {
		switch {
		case p.Buf != nil:
			b := p.Buf
			if b.Dtype.Bits == 128 {
				g.fail(b.Span, "parameter %s has dtype %s, whose values the harness does not fill", b.Name, b.Dtype)
			}
			bytes := (b.ElemOffset + storageOf(fn, b)) * int64(b.Dtype.Bytes())
			g.declBuf(b, fmt.Sprintf("arg[%d]", arg), "0", 1, strconv.FormatInt(bytes, 10), fmt.Sprintf("argdef[%d]", arg), "")
			arg++
		default:
			v, _ := launchValue(fn, p.Var) // (launchable: it has one)
			// the launch's value (a bind line above the kernel): one value
			// for every thread
			name := g.names.Name(p.Var, "v_"+p.Var.Name)
			g.line("const %s %s = (%s)%dLL;", p.Var.Type.CType(), name, p.Var.Type.CType(), v)
			g.line("(void)%s;", name) // (a kernel may not read it: an extent its copies fold)
			g.vars[p.Var] = &varInfo{name: name, scalar: true, typ: p.Var.Type}
		}
	}
	// Every allocation and view, declared once: shared storage is per CTA
	// (its values undefined again when a CTA starts), register storage per
	// thread. Shared storage keeps the race check's shadow (never reset:
	// epochs only grow).
	var resets []string
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			b := s.Buf
			elems := storageElems(b)
			store := g.names.Fresh("st_" + b.Name)
			def := g.names.Fresh("def_" + b.Name)
			bytes := elems * int64(b.Dtype.Bytes())
			switch {
			case strings.HasPrefix(b.Scope, "shared"):
				race := g.names.Fresh("race_" + b.Name)
				g.line("std::vector<unsigned char> %s(%d), %s(%d);", store, bytes, def, bytes)
				g.line("std::vector<int> %s(3 * %dLL);", race, bytes)
				g.declBuf(b, store+".data()", "0", 0, strconv.FormatInt(bytes, 10), def+".data()",
					fmt.Sprintf("%s.data(), %s.data() + %d, %s.data() + %d", race, race, bytes, race, 2*bytes))
			case b.Scope == "local":
				g.line("std::vector<unsigned char> %s(NT * %dLL), %s(NT * %dLL);", store, bytes, def, bytes)
				g.declBuf(b, store+".data()", strconv.FormatInt(bytes, 10), 0, fmt.Sprintf("NT * %dLL", bytes), def+".data()", "")
			default:
				g.fail(s.Span, "an allocation in scope %q is not modelled", b.Scope)
				return
			}
			resets = append(resets, def)
		case *ir.Decl:
			b := s.Buf
			base, off := b.Base, b.ElemOffset
			if base == nil && b.PtrBase != nil && b.Dtype.Bytes() > 0 && b.PtrOffset%int64(b.Dtype.Bytes()) == 0 {
				// a view through a pointer into a root buffer (T.reinterpret
				// or T.ptr_byte_offset at a constant offset): its elements
				// start PtrOffset bytes into that buffer's data
				base, off = b.PtrBase, off+b.PtrOffset/int64(b.Dtype.Bytes())
			}
			if base == nil {
				g.fail(s.Span, "decl_buffer %s views storage the reference does not know", b.Name)
				return
			}
			bn, ok := g.bufs[base]
			if !ok {
				g.fail(s.Span, "decl_buffer %s views %s before its declaration", b.Name, base.Name)
				return
			}
			if b.ElemOffsetExpr != nil {
				// an offset over the kernel's scalars folds over the
				// launch's values (its bind line); one that moves inside
				// the kernel (a loop's, the CTA's) is set where the view
				// is declared (stmt: one value in every thread, or not
				// modelled)
				n, ok := foldLaunch(b.ElemOffsetExpr, fn.LaunchArgs)
				if !ok || len(fn.LaunchArgs) == 0 {
					if g.dynViews == nil {
						g.dynViews = map[*ir.Buffer]int64{}
					}
					g.dynViews[b] = off
				} else {
					off += n
				}
			}
			// The view's elem_offset counts from the start of the data
			// (TVM's, carried through a view of a view), so it shares its
			// base's data; a base's own offset is not added again.
			shadow := ""
			if strings.HasPrefix(base.Scope, "shared") {
				shadow = fmt.Sprintf("%s.ep, %s.who, %s.site", bn, bn, bn)
			}
			g.declBufAt(b, off, bn+".data", bn+".tstride", -1, bn+".bytes", bn+".def", shadow)
		}
	})
	if g.err != nil {
		return "", g.err
	}
	l := k.Launch
	var ext [3]string
	for i := range ext {
		ext[i] = strconv.FormatInt(max(l.Grid[i], 1), 10)
		if l.Grid[i] <= 0 && l.GridExpr[i] != nil {
			// a runtime extent: over the launch's values (refused above
			// without them)
			e, _ := g.expr(l.GridExpr[i], "0")
			ext[i] = "(long long)(" + e + ")"
		}
	}
	g.line("for (long long bz = 0; bz < %s; bz++)", ext[2])
	g.line("for (long long by = 0; by < %s; by++)", ext[1])
	g.line("for (long long bx = 0; bx < %s; bx++) {", ext[0])
	g.indent++
	g.line("(void)bx; (void)by; (void)bz;")
	g.line("tl_epoch++;")
	for _, s := range resets {
		g.line("std::fill(%s.begin(), %s.end(), 0);", s, s)
	}
	g.stmts(fn.Body.Stmts)
	g.indent--
	g.line("}")
	g.indent--
	g.line("}")
	if g.err != nil {
		return "", g.err
	}
	sites := make([]string, len(g.sites))
	for i, st := range g.sites {
		sites[i] = strconv.Quote(st)
	}
	return fmt.Sprintf("static const char* const %s_sites[] = {%s};\n\n", fname, strings.Join(sites, ", ")) + g.b.String(), nil
}

// site registers the call site of s ("line 14: Tx.cta.copy") and returns
// its index in the kernel's site table.
func (g *gen) site(span source.Span, what string) int {
	where := "?"
	if g.k.Where != nil {
		where = g.k.Where(span)
	}
	g.sites = append(g.sites, where+": "+what)
	return len(g.sites) - 1
}

// storageElems is the number of storage elements b needs per thread (for
// registers) or in all: the layout's span on m, or the element count.
func storageElems(b *ir.Buffer) int64 {
	if b.Layout == nil {
		return b.NumElements()
	}
	return layout.SpanOf(b.Layout, layout.M)
}

// declBuf declares the Buf of b over data: global is 1 for a parameter (a
// tensor TMA regions may leave), 0 otherwise (-1 for a view); bytes bounds
// the storage; def is its definedness shadow; race the shared race-check
// shadow ("" for none).
func (g *gen) declBuf(b *ir.Buffer, data, tstride string, global int, bytes, def, race string) {
	g.declBufAt(b, b.ElemOffset, data, tstride, global, bytes, def, race)
}

// declBufAt is declBuf with the buffer's elements starting elemOffset
// elements into data.
func (g *gen) declBufAt(b *ir.Buffer, elemOffset int64, data, tstride string, global int, bytes, def, race string) {
	name := g.names.Name(b, "b_"+b.Name)
	g.bufs[b] = name
	lay := g.layoutConst(b)
	if global < 0 {
		global = 0
	}
	bshape := shapeOf(g.k.Func, b) // (a runtime extent: its launch's)
	shape := make([]string, len(bshape))
	for i, s := range bshape {
		shape[i] = strconv.FormatInt(s, 10)
	}
	if len(b.Shape) > 8 {
		g.fail(b.Span, "buffer %s has rank %d (the reference handles up to 8)", b.Name, len(b.Shape))
	}
	if race == "" {
		race = "nullptr, nullptr, nullptr"
	}
	g.line("Buf %s = {%q, %s, %s, %s, %d, %d, {%s}, %s, %d, %d, %s, %s, %s};", name, b.Name, data, tstride, dtypeEnum(b.Dtype),
		b.Dtype.Bytes(), len(b.Shape), strings.Join(shape, ", "), lay, elemOffset, global, bytes, def, race)
	g.line("(void)%s;", name)
	if !dtypeOK(b.Dtype) {
		g.fail(b.Span, "buffer %s has dtype %s, which the reference does not model", b.Name, b.Dtype)
	}
}

// layoutConst declares b's layout as a static Layout and returns a pointer
// expression to it ("nullptr" without a layout).
func (g *gen) layoutConst(b *ir.Buffer) string {
	if b.Layout == nil {
		return "nullptr"
	}
	init, err := layoutInit(b.Layout)
	if err != "" {
		g.fail(b.Span, "buffer %s: %s", b.Name, err)
		return "nullptr"
	}
	name := g.names.Fresh("L_" + b.Name)
	g.line("static const Layout %s = %s;", name, init)
	return "&" + name
}

// axisIndex maps a layout axis to the prelude's AX_* index.
var axisIndex = map[*layout.Axis]int{
	layout.M: 0, layout.Laneid: 1, layout.Warpid: 2, layout.Wgid: 3, layout.TidInWG: 4, layout.WidInWG: 5, layout.Tx: 6,
}

// layoutInit is the C++ initializer of a Layout, or a reason it cannot be
// modelled.
func layoutInit(l layout.Layout) (string, string) {
	var t *layout.TileLayout
	sw := "0, 0, 0, 0, 0"
	switch l := l.(type) {
	case *layout.TileLayout:
		t = l
	case *layout.ComposeLayout:
		t = l.Tile
		inner := 0
		if l.SwizzleInner {
			inner = 1
		}
		sw = fmt.Sprintf("1, %d, %d, %d, %d", l.PerElement, l.SwizzleLen, l.AtomLen, inner)
	default:
		return "", fmt.Sprintf("layout %T is not modelled", l)
	}
	if len(t.Shard) > 24 || len(t.Replica) > 8 {
		return "", "the layout has too many iters for the reference"
	}
	has := make([]int, 7)
	// iters prints the extents, strides and axis indices of its.
	iters := func(its []layout.Iter) (ext, str, ax []string, bad string) {
		for _, it := range its {
			i, ok := axisIndex[it.Axis]
			if !ok {
				return nil, nil, nil, fmt.Sprintf("layout axis %s is not modelled", it.Axis.Name)
			}
			has[i] = 1
			ext = append(ext, strconv.FormatInt(it.Extent, 10))
			str = append(str, strconv.FormatInt(it.Stride, 10))
			ax = append(ax, strconv.Itoa(i))
		}
		return ext, str, ax, ""
	}
	ext, str, ax, bad := iters(t.Shard)
	if bad != "" {
		return "", bad
	}
	rext, rstr, rax, bad := iters(t.Replica)
	if bad != "" {
		return "", bad
	}
	off := make([]string, 7)
	for i := range off {
		off[i] = "0"
	}
	for a, v := range t.Offset {
		i, ok := axisIndex[a]
		if !ok {
			return "", fmt.Sprintf("layout axis %s is not modelled", a.Name)
		}
		if v != 0 {
			has[i] = 1
		}
		off[i] = strconv.FormatInt(v, 10)
	}
	threaded := 0
	hs := make([]string, 7)
	for i, h := range has {
		hs[i] = strconv.Itoa(h)
		if i > 0 && h == 1 {
			threaded = 1
		}
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return "{0}"
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	return fmt.Sprintf("{%d, %s, %s, %s, %d, %s, %s, %s, {%s}, {%s}, %d, %s}", len(t.Shard), list(ext), list(str), list(ax),
		len(t.Replica), list(rext), list(rstr), list(rax), strings.Join(off, ", "), strings.Join(hs, ", "), threaded, sw), ""
}

func dtypeOK(d ir.DataType) bool { return dtypeEnum(d) != "" }

func dtypeEnum(d ir.DataType) string {
	switch d.Code {
	case ir.Int:
		switch d.Bits {
		case 8, 16, 32, 64:
			return "TL_I" + strconv.Itoa(d.Bits)
		}
	case ir.UInt:
		switch d.Bits {
		case 8, 16, 32, 64:
			return "TL_U" + strconv.Itoa(d.Bits)
		case 128:
			return "TL_B128" // raw bytes: moved (a b128 ld/st), never computed with
		}
	case ir.Float:
		switch d.Bits {
		case 16, 32, 64:
			return "TL_F" + strconv.Itoa(d.Bits)
		}
	case ir.BFloat:
		return "TL_BF16"
	case ir.Float8E4M3:
		return "TL_E4M3"
	case ir.Float8E5M2:
		return "TL_E5M2"
	case ir.Bool:
		return "TL_BOOL"
	}
	return ""
}

// ---- statements ----

func (g *gen) stmts(ss []ir.Stmt) {
	for _, s := range ss {
		if g.err != nil {
			return
		}
		g.stmt(s)
	}
}

// perThread opens `for (int t = 0; t < NT; t++) if (<guard>) {`.
func (g *gen) perThread() {
	g.line("for (int t = 0; t < NT; t++) if (%s) {", g.guard("t"))
	g.indent++
	g.line("tl_actor = t;")
}

func (g *gen) end() {
	g.indent--
	g.line("}")
}

func (g *gen) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Block:
		g.line("{")
		g.indent++
		g.stmts(s.Stmts)
		g.end()
	case *ir.Decl:
		if off, ok := g.dynViews[s.Buf]; ok {
			g.placeView(s, off)
		}
	case *ir.Comment, *ir.Alloc:
	case *ir.ScopeID:
		g.scopeID(s)
	case *ir.Let:
		if s.Var.Type.Code == ir.Handle || isPointer(s.Value) {
			g.vars[s.Var] = &varInfo{handle: true}
			return
		}
		v := g.declVar(s.Var)
		g.perThread()
		g.line("%s[t] = %s;", v.name, g.rounded(s.Var.Type, s.Value, "t"))
		g.end()
		if g.uniformExpr(s.Value) {
			g.markUniform(s.Var)
		}
	case *ir.Assign:
		v, ok := g.vars[s.Var]
		if !ok || v.scalar || v.handle {
			g.fail(s.Span, "assignment to %s is not modelled", s.Var.Name)
			return
		}
		if warpReads(s.Value, func(e ir.Expr) bool { return e == s.Var }) {
			g.fail(s.Span, "an assignment to %s that another lane's shuffled value reads is not modelled by the reference", s.Var.Name)
			return
		}
		g.perThread()
		g.line("%s[t] = %s;", v.name, g.rounded(s.Var.Type, s.Value, "t"))
		g.end()
	case *ir.Store:
		bn := g.buf(s.Buf, s.Span)
		if g.threadAxes(s.Buf) {
			g.fail(s.Span, "a direct store to %s, whose layout has thread axes", s.Buf.Name)
			return
		}
		readsBuf := func(e ir.Expr) bool { l, ok := e.(*ir.Load); return ok && l.Buf == s.Buf }
		if slices.ContainsFunc(s.Indices, func(i ir.Expr) bool { return warpReads(i, readsBuf) }) {
			g.fail(s.Span, "a store to %s at an index another lane's shuffled value of it gives is not modelled by the reference", s.Buf.Name)
			return
		}
		g.line("tl_site = %d;", g.site(s.Span, "store to "+s.Buf.Name))
		v, typ := g.expr(s.Value, "t")
		exact := !s.Buf.Dtype.IsFloat() && !typ.IsFloat() // an integer into an integer element (tl_wr_i)
		if !exact {
			v = g.exprD(s.Value, "t")
		}
		staged := warpReads(s.Value, readsBuf)
		if staged {
			// another lane's operand reads what this store writes: every
			// lane's value first, as the warp computes them, then the
			// stores (the lockstep model runs a statement's threads in
			// order)
			ctype := "double"
			if exact {
				ctype = "long long"
			}
			tmp := g.fresh("staged")
			g.line("{")
			g.indent++
			g.line("std::vector<%s> %s(NT);", ctype, tmp)
			g.line("std::vector<int> %s_def(NT);", tmp)
			g.perThread()
			g.line("tl_undef = 0;")
			g.line("%s[t] = %s;", tmp, v)
			g.line("%s_def[t] = !tl_undef;", tmp)
			g.end()
			v = tmp + "[t], " + tmp + "_def[t]"
		}
		g.perThread()
		// (tl_undef: the value, or its index, read memory the program
		// never wrote; tl_rd sets it)
		g.line("tl_undef = 0;")
		if exact {
			g.line("tl_wr_i(%s, tl_at(%s, {%s}, t, NT), %s);", bn, bn, g.indexList(s.Indices, "t"), v)
		} else {
			g.line("tl_wr(%s, tl_at(%s, {%s}, t, NT), %s);", bn, bn, g.indexList(s.Indices, "t"), v)
		}
		g.end()
		if staged {
			g.end()
		}
	case *ir.Evaluate:
		g.evaluate(s)
	case *ir.If:
		g.ifStmt(s)
	case *ir.For:
		g.forStmt(s)
	case *ir.While:
		g.whileStmt(s)
	case *ir.Break, *ir.Continue:
		if g.stop == "" {
			g.fail(s.Pos(), "break or continue outside a device loop")
			return
		}
		g.perThread()
		if _, ok := s.(*ir.Break); ok {
			g.line("%s[t] = true;", g.brk)
		}
		g.line("%s[t] = true;", g.stop)
		g.end()
	case *ir.TileCall:
		g.tileCall(s)
	default:
		g.fail(s.Pos(), "statement %T is not modelled", s)
	}
}

func isPointer(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.AddressOf, *ir.BufferData, *ir.TensorMapAddr:
		return true
	case *ir.Call:
		// a shared-window address (a 32-bit integer in the kernel, an
		// address all the same: what an mbarrier wait is given)
		return e.Op == "cuda.cvta_generic_to_shared"
	}
	return false
}

func (g *gen) declVar(v *ir.Var) *varInfo {
	info := &varInfo{name: g.names.Name(v, "v_"+v.Name), typ: v.Type}
	g.vars[v] = info
	g.line("%s %s[NT] = {};", ctype(v.Type), info.name)
	g.line("(void)%s;", info.name)
	return info
}

func ctype(t ir.DataType) string {
	if t.IsFloat() {
		return "double"
	}
	return "long long"
}

// scopeID gives every thread its ids (spec §1.3).
func (g *gen) scopeID(s *ir.ScopeID) {
	axes := []string{"x", "y", "z"}
	l := g.k.Launch
	for i, v := range s.Vars {
		if i >= 3 {
			g.fail(s.Span, "%s with %d dimensions", s.Kind, len(s.Vars))
			return
		}
		var e string
		switch s.Kind {
		case ir.CTAID:
			e = "b" + axes[i]
		case ir.ThreadID:
			switch {
			case len(s.Vars) == 1:
				e = "t"
			case i == 0:
				e = fmt.Sprintf("(t %% %d)", l.Block[0])
			case i == 1:
				e = fmt.Sprintf("((t / %d) %% %d)", l.Block[0], l.Block[1])
			default:
				e = fmt.Sprintf("(t / %d)", l.Block[0]*l.Block[1])
			}
		case ir.ClusterID:
			e = fmt.Sprintf("(b%s / %d)", axes[i], max(l.Cluster[i], 1))
		case ir.CTAIDInCluster:
			e = fmt.Sprintf("(b%s %% %d)", axes[i], max(l.Cluster[i], 1))
		case ir.WarpID:
			e = "(t / 32)"
		case ir.WarpgroupID:
			e = "(t / 128)"
		case ir.WarpIDInWG:
			e = "((t / 32) % 4)"
		case ir.LaneID:
			e = "(t % 32)"
		case ir.ThreadIDInWG:
			e = "(t % 128)"
		default:
			g.fail(s.Span, "scope id %s is not modelled", s.Kind)
			return
		}
		info := g.declVar(v)
		g.line("for (int t = 0; t < NT; t++) %s[t] = %s;", info.name, e)
		switch s.Kind {
		case ir.CTAID, ir.ClusterID, ir.CTAIDInCluster:
			g.markUniform(v) // (the reference runs one CTA at a time)
		}
	}
}

func (g *gen) markUniform(v *ir.Var) {
	if g.uniform == nil {
		g.uniform = map[*ir.Var]bool{}
	}
	g.uniform[v] = true
}

// uniformExpr reports whether e has one value in every thread of a CTA:
// constants, the launch's scalars, loop variables, the CTA's ids and
// lets over them.
func (g *gen) uniformExpr(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.IntImm:
		return true
	case *ir.Var:
		if v := g.vars[e]; v != nil && v.scalar {
			return true
		}
		return g.uniform[e]
	case *ir.Binary:
		return g.uniformExpr(e.A) && g.uniformExpr(e.B)
	case *ir.Cast:
		return g.uniformExpr(e.X)
	case *ir.Neg:
		return g.uniformExpr(e.X)
	}
	return false
}

// placeView sets the element offset of a view whose offset moves inside
// the kernel (a loop's variable, the CTA's id: flash_attention's stage
// views, a block of an index tensor per CTA), where it is declared: off
// plus its offset expression, one value in every thread. A view whose
// offset differs from thread to thread is not modelled.
func (g *gen) placeView(s *ir.Decl, off int64) {
	b := s.Buf
	if !g.uniformExpr(b.ElemOffsetExpr) {
		g.fail(s.Span, "decl_buffer %s at an element offset that differs from thread to thread is not modelled by the reference", b.Name)
		return
	}
	// (uniform: the first active thread's value; the expression may
	// read per-thread storage of uniform values, which only the threads
	// that ran its let hold)
	g.line("for (int u = 0; u < NT; u++) if (%s) { %s.eoff = %dLL + (long long)(%s); break; }", g.guard("u"), g.bufs[b], off, g.exprI(b.ElemOffsetExpr, "u"))
}

// evaluate handles an intrinsic call statement: synchronisation and the
// asynchronous-proxy bookkeeping do nothing in the lockstep model.
func (g *gen) evaluate(s *ir.Evaluate) {
	c, ok := s.X.(*ir.Call)
	if !ok {
		g.fail(s.Span, "an expression statement is not modelled")
		return
	}
	op := syncOpOf(c.Op)
	switch op {
	case ir.OpCTASync, ir.OpWarpSync, ir.OpWarpgroupSync, ir.OpMbarrierTryWait:
		// A barrier (or the wait that completes a TMA load): what was
		// written before it is visible after it. Warp and warpgroup
		// barriers count as whole-CTA ones, so the race check can miss a
		// race between warps but never reports one that is not there.
		g.line("tl_epoch++;")
		return
	case ir.OpMbarrierInit, ir.OpMbarrierArriveExpect,
		ir.OpMbarrierArrive, ir.OpFenceProxyAsync, ir.OpFenceMbarrierInit,
		ir.OpCpAsyncBulkCommit, ir.OpCpAsyncBulkWait, ir.OpCpAsyncCommit, ir.OpCpAsyncWait,
		ir.OpElectSync, ir.OpPrefetchTensormap:
		return
	}
	if strings.HasPrefix(c.Op, "ptx.prefetch.") {
		return // a cache hint: no value moves
	}
	if strings.HasPrefix(c.Op, "ptx.mapa.") && len(c.Args) == 3 {
		// another CTA's address of a shared variable, in a register: a
		// value the reference (one CTA at a time) does not follow, so
		// the register is undefined after it (an access through it is
		// not modelled: pointer)
		if r, ok := c.Args[0].(*ir.Load); ok && r.Buf.Scope == "local" {
			rb := g.buf(r.Buf, r.Span)
			g.perThread()
			g.line("{ unsigned char* p = tl_at(%s, {%s}, t, NT); tl_set_defined(%s, p, 0); }", rb, g.indexList(r.Indices, "t"), rb)
			g.end()
			return
		}
	}
	if g.warpOp(c) {
		return // ref_warp.go
	}
	if g.ldSt(c) {
		return // ref_ldst.go
	}
	g.fail(s.Span, "T.%s is not modelled by the reference", c.Op)
}

// shuffleModes are the warp shuffles the reference computes: the mode
// of tl_shfl and the operand index of the value (TVM's tvm_warp_shuffle
// takes mask, value, lane, width, warp_size; the CUDA functions mask,
// value, lane, width).
var shuffleModes = map[string]byte{
	"cuda.__shfl_sync": 'i', "cuda._shfl_sync": 'i', "tvm_warp_shuffle": 'i',
	"cuda.__shfl_up_sync": 'u', "cuda._shfl_up_sync": 'u', "tvm_warp_shuffle_up": 'u',
	"cuda.__shfl_down_sync": 'd', "cuda._shfl_down_sync": 'd', "tvm_warp_shuffle_down": 'd',
	"cuda.__shfl_xor_sync": 'x', "cuda._shfl_xor_sync": 'x', ir.OpWarpShuffleXor: 'x',
}

// warpCall prints the warp intrinsics whose result is a function of
// other lanes' operands (shuffles, __any_sync) and the special registers
// %laneid and %ctaid; ok false for another call. The other lanes'
// operands are evaluated as their own threads see them: each statement
// of the lockstep model runs its threads in order, so a statement that
// writes what such an operand reads (an Assign or Store of a name the
// shuffle reads) is refused where it is printed (warpReads).
func (g *gen) warpCall(c *ir.Call, t string) (string, ir.DataType, bool) {
	if mode, ok := shuffleModes[c.Op]; ok && len(c.Args) >= 4 {
		u := g.fresh("u") // (a lane of its own: shuffles nest)
		val, typ := g.expr(c.Args[1], u)
		w := g.exprI(c.Args[3], t)
		b := g.exprI(c.Args[2], t)
		return fmt.Sprintf("tl_shfl(%s, '%c', %s, %s, [&](int %s) { return %s; })", t, mode, w, b, u, val), typ, true
	}
	switch c.Op {
	case "cuda.any_sync", "ptx.any_sync":
		if len(c.Args) != 2 {
			return "", ir.DataType{}, false
		}
		u := g.fresh("u")
		in := fmt.Sprintf("(%s) && ((%s >> (%s %% 32)) & 1)", g.guard(u), g.exprI(c.Args[0], t), u)
		return fmt.Sprintf("tl_any(%s, [&](int %s) { return %s; }, [&](int %s) { return %s != 0; })", t, u, in, u, g.exprI(c.Args[1], u)), ir.Int32, true
	case "cuda.cta_sum", "cuda.cta_max", "cuda.cta_min":
		// the CTA's reduction, combined in the generated helper's order;
		// its scratch writes are the helper's own (not modelled: the
		// code around it reads the result)
		if len(c.Args) != 3 {
			return "", ir.DataType{}, false
		}
		nw, ok := ir.ConstInt(c.Args[1])
		if !ok || nw < 1 || nw > 32 || nw*32 != g.nt {
			return "", ir.DataType{}, false
		}
		u := g.fresh("u")
		v, typ := g.expr(c.Args[0], u)
		if !typ.IsFloat() {
			return "", ir.DataType{}, false
		}
		op := map[string]int{"cuda.cta_sum": 0, "cuda.cta_max": 1, "cuda.cta_min": 2}[c.Op]
		return fmt.Sprintf("tl_cta_reduce(%d, %d, %s, [&](int %s) { return (double)(%s); })", op, nw, dtypeEnum(typ), u, v), typ, true
	case "cuda.warp_sum", "cuda.warp_max", "cuda.warp_min":
		// a butterfly over segments of width lanes (the generated
		// helper's order)
		width := int64(32)
		if len(c.Args) == 2 {
			w, ok := ir.ConstInt(c.Args[1])
			if !ok {
				return "", ir.DataType{}, false
			}
			width = w
		}
		if len(c.Args) < 1 || len(c.Args) > 2 || width < 2 || width > 32 || width&(width-1) != 0 {
			return "", ir.DataType{}, false
		}
		u := g.fresh("u")
		v, typ := g.expr(c.Args[0], u)
		if !typ.IsFloat() {
			return "", ir.DataType{}, false
		}
		op := map[string]int{"cuda.warp_sum": 0, "cuda.warp_max": 1, "cuda.warp_min": 2}[c.Op]
		return fmt.Sprintf("tl_warp_reduce(%s, %d, %d, %s, [&](int %s) { return (double)(%s); })", t, op, width, dtypeEnum(typ), u, v), typ, true
	case "cuda.thread_rank":
		// the linear thread index, the lockstep model's thread number
		return "(long long)" + t, ir.Int32, true
	case "cuda.mov_sreg":
		if len(c.Args) != 2 {
			return "", ir.DataType{}, false
		}
		r, _ := c.Args[1].(*ir.StringImm)
		if r == nil {
			return "", ir.DataType{}, false
		}
		switch strings.TrimPrefix(r.Value, "%") {
		case "laneid":
			return "(long long)(" + t + " % 32)", ir.Int32, true
		case "ctaid.x":
			return "(long long)bx", ir.Int32, true
		case "ctaid.y":
			return "(long long)by", ir.Int32, true
		case "ctaid.z":
			return "(long long)bz", ir.Int32, true
		}
	}
	return "", ir.DataType{}, false
}

// warpReads reports whether an operand of a warp intrinsic in e (one
// that reads other lanes: a shuffle, __any_sync) has a part for which
// reads holds.
func warpReads(e ir.Expr, reads func(ir.Expr) bool) bool {
	var walk func(e ir.Expr, inWarp bool) bool
	walk = func(e ir.Expr, inWarp bool) bool {
		if e == nil {
			return false
		}
		if inWarp && reads(e) {
			return true
		}
		switch x := e.(type) {
		case *ir.Binary:
			return walk(x.A, inWarp) || walk(x.B, inWarp)
		case *ir.Not:
			return walk(x.X, inWarp)
		case *ir.Neg:
			return walk(x.X, inWarp)
		case *ir.Cast:
			return walk(x.X, inWarp)
		case *ir.Select:
			return walk(x.Cond, inWarp) || walk(x.A, inWarp) || walk(x.B, inWarp)
		case *ir.Load:
			return slices.ContainsFunc(x.Indices, func(i ir.Expr) bool { return walk(i, inWarp) })
		case *ir.Call:
			_, shfl := shuffleModes[x.Op]
			w := inWarp || shfl || x.Op == "cuda.any_sync" || x.Op == "ptx.any_sync" ||
				x.Op == "cuda.cta_sum" || x.Op == "cuda.cta_max" || x.Op == "cuda.cta_min" ||
				x.Op == "cuda.warp_sum" || x.Op == "cuda.warp_max" || x.Op == "cuda.warp_min"
			return slices.ContainsFunc(x.Args, func(a ir.Expr) bool { return walk(a, w) })
		}
		return false
	}
	return walk(e, false)
}

// syncOpOf is the op of op's synchronisation family when op is one of
// its later spellings: 0.26's T.ptx.cp.async_ group ops, 0.27's PTX
// modifier chains (T.ptx.mbarrier.init.shared.b64,
// T.ptx.mbarrier.arrive.expect_tx.shared.b64, T.ptx.fence.proxy.async_.
// shared__cta, T.ptx.cp.async_.bulk.wait_group.read, ...) and its
// T.cuda.mbarrier_wait; op itself otherwise.
func syncOpOf(op string) string {
	switch op {
	case "ptx.cp.async_.commit_group", "ptx.cp.async_.wait_group":
		return strings.Replace(op, "ptx.cp.async_.", "ptx.cp_async.", 1)
	case "cuda.mbarrier_wait", "cuda.mbarrier_wait_acquire_cluster":
		return ir.OpMbarrierTryWait
	case "ptx.bar.sync", "ptx.barrier.sync", "ptx.bar.sync.aligned", "ptx.barrier.sync.aligned":
		// a (named) barrier: counted as a whole-CTA one, as warp and
		// warpgroup barriers are
		return ir.OpCTASync
	case ir.OpMbarrierInit, ir.OpMbarrierArriveExpect, ir.OpMbarrierArrive, ir.OpMbarrierTryWait,
		ir.OpFenceProxyAsync, ir.OpFenceMbarrierInit:
		return op // 0.25's spellings
	}
	for _, f := range []struct{ prefix, op string }{
		{"ptx.mbarrier.init.", ir.OpMbarrierInit},
		{"ptx.mbarrier.try_wait.", ir.OpMbarrierTryWait},
		{"ptx.mbarrier.test_wait.", ir.OpMbarrierTryWait},
		// arrive, expect_tx, complete_tx: bookkeeping of the phase
		{"ptx.mbarrier.", ir.OpMbarrierArrive},
		{"ptx.fence.mbarrier_init.", ir.OpFenceMbarrierInit},
		// every other fence orders memory, which lockstep execution does
		{"ptx.fence.", ir.OpFenceProxyAsync},
		// an arrive on a named barrier, a register budget: nothing to the
		// lockstep model
		{"ptx.bar.arrive", ir.OpMbarrierArrive},
		{"ptx.barrier.arrive", ir.OpMbarrierArrive},
		{"ptx.setmaxnreg.", ir.OpMbarrierArrive},
		{"ptx.cp.async_.bulk.commit_group", ir.OpCpAsyncBulkCommit},
		{"ptx.cp.async_.bulk.wait_group", ir.OpCpAsyncBulkWait},
	} {
		if strings.HasPrefix(op, f.prefix) {
			return f.op
		}
	}
	return op
}

func (g *gen) ifStmt(s *ir.If) {
	mt, mf := g.fresh("m"), g.fresh("m")
	g.line("{")
	g.indent++
	g.line("bool %s[NT] = {}, %s[NT] = {};", mt, mf)
	g.line("(void)%s; (void)%s;", mt, mf)
	g.perThread()
	g.line("bool c = %s;", g.exprI(s.Cond, "t"))
	g.line("%s[t] = c; %s[t] = !c;", mt, mf)
	g.end()
	saved := g.mask
	g.mask = mt
	g.stmts(s.Then.Stmts)
	if s.Else != nil {
		g.mask = mf
		g.stmts(s.Else.Stmts)
	}
	g.mask = saved
	g.end()
}

// loopScope saves the guard state for a loop body: inside, the guard is
// the loop's stop array alone, which the loop computes from entry (the
// guard at the loop's entry), its break array and its bounds.
func (g *gen) loopScope(body func(entry string)) {
	savedMask, savedStop, savedBrk := g.mask, g.stop, g.brk
	g.stop, g.brk = g.fresh("stop"), g.fresh("brk")
	entry := g.fresh("in")
	g.line("bool %s[NT], %s[NT] = {}, %s[NT] = {};", entry, g.brk, g.stop)
	g.line("(void)%s; (void)%s; (void)%s;", entry, g.brk, g.stop)
	g.line("for (int t = 0; t < NT; t++) %s[t] = %s;", entry, guardWith(savedMask, savedStop, "t"))
	g.mask = ""
	body(entry)
	g.mask, g.stop, g.brk = savedMask, savedStop, savedBrk
}

func guardWith(mask, stop, t string) string {
	var parts []string
	if mask != "" {
		parts = append(parts, mask+"["+t+"]")
	}
	if stop != "" {
		parts = append(parts, "!"+stop+"["+t+"]")
	}
	if len(parts) == 0 {
		return "true"
	}
	return strings.Join(parts, " && ")
}

func (g *gen) forStmt(s *ir.For) {
	g.line("{")
	g.indent++
	// Each thread's bounds, then the union of its iterations.
	lo, hi := g.fresh("lo"), g.fresh("hi")
	g.line("long long %s[NT] = {}, %s[NT] = {};", lo, hi)
	g.perThread()
	min := "0LL"
	if s.Min != nil {
		min = g.exprI(s.Min, "t")
	}
	g.line("%s[t] = %s; %s[t] = %s[t] + (%s);", lo, min, hi, lo, g.exprI(s.Extent, "t"))
	g.end()
	iv := g.names.Name(s.Var, "i_"+s.Var.Name)
	g.vars[s.Var] = &varInfo{name: iv, scalar: true, typ: s.Var.Type}
	g.loopScope(func(entry string) {
		first, last := g.fresh("first"), g.fresh("last")
		g.line("long long %s = 0, %s = 0; bool any = false;", first, last)
		g.line("for (int t = 0; t < NT; t++) if (%s[t] && %s[t] < %s[t]) {", entry, lo, hi)
		g.line("  if (!any || %s[t] < %s) %s = %s[t];", lo, first, first, lo)
		g.line("  if (!any || %s[t] > %s) %s = %s[t];", hi, last, last, hi)
		g.line("  any = true;")
		g.line("}")
		g.line("for (long long %s = %s; any && %s < %s; %s++) {", iv, first, iv, last, iv)
		g.indent++
		g.line("bool live = false;")
		g.line("for (int t = 0; t < NT; t++) {")
		g.line("  %s[t] = !%s[t] || %s[t] || %s < %s[t] || %s >= %s[t];", g.stop, entry, g.brk, iv, lo, iv, hi)
		g.line("  live = live || !%s[t];", g.stop)
		g.line("}")
		g.line("if (!live) {")
		g.line("  bool more = false;")
		g.line("  for (int t = 0; t < NT; t++) more = more || (%s[t] && !%s[t] && %s + 1 < %s[t]);", entry, g.brk, iv, hi)
		g.line("  if (!more) break;")
		g.line("  continue;")
		g.line("}")
		g.stmts(s.Body.Stmts)
		g.end()
	})
	g.end()
}

func (g *gen) whileStmt(s *ir.While) {
	g.line("{")
	g.indent++
	g.loopScope(func(entry string) {
		g.line("for (;;) {")
		g.indent++
		g.line("bool live = false;")
		g.line("for (int t = 0; t < NT; t++) {")
		g.line("  %s[t] = !%s[t] || %s[t];", g.stop, entry, g.brk)
		g.line("  if (!%s[t]) %s[t] = !(%s);", g.stop, g.stop, g.exprI(s.Cond, "t"))
		g.line("  live = live || !%s[t];", g.stop)
		g.line("}")
		g.line("if (!live) break;")
		g.stmts(s.Body.Stmts)
		g.end()
	})
	g.end()
}

// ---- tile calls ----

// groupSize is the number of threads that run one instance of a call of
// the given scope.
func (g *gen) groupSize(scope string) (int64, bool) {
	switch scope {
	case "thread":
		return 1, true
	case "warp":
		return 32, true
	case "warpgroup":
		return 128, true
	case "cta":
		return g.nt, true
	}
	return 0, false
}

func (g *gen) tileCall(c *ir.TileCall) {
	gs, ok := g.groupSize(c.Scope)
	if !ok {
		g.fail(c.Span, "Tx.%s.%s: %s-scope calls are not modelled", c.Scope, c.Op, c.Scope)
		return
	}
	if gs > g.nt || g.nt%gs != 0 {
		g.fail(c.Span, "Tx.%s.%s: %d threads do not divide into %s groups", c.Scope, c.Op, g.nt, c.Scope)
		return
	}
	label := "Tx." + c.Op
	if c.Scope != "thread" {
		label = "Tx." + c.Scope + "." + c.Op
	}
	g.line("// %s", label)
	g.line("tl_site = %d;", g.site(c.Span, label))
	g.line("for (int g0 = 0; g0 < NT; g0 += %d) {", gs)
	g.indent++
	g.line("int lead = -1;")
	g.line("for (int t = g0; t < g0 + %d; t++) if (%s) { lead = t; break; }", gs, g.guard("t"))
	g.line("if (lead < 0) continue;")
	g.line("const int t = lead;")
	if gs == 1 {
		g.line("tl_actor = t;")
	} else {
		g.line("tl_actor = -(++tl_seq);")
	}
	switch c.Op {
	case "copy", "copy_async":
		g.copyCall(c, gs)
	case "gemm":
		g.gemmCall(c)
	case "sum", "max", "min":
		g.reduceCall(c)
	case "permute_layout":
		g.permuteCall(c)
	default:
		g.ewiseCall(c)
	}
	g.end()
	// An elementwise call on shared memory ends with a barrier of its
	// scope (spec §4.4, emit_smem's trailing sync).
	if len(c.Args) == 0 {
		return
	}
	if dst, ok := c.Args[0].(*ir.Region); ok && gs > 1 && c.Op != "copy" && c.Op != "copy_async" && strings.HasPrefix(dst.Buf.Scope, "shared") {
		g.line("tl_epoch++;")
	}
}

// region declares a Region for r (starts evaluated for thread t) and
// returns its name.
func (g *gen) region(r *ir.Region) string {
	bn := g.buf(r.Buf, r.Span)
	name := g.fresh("r")
	mins := make([]string, len(r.Min))
	exts := make([]string, len(r.Extent))
	for i := range r.Min {
		mins[i] = g.exprI(r.Min[i], "t")
		exts[i] = g.exprI(r.Extent[i], "t")
	}
	if len(mins) == 0 {
		mins, exts = []string{"0"}, []string{"1"}
	}
	rank := len(r.Min)
	if rank == 0 {
		rank = 1
	}
	g.line("Region %s = {&%s, %d, {%s}, {%s}};", name, bn, rank, strings.Join(mins, ", "), strings.Join(exts, ", "))
	return name
}

func (g *gen) copyCall(c *ir.TileCall, gs int64) {
	if len(c.Args) < 2 {
		g.fail(c.Span, "Tx.%s with %d arguments", c.Op, len(c.Args))
		return
	}
	dst, ok1 := c.Args[0].(*ir.Region)
	src, ok2 := c.Args[1].(*ir.Region)
	if !ok1 || !ok2 {
		g.fail(c.Span, "Tx.%s operands must be regions", c.Op)
		return
	}
	nan, reduce := 0, 0
	var pred ir.Expr // predicate= (ldgsts): each thread's own
	zfill := 0
	for _, kv := range c.Config {
		switch kv.Key {
		case "oob":
			if s, ok := kv.Value.(*ir.StringImm); ok && s.Value == "nan" {
				nan = 1
			}
		case "use_tma_reduce":
			s, ok := kv.Value.(*ir.StringImm)
			switch {
			case !ok:
				g.fail(kv.Span, "use_tma_reduce must be a string")
			case s.Value == "add":
				reduce = 1
			case s.Value == "min":
				reduce = 2
			case s.Value == "max":
				reduce = 3
			default:
				g.fail(kv.Span, "TMA reduction %q is not modelled", s.Value)
			}
		case "cta_mask":
			g.fail(kv.Span, "multicast TMA (cta_mask) writes other CTAs' shared memory; the reference runs one CTA at a time")
		case "gather4":
			g.fail(kv.Span, "gather4 copies are not modelled")
		case "predicate":
			// ldgsts (0.26+): each thread's cp.async is guarded (or zero-filled)
			// by its own value of the predicate, over the elements the
			// variant's partition gives it, which the reference does not
			// know: tl_copy_pred
			pred = kv.Value
		case "fill_mode":
			if s, ok := kv.Value.(*ir.StringImm); ok && s.Value == "zero" {
				zfill = 1
			}
		}
	}
	d, s := g.region(dst), g.region(src)
	if pred == nil {
		g.line("tl_copy(%s, %s, t, NT, %d, %d);", d, s, nan, reduce)
		return
	}
	if nan != 0 || reduce != 0 {
		g.fail(c.Span, "predicate= with a TMA fill or reduction is not modelled")
		return
	}
	// the predicate of every active thread of the call's group
	yes, no := g.fresh("pyes"), g.fresh("pno")
	g.line("int %s = 0, %s = 0;", yes, no)
	g.line("for (int u = g0; u < g0 + %d; u++) {", gs)
	g.line("  if (!(%s)) continue;", g.guard("u"))
	g.line("  if (%s) %s++; else %s++;", g.exprI(pred, "u"), yes, no)
	g.line("}")
	g.line("tl_copy_pred(%s, %s, t, NT, %s == 0 ? 1 : %s == 0 ? 0 : 2, %d);", d, s, no, yes, zfill)
}

// ---- buffers ----

func (g *gen) buf(b *ir.Buffer, span source.Span) string {
	if n, ok := g.bufs[b]; ok {
		return n
	}
	g.fail(span, "buffer %s is used before its declaration", b.Name)
	return "b_missing"
}

// threadAxes reports whether b's layout places elements on threads.
func (g *gen) threadAxes(b *ir.Buffer) bool {
	var t *layout.TileLayout
	switch l := b.Layout.(type) {
	case *layout.TileLayout:
		t = l
	case *layout.ComposeLayout:
		t = l.Tile
	default:
		return false
	}
	return t.HasThreadAxis()
}

func (g *gen) indexList(idx []ir.Expr, t string) string {
	out := make([]string, len(idx))
	for i, e := range idx {
		out[i] = g.exprI(e, t)
	}
	return strings.Join(out, ", ")
}

// ---- expressions ----

// exprI prints e as an integer-valued C++ expression (indices, bounds,
// conditions).
func (g *gen) exprI(e ir.Expr, t string) string {
	code, typ := g.expr(e, t)
	if typ.IsFloat() {
		return "(long long)(" + code + ")"
	}
	return code
}

// exprD prints e as a double.
func (g *gen) exprD(e ir.Expr, t string) string {
	code, typ := g.expr(e, t)
	if typ.IsFloat() {
		return code
	}
	return "(double)(" + code + ")"
}

// rounded prints e converted to type to (the value a variable of that type
// holds).
func (g *gen) rounded(to ir.DataType, e ir.Expr, t string) string {
	code, typ := g.expr(e, t)
	if to.IsFloat() {
		if !typ.IsFloat() {
			code = "(double)(" + code + ")"
		}
		return fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(to), code)
	}
	if typ.IsFloat() {
		return fmt.Sprintf("(long long)tl_round(%s, %s)", dtypeEnum(to), code)
	}
	return code
}

// binType is TVM's binary typing: a literal takes the other side's type;
// two floats give the wider one (the GPU's C++ promotion); else A's type.
func binType(a, b ir.Expr, ta, tb ir.DataType) ir.DataType {
	switch {
	case isImm(a) && !isImm(b):
		return tb
	case isImm(b) && !isImm(a):
		return ta
	case ta.IsFloat() && tb.IsFloat():
		if tb.Bits > ta.Bits {
			return tb
		}
		return ta
	case tb.IsFloat() && !ta.IsFloat():
		return tb
	}
	return ta
}

func isImm(e ir.Expr) bool {
	switch e.(type) {
	case *ir.IntImm, *ir.FloatImm:
		return true
	}
	return false
}

func floatLit(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NAN"
	case math.IsInf(v, 1):
		return "INFINITY"
	case math.IsInf(v, -1):
		return "(-INFINITY)"
	}
	s := strconv.FormatFloat(v, 'g', 17, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return "(" + s + ")"
}

// expr prints e for thread t with its type: integer and boolean values are
// long long, floating values double (already rounded to their type).
func (g *gen) expr(e ir.Expr, t string) (string, ir.DataType) {
	switch e := e.(type) {
	case *ir.IntImm:
		if e.Type.IsFloat() {
			return floatLit(float64(e.Value)), e.Type
		}
		return fmt.Sprintf("%dLL", e.Value), e.Type
	case *ir.FloatImm:
		if !e.Type.IsFloat() {
			return fmt.Sprintf("%dLL", int64(e.Value)), e.Type
		}
		return fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(e.Type), floatLit(e.Value)), e.Type
	case *ir.Var:
		v, ok := g.vars[e]
		switch {
		case !ok:
			g.fail(e.Span, "variable %s is not modelled", e.Name)
			return "0", ir.Int32
		case v.handle:
			g.fail(e.Span, "pointer %s used as a value", e.Name)
			return "0", ir.Int32
		case v.scalar:
			return v.name, v.typ
		}
		return v.name + "[" + t + "]", v.typ
	case *ir.Binary:
		return g.binary(e, t)
	case *ir.Not:
		return "(!(" + g.exprI(e.X, t) + "))", ir.BoolT
	case *ir.Neg:
		c, typ := g.expr(e.X, t)
		return "(-(" + c + "))", typ
	case *ir.Cast:
		return g.rounded(e.To, e.X, t), e.To
	case *ir.Select:
		c := g.exprI(e.Cond, t)
		a, ta := g.expr(e.A, t)
		b, tb := g.expr(e.B, t)
		if ta.IsFloat() != tb.IsFloat() {
			a, b = g.exprD(e.A, t), g.exprD(e.B, t)
			ta = float64T
		}
		return "(" + c + " ? " + a + " : " + b + ")", ta
	case *ir.Load:
		bn := g.buf(e.Buf, e.Span)
		if g.threadAxes(e.Buf) {
			g.fail(e.Span, "a direct load from %s, whose layout has thread axes", e.Buf.Name)
		}
		code := fmt.Sprintf("tl_rd(%s, tl_at(%s, {%s}, %s, NT))", bn, bn, g.indexList(e.Indices, t), t)
		if !e.Buf.Dtype.IsFloat() {
			code = fmt.Sprintf("tl_rd_i(%s, tl_at(%s, {%s}, %s, NT))", bn, bn, g.indexList(e.Indices, t), t)
		}
		return code, e.Buf.Dtype
	case *ir.Call:
		return g.call(e, t)
	case *ir.ThreadIndex:
		switch e.Axis {
		case "tx":
			return "(long long)" + t, ir.Int32
		case "laneid":
			return "(long long)(" + t + " % 32)", ir.Int32
		case "warpid":
			return "(long long)(" + t + " / 32)", ir.Int32
		case "wgid":
			return "(long long)(" + t + " / 128)", ir.Int32
		case "tid_in_wg":
			return "(long long)(" + t + " % 128)", ir.Int32
		case "wid_in_wg":
			return "(long long)((" + t + " / 32) % 4)", ir.Int32
		case "bx", "by", "bz":
			return e.Axis, ir.Int32
		}
	}
	g.fail(e.Pos(), "expression %T is not modelled by the reference", e)
	return "0", ir.Int32
}

func (g *gen) binary(e *ir.Binary, t string) (string, ir.DataType) {
	a, ta := g.expr(e.A, t)
	b, tb := g.expr(e.B, t)
	switch e.Op {
	case ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE:
		op := map[ir.BinOp]string{ir.EQ: "==", ir.NE: "!=", ir.LT: "<", ir.LE: "<=", ir.GT: ">", ir.GE: ">="}[e.Op]
		if ta.IsFloat() != tb.IsFloat() {
			a, b = g.exprD(e.A, t), g.exprD(e.B, t)
		}
		return "(long long)(" + a + " " + op + " " + b + ")", ir.BoolT
	case ir.And:
		return "(long long)(" + g.exprI(e.A, t) + " && " + g.exprI(e.B, t) + ")", ir.BoolT
	case ir.Or:
		return "(long long)(" + g.exprI(e.A, t) + " || " + g.exprI(e.B, t) + ")", ir.BoolT
	}
	typ := binType(e.A, e.B, ta, tb)
	if typ.IsFloat() {
		a, b = g.exprD(e.A, t), g.exprD(e.B, t)
		// A literal operand takes the other side's type first.
		if isImm(e.A) && !isImm(e.B) {
			a = fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(typ), a)
		}
		if isImm(e.B) && !isImm(e.A) {
			b = fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(typ), b)
		}
		var v string
		switch e.Op {
		case ir.Add:
			v = a + " + " + b
		case ir.Sub:
			v = a + " - " + b
		case ir.Mul:
			v = a + " * " + b
		case ir.Div:
			v = a + " / " + b
		case ir.Min:
			v = "std::fmin(" + a + ", " + b + ")"
		case ir.Max:
			v = "std::fmax(" + a + ", " + b + ")"
		case ir.FloorDiv:
			v = "std::floor(" + a + " / " + b + ")"
		case ir.FloorMod:
			v = a + " - std::floor(" + a + " / " + b + ") * " + b
		default:
			g.fail(e.Span, "operator on floating values is not modelled")
			return "0", typ
		}
		return fmt.Sprintf("tl_round(%s, %s)", dtypeEnum(typ), v), typ
	}
	a, b = g.exprI(e.A, t), g.exprI(e.B, t)
	switch e.Op {
	case ir.Add:
		return wrapInt("("+a+" + "+b+")", typ), typ
	case ir.Sub:
		return wrapInt("("+a+" - "+b+")", typ), typ
	case ir.Mul:
		return wrapInt("("+a+" * "+b+")", typ), typ
	case ir.FloorDiv:
		return "tl_floordiv(" + a + ", " + b + ")", typ
	case ir.FloorMod:
		return "tl_floormod(" + a + ", " + b + ")", typ
	case ir.Div:
		return "((double)(" + a + ") / (double)(" + b + "))", float64T
	case ir.Min:
		return "std::min<long long>(" + a + ", " + b + ")", typ
	case ir.Max:
		return "std::max<long long>(" + a + ", " + b + ")", typ
	case ir.BitAnd:
		return "(" + a + " & " + b + ")", typ
	case ir.BitOr:
		return "(" + a + " | " + b + ")", typ
	case ir.BitXor:
		return "(" + a + " ^ " + b + ")", typ
	case ir.Shl:
		return wrapInt("("+a+" << "+b+")", typ), typ
	case ir.Shr:
		return "(" + a + " >> " + b + ")", typ
	}
	g.fail(e.Span, "operator %d is not modelled", e.Op)
	return "0", typ
}

// mathFn is the host function of a math intrinsic.
var mathFn = map[string]string{ir.OpSqrt: "std::sqrt", ir.OpExp: "std::exp", ir.OpExp2: "std::exp2", ir.OpLog2: "std::log2"}

func (g *gen) call(c *ir.Call, t string) (string, ir.DataType) {
	if f, ok := mathFn[c.Op]; ok && len(c.Args) == 1 {
		x := g.exprD(c.Args[0], t)
		typ := c.Type
		if !typ.IsFloat() {
			typ = ir.Float32
		}
		return fmt.Sprintf("tl_round(%s, %s(%s))", dtypeEnum(typ), f, x), typ
	}
	if c.Op == ir.OpElectSync {
		return fmt.Sprintf("(long long)tl_elect(%s, [&](int u) { return %s; })", t, g.guard("u")), ir.Int32
	}
	if c.Op == ir.OpFilter && len(c.Args) == 2 {
		// T.filter(var, pred) narrows the dispatcher's exec context; as
		// a value it is pred (the dispatch pass's RewriteFilterCalls)
		return g.expr(c.Args[1], t)
	}
	if code, typ, ok := g.warpCall(c, t); ok {
		return code, typ
	}
	if c.Op == "cuda.ldg" {
		if code, typ, ok := g.ldgValue(c, t); ok {
			return code, typ // ref_ldst.go
		}
	}
	g.fail(c.Span, "T.%s in an expression is not modelled by the reference", c.Op)
	return "0", ir.Int32
}

var float64T = ir.DataType{Code: ir.Float, Bits: 64}

// launchData is buffer parameter b's contents in the launch fn's bind
// line gives (ir.Func.LaunchData), nil when it gives none.
func launchData(fn *ir.Func, b *ir.Buffer) []int64 {
	for _, d := range fn.LaunchData {
		if d.Buf == b {
			return d.Values
		}
	}
	return nil
}

// launchValue is scalar parameter v's value in the launch fn's bind line
// gives (ir.Func.LaunchArgs).
func launchValue(fn *ir.Func, v *ir.Var) (int64, bool) {
	for _, a := range fn.LaunchArgs {
		if a.Var == v {
			return a.Value, true
		}
	}
	return 0, false
}

// wrapInt wraps an integer result to its IR type's width, as the GPU's
// arithmetic does (an int32 sum of two int32 values past 2^31 is
// negative); 64-bit and boolean results are kept.
func wrapInt(code string, typ ir.DataType) string {
	if (typ.Code != ir.Int && typ.Code != ir.UInt) || typ.Bits <= 0 || typ.Bits >= 64 {
		return code
	}
	return fmt.Sprintf("tl_wrap(%s, %d, %d)", code, typ.Bits, map[bool]int{true: 1}[typ.Code == ir.Int])
}
