package reduction_test

// Table tests of the reduction variants: each case is a small kernel in
// the DSL, lowered through lower.Analyze (all CUDA variants registered);
// the reduction calls' chosen variants, decline texts (the reference's,
// verbatim), plan items and lowered TIRx / CUDA text are checked.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dispatch/cuda/reduction"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

const head = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, laneid, wg_local_layout

`

// sharedKernel is a kernel of `threads` threads reducing A_smem (shape
// src) into B_smem (shape dst) with call (a Tx expression over them).
func sharedKernel(threads int, src, dst, dt, call string) string {
	return head + fmt.Sprintf(`@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([%d])
    warp = T.warp_id([%d])
    tid = T.thread_id([%d])
    A_smem = T.alloc_buffer(%s, "%s", scope="shared", layout=TileLayout(S[%s]))
    B_smem = T.alloc_buffer(%s, "%s", scope="shared", layout=TileLayout(S[%s]))
    %s
`, max(threads/128, 1), threads/32, threads, src, dt, src, dst, dt, dst, call)
}

const wgmmaFrag = `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    lane_id = T.lane_id([32])
    atom = T.TileLayout(T.S[(1, 2):(2, 1)])
    warp_layout = T.TileLayout(T.S[(8, 4):(4 @ laneid, 1 @ laneid)])
    warp_atom = atom.tile(warp_layout, (8, 4), (1, 2))
    tile = T.TileLayout(T.S[(2, 16):(1, 2)])
    acc = T.alloc_buffer([2, 32], "float32", scope="local", layout=atom.tile(tile, (2, 16), (1, 2)))
    red_atom = T.TileLayout(T.S[(1, 1):(1, 1)])
    red_tile = T.TileLayout(T.S[(2, 1):(1, 1)])
    red = T.alloc_buffer([2], "float32", scope="local", layout=red_atom.tile(red_tile, (2, 1), (1, 1)))
    acc_view = acc.view(16, 128, layout=warp_atom.tile(tile, (2, 16), (8, 8)))
    red_view = red.view(16, 4, layout=red_atom.tile(warp_layout, (8, 4), (1, 1)).tile(red_tile, (2, 1), (8, 4)))
    %s
