// Package lower is the pipeline both front doors call: the CLI (tilels
// --lower) and the language server. Analyze parses a Python file, evaluates
// its kernels, runs the dispatcher on every tile call and keeps everything a
// client may ask for: decisions, diagnostics, lowered IR. Printing CUDA and
// TIRx text is done on demand from the Result.
//
// Invariant: Analyze never fails and never panics on user input; every
// problem becomes a diagnostic with a span, and a problem in one kernel or
// call never hides the results of the others.
package lower

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/dispatch"
	dcuda "github.com/tilels/tilels/dispatch/cuda"
	dtrn "github.com/tilels/tilels/dispatch/trn"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/dsl/tirxlib"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Options configure an analysis.
type Options struct {
	// Arch is the CUDA target architecture. Empty means automatic, per
	// kernel (AutoArch): sm_100a for a kernel that uses Blackwell-only
	// features (tensor memory, gemm_async, tcgen05 intrinsics), else sm_90a.
	Arch string
	// MaxCases caps the bound cases analysed per kernel def, parametrize
	// grid and CONFIGS list (eval.DefaultMaxCases, 64, when 0).
	MaxCases int
	// Bind holds parameter bindings from a setting, in the syntax of the
	// `# tilels: bind` directive, keyed by function name: {"make_gemm":
	// "M=4096, dtype='float16'"} (see docs/binding.md).
	Bind map[string]string
	// Path is the analysed file's path on disk ("" when it has none):
	// relative imports resolve from its directory, and its package root
	// (the first ancestor directory without __init__.py) is the first
	// import root. ImportRoots are more directories absolute imports of
	// workspace modules resolve under (workspace folders, extra paths),
	// in order. ReadFile reads an imported module (nil: os.ReadFile), so
	// the language server can serve unsaved buffers. See
	// dsl/eval/imports.go and docs/imports.md.
	Path        string
	ImportRoots []string
	ReadFile    func(path string) ([]byte, error)
	// Reference is the reference release to model: "0.25", "0.26",
	// "0.27" (or a full version), or ""/"auto" to choose (ChooseReference:
	// Installed, else what the file shows, else the newest). Installed is
	// the apache-tvm of the workspace's Python environment (FindInstalled),
	// found once by the caller; the zero value when there is none.
	Reference string
	Installed Installed
	// LineDirectives, when set, makes CUDA and Harness print #line
	// directives that map the kernels back to the .py
	// (cuda.LineDirectives); nil prints none. It changes no analysis.
	// The language server's Prints ignores it: its views are for reading,
	// and a kernel a session kept from an earlier analysis has spans in
	// that analysis' coordinates (KernelView.Shift).
	LineDirectives *cuda.LineDirectives
	// PerfAhead, when > 0, computes the memory figures and performance
	// warnings of up to that many kernels as each is dispatched, on the
	// dispatching goroutines while the evaluator goes on (perf_ahead.go);
	// the language server publishes them with every version. It changes
	// no result.
	PerfAhead int
	// PerfWork, when > 0, bounds each of those kernels' memory analysis
	// (statements the machine executes, perf/memory.AnalyzeWithin): a
	// kernel that takes more is left for Snapshot.PerfDiags to compute
	// whole (the language server's second publish). It changes no result.
	PerfWork int64

	// cancel, when set, is asked during the analysis whether it is still
	// wanted (a session's context: Session.Analyze); once it says no, the
	// evaluation halts, nothing more is dispatched and the Result is
	// marked cancelled, to be discarded.
	cancel func() bool
	// oneCase, with MaxCases 1, is the CONFIGS case to analyse instead of
	// the first (eval.Options.OneCase; a session's preview).
	oneCase string

	// chosen, when set, is the reference to use as it is (a session's
	// reduced analysis uses the whole file's).
	chosen *Reference
	// guess, when set, is the reference a session expects: the analysis
	// runs under it while the reference is chosen (session_guess.go).
	guess *Reference
}

// cancelled reports whether the analysis is no longer wanted (cancel).
func (opts Options) cancelled() bool { return opts.cancel != nil && opts.cancel() }

