// Package memory predicts, without a GPU, the memory traffic that Nsight
// Compute would measure for one launch of a lowered kernel: shared-memory
// wavefronts and bank conflicts, ldmatrix/stmatrix phases, global requests
// and 32-byte sectors, cp.async and TMA bytes, per tile call and per kernel.
//
// # How
//
// Analyze executes the lowered kernel body (ir.Func after dispatch, with
// an ir.Lowered node per tile call) one warp at a time: every expression
// is evaluated for the 32 lanes at once under an active mask (loops, lets,
// selects, ifs, break/continue, thread axes and scope ids included), so a
// memory statement executed under a non-empty mask is exactly one dynamic
// warp-level instruction (same static access, same loop iteration, same
// warp, active threads only). Every warp of every CTA is executed when the
// grid has at most MaxCTAs CTAs. A larger grid is counted exactly when
// the CTA proof (ctas.go) finds its period, 1 or its clusters' size: the
// CTAs of one period are executed and every later CTA counts as the one
// of its residue (TestLargeGrids); otherwise (a persistent kernel's CTAs
// run different numbers of tiles) CTA 0 and one CTA of each other number
// of tiles are executed, each counted for the CTAs that run as many, or,
// where that does not apply, CTA 0's counts are multiplied by the number
// of CTAs: an estimate either way (Figures.Scaled, and the JSON's
// "scaled", say so). A value
// that cannot be known statically (runtime data, a runtime extent, a
// runtime grid, an intrinsic whose memory access is not modelled) makes
// the figures of the call it occurs in Unknown, with the reason; never a
// guess.
//
// Warps of a CTA whose code the lowered IR proves to be warp 0's with
// every value moved by a constant per warp (shared addresses by a
// multiple of 4 bytes, global ones by a multiple of 32, control flow the
// same, every access of one root by one shift) count exactly as warp 0
// and are not executed again (warps.go); so do warps 2 or 4 apart when
// adjacent ones are not (a swizzle of 8 rows over warps of 4 rows), and
// the warps of each role of a warp-specialised kernel (the runs of
// warps that take the same branches on the warp) as the role's first,
// each warpgroup of a kernel that reads warpgroup axes as its first warp,
// and views of one shared allocation may each move by their own shift
// (one per segment between barriers, at the top level or in a serial
// loop's body) when the machine finds them apart in every warp
// (apart.go); a role's
// or warpgroup's proof is made only once its first warp has executed as
// many steps as the body has statements. TestWarpDedup compares it with
// executing every warp. Likewise the CTAs
// of a grid that the same proof, across the CTA index, shows to be CTA
// 0's translated (global addresses by multiples of 32 bytes, shared ones
// by multiples of 16) count as CTA 0 (ctas.go, TestCTADedup). The
// iterations of a loop likewise (loops.go): when the same proof, with the
// loop variable moving by 1 (or by a period of up to 16 iterations, or
// by as many as bring the registers and variables the body carries back
// to their values, a pipeline's stage and phase), shows them translations
// of one another, the machine executes two units, checks the second
// against the first, adds the first's counts for the units between and
// executes the last iteration (TestLoopDedup); periods with an odd factor
// (a row of 20 elements) are tried after the powers of two. In a loop
// nvcc does not unroll, one lane's access that moves by no constant (a
// single thread's swizzled copy) needs no translation when it is its
// buffer's one access there and is aligned to its width. A while loop
// over an index that moves by a constant runs as such a loop of its
// iteration count (whiles.go). Bounds guards
// that every thread and iteration passes do not defeat these proofs
// (ranges.go). Register allocations that hold only data (no load of them
// reaches an address, a branch or an intrinsic's pointer) execute only
// the memory accesses inside their stores and loads (dataregs.go,
// TestDataRegs).
//
// Machine code: nvcc -O2 merges a thread's neighbouring accesses into
// wider instructions. The model merges, within one unroll or vectorized
// loop or a serial loop of constant bounds and at most 256 iterations (which
// nvcc unrolls: a plain `for i < 4` float copy became one STS.128 on an
// H100) and no `#pragma unroll 1` (unroll=False, disable_unroll: nvcc
// keeps the loop; testdata/memory/unroll_pragma.py), consecutive accesses of one kind (shared load, shared store) to
// one shared buffer under the same mask when every lane's addresses are
// contiguous, the merged width is 8 or 16 bytes and the first address is
// provably aligned to it: the buffer's alignment (64 bytes for a shared
// allocation) and the statically proven divisibility of the index. Global
// accesses are never merged (a pointer parameter's alignment is only its
// element size to the compiler; measured: the loads of that loop stayed
// four LDG.E); the copy helpers' explicit uint2/uint4 accesses are already
// wide. An index that folds to a constant in an unrolled copy has its
// exact alignment (a single thread's 4x6 float copy nest is six STS.128);
// an unrolled access whose dimension index adds to a floordiv of the
// unrolled variable and a thread value is not merged (fold.go). A thread's
// repeated load of the same global bytes, with no store to the buffer,
// barrier or runtime loop iteration between, is issued once (cse.go).
// Figures.Source is "model"; figures from SASS would say "sass".
//
// # Hardware rules (measured with ncu on sm_90, /work/wt/ncu-calibration.md)
//
// Shared memory has 32 banks of 4 bytes; bank = (byte address / 4) mod 32.
// A warp instruction of width w bytes is processed in groups of the lanes
// whose accesses make 128 bytes: 32 lanes for w <= 4 (8- and 16-bit
// accesses too), 16 for w = 8, 8 for w = 16; only active lanes count.
// w(group) is the largest number of distinct 4-byte words one bank holds
// among the group's accesses (one word read by several lanes is one:
// broadcast). For loads, two adjacent groups (2k, 2k+1) are served in one
// pass when together no bank holds more than one distinct word; otherwise,
// and always for stores, each group is its own pass. Wavefronts = the sum
// of w over the passes (1 for a merged pair); bank conflicts = the sum of
// w - 1; the ideal is the number of passes (wavefronts - conflicts).
// ldmatrix/stmatrix .x{1,2,4}: each 8x8 b16 matrix (the 16-byte rows whose
// addresses lanes 8i..8i+7 give) is a group as for 128-bit, never merged
// with another; their wavefronts and conflicts are in the shared load
// (ldmatrix) or store (stmatrix) counters, their instructions in neither.
//
// Global memory: one request per warp instruction whatever its width;
// sectors are the distinct 32-byte sectors the active lanes' bytes touch;
// the ideal is the distinct bytes touched divided by 32, rounded up.
// Parameter buffers are taken as 256-byte aligned (cudaMalloc) plus their
// element offset.
//
// cp.async (LDGSTS): one cp_async instruction and one global load request
// per warp instruction; its global sectors are counted per pass of the
// shared-side store (a lane is served in the pass of its most contended
// word), the distinct sectors of each pass summed. nvcc puts three
// predicated-off LDS before the first LDGSTS of a straight-line run; they
// count as three shared load instructions (no wavefronts) per run.
//
// # Counting contract (Nsight Compute names)
//
//	SharedLoad.Instructions   smsp__inst_executed_op_shared_ld (ldmatrix excluded)
//	SharedLoad.Wavefronts     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld (ldmatrix included)
//	SharedLoad.Conflicts      l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld (ldmatrix included)
//	SharedStore.*             the _st counterparts (stmatrix included in wavefronts/conflicts)
//	Ldmatrix/Stmatrix         their own instructions, wavefronts, ideal, conflicts
//	GlobalLoad.Requests       l1tex__t_requests_pipe_lsu_mem_global_op_ld
//	GlobalLoad.Sectors        l1tex__t_sectors_pipe_lsu_mem_global_op_ld
//	GlobalStore.*             the _st counterparts
//	CpAsync                   smsp__inst_executed_op_ldgsts and the bytes moved (also in GlobalLoad)
//	TMA                       warp instructions and bytes moved (UTMALDG/UTMASTG; no LSU counter)
//
// Register ("local") buffers, tensor memory, mbarrier operations, fences
// and tensor-core operand reads are not LSU ld/st traffic and are not
// counted.
package memory

