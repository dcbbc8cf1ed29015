package memory

import "github.com/tilels/tilels/ir"

// SetWarpDedup turns counting translated warps once on or off (tests
// compare both); it returns the previous setting.
func SetWarpDedup(on bool) bool {
	old := dedupWarps
	dedupWarps = on
	return old
}

// WarpsCovered is how many warps of fn the translation proof covers.
func WarpsCovered(fn *ir.Func, l ir.Launch) int64 {
	m := getMachine(l, &Kernel{Calls: map[*ir.TileCall]*Figures{}, Body: &Figures{}})
	defer putMachine(m)
	return m.warpShifts(fn.Body, l.Threads())
}
