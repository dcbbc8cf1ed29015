package memory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tilels/tilels/ir"
)

// The CTAs of a grid run the same code on other data: a kernel indexes
// its global tiles by the CTA index (A[bx*64 + tid]), which moves every
// global address by a fixed amount per CTA. The counting rules do not see
// such a translation when it is a multiple of 32 bytes for global accesses
// (whole sectors move) and of 16 bytes for shared ones (the banks rotate;
// no access of at most 16 bytes changes its alignment, so the misaligned
// check finds the same). ctaShifts proves it from the lowered code with
// warps.go's proof, run once per grid dimension of extent > 1 with that
// dimension's CTA index moving by 1 and every thread axis fixed: values
// are CTA 0's plus a constant per CTA, branches, loop bounds and register
// table indices the same in every CTA. Analyze then executes CTA 0 and
// adds its counts for the others (the worst and first instructions stay
// CTA 0's, as they would: a later CTA's identical counts never replace
// them). TestCTADedup compares the result with executing every CTA.

// ctaShifts returns the period of the launch's CTAs: CTA c counts as CTA
// c % period (0: none does; 1: every CTA counts as CTA 0).
//
// A one-dimensional grid whose CTAs are no translations of their
// neighbours may be of CTAs a few apart: a tile index bx // 4 moves by
// one every four CTAs (cases_jit_configs' m0 = bx // ceildiv(N, BLK_N) *
// BLK_M), a 16-byte row per CTA by a whole sector every two. The proof
// is then tried with the CTA index moving by 2, 4, 8 or 16, and by the
// constant divisors of the body's divisions and remainders, each at most
// half the grid; Analyze executes that many CTAs and counts each later
// one as the one a multiple of the period before it. TestCTAPeriods has
// a kernel per rule; TestCTADedup compares with executing every CTA.
func (m *machine) ctaShifts(body *ir.Block) int64 {
	dims := 0
	for d, g := range m.launch.Grid {
		if g <= 1 {
			continue
		}
		dims++
		if !m.ctaProof(body, d, 1) {
			if dims > 1 || m.launch.Grid[1] > 1 || m.launch.Grid[2] > 1 {
				return 0
			}
			for _, per := range ctaPeriods(body, g, max(m.launch.Cluster[d], 1)) {
				if m.ctaProof(body, d, per) {
					return per
				}
			}
			return 0
		}
	}
	return 1
}

