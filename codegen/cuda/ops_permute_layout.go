package cuda

// permuteOps prints the intrinsics of the permute_layout lowering (see ext.go).
var permuteOps = map[string]extOp{}
