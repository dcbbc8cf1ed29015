package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// segmentsKernel copies the rows of variable-length segments, one CTA a
// segment, whose offsets a buffer parameter holds (a varlen kernel's
// cu_seqlens); LINES are its bind lines.
const segmentsKernel = `from tvm.script import tirx as T


LINES@T.prim_func
def segments(A_ptr: T.handle, B_ptr: T.handle, offsets: T.Buffer((9,), "int32")):
    A = T.match_buffer(A_ptr, (256, 32), "float32")
    B = T.match_buffer(B_ptr, (256, 32), "float32")
    T.device_entry()
    bx = T.cta_id([8])
    tid = T.thread_id([32])
    bos: T.int32 = offsets[bx]
    eos: T.int32 = offsets[bx + 1]
    for r in T.serial(eos - bos):
        B[bos + r, tid] = A[bos + r, tid]
# tilels: reference=0.27
`

// TestLaunchData: a bind line's list of integers is a buffer parameter's
// contents for the launch counted (ir.Func.LaunchData): the segments'
// loops run as many rows as the offsets say (256 rows, a request each,
// and the CTAs' 16 loads of the offsets), as executing every CTA does;
// two lines of other contents are two cases with their own figures (the
// content cache's key holds the contents); an offset past the contents
// given, and a kernel without the line, say why the figures are unknown.
func TestLaunchData(t *testing.T) {
	figures := func(lines string) []*memory.Figures {
		t.Helper()
		src := strings.Replace(segmentsKernel, "LINES", lines, 1)
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		var out []*memory.Figures
		for _, k := range res.Kernels {
			if k.Lowered == nil {
				t.Fatalf("not lowered: %v", res.Diags)
			}
			m := k.Memory() // (through the content cache)
			out = append(out, m.Total)
			if m.Total.Unknown == "" {
				if a, b := countsText(m, k), countsText(everyCTA(k), k); a != b {
					t.Errorf("%s: differs from executing every CTA:\n%s\n%s", lines, a, b)
				}
			}
		}
		return out
	}
	fs := figures("# tilels: bind offsets=[0, 10, 40, 41, 100, 164, 200, 230, 256]\n# tilels: bind offsets=[0, 1, 2, 3, 4, 5, 6, 7, 8]\n")
	if len(fs) != 2 {
		t.Fatalf("%d cases, want 2", len(fs))
	}
	if f := fs[0]; f.Unknown != "" || f.GlobalStore.Requests != 256 || f.GlobalLoad.Requests != 256+16 {
		t.Errorf("segments of 256 rows: unknown %q, %+v stored, %+v loaded", f.Unknown, f.GlobalStore, f.GlobalLoad)
	}
	if f := fs[1]; f.Unknown != "" || f.GlobalStore.Requests != 8 || f.GlobalLoad.Requests != 8+16 {
		t.Errorf("segments of one row each: unknown %q, %+v stored, %+v loaded", f.Unknown, f.GlobalStore, f.GlobalLoad)
	}
	short := figures("# tilels: bind offsets=[0, 10, 40]\n")
	if len(short) != 1 || !strings.Contains(short[0].Unknown, "offsets[3] is past the 3 elements its bind line gives") {
		t.Errorf("contents too short: %+v", short)
	}
	none := figures("")
	if len(none) != 1 || !strings.Contains(none[0].Unknown, "the value of offsets[...] is runtime data (a `# tilels: bind offsets=[...]` line above the kernel counts a launch with those contents)") {
		t.Errorf("no contents: %+v", none)
	}

	// 128 segments, more than MaxCTAs: the CTAs run as many rows as their
	// offsets say (tripkeys.go reads the contents), counted by trip class
	var offs []string
	at := 0
	for i := range 129 {
		if i > 0 {
			at += (i*37)%5 + 1
		}
		offs = append(offs, fmt.Sprint(at))
	}
	big := strings.NewReplacer("(9,)", "(129,)", "T.cta_id([8])", "T.cta_id([128])", "(256, 32)", "(512, 32)").Replace(segmentsKernel)
	src := strings.Replace(big, "LINES", "# tilels: bind offsets=["+strings.Join(offs, ", ")+"]\n", 1)
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
		t.Fatalf("128 segments: not lowered: %v", res.Diags)
	}
	k := res.Kernels[0]
	m := memory.Analyze(k.Lowered, k.Launch)
	if f := m.Total; f.Unknown != "" || !f.Scaled || f.Executed < 2 || f.GlobalStore.Requests != int64(at) {
		t.Errorf("128 segments of %d rows: unknown %q, scaled %v, %d executed, %+v stored (%s)", at, f.Unknown, f.Scaled, f.Executed, f.GlobalStore, f.ScaledWhy)
	}
	if a, b := countsText(m, k), countsText(everyCTA(k), k); a != b {
		t.Errorf("128 segments: differs from executing every CTA:\n%s\n%s", a, b)
	}

	// 16 segments and more work per CTA, the CTA proof tried: the CTAs
	// read other elements of the contents, no translations of CTA 0's
	// (the proof took every load of them for the same value, 722 store
	// requests where executing every CTA counts 896)
	var more strings.Builder
	for i := range 40 {
		fmt.Fprintf(&more, "    B[%d, tid] = A[%d, tid] + A[%d, tid]\n", 300+i, 300+i, 301+i)
	}
	heavy := strings.NewReplacer("(9,)", "(17,)", "T.cta_id([8])", "T.cta_id([16])", "(256, 32)", "(512, 32)",
		"# tilels: reference", more.String()+"# tilels: reference").Replace(segmentsKernel)
	src = strings.Replace(heavy, "LINES", "# tilels: bind offsets=[0, 1, 5, 6, 20, 21, 22, 40, 41, 100, 101, 102, 103, 200, 201, 202, 256]\n", 1)
	res = lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
		t.Fatalf("16 segments: not lowered: %v", res.Diags)
	}
	k = res.Kernels[0]
	if _, ctas := memory.ProofsMade(k.Lowered, k.Launch); ctas == 0 {
		t.Errorf("16 segments: no CTA proof tried")
	}
	m = memory.Analyze(k.Lowered, k.Launch)
	if a, b := countsText(m, k), countsText(everyCTA(k), k); a != b || m.Total.GlobalStore.Requests != 256+16*40 {
		t.Errorf("16 segments: %d store requests; differs from executing every CTA:\n%s\n%s", m.Total.GlobalStore.Requests, a, b)
	}
}

