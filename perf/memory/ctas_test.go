package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// TestCTADedup compares the analysis that counts translated CTAs once
// (ctas.go) with executing every CTA, fact by fact (the misaligned access
// included), on every kernel of lower's golden programs, the
// programs of testdata (the Nsight Compute agreement ones) and the 3,000-line benchmark corpus, and
// checks that the proof covers some multi-CTA kernels and refuses some.
func TestCTADedup(t *testing.T) {
	srcs := dedupSources(t)
	multi, covered := 0, 0
	for name, src := range srcs {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			g := k.Launch.Grid
			if n := g[0] * g[1] * g[2]; n <= 1 || n > memory.MaxCTAs {
				continue
			}
			multi++
			if memory.CTAsCovered(k.Lowered, k.Launch) {
				covered++
			}
			fast := ctaText(memory.Analyze(k.Lowered, k.Launch), k)
			old := memory.SetCTADedup(false)
			slow := ctaText(memory.Analyze(k.Lowered, k.Launch), k)
			memory.SetCTADedup(old)
			if fast != slow {
				t.Errorf("%s kernel %s: counting CTA 0 for the covered CTAs differs:\n%s\nexecuting every CTA:\n%s", name, k.Name, fast, slow)
			}
		}
	}
	t.Logf("%d kernels of 2 to %d CTAs, %d with translated CTAs", multi, memory.MaxCTAs, covered)
	if covered == 0 || covered == multi {
		t.Errorf("the CTA proof covers %d of %d multi-CTA kernels: it is never used, or never refuses", covered, multi)
	}
}

func ctaText(m *memory.Kernel, k *lower.Kernel) string {
	s := kernelText(m, k)
	mis := func(f *memory.Figures) string {
		if f == nil || f.Misaligned == nil {
			return "-"
		}
		i := f.Misaligned
		return fmt.Sprintf("%s %d %s %v lanes %v", i.Kind, i.Width, i.Buf, i.Span, i.Lanes())
	}
	s += "misaligned " + mis(m.Total)
	for _, d := range k.Calls {
		s += " " + mis(m.Calls[d.Call])
	}
	return s
}

// TestCTAPeriods: CTAs a few apart are translations of each other when
// adjacent ones are not (ctas.go's periods): a tile index bx // 4 (four
// CTAs share a tile, then the next tile is 4 KB on: period 4), a 16-byte
// row per CTA (a whole sector every two: period 2), a CTA-dependent
// stride that moves by no constant (bx * bx: none). Each kernel's figures
// are those of executing every CTA.
func TestCTAPeriods(t *testing.T) {
	const head = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16384,), "float32")
    B = T.match_buffer(B_ptr, (16384,), "float32")
    T.device_entry()
    bx = T.cta_id([16])
    tid = T.thread_id([64])
`
	for _, c := range []struct {
		name, body string
		period     int64
	}{
		{"a tile of four CTAs", `    tile: T.let = bx // 4
    B[tile * 1024 + tid] = A[tile * 1024 + tid * 2]
`, 4},
		{"a 16-byte row per CTA", `    B[bx * 4 + tid % 4] = A[bx * 4 + tid % 4 + 256]
`, 2},
		{"a stride of bx squared", `    B[bx * bx * 32 + tid] = A[tid]
