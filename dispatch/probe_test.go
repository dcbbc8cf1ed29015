package dispatch

import (
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// TestProbe: forcing each variant of a decided call gives the variant's
// own outcome, whatever the call selected; the decision and its call are
// left as they were; a name the release does not register is not probed.
func TestProbe(t *testing.T) {
	forcedOnly := func(c *Call) *Decline {
		if c.Tile.Dispatch != "exact" {
			return c.Declinef(source.NoSpan, "requires explicit dispatch='exact'")
		}
		return nil
	}
	reg := NewRegistry([]Variant{
		{Op: "copy", Name: "exact", Priority: 20, ExplicitOnly: true, When: []Pred{{"exact_applicable", forcedOnly}}, Emit: ok},
		{Op: "copy", Name: "fast", Priority: 10, Emit: ok},
		{Op: "copy", Name: "picky", Priority: 5, When: []Pred{{"picky_ok", reject("region size 24 not divisible by thread_cnt=32")}}, Emit: ok},
		{Op: "copy", Name: "slow", Priority: 0, Emit: func(c *Call) (*Result, *Decline) { return nil, c.Declinef(source.NoSpan, "too slow") }},
	})
	tc := &ir.TileCall{Op: "copy", Scope: "thread", Span: source.Span{Start: 1, End: 9}}
	c := NewCall(tc, DefaultTarget(), 32)
	_, name, e := reg.Select(c)
	d := &Decision{Call: tc, Variant: name, Explanation: e, ctx: c}
	if name != "fast" {
		t.Fatalf("selected %q, want fast", name)
	}
	for _, w := range []struct {
		name    string
		outcome Outcome
		reason  string
	}{
		{"exact", Selected, ""},
		{"fast", Selected, ""},
		{"picky", Rejected, "region size 24 not divisible by thread_cnt=32"},
		{"slow", Declined, "too slow"},
	} {
		a, found := reg.Probe(d, w.name)
		if !found || a.Outcome != w.outcome || a.Reason() != w.reason {
			t.Errorf("Probe(%s) = %v %v %q, want %v %q", w.name, found, a.Outcome, a.Reason(), w.outcome, w.reason)
		}
	}
	if _, found := reg.Probe(d, "vec_auto"); found {
		t.Errorf("Probe of an unregistered name found a variant")
	}
	if _, found := reg.Probe(&Decision{Call: tc}, "fast"); found {
		t.Errorf("Probe of a decision without context found a variant")
	}
	if tc.Dispatch != "" || d.ctx.Tile != tc {
		t.Errorf("Probe changed the call: dispatch=%q", tc.Dispatch)
	}
}
