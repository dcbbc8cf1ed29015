package lower

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/perf/machine"
)

// MachineCode is what the machine code of each kernel of ks costs: the
// .cu file of ks (CUDA) compiled once with c (from its cache when the
// same text was compiled before), each kernel's view at its launch
// (threads, dynamic shared memory). views is aligned with ks; failed is
// nvcc's complaint when the file does not compile (views nil then). The
// error is a printing error (the file has no CUDA) or a cancelled ctx.
func MachineCode(ctx context.Context, c *machine.Compiler, ks []*Kernel, opts Options) (views []*machine.Kernel, failed string, err error) {
	cu, err := CUDA(ks, opts)
	if err != nil {
		return nil, "", err
	}
	a, err := c.Compile(ctx, cu, PrintArch(ks, opts))
	if err != nil {
		return nil, "", err
	}
	if a.Failed != "" {
		return nil, a.Failed, nil
	}
	return machineViews(a, cu, ks), "", nil
}

// machineViews picks each kernel's entry out of a's, compiled from cu.
func machineViews(a *machine.Artifact, cu string, ks []*Kernel) []*machine.Kernel {
	in := make([]cuda.Kernel, len(ks))
	for i, k := range ks {
		in[i] = cuda.Kernel{Func: caseFunc(k), Launch: k.Launch}
	}
	names, _ := cuda.Symbols(in)
	dyn := launchSmem(cu)
	views := make([]*machine.Kernel, len(ks))
	for i, k := range ks {
		d, ok := dyn[names[i]]
		if !ok {
			d = k.Launch.DynamicSmem
		}
		views[i], _ = a.KernelView(names[i], int(k.Launch.Threads()), d)
	}
	return views
}

var (
	launchSmemRe   = regexp.MustCompile(`(?m)^\s*tilels_config\.dynamicSmemBytes = (\d+);`)
	launchKernelRe = regexp.MustCompile(`cudaLaunchKernelEx\(&tilels_config, ([A-Za-z_]\w*)[,)]`)
)

// launchSmem reads, from the launchers of a .cu file codegen/cuda
// printed, the dynamic shared memory each kernel is launched with: the
// dispatch pass leaves ir.Launch.DynamicSmem 0 and the printer sizes the
// arena of the kernel's shared.dyn buffers, which only its launcher
// states ("tilels_config.dynamicSmemBytes = N;" before
// "cudaLaunchKernelEx(&tilels_config, NAME, ...").
func launchSmem(cu string) map[string]int64 {
	out := map[string]int64{}
	sizes := launchSmemRe.FindAllStringSubmatchIndex(cu, -1)
	for _, m := range launchKernelRe.FindAllStringSubmatchIndex(cu, -1) {
		var n int64 = -1
		for _, s := range sizes {
			if s[0] > m[0] {
				break
			}
			n, _ = strconv.ParseInt(cu[s[2]:s[3]], 10, 64)
		}
		if n >= 0 {
			out[cu[m[2]:m[3]]] = n
		}
	}
	return out
}

// KernelSource is the .cu text a kernel is compiled from on its own (the
// language server compiles each kernel of a file apart, so an edit in
// one recompiles only that one) and the arch it is printed for.
func (p *Prints) KernelSource(k *Kernel) (cu, arch string, err error) {
	ks := []*Kernel{k}
	cu, err = p.CUDA(ks)
	return cu, PrintArch(ks, p.opts), err
}

// KernelMachine is the view of k compiled on its own from cu
// (KernelSource) into artifact a.
func KernelMachine(a *machine.Artifact, cu string, k *Kernel) *machine.Kernel {
	return machineViews(a, cu, []*Kernel{k})[0]
}

// What the editor says of a kernel whose machine code is not there:
// being compiled, or nvcc failed (MachineFailed).
const MachinePending = "machine code: compiling…"

// MachineFailed is the line for a kernel nvcc could not compile: the
// first line of its complaint.
func MachineFailed(failed string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(failed), "\n")
	return "machine code: none: " + line
}

// MachineLens is the one-line summary of a kernel's machine code the
// editor shows above its def: "64 regs · 0 spills · 48 KB smem · 2
// blocks/SM (shared)".
func MachineLens(m *machine.Kernel) string {
	parts := []string{fmt.Sprintf("%d regs", m.Registers)}
	if sp := m.SpillStores + m.SpillLoads; sp > 0 {
		parts = append(parts, fmt.Sprintf("%s spilled", size(m.SpillStores)))
	} else {
		parts = append(parts, "0 spills")
	}
	parts = append(parts, size(m.StaticShared+m.DynamicShared)+" smem")
	if o := m.Occupancy; o != nil {
		parts = append(parts, fmt.Sprintf("%d blocks/SM (%s)", o.BlocksPerSM, o.Limit))
	}
	return strings.Join(parts, " · ")
}