`, 0},
	} {
		ctaPeriodCase(t, c.name, head+c.body, c.period)
	}
}

// TestCTAClusterPeriods: CTAs a whole number of clusters apart have the
// same rank in theirs (ctas.go's ctaAxis), and a persistent loop whose
// start moves from CTA to CTA runs as many tiles in each when the trip
// count is the same over the start's range (whiles.go's uniformTrips:
// nvfp4_gemm.py's 64-CTA case, one tile per cluster).
func TestCTAClusterPeriods(t *testing.T) {
	const head = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16384,), "float32")
    B = T.match_buffer(B_ptr, (16384,), "float32")
    T.device_entry()
    rank = T.cta_id_in_cluster([2])
    bx = T.cta_id([16])
    tid = T.thread_id([64])
`
	for _, c := range []struct {
		name, body string
		period     int64
	}{
		{"a cluster's halves", `    B[bx // 2 * 256 + rank * 128 + tid] = A[bx // 2 * 256 + rank * 128 + tid * 2]
`, 2},
		{"one tile per cluster", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx // 2
    while r[0] < 8:
        B[bx * 64 + tid] = A[bx * 64 + rank * 32 + tid]
        r[0] = r[0] + 8
`, 2},
		// two tiles for the first clusters, one for the others
		{"trip counts that differ", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx // 2
    while r[0] < 12:
        B[bx * 64 + tid] = A[bx * 64 + rank * 32 + tid]
        r[0] = r[0] + 8
`, 0},
		// the start set again in the loop: not a counted loop
		{"a start the loop sets", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx // 2
    while r[0] < 8:
        B[bx * 64 + tid] = A[bx * 64 + rank * 32 + tid]
        r[0] = r[0] + 8
        if tid == 0:
            r[0] = 9
`, 0},
	} {
		k := ctaPeriodCase(t, c.name, head+c.body, c.period)
		if k.Launch.Cluster[0] != 2 {
			t.Errorf("%s: cluster %v, want 2 CTAs", c.name, k.Launch.Cluster)
		}
	}
}

// ctaPeriodCase lowers the one kernel of src and checks its CTA period,
// that counting CTAs by it gives the figures of executing every CTA, and
// that it executes fewer statements when the period is above 1.
func ctaPeriodCase(t *testing.T, name, src string, period int64) *lower.Kernel {
	t.Helper()
	res := lower.Analyze(source.NewFile("k.py", []byte(src+"# tilels: reference=0.27\n")), lower.Options{})
	if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
		t.Fatalf("%s: not lowered: %v", name, res.Diags)
	}
	k := res.Kernels[0]
	if got := memory.CTAPeriod(k.Lowered, k.Launch); got != period {
		t.Errorf("%s: CTA period %d, want %d", name, got, period)
	}
	fast, slow := withAndWithout(k, memory.SetCTADedup)
	if a, b := ctaText(fast, k), ctaText(slow, k); a != b {
		t.Errorf("%s: counting CTAs by period differs:\n%s\nexecuting every CTA:\n%s", name, a, b)
	}
	if fast.Total.Unknown != "" {
		t.Errorf("%s: unknown %q", name, fast.Total.Unknown)
	}
	if period > 1 && memory.Work(fast) >= memory.Work(slow) {
		t.Errorf("%s: %d statements executed, %d executing every CTA: want fewer", name, memory.Work(fast), memory.Work(slow))
	}
	return k
}

// TestLargeGrids: a grid of more than MaxCTAs CTAs is counted exactly
// when the CTA proof finds its period (count.go: its CTAs executed, every
// later one counted as the one of its residue), and as CTA 0 multiplied,
// Scaled, when none holds. Each exact kernel's figures are those of
// executing every CTA (MaxCTAs raised, no CTA proof); the cluster's
// leader is one the multiplied CTA 0 over-counted.
func TestLargeGrids(t *testing.T) {
	const head = `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (1048576,), "float32")
    B = T.match_buffer(B_ptr, (1048576,), "float32")
    T.device_entry()
    rank = T.cta_id_in_cluster([2])
    bx = T.cta_id([256])
    tid = T.thread_id([64])
`
	for _, c := range []struct {
		name, body string
		scaled     bool
		// stores: the launch's global store requests
		stores int64
	}{
		{"a tile per CTA", `    B[bx * 64 + tid] = A[bx * 64 + tid]
`, false, 256 * 2},
		// the leader of each cluster stores a second tile: 128 CTAs of
		// 4 requests and 128 of 2, where CTA 0 times 256 made 1,024
		{"a cluster's leader", `    B[bx * 64 + tid] = A[bx * 64 + tid]
    if rank == 0:
        B[524288 + bx * 64 + tid] = A[524288 + bx * 64 + tid]
`, false, 128*4 + 128*2},
		// one tile per CTA: the same trips in every CTA (uniformTrips)
		{"a persistent loop of one tile each", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    while r[0] < 256:
        B[r[0] * 64 + tid] = A[r[0] * 64 + tid]
        r[0] = r[0] + 256
`, false, 256 * 2},
		// 300 tiles over 256 CTAs: CTAs 0 to 43 run two, the others
		// one (CTA 0 times 256 counted 512 tiles): CTAs 0 and 44
		// executed, each counted for its class
		{"a persistent loop of 300 tiles", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    while r[0] < 300:
        B[r[0] * 64 + tid] = A[r[0] * 64 + tid]
        r[0] = r[0] + 256
`, true, 300 * 2},
		// a 64 x 4 grid in pairs along x: the linear index's residues
		// are the ranks (flash_attention_backward.py's grids)
		{"a cluster's leader in a two-dimensional grid", `    by = T.cta_id([4])
    B[by * 4096 + bx * 16 + tid % 16] = A[by * 4096 + bx * 16 + tid % 16]
    if rank == 0:
        B[524288 + by * 4096 + bx * 16 + tid % 16] = A[524288 + by * 4096 + bx * 16 + tid % 16]
`, false, 0},
		// a step the host constants fold (flash_attention4.py's
		// cta_count): 300 tiles over 256 CTAs again
		{"a persistent loop stepping by a host constant", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    while r[0] < 300:
        B[r[0] * 64 + tid] = A[r[0] * 64 + tid]
        r[0] = r[0] + grid
`, true, 300 * 2},
		// and 256 tiles: one in every CTA, which the reason says (the
		// proof is not tried: still CTA 0 multiplied)
		{"a persistent loop of one tile each stepping by a host constant", `    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    while r[0] < 256:
        B[r[0] * 64 + tid] = A[r[0] * 64 + tid]
        r[0] = r[0] + grid
`, true, 256 * 2},
		// the tile loop over a scalar (rmsnorm.py's idx)
		{"a persistent loop over a scalar", `    idx: T.int32 = bx
    while idx < 300:
        B[idx * 64 + tid] = A[idx * 64 + tid]
        idx = idx + 256
`, true, 300 * 2},
		// a loop whose extent the CTA's index sets (a causal kernel's
		// blocks): 4, 3, 2 and 1 iterations in quarters of the grid;
		// CTAs 0, 192 and 128 executed, the figures growing by one tile
		// an iteration (CTA 0 times 256 counted 1,024 tiles)
		{"a for loop over fewer blocks in later CTAs", `    for i in T.serial(4 - bx // 64):
        B[i * 16384 + bx * 64 + tid] = A[i * 16384 + bx * 64 + tid]
`, true, 640 * 2},
		// one tile in every CTA, whose blocks a register the CTA's index
		// sets before the tile loop gives, through a scalar set in it
		// (flash_attention4.py's causal cases: tripkeys.go)
		{"a tile per CTA over blocks a register sets", `    m = T.alloc_buffer((1,), "int32", scope="local")
    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    m[0] = 3 - bx // 64
    while r[0] < 256:
        n: T.int32 = m[0] + 1
        for i in T.serial(n):
            B[i * 16384 + bx * 64 + tid] = A[i * 16384 + bx * 64 + tid]
        r[0] = 256
`, true, 640 * 2},
		// the same with the register set again inside the loop, before
		// the blocks: not one value, CTA 0 multiplied
		{"a tile per CTA over blocks a register sets in a branch", `    m = T.alloc_buffer((1,), "int32", scope="local")
    r = T.alloc_buffer((1,), "int32", scope="local")
    r[0] = bx
    m[0] = 3 - bx // 64
    while r[0] < 256:
        if tid < 1000:
            m[0] = m[0] + 0
        n: T.int32 = m[0] + 1
        for i in T.serial(n):
            B[i * 16384 + bx * 64 + tid] = A[i * 16384 + bx * 64 + tid]
        r[0] = 256
`, true, 1024 * 2},
		// and a third iteration that stores twice: the figures do not
		// grow by the same amount with each iteration, and the four
		// classes are all executed (640 tiles and 128 more)
		{"a for loop whose iterations differ", `    for i in T.serial(4 - bx // 64):
        B[i * 16384 + bx * 64 + tid] = A[i * 16384 + bx * 64 + tid]
        if i == 2:
            B[524288 + bx * 64 + tid] = A[524288 + bx * 64 + tid]
`, true, 768 * 2},
		// the same over 16 classes, more than are executed: CTA 0
		// multiplied (it runs 16 iterations and stores 17 tiles)
		{"a for loop of 16 classes whose iterations differ", `    for i in T.serial(16 - bx // 16):
        B[i * 4096 + bx * 16 + tid % 16] = A[i * 4096 + bx * 16 + tid % 16]
        if i == 2:
            B[524288 + bx * 64 + tid] = A[524288 + bx * 64 + tid]
`, true, 17 * 256 * 2},
	} {
		src := head + c.body + "# tilels: reference=0.27\n"
		if strings.Contains(c.body, "+ grid") {
			src = strings.Replace(src, "    T.device_entry()\n", "    grid: T.let = T.min(256, 1024)\n    T.device_entry()\n", 1)
		}
		if c.stores == 0 {
			src = strings.Replace(strings.Replace(src, "bx = T.cta_id([256])", "bx, by = T.cta_id([64, 4])", 1), "    by = T.cta_id([4])\n", "", 1)
			c.stores = 128*4 + 128*2
		}
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("%s: not lowered: %v", c.name, res.Diags)
		}
		k := res.Kernels[0]
		if g := k.Launch.Grid; g[0]*g[1]*g[2] <= memory.MaxCTAs || k.Launch.Cluster[0] != 2 {
			t.Fatalf("%s: launch %+v", c.name, k.Launch)
		}
		m := memory.Analyze(k.Lowered, k.Launch)
		f := m.Total
		if f.Unknown != "" || f.Scaled != c.scaled || f.CTAs != 256 || f.GlobalStore.Requests != c.stores {
			t.Errorf("%s: unknown %q, scaled %v, %d CTAs, %d store requests; want scaled %v, 256 CTAs, %d requests", c.name, f.Unknown, f.Scaled, f.CTAs, f.GlobalStore.Requests, c.scaled, c.stores)
		}
		if c.scaled {
			// how the CTAs were counted (classPlan), else the loop's
			// trips in CTA 0 and in the launch (tripTotals)
			want, executed := ": CTA 0 counts for the 44 CTAs that run it 2 times, CTA 44 for the 212 that run it 1 time; the CTAs that run it the same number of times are not proven to count alike", int64(2)
			switch {
			case strings.Contains(c.name, "one tile each"):
				want, executed = ", 1 in every CTA, and the CTAs are not proven to count as CTA 0's translations", 1
			case strings.Contains(c.name, "16 classes"):
				want, executed = "CTA 0 runs it 16 times, so the figures count 4096 of its iterations where the launch runs 2176 (+88 %); the figures of CTAs 0, 240 and 224, executed, do not grow by the same amount with each iteration", 1
			case strings.Contains(c.name, "differ"):
				want, executed = ": CTA 0 counts for the 64 CTAs that run it 4 times, CTA 64 for the 64 that run it 3 times, CTA 128 for the 64 that run it 2 times, CTA 192 for the 64 that run it 1 time; the CTAs that run it the same number of times are not proven to count alike", 4
			case strings.HasSuffix(c.name, "in a branch"):
				want, executed = "a loop runs as many times as the CTA's index says (a persistent schedule): the CTAs may do different amounts of work", 1
			case strings.Contains(c.name, "a register sets"):
				want, executed = ", 1 to 4 times: CTAs 0, 192 and 128 were executed, their figures grow by the same amount with each iteration, and the other CTAs are counted as CTA 0 plus that amount for each iteration more or fewer; the CTAs are not proven to count so", 3
			case strings.Contains(c.name, "for loop"):
				want, executed = ", 1 to 4 times: CTAs 0, 192 and 128 were executed, their figures grow by the same amount with each iteration, and the other CTAs are counted as CTA 0 plus that amount for each iteration more or fewer; the CTAs are not proven to count so", 3
			}
			if !strings.HasSuffix(f.ScaledWhy, want) || f.Executed != executed {
				t.Errorf("%s: why %q, %d CTAs executed; want it to end %q, %d executed", c.name, f.ScaledWhy, f.Executed, want, executed)
			}
			if executed > 1 {
				// every counter that of executing every CTA
				if a, b := countsText(m, k), countsText(everyCTA(k), k); a != b {
					t.Errorf("%s: counting by trip class differs:\n%s\nexecuting every CTA:\n%s", c.name, a, b)
				}
			}
			continue
		}
		if a, b := ctaText(m, k), ctaText(everyCTA(k), k); a != b {
			t.Errorf("%s: counting by the CTA period differs:\n%s\nexecuting every CTA:\n%s", c.name, a, b)
		}
	}
}

