package lsp

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/benchcorpus"
	"github.com/tilels/tilels/lower"
)

// corpus is the shared benchmark corpus (internal/benchcorpus), the same
// file lower's benchmarks use.
func corpus(tb testing.TB, lines int) string {
	src, err := benchcorpus.Build("../testdata/examples", lines)
	if err != nil {
		tb.Fatal(err)
	}
	return src
}

// percentiles reports p50 and p99 of ds in milliseconds.
func percentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		i := int(q * float64(len(ds)-1))
		return float64(ds[i].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, "max-ms")
}

// BenchmarkDidChangePublish3000: one keystroke (insert, then delete, one
// character inside a kernel in the middle of a 3,000-line file) to the
// publishDiagnostics of that version, through the whole JSON-RPC path of
// the in-process client. Targets: p50 <= 5 ms, p99 <= 25 ms.
func BenchmarkDidChangePublish3000(b *testing.B) {
	lower.TuneRuntime()
	c := newClient(b, fullCaps(), "")
	u := uri.File("/w/big.py")
	src := corpus(b, 3000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
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

// BenchmarkDidChangePublishModule3000 is the worst case: a keystroke in
// module-level code (a comment line at the top), which every kernel may
// depend on, so the whole file is analysed again.
func BenchmarkDidChangePublishModule3000(b *testing.B) {
	lower.TuneRuntime()
	c := newClient(b, fullCaps(), "")
	u := uri.File("/w/big.py")
	src := "# header\n" + corpus(b, 3000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	version := int32(1)
	var lat []time.Duration
	for b.Loop() {
		version++
		start := time.Now()
		if version%2 == 0 {
			c.change(u, version, partial(0, 1, 0, 1, "x"))
		} else {
			c.change(u, version, partial(0, 1, 0, 2, ""))
		}
		c.waitDiags(u, version)
		lat = append(lat, time.Since(start))
	}
	percentiles(b, lat)
}

// BenchmarkHover3000: hovers on every tile call of a 3,000-line file, in
// turn, from the last snapshot. Target: p99 <= 2 ms.
func BenchmarkHover3000(b *testing.B) {
	lower.TuneRuntime()
	c := newClient(b, fullCaps(), "")
	u := uri.File("/w/big.py")
	src := corpus(b, 3000)
	c.open(u, 1, src)
	c.waitDiags(u, 1)
	var at []protocol.Position
	for i, l := range strings.Split(src, "\n") {
		if j := strings.Index(l, "Tx."); j >= 0 {
			at = append(at, pos(uint32(i), uint32(j+4)))
		}
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		h := c.hover(u, at[i%len(at)])
		lat = append(lat, time.Since(start))
		if h == nil {
			b.Fatalf("no hover at %v", at[i%len(at)])
		}
		i++
	}
	percentiles(b, lat)
}

// BenchmarkResidentMemory20Files: the tilels binary with twenty different
// 3,000-line files open and analysed; reports its resident set size
// (VmRSS) and peak (VmHWM). Target: <= 150 MB.
func BenchmarkResidentMemory20Files(b *testing.B) {
	for b.Loop() {
		w := startBinary(b)
		w.send(initialize)
		w.response(1)
		base := corpus(b, 3000)
		for i := 0; i < 20; i++ {
			// Distinct texts (kernel names differ), so nothing is shared.
			text := strings.ReplaceAll(base, "def ", fmt.Sprintf("def f%d_", i))
			w.send(didOpen(fmt.Sprintf("file:///w/big%d.py", i), 1, text))
		}
		for i := 0; i < 20; i++ {
			uri := fmt.Sprintf("file:///w/big%d.py", i)
			w.await("diagnostics of "+uri, func(m map[string]any) bool {
				p, _ := m["params"].(map[string]any)
				return m["method"] == "textDocument/publishDiagnostics" && p["uri"] == uri
			})
		}
		time.Sleep(200 * time.Millisecond)
		rss, hwm := procMemory(b, w.pid)
		b.ReportMetric(rss, "rss-MB")
		b.ReportMetric(hwm, "peak-rss-MB")
		w.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
		w.response(2)
		w.send(`{"jsonrpc":"2.0","method":"exit"}`)
		if code := w.exit(); code != 0 {
			b.Fatalf("exit code %d", code)
		}
	}
}

// procMemory reads VmRSS and VmHWM of a process, in MB.
func procMemory(tb testing.TB, pid int) (rss, hwm float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// TestBenchCorpus keeps the benchmark corpus honest: it has many kernels
// and calls, and an edit in the middle takes the one-kernel path.
func TestBenchCorpus(t *testing.T) {
	src := corpus(t, 3000)
	if n := strings.Count(src, "\n"); n < 3000 {
		t.Fatalf("%d lines", n)
	}
	sess := lower.NewSession(lower.Options{})
	ctx := context.Background()
	first, err := sess.Analyze(ctx, sourceFile(src))
	if err != nil || len(first.Kernels) < 100 {
		t.Fatalf("%v, %d kernels", err, len(first.Kernels))
	}
	mid := strings.Index(src[len(src)/2:], "Tx.") + len(src)/2
	snap, err := sess.Analyze(ctx, sourceFile(src[:mid]+" "+src[mid:]))
	if err != nil || snap.Full {
		t.Errorf("an edit in the middle took the whole-file path (%v)", err)
	}
}

func sourceFile(text string) *source.File { return source.NewFile("big.py", []byte(text)) }
