package lower

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/ir"
)

// The harness's host reference is checked here without a GPU: each program
// runs through harness.HostProgram (compiled with the host C++ compiler),
// and its buffers after the run are compared with what the program means,
// computed in Go from the inputs (and, where a layout decides where an
// element goes, from dispatch/layout's Apply, an implementation the C++
// reference does not share). scripts/gpu-check runs the same reference
// against the generated kernels on a GPU.

// refRun holds one kernel's buffers before and after its reference run,
// the definedness of each storage byte after it, and the race it reported.
type refRun struct {
	in, out, def, alt map[string][]byte
	race              string
	kernel            *Kernel
}

func hostCXX(t *testing.T) string {
	for _, name := range []string{"g++", "c++", "clang++"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no host C++ compiler")
	return ""
}

// runReference analyses src, runs every kernel's reference and returns the
// runs by kernel name.
func runReference(t *testing.T, name string, src []byte) map[string]*refRun {
	t.Helper()
	res := Analyze(source.NewFile(name+".py", src), Options{})
	for _, d := range res.Diags {
		if d.Severity.String() == "error" {
			t.Fatalf("%s: %s", name, d.Message)
		}
	}
	var ks []harness.Kernel
	for _, k := range res.Kernels {
		ks = append(ks, harness.Kernel{Name: k.Name, Func: k.Func, Launch: k.Launch, Launcher: k.Name + "_launch",
			Where: func(sp source.Span) string { l, _ := res.File.Position(sp.Start); return "line " + strconv.Itoa(l) }})
	}
	prog, err := harness.HostProgram(ks)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	dir := t.TempDir()
	cc, exe := filepath.Join(dir, "ref.cc"), filepath.Join(dir, "ref")
	if err := os.WriteFile(cc, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(hostCXX(t), "-std=c++17", "-O1", "-Wall", "-Werror", "-o", exe, cc).CombinedOutput(); err != nil {
		t.Fatalf("%s: compiling the reference: %v\n%s", name, err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: running the reference: %v", name, err)
	}
	runs := map[string]*refRun{}
	for _, k := range res.Kernels {
		runs[k.Name] = &refRun{in: map[string][]byte{}, out: map[string][]byte{}, def: map[string][]byte{}, alt: map[string][]byte{}, kernel: k}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 2 && f[0] == "RACE" {
			runs[f[1]].race = strings.Join(f[2:], " ")
			continue
		}
		if len(f) != 4 {
			t.Fatalf("bad reference output line %q", sc.Text())
		}
		data, err := hex.DecodeString(f[3])
		if err != nil {
			t.Fatal(err)
		}
		r := runs[f[1]]
		switch f[0] {
		case "IN":
			r.in[f[2]] = data
		case "OUT":
			r.out[f[2]] = data
		case "DEF":
			r.def[f[2]] = data
		case "ALT":
			r.alt[f[2]] = data
		}
	}
	return runs
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func u16s(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

// f16 rounds a float32 to binary16 bits, to nearest even (normal range).
func f16(f float32) uint16 {
	x := math.Float32bits(f)
	sign := uint16(x>>16) & 0x8000
	ax := x & 0x7fffffff
	if ax < 0x38800000 { // below 2^-14: not produced by these tests' data
		return sign
	}
	e, mant := ax>>23-112, ax&0x7fffff
	q, rem := e<<10|mant>>13, mant&0x1fff
	if rem > 0x1000 || rem == 0x1000 && q&1 == 1 {
		q++
	}
	return sign | uint16(q)
}

func f16f32(h uint16) float32 {
	sign, e, mant := uint32(h&0x8000)<<16, uint32(h>>10)&0x1f, uint32(h&0x3ff)
	if e == 0 {
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			return -v
		}
		return v
	}
	return math.Float32frombits(sign | (e+112)<<23 | mant<<13)
}

func bufOf(t *testing.T, k *Kernel, name string) *ir.Buffer {
	t.Helper()
	var found *ir.Buffer
	ir.WalkStmts(k.Func.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			if s.Buf.Name == name {
				found = s.Buf
			}
		case *ir.Decl:
			if s.Buf.Name == name {
				found = s.Buf
			}
		}
	})
	for _, p := range k.Func.Params {
		if p.Buf != nil && p.Buf.Name == name {
			found = p.Buf
		}
	}
	if found == nil {
		t.Fatalf("no buffer %s", name)
	}
	return found
}

// halfToFloat is the value of IEEE binary16 bits h.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 31:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// goldenKernelPy is the kernel.py of golden lower/testdata/name.txtar.
func goldenKernelPy(t *testing.T, name string) []byte {
	ar, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src, ok := ar.Get("kernel.py")
	if !ok {
		t.Fatalf("%s has no kernel.py", name)
	}
	return src
}

func example(t *testing.T, name string) []byte {
	return readFile(t, filepath.Join("..", "testdata", "examples", name+".py"))
}

const refHeader = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout
`

func TestHarnessReference(t *testing.T) {
	equal := func(t *testing.T, what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: reference result differs from the program's meaning", what)
		}
	}
	cases := []struct {
		name  string
		src   []byte
		check func(t *testing.T, runs map[string]*refRun)
	}{
		{"gmem_smem roundtrip", example(t, "copy_gmem_smem"), func(t *testing.T, r map[string]*refRun) {
			equal(t, "B", r["roundtrip"].out["B"], r["roundtrip"].in["A"])
			equal(t, "A unchanged", r["roundtrip"].out["A"], r["roundtrip"].in["A"])
		}},
		{"fallback", example(t, "copy_fallback"), func(t *testing.T, r map[string]*refRun) {
			equal(t, "B", r["small_tile"].out["B"], r["small_tile"].in["A"])
		}},
		{"registers", example(t, "copy_reg"), func(t *testing.T, r map[string]*refRun) {
			equal(t, "B", r["registers"].out["B"], r["registers"].in["A"])
		}},
		{"tma", example(t, "copy_tma"), func(t *testing.T, r map[string]*refRun) {
			for _, k := range []string{"tma_load", "tma_pipeline", "tma_store"} {
				equal(t, k+" B", r[k].out["B"], r[k].in["A"])
			}
		}},
		{"sqrt", example(t, "ewise_sqrt"), func(t *testing.T, r map[string]*refRun) {
			a, b := f32s(r["sqrt_tile"].in["A"]), f32s(r["sqrt_tile"].out["B"])
			for i := range a {
				if want := float32(math.Sqrt(float64(a[i]))); b[i] != want {
					t.Fatalf("B[%d] = %v, want sqrt(%v) = %v", i, b[i], a[i], want)
				}
			}
		}},
		{"cast", example(t, "ewise_cast"), func(t *testing.T, r map[string]*refRun) {
			run := r["cast_tiles"]
			a := f32s(run.in["A"])
			for _, out := range []string{"B", "C"} {
				h := u16s(run.out[out])
				for i := range a {
					if h[i] != f16(a[i]) {
						t.Fatalf("%s[%d] = %#04x, want f16(%v) = %#04x", out, i, h[i], a[i], f16(a[i]))
					}
				}
			}
		}},
		// a kernel's own T.ptx loads and stores move raw bytes: both
		// programs copy A to B through shared memory with them (at byte
		// offsets, through a swizzle over runtime strides)
		{"own ld/st", readFile(t, "../testdata/memory/byte_offsets.py"), func(t *testing.T, r map[string]*refRun) {
			for _, k := range []string{"byte_offsets", "column_offsets"} {
				equal(t, k+" B", r[k].out["B"], r[k].in["A"])
			}
		}},
		{"own ld/st, runtime strides", readFile(t, "../testdata/memory/runtime_strides.py"), func(t *testing.T, r map[string]*refRun) {
			for _, k := range []string{"swizzled_rows", "plain_rows"} {
				equal(t, k+" B", r[k].out["B"], r[k].in["A"])
			}
		}},
		// int32 arithmetic wraps as the GPU's does (random int32 inputs
		// overflow a sum about a quarter of the time)
		{"int32 wraps", []byte(refHeader + `
@T.prim_func
def wrap_sum(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "int32")
    B = T.match_buffer(B_ptr, (128,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    B[tid] = A[tid] + A[127 - tid] * 3
`), func(t *testing.T, r map[string]*refRun) {
			a, b := i32s(r["wrap_sum"].in["A"]), i32s(r["wrap_sum"].out["B"])
			wrapped := 0
			for i := range 128 {
				want := a[i] + a[127-i]*3 // (Go's int32 arithmetic wraps)
				if b[i] != want {
					t.Fatalf("B[%d] = %d, want %d", i, b[i], want)
				}
				if int64(want) != int64(a[i])+int64(a[127-i])*3 {
					wrapped++
				}
			}
			if wrapped == 0 {
				t.Fatal("no sum wrapped: the case checks nothing")
			}
		}},
		// copy_async under a per-thread predicate (ldgsts's predicate=):
		// a thread-scope copy's predicate is its thread's, exactly; a
		// CTA-scope copy's holds in some threads, whose elements the
		// reference does not place, so each element is A's value or what
		// the predicate leaves: zero (fill_mode="zero", DEF 02 and ALT 0)
		// or the uninitialised tile (not defined)
		{"predicates", readFile(t, filepath.Join("..", "testdata", "memory", "ldgsts_predicates.py")), func(t *testing.T, r map[string]*refRun) {
			counts := map[string][3]int{} // elements of B: defined, either, undefined
			for name, run := range r {
				a, b, def, alt := run.in["A"], run.out["B"], run.def["B"], run.alt["B"]
				var c [3]int
				for i := 0; i+1 < len(b); i += 2 {
					switch {
					case def[i] == 1 && def[i+1] == 1:
						c[0]++
						if b[i] != a[i] || b[i+1] != a[i+1] {
							if name != "direct_64" || b[i] != 0 || b[i+1] != 0 {
								t.Fatalf("%s: B element %d = %x, want A's %x", name, i/2, b[i:i+2], a[i:i+2])
							}
						}
					case def[i] == 2 && def[i+1] == 2:
						c[1]++
						if b[i] != a[i] || b[i+1] != a[i+1] || alt[i] != 0 || alt[i+1] != 0 {
							t.Fatalf("%s: B element %d = %x or %x, want A's %x or zero", name, i/2, b[i:i+2], alt[i:i+2], a[i:i+2])
						}
					default:
						c[2]++
					}
				}
				counts[name] = c
			}
			for name, want := range map[string][3]int{
				"pred_all":   {4096, 0, 0},   // every thread's predicate holds: a plain copy
				"zfill_all":  {4096, 0, 0},   // likewise
				"zfill_64":   {0, 4096, 0},   // A or zero
				"zfill_even": {0, 4096, 0},   // A or zero
				"pred_96":    {0, 0, 4096},   // A or the never-written tile
				"direct_64":  {512, 0, 3584}, // threads 0-63 copy A, 64-127 zero; the rest never written
			} {
				if counts[name] != want {
					t.Errorf("%s: B's elements defined, either and undefined %v, want %v", name, counts[name], want)
				}
			}
			// direct_64: rows 32-63 of the copied columns are zero
			run := r["direct_64"]
			for row := range 64 {
				for col := range 8 {
					i := (row*64 + col) * 2
					zero := run.out["B"][i] == 0 && run.out["B"][i+1] == 0
					if want := row >= 32; zero != want && !(run.in["A"][i] == 0 && run.in["A"][i+1] == 0) {
						t.Fatalf("direct_64: B[%d, %d] zero %v, want %v", row, col, zero, want)
					}
				}
			}
		}},
		// views whose element offset moves inside the kernel: a loop's
		// variable, the CTA's id (placed where they are declared)
		{"moving views", []byte(refHeader + `
@T.prim_func
def loop_views(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 64), "float32")
    B = T.match_buffer(B_ptr, (4, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    for r in T.serial(4):
        row = T.decl_buffer((64,), "float32", data=A.data, elem_offset=r * 64)
        out = T.decl_buffer((64,), "float32", data=B.data, elem_offset=(3 - r) * 64)
        out[tid] = row[tid]
`), func(t *testing.T, r map[string]*refRun) {
			a, b := f32s(r["loop_views"].in["A"]), f32s(r["loop_views"].out["B"])
			for row := range 4 {
				for c := range 64 {
					if b[(3-row)*64+c] != a[row*64+c] {
						t.Fatalf("B[%d, %d] = %v, want A[%d, %d] = %v", 3-row, c, b[(3-row)*64+c], row, c, a[row*64+c])
					}
				}
			}
		}},
		{"cta views", goldenKernelPy(t, "buffer_views"), func(t *testing.T, r map[string]*refRun) {
			run := r["row_block"]
			idx, out := run.in["idx"], run.out["out"]
			word := func(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
			for bx := range 8 {
				for tid := range 128 {
					for i := range 4 {
						if got, want := word(out, (bx*128+tid)*4+i), word(idx, bx*256+i*64+16); got != want {
							t.Fatalf("out[%d, %d, %d] = %d, want idx[%d, %d] = %d", bx, tid, i, got, bx, i*64+16, want)
						}
					}
				}
			}
		}},
		// a 128-bit st.shared of four registers through a uint128 view
		// (raw bytes: moved, never computed with)
		{"b128", goldenKernelPy(t, "user_st_b128"), func(t *testing.T, r map[string]*refRun) {
			run := r["st128"]
			a, b := run.in["A"], run.out["B"]
			word := func(p []byte, i int) uint32 { return binary.LittleEndian.Uint32(p[4*i:]) }
			for tid := range 128 {
				for j := range 4 {
					if got, want := word(b, tid*4+j), word(a, (127-tid)*4+j)^255; got != want {
						t.Fatalf("B[%d] = %#x, want A[%d] ^ 255 = %#x", tid*4+j, got, (127-tid)*4+j, want)
					}
				}
			}
		}},
		// mbarrier operations do nothing in the lockstep model, an address
		// cvta_generic_to_shared gives included: A is read, never written
		{"mbarriers", goldenKernelPy(t, "user_mbarrier"), func(t *testing.T, r map[string]*refRun) {
			run := r["barriers"]
			equal(t, "A", run.out["A"], run.in["A"])
			if run.race != "" {
				t.Errorf("a race: %s", run.race)
			}
		}},
		// T.ptx.addr is an address some bytes past another; a prefetch
		// moves nothing; mapa leaves its register undefined (another
		// CTA's address, which the reference does not follow)
		{"ptx.addr", []byte(refHeader + `
@T.prim_func
def own_addr(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "uint32")
    B = T.match_buffer(B_ptr, (32,), "uint64")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S_s = T.alloc_buffer((32,), "uint32", scope="shared")
    bar = T.alloc_shared([1], "uint64")
    v = T.alloc_local([1], "uint32")
    remote = T.alloc_local([1], "uint64")
    S_s[tid] = A[tid]
    T.cuda.cta_sync()
    T.ptx.prefetch.global_.L2(A.ptr_to([0]))
    T.ptx.ld.shared.u32(v[0], T.ptx.addr(S_s.ptr_to([0]), 4 * (31 - tid)))
    A[tid] = v[0]
    T.ptx.mapa.shared__cluster.u64(remote[0], bar.ptr_to([0]), T.uint32(0))
    B[tid] = remote[0]
`), func(t *testing.T, r map[string]*refRun) {
			run := r["own_addr"]
			a, got := run.in["A"], run.out["A"]
			for i := range 32 {
				if w, g := binary.LittleEndian.Uint32(a[4*(31-i):]), binary.LittleEndian.Uint32(got[4*i:]); g != w {
					t.Fatalf("A[%d] = %d, want the old A[%d] = %d", i, g, 31-i, w)
				}
			}
			for i, d := range run.def["B"] {
				if d != 0 {
					t.Fatalf("B byte %d is defined: mapa's register holds an address the reference does not follow", i)
				}
			}
		}},
		// a kernel's own ldmatrix, stmatrix and mma.sync (the PTX ISA's
		// fragments): D is the product of the tiles, whatever the lanes
		// hold
		{"warp matrix", readFile(t, filepath.Join("..", "testdata", "memory", "warp_matrix.py")), func(t *testing.T, r map[string]*refRun) {
			f16 := func(b []byte, i int) float64 { return halfToFloat(binary.LittleEndian.Uint16(b[2*i:])) }
			bf16 := func(b []byte, i int) float64 {
				return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16))
			}
			f32 := func(b []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }
			run := r["ldsm_mma_f16"]
			for m := range 16 {
				for n := range 8 {
					s := 0.0
					for k := range 16 {
						s += f16(run.in["A"], m*16+k) * f16(run.in["B"], n*16+k)
					}
					if got := f32(run.out["D"], m*8+n); got != float32(s) {
						t.Fatalf("ldsm_mma_f16: D[%d, %d] = %v, want %v", m, n, got, float32(s))
					}
				}
			}
			run = r["ldsm_trans_mma_bf16"]
			for m := range 16 {
				for n := range 8 {
					s := float64(f32(run.in["C"], m*8+n))
					for k := range 8 {
						s += bf16(run.in["A"], m*8+k) * bf16(run.in["B"], k*8+n)
					}
					if got := f32(run.out["D"], m*8+n); got != float32(s) {
						t.Fatalf("ldsm_trans_mma_bf16: D[%d, %d] = %v, want %v", m, n, got, float32(s))
					}
				}
			}
			run = r["ldsm_stsm_trans"]
			a, b := u16s(run.in["A"]), u16s(run.out["B"])
			for i := range 16 {
				for j := range 16 {
					bi, bj := i/8*8, j/8*8
					if want := a[(bi+j%8)*16+bj+i%8]; b[i*16+j] != want {
						t.Fatalf("ldsm_stsm_trans: B[%d, %d] = %#x, want A[%d, %d] = %#x", i, j, b[i*16+j], bi+j%8, bj+i%8, want)
					}
				}
			}
			for name, run := range r {
				if run.race != "" {
					t.Errorf("%s: a race: %s", name, run.race)
				}
			}
		}},
		// T.cuda.ldg: the value form reads the element its pointer names,
		// the vector form (0.26+) moves n elements into registers
		{"ldg", []byte(refHeader + `
@T.prim_func
def ldg_scalar(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    B[tid] = T.cuda.ldg(A.ptr_to([127 - tid]), "float32") + T.float32(1)


@T.prim_func
def ldg_vec(A_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (512,), "float32")
    C = T.match_buffer(C_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    f = T.alloc_local([4], "float32")
    T.cuda.ldg(A.ptr_to([tid * 4]), "float32", dst=(f.ptr_to([0]), f.ptr_to([1]), f.ptr_to([2]), f.ptr_to([3])), vec="v4")
    C[tid] = f[3] - f[0]
# tilels: reference=0.27
`), func(t *testing.T, r map[string]*refRun) {
			a, b := f32s(r["ldg_scalar"].in["A"]), f32s(r["ldg_scalar"].out["B"])
			for i := range 128 {
				if want := a[127-i] + 1; b[i] != want {
					t.Fatalf("ldg_scalar B[%d] = %v, want %v", i, b[i], want)
				}
			}
			a, c := f32s(r["ldg_vec"].in["A"]), f32s(r["ldg_vec"].out["C"])
			for i := range 128 {
				if want := a[4*i+3] - a[4*i]; c[i] != want {
					t.Fatalf("ldg_vec C[%d] = %v, want %v", i, c[i], want)
				}
			}
		}},
		// a scalar store of a value read from shared memory the program
		// never wrote is undefined (not compared), at a shuffled index
		// too; one of a written word is defined
		{"undefined reads", []byte(refHeader + `
@T.prim_func
def half_written(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "float32")
    B = T.match_buffer(B_ptr, (32,), "float32")
    C = T.match_buffer(C_ptr, (32,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    S = T.alloc_buffer((64,), "float32", scope="shared")
    S[tid * 2] = A[tid]
    T.cuda.cta_sync()
    B[tid] = S[tid] + T.float32(1)
    C[T.cuda.__shfl_xor_sync(T.uint32(0xFFFFFFFF), tid, 1, 32)] = S[tid] + C[T.cuda.__shfl_xor_sync(T.uint32(0xFFFFFFFF), tid, 1, 32)]
`), func(t *testing.T, r map[string]*refRun) {
			run := r["half_written"]
			a, b := f32s(run.in["A"]), f32s(run.out["B"])
			for i := 0; i < 32; i++ {
				def := run.def["B"][4*i] != 0
				if def != (i%2 == 0) {
					t.Fatalf("B[%d] defined = %v, want %v (S[%d] is written only for even indices)", i, def, i%2 == 0, i)
				}
				if def && b[i] != a[i/2]+1 {
					t.Fatalf("B[%d] = %v, want %v", i, b[i], a[i/2]+1)
				}
				cdef := run.def["C"][4*(i^1)] != 0
				if cdef != (i%2 == 0) {
					t.Fatalf("C[%d] (staged) defined = %v, want %v", i^1, cdef, i%2 == 0)
				}
			}
		}},
		// a grid over a scalar parameter, whose bind line gives the
		// launch (ir.Func.LaunchArgs): rows 0..n-1 are copied, the others
		// keep B's values
		{"launch values", []byte(refHeader + `
# tilels: bind n=3
@T.prim_func
def runtime_rows(A_ptr: T.handle, B_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (8, 32), "float32")
    B = T.match_buffer(B_ptr, (8, 32), "float32")
    T.device_entry()
    bx = T.cta_id([n])
    tid = T.thread_id([32])
    B[bx, tid] = A[bx, tid] + T.float32(n)
`), func(t *testing.T, r map[string]*refRun) {
			run := r["runtime_rows"]
			a, bIn, b := f32s(run.in["A"]), f32s(run.in["B"]), f32s(run.out["B"])
			for i := range b {
				want := bIn[i]
				if i < 3*32 {
					want = a[i] + 3
				}
				if b[i] != want {
					t.Fatalf("B[%d] = %v, want %v", i, b[i], want)
				}
			}
		}},
		// a buffer over a runtime outermost extent, sized by the launch
		// value (q: n * 2 = 6 rows)
		{"runtime extent", []byte(refHeader + `
# tilels: bind n=3
@T.prim_func
def runtime_extent(q_h: T.handle, B_ptr: T.handle, n: T.int32):
    q = T.match_buffer(q_h, (n * 2, 32), "float32")
    B = T.match_buffer(B_ptr, (8, 32), "float32")
    T.device_entry()
    bx = T.cta_id([n])
    tid = T.thread_id([32])
    B[bx, tid] = q[bx * 2 + 1, tid]
`), func(t *testing.T, r map[string]*refRun) {
			run := r["runtime_extent"]
			q, bIn, b := f32s(run.in["q"]), f32s(run.in["B"]), f32s(run.out["B"])
			if len(q) != 6*32 {
				t.Fatalf("q has %d elements, want 6 * 32", len(q))
			}
			for i := range b {
				want := bIn[i]
				if row := i / 32; row < 3 {
					want = q[(row*2+1)*32+i%32]
				}
				if b[i] != want {
					t.Fatalf("B[%d] = %v, want %v", i, b[i], want)
				}
			}
		}},
		{"break and continue", []byte(refHeader + `
@T.prim_func
def early_exit(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 256), "float32")
    B = T.match_buffer(B_ptr, (4, 256), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    A_s = T.alloc_buffer((256,), "float32", scope="shared", layout=TileLayout(S[256]))
    for i in range(4):
        if i == 3:
            break
        if i == 1:
            continue
        Tx.cta.copy(A_s[:], A[i, :])
        T.cuda.cta_sync()
        Tx.cta.copy(B[i, :], A_s[:])
        T.cuda.cta_sync()
`), func(t *testing.T, r map[string]*refRun) {
			run := r["early_exit"]
			for row := 0; row < 4; row++ {
				lo, hi := row*1024, row*1024+1024
				want := run.in["B"][lo:hi]
				if row == 0 || row == 2 {
					want = run.in["A"][lo:hi]
				}
				equal(t, "B row", run.out["B"][lo:hi], want)
			}
		}},
		{"narrowing and elect", []byte(refHeader + `
@T.prim_func
def narrow(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 8), "float32")
    B = T.match_buffer(B_ptr, (64, 8), "float32")
    C = T.match_buffer(C_ptr, (4, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    warp = T.warp_id([4])
    tid = T.thread_id([128])
    if tid < 16:
        Tx.thread.copy(B[tid, :], A[tid, :])
    if T.ptx.elect_sync():
        Tx.thread.copy(C[warp, :], A[warp * 16 + 3, :])
`), func(t *testing.T, r map[string]*refRun) {
			run := r["narrow"]
			row := func(b []byte, i int) []byte { return b[i*32 : i*32+32] }
			for i := 0; i < 64; i++ {
				want := row(run.in["B"], i)
				if i < 16 {
					want = row(run.in["A"], i)
				}
				equal(t, "B row", row(run.out["B"], i), want)
			}
			for w := 0; w < 4; w++ {
				equal(t, "C row", row(run.out["C"], w), row(run.in["A"], w*16+3))
			}
		}},
		{"a view of a view at element offsets (Buffer.sub)", []byte(refHeader + `
@T.prim_func
def subsub(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 16, 32), "float32")
    B = T.match_buffer(B_ptr, (16, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    rows = A.sub[2]
    tile = rows.sub[:, 8:16]
    Tx.cta.copy(B[:, :], tile[:, :])
`), func(t *testing.T, r map[string]*refRun) {
			run := r["subsub"]
			a, b := f32s(run.in["A"]), f32s(run.out["B"])
			for i := 0; i < 16; i++ {
				for j := 0; j < 8; j++ {
					// tile's elem_offset is 2*512 + 8 from A's data, once.
					if want := a[2*512+i*32+8+j]; b[i*8+j] != want {
						t.Fatalf("B[%d, %d] = %v, want A[2, %d, %d] = %v", i, j, b[i*8+j], i, 8+j, want)
					}
				}
			}
		}},
		{"swizzled shared tile seen through a flat view", []byte(refHeader + `
@T.prim_func
def swz(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 64), "float16")
    B = T.match_buffer(B_ptr, (512,), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    dyn = T.alloc_buffer([1024], "uint8", scope="shared.dyn")
    A_s = T.decl_buffer((8, 64), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (8, 64)))
    flat = T.decl_buffer((512,), "float16", dyn.data, elem_offset=0, layout=TileLayout(S[512]))
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:], flat[:])
`), func(t *testing.T, r map[string]*refRun) {
			run := r["swz"]
			s := bufOf(t, run.kernel, "A_s")
			a, b := u16s(run.in["A"]), u16s(run.out["B"])
			moved := 0
			for i := int64(0); i < 8; i++ {
				for j := int64(0); j < 64; j++ {
					m := layout.ApplyShape(s.Layout, []int64{i, j}, s.Shape)[layout.M]
					if b[m] != a[i*64+j] {
						t.Fatalf("B[%d] = %#x, want A[%d, %d] = %#x (the swizzle puts it there)", m, b[m], i, j, a[i*64+j])
					}
					if m != i*64+j {
						moved++
					}
				}
			}
			if moved == 0 {
				t.Fatal("the swizzle moved nothing: the test does not test it")
			}
		}},
		{"fragment registers per lane", []byte(refHeader + `
FRAG = TileLayout(S[(2, 8, 4, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)])

@T.prim_func
def frag(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 32), "float16")
    B = T.match_buffer(B_ptr, (32, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.lane_id([32])
    tid = T.thread_id([32])
    a = T.alloc_buffer((16, 32), "float16", scope="local", layout=FRAG)
    regs = T.decl_buffer((16,), "float16", a.data, elem_offset=0, layout=TileLayout(S[16]))
    Tx.warp.copy(a[:, :], A[:, :])
    Tx.thread.copy(B[tid, :], regs[:])
`), func(t *testing.T, r map[string]*refRun) {
			run := r["frag"]
			fr := bufOf(t, run.kernel, "a")
			a, b := u16s(run.in["A"]), u16s(run.out["B"])
			for i := int64(0); i < 16; i++ {
				for j := int64(0); j < 32; j++ {
					at := layout.ApplyShape(fr.Layout, []int64{i, j}, fr.Shape)
					lane, m := at[layout.Laneid], at[layout.M]
					if got := b[lane*16+m]; got != a[i*32+j] {
						t.Fatalf("lane %d register %d = %#x, want A[%d, %d] = %#x", lane, m, got, i, j, a[i*32+j])
					}
				}
			}
		}},
		{"fp16 arithmetic", []byte(refHeader + `
@T.prim_func
def arith(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float16")
    B = T.match_buffer(B_ptr, (32, 32), "float16")
    C = T.match_buffer(C_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    B_s = T.alloc_buffer((32, 32), "float16", scope="shared")
    C_s = T.alloc_buffer((32, 32), "float32", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    Tx.cta.copy(B_s[:, :], B[:, :])
    T.cuda.cta_sync()
    Tx.cta.mul(A_s[:, :], A_s[:, :], B_s[:, :])
    Tx.cta.add(A_s[:, :], A_s[:, :], T.float16(1.5))
    Tx.cta.cast(C_s[:, :], A_s[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(C[:, :], C_s[:, :])
`), func(t *testing.T, r map[string]*refRun) {
			run := r["arith"]
			a, b, c := u16s(run.in["A"]), u16s(run.in["B"]), f32s(run.out["C"])
			for i := range a {
				p := f16(f16f32(a[i]) * f16f32(b[i])) // exact in float32, then rounded
				want := f16f32(f16(f16f32(p) + 1.5))
				if c[i] != want {
					t.Fatalf("C[%d] = %v, want f16(f16(%v*%v)+1.5) = %v", i, c[i], f16f32(a[i]), f16f32(b[i]), want)
				}
			}
		}},
		{"missing barrier is a race", []byte(refHeader + `
@T.prim_func
def racy(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    Tx.cta.copy(B[:, :], A_s[:, :])

@T.prim_func
def fenced(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    A_s = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_s[:, :])

@T.prim_func
def every_thread(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    A_s = T.alloc_buffer((32, 8), "float32", scope="shared")
    Tx.warp.copy(A_s[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.mul(A_s[:, :], A_s[:, :], T.float32(2.0))
    T.cuda.cta_sync()
    Tx.warp.copy(A[:, :], A_s[:, :])
`), func(t *testing.T, r map[string]*refRun) {
			if !strings.Contains(r["racy"].race, "A_s") || !strings.Contains(r["racy"].race, "line 14: Tx.cta.copy") ||
				!strings.Contains(r["racy"].race, "line 15: Tx.cta.copy") {
				t.Errorf("racy: race report %q does not name A_s and both copies", r["racy"].race)
			}
			if r["fenced"].race != "" {
				t.Errorf("fenced: a barrier separates the copies, but the reference reports %q", r["fenced"].race)
			}
			// A thread-scope call runs once per thread: 32 threads scale
			// the same shared tile.
			if !strings.Contains(r["every_thread"].race, "written by thread 0") {
				t.Errorf("every_thread: want a write-write race between threads, got %q", r["every_thread"].race)
			}
		}},
		{"uninitialized registers are undefined", []byte(refHeader + `
@T.prim_func
def partial(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    src = T.alloc_buffer((1,), "float32", scope="local")
    dst = T.alloc_buffer((4,), "float32", scope="local")
    Tx.copy(src[:], A[0:1])
    Tx.copy(dst[2:3], src[:])
    Tx.copy(A[0:4], dst[:])
`), func(t *testing.T, r map[string]*refRun) {
			run := r["partial"]
			def, out, in := run.def["A"], run.out["A"], run.in["A"]
			for e := 0; e < 4; e++ {
				want := byte(0)
				if e == 2 {
					want = 1
				}
				if def[4*e] != want {
					t.Errorf("A[%d] definedness %d, want %d", e, def[4*e], want)
				}
			}
			if !bytes.Equal(out[8:12], in[0:4]) {
				t.Errorf("A[2] = % x, want A[0]'s input % x", out[8:12], in[0:4])
			}
		}},
		// a view at an element offset over the kernel's scalars: the
		// launch's values (its bind line) place it
		{"view at a runtime offset", []byte(refHeader + `
# tilels: bind row=3
@T.prim_func
def view_at(out_h: T.handle, row: T.int32):
    out = T.match_buffer(out_h, (8, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    v = T.decl_buffer((32,), "float32", data=out.data, scope="global", elem_offset=row * 32)
    v[tid] = T.float32(7)
`), func(t *testing.T, r map[string]*refRun) {
			run := r["view_at"]
			in, out := f32s(run.in["out"]), f32s(run.out["out"])
			for i := range out {
				want := in[i]
				if i/32 == 3 {
					want = 7
				}
				if out[i] != want {
					t.Fatalf("out[%d] = %v, want %v", i, out[i], want)
				}
			}
		}},
		// a 64-bit integer element keeps every bit: a uint64 view of four
		// bfloat16 ones (0x3f803f803f803f80) went through a double, which
		// rounded its low half-word to 0x4000 (2.0)
		{"uint64 views of bfloat16", []byte(refHeader + `
@T.prim_func
def packed(out_h: T.handle):
    out = T.match_buffer(out_h, (128,), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    d = T.alloc_local((4,), "bfloat16")
    for i in T.unroll(4):
        d[i] = T.bfloat16(1)
    out.view("uint64")[lane] = d.view("uint64")[0]
# tilels: reference=0.27
`), func(t *testing.T, r map[string]*refRun) {
			out := u16s(r["packed"].out["out"])
			for i, v := range out {
				if v != 0x3f80 {
					t.Fatalf("out[%d] = %#04x, want bfloat16 1 (0x3f80)", i, v)
				}
			}
		}},
		// a CTA reduction, combined in the order of the generated helper
		// (a butterfly per warp, then one over the warps' results), each
		// step rounded to float32
		{"cta reductions", []byte(refHeader + `
@T.prim_func
def cta_red(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    C = T.match_buffer(C_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    scratch = T.alloc_buffer((32,), "float32", scope="shared")
    B[tid] = T.cuda.cta_sum(A[tid], 4, scratch.ptr_to([0]))
    C[tid] = T.cuda.cta_max(A[tid], 4, scratch.ptr_to([0]))
# tilels: reference=0.27
`), func(t *testing.T, r map[string]*refRun) {
			run := r["cta_red"]
			a := f32s(run.in["A"])
			butterfly := func(s []float32, comb func(x, y float32) float32) float32 {
				for m := 16; m > 0; m >>= 1 {
					n := make([]float32, 32)
					for l := range n {
						n[l] = comb(s[l], s[l^m])
					}
					s = n
				}
				return s[0]
			}
			reduce := func(comb func(x, y float32) float32, id float32) float32 {
				part := make([]float32, 32)
				for l := range part {
					part[l] = id
				}
				for w := range 4 {
					part[w] = butterfly(a[w*32:w*32+32], comb)
				}
				return butterfly(part, comb)
			}
			sum := reduce(func(x, y float32) float32 { return x + y }, 0)
			mx := reduce(func(x, y float32) float32 { return float32(math.Max(float64(x), float64(y))) }, float32(math.Inf(-1)))
			for i, v := range f32s(run.out["B"]) {
				if v != sum {
					t.Fatalf("B[%d] = %v, want the helper's sum %v", i, v, sum)
				}
			}
			for i, v := range f32s(run.out["C"]) {
				if v != mx {
					t.Fatalf("C[%d] = %v, want %v", i, v, mx)
				}
			}
		}},
		// a store whose shuffled value reads what it writes takes every
		// lane's old value (staged), and a warp reduction over segments
		// of 16 lanes combines them in the helper's order
		{"staged shuffles and warp reductions", []byte(refHeader + `
@T.prim_func
def staged(X_ptr: T.handle, A_ptr: T.handle, B_ptr: T.handle):
    X = T.match_buffer(X_ptr, (64,), "int32")
    A = T.match_buffer(A_ptr, (64,), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    X[tid] = T.cuda.__shfl_up_sync(T.uint32(0xFFFFFFFF), X[tid], 1, 32)
    B[tid] = T.cuda.warp_sum(A[tid], 16)
# tilels: reference=0.27
`), func(t *testing.T, r map[string]*refRun) {
			run := r["staged"]
			in, out := run.in["X"], run.out["X"]
			x := func(b []byte, i int) int32 { return int32(binary.LittleEndian.Uint32(b[4*i:])) }
			for i := range 64 {
				want := x(in, i)
				if i%32 > 0 {
					want = x(in, i-1)
				}
				if got := x(out, i); got != want {
					t.Fatalf("X[%d] = %d, want %d (lane %d's old value)", i, got, want, i%32-1)
				}
			}
			a, b := f32s(run.in["A"]), f32s(run.out["B"])
			for seg := 0; seg < 4; seg++ {
				s := append([]float32(nil), a[seg*16:seg*16+16]...)
				for m := 8; m > 0; m >>= 1 {
					n := make([]float32, 16)
					for l := range n {
						n[l] = s[l] + s[l^m]
					}
					s = n
				}
				for l := range 16 {
					if b[seg*16+l] != s[0] {
						t.Fatalf("B[%d] = %v, want the segment's sum %v", seg*16+l, b[seg*16+l], s[0])
					}
				}
			}
		}},
		// warp shuffles, __any_sync and %laneid read other lanes' values
		// (shfl.sync's lane rule: a source outside the segment keeps the
		// lane's own value)
		{"warp intrinsics", []byte(refHeader + `
@T.prim_func
def shuffles(B_ptr: T.handle):
    B = T.match_buffer(B_ptr, (6, 64), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([64])
    m = T.uint32(0xFFFFFFFF)
    B[0, tid] = T.cuda.__shfl_sync(m, tid * 10, 3, 32)
    B[1, tid] = T.cuda.__shfl_xor_sync(m, tid, 5, 32)
    B[2, tid] = T.cuda.__shfl_up_sync(m, tid, 1, 8)
    B[3, tid] = T.cuda.__shfl_down_sync(m, tid, 2, 16)
    B[4, tid] = T.cuda.any_sync(m, tid == 40)
    B[5, tid] = T.cuda.mov_sreg(32, "laneid") + T.tvm_warp_shuffle(m, tid, 33, 32, 32)
# tilels: reference=0.27
`), func(t *testing.T, r map[string]*refRun) {
			out := r["shuffles"].out["B"]
			for tid := range 64 {
				lane, base := tid%32, tid-tid%32
				up, down := tid-1, tid+2
				if lane%8 == 0 {
					up = tid
				}
				if lane%16+2 >= 16 {
					down = tid
				}
				anyv := 0
				if base == 32 {
					anyv = 1
				}
				want := []int{(base + 3) * 10, tid ^ 5, up, down, anyv, lane + base + 1}
				for row, w := range want {
					if got := int32(binary.LittleEndian.Uint32(out[4*(row*64+tid):])); got != int32(w) {
						t.Errorf("B[%d, %d] = %d, want %d", row, tid, got, w)
					}
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runs := runReference(t, strings.ReplaceAll(c.name, " ", "_"), c.src)
			if !strings.Contains(c.name, "race") {
				for k, r := range runs {
					if r.race != "" {
						t.Errorf("%s: unexpected race report %q", k, r.race)
					}
				}
			}
			c.check(t, runs)
		})
	}
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