// importRoots returns the import roots of opts: the package root of
// opts.Path, then opts.ImportRoots, without repeats.
func (opts Options) importRoots() []string {
	var out []string
	add := func(d string) {
		if d == "" {
			return
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if opts.Path != "" {
		add(PackageRoot(opts.Path))
	}
	for _, r := range opts.ImportRoots {
		add(r)
	}
	return out
}

// PackageRoot returns Python's package root of the file at path: the
// first ancestor directory that has no __init__.py.
func PackageRoot(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return dir
		}
		dir = up
	}
}

// Result is everything known about one file.
type Result struct {
	File    *source.File
	Syntax  *syntax.File
	Program *eval.Program
	// Kernels holds one record per kernel and bound case, aligned with
	// Program.Kernels: the records of one def are adjacent, in case order.
	Kernels []*Kernel
	// Partial holds one record per kernel def whose every evaluation needed
	// an unbound parameter (aligned with Program.Partial): nothing is
	// dispatched or printed for it, and its tile calls are Unresolved.
	Partial []*Kernel
	// Diags holds every diagnostic of the file, sorted by position.
	Diags []diag.Diagnostic
	// Imports lists the files of the workspace modules the analysis read
	// (eval.Program.Imports): the file must be analysed again when one
	// of them changes.
	Imports []string
	// Reference is the reference release the file was analysed under.
	Reference Reference
	// cancelled marks an analysis given up midway (Options.cancel): only
	// File and Syntax are set.
	cancelled bool
	// aside computes the kernels' figures as they were dispatched
	// (AnalyzeAside; nil for Analyze)
	aside *figuresAside
}

// Kernel is one analysed @T.prim_func.
type Kernel struct {
	Name string
	Span source.Span
	// Func is the evaluated kernel, Lowered the kernel after dispatch.
	Func    *ir.Func
	Lowered *ir.Func
	Launch  ir.Launch
	// Calls holds one decision per tile call, in source order.
	Calls []*dispatch.Decision
	// Case is the parameter binding this kernel was evaluated under, each
	// value a Python literal (nil when no parameters were bound).
	// CaseNames lists its keys in parameter order and CaseLabel renders it
	// as keyword arguments ("dtype='float16', M=128"). CaseID is the pytest
	// id or CONFIGS label that produced the case, CaseSource the binding
	// source (eval.Kernel.CaseSource). CaseIndex (1-based) and CaseCount
	// number the records of one def (1 and 1 for a kernel without cases).
	Case                 map[string]string
	CaseNames            []string
	CaseLabel            string
	CaseID, CaseSource   string
	CaseIndex, CaseCount int
	// Needs is set on a partial record (Result.Partial): the parameters its
	// evaluation needed but no binding source gave. Unresolved lists its
	// tile calls, in source order; none of them is dispatched.
	Needs      []string
	Unresolved []UnresolvedCall
	// Foreign is set on the record of a kernel written for another target
	// than CUDA ("trn"); it is kept in Result.Partial, its calls in
	// Unresolved with NotModelled set.
	Foreign string
	// Diags holds the diagnostics whose span lies inside the kernel.
	Diags []diag.Diagnostic
	// Arch is the CUDA arch the kernel was analysed for (Options.Arch, or
	// AutoArch when that is empty); "trn1" for a Trainium kernel.
	Arch string

	// mem caches the memory figures (Memory, memory.go).
	mem *memCell
	// Target is "trn" for a Trainium kernel, dispatched by the Trainium
	// variants (dispatch/trn) and never printed as CUDA; "" for CUDA.
	Target string
}

// Target returns the dispatch target for o: its Arch, or sm_90a when
// automatic (KernelTarget chooses per kernel then).
func (o Options) Target() dispatch.Target {
	arch := o.Arch
	if arch == "" {
		arch = "sm_90a"
	}
	return dispatch.Target{Kind: "cuda", Arch: arch}
}

// KernelTarget is the dispatch target of one kernel: o's Arch when set,
// else AutoArch(fn).
func (o Options) KernelTarget(fn *ir.Func) dispatch.Target {
	return o.kernelTarget(fn, release.R025)
}

func (o Options) kernelTarget(fn *ir.Func, rel release.Release) dispatch.Target {
	if t, ok := trnTarget(fn, rel); ok { // trn.go
		return t
	}
	if o.Arch != "" {
		return dispatch.Target{Kind: "cuda", Arch: o.Arch, Release: rel}
	}
	return dispatch.Target{Kind: "cuda", Arch: AutoArch(fn), Release: rel}
}