// countsText is the counters of m's figures of k, total, body and calls
// (ctaText without the instructions, the CTA count and Scaled).
func countsText(m *memory.Kernel, k *lower.Kernel) string {
	one := func(f *memory.Figures) string {
		return fmt.Sprintf("%+v %+v %+v %+v %+v %+v %+v %+v %q", f.SharedLoad, f.SharedStore, f.Ldmatrix, f.Stmatrix,
			f.GlobalLoad, f.GlobalStore, f.CpAsync, f.TMA, f.Unknown)
	}
	s := "total " + one(m.Total) + "\nbody " + one(m.Body) + "\n"
	for _, d := range k.Calls {
		s += fmt.Sprintf("call %v %s\n", d.Call.Span, one(m.Calls[d.Call]))
	}
	return s
}

// everyCTA analyses k executing every CTA of its grid.
func everyCTA(k *lower.Kernel) *memory.Kernel {
	defer memory.SetMaxCTAs(memory.SetMaxCTAs(1 << 20))
	defer memory.SetCTADedup(memory.SetCTADedup(false))
	return memory.Analyze(k.Lowered, k.Launch)
}

// TestLargeGridDedup compares, on every kernel of more than MaxCTAs (and
// at most 4,096) CTAs of TestCTADedup's programs that the CTA proof
// counts exactly (not Scaled), the figures with executing every CTA.
func TestLargeGridDedup(t *testing.T) {
	exact, scaled := 0, 0
	for name, src := range dedupSources(t) {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			g := k.Launch.Grid
			if n := g[0] * g[1] * g[2]; n <= memory.MaxCTAs || n > 4096 {
				continue
			}
			m := memory.Analyze(k.Lowered, k.Launch)
			if m.Total.Unknown != "" {
				continue
			}
			if m.Total.Scaled {
				scaled++
				continue
			}
			all := everyCTA(k)
			if all.Total.Unknown != "" {
				continue // (past the step bound)
			}
			exact++
			if a, b := ctaText(m, k), ctaText(all, k); a != b {
				t.Errorf("%s kernel %s: counting by the CTA period differs:\n%s\nexecuting every CTA:\n%s", name, k.Name, a, b)
			}
		}
	}
	t.Logf("%d kernels above %d CTAs counted exactly, %d multiplied", exact, memory.MaxCTAs, scaled)
	if exact == 0 {
		t.Errorf("no kernel above %d CTAs is counted exactly", memory.MaxCTAs)
	}
}

