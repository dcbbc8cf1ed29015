package cuda

// tcgen05CopyOps prints the intrinsics of the tcgen05_copy lowering (see ext.go).
var tcgen05CopyOps = map[string]extOp{}
