package lower

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallel calls f(0), ..., f(n-1) on at most GOMAXPROCS goroutines and
// returns when all calls have returned. The calls must be independent;
// callers keep output deterministic by writing f(i)'s result to slot i. A
// panic in f is re-raised on the caller's goroutine (the one of the lowest
// index), as a sequential loop would, so callers that recover per request
// keep working.
func parallel(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		panicI = n
		panicV any
	)
	work := func() {
		defer wg.Done()
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						mu.Lock()
						if i < panicI {
							panicI, panicV = i, r
						}
						mu.Unlock()
					}
				}()
				f(i)
			}()
		}
	}
	wg.Add(workers)
	for range workers - 1 {
		kept(work)
	}
	work()
	wg.Wait()
	if panicI < n {
		panic(panicV)
	}
}

// pipe runs f on the values handed to add, on up to GOMAXPROCS
// goroutines started as values arrive, while the caller goes on making
// more; wait runs what is left on the caller's goroutine too and returns
// once every call has returned, with the panics of the calls that
// panicked, by value (the caller re-raises the one a sequential run would
// have met first). The calls must be independent; f keeps its results
// per value.
type pipe[T comparable] struct {
	f       func(T)
	mu      sync.Mutex
	cond    sync.Cond
	queue   []T
	closed  bool
	workers int // goroutines started
	wg      sync.WaitGroup
	panics  map[T]any
}

func newPipe[T comparable](f func(T)) *pipe[T] {
	p := &pipe[T]{f: f}
	p.cond.L = &p.mu
	return p
}

// add queues v; it never blocks.
func (p *pipe[T]) add(v T) {
	p.mu.Lock()
	p.queue = append(p.queue, v)
	if n := runtime.GOMAXPROCS(0); n > 1 && p.workers < n {
		p.workers++
		p.wg.Add(1)
		kept(p.work)
	}
	p.mu.Unlock()
	p.cond.Signal()
}

// next takes the oldest queued value, waiting for one until wait closes
// the queue.
func (p *pipe[T]) next() (T, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) == 0 && !p.closed {
		p.cond.Wait()
	}
	if len(p.queue) == 0 {
		var zero T
		return zero, false
	}
	v := p.queue[0]
	p.queue = p.queue[1:]
	return v, true
}

func (p *pipe[T]) work() {
	defer p.wg.Done()
	for {
		v, ok := p.next()
		if !ok {
			return
		}
		p.run(v)
	}
}

func (p *pipe[T]) run(v T) {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.panics == nil {
				p.panics = map[T]any{}
			}
			p.panics[v] = r
			p.mu.Unlock()
		}
	}()
	p.f(v)
}

// wait closes the queue, helps run what is left and returns when every
// call has returned.
func (p *pipe[T]) wait() map[T]any {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
	for {
		v, ok := p.next()
		if !ok {
			break
		}
		p.run(v)
	}
	p.wg.Wait()
	return p.panics
}
