package harness

import (
	"testing"

	"github.com/tilels/tilels/ir"
)

// TestSyncOpOf: the later releases' spellings of the synchronisation ops
// are the ops the lockstep reference knows; other ops are themselves.
func TestSyncOpOf(t *testing.T) {
	for op, want := range map[string]string{
		"ptx.mbarrier.init.shared.b64":                       ir.OpMbarrierInit,
		"ptx.mbarrier.arrive.expect_tx.shared.b64":           ir.OpMbarrierArrive,
		"ptx.mbarrier.expect_tx.relaxed.cta.shared__cta.b64": ir.OpMbarrierArrive,
		"ptx.fence.acq_rel.gpu":                              ir.OpFenceProxyAsync,
		"ptx.mbarrier.arrive.expect_tx":                      ir.OpMbarrierArriveExpect,
		"ptx.mbarrier.arrive.shared.b64":                     ir.OpMbarrierArrive,
		"ptx.mbarrier.try_wait.parity.shared.b64":            ir.OpMbarrierTryWait,
		"cuda.mbarrier_wait":                                 ir.OpMbarrierTryWait,
		"ptx.fence.proxy.async_.shared__cta":                 ir.OpFenceProxyAsync,
		"ptx.fence.mbarrier_init.release.cluster":            ir.OpFenceMbarrierInit,
		"ptx.cp.async_.bulk.commit_group":                    ir.OpCpAsyncBulkCommit,
		"ptx.cp.async_.bulk.wait_group.read":                 ir.OpCpAsyncBulkWait,
		"ptx.cp.async_.commit_group":                         ir.OpCpAsyncCommit,
		"ptx.mbarrier.init":                                  ir.OpMbarrierInit,
		"ptx.setmaxnreg.dec.sync.aligned.u32":                ir.OpMbarrierArrive,
		"ptx.bar.sync":                                       ir.OpCTASync,
		"ptx.bar.arrive":                                     ir.OpMbarrierArrive,
		"ptx.ld.shared.v4.u32":                               "ptx.ld.shared.v4.u32",
	} {
		if got := syncOpOf(op); got != want {
			t.Errorf("syncOpOf(%q) = %q, want %q", op, got, want)
		}
	}
}
