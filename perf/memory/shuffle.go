package memory

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/ir"
)

// Warp intrinsics whose result the machine knows from the lanes of its
// operands: the shuffles (T.cuda.__shfl_sync and its _up, _down and _xor
// forms; TVM's tvm_warp_shuffle[_up|_down|_xor]), T.cuda.any_sync and
// T.cuda.mov_sreg of %laneid, %ctaid, %clusterid, %cluster_ctaid,
// %cluster_ctarank and %cluster_nctarank, and __activemask() (T.tvm_warp_activemask,
// the mask of TVM's warp reductions). Before, their results were runtime
// values, and so was every address, branch or loop bound computed from
// them: the canonical warp index of CUTLASS-style kernels
// (`__shfl_sync(0xffffffff, tid // 32, 0)`), a value broadcast from lane
// 0, a lane id read from %laneid. Measured on the 128-file corpus: 469
// of its 5,365 tile calls had no figures for that reason alone.
//
// The lane a thread reads follows PTX's shfl.sync (the CUDA functions
// pass c = ((32 - width) << 8) | 0x1f, 0 for up): with segmask =
// 32 - width, minLane = lane & segmask and maxLane = minLane | (31 &^
// segmask) (minLane for up),
//
//	idx:  j = minLane | (b & 31 &^ segmask), valid when j <= maxLane
//	up:   j = lane - b, valid when j >= maxLane
//	down: j = lane + b, valid when j <= maxLane
//	bfly: j = lane ^ b, valid when j <= maxLane
//
// and a thread whose j is not valid gets its own value. A source lane
// that does not take part (not active here, or not in the mask operand)
// gives an undefined value: the result is then not known.
//
// The machine's side effects are those of any other intrinsic
// (evaluate): the operands are evaluated once, where evaluate evaluates
// them, into argCapture.

// shuffleMode of a warp shuffle op (0: not one).
func shuffleMode(op string) byte {
	switch op {
	case "cuda.__shfl_sync", "cuda._shfl_sync", "tvm_warp_shuffle":
		return 'i'
	case "cuda.__shfl_up_sync", "cuda._shfl_up_sync", "tvm_warp_shuffle_up":
		return 'u'
	case "cuda.__shfl_down_sync", "cuda._shfl_down_sync", "tvm_warp_shuffle_down":
		return 'd'
	case "cuda.__shfl_xor_sync", "cuda._shfl_xor_sync", ir.OpWarpShuffleXor:
		return 'x'
	}
	return 0
}

// isAnySync reports whether op is __any_sync(mask, predicate).
func isAnySync(op string) bool { return op == "cuda.any_sync" || op == "ptx.any_sync" }

// isLaneID reports whether c reads %laneid.
func isLaneID(c *ir.Call) bool { return sregOf(c) == "laneid" }

// sregOf is the special register c reads ("" when c is no
// T.cuda.mov_sreg of a register the machine knows).
func sregOf(c *ir.Call) string {
	if c.Op != "cuda.mov_sreg" || len(c.Args) != 2 {
		return ""
	}
	s, ok := c.Args[1].(*ir.StringImm)
	if !ok {
		return ""
	}
	switch r := strings.TrimPrefix(s.Value, "%"); r {
	case "laneid", "cluster_ctarank", "cluster_nctarank",
		"ctaid.x", "ctaid.y", "ctaid.z", "clusterid.x", "clusterid.y", "clusterid.z",
		"cluster_ctaid.x", "cluster_ctaid.y", "cluster_ctaid.z":
		return r
	}
	return ""
}

// sreg is the value of special register r in the CTA being executed
// (uniform over its threads; laneid is not asked here).
func (m *machine) sreg(r string) int64 {
	var c [3]int64
	for i := range c {
		c[i] = max(1, m.launch.Cluster[i])
	}
	axis := 0
	if n := len(r); n > 2 && r[n-2] == '.' {
		axis = int(r[n-1] - 'x')
	}
	switch {
	case r == "cluster_ctarank":
		return m.cta[0]%c[0] + m.cta[1]%c[1]*c[0] + m.cta[2]%c[2]*c[0]*c[1]
	case r == "cluster_nctarank":
		return c[0] * c[1] * c[2]
	case strings.HasPrefix(r, "ctaid."):
		return m.cta[axis]
	case strings.HasPrefix(r, "clusterid."):
		return m.cta[axis] / c[axis]
	}
	return m.cta[axis] % c[axis] // cluster_ctaid
}

