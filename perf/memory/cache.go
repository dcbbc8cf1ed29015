package memory

import (
	"cmp"
	bin "encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The figures of a kernel depend only on its lowered code and launch, not
// on where the code is in the file or what the kernel is called: Cached
// keys them by an encoding of the code (every node, constant, name,
// buffer shape, type, scope and layout, in order) and the launch, so that a
// kernel analysed again after an edit that did not change its lowering
// (the language server re-analyses the edited def at every keystroke),
// and each copy of a kernel a file repeats, is simulated once. A kernel
// restored from the cache gets the entry's figures themselves, shared;
// Kernel.Where places their instructions (the access, the buffer) in the
// kernel asked about, from ordinals of the key's walk that the entry
// keeps. The whole encoding
// is the map key (Go hashes it and compares it byte for byte), so two
// kernels share an entry only when their encodings are equal: no hash
// collision can give a kernel another's figures. The encoding leaves out
// only what the figures cannot depend on: the data arithmetic of stored
// values (dataExpr) and the difference of float16 and bfloat16 (dtype),
// each checked by rewriting every test kernel (TestDataArithmeticKey,
// TestHalfTypesKey).
//
// Measured (lower's BenchmarkAnalyzeMemory3000, benchstat, 10
// interleaved runs of 20 iterations against the tree before this work;
// 2 cores shared with other jobs, ±5-10 %): the whole-file lower 16.9 ms;
// with the figures of all 157 kernels from an empty cache (mode=cold)
// +8.8 % (p=0.009; the old tree, same runs: +36 %); two earlier runs of
// the same code gave +8.3 % and +15.3 %. With a warm cache (mode=warm)
// +4.5 %, not significant. BenchmarkMemoryCold3000 (the cold work alone,
// on a file lowered before the loop) takes 2.4 ms against the lower's
// 16.9 ms (14 %). Simulating every kernel (mode=uncached) adds +108 %.
// The lower itself does not run the analysis (lower.Kernel.Memory is
// lazy).
//
// Measured again (2026-11-26, CPU time per iteration, cpu-ms/op, which a
// machine shared with other jobs disturbs less than wall time; benchstat
// of 8 interleaved runs of 30 iterations, load average 3-5 on 2 cores)
// against the tree before the CTA translation and the cheaper counting:
// BenchmarkMemoryShare3000 (the two parts of mode=cold timed apart) puts
// the analysis of the 157 kernels (9 distinct: 157 keys, 9 simulations)
// at 2.56 ms CPU (was 2.97, -14 %, p=0.005) and 2.05 ms wall (was 2.29)
// against the lower's 20.95 ms CPU and 21.2 ms wall: +12.2 % CPU, +9.7 %
// wall (was +14.4 % and +11.0 %). In the same runs mode=cold against
// mode=off of BenchmarkAnalyzeMemory3000: +10.2 % CPU (was +18 %). The
// profile of the analysis part: simulation 39 %, keying 17 %, the
// collector 14 % (each collection marks the lowered file's live heap),
// allocation, restoring cached figures and the warnings' text the rest.
// On the golden programs, whose kernels are nearly all distinct
// (BenchmarkAnalyzeMemoryGoldens), the analysis adds +75 % CPU (was
// +121 %; mode=cold -17 %, p=0.001): there the simulation is the whole
// cost.
//
// Measured again (2026-11-26, later; benchstat of 8 interleaved runs of
// the tree before and after, 2 cores shared with 3 other jobs): the
// restore shares the cached figures that hold no instruction and copies
// each cached instruction once (a kernel's total names one of its calls'
// instructions, as in the analysis), the simulation reuses its lists of
// available loads and its flush scratch, keeps a cp.async's sources out
// of the pending events, divides by powers of two with shifts; the
// bank-conflict warning's thread list is built with strconv.
// BenchmarkMemoryShare3000, part=analysis: 606.5 KiB/op -> 432.8 KiB/op
// (-29 %), 2673 -> 2184 allocs/op, CPU 2.67 -> 2.50 ms/op (-6 %,
// p=0.05) against the lower's 21.5/20.9 ms: +12.4 % -> +11.9 % CPU
// (wall 2.33 -> 2.00 ms, -14 %, p=0.02). The profile of the analysis now:
// simulation of the 9 distinct kernels ~40 % (cast_tiles and the three
// TMA kernels execute all 4 warps: an XOR swizzle or a buffer accessed
// with two per-warp shifts defeats warps.go's proof), keying 20-30 %
// (a walk of every lowered node of the 157 kernels, about 2.5 us each),
// allocation and the collector ~15 %. On the goldens the analysis's
// allocation fell 23.7 -> 17.0 MiB/op (-28 %); CPU +77 % -> +69 % of the
// lower (not significant, p=0.28). A last pair of 8 interleaved runs,
// the old tree built with the same benchmark file: part=analysis 2.90 ->
// 2.39 cpu-ms/op (-17 %, p=0.001) against the lower's 21.2/21.1: +13.7 %
// -> +11.3 %; work-cpu-ms/op (perfAll alone, without the loop's setup of
// record copies and cache reset) 2.37 -> 1.97 (-17 %, p=0.002): +11.2 %
// -> +9.4 %.
//
// Measured on real files (2026-11-26, lower's BenchmarkAnalyzeMemoryDir
// over the 128-file corpus of docs/coverage.md, 2 runs each, CPU time):
// the tree before taint.go and the stop on nothing known (4319c11)
// lowered the corpus in 5,048 ms and added 20,107 ms (+398 %) for the
// figures: fp16_bf16_gemm.py's CLC loops ran to the step bound (18.5 s,
// every figure unknown at the end), mega_moe.py's call-less kernels kept
// executing after their first unmodelled access (2-4 s). After them,
// the reasons formatted once, constant indices mapped once per buffer,
// intrinsic names parsed once and the arithmetic of values all lanes share
// done once (evalU): 4,559-4,590 ms and +15.3 %. The rest is mostly
// kernels every CTA and warp of which the machine runs: nvfp4_gemm.py's
// persistent, warp-specialised kernels (148 CTAs of 8 different warps,
// 572k steps; 388 -> 223 ms), about a third of the corpus's analysis. The
// 3,000-line file end to end (BenchmarkAnalyzeMemory3000, mode=cold
// against mode=off, 6 interleaved runs): +8.9 % CPU (4319c11 in the same
// runs: +4.8 %, not significant, p=0.24; 8 runs of this tree earlier:
// +9.0 %); computing the figures in the dispatch pipe (mode=ahead,
// Options.PerfAhead) measured +8.9 % against cold's +8.0 % in 4 runs, no
// better. The golden programs (BenchmarkAnalyzeMemoryGoldens, 6 runs):
// +88.7 % (4319c11: +87.0 %), unchanged: their analysis is the
// simulation of kernels whose lowering takes well under a millisecond.
//
// Measured again (2026-11-26, after loops.go, ranges.go and affine.go;
// cpu-ms/op, benchstat of 8 interleaved runs against c33a48b, the tree
// before them, on an otherwise idle 2-core machine): the 128-file corpus
// (BenchmarkAnalyzeMemoryDir) lowered in 4,290 ms (c33a48b 4,213, n.s.)
// and the figures added +6.6 % (c33a48b in the same runs: +15.8 %; cold
// 4,877 -> 4,572 ms, -6.2 %, p=0.000). The golden programs
// (BenchmarkAnalyzeMemoryGoldens): +43.0 % (c33a48b: +90.2 %; cold 146.2
// -> 109.6 ms, -25 %). The 3,000-line file end to end
// (BenchmarkAnalyzeMemory3000): cold 18.25 -> 17.87 ms, not significant;
// cold against off +10.8 % (c33a48b +4.7 %, its off 7 % slower in the
// same runs: the ratio is within the noise of two 17 ms totals); its two
// parts timed apart (BenchmarkMemoryShare3000): analysis 2.21 -> 2.30
// cpu-ms/op, n.s., against a lower of 17.9/17.7 ms (+12.3 % -> +13.0 %),
// keying about a third of it. What remains on the corpus is mostly
// kernels no proof covers: nvfp4_gemm.py's 64-CTA kernel (a cluster pair's
// two roles and a scheduler loop: every CTA runs, 73 ms of its 99),
// sparse_prefill_head64_phase1.py and fp8_blockwise_gemm.py (selects on
// runtime data, XOR-swizzled stages), the elementwise tests' 180 small
// kernels each (0.1-0.7 ms of 32-lane evaluation). On the goldens it is
// that evaluation itself.
//
// Measured again (2026-11-26, later: warp roles, swizzle shifts and warp
// periods in warps.go, the bank-bit and sorted-sector rules, spare
// machines; cpu-ms/op against 91f972d, the tree before them, interleaved
// on a 2-core machine whose noise was about ±6 %). The corpus's analysis
// alone (BenchmarkMemoryShareDir, 6 runs): 523 -> 421 ms (-19 %, p=0.002)
// against a lower of 4.8 s, +10.9 % -> +8.8 %; mode=cold against mode=off
// of BenchmarkAnalyzeMemoryDir, medians of 8 per-run ratios: +10.7 % ->
// +8.3 %. The goldens (BenchmarkAnalyzeMemoryGoldens): +46 % -> +39 %;
// their analysis allocates 5.0 -> 2.9 MB/op. The 3,000-line file: its
// analysis 2.09 -> 2.13 ms (n.s.) against a lower of 15.5 ms (+13.6 %);
// keying its 157 kernels is 30 % of that, the simulation of its 9
// distinct kernels 47 %. nvfp4_gemm.py's analysis 89 -> 77 ms (its epilogue
// warps now count as one role), fp8_blockwise_gemm.py's 50 -> 46 ms.
//
// Measured again (2026-11-26, later: views checked apart, roles from the
// branches reached, lazy role and warpgroup proofs, odd loop periods,
// data registers; cpu-ms/op against 7f0a158, 6 interleaved runs). The
// corpus's analysis alone (BenchmarkMemoryShareDir): 477.5 -> 361.4 ms
// (-24 %, p=0.002) against a lower of 5.2 s, +9.3 % -> +7.0 %. File by
// file (BenchmarkMemoryShareFiles, one goroutine, best of 3 per file):
// 32 of the corpus's 145 files and 84 of the 99 golden programs have an
// analysis over 10 % of their lower, 2 corpus files over 100 % (was 4-5:
// rmsnorm.py at 539 %, its barriers inside a while loop; test_gmem_smem.py
// at 438 %, one-thread copies over a 256-step swizzle); nvfp4_gemm.py
// 85 % -> 47 %, fp8_blockwise_gemm.py 72 % -> 42 %, the elementwise tests
// 155 % -> 73-84 %. The goldens (+40 %) and the 3,000-line file (its
// analysis 2.25 -> 2.36 ms, n.s., 13.6 % of the lower) are unchanged.
//
// Measured again (2026-11-26, later: one lane's loop iterations counted
// without a translation, barrier segments in serial loops with a view's
// shift per segment, counted while loops, the kernel scans made at their
// first use; cpu-ms/op against 62eee36, 4 interleaved runs). The corpus's
// analysis alone (BenchmarkMemoryShareDir): 391.6 -> 324.6 ms (-17 %,
// p=0.029) against a lower of 5.5 s, +7.1 % -> +5.8 %; the sum of every
// corpus kernel's memory.Analyze alone (best of 3 each, one goroutine, 5
// interleaved pairs) 302-353 -> 233-240 ms. File by file
// (BenchmarkMemoryShareFiles, 2 runs): the analyses over the lowers
// 10.6 % -> 9.0 %; rmsnorm.py 19 -> 3 ms, test_gmem_smem.py 26 -> 6 ms,
// flash_attention4.py 16.8 -> 0.4 ms (a runtime grid: no scans). Still 6
// corpus files over 100 % (test_gmem_smem.py's 32-thread swizzled
// copies, test_ld_stmatrix.py's stmatrix swizzles, rmsnorm.py, the
// elementwise tests' small kernels, sparse_prefill_head64_phase1.py);
// the goldens (+40 %) and the 3,000-line file (2.34 -> 2.39 ms, n.s.)
// are unchanged: what keeps their warps and iterations executing is an
// XOR swizzle that permutes lanes from warp to warp or iteration to
// iteration, which no proof covers yet.
//
// Measured again (2026-11-26, last: warps a period apart after a branch of
// warp 0 and with views apart per residue, divFold's kept results;
// cpu-ms/op against df5fc14, interleaved, on a 2-core machine faster
// than the day before). The corpus's analysis alone
// (BenchmarkMemoryShareDir, 3 runs): 241.6 -> 241.2 ms (n.s.) against a
// lower of 3.9 s, +6.2 %. The 3,000-line file (6 runs): its analysis
// 1.31 -> 1.35 ms (n.s.) against a lower of 11.2 ms, +11.7 % (its
// perfAll alone, work-cpu-ms/op: 1.11 -> 1.14 ms, +9.9 %); keying its
// kernels is a quarter of that, the simulation of its 9 distinct
// kernels (0.54 ms) half. The goldens (6 runs): +44.6 % -> +44.1 %
// (n.s.); timed apart in one loop, their lowers take 63 ms of CPU and
// their analyses 17 ms (+27 %): mode=cold also pays for the lower's
// garbage collected while the analysis runs. What the goldens spend is
// 32-lane evaluation spread over 216 kernels (the largest 0.8 ms, the
// mean 50 us), not a few kernels no proof covers.
//
// Measured again (2026-11-26, the very last: lane vectors written into
// the caller's storage, uniform operands as constants, constant
// address_of kept, available loads in slices, restored figures shared and
// placed by Kernel.Where; against da4f8d4 on the 2-core machine, whose
// medians spread by 13-58 % that day, so the fastest passes are the
// figures). The goldens' kernels, each analysed alone (memory.Analyze,
// best of 7, summed, 3 interleaved runs): 8.70 -> 7.18 ms (-17 %). The
// 3,000-line file's perfAll on one goroutine, fastest of 15 passes, 3
// interleaved runs: 863 -> 700 us (-19 %); its cache hits alone 320 ->
// 230 us and 286 -> 52 KB. BenchmarkMemoryShareBest (each part started
// after a collection, fastest of 90 alternated passes, 3 runs): the
// goldens' analysis over their lower 11.4-13.6 % -> 9.3-11.5 %, the
// 3,000-line file's 11.0-15.7 % -> 7.3-11.1 %. The medians with the
// collections (6 interleaved runs, n.s.): BenchmarkMemoryShare3000's
// analysis 1.48 -> 1.33 ms against a lower of 13.5-14.1 ms (+9.4 %;
// work-cpu 1.10 ms, +7.8 %); the goldens' cold against off +38 % -> +34 %;
// the corpus (MemoryShareDir, 2 runs) 250 -> 217 ms against a lower of
// 4.3 s, +5.0 %. The gap between the goldens' +34 % (18-30 ms) and
// their 10 % of fastest passes (6-8 ms) is not perfAll's goroutines (one
// goroutine gives the same); part of it is the collector: the goldens'
// lowers leave 0.86 MB live,
// so the collector's goal is its 4 MB floor and it runs every 3.1 MB of
// a pass's 56 MB; what the analysis keeps (the cache's entries, the spare
// machines' scratch: +1.6 MB live after a pass of analyses, 0.6 MB of it
// with pointers) makes each collection mark more and come sooner (every
// 2.4 MB, the goal then being twice the live heap). The lowers alone,
// run again after a pass of analyses, took 7-9 ms more (of 78-82) in 3 of 3 runs;
// without spare machines they did not, but the analyses then remade
// their scratch, and mode=cold was no faster. With GOGC=400 the gap is
// smaller (14-18 ms) but still +28-36 %: the rest is not explained yet. A
// process with more live heap (the language server's open files)
// collects far less often.
//
// Traced further (2026-11-26, evening; runtime/metrics in the goldens'
// loop, the tree of 3b6c674): the collector is a small part after all.
// Its CPU per pass goes from 5.4 to 6.8 ms, mode=off to mode=cold, with
// as many cycles (10.9 and 10.1), of a gap of 19-23 ms. Timed per file on
// one goroutine, the analyses take 11.1-11.9 ms in place against 8.6-9.6
// ms back to back (memory.Analyze of the 186 kernels), and the lowers
// 41-45 ms against 38.5 with no analysis between them, 41.7 against 34.9
// with GOGC=off: what slows both is the alternation, not collections (a
// 1 MB buffer touched between the files slowed the lowers by at most 2
// ms). Even without it, 8.7 ms of analysis against a 38.5 ms lower is
// 23 %: the goldens' bound needs an analysis about twice as cheap, and
// its profile is flat (runWarp 78 %, for loops 61 %, no function above 4
// % of it on its own). The largest single lever found: the warp proof
// fails in 36 of the goldens' kernels of 64 threads or more, in 18 of
// them first at a shared access that moves by no shift it can state
// (warps.go's shared rule; swizzled layouts among them), so an
// XOR-swizzle proof would spare many of their warps.

// Measured again (2026-11-26, night: the loop proof through branches on
// floating-point values and branches of one iteration, the bound on the
// statements executed, warp roles cut at warpgroups, inert loops, data
// registers through generic intrinsics; cpu-ms/op against 5e36eaa, the
// tree before, on the 2-core machine). The corpus (BenchmarkMemoryShareDir,
// 3 runs each): the analysis 1,695-1,743 -> 362-365 ms against a lower of
// 3,961-4,328 ms, +41 % -> +8.5 %; flash_attention4.py's 32 cases went
// from about 1.5 s of it to 0.17 s (its s8192 case: 1,342,291 statements
// executed, stopped at the bound, -> 36,008, with figures). The 3,000-line
// file's fastest passes (BenchmarkMemoryShareBest, 4 alternated runs):
// 6-17 % before, 7-14 % now, within that benchmark's noise today. The
// goldens: the fastest passes 11.5-13.3 % -> 10.2-10.6 %; the medians of
// BenchmarkAnalyzeMemoryGoldens' cold against off +38-48 % before and
// +37-44 % after, as before. What the goldens' analysis spends is
// simulation spread over 178 small kernels: by the proofs that fail, 2.0
// of their 6.9 ms (best of 5 per kernel) are multi-warp kernels every
// proof covers, 1.7 ms single-warp kernels, 1.3 ms sixteen kernels whose
// warp proof fails at a shared access moving by no multiple of 4 bytes
// (swizzles), 0.8 ms six at a branch that is not constant after warp 0,
// 0.5 ms four whose CTA proof fails at a global access moving by no
// multiple of 32 bytes (CTA periods, ctas.go, then took the goldens from
// 6.9 to 6.45 ms). A fix of every failing proof would save at most a
// fifth; the bound there needs the machine's per-access cost halved.
// With GOGC=off the goldens' cold against off is +28 % (GOMAXPROCS 2) and
// with GOMAXPROCS=1 +31 %: the collector's CPU (its idle workers count in
// the process's CPU time) is about a quarter of the gap; the analysis
// keeps 1.8 MB live after a pass (0.9 MB the cache's entries, 0.9 MB the
// spare machines and keyers) against the lowers' 0.9 MB.

// Measured again (2026-11-26, late; levers tried on the goldens and
// dropped, for whoever tries next). Where a pass of the goldens' analysis
// goes, in place (each file's perfAll after its lower): 11.3 ms of wall
// and 15-16 ms of CPU against 6.4 ms for the same kernels analysed back to
// back, best of 7 each; the difference is keying (8.6 % of the analysis
// when skipped altogether, n.s.), the first run of each kernel, and
// perfAll's goroutines (one goroutine: 14.6 ms of CPU; starting them only
// after 100 us saved CPU but cost the whole processes wall time, +13.2 %
// -> +16.3 % on the goldens' directory, and was reverted). Tried and worse: divisibility
// results kept per value of the unroll loops' variables (a map keyed by
// expression and values: +7.0 %, p=0.002; the walk it replaces is
// cheaper than the hashing), a fresh machine per analysis instead of the
// spares (+35 %), the figures computed in the dispatch pipe
// (Options.PerfAhead: mode=cold 73-82 cpu-ms, ahead 80-107). The warp
// proof's XOR-swizzled failures (warps.go) are mostly covered by the
// period-2 proof now: surface_compose_025's and swizzled_smem_copy's
// warpgroup kernels execute two warps, one per residue; an exact
// "translation then a lane-uniform XOR" move would spare one of the two.
// The whole processes (scripts/bench-perf-share, medians of 9
// interleaved runs, after `--lower`'s verified fixes stopped analysing
// the file again per warning, which made the plain runs faster): --perf
// adds to `tilels --lower` +16.2 % of wall time and +13.6 % of CPU on the
// goldens' directory (96.5 ms plain; the tree before: +12.4 % and +12.9 %
// of 111.9 ms), +4.0 % and +6.3 % on the 128-file corpus (4.2 s; before
// +5.4 % and +8.6 %), +2.3 % and +0.6 % on the 3,000-line file (53 ms;
// before +1.4 % and +2.4 % of 273 ms).

// Measured again (2026-11-27, scripts/bench-perf-share, 0941a37 against
// the lazy keys and headless's figures aside, interleaved). In the
// process, keys were an eighth of the goldens' analysis (a perf(1)
// profile of whole runs): lazy keys left 145 of its 154 analyses
// unkeyed, and describe's scratch 17.8k -> 14.0k allocations, but one
// processor (GOMAXPROCS=1, 15 runs) still measures --perf at +15.5 ms of
// 102 (+15.2 % before). What moved is the wall time: an input's figures
// computed while the next one is lowered, the goldens' directory went
// from +16.4 % to +4.0 % of wall (15 runs; CPU +15.2 % -> +13.4 %), the
// 3,000-line file +8.9 % -> +3.1 % (CPU +5.2 % -> +0.1 %), the corpus
// +5.3-5.6 % -> +3.2-7.8 % (two sets of 15 runs; CPU +7.1-7.6 % ->
// +5.5-12.3 %: within this machine's noise), each golden program in a
// process of its own about +1 % (startup dominates). In the process the
// analysis of the goldens costs 14-15 ms of CPU against 8.6 ms for the
// same kernels back to back in a test: page faults (the collector is
// off, so every byte it allocates is a fresh page) were 12.8 % of it,
// the scans of scans.go, dead.go and readonly.go 11 %, proofs 14 %,
// the simulation's expressions 33 % and its counting 16 %. Tried and
// dropped: a parallel that waits only for the calls under way (no
// change), warp proofs reusing a spare's maps (-5 % allocations, time
// n.s.), figures aside only for files of fewer kernels than processors
// (within the noise on both sets), and executing CTA 0 of a grid whose
// extent is a runtime value (no call of the corpus gained figures: each
// also loops over data read at run time).

// Measured again (2026-11-27, later: stacks kept, allocations cut, and a
// lower of GEMM and attention kernels 2-5 times faster; 7c31ddd against
// the tree of then, scripts/bench-perf-share, 20 interleaved runs). A
// perf(1) diff of one-processor runs put runtime.newstack at a ninth of
// what --perf added: every analysis ran on a fresh goroutine whose stack
// the recursion grew several times (lower's kept goroutines now). The
// goldens' analysis allocates 1.34 MB a pass, was 2.03 MB (lazy lanes,
// the deltas slab, proofs and their maps from the machine); the page
// faults --perf adds fell 832 -> 737 only. What --perf adds to the
// goldens' directory: +13.9 -> +13.1 ms of CPU on two processors, +16.0
// -> +13.8 ms on one; its share rose, +11.4 -> +17.0 % and +14.9 ->
// +21.3 %, as the plain lower fell 122 -> 77 ms (gemm_async's atom
// match). On the heaviest kernels the analysis now costs as much as
// their lower: flash_attention4.py +136 ms over 176 ms (its 32 cases'
// loops; runtime.mapaccess1_fast64 is a sixth of it, most in the
// register elements' map[int64]*binding and the ops and vars maps),
// FlashMLA's sparse_prefill_head128_phase1.py +30 ms over 29 ms. Tried
// and dropped: computing the figures of groups of 8 inputs after the
// group was lowered (1.3 points less on the goldens on one processor,
// within the noise; on the corpus, whose lower runs the collector, the
// results it held alive doubled the collections' CPU, 270 -> 555 ms).

// maxCached bounds the cache (entries, first in first out).
const maxCached = 512

var cache = struct {
	sync.Mutex
	m     map[string]*entry
	order []string
	// running holds the keys being analysed, closed when their entry is
	// in m (or the analysis failed): a kernel whose copy another
	// goroutine is analysing waits for it instead of analysing it again
	// (the lower's parallel kernels met each repeated kernel of a file
	// while its first copy was still running).
	running map[string]chan struct{}
	// pre holds the kernels analysed without a key (lazy keys), unkeyed
	// their preKeys in the order they were kept (maxUnkeyed)
	pre     map[preKey]*preSlot
	unkeyed []preKey
	// skel holds, by skeleton (constfree.go), the kernels analysed
	// whose keys may differ from another's only in constants the
	// machine never reads; kept, the skeletons whose slot holds a
	// kernel, in the order they were kept (maxUnkeyed)
	skel map[uint64]*skelSlot
	kept []uint64
}{m: map[string]*entry{}, running: map[string]chan struct{}{}, pre: map[preKey]*preSlot{}, skel: map[uint64]*skelSlot{}}

type entry struct {
	calls       []*Figures // in walk order of the Lowered calls
	body, total *Figures
	// ins are the instructions the figures name, each with its ord
	// (its index here plus one) and its access's and buffer's ordinals
	// in the key (what a restored kernel's Where resolves).
	ins []*Instruction
}

// Cached is Analyze with the content cache.
func Cached(fn *ir.Func, l ir.Launch) *Kernel {
	k, _ := cached(fn, l, 0)
	return k
}

// CachedWithin is Cached bounded as AnalyzeWithin is: ok is false (and k
// nil) when the figures are not cached and computing them takes more than
// work statements (work < 0: when they are not cached), or when another
// goroutine is computing them now (the caller does not wait for it). Figures it computes are cached as
// Cached's are; a bounded attempt that gives up caches nothing and does
// not make other callers wait for it.
func CachedWithin(fn *ir.Func, l ir.Launch, work int64) (*Kernel, bool) {
	return cached(fn, l, work)
}

func cached(fn *ir.Func, l ir.Launch, work int64) (*Kernel, bool) {
	if fn == nil || fn.Body == nil {
		return AnalyzeWithin(fn, l, work)
	}
	var slot *preSlot // (lazy keys: the kernel's preKey, whose keys pay or not)
	if work == 0 && lazyKeys.Load() {
		res, ok, done, s := cachedLazily(fn, l)
		if done {
			return res, ok
		}
		slot = s
	}
	k := walkKey(fn, l)
	defer k.release()
	calls := k.calls // in ir.WalkStmts order, each once
	cache.Lock()
	e := cache.m[string(k.b)] // no copy of the key for a lookup
	if e == nil && work >= 0 && len(k.sites) > 0 {
		// another kernel like it but for constants the machine may
		// never read: keyed without those it never reads (constfree.go)
		cache.Unlock()
		k.relaxIfSeen(fn)
		cache.Lock()
		if k.alt != "" {
			if e = cache.m[string(k.b)]; e != nil {
				enter(k.alt, e) // (the next copy finds it by its full key)
			}
		}
	}
	if e == nil && work < 0 {
		cache.Unlock()
		return nil, false // the cached figures only
	}
	var done chan struct{}
	if e == nil {
		if wait, ok := cache.running[string(k.b)]; ok {
			cache.Unlock()
			if work > 0 {
				return nil, false // not waiting for a whole analysis
			}
			<-wait
			cache.Lock()
			e = cache.m[string(k.b)]
		} else if work == 0 {
			done = make(chan struct{})
			k.key = string(k.b) // (the entry's key too: store keeps it)
			cache.running[k.key] = done
		}
	}
	if slot != nil {
		slot.outcome(e != nil)
	}
	cache.Unlock()
	if done != nil {
		key := k.key
		defer func() {
			cache.Lock()
			delete(cache.running, key)
			cache.Unlock()
			close(done)
		}()
	}
	if e != nil && len(e.calls) == len(calls) {
		// The figures are the entry's, shared (nothing writes restored
		// figures); only where each instruction is in this kernel is
		// its own (Kernel.Where).
		out := &Kernel{Calls: make(map[*ir.TileCall]*Figures, len(calls)), Body: e.body, Total: e.total, locs: make([]instrLoc, len(e.ins))}
		for i, in := range e.ins {
			l := &out.locs[i]
			if in.nodeOrd >= 0 && in.nodeOrd < len(k.nodes) {
				l.node = k.nodes[in.nodeOrd]
				l.span = l.node.Pos()
			}
			if in.bufOrd >= 0 && in.bufOrd < len(k.bufs) {
				l.buf = k.bufs[in.bufOrd]
			}
		}
		for i, c := range calls {
			out.Calls[c] = e.calls[i]
		}
		return out, true
	}
	res, ok := AnalyzeWithin(fn, l, work)
	if !ok {
		return nil, false
	}
	k.noteSkeleton(fn, k.store(res))
	return res, true
}

// walkKey walks fn and l into a keyer (the caller releases it).
func walkKey(fn *ir.Func, l ir.Launch) *keyer {
	k := newKeyer()
	k.walk(fn, l)
	if k.fpRegsKnown {
		// a floating-point register may hold a value the machine knows:
		// dataExpr's rule for them does not hold, walked again without it
		// (nodes, buffers and variables get the same ordinals)
		k.release()
		k = newKeyer()
		k.exactRegs = true
		k.walk(fn, l)
	}
	return k
}

func (k *keyer) walk(fn *ir.Func, l ir.Launch) {
	k.tag('K') // (relaxed keys begin with 'R')
	k.launch(l)
	k.hostConsts(hostConsts(fn)) // hostconsts.go
	k.launchData(fn)
	k.hostMaps(fn.HostMaps)
	k.block(fn.Body)
	k.shapes()
}

// Shapes the machine never reads. A shared or global buffer's extents
// and layout matter to the figures only through an access that indexes
// it: a load, a store, a region or the address of an element by its
// coordinates (elemAddr maps them). A pointer to a flat element offset
// (T.address_of(A[0]) plus an offset, what the lowered copies pass to
// ld.global.v4 and cp.async), the buffer's data pointer, its allocation
// and the views declared on it read neither (a view's own offset, kept
// in the key, places it). The key walks the buffers' extents and layouts
// after the code, each buffer's only when the code reads them: a grid of
// tests over shapes whose copies move the same bytes (test_gmem_smem.py's
// (128, 32) and (256, 16) float16 tiles) shares one analysis.
// TestShapeKey rewrites the shapes of every test kernel's buffers and
// checks that an unchanged key means unchanged figures.
func (k *keyer) shapes() {
	for i, b := range k.bufs {
		if !k.shaped[i] && scopeOf(b) != "" {
			k.tag('s')
			continue
		}
		k.tag('S')
		for _, s := range b.Shape {
			k.int(s)
		}
		k.layout(b.Layout)
	}
}

// hostMaps walks the sizes of the tensor maps the kernel's host code
// encodes (what its hand-written TMA copies move: rawtma.go), by handle
// name (then position, for determinism).
func (k *keyer) hostMaps(ms map[*ir.Var]*ir.TensorMap) {
	k.int(int64(len(ms)))
	if len(ms) == 0 {
		return
	}
	vs := make([]*ir.Var, 0, len(ms))
	for v := range ms {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, func(a, b *ir.Var) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.Span.Start, b.Span.Start)
	})
	for _, v := range vs {
		k.variable(v)
		k.box(ms[v])
	}
}