// ctaShiftsLarge is ctaShifts for a grid above MaxCTAs: along each
// dimension of more than one CTA, the CTAs its clusters' size apart (1
// without clusters) are proven translations, and the period is that
// size along the first such dimension (CTAs of linear indices a period
// apart have the same rank then: flash_attention_backward.py's grid of
// 64 x 64 CTAs in pairs along x); 0 when a proof fails, or a later
// dimension has clusters too, with the reason the CTAs are then counted
// as CTA 0 multiplied.
func (m *machine) ctaShiftsLarge(body *ir.Block) (int64, string, []tripClass) {
	l := m.launch
	first, cluster := -1, int64(1)
	for d, g := range l.Grid {
		if g > 1 && first < 0 {
			first = d
		}
		if c := max(l.Cluster[d], 1); c > 1 {
			if d != first {
				cluster = 0 // (residues of the linear index are not the ranks)
				break
			}
			cluster = c
		}
	}
	if first < 0 {
		return 1, "", nil
	}
	if cluster == 0 {
		// clusters along a later dimension: period 1 only
		for d, g := range l.Grid {
			if g > 1 && !m.ctaProof(body, d, 1) {
				return 0, whyUnproven, nil
			}
		}
		return 1, "", nil
	}
	uniform := func(w *ir.While) bool {
		p := m.newShiftProof()
		p.warps, p.cta, p.ctaPeriod = 1, first+1, cluster
		return p.uniformTrips(w)
	}
	bound, rank := ctaBoundLoops(body, cluster, uniform)
	if bound != nil {
		why := "a loop runs as many times as the CTA's index says (a persistent schedule): the CTAs may do different amounts of work"
		cs, ok := m.tripClasses(body, bound)
		var t0, all int64
		for _, c := range cs {
			all += c.trips * c.n
		}
		if ok {
			t0 = cs[0].trips
		}
		switch {
		case ok && len(cs) > 1:
			// CTAs of some counts executed (AnalyzeWithin: planClasses);
			// the reason if that fails
			return 0, fmt.Sprintf("a loop runs as many times as the CTA's index says (a persistent schedule): CTA 0 runs it %d %s, so the figures count %d of its iterations where the launch runs %d (%+.0f %%)",
				t0, timesWord(t0), t0*m.ctaCount(), all, 100*float64(t0*m.ctaCount()-all)/float64(max(all, 1))), cs
		case ok:
			// (a loop uniformTrips does not take: a step the host
			// constants fold, flash_attention4.py's cta_count; the
			// proof is not tried for it)
			why = fmt.Sprintf("a loop runs as many times as the CTA's index says (a persistent schedule), %d in every CTA, and the CTAs are not proven to count as CTA 0's translations", t0)
		}
		// the loops inside it, or others (tripkeys.go)
		if cs, ok := m.allTripClasses(body, cluster, uniform); ok && len(cs) > 1 {
			return 0, "a loop runs as many times as the CTA's index says (a persistent schedule): the CTAs may do different amounts of work", cs
		}
		return 0, why, nil
	}
	// every CTA its neighbour's translation (a kernel that does not read
	// its rank), else the clusters' ranks apart (at once for one that
	// does: fp16_bf16_gemm.py's leaders, whose proof with period 1 failed)
	pers := []int64{1, cluster}
	if rank && cluster > 1 {
		pers = pers[1:]
	}
	for _, per := range pers {
		ok := true
		for d, g := range l.Grid {
			if g > 1 && !m.ctaProof(body, d, max(per*boolInt(d == first), 1)) {
				ok = false
				break
			}
		}
		if ok {
			return per, "", nil
		}
		if cluster == 1 {
			break
		}
	}
	return 0, whyUnproven, nil
}

// The CTAs of a persistent grid (ctaBoundLoops' loop, or every loop whose
// trips read the CTA's index: tripkeys.go) run its loop different numbers
// of times: a classPlan executes CTA 0 and the first CTA of each other
// class of CTAs that run it as many times (tripClasses) and counts each
// executed CTA for its class. With more than
// maxExecClasses classes (flash_attention_backward.py's causal blocks, 8
// to 32), it executes three: CTA 0's, the one of the fewest iterations
// and the next fewest; when each figure of the third is the first's plus
// its iterations' difference times the same amount per iteration (what
// the second and the first give, a whole number), every class is counted
// as CTA 0 plus that amount per iteration of difference; else, with at
// most maxExecAll classes, it executes every one (more), and otherwise
// the launch is CTA 0 multiplied. None is proven: the figures stay an
// estimate (Scaled) whose reason says how they were counted. On the corpus, every
// such kernel's figures are those of executing every CTA
// (TestTripClasses).
type classPlan struct {
	cs   []tripClass
	exec []int // the classes executed, CTA 0's first
}

// maxExecClasses is how many classes a plan executes first.
const maxExecClasses = 3

func planClasses(cs []tripClass) *classPlan {
	p := &classPlan{cs: cs}
	if len(cs) <= maxExecClasses {
		for i := range cs {
			p.exec = append(p.exec, i)
		}
		return p
	}
	// CTA 0's, the fewest iterations (the most apart from CTA 0's), and
	// the next fewest (cheap to execute: CTA 0 often runs the most)
	lo := 1
	for i, c := range cs[1:] {
		if c.trips < cs[lo].trips {
			lo = i + 1
		}
	}
	if cs[lo].trips > cs[0].trips {
		// (CTA 0 runs the fewest: the most instead)
		for i, c := range cs[1:] {
			if c.trips > cs[lo].trips {
				lo = i + 1
			}
		}
	}
	t1 := cs[lo].trips
	mid := -1
	for i, c := range cs {
		if i == 0 || i == lo {
			continue
		}
		if mid < 0 || abs64(c.trips-t1) < abs64(cs[mid].trips-t1) {
			mid = i
		}
	}
	p.exec = []int{0, lo, mid}
	return p
}

