package memory

import (
	"slices"

	"github.com/tilels/tilels/ir"
)

// Trip classes from every loop (tripClasses reads one). A persistent
// kernel's tile loop may run once in every CTA while the loops inside it
// run as many times as the CTA's tile says: flash_attention4.py's causal
// cases give each CTA one tile (`while linear_idx < num_tasks: ...;
// linear_idx = num_tasks`) and loop over `min(8, ((m_block + 1) * 32 +
// 127) // 128)` key blocks, m_block a register the scheduler sets from
// the CTA's index before the loop. allTripClasses evaluates, in every
// CTA, the trips of every loop whose bounds read the CTA's index (the
// scan of ctaBoundLoops), each where the loop stands: its bounds' scalars
// and register elements replaced by the values their one reaching
// definition gives (tripResolver.reaching), through lets, assignments,
// stores of one element and enclosing loops that run once, down to the
// CTA's scope ids, the host constants and the contents bind lines give
// buffer parameters (launch data), compiled once and evaluated in every
// CTA. One of the loops, the one of the most
// different counts, is the classes' parameter; every other loop's trips
// must be a whole affine function of its (so that the CTAs of a class
// run every loop as many times). Not a proof: classPlan's figures stay
// an estimate, and its three-point check guards the extrapolation.

// maxTripDepth bounds the definitions tripResolver.reaching follows for
// one value (a chain of lets and assignments).
const maxTripDepth = 48

// tripSite is a loop whose trips read the CTA's index, with the path of
// blocks that leads to it.
type tripSite struct {
	loop ir.Stmt
	path []tripFrame
}

// tripFrame is a block on the path to a statement: the statement at idx
// is (or holds) the next frame's; owner is the loop or branch whose body
// the block is (nil: the kernel's body).
type tripFrame struct {
	block *ir.Block
	idx   int
	owner ir.Stmt
}

// allTripClasses returns the CTAs' classes by the trips of every loop
// that reads the CTA's index (the comment above), ok false when one of
// those loops' trips is not read in every CTA, when every one runs as
// many times in every CTA, or when the loops' trips are not affine
// functions of one of them.
func (m *machine) allTripClasses(body *ir.Block, cluster int64, uniform func(*ir.While) bool) ([]tripClass, bool) {
	sites := m.ctaLoopSites(body, cluster, uniform)
	n := m.ctaCount()
	if len(sites) == 0 || n > maxTripCTAs {
		return nil, false
	}
	known, axes := m.ctaAxes(body)
	r := &tripResolver{known: known, axes: len(m.hosts), data: m.data}
	// the sites' forms, each distinct one once (flash_attention4.py's
	// roles loop over the same count)
	var forms []*tripForm
	for _, s := range sites {
		f, ok := r.form(s.loop, s.path)
		if !ok {
			return nil, false
		}
		if !slices.ContainsFunc(forms, f.same) {
			forms = append(forms, f)
		}
	}
	if !slices.ContainsFunc(forms, func(f *tripForm) bool { return !f.constant() }) {
		return nil, false // every loop runs as many times in every CTA
	}
	// compiled over the scope ids (the forms hold the host constants
	// folded): a launch of 1,024 CTAs evaluates each form 1,024 times
	vars := make([]*ir.Var, 0, len(known)-len(m.hosts))
	for _, c := range known[len(m.hosts):] {
		vars = append(vars, c.v)
	}
	var once, each []*compiledForm
	for _, f := range r.once {
		once = append(once, f.compile(vars, m.data))
	}
	for _, f := range forms {
		each = append(each, f.compile(vars, m.data))
	}
	trips := make([][]int64, len(forms)) // per form, per CTA
	for i := range trips {
		trips[i] = make([]int64, n)
	}
	vals := make([]int64, len(vars))
	for cta := range n {
		m.setCTAAxes(known, axes, cta)
		for i := range vals {
			vals[i] = known[len(m.hosts)+i].val
		}
		for _, f := range once {
			if t, ok := f.at(vals); !ok || t > 1 {
				return nil, false
			}
		}
		for i, f := range each {
			t, ok := f.at(vals)
			if !ok {
				return nil, false
			}
			trips[i][cta] = t
		}
	}
	// the parameter: the site of the most different counts
	best, most := 0, 0
	for i, ts := range trips {
		d := distinct(ts)
		if d > most {
			best, most = i, d
		}
	}
	p := trips[best]
	for i, ts := range trips {
		if i != best && !affineOf(ts, p) {
			return nil, false
		}
	}
	var out []tripClass
	for cta, t := range p {
		j := slices.IndexFunc(out, func(c tripClass) bool { return c.trips == t })
		if j < 0 {
			out = append(out, tripClass{trips: t, first: int64(cta)})
			j = len(out) - 1
		}
		out[j].n++
	}
	return out, true
}