// launchData walks the contents bind lines give buffer parameters
// (ir.Func.LaunchData), by parameter position: the values the kernel's
// loads of them read.
func (k *keyer) launchData(fn *ir.Func) {
	k.int(int64(len(fn.LaunchData)))
	for _, d := range fn.LaunchData {
		at := -1
		for i, p := range fn.Params {
			if p.Buf == d.Buf {
				at = i
			}
		}
		k.int(int64(at))
		k.int(int64(len(d.Values)))
		for _, v := range d.Values {
			k.int(v)
		}
	}
}

// box walks what the machine reads of a tensor map: the bytes of its box
// (its element type and the product of its extents) and its last extent
// (a gather4 copy's row), not the box's shape: flash_attention4.py's
// cases over the heads per group load their query tiles as boxes of 8 x
// 16 or 4 x 32 rows, the same 128 rows.
func (k *keyer) box(m *ir.TensorMap) {
	k.int(elemBytes(m.DType))
	n, last := int64(1), int64(0)
	for _, b := range m.Box {
		n *= b
		last = b
	}
	k.int(n)
	k.int(last)
}

// store enters res, the figures of the code k walked, in the cache
// unless an entry of its key is there, and returns the entry of its key.
func (k *keyer) store(res *Kernel) *entry {
	kp := keeper{k: k}
	e := &entry{body: kp.keep(res.Body), total: kp.keep(res.Total)}
	for _, c := range k.calls {
		e.calls = append(e.calls, kp.keep(res.Calls[c]))
	}
	for _, p := range kp.ins {
		e.ins = append(e.ins, p.to)
	}
	cache.Lock()
	defer cache.Unlock()
	if old, ok := cache.m[string(k.b)]; ok {
		e = old
	} else {
		if k.key == "" {
			k.key = string(k.b)
		}
		enter(k.key, e)
	}
	if k.alt != "" {
		if _, ok := cache.m[k.alt]; !ok {
			enter(k.alt, e)
		}
	}
	return e
}