// count adds to the figures what the CTAs not executed count, given each
// executed class's counts (deltas, in the order of p.exec), and returns
// how they were counted, the reason the figures are an estimate; ok false
// leaves them CTA 0's (the executed classes' counts taken out again: the
// launch is then CTA 0 multiplied), and says why.
func (p *classPlan) count(deltas [][]figDelta) (how string, ok bool) {
	if len(p.exec) == len(p.cs) {
		for i, ds := range deltas {
			n := p.cs[p.exec[i]].n
			for _, d := range ds {
				d.f.addCounts(d.c.times(n - 1))
			}
		}
		return classesWhy(p.cs), true
	}
	g, ok := p.growth(deltas)
	if !ok {
		return p.undo(deltas)
	}
	order, per, step, t0 := g.order, g.per, g.step, p.cs[0].trips
	for _, f := range order {
		t, inc := per[f], step[f]
		for i, c := range p.cs {
			n := c.n
			if slices.Contains(p.exec, i) {
				n-- // (executed once)
			}
			var v countVec
			for j := range v {
				v[j] = n * (t[0][j] + (c.trips-t0)*inc[j])
			}
			f.addCounts(v.counts())
		}
	}
	lo, hi := t0, t0
	for _, c := range p.cs {
		lo, hi = min(lo, c.trips), max(hi, c.trips)
	}
	return fmt.Sprintf("a loop runs as many times as the CTA's index says (a persistent schedule), %d to %d times: CTAs %d, %d and %d were executed, their figures grow by the same amount with each iteration, and the other CTAs are counted as CTA 0 plus that amount for each iteration more or fewer; the CTAs are not proven to count so",
		lo, hi, p.cs[0].first, p.cs[p.exec[1]].first, p.cs[p.exec[2]].first), true
}

// growth is what three executed classes give: per figures, the counts
// of each (in the order of p.exec) and the amount per iteration.
type growth struct {
	order []*Figures
	per   map[*Figures]*[3]countVec
	step  map[*Figures]*countVec
}

// growth returns the figures' growth per iteration that the first two
// executed classes give, ok false when it is no whole amount, the third
// does not confirm it, or a class's counts would be negative.
func (p *classPlan) growth(deltas [][]figDelta) (*growth, bool) {
	g := &growth{per: map[*Figures]*[3]countVec{}, step: map[*Figures]*countVec{}}
	for i, ds := range deltas[:3] {
		for _, d := range ds {
			t := g.per[d.f]
			if t == nil {
				t = &[3]countVec{}
				g.per[d.f] = t
				g.order = append(g.order, d.f)
			}
			t[i] = vecOf(&d.c)
		}
	}
	t0, t1, t2 := p.cs[0].trips, p.cs[p.exec[1]].trips, p.cs[p.exec[2]].trips
	if t1 == t0 || t2 == t0 {
		return nil, false // (classes of other trips: never)
	}
	for _, f := range g.order {
		t := g.per[f]
		var inc countVec
		for j := range inc {
			d := t[1][j] - t[0][j]
			if d%(t1-t0) != 0 {
				return nil, false
			}
			inc[j] = d / (t1 - t0)
			if t[2][j] != t[0][j]+(t2-t0)*inc[j] {
				return nil, false
			}
			for _, c := range p.cs {
				if t[0][j]+(c.trips-t0)*inc[j] < 0 {
					return nil, false // (no count is negative)
				}
			}
		}
		g.step[f] = &inc
	}
	return g, true
}

