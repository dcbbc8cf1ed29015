package cuda

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
)

var updateDocs = flag.Bool("update", false, "rewrite generated files (docs/variants.md)")

// TestGenerated checks that docs/variants.md is the rendering of the variant
// table; `go test ./dispatch/cuda -run TestGenerated -update` rewrites it.
func TestGenerated(t *testing.T) {
	const path = "../../docs/variants.md"
	got := variantsDoc(Variants())
	if *updateDocs {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./dispatch/cuda -run TestGenerated -update)", err)
	}
	if string(want) != got {
		t.Errorf("docs/variants.md is stale: run go test ./dispatch/cuda -run TestGenerated -update")
	}
}

func variantsDoc(vs []dispatch.Variant) string {
	var b strings.Builder
	b.WriteString("# CUDA variants\n\n")
	b.WriteString("Generated from `dispatch/cuda/variants.go` by `go test ./dispatch/cuda -run TestGenerated -update`; do not edit.\n\n")
	b.WriteString("For each op, the variants in dispatch order: priority descending, then name (TVM's `(-priority, variant)` sort). ")
	b.WriteString("Every predicate of every variant is evaluated; the first variant whose predicates all pass and whose emitter does not decline is chosen. ")
	b.WriteString("`dispatch=\"name\"` restricts the candidates to that variant; a name the release does not register is the reference's \"no variant named 'X' is registered\". ")
	b.WriteString("The column *releases* says which reference wheels register the variant (`--reference`).\n\n")
	byOp := map[string][]dispatch.Variant{}
	var ops []string
	for _, v := range vs {
		if _, ok := byOp[v.Op]; !ok {
			ops = append(ops, v.Op)
		}
		byOp[v.Op] = append(byOp[v.Op], v)
	}
	sort.Strings(ops)
	for _, op := range ops {
		list := byOp[op]
		sort.SliceStable(list, func(i, j int) bool {
			if list[i].Priority != list[j].Priority {
				return list[i].Priority > list[j].Priority
			}
			return list[i].Name < list[j].Name
		})
		fmt.Fprintf(&b, "## %s\n\n| variant | priority | predicates | only when forced | releases |\n|---|---|---|---|---|\n", op)
		for _, v := range list {
			var preds []string
			for _, p := range v.When {
				preds = append(preds, "`"+p.Name+"`")
			}
			forced := ""
			if v.ExplicitOnly {
				forced = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %s |\n", v.Name, v.Priority, strings.Join(preds, ", "), forced, v.Releases)
		}
		b.WriteString("\n")
	}
	return b.String()
}