// AutoArch is the arch a kernel is analysed for when the user sets none:
// sm_100a when it uses what only Blackwell has (a tensor-memory buffer, a
// gemm_async call, a tcgen05 intrinsic or another intrinsic statement
// whose instruction needs sm_100: codegen/cuda.NeedsBlackwell), else
// sm_90a (H100/H200). The
// dispatcher, like TVM's, picks variants without regard to the arch, so a
// Blackwell kernel analysed as sm_90a would report every tcgen05 lowering
// as above the target.
func AutoArch(fn *ir.Func) string {
	if fn == nil {
		return "sm_90a"
	}
	blackwell := false
	check := func(b *ir.Buffer) {
		if b != nil && b.Scope == "tmem" {
			blackwell = true
		}
	}
	for _, p := range fn.Params {
		check(p.Buf)
	}
	for _, blk := range []*ir.Block{fn.Host, fn.Body} {
		if blk == nil {
			continue
		}
		ir.WalkStmts(blk, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Alloc:
				check(s.Buf)
			case *ir.Decl:
				check(s.Buf)
			case *ir.TileCall:
				// gemm_async is tcgen05's; a copy forced to vec_256b
				// moves 32 bytes per thread with ld/st .v8 (sm_100); a
				// TMA gather4 is sm_100's (tma_explicit: "gather4
				// requires SM100+")
				if s.Op == "gemm_async" || s.Dispatch == "vec_256b" || hasConfig(s, "gather4") {
					blackwell = true
				}
			case *ir.Evaluate:
				if c, ok := s.X.(*ir.Call); ok && (strings.Contains(c.Op, "tcgen05") || cuda.NeedsBlackwell(c.Op)) {
					blackwell = true
				}
			}
		})
		if blackwell {
			return "sm_100a"
		}
	}
	return "sm_90a"
}

// hasConfig reports whether tc was given the keyword config key.
func hasConfig(tc *ir.TileCall, key string) bool {
	for _, kv := range tc.Config {
		if kv.Key == key {
			return true
		}
	}
	return false
}

// PrintArch is the arch a .cu file of ks is printed for: o's Arch when
// set, else the newest arch among the kernels' (sm_100a when one needs it).
func PrintArch(ks []*Kernel, o Options) string {
	if o.Arch != "" {
		return o.Arch
	}
	arch := "sm_90a"
	for _, k := range ks {
		if k.Arch == "sm_100a" {
			arch = k.Arch
		}
	}
	return arch
}

// Variants is the CUDA variant table the pipeline dispatches with.
func Variants() []dispatch.Variant { return dcuda.Variants() }

// registry is built once from Variants and shared by every Analyze (it is
// safe for concurrent use): building it per kernel cost 8.5% of
// BenchmarkDispatch3000 CPU and 8.9k of its allocations per op.
var registry = sync.OnceValue(func() *dispatch.Registry {
	return dispatch.NewRegistry(append(Variants(), dtrn.Variants()...))
})

// Analyze runs the whole pipeline on f.
func Analyze(f *source.File, opts Options) *Result {
	return analyze(f, opts, nil)
}

