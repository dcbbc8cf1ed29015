package lower

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/perf/memory"
)

// Memory returns the predicted memory figures of one launch of k
// (perf/memory), computed on first use and kept with the record: the
// analysis is never on the keystroke path of a kernel nobody asks about,
// and a record the session keeps across edits keeps its figures.
func (k *Kernel) Memory() *memory.Kernel {
	if k == nil || k.Target == "trn" {
		return nil // Trainium kernels have no CUDA memory instructions
	}
	compute := func() *memory.Kernel {
		if k.Lowered == nil {
			m := &memory.Kernel{Calls: map[*ir.TileCall]*memory.Figures{}, Body: &memory.Figures{Source: "model", Unknown: "the kernel was not lowered"}}
			m.Total = m.Body
			return m
		}
		return memory.Cached(k.Lowered, k.Launch)
	}
	if k.mem == nil {
		return compute() // a record built outside Analyze
	}
	k.mem.once.Do(func() { k.mem.k = compute() })
	if p := k.mem.panicked; p != nil {
		panic(p) // the analysis's, on the goroutine of figuresAside
	}
	return k.mem.k
}

// PublishWork is the bound the language server puts on each kernel's
// memory analysis before a publish (Options.PerfWork,
// Snapshot.PerfDiagsWithin): about 10 ms on the 2-core development
// machine. The kernels over it are published without their performance
// warnings, which a second publish brings (nvfp4_gemm.py's persistent
// kernels: up to 570k statements, 190 ms; flashkda's largest: well under).
const PublishWork = 30_000

// kernelPerfWithin is kernelPerf when k's warnings are known or its
// memory figures take at most work statements to compute (work == 0: no
// bound; work < 0: only when the content cache has them); ok is false
// otherwise, and nothing is kept but that fact, so
// that the next bounded call gives up at once and kernelPerf computes
// the figures whole.
func kernelPerfWithin(k *Kernel, work int64) ([]diag.Diagnostic, bool) {
	if work == 0 || k == nil || k.Lowered == nil || k.mem == nil || k.Target == "trn" || perfKnown(k) {
		return kernelPerf(k), true
	}
	if k.mem.overWork.Load() {
		return nil, false
	}
	mk, ok := memory.CachedWithin(k.Lowered, k.Launch, work)
	if !ok {
		k.mem.overWork.Store(true)
		return nil, false
	}
	k.mem.once.Do(func() { k.mem.k = mk })
	return kernelPerf(k), true
}

// memCell holds a record's memory figures, computed once; copies of the
// record share it.
type memCell struct {
	once sync.Once
	k    *memory.Kernel
	// perfOnce computes perf, the record's performance warnings (perf.go).
	perfOnce sync.Once
	perf     []diag.Diagnostic
	perfDone atomic.Bool
	// overWork is set when a bounded analysis (kernelPerfWithin) gave up.
	overWork atomic.Bool
	// panicked and perfPanicked hold a panic of the figures' or the
	// warnings' computation on figuresAside's goroutine (set inside once
	// and perfOnce), raised again by Memory and kernelPerf.
	panicked, perfPanicked any
}

// CallMemory returns the figures of call c of k (nil when c has none).
func (k *Kernel) CallMemory(c *ir.TileCall) *memory.Figures {
	if m := k.Memory(); m != nil {
		return m.Calls[c]
	}
	return nil
}

// ExplainMemory renders every kernel's memory figures as text: the
// kernel total, the kernel body outside tile calls, then each call (the
// golden section out/memory).
func ExplainMemory(r *Result, opts Options) string {
	var b strings.Builder
	for _, k := range r.Kernels {
		m := k.Memory()
		if m == nil {
			continue // a Trainium kernel
		}
		fmt.Fprintf(&b, "kernel %s", k.Name)
		if k.CaseLabel != "" {
			fmt.Fprintf(&b, " case %d/%d", k.CaseIndex, k.CaseCount)
		}
		b.WriteByte('\n')
		writeFigures(&b, r, m, "total", m.Total)
		writeFigures(&b, r, m, "kernel body", m.Body)
		for _, d := range k.Calls {
			line, col := r.File.Position(d.Call.Span.Start)
			writeFigures(&b, r, m, fmt.Sprintf("%d:%d Tx.%s.%s", line, col, d.Call.Scope, d.Call.Op), m.Calls[d.Call])
		}
	}
	ds, fixes := PerfReport(r, opts)
	for _, d := range ds {
		line, col := r.File.Position(d.Span.Start)
		fmt.Fprintf(&b, "%d:%d: %s[%s]: %s\n", line, col, d.Severity, d.Code, d.Message)
		for _, f := range fixes {
			if f.Diag == d.Code && f.For == d.Span {
				line, col := r.File.Position(f.Span.Start)
				if f.Span.End == f.Span.Start {
					fmt.Fprintf(&b, "    fix: %s\n      insert at %d:%d: %s\n", f.Title, line, col, f.NewText)
					continue
				}
				eline, ecol := r.File.Position(f.Span.End)
				fmt.Fprintf(&b, "    fix: %s\n      replace %d:%d-%d:%d (%s) with: %s\n", f.Title, line, col, eline, ecol, r.File.Text(f.Span), f.NewText)
			}
		}
	}
	return b.String()
}

