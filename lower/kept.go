package lower

import (
	"runtime"
	"sync/atomic"
)

// Aside runs f on another goroutine, one of those kept between calls (see
// kept); f must recover its own panics, as a goroutine's must.
func Aside(f func()) { kept(f) }

// kept runs f on a goroutine kept between calls: parallel's and pipe's
// workers and Aside's. A goroutine's stack starts at a few kilobytes and
// is copied to one twice its size each time a call needs more; the
// memory analysis's recursion grew a fresh goroutine's stack several
// times at every kernel, and runtime.newstack was a ninth of what --perf
// added to the golden programs' one-shot run (GOMAXPROCS=1, perf(1)).
// A kept goroutine's stack stays grown. At most maxKeptIdle wait for
// work; the others return.
func kept(f func()) {
	select {
	case keptTasks <- f: // an idle one took it
	default:
		go keptLoop(f)
	}
}

var (
	keptTasks = make(chan func())
	keptIdle  atomic.Int32
)

func keptLoop(f func()) {
	growStack()
	for {
		f()
		f = nil // (nothing the call held stays reachable while idle)
		if keptIdle.Add(1) > maxKeptIdle() {
			keptIdle.Add(-1)
			return
		}
		f = <-keptTasks
		keptIdle.Add(-1)
	}
}

// maxKeptIdle: parallel's workers (one less than GOMAXPROCS: the caller is
// one), a pipe's, and Aside's.
func maxKeptIdle() int32 { return int32(2*runtime.GOMAXPROCS(0) + 1) }

// growStack grows the calling goroutine's stack to 64 KB at once, while
// it holds two frames. The memory analysis's recursion needs up to 64 KB
// (every golden program; 3 corpus files need more), and a new goroutine
// starts at 8 KB: growing it by doublings as the first analysis recurses
// copies the stack and adjusts the pointers of every frame, three times.
// A kept goroutine is new at least once in every `tilels --lower` process;
// pre-grown, --perf added 7 % to the whole-process wall time of six small
// golden programs instead of 10 % (30 interleaved runs, the fastest of
// each).
//
//go:noinline
func growStack() {
	var pad [32 << 10]byte // (its frame, with the caller's, rounds up to 64 KB)
	touchLast(pad[:])
}

//go:noinline
func touchLast(b []byte) { b[len(b)-1] = 1 }
