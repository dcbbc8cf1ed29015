package lower

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/picture"
)

// Pictures draws one lowered tile call (package picture): the partition
// of its tile and the bank map of its worst shared instruction. line is
// the call's 1-based line, for the title. The pictures are what the
// CLI's --emit svg, the editor's tilels.picture command and the hover's
// grid all show.
func Pictures(k *Kernel, d *dispatch.Decision, line int) *picture.Pictures {
	return pictures(k, d, line, 0)
}

// hoverSteps bounds the evaluation behind a hover's pictures; a larger
// call's hover is drawn from what was evaluated and says so, and
// tilels.picture draws it whole. Measured on the 3,000-line benchmark
// file (418 calls, 2-core machine shared with other jobs): a call's first
// hover picture takes 0.29 ms at the median; BenchmarkHover3000's p50
// went from 0.09-0.11 to 0.33-0.39 ms (each call drawn once, then kept
// with the kernel's prints).
const hoverSteps = 1 << 15

// HoverPictures is Pictures under the hover's bound on evaluation.
func HoverPictures(k *Kernel, d *dispatch.Decision, line int) *picture.Pictures {
	return pictures(k, d, line, hoverSteps)
}

func pictures(k *Kernel, d *dispatch.Decision, line, steps int) *picture.Pictures {
	name := "Tx."
	if d.Call.Scope != "" {
		name += d.Call.Scope + "."
	}
	name += d.Call.Op
	title := fmt.Sprintf("%s · line %d · %s", k.Name, line, name)
	if k.CaseLabel != "" {
		title = fmt.Sprintf("%s (%s) · line %d · %s", k.Name, k.CaseLabel, line, name)
	}
	c := picture.Call{Title: title, Tile: d.Call, Threads: int(d.Threads), MaxSteps: steps, Scope: threadVars(k)}
	c.Bank, c.NoBank = bankInstr(k, d)
	if d.Variant == "" {
		c.Title += " → no variant"
	} else {
		c.Title += " → " + d.Variant
		if r := d.Result; r != nil {
			c.Body = r.Body
			if r.Vec > 0 {
				c.Title += fmt.Sprintf(" vec %d", r.Vec)
			}
		}
	}
	return picture.Draw(c)
}

// bankInstr is the shared instruction of d's call that the bank map
// draws: the memory analysis' worst one (the one the hover names), else
// its first shared instruction; the passes are the analysis' own
// (calibrated rules, nvcc's merging modelled). It is nil with the reason
// when the call has none.
func bankInstr(k *Kernel, d *dispatch.Decision) (*picture.Instr, string) {
	if d.Variant == "" || d.Result == nil {
		return nil, "no variant lowers the call"
	}
	f := k.CallMemory(d.Call)
	switch {
	case f == nil:
		return nil, "the call has no memory figures"
	case f.Unknown != "":
		return nil, "the memory analysis cannot count the call: " + f.Unknown
	}
	w := f.Worst
	which := "the worst"
	if w == nil {
		w, which = f.FirstShared, "the first"
	}
	if w == nil {
		return nil, "the call has no per-thread shared-memory access (TMA and register-only calls have none)"
	}
	unit := "thread"
	if w.Kind == "ldmatrix" || w.Kind == "stmatrix" {
		unit = "row"
	}
	desc := fmt.Sprintf("%s %s, %d B/%s, warp %d", w.Kind, w.Buf, w.Width, unit, w.Warp)
	if w.CTA > 0 {
		desc += fmt.Sprintf(" of CTA %d", w.CTA)
	}
	in := &picture.Instr{Desc: desc}
	for _, l := range w.Lanes() {
		in.Accesses = append(in.Accesses, picture.BankAccess{Thread: int(l.Thread), Addr: l.Addr, Bytes: int(l.Bytes), Pass: l.Pass})
	}
	n := f.SharedLoad.Instructions + f.SharedStore.Instructions + f.Ldmatrix.Instructions + f.Stmatrix.Instructions
	in.Notes = append(in.Notes, fmt.Sprintf("%s of the call's %d warp-level shared instructions (one launch)", which, n),
		"passes and widths from the memory analysis (sm_90 rules, nvcc merging)")
	return in, ""
}

