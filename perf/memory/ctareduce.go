package memory

import (
	"fmt"

	"github.com/tilels/tilels/ir"
)

// T.cuda.cta_sum(value, num_warps, scratch) (and cta_max, cta_min) reduces
// a value over the CTA through shared scratch. Its shared traffic is that
// of the helper codegen prints (codegen/cuda printCtaReduceOf), which
// every thread runs:
//
//	val = warp_reduce(val)                       shuffles only
//	if (lane_id == 0) scratch[warp_id] = val;    one store per warp, lane 0
//	__syncthreads();
//	if (warp_id == 0) {
//	  partial = lane_id < num_warps ? scratch[lane_id] : identity;
//	  partial = warp_reduce(partial);
//	  if (lane_id == 0) scratch[0] = partial;
//	}
//	__syncthreads();
//	return scratch[0];                           every lane, one word
//
// with lane_id and warp_id from the linear thread index. Before, the
// machine called it a memory access it does not model, and the kernel
// (rmsnorm.py's, whose every case reduces a sum of squares so) had no
// figures.

// isCTAReduce reports whether op is a CTA reduction through scratch.
func isCTAReduce(op string) bool {
	return op == "cuda.cta_sum" || op == "cuda.cta_max" || op == "cuda.cta_min"
}

// ctaReduce executes a CTA reduction's accesses; its result is runtime
// data.
func (m *machine) ctaReduce(c *ir.Call) (lanes, string) {
	runtime := m.reason(&c.Op, "the result of ", c.Op, " is a runtime value")
	nw, ok := ir.ConstInt(c.Args[1])
	if !ok || nw < 1 || nw > 32 {
		m.unknown(c.Op + ": a number of warps that is not a constant from 1 to 32")
		return lanes{}, runtime
	}
	m.localUses(c) // the registers it reads (regs.go)
	m.eval(c.Args[0])
	var p ptr
	if why := m.pointerTo(&p, c.Args[2]); why != "" {
		m.unknown(c.Op + ": " + why)
		return lanes{}, runtime
	}
	if scopeOf(p.buf) != "shared" {
		m.unknown(fmt.Sprintf("%s: scratch in %q memory is not modelled", c.Op, p.buf.Scope))
		return lanes{}, runtime
	}
	w := elemBytes(typeOf(c.Args[0]))
	var lane0, first uint32 // lane 0 of the warp; lanes below num_warps
	var warp int64 = -1
	for i := range 32 {
		if m.mask&(1<<i) == 0 {
			continue
		}
		t := m.tid[i]
		if t%32 == 0 {
			lane0 |= 1 << i
		}
		if t%32 < nw {
			first |= 1 << i
		}
		warp = t / 32
	}
	access := func(k kind, mask uint32, at func(i int) int64) {
		e := event{k: k, mask: mask, width: w, buf: p.buf, view: p.view, node: c, align: gcd(p.align, w)}
		for i := range 32 {
			if mask&(1<<i) != 0 {
				e.addr[i] = p.addr[i] + at(i)
			}
		}
		m.emit(&e)
	}
	barrier := func() {
		m.cpRun = false
		m.forgetBarrier()
	}
	access(sharedStore, lane0, func(i int) int64 { return m.tid[i] / 32 * w })
	barrier()
	if warp == 0 {
		access(sharedLoad, first, func(i int) int64 { return m.tid[i] % 32 * w })
		access(sharedStore, lane0, func(int) int64 { return 0 })
	}
	barrier()
	access(sharedLoad, m.mask, func(int) int64 { return 0 })
	return lanes{}, runtime
}