// enter puts e in the cache under key (cache locked).
func enter(key string, e *entry) {
	cache.m[key] = e
	cache.order = append(cache.order, key)
	if len(cache.order) > maxCached {
		delete(cache.m, cache.order[0])
		cache.order = cache.order[1:]
	}
}

// Lazy keys. A process that analyses each kernel once (`tilels --lower`,
// SetLazyKeys) finds in the cache only the kernels a file repeats (3 of
// the golden programs' 178): the keys of the others, a walk of all their
// code and a copy of its encoding, were an eighth of its analysis. So
// there a kernel is keyed only when another with its launch and a summary
// of its top-level statements (its preKey, which equal keys share) is
// analysed too: the first is analysed and kept unkeyed, and the second
// keys both, as the cache would have. The preKey leaves the name out:
// the 3,000-line benchmark file repeats each example under other names.
var lazyKeys atomic.Bool

// SetLazyKeys turns lazy keys on or off (off: every kernel is keyed, as
// the language server's re-analyses after each edit need).
func SetLazyKeys(on bool) { lazyKeys.Store(on) }

// preKey summarises what a kernel's key encodes: its launch and its
// top-level statements (kinds, allocations, loop extents), hashed. Equal
// keys have equal preKeys; kernels whose preKeys are equal are keyed, so
// a collision costs keys, never figures.
type preKey uint64