// more adds to p's executed classes the others, when the three executed
// (deltas) do not grow by the same amount with each iteration and there
// are at most maxExecAll classes: true when it did.
func (p *classPlan) more(deltas [][]figDelta) bool {
	if len(p.exec) != maxExecClasses || len(p.cs) <= maxExecClasses || len(p.cs) > maxExecAll || len(deltas) != maxExecClasses {
		return false
	}
	if _, ok := p.growth(deltas); ok {
		return false
	}
	for i := range p.cs {
		if !slices.Contains(p.exec, i) {
			p.exec = append(p.exec, i)
		}
	}
	return true
}

// maxExecAll is how many classes a plan executes, every one, when three
// of them do not grow by the same amount with each iteration.
const maxExecAll = 8

// undo takes the counts of the executed classes other than CTA 0's out
// of the figures again, and says why.
func (p *classPlan) undo(deltas [][]figDelta) (string, bool) {
	for _, ds := range deltas[1:] {
		for _, d := range ds {
			d.f.addCounts(d.c.times(-1))
		}
	}
	return fmt.Sprintf("the figures of CTAs %d, %d and %d, executed, do not grow by the same amount with each iteration", p.cs[0].first, p.cs[p.exec[1]].first, p.cs[p.exec[2]].first), false
}

// countVec is a counts as one vector of its counters.
type countVec [26]int64

func vecOf(c *counts) countVec {
	var v countVec
	i := 0
	for _, s := range c.sh {
		v[i], v[i+1], v[i+2], v[i+3] = s.Instructions, s.Wavefronts, s.Ideal, s.Conflicts
		i += 4
	}
	for _, g := range c.gl {
		v[i], v[i+1], v[i+2] = g.Requests, g.Sectors, g.IdealSectors
		i += 3
	}
	for _, a := range c.as {
		v[i], v[i+1] = a.Instructions, a.Bytes
		i += 2
	}
	return v
}

func (v *countVec) counts() *counts {
	var c counts
	i := 0
	for k := range c.sh {
		c.sh[k] = Shared{v[i], v[i+1], v[i+2], v[i+3]}
		i += 4
	}
	for k := range c.gl {
		c.gl[k] = Global{v[i], v[i+1], v[i+2]}
		i += 3
	}
	for k := range c.as {
		c.as[k] = Async{v[i], v[i+1]}
		i += 2
	}
	return &c
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// classesWhy is the reason the figures of a launch counted by trip class
// are an estimate: which CTA counts for which.
func classesWhy(cs []tripClass) string {
	var b strings.Builder
	b.WriteString("a loop runs as many times as the CTA's index says (a persistent schedule): ")
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		runs := fmt.Sprintf("run it %d %s", c.trips, timesWord(c.trips))
		if c.trips == 0 {
			runs = "do not run it"
		}
		switch {
		case c.n == 1 && c.trips == 0:
			fmt.Fprintf(&b, "CTA %d, which does not run it", c.first)
		case c.n == 1:
			fmt.Fprintf(&b, "CTA %d, which runs it %d %s", c.first, c.trips, timesWord(c.trips))
		case i == 0:
			fmt.Fprintf(&b, "CTA %d counts for the %d CTAs that %s", c.first, c.n, runs)
		default:
			fmt.Fprintf(&b, "CTA %d for the %d that %s", c.first, c.n, runs)
		}
	}
	b.WriteString("; the CTAs that run it the same number of times are not proven to count alike")
	return b.String()
}

// timesWord is "time" or "times" after n.
func timesWord(n int64) string {
	if n == 1 {
		return "time"
	}
	return "times"
}

