package lower

// Performance warnings (issue 17, item 2): a tile call whose shared-memory
// accesses take at least twice their ideal wavefronts gets
// perf/bank-conflicts, one whose global accesses touch more 32-byte
// sectors than their bytes need gets perf/uncoalesced (perf/memory
// computes the figures). Each names the worst instruction and what to
// change. For bank conflicts on a shared allocation without a layout, the
// quick fixes give it a swizzled layout (T.ComposeLayout) or a padded
// row stride (T.TileLayout); a fix is offered only when the changed
// program, analysed again whole, no longer conflicts in that call and is
// no worse anywhere else in the kernel (verifyFix). The warnings are cheap
// once the figures exist (Kernel.Memory caches them per record); the fixes
// cost one analysis of the file per candidate layout and are computed only
// when asked (PerfFixes, a code action; PerfReport for the CLI and goldens).

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/perf/memory"
)

// Diagnostic codes of the performance warnings.
const (
	CodeBankConflicts = "perf/bank-conflicts"
	CodeUncoalesced   = "perf/uncoalesced"
	CodeMisaligned    = "perf/misaligned"
)

// kernelPerf returns the performance warnings of k's calls, spans in k's
// coordinates, computed once per record (the language server asks at
// every version for every kernel; callers must not modify the result).
func kernelPerf(k *Kernel) []diag.Diagnostic {
	if k == nil || k.Lowered == nil {
		return nil
	}
	if k.mem == nil {
		return perfOf(k)
	}
	k.mem.perfOnce.Do(func() {
		k.mem.perf = perfOf(k)
		k.mem.perfDone.Store(true)
	})
	if p := k.mem.perfPanicked; p != nil {
		panic(p) // the warnings', on the goroutine of figuresAside
	}
	return k.mem.perf
}

// perfAll computes the warnings (and so the memory figures) of ks on at
// most GOMAXPROCS goroutines, as the lower runs its kernels; kernelPerf
// then returns them at once. The figures do not depend on the order:
// perf/memory's content cache gives a kernel the figures it would compute.
func perfAll(ks []*Kernel) {
	parallel(len(ks), func(i int) { kernelPerf(ks[i]) })
}

// perfKnown reports whether k's warnings are computed already.
func perfKnown(k *Kernel) bool {
	return k == nil || k.Lowered == nil || (k.mem != nil && k.mem.perfDone.Load())
}

func perfOf(k *Kernel) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range k.Calls {
		if d.Variant == "" {
			continue
		}
		f := k.CallMemory(d.Call)
		if f == nil {
			continue // a Trainium kernel: no CUDA memory instructions
		}
		shared, global := f.ExceedsIdeal()
		if shared && f.Worst != nil {
			m := k.Memory()
			_, root := m.Where(f.Worst)
			out = append(out, bankDiag(d, f, root, m.View(f.Worst)))
		}
		if global && f.WorstGlobal != nil {
			out = append(out, coalesceDiag(d, f))
		}
		if f.Misaligned != nil && f.Unknown == "" {
			out = append(out, misalignDiag(d, f))
		}
	}
	return out
}

// misalignDiag: a vector access the lowering issues at an address that is
// not a multiple of its width, which the GPU refuses (the kernel stops
// with cudaErrorMisalignedAddress). The reference lowers such calls the
// same way (a shared row stride of 33 floats read 128 bits per thread:
// 0.27's vec_auto picks vec=4 as tilels does), so this is a warning about
// the program, not a decline.
func misalignDiag(d *dispatch.Decision, f *memory.Figures) diag.Diagnostic {
	w := f.Misaligned
	var thread, addr int64
	if len(w.Lanes()) > 0 {
		thread, addr = w.Lanes()[0].Thread, w.Lanes()[0].Addr
	}
	if w.Kind == memory.KindTMAAddress {
		return diag.Warningf(d.Call.OpSpan, CodeMisaligned,
			"misaligned TMA copy: thread %d's copy reads or writes %s at byte %d of its storage, not a multiple of 128, and the GPU stops the kernel (misaligned address); start every shared slice the copy issues at a multiple of 128 bytes (a box whose rows are whole 128-byte multiples, or a wider tile of %s)",
			thread, w.Buf, addr, w.Buf)
	}
	return diag.Warningf(d.Call.OpSpan, CodeMisaligned,
		"misaligned %d-byte %s of %s: thread %d accesses byte %d of its storage, not a multiple of %d, and the GPU stops the kernel (misaligned address); make the row stride of %s a multiple of %d bytes, or use a narrower vector width",
		w.Width, w.Kind, w.Buf, thread, addr, w.Width, w.Buf, w.Width)
}

