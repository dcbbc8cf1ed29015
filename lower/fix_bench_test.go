package lower

import (
	"context"
	"testing"

	"github.com/tilels/tilels/dsl/source"
)

// BenchmarkFallbackFix3000 computes the verified quick fixes of the first
// dispatch/fallback-only warning of the 3,000-line corpus (one whole-file
// analysis per candidate edit; what a code action request on that warning
// costs the first time, before the per-snapshot memo).
func BenchmarkFallbackFix3000(b *testing.B) {
	src := bigFile(b, 3000)
	snap, err := NewSession(Options{}).Analyze(context.Background(), source.NewFile("big.py", src))
	if err != nil {
		b.Fatal(err)
	}
	var at int = -1
	for i, d := range snap.Diags {
		if d.Code == CodeFallbackOnly {
			at = i
			break
		}
	}
	if at < 0 {
		b.Fatal("no fallback-only warning in the corpus")
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(snap.fallbackFixes(Options{}, snap.Diags[at]))
	}
	if n == 0 {
		b.Fatalf("no fix for %s", snap.Diags[at].Message)
	}
	b.ReportMetric(float64(n), "fixes/op")
}