func preKeyOf(fn *ir.Func, l ir.Launch) preKey {
	h := uint64(14695981039346656037) // FNV-1a
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	for _, a := range [][3]int64{l.Grid, l.Block, l.Cluster} {
		for _, v := range a {
			mix(uint64(v))
		}
	}
	mix(uint64(l.DynamicSmem))
	for _, s := range fn.Body.Stmts {
		switch s := s.(type) {
		case *ir.Comment:
			continue // (not in the key)
		case *ir.Lowered:
			mix(1)
			mix(uint64(len(s.Body.Stmts)))
		case *ir.For:
			mix(2)
			if c, ok := s.Extent.(*ir.IntImm); ok {
				mix(uint64(c.Value))
			}
		case *ir.Alloc:
			mix(3)
			if b := s.Buf; b != nil {
				for i := range len(b.Name) {
					mix(uint64(b.Name[i]))
				}
				mix(uint64(len(b.Shape))) // (the key may leave the extents out: shapes)
				mix(uint64(b.Dtype.Bits))
			}
		case *ir.Let:
			mix(4)
		case *ir.If:
			mix(5)
		case *ir.Evaluate:
			mix(6)
		case *ir.Store:
			mix(7)
		default:
			mix(8)
		}
	}
	return preKey(h)
}

