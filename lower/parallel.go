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
		go work()
	}
	work()
	wg.Wait()
	if panicI < n {
		panic(panicV)
	}
}
