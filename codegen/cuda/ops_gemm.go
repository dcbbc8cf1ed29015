package cuda

// gemmOps prints the intrinsics of the gemm lowering (see ext.go).
var gemmOps = map[string]extOp{}
