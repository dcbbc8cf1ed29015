package dispatch

import (
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Registry behaviour with fake variants (the dispatcher contract of spec
// §3.1–3.2), checked through one function: the selected variant and the
// exact table TVM would print.

func pass(*Call) *Decline { return nil }

func reject(msg string) func(*Call) *Decline {
	return func(c *Call) *Decline { return c.Declinef(source.NoSpan, "%s", msg) }
}

func ok(*Call) (*Result, *Decline) { return &Result{Body: &ir.Block{}}, nil }

type regCase struct {
	name     string
	variants []Variant
	forced   string
	selected string
	table    string // expected Explanation.TableCompact()
}

func TestRegistry(t *testing.T) {
	v := func(name string, prio int, preds []Pred, emit func(*Call) (*Result, *Decline)) Variant {
		return Variant{Op: "copy", Name: name, Priority: prio, When: preds, Emit: emit}
	}
	cases := []regCase{
		{
			name: "priority then name; all predicates evaluated",
			variants: []Variant{
				v("zeta", 10, []Pred{{"p1", reject("first")}, {"p2", pass}, {"p3", reject("third")}}, ok),
				v("alpha", 10, []Pred{{"a", reject("nope")}}, ok),
				v("low", 0, nil, ok),
				v("never", 0, nil, ok),
			},
			selected: "low",
			table: `TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda
+-----------------+--------------------------------------------------+
| Variant         | Error                                            |
+-----------------+--------------------------------------------------+
| alpha (prio=10) | rejected: a — nope                               |
| zeta (prio=10)  | rejected: p1 — first; rejected: p3 — third       |
+-----------------+--------------------------------------------------+`,
		},
		{
			name: "declines, nil result, panics",
			variants: []Variant{
				v("a", 3, nil, func(c *Call) (*Result, *Decline) { return nil, c.Declinef(source.NoSpan, "does not fit") }),
				v("b", 2, nil, func(*Call) (*Result, *Decline) { return nil, nil }),
				v("c", 1, []Pred{{"boom", func(*Call) *Decline { var m map[string]int; m["x"] = 1; return nil }}}, ok),
				v("d", 1, nil, func(*Call) (*Result, *Decline) { Raise("KeyError", "'cluster'"); return nil, nil }),
				v("e", 0, []Pred{{"empty", func(c *Call) *Decline { return &Decline{} }}}, ok),
			},
			selected: "",
			table: `TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda
+-------------+-------------------------------------------------------------------------------------------------+
| Variant     | Error                                                                                           |
+-------------+-------------------------------------------------------------------------------------------------+
| a (prio=3)  | declined — does not fit                                                                         |
| b (prio=2)  | declined — impl returned None; schedule must return PrimFunc or raise fail()                    |
| c (prio=1)  | rejected: boom — predicate exception: RuntimeError: assignment to entry in nil map              |
| d (prio=1)  | exception — KeyError: 'cluster'                                                                 |
| e (prio=0)  | rejected: empty                                                                                 |
+-------------+-------------------------------------------------------------------------------------------------+`,
		},
		{
			name:     "forced variant only filters",
			variants: []Variant{v("fast", 10, nil, ok), v("slow", 0, []Pred{{"slow_ok", reject("no")}}, ok)},
			forced:   "slow",
			table: `TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda
+----------------+-----------------------+
| Variant        | Error                 |
+----------------+-----------------------+
| slow (prio=0)  | rejected: slow_ok — no |
+----------------+-----------------------+`,
		},
		{
			name:     "forced name of another release",
			variants: []Variant{v("gmem_smem", 10, nil, ok), {Op: "copy", Name: "vec_auto", Priority: 10, Releases: release.From(release.R026), Emit: ok}},
			forced:   "vec_auto",
			table:    "TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda\nno variant named 'vec_auto' is registered",
		},
		{
			name:     "forced unknown",
			variants: []Variant{v("fast", 10, nil, ok)},
			forced:   "slow",
			table:    "TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda\nno variant named 'slow' is registered",
		},
		{
			name:  "no variants",
			table: "TIRx schedule dispatch failed: op=tirx.tile.copy target=cuda\nno registered variants for this op/target",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRegistry(t, c) })
	}
}

func checkRegistry(t *testing.T, c regCase) {
	tc := &ir.TileCall{Op: "copy", Scope: "thread", Dispatch: c.forced, Span: source.Span{Start: 1, End: 9}}
	call := NewCall(tc, DefaultTarget(), 32)
	res, name, e := NewRegistry(c.variants).Select(call)
	if name != c.selected || (res != nil) != (c.selected != "") {
		t.Errorf("selected %q (result %v), want %q\n%s", name, res != nil, c.selected, e.TableCompact())
	}
	if c.table != "" {
		// The column width in the expected text is hand-written; compare
		// modulo padding, then check the real table is rectangular.
		if norm(e.TableCompact()) != norm(c.table) {
			t.Errorf("table:\n%s\nwant:\n%s", e.TableCompact(), c.table)
		}
		lines := strings.Split(e.Table(), "\n")
		for _, l := range lines[1:] {
			if len([]rune(l)) != len([]rune(lines[1])) {
				t.Errorf("ragged table line %q", l)
			}
		}
	}
}

// norm drops the padding and rules so hand-written goldens need not count
// spaces.
func norm(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "+") {
			continue
		}
		var cells []string
		for _, f := range strings.Split(l, "|") {
			cells = append(cells, strings.TrimSpace(f))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return strings.Join(out, "\n")
}

func TestTarget(t *testing.T) {
	for arch, want := range map[string]int{"sm_90a": 90, "sm_100a": 100, "sm_80": 80, "gfx90a": 0, "": 0} {
		if got := (Target{Kind: "cuda", Arch: arch}).SMVersion(); got != want {
			t.Errorf("SMVersion(%q) = %d, want %d", arch, got, want)
		}
	}
}
