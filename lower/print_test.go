package lower

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/ir"
)

// printCorpus is every golden kernel.py and bundled example, analysed.
func printCorpus(t *testing.T) map[string]*Result {
	t.Helper()
	out := map[string]*Result{}
	goldens, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range goldens {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		opts := Options{}
		if o, ok := ar.Get("options"); ok {
			opts = goldenOptions(t, string(o))
		}
		out[path] = Analyze(source.NewFile("kernel.py", src), opts)
	}
	examples, _ := filepath.Glob("../testdata/examples/*.py")
	for _, path := range examples {
		out[path] = Analyze(mustRead(t, path), Options{})
	}
	if len(out) < 10 {
		t.Fatalf("%d programs", len(out))
	}
	return out
}

func mustRead(t *testing.T, path string) *source.File {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return source.NewFile(filepath.Base(path), src)
}

// TestPrints: what lower.Prints prints equals CUDA and TIRx of the same
// kernels, every kernel and each alone, at a target that has every
// instruction and at one that lacks some (the same error), the second
// time from the cache, and after Retain.
func TestPrints(t *testing.T) {
	for path, res := range printCorpus(t) {
		for _, arch := range []string{"sm_90a", "sm_80"} {
			opts := Options{Arch: arch}
			p := NewPrints(opts)
			sets := [][]*Kernel{res.Kernels}
			for _, k := range res.Kernels {
				sets = append(sets, []*Kernel{k})
			}
			for round := range 2 {
				for _, ks := range sets {
					want, wantErr := CUDA(ks, opts)
					got, err := p.CUDA(ks)
					if got != want || errText(err) != errText(wantErr) {
						t.Errorf("%s %s round %d, %d kernels: Prints.CUDA differs from CUDA (error %v, want %v)", path, arch, round, len(ks), err, wantErr)
					}
					if got, want := p.TIRx(ks), TIRx(ks); got != want {
						t.Errorf("%s %s: Prints.TIRx differs from TIRx", path, arch)
					}
				}
			}
			if len(res.Kernels) > 1 {
				p.Retain(res.Kernels[:1])
				if p.Len() != 1 {
					t.Errorf("%s: %d kernels kept, want 1", path, p.Len())
				}
				want, _ := CUDA(res.Kernels, opts)
				if got, _ := p.CUDA(res.Kernels); got != want {
					t.Errorf("%s %s: Prints.CUDA after Retain differs", path, arch)
				}
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCallLowering: the CUDA of one tile call, printed alone, is the
// call's block in the .cu file of its kernel without its other tile
// calls, and for the first call of a kernel its block in the kernel's
// own .cu file; the TIRx is that of the call's lowering.
func TestCallLowering(t *testing.T) {
	calls := 0
	for path, res := range printCorpus(t) {
		opts := Options{Arch: "sm_100a"}
		for _, k := range res.Kernels {
			if k.Target != "" {
				continue // Trainium: no CUDA form (CUDAKernels)
			}
			full, fullErr := CUDA([]*Kernel{k}, opts)
			first := true
			for _, d := range k.Calls {
				low := LoweredOf(k, d.Call)
				if low == nil || low != firstLowered(k, d.Call) {
					continue
				}
				calls++
				got := CallLowering(k, d.Call, opts)
				// the call's own lowering, after the statements it placed
				// after its operands' definitions (Result.PostDef), if any
				hoisted := d.Result != nil && len(d.Result.PostDef) > 0
				tirHead := "# Tx."
				if hoisted {
					tirHead = "# placed after the declaration of "
				}
				if !got.Found || got.TIRx == "" || !strings.HasPrefix(got.TIRx, tirHead) ||
					(hoisted && !strings.Contains(got.TIRx, "\n# Tx.")) {
					t.Errorf("%s %s: TIRx of %s: %q", path, k.Name, d.Call.Op, got.TIRx)
				}
				alone := *k
				alone.Lowered = only(k.Lowered, low)
				cu, err := CUDA([]*Kernel{&alone}, opts)
				if errText(err) != errText(got.CUDAErr) {
					t.Errorf("%s %s: error %v, the kernel without its other calls: %v", path, k.Name, got.CUDAErr, err)
					continue
				}
				if err != nil {
					continue
				}
				head, _, _ := strings.Cut(got.CUDA, "\n")
				if want := block(cu, head); got.CUDA != want || want == "" {
					t.Errorf("%s %s: CUDA of a call\n%s\nwant\n%s", path, k.Name, got.CUDA, want)
				}
				if first && fullErr == nil {
					if want := block(full, head); got.CUDA != want {
						t.Errorf("%s %s: CUDA of the first call\n%s\nwant (the kernel's file)\n%s", path, k.Name, got.CUDA, want)
					}
				}
				first = false
			}
		}
	}
	if calls < 30 {
		t.Errorf("%d calls checked", calls)
	}
}

// firstLowered is the first ir.Lowered of call in k's body, in print order.
func firstLowered(k *Kernel, call *ir.TileCall) *ir.Lowered {
	var found *ir.Lowered
	walkLowered(k.Lowered.Body, func(l *ir.Lowered) {
		if found == nil && l.Call == call {
			found = l
		}
	})
	return found
}

func walkLowered(b *ir.Block, f func(*ir.Lowered)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Lowered:
			f(s)
		case *ir.Block:
			walkLowered(s, f)
		case *ir.For:
			walkLowered(s.Body, f)
		case *ir.While:
			walkLowered(s.Body, f)
		case *ir.If:
			walkLowered(s.Then, f)
			walkLowered(s.Else, f)
		}
	}
}

// only returns fn without its tile calls other than keep.
func only(fn *ir.Func, keep *ir.Lowered) *ir.Func {
	var strip func(b *ir.Block) *ir.Block
	strip = func(b *ir.Block) *ir.Block {
		if b == nil {
			return nil
		}
		out := &ir.Block{Span: b.Span}
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ir.Lowered:
				if s != keep {
					continue
				}
			case *ir.Block:
				s = strip(s)
				out.Stmts = append(out.Stmts, s)
				continue
			case *ir.For:
				c := *s
				c.Body = strip(s.Body)
				out.Stmts = append(out.Stmts, &c)
				continue
			case *ir.While:
				c := *s
				c.Body = strip(s.Body)
				out.Stmts = append(out.Stmts, &c)
				continue
			case *ir.If:
				c := *s
				c.Then, c.Else = strip(s.Then), strip(s.Else)
				out.Stmts = append(out.Stmts, &c)
				continue
			}
			out.Stmts = append(out.Stmts, s)
		}
		return out
	}
	c := *fn
	c.Body = strip(fn.Body)
	return &c
}

// block is the first block of a .cu file whose first line is head (a
// lowered call's comment): through its closing brace, dedented ("" when
// absent).
func block(file, head string) string {
	lines := strings.Split(file, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if t != head {
			continue
		}
		ind := len(l) - len(t)
		closing := l[:ind] + "}"
		var out strings.Builder
		for j := i; j < len(lines); j++ {
			out.WriteString(lines[j][min(ind, len(lines[j])):] + "\n")
			if j > i && lines[j] == closing {
				return out.String()
			}
		}
	}
	return ""
}