// bankDiag: root is the storage the worst access reads or writes, and
// view the typed view of it (when it is byte storage: a pool's alloc)
// that the access goes through, whose layout is the one to change
// (memory.Kernel.View).
func bankDiag(d *dispatch.Decision, f *memory.Figures, root, view *ir.Buffer) diag.Diagnostic {
	w := f.Worst
	wf := f.SharedLoad.Wavefronts + f.SharedStore.Wavefronts
	ideal := f.SharedLoad.Ideal + f.SharedStore.Ideal
	way := (w.Wavefronts + w.Ideal - 1) / max(w.Ideal, 1)
	where := ""
	if len(w.Banks) > 0 {
		b := w.Banks[0]
		where = fmt.Sprintf(", %d words in bank %d (threads %s)", b.Words, b.Bank, threadList(b.Threads))
	}
	change := "swizzle or pad the layout of " + w.Buf
	if root != nil && len(root.Shape) == 1 && root.Dtype.Bits != 8 {
		change = "swizzle, pad or interleave the layout of " + w.Buf // (interleaves: a one-dimensional buffer's fix)
	}
	if view != nil {
		change = fmt.Sprintf("swizzle, pad or interleave the layout of %s (the view of %s the access goes through)", view.Name, w.Buf)
	}
	dg := diag.Warningf(d.Call.OpSpan, CodeBankConflicts,
		"%d-way bank conflicts: %d shared-memory wavefronts for an ideal of %d; the worst, a %d-byte %s of %s, takes %d wavefronts instead of %d%s; %s",
		way, wf, ideal, w.Width, w.Kind, w.Buf, w.Wavefronts, w.Ideal, where, change)
	return dg
}

func coalesceDiag(d *dispatch.Decision, f *memory.Figures) diag.Diagnostic {
	w := f.WorstGlobal
	sec := f.GlobalLoad.Sectors + f.GlobalStore.Sectors
	ideal := f.GlobalLoad.IdealSectors + f.GlobalStore.IdealSectors
	dg := diag.Warningf(d.Call.OpSpan, CodeUncoalesced,
		"uncoalesced global access: %d sectors of 32 bytes for an ideal of %d; the worst, a %d-byte %s of %s, touches %d sectors where %d would do; let neighbouring threads access neighbouring addresses of %s (another partition, register layout or vector width)",
		sec, ideal, w.Width, w.Kind, w.Buf, w.Wavefronts, w.Ideal, w.Buf)
	return dg
}

// PerfDiags returns the performance warnings of the snapshot's calls,
// positions in the snapshot's file, sorted.
func (s *Snapshot) PerfDiags() []diag.Diagnostic {
	ds, _ := s.PerfDiagsBudget(-1)
	return ds
}

// PerfDiagsBudget is PerfDiags computing the warnings of at most
// maxNew kernels not analysed yet (all when maxNew < 0): complete is false
// when it left some out, so that a caller on the keystroke path (the
// language server's first publish of a large file) can publish now and
// the rest later.
func (s *Snapshot) PerfDiagsBudget(maxNew int) (ds []diag.Diagnostic, complete bool) {
	return s.PerfDiagsWithin(maxNew, 0)
}

// PerfDiagsWithin is PerfDiagsBudget with each kernel's memory analysis
// also bounded to work statements (kernelPerfWithin; 0: no bound): the
// kernels over it are left out, and complete is false.
func (s *Snapshot) PerfDiagsWithin(maxNew int, work int64) (ds []diag.Diagnostic, complete bool) {
	return s.perfDiags(maxNew, work, nil)
}