// sregShift is the shift of special register r in a proof (warps.go):
// the same in every warp and iteration; across CTAs, as the scope ids
// of the same meaning.
func (p *shiftProof) sregShift(r string) int64 {
	if p.cta == 0 || r == "laneid" || r == "cluster_nctarank" {
		return 0
	}
	i := int(r[len(r)-1] - 'x')
	switch {
	case r == "cluster_ctarank":
		if p.l.Cluster == [3]int64{1, 1, 1} || p.l.Cluster == [3]int64{} {
			return 0
		}
		return noShift
	case strings.HasPrefix(r, "ctaid."):
		return p.ctaAxis(ir.CTAID, i)
	case strings.HasPrefix(r, "clusterid."):
		return p.ctaAxis(ir.ClusterID, i)
	}
	return p.ctaAxis(ir.CTAIDInCluster, i)
}

// maxCaptured is the most operands a captured intrinsic has
// (tvm_warp_shuffle: mask, value, lane, width, warp_size).
const maxCaptured = 5

// argCapture holds the lanes of a captured intrinsic's operands as
// evaluate evaluated them.
type argCapture struct {
	call *ir.Call
	v    [maxCaptured]lanes
	why  [maxCaptured]string
	done uint8 // operands evaluated
}

// warpCall returns the result of a warp intrinsic (ok false: c is not
// one). It evaluates c as evaluate does any intrinsic.
func (m *machine) warpCall(c *ir.Call) (v lanes, why string, ok bool) {
	mode := shuffleMode(c.Op)
	switch {
	case mode != 0 && len(c.Args) >= 4 && len(c.Args) <= maxCaptured:
	case isAnySync(c.Op) && len(c.Args) == 2:
	case sregOf(c) != "":
		m.evaluate(c)
		r := sregOf(c)
		for i := range 32 {
			if r == "laneid" {
				v[i] = m.tid[i] % 32
			} else {
				v[i] = m.sreg(r)
			}
		}
		return v, "", true
	case isThreadRank(c):
		// cooperative_groups' thread_rank(): the linear thread index
		m.evaluate(c)
		for i := range 32 {
			v[i] = m.tid[i]
		}
		return v, "", true
	case isActiveMask(c):
		// __activemask(): the lanes executing it
		m.evaluate(c)
		for i := range 32 {
			if m.mask&(1<<i) != 0 {
				v[i] = int64(m.mask)
			}
		}
		return v, "", true
	default:
		return lanes{}, "", false
	}
	cp := m.newCapture(c)
	prev := m.argCap
	m.argCap = cp
	m.evaluate(c)
	m.argCap = prev
	defer m.dropCapture()
	runtime := m.reason(&c.Op, "the result of ", c.Op, " is a runtime value") // (keyed by the node: a string key was allocated per call)
	if cp.done == 0 && m.opInfo(c).ignored {
		// evaluate does not evaluate the operands of TVM's tvm_warp_*
		// (ignored: their loads were never counted); they are evaluated
		// here when that counts nothing
		for _, a := range c.Args {
			if !countsNothing(a) {
				return lanes{}, runtime, true
			}
		}
		for i, a := range c.Args {
			cp.why[i] = m.evalTo(&cp.v[i], a)
			cp.done |= 1 << i
		}
	}
	n := 2
	if mode != 0 {
		n = 4
	}
	for i := range n {
		if cp.done&(1<<i) == 0 {
			return lanes{}, runtime, true // not evaluated (an early return of evaluate)
		}
		if cp.why[i] != "" {
			// what made the operand unknown, said of the result: "a
			// floating-point value" alone does not say where it went
			return lanes{}, m.reason(c, "the result of "+c.Op+" is a runtime value (", cp.why[i], ")"), true
		}
	}
	// the lanes taking part: active and in the mask operand
	in := m.mask
	if !uniform(&cp.v[0]) {
		return lanes{}, c.Op + ": a mask that differs between lanes", true
	}
	for i := range 32 {
		if in&(1<<i) != 0 {
			in &= uint32(cp.v[0][i])
			break
		}
	}
	if mode == 0 {
		// __any_sync: whether the predicate holds in a lane taking part
		any := int64(0)
		for i := range 32 {
			if in&(1<<i) != 0 && cp.v[1][i] != 0 {
				any = 1
			}
		}
		for i := range 32 {
			if m.mask&(1<<i) != 0 {
				v[i] = any
			}
		}
		return v, "", true
	}
	if !uniform(&cp.v[3]) {
		return lanes{}, c.Op + ": a width that differs between lanes", true
	}
	var width int64
	for i := range 32 {
		if m.mask&(1<<i) != 0 {
			width = cp.v[3][i]
			break
		}
	}
	if width < 1 || width > 32 || width&(width-1) != 0 {
		return lanes{}, fmt.Sprintf("%s: a width of %d is not a power of two up to 32", c.Op, width), true
	}
	seg := 32 - width
	for i := range 32 {
		if m.mask&(1<<i) == 0 {
			continue
		}
		lane, b := int64(i), cp.v[2][i]
		minLane := lane & seg
		maxLane := minLane | (31 &^ seg)
		var j int64
		var valid bool
		switch mode {
		case 'i':
			j = minLane | (b & 31 &^ seg)
			valid = j <= maxLane
		case 'u':
			j = lane - b
			valid = j >= minLane
		case 'd':
			j = lane + b
			valid = j <= maxLane
		case 'x':
			j = lane ^ b
			valid = j <= maxLane
		}
		if !valid {
			j = lane
		}
		if j < 0 || j > 31 || in&(1<<j) == 0 {
			return lanes{}, fmt.Sprintf("%s: lane %d reads lane %d, which does not take part", c.Op, i, j), true
		}
		v[i] = cp.v[1][j]
	}
	return v, "", true
}

