// Package machine compiles the CUDA tilels generates with nvcc and reads
// back what the machine code costs: each kernel's registers, spills,
// static shared memory and named barriers (ptxas -v), its PTX, its SASS
// (nvdisasm, else cuobjdump) and the SASS memory instructions counted by
// opcode, and the occupancy all of that allows on the target arch
// (occupancy.go). It is a leaf: it takes the .cu text, the arch and
// where nvcc is, and knows nothing of the DSL.
//
// Compiling is slow (about 0.7 s for a small kernel with nvcc 13.5 on a
// 2-core machine), so a Compiler caches by content: the hash of the .cu
// text, the arch, the flags, nvcc's version and the disassembler, in
// memory and on disk under the user cache directory
// (os.UserCacheDir()/tilels/machine), both bounded. The language server
// calls it in the background, never on the keystroke path; the CLI
// calls it in line.
package machine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// Flags are the nvcc flags besides -arch: those the harness and
// scripts/gpu-check build with (nvcc -arch=ARCH -O2), so the figures are
// those of the code that runs there.
const Flags = "-O2"

// Tool is an nvcc found on this machine and the disassembler beside it.
type Tool struct {
	NVCC string // path of nvcc
	// Disasm is the path of nvdisasm, else of cuobjdump ("" when
	// neither is beside nvcc nor on PATH: no SASS then); DisasmKind says
	// which ("nvdisasm" or "cuobjdump").
	Disasm, DisasmKind string
	Version            string // nvcc's release, "13.5.37"
	// From says where NVCC was found: "--nvcc", "tilels.nvcc",
	// "TILELS_NVCC", "PATH" or "python environment DIR".
	From string
}

// Source names the compiler for a report: "nvcc 13.5.37".
func (t Tool) Source() string { return "nvcc " + t.Version }

// Search says where Find looks, in order: Explicit (the --nvcc flag or
// the tilels.nvcc setting, named by ExplicitFrom), $TILELS_NVCC, nvcc on
// PATH, then the nvidia-cuda-nvcc wheel of each Python environment in
// Envs (<env>/lib/python*/site-packages/nvidia/cu*/bin/nvcc, as
// scripts/setup-nvcc installs it).
type Search struct {
	Explicit     string
	ExplicitFrom string
	Envs         []string
	// Getenv and LookPath default to os.Getenv and exec.LookPath.
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// Find locates nvcc. When none is found, or the one named does not run,
// ok is false and why says so in one line.
func Find(s Search) (t Tool, why string, ok bool) {
	getenv, look := s.Getenv, s.LookPath
	if getenv == nil {
		getenv = os.Getenv
	}
	if look == nil {
		look = exec.LookPath
	}
	switch {
	case s.Explicit != "":
		t.NVCC, t.From = s.Explicit, s.ExplicitFrom
		if t.From == "" {
			t.From = "--nvcc"
		}
	case getenv("TILELS_NVCC") != "":
		t.NVCC, t.From = getenv("TILELS_NVCC"), "TILELS_NVCC"
	default:
		if p, err := look("nvcc"); err == nil {
			t.NVCC, t.From = p, "PATH"
			break
		}
		for _, env := range s.Envs {
			for _, pat := range []string{
				filepath.Join(env, "lib", "python*", "site-packages", "nvidia", "cu*", "bin", "nvcc"),
				filepath.Join(env, "Lib", "site-packages", "nvidia", "cu*", "bin", "nvcc.exe"),
			} {
				if m, _ := filepath.Glob(pat); len(m) > 0 {
					t.NVCC, t.From = m[len(m)-1], "python environment "+env
					break
				}
			}
			if t.NVCC != "" {
				break
			}
		}
	}
	if t.NVCC == "" {
		return t, "no nvcc: set tilels.nvcc (or --nvcc, $TILELS_NVCC), put nvcc on PATH, or pip install nvidia-cuda-nvcc in the workspace's environment", false
	}
	v, err := nvccVersion(t.NVCC)
	if err != nil {
		return t, fmt.Sprintf("nvcc %s (from %s) does not run: %v", t.NVCC, t.From, err), false
	}
	t.Version = v
	dir := filepath.Dir(t.NVCC)
	for _, name := range []string{"nvdisasm", "cuobjdump"} {
		p := filepath.Join(dir, name)
		if runtime.GOOS == "windows" {
			p += ".exe"
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			t.Disasm, t.DisasmKind = p, name
			break
		}
		if p, err := look(name); err == nil {
			t.Disasm, t.DisasmKind = p, name
			break
		}
	}
	return t, "", true
}

var (
	versionRe = regexp.MustCompile(`\bV(\d+(?:\.\d+)+)`)
	versions  sync.Map // "path\x00size\x00mtime" -> string
)

// nvccVersion runs nvcc --version once per binary (path, size and
// modification time) and returns its release ("13.5.37").
func nvccVersion(nvcc string) (string, error) {
	fi, err := os.Stat(nvcc)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", nvcc, fi.Size(), fi.ModTime().UnixNano())
	if v, ok := versions.Load(key); ok {
		return v.(string), nil
	}
	out, err := exec.Command(nvcc, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, firstLine(out))
	}
	m := versionRe.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("no version in its --version output: %s", firstLine(out))
	}
	versions.Store(key, string(m[1]))
	return string(m[1]), nil
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}