// whyUnproven is the reason a large grid is counted as CTA 0 multiplied
// when the CTA proof fails.
const whyUnproven = "the other CTAs are not proven to count as CTA 0's translations"

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// ctaBoundLoops reports whether a loop of body runs a number of times
// that reads the CTA's index (a persistent kernel's tile loop, `while
// tile < num_tiles: ... tile += grid`): a scan in one pass, in program
// order, of the scalars and registers bound to values that read it,
// through the CTA index, the cluster index and, unless its clusters are
// of one CTA, the rank in the cluster (CTAs a whole number of clusters
// apart have the same). Such a loop fails the CTA proof, which costs
// several walks of the body, and a grid above MaxCTAs, which tries the
// proof only for an exact count, then keeps CTA 0 multiplied without
// it: flash_attention4.py's 32 cases, fp8_blockwise_gemm.py's 7 kernels.
// A counted while loop whose trips uniform proves the same in every CTA
// (whiles.go's uniformTrips: one tile per cluster) does not count. Not a
// proof: a loop this scan passes is left to ctaProof. bound is the first
// such loop (nil: none); rank reports
// whether the scan met the CTA's rank in its cluster (a scope id or
// special register naming it): the proof with period 1 would fail.
func ctaBoundLoops(body *ir.Block, cluster int64, uniform func(*ir.While) bool) (bound ir.Stmt, rank bool) {
	rank = ctaBoundLoopsAll(body, cluster, uniform, func(s ir.Stmt) {
		if bound == nil {
			bound = s
		}
	})
	return bound, rank
}

// ctaBoundLoopsAll is ctaBoundLoops' scan, through the whole body: visit
// hears every loop whose trips read the CTA's index.
func ctaBoundLoopsAll(body *ir.Block, cluster int64, uniform func(*ir.While) bool, visit func(ir.Stmt)) (rank bool) {
	var vars ptrMap[ir.Var, bool]
	var roots ptrMap[ir.Buffer, bool]
	reads := func(e ir.Expr) bool {
		found := false
		walkExpr(e, func(x ir.Expr) {
			if found {
				return
			}
			switch x := x.(type) {
			case *ir.Var:
				found = vars.get(x)
			case *ir.Load:
				found = x.Buf.Scope == "local" && roots.get(rootOf(x.Buf))
			case *ir.Call:
				switch r := sregOf(x); {
				case strings.HasPrefix(r, "ctaid."), strings.HasPrefix(r, "clusterid."):
					found = true
				case strings.HasPrefix(r, "cluster_ctaid."), r == "cluster_ctarank":
					rank = true
					found = cluster > 1
				}
			}
		})
		return found
	}
	ir.WalkStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.ScopeID:
			if s.Kind == ir.CTAIDInCluster && len(s.Vars) > 0 {
				rank = true
			}
			if s.Kind == ir.CTAID || s.Kind == ir.ClusterID || s.Kind == ir.CTAIDInCluster && cluster > 1 {
				for _, v := range s.Vars {
					vars.set(v, true)
				}
			}
		case *ir.Let:
			if reads(s.Value) {
				vars.set(s.Var, true)
			}
		case *ir.Assign:
			if reads(s.Value) {
				vars.set(s.Var, true)
			}
		case *ir.Store:
			if s.Buf.Scope == "local" && reads(s.Value) {
				roots.set(rootOf(s.Buf), true)
			}
		case *ir.While:
			if reads(s.Cond) && !uniform(s) {
				visit(s)
			}
		case *ir.For:
			if reads(s.Min) || reads(s.Extent) {
				visit(s)
			}
		}
	})
	return rank
}

// ctaProof proves that CTAs per apart along grid dimension d are
// translations of each other.
func (m *machine) ctaProof(body *ir.Block, d int, per int64) bool {
	p := m.newShiftProof()
	p.warps, p.cta, p.ctaPeriod = 1, d+1, per
	return p.prove(body) && len(p.warp0) == 0
}

