package cuda

import "strings"

// Fences a kernel writes itself, in the dotted spelling of the
// reference's T.ptx dialect (backend/cuda/ptx/table.py, the fence
// entries): T.ptx.fence.proxy.async_.shared__cta(),
// T.ptx.fence.mbarrier_init.release.cluster(), T.ptx.fence.acq_rel.gpu(),
// T.ptx.fence.sc.cta() and the string form T.ptx["fence.proxy.async"]().
// Each is one operand-less instruction, printed as the PTX it names. The
// forms with operands (fence.proxy.tensormap::generic.acquire) are not
// printed ("unknown intrinsic").
func userFenceOp(op string) *extOp {
	toks, ok := ptxTokens(op)
	if !ok || toks[0] != "fence" || len(toks) < 2 {
		return nil
	}
	form := &ptxForm{text: strings.Join(toks, "."), volatile: true, minSM: 70}
	switch toks[1] {
	case "sc", "acq_rel":
		if len(toks) != 3 || !fenceScope(toks[2]) {
			return nil
		}
		if toks[2] == "cluster" {
			form.minSM = 90
		}
	case "proxy":
		// fence.proxy.async{.space} and fence.proxy.alias: no operands.
		if len(toks) < 3 || toks[2] != "async" && toks[2] != "alias" || len(toks) > 4 {
			return nil
		}
		if toks[2] == "async" {
			form.minSM = 90
			if len(toks) == 4 && toks[3] != "global" && toks[3] != "shared::cta" && toks[3] != "shared::cluster" {
				return nil
			}
		}
	case "mbarrier_init":
		if strings.Join(toks[2:], ".") != "release.cluster" {
			return nil
		}
		form.minSM = 90
	default:
		if len(toks) != 2 || !fenceScope(toks[1]) {
			return nil
		}
	}
	return formPrinter(form)
}

func fenceScope(s string) bool {
	switch s {
	case "cta", "cluster", "gpu", "sys":
		return true
	}
	return false
}
