package cuda

import "testing"

// TestTcgen05UserOp: both spellings of each bookkeeping instruction are
// recognised with the cta_group their name fixes; others are not.
func TestTcgen05UserOp(t *testing.T) {
	for _, c := range []struct {
		op, instr string
		group     int64
		ok        bool
	}{
		{"ptx.tcgen05.alloc", "alloc", 0, true},
		{"ptx.tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32", "alloc", 2, true},
		{"ptx.tcgen05.dealloc", "dealloc", 0, true},
		{"ptx.tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned", "relinquish_alloc_permit", 1, true},
		{"ptx.tcgen05.commit", "commit", 0, true},
		{"ptx.tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", "commit", 1, true},
		{"ptx.tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64", "commit.multicast", 2, true},
		{"ptx.tcgen05.commit.multicast", "", 0, false}, // no cta_group, no cluster spelling
		{"ptx.tcgen05.wait__ld", "wait::ld", 0, true},
		{"ptx.tcgen05.wait.st", "wait::st", 0, true},
		{"ptx.tcgen05.wait::ld.sync.aligned", "wait::ld", 0, true},
		{"ptx.tcgen05.fence__after_thread_sync", "fence::after_thread_sync", 0, true},
		{"ptx.tcgen05.fence::before_thread_sync", "fence::before_thread_sync", 0, true},
		{"ptx.tcgen05.alloc.cta_group::3.sync.aligned.shared::cta.b32", "", 0, false},
		{"ptx.tcgen05.shift.cta_group::1.down", "", 0, false},
		{"ptx.mbarrier.init", "", 0, false},
	} {
		instr, group, ok := tcgen05UserOp(c.op)
		if instr != c.instr || group != c.group || ok != c.ok {
			t.Errorf("%s: (%q, %d, %v), want (%q, %d, %v)", c.op, instr, group, ok, c.instr, c.group, c.ok)
		}
	}
}
