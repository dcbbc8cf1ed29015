package lower

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
)

// ncuCounters names the columns of testdata/ncu/measured.txt.
var ncuCounters = []string{
	"smsp__inst_executed_op_shared_ld", "smsp__inst_executed_op_shared_st",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st", "l1tex__t_sectors_pipe_lsu_mem_global_op_st",
	"smsp__inst_executed_op_ldsm", "smsp__inst_executed_op_ldgsts",
}

// TestNcuAgreement checks the memory prediction (Kernel.Memory().Total)
// of each kernel in testdata/ncu/measured.txt against the Nsight Compute
// counters measured on an H200 (issue 17: exact agreement on the shared
// and global LSU counters): a change to perf/memory that moves any of
// them away from the hardware fails here.
func TestNcuAgreement(t *testing.T) {
	f, err := os.Open("testdata/ncu/measured.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type want struct {
		kernel string
		vals   []int64
	}
	bySrc := map[string][]want{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 2+len(ncuCounters) {
			t.Fatalf("bad line %q", line)
		}
		w := want{kernel: fs[1]}
		for _, s := range fs[2:] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("bad line %q: %v", line, err)
			}
			w.vals = append(w.vals, v)
		}
		if bySrc[fs[0]] == nil {
			order = append(order, fs[0])
		}
		bySrc[fs[0]] = append(bySrc[fs[0]], w)
	}
	if len(order) < 100 {
		t.Fatalf("only %d programs in testdata/ncu/measured.txt", len(order))
	}
	checked := 0
	for _, src := range order {
		text := ncuSource(t, src)
		res := Analyze(source.NewFile("kernel.py", text), Options{Arch: "sm_90a"})
		var printed []*Kernel
		for _, k := range res.Records() {
			if k.Lowered != nil {
				printed = append(printed, k)
			}
		}
		byName := map[string]*Kernel{}
		for i, s := range Symbols(printed) {
			byName[s] = printed[i]
		}
		for _, w := range bySrc[src] {
			k := byName[w.kernel]
			if k == nil {
				t.Errorf("%s: no kernel %s", src, w.kernel)
				continue
			}
			m := k.Memory()
			if m == nil || m.Total == nil || m.Total.Unknown != "" {
				t.Errorf("%s %s: no prediction", src, w.kernel)
				continue
			}
			tot := m.Total
			got := []int64{
				tot.SharedLoad.Instructions, tot.SharedStore.Instructions,
				tot.SharedLoad.Wavefronts, tot.SharedStore.Wavefronts,
				tot.SharedLoad.Conflicts, tot.SharedStore.Conflicts,
				tot.GlobalLoad.Requests, tot.GlobalLoad.Sectors,
				tot.GlobalStore.Requests, tot.GlobalStore.Sectors,
				tot.Ldmatrix.Instructions, tot.CpAsync.Instructions,
			}
			for i, c := range ncuCounters {
				if got[i] != w.vals[i] {
					t.Errorf("%s %s: %s predicted %d, measured %d", src, w.kernel, c, got[i], w.vals[i])
				}
			}
			checked++
		}
	}
	t.Logf("%d kernels agree with the measured counters", checked)
}

// ncuSource reads a measured program: a golden's kernel.py or a .py file
// under the repository's testdata/.
func ncuSource(t *testing.T, src string) []byte {
	t.Helper()
	p := filepath.Join("..", filepath.FromSlash(src))
	if strings.HasSuffix(src, ".txtar") {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text, ok := ar.Get("kernel.py")
		if !ok {
			t.Fatalf("%s has no kernel.py", src)
		}
		return text
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
