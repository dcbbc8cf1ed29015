package lower

import (
	"sync/atomic"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/eval"
)

// perfAhead computes, in Analyze's dispatch pipe, the memory figures and
// performance warnings of the first Options.PerfAhead kernels dispatched,
// so that they are ready when the language server publishes the version
// (lsp's publishDiagnostics asks for them at once): on the keystroke path
// they cost the time of the last kernel's figures instead of every
// kernel's after the analysis. A record's memCell is what Kernel.Memory
// and kernelPerf compute once per record; here it is filled before the
// record exists, from the same dispatch output, so the figures and
// warnings are those the record would compute (perf/memory's content
// cache makes them independent of when they are computed).
//
// Measured (BenchmarkSessionFile's file in the language server, 4 cases of
// one 2,450-line kernel): perf/memory's content key alone was 3.6 ms of
// CPU per keystroke, after the analysis and before the publish.
//
// The analyses of one publish share a budget of statements, perTotal
// times PerfWork: past it, a kernel's figures come from the content cache
// or are left for the later publish. The bound per kernel alone let a
// file of many cases spend it in every one: flash_attention4.py's 32
// cases, each under the bound once its persistent grid was known (perf/
// memory hostconsts.go), added 450 ms to a keystroke.
type perfAhead struct {
	left   atomic.Int64
	work   int64                     // Options.PerfWork
	budget atomic.Int64              // statements left to this publish's analyses (work > 0)
	cells  map[*eval.Kernel]*memCell // guarded by Analyze's mutex
}

// perTotal is the statements all the analyses of a publish may execute,
// in units of the bound of one (Options.PerfWork).
const perTotal = 2

func newPerfAhead(n int, work int64) *perfAhead {
	a := &perfAhead{cells: map[*eval.Kernel]*memCell{}, work: work}
	a.left.Store(int64(n))
	a.budget.Store(perTotal * work)
	return a
}

// compute returns the filled cell of a kernel dispatched to out for arch,
// or nil when the budget is spent or the kernel gets no CUDA record.
func (a *perfAhead) compute(out *dispatch.Output, arch string) *memCell {
	if out.Foreign != "" || out.Func == nil || a.left.Add(-1) < 0 {
		return nil
	}
	cell := &memCell{}
	work := a.work
	if work > 0 {
		work = min(work, a.budget.Load())
		if work <= 0 {
			work = -1 // the content cache's figures, else left for later
		}
	}
	k := &Kernel{Lowered: out.Func, Launch: out.Launch, Calls: out.Decisions, mem: cell}
	if arch == trnArch {
		k.Target = "trn"
	}
	kernelPerfWithin(k, work) // over the bound: the cell says so
	if work > 0 {
		spent := work // given up: the bound was spent
		if cell.k != nil {
			spent = cell.k.Work()
		}
		a.budget.Add(-spent)
	}
	return cell
}

// cell returns the cell computed for k, else an empty one.
func (a *perfAhead) cell(k *eval.Kernel) *memCell {
	if c := a.cells[k]; c != nil {
		return c
	}
	return &memCell{}
}
