package trn

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/release"
)

// TestRegistryMatchesWheels: each release's Trainium registry is exactly
// its wheel's (testdata/registry-trn-<release>.json, written by
// scripts/agreement/dump_registry_trn.py): names, priorities, predicate
// names, per op.
func TestRegistryMatchesWheels(t *testing.T) {
	reg := dispatch.NewRegistry(Variants())
	for _, rel := range release.All {
		t.Run(rel.Short(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "registry-trn-"+rel.String()+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var wheel map[string][][]any
			if err := json.Unmarshal(data, &wheel); err != nil {
				t.Fatal(err)
			}
			ops := map[string]bool{}
			for _, v := range Variants() {
				ops[v.Op] = true
			}
			for op := range wheel {
				ops[strings.TrimPrefix(op, "tirx.tile.")] = true
			}
			if len(ops) < 19 {
				t.Fatalf("only %d ops", len(ops))
			}
			for op := range ops {
				var want, got []string
				for _, c := range wheel["tirx.tile."+op] {
					var preds []string
					for _, p := range c[2].([]any) {
						preds = append(preds, p.(string))
					}
					want = append(want, fmt.Sprintf("%s prio=%v when=%v", c[0], c[1], preds))
				}
				for _, v := range reg.VariantsIn(op, dispatch.Target{Kind: "trn", Release: rel}) {
					var preds []string
					for _, p := range v.When {
						preds = append(preds, p.Name)
					}
					got = append(got, fmt.Sprintf("%s prio=%d when=%v", v.Name, v.Priority, preds))
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s under %s:\n got  %q\n want %q", op, rel, got, want)
				}
			}
		})
	}
}
