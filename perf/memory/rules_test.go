package memory

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSharedRules checks the shared-memory rule on the accesses the lead
// measured with Nsight Compute on sm_90 (/work/wt/ncu-calibration.md): one
// warp, one instruction, address per thread t.
func TestSharedRules(t *testing.T) {
	all := uint32(0xffffffff)
	cases := []struct {
		name      string
		k         kind
		width     int64
		mask      uint32
		addr      func(t int64) int64
		wf, confl int64
	}{
		{"ld32 t*4", sharedLoad, 4, all, func(t int64) int64 { return t * 4 }, 1, 0},
		{"ld32 broadcast", sharedLoad, 4, all, func(t int64) int64 { return 0 }, 1, 0},
		{"ld32 t*8", sharedLoad, 4, all, func(t int64) int64 { return t * 8 }, 2, 1},
		{"ld32 t*128", sharedLoad, 4, all, func(t int64) int64 { return t * 128 }, 32, 31},
		{"ld32 (t%2)*128", sharedLoad, 4, all, func(t int64) int64 { return t % 2 * 128 }, 2, 1},
		{"ld32 t*132", sharedLoad, 4, all, func(t int64) int64 { return t * 132 }, 1, 0},
		{"ld32 (t%16)*4", sharedLoad, 4, all, func(t int64) int64 { return t % 16 * 4 }, 1, 0},
		{"ld32 t*16", sharedLoad, 4, all, func(t int64) int64 { return t * 16 }, 4, 3},
		{"ld32 t*128 20 active", sharedLoad, 4, 1<<20 - 1, func(t int64) int64 { return t * 128 }, 20, 19},
		{"ld64 t*8", sharedLoad, 8, all, func(t int64) int64 { return t * 8 }, 2, 0},
		{"ld64 0", sharedLoad, 8, all, func(t int64) int64 { return 0 }, 1, 0},
		{"ld64 t*16", sharedLoad, 8, all, func(t int64) int64 { return t * 16 }, 4, 2},
		{"ld64 t*256", sharedLoad, 8, all, func(t int64) int64 { return t * 256 }, 32, 30},
		{"ld64 (t/2)*8", sharedLoad, 8, all, func(t int64) int64 { return t / 2 * 8 }, 1, 0},
		{"ld64 ((t+16)%32)*8", sharedLoad, 8, all, func(t int64) int64 { return (t + 16) % 32 * 8 }, 2, 0},
		{"ld64 split", sharedLoad, 8, all, func(t int64) int64 {
			if t < 16 {
				return t * 16
			}
			return (t-16)*16 + 8
		}, 4, 2},
		{"ld128 t*16", sharedLoad, 16, all, func(t int64) int64 { return t * 16 }, 4, 0},
		{"ld128 0", sharedLoad, 16, all, func(t int64) int64 { return 0 }, 2, 0},
		{"ld128 t*32", sharedLoad, 16, all, func(t int64) int64 { return t * 32 }, 8, 4},
		{"ld128 t*512", sharedLoad, 16, all, func(t int64) int64 { return t * 512 }, 32, 28},
		{"ld128 xor within 8", sharedLoad, 16, all, func(t int64) int64 { return (t&^7 + (t & 7) ^ 3) * 16 }, 4, 0},
		{"ld128 (t/8)*16", sharedLoad, 16, all, func(t int64) int64 { return t / 8 * 16 }, 2, 0},
		{"ld128 (t%8)*16+(t/8)*128", sharedLoad, 16, all, func(t int64) int64 { return t%8*16 + t/8*128 }, 4, 0},
		{"ld128 (t%8)*128+(t/8)*16", sharedLoad, 16, all, func(t int64) int64 { return t%8*128 + t/8*16 }, 32, 28},
		{"ld16 t*2", sharedLoad, 2, all, func(t int64) int64 { return t * 2 }, 1, 0},
		{"ld16 t*64", sharedLoad, 2, all, func(t int64) int64 { return t * 64 }, 16, 15},
		{"ld8 t*128", sharedLoad, 1, all, func(t int64) int64 { return t * 128 }, 32, 31},
		{"st32 t*8", sharedStore, 4, all, func(t int64) int64 { return t * 8 }, 2, 1},
		{"st32 0", sharedStore, 4, all, func(t int64) int64 { return 0 }, 1, 0},
		{"st64 t*8", sharedStore, 8, all, func(t int64) int64 { return t * 8 }, 2, 0},
		{"st64 (t/2)*8", sharedStore, 8, all, func(t int64) int64 { return t / 2 * 8 }, 2, 0},
		{"st64 0", sharedStore, 8, all, func(t int64) int64 { return 0 }, 2, 0},
		{"st128 0", sharedStore, 16, all, func(t int64) int64 { return 0 }, 4, 0},
		{"st128 (t/8)*16", sharedStore, 16, all, func(t int64) int64 { return t / 8 * 16 }, 4, 0},
		{"st128 t*32", sharedStore, 16, all, func(t int64) int64 { return t * 32 }, 8, 4},
		{"st128 t*512", sharedStore, 16, all, func(t int64) int64 { return t * 512 }, 32, 28},
		{"ldmatrix x4 t*16", ldmatrix, 4, all, func(t int64) int64 { return t * 16 }, 4, 0},
		{"ldmatrix x4 t*128", ldmatrix, 4, all, func(t int64) int64 { return t * 128 }, 32, 28},
		{"ldmatrix x4 t*64", ldmatrix, 4, all, func(t int64) int64 { return t * 64 }, 16, 12},
		{"ldmatrix x4 swizzled", ldmatrix, 4, all, func(t int64) int64 { return t*128 ^ t%8*16 }, 4, 0},
		{"ldmatrix x4 same rows", ldmatrix, 4, all, func(t int64) int64 { return t % 8 * 16 }, 4, 0},
		{"ldmatrix x2 t*128", ldmatrix, 2, all, func(t int64) int64 { return t * 128 }, 16, 14},
		{"ldmatrix x1 t*128", ldmatrix, 1, all, func(t int64) int64 { return t * 128 }, 8, 7},
		{"stmatrix x4 t*128", stmatrix, 4, all, func(t int64) int64 { return t * 128 }, 32, 28},
	}
	for _, c := range cases {
		e := &event{k: c.k, mask: c.mask, width: c.width}
		for i := range e.addr {
			e.addr[i] = c.addr(int64(i))
		}
		var wf, ideal int64
		if c.k == ldmatrix || c.k == stmatrix {
			wf, ideal, _ = matrixWavefronts(e, &bankWords{})
		} else {
			wf, ideal, _ = sharedWavefronts(e)
		}
		if wf != c.wf || wf-ideal != c.confl {
			t.Errorf("%s: %d wavefronts, %d conflicts; measured %d, %d", c.name, wf, wf-ideal, c.wf, c.confl)
		}
	}
}

