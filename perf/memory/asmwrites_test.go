package memory_test

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/perf/memory"
)

// TestCallWrites: a register an intrinsic writes holds what the
// instruction leaves, not what was stored before it. Each kernel bounds a
// loop of global stores (one request of 4 sectors an iteration) by a
// register set to 3 and then handed to an instruction.
func TestCallWrites(t *testing.T) {
	const loop = `    for i in range(n2[0]):
        A[i, tid] = 1.0
`
	for _, tc := range []struct {
		name string
		body string
		why  string // the reason the figures are unknown ("": known)
		reqs int64  // global store requests when known
	}{
		{"plain store", `    n2[0] = 3
`, "", 3},
		{"a load from shared memory", `    n2[0] = 3
    T.ptx.ld.shared.u32(n2[0], T.address_of(W[0]))
`, "loop i: the value of n2[...] is written by ptx.ld.shared.u32 at run time", 0},
		{"a mapped address", `    n2[0] = 3
    T.ptx.mapa.shared__cluster.u32(n2[0], T.cuda.cvta_generic_to_shared(T.address_of(W[0])), T.uint32(1))
`, "loop i: the value of n2[...] is written by ptx.mapa.shared__cluster.u32 at run time", 0},
		// a read-write operand under a guard the machine knows false keeps
		// its value; under a guard it does not know, it is not known
		{"a false guard", `    n2[0] = 3
    r = T.local_scalar("uint128")
    T.ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128(n2[0], r, pred=T.uint32(0))
`, "", 3},
		{"an unknown guard", `    n2[0] = 3
    r = T.local_scalar("uint128")
    T.ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128(n2[0], r, pred=T.uint32(n))
`, "loop i: the value of n2[...] is written by ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128 at run time", 0},
		// no cluster is ever cancelled: the test answers 0, and the
		// extraction it guards leaves the seed
		{"query_cancel", `    r = T.local_scalar("uint128")
    c = T.local_scalar("uint32")
    T.ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128(c, r)
    n2[0] = 3
    T.ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128(n2[0], r, pred=c)
`, "", 3},
		// a hand-printed instruction (no table form) given the
		// register's address may write it
		{"an address handed to tcgen05.ld", `    n2[0] = 3
    T.ptx.tcgen05.ld("32x32b", 1, 0, 0, 0, T.address_of(n2[0]))
`, "loop i: the value of n2[...] may be written by ptx.tcgen05.ld at run time (its address is an operand)", 0},
		{"query_cancel's answer", `    r = T.local_scalar("uint128")
    T.ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128(n2[0], r)
    n2[0] = n2[0] + 2
`, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `    W = T.alloc_buffer((4,), "uint32", scope="shared")
    n2 = T.alloc_buffer((1,), "uint32", scope="local")
` + tc.body + loop
			_, ms := analyze(t, kernel("1", body))
			f := ms[0].Total
			switch {
			case f.Unknown != tc.why:
				t.Errorf("unknown %q, want %q", f.Unknown, tc.why)
			case tc.why == "" && f.GlobalStore != memory.Global{Requests: tc.reqs, Sectors: 4 * tc.reqs, IdealSectors: 4 * tc.reqs}:
				t.Errorf("global stores %+v, want %d requests", f.GlobalStore, tc.reqs)
			}
		})
	}
}

// TestCLCNeverCancels: the cluster launch control scheduler's roles each
// run their own tile and stop (asmwrites.go): the worker's loop and the
// scheduler warp's take one handshake each (one 16-byte response load by
// one elected thread), so the figures are known; before the model they
// were "not known statically" after the query.
func TestCLCNeverCancels(t *testing.T) {
	src := `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.lang.tile_scheduler import ClusterLaunchControlScheduler


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "float32")
    T.device_entry()
    cbx = T.cta_id_in_cluster([2])
    bx = T.cta_id([4])
    warp = T.warp_id([2])
    lane = T.lane_id([32])
    pool = T.SMEMPool()
    clc = ClusterLaunchControlScheduler(pool, num_m_tiles=2, num_n_tiles=1, l2_group_size=1, cta_group=2, finish_arrivals=2)
    pool.commit()
    if warp == 0:
        clc.run_scheduler(cbx)
    else:
        w = clc.worker("w")
        w.init(bx // 2)
        if T.cuda.elect_sync():
            while w.valid():
                A[bx, lane] = 1.0
                w.consume()
                w.advance_coords()
                w.mark_done_if_drained()
# tilels: reference=0.27
`
	res, ms := analyze(t, src)
	for _, d := range res.Diags {
		if strings.Contains(d.Message, "not modelled") {
			t.Errorf("diagnostic: %s", d.Message)
		}
	}
	f := ms[0].Total
	if f.Unknown != "" {
		t.Fatalf("unknown: %s", f.Unknown)
	}
	// 4 CTAs: the scheduler warp's and the worker's elected thread each
	// load the response once; the worker stores one element once
	want := memory.Shared{Instructions: 8, Wavefronts: 8, Ideal: 8}
	if f.SharedLoad != want || f.GlobalStore.Requests != 4 {
		t.Errorf("shared loads %+v, global stores %+v; want %+v and 4 requests", f.SharedLoad, f.GlobalStore, want)
	}
}
