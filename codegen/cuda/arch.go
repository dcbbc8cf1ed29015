package cuda

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// realArchs are the SM versions nvcc builds real code for (nvcc 12.x and
// 13.x `--list-gpu-code`: 13 dropped 50-72 and renamed sm_101 to sm_110;
// both are kept so that either toolkit's targets are accepted).
var realArchs = []int{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121}

// ValidArch reports whether arch is a real CUDA target nvcc takes as
// -arch: sm_<N> for a real SM version, sm_<N>a (arch-specific features)
// for 90 and the sm_100+ versions, sm_<N>f (family-portable features) for
// the sm_100+ versions. The error says why not, in one line.
func ValidArch(arch string) error {
	s, ok := strings.CutPrefix(arch, "sm_")
	suffix := ""
	if ok && (strings.HasSuffix(s, "a") || strings.HasSuffix(s, "f")) {
		s, suffix = s[:len(s)-1], s[len(s)-1:]
	}
	n, err := strconv.Atoi(s)
	if !ok || err != nil || s == "" || s[0] == '+' || s[0] == '-' || s[0] == '0' {
		return fmt.Errorf("--arch %q is not a CUDA target: want sm_<N>, sm_<N>a or sm_<N>f, such as sm_90a", arch)
	}
	if !slices.Contains(realArchs, n) {
		return fmt.Errorf("--arch %q is not a real CUDA architecture (real ones: %s)", arch, archList())
	}
	switch {
	case suffix == "a" && n < 90:
		return fmt.Errorf("--arch %q: sm_%d has no arch-specific (a) variant; sm_90a and sm_100a onwards do", arch, n)
	case suffix == "f" && n < 100:
		return fmt.Errorf("--arch %q: sm_%d has no family (f) variant; sm_100f onwards do", arch, n)
	}
	return nil
}

func archList() string {
	parts := make([]string, len(realArchs))
	for i, n := range realArchs {
		parts[i] = strconv.Itoa(n)
	}
	return "sm_" + strings.Join(parts, ", sm_")
}

// parseArch returns the SM version of "sm_90a" (90) or "sm_100" (100).
func parseArch(arch string) (int, error) {
	s, ok := strings.CutPrefix(arch, "sm_")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "a"), "f")
	n, err := strconv.Atoi(s)
	if !ok || err != nil || n < 50 {
		return 0, fmt.Errorf("codegen/cuda: bad arch %q, want sm_<N>[a] such as sm_90a", arch)
	}
	return n, nil
}

// ArchError is an instruction the target arch does not have. Call is the
// tile call whose lowering (through Variant) uses it, nil for an intrinsic
// the kernel calls itself; Span is the call's callee (`Tx.copy_async`),
// or the span of the intrinsic call or statement that uses it.
type ArchError struct {
	Kernel  string
	Call    *ir.TileCall
	Variant string
	Span    source.Span
	// What names the instruction ("ptx.fence.proxy_async"). MinSM is the
	// lowest SM version that has it; Family is set instead when it needs an
	// arch-specific target of the sm_100 family (.cta_group).
	What   string
	MinSM  int
	Family bool
	Arch   string
}

func (e *ArchError) Error() string {
	if e.Family {
		return fmt.Sprintf("%s needs an arch-specific sm_100-family target (sm_100a, sm_100f, sm_103a, ...), target is %s", e.What, e.Arch)
	}
	return fmt.Sprintf("%s needs sm_%d or later, target is %s", e.What, e.MinSM, e.Arch)
}

// worse reports whether e asks more of the target than o: a family
// requirement, else a higher SM version.
func (e *ArchError) worse(o *ArchError) bool {
	if e.Family != o.Family {
		return e.Family
	}
	return e.MinSM > o.MinSM
}