// TestGlobalRules checks requests and sectors against the measured rows.
func TestGlobalRules(t *testing.T) {
	cases := []struct {
		name         string
		width        int64
		addr         func(t int64) int64 // element index
		sectors, idl int64
	}{
		{"ldg32 t", 4, func(t int64) int64 { return t }, 4, 4},
		{"ldg32 t+1", 4, func(t int64) int64 { return t + 1 }, 5, 4},
		{"ldg32 t*32", 4, func(t int64) int64 { return t * 32 }, 32, 4},
		{"ldg32 t*8", 4, func(t int64) int64 { return t * 8 }, 32, 4},
		{"ldg32 0", 4, func(t int64) int64 { return 0 }, 1, 1},
		{"ldg64 t*2", 8, func(t int64) int64 { return t * 2 }, 8, 8},
		{"ldg128 t*4", 16, func(t int64) int64 { return t * 4 }, 16, 16},
		{"ldg128 t*8", 16, func(t int64) int64 { return t * 8 }, 32, 16},
		{"ldg128 t*64", 16, func(t int64) int64 { return t * 64 }, 32, 16},
		{"ldg16 t", 2, func(t int64) int64 { return t }, 2, 2},
		{"ldg16 t*16", 2, func(t int64) int64 { return t * 16 }, 32, 2},
	}
	for _, c := range cases {
		e := &event{k: globalLoad, mask: 0xffffffff, width: c.width}
		for i := range e.addr {
			e.addr[i] = 1024 + c.addr(int64(i))*4
			if c.width == 2 {
				e.addr[i] = 1024 + c.addr(int64(i))*2
			}
		}
		n, ideal := sectors(e)
		if n != c.sectors || ideal != c.idl {
			t.Errorf("%s: %d sectors (ideal %d); want %d (ideal %d)", c.name, n, ideal, c.sectors, c.idl)
		}
	}
}