// preSlot holds the kernels of one preKey analysed without a key, until
// a second one comes (keyed: from then on every kernel of the preKey is
// keyed); busy is closed when the unkeyed analysis under way ends.
type preSlot struct {
	keyed   bool
	busy    chan struct{}
	waiting []unkeyed
	// unkeyed is set when the first kernel's analysis gave up at once
	// (Kernel.gaveUp), or when the keys of the preKey's first keyed
	// kernels found nothing (outcome): the kernels of the preKey are
	// analysed without keys from then on, each cheaper than its key
	// would be
	unkeyed bool
	// hits and misses count the keyed kernels of the preKey whose
	// figures the cache held, or did not (cache locked)
	hits, misses int
}

// maxKeyMisses is how many keyed kernels of one preKey may find nothing
// in the cache, none finding anything, before the preKey's kernels are
// analysed without keys. flash_attention4.py's 32 cases share a preKey
// and no figures (each case's constants move its addresses): their keys
// and the relaxed keys tried after each miss were a third of what the
// figures cost in a `tilels --lower --perf` process (perf record). A
// grid whose cases share figures finds them from its second keyed kernel
// on (sparse_prefill_head128_phase1.py: 6 cases, 2 analyses).
const maxKeyMisses = 3

// outcome notes whether a keyed kernel of the slot found its figures in
// the cache (cache locked).
func (s *preSlot) outcome(hit bool) {
	if hit {
		s.hits++
		return
	}
	if s.misses++; s.hits == 0 && s.misses >= maxKeyMisses {
		s.unkeyed = true
	}
}

type unkeyed struct {
	fn  *ir.Func
	l   ir.Launch
	res *Kernel
}

// maxUnkeyed bounds the kernels kept unkeyed, first in first out: each
// keeps its lowered code alive, which the process would have collected
// once the file was printed (all of them: the 128-file corpus's live heap
// went from 25 to 37 MB and its collections cost the lower a tenth more
// CPU). Copies of a kernel are analysed close together, the cases of one
// file.
const maxUnkeyed = 64

// keepUnkeyed notes that pk's slot holds one more unkeyed kernel and
// drops the oldest kernel kept when there are more than maxUnkeyed
// (cache locked).
func keepUnkeyed(pk preKey) {
	cache.unkeyed = append(cache.unkeyed, pk)
	if len(cache.unkeyed) <= maxUnkeyed {
		return
	}
	old := cache.unkeyed[0]
	cache.unkeyed = cache.unkeyed[1:]
	if s := cache.pre[old]; s != nil && len(s.waiting) > 0 {
		clear(s.waiting[:1])
		s.waiting = s.waiting[1:]
		if len(s.waiting) == 0 && !s.keyed && s.busy == nil {
			delete(cache.pre, old)
		}
	}
}

// cachedLazily is cached's lazy-key path: done is false when fn is to be
// keyed (its preKey met another kernel; the earlier ones are keyed and
// stored now). A kernel whose preKey is being analysed waits for that
// analysis: the cases of a file, lowered in parallel, are often copies
// of one another, which the keyed path's running keys made wait for the
// first copy too.
func cachedLazily(fn *ir.Func, l ir.Launch) (res *Kernel, ok, done bool, slot *preSlot) {
	pk := preKeyOf(fn, l)
	cache.Lock()
	s := cache.pre[pk]
	if s == nil {
		s = &preSlot{}
		cache.pre[pk] = s
	}
	for s.busy != nil {
		b := s.busy
		cache.Unlock()
		<-b
		cache.Lock()
	}
	if s.unkeyed {
		cache.Unlock()
		res, ok = AnalyzeWithin(fn, l, 0)
		return res, ok, true, nil
	}
	if !s.keyed && len(s.waiting) == 0 {
		// the first of its preKey
		b := make(chan struct{})
		s.busy = b
		cache.Unlock()
		defer close(b)
		res, ok = AnalyzeWithin(fn, l, 0)
		cache.Lock()
		s.busy = nil
		keyed := s.keyed
		switch {
		case ok && !keyed && res.gaveUp:
			// gdn_prefill_sm100.py's 8 cases (a grid extent known only
			// at run time: nothing executes) cost 0.16 ms unkeyed and
			// 4.0 ms keyed; mega_moe.py's 25, which stop at a call the
			// machine does not model, 3.9 against 9.1
			s.unkeyed = true
		case ok && !keyed:
			s.waiting = append(s.waiting, unkeyed{fn, l, res})
			keepUnkeyed(pk)
		}
		cache.Unlock()
		if ok && keyed {
			k := walkKey(fn, l)
			k.noteSkeleton(fn, k.store(res))
			k.release()
		}
		return res, ok, true, nil
	}
	waiting := s.waiting
	s.waiting, s.keyed = nil, true
	cache.Unlock()
	for _, u := range waiting {
		k := walkKey(u.fn, u.l)
		k.noteSkeleton(u.fn, k.store(u.res))
		k.release()
	}
	return nil, false, false, s
}

// keeper turns figures into the cache's form; ins maps each instruction
// kept to its copy, so that figures sharing one share its copy.
type keeper struct {
	k   *keyer
	ins []struct{ from, to *Instruction }
}

// keep returns f with its instructions' nodes and buffers as ordinals:
// f itself when it names no instruction (the analysis's figures are not
// written once returned, and the kernel that computed them shares them
// with the entry), else a copy.
func (kp *keeper) keep(f *Figures) *Figures {
	if f == nil {
		return nil
	}
	if f.Worst == nil && f.WorstGlobal == nil && f.FirstShared == nil && f.Misaligned == nil {
		return f
	}
	c := *f
	c.Worst, c.WorstGlobal, c.FirstShared, c.Misaligned = kp.instr(f.Worst), kp.instr(f.WorstGlobal), kp.instr(f.FirstShared), kp.instr(f.Misaligned)
	return &c
}

func (kp *keeper) instr(in *Instruction) *Instruction {
	if in == nil {
		return nil
	}
	for _, p := range kp.ins {
		if p.from == in {
			return p.to
		}
	}
	c := *in
	c.nodeOrd, c.bufOrd = -1, -1
	if in.node != nil {
		c.nodeOrd = slices.Index(kp.k.nodes, in.node)
	}
	if i := kp.k.bufIndex(in.Buffer); i >= 0 {
		c.bufOrd = i
	}
	c.node, c.Buffer, c.Span = nil, nil, source.NoSpan // (placed by Kernel.Where)
	c.ord = int32(len(kp.ins) + 1)
	kp.ins = append(kp.ins, struct{ from, to *Instruction }{in, &c})
	return &c
}