// checkArch reports a helper above the target arch.
func (f *file) checkArch(h *helper) *ArchError {
	if h.minSM > f.sm {
		return &ArchError{What: h.what, MinSM: h.minSM, Arch: f.arch}
	}
	if h.sm100Family && !sm100FamilySpecific(f.arch, f.sm) {
		return &ArchError{What: h.what, MinSM: 100, Family: true, Arch: f.arch}
	}
	return nil
}

// CheckArch returns what each kernel of fns uses that opts.Arch does not
// have: one ArchError per tile call (the most demanding of its lowering's
// instructions) and per intrinsic call or statement the kernel writes
// itself, in kernel then print order. It prints each kernel (the same
// helper choices as Print, which fails on the first of these) without
// keeping the text; a kernel another printing error stops is checked up
// to that error. The error is for a malformed arch.
func CheckArch(fns []Kernel, opts Options) ([]*ArchError, error) {
	arch := opts.Arch
	if arch == "" {
		arch = DefaultArch
	}
	sm, err := parseArch(arch)
	if err != nil {
		return nil, err
	}
	f := &file{arch: arch, sm: sm, helpers: map[string]*helper{}, check: true}
	var out []*ArchError
	var names, launchNames []string
	f.kernelNames, names, launchNames = symbols(fns)
	for i, kn := range fns {
		if kn.Func == nil {
			break
		}
		o := f.kernel(kn, names[i], launchNames[i])
		out = append(out, o.arch...)
	}
	return out, nil
}

// archSite returns where an instruction used now comes from: the tile
// call being printed, else the intrinsic call, else the statement.
func (k *kernel) archSite() (*ir.Lowered, source.Span) {
	if l := k.inCall; l != nil {
		sp := l.Call.OpSpan
		if !sp.IsValid() {
			sp = l.Call.Span
		}
		return l, sp
	}
	if k.atCall.IsValid() {
		return nil, k.atCall
	}
	return nil, k.atStmt
}

// archProblem records (CheckArch) or raises (Print) e for the current site.
func (k *kernel) archProblem(e *ArchError) {
	e.Kernel = k.fn.Name
	var l *ir.Lowered
	l, e.Span = k.archSite()
	if l != nil {
		e.Call, e.Variant = l.Call, l.Variant
	}
	if !k.f.check {
		if k.err == nil {
			k.err = e
			k.errAt = len(k.used)
		}
		return
	}
	for i, o := range k.arch {
		if o.Span == e.Span {
			if e.worse(o) {
				k.arch[i] = e
			}
			return
		}
	}
	k.arch = append(k.arch, e)
}

// opNeed is what the helpers printing an intrinsic may need of the target.
type opNeed struct {
	sm     int  // the highest minSM of its helpers
	family bool // one may need an arch-specific sm_100-family target
}

// opNeeds lists, for each intrinsic the printer knows, the most its
// helpers need (helpers.go, tma.go). ArchSafe takes an op missing here
// as needing a check.
var opNeeds = map[string]opNeed{
	ir.OpCopyBytes: {}, ir.OpPointerOffset: {}, ir.OpCTASync: {}, ir.OpWarpSync: {}, ir.OpWarpgroupSync: {},
	ir.OpCastVec2: {}, ir.OpSqrt: {}, ir.OpExp: {}, ir.OpExp2: {}, ir.OpLog2: {},
	ir.OpMbarrierInit: {sm: 80}, ir.OpMbarrierArrive: {sm: 80}, ir.OpCpAsyncCommit: {sm: 80}, ir.OpCpAsyncWait: {sm: 80}, ir.OpCpAsync: {sm: 80},
	ir.OpLdmatrix:             {sm: 75},
	ir.OpMbarrierArriveExpect: {sm: 90}, ir.OpMbarrierTryWait: {sm: 90}, ir.OpFenceProxyAsync: {sm: 90}, ir.OpElectSync: {sm: 90},
	ir.OpFenceMbarrierInit: {sm: 90}, ir.OpCpAsyncBulkCommit: {sm: 90}, ir.OpCpAsyncBulkWait: {sm: 90}, ir.OpPrefetchTensormap: {sm: 90},
	ir.OpCpAsyncBulkTensorS2G: {sm: 90}, ir.OpCpAsyncBulkTensorS2GReduce: {sm: 90}, ir.OpStmatrix: {sm: 90},
	ir.OpCpAsyncBulkTensorG2C:        {sm: 90, family: true},
	ir.OpCpAsyncBulkTensorG2CGather4: {sm: 100, family: true},
	ir.OpPackedF32x2:                 {sm: 100},
}