// TestSortedSectors checks the global rule (sectors: one pass over the
// lanes' addresses, sorted when out of order) against its definition
// (anySectors) on random warps: sorted and unsorted lanes, overlapping,
// equal, negative and unaligned addresses, some lanes off, widths 0 to
// 64 bytes (up to 64 sectors, the definition's cap).
func TestSortedSectors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sorted := 0
	for n := range 20000 {
		e := &event{k: globalLoad, mask: r.Uint32(), width: []int64{0, 1, 2, 4, 8, 12, 16, 32, 64}[r.IntN(9)]}
		if n%3 == 0 {
			e.mask = 0xffffffff
		}
		a := r.Int64N(4096) - 2048
		for i := range e.addr {
			switch n % 4 {
			case 0: // strided, increasing
				e.addr[i] = a + int64(i)*int64(n%7)*e.width
			case 1: // small random steps up (overlaps, equal addresses)
				a += r.Int64N(40)
				e.addr[i] = a
			case 2: // any order
				e.addr[i] = r.Int64N(2048) - 1024
			default: // increasing, one lane swapped
				e.addr[i] = a + int64(i)*16
				if i == 17 {
					e.addr[i] = a
				}
			}
		}
		wn, wi := anySectors(e)
		if lanesInOrder(e) {
			sorted++
		}
		if gn, gi := sectors(e); gn != wn || gi != wi {
			t.Fatalf("mask %#x width %d addr %v: sectors %d (ideal %d), by definition %d (ideal %d)", e.mask, e.width, e.addr, gn, gi, wn, wi)
		}
	}
	if sorted < 5000 || sorted > 19000 {
		t.Errorf("%d of 20000 warps took the sorted rule: the cases do not cover both", sorted)
	}
}

// TestConflictFree checks the bank-bit rule against the words-per-bank
// one on random warps: loads and stores of 1 to 16 bytes, linear,
// swizzled, broadcast and random addresses, some lanes off.
func TestConflictFree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for n := range 20000 {
		e := &event{k: []kind{sharedLoad, sharedStore}[n%2], mask: r.Uint32(), width: []int64{1, 2, 4, 8, 12, 16}[r.IntN(6)]}
		if n%3 == 0 {
			e.mask = 0xffffffff
		}
		base := r.Int64N(1<<14) &^ 15
		stride := []int64{0, 1, 1, 1, 2, 4, 8, 32}[r.IntN(8)] * e.width
		for i := range e.addr {
			ti := int64(i)
			switch n % 4 {
			case 0:
				e.addr[i] = base + ti*stride
			case 1: // 128-byte rows, 16-byte chunks XOR-swizzled
				e.addr[i] = base + ti/8*128 + (ti%8^ti/8%8)*16
			case 2:
				e.addr[i] = base + r.Int64N(256)*e.width
			default: // negative addresses, pairs of lanes on one word
				e.addr[i] = ti/2*e.width - 512
			}
		}
		var bw [4]bankWords
		var wantPass, gotPass [4]int
		wwf, wideal, _ := bankPasses(e, &wantPass, &bw)
		if gwf, gideal, ok := conflictFree(e, &gotPass); ok {
			fast++
			if gwf != wwf || gideal != wideal || gotPass != wantPass {
				t.Fatalf("kind %d mask %#x width %d addr %v: bank bits %d wavefronts (ideal %d, passes %v), words %d (ideal %d, passes %v)",
					e.k, e.mask, e.width, e.addr, gwf, gideal, gotPass, wwf, wideal, wantPass)
			}
		}
	}
	if fast < 1000 || fast > 18000 {
		t.Errorf("%d of 20000 warps took the bank-bit rule: the cases do not cover both", fast)
	}
}

// bankPassesWords is the shared rule's definition: the distinct words of
// every bank each lane touches, every word of an access counted (the
// passes of the groups as bankPasses makes them).
func bankPassesWords(e *event) (wf, ideal int64) {
	g := groupSize(e.width)
	ng := 32 / g
	var bw [4]bankWords
	var w [4]int64
	var active [4]bool
	for k := range ng {
		bw[k].reset()
		for i := k * g; i < (k+1)*g; i++ {
			if e.mask&(1<<i) == 0 {
				continue
			}
			active[k] = true
			for wd := e.addr[i] >> 2; wd <= (e.addr[i]+e.width-1)>>2; wd++ {
				bw[k].add(wd)
			}
		}
		w[k] = bw[k].max()
	}
	return groupPasses(e.k, ng, &w, &active, &bw, nil)
}

