package lower

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/cudacheck"
	"github.com/tilels/tilels/internal/txtar"
)

// lineDirectiveProgram lowers the line_directives golden's kernel.py with
// the harness and #line directives; it returns the file and the .cu.
func lineDirectiveProgram(t *testing.T) (*source.File, string) {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/line_directives.txtar")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := ar.Get("kernel.py")
	f := source.NewFile("kernel.py", src)
	res := Analyze(f, Options{})
	cu, _, err := Harness(f, res.Kernels, Options{LineDirectives: &cuda.LineDirectives{Source: f}})
	if err != nil {
		t.Fatal(err)
	}
	return f, cu
}

// pyLine is the 1-based line of the first occurrence of text in f.
func pyLine(t *testing.T, f *source.File, text string) int {
	t.Helper()
	i := strings.Index(string(f.Src), text)
	if i < 0 {
		t.Fatalf("%q not in the program", text)
	}
	l, _ := f.Position(source.Pos(i))
	return l
}

var selfDirective = regexp.MustCompile(`^#line (\d+) "kernel\.cu"$`)

// TestLineDirectivesReturnToCU checks that the directive before the host
// code gives the .cu's true line numbers, and that it comes after the last
// kernel (the launchers and the harness count as the .cu's own lines).
func TestLineDirectivesReturnToCU(t *testing.T) {
	_, cu := lineDirectiveProgram(t)
	lines := strings.Split(cu, "\n")
	found := 0
	for i, l := range lines {
		m := selfDirective.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		found++
		if n, _ := strconv.Atoi(m[1]); n != i+2 { // line i+1 is the directive
			t.Errorf("line %d: %s, but the next line is %d", i+1, l, i+2)
		}
		if rest := strings.Join(lines[i:], "\n"); strings.Contains(rest, "__global__") {
			t.Errorf("a kernel follows the directive that returns to kernel.cu")
		}
	}
	if found != 1 {
		t.Errorf("%d directives return to kernel.cu, want 1", found)
	}
}

// TestLineDirectivesReachTheCompiler plants an error in the first
// statement of a tile call's lowering and requires the compiler to report
// it at the tile call's line of kernel.py; with nvcc, it also compiles the
// unchanged .cu to PTX with -lineinfo and requires the line table to hold
// kernel.py and the line of every tile call.
func TestLineDirectivesReachTheCompiler(t *testing.T) {
	cc, ok := cudacheck.Find()
	if !ok {
		t.Fatal("neither nvcc nor a host C++ compiler is available")
	}
	f, cu := lineDirectiveProgram(t)
	call := pyLine(t, f, "Tx.cta.copy(B[i, :], A_s[:])")
	// The first code line under "#line <call>" is the call's first statement.
	marker := "\n#line " + strconv.Itoa(call) + "\n"
	i := strings.Index(cu, marker)
	if i < 0 {
		t.Fatalf("no directive for line %d in\n%s", call, cu)
	}
	at := i + len(marker)
	end := at + strings.IndexByte(cu[at:], '\n')
	planted := cu[:at] + "      tilels_planted_error();" + cu[end:]
	err := cc.Compile(t.TempDir(), "planted", []byte(planted), "sm_90a")
	if err == nil {
		t.Fatal("the planted error compiled")
	}
	// nvcc says kernel.py(20): error, a host compiler kernel.py:20:7: error.
	want := regexp.MustCompile(`kernel\.py(\(` + strconv.Itoa(call) + `\)|:` + strconv.Itoa(call) + `:)[^\n]*tilels_planted_error`)
	if !want.MatchString(err.Error()) {
		t.Errorf("the compiler did not report the planted error at kernel.py line %d:\n%v", call, err)
	}
	if cc.NVCC == "" {
		t.Logf("%s: the PTX line table is checked only with nvcc", cc)
		return
	}
	dir := t.TempDir()
	cuPath := filepath.Join(dir, "kernel.cu")
	if err := os.WriteFile(cuPath, []byte(cu), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cc.NVCC, "-arch=sm_90a", "-lineinfo", "-ptx", "-o", filepath.Join(dir, "kernel.ptx"), cuPath).CombinedOutput()
	if err != nil {
		t.Fatalf("nvcc -ptx: %v\n%s", err, out)
	}
	ptx, err := os.ReadFile(filepath.Join(dir, "kernel.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*\.file\s+(\d+)\s+"([^"]*)"`).FindAllSubmatch(ptx, -1)
	idx := ""
	for _, fm := range m {
		if filepath.Base(string(fm[2])) == "kernel.py" {
			idx = string(fm[1])
		}
	}
	if idx == "" {
		t.Fatalf("the PTX line table names no kernel.py:\n%s", m)
	}
	for _, c := range []string{"Tx.cta.copy(A_s[:], A[i, :])", "Tx.cta.copy(B[i, :], A_s[:])", "Tx.cta.copy(A_smem[:, :], A[:, :])",
		"Tx.cta.sqrt(A_smem[:, :], A_smem[:, :])", "Tx.cta.copy(B[:, :], A_smem[:, :])"} {
		l := pyLine(t, f, c)
		if !regexp.MustCompile(`(?m)^\s*\.loc\s+` + idx + `\s+` + strconv.Itoa(l) + `\s`).Match(ptx) {
			t.Errorf("no .loc for kernel.py line %d (%s) in the PTX", l, c)
		}
	}
}

// TestLineDirectivesParts checks that kernels printed one by one
// (cuda.PrintPart, as the language server caches them) and assembled give
// the same directives as printing the file at once.
func TestLineDirectivesParts(t *testing.T) {
	f, _ := lineDirectiveProgram(t)
	res := Analyze(f, Options{})
	d := &cuda.LineDirectives{Source: f}
	want, err := CUDA(res.Kernels, Options{LineDirectives: d})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]cuda.Kernel, len(res.Kernels))
	for i, k := range res.Kernels {
		in[i] = cuda.Kernel{Func: caseFunc(k), Launch: k.Launch}
	}
	names, launchers := cuda.Symbols(in)
	opts := cuda.Options{Arch: PrintArch(res.Kernels, Options{}), Lines: d}
	var parts []*cuda.Part
	for i := range in {
		p, err := cuda.PrintPart(in[i], names[i], launchers[i], opts)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	got, err := cuda.Assemble(parts, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("assembled parts differ from the whole file")
	}
	if !strings.Contains(got, "#line ") {
		t.Errorf("no directives")
	}
}