// distinct is how many different values ts holds.
func distinct(ts []int64) int {
	seen := map[int64]bool{}
	for _, t := range ts {
		seen[t] = true
	}
	return len(seen)
}

// affineOf reports whether ys[i] = a + b * xs[i] for whole a and b.
func affineOf(ys, xs []int64) bool {
	i := slices.IndexFunc(xs, func(x int64) bool { return x != xs[0] })
	if i < 0 {
		return !slices.ContainsFunc(ys, func(y int64) bool { return y != ys[0] })
	}
	dy, dx := ys[i]-ys[0], xs[i]-xs[0]
	if dy%dx != 0 {
		return false
	}
	b := dy / dx
	a := ys[0] - b*xs[0]
	for j := range xs {
		if ys[j] != a+b*xs[j] {
			return false
		}
	}
	return true
}

// ctaAxes returns the host constants and, appended to them, the scope
// ids of the CTA's index (set per CTA by setCTAAxes), as tripClasses
// reads them.
func (m *machine) ctaAxes(body *ir.Block) ([]hostConst, []ctaAxis) {
	known := slices.Clone(m.hosts)
	var axes []ctaAxis
	for _, s := range body.Stmts {
		sc, isScope := s.(*ir.ScopeID)
		if !isScope || sc.Kind != ir.CTAID && sc.Kind != ir.ClusterID && sc.Kind != ir.CTAIDInCluster {
			continue
		}
		for d, v := range sc.Vars {
			if d < 3 {
				axes = append(axes, ctaAxis{sc.Kind, d, len(known)})
				known = append(known, hostConst{v: v})
			}
		}
	}
	return known, axes
}

// ctaAxis is a scope id of the CTA's index: its kind, grid dimension and
// place in the known values.
type ctaAxis struct {
	kind ir.ScopeIDKind
	dim  int
	at   int
}

// setCTAAxes gives the scope ids of known the values of CTA cta.
func (m *machine) setCTAAxes(known []hostConst, axes []ctaAxis, cta int64) {
	g, cl := m.launch.Grid, m.launch.Cluster
	co := [3]int64{cta % max(g[0], 1), cta / max(g[0], 1) % max(g[1], 1), cta / (max(g[0], 1) * max(g[1], 1))}
	for _, a := range axes {
		v := co[a.dim]
		switch a.kind {
		case ir.ClusterID:
			v /= max(cl[a.dim], 1)
		case ir.CTAIDInCluster:
			v %= max(cl[a.dim], 1)
		}
		known[a.at].val = v
	}
}

// ctaLoopSites returns every loop of body whose bounds read the CTA's
// index (ctaBoundLoops' scan, every such loop instead of the first),
// with its path.
func (m *machine) ctaLoopSites(body *ir.Block, cluster int64, uniform func(*ir.While) bool) []tripSite {
	bound := map[ir.Stmt]bool{}
	ctaBoundLoopsAll(body, cluster, uniform, func(s ir.Stmt) { bound[s] = true })
	if len(bound) == 0 {
		return nil
	}
	var out []tripSite
	var path []tripFrame
	var walk func(b *ir.Block, owner ir.Stmt)
	walk = func(b *ir.Block, owner ir.Stmt) {
		if b == nil {
			return
		}
		path = append(path, tripFrame{block: b, owner: owner})
		top := len(path) - 1
		for i, s := range b.Stmts {
			path[top].idx = i
			if bound[s] {
				out = append(out, tripSite{loop: s, path: slices.Clone(path)})
			}
			switch s := s.(type) {
			case *ir.Block:
				walk(s, nil)
			case *ir.For:
				walk(s.Body, s)
			case *ir.While:
				walk(s.Body, s)
			case *ir.If:
				walk(s.Then, s)
				walk(s.Else, s)
			case *ir.Lowered:
				walk(s.Body, nil)
			}
		}
		path = path[:top]
	}
	walk(body, nil)
	return out
}