// Artifact is what one compilation of a .cu file gave.
type Artifact struct {
	Source string // "nvcc 13.5.37"
	Arch   string
	// Failed is set when nvcc failed: its output (the first 4 KiB). The
	// other fields are empty then.
	Failed string
	PTX    string // the module's PTX
	// SASS is the disassembly of the cubin (nvdisasm -c, or cuobjdump
	// -sass); NoSASS says why it is empty (no disassembler found).
	SASS, NoSASS string
	Kernels      []Resources // per entry function, in ptxas' order
}

// Kernel returns the resources of the entry function symbol.
func (a *Artifact) Kernel(symbol string) (Resources, bool) {
	for _, r := range a.Kernels {
		if r.Symbol == symbol {
			return r, true
		}
	}
	return Resources{}, false
}

// compile runs nvcc (and the disassembler) on cu in a temporary
// directory. A Go error is returned only for I/O and a cancelled ctx; a
// program nvcc rejects is an Artifact with Failed set.
func (t Tool) compile(ctx context.Context, cu, arch string) (*Artifact, error) {
	dir, err := os.MkdirTemp("", "tilels-machine-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "k.cu")
	if err := os.WriteFile(src, []byte(cu), 0o644); err != nil {
		return nil, err
	}
	a := &Artifact{Source: t.Source(), Arch: arch}
	cubin := filepath.Join(dir, "k.cubin")
	cmd := exec.CommandContext(ctx, t.NVCC, "-arch="+arch, Flags, "-cubin", "-Xptxas", "-v",
		"-keep", "-keep-dir", dir, "-o", cubin, src)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Start()
	if err == nil {
		lowerPriority(cmd.Process.Pid)
		err = cmd.Wait()
	}
	out := buf.Bytes()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		msg := strings.TrimSpace(strings.ReplaceAll(string(out), dir+string(filepath.Separator), ""))
		if len(msg) > 4096 {
			msg = msg[:4096] + "\n…"
		}
		a.Failed = fmt.Sprintf("nvcc -arch=%s %s failed (%v):\n%s", arch, Flags, err, msg)
		return a, nil
	}
	a.Kernels = ParsePtxas(string(out))
	ptx, err := os.ReadFile(filepath.Join(dir, "k.ptx"))
	if err != nil {
		return nil, fmt.Errorf("nvcc -keep left no PTX: %w", err)
	}
	a.PTX = string(ptx)
	switch t.DisasmKind {
	case "nvdisasm":
		cmd = exec.CommandContext(ctx, t.Disasm, "-c", cubin)
	case "cuobjdump":
		cmd = exec.CommandContext(ctx, t.Disasm, "-sass", cubin)
	default:
		a.NoSASS = "no nvdisasm or cuobjdump beside nvcc or on PATH (pip install nvidia-cuda-nvdisasm)"
		return a, nil
	}
	sass, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		a.NoSASS = fmt.Sprintf("%s failed: %v", t.DisasmKind, err)
		return a, nil
	}
	a.SASS = string(sass)
	return a, nil
}

// Kernel is the machine-code view of one kernel: its resources, the
// occupancy they allow with its launch, its PTX and SASS and the SASS
// memory instructions by opcode.
type Kernel struct {
	Source string // "nvcc 13.5.37"
	Arch   string
	Symbol string
	Resources
	Threads       int
	DynamicShared int64
	// Occupancy is nil for an arch the table does not have (NoOccupancy
	// says so).
	Occupancy   *Occupancy
	NoOccupancy string
	PTX, SASS   string
	// MemoryOps counts the SASS memory instructions by opcode (nil when
	// there is no SASS: NoSASS says why).
	MemoryOps map[string]int
	NoSASS    string
}

// KernelView returns the view of the entry function symbol launched with
// threads per block and dyn bytes of dynamic shared memory; ok is false
// when the artifact has no such entry (or nvcc failed).
func (a *Artifact) KernelView(symbol string, threads int, dyn int64) (*Kernel, bool) {
	r, ok := a.Kernel(symbol)
	if !ok || a.Failed != "" {
		return nil, false
	}
	k := &Kernel{Source: a.Source, Arch: a.Arch, Symbol: symbol, Resources: r, Threads: threads, DynamicShared: dyn,
		PTX: SplitPTX(a.PTX)[symbol], NoSASS: a.NoSASS}
	if a.SASS != "" {
		k.SASS = SplitSASS(a.SASS)[symbol]
		k.MemoryOps = MemoryOps(k.SASS)
	}
	if sm, ok := SMOf(a.Arch); ok {
		o := sm.Occupancy(Usage{Threads: threads, Registers: r.Registers, Barriers: r.Barriers, StaticShared: r.StaticShared, DynamicShared: dyn})
		k.Occupancy = &o
	} else {
		k.NoOccupancy = fmt.Sprintf("no occupancy figures for %s", a.Arch)
	}
	return k, true
}
