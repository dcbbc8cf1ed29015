package machine

import (
	"fmt"
	"strconv"
	"strings"
)

// SM is what one streaming multiprocessor of a compute capability offers
// a kernel, as the CUDA occupancy calculator models it. Every figure is
// NVIDIA's: the per-capability limits from the CUDA C++ Programming
// Guide, "Compute Capabilities", table "Technical Specifications per
// Compute Capability" (threads, warps and blocks per SM, registers,
// shared memory per SM and per block); the allocation rules
// (granularities, sub-partitions, the reserved shared memory, barriers)
// from cuda_occupancy.h of the CUDA toolkit (13.5: the header the pinned
// nvidia-cuda-runtime wheel ships; cudaOccSMemAllocationGranularity,
// cudaOccRegAllocationGranularity, cudaOccSubPartitionsPerMultiprocessor,
// cudaOccMaxBlocksPerMultiprocessor, cudaOccMaxBlocksPerSMBlockBarrierLimit)
// and cudaDeviceProp.reservedSharedMemPerBlock (1 KiB from compute
// capability 8.0 on).
type SM struct {
	CC                   int   // compute capability ×10: 90 for sm_90 and sm_90a
	RegsPerSM            int   // 32-bit registers per SM
	RegsPerBlock         int   // 32-bit registers one block may hold
	MaxRegsPerThread     int   // registers one thread may use (ptxas caps at 255)
	RegAllocUnit         int   // registers are given to a warp in units of this many
	SubPartitions        int   // an SM's register file is split between its sub-partitions
	MaxWarpsPerSM        int   // resident warps per SM
	MaxThreadsPerBlock   int   // threads one block may have
	MaxBlocksPerSM       int   // resident blocks per SM
	SmemPerSM            int64 // shared memory per SM (the largest carveout), bytes
	SmemPerBlockOptin    int64 // shared memory one block may use with the opt-in attribute, bytes
	SmemReservedPerBlock int64 // shared memory the driver reserves in each block, bytes
	SmemAllocUnit        int64 // a block's shared memory is rounded up to this many bytes
	// BarriersPerBlockSlot is how many named barriers each resident block
	// slot brings (cudaOccMaxBlocksPerSMBlockBarrierLimit: the SM has
	// MaxBlocksPerSM × BarriersPerBlockSlot of them); 0 where the
	// calculator applies no barrier limit (before compute capability 9.0).
	BarriersPerBlockSlot int
}

// sms is the table of known compute capabilities. Sources per column:
// registers 64 Ki per SM and per block, 255 per thread (Programming Guide
// table); allocation unit 256 per warp and 4 sub-partitions
// (cuda_occupancy.h, compute capability 8 to 12); warps, blocks and
// shared memory per SM and per block (Programming Guide table; blocks
// also cudaOccMaxBlocksPerMultiprocessor: 8.6 → 16, 8.9 → 24, 12.x → 24);
// shared memory allocation unit 128 bytes (cudaOccSMemAllocationGranularity,
// 8 to 12); barriers 2 per block slot on 9.0 and 10.0, 1 on 10.3 and 12.x
// (cudaOccMaxBlocksPerSMBlockBarrierLimit).
var sms = []SM{
	{CC: 80, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
		SmemPerSM: 164 << 10, SmemPerBlockOptin: 163 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128},
	{CC: 86, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 48, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 16,
		SmemPerSM: 100 << 10, SmemPerBlockOptin: 99 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128},
	{CC: 89, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 48, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 24,
		SmemPerSM: 100 << 10, SmemPerBlockOptin: 99 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128},
	// H100/H200: 228 KiB of shared memory per SM, 227 KiB per block.
	{CC: 90, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
		SmemPerSM: 228 << 10, SmemPerBlockOptin: 227 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128,
		BarriersPerBlockSlot: 2},
	// B200: the same SM limits as 9.0 (Programming Guide table, 10.0).
	{CC: 100, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
		SmemPerSM: 228 << 10, SmemPerBlockOptin: 227 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128,
		BarriersPerBlockSlot: 2},
	{CC: 103, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
		SmemPerSM: 228 << 10, SmemPerBlockOptin: 227 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128,
		BarriersPerBlockSlot: 1},
	{CC: 120, RegsPerSM: 65536, RegsPerBlock: 65536, MaxRegsPerThread: 255, RegAllocUnit: 256, SubPartitions: 4,
		MaxWarpsPerSM: 48, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 24,
		SmemPerSM: 100 << 10, SmemPerBlockOptin: 99 << 10, SmemReservedPerBlock: 1 << 10, SmemAllocUnit: 128,
		BarriersPerBlockSlot: 1},
}

// SMOf returns the SM of a CUDA arch ("sm_90a", "sm_100f", "sm_90");
// ok is false for an arch the table does not have.
func SMOf(arch string) (SM, bool) {
	s, ok := strings.CutPrefix(arch, "sm_")
	if !ok {
		return SM{}, false
	}
	s = strings.TrimRight(s, "af")
	cc, err := strconv.Atoi(s)
	if err != nil {
		return SM{}, false
	}
	for _, sm := range sms {
		if sm.CC == cc {
			return sm, true
		}
	}
	return SM{}, false
}

// Limits a kernel's occupancy can have, in the order Occupancy names the
// first that binds: the structural ones (threads, blocks) before the ones
// a change of the kernel could lift.
const (
	LimitThreads   = "threads"   // resident warps per SM
	LimitBlocks    = "blocks"    // resident blocks per SM
	LimitRegisters = "registers" // the register file
	LimitShared    = "shared"    // shared memory
	LimitBarriers  = "barriers"  // named barriers (bar.sync ids)
)