// tripForm is how many times a loop runs, in closed form over the CTA's
// scope ids and the host constants (tripResolver): a for loop's extent,
// or a while loop's index from v0 below hi by step, or (once) a while
// loop whose index the body sets to a constant past the bound: it runs
// once when v0 < hi.
type tripForm struct {
	ext, v0, hi ir.Expr
	step        int64
	once        bool
}

// same reports whether f and g are the same form.
func (f *tripForm) same(g *tripForm) bool {
	return f.step == g.step && f.once == g.once && sameExpr(f.ext, g.ext) && sameExpr(f.v0, g.v0) && sameExpr(f.hi, g.hi)
}

// sameExpr reports whether a and b are the same closed form (tripResolver's:
// constants, variables and the operators it builds).
func sameExpr(a, b ir.Expr) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case *ir.IntImm:
		c, ok := b.(*ir.IntImm)
		return ok && c.Value == a.Value
	case *ir.Var:
		return ir.Expr(a) == b
	case *ir.Binary:
		c, ok := b.(*ir.Binary)
		return ok && c.Op == a.Op && sameExpr(a.A, c.A) && sameExpr(a.B, c.B)
	case *ir.Select:
		c, ok := b.(*ir.Select)
		return ok && sameExpr(a.Cond, c.Cond) && sameExpr(a.A, c.A) && sameExpr(a.B, c.B)
	case *ir.Load:
		c, ok := b.(*ir.Load)
		return ok && c.Buf == a.Buf && sameExpr(a.Indices[0], c.Indices[0])
	}
	return false
}

// tripFn is a closed form compiled: its value given the values of the
// CTA's scope ids (tripResolver's known past the host constants).
type tripFn func(vals []int64) (int64, bool)

// compileTrip compiles e, a closed form whose variables are axes' (vars).
func compileTrip(e ir.Expr, vars []*ir.Var, data map[*ir.Buffer][]int64) tripFn {
	switch e := e.(type) {
	case nil:
		return nil
	case *ir.Load:
		vals, i := data[e.Buf], compileTrip(e.Indices[0], vars, data)
		return func(v []int64) (int64, bool) {
			x, ok := i(v)
			if !ok || x < 0 || x >= int64(len(vals)) {
				return 0, false
			}
			return vals[x], true
		}
	case *ir.IntImm:
		v := e.Value
		return func([]int64) (int64, bool) { return v, true }
	case *ir.Var:
		i := slices.Index(vars, e)
		if i < 0 {
			return func([]int64) (int64, bool) { return 0, false }
		}
		return func(vals []int64) (int64, bool) { return vals[i], true }
	case *ir.Binary:
		a, b, op := compileTrip(e.A, vars, data), compileTrip(e.B, vars, data), e.Op
		return func(vals []int64) (int64, bool) {
			x, ok := a(vals)
			if !ok {
				return 0, false
			}
			y, ok := b(vals)
			if !ok {
				return 0, false
			}
			v, why := scalarBinary(op, x, y)
			return v, why == ""
		}
	case *ir.Select:
		c, a, b := compileTrip(e.Cond, vars, data), compileTrip(e.A, vars, data), compileTrip(e.B, vars, data)
		return func(vals []int64) (int64, bool) {
			x, ok := c(vals)
			if !ok {
				return 0, false
			}
			if x != 0 {
				return a(vals)
			}
			return b(vals)
		}
	}
	return func([]int64) (int64, bool) { return 0, false }
}

// compiledForm is a tripForm's parts compiled (compileTrip).
type compiledForm struct {
	ext, v0, hi tripFn
	step        int64
	once        bool
}

func (f *tripForm) compile(vars []*ir.Var, data map[*ir.Buffer][]int64) *compiledForm {
	return &compiledForm{ext: compileTrip(f.ext, vars, data), v0: compileTrip(f.v0, vars, data), hi: compileTrip(f.hi, vars, data), step: f.step, once: f.once}
}