// ctaPeriods proposes CTA periods for a grid of g CTAs in clusters of c
// along the grid's dimension: 2, 4, 8 and 16, then the constant divisors
// of the body's floor divisions and remainders (a few), each at most
// g / 2, in increasing order; with clusters, their multiples of c only
// (CTAs a whole number of clusters apart have the same rank in theirs:
// nvfp4_gemm.py's pairs).
func ctaPeriods(body *ir.Block, g, c int64) []int64 {
	var out []int64
	add := func(v int64) {
		if c > 1 && v%c != 0 {
			v = (v/c + 1) * c // (the next multiple)
		}
		if v > 1 && v <= g/2 && !slices.Contains(out, v) && len(out) < 8 {
			out = append(out, v)
		}
	}
	for _, v := range []int64{2, 4, 8, 16} {
		add(v)
	}
	ir.WalkStmts(body, func(st ir.Stmt) {
		forExprs(st, func(e ir.Expr) {
			walkExpr(e, func(e ir.Expr) {
				if b, ok := e.(*ir.Binary); ok && (b.Op == ir.FloorDiv || b.Op == ir.FloorMod) {
					if c, ok := b.B.(*ir.IntImm); ok {
						add(c.Value)
					}
				}
			})
		})
	})
	slices.Sort(out)
	return out
}

// prove runs the proof: the variables' shifts to a fixed point, then the
// check of every access (warps.go). It reports whether it holds.
func (p *shiftProof) prove(body *ir.Block) bool {
	return p.shifts(body) && p.checks(body)
}

// ctaAxis is the shift of variable i of a scope id of kind k across the
// CTAs of the proof's grid dimension.
func (p *shiftProof) ctaAxis(k ir.ScopeIDKind, i int) int64 {
	d := p.cta - 1
	switch k {
	case ir.CTAID:
		if i == d {
			return max(p.ctaPeriod, 1)
		}
		return 0
	case ir.ClusterID, ir.CTAIDInCluster:
		if i != d {
			return 0
		}
		if c := p.l.Cluster[i]; i < 3 && c > 1 {
			if p.ctaPeriod > 0 && p.ctaPeriod%c == 0 {
				// CTAs a whole number of clusters apart: the same rank,
				// the cluster index a constant further
				if k == ir.ClusterID {
					return p.ctaPeriod / c
				}
				return 0
			}
			return noShift // a quotient and a remainder: not one constant
		}
		if k == ir.ClusterID {
			return max(p.ctaPeriod, 1) // clusters of one CTA along d
		}
		return 0
	}
	return 0 // thread axes: the same in every CTA
}

// sharedQuantum is the multiple of bytes a shared access may move by.
func (p *shiftProof) sharedQuantum() int64 {
	if p.cta > 0 || p.loop != nil {
		return 16
	}
	return 4
}

// ctaCount is the launch's CTA count.
func (m *machine) ctaCount() int64 {
	g := m.launch.Grid
	return max(g[0], 1) * max(g[1], 1) * max(g[2], 1)
}

// maxTripCTAs bounds the CTAs tripTotals evaluates a loop's start in.
const maxTripCTAs = 1 << 16

// tripTotals is, for a loop that runs as many times as the CTA's index
// says (ctaBoundLoops), the iterations CTA 0 runs and those of every CTA
// of the launch together: a counted while loop whose start is a value of
// the CTA's index (a persistent kernel's `tile[0] = bx; while tile[0] <
// num_tiles: ...; tile[0] += grid`, over a register element or a scalar),
// or a `for` of the kernel that no loop holds whose extent is one
// (flash_attention_backward.py's causal `for i_m in T.serial(16 - bx // 2
// * 2 - 1)`); the start or extent evaluated in each CTA (its scope ids
// and the host constants). ok is false for any other loop.
func (m *machine) tripTotals(body *ir.Block, loop ir.Stmt) (t0, all int64, ok bool) {
	cs, ok := m.tripClasses(body, loop)
	if !ok {
		return 0, 0, false
	}
	for _, c := range cs {
		all += c.trips * c.n
	}
	return cs[0].trips, all, true
}

// tripClass is the CTAs of a launch that run a loop as many times: trips
// iterations in each of n CTAs, the first of which is CTA first.
type tripClass struct {
	trips, n, first int64
}

