package machine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOccupancyMeasured checks the occupancy model against the CUDA
// driver: testdata/occupancy_sm90.txt holds, for 144 kernels written to
// span registers (14 to 254), static shared memory (0 to 48 KiB) and
// named barriers (0 to 16), at 12 block sizes and 10 dynamic shared
// memory sizes, the blocks per SM that
// cudaOccupancyMaxActiveBlocksPerMultiprocessor returned on an H200
// (scripts/occupancy-check, which says how it was measured). Every one
// of the 17,280 answers must be the model's.
func TestOccupancyMeasured(t *testing.T) {
	f, err := os.Open("testdata/occupancy_sm90.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sm, ok := SMOf("sm_90a")
	if !ok {
		t.Fatal("no sm_90a")
	}
	field := func(line, key string) int64 {
		for _, w := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(w, key+"="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				return n
			}
		}
		t.Fatalf("%q: no %s=", line, key)
		return 0
	}
	var dynamic []int64
	var kernel string
	var u Usage
	checked, wrong := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "dynamic="):
			for _, w := range strings.Fields(strings.TrimPrefix(line, "dynamic=")) {
				n, _ := strconv.ParseInt(w, 10, 64)
				dynamic = append(dynamic, n)
			}
		case strings.HasPrefix(line, "kernel "):
			kernel = strings.Fields(line)[1]
			u = Usage{Registers: int(field(line, "registers")), Barriers: int(field(line, "barriers")), StaticShared: field(line, "static")}
		case strings.HasPrefix(line, "threads="):
			u.Threads = int(field(line, "threads"))
			blocks := strings.Fields(line[strings.Index(line, "blocks=")+len("blocks="):])
			if len(blocks) != len(dynamic) {
				t.Fatalf("%s: %d figures for %d dynamic sizes", line, len(blocks), len(dynamic))
			}
			for i, b := range blocks {
				want, _ := strconv.Atoi(b)
				u.DynamicShared = dynamic[i]
				got := sm.Occupancy(u)
				checked++
				if got.BlocksPerSM != want {
					wrong++
					if wrong <= 20 {
						t.Errorf("%s %+v: model %d blocks/SM (limit %s, %v), driver %d", kernel, u, got.BlocksPerSM, got.Limit, got.PerLimit, want)
					}
				}
			}
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < 17000 {
		t.Fatalf("only %d answers read", checked)
	}
	if wrong > 0 {
		t.Errorf("%d of %d answers differ", wrong, checked)
	}
}