// TestTripClasses compares, on every kernel of more than MaxCTAs (and at
// most 4,096) CTAs of TestCTADedup's programs that the analysis counts by
// trip class (Scaled, more than one CTA executed: ctas.go's classPlan,
// tripkeys.go), every counter with executing every CTA: testdata/memory/
// large_grids.py's three kernels without the corpus, and with
// TILELS_BENCH_DIR set to the 128-file corpus its persistent GEMMs and
// attention kernels (flash_attention4.py's causal cases through their
// registers; flash_attention_backward.py's largest, whose execution of
// every CTA passes the bound on executed statements, are left out).
func TestTripClasses(t *testing.T) {
	compared := 0
	for name, src := range dedupSources(t) {
		res := lower.Analyze(source.NewFile(name, src), lower.Options{Path: name})
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				continue
			}
			// (the grid as the analysis folds it: flash_attention4.py's
			// extent is a host constant)
			m := memory.Analyze(k.Lowered, k.Launch)
			if m.Total.Unknown != "" || !m.Total.Scaled || m.Total.Executed < 2 || m.Total.CTAs > 4096 {
				continue
			}
			all := everyCTA(k)
			if all.Total.Unknown != "" {
				continue // (past the step bound)
			}
			compared++
			if a, b := countsText(m, k), countsText(all, k); a != b {
				t.Errorf("%s kernel %s: counting by trip class differs:\n%s\nexecuting every CTA:\n%s", name, k.Name, a, b)
			}
		}
	}
	t.Logf("%d kernels counted by trip class compared with executing every CTA", compared)
	if compared < 3 {
		t.Errorf("%d kernels counted by trip class compared, want at least large_grids.py's 3", compared)
	}
}