import (
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// MaxCTAs is the largest grid whose CTAs are all executed.
const MaxCTAs = 64

// maxCTAs is MaxCTAs, which tests raise to execute every CTA of a larger
// grid.
var maxCTAs int64 = MaxCTAs

// Shared holds the figures of one kind of shared-memory instruction.
type Shared struct {
	Instructions, Wavefronts, Ideal, Conflicts int64
}

// Global holds the figures of one kind of global-memory instruction.
type Global struct {
	Requests, Sectors, IdealSectors int64
}

// Async holds the figures of an asynchronous copy kind.
type Async struct {
	Instructions, Bytes int64
}

// Figures are the predicted counters of one call, of the kernel body
// outside calls, or of a whole kernel, for one launch.
type Figures struct {
	// Source is where the instruction widths come from: "model".
	Source string
	// SharedLoad/SharedStore include the ldmatrix/stmatrix wavefronts and
	// conflicts but not their instructions (see the package comment).
	SharedLoad, SharedStore Shared
	Ldmatrix, Stmatrix      Shared
	GlobalLoad, GlobalStore Global
	CpAsync, TMA            Async
	// Unknown says why the figures cannot be computed ("" when they can);
	// the numbers are meaningless then.
	Unknown string
	// Worst is the shared instruction with the most wavefronts above its
	// ideal (nil when none exceeds it, or Unknown).
	Worst *Instruction
	// WorstGlobal is the global instruction with the most sectors above
	// its ideal (nil when none exceeds it).
	WorstGlobal *Instruction
	// FirstShared is the first shared instruction executed (load, store,
	// ldmatrix or stmatrix), described as Worst is: what a bank map draws
	// when no instruction exceeds its ideal.
	FirstShared *Instruction
	// Misaligned is the first access found whose address is not a
	// multiple of its width (a vector load or store the GPU refuses:
	// cudaErrorMisalignedAddress); Lanes holds the offending lane. Only
	// the warps executed are checked (see Scaled and the repeated-warp
	// shortcut of warps.go), so nil does not prove every access aligned.
	Misaligned *Instruction
	// Elided says which accesses of the lowered code the figures leave
	// out because nvcc deletes them ("" when none): stores into memory
	// nothing reads, loads into registers nothing reads, a copy of
	// registers back to the bytes they hold (dead.go, regs.go).
	Elided string
	// CTAs is the number of CTAs of the launch; Scaled is set when the
	// figures are an estimate: only CTA 0 was executed and its counts
	// multiplied by CTAs, or (Executed > 1) a few CTAs of a persistent
	// grid executed and the others counted by how many times they run its
	// loop (ctas.go's classPlan). ScaledWhy says what kept the CTAs from being
	// counted exactly, or how they were counted (empty: the proof was not
	// tried, CTA 0 not executed whole).
	CTAs      int64
	Scaled    bool
	ScaledWhy string
	Executed  int64 // CTAs executed when Scaled
}

// Instruction describes one dynamic warp instruction.
type Instruction struct {
	Kind  string // "shared load", "shared store", "ldmatrix", "stmatrix", "global load", "global store"
	Width int64  // bytes per lane (16 for ldmatrix rows)
	Buf   string // the buffer's name
	// Buffer is the buffer (the allocation or parameter whose storage
	// the access reads or writes) and Span the access; nil and
	// source.NoSpan in figures restored from the content cache, which
	// Kernel.Where places in their kernel.
	Buffer *ir.Buffer
	Span   source.Span
	// Wavefronts and Ideal (sectors and ideal sectors for global).
	Wavefronts, Ideal int64
	CTA, Warp         int64
	// node is the access (for Cached), nodeOrd and bufOrd its and the
	// buffer's ordinals in a cached entry, ord its index in the entry's
	// instructions plus one (0: not a cached instruction; Kernel.Where).
	node            ir.Node
	nodeOrd, bufOrd int
	ord             int32
	// Banks lists, for a shared instruction, the most loaded banks (the
	// ones that needed Wavefronts words in one group), in bank order.
	Banks []BankUse
	// rec holds what Lanes lists, for a shared instruction: built only
	// when asked (each call's first shared instruction is described for
	// the bank-map picture, and its 32 accesses were an eighth of the
	// analysis's allocated bytes); lanes lists them where there is no rec
	// (a misaligned access: its first misaligned lane).
	rec   *laneRecord
	lanes []LaneAccess
}

// laneRecord is the part of a shared access that Lanes lists.
type laneRecord struct {
	k     kind
	mask  uint32
	width int64
	warp  int64
	addr  lanes
}

// Lanes lists the instruction's accesses, in lane order, each with the
// pass that serves it (the bank-map picture draws them): the active lanes
// of a shared load or store (its width after nvcc's merging), the eight
// row addresses of each matrix of an ldmatrix/stmatrix; for a misaligned
// access, its first misaligned lane.
func (in *Instruction) Lanes() []LaneAccess {
	if in.rec == nil {
		return in.lanes
	}
	r := in.rec
	e := event{k: r.k, mask: r.mask, width: r.width, addr: r.addr}
	return laneAccesses(&e, r.warp, new([4]bankWords))
}

// LaneAccess is one lane's part of a shared instruction: Bytes bytes at
// byte address Addr of the buffer's storage (a shared allocation from its
// start), served in pass Pass (0, 1, ...: a group of lanes, or a merged
// pair of load groups, or a matrix; see the package comment). Thread is
// the CTA thread index.
type LaneAccess struct {
	Thread, Addr, Bytes int64
	Pass                int
}

// BankUse is one bank of the worst instruction: the lanes (threads of the
// warp, as CTA thread indices) that access it and how many distinct words.
type BankUse struct {
	Bank    int
	Threads []int64
	Words   int
}

// Kernel holds the figures of one kernel.
type Kernel struct {
	// Calls maps each lowered tile call to its figures.
	Calls map[*ir.TileCall]*Figures
	// Body is the traffic outside tile calls ("kernel body").
	Body *Figures
	// Total is the whole kernel: the calls plus Body.
	Total *Figures
	// steps is the statements and events the machine executed or
	// skipped as translations (tests); work the statements it executed.
	steps, work int64
	// gaveUp is set when the analysis stopped with the figures unknown
	// before executing as many statements as the kernel holds: it cost
	// about what walking a key of the kernel would (cachedLazily)
	gaveUp bool
	// locs places the cache entry's instructions in this kernel (Where)
	// when the figures were restored from the content cache.
	locs []instrLoc
}

// instrLoc is where a cached instruction is in one kernel.
type instrLoc struct {
	span source.Span
	buf  *ir.Buffer
	node ir.Node
}

// Work is the statements the analysis of k executed (0 for figures
// restored from the content cache).
func (k *Kernel) Work() int64 { return k.work }

// Where is the position of in's access and the buffer it reads or writes
// in k's code. Use it, not in.Span and in.Buffer: the figures of a kernel
// restored from the content cache are the cache entry's, shared by every
// kernel with the same code, and their instructions are placed in each
// kernel by Where (copying them for every repeated kernel was a third of
// the analysis of the 3,000-line file, with the collections it caused).
func (k *Kernel) Where(in *Instruction) (source.Span, *ir.Buffer) {
	if in == nil {
		return source.Span{}, nil
	}
	if in.ord > 0 && k != nil && int(in.ord) <= len(k.locs) {
		l := &k.locs[in.ord-1]
		return l.span, l.buf
	}
	return in.Span, in.Buffer
}

// View returns the typed buffer declared over the byte storage Where
// returns (an 8-bit allocation: a pool) through which in's access goes
// (rmsnorm.py's x_smem = pool.alloc([hidden_size], "float32") over buf;
// of a view of it, the one declared over the storage), so that a fix can
// change that declaration; nil when the storage is typed (a view of a
// float16 allocation takes its layout from it), when the access names
// the storage itself, or when it is not known.
func (k *Kernel) View(in *Instruction) *ir.Buffer {
	if in == nil {
		return nil
	}
	node, root := in.node, in.Buffer
	if in.ord > 0 && k != nil && int(in.ord) <= len(k.locs) {
		l := &k.locs[in.ord-1]
		node, root = l.node, l.buf
	}
	if node == nil || root == nil || root.Dtype.Bits != 8 {
		return nil
	}
	var view *ir.Buffer
	note := func(b *ir.Buffer) {
		if view == nil && b != nil && b != root && rootOf(b) == root {
			view = b
		}
	}
	visit := func(e ir.Expr) {
		walkExpr(e, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.Load:
				note(x.Buf)
			default:
				note(bufferOf(x)) // an address or data pointer (nil otherwise)
			}
		})
	}
	switch n := node.(type) {
	case *ir.Store:
		note(n.Buf)
		forExprs(n, visit)
	case ir.Stmt:
		forExprs(n, visit)
	case ir.Expr:
		visit(n)
	}
	for i := 0; view != nil && view.Base != nil && view.Base != root && i < 64; i++ {
		view = view.Base // (a view of a view: the one over the storage)
	}
	return view
}