func writeFigures(b *strings.Builder, r *Result, m *memory.Kernel, title string, f *memory.Figures) {
	if f == nil {
		return
	}
	fmt.Fprintf(b, "  %s", title)
	switch {
	case f.Scaled && f.Executed > 1:
		fmt.Fprintf(b, " (%d CTAs counted from %d executed, an estimate", f.CTAs, f.Executed)
	case f.Scaled:
		fmt.Fprintf(b, " (CTA 0 x %d, an estimate", f.CTAs)
	}
	if f.Scaled {
		if f.ScaledWhy != "" {
			b.WriteString(": " + f.ScaledWhy)
		}
		b.WriteByte(')')
	}
	b.WriteByte('\n')
	if f.Unknown != "" {
		fmt.Fprintf(b, "    unknown: %s\n", f.Unknown)
		return
	}
	for _, s := range MemoryLines(r, m, f) {
		b.WriteString("    " + s + "\n")
	}
}

// MemoryLines are the figures of f as text lines, zero kinds left out:
// each shared kind with its wavefronts against the ideal, each global
// kind with its sectors against the ideal, the asynchronous copies, and
// the worst shared and global instructions with the colliding threads,
// at their positions in r (none when r is nil) that m, the kernel's
// figures f belong to, gives (memory.Kernel.Where).
func MemoryLines(r *Result, m *memory.Kernel, f *memory.Figures) []string {
	var out []string
	shared := func(name string, s memory.Shared, withInstr bool) {
		if s.Instructions == 0 && s.Wavefronts == 0 {
			return
		}
		line := name + ": "
		if withInstr {
			line += plural(s.Instructions, "instruction") + ", "
		}
		line += fmt.Sprintf("%s (ideal %d", plural(s.Wavefronts, "wavefront"), s.Ideal)
		if s.Conflicts > 0 {
			line += fmt.Sprintf(", %s", plural(s.Conflicts, "bank conflict"))
		}
		out = append(out, line+")")
	}
	shared("shared load", f.SharedLoad, true)
	shared("shared store", f.SharedStore, true)
	shared("ldmatrix", f.Ldmatrix, true)
	shared("stmatrix", f.Stmatrix, true)
	global := func(name string, g memory.Global) {
		if g.Requests == 0 {
			return
		}
		out = append(out, fmt.Sprintf("%s: %s, %s (ideal %d)", name, plural(g.Requests, "request"), plural(g.Sectors, "sector"), g.IdealSectors))
	}
	global("global load", f.GlobalLoad)
	global("global store", f.GlobalStore)
	if a := f.CpAsync; a.Instructions > 0 {
		out = append(out, fmt.Sprintf("cp.async: %s, %d bytes", plural(a.Instructions, "instruction"), a.Bytes))
	}
	if a := f.TMA; a.Instructions > 0 {
		out = append(out, fmt.Sprintf("tma: %s, %d bytes", plural(a.Instructions, "instruction"), a.Bytes))
	}
	if w := f.Worst; w != nil {
		out = append(out, "worst shared: "+instrText(r, m, w, "wavefront"))
		bs := BanksText(w.Banks)
		if len(bs) > maxBankLines {
			bs = append(bs[:maxBankLines:maxBankLines], fmt.Sprintf("... %d more", len(bs)-maxBankLines))
		}
		for _, t := range bs {
			out = append(out, "  "+t)
		}
	}
	if w := f.WorstGlobal; w != nil {
		out = append(out, "worst global: "+instrText(r, m, w, "sector"))
	}
	return out
}

// maxBankLines bounds the bank lines of a worst instruction.
const maxBankLines = 4

