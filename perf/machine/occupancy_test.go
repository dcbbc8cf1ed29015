package machine

import "testing"

// Hand-computed cases of the occupancy rules (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor; limits of the Programming
// Guide's table). Each comment shows the arithmetic.
func TestOccupancy(t *testing.T) {
	h100, _ := SMOf("sm_90a")
	b200, _ := SMOf("sm_100a")
	a100, _ := SMOf("sm_80")
	for _, tc := range []struct {
		name   string
		sm     SM
		u      Usage
		blocks int
		warps  int
		limit  string
		smem   int64
	}{
		// 126 regs × 32 = 4032 → 4096 per warp (unit 256); a sub-partition
		// has 65536/4 = 16384 → 4 warps; 16 warps per SM; 1 warp per block
		// → 16 blocks. Shared: 14464 + 1024 = 15488 (a multiple of 128),
		// 233472/15488 = 15 blocks: shared binds first.
		{"regions_kernel", h100, Usage{Threads: 32, Registers: 126, Barriers: 1, StaticShared: 14464}, 15, 15, LimitShared, 15488},
		// 64 regs → 2048 per warp → 8 per sub-partition → 32 warps; 1
		// warp per block → 32 blocks; shared 6208+1024 = 7232 → 7296,
		// 233472/7296 = 32; blocks 32: a three-way tie, threads (64
		// warps) allow 64, so the named limit is blocks (first in order).
		{"regions_thread_kernel", h100, Usage{Threads: 32, Registers: 64, StaticShared: 6208}, 32, 32, LimitBlocks, 7296},
		// 256 threads = 8 warps; 32 regs → 1024 per warp → 16 per
		// sub-partition → 64 warps → 8 blocks; threads: 64/8 = 8: tie,
		// threads named first.
		{"256 threads 32 regs", h100, Usage{Threads: 256, Registers: 32}, 8, 64, LimitThreads, 1024},
		// 128 threads, 168 regs: 168×32 = 5376 (a multiple of 256) → 16384/5376
		// = 3 warps per sub-partition → 12 warps → 3 blocks of 4 warps.
		{"128 threads 168 regs", h100, Usage{Threads: 128, Registers: 168}, 3, 12, LimitRegisters, 1024},
		// 384 threads (12 warps), 80 dynamic KB: 81920 + 1024 = 82944 =
		// 648 × 128; 233472/82944 = 2 blocks (shared); registers 40 →
		// 1280 per warp → 12 per sub-partition → 48 warps → 4 blocks.
		{"80 KB dynamic", h100, Usage{Threads: 384, Registers: 40, DynamicShared: 80 << 10}, 2, 24, LimitShared, 82944},
		// Odd sizes round up to 128: 100 + 1024 = 1124 → 1152.
		{"round up", h100, Usage{Threads: 1024, Registers: 16, StaticShared: 100}, 2, 64, LimitThreads, 1152},
		// Too much shared memory: 227 KB + 1 byte is over the opt-in limit.
		{"over 227 KB", h100, Usage{Threads: 128, Registers: 32, DynamicShared: 227<<10 + 1}, 0, 0, LimitShared, 233600},
		// 4 named barriers: 32 slots × 2 = 64 → 16 blocks, under the 32
		// the rest allow (32 threads, 16 regs).
		{"barriers", h100, Usage{Threads: 32, Registers: 16, Barriers: 4}, 16, 16, LimitBarriers, 1024},
		// The same on sm_100a (2 barriers per slot for 10.0).
		{"barriers sm_100a", b200, Usage{Threads: 32, Registers: 16, Barriers: 4}, 16, 16, LimitBarriers, 1024},
		// sm_80: no barrier limit before 9.0; 164 KB per SM:
		// 167936/(64 KB + 1 KB = 66560) = 2.
		{"a100 64 KB", a100, Usage{Threads: 128, Registers: 32, DynamicShared: 64 << 10, Barriers: 4}, 2, 8, LimitShared, 66560},
		// 1024 threads with 65 regs: 65×32 = 2080 → 2304 per warp × 32
		// warps = 73728 registers, over the 65536 a block may hold.
		{"regs per block", h100, Usage{Threads: 1024, Registers: 65}, 0, 0, LimitRegisters, 1024},
	} {
		o := tc.sm.Occupancy(tc.u)
		if o.BlocksPerSM != tc.blocks || o.WarpsPerSM != tc.warps || o.Limit != tc.limit || o.SharedPerBlock != tc.smem {
			t.Errorf("%s: got %d blocks, %d warps, limit %s, %d bytes of shared per block; want %d, %d, %s, %d (per limit %v)",
				tc.name, o.BlocksPerSM, o.WarpsPerSM, o.Limit, o.SharedPerBlock, tc.blocks, tc.warps, tc.limit, tc.smem, o.PerLimit)
		}
		if (o.BlocksPerSM == 0) != (o.Why != "") {
			t.Errorf("%s: %d blocks with Why %q", tc.name, o.BlocksPerSM, o.Why)
		}
	}
}

func TestSMOf(t *testing.T) {
	for arch, cc := range map[string]int{"sm_90a": 90, "sm_90": 90, "sm_100a": 100, "sm_100f": 100, "sm_103a": 103, "sm_120": 120, "sm_80": 80} {
		sm, ok := SMOf(arch)
		if !ok || sm.CC != cc {
			t.Errorf("SMOf(%s) = %d, %v; want %d", arch, sm.CC, ok, cc)
		}
	}
	for _, arch := range []string{"sm_75", "compute_90", "sm_x", ""} {
		if _, ok := SMOf(arch); ok {
			t.Errorf("SMOf(%q) found a row", arch)
		}
	}
	// Every row is complete: a zero would divide by zero or allow nothing.
	for _, sm := range sms {
		if sm.RegsPerSM == 0 || sm.RegAllocUnit == 0 || sm.SubPartitions == 0 || sm.MaxWarpsPerSM == 0 ||
			sm.MaxBlocksPerSM == 0 || sm.SmemPerSM == 0 || sm.SmemAllocUnit == 0 || sm.SmemPerBlockOptin >= sm.SmemPerSM {
			t.Errorf("incomplete row %+v", sm)
		}
	}
}