// keyer hashes lowered code; it numbers variables, buffers and memory
// nodes in the order it meets them.
type keyer struct {
	b    []byte              // the bytes hashed, appended as the walk goes
	key  string              // string(b), once a copy is made (cached)
	vars ptrMap[ir.Var, int] // used past smallOrds variables
	// varList are the variables in ordinal order
	varList []*ir.Var
	bufOrd  ptrMap[ir.Buffer, int] // used past smallOrds buffers
	bufs    []*ir.Buffer
	// shaped is, by buffer ordinal, whether the code reads the buffer
	// through its shape or layout (shapes)
	shaped []bool
	// nodes are the memory nodes in walk order (a node met twice is
	// listed twice: its first ordinal is the one kept).
	nodes []ir.Node
	// calls are the tile calls in walk order (ir.WalkStmts' pre-order),
	// each once; seen indexes them when there are many.
	calls []*ir.TileCall
	seen  map[*ir.TileCall]bool
	// exactRegs turns off dataExpr's rule for floating-point registers
	// (set for a walk again after the rule's check failed: fpRegsKnown)
	exactRegs, fpRegsKnown bool
	// pinned is, by variable ordinal, whether a loop or a scope id
	// binds the variable (a value the machine knows)
	pinned []bool
	// sites are the integer constants the machine may never read
	// (constfree.go), where the walk wrote them; alt is the full key
	// when b is the key without the free ones (relaxed)
	sites []constSite
	alt   string
	// data is the statement whose value the walk is in, where a
	// constant is a site (nil: where values matter)
	data ir.Stmt
	// scanned: relax scanned the kernel; skel: its skeleton, once
	// computed
	scanned bool
	skel    uint64
}

func (k *keyer) addCall(c *ir.TileCall) {
	if len(k.calls) < 32 {
		if slices.Contains(k.calls, c) {
			return
		}
	} else {
		if k.seen == nil {
			k.seen = map[*ir.TileCall]bool{}
		}
		if len(k.seen) == 0 {
			for _, x := range k.calls {
				k.seen[x] = true
			}
		}
		if k.seen[c] {
			return
		}
		k.seen[c] = true
	}
	k.calls = append(k.calls, c)
}

var keyers = sync.Pool{New: func() any {
	return &keyer{b: make([]byte, 0, 1<<14)}
}}

func newKeyer() *keyer {
	if k := spareKeyers.get(); k != nil {
		return k
	}
	return keyers.Get().(*keyer)
}

// spareKeyers keeps a few keyers across garbage collections (as
// spareMachines does machines); one whose buffer grew past maxSpareKey
// bytes goes to the pool only.
var spareKeyers = spares[*keyer]{}

const maxSpareKey = 1 << 20

// release returns k, emptied, to the pool.
func (k *keyer) release() {
	k.vars.clear()
	clear(k.varList)
	k.varList = k.varList[:0]
	k.bufOrd.clear()
	clear(k.bufs)
	k.shaped = k.shaped[:0]
	clear(k.nodes)
	clear(k.calls)
	clear(k.seen)
	k.b, k.bufs, k.nodes, k.calls = k.b[:0], k.bufs[:0], k.nodes[:0], k.calls[:0]
	k.key, k.alt, k.scanned, k.skel = "", "", false, 0
	k.pinned, k.sites, k.data = k.pinned[:0], k.sites[:0], nil
	k.exactRegs, k.fpRegsKnown = false, false
	if cap(k.b) > maxSpareKey || !spareKeyers.put(k) {
		keyers.Put(k)
	}
}

func (k *keyer) tag(t byte) { k.b = append(k.b, t) }

func (k *keyer) int(v int64) {
	if v >= 0 && v < 64 {
		k.b = append(k.b, byte(v<<1)) // AppendVarint's one byte
		return
	}
	k.b = bin.AppendVarint(k.b, v)
}

func (k *keyer) str(s string) {
	k.int(int64(len(s)))
	k.b = append(k.b, s...)
}

func (k *keyer) dtype(d ir.DataType) {
	if isHalf(d) {
		// float16 and bfloat16 are one type to the model (two bytes
		// an element, inline asm for their arithmetic and conversions:
		// halfloads.go's isHalf is all it asks of them), so a pytest
		// grid over the two shares an entry
		d.Code = ir.Float
	}
	if d.Code >= 0 && d.Code < 128 && d.Bits >= 0 && d.Bits < 256 {
		k.b = append(k.b, byte(d.Code), byte(d.Bits)) // (the common case, in two bytes)
		return
	}
	k.b = append(k.b, 0x80)
	k.int(int64(d.Code)<<16 | int64(d.Bits))
}

func (k *keyer) node(n ir.Node) { k.nodes = append(k.nodes, n) }

func (k *keyer) launch(l ir.Launch) {
	for _, a := range [][3]int64{l.Grid, l.Block, l.Cluster} {
		for _, v := range a {
			k.int(v)
		}
	}
	for _, e := range l.GridExpr {
		k.expr(e)
	}
	k.int(l.DynamicSmem)
}

func (k *keyer) variable(v *ir.Var) int {
	if v == nil {
		k.tag(0)
		return -1
	}
	if i := k.varOrd(v); i >= 0 {
		k.tag('v')
		k.int(int64(i))
		return i
	}
	// first occurrence: its ordinal is implied (the count of variables
	// met so far), its name and type written once
	k.addVar(v)
	k.tag('V')
	k.str(v.Name)
	k.dtype(v.Type)
	return len(k.varList) - 1
}

// pin notes that a loop or a scope id binds the variable of ordinal i.
func (k *keyer) pin(i int) {
	if i < 0 {
		return
	}
	for len(k.pinned) <= i {
		k.pinned = append(k.pinned, false)
	}
	k.pinned[i] = true
}

// smallOrds is how many variables a keyer finds by a scan of varList
// before it indexes them in a map (most kernels have fewer: a scan of a
// few pointers is cheaper than hashing one).
const smallOrds = 32

// varOrd returns v's ordinal, or -1 when v was not met yet.
func (k *keyer) varOrd(v *ir.Var) int {
	if len(k.varList) <= smallOrds {
		for i, x := range k.varList {
			if x == v {
				return i
			}
		}
		return -1
	}
	if i, ok := k.vars.lookup(v); ok {
		return i
	}
	return -1
}

// bufIndex returns b's ordinal, or -1 when b was not met yet (a scan of
// the first smallOrds buffers, as varOrd).
func (k *keyer) bufIndex(b *ir.Buffer) int {
	if b == nil {
		return -1
	}
	if len(k.bufs) <= smallOrds {
		for i, x := range k.bufs {
			if x == b {
				return i
			}
		}
		return -1
	}
	if i, ok := k.bufOrd.lookup(b); ok {
		return i
	}
	return -1
}

func (k *keyer) addVar(v *ir.Var) {
	k.varList = append(k.varList, v)
	switch n := len(k.varList); {
	case n == smallOrds+1:
		for i, x := range k.varList {
			k.vars.set(x, i)
		}
	case n > smallOrds+1:
		k.vars.set(v, n-1)
	}
}

func (k *keyer) buffer(b *ir.Buffer) { k.bufferAt(b, true) }

// bufferAt walks b, a reference that may read b's shape and layout
// (shaped) or one that does not (shapes).
func (k *keyer) bufferAt(b *ir.Buffer, shaped bool) {
	if b == nil {
		k.tag(0)
		return
	}
	if i := k.bufIndex(b); i >= 0 {
		k.tag('b')
		k.int(int64(i))
		k.shaped[i] = k.shaped[i] || shaped
		return
	}
	k.bufs = append(k.bufs, b)
	k.shaped = append(k.shaped, shaped)
	switch n := len(k.bufs); {
	case n == smallOrds+1:
		for i, x := range k.bufs {
			k.bufOrd.set(x, i)
		}
	case n > smallOrds+1:
		k.bufOrd.set(b, n-1)
	}
	k.tag('B')
	k.str(b.Name)
	k.str(b.Scope)
	k.dtype(b.Dtype)
	k.int(int64(b.Kind))
	k.int(int64(len(b.Shape)))
	for _, e := range b.ShapeExpr {
		k.expr(e) // (dead.go reads their variables)
	}
	k.int(b.ElemOffset)
	k.expr(b.ElemOffsetExpr)
	k.bufferAt(b.Base, false)
	k.variable(b.Data)
	if b.PtrBase != nil {
		k.tag('P')
		k.bufferAt(b.PtrBase, false)
		k.int(b.PtrOffset)
	}
}