func instrText(r *Result, m *memory.Kernel, w *memory.Instruction, unit string) string {
	at := ""
	if span, _ := m.Where(w); r != nil && span.IsValid() {
		line, col := r.File.Position(span.Start)
		at = fmt.Sprintf(" at %d:%d", line, col)
	}
	buf := w.Buf
	if v := m.View(w); v != nil {
		buf = v.Name + " in " + w.Buf // a pool's view: the name the source uses
	}
	return fmt.Sprintf("%s of %s (%d bytes/thread)%s, CTA %d warp %d: %s (ideal %d)", w.Kind, buf, w.Width, at, w.CTA, w.Warp, plural(w.Wavefronts, unit), w.Ideal)
}

// BanksText describes the banks of a worst instruction, one line per run
// of consecutive banks that the same threads load with the same number of
// words: "bank 0: threads 0, 8, 16, 24 (4 words)", "banks 0-3: threads
// 0..7 (8 words)"; runs of consecutive threads are written a..b.
func BanksText(us []memory.BankUse) []string {
	var out []string
	for i := 0; i < len(us); {
		j := i
		for j+1 < len(us) && us[j+1].Bank == us[j].Bank+1 && us[j+1].Words == us[i].Words && slices.Equal(us[j+1].Threads, us[i].Threads) {
			j++
		}
		banks := fmt.Sprintf("bank %d", us[i].Bank)
		if j > i {
			banks = fmt.Sprintf("banks %d-%d", us[i].Bank, us[j].Bank)
		}
		out = append(out, fmt.Sprintf("%s: threads %s (%d words)", banks, threadList(us[i].Threads), us[i].Words))
		i = j + 1
	}
	return out
}

func threadList(ts []int64) string {
	b := make([]byte, 0, 8*len(ts))
	for i := 0; i < len(ts); {
		j := i
		for j+1 < len(ts) && ts[j+1] == ts[j]+1 {
			j++
		}
		if j-i >= 2 {
			b = appendSep(b)
			b = strconv.AppendInt(b, ts[i], 10)
			b = append(b, ".."...)
			b = strconv.AppendInt(b, ts[j], 10)
		} else {
			for k := i; k <= j; k++ {
				b = appendSep(b)
				b = strconv.AppendInt(b, ts[k], 10)
			}
		}
		i = j + 1
	}
	return string(b)
}

// appendSep appends threadList's separator unless b is empty.
func appendSep(b []byte) []byte {
	if len(b) > 0 {
		b = append(b, ", "...)
	}
	return b
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// MemoryHover is the markdown of call c's memory figures for a hover: the
// figures against their ideal, the worst shared instruction with the
// threads that collide on each bank, and where the figures come from.
// Empty when c has none.
func MemoryHover(k *Kernel, c *ir.TileCall) string {
	f := k.CallMemory(c)
	if f == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("**Memory** (one launch")
	if f.CTAs > 0 {
		fmt.Fprintf(&b, ", %s", plural(f.CTAs, "CTA"))
		switch {
		case f.Scaled && f.Executed > 1:
			fmt.Fprintf(&b, ": %d executed, the others counted by how many times they run its loop", f.Executed)
		case f.Scaled:
			b.WriteString(": CTA 0 executed, counts multiplied")
		}
	}
	fmt.Fprintf(&b, "; source: %s", f.Source)
	if f.Source == "model" {
		b.WriteString(", nvcc's merging of neighbouring accesses modelled")
	}
	b.WriteString(")\n\n")
	if f.Scaled {
		b.WriteString("_an estimate")
		if f.ScaledWhy != "" {
			b.WriteString(": " + f.ScaledWhy)
		}
		b.WriteString("_\n\n")
	}
	if f.Unknown != "" {
		fmt.Fprintf(&b, "_unknown: %s_\n", f.Unknown)
		return b.String()
	}
	lines := MemoryLines(nil, nil, f)
	if len(lines) == 0 {
		if f.Elided != "" {
			fmt.Fprintf(&b, "_no shared or global memory traffic: %s_\n", f.Elided)
		} else {
			b.WriteString("_no shared or global memory traffic_\n")
		}
		return b.String()
	}
	for _, l := range lines {
		indent := ""
		if strings.HasPrefix(l, "  ") {
			indent, l = "  ", strings.TrimSpace(l)
		}
		fmt.Fprintf(&b, "%s- %s\n", indent, l)
	}
	if f.Elided != "" {
		fmt.Fprintf(&b, "- not counted: %s\n", f.Elided)
	}
	return b.String()
}
