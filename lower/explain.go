package lower

import (
	"fmt"
	"strings"
)

// Explain renders every call's dispatch decision as text, one block per
// call: position, op and scope, thread count, the chosen variant with its
// vector width, outer count and partition, then each variant tried before
// it with its reason (variants that only apply when forced by dispatch=
// are left out unless the call forces one). It is the human form of the --emit json document and
// what golden tests compare.
func Explain(r *Result) string {
	var b strings.Builder
	for _, k := range r.Kernels {
		fmt.Fprintf(&b, "kernel %s", k.Name)
		if len(k.Case) > 0 {
			fmt.Fprintf(&b, " case %v", k.Case)
		}
		b.WriteByte('\n')
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
				if res := d.Result; res != nil {
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
