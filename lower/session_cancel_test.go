package lower

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// laterCtx is a context that is done from its after-th Err call on.
type laterCtx struct {
	context.Context
	calls, after int64
	done         chan struct{}
}

func newLaterCtx(after int64) *laterCtx {
	return &laterCtx{Context: context.Background(), after: after, done: make(chan struct{})}
}

func (c *laterCtx) Done() <-chan struct{} { return c.done }

func (c *laterCtx) Err() error {
	if atomic.AddInt64(&c.calls, 1) >= c.after {
		return context.Canceled
	}
	return nil
}

// TestSessionCancelMidway: an update whose context is done while it runs
// (the evaluation asks every 1,024 steps) returns the context's error and
// keeps the previous snapshot; the next update analyses as if the
// cancelled one had not been. Both paths: a whole-file analysis (a
// factory-built kernel with 12 cases) and a reduced one (one of
// three top-level prim_funcs).
func TestSessionCancelMidway(t *testing.T) {
	srcs := map[string][]byte{}
	var err error
	if srcs["testdata/preview/configs.py"], err = os.ReadFile("testdata/preview/configs.py"); err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile("testdata/mem_rows_cols.txtar")
	if err != nil {
		t.Fatal(err)
	}
	// Three top-level kernels: an edit in one analyses it alone.
	one, _ := ar.Get("kernel.py")
	head, body, _ := strings.Cut(string(one), "@T.prim_func")
	body, directive, _ := strings.Cut(body, "# tilels:")
	var three strings.Builder
	three.WriteString("# tilels:" + directive + head)
	for _, name := range []string{"rows_cols", "rows_cols_b", "rows_cols_c"} {
		three.WriteString("@T.prim_func" + strings.Replace(body, "rows_cols", name, 1) + "\n\n")
	}
	srcs["rows_cols3.py"] = []byte(three.String())
	for p, src := range srcs {
		s := NewSession(previewOptions(p))
		prev, err := s.Analyze(context.Background(), source.NewFile(p, src))
		if err != nil {
			t.Fatal(err)
		}
		var lines []int
		for i, l := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "Tx.") {
				lines = append(lines, i)
			}
		}
		f := source.NewFile(p, insertAt(src, lines[len(lines)/2], " "))
		ctx := newLaterCtx(3)
		snap, err := s.Analyze(ctx, f)
		if !errors.Is(err, context.Canceled) || snap != nil {
			t.Fatalf("%s: a cancelled update returned %v, %v", p, snap, err)
		}
		if ctx.calls > 1000 {
			t.Errorf("%s: the cancelled update asked %d times before it stopped", p, ctx.calls)
		}
		if s.Last() != prev {
			t.Fatalf("%s: a cancelled update replaced the snapshot", p)
		}
		got, err := s.Analyze(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if reduced := p == "rows_cols3.py"; got.Full == reduced {
			t.Errorf("%s: analysed whole: %v, want %v", p, got.Full, !reduced)
		}
		want := Analyze(f, previewOptions(p))
		if g, w := fmtDiags(got.Diags), fmtDiags(want.Diags); g != w {
			t.Errorf("%s: after a cancelled update\n%s\nwant\n%s", p, g, w)
		}
		if len(got.Kernels) != len(want.Kernels) {
			t.Errorf("%s: %d kernels after a cancelled update, want %d", p, len(got.Kernels), len(want.Kernels))
		}
	}
}

// TestSessionCancelRandom: random edits (as TestSessionMatchesAnalyze
// makes them), each analysed first with a context that is done after a
// random number of checks, sometimes followed by another edit before the
// next analysis (a burst of keystrokes), with previews asked for: the
// version finally analysed to the end always equals a whole-file
// analysis, whatever was cancelled before it.
func TestSessionCancelRandom(t *testing.T) {
	configs, err := os.ReadFile("testdata/preview/configs.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		src   string
		edits int
	}{
		{"corpus", sessionCorpus, 120},
		{"cases", casesCorpus, 150},
		{"factory", factoryCorpus, 120},
		{"configs", string(configs), 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.src))))
			sess := NewSession(Options{})
			text := tc.src
			cancelled, previews := 0, 0
			early := func(*Preview) { previews++ }
			for step := 0; step < tc.edits; step++ {
				if step%40 == 39 {
					text = tc.src
				} else {
					text = randomEdit(rng, text)
				}
				f := source.NewFile("k.py", []byte(text))
				if rng.IntN(2) == 0 {
					ctx := newLaterCtx(int64(2 + rng.IntN(6)))
					if _, err := sess.AnalyzeWithPreview(ctx, f, early); err != nil {
						cancelled++
						if rng.IntN(2) == 0 {
							continue // the next keystroke came first
						}
					}
				}
				snap, err := sess.AnalyzeWithPreview(context.Background(), f, early)
				if err != nil {
					t.Fatal(err)
				}
				want := Analyze(source.NewFile("k.py", []byte(text)), Options{})
				if msg := compareSnapshot(snap, want); msg != "" {
					t.Fatalf("step %d: %s\ntext:\n%s", step, msg, text)
				}
			}
			if cancelled == 0 {
				t.Error("no analysis was cancelled")
			}
			if tc.name == "configs" && previews == 0 {
				t.Error("no preview of the 12-case kernel")
			}
			t.Logf("%d of %d updates cancelled, %d previews", cancelled, tc.edits, previews)
		})
	}
}