// at returns the trips of f in the CTA whose scope ids are vals.
func (f *compiledForm) at(vals []int64) (int64, bool) {
	if f.ext != nil {
		e, ok := f.ext(vals)
		return max(e, 0), ok
	}
	v0, ok := f.v0(vals)
	if !ok {
		return 0, false
	}
	hi, ok := f.hi(vals)
	if !ok {
		return 0, false
	}
	switch {
	case v0 >= hi:
		return 0, true
	case f.once:
		return 1, true
	}
	return (hi - v0 + f.step - 1) / f.step, true
}

// constant reports whether f reads no variable (the same in every CTA).
func (f *tripForm) constant() bool {
	for _, e := range []ir.Expr{f.ext, f.v0, f.hi} {
		found := false
		if e != nil {
			walkExpr(e, func(x ir.Expr) {
				switch x.(type) {
				case *ir.Var, *ir.Load:
					found = true
				}
			})
		}
		if found {
			return false
		}
	}
	return true
}

// tripResolver turns loops' trips into closed forms (tripForm), each
// variable and register element replaced by the value of its reaching
// definition, once for the kernel; once holds the while loops whose
// first iteration's values a form reads, each of which must run at most
// once in every CTA.
type tripResolver struct {
	known []hostConst // the host constants, then the CTA's scope ids
	axes  int         // where the scope ids begin in known
	depth int
	once  []*tripForm
	sets  map[ir.Stmt]*setInfo   // (setsIn)
	data  map[*ir.Buffer][]int64 // (machine.data)
	memo  map[reachKey]reached   // (reaching)
}

// reachKey is a value read at a place: a scalar, or a register element
// (its storage and constant indices), and the statement of the block it
// is read before (the path to a block is the same wherever it is met).
type reachKey struct {
	v     *ir.Var
	root  *ir.Buffer
	elem  [4]int64
	block *ir.Block
	idx   int
}

type reached struct {
	e  ir.Expr
	ok bool
}

// setInfo is what a statement and those inside it may set (setsWithin's
// rule): scalars, and register storage by root.
type setInfo struct {
	vars  map[*ir.Var]bool
	roots map[*ir.Buffer]bool
}

// setsIn is setsWithin, each statement's walk made once.
func (r *tripResolver) setsIn(s ir.Stmt, x ir.Expr) bool {
	in := r.sets[s]
	if in == nil {
		in = newSetInfo(s)
		if r.sets == nil {
			r.sets = map[ir.Stmt]*setInfo{}
		}
		r.sets[s] = in
	}
	return in.has(x)
}

// newSetInfo walks s and the statements inside it.
func newSetInfo(s ir.Stmt) *setInfo {
	in := &setInfo{vars: map[*ir.Var]bool{}, roots: map[*ir.Buffer]bool{}}
	note := func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Let:
			in.vars[st.Var] = true
		case *ir.Assign:
			in.vars[st.Var] = true
		case *ir.For:
			in.vars[st.Var] = true
		case *ir.Store:
			in.roots[rootOf(st.Buf)] = true
		}
		forExprs(st, func(e ir.Expr) {
			walkExpr(e, func(y ir.Expr) {
				if a, ok := y.(*ir.AddressOf); ok {
					in.roots[rootOf(a.Buf)] = true
				}
			})
		})
	}
	note(s)
	switch s := s.(type) {
	case *ir.Block:
		ir.WalkStmts(s, note)
	case *ir.For:
		ir.WalkStmts(s.Body, note)
	case *ir.While:
		ir.WalkStmts(s.Body, note)
	case *ir.If:
		ir.WalkStmts(s.Then, note)
		ir.WalkStmts(s.Else, note)
	case *ir.Lowered:
		ir.WalkStmts(s.Body, note)
	}
	return in
}

// has reports whether x may be set (a scalar, or a register element by
// its storage).
func (in *setInfo) has(x ir.Expr) bool {
	switch x := x.(type) {
	case *ir.Var:
		return in.vars[x]
	case *ir.Load:
		return in.roots[rootOf(x.Buf)]
	}
	return true
}

