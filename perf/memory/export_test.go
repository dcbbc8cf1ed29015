package memory

import (
	"fmt"
	"slices"

	"github.com/tilels/tilels/ir"
)

// SetWarpDedup turns counting translated warps once on or off (tests
// compare both); it returns the previous setting.
func SetWarpDedup(on bool) bool {
	old := dedupWarps
	dedupWarps = on
	return old
}

// WarpsCovered is the warps of fn the translation proof covers: warps
// first+1..n-1 count as warp first.
func WarpsCovered(fn *ir.Func, l ir.Launch) (first, n int64) {
	first, n, _ = WarpPeriod(fn, l)
	return first, n
}

// WarpPeriod is WarpsCovered with the period: warp w counts as warp
// first + (w - first) % period.
func WarpPeriod(fn *ir.Func, l ir.Launch) (first, n, period int64) {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	return m.warpShifts(fn.Body, l.Threads())
}

// SetCTADedup turns counting translated CTAs once on or off (tests compare
// both); it returns the previous setting.
func SetCTADedup(on bool) bool {
	old := dedupCTAs
	dedupCTAs = on
	return old
}

// CTAsCovered reports whether every CTA of fn's launch counts as CTA 0.
func CTAsCovered(fn *ir.Func, l ir.Launch) bool { return CTAPeriod(fn, l) == 1 }

// CTAPeriod is the period of fn's CTAs: CTA c counts as CTA c % period
// (0: none does).
func CTAPeriod(fn *ir.Func, l ir.Launch) int64 {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	m.fn = fn
	return m.ctaShifts(fn.Body)
}

// KeyLen keys fn and l as Cached does and returns the key's length.
func KeyLen(fn *ir.Func, l ir.Launch) int {
	k := newKeyer()
	defer k.release()
	k.launch(l)
	k.block(fn.Body)
	k.shapes()
	return len(k.b)
}

// Steps is the statements and events the analysis of k executed.
func Steps(k *Kernel) int64 { return k.steps }

// SetLoopDedup turns skipping translated loop iterations on or off (tests
// compare both); it returns the previous setting.
func SetLoopDedup(on bool) bool {
	old := dedupLoops
	dedupLoops = on
	return old
}

// SetLoopNest turns comparisons inside compared units on or off and
// returns the old setting.
func SetLoopNest(on bool) bool {
	old := nestLoops
	nestLoops = on
	return old
}

// Work is the statements the analysis of k executed (Steps counts the
// skipped ones too).
func Work(k *Kernel) int64 { return k.Work() }

// SetMaxWork sets the statements one analysis may execute; it returns the
// previous bound.
func SetMaxWork(n int64) int64 {
	old := maxWork
	maxWork = n
	return old
}

// SetSkipTrace sets a function that hears why a loop's iterations are
// not skipped (nil: none).
func SetSkipTrace(f func(s *ir.For, why string)) { skipTrace = f }

// SetAffineAddrs turns the compiled element offsets on or off (tests
// compare both); it returns the previous setting.
func SetAffineAddrs(on bool) bool {
	old := affineAddrs
	affineAddrs = on
	return old
}

// WarpRuns is the runs of warps the analysis counts as translations:
// {start, end, period} each (warps.go's warpRun).
func WarpRuns(fn *ir.Func, l ir.Launch) [][3]int64 {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	var out [][3]int64
	for _, r := range m.warpRuns(fn.Body, l.Threads()) {
		out = append(out, [3]int64{r.start, r.end, r.period})
	}
	return out
}

// SetDataRegs turns executing only the accesses of data registers on or
// off (tests compare both); it returns the previous setting.
func SetDataRegs(on bool) bool {
	old := dataRegs
	dataRegs = on
	return old
}

