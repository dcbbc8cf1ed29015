package lower

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tilels/tilels/dispatch"
)

// HintStyle is the form of an inlay hint's label (docs/lsp.md, "Inlay
// hints"): HintReadable, the default, says what each number is
// ("→ gmem_smem, 8-wide, 4 rounds"); HintTerse is the compact form of
// earlier releases ("→ gmem_smem ×4 ·8").
type HintStyle string

const (
	HintReadable HintStyle = "readable"
	HintTerse    HintStyle = "terse"
)

// ParseHintStyle reads a style setting: "" is readable.
func ParseHintStyle(s string) (HintStyle, bool) {
	switch HintStyle(s) {
	case "", HintReadable:
		return HintReadable, true
	case HintTerse:
		return HintTerse, true
	}
	return "", false
}

// Hint is the inlay hint of one tile call of k whose instances (one per
// Python-loop unrolling, in order) are ds: the label, with its arrow, and
// the tooltip, one paragraph that says which variant lowers the call and
// why, its vector width in elements and bits, its threads and rounds, and
// the call's memory figures when k's are computed already (a hint never
// starts the memory analysis). Instances lowered differently have their
// labels joined with " | ".
func Hint(k *Kernel, ds []*dispatch.Decision, style HintStyle) (label, tooltip string) {
	var labels []string
	seen := map[string]bool{}
	for _, d := range ds {
		l := terseLabel(d)
		if style != HintTerse {
			l = readableLabel(d)
		}
		if !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	label = "→ " + strings.Join(labels, " | ")
	tooltip = hintTooltip(k, ds[0])
	if len(ds) > 1 {
		tooltip += fmt.Sprintf(" The call is unrolled by a Python loop into %d instances; this is the first.", len(ds))
	}
	return label, tooltip
}

// HintCases is the sentence a hint's tooltip ends with in a kernel def
// with several cases: which case the hint shows, and how many distinct
// outcomes the call has across the cases when more than one.
func HintCases(k *Kernel, outcomes int) string {
	s := fmt.Sprintf(" Case %d/%d: %s.", k.CaseIndex, k.CaseCount, k.CaseLabel)
	if outcomes > 1 {
		s += fmt.Sprintf(" %d outcomes across the cases; the hover lists them.", outcomes)
	}
	return s
}

// UnresolvedHint is the hint of a tile call u of a partial kernel k (or
// of a kernel written for a target tilels does not lower).
func UnresolvedHint(k *Kernel, u *UnresolvedCall) (label, tooltip string) {
	if u.NotModelled != "" {
		return "→ not modelled", fmt.Sprintf("kernel %s: %s", k.Name, u.NotModelled)
	}
	needs := strings.Join(u.Needs, ", ")
	return "→ unresolved: needs " + needs, fmt.Sprintf("kernel %s was not analysed: no binding source gives %s (bind it with `# tilels: bind` or the bind setting)", k.Name, needs)
}

// terseLabel is one decision's terse label without the arrow:
// "gmem_smem ×outer ·vec", "tma ×issues", or a plan's first fact.
func terseLabel(d *dispatch.Decision) string {
	r := d.Result
	switch {
	case d.Variant == "" || r == nil:
		return "no variant"
	case r.TMA != nil:
		return fmt.Sprintf("%s ×%d", d.Variant, r.TMA.Issues)
	case r.Vec == 0 && len(r.Plan) > 0:
		// A variant that plans no vector copy (gemm, reductions, ...):
		// its plan's first fact.
		it := r.Plan[0]
		v := it.Value
		if len(v) <= 10 {
			v = it.Key + " " + v // a number says little without its name
		}
		return d.Variant + " · " + clip(v, 32)
	}
	return fmt.Sprintf("%s ×%d ·%d", d.Variant, r.Outer, r.Vec)
}

// readableLabel is one decision's readable label without the arrow: the
// variant, then per family what its numbers are.
//
//	copy, copy_async (cp.async), elementwise, permute:  gmem_smem, 8-wide, 4 rounds
//	                                                      fallback, scalar, 24 rounds
//	copy_async TMA:        tma, 2 bulk copies, box 64×64
//	copy_async dsmem:      dsmem, 1 bulk copy of 512 bytes
//	copy_async tcgen05:    tmem<->local, tmem -> local, 32x32b · smem->tmem, shape 128x128b
//	gemm (mma.sync):       mma.m16n8k*, m16n8k16, 4 MMA per warp
//	gemm_async (tcgen05):  tcgen05, 128×64×16 per MMA
//	reduction:             shared, 8 lanes per output · local, serial per thread
//	Trainium:              default, nki.load, 1 block
func readableLabel(d *dispatch.Decision) string {
	r := d.Result
	switch {
	case d.Variant == "" || r == nil:
		return "no variant applies"
	case r.TMA != nil:
		s := d.Variant + ", " + countOf(r.TMA.Issues, "bulk copy", "bulk copies")
		if m := r.TMA.Map; m != nil && len(m.Box) > 0 {
			s += ", box " + pythonOrder(m.Box)
		}
		return s
	case r.Vec > 0:
		s := d.Variant + ", " + width(r.Vec)
		if d.Call != nil && d.Call.Op == "copy_async" {
			s += " async"
		}
		return s + ", " + countOf(r.Outer, "round", "rounds")
	}
	plan := map[string]string{}
	for _, it := range r.Plan {
		plan[it.Key] = it.Value
	}
	lead := func(v, sep string) string {
		if i := strings.Index(v, sep); i > 0 {
			return v[:i]
		}
		return v
	}
	switch {
	case plan["nki"] != "":
		if m := nkiRE.FindStringSubmatch(plan["nki"]); m != nil {
			blocks := "1 block"
			if m[2] != "1" {
				blocks = m[2] + " blocks"
			}
			return d.Variant + ", " + m[1] + ", " + blocks
		}
		return d.Variant + ", " + clip(lead(plan["nki"], ":"), 32)
	case plan["mma per warp"] != "" && plan["shape"] != "":
		return fmt.Sprintf("%s, %s, %s per warp", d.Variant, lead(plan["shape"], ","), lead(plan["mma per warp"], " ")+" MMA")
	case plan["mma shape"] != "":
		if m := mnkRE.FindStringSubmatch(plan["mma shape"]); m != nil {
			return fmt.Sprintf("%s, %s×%s×%s per MMA", d.Variant, m[1], m[2], m[3])
		}
	case plan["lanes per output (group)"] != "":
		return d.Variant + ", " + countOf(atoi(plan["lanes per output (group)"]), "lane per output", "lanes per output")
	case strings.Contains(plan["path"], "serial"):
		return d.Variant + ", serial per thread"
	case plan["instructions"] != "" && plan["chunk"] != "":
		return fmt.Sprintf("%s, %s of %s", d.Variant, countOf(atoi(plan["instructions"]), "bulk copy", "bulk copies"), plan["chunk"])
	case plan["shape"] != "" && plan["direction"] != "":
		return d.Variant + ", " + plan["direction"] + ", " + lead(plan["shape"], " ")
	case plan["shape"] != "":
		return d.Variant + ", shape " + lead(plan["shape"], " ")
	}
	if len(r.Plan) > 0 {
		it := r.Plan[0]
		v := it.Value
		if len(v) <= 10 {
			v = it.Key + " " + v
		}
		return d.Variant + ", " + clip(v, 32)
	}
	return d.Variant
}

var (
	// nkiRE reads a Trainium plan: "nki.load: 2 block(s) of ...".
	nkiRE = regexp.MustCompile(`^([^:]+): ([0-9×]+) block\(s\)`)
	// mnkRE reads a tcgen05 MMA shape: "M=128 N=64 K=16 per instruction".
	mnkRE = regexp.MustCompile(`M=(\d+) N=(\d+) K=(\d+)`)
)

// maxTipFacts bounds the plan facts a tooltip lists (a gemm's plan has a
// dozen; the hover has them all).
const maxTipFacts = 3

// hintTooltip is the paragraph of a hint's tooltip for decision d of k.
func hintTooltip(k *Kernel, d *dispatch.Decision) string {
	var b strings.Builder
	name := "Tx."
	if d.Scope != "" {
		name += d.Scope + "."
	}
	name += d.Call.Op
	r := d.Result
	if d.Variant == "" || r == nil {
		fmt.Fprintf(&b, "%s (%s): no variant applies", name, countOf(d.Threads, "thread", "threads"))
		if why := declined(d, 3); why != "" {
			b.WriteString("; " + why)
		}
		b.WriteString(".")
		return b.String()
	}
	fmt.Fprintf(&b, "%s lowers through %s", name, d.Variant)
	switch {
	case d.Call.Dispatch != "":
		fmt.Fprintf(&b, ", forced by dispatch=%q", d.Call.Dispatch)
	default:
		if why := declined(d, 3); why != "" {
			b.WriteString(", the first variant in dispatch order that applies (" + why + ")")
		} else {
			b.WriteString(", the first variant tried")
		}
	}
	b.WriteString(". ")
	switch {
	case r.TMA != nil:
		t := r.TMA
		fmt.Fprintf(&b, "A TMA copy (%s): %s of one bulk-tensor instruction each", tmaDirection(t.Direction), countOf(t.Issues, "issue", "issues"))
		if m := t.Map; m != nil && len(m.Box) > 0 {
			fmt.Fprintf(&b, ", box %s (dimensions in the buffer's order), descriptor %s", pythonOrder(m.Box), m.Name)
		}
		fmt.Fprintf(&b, "; %s in the scope.", countOf(d.Threads, "thread", "threads"))
	case r.Vec > 0:
		fmt.Fprintf(&b, "%s in the scope", countOf(d.Threads, "thread", "threads"))
		if r.Threads > 0 && r.Threads != d.Threads {
			fmt.Fprintf(&b, ", %d of them working", r.Threads)
		}
		fmt.Fprintf(&b, "; each access moves %s", countOf(r.Vec, "element", "elements"))
		if r.VecBits > 0 {
			fmt.Fprintf(&b, " (%d bits)", r.VecBits)
		}
		fmt.Fprintf(&b, ", %s per thread (a round is one iteration of the loop around the accesses)", countOf(r.Outer, "round", "rounds"))
		if r.Partition != "" {
			fmt.Fprintf(&b, "; partition %s", r.Partition)
		}
		b.WriteString(".")
	default:
		fmt.Fprintf(&b, "%s in the scope", countOf(d.Threads, "thread", "threads"))
		for i, it := range r.Plan {
			if i == maxTipFacts {
				fmt.Fprintf(&b, " (%d more facts in the hover)", len(r.Plan)-maxTipFacts)
				break
			}
			if i == 0 {
				b.WriteString("; ")
			} else {
				b.WriteString(", ")
			}
			switch {
			case it.Value == "":
				b.WriteString(it.Key)
			case strings.HasPrefix(it.Value, it.Key): // not "nki nki.load: ..."
				b.WriteString(it.Value)
			default:
				b.WriteString(it.Key + " " + it.Value)
			}
		}
		b.WriteString(".")
	}
	for _, n := range r.Notes {
		if r.Partition != "" && strings.Contains(n, r.Partition) {
			continue // said above
		}
		b.WriteString(" " + strings.TrimSuffix(n, ".") + ".")
	}
	if f := knownCallMemory(k, d); f != "" {
		b.WriteString(" Memory (one launch): " + f + ".")
	}
	return b.String()
}

// declined lists the reasons of at most max variants tried before the
// selected one (explicit-only ones left out unless the call forces one).
func declined(d *dispatch.Decision, max int) string {
	var parts []string
	n := 0
	for _, rj := range d.Declined {
		if rj.ExplicitOnly && d.Call.Dispatch == "" {
			continue
		}
		n++
		if len(parts) < max {
			parts = append(parts, fmt.Sprintf("%s: %s", rj.Variant, rj.Reason))
		}
	}
	if n == 0 {
		return ""
	}
	s := "declined before it: "
	if d.Variant == "" {
		s = "declined: "
	}
	s += strings.Join(parts, "; ")
	if n > max {
		s += fmt.Sprintf("; %d more", n-max)
	}
	return s
}

// knownCallMemory is the memory figures of d's call, one line, when k's
// memory analysis has run (perfKnown), else "".
func knownCallMemory(k *Kernel, d *dispatch.Decision) string {
	if k == nil || k.mem == nil || !k.mem.perfDone.Load() || k.mem.k == nil {
		return ""
	}
	f := k.mem.k.Calls[d.Call]
	if f == nil || f.Unknown != "" {
		return ""
	}
	var lines []string
	for _, l := range MemoryLines(nil, nil, f) {
		if !strings.HasPrefix(l, " ") { // the worst instructions are the hover's
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

func tmaDirection(dir string) string {
	switch dir {
	case "g2s":
		return "global to shared"
	case "s2g":
		return "shared to global"
	}
	return dir
}

// width is a vector width in elements: "scalar" or "8-wide".
func width(vec int64) string {
	if vec == 1 {
		return "scalar"
	}
	return fmt.Sprintf("%d-wide", vec)
}

func countOf(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// pythonOrder writes a TMA box (CUDA order, innermost first) in the
// buffer's order: "64×8×4".
func pythonOrder(box []int64) string {
	parts := make([]string, len(box))
	for i, v := range box {
		parts[len(box)-1-i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "×")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func atoi(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