// MachineLines is the hover of a kernel's def, one fact a line:
// registers, spills, shared memory, barriers, occupancy and what limits
// it, and the SASS memory instructions.
func MachineLines(m *machine.Kernel) []string {
	lines := []string{
		fmt.Sprintf("machine code: %s -arch=%s %s", m.Source, m.Arch, machine.Flags),
		fmt.Sprintf("registers: %d per thread", m.Registers),
	}
	if m.SpillStores+m.SpillLoads > 0 || m.StackFrame > 0 {
		lines = append(lines, fmt.Sprintf("spills: %d bytes stored, %d bytes loaded per thread (stack frame %d bytes)", m.SpillStores, m.SpillLoads, m.StackFrame))
	} else {
		lines = append(lines, "spills: none")
	}
	lines = append(lines, fmt.Sprintf("shared memory: %d bytes static + %d bytes dynamic = %s per block", m.StaticShared, m.DynamicShared, size(m.StaticShared+m.DynamicShared)))
	if m.Barriers > 0 {
		lines = append(lines, fmt.Sprintf("named barriers: %d", m.Barriers))
	}
	if o := m.Occupancy; o != nil {
		if o.BlocksPerSM == 0 {
			lines = append(lines, fmt.Sprintf("occupancy: no block fits on an SM: %s", o.Why))
		} else {
			sm, _ := machine.SMOf(m.Arch)
			lines = append(lines, fmt.Sprintf("occupancy: %d blocks/SM, %d of %d warps (%d%%), limited by %s (%s)",
				o.BlocksPerSM, o.WarpsPerSM, sm.MaxWarpsPerSM, 100*o.WarpsPerSM/sm.MaxWarpsPerSM, o.Limit, limitText(o, m.Threads)))
		}
	} else if m.NoOccupancy != "" {
		lines = append(lines, m.NoOccupancy)
	}
	if m.MemoryOps != nil {
		lines = append(lines, "SASS memory instructions: "+memoryOpsText(m.MemoryOps))
	} else if m.NoSASS != "" {
		lines = append(lines, "SASS: "+m.NoSASS)
	}
	return lines
}

// limitText says what each resource allows, the binding one first.
func limitText(o *machine.Occupancy, threads int) string {
	var parts []string
	for _, l := range []string{machine.LimitRegisters, machine.LimitShared, machine.LimitThreads, machine.LimitBlocks, machine.LimitBarriers} {
		n, ok := o.PerLimit[l]
		if !ok || n < 0 {
			continue
		}
		switch l {
		case machine.LimitRegisters:
			parts = append(parts, fmt.Sprintf("registers allow %d (%d per block)", n, o.RegistersPerBlock))
		case machine.LimitShared:
			parts = append(parts, fmt.Sprintf("shared memory allows %d (%s per block with the 1 KB reserve)", n, size(o.SharedPerBlock)))
		case machine.LimitThreads:
			parts = append(parts, fmt.Sprintf("%d threads allow %d", threads, n))
		case machine.LimitBlocks:
			parts = append(parts, fmt.Sprintf("the SM holds %d", n))
		case machine.LimitBarriers:
			parts = append(parts, fmt.Sprintf("barriers allow %d", n))
		}
	}
	return strings.Join(parts, "; ")
}

// memoryOpsText lists opcode counts, most frequent first: "LDS.128 ×4,
// STG.E.128 ×4, UTMALDG.2D ×1", or "none".
func memoryOpsText(ops map[string]int) string {
	if len(ops) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(ops))
	for k := range ops {
		keys = append(keys, k)
	}
	sortOps(keys, ops)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, ops[k])
	}
	return strings.Join(parts, ", ")
}

func sortOps(keys []string, ops map[string]int) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0; j-- {
			a, b := keys[j-1], keys[j]
			if ops[a] > ops[b] || (ops[a] == ops[b] && a < b) {
				break
			}
			keys[j-1], keys[j] = b, a
		}
	}
}

// size renders bytes: "512 B", "48 KB", "14.1 KB" (KB = 1024 bytes, as
// NVIDIA's documents count shared memory).
func size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n%1024 == 0:
		return fmt.Sprintf("%d KB", n/1024)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// MachineText is the --emit ptx or --emit sass output of ks (what is
// "ptx" or "sass"): each kernel's code under a header naming the kernel,
// its case, the symbol, the arch and the compiler.
func MachineText(ks []*Kernel, views []*machine.Kernel, what string) string {
	var b strings.Builder
	comment := "//"
	for i, k := range ks {
		m := views[i]
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s ===== kernel %s", comment, k.Name)
		if k.CaseLabel != "" {
			fmt.Fprintf(&b, " case %d/%d: %s", k.CaseIndex, k.CaseCount, k.CaseLabel)
		}
		if m == nil {
			fmt.Fprintf(&b, ": no machine code (the compiled file has no entry for it)\n")
			continue
		}
		fmt.Fprintf(&b, " (%s, %s, %s)\n", m.Symbol, m.Arch, m.Source)
		fmt.Fprintf(&b, "%s %s\n", comment, MachineLens(m))
		switch what {
		case "ptx":
			b.WriteString(m.PTX)
		default:
			if m.SASS == "" {
				fmt.Fprintf(&b, "%s no SASS: %s\n", comment, m.NoSASS)
				continue
			}
			b.WriteString(m.SASS)
		}
	}
	return b.String()
}

// MachineKernel is a kernel's machine-code view (perf/machine.Kernel);
// MachineCompiler compiles and caches (perf/machine.Compiler).
type (
	MachineKernel   = machine.Kernel
	MachineCompiler = machine.Compiler
)

// FindMachine locates nvcc and returns a compiler that caches on disk
// under the user cache directory; nil and why (one line) when there is
// no nvcc. Where it looks, in order: explicit (a --nvcc flag or the
// tilels.nvcc setting, which from names), $TILELS_NVCC, nvcc on PATH,
// then the nvidia-cuda-nvcc wheel of each Python environment in envs.
// parallel caps the nvcc processes at once.
func FindMachine(explicit, from string, envs []string, parallel int) (*MachineCompiler, string) {
	t, why, ok := machine.Find(machine.Search{Explicit: explicit, ExplicitFrom: from, Envs: envs})
	if !ok {
		return nil, why
	}
	return machine.NewCompiler(t, machine.DefaultDir(), parallel), ""
}