// DataRegisters is the names of fn's data register allocations, sorted.
func DataRegisters(fn *ir.Func) string {
	var names []string
	for b := range dataRegisters(fn) {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	return fmt.Sprint(names)
}

// DataRegistersByPasses is DataRegisters computed as it was before the
// worklist: whole passes over fn until no pass makes anything more
// control (TestDataRegsWorklist compares them).
func DataRegistersByPasses(fn *ir.Func) string {
	s := &regScan{pendVars: map[*ir.Var][]ir.Expr{}, pendRoots: map[*ir.Buffer][]ir.Expr{}, opaque: opaqueLets(fn)}
	for {
		nv, nc := s.vars.Len(), s.control.Len()
		s.block(fn.Body)
		if s.unknown {
			return "[]"
		}
		if s.vars.Len() == nv && s.control.Len() == nc {
			break
		}
	}
	var names []string
	for b := range s.locals.all() {
		if !s.control.get(b) {
			names = append(names, b.Name)
		}
	}
	slices.Sort(names)
	return fmt.Sprint(names)
}

// SetInertRule turns passing over inert loops on or off (tests compare
// both); it returns the previous setting.
func SetInertRule(on bool) bool {
	old := inertRule
	inertRule = on
	return old
}

// SetScalarRule turns the element-load classes of halfloads.go on or off
// (tests compare both); it returns the previous setting.
func SetScalarRule(on bool) bool {
	old := scalarRule
	scalarRule = on
	return old
}

// CacheKeys is the number of entries of the cache and of the kernels kept
// unkeyed (lazy keys).
func CacheKeys() (keyed, unkeyed int) {
	cache.Lock()
	defer cache.Unlock()
	for _, s := range cache.pre {
		unkeyed += len(s.waiting)
	}
	return len(cache.m), unkeyed
}

// LazyKeys reports whether lazy keys are on.
func LazyKeys() bool { return lazyKeys.Load() }

// PreKey is fn's preKey (lazy keys) as text.
func PreKey(fn *ir.Func, l ir.Launch) string { return fmt.Sprint(preKeyOf(fn, l)) }

// MaxUnkeyed is how many kernels lazy keys keep unkeyed.
const MaxUnkeyed = maxUnkeyed

// Key is the content cache's key of fn and l: the one it enters the
// figures under after an analysis (walkKey, relaxed).
func Key(fn *ir.Func, l ir.Launch) string {
	k := walkKey(fn, l)
	k.relax(fn)
	defer k.release()
	return string(k.b)
}

// ValueType is valueType (halfloads.go).
func ValueType(e ir.Expr) ir.DataType { return valueType(e) }

// BFloatToHalf rewrites every bfloat16 type fn's body names (buffers and
// their bases, conversions, constants, variables, tensor maps) as
// float16, and reports how many it rewrote; intrinsics' dtype strings
// stay.
func BFloatToHalf(fn *ir.Func) int {
	n := 0
	ty := func(t *ir.DataType) {
		if t.Code == ir.BFloat && t.Bits == 16 {
			t.Code = ir.Float
			n++
		}
	}
	seen := map[*ir.Buffer]bool{}
	buf := func(b *ir.Buffer) {
		for ; b != nil && !seen[b]; b = b.Base {
			seen[b] = true
			ty(&b.Dtype)
			if b.PtrBase != nil && !seen[b.PtrBase] {
				seen[b.PtrBase] = true
				ty(&b.PtrBase.Dtype)
			}
		}
	}
	vars := map[*ir.Var]bool{}
	v := func(x *ir.Var) {
		if x != nil && !vars[x] {
			vars[x] = true
			ty(&x.Type)
		}
	}
	expr := func(e ir.Expr) {
		walkExpr(e, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.Load:
				buf(x.Buf)
			case *ir.AddressOf:
				buf(x.Buf)
			case *ir.BufferData:
				buf(x.Buf)
			case *ir.Region:
				buf(x.Buf)
			case *ir.Cast:
				ty(&x.To)
			case *ir.FloatImm:
				ty(&x.Type)
			case *ir.Var:
				v(x)
			case *ir.Call:
				ty(&x.Type)
			case *ir.StringImm:
				if x.Value == "bfloat16" {
					x.Value = "float16"
					n++
				}
			}
		})
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		forExprs(s, expr)
		switch s := s.(type) {
		case *ir.Store:
			buf(s.Buf)
		case *ir.Alloc:
			buf(s.Buf)
		case *ir.Decl:
			buf(s.Buf)
		case *ir.Let:
			v(s.Var)
		case *ir.Assign:
			v(s.Var)
		case *ir.For:
			v(s.Var)
		}
	})
	for _, m := range fn.HostMaps {
		ty(&m.DType)
	}
	return n
}

// SetOneBlock turns whiles.go's regLoop on or off; it returns the
// previous setting.
func SetOneBlock(on bool) bool {
	old := oneBlockRule
	oneBlockRule = on
	return old
}

// LoopPeriods asks one machine for the proof of loop s of fn once per
// entry of maxPs (the longest period each execution could use), in
// order, and returns the period each answer gives (0: no proof).
func LoopPeriods(fn *ir.Func, l ir.Launch, s *ir.For, maxPs []int64) []int64 {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	m.fn = fn
	var out []int64
	for _, p := range maxPs {
		lp := m.loopProofOf(s, p)
		if !lp.ok {
			out = append(out, 0)
			continue
		}
		out = append(out, lp.period)
	}
	return out
}

// WarpProofPasses makes the proof across adjacent warps of fn and returns
// how many passes its shifts took and whether it held.
func WarpProofPasses(fn *ir.Func, l ir.Launch) (int, bool) {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	m.fn = fn
	p := m.newWarpProof(l.Threads())
	ok := p.prove(fn.Body)
	return p.passes, ok
}

