package copyasync

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch/layout"
)

// refDescriptors are the values of the reference's own descriptor encoder
// and offset helper: the C bodies apache-tvm 0.25.0.post1 emits
// (intrinsics/tcgen05.py tvm_builtin_ptx_tcgen05_encode_matrix_descriptor
// over header.py's SmemDescriptor union, and common.py
// tvm_builtin_smem_desc_add_16B_offset), compiled for the host with
// __cvta_generic_to_shared(addr) = addr and run on these inputs.
var refDescriptors = []struct {
	start            int64
	ldo, sdo, sw     int64
	off              int64
	desc, descPlusOf uint64
}{
	{0x0, 16, 8, 0, 0, 0x0000400800100000, 0x0000400800100000},
	{0x0, 16, 16, 1, 0, 0xc000401000100000, 0xc000401000100000},
	{0x0, 16, 32, 2, 0, 0x8000402000100000, 0x8000402000100000},
	{0x0, 16, 64, 3, 0, 0x4000404000100000, 0x4000404000100000},
	{0x0, 16, 64, 3, 64, 0x4000404000100000, 0x4000404000100040},
	{0x0, 16, 32, 2, 128, 0x8000402000100000, 0x8000402000100080},
	{0x0, 16, 8, 0, 4, 0x0000400800100000, 0x0000400800100004},
	{0x400, 16, 64, 3, 0, 0x4000404000100040, 0x4000404000100040},
	{0x12340, 16, 8, 0, 32, 0x0000400800101234, 0x0000400800101254},
	{0x3fff0, 16, 64, 3, 1, 0x4000404000103fff, 0x4000404000104000},
	{0x0, 16, 8, 4, 0, 0x2000400800100000, 0x2000400800100000},
}

// TestSmemDescriptorMatchesReference checks smemDescriptor and
// smemDescAdd16B bit for bit against the reference's encoder.
func TestSmemDescriptorMatchesReference(t *testing.T) {
	for _, c := range refDescriptors {
		d := smemDescriptor(c.start, c.ldo, c.sdo, c.sw)
		if d != c.desc {
			t.Errorf("smemDescriptor(%#x, %d, %d, %d) = %#016x, want %#016x", c.start, c.ldo, c.sdo, c.sw, d, c.desc)
		}
		if got := smemDescAdd16B(d, c.off); got != c.descPlusOf {
			t.Errorf("smemDescAdd16B(%#016x, %d) = %#016x, want %#016x", d, c.off, got, c.descPlusOf)
		}
	}
}

// TestAlignMiddles checks the union-cut of the middle iters (TVM
// _align_middles) on the NVFP4 SFB case of test_tcgen05_cp.py: the tmem
// middle (8, 4@TCol) against the shared (4:512, 2:2048).
func TestAlignMiddles(t *testing.T) {
	it := layout.It
	tm := []layout.Iter{it(8, 4, layout.TCol)}
	sm := []layout.Iter{it(4, 512, nil), it(2, 2048, nil)}
	gt, gs := alignMiddles(tm, sm)
	want := "[T.Iter(4, 8, \"TCol\"), T.Iter(2, 4, \"TCol\")] [T.Iter(4, 512, \"m\"), T.Iter(2, 2048, \"m\")]"
	if got := iterListRepr(gt) + " " + iterListRepr(gs); got != want {
		t.Errorf("alignMiddles = %s, want %s", got, want)
	}
	defer func() {
		r := recover()
		if r == nil || !containsStr(r, "middle extent mismatch: t=8 s=4") {
			t.Errorf("mismatched middles: recovered %v", r)
		}
	}()
	alignMiddles(tm, []layout.Iter{it(4, 512, nil)})
}

func containsStr(r any, s string) bool {
	e, ok := r.(error)
	return ok && strings.Contains(e.Error(), s)
}

// TestTcgen05AtomLayout checks the .16x*b atom layouts against the
// reference's tcgen05_atom_layout(...).canonicalize() (printed by the
// apache-tvm 0.25.0.post1 wheel).
func TestTcgen05AtomLayout(t *testing.T) {
	cases := []struct {
		shape      string
		rows, cols int64
		bits       int
		want       string
	}{
		// tcgen05_atom_layout('16x128b', (128, 16), 'float32').canonicalize()
		{"16x128b", 128, 16, 32, "S[(4, 2, 2, 8, 4, 4):(1@wid_in_wg, 8, 1, 4@laneid, 2, 1@laneid)]"},
	}
	for _, c := range cases {
		l, ok := tcgen05AtomLayout(c.shape, c.rows, c.cols, c.bits)
		if !ok {
			t.Errorf("%s (%d, %d): no layout", c.shape, c.rows, c.cols)
			continue
		}
		want := layout.CanonicalTile(layout.MustParseTile(c.want))
		if got := layout.CanonicalTile(l); !layout.Equal(got, want) {
			t.Errorf("%s (%d, %d): %s, want %s", c.shape, c.rows, c.cols, got, want)
		}
	}
	if _, ok := tcgen05AtomLayout("16x256b", 128, 24, 32); ok {
		t.Errorf("16x256b with 24 columns (rep 3/8) has a layout")
	}
}
