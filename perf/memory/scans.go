package memory

import "github.com/tilels/tilels/ir"

// The machine's scans of the kernel (dead.go's unreadShared, dataregs.go's
// dataRegisters, readonly.go's readOnlyGlobals) each walk the whole
// lowered code. They are made at their first use: a kernel whose figures
// cannot be known (a runtime grid: flash_attention4.py's 32 cases), or
// whose every figure is unknown after a few statements (mega_moe.py's
// cases), walked them for nothing, half a millisecond each on those.

const (
	scannedUnread = 1 << iota
	scannedDataRegs
	scannedReadOnly
	scannedForVars
	scannedVarReads
	scannedConstLets
	scannedOverwritten
)

// scanScratch holds the tables of a scan of fn (unreadShared,
// readOnlyGlobals), kept by the machine for the next scan: made afresh,
// their growth was a tenth of the analysis's allocation.
type scanScratch struct {
	a, b ptrMap[ir.Buffer, bool]
	data ptrMap[ir.Var, *ir.Buffer]
}

func (sc *scanScratch) clear() {
	sc.a.clear()
	sc.b.clear()
	sc.data.clear()
}

// overwrittenSet is the loads whose registers are written again before
// anything reads them (overwritten.go).
func (m *machine) overwrittenSet() map[*ir.Call]bool {
	if m.scanned&scannedOverwritten == 0 {
		m.scanned |= scannedOverwritten
		m.overwritten = overwrittenLoads(m.fn)
	}
	return m.overwritten
}

// unreadSet is the shared allocations nothing reads.
func (m *machine) unreadSet() map[*ir.Buffer]bool {
	if m.scanned&scannedUnread == 0 {
		m.scanned |= scannedUnread
		m.unread, m.unreadChained = unreadShared(m.fn, &m.scratch)
	}
	return m.unread
}

// dataRegSet is the register allocations only data reads (none when the
// rule is off).
func (m *machine) dataRegSet() *ptrMap[ir.Buffer, bool] {
	if m.scanned&scannedDataRegs == 0 {
		m.scanned |= scannedDataRegs
		if dataRegs {
			var regs map[*ir.Buffer]bool
			regs, m.opaqueV, m.controlVars = takeScan(m.fn)
			for b := range regs {
				m.dataRegs.set(b, true)
			}
		}
	}
	return &m.dataRegs
}

// dataVar reports whether scalar v is data: read nowhere a value
// matters (dataregs.go's scan, as for registers).
func (m *machine) dataVar(v *ir.Var) bool {
	m.dataRegSet()
	return m.controlVars != nil && !m.controlVars.get(v)
}

// opaque reports whether condition e is never known through an opaque
// let (opaque.go): what it reads may then be data (dataregs.go), and the
// machine gives it the reason it gives a condition never known.
func (m *machine) opaque(e ir.Expr) bool {
	m.dataRegSet()
	return m.opaqueV != nil && neverKnownWith(e, m.opaqueV)
}

// readOnlySet is the global buffers nothing writes.
func (m *machine) readOnlySet() map[*ir.Buffer]bool {
	if m.scanned&scannedReadOnly == 0 {
		m.scanned |= scannedReadOnly
		m.readOnly = readOnlyGlobals(m.fn, &m.scratch)
	}
	return m.readOnly
}
