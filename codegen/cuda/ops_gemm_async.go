package cuda

// gemmAsyncOps prints the intrinsics of the gemm_async lowering (see ext.go).
var gemmAsyncOps = map[string]extOp{}