// CallAtLine finds the tile call at a 1-based line of f among ks: the
// first kernel (in ks' order) with a decision whose call starts on that
// line. ok is false, with a reason, when none does.
func CallAtLine(f *source.File, ks []*Kernel, line int) (*Kernel, *dispatch.Decision, string) {
	for _, k := range ks {
		for _, d := range k.Calls {
			if l, _ := f.Position(d.Call.Span.Start); l == line {
				return k, d, ""
			}
		}
	}
	if len(ks) == 1 {
		return nil, nil, fmt.Sprintf("kernel %s has no tile call at line %d", ks[0].Name, line)
	}
	return nil, nil, fmt.Sprintf("no analysed tile call at line %d", line)
}

// ValidPicture reports whether which names pictures: "partition", "bank",
// "both" or "" (both).
func ValidPicture(which string) bool {
	_, ok := picture.ParseWhich(which)
	return ok
}

// RenderPictures renders p as "svg" or "text" (the Unicode grids of
// terminal hovers); which is as ValidPicture takes it.
func RenderPictures(p *picture.Pictures, format, which string) string {
	w, _ := picture.ParseWhich(which)
	if format == "text" {
		return p.Text(w)
	}
	return p.SVG(w)
}

// maxHoverImage bounds the SVG a hover embeds; a larger picture is shown
// as text.
const maxHoverImage = 256 << 10

// HoverPicture is what a call's hover shows of its pictures. With image,
// the SVG of both pictures without tooltips (isSVG), unless it is larger
// than 256 KiB; else the Unicode grids: the partition, and the bank map
// when its worst instruction has a bank conflict (else its summary line).
func HoverPicture(p *picture.Pictures, image bool) (s string, isSVG bool) {
	if image {
		if svg := p.Image(picture.Both); len(svg) <= maxHoverImage {
			return svg, true
		}
	}
	var parts []string
	if p.Partition != nil {
		parts = append(parts, p.Partition.Text())
	}
	switch b := p.Bank; {
	case b == nil:
	case b.Conflicts > 0:
		parts = append(parts, b.Text())
	default:
		parts = append(parts, "bank map: "+b.Instr+"\n"+b.Summary()+"\n")
	}
	return strings.Join(parts, "\n"), false
}

type hoverKey struct {
	d     *dispatch.Decision
	line  int
	image bool
}

type hoverPic struct {
	s     string
	isSVG bool
}

// HoverPicture is HoverPicture(HoverPictures(k, d, line), image), drawn
// once per call, line and form and kept with the kernel's prints (a
// kernel an edit did not touch keeps its pictures).
func (p *Prints) HoverPicture(k *Kernel, d *dispatch.Decision, line int, image bool) (string, bool) {
	kp := p.kernel(k)
	key := hoverKey{d, line, image}
	if v, ok := kp.pics.Load(key); ok {
		h := v.(hoverPic)
		return h.s, h.isSVG
	}
	s, isSVG := HoverPicture(HoverPictures(k, d, line), image)
	kp.pics.Store(key, hoverPic{s, isSVG})
	return s, isSVG
}

// scopeAxes is the layout thread axis of each one-dimensional thread
// scope id.
var scopeAxes = map[ir.ScopeIDKind]string{ir.ThreadID: "tx", ir.LaneID: "laneid", ir.WarpID: "warpid",
	ir.ThreadIDInWG: "tid_in_wg", ir.WarpIDInWG: "wid_in_wg", ir.WarpgroupID: "wgid"}

// threadVars maps k's thread scope-id variables to their axes.
func threadVars(k *Kernel) map[*ir.Var]string {
	if k.Func == nil || k.Func.Body == nil {
		return nil
	}
	out := map[*ir.Var]string{}
	ir.WalkStmts(k.Func.Body, func(s ir.Stmt) {
		if sc, ok := s.(*ir.ScopeID); ok && len(sc.Vars) == 1 {
			if axis, ok := scopeAxes[sc.Kind]; ok {
				out[sc.Vars[0]] = axis
			}
		}
	})
	return out
}
