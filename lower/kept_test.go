package lower

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// goid is the calling goroutine's id, from its stack's header line
// ("goroutine 7 [running]:").
func goid() int {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	n, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return n
}

// TestKeptReused: calls one after the other run on the goroutine the first
// one started, which waits for the next (its stack stays grown), and no
// more than maxKeptIdle goroutines wait.
func TestKeptReused(t *testing.T) {
	ids := map[int]bool{}
	for range 100 {
		done := make(chan int)
		kept(func() { done <- goid() })
		ids[<-done] = true
		// let the goroutine reach its wait for the next call
		for range 100 {
			if keptIdle.Load() > 0 {
				break
			}
			runtime.Gosched()
		}
		runtime.Gosched()
	}
	if len(ids) > 10 {
		t.Errorf("100 calls one after the other ran on %d goroutines", len(ids))
	}
	// many at once: each takes an idle goroutine or starts one; at most
	// maxKeptIdle wait afterwards
	const n = 64
	release := make(chan struct{})
	started := make(chan struct{}, n)
	for range n {
		kept(func() {
			started <- struct{}{}
			<-release
		})
	}
	for range n {
		<-started
	}
	close(release)
	// a goroutine past the limit counts itself idle for a moment before
	// it leaves (keptLoop's Add(1), then Add(-1)): on a loaded machine
	// the count is read between the two, so it is read until it settles
	// (a pool that keeps too many never does)
	idle := keptIdle.Load()
	for deadline := time.Now().Add(5 * time.Second); idle > maxKeptIdle() && time.Now().Before(deadline); idle = keptIdle.Load() {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if idle > maxKeptIdle() {
		t.Errorf("%d goroutines wait for work, want at most %d", idle, maxKeptIdle())
	}
}