// tripClasses is tripTotals by class: the CTAs that run loop trips times,
// for each count, in the order of their first CTA (CTA 0's class first).
func (m *machine) tripClasses(body *ir.Block, loop ir.Stmt) ([]tripClass, bool) {
	trips := m.tripsOf(body, loop)
	n := m.ctaCount()
	if trips == nil || n > maxTripCTAs {
		return nil, false
	}
	// the scope ids of the CTA's index, given each CTA's values below
	known, axes := m.ctaAxes(body)
	var out []tripClass
	for cta := range n {
		m.setCTAAxes(known, axes, cta)
		t, ok := trips(known)
		if !ok {
			return nil, false
		}
		i := slices.IndexFunc(out, func(c tripClass) bool { return c.trips == t })
		if i < 0 {
			out = append(out, tripClass{trips: t, first: cta})
			i = len(out) - 1
		}
		out[i].n++
	}
	return out, true
}

// tripsOf returns how many iterations loop runs in a CTA whose scope ids
// and host constants known gives (tripTotals), nil when the loop is not
// one it reads.
func (m *machine) tripsOf(body *ir.Block, loop ir.Stmt) func(known []hostConst) (int64, bool) {
	switch s := loop.(type) {
	case *ir.For:
		if inLoop(body, s, false) {
			return nil // (run again by the loop around it)
		}
		return func(known []hostConst) (int64, bool) {
			e, ok := foldHost(s.Extent, known)
			return max(e, 0), ok
		}
	case *ir.While:
		var v0 ir.Expr
		var hi, step int64
		if c := m.countedOf(s); c != nil && c.step > 0 && (c.index != nil || c.v != nil) {
			e, ok := foldHost(c.bound, m.hosts)
			if !ok {
				return nil
			}
			if c.index != nil {
				v0 = m.regInit(c.index, e, c.le)
			} else {
				v0 = m.scalarInit(s, c.v)
			}
			hi, step = e, c.step
			if c.le {
				hi++
			}
		} else {
			v0, hi, step = m.hostStepped(s)
		}
		if v0 == nil || step <= 0 {
			return nil
		}
		return func(known []hostConst) (int64, bool) {
			x, ok := foldHost(v0, known)
			if !ok || x >= hi {
				return 0, ok
			}
			return (hi - x + step - 1) / step, true
		}
	}
	return nil
}

// inLoop reports whether statement x of b is inside a loop (in: b itself
// is).
func inLoop(b *ir.Block, x ir.Stmt, in bool) bool {
	if b == nil {
		return false
	}
	for _, s := range b.Stmts {
		if s == x {
			return in
		}
		var found bool
		switch s := s.(type) {
		case *ir.Block:
			found = inLoop(s, x, in)
		case *ir.Lowered:
			found = inLoop(s.Body, x, in)
		case *ir.If:
			found = inLoop(s.Then, x, in) || inLoop(s.Else, x, in)
		case *ir.For:
			found = inLoop(s.Body, x, true)
		case *ir.While:
			found = inLoop(s.Body, x, true)
		}
		if found {
			return true
		}
	}
	return false
}

// scalarInit is the value scalar v, the index of counted while loop w (a
// statement of the kernel's top level), holds when w starts: its last
// binding among the top-level statements before w, when v is bound
// nowhere else but by w's increment (rmsnorm.py's `idx = bx; while idx <
// 2048: ...; idx = idx + 152`); nil otherwise.
func (m *machine) scalarInit(w *ir.While, v *ir.Var) ir.Expr {
	var init ir.Expr
	top := map[ir.Stmt]bool{}
	found := false
	for _, st := range m.fn.Body.Stmts {
		if st == ir.Stmt(w) {
			found = true
			break
		}
		switch x := st.(type) {
		case *ir.Let:
			if x.Var == v {
				init, top[st] = x.Value, true
			}
		case *ir.Assign:
			if x.Var == v {
				init, top[st] = x.Value, true
			}
		}
	}
	if !found || init == nil || len(w.Body.Stmts) == 0 {
		return nil
	}
	inc := w.Body.Stmts[len(w.Body.Stmts)-1]
	clean := true
	ir.WalkStmts(m.fn.Body, func(st ir.Stmt) {
		var bound *ir.Var
		switch x := st.(type) {
		case *ir.Let:
			bound = x.Var
		case *ir.Assign:
			bound = x.Var
		case *ir.For:
			bound = x.Var
		}
		if bound == v && !top[st] && st != inc {
			clean = false
		}
	})
	if !clean {
		return nil
	}
	return init
}

