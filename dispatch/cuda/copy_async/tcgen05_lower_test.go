package copyasync_test

// Pipeline tests of the smem->tmem, tmem<->local and dsmem lowerings: the
// agreement programs of testdata/agreement/copy_async_tcgen05 (modelled on
// TVM's test_tcgen05_cp.py, test_tcgen05_ldst.py / test_tmem_16xnb.py and
// test_dsmem.py) lowered for sm_100a, their TIRx, CUDA and plans. The
// descriptor fields and offsets are the reference's (ref_lower.py output of
// the same programs under apache-tvm 0.25.0.post1).

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

type lowered struct {
	res   *lower.Result
	calls []*dispatch.Decision
	tirx  string
	cuda  string
}

// lowerProgram lowers testdata/agreement/copy_async_tcgen05/<prefix>*.py.
func lowerProgram(t *testing.T, prefix string) lowered {
	t.Helper()
	ms, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "agreement", "copy_async_tcgen05", prefix+"*.py"))
	if len(ms) != 1 {
		t.Fatalf("%s: %d programs", prefix, len(ms))
	}
	src, err := os.ReadFile(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	opts := lower.Options{Arch: "sm_100a", Reference: "0.25"}
	if m := regexp.MustCompile(`(?m)^# tilels-test: reference=(\S+)\s*$`).FindSubmatch(src); m != nil {
		opts.Reference = string(m[1]) // a program of a later release's forms
	}
	res := lower.Analyze(source.NewFile(filepath.Base(ms[0]), src), opts)
	if len(res.Kernels) != 1 {
		t.Fatalf("%s: %d kernels", prefix, len(res.Kernels))
	}
	l := lowered{res: res, calls: res.Kernels[0].Calls}
	for _, d := range res.Diags {
		if d.Severity == diag.Error {
			return l
		}
	}
	l.tirx = lower.TIRx(res.Kernels)
	cu, err := lower.CUDA(res.Kernels, opts)
	if err != nil {
		t.Fatalf("%s: CUDA: %v", prefix, err)
	}
	l.cuda = cu
	return l
}

func planValue(d *dispatch.Decision, key string) (dispatch.PlanItem, bool) {
	for _, it := range d.Result.Plan {
		if it.Key == key {
			return it, true
		}
	}
	return dispatch.PlanItem{}, false
}

func fieldValue(it dispatch.PlanItem, key string) string {
	for _, f := range it.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return "<missing " + key + ">"
}

func wantContains(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s lacks %q", what, s)
		}
	}
}

