package lower

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tilels/tilels/dsl/source"
)

// FuzzSession: one edit through a Session gives what Analyze gives for
// the edited text (incremental == whole), whichever path it takes. Seeds
// are the session corpora with the snippets of TestSessionMatchesAnalyze.
func FuzzSession(f *testing.F) {
	// A few seeds: each costs two analyses in the fuzzer's instrumented
	// binary, and it runs them all before it starts mutating.
	for i, src := range []string{sessionCorpus, casesCorpus} {
		for k := i; k < len(snippets); k += 7 {
			f.Add(src, uint16(k*97+i*13), uint8(k%3), snippets[k])
		}
		f.Add(src, uint16(1), uint8(0), commentSnippets[i])
	}
	// The factory's kernel (every edit of it is analysed whole): a space
	// after a "(" ending a line and inside a line, a digit, a comment.
	for _, at := range []string{"Tx.cta.copy(\n", "Tx.cta.copy(A_s", "(rows, 64), \"float16\", scope"} {
		p := strings.Index(factoryCorpus, at) + strings.IndexByte(at, '(') + 1
		f.Add(factoryCorpus, uint16(p), uint8(0), " ")
		f.Add(factoryCorpus, uint16(p), uint8(1), "3")
		f.Add(factoryCorpus, uint16(p), uint8(0), "# c\n")
	}
	// The 12-case kernel of the preview tests: an edit in its body
	// publishes a preview first.
	if configs, err := os.ReadFile("testdata/preview/configs.py"); err == nil {
		p := strings.Index(string(configs), "Tx.warp.copy(row[") + len("Tx.warp.copy(")
		f.Add(string(configs), uint16(p), uint8(0), " ")
		f.Add(string(configs), uint16(p), uint8(3), "A_s")
		f.Add(string(configs), uint16(p-1), uint8(0), "y")
	}
	f.Fuzz(func(t *testing.T, src string, at uint16, del uint8, ins string) {
		if len(src) > 1<<13 || len(ins) > 256 {
			t.Skip()
		}
		p := int(at) % (len(src) + 1)
		d := min(int(del), len(src)-p)
		text := src[:p] + ins + src[p+d:]
		// An input the pipeline takes long on is a failure, not a hang of
		// the fuzzer.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				panic(fmt.Sprintf("FuzzSession: no result in 20 s for %q edited at %d+%d -> %q", src, p, d, ins))
			}
		}()
		sess := NewSession(Options{})
		ctx := context.Background()
		if _, err := sess.Analyze(ctx, source.NewFile("k.py", []byte(src))); err != nil {
			t.Fatal(err)
		}
		// A preview, when the edit re-analyses many cases, has its
		// positions in the edited text.
		snap, err := sess.AnalyzeWithPreview(ctx, source.NewFile("k.py", []byte(text)), func(pv *Preview) {
			for _, d := range pv.Diags {
				if d.Span.IsValid() && (d.Span.Start > d.Span.End || int(d.Span.End) > len(text)) {
					t.Errorf("preview diagnostic %v outside the edited text (%d bytes): %s", d.Span, len(text), d.Message)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if msg := compareSnapshot(snap, Analyze(source.NewFile("k.py", []byte(text)), Options{})); msg != "" {
			t.Fatalf("edit %d+%d -> %q (full=%v): %s", p, d, ins, snap.Full, msg)
		}
	})
}
