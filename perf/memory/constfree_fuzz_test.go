package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// FuzzConstFreeKey checks the content key's rule for constants the
// machine never reads (constfree.go) from the other side: two kernels
// built from one template, with two constants in one place, are analysed
// apart, and when their keys are equal their figures must be too. The
// places are where the constant is free (beside loaded indices, a let's
// value read only beside them, a value stored to memory) and where it is
// not (an index, a branch on the thread, a loop bound; the let's value
// once its scalar is read before the loop), alone or together. The seeds run in plain go
// test.
func FuzzConstFreeKey(f *testing.F) {
	// a, b: the two constants; places: a bit per place of the template
	f.Add(int16(8192), int16(4096), uint8(0x07))
	f.Add(int16(8192), int16(4096), uint8(0x0f))
	f.Add(int16(8192), int16(4096), uint8(0x47))
	f.Add(int16(3), int16(5), uint8(0x0f))
	f.Add(int16(16), int16(24), uint8(0x30))
	f.Add(int16(1), int16(2), uint8(0xff))
	f.Add(int16(-1), int16(7), uint8(0x41))
	f.Add(int16(0), int16(31), uint8(0x88))
	f.Fuzz(func(t *testing.T, a, b int16, places uint8) {
		ka, sa := constFreeKernel(t, a, places)
		kb, sb := constFreeKernel(t, b, places)
		if memory.Key(ka.Lowered, ka.Launch) != memory.Key(kb.Lowered, kb.Launch) {
			return
		}
		fa := figureText(memory.Analyze(ka.Lowered, ka.Launch), ka)
		fb := figureText(memory.Analyze(kb.Lowered, kb.Launch), kb)
		if fa != fb {
			t.Errorf("equal keys, other figures:\n%s\n%s\nand\n%s\n%s", sa, fa, sb, fb)
		}
	})
}

// constFreeKernel is FuzzConstFreeKey's kernel with constant c at the
// places set in places.
func constFreeKernel(t *testing.T, c int16, places uint8) (*lower.Kernel, string) {
	t.Helper()
	at := func(bit uint, dflt string) string {
		if places&(1<<bit) != 0 {
			return fmt.Sprint(c)
		}
		return dflt
	}
	// the thread-dependent places stay within the buffer
	small := func(bit uint, dflt string) string {
		if places&(1<<bit) != 0 {
			return fmt.Sprint(int(c)&15 + 1)
		}
		return dflt
	}
	early := "" // (a read of lo that sees the let's constant)
	if places&(1<<6) != 0 {
		early = "    A[tid + lo % 4 + 2048] = T.float32(1)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `from tvm.script import tirx as T


@T.prim_func
def k(A_ptr: T.handle, I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4096,), "float32")
    I = T.match_buffer(I_ptr, (4096,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    idx = T.alloc_buffer((4,), "int32", scope="local")
    for j in T.unroll(4):
        idx[j] = I[tid * 4 + j]
    lo: T.int32 = %s
%s    for j in T.unroll(4):
        lo = T.min(lo, idx[j])
    mask: T.int32 = T.Select((idx[0] >= 0) & (idx[0] < %s), 1, 0)
    if lo == %s:
        A[tid + 64] = T.float32(2)
    A[tid + mask * 32 + 96] = T.Cast("float32", tid * %s + 1)
    if tid < %s:
        A[tid] = T.float32(0)
    for i in range(%s):
        A[tid + i * 32 + 1024] = T.float32(3)
`, at(0, "8192"), early, at(1, "8192"), at(2, "8192"), at(3, "5"), small(4, "16"), small(5, "2"))
	if places&0x80 != 0 {
		fmt.Fprintf(&b, "    A[tid + %d] = T.float32(4)\n", int(c)&63+128)
	}
	src := b.String()
	res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
	if res.HasErrors() || len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
		t.Skipf("not lowered: %v\n%s", res.Diags, src)
	}
	return res.Kernels[0], src
}