// hostStepped is tripTotals' reading of a persistent loop that counted
// loops (whiles.go) do not take, its step a host constant
// (flash_attention4.py: `r[0] = bx; while r[0] < 128: ...; r[0] = r[0] +
// cta_count; ...`): a register element compared with a bound the host
// constants fold, incremented by a statement of the body's top level (no
// break or continue in the body) by a step they fold, and stored once
// more, at the kernel's top level before the loop (its start), and
// nowhere else, its address taken nowhere; the loop a statement of the
// kernel's top level (it runs once). It returns the start, the bound past
// the last index that runs (hi) and the step (nil: not such a loop).
// (Taking such a loop in whiles.go's uniformTrips too, so that the CTA
// proof is tried when its trips are the same in every CTA, cost
// flash_attention4.py's analysis 8 % for proofs that failed on other
// grounds: not kept.)
func (m *machine) hostStepped(w *ir.While) (v0 ir.Expr, hi, step int64) {
	cond, ok := w.Cond.(*ir.Binary)
	if !ok || cond.Op != ir.LT && cond.Op != ir.LE || w.Body == nil || len(w.Body.Stmts) == 0 {
		return nil, 0, 0
	}
	r, ok := cond.A.(*ir.Load)
	if !ok || r.Buf.Scope != "local" {
		return nil, 0, 0
	}
	e, ok := foldHost(cond.B, m.hosts)
	if !ok {
		return nil, 0, 0
	}
	// the increment: a statement of the body's top level (each
	// iteration runs it once: no break or continue in the body)
	var inc *ir.Store
	for _, st := range w.Body.Stmts {
		if x, isStore := st.(*ir.Store); isStore && sameElem(x.Buf, x.Indices, r) {
			inc = x
		}
	}
	if inc == nil {
		return nil, 0, 0
	}
	jumps := false
	ir.WalkStmts(w.Body, func(st ir.Stmt) {
		switch st.(type) {
		case *ir.Break, *ir.Continue:
			jumps = true
		}
	})
	if jumps {
		return nil, 0, 0
	}
	add, ok := inc.Value.(*ir.Binary)
	if !ok || add.Op != ir.Add || !sameLoad(add.A, r) {
		return nil, 0, 0
	}
	step, ok = foldHost(add.B, m.hosts)
	if !ok || step <= 0 {
		return nil, 0, 0
	}
	root := rootOf(r.Buf)
	var init *ir.Store
	top := false // the loop is a statement of the kernel's top level (it runs once)
	for _, st := range m.fn.Body.Stmts {
		if st == ir.Stmt(w) {
			top = true
			break
		}
		if x, isStore := st.(*ir.Store); isStore && init == nil && sameElem(x.Buf, x.Indices, r) {
			init = x
		}
	}
	if init == nil || !top {
		return nil, 0, 0
	}
	clean := true
	ir.WalkStmts(m.fn.Body, func(st ir.Stmt) {
		if x, isStore := st.(*ir.Store); isStore && rootOf(x.Buf) == root && x != init && x != inc {
			clean = false
		}
		forExprs(st, func(x ir.Expr) {
			walkExpr(x, func(x ir.Expr) {
				switch x := x.(type) {
				case *ir.AddressOf:
					clean = clean && rootOf(x.Buf) != root
				case *ir.BufferData:
					clean = clean && rootOf(x.Buf) != root
				}
			})
		})
	})
	if !clean {
		return nil, 0, 0
	}
	hi = e
	if cond.Op == ir.LE {
		hi++
	}
	return init.Value, hi, step
}