// PerfDiagsUnless is PerfDiags giving up when stale reports true, which
// it asks before each kernel it computes (complete is false then): the
// language server's later publish of a version a newer one replaced
// spent the CPU the newer one's analysis needed (flash_attention4.py's 32
// cases: 2.6 s of figures behind every keystroke of a typist).
func (s *Snapshot) PerfDiagsUnless(stale func() bool) (ds []diag.Diagnostic, complete bool) {
	return s.perfDiags(-1, 0, stale)
}

func (s *Snapshot) perfDiags(maxNew int, work int64, stale func() bool) (ds []diag.Diagnostic, complete bool) {
	var out []diag.Diagnostic
	seen := map[perfKey]bool{}
	complete = true
	// The kernels this call computes (the first maxNew not known yet,
	// each record once) are computed in parallel first.
	var todo []*Kernel
	picked := map[*Kernel]bool{}
	n := maxNew
	for _, kv := range s.Kernels {
		if n != 0 && !perfKnown(kv.Kernel) && !picked[kv.Kernel] {
			picked[kv.Kernel] = true
			todo = append(todo, kv.Kernel)
			n--
		}
	}
	switch {
	case stale != nil:
		parallel(len(todo), func(i int) {
			if !stale() {
				kernelPerf(todo[i])
			}
		})
	case work > 0:
		parallel(len(todo), func(i int) { kernelPerfWithin(todo[i], work) })
	default:
		perfAll(todo)
	}
	for _, kv := range s.Kernels {
		if (maxNew >= 0 || work > 0 || stale != nil) && !perfKnown(kv.Kernel) {
			complete = false // over the budget or the bound
			continue
		}
		for _, d := range kernelPerf(kv.Kernel) {
			d.Span = kv.ToFile(d.Span) // perf warnings have no related places
			if seen[perfKey{d.Span, d.Code}] {
				continue // the cases of a def repeat its calls
			}
			seen[perfKey{d.Span, d.Code}] = true
			out = append(out, d)
		}
	}
	diag.Sort(out)
	return out, complete
}

// PerfFixes returns the verified quick fixes of the performance warnings
// at span (a call's position in the snapshot's file) of the snapshot
// analysed with opts: a bank-conflict fix's Diag is CodeBankConflicts, a
// coalescing fix's CodeUncoalesced.
func (s *Snapshot) PerfFixes(opts Options, span source.Span) []Fix {
	for _, kv := range s.Kernels {
		for i, d := range kv.Kernel.Calls {
			if kv.ToFile(d.Call.OpSpan) != span {
				continue
			}
			return append(perfFixes(s.File, opts, kv.Kernel, i, kv.Shift), coalesceFixes(s.File, opts, kv.Kernel, i, kv.Shift)...)
		}
	}
	return nil
}

// perfKey identifies a warning: one per code and call (a call's
// instances in several cases or kernels of a factory are one).
type perfKey struct {
	span source.Span
	code string
}

// PerfWarnings returns the performance warnings of r's calls
// (perf/bank-conflicts, perf/uncoalesced) without their quick fixes:
// what `tilels --lower --perf` prints, with the change that removes the
// cause named in each message.
func PerfWarnings(r *Result) []diag.Diagnostic {
	var ds []diag.Diagnostic
	seen := map[perfKey]bool{}
	r.HelpFigures()
	perfAll(r.Kernels)
	for _, k := range r.Kernels {
		for _, d := range kernelPerf(k) {
			if !seen[perfKey{d.Span, d.Code}] {
				seen[perfKey{d.Span, d.Code}] = true
				ds = append(ds, d)
			}
		}
	}
	diag.Sort(ds)
	return ds
}

// PerfReport returns the performance warnings of r's calls and their
// verified quick fixes (r analysed with opts).
func PerfReport(r *Result, opts Options) ([]diag.Diagnostic, []Fix) {
	var ds []diag.Diagnostic
	var fixes []Fix
	seen := map[perfKey]bool{}
	perfAll(r.Kernels)
	for _, k := range r.Kernels {
		for _, d := range kernelPerf(k) {
			if seen[perfKey{d.Span, d.Code}] {
				continue
			}
			seen[perfKey{d.Span, d.Code}] = true
			ds = append(ds, d)
			for i, c := range k.Calls {
				if c.Call.OpSpan != d.Span {
					continue
				}
				switch d.Code {
				case CodeBankConflicts:
					fixes = append(fixes, perfFixes(r.File, opts, k, i, 0)...)
				case CodeUncoalesced:
					fixes = append(fixes, coalesceFixes(r.File, opts, k, i, 0)...)
				}
			}
		}
	}
	diag.Sort(ds)
	return ds, fixes
}