// TestBankPassesRuns checks bankPasses, which counts an aligned access's
// run of banks by its first word, against the definition on random
// warps: aligned and unaligned lanes, conflicts, broadcasts, pairs of
// load groups that meet on one word or two.
func TestBankPassesRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	runs := 0
	for n := range 20000 {
		e := &event{k: []kind{sharedLoad, sharedStore}[n%2], mask: r.Uint32(), width: []int64{4, 8, 16, 2, 12}[r.IntN(5)]}
		if n%3 == 0 {
			e.mask = 0xffffffff
		}
		unaligned := n%7 == 0
		for i := range e.addr {
			ti := int64(i)
			var a int64
			switch n % 5 {
			case 0: // a few rows apart: conflicts
				a = r.Int64N(4)*128 + ti%8*e.width
			case 1: // 128-byte rows, chunks XOR-swizzled
				a = ti/8*128 + (ti%8^ti/8%8)*16
			case 2:
				a = r.Int64N(64) * e.width
			case 3: // strided rows, negative addresses too
				a = ti*[]int64{32, 64, 128, 136}[n%4] - 1024
			default: // lanes in pairs on one address
				a = ti / 2 * e.width * 4
			}
			if unaligned && r.IntN(4) == 0 {
				a += r.Int64N(4) * 2
			}
			e.addr[i] = a
		}
		var bw [4]bankWords
		gwf, gideal, _ := bankPasses(e, nil, &bw)
		wwf, wideal := bankPassesWords(e)
		if gwf != wwf || gideal != wideal {
			t.Fatalf("kind %d mask %#x width %d addr %v: runs %d wavefronts (ideal %d), words %d (ideal %d)", e.k, e.mask, e.width, e.addr, gwf, gideal, wwf, wideal)
		}
		if gwf > gideal && e.width >= 4 && e.width != 12 {
			runs++
		}
	}
	if runs < 2000 {
		t.Errorf("%d of 20000 warps were wide accesses with conflicts", runs)
	}
}

// TestCpAsyncSectors checks the cp.async rule: global sectors per
// shared-side pass.
func TestCpAsyncSectors(t *testing.T) {
	for _, c := range []struct {
		name  string
		bytes int64
		dst   func(t int64) int64
		want  int64
	}{
		{"16B shared t*16", 16, func(t int64) int64 { return t * 16 }, 16},
		{"16B shared t*512", 16, func(t int64) int64 { return t * 512 }, 32},
		{"8B shared t*8", 8, func(t int64) int64 { return t * 8 }, 8},
		{"4B shared t*4", 4, func(t int64) int64 { return t * 4 }, 4},
	} {
		e := &event{k: cpAsync, mask: 0xffffffff, bytes: c.bytes, src: new(lanes)}
		for i := range e.addr {
			e.addr[i] = c.dst(int64(i))
			e.src[i] = 4096 + int64(i)*c.bytes
		}
		if n, _ := cpAsyncSectors(e); n != c.want {
			t.Errorf("%s: %d sectors, measured %d", c.name, n, c.want)
		}
	}
}

// anySectors is sectors for lanes in any order, by its definition: the
// distinct sectors the lanes' bytes touch, and the union of their bytes
// (TestSortedSectors checks sectors against it).
func anySectors(e *event) (n, ideal int64) {
	var secs [64]int64
	ns := 0
	type iv struct{ a, b int64 }
	var ivs [32]iv
	ni := 0
	for i := range 32 {
		if e.mask&(1<<i) == 0 {
			continue
		}
		a, b := e.addr[i], e.addr[i]+e.width
		ivs[ni] = iv{a, b}
		ni++
		for s := a >> 5; s <= (b-1)>>5; s++ {
			if !slices.Contains(secs[:ns], s) && ns < len(secs) {
				secs[ns] = s
				ns++
			}
		}
	}
	x := ivs[:ni]
	slices.SortFunc(x, func(p, q iv) int { return int(p.a - q.a) })
	var bytes, end int64 = 0, -1 << 62
	for _, v := range x {
		if v.a > end {
			bytes += v.b - v.a
			end = v.b
		} else if v.b > end {
			bytes += v.b - end
			end = v.b
		}
	}
	return int64(ns), (bytes + 31) / 32
}

// lanesInOrder reports whether e's active lanes' addresses do not
// decrease with the lane.
func lanesInOrder(e *event) bool {
	prev := int64(-1 << 62)
	for i := range 32 {
		if e.mask&(1<<i) != 0 {
			if e.addr[i] < prev {
				return false
			}
			prev = e.addr[i]
		}
	}
	return true
}
