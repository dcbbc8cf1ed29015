package gemm_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TestHarnessReference runs the GPU harness's host reference of gemm
// (codegen/harness/ref_gemm.go) on agreement programs, with a host C++
// compiler, and checks every element of D_g against D = A·B (+ C) computed
// here on the programs' global inputs: the products exact, the sum rounded
// to float32 after every addition, in K order (the reference's accumulator),
// then C added (a K loop of calls adds each call's sum to D).
// It checks the reference's reading of every fragment layout (through the
// programs' own register loads and stores) and of the transpose flags.
func TestHarnessReference(t *testing.T) {
	cxx := ""
	for _, name := range []string{"g++", "c++", "clang++"} {
		if p, err := exec.LookPath(name); err == nil {
			cxx = p
			break
		}
	}
	if cxx == "" {
		t.Skip("no host C++ compiler")
	}
	cases := []struct {
		file, kernel   string
		M, N, K        int
		transA, transB bool
		c              string // the C input ("" when beta = 0)
		bf16           bool
		kPerCall       int // K of one gemm call (a K loop accumulates calls into D)
	}{
		{"g_warp_f16_k16", "gemm_k16", 16, 8, 16, false, false, "", false, 16},
		{"g_warp_tiled_beta1", "tiled_f16", 32, 16, 32, false, false, "C_g", false, 32},
		{"g_warp_k8", "k24_f16", 16, 8, 24, false, false, "", false, 24},
		{"g_warp_k8", "grid_k8_bf16", 32, 16, 24, false, false, "C_g", true, 24},
		{"g_warp_transpose", "trans_ab_grid_f16", 32, 16, 32, true, true, "C_g", false, 32},
		{"g_warp_transpose", "trans_b_bf16", 16, 8, 16, false, true, "", true, 16},
		{"g_warp_k_loop", "k_loop_serial", 16, 8, 64, false, false, "", true, 16},
		{"g_warp_k_loop", "k_loop_unrolled", 16, 8, 64, false, false, "", false, 16},
		{"g_cta_warp_tiles", "warp_m_tiles", 64, 8, 16, false, false, "C_g", false, 16},
	}
	runs := map[string]map[string]map[string][]byte{} // file → "IN/OUT kernel" → buffer → bytes
	for _, c := range cases {
		if runs[c.file] == nil {
			runs[c.file] = hostRun(t, cxx, c.file)
		}
		in, out := runs[c.file]["IN "+c.kernel], runs[c.file]["OUT "+c.kernel]
		if in == nil || out == nil {
			t.Fatalf("%s: no run of kernel %s", c.file, c.kernel)
		}
		half := f16ToF32
		if c.bf16 {
			half = bf16ToF32
		}
		a, b := halves(in["A_g"], half), halves(in["B_g"], half)
		var cIn []float32
		if c.c != "" {
			cIn = floats(in[c.c])
		}
		got := floats(out["D_g"])
		for i := 0; i < c.M; i++ {
			for j := 0; j < c.N; j++ {
				var want float32
				if cIn != nil {
					want = cIn[i*c.N+j]
				}
				acc := float32(0)
				for k := 0; k < c.K; k++ {
					ai := i*c.K + k
					if c.transA {
						ai = k*c.M + i
					}
					bi := k*c.N + j
					if c.transB {
						bi = j*c.K + k
					}
					acc = float32(float64(acc) + float64(a[ai])*float64(b[bi]))
					if (k+1)%c.kPerCall == 0 {
						// One call: D = acc + C (beta = 1; the first call of a K loop has beta = 0).
						if cIn != nil || k >= c.kPerCall {
							acc = float32(float64(acc) + float64(want))
						}
						want, acc = acc, 0
					}
				}
				if got[i*c.N+j] != want {
					t.Fatalf("%s %s: D[%d, %d] = %v, want %v", c.file, c.kernel, i, j, got[i*c.N+j], want)
				}
			}
		}
	}
}

// hostRun compiles and runs the host reference of every kernel of an
// agreement program; the result maps "IN <kernel>" / "OUT <kernel>" to the
// kernel's parameter buffers.
func hostRun(t *testing.T, cxx, file string) map[string]map[string][]byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "agreement", "gemm", file+".py"))
	if err != nil {
		t.Fatal(err)
	}
	res := lower.Analyze(source.NewFile(file+".py", src), lower.Options{Reference: "0.25"})
	var ks []harness.Kernel
	for _, k := range res.Kernels {
		ks = append(ks, harness.Kernel{Name: k.Name, Func: k.Func, Launch: k.Launch, Launcher: k.Name + "_launch",
			Where: func(source.Span) string { return file }})
	}
	prog, err := harness.HostProgram(ks)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	dir := t.TempDir()
	cc, exe := filepath.Join(dir, "ref.cc"), filepath.Join(dir, "ref")
	if err := os.WriteFile(cc, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cxx, "-std=c++17", "-O1", "-Wall", "-Werror", "-o", exe, cc).CombinedOutput(); err != nil {
		t.Fatalf("%s: compiling the reference: %v\n%s", file, err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: running the reference: %v", file, err)
	}
	runs := map[string]map[string][]byte{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 1 && f[0] == "RACE" {
			t.Fatalf("%s: the reference saw a race: %s", file, sc.Text())
		}
		if len(f) != 4 || (f[0] != "IN" && f[0] != "OUT") {
			continue
		}
		data, err := hex.DecodeString(f[3])
		if err != nil {
			t.Fatal(err)
		}
		key := f[0] + " " + f[1]
		if runs[key] == nil {
			runs[key] = map[string][]byte{}
		}
		runs[key][f[2]] = data
	}
	return runs
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func halves(b []byte, conv func(uint16) float32) []float32 {
	out := make([]float32, len(b)/2)
	for i := range out {
		out[i] = conv(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f16ToF32 decodes an IEEE binary16 (finite inputs: the harness fills
// [-4, 4)).
func f16ToF32(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	if exp == 0 {
		return sign * float32(math.Ldexp(frac, -24))
	}
	return sign * float32(math.Ldexp(1+frac/1024, exp-15))
}
