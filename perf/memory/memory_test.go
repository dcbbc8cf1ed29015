package memory_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// analyze lowers src and returns its result and the memory figures of
// every kernel (memory.Analyze, no cache).
func analyze(t *testing.T, src string) (*lower.Result, []*memory.Kernel) {
	t.Helper()
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if res.HasErrors() || len(res.Kernels) == 0 {
		t.Fatalf("analysis failed: %v", res.Diags)
	}
	var out []*memory.Kernel
	for _, k := range res.Kernels {
		out = append(out, memory.Analyze(k.Lowered, k.Launch))
	}
	return res, out
}

const head = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def k(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([CTAS])
    tid = T.thread_id([32])
    S = T.alloc_buffer((32, 32), "float32", scope="shared")
`

func kernel(ctas, body string) string {
	return strings.Replace(head, "CTAS", ctas, 1) + body + "# tilels: reference=0.27\n"
}

// TestPlainLoops checks hand-computed figures of plain TIR loops over a
// 32x32 float32 tile, one warp: S[tid, i] = A[tid, i] is merged into 8
// STS.128 (thread t's row at 128 t bytes: each quarter warp puts 8 rows in
// the same 4 banks, 8 wavefronts per group, 32 per instruction), its 32
// global loads stay 32-bit (128 bytes between threads: 32 sectors, ideal
// 4); A[i, tid] = S[i, tid] reads a row per step (1 wavefront) and
// writes 128 consecutive bytes (4 sectors).
func TestPlainLoops(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    for i in range(32):
        S[tid, i] = A[tid, i]
    T.cuda.cta_sync()
    for i in range(32):
        A[i, tid] = S[i, tid]
`))
	f := ms[0].Total
	want := memory.Figures{Source: "model", CTAs: 1,
		SharedStore: memory.Shared{Instructions: 8, Wavefronts: 256, Ideal: 32, Conflicts: 224},
		SharedLoad:  memory.Shared{Instructions: 32, Wavefronts: 32, Ideal: 32},
		GlobalLoad:  memory.Global{Requests: 32, Sectors: 1024, IdealSectors: 128},
		GlobalStore: memory.Global{Requests: 32, Sectors: 128, IdealSectors: 128}}
	if f.Unknown != "" || f.SharedStore != want.SharedStore || f.SharedLoad != want.SharedLoad || f.GlobalLoad != want.GlobalLoad || f.GlobalStore != want.GlobalStore {
		t.Errorf("got %+v\nwant %+v", *f, want)
	}
	if w := f.Worst; w == nil || w.Kind != "shared store" || w.Width != 16 || w.Wavefronts != 8*4 || w.Ideal != 4 || len(w.Banks) != 4 || w.Banks[0].Words != 8 {
		t.Errorf("worst shared instruction: %+v", w)
	}
}