// layout hashes what the layout's String prints (which names axes by
// name), without printing it.
func (k *keyer) layout(l layout.Layout) {
	switch l := l.(type) {
	case nil:
		k.tag(0)
	case *layout.TileLayout:
		k.tag('L')
		k.tile(l)
	case *layout.ComposeLayout:
		k.tag('Z')
		k.int(int64(l.PerElement))
		k.int(int64(l.SwizzleLen))
		k.int(int64(l.AtomLen))
		if l.SwizzleInner {
			k.tag(1)
		} else {
			k.tag(0)
		}
		k.tile(l.Tile)
	default:
		k.tag('?')
		k.str(l.String())
	}
}

func (k *keyer) tile(t *layout.TileLayout) {
	if t == nil {
		k.tag(0)
		return
	}
	k.iters(t.Shard)
	k.iters(t.Replica)
	if len(t.Offset) == 0 {
		k.int(0) // (no map iteration for the common case)
		return
	}
	// the offsets in axis-name order
	type off struct {
		name string
		v    int64
	}
	var small [8]off
	offs := small[:0]
	for a, v := range t.Offset {
		offs = append(offs, off{axisName(a), v})
	}
	slices.SortFunc(offs, func(x, y off) int {
		if c := strings.Compare(x.name, y.name); c != 0 {
			return c
		}
		return cmp.Compare(x.v, y.v)
	})
	k.int(int64(len(offs)))
	for _, o := range offs {
		k.str(o.name)
		k.int(o.v)
	}
}

func (k *keyer) iters(its []layout.Iter) {
	k.int(int64(len(its)))
	for _, it := range its {
		k.int(it.Extent)
		k.int(it.Stride)
		k.str(axisName(it.Axis))
	}
}

func axisName(a *layout.Axis) string {
	if a == nil {
		return layout.M.Name
	}
	return a.Name
}

func (k *keyer) exprs(es []ir.Expr) {
	k.int(int64(len(es)))
	for _, e := range es {
		k.expr(e)
	}
}

// expr walks e and reports whether it may be a value the machine never
// knows (constfree.go's never, over-approximated as the walk goes: a
// variable no loop or scope id binds, a load, a call, a floating-point
// constant or conversion, an operation over one): a constant operand
// beside one is a site.
func (k *keyer) expr(e ir.Expr) bool {
	switch e := e.(type) {
	case nil:
		k.tag(0)
		return false
	case *ir.IntImm:
		if v := e.Value; v >= 0 && v < 64 {
			k.b = append(k.b, 'i', byte(v<<1)) // (k.int's one byte)
		} else {
			k.tag('i')
			k.int(v)
		}
		k.dtype(e.Type)
		return false
	case *ir.FloatImm:
		k.tag('f')
		k.int(int64(math.Float64bits(e.Value)))
		return true
	case *ir.StringImm:
		k.tag('s')
		if e.Value == "bfloat16" {
			k.str("float16") // (dtype's rule: a dtype an intrinsic names)
		} else {
			k.str(e.Value)
		}
	case *ir.Var:
		i := k.variable(e)
		return i < 0 || i >= len(k.pinned) || !k.pinned[i]
	case *ir.ThreadIndex:
		k.tag('t')
		k.str(e.Axis)
	case *ir.Binary:
		k.b = append(k.b, '2', byte(e.Op)) // (BinOp is a byte)
		a0 := len(k.b)
		na := k.expr(e.A)
		sites := siteOp(e.Op) || k.data != nil
		ai := -1
		if c, ok := e.A.(*ir.IntImm); ok && sites {
			// (noted before B's sites, voided when it is not one:
			// the sites stay in key order)
			ai = len(k.sites)
			k.site(a0, len(k.b), c, e, 1, nil)
		}
		b0 := len(k.b)
		nb := k.expr(e.B)
		if ai >= 0 && !nb && k.data == nil {
			k.sites[ai].end, k.sites[ai].c = k.sites[ai].at, nil
		}
		if c, ok := e.B.(*ir.IntImm); ok && sites && (na || k.data != nil) {
			k.site(b0, len(k.b), c, e, 2, nil)
		}
		return na || nb
	case *ir.Not:
		k.tag('!')
		return k.expr(e.X)
	case *ir.Neg:
		k.tag('-')
		return k.expr(e.X)
	case *ir.Load:
		k.node(e)
		k.tag('l')
		k.buffer(e.Buf)
		k.valueExprs(e.Indices)
		return true
	case *ir.Call:
		k.node(e)
		k.tag('c')
		k.str(e.Op)
		k.dtype(e.Type)
		generic := genericOp(e)
		if !generic || !opInfoOf(e.Op).ignored || rawTMA(e.Op) { // (!unreadOperands)
			k.callArgs(e, generic)
			return true
		}
		// the machine reads no operand of it (exec.go's evaluate): an
		// integer constant among them keys its type only (a tcgen05
		// MMA's instruction descriptor, which encodes the operand
		// types: fp16_bf16_gemm.py's float16 and bfloat16 cases share
		// one entry); the rest as ever (the scans of dataregs.go and
		// dead.go read the registers and buffers they name)
		k.int(int64(len(e.Args)))
		for _, a := range e.Args {
			if c, ok := a.(*ir.IntImm); ok {
				k.tag('j')
				k.dtype(c.Type)
				continue
			}
			k.valueExpr(a)
		}
		return true
	case *ir.Cast:
		k.tag('C')
		k.dtype(e.To)
		return k.expr(e.X) || e.To.IsFloat()
	case *ir.Select:
		k.tag('?')
		c := k.selectCond(e)
		a := k.expr(e.A)
		return k.expr(e.B) || a || c
	case *ir.AddressOf:
		k.tag('&')
		k.bufferAt(e.Buf, !e.FlatIndex)
		if e.FlatIndex {
			k.tag(1)
		}
		k.valueExprs(e.Indices)
	case *ir.BufferData:
		k.tag('d')
		k.bufferAt(e.Buf, false)
	case *ir.TensorMapAddr:
		k.tag('T')
		if m := e.Map; m != nil {
			k.box(m)
		}
	case *ir.Region:
		k.tag('R')
		k.buffer(e.Buf)
		k.valueExprs(e.Min)
		k.valueExprs(e.Extent)
	case *ir.Tuple:
		k.tag('(')
		k.valueExprs(e.Elems)
	default:
		k.tag('?')
		k.str(fmt.Sprintf("%T", e))
	}
	return false
}

// dataExpr walks the value a store writes. The machine keeps no memory
// contents (a load's value is runtime data) and no floating-point value,
// so of a value written to memory, and of the parts of a register's
// value that are never known, only what decides the accesses counts:
// the loads and calls in it (walked as expr walks them), its types
// (halfloads.go's load classes), its shape (predicate.go's cheap
// bodies, dead.go's pure values) and the class of each floating-point
// operation. Additions, subtractions, multiplications, minima and maxima
// of floating-point values are one class (each is inline asm on half
// values and a plain instruction otherwise: exprOps); a division, a
// comparison and any other operator keep their own; a floating-point
// constant keeps its type, not its value. In a register's value (reg)
// an operation is of its class only when the machine's evaluation of it
// fails whatever the registers hold (it reads a floating-point constant,
// a conversion to a floating-point type or memory: evalU then gives the
// reason of its first such operand, whatever the operator). Kernels that
// differ only in such arithmetic (a pytest grid over Tx.add, Tx.sub and
// Tx.mul, or over a scale constant) then share one entry. dataExpr
// reports whether e's evaluation fails so.
func (k *keyer) dataExpr(e ir.Expr, reg bool) (unknown bool) {
	unknown, _ = k.dataExprT(e, reg)
	return unknown
}