// TestCpDescriptors lowers the single-cp programs of TVM's legacy
// 32x128b.warpx4 tests (test_single_cp) and checks the descriptor each
// encodes (LBO 16, SBO and swizzle as the reference encodes them), its
// first offset in 16-byte units, and the plan's descriptor value and fields.
func TestCpDescriptors(t *testing.T) {
	cases := []struct {
		prog          string
		sdo, sw, off  int
		hex, sbo, lay string
	}{
		{"c001", 8, 0, 0, "0x0000400800100000", "8 (128 B between 8-row groups)", "0 (swizzle none, atom 16 B)"},
		{"c002", 16, 1, 0, "0xc000401000100000", "16 (256 B between 8-row groups)", "6 (swizzle 32B, atom 32 B)"},
		{"c003", 32, 2, 0, "0x8000402000100000", "32 (512 B between 8-row groups)", "4 (swizzle 64B, atom 64 B)"},
		{"c004", 64, 3, 0, "0x4000404000100000", "64 (1024 B between 8-row groups)", "2 (swizzle 128B, atom 128 B)"},
		{"c005", 64, 3, 64, "0x4000404000100000", "64 (1024 B between 8-row groups)", "2 (swizzle 128B, atom 128 B)"},
		{"c006", 32, 2, 128, "0x8000402000100000", "32 (512 B between 8-row groups)", "4 (swizzle 64B, atom 64 B)"},
		{"c007", 8, 0, 4, "0x0000400800100000", "8 (128 B between 8-row groups)", "0 (swizzle none, atom 16 B)"},
	}
	for _, c := range cases {
		l := lowerProgram(t, c.prog)
		d := l.calls[0]
		if d.Variant != "smem->tmem" || d.Result.Outer != 1 {
			t.Errorf("%s: variant %q outer %v, want smem->tmem 1", c.prog, d.Variant, d.Result)
			continue
		}
		wantContains(t, c.prog+" TIRx", l.tirx,
			"cp_desc = T.alloc_buffer((1,), \"uint64\", scope=\"local\", layout=None)",
			"T.ptx.tcgen05.encode_matrix_descriptor(cp_desc.data, T.address_of(A_smem[0, 0]), 16, "+itoa(c.sdo)+", "+itoa(c.sw)+")",
			"T.ptx.tcgen05.cp(tmem_addr[0], T.cuda.smem_desc_add_16B_offset(cp_desc[0], "+itoa(c.off)+"), \"32x128b\", 1, \"warpx4\")")
		wantContains(t, c.prog+" CUDA", l.cuda,
			"tvm_builtin_ptx_tcgen05_encode_matrix_descriptor(cp_desc_ptr, (&(A_smem_ptr[0])), 16, "+itoa(c.sdo)+", "+itoa(c.sw)+");",
			"ptx_tcgen05_cp_cta_group_1_shape_32x128b_multicast_warpx4_decompress_(tmem_addr_ptr[0], 0, 0, tvm_builtin_smem_desc_add_16B_offset(cp_desc_ptr[0], "+itoa(c.off)+"));",
			`asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;"`,
			"#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)")
		desc, ok := planValue(d, "smem descriptor")
		if !ok || !strings.HasPrefix(desc.Value, c.hex+" ") {
			t.Errorf("%s: plan descriptor %q, want %s", c.prog, desc.Value, c.hex)
		}
		if got := fieldValue(desc, "SBO [32,46)"); got != c.sbo {
			t.Errorf("%s: SBO field %q, want %q", c.prog, got, c.sbo)
		}
		if got := fieldValue(desc, "layout type [61,64)"); got != c.lay {
			t.Errorf("%s: layout type field %q, want %q", c.prog, got, c.lay)
		}
		if got := fieldValue(desc, "LBO [16,30)"); got != "16 (256 B; ignored by 32x128b)" {
			t.Errorf("%s: LBO field %q", c.prog, got)
		}
		if it, _ := planValue(d, "bytes moved"); it.Value != "512 from shared memory (512 per cp), x4 into tmem" {
			t.Errorf("%s: bytes moved %q", c.prog, it.Value)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

var cpLine = regexp.MustCompile(`ptx_tcgen05_cp_cta_group_1_shape_32x128b_multicast_warpx4_decompress_\(tmem_addr_ptr\[0\]( \+ (\d+))?, 0, 0, tvm_builtin_smem_desc_add_16B_offset\(cp_desc_ptr\[0\], (\d+)\)\);`)

// cpSteps returns "col/off" per cp line of the CUDA, in order.
func cpSteps(cuda string) []string {
	var out []string
	for _, m := range cpLine.FindAllStringSubmatch(cuda, -1) {
		col := m[2]
		if col == "" {
			col = "0"
		}
		out = append(out, col+"/"+m[3])
	}
	return out
}

// TestCpMultiCp checks the unrolled cp loops: four stacked tiles
// (test_multi_cp_sw0_4tiles), the NVFP4 SFB middle alignment
// (test_align_middle_2_to_1_nvfp4_sfb: the first middle iter is the
// fastest) and a bf16 128B-swizzled column block, against the reference's
// (tmem column, descriptor offset) sequences.
func TestCpMultiCp(t *testing.T) {
	cases := []struct {
		prog  string
		steps string
		sdo   string
	}{
		{"c008", "0/0 4/32 8/64 12/96", "16, 8, 0"},
		{"c009", "0/0 8/32 16/64 24/96 4/128 12/160 20/192 28/224", "16, 8, 0"},
		{"c031", "0/0 4/1 8/2 12/3", "16, 64, 3"},
	}
	for _, c := range cases {
		l := lowerProgram(t, c.prog)
		d := l.calls[0]
		n := int64(len(strings.Fields(c.steps)))
		if d.Variant != "smem->tmem" || d.Result.Outer != n {
			t.Errorf("%s: variant %q, want smem->tmem with %d cps", c.prog, d.Variant, n)
			continue
		}
		if got := strings.Join(cpSteps(l.cuda), " "); got != c.steps {
			t.Errorf("%s: cp steps %s, want %s", c.prog, got, c.steps)
		}
		wantContains(t, c.prog+" CUDA", l.cuda, "(&(A_smem_ptr[0])), "+c.sdo+");")
		if it, _ := planValue(d, "instructions"); it.Value != itoa(int(n)) {
			t.Errorf("%s: plan instructions %q", c.prog, it.Value)
		}
	}
	// A tmem column offset (c032: columns 16..32 of uint8 = column 4) and
	// cta_group 2 (c034).
	l := lowerProgram(t, "c032")
	if got := strings.Join(cpSteps(l.cuda), " "); got != "4/0" {
		t.Errorf("c032: cp steps %s, want 4/0", got)
	}
	l = lowerProgram(t, "c034")
	wantContains(t, "c034 CUDA", l.cuda, `"tcgen05.cp.cta_group::2.32x128b.warpx4 [%0], %1;"`,
		"ptx_tcgen05_cp_cta_group_2_shape_32x128b_multicast_warpx4_decompress_(tmem_addr_ptr[0], 0, 0, ")
	l = lowerProgram(t, "c009")
	it, _ := planValue(l.calls[0], "middle iters")
	if want := "4 (tmem +8 columns, smem +32 x 16 B) x 2 (tmem +4 columns, smem +128 x 16 B) (first fastest)"; it.Value != want {
		t.Errorf("c009 middle iters %q, want %q", it.Value, want)
	}
	steps, _ := planValue(l.calls[0], "steps")
	wantContains(t, "c009 steps", steps.Value, "cp 4: tmem column +4, descriptor +128 x 16 B (0x0000400800100080)")
}

// ldLine matches one tcgen05.ld call: its helper, registers and (row, col).
var ldLine = regexp.MustCompile(`tvm_builtin_ptx_tcgen05_(ld|st)_(\w+?)_x(\d+)\((.*)\);`)

type ldCall struct {
	op, shape, num string
	regs           []string
	row, col       string
}

var regArg = regexp.MustCompile(`\(&\(R_ptr\[(\d+)\]\)\)`)

func ldCalls(cuda string) []ldCall {
	var out []ldCall
	for _, line := range strings.Split(cuda, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "__forceinline__") {
			continue
		}
		m := ldLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := ldCall{op: m[1], shape: m[2], num: m[3]}
		for _, r := range regArg.FindAllStringSubmatch(m[4], -1) {
			c.regs = append(c.regs, r[1])
		}
		args := strings.Split(regArg.ReplaceAllString(m[4], ""), ",")
		var addr []string
		for _, a := range args {
			if a = strings.TrimSpace(a); a != "" {
				addr = append(addr, a)
			}
		}
		if len(addr) == 3 {
			c.row, c.col = addr[1], addr[2]
		}
		out = append(out, c)
	}
	return out
}

// TestTmemLocal checks the tcgen05.ld/st instructions, their registers
// (32-bit register i of the thread's storage is element i * 32/bits) and
// TMEM (row, column) against the reference's lowering of the same programs.
func TestTmemLocal(t *testing.T) {
	cases := []struct {
		prog string
		want []string // op shape xN first-reg..last-reg row col
	}{
		{"c010", []string{"ld 32x32b x16 0..15 0 0", "st 32x32b x16 0..15 0 16"}},
		{"c011", []string{"ld 32x32b x16 0..30 0 16", "ld 32x32b x16 32..62 0 32"}},
		{"c012", []string{"ld 16x64b x16 0..15 0 0"}},
		{"c013", []string{"ld 16x128b x4 0..7 0 0", "ld 16x128b x4 8..15 16 0", "st 16x128b x4 0..7 0 0", "st 16x128b x4 8..15 16 0"}},
		{"c014", []string{"ld 16x256b x2 0..14 0 0", "ld 16x256b x2 16..30 16 0"}},
		{"c017", []string{"ld 16x64b x16 0..15 0 0"}},
		{"c018", []string{"ld 16x256b x1 4..7 0 8", "ld 16x256b x1 20..23 16 8"}},
	}
	for _, c := range cases {
		l := lowerProgram(t, c.prog)
		var got []string
		for _, x := range ldCalls(l.cuda) {
			got = append(got, x.op+" "+x.shape+" x"+x.num+" "+x.regs[0]+".."+x.regs[len(x.regs)-1]+" "+x.row+" "+x.col)
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: instructions\n  got  %s\n  want %s", c.prog, strings.Join(got, "; "), strings.Join(c.want, "; "))
		}
		for _, d := range l.calls {
			if d.Variant != "tmem<->local" {
				t.Errorf("%s: variant %q", c.prog, d.Variant)
			}
		}
		if strings.Contains(l.cuda, "tcgen05.wait") {
			t.Errorf("%s: a tcgen05.wait was issued (TVM leaves it to the caller)", c.prog)
		}
	}
	l := lowerProgram(t, "c013")
	wantContains(t, "c013 CUDA", l.cuda,
		`asm volatile("tcgen05.ld.sync.aligned.16x128b.x4.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"`,
		`asm volatile("tcgen05.st.sync.aligned.16x128b.x4.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"`)
	want := map[string]string{
		"instruction": "tcgen05.ld.sync.aligned.16x128b.x4.b32", "shape": "16x128b", "repetitions": "x4",
		"instructions": "2 per warp (rows 0..15 and 16..31 of each warp's slab)", "bytes moved": "8192",
		"tmem": "column 0 (32-bit units), datapath D",
	}
	for k, v := range want {
		if it, _ := planValue(l.calls[0], k); it.Value != v {
			t.Errorf("c013 plan %s = %q, want %q", k, it.Value, v)
		}
	}
}

// TestDsmemLowering checks the bulk copies of dsmem (test_dsmem.py
// DSMEM_CONFIGS plus offsets): count, bytes, loop and the mapa'd pointers
// (to the CTA's own rank: the programs run on one H100 with a cluster of
// two, each CTA a round trip through its own shared memory).
func TestDsmemLowering(t *testing.T) {
	cases := []struct {
		prog, line string
		copies     int64
		loop       string
	}{
		{"c020", "tvm_builtin_ptx_cp_async_bulk_s2s_cluster(tvm_builtin_ptx_mapa_u64((&(Y_s_ptr[0])), rank), (&(X_s_ptr[0])), 16384, tvm_builtin_ptx_mapa_u64((&(bar_ptr[0])), rank));", 1, ""},
		{"c021", "tvm_builtin_ptx_cp_async_bulk_s2s_cluster(tvm_builtin_ptx_mapa_u64((&(Y_s_ptr[loop_vars * 512])), rank), (&(X_s_ptr[loop_vars * 256])), 256, tvm_builtin_ptx_mapa_u64((&(bar_ptr[0])), rank));", 8, "for (int loop_vars = 0; loop_vars < 8; ++loop_vars) {"},
		{"c025", "tvm_builtin_ptx_cp_async_bulk_s2s_cluster(tvm_builtin_ptx_mapa_u64((&(Y_s_ptr[loop_vars * 128])), rank), (&(X_s_ptr[loop_vars * 256])), 256, tvm_builtin_ptx_mapa_u64((&(bar_ptr[0])), rank));", 8, "for (int loop_vars = 0; loop_vars < 8; ++loop_vars) {"},
		{"c022", "tvm_builtin_ptx_cp_async_bulk_s2s_cluster(tvm_builtin_ptx_mapa_u64((&(Y_s_ptr[64])), rank), (&(X_s_ptr[64])), 512, tvm_builtin_ptx_mapa_u64((&(bar_ptr[0])), rank));", 1, ""},
		{"c023", "tvm_builtin_ptx_cp_async_bulk_s2s_cluster(tvm_builtin_ptx_mapa_u64((&(Y_s_ptr[32 + (loop_vars * 128)])), rank), (&(X_s_ptr[32 + (loop_vars * 128)])), 64, tvm_builtin_ptx_mapa_u64((&(bar_ptr[0])), rank));", 16, "for (int loop_vars = 0; loop_vars < 16; ++loop_vars) {"},
	}
	for _, c := range cases {
		l := lowerProgram(t, c.prog)
		d := l.calls[1] // after the global -> shared copy of the source
		if d.Variant != "dsmem" || d.Result.Outer != c.copies {
			t.Errorf("%s: variant %q, want dsmem with %d copies", c.prog, d.Variant, c.copies)
			continue
		}
		wantContains(t, c.prog+" CUDA", l.cuda, c.line,
			`"cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"`,
			`asm volatile("mapa.u64 %0, %1, %2;"`)
		if c.loop != "" {
			wantContains(t, c.prog+" CUDA", l.cuda, c.loop)
		}
		if it, _ := planValue(d, "instructions"); it.Value != itoa(int(c.copies)) {
			t.Errorf("%s: plan instructions %q", c.prog, it.Value)
		}
		if it, ok := planValue(d, "launch"); ok {
			t.Errorf("%s: a cluster launch warned about: %q", c.prog, it.Value)
		}
	}
}

// TestTcgen05CopyDeclines checks the reference's failures, verbatim.
func TestTcgen05CopyDeclines(t *testing.T) {
	cases := []struct{ prog, variant, reason string }{
		{"c015", "tmem<->local", "ValueError: Width 3 is not valid for tcgen05.ld/st with shape 32x32b"},
		{"c016", "tmem<->local", "ValueError: tcgen05 dispatch: TMEM buffer with datapath='F' is incompatible with atom='32x32b' (frag_rows=128). " +
			"See PTX ISA §9.7.16.10.5 for datapath/atom pairings; the buffer was allocated via tmem_pool.alloc(..., datapath='F')."},
		{"c024", "dsmem", "Layouts not compatible for bulk DSMEM copy: chunk_bytes=2 (need >= 16 and multiple of 16)"},
		{"c030", "smem->tmem", "ValueError: s slice produced bare SwizzleLayout (unexpected)"},
		{"c019", "tmem<->local", "ValueError: tcgen05 dispatch: TMEM buffer with datapath='F' is incompatible with atom='16x*b' (frag_rows=128). " +
			"See PTX ISA §9.7.16.10.5 for datapath/atom pairings; the buffer was allocated via tmem_pool.alloc(..., datapath='F')."},
		{"c033", "smem->tmem", "ValueError: swizzle mode mismatch: s_layout swizzle_len=0 but atom_K_byte=32 implies sw=1"},
	}
	for _, c := range cases {
		l := lowerProgram(t, c.prog)
		d := l.calls[0]
		if d.Variant != "" {
			t.Errorf("%s: selected %s, want none", c.prog, d.Variant)
			continue
		}
		got := ""
		for _, r := range d.Declined {
			if r.Variant == c.variant {
				got = r.Reason
			}
		}
		if got != c.reason {
			t.Errorf("%s: %s\n  got  %q\n  want %q", c.prog, c.variant, got, c.reason)
		}
	}
}

// TestTmemLocalFloorDivColumn: flash_attention4.py's P store (c035), whose
// TMEM column offset (i*128)//4 + wg*128 + 64 is even only through the
// floor division. apache-tvm 0.26 and 0.27 prove it and pick tmem<->local
// (ref_lower.py under 0.27.0.post1); tilels' divisibility check did not
// see through // and raised the planner's AssertionError.
func TestTmemLocalFloorDivColumn(t *testing.T) {
	ms, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "agreement", "copy_async_tcgen05", "c035*.py"))
	if len(ms) != 1 {
		t.Fatalf("c035: %d programs", len(ms))
	}
	src, err := os.ReadFile(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"0.26", "0.27"} {
		opts := lower.Options{Arch: "sm_100a", Reference: ref}
		res := lower.Analyze(source.NewFile(filepath.Base(ms[0]), src), opts)
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				t.Fatalf("%s: %s", ref, d.Message)
			}
		}
		if len(res.Kernels) != 1 || len(res.Kernels[0].Calls) != 1 {
			t.Fatalf("%s: want one kernel of one call (the unrolled loop holds it)", ref)
		}
		for _, d := range res.Kernels[0].Calls {
			if d.Variant != "tmem<->local" {
				t.Errorf("%s: variant %q, want tmem<->local", ref, d.Variant)
			}
		}
		cu, err := lower.CUDA(res.Kernels, opts)
		if err != nil {
			t.Fatalf("%s: CUDA: %v", ref, err)
		}
		// the 32-bit column: the f16 offset halved
		wantContains(t, ref+" CUDA", cu, "tcgen05_st_32x32b_x16(tmem_addr_ptr[0], 0, (((i * 128) / 4) + ((wg * 128) + 64)) / 2,")
	}
}