// form returns the closed form of site's loop's trips, the first time
// control reaches it.
func (r *tripResolver) form(loop ir.Stmt, path []tripFrame) (*tripForm, bool) {
	switch l := loop.(type) {
	case *ir.For:
		e, ok := r.resolve(l.Extent, path)
		return &tripForm{ext: e}, ok
	case *ir.While:
		cond, ok := l.Cond.(*ir.Binary)
		if !ok || cond.Op != ir.LT && cond.Op != ir.LE || l.Body == nil || len(l.Body.Stmts) == 0 {
			return nil, false
		}
		hi, ok := r.resolve(cond.B, path)
		if !ok {
			return nil, false
		}
		if cond.Op == ir.LE {
			hi = &ir.Binary{Op: ir.Add, A: hi, B: &ir.IntImm{Value: 1}}
		}
		v0, ok := r.resolve(cond.A, path)
		if !ok {
			return nil, false
		}
		// the index's last assignment in the body: a constant past the
		// bound (one tile in every CTA), or the index plus a step
		last := l.Body.Stmts[len(l.Body.Stmts)-1]
		var val ir.Expr
		switch x := last.(type) {
		case *ir.Assign:
			if v, isVar := cond.A.(*ir.Var); isVar && x.Var == v {
				val = x.Value
			}
		case *ir.Store:
			if ld, isLoad := cond.A.(*ir.Load); isLoad && sameElem(x.Buf, x.Indices, ld) {
				val = x.Value
			}
		}
		if val == nil || jumpsIn(l.Body) || assignsBefore(l.Body, cond.A, last) {
			return nil, false
		}
		f := &tripForm{v0: v0, hi: hi}
		if c, ok := foldHost(val, r.known[:r.axes]); ok {
			// past every bound the CTAs see: checked where it runs
			f.once = true
			f.ext = nil
			return f, r.constPast(c, hi)
		}
		add, ok := val.(*ir.Binary)
		if !ok || add.Op != ir.Add || !sameValue(add.A, cond.A) {
			return nil, false
		}
		step, ok := foldHost(add.B, r.known[:r.axes])
		if !ok || step <= 0 {
			return nil, false
		}
		f.step = step
		return f, true
	}
	return nil, false
}

// constPast reports whether c is at least hi, hi a host constant (a
// bound that reads the CTA's index is not taken).
func (r *tripResolver) constPast(c int64, hi ir.Expr) bool {
	h, ok := foldHost(hi, r.known[:r.axes])
	return ok && c >= h
}

// resolve returns e with its variables and register elements replaced
// by the values of their reaching definitions where path leads, down to
// the CTA's scope ids and the host constants.
func (r *tripResolver) resolve(e ir.Expr, path []tripFrame) (ir.Expr, bool) {
	switch e := e.(type) {
	case *ir.IntImm:
		return e, true
	case *ir.Var:
		for i, c := range r.known {
			if c.v == e {
				if i < r.axes {
					return &ir.IntImm{Value: c.val}, true // a host constant
				}
				return e, true
			}
		}
		return r.reaching(e, path)
	case *ir.Load:
		if _, bound := r.data[e.Buf]; bound && len(e.Indices) == 1 {
			// an element of contents a bind line gives (launchLoad)
			i, ok := r.resolve(e.Indices[0], path)
			if !ok {
				return nil, false
			}
			return &ir.Load{Buf: e.Buf, Indices: []ir.Expr{i}}, true
		}
		if e.Buf.Scope != "local" {
			return nil, false
		}
		for _, x := range e.Indices {
			if _, ok := ir.ConstInt(x); !ok {
				return nil, false
			}
		}
		return r.reaching(e, path)
	case *ir.Cast:
		if isIntType(e.To) {
			return r.resolve(e.X, path)
		}
	case *ir.Binary:
		a, ok := r.resolve(e.A, path)
		if !ok {
			return nil, false
		}
		b, ok := r.resolve(e.B, path)
		if !ok {
			return nil, false
		}
		if x, ok := a.(*ir.IntImm); ok {
			if y, ok := b.(*ir.IntImm); ok {
				if v, why := scalarBinary(e.Op, x.Value, y.Value); why == "" {
					return &ir.IntImm{Value: v}, true
				}
				return nil, false
			}
		}
		if a == e.A && b == e.B {
			return e, true
		}
		return &ir.Binary{Op: e.Op, A: a, B: b, Span: e.Span}, true
	case *ir.Select:
		c, ok := r.resolve(e.Cond, path)
		if !ok {
			return nil, false
		}
		a, ok := r.resolve(e.A, path)
		if !ok {
			return nil, false
		}
		b, ok := r.resolve(e.B, path)
		if !ok {
			return nil, false
		}
		return &ir.Select{Cond: c, A: a, B: b}, true
	}
	return nil, false
}

