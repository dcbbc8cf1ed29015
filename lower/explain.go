package lower

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tilels/tilels/dispatch"
)

// Explain renders every call's dispatch decision as text, one block per
// call: position, op and scope, thread count, the chosen variant with its
// vector width, outer count and partition, then each variant tried before
// it with its reason (variants that only apply when forced by dispatch=
// are left out unless the call forces one). It is the human form of the --emit json document and
// what golden tests compare.
func Explain(r *Result) string {
	var b strings.Builder
	for _, k := range r.Records() {
		fmt.Fprintf(&b, "kernel %s", k.Name)
		if k.CaseLabel != "" || k.CaseID != "" {
			fmt.Fprintf(&b, " case %d/%d (%s", k.CaseIndex, k.CaseCount, k.CaseSource)
			if k.CaseID != "" {
				fmt.Fprintf(&b, " %s", k.CaseID)
			}
			fmt.Fprintf(&b, "): %s", k.CaseLabel)
		}
		if k.Needs != nil {
			fmt.Fprintf(&b, " (partial: needs %s)", strings.Join(k.Needs, ", "))
		}
		b.WriteByte('\n')
		for _, u := range k.Unresolved {
			line, col := r.File.Position(u.Span.Start)
			if u.NotModelled != "" {
				fmt.Fprintf(&b, "  %d:%d %s\n    -> %s\n", line, col, r.File.Text(u.OpSpan), u.NotModelled)
				continue
			}
			fmt.Fprintf(&b, "  %d:%d %s\n    -> unresolved: needs %s\n", line, col, r.File.Text(u.OpSpan), strings.Join(u.Needs, ", "))
		}
		for _, d := range k.Calls {
			line, col := r.File.Position(d.Call.Span.Start)
			fmt.Fprintf(&b, "  %d:%d Tx.%s.%s threads=%d", line, col, d.Call.Scope, d.Call.Op, d.Threads)
			if d.Call.Dispatch != "" {
				fmt.Fprintf(&b, " dispatch=%q", d.Call.Dispatch)
			}
			b.WriteByte('\n')
			if d.Variant == "" {
				b.WriteString("    -> no variant applies\n")
			} else {
				fmt.Fprintf(&b, "    -> %s", d.Variant)
				res := d.Result
				planned := res != nil && res.Vec == 0 && len(res.Plan) > 0
				if res != nil && !planned {
					fmt.Fprintf(&b, " vec=%d", res.Vec)
					if res.VecBits > 0 {
						fmt.Fprintf(&b, " (%d bits)", res.VecBits)
					}
					fmt.Fprintf(&b, " outer=%d", res.Outer)
					if res.Partition != "" {
						fmt.Fprintf(&b, " partition=%s", res.Partition)
					}
				}
				b.WriteByte('\n')
				if planned {
					// A plan of named facts (gemm, reductions, ...).
					explainPlan(&b, res.Plan, "       ")
				}
			}
			for _, rj := range d.Declined {
				if rj.ExplicitOnly && d.Call.Dispatch == "" {
					continue // "requires explicit dispatch=..." rows say nothing about this call
				}
				fmt.Fprintf(&b, "    %s (prio=%d): %s\n", rj.Variant, rj.Priority, rj.Reason)
			}
		}
	}
	return b.String()
}

// Records returns the kernel records and the partial ones (Partial), in
// source order of their defs; Kernels when there is no partial one.
func (r *Result) Records() []*Kernel {
	if len(r.Partial) == 0 {
		return r.Kernels
	}
	out := append(append([]*Kernel(nil), r.Kernels...), r.Partial...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// explainPlan writes a variant's plan, one fact per line, decoded fields
// indented under their item.
func explainPlan(b *strings.Builder, items []dispatch.PlanItem, indent string) {
	for _, it := range items {
		if it.Value == "" {
			fmt.Fprintf(b, "%s%s\n", indent, it.Key)
		} else {
			fmt.Fprintf(b, "%s%s: %s\n", indent, it.Key, it.Value)
		}
		explainPlan(b, it.Fields, indent+"  ")
	}
}
