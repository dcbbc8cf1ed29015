package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/tilels/tilels/lower"
)

// BenchmarkDidChangePublish3000Machine is BenchmarkDidChangePublish3000
// with machine code on: tilels.nvcc names $TILELS_NVCC's nvcc (the fake
// toolchain of perf/machine/testdata/fake without one), and the document
// rests long enough before the first keystroke for the background job
// to start compiling, so the keystrokes meet it. Its p50/p99 are to be
// compared with BenchmarkDidChangePublish3000's: the job must not be on
// the keystroke path (each publication cancels a running nvcc and
// postpones the job until the document rests again).
func BenchmarkDidChangePublish3000Machine(b *testing.B) {
	lower.TuneRuntime()
	TuneRuntime() // the collector target the server ships (cmd/tilels serve)
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	nvcc := os.Getenv("TILELS_NVCC")
	if nvcc == "" {
		p, err := filepath.Abs("../perf/machine/testdata/fake/nvcc")
		if err != nil {
			b.Fatal(err)
		}
		nvcc = p
	}
	b.Logf("nvcc: %s", nvcc)
	c := newClient(b, fullCaps(), `{"nvcc": `+string(mustJSON(nvcc))+`}`)
	u := uri.File("/w/big.py")
	src := corpus(b, 3000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	time.Sleep(machineDelay + 200*time.Millisecond) // the job is compiling now
	lines := strings.Split(src, "\n")
	row := len(lines) / 2
	for !strings.Contains(lines[row], "Tx.") {
		row++
	}
	col := uint32(strings.Index(lines[row], "Tx."))
	version := int32(1)
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		version++
		start := time.Now()
		if version%2 == 0 {
			c.change(u, version, partial(uint32(row), col, uint32(row), col, " "))
		} else {
			c.change(u, version, partial(uint32(row), col, uint32(row), col+1, ""))
		}
		c.waitDiags(u, version)
		lat = append(lat, time.Since(start))
	}
	percentiles(b, lat)
}