// ExceedsIdeal reports whether the figures warrant a performance warning:
// shared wavefronts at least twice the ideal, or global sectors above the
// ideal.
func (f *Figures) ExceedsIdeal() (shared, global bool) {
	if f == nil || f.Unknown != "" {
		return false, false
	}
	ideal := f.SharedLoad.Ideal + f.SharedStore.Ideal
	shared = ideal > 0 && f.SharedLoad.Wavefronts+f.SharedStore.Wavefronts >= 2*ideal
	global = f.GlobalLoad.Sectors > f.GlobalLoad.IdealSectors || f.GlobalStore.Sectors > f.GlobalStore.IdealSectors
	return shared, global
}

func (s *Shared) add(o Shared) {
	s.Instructions += o.Instructions
	s.Wavefronts += o.Wavefronts
	s.Ideal += o.Ideal
	s.Conflicts += o.Conflicts
}

func (g *Global) add(o Global) {
	g.Requests += o.Requests
	g.Sectors += o.Sectors
	g.IdealSectors += o.IdealSectors
}

func (a *Async) add(o Async) {
	a.Instructions += o.Instructions
	a.Bytes += o.Bytes
}

// add adds o into f (raw counts: ldmatrix not yet folded into SharedLoad).
func (f *Figures) add(o *Figures) {
	f.SharedLoad.add(o.SharedLoad)
	f.SharedStore.add(o.SharedStore)
	f.Ldmatrix.add(o.Ldmatrix)
	f.Stmatrix.add(o.Stmatrix)
	f.GlobalLoad.add(o.GlobalLoad)
	f.GlobalStore.add(o.GlobalStore)
	f.CpAsync.add(o.CpAsync)
	f.TMA.add(o.TMA)
	if f.Unknown == "" {
		f.Unknown = o.Unknown
	}
	f.Worst = worse(f.Worst, o.Worst)
	f.WorstGlobal = worse(f.WorstGlobal, o.WorstGlobal)
	if f.FirstShared == nil {
		f.FirstShared = o.FirstShared
	}
	if f.Elided == "" {
		f.Elided = o.Elided
	}
}