// ptxPred is T.ptx.pred(x), the wrapper of a .pred operand.
const ptxPred = "ptx.pred"

// callNeed is the most an intrinsic's helpers need, looked up as the
// printer finds its printer (expr.go call: the known ops, extOps, the
// tcgen05 bookkeeping, the user families); ok is false for an op it does
// not know. The answer depends on the op's name alone and is cached:
// finding a user family's op parses its name, which was 5 % of each
// keystroke's CPU in the largest TIRx-kernels file (20 tcgen05.mma calls
// per kernel, 4 kernels).
func callNeed(op string) (opNeed, bool) {
	if n, ok := opNeeds[op]; ok {
		return n, true
	}
	if x, ok := extOps[op]; ok {
		return x.need, true
	}
	if c, ok := callNeeds.Load(op); ok {
		c := c.(cachedNeed)
		return c.need, c.ok
	}
	var c cachedNeed
	if _, _, tc := tcgen05UserOp(op); tc {
		// The tcgen05 bookkeeping the kernel writes itself
		// (ops_tcgen05_user.go): every helper is a tcgen05Helper.
		c = cachedNeed{opNeed{sm: 100, family: true}, true}
	} else if x := userOp(op); x != nil {
		c = cachedNeed{x.need, true} // an intrinsic the kernel writes itself (ops_user.go)
	} else if op == ptxPred {
		// T.ptx.pred(x), a .pred operand: the operand printer unwraps it
		// (ops_user.go 'Q'); anywhere else it is an unknown intrinsic, a
		// printing error. It prints no helper itself.
		c = cachedNeed{opNeed{}, true}
	}
	if callNeeds.Len() < maxCallNeeds {
		callNeeds.Store(op, c)
	}
	return c.need, c.ok
}

// NeedsBlackwell reports whether intrinsic op is printed with a helper
// that needs sm_100 or later (tcgen05, the f32x2 arithmetic, st.bulk,
// 256-bit ld/st, the cluster launch control, ...): lower.AutoArch analyses
// a kernel that calls one for sm_100a, as it does a kernel with tensor
// memory, where sm_90a would report each call as above the target.
func NeedsBlackwell(op string) bool {
	n, ok := callNeed(op)
	return ok && n.sm >= 100
}

type cachedNeed struct {
	need opNeed
	ok   bool
}

// callNeeds caches callNeed by op name, up to maxCallNeeds names (a
// file can make up op names: T.ptx["..."]).
var callNeeds syncMapLen

const maxCallNeeds = 4096

// syncMapLen is a sync.Map that counts its entries (Store only adds).
type syncMapLen struct {
	m sync.Map
	n atomic.Int64
}

func (c *syncMapLen) Load(k string) (any, bool) { return c.m.Load(k) }
func (c *syncMapLen) Len() int                  { return int(c.n.Load()) }
func (c *syncMapLen) Store(k string, v any) {
	if _, loaded := c.m.LoadOrStore(k, v); !loaded {
		c.n.Add(1)
	}
}

