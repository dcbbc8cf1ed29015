package headless

import (
	"context"
	"fmt"
	"os"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/report"
)

// findMachine locates nvcc for --emit ptx/sass and --machine: the
// --nvcc flag, $TILELS_NVCC, nvcc on PATH, then the nvidia-cuda-nvcc
// wheel of $VIRTUAL_ENV. Asking for machine code without an nvcc is a
// usage error.
func (r *runner) findMachine() error {
	c := r.c
	want := c.Emit == "ptx" || c.Emit == "sass"
	if c.Machine && !want && c.Emit != "json" {
		return usagef("--machine needs --emit json (--emit ptx and sass compile anyway)")
	}
	if c.NVCC != "" && !want && !c.Machine {
		return usagef("--nvcc needs --machine or --emit ptx/sass")
	}
	if !want && !c.Machine {
		return nil
	}
	var envs []string
	if v := os.Getenv("VIRTUAL_ENV"); v != "" {
		envs = append(envs, v)
	}
	comp, why := lower.FindMachine(c.NVCC, "--nvcc", envs, 0)
	if comp == nil {
		what := "--machine"
		if want {
			what = "--emit " + c.Emit
		}
		return usagef("%s: %s", what, why)
	}
	r.comp = comp
	return nil
}

// compile compiles the kernels of ks that have CUDA (one nvcc run for
// the file, or the cache) and returns each one's machine view; nil and a
// reported failure when the file does not print or compile.
func (r *runner) compile(f *source.File, ks []*lower.Kernel) map[*lower.Kernel]*lower.MachineKernel {
	var printed []*lower.Kernel
	for _, k := range ks {
		if k.Lowered != nil {
			printed = append(printed, k)
		}
	}
	if len(printed) == 0 {
		return nil
	}
	views, failed, err := lower.MachineCode(context.Background(), r.comp, printed, r.c.Options)
	switch {
	case err != nil:
		fmt.Fprintf(r.errOut(), "tilels: %s: no machine code: %v\n", f.Name, err)
		r.fail()
		return nil
	case failed != "":
		fmt.Fprintf(r.errOut(), "tilels: %s: %s\n", f.Name, failed)
		r.fail()
		return nil
	}
	out := map[*lower.Kernel]*lower.MachineKernel{}
	for i, k := range printed {
		if views[i] != nil {
			out[k] = views[i]
		}
	}
	return out
}

// machineText is the --emit ptx / --emit sass output of ks.
func (r *runner) machineText(f *source.File, res *lower.Result, ks []*lower.Kernel) []byte {
	views := r.compile(f, ks)
	if views == nil {
		return nil
	}
	var printed []*lower.Kernel
	var vs []*lower.MachineKernel
	for _, k := range ks {
		if k.Lowered != nil {
			printed = append(printed, k)
			vs = append(vs, views[k])
		}
	}
	return []byte(lower.MachineText(printed, vs, r.c.Emit))
}

// addMachine sets the machine record of each kernel of doc.
func (r *runner) addMachine(f *source.File, res *lower.Result, ks []*lower.Kernel, doc *report.File) {
	all := ks
	if all == nil {
		all = res.Records()
	}
	if views := r.compile(f, all); views != nil {
		report.AddMachine(doc, res, ks, views)
	}
}