`

type redCase struct {
	name, src, arch string
	// variant is the expected variant of the first reduction call ("" for
	// none).
	variant string
	// declines maps a variant to its expected bare reason.
	declines map[string]string
	// plan maps plan keys to expected values.
	plan map[string]string
	// tirx and cuda are snippets the lowered kernel must contain.
	tirx, cuda []string
}

var cases = []redCase{
	{
		name:    "shared cta sum over the last axis",
		src:     sharedKernel(32, "(4, 8)", "(4,)", "float32", "Tx.cta.sum(B_smem[:], A_smem[:, :], axes=-1)"),
		variant: "shared",
		declines: map[string]string{
			"packed_add_sum": "unsupported exec_scope cta; src/dst must be local scope with matching dtype on CUDA; dst_len 4 != 1; src ndim 2 != 1; sm_version 90 < 100",
			"local":          "storage scope mismatch: dst shared, src shared; expected ['local']; expected local scope and CUDA target",
		},
		plan: map[string]string{"lanes per output (group)": "8", "shuffle-xor masks": "1, 2, 4 (activemask, width 8)",
			"outputs per step": "4 (1 step)", "barrier": "__syncthreads()"},
		cuda: []string{
			"thread_data_ptr[0] = thread_data_ptr[0] + __shfl_xor_sync(__activemask(), thread_data_ptr[0], 4, 8);",
			"if ((((int)threadIdx.x) % 8) == 0) {",
			"B_smem_ptr[((int)threadIdx.x) / 8] = thread_data_ptr[0];",
			"__syncthreads();",
		},
		tirx: []string{"T.tvm_warp_shuffle_xor(T.tvm_warp_activemask(), thread_data[0], 1, 8, 32)"},
	},
	{
		name:    "shared cta max, odd reduction length and accum",
		src:     sharedKernel(128, "(32, 7)", "(32,)", "float16", "Tx.cta.max(B_smem[:], A_smem[:, :], axes=(1,), accum=True)"),
		variant: "shared",
		plan:    map[string]string{"outputs per step": "16 (2 steps)", "result": "dst = max(dst, thread_data) (lane 0 of each group)"},
		cuda: []string{
			"if ((((int)threadIdx.x) % 8) < 7) {",
			"__hmax(B_smem_ptr[(step * 16) + (((int)threadIdx.x) / 8)], thread_data_ptr[0])",
		},
	},
	{
		name:     "shared dtype mismatch",
		src:      sharedKernel(32, "(4, 8)", "(4,)", "float32", `C = T.alloc_buffer((4,), "float16", scope="shared")`+"\n    Tx.cta.sum(C[:], A_smem[:, :])"),
		declines: map[string]string{"shared": "dtype mismatch: src=float32 dst=float16"},
	},
	{
		name:     "shared axis out of range",
		src:      sharedKernel(32, "(4, 8)", "(4,)", "float32", "Tx.cta.min(B_smem[:], A_smem[:, :], axes=2)"),
		declines: map[string]string{"shared": "reduce axis 2 out of range for ndim=2"},
	},
	{
		name:     "shared dst size",
		src:      sharedKernel(32, "(4, 8)", "(8,)", "float32", "Tx.cta.min(B_smem[:], A_smem[:, :], axes=-1)"),
		declines: map[string]string{"shared": "dst size 8 != expected spatial size 4"},
	},
	{
		name:    "shared at warpgroup scope",
		src:     sharedKernel(256, "(4, 8)", "(4,)", "float32", "if wg == 0:\n        Tx.wg.sum(B_smem[:], A_smem[:, :])"),
		variant: "shared",
		tirx:    []string{"tid_in_scope = threadIdx.x % 128", "T.cuda.warpgroup_sync(8)"},
	},
	{
		name:    "shared at thread scope",
		src:     sharedKernel(32, "(4, 8)", "(4,)", "float32", "if tid == 3:\n        Tx.sum(B_smem[:], A_smem[:, :], accum=True)"),
		variant: "shared",
		plan:    map[string]string{"outputs": "4", "serial per output": "8", "init": "accum: dst's value is folded in"},
		cuda:    []string{"B_smem_ptr[spa_fused] = B_smem_ptr[spa_fused] + A_smem_ptr[(spa_fused * 8) + red_fused];"},
	},
	{
		name: "local thread-wise, two axes",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A = T.alloc_buffer((3, 4, 5), "float32", scope="local")
    B = T.alloc_buffer((4,), "float32", scope="local")
    Tx.sum(B[:], A[:, :, :], axes=(0, 2))
`,
		variant:  "local",
		declines: map[string]string{"packed_add_sum": "dst_len 4 != 1; src ndim 3 != 1; sm_version 90 < 100"},
		plan:     map[string]string{"outputs": "4", "serial per output": "15", "init": "dst = 0"},
		tirx:     []string{"B[spa] = B[spa] + A[red // 5, spa, red % 5]"},
	},
	{
		name:    "local warp view, thread_reduce over an MMA fragment",
		src:     head + fmt.Sprintf(wgmmaFrag, "Tx.warp.sum(red_view, acc_view, thread_reduce=True)"),
		variant: "local",
		plan: map[string]string{"outputs per thread": "2", "serial per output": "32",
			"shuffle-xor masks": "1, 2 (activemask, width 32)"},
		cuda: []string{
			"unsigned int mask = __activemask();",
			"dst_local_ptr[spa] = dst_local_ptr[spa] + __shfl_xor_sync(mask, dst_local_ptr[spa], 2, 32);",
			"src_local_ptr[((spa * 2) + ((red / 2) * 4)) + (red % 2)]",
		},
	},
	{
		name:    "local warp view, accum with shuffle saves the old value",
		src:     head + fmt.Sprintf(wgmmaFrag, "Tx.warp.max(red_view, acc_view, thread_reduce=True, accum=True)"),
		variant: "local",
		plan:    map[string]string{"accum": "old dst saved in old_val, folded in after the shuffles"},
		cuda:    []string{"old_val_ptr[0] = dst_local_ptr[spa];", "dst_local_ptr[spa] = max(dst_local_ptr[spa], old_val_ptr[0]);"},
	},
	{
		name:    "local warp view without thread_reduce keeps partials",
		src:     head + fmt.Sprintf(wgmmaFrag, "Tx.warp.sum(red_view, acc_view)"),
		variant: "local",
		plan: map[string]string{"shuffle": "none (thread_reduce=False)",
			"result": "per-thread partial results: the reduce dims also lie on threads"},
	},
	{
		name:    "local warp view, in place shuffle only",
		src:     head + fmt.Sprintf(wgmmaFrag, "Tx.warp.min(red_view, red_view, thread_reduce=True)"),
		variant: "local",
		plan:    map[string]string{"in place": "src is dst: shuffle only", "serial per output": "1"},
	},
	{
		name: "local warp shuffle, shard to replica",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    src = T.alloc_buffer([4], "float32", scope="local")
    dst = T.alloc_buffer([4], "float32", scope="local")
    sv = src.view(128, layout=TileLayout(S[(32, 4):(1 @ laneid, 1)]))
    dv = dst.view(4, layout=TileLayout(S[4:1] + R[32:1 @ laneid]))
    Tx.warp.max(dv, sv)
`,
		variant: "local",
		plan:    map[string]string{"registers per lane": "4", "lanes per result": "32", "shuffle-xor masks": "16, 8, 4, 2, 1 (full-warp mask 0xFFFFFFFF)"},
		cuda: []string{
			"dst_local_ptr[k] = tvm_builtin_cuda_warp_reduce_max_32(dst_local_ptr[k]);",
			"T shuffled = __shfl_xor_sync(0xFFFFFFFF, val, mask);",
		},
		tirx: []string{`T.cuda.warp_reduce(dst_local[k], "max", 32)`},
	},
	{
		name: "warpgroup thread_reduce is rejected",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.warpgroup_id([1])
    T.thread_id_in_wg([128])
    src = T.alloc_buffer((128, 16), "float32", scope="local", layout=wg_local_layout(16))
    dst = T.alloc_buffer((128, 1), "float32", scope="local", layout=wg_local_layout(1))
    Tx.wg.sum(dst, src, axes=-1, thread_reduce=True)
`,
		declines: map[string]string{"local": "thread_reduce=True is only supported in warp scope; warpgroup local reduction is thread-local only"},
	},
	{
		name: "local view layout mismatch",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    acc = T.alloc_buffer((1, 4, 8), "float32", scope="local")
    red = T.alloc_buffer((1, 4, 1), "float32", scope="local")
    av = acc.view(32, 4, 8, layout=TileLayout(S[(32, 4, 8):(1 @ laneid, 8, 1)]))
    rv = red.view(32, 4, 1, layout=TileLayout(S[(32, 4, 1):(1 @ laneid, 1, 1)]))
    Tx.warp.sum(rv, av, axes=1)
`,
		declines: map[string]string{"local": "mismatch dst/src layout for reduction"},
	},
	{
		name: "sm100 packed add sum",
		arch: "sm_100a",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A = T.alloc_buffer((100,), "float32", scope="local")
    B = T.alloc_buffer((1,), "float32", scope="local")
    Tx.sum(B[:], A[:], accum=True)
`,
		variant: "packed_add_sum",
		plan:    map[string]string{"chunks of 8": "12 (44 packed adds after the first)", "scalar tail": "4 into local_sum[0]"},
		cuda: []string{
			"local_sum_ptr[0] = A_ptr_1[0] + B_ptr[0];",
			"tvm_builtin_ptx_add_f32x2_rn_ftz((&(local_sum_ptr[0])), tvm_builtin_make_float2(local_sum_ptr[0], local_sum_ptr[1]), tvm_builtin_make_float2(local_sum_ptr[2], local_sum_ptr[3]));",
			`asm volatile("add.rn.ftz.f32x2 %0, %1, %2;"`,
			"B_ptr[0] = local_sum_ptr[0] + local_sum_ptr[1];",
		},
	},
	{
		name: "sm100 3-input max",
		arch: "sm_100a",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A = T.alloc_buffer((32,), "float32", scope="local")
    B = T.alloc_buffer((1,), "float32", scope="local")
    Tx.max(B[:], A[3:20])
`,
		variant: "3input_maxmin",
		cuda: []string{
			"temp_ptr[0] = max(A_ptr_1[3], A_ptr_1[4]);",
			"temp_ptr[0] = max(temp_ptr[0], A_ptr_1[19]);",
			"B_ptr[0] = tvm_builtin_ptx_reduce3_max_f32(B_ptr[0], temp_ptr[2], temp_ptr[3]);",
		},
	},
	{
		name: "sm100 packed rejects short and float16 sources",
		arch: "sm_100a",
		src: head + `@T.prim_func
def k(A_ptr: T.handle):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    A = T.alloc_buffer((7,), "float16", scope="local")
    B = T.alloc_buffer((1,), "float16", scope="local")
    Tx.min(B[:], A[:])
`,
		variant:  "local",
		declines: map[string]string{"3input_maxmin": "dtype float16 != float32; reduction_len 7 < 8"},
	},
}

func TestReductionVariants(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			arch := c.arch
			if arch == "" {
				arch = "sm_90a"
			}
			res := lower.Analyze(source.NewFile("k.py", []byte(c.src)), lower.Options{Arch: arch, Reference: "0.25"})
			if len(res.Kernels) != 1 {
				t.Fatalf("%d kernels", len(res.Kernels))
			}
			k := res.Kernels[0]
			var d *dispatch.Decision
			for _, x := range k.Calls {
				if x.Call.Op == "sum" || x.Call.Op == "max" || x.Call.Op == "min" {
					d = x
					break
				}
			}
			if d == nil {
				t.Fatal("no reduction call")
			}
			if d.Variant != c.variant {
				t.Errorf("variant %q, want %q (declined %+v)", d.Variant, c.variant, d.Declined)
			}
			got := map[string]string{}
			for _, r := range d.Declined {
				got[r.Variant] = r.Reason
			}
			for v, want := range c.declines {
				if got[v] != want {
					t.Errorf("%s declined %q\n want %q", v, got[v], want)
				}
			}
			if d.Result != nil {
				pl := map[string]string{}
				for _, p := range d.Result.Plan {
					pl[p.Key] = p.Value
				}
				for key, want := range c.plan {
					if pl[key] != want {
						t.Errorf("plan %q = %q, want %q", key, pl[key], want)
					}
				}
			} else if len(c.plan) > 0 {
				t.Errorf("no result for plan checks")
			}
			if len(c.tirx) > 0 {
				text := lower.TIRx(res.Kernels)
				for _, s := range c.tirx {
					if !strings.Contains(text, s) {
						t.Errorf("TIRx lacks %q:\n%s", s, text)
					}
				}
			}
			if len(c.cuda) > 0 {
				cu, err := lower.CUDA(res.Kernels, lower.Options{Arch: arch})
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range c.cuda {
					if !strings.Contains(cu, s) {
						t.Errorf("CUDA lacks %q:\n%s", s, cu)
					}
				}
			}
		})
	}
}

// TestRegistration checks names, priorities and order against the
// reference's registration (local, shared, sm100_packed; sum, max, min).
func TestRegistration(t *testing.T) {
	var got []string
	for _, v := range reduction.Variants() {
		var preds []string
		for _, p := range v.When {
			preds = append(preds, p.Name)
		}
		got = append(got, fmt.Sprintf("%s/%s/%d/%s", v.Op, v.Name, v.Priority, strings.Join(preds, ",")))
	}
	packed := "exec_scope,local_scope,dst_len,src_ndim,dtype,sm_version,reduction_len"
	want := []string{
		"sum/local/10/storage_scope,local_valid", "max/local/10/storage_scope,local_valid", "min/local/10/storage_scope,local_valid",
		"sum/shared/10/storage_scope,shared_valid", "max/shared/10/storage_scope,shared_valid", "min/shared/10/storage_scope,shared_valid",
		"sum/packed_add_sum/20/" + packed, "max/3input_maxmin/20/" + packed, "min/3input_maxmin/20/" + packed,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("variants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHarnessReference checks the host reference of the GPU harness
// (codegen/harness/ref_reduction.go): generated for calls whose result is
// the logical reduction, refused with a reason for the others.
func TestHarnessReference(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // snippets of the harness, or of the refusal
		refused   bool
	}{
		{"shared sum with accum", sharedKernel(32, "(4, 8)", "(4,)", "float32",
			"Tx.cta.sum(B_smem[:], A_smem[:, :], accum=True)"),
			[]string{"acc = tl_round(TL_F32, acc + v);", "double acc = tl_load(", "for (long long r = 0; r < 8; r++) {"}, false},
		{"max over the first axis", sharedKernel(32, "(4, 8)", "(8,)", "float16",
			"Tx.cta.max(B_smem[:], A_smem[:, :], axes=0)"),
			[]string{"acc = tl_round(TL_F16, std::fmax(acc, v));", "double acc = -INFINITY;"}, false},
		{"in place", head + fmt.Sprintf(wgmmaFrag, "Tx.warp.min(red_view, red_view, thread_reduce=True)"),
			[]string{"src == dst (an in-place shuffle of partial results) is not modelled"}, true},
		{"partial per thread", head + fmt.Sprintf(wgmmaFrag, "Tx.warp.sum(red_view, acc_view)"),
			[]string{"without thread_reduce leaves per-thread partial results"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(c.src, "def k(A_ptr: T.handle):", "def k(A_ptr: T.handle):\n    A = T.match_buffer(A_ptr, (4,), \"float32\")", 1)
			res := lower.Analyze(source.NewFile("k.py", []byte(src)), lower.Options{Reference: "0.25"})
			out, unchecked, err := lower.Harness(res.File, res.Kernels, lower.Options{})
			text := out
			if err != nil {
				text = err.Error()
			}
			for _, u := range unchecked {
				text = u.Error() // (the reference refused it: launched unchecked)
			}
			refused := err != nil || len(unchecked) > 0
			if refused != c.refused {
				t.Fatalf("refused = %v, want %v: %s", refused, c.refused, text)
			}
			for _, s := range c.want {
				if !strings.Contains(text, s) {
					t.Errorf("lacks %q:\n%s", s, text)
				}
			}
		})
	}
}
