package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// FuzzWarpSegments builds a loop of 8 warps (a while loop, a serial for
// loop nvcc does not unroll, or an unroll loop) whose body's segments,
// between barriers (a CTA barrier, a named one, one under a branch, or
// none), access two views of one shared buffer at per-warp shifts of
// their own (a tile row per warp, a word per warp, none, a register round
// trip, a lane bit flipped in odd warps: warps 2 apart translate), and
// checks that counting warps as translations of the first
// (warps.go, apart.go) gives the figures of executing every warp. The
// seeds run in plain go test.
func FuzzWarpSegments(f *testing.F) {
	// loop, barrier, the three segments' accesses (two digits each)
	f.Add(uint8(0), uint8(0), uint8(0x13), uint8(0x20), uint8(0x00)) // rmsnorm's partial sums
	f.Add(uint8(0), uint8(1), uint8(0x13), uint8(0x20), uint8(0x00)) // named barriers
	f.Add(uint8(0), uint8(2), uint8(0x13), uint8(0x20), uint8(0x00)) // barriers under a branch
	f.Add(uint8(0), uint8(0), uint8(0x40), uint8(0x10), uint8(0x50)) // a round trip across the back edge
	f.Add(uint8(1), uint8(0), uint8(0x13), uint8(0x20), uint8(0x60)) // a serial for loop
	f.Add(uint8(2), uint8(0), uint8(0x13), uint8(0x20), uint8(0x00)) // an unroll loop
	f.Add(uint8(0), uint8(3), uint8(0x13), uint8(0x20), uint8(0x01)) // no barriers
	f.Add(uint8(1), uint8(0), uint8(0x83), uint8(0x90), uint8(0x00)) // warps 2 apart (period 2) with views
	f.Add(uint8(0), uint8(3), uint8(0x89), uint8(0x00), uint8(0x00)) // period 2, no barriers
	f.Fuzz(func(t *testing.T, loop, barrier, seg0, seg1, seg2 uint8) {
		src := fuzzSegments(loop, barrier, [3]uint8{seg0, seg1, seg2})
		res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{})
		if res.HasErrors() || len(res.Kernels) != 1 || res.Kernels[0].Lowered == nil {
			t.Skipf("not lowered: %v\n%s", res.Diags, src)
		}
		agreesUnproven(t, src, res.Kernels[0])
	})
}

// fuzzSegments is FuzzWarpSegments' kernel: segs hold two accesses each,
// one per hex digit.
func fuzzSegments(loop, barrier uint8, segs [3]uint8) string {
	accesses := []string{
		"",
		"X[tid * 4] = A[tid + it]",   // a tile row per warp
		"B[tid] = X[tid * 4] + Y[0]", // every warp reads Y[0]
		"Y[tid // 32] = A[tid]",      // a word per warp
		"T.cuda.copy_bytes(T.address_of(Y[tid // 32 * 4]), T.address_of(r[0]), 16)", // registers to Y, a row per warp
		"T.cuda.copy_bytes(T.address_of(r[0]), T.address_of(Y[0]), 16)",             // Y[0:4] to registers
		"B[tid + 256] = Y[tid // 32 * 4]",                                           // a word of Y per warp, 4 apart
		"X[tid % 32 * 4] = A[tid]",                                                  // the same tile row in every warp
		"X[(tid ^ ((tid >> 5) & 1)) * 4] = A[tid + it]",                             // odd warps flip a lane bit: warps 2 apart translate
		"B[tid] = X[(tid ^ ((tid >> 5) & 1)) * 4] + Y[tid % 32]",                    // and Y, the same words in every warp
	}
	bar := []string{"T.cuda.cta_sync()", "T.ptx.bar.sync(1, T.uint32(256))", "if it < 8:\n    T.cuda.cta_sync()", ""}[barrier%4]
	var body []string
	for i, s := range segs {
		for _, d := range []uint8{s >> 4, s & 15} {
			if a := accesses[int(d)%len(accesses)]; a != "" {
				body = append(body, a)
			}
		}
		if i < 2 && bar != "" {
			body = append(body, strings.Split(bar, "\n")...)
		}
	}
	var head, step string
	switch loop % 3 {
	case 0:
		head, step = "    while it < 4:\n", "it = it + 1"
	case 1:
		head = "    for it in T.serial(300):\n"
	case 2:
		head = "    for it in range(4):\n"
	}
	if step != "" {
		body = append(body, step)
	}
	src := eightWarps + `    buf = T.alloc_buffer((2048,), "float32", scope="shared")
    X = T.decl_buffer((1024,), "float32", data=buf.data, scope="shared")
    Y = T.decl_buffer((64,), "float32", data=buf.data, elem_offset=1024, scope="shared")
    r = T.alloc_buffer((4,), "float32", scope="local")
    for j in range(4):
        r[j] = T.float32(0.0)
`
	if loop%3 == 0 {
		src += "    it: T.int32 = 0\n"
	}
	src += head
	for _, l := range body {
		src += "        " + l + "\n"
	}
	return src + "    T.cuda.cta_sync()\n    B[tid + 512] = X[tid * 4] + Y[tid // 32]\n"
}
