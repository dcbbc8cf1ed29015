package cuda

// permuteOps prints the intrinsics of the permute_layout lowering (see ext.go).
// permute_layout/warp_xor_swizzle needs none of its own: it lowers to
// scalar buffer loads and stores, a local register array and
// T.cuda.warp_sync() (ir.OpWarpSync, printed by expr.go).
var permuteOps = map[string]extOp{}
