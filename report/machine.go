package report

import (
	"slices"

	"github.com/tilels/tilels/lower"
)

// Machine is a kernel's machine code, compiled with nvcc (tilels --lower
// --machine, or --emit ptx/sass): what ptxas reports, the launch, the
// occupancy they allow on the arch, and the SASS memory instructions
// counted by opcode (static counts in the cubin). Kernel.Machine is null
// when nothing was compiled.
type Machine struct {
	Source             string `json:"source"` // "nvcc 13.5.37"
	Arch               string `json:"arch"`
	Registers          int64  `json:"registers"`
	SpillStoreBytes    int64  `json:"spill_store_bytes"`
	SpillLoadBytes     int64  `json:"spill_load_bytes"`
	StackFrameBytes    int64  `json:"stack_frame_bytes"`
	StaticSharedBytes  int64  `json:"static_shared_bytes"`
	DynamicSharedBytes int64  `json:"dynamic_shared_bytes"`
	Barriers           int64  `json:"barriers"`
	Threads            int64  `json:"threads"`
	// Occupancy is null for an arch tilels has no figures for.
	Occupancy *Occupancy `json:"occupancy"`
	// SASSMemoryOps is null when no disassembler was found.
	SASSMemoryOps map[string]int64 `json:"sass_memory_ops"`
}

// Occupancy is how many blocks of the kernel one SM holds, and the
// resource that limits it: "threads", "blocks", "registers", "shared" or
// "barriers".
type Occupancy struct {
	BlocksPerSM int64  `json:"blocks_per_sm"`
	WarpsPerSM  int64  `json:"warps_per_sm"`
	Limit       string `json:"limit"`
}

// AddMachine sets the machine record of each kernel record of f, which
// Build made from ks (nil: r.Records()); views maps a kernel to its
// machine view (a kernel not in it keeps null).
func AddMachine(f *File, r *lower.Result, ks []*lower.Kernel, views map[*lower.Kernel]*lower.MachineKernel) {
	if ks == nil {
		ks = r.Records()
	}
	for i, k := range ks {
		m := views[k]
		if m == nil || i >= len(f.Kernels) {
			continue
		}
		mj := &Machine{Source: m.Source, Arch: m.Arch, Registers: int64(m.Registers), SpillStoreBytes: m.SpillStores,
			SpillLoadBytes: m.SpillLoads, StackFrameBytes: m.StackFrame, StaticSharedBytes: m.StaticShared,
			DynamicSharedBytes: m.DynamicShared, Barriers: int64(m.Barriers), Threads: int64(m.Threads)}
		if o := m.Occupancy; o != nil {
			mj.Occupancy = &Occupancy{BlocksPerSM: int64(o.BlocksPerSM), WarpsPerSM: int64(o.WarpsPerSM), Limit: o.Limit}
		}
		if m.MemoryOps != nil {
			mj.SASSMemoryOps = map[string]int64{}
			for op, n := range m.MemoryOps {
				mj.SASSMemoryOps[op] = int64(n)
			}
		}
		f.Kernels[i].Machine = mj
	}
}

func (e *encoder) machine(m *Machine) {
	if m == nil {
		e.null()
		return
	}
	e.open('{', 12)
	for i, kv := range []struct {
		k string
		v int64
	}{{"registers", m.Registers}, {"spill_store_bytes", m.SpillStoreBytes}, {"spill_load_bytes", m.SpillLoadBytes},
		{"stack_frame_bytes", m.StackFrameBytes}, {"static_shared_bytes", m.StaticSharedBytes},
		{"dynamic_shared_bytes", m.DynamicSharedBytes}, {"barriers", m.Barriers}, {"threads", m.Threads}} {
		if i == 0 {
			e.key(0, "source")
			e.str(m.Source)
			e.key(1, "arch")
			e.str(m.Arch)
		}
		e.key(i+2, kv.k)
		e.int(kv.v)
	}
	e.key(10, "occupancy")
	if o := m.Occupancy; o == nil {
		e.null()
	} else {
		e.open('{', 3)
		e.key(0, "blocks_per_sm")
		e.int(o.BlocksPerSM)
		e.key(1, "warps_per_sm")
		e.int(o.WarpsPerSM)
		e.key(2, "limit")
		e.str(o.Limit)
		e.close('}')
	}
	e.key(11, "sass_memory_ops")
	e.intMap(m.SASSMemoryOps)
	e.close('}')
}

// intMap writes a map with its keys sorted, as encoding/json does.
func (e *encoder) intMap(m map[string]int64) {
	if m == nil {
		e.null()
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !e.open('{', len(keys)) {
		return
	}
	for i, k := range keys {
		e.key(i, k)
		e.int(m[k])
	}
	e.close('}')
}