// layoutCandidate is a layout a fix may give a shared allocation.
type layoutCandidate struct {
	title, text string
}

// candidates returns the layouts to try for b, swizzles first; width is
// the worst instruction's bytes per thread, and decl the source of b's
// allocation (a one-dimensional buffer's layout names its extent as the
// source does, so that every case of a kernel factory gets its own).
func candidates(b *ir.Buffer, width int64, decl string) []layoutCandidate {
	n := len(b.Shape)
	if n == 1 && b.RuntimeDim() < 0 {
		return interleaves(b, width, decl)
	}
	if n < 2 || b.RuntimeDim() >= 0 {
		return nil
	}
	dims := make([]string, n)
	for i, e := range b.Shape {
		dims[i] = fmt.Sprint(e)
	}
	shape := strings.Join(dims, ", ")
	eb := max(int64(b.Dtype.Bits)/8, 1)
	var out []layoutCandidate
	if 16%eb == 0 {
		p := 0
		for x := 16 / eb; x > 1; x >>= 1 {
			p++
		}
		for _, sw := range []int{3, 2, 1} {
			text := fmt.Sprintf("T.ComposeLayout(%d, %d, 3, T.TileLayout(T.S[%s]))", p, sw, shape)
			out = append(out, layoutCandidate{fmt.Sprintf("swizzle %s (%d-byte XOR swizzle of its 16-byte chunks)", b.Name, 16<<sw), text})
		}
	}
	for _, padBytes := range []int64{4, 16} {
		if padBytes%eb != 0 {
			continue
		}
		pad := padBytes / eb
		strides := make([]int64, n)
		strides[n-1] = 1
		strides[n-2] = b.Shape[n-1] + pad
		for i := n - 3; i >= 0; i-- {
			strides[i] = strides[i+1] * b.Shape[i+1]
		}
		ss := make([]string, n)
		for i, s := range strides {
			ss[i] = fmt.Sprint(s)
		}
		text := fmt.Sprintf("T.TileLayout(T.S[(%s):(%s)])", shape, strings.Join(ss, ", "))
		out = append(out, layoutCandidate{fmt.Sprintf("pad the rows of %s by %d bytes (row stride %d elements)", b.Name, padBytes, strides[n-2]), text})
	}
	return out
}

// interleaves returns the layouts that store apart the width-byte
// pieces of the runs of a one-dimensional buffer b that each thread
// accesses whole: with runs of k pieces, piece j of every run in the j-th
// k-th of b, so that neighbouring threads' same pieces are neighbours.
// rmsnorm.py's threads each store 8 floats of x_smem (32 bytes) as two
// 16-byte stores, lanes 0 and 4 in the same banks: 2 pieces a run take
// the stores to one wavefront a group, the ideal (1,089,536 -> 544,768
// shared wavefronts).
func interleaves(b *ir.Buffer, width int64, decl string) []layoutCandidate {
	eb := max(int64(b.Dtype.Bits)/8, 1)
	if width <= 0 || width%eb != 0 {
		return nil
	}
	e := width / eb // elements a piece
	extent, n := fmt.Sprint(b.Shape[0]), b.Shape[0]
	if t, ok := extentText(decl); ok {
		extent = t
	}
	var out []layoutCandidate
	for _, k := range []int64{2, 4, 8} {
		if run := k * e; n%run == 0 && n/run >= 2 {
			text := fmt.Sprintf("T.TileLayout(T.S[(%s // %d, %d, %d):(%d, %s // %d, 1)])", extent, run, k, e, e, extent, k)
			out = append(out, layoutCandidate{fmt.Sprintf("interleave %s: the %d-byte pieces of each thread's %d bytes %d bytes apart", b.Name, width, run*eb, n/k*eb), text})
		}
	}
	return out
}

