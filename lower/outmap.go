package lower

import (
	"strings"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// OutputRange links a kernel or a tile call of the source with the lines
// of a lowered text it produced (the .cu file, the TIRx), what an editor
// needs to colour-link them as Compiler Explorer does. It is the model of
// the #line directives (cuda.LineDirectives) read the other way: a
// directive says which .py line an output line comes from; an
// OutputRange says which output lines a call produced.
//
// Invariants: Start < End (a kernel or call always prints at least one
// line); a call's lines lie inside its kernel's; the ranges of one text
// are listed kernel by kernel, each kernel before its calls, calls in
// printing order, and never overlap except a call inside its kernel. A
// tile call nested in another's lowering has no range of its own.
type OutputRange struct {
	// Kernel is the kernel's name.
	Kernel string
	// Call is set for a tile call's lowering (its comment line to the end
	// of its block); unset for the whole kernel.
	Call bool
	// Span is the call's span, or the kernel's (Kernel.Span), in the text
	// of the views (KernelView.Shift applied).
	Span source.Span
	// Start and End are 0-based lines of the output, End exclusive.
	Start, End int
}

type tirxPrint struct {
	text  string
	calls []tirx.CallLines
}

// CUDAMap is CUDA of the views' kernels, with where each kernel and tile
// call is in it. The text equals CUDA(ks) for the same kernels.
func (p *Prints) CUDAMap(views []*KernelView) (string, []OutputRange, error) {
	views = cudaViews(views)
	ks := make([]*Kernel, len(views))
	for i, v := range views {
		ks[i] = v.Kernel
	}
	parts, arch, err := p.cudaParts(ks)
	if err != nil {
		return "", nil, err
	}
	text, lines, err := cuda.AssembleMap(parts, cuda.Options{Arch: arch})
	if err != nil {
		return "", nil, err
	}
	return text, cudaRanges(views, lines), nil
}

// CUDALinesMap is CUDALines, with where each kernel and tile call is in
// the text (the lines of the #line directives count as output lines).
func CUDALinesMap(views []*KernelView, opts Options, d LineDirectives) (string, []OutputRange, error) {
	in, ks := linesInput(views, &d)
	text, lines, err := cuda.PrintMap(in, cuda.Options{Arch: PrintArch(ks, opts), Lines: &d})
	if err != nil {
		return "", nil, err
	}
	return text, cudaRanges(views, lines), nil
}

// TIRxMap is TIRx of the views' kernels, with where each kernel and tile
// call is in it.
func (p *Prints) TIRxMap(views []*KernelView) (string, []OutputRange) {
	var b strings.Builder
	var out []OutputRange
	line := 0
	for i, v := range views {
		if i > 0 {
			b.WriteString("\n")
			line++
		}
		tp := p.kernel(v.Kernel).tirx()
		b.WriteString(tp.text)
		n := strings.Count(tp.text, "\n")
		out = append(out, OutputRange{Kernel: v.Kernel.Name, Span: shifted(v.Kernel.Span, v.Shift), Start: line, End: line + max(n, 1)})
		for _, c := range tp.calls {
			if c.Call.Start.IsValid() && c.End > c.Start {
				out = append(out, OutputRange{Kernel: v.Kernel.Name, Call: true, Span: shifted(c.Call, v.Shift), Start: line + c.Start, End: line + c.End})
			}
		}
		line += n
	}
	return b.String(), out
}

// cudaViews keeps the views of CUDA kernels (CUDAKernels), in order.
func cudaViews(views []*KernelView) []*KernelView {
	out := views[:0:0]
	for _, v := range views {
		if v.Kernel.Target == "" {
			out = append(out, v)
		}
	}
	return out
}

// cudaRanges names the printed lines of each view's kernel.
func cudaRanges(views []*KernelView, lines []cuda.KernelLines) []OutputRange {
	var out []OutputRange
	for i, kl := range lines {
		if i >= len(views) {
			break
		}
		v := views[i]
		out = append(out, OutputRange{Kernel: v.Kernel.Name, Span: shifted(v.Kernel.Span, v.Shift), Start: kl.Start, End: kl.End})
		for _, c := range kl.Calls {
			if c.Call.Start.IsValid() && c.End > c.Start {
				out = append(out, OutputRange{Kernel: v.Kernel.Name, Call: true, Span: shifted(c.Call, v.Shift), Start: c.Start, End: c.End})
			}
		}
	}
	return out
}

func shifted(s source.Span, by source.Pos) source.Span {
	if !s.Start.IsValid() {
		return s
	}
	return source.Span{Start: s.Start + by, End: s.End + by}
}

// linesInput is the input of CUDALines: the views' kernels, with their
// shifts recorded in d.
func linesInput(views []*KernelView, d *LineDirectives) ([]cuda.Kernel, []*Kernel) {
	in := make([]cuda.Kernel, len(views))
	ks := make([]*Kernel, len(views))
	d.Shift = make(map[*ir.Func]source.Pos, len(views))
	for i, v := range views {
		ks[i] = v.Kernel
		in[i] = cuda.Kernel{Func: caseFunc(v.Kernel), Launch: v.Kernel.Launch}
		d.Shift[in[i].Func] = v.Shift
	}
	return in, ks
}