// Usage is what one block of a kernel asks of an SM.
type Usage struct {
	Threads       int   // threads per block
	Registers     int   // registers per thread (ptxas)
	Barriers      int   // named barriers per block (ptxas "used N barriers")
	StaticShared  int64 // bytes of __shared__ arrays (ptxas "bytes smem")
	DynamicShared int64 // bytes of dynamic shared memory the launch requests
}

// Occupancy is how many blocks of a kernel one SM holds at once.
type Occupancy struct {
	BlocksPerSM int
	WarpsPerSM  int
	// Limit names the resource that binds (LimitThreads, ...), the first
	// in that order when several bind at once. PerLimit holds the blocks
	// each resource alone allows (-1: no limit).
	Limit    string
	PerLimit map[string]int
	// SharedPerBlock is the shared memory a block is given: static +
	// dynamic + the driver's reserve, rounded up to the allocation unit.
	// RegistersPerBlock is the registers a block is given.
	SharedPerBlock    int64
	RegistersPerBlock int
	// Why is set when not one block fits: which limit a block breaks.
	Why string
}

// Occupancy computes the blocks and warps per SM of a kernel using u,
// by the rules of the CUDA occupancy calculator (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor, with the default shared
// memory carveout preference, partitioned global caching off, and the
// dynamic shared memory opted in when it is over the 48 KiB default, as
// tilels' launchers do). A cluster launch is counted as independent
// blocks. sm is the arch's row of the table (SMOf).
func (sm SM) Occupancy(u Usage) Occupancy {
	o := Occupancy{PerLimit: map[string]int{}}
	threads := max(u.Threads, 1)
	warps := (threads + 31) / 32

	// Threads: whole warps of the block against the SM's warp slots.
	if threads > sm.MaxThreadsPerBlock {
		o.PerLimit[LimitThreads] = 0
		o.Why = fmt.Sprintf("%d threads per block is over the %d a block may have", threads, sm.MaxThreadsPerBlock)
	} else {
		o.PerLimit[LimitThreads] = sm.MaxWarpsPerSM / warps
	}
	o.PerLimit[LimitBlocks] = sm.MaxBlocksPerSM

	// Registers: each warp's registers are rounded up to the allocation
	// unit; warps are placed in sub-partitions, each with a quarter of the
	// register file; the per-block check rounds the warps up to a
	// multiple of the sub-partitions.
	perWarp := roundUp(u.Registers*32, sm.RegAllocUnit)
	o.RegistersPerBlock = perWarp * warps
	assumed := perWarp * roundUp(warps, sm.SubPartitions)
	switch {
	case u.Registers > sm.MaxRegsPerThread:
		o.PerLimit[LimitRegisters] = 0
		o.Why = fmt.Sprintf("%d registers per thread is over the %d a thread may use", u.Registers, sm.MaxRegsPerThread)
	case assumed > sm.RegsPerBlock || o.RegistersPerBlock > sm.RegsPerBlock:
		o.PerLimit[LimitRegisters] = 0
		o.Why = fmt.Sprintf("%d registers per block is over the %d a block may hold", max(assumed, o.RegistersPerBlock), sm.RegsPerBlock)
	case perWarp == 0:
		o.PerLimit[LimitRegisters] = -1
	default:
		perSub := (sm.RegsPerSM / sm.SubPartitions) / perWarp
		o.PerLimit[LimitRegisters] = perSub * sm.SubPartitions / warps
	}

	// Shared memory: static + dynamic + the reserve, rounded up to the
	// allocation unit, against the SM's shared memory (the largest
	// carveout; the driver picks one at least as large as a block needs).
	total := u.StaticShared + u.DynamicShared + sm.SmemReservedPerBlock
	o.SharedPerBlock = roundUp64(total, sm.SmemAllocUnit)
	if limit := sm.SmemPerBlockOptin + sm.SmemReservedPerBlock; o.SharedPerBlock > limit {
		o.PerLimit[LimitShared] = 0
		o.Why = fmt.Sprintf("%d bytes of shared memory per block is over the %d a block may use", u.StaticShared+u.DynamicShared, sm.SmemPerBlockOptin)
	} else {
		o.PerLimit[LimitShared] = int(sm.SmemPerSM / o.SharedPerBlock)
	}

	blocks := -1
	for _, l := range []string{LimitThreads, LimitBlocks, LimitRegisters, LimitShared} {
		if n := o.PerLimit[l]; n >= 0 && (blocks < 0 || n < blocks) {
			blocks, o.Limit = n, l
		}
	}
	// Named barriers, from compute capability 9.0 on: the SM has a fixed
	// number per block slot, shared by the blocks resident on it.
	if sm.BarriersPerBlockSlot > 0 && u.Barriers > 0 {
		n := sm.MaxBlocksPerSM * sm.BarriersPerBlockSlot / u.Barriers
		o.PerLimit[LimitBarriers] = n
		if n < blocks {
			blocks, o.Limit = n, LimitBarriers
		}
	}
	o.BlocksPerSM = blocks
	o.WarpsPerSM = blocks * warps
	if blocks > 0 {
		o.Why = ""
	}
	return o
}

func roundUp(x, unit int) int {
	if unit <= 0 {
		return x
	}
	return (x + unit - 1) / unit * unit
}

func roundUp64(x, unit int64) int64 {
	if unit <= 0 {
		return x
	}
	return (x + unit - 1) / unit * unit
}