// analyze is Analyze, with the figures of its kernels computed aside as
// they are dispatched when aside is not nil (AnalyzeAside).
func analyze(f *source.File, opts Options, aside *figuresAside) *Result {
	res := &Result{File: f}
	syn, diags := syntax.Parse(f)
	res.Syntax = syn
	res.Diags = append(res.Diags, diags...)
	ref, checkRef := opts.referenceFor(syn) // session_guess.go
	res.Reference = ref
	res.Diags = append(res.Diags, referenceDirectiveDiags(syn)...)
	rel := res.Reference.Release

	reg := registry()
	// Kernels are independent: each is dispatched as soon as its
	// evaluation ends (eval.Options.OnKernel: its IR is final then), on
	// other goroutines while the evaluator goes on with the rest of the
	// file, and the results are assembled in Program.Kernels' order, so
	// the output is that of a sequential run (TestParallelDeterministic).
	// Measured on 2 cores, BenchmarkAnalyze3000: dispatching after
	// evaluation, concurrently, 16.8 -> 15.0 ms/op (medians of 5, against
	// one worker); overlapping it with evaluation, 27.2 -> 22.9 ms/op
	// (another machine pinned to 2 cores, medians of 6, p=0.004).
	var mu sync.Mutex
	done := map[*eval.Kernel]*dispatch.Output{}
	arches := map[*eval.Kernel]string{}                  // the target's arch (AutoArch walks the kernel)
	ahead := newPerfAhead(opts.PerfAhead, opts.PerfWork) // perf_ahead.go
	dispatchOne := func(k *eval.Kernel) {
		if opts.cancelled() {
			mu.Lock()
			done[k] = &dispatch.Output{}
			mu.Unlock()
			return
		}
		target := opts.kernelTarget(k.Func, rel)
		out := reg.Lower(k.Func, target)
		if target.IsCUDA() {
			out.Diags = append(out.Diags, archDiags(out, target.Arch)...)
			out.Diags = append(out.Diags, partialWarpDiags(f, k.Func)...) // fix_launch.go
		}
		cell := ahead.compute(out, target.Arch)
		if cell == nil {
			cell = aside.cell(out, target.Arch) // figures_aside.go
		}
		mu.Lock()
		done[k], arches[k] = out, target.Arch
		if cell != nil {
			ahead.cells[k] = cell
		}
		mu.Unlock()
	}
	p := newPipe(dispatchOne)
	prog := eval.Evaluate(syn, eval.Options{Library: tirxlib.Library(), MaxCases: opts.MaxCases, Bind: opts.Bind, OnKernel: p.add, Release: rel,
		Path: opts.Path, ImportRoots: opts.importRoots(), ReadFile: opts.ReadFile, Cancelled: opts.cancel, OneCase: opts.oneCase})
	panics := p.wait()
	if opts.cancelled() {
		aside.close(true)
		res.cancelled = true
		return res
	}
	r, again := checkRef()
	if again {
		aside.close(true)
		opts.guess, opts.chosen = nil, &r
		if aside != nil {
			aside = newFiguresAside(aside.figures, aside.warnings)
		}
		return analyze(f, opts, aside)
	}
	// the goroutine ends once it has computed what was queued: every
	// kernel is dispatched now
	defer aside.close(false)
	res.aside = aside
	res.Reference = r
	res.Program = prog
	res.Imports = prog.Imports
	res.Diags = append(res.Diags, prog.Diags...)
	outs := make([]*dispatch.Output, len(prog.Kernels))
	for i, k := range prog.Kernels {
		if r, ok := panics[k]; ok {
			panic(r) // the first a sequential run would have met
		}
		if outs[i] = done[k]; outs[i] == nil {
			dispatchOne(k) // not handed over: a bug, but keep the result whole
			outs[i] = done[k]
		}
	}
	// own[i] holds the unmerged diagnostics of a record of a def with
	// several cases (nil when there is none).
	var own [][]diag.Diagnostic
	var foreign []*eval.Kernel // kernels for another target (dispatch.Output.Foreign)
	for lo := 0; lo < len(prog.Kernels); {
		hi := lo + 1
		for hi < len(prog.Kernels) && prog.Kernels[hi].Def == prog.Kernels[lo].Def {
			hi++
		}
		if out := outs[lo]; out.Foreign != "" {
			// Another target's kernel: one record (its cases would
			// dispatch nothing either), kept with the partial records
			// and aligned with Program.Partial as they are; every
			// case's evaluator diagnostics and one note at the def.
			k := prog.Kernels[lo]
			res.Partial = append(res.Partial, foreignRecord(k, out))
			foreign = append(foreign, k)
			for i := lo; i < hi; i++ {
				res.Diags = append(res.Diags, prog.Kernels[i].Diags...)
			}
			at := k.Func.Span
			if k.Func.NameSpan.IsValid() {
				at = k.Func.NameSpan
			}
			d := diag.Infof(at, CodeNotCUDA, "%s (%s); tilels models the CUDA dispatcher only, so its tile calls are not dispatched", NotCUDA(out.Foreign), out.ForeignWhy)
			d.Related = []diag.Related{{Span: out.ForeignSpan, Message: out.ForeignWhy}}
			res.Diags = append(res.Diags, d)
			lo = hi
			continue
		}
		for i := lo; i < hi; i++ {
			k, out := prog.Kernels[i], outs[i]
			kr := &Kernel{Name: k.Func.Name, Span: k.Func.Span, Func: k.Func, mem: ahead.cell(k)}
			caseRecord(kr, k)
			kr.Lowered = out.Func
			kr.Arch = arches[k]
			if kr.Arch == trnArch {
				kr.Target = "trn"
			}
			kr.Launch = out.Launch
			kr.Calls = out.Decisions
			res.Kernels = append(res.Kernels, kr)
			if hi-lo == 1 {
				res.Diags = append(res.Diags, k.Diags...)
				res.Diags = append(res.Diags, dropCascades(out, k.Diags, prog.Diags)...)
			}
		}
		if hi-lo > 1 {
			if own == nil {
				own = make([][]diag.Diagnostic, len(prog.Kernels))
			}
			res.Diags = append(res.Diags, caseDiags(prog.Kernels[lo:hi], outs[lo:hi], prog, own[lo:hi])...)
		}
		lo = hi
	}
	numberCases(res.Kernels)
	if len(foreign) > 0 {
		// Result.Kernels stays aligned with Program.Kernels and
		// Result.Partial with Program.Partial (the session relies on
		// both): the foreign kernels move to the front of Partial.
		kept := prog.Kernels[:0:0]
		for i, k := range prog.Kernels {
			if outs[i].Foreign == "" {
				kept = append(kept, k)
			}
		}
		prog.Kernels = kept
		prog.Partial = append(foreign, prog.Partial...)
	}
	for _, k := range prog.Partial[len(foreign):] {
		res.Partial = append(res.Partial, partialRecord(k))
	}
	diag.Sort(res.Diags)
	res.Diags = dedup(res.Diags)
	didYouMean(f, res.Diags) // fix.go
	for i, kr := range res.Kernels {
		var mine []diag.Diagnostic
		if own != nil {
			mine = own[i]
		}
		kr.Diags = append(kr.Diags, mine...)
		for _, d := range res.Diags {
			if d.Span.Start >= kr.Span.Start && d.Span.Start < kr.Span.End && (mine == nil || ownsDiag(d)) {
				kr.Diags = append(kr.Diags, d)
			}
		}
		if mine != nil {
			diag.Sort(kr.Diags)
		}
	}
	for _, kr := range res.Partial {
		for _, d := range res.Diags {
			if d.Span.Start >= kr.Span.Start && d.Span.Start < kr.Span.End {
				kr.Diags = append(kr.Diags, d)
			}
		}
	}
	res.addSiteDiags() // sites.go
	return res
}