// dataExprT is dataExpr, with the type valueType gives e (computed as
// the walk returns: valueType at each operation made the walk of a
// chain of n operations cost n squared).
func (k *keyer) dataExprT(e ir.Expr, reg bool) (unknown bool, t ir.DataType) {
	switch e := e.(type) {
	case *ir.Binary:
		k.b = append(k.b, '2', byte(e.Op))
		at := len(k.b) - 1
		a0 := len(k.b)
		ua, ta := k.dataExprT(e.A, reg)
		// (a constant in a value: a site, whatever the other operand)
		sites := siteOp(e.Op) || k.data != nil
		if c, ok := e.A.(*ir.IntImm); ok && sites {
			k.site(a0, len(k.b), c, e, 1, nil)
		}
		b0 := len(k.b)
		ub, tb := k.dataExprT(e.B, reg)
		if c, ok := e.B.(*ir.IntImm); ok && sites {
			k.site(b0, len(k.b), c, e, 2, nil)
		}
		unknown, t = ua || ub, ta
		if !t.IsValid() {
			t = tb
		}
		if (unknown || !reg) && t.IsFloat() {
			switch e.Op {
			case ir.Sub, ir.Mul, ir.Min, ir.Max:
				k.b[at] = byte(ir.Add)
			}
		}
		return unknown, t
	case *ir.FloatImm:
		k.tag('f')
		k.dtype(e.Type)
		return true, e.Type
	case *ir.Cast:
		k.tag('C')
		k.dtype(e.To)
		u, _ := k.dataExprT(e.X, reg)
		return u || e.To.IsFloat(), e.To
	case *ir.Neg:
		k.tag('-')
		return k.dataExprT(e.X, reg)
	case *ir.Not:
		k.tag('!')
		return k.dataExprT(e.X, reg)
	case *ir.Select:
		// (a lane takes one arm or the other: it fails when both do,
		// or when its condition does)
		k.tag('?')
		k.selectCond(e)
		ua, ta := k.dataExprT(e.A, reg)
		ub, _ := k.dataExprT(e.B, reg)
		return ua && ub, ta
	case *ir.Load:
		k.expr(e)
		return e.Buf.Scope != "local" || !k.exactRegs && fpReg(e.Buf), e.Buf.Dtype
	case *ir.Call:
		k.expr(e)
		return !knownCall(e), valueType(e)
	case *ir.Var:
		k.expr(e)
		return !k.exactRegs && e.Type.IsFloat(), e.Type
	}
	k.expr(e)
	return false, valueType(e)
}

// neverKnownVal is what dataExprT reports of e, without walking it into
// the key: whether its evaluation fails whatever the kernel computed,
// floating-point registers and variables taken to hold nothing known.
func neverKnownVal(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.FloatImm:
		return true
	case *ir.Cast:
		return e.To.IsFloat() || neverKnownVal(e.X)
	case *ir.Binary:
		return neverKnownVal(e.A) || neverKnownVal(e.B)
	case *ir.Neg:
		return neverKnownVal(e.X)
	case *ir.Not:
		return neverKnownVal(e.X)
	case *ir.Select:
		return neverKnownVal(e.A) && neverKnownVal(e.B)
	case *ir.Load:
		return e.Buf.Scope != "local" || fpReg(e.Buf)
	case *ir.Call:
		return !knownCall(e)
	case *ir.Var:
		return e.Type.IsFloat()
	}
	return false
}

// knownCall reports whether the machine may know the value of call c
// (exec.go's call): elect_sync, a filter, a warp shuffle or vote, a
// special register, the active mask, a CTA reduction. Any other call's
// value is never known (call gives the reason instead), whatever its
// operands hold.
func knownCall(c *ir.Call) bool {
	return c.Op == ir.OpElectSync || c.Op == ir.OpFilter || shuffleMode(c.Op) != 0 || isAnySync(c.Op) ||
		sregOf(c) != "" || isActiveMask(c) || isThreadRank(c) || isCTAReduce(c.Op)
}

// fpVar checks dataExpr's rule for floating-point variables (a float
// register's value is often one: flash_attention4.py's row_max[0] =
// row_max_new): the machine binds a variable only to what a let or an
// assignment evaluates (exec.go's assign), so when each value bound to
// a float variable is one whose evaluation fails, none holds anything
// known. A value that may be known breaks the rule (walkKey walks again).
func (k *keyer) fpVar(v *ir.Var, value ir.Expr) {
	if !k.exactRegs && v.Type.IsFloat() && !neverKnownVal(value) {
		k.fpRegsKnown = true
	}
}

// unreadOperands reports whether c is an intrinsic whose operands the
// machine never reads: exec.go's evaluate returns at its ignored
// prefixes (a barrier, an mbarrier operation, a tensor-core or
// tensor-memory instruction) before it evaluates them, and the proofs
// of warps.go pass them by.
func unreadOperands(c *ir.Call) bool {
	return genericOp(c) && opInfoOf(c.Op).ignored && !rawTMA(c.Op)
}

// fpReg reports a register buffer of floating-point elements. The
// machine keeps a register element's value per buffer (exec.go's
// localStore and localLoadTo), written only by a store into that buffer;
// when every such store's value is one whose evaluation fails (dataExpr
// checks each, as it walks, taking the loads of such buffers to fail:
// by induction over the kernel's execution, no element of one then ever
// holds a value, an unwritten element none either), a load of one fails
// whatever the kernel computed, and the arithmetic over it is of its
// class. A store that breaks the rule (an integer value written into a
// float register, which well-typed code converts) makes walkKey walk the
// kernel again with the rule off.
func fpReg(b *ir.Buffer) bool {
	return b.Scope == "local" && b.Dtype.IsFloat()
}

func (k *keyer) block(b *ir.Block) {
	if b == nil {
		k.tag(0)
		return
	}
	k.tag('{')
	k.int(int64(len(b.Stmts)))
	for _, s := range b.Stmts {
		k.stmt(s)
	}
}

func (k *keyer) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Block:
		k.block(s)
	case *ir.For:
		k.tag('F')
		k.pin(k.variable(s.Var))
		k.expr(s.Min)
		k.expr(s.Extent)
		k.int(int64(s.Kind))
		k.int(s.Unroll)
		k.block(s.Body)
	case *ir.While:
		k.tag('W')
		k.expr(s.Cond)
		k.block(s.Body)
	case *ir.If:
		k.tag('I')
		k.expr(s.Cond)
		k.block(s.Then)
		k.block(s.Else)
	case *ir.Store:
		k.node(s)
		k.tag('S')
		k.buffer(s.Buf)
		k.exprs(s.Indices)
		k.data = s
		at := len(k.b)
		if !k.dataExpr(s.Value, s.Buf.Scope == "local") && fpReg(s.Buf) {
			k.fpRegsKnown = true
		}
		if c, ok := s.Value.(*ir.IntImm); ok {
			k.site(at, len(k.b), c, nil, 0, nil)
		}
		k.data = nil
	case *ir.Evaluate:
		k.tag('E')
		if c, ok := s.X.(*ir.Call); ok && tensorCopy(c.Op) {
			k.data = s // (operands the machine does not read)
		}
		k.expr(s.X)
		k.data = nil
	case *ir.Let:
		k.tag('L')
		k.variable(s.Var)
		at := len(k.b)
		k.data = s
		k.expr(s.Value)
		if c, ok := s.Value.(*ir.IntImm); ok {
			k.site(at, len(k.b), c, nil, 0, s)
		}
		k.data = nil
		if s.Mutable {
			k.tag(1)
		}
		k.fpVar(s.Var, s.Value)
	case *ir.Assign:
		k.tag('=')
		k.variable(s.Var)
		at := len(k.b)
		k.data = s
		k.expr(s.Value)
		if c, ok := s.Value.(*ir.IntImm); ok {
			k.site(at, len(k.b), c, nil, 0, nil)
		}
		k.data = nil
		k.fpVar(s.Var, s.Value)
	case *ir.Alloc:
		k.tag('A')
		k.bufferAt(s.Buf, false)
	case *ir.Decl:
		k.tag('D')
		k.bufferAt(s.Buf, false)
	case *ir.ScopeID:
		k.tag('#')
		k.str(string(s.Kind))
		for _, v := range s.Vars {
			k.pin(k.variable(v))
		}
		for _, e := range s.Extents {
			k.int(e)
		}
		k.exprs(s.Dynamic)
		if s.Unresolved {
			k.tag(1)
		}
	case *ir.TileCall:
		k.addCall(s)
		k.tag('X')
		k.str(s.Op)
	case *ir.Lowered:
		if s.Call != nil {
			k.addCall(s.Call)
		}
		k.tag('O')
		k.block(s.Body)
	case *ir.Break:
		k.tag('b')
	case *ir.Continue:
		k.tag('n')
	case *ir.Comment:
		if s.LeftOut {
			k.tag('L')
			k.str(s.Text)
		}
	default:
		k.tag('?')
		k.str(fmt.Sprintf("%T", s))
	}
}

// ResetCache empties the cache (benchmarks measure a first analysis).
func ResetCache() {
	cache.Lock()
	cache.m, cache.order = map[string]*entry{}, nil
	cache.running = map[string]chan struct{}{}
	cache.pre, cache.unkeyed = map[preKey]*preSlot{}, nil
	cache.skel, cache.kept = map[uint64]*skelSlot{}, nil
	cache.Unlock()
}