// extentText is the source of the one extent in the shape argument of an
// allocation call's text (`pool.alloc([hidden_size], "float32")`:
// hidden_size; `T.alloc_buffer((256,), ...)`: 256), parenthesised unless
// it is a name or a number.
func extentText(decl string) (string, bool) {
	i := strings.Index(decl, "alloc")
	if i < 0 {
		return "", false
	}
	open := strings.IndexByte(decl[i:], '(')
	if open < 0 {
		return "", false
	}
	rest := strings.TrimLeft(decl[i+open+1:], " \t")
	if rest == "" || (rest[0] != '[' && rest[0] != '(') {
		return "", false
	}
	depth, start := 0, 1
	var elems []string
	for j, c := range rest {
		switch c {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
			if depth == 0 {
				elems = append(elems, strings.TrimSpace(rest[start:j]))
				if elems[len(elems)-1] == "" {
					elems = elems[:len(elems)-1] // a trailing comma
				}
				if len(elems) != 1 || strings.ContainsAny(elems[0], "\n#") {
					return "", false // not one extent
				}
				if !simpleName(elems[0]) {
					return "(" + elems[0] + ")", true
				}
				return elems[0], true
			}
		case ',':
			if depth == 1 {
				elems = append(elems, strings.TrimSpace(rest[start:j]))
				start = j + 1
			}
		}
	}
	return "", false
}

// simpleName reports whether s is a Python name or an integer literal.
func simpleName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// perfFixes computes the verified fixes of the bank-conflict warning of
// call i of k (k's spans plus shift are positions in f): the shared
// buffer's layouts, then the register tile's (perf_coalesce.go).
func perfFixes(f *source.File, opts Options, k *Kernel, i int, shift source.Pos) []Fix {
	return append(sharedLayoutFixes(f, opts, k, i, shift), relayoutFixes(f, opts, k, i, shift, CodeBankConflicts)...)
}