// reaching resolves the scalar or register element x where path leads:
// the value of the last statement before it, on the path, that sets x (a
// let, an assignment, a store of that element), when no statement
// between them may set it otherwise. Leaving a loop's body is allowed
// only for a loop that sets x nowhere, or a while loop that runs once in
// every CTA (its later iterations would see other values: r.once); a for
// loop's variable has no one value.
func (r *tripResolver) reaching(x ir.Expr, path []tripFrame) (ir.Expr, bool) {
	last := path[len(path)-1]
	k := reachKey{block: last.block, idx: last.idx}
	switch x := x.(type) {
	case *ir.Var:
		k.v = x
	case *ir.Load:
		if len(x.Indices) > len(k.elem) {
			return nil, false
		}
		k.root = x.Buf
		for i, ix := range x.Indices {
			k.elem[i], _ = ir.ConstInt(ix)
		}
	}
	if got, ok := r.memo[k]; ok {
		return got.e, got.ok
	}
	e, ok := r.reachingOnce(x, path)
	if r.memo == nil {
		r.memo = map[reachKey]reached{}
	}
	r.memo[k] = reached{e, ok}
	return e, ok
}

func (r *tripResolver) reachingOnce(x ir.Expr, path []tripFrame) (ir.Expr, bool) {
	if r.depth >= maxTripDepth {
		return nil, false
	}
	r.depth++
	defer func() { r.depth-- }()
	for f := len(path) - 1; f >= 0; f-- {
		fr := path[f]
		for i := fr.idx - 1; i >= 0; i-- {
			s := fr.block.Stmts[i]
			if val, ok := setsDirectly(s, x); ok {
				sub := slices.Clone(path[:f+1])
				sub[f].idx = i
				return r.resolve(val, sub)
			}
			if r.setsIn(s, x) {
				return nil, false // set in a branch or a loop: not one value
			}
		}
		switch o := fr.owner.(type) {
		case *ir.For:
			if v, isVar := x.(*ir.Var); isVar && o.Var == v || r.setsIn(o, x) {
				return nil, false
			}
		case *ir.While:
			if r.setsIn(o, x) {
				// its first iteration's value: the loop must run once
				t, ok := r.form(o, path[:f])
				if !ok || !t.once {
					return nil, false
				}
				r.once = append(r.once, t)
			}
		}
	}
	return nil, false
}

// setsDirectly returns the value s gives x when s is a let, assignment
// or store of x itself.
func setsDirectly(s ir.Stmt, x ir.Expr) (ir.Expr, bool) {
	switch s := s.(type) {
	case *ir.Let:
		if v, ok := x.(*ir.Var); ok && s.Var == v {
			return s.Value, true
		}
	case *ir.Assign:
		if v, ok := x.(*ir.Var); ok && s.Var == v {
			return s.Value, true
		}
	case *ir.Store:
		if r, ok := x.(*ir.Load); ok && sameElem(s.Buf, s.Indices, r) {
			return s.Value, true
		}
	}
	return nil, false
}

// setsWithin reports whether s, or a statement inside it, may set x: a
// let, assignment or for loop of the variable; a store to the register's
// storage (any element), or an intrinsic handed its address.
func setsWithin(s ir.Stmt, x ir.Expr) bool { return newSetInfo(s).has(x) }

// assignsBefore reports whether body sets x anywhere but in its last
// statement, last.
func assignsBefore(body *ir.Block, x ir.Expr, last ir.Stmt) bool {
	for _, s := range body.Stmts {
		if s != last && setsWithin(s, x) {
			return true
		}
	}
	return false
}

// jumpsIn reports whether b holds a break or continue.
func jumpsIn(b *ir.Block) bool {
	jumps := false
	ir.WalkStmts(b, func(st ir.Stmt) {
		switch st.(type) {
		case *ir.Break, *ir.Continue:
			jumps = true
		}
	})
	return jumps
}

// sameValue reports whether a and b are the same scalar or the same
// register element.
func sameValue(a, b ir.Expr) bool {
	if v, ok := b.(*ir.Var); ok {
		return a == ir.Expr(v)
	}
	if r, ok := b.(*ir.Load); ok {
		return sameLoad(a, r)
	}
	return false
}