// dropCascades removes dispatch/no-variant errors for calls whose arguments
// the evaluator already reported an error in: the evaluator's message names
// the real problem (a missing layout, a bad index), the dispatcher's would only
// repeat that no variant accepts the broken operands.
func dropCascades(out *dispatch.Output, evalDiags ...[]diag.Diagnostic) []diag.Diagnostic {
	drop := map[source.Span]bool{}
	for _, d := range out.Decisions {
		if d.Variant == "" && covered(d.Call.Span, evalDiags...) {
			drop[d.Call.Span] = true
			drop[d.Call.OpSpan] = true
		}
	}
	var kept []diag.Diagnostic
	for _, d := range out.Diags {
		if d.Code == "dispatch/no-variant" && drop[d.Span] {
			continue
		}
		kept = append(kept, d)
	}
	return kept
}

func covered(call source.Span, lists ...[]diag.Diagnostic) bool {
	for _, l := range lists {
		for _, e := range l {
			if e.Severity == diag.Error && e.Span.Start >= call.Start && e.Span.End <= call.End {
				return true
			}
		}
	}
	return false
}

func dedup(ds []diag.Diagnostic) []diag.Diagnostic {
	out := ds[:0]
	for i, d := range ds {
		if i > 0 {
			p := ds[i-1]
			if p.Span == d.Span && p.Code == d.Code && p.Message == d.Message && p.Severity == d.Severity {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// HasErrors reports whether any diagnostic is an error.
func (r *Result) HasErrors() bool {
	for _, d := range r.Diags {
		if d.Severity == diag.Error {
			return true
		}
	}
	return false
}

// Select returns the kernels named name (all kernels when name is empty).
func (r *Result) Select(name string) []*Kernel {
	if name == "" {
		return r.Kernels
	}
	var out []*Kernel
	for _, k := range r.Kernels {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

// CUDA prints the .cu file for the given kernels.
func CUDA(ks []*Kernel, opts Options) (string, error) {
	ks = CUDAKernels(ks)
	var in []cuda.Kernel
	for _, k := range ks {
		in = append(in, cuda.Kernel{Func: caseFunc(k), Launch: k.Launch})
	}
	return cuda.Print(in, cuda.Options{Arch: PrintArch(ks, opts), Lines: opts.LineDirectives})
}

// TIRx prints the lowered TIRx IR of the given kernels.
func TIRx(ks []*Kernel) string {
	// One builder, not s += per kernel: the copies were quadratic in the
	// number of kernels (TIRx of the 3,000-line file's 200 kernels: 17.5 →
	// 5.0 ms/op, 54 → 3.3 MB/op).
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(tirx.Print(caseFunc(k), k.Launch))
	}
	return b.String()
}

// Symbols returns, for each kernel of ks, the name of its CUDA function
// without "_kernel" ("copy" for copy_kernel, "copy_case3"; "copy_1" for
// copy_kernel_1 when two printed kernels would share a name), which is also
// the name the harness reports it under. The names are those of a .cu file
// printed for exactly ks.
func Symbols(ks []*Kernel) []string {
	in := make([]cuda.Kernel, len(ks))
	for i, k := range ks {
		in[i] = cuda.Kernel{Func: caseFunc(k), Launch: k.Launch}
	}
	kernels, _ := cuda.Symbols(in)
	out := make([]string, len(ks))
	for i, n := range kernels {
		name := in[i].Func.Name
		out[i] = name + strings.TrimPrefix(n, name+"_kernel")
	}
	return out
}

// Harness prints the .cu file of ks followed by a self-checking main()
// (codegen/harness): random inputs, each kernel launched through its
// launcher and compared with its host reference. A kernel with a call no
// variant lowers, or that the harness cannot launch, is an error; a
// *harness.Unsupported carries the span to report. A kernel with a
// construct only the reference does not model is launched unchecked:
// unchecked says why, one per such kernel. f is the file the kernels come
// from (messages name its lines).
func Harness(f *source.File, ks []*Kernel, opts Options) (cu string, unchecked []*harness.Unsupported, err error) {
	ks = CUDAKernels(ks)
	for _, k := range ks {
		for _, c := range k.Calls {
			if c.Variant == "" {
				return "", nil, &harness.Unsupported{Kernel: k.Name, Span: c.Call.Span, Msg: "the call has no lowering", Launch: true}
			}
		}
	}
	cu, err = CUDA(ks, opts)
	if err != nil {
		return "", nil, err
	}
	in := make([]cuda.Kernel, len(ks))
	for i, k := range ks {
		in[i] = cuda.Kernel{Func: caseFunc(k), Launch: k.Launch}
	}
	_, launchers := cuda.Symbols(in)
	names := Symbols(ks)
	where := func(sp source.Span) string {
		line, _ := f.Position(sp.Start)
		return fmt.Sprintf("line %d", line)
	}
	hk := make([]harness.Kernel, len(ks))
	for i, k := range ks {
		hk[i] = harness.Kernel{Name: names[i], Func: k.Func, Launch: k.Launch, Launcher: launchers[i], Where: where}
	}
	h, unchecked, err := harness.Print(hk)
	if err != nil {
		return "", nil, err
	}
	return cu + h, unchecked, nil
}

// LeftOut returns where the first statement of k the evaluation left out
// that may access memory is (an ir.Comment marked LeftOut, after an
// eval/unresolved warning): ok false when there is none. Its code lacks
// that statement (the harness leaves such a kernel out).
func (k *Kernel) LeftOut() (source.Span, bool) {
	if k == nil || k.Func == nil {
		return source.NoSpan, false
	}
	at := source.NoSpan
	ir.WalkStmts(k.Func.Body, func(s ir.Stmt) {
		if c, ok := s.(*ir.Comment); ok && c.LeftOut && !at.IsValid() {
			at = c.Span
		}
	})
	return at, at.IsValid()
}