// TestMasks checks a per-thread condition (half the warp) and a
// broadcast: S[0, 2 tid] under tid < 16 is one 32-bit store of 16 active
// lanes in the 16 even banks (1 wavefront; with the whole warp, lanes t
// and t + 16 would share a bank); every thread reading S[0, 0] is one
// wavefront; the 16 lanes' global load covers 64 bytes (2 sectors).
func TestMasks(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    if tid < 16:
        S[0, tid * 2] = A[0, tid]
    A[1, tid] = S[0, 0]
`))
	f := ms[0].Total
	if f.SharedStore != (memory.Shared{Instructions: 1, Wavefronts: 1, Ideal: 1}) {
		t.Errorf("store of 16 lanes at stride 2 words: %+v", f.SharedStore)
	}
	if f.SharedLoad != (memory.Shared{Instructions: 1, Wavefronts: 1, Ideal: 1}) {
		t.Errorf("broadcast load: %+v", f.SharedLoad)
	}
	if f.GlobalLoad != (memory.Global{Requests: 1, Sectors: 2, IdealSectors: 2}) {
		t.Errorf("16 lanes' global load: %+v", f.GlobalLoad)
	}
}

// TestUnknown checks that a runtime loop extent makes the figures unknown,
// with the reason, instead of a guess.
func TestUnknown(t *testing.T) {
	_, ms := analyze(t, kernel("1", `    for i in range(n):
        S[tid, 0] = A[tid, i]
`))
	if f := ms[0].Total; !strings.Contains(f.Unknown, "n is a runtime value") {
		t.Errorf("unknown = %q", f.Unknown)
	}
}

// readS reads S back after a barrier: a store into shared memory that
// nothing reads is dead (dead.go) and counts nothing.
const readS = `    T.cuda.cta_sync()
    A[1, tid] = S[0, tid]
`

// TestManyCTAs checks a grid above MaxCTAs whose CTAs the CTA proof
// finds CTA 0's: CTA 0 times the CTA count, exactly (not Scaled); and one
// whose CTAs run a loop as many times as the grid's first CTA's index
// says (32 down to 1): three CTAs executed and the others counted from
// the figures' growth per iteration (each CTA's stores, where CTA 0 times
// the CTA count made 128 x 32), and it says so (Scaled).
func TestManyCTAs(t *testing.T) {
	_, ms := analyze(t, kernel("128", `    S[0, tid] = A[0, tid]
`+readS))
	f := ms[0].Total
	if f.Scaled || f.CTAs != 128 || f.SharedStore.Instructions != 128 || f.GlobalLoad.Sectors != 128*4 {
		t.Errorf("got %+v", *f)
	}
	_, ms = analyze(t, strings.Replace(kernel("128", `    for i in range(32 - bx % 32):
        S[0, tid] = A[i, tid]
`+readS), "T.cta_id([128])", "bx = T.cta_id([128])", 1))
	if f := ms[0].Total; !f.Scaled || f.CTAs != 128 || f.Executed != 3 || f.SharedStore.Instructions != 4*(32*33/2) {
		t.Errorf("a loop over the CTA index: %+v", *f)
	}
	_, ms = analyze(t, kernel("3", `    S[0, tid] = A[0, tid]
`+readS))
	if f := ms[0].Total; f.Scaled || f.CTAs != 3 || f.SharedStore.Instructions != 3 {
		t.Errorf("3 CTAs: %+v", *f)
	}
}

// TestCached checks that the content cache gives a second, identical
// kernel the same figures with its own positions and buffers.
func TestCached(t *testing.T) {
	body := `    for i in range(32):
        S[tid, i] = A[tid, i]
` + readS
	src := kernel("1", body) + strings.Replace(strings.Replace(kernel("1", body), "def k(", "def k2(", 1), "from tvm", "# from tvm", 2)
	src = strings.Replace(src, "# tilels: reference=0.27\n", "", 1)
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if len(res.Kernels) != 2 {
		t.Fatalf("%d kernels: %v", len(res.Kernels), res.Diags)
	}
	memory.ResetCache()
	a := memory.Cached(res.Kernels[0].Lowered, res.Kernels[0].Launch)
	b := memory.Cached(res.Kernels[1].Lowered, res.Kernels[1].Launch)
	if a.Total.SharedStore != b.Total.SharedStore || a.Total.GlobalLoad != b.Total.GlobalLoad || a.Total.SharedStore.Instructions != 8 {
		t.Errorf("figures differ: %+v / %+v", a.Total, b.Total)
	}
	wa, wb := a.Total.Worst, b.Total.Worst
	sa, ba := a.Where(wa)
	sb, bb := b.Where(wb)
	if wa == nil || wb == nil || sa == sb || sb.Start < res.Kernels[1].Span.Start || bb == ba || bb == nil {
		t.Errorf("the cached worst instruction keeps the first kernel's position: %v %p / %v %p", sa, ba, sb, bb)
	}
}

// TestGoldens analyses every lower golden program: no panic, every call
// has figures or a reason, and at least 90 % of the calls are known (the
// rest: runtime grids, shapes and extents, 256-bit accesses).
func TestGoldens(t *testing.T) {
	paths, _ := filepath.Glob("../../lower/testdata/*.txtar")
	known, total := 0, 0
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := ar.Get("kernel.py")
		res := lower.Analyze(source.NewFile("kernel.py", src), lower.Options{})
		for _, k := range res.Kernels {
			m := memory.Analyze(k.Lowered, k.Launch)
			for _, d := range k.Calls {
				if d.Variant == "" {
					continue
				}
				total++
				f := m.Calls[d.Call]
				if f == nil {
					t.Errorf("%s: %s: no figures for the call at %d", filepath.Base(p), k.Name, d.Call.Span.Start)
					continue
				}
				if f.Unknown == "" {
					known++
				}
			}
		}
	}
	if total == 0 || known*10 < total*9 {
		t.Errorf("%d of %d calls known", known, total)
	}
	t.Logf("%d of %d calls known", known, total)
}