func worse(a, b *Instruction) *Instruction {
	if b == nil {
		return a
	}
	if a == nil || b.Wavefronts-b.Ideal > a.Wavefronts-a.Ideal {
		return b
	}
	return a
}

// scale multiplies the counts by n.
func (f *Figures) scale(n int64) {
	for _, s := range []*Shared{&f.SharedLoad, &f.SharedStore, &f.Ldmatrix, &f.Stmatrix} {
		s.Instructions *= n
		s.Wavefronts *= n
		s.Ideal *= n
		s.Conflicts *= n
	}
	for _, g := range []*Global{&f.GlobalLoad, &f.GlobalStore} {
		g.Requests *= n
		g.Sectors *= n
		g.IdealSectors *= n
	}
	for _, a := range []*Async{&f.CpAsync, &f.TMA} {
		a.Instructions *= n
		a.Bytes *= n
	}
}

// fold adds the ldmatrix/stmatrix wavefronts, ideal and conflicts into
// SharedLoad/SharedStore (their instructions stay out), as Nsight's LSU
// wavefront counters include them.
func (f *Figures) fold() {
	f.SharedLoad.Wavefronts += f.Ldmatrix.Wavefronts
	f.SharedLoad.Ideal += f.Ldmatrix.Ideal
	f.SharedLoad.Conflicts += f.Ldmatrix.Conflicts
	f.SharedStore.Wavefronts += f.Stmatrix.Wavefronts
	f.SharedStore.Ideal += f.Stmatrix.Ideal
	f.SharedStore.Conflicts += f.Stmatrix.Conflicts
}