// sharedLayoutFixes gives the shared buffer of the worst instruction a
// swizzled (preferred), padded or interleaved layout.
func sharedLayoutFixes(f *source.File, opts Options, k *Kernel, i int, shift source.Pos) []Fix {
	d := k.Calls[i]
	fig := k.CallMemory(d.Call)
	if shared, _ := fig.ExceedsIdeal(); !shared || fig.Worst == nil {
		return nil
	}
	m := k.Memory()
	_, b := m.Where(fig.Worst)
	if v := m.View(fig.Worst); v != nil && v.Kind == ir.DeclBuffer && v.Span.IsValid() {
		b = v // a view of a byte pool (pool.alloc): the view's declaration gets the layout
	} else if b == nil || b.Kind != ir.AllocBuffer {
		return nil
	}
	if !strings.HasPrefix(b.Scope, "shared") || !b.Span.IsValid() {
		return nil
	}
	decl := source.Span{Start: b.Span.Start + shift, End: b.Span.End + shift}
	if decl.Start < 0 || int(decl.End) > len(f.Src) {
		return nil
	}
	text := f.Text(decl)
	if !strings.HasSuffix(text, ")") || strings.Contains(text, "layout=") || !strings.Contains(text, "alloc") {
		return nil // not a plain allocation call, or one with a layout already
	}
	if b.Layout != nil && !isRowMajor(b) {
		return nil
	}
	at := decl.End - 1
	var best *Fix
	var bestWF int64
	var pad *Fix
	for _, c := range candidates(b, fig.Worst.Width, text) {
		swizzle := strings.HasPrefix(c.text, "T.ComposeLayout")
		if !swizzle && pad != nil {
			continue // the first padded or interleaved layout that verifies is offered: no analysis more
		}
		fix := Fix{Kind: QuickFix, Span: source.Span{Start: at, End: at}, NewText: ", layout=" + c.text, Diag: CodeBankConflicts,
			For: source.Span{Start: d.Call.OpSpan.Start + shift, End: d.Call.OpSpan.End + shift}}
		after, ok := verifyFix(f, opts, k, k.Span.Start+shift, i, fix)
		if !ok {
			continue
		}
		wf := after.SharedLoad.Wavefronts + after.SharedStore.Wavefronts
		fix.Title = fmt.Sprintf("%s: %d → %d shared wavefronts (verified)", capital(c.title), fig.SharedLoad.Wavefronts+fig.SharedStore.Wavefronts, wf)
		if swizzle {
			if best == nil || wf < bestWF {
				fx := fix
				best, bestWF = &fx, wf
			}
		} else if pad == nil {
			fx := fix
			pad = &fx
		}
	}
	var out []Fix
	if best != nil {
		best.Preferred = true
		out = append(out, *best)
	}
	if pad != nil {
		pad.Preferred = best == nil
		out = append(out, *pad)
	}
	return out
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// isRowMajor reports whether b's layout is the default row-major one.
func isRowMajor(b *ir.Buffer) bool {
	return layout.Equal(b.Layout, layout.RowMajor(b.Shape...))
}

// verifyFix analyses f with fix applied and reports the figures of the
// same call: ok when it no longer has shared wavefronts at twice the ideal
// (more global sectors than the ideal, for a fix of CodeUncoalesced),
// every call lowered before still lowers, no other call of the kernel
// starts conflicting (or, for a coalescing fix, being uncoalesced), the
// kernel's shared wavefronts and global sectors do not grow, and the
// kernel has no error.
//
// The kernel is found again by its name, its case and where its def
// starts in f (defAt): two defs of a file may have one name
// (rmsnorm.py's two factories of `rmsnorm`).
func verifyFix(f *source.File, opts Options, k *Kernel, defAt source.Pos, i int, fix Fix) (*memory.Figures, bool) {
	src := make([]byte, 0, len(f.Src)+len(fix.NewText))
	src = append(src, f.Src[:fix.Span.Start]...)
	src = append(src, fix.NewText...)
	src = append(src, f.Src[fix.Span.End:]...)
	o := opts
	o.chosen = nil
	res := Analyze(source.NewFile(f.Name, src), o)
	at := defAt
	if at >= fix.Span.End {
		at += source.Pos(len(fix.NewText) - int(fix.Span.End-fix.Span.Start))
	}
	var nk *Kernel
	for _, c := range res.Kernels {
		if c.Span.Start <= fix.Span.Start && fix.Span.Start < c.Span.End {
			// a case of the def the fix changes: every one of them gets
			// the new layout (a factory's extents), and none may fail,
			// nor get a layout that does not cover its buffer (an extent
			// the interleave does not divide)
			for _, d := range c.Diags {
				if d.Severity == diag.Error || d.Code == eval.CodeShapeMismatch {
					return nil, false
				}
			}
		}
		if c.Name == k.Name && c.CaseIndex == k.CaseIndex && c.Span.Start == at {
			nk = c
		}
	}
	if nk == nil || len(nk.Calls) != len(k.Calls) || nk.Calls[i].Call.Op != k.Calls[i].Call.Op || nk.Calls[i].Variant == "" {
		return nil, false
	}
	for _, d := range nk.Diags {
		if d.Severity == diag.Error {
			return nil, false
		}
	}
	after := nk.CallMemory(nk.Calls[i].Call)
	if after == nil || after.Unknown != "" {
		return nil, false
	}
	if shared, global := after.ExceedsIdeal(); fix.Diag == CodeUncoalesced && global || fix.Diag != CodeUncoalesced && shared {
		return nil, false
	}
	for j, c := range nk.Calls {
		if k.Calls[j].Variant != "" && (c.Variant == "" || c.Call.Op != k.Calls[j].Call.Op) {
			return nil, false // a call the change leaves without a lowering
		}
		wasShared, wasGlobal := k.CallMemory(k.Calls[j].Call).ExceedsIdeal()
		isShared, isGlobal := nk.CallMemory(c.Call).ExceedsIdeal()
		if isShared && !wasShared || fix.Diag == CodeUncoalesced && isGlobal && !wasGlobal {
			return nil, false // the change moves the conflicts to another call
		}
	}
	if k.Memory() == nil || nk.Memory() == nil {
		return nil, false
	}
	before, now := k.Memory().Total, nk.Memory().Total
	if now.Unknown != "" && before.Unknown == "" {
		return nil, false
	}
	if before.Unknown == "" && (now.SharedLoad.Wavefronts+now.SharedStore.Wavefronts > before.SharedLoad.Wavefronts+before.SharedStore.Wavefronts ||
		now.GlobalLoad.Sectors+now.GlobalStore.Sectors > before.GlobalLoad.Sectors+before.GlobalStore.Sectors) {
		return nil, false
	}
	return after, true
}
