package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// TestScaledMemory: testdata/memory/large_grids.py's records say how many
// CTAs they count and whether the counts are an estimate, with the reason
// the hover gives: the five persistent kernels whose CTAs run their loop
// different numbers of times, kernel and call alike.
func TestScaledMemory(t *testing.T) {
	src, err := os.ReadFile("../testdata/memory/large_grids.py")
	if err != nil {
		t.Fatal(err)
	}
	res := lower.Analyze(source.NewFile("large_grids.py", src), lower.Options{})
	var doc struct {
		Files []struct {
			Kernels []struct {
				Name   string
				Memory struct {
					CTAs      int64   `json:"ctas"`
					Scaled    bool    `json:"scaled"`
					ScaledWhy *string `json:"scaled_why"`
				}
				Calls []struct {
					Memory struct {
						Scaled    bool    `json:"scaled"`
						ScaledWhy *string `json:"scaled_why"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal(JSON(New(Build(res, nil))), &doc); err != nil {
		t.Fatal(err)
	}
	ctas := map[string]int64{"translated": 256, "cluster_leader": 256, "even_persistent": 128, "uneven_persistent": 256,
		"causal_blocks": 256, "causal_tiles": 256, "growing_blocks": 256, "many_growing_blocks": 256}
	ks := doc.Files[0].Kernels
	if len(ks) != len(ctas) {
		t.Fatalf("%d kernels", len(ks))
	}
	for _, k := range ks {
		m := k.Memory
		scaled := k.Name == "uneven_persistent" || strings.HasPrefix(k.Name, "causal_") || strings.HasSuffix(k.Name, "growing_blocks")
		if m.CTAs != ctas[k.Name] || m.Scaled != scaled || (m.ScaledWhy != nil) != scaled {
			t.Errorf("%s: ctas %d, scaled %v, why %v", k.Name, m.CTAs, m.Scaled, m.ScaledWhy)
		}
		if scaled && !strings.HasPrefix(*m.ScaledWhy, "a loop runs as many times as the CTA's index says") {
			t.Errorf("%s: why %q", k.Name, *m.ScaledWhy)
		}
		for _, c := range k.Calls {
			if c.Memory.Scaled != scaled || (c.Memory.ScaledWhy != nil) != scaled {
				t.Errorf("%s: a call's scaled %v, why %v", k.Name, c.Memory.Scaled, c.Memory.ScaledWhy)
			}
		}
	}
}