// newCapture returns an empty capture for c, the newest on m's stack
// (dropCapture pops it).
func (m *machine) newCapture(c *ir.Call) *argCapture {
	n := len(m.caps)
	if n < cap(m.caps) && m.caps[:n+1][n] != nil {
		m.caps = m.caps[:n+1]
	} else {
		m.caps = append(m.caps, new(argCapture))
	}
	cp := m.caps[n]
	*cp = argCapture{call: c}
	return cp
}

// dropCapture pops the newest capture.
func (m *machine) dropCapture() {
	n := len(m.caps) - 1
	m.caps[n].call = nil
	m.caps = m.caps[:n]
}

// capture keeps operand i of c as evaluate evaluates it, when c is the
// call being captured; it reports whether it did (and evaluated it).
func (m *machine) capture(c *ir.Call, i int, a ir.Expr) bool {
	cp := m.argCap
	if cp == nil || cp.call != c || i >= maxCaptured {
		return false
	}
	cp.why[i] = m.evalTo(&cp.v[i], a)
	cp.done |= 1 << i
	return true
}

// countsNothing reports whether evaluating e emits no event: no load of
// shared or global memory, no intrinsic other than these warp ones.
func countsNothing(e ir.Expr) bool {
	ok := true
	walkExpr(e, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Load:
			if scopeOf(x.Buf) != "" {
				ok = false
			}
		case *ir.AddressOf, *ir.BufferData, *ir.Region:
			ok = false
		case *ir.Call:
			if shuffleMode(x.Op) == 0 && !isAnySync(x.Op) && sregOf(x) == "" && !isActiveMask(x) && !isThreadRank(x) {
				ok = false
			}
		}
	})
	return ok
}

// isThreadRank reports whether c is T.cuda.thread_rank(), the linear
// thread index (FlashMLA's warp id, `thread_rank() // 32`, shuffled from
// lane 0): the machine's tid, the proofs' "tx" axis.
func isThreadRank(c *ir.Call) bool { return c.Op == "cuda.thread_rank" && len(c.Args) == 0 }

// isActiveMask reports whether c is __activemask().
func isActiveMask(c *ir.Call) bool {
	return len(c.Args) == 0 && (c.Op == ir.OpWarpActivemask || c.Op == "cuda.__activemask" || c.Op == "cuda._activemask")
}