// TestLaunchDataHandle: the offsets behind a T.handle parameter that
// T.match_buffer binds (`offs_h`, as gdn_prefill_sm100.py's cu_seqlens_h)
// take a bind line under the handle's name, which the reason of a kernel
// without the line names; with it the figures are those of the buffer
// parameter's form.
func TestLaunchDataHandle(t *testing.T) {
	handle := strings.Replace(segmentsKernel, `offsets: T.Buffer((9,), "int32")):`, "offs_h: T.handle):\n    offsets = T.match_buffer(offs_h, (9,), \"int32\")", 1)
	totals := func(src, lines string) *memory.Figures {
		t.Helper()
		res := lower.Analyze(source.NewFile("k.py", []byte(strings.Replace(src, "LINES", lines, 1))), lower.Options{})
		if len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Fatalf("not lowered: %v", res.Diags)
		}
		return res.Kernels[0].Memory().Total
	}
	if f := totals(handle, ""); !strings.Contains(f.Unknown, "the value of offsets[...] is runtime data (a `# tilels: bind offs_h=[...]` line above the kernel counts a launch with those contents)") {
		t.Errorf("no contents: %q", f.Unknown)
	}
	const offs = "[0, 10, 40, 41, 100, 164, 200, 230, 256]"
	h, b := totals(handle, "# tilels: bind offs_h="+offs+"\n"), totals(segmentsKernel, "# tilels: bind offsets="+offs+"\n")
	if h.Unknown != "" || h.GlobalLoad != b.GlobalLoad || h.GlobalStore != b.GlobalStore || h.GlobalStore.Requests != 256 {
		t.Errorf("handle %+v, buffer parameter %+v", *h, *b)
	}
}
