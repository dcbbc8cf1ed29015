package lower

import (
	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// trnArch is the Arch of the Trainium target: the reference's tests lower
// under tvm.target.Target("aws/trn1/trn1.2xlarge").
const trnArch = "trn1"

// trnTarget is the dispatch target of a kernel written for AWS Trainium
// (a buffer in a trn.* scope, or a layout over the P/F axes:
// dispatch.ForeignTarget): target kind "trn", whose variants are
// dispatch/trn's. ok is false for a CUDA kernel.
func trnTarget(fn *ir.Func, rel release.Release) (dispatch.Target, bool) {
	if kind, _, _ := dispatch.ForeignTarget(fn); kind == "trn" {
		return dispatch.Target{Kind: "trn", Arch: trnArch, Release: rel}, true
	}
	return dispatch.Target{}, false
}

// CUDAKernels returns the kernels of ks that are printed as CUDA: all but
// the Trainium kernels (Kernel.Target "trn"), which have no CUDA form.
func CUDAKernels(ks []*Kernel) []*Kernel {
	for i, k := range ks {
		if k.Target == "" {
			continue
		}
		out := append([]*Kernel(nil), ks[:i]...)
		for _, k := range ks[i+1:] {
			if k.Target == "" {
				out = append(out, k)
			}
		}
		return out
	}
	return ks
}
