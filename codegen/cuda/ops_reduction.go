package cuda

// reductionOps prints the intrinsics of the reduction lowering (see ext.go).
var reductionOps = map[string]extOp{}
