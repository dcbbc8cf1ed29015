package lower

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/perf/memory"
)

// figuresAside computes, on goroutines of its own (one on 2 processors:
// asideWorkers), the memory figures (and, when asked, the performance
// warnings) of each CUDA kernel as soon as Analyze's dispatch pipe has
// lowered it, while the evaluator goes on
// with the rest of the file and, once Analyze has returned, while the
// caller makes its text (AnalyzeAside: `tilels --lower --perf` and
// `--emit json`). Analyze never waits for it. The kernel's record shares
// the cell the goroutine fills, so a later Kernel.Memory or kernelPerf
// finds the result there, waits for the one under way (the cell's
// sync.Once), or computes it when the goroutine has not come to it yet;
// the results are those the record would compute (perf/memory's content
// cache makes them independent of the order and of the goroutine).
//
// Why: a one-shot process of a small or middling file leaves a processor
// idle most of the time (the evaluator is one goroutine; the dispatch of
// each kernel, on the other, is short), and the figures, computed only
// after Analyze, were on the critical path after the text: in
// swizzled_smem_copy.txtar's process the analysis of its three kernels
// took 1.0 ms against 0.4 ms of text, and --perf waited 0.6-1.0 ms for
// it. Options.PerfAhead, which computes the figures inside the dispatch
// pipe, was measured for the CLI and dropped (+5.7 % -> +13.0 % on the
// goldens): the pipe's goroutines then hold up the dispatch of the next
// kernels, and Analyze returns only when every figure is known, so the
// text waits for them all.
//
// Measured (medians of 30-40 interleaved processes, 2 cores): --emit
// json, which computed the figures one kernel after another after the
// file, flash_attention4.py 120.7 -> 92.5 ms; --perf, middling files 1-2
// ms faster (fp8_blockwise_gemm.py 22.6 -> 20.6), flash_attention4.py
// (both processors busy throughout) and the small golden programs (whose
// kernels are all dispatched at the end of their evaluation) unchanged
// within the noise (docs/memory-agreement.md, tenth pass).
type figuresAside struct {
	// figures: every kernel's figures are wanted (--emit json);
	// warnings: the warnings (--perf), and the figures they read
	figures, warnings bool

	mu    sync.Mutex
	cond  sync.Cond
	queue []*Kernel
	// workers: the goroutines started (at most asideWorkers); idle: those
	// waiting for a kernel
	workers, idle int
	closed        bool
	// stop drops what is queued: Analyze's result was discarded (its
	// reference chosen again) or cancelled
	stop atomic.Bool
}

func newFiguresAside(figures, warnings bool) *figuresAside {
	a := &figuresAside{figures: figures, warnings: warnings}
	a.cond.L = &a.mu
	return a
}

// cell queues the kernel the pipe dispatched to out for arch and returns
// the cell the goroutine will fill for it; nil when a is nil or the
// kernel gets no CUDA figures (another target's, or not lowered).
func (a *figuresAside) cell(out *dispatch.Output, arch string) *memCell {
	if a == nil || out.Foreign != "" || out.Func == nil || arch == trnArch {
		return nil
	}
	cell := &memCell{}
	k := &Kernel{Lowered: out.Func, Launch: out.Launch, Calls: out.Decisions, mem: cell}
	a.mu.Lock()
	a.queue = append(a.queue, k)
	if a.idle == 0 && a.workers < asideWorkers() {
		a.workers++
		kept(a.run)
	}
	a.mu.Unlock()
	a.cond.Signal()
	return cell
}

// close ends the goroutine once the queue is empty (drop: at once).
func (a *figuresAside) close(drop bool) {
	if a == nil {
		return
	}
	if drop {
		a.stop.Store(true)
	}
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cond.Broadcast()
}

// pop takes the oldest queued kernel, if any (a.mu held).
func (a *figuresAside) pop() (*Kernel, bool) {
	if len(a.queue) == 0 {
		return nil, false
	}
	k := a.queue[0]
	a.queue[0] = nil
	a.queue = a.queue[1:]
	return k, true
}

// take returns the next queued kernel, if any, without waiting.
func (a *figuresAside) take() (*Kernel, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pop()
}

// next returns the next queued kernel, waiting for one until close.
func (a *figuresAside) next() (*Kernel, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.queue) == 0 && !a.closed {
		a.idle++
		a.cond.Wait()
		a.idle--
	}
	return a.pop()
}

// drain computes the kernels get gives until it gives none.
func (a *figuresAside) drain(get func() (*Kernel, bool)) {
	for {
		k, ok := get()
		if !ok {
			return
		}
		if !a.stop.Load() {
			a.compute(k)
		}
	}
}

// asideWorkers is how many goroutines compute a file's figures: one per
// processor the lowering leaves (GOMAXPROCS less one: the evaluator's),
// at least one. A worker more starts when a kernel is queued while every
// worker is busy. On the 2-core development machine that is one, as
// before; on more, the cases of a pytest grid no longer wait for one
// goroutine (flash_attention4.py's 32 cases take 50-55 ms of analysis
// against its 94 ms of lowering; docs/memory-agreement.md, eleventh
// pass).
func asideWorkers() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// run is a worker's work.
func (a *figuresAside) run() { a.drain(a.next) }

// HelpFigures computes, on the calling goroutine, the figures (and
// warnings) AnalyzeAside's goroutine has not come to yet, next to it,
// and returns when none is left queued (one may still be under way
// there: the record's Memory waits for it). A caller about to ask for
// every record's figures calls it first, so that two processors, not
// one, compute what is left (after Analyze the caller makes its text
// while the goroutine works; a goroutine more for the figures then, as
// before AnalyzeAside, only took turns with them). No-op for a Result
// of Analyze.
func (r *Result) HelpFigures() {
	if a := r.aside; a != nil {
		a.drain(a.take)
	}
}

// compute fills k's cell. A panic of the analysis is kept in the cell,
// inside its sync.Once, and raised again on the goroutine of whoever asks
// the record for its figures or warnings, as it would have been without
// the goroutine (a goroutine's panic would end the process).
//
// Only the warnings asked for (--perf, not --emit json), a kernel none of
// whose calls has a variant gets no figures, as perfOf computes none for
// it: flash_attention_backward.py's process took 22 ms more CPU with
// them.
func (a *figuresAside) compute(k *Kernel) {
	cell := k.mem
	if a.figures || slices.ContainsFunc(k.Calls, func(d *dispatch.Decision) bool { return d.Variant != "" }) {
		cell.once.Do(func() {
			defer catch(&cell.panicked)
			if asideHook != nil {
				asideHook(k)
			}
			cell.k = memory.Cached(k.Lowered, k.Launch)
		})
	}
	if !a.warnings || cell.panicked != nil {
		return
	}
	cell.perfOnce.Do(func() {
		defer catch(&cell.perfPanicked)
		cell.perf = perfOf(k)
		cell.perfDone.Store(true)
	})
}

// asideHook, when set (tests), is called on the goroutine before each
// kernel's figures are computed there.
var asideHook func(*Kernel)

func catch(into *any) {
	if r := recover(); r != nil {
		*into = r
	}
}

// AnalyzeAside is Analyze with each CUDA kernel's memory figures (every
// kernel's: figures; those the warnings read: warnings) and performance
// warnings (warnings) computed on a goroutine of their own from the
// moment the kernel is dispatched (figuresAside), for a caller that will
// ask for them: `tilels --lower --emit json` (figures) and --perf
// (warnings). The result is Analyze's.
func AnalyzeAside(f *source.File, opts Options, figures, warnings bool) *Result {
	return analyze(f, opts, newFiguresAside(figures, warnings))
}
