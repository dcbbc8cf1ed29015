package lower

import (
	"fmt"
	"strings"
)

// Summary is what a kernel lowers to, in a line: its lowered tile calls
// (a call a Python loop unrolled once per instance) counted by op, then
// by variant, each in order of first appearance. The editor's status
// line (tilels.kernelSummary) shows it.
type Summary struct {
	Calls int
	Ops   []OpSummary
}

// OpSummary counts the calls of one op by variant.
type OpSummary struct {
	Op       string
	Variants []VariantCount
}

// VariantCount is a variant and its number of calls; Variant is
// "no variant" for calls no variant lowers.
type VariantCount struct {
	Variant string
	N       int
}

// Summarize counts k's lowered tile calls.
func Summarize(k *Kernel) *Summary {
	s := &Summary{Calls: len(k.Calls)}
	opAt := map[string]int{}
	for _, dec := range k.Calls {
		op, v := dec.Call.Op, dec.Variant
		if v == "" || dec.Result == nil {
			v = "no variant"
		}
		i, ok := opAt[op]
		if !ok {
			i = len(s.Ops)
			opAt[op] = i
			s.Ops = append(s.Ops, OpSummary{Op: op})
		}
		o := &s.Ops[i]
		j := 0
		for j < len(o.Variants) && o.Variants[j].Variant != v {
			j++
		}
		if j == len(o.Variants) {
			o.Variants = append(o.Variants, VariantCount{Variant: v})
		}
		o.Variants[j].N++
	}
	return s
}

// String renders s: "copy: gmem_smem ×2 · fallback ×1; sqrt: smem ×1",
// or "no tile calls".
func (s *Summary) String() string {
	if len(s.Ops) == 0 {
		return "no tile calls"
	}
	groups := make([]string, len(s.Ops))
	for i, o := range s.Ops {
		parts := make([]string, len(o.Variants))
		for j, v := range o.Variants {
			parts[j] = fmt.Sprintf("%s ×%d", v.Variant, v.N)
		}
		groups[i] = o.Op + ": " + strings.Join(parts, " · ")
	}
	return strings.Join(groups, "; ")
}
