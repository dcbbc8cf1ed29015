package memory

import (
	"strings"

	"github.com/tilels/tilels/ir"
)

// Hand-written TMA. Kernels that issue their own bulk tensor copies
// (flash_attention_backward.py's loads, stores and dQ reductions) write
// the PTX chain with T.ptx["cp.async.bulk.tensor.4d.shared::cluster.
// global..."](...) or T.ptx["cp.reduce.async.bulk.tensor.4d.global.
// shared::cta.add.tile.bulk_group"](...), passing T.address_of(m) of a
// tensor map m that the kernel's host code encodes (ir.Func.HostMaps,
// recorded by the evaluator). Each is one TMA instruction per issuing
// thread, moving the map's box: the counts of the tile operations' TMA
// copies (exec.go). A copy through a map the analysis cannot size (one
// encoded with a runtime operand, or by Python host code outside the
// kernel) makes the figures unknown: its size is the host's choice.
// Bulk copies without a tensor map (cp.async.bulk.shared::cta.global)
// stay outside the TMA figures, as the tile operations' are.

// rawTMA reports whether op is a hand-written bulk tensor copy.
func rawTMA(op string) bool {
	return strings.HasPrefix(op, "ptx.cp.async.bulk.tensor.") || strings.HasPrefix(op, "ptx.cp.reduce.async.bulk.tensor.")
}

// tmaCopy reports whether op is a bulk tensor copy, a tile operation's
// or a hand-written one: the machine reads none of its operands but the
// tensor map (a constant of the kernel), so neither its shared address
// nor its coordinates change what it counts.
func tmaCopy(op string) bool {
	switch op {
	case ir.OpCpAsyncBulkTensorG2C, ir.OpCpAsyncBulkTensorG2CGather4, ir.OpCpAsyncBulkTensorS2G, ir.OpCpAsyncBulkTensorS2GReduce:
		return true
	}
	return rawTMA(op)
}

// rawTMACopy executes hand-written bulk tensor copy c.
func (m *machine) rawTMACopy(c *ir.Call) {
	// what the intrinsic path did before these were counted: the end of
	// a cp.async run and of the available loads (cse.go)
	m.cpRun = false
	m.forgetBarrier()
	var h *ir.Var
	for _, a := range c.Args {
		if x, ok := a.(*ir.Call); ok && x.Op == "address_of" && len(x.Args) == 1 {
			if v, ok := x.Args[0].(*ir.Var); ok {
				h = v
				break
			}
		}
	}
	if h == nil {
		m.unknown(c.Op + " without a tensor map")
		return
	}
	tm := m.fn.HostMaps[h]
	if tm == nil {
		m.unknown(c.Op + ": the box of tensor map " + h.Name + " is not known (the kernel does not encode it with static operands)")
		return
	}
	if strings.Contains(c.Op, ".im2col") {
		m.unknown(c.Op + ": an im2col copy's box is not modelled")
		return
	}
	n := elemBytes(tm.DType)
	for _, b := range tm.Box {
		n *= b
	}
	if strings.Contains(c.Op, ".tile::gather4") && len(tm.Box) > 0 {
		// four rows of the box's width (the tile operations' gather4)
		n = n / max(tm.Box[len(tm.Box)-1], 1) * 4
	}
	m.emit(&event{k: tma, mask: m.mask, node: c, bytes: n})
}