// ArchSafe reports whether nothing in fn can need more than arch has, by
// a walk over its intrinsic calls, cluster indices and scope ids that is
// cheaper than printing: then CheckArch would find nothing. false means
// "check": an intrinsic that may need more, or one it does not know.
// It spares lower.Analyze the print of every kernel of the corpus at
// sm_90 and above (TestArchSafe): on the 2-core dev machine,
// BenchmarkAnalyze3000 with the check by printing alone took 218k
// allocs/op instead of 190k and 10-35% more time (noisy runs); with this
// walk first, 190k again.
func ArchSafe(fn *ir.Func, arch string) bool {
	if arch == "" {
		arch = DefaultArch
	}
	sm, err := parseArch(arch)
	if err != nil || fn == nil {
		return false
	}
	w := archWalk{sm: sm, family: sm100FamilySpecific(arch, sm), safe: true}
	if fn.Body != nil {
		w.stmts(fn.Body.Stmts)
	}
	return w.safe
}

type archWalk struct {
	sm     int
	family bool
	safe   bool
}

func (w *archWalk) stmts(ss []ir.Stmt) {
	for _, s := range ss {
		if !w.safe {
			return
		}
		w.stmt(s)
	}
}

func (w *archWalk) block(b *ir.Block) {
	if b != nil {
		w.stmts(b.Stmts)
	}
}

func (w *archWalk) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Block:
		w.block(s)
	case *ir.For:
		w.expr(s.Min)
		w.expr(s.Extent)
		w.block(s.Body)
	case *ir.While:
		w.expr(s.Cond)
		w.block(s.Body)
	case *ir.If:
		w.expr(s.Cond)
		w.block(s.Then)
		w.block(s.Else)
	case *ir.Store:
		w.exprs(s.Indices)
		w.expr(s.Value)
	case *ir.Evaluate:
		w.expr(s.X)
	case *ir.Let:
		w.expr(s.Value)
	case *ir.Assign:
		w.expr(s.Value)
	case *ir.Lowered:
		w.block(s.Body)
	case *ir.ScopeID:
		if s.Kind == ir.ClusterID || s.Kind == ir.CTAIDInCluster {
			w.need(opNeed{sm: 90})
		}
	case *ir.Alloc, *ir.Decl, *ir.Comment, *ir.Break, *ir.Continue, *ir.TileCall:
		// Buffers hold no intrinsic calls; an unlowered call fails printing.
	default:
		w.safe = false
	}
}

func (w *archWalk) exprs(es []ir.Expr) {
	for _, e := range es {
		w.expr(e)
	}
}

func (w *archWalk) need(n opNeed) {
	if n.sm > w.sm || n.family && !w.family {
		w.safe = false
	}
}

func (w *archWalk) expr(e ir.Expr) {
	if e == nil || !w.safe {
		return
	}
	switch e := e.(type) {
	case *ir.IntImm, *ir.FloatImm, *ir.StringImm, *ir.Var, *ir.BufferData, *ir.TensorMapAddr:
	case *ir.Binary:
		w.expr(e.A)
		w.expr(e.B)
	case *ir.Not:
		w.expr(e.X)
	case *ir.Neg:
		w.expr(e.X)
	case *ir.Cast:
		w.expr(e.X)
	case *ir.Select:
		w.expr(e.Cond)
		w.expr(e.A)
		w.expr(e.B)
	case *ir.Load:
		w.exprs(e.Indices)
	case *ir.AddressOf:
		w.exprs(e.Indices)
	case *ir.Region:
		w.exprs(e.Min)
		w.exprs(e.Extent)
	case *ir.ThreadIndex:
		if strings.HasPrefix(e.Axis, "cb") {
			w.need(opNeed{sm: 90}) // %cluster_ctaid
		}
	case *ir.Call:
		n, ok := callNeed(e.Op)
		if !ok {
			w.safe = false
			return
		}
		if e.Op == ir.OpCpAsyncBulkTensorG2C {
			// .cta_group (the family requirement) is printed for cta_group
			// 2, or 1 on sm_100+ (tma.go g2c).
			n.family = true
			if len(e.Args) > 5 {
				if g, ok := ir.ConstInt(e.Args[5]); ok && (g == -1 || g == 1 && w.sm < 100) {
					n.family = false
				}
			}
		}
		w.need(n)
		w.exprs(e.Args)
	default:
		w.safe = false
	}
}
