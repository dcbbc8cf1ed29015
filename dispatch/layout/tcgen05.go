package layout

// Tcgen05Atom16 is the register-side layout of a warpgroup fragment read
// or written by the tcgen05.ld/st atoms .16x64b, .16x128b and .16x256b
// with n repetitions (TVM tcgen05_atom_layout, tirx/layout.py): rows 64
// (one 16-row slab per warp) or 128 (a second slab per warp, one more
// register bit right below the warp's row bits), 32-bit registers each
// holding pack elements. The shapes' lane/register maps (PTX ISA,
// tcgen05 matrix fragments), per warp w, lane t = 4*t2 + t1... :
//
//	16x64b:  row = t2 + 8*t0 + 16*w, col = t1 + 2*r
//	16x128b: row = t1 + 8*ra + 16*w, col = t0 + 4*rb
//	16x256b: row = t1 + 8*va + 16*w, col = v0 + 2*t0 + 8*vb
//
// The evaluator (tcgen05_atom_layout, alloc_tcgen05_ldst_frag) and the
// tmem<->local variant (which checks a fragment against it) share it.
func Tcgen05Atom16(shape string, rows, n, pack int64) *TileLayout {
	it := It
	var rowIt, colIt []Iter
	var used int64 // registers per lane of the M=64 atom
	switch shape {
	case "16x64b":
		rowIt = []Iter{it(4, 1, WidInWG), it(2, 1, Laneid), it(8, 4, Laneid)}
		colIt = []Iter{it(n, 1, M), it(2, 2, Laneid)}
		used = n
	case "16x128b":
		rowIt = []Iter{it(4, 1, WidInWG), it(2, 1, M), it(8, 4, Laneid)}
		colIt = []Iter{it(n, 2, M), it(4, 1, Laneid)}
		used = 2 * n
	default: // 16x256b
		rowIt = []Iter{it(4, 1, WidInWG), it(2, 2, M), it(8, 4, Laneid)}
		colIt = []Iter{it(n, 4, M), it(4, 1, Laneid), it(2, 1, M)}
		used = 4 * n
	}
	if rows == 128 {
		rowIt = append([]Iter{rowIt[0], it(2, used, M)}, rowIt[1:]...)
	}
	iters := make([]Iter, 0, len(rowIt)+len(colIt)+1)
	for _, x := range append(rowIt, colIt...) {
		if x.Axis == M {
			x.Stride *= pack
		}
		iters = append(iters, x)
	}
	if pack > 1 {
		iters = append(iters, it(pack, 1, M))
	}
	return NewTile(iters, nil, nil)
}