// LoopProofPasses makes the proof of loop s of fn over single iterations
// and returns how many passes its shifts took.
func LoopProofPasses(fn *ir.Func, l ir.Launch, s *ir.For) int {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	m.fn = fn
	stored, called := writtenLocals(s.Body)
	written := map[*ir.Buffer]bool{}
	for b := range stored {
		written[b] = true
	}
	for b := range called {
		written[b] = true
	}
	p := m.newLoopProof(s, 1, stored, called, written)
	p.prove(s.Body)
	return p.passes
}

// ProofsMade analyses fn and returns how many times it proved its warps
// after warp 0, and its CTAs after CTA 0.
func ProofsMade(fn *ir.Func, l ir.Launch) (warps, ctas int) {
	proofTrace = func(kind string) {
		switch kind {
		case "warps":
			warps++
		case "ctas":
			ctas++
		}
	}
	defer func() { proofTrace = nil }()
	Analyze(fn, l)
	return warps, ctas
}

// RewriteUnreadConsts changes every integer constant among the operands
// of fn's intrinsics whose operands the machine never reads
// (unreadOperands), and reports how many it changed.
func RewriteUnreadConsts(fn *ir.Func) int {
	n := 0
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		forExprs(s, func(e ir.Expr) {
			walkExpr(e, func(x ir.Expr) {
				c, ok := x.(*ir.Call)
				if !ok || !unreadOperands(c) {
					return
				}
				for i, a := range c.Args {
					if k, ok := a.(*ir.IntImm); ok {
						// (a new node: constants may be shared)
						c.Args[i] = &ir.IntImm{Value: k.Value*3 + 7, Type: k.Type, Span: k.Span}
						n++
					}
				}
			})
		})
	})
	return n
}

// KernelBuffers returns the buffers fn's code names (its allocations and
// declarations, the buffers its accesses, pointers and regions name, and
// the buffers those are views of), each once.
func KernelBuffers(fn *ir.Func) []*ir.Buffer {
	seen := map[*ir.Buffer]bool{}
	var out []*ir.Buffer
	var add func(b *ir.Buffer)
	add = func(b *ir.Buffer) {
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		out = append(out, b)
		add(b.Base)
		add(b.PtrBase)
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			add(s.Buf)
		case *ir.Decl:
			add(s.Buf)
		case *ir.Store:
			add(s.Buf)
		}
		forExprs(s, func(e ir.Expr) {
			walkExpr(e, func(x ir.Expr) {
				switch x := x.(type) {
				case *ir.Load:
					add(x.Buf)
				case *ir.Region:
					add(x.Buf)
				default:
					add(bufferOf(x))
				}
			})
		})
	})
	return out
}

// WarpsExecuted analyses fn and returns how many warps it executed.
func WarpsExecuted(fn *ir.Func, l ir.Launch) int {
	n := 0
	proofTrace = func(kind string) {
		if kind == "warp executed" {
			n++
		}
	}
	defer func() { proofTrace = nil }()
	Analyze(fn, l)
	return n
}

// RewriteFreeConsts gives every integer constant of fn the machine never
// reads (the sites relax leaves out of the key: constfree.go) the value
// f makes of it, and returns how many it rewrote.
func RewriteFreeConsts(fn *ir.Func, f func(int64) int64) int {
	k := walkKey(fn, ir.Launch{})
	defer k.release()
	free := scanConstFree(fn)
	dregs, _, control := scanDataRegs(fn)
	n := 0
	with := func(c *ir.IntImm) ir.Expr {
		n++
		// (a new node: constants may be shared)
		return &ir.IntImm{Value: f(c.Value), Type: c.Type, Span: c.Span}
	}
	// an operation the code names in two places (the lower shares
	// subexpressions) is left alone: rewriting it would rewrite both
	uses := map[*ir.Binary]int{}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		forExprs(s, func(e ir.Expr) {
			walkExpr(e, func(x ir.Expr) {
				if b, ok := x.(*ir.Binary); ok {
					uses[b]++
				}
			})
		})
	})
	done := map[*ir.IntImm]bool{}
	for _, st := range k.sites {
		if st.c == nil || done[st.c] || st.bin != nil && uses[st.bin] != 1 || !k.freeSite(st, free, dregs, control) {
			continue
		}
		done[st.c] = true
		switch {
		case st.bin != nil && st.side == 1:
			st.bin.A = with(st.c)
		case st.bin != nil:
			st.bin.B = with(st.c)
		case st.let != nil:
			st.let.Value = with(st.c)
		default:
			switch d := st.data.(type) {
			case *ir.Store:
				d.Value = with(st.c)
			case *ir.Assign:
				d.Value = with(st.c)
			}
		}
	}
	return n
}

// SetMaxCTAs sets the largest grid whose CTAs are all executed and
// returns the previous one.
func SetMaxCTAs(n int64) int64 {
	old := maxCTAs
	maxCTAs = n
	return old
}

// MaxKeyMisses is how many keyed kernels of one preKey may miss the cache
// before its kernels are analysed without keys (lazy keys).
const MaxKeyMisses = maxKeyMisses
