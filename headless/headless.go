// Package headless is `tilels --lower`: it checks the request, reads the
// input files (expanding directories), runs lower.Analyze on each, prints
// the diagnostics, writes the outputs and decides the exit status.
// cmd/tilels parses the flags into a Config and calls Run.
//
// Contract:
//
//   - Usage errors (a bad flag value, an --arch that is not a real CUDA
//     target, a missing input, -o naming an input, a --bind function no
//     input defines) are refused with exit 2 and one line on stderr, before
//     any file is analysed.
//   - Every input is analysed, whatever happens to the others. Its
//     diagnostics go to stderr as file:line:col: severity[code]: message,
//     in input order; an input over MaxInputBytes gets a lower/too-large
//     error instead of an analysis.
//   - The exit status is 1 when a diagnostic at least as severe as
//     Config.FailOn was reported, or an output could not be produced (a
//     CUDA printing error, no kernel the harness can check); with FailOn
//     Warning, a file with no TIRx kernel (lower/no-kernel, information)
//     and a directory with no TIRx file fail too. Otherwise 0; 2 for usage
//     and I/O errors.
//   - Outputs are written after every input was analysed, each atomically
//     (a temporary file renamed into place) unless it is a device or pipe.
package headless

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/report"
)

// MaxInputBytes is the most tilels reads of one input (a file, a pipe,
// standard input); a larger one is a lower/too-large error for that file.
const MaxInputBytes = 16 << 20

// Exit statuses.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// StdinName is the file name diagnostics give standard input ("-").
const StdinName = "<stdin>"

// Config is one `tilels --lower` request.
type Config struct {
	// Inputs are files, directories (walked for the .py files that import
	// the TIRx DSL) and "-" (standard input), in the order given.
	Inputs []string
	// Emit is "cuda", "tirx", "json", "svg" (the pictures of the tile
	// call at line Call, Picture "partition", "bank" or "both"), "ptx" or
	// "sass" (the last two compile with nvcc: machine.go).
	Emit    string
	Call    int
	Picture string
	// Machine adds each kernel's machine code resources to --emit json
	// (compiling with nvcc); NVCC names the nvcc (--nvcc), else
	// $TILELS_NVCC, PATH, $VIRTUAL_ENV's nvidia-cuda-nvcc wheel.
	Machine bool
	NVCC    string
	// Kernel keeps only the kernels of that name; Case only the Nth case
	// (1-based) of each kernel; 0 keeps all.
	Kernel string
	Case   int
	// Harness adds the self-checking main() (Emit "cuda" only).
	Harness bool
	// LineDirectives adds #line directives to the .cu (Emit "cuda"), so
	// that nvcc, compute-sanitizer, cuda-gdb and Nsight Compute name the
	// .py line of each tile call: the .py by its absolute path, the .cu by
	// the output file's (in a stream, the .py's path with .cu, counting
	// the input's own text; lower.LineDirectives).
	LineDirectives bool
	// Perf adds the performance warnings of the memory analysis
	// (perf/bank-conflicts, perf/uncoalesced: lower.PerfWarnings) to each
	// file's diagnostics, printed and in --emit json.
	Perf bool
	// Out is "" or "-" (standard output), a file, or a directory (one
	// output per input): see docs in README.md, "Using tilels --lower".
	Out string
	// FailOn is the least severe diagnostic that fails the run: diag.Error
	// or diag.Warning.
	FailOn diag.Severity
	// Options configure the analysis (Arch, MaxCases, Bind).
	Options lower.Options

	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// usageError is a request refused with exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// ParseFailOn parses a --fail-on value.
func ParseFailOn(s string) (diag.Severity, error) {
	switch s {
	case "error":
		return diag.Error, nil
	case "warning":
		return diag.Warning, nil
	}
	return 0, usagef("unknown --fail-on %q (want warning or error)", s)
}

// Run carries out c and returns the exit status.
func Run(c Config) int {
	r := &runner{c: c}
	status, err := r.run()
	if err != nil {
		fmt.Fprintf(c.Stderr, "tilels: %v\n", err)
		return ExitUsage
	}
	return status
}

// input is one file to analyse.
type input struct {
	name string // as diagnostics name it: the path, or StdinName
	path string // "" for standard input
	src  []byte
	// tooLarge is set when the input holds more than MaxInputBytes.
	tooLarge bool
	out      string // the output file in a directory output ("" otherwise)
}

// result is one input's contribution to the output.
type result struct {
	in   *input
	text []byte       // the .cu or TIRx text (nil when there is none)
	doc  *report.File // the JSON record
	// empty is set for a file with no kernel to print: its text is left
	// out of a directory and of several files' stream.
	empty bool
}

type runner struct {
	c      Config
	mode   outMode // where the output goes (plan)
	failed bool    // exit 1
	// comp compiles with nvcc (--emit ptx/sass, --machine); nil otherwise.
	comp *lower.MachineCompiler
	// stderr collects the lines of one input (its diagnostics), written
	// out in one piece when the input is done, not one write each.
	stderr bytes.Buffer
	// aside, when set, collects what report prints instead (finish)
	aside *bytes.Buffer
}

// flushStderr writes out what stderr collected.
func (r *runner) flushStderr() {
	if r.stderr.Len() > 0 {
		r.c.Stderr.Write(r.stderr.Bytes())
		r.stderr.Reset()
	}
}

func (r *runner) run() (int, error) {
	c := r.c
	if err := r.check(); err != nil {
		return 0, err
	}
	ins, err := r.expand()
	if err != nil {
		return 0, err
	}
	mode, err := r.plan(ins)
	if err != nil {
		return 0, err
	}
	r.mode = mode
	for _, in := range ins {
		if err := r.read(in); err != nil {
			return 0, err
		}
	}
	if err := r.checkBind(ins); err != nil {
		return 0, err
	}

	var results []result
	selected := false
	finish := func(l *lowered) {
		res, any := r.finish(l)
		r.flushStderr()
		selected = selected || any
		results = append(results, res)
	}
	// With --perf, an input's memory figures are computed aside while the
	// next input is lowered; its diagnostics and output follow in input
	// order, as without.
	var prev *lowered
	for _, in := range ins {
		cur := r.lower(in)
		if prev != nil {
			finish(prev)
		}
		prev = cur
		if cur.perf == nil && !cur.aside {
			finish(cur)
			prev = nil
		}
	}
	if prev != nil {
		finish(prev)
	}
	if (c.Kernel != "" || c.Case > 0) && !selected {
		return 0, r.noSelection(ins)
	}
	if err := r.write(mode, results); err != nil {
		return 0, err
	}
	if r.failed {
		return ExitFailed, nil
	}
	return ExitOK, nil
}

// check validates the flags that need no input.
func (r *runner) check() error {
	c := r.c
	switch c.Emit {
	case "cuda", "tirx", "json", "ptx", "sass":
		if c.Call != 0 || c.Picture != "" {
			return usagef("--call and --picture need --emit svg")
		}
	case "svg":
		if err := checkSVG(c); err != nil {
			return err
		}
	default:
		return usagef("unknown --emit %q (want cuda, tirx, json, svg, ptx or sass)", c.Emit)
	}
	if err := r.findMachine(); err != nil {
		return err
	}
	if c.Harness && c.Emit != "cuda" {
		return usagef("--harness needs --emit cuda")
	}
	if c.Case < 0 || c.Options.MaxCases < 0 {
		return usagef("--case and --max-cases must not be negative")
	}
	if c.FailOn != diag.Error && c.FailOn != diag.Warning {
		return usagef("--fail-on must be warning or error")
	}
	if err := lower.ValidArch(c.Options.Target().Arch); err != nil {
		return &usageError{err.Error()}
	}
	if len(c.Inputs) == 0 {
		return usagef("--lower needs an input file")
	}
	stdin := 0
	for _, p := range c.Inputs {
		if p == "-" {
			stdin++
		}
		if p == "" {
			return usagef("empty input file name")
		}
	}
	if stdin > 1 {
		return usagef("standard input (-) given %d times", stdin)
	}
	return nil
}

// fail records that the run exits 1.
func (r *runner) fail() { r.failed = true }

// report prints d and records whether it fails the run.
func (r *runner) report(f *source.File, d diag.Diagnostic) {
	w := r.errOut()
	w.WriteString(diag.Format(f, d))
	w.WriteByte('\n')
	if r.fails(d) {
		r.fail()
	}
}

// errOut is where the lines of the input being finished go: stderr's
// buffer, or aside.
func (r *runner) errOut() *bytes.Buffer {
	if r.aside != nil {
		return r.aside
	}
	return &r.stderr
}

// fails reports whether d fails the run under --fail-on.
func (r *runner) fails(d diag.Diagnostic) bool {
	if d.Code == lower.CodeNoKernel {
		return r.c.FailOn == diag.Warning
	}
	return d.Severity <= r.c.FailOn
}

// read reads one input, at most MaxInputBytes of it.
func (r *runner) read(in *input) error {
	var rd io.Reader
	if in.path == "" {
		rd = r.c.Stdin
		if rd == nil {
			rd = strings.NewReader("")
		}
	} else {
		f, err := os.Open(in.path)
		if err != nil {
			return err
		}
		defer f.Close()
		rd = f
	}
	src, err := io.ReadAll(io.LimitReader(rd, MaxInputBytes+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", in.name, err)
	}
	if len(src) > MaxInputBytes {
		in.tooLarge = true
		return nil
	}
	in.src = src
	return nil
}

// checkBind refuses a --bind function that no input defines.
func (r *runner) checkBind(ins []*input) error {
	bind := r.c.Options.Bind
	if len(bind) == 0 {
		return nil
	}
	names := make([]string, 0, len(bind))
	for n := range bind {
		names = append(names, n)
	}
	slices.Sort(names)
	found := map[string]bool{}
	for _, in := range ins {
		if in.tooLarge {
			continue
		}
		for n := range lower.Defines(source.NewFile(in.name, in.src), names) {
			found[n] = true
		}
	}
	for _, n := range names {
		if !found[n] {
			return usagef("--bind %s: no function %s in %s", n, n, inputList(ins))
		}
	}
	return nil
}

// inputList names the inputs for a message: all of them up to three.
func inputList(ins []*input) string {
	if len(ins) == 1 {
		return ins[0].name
	}
	if len(ins) <= 3 {
		var names []string
		for _, in := range ins {
			names = append(names, in.name)
		}
		return "any of " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("any of the %d inputs", len(ins))
}

// noSelection is the usage error of a --kernel or --case that selects
// nothing in any input.
func (r *runner) noSelection(ins []*input) error {
	if r.c.Kernel != "" && r.c.Case == 0 {
		return usagef("no kernel named %q in %s", r.c.Kernel, inputList(ins))
	}
	if r.c.Kernel != "" {
		return usagef("no kernel named %q of %s has a case %d", r.c.Kernel, inputList(ins), r.c.Case)
	}
	return usagef("no kernel of %s has a case %d", inputList(ins), r.c.Case)
}

// lowered is an input lowered, its diagnostics not printed yet (lower,
// then finish).
type lowered struct {
	in  *input
	f   *source.File
	res *lower.Result // nil for an input too large to read
	// perf delivers the performance warnings (--perf), computed aside
	perf <-chan perfResult
	// aside is set when the figures (and with --perf the warnings) are
	// computed as each kernel is dispatched (lower.AnalyzeAside): finish
	// helps with what is left
	aside bool
}

type perfResult struct {
	diags []diag.Diagnostic
	panic any // a panic of the computation, raised again by finish
}

// perfAside computes res's performance warnings on another goroutine.
// (Computing the figures of groups of inputs together, after each group
// was lowered, saved no CPU beyond this machine's noise, and held a
// group's results alive: on the 128-file corpus, whose lower runs the
// collector, groups of 8 inputs doubled the collections' CPU, 270 -> 555
// ms.)
func perfAside(res *lower.Result) <-chan perfResult {
	ch := make(chan perfResult, 1)
	lower.Aside(func() {
		var out perfResult
		defer func() {
			out.panic = recover()
			ch <- out
		}()
		out.diags = lower.PerfWarnings(res)
	})
	return ch
}

// lower runs the pipeline on one input; it prints nothing.
func (r *runner) lower(in *input) *lowered {
	l := &lowered{in: in}
	if in.tooLarge {
		return l
	}
	l.f = source.NewFile(in.name, in.src)
	opts := r.c.Options
	if in.path != "" {
		opts.Path = in.path // its imports resolve under its package root
	}
	if (r.c.Perf || r.c.Emit == "json") && r.c.Kernel == "" && r.c.Case == 0 {
		// every kernel's figures are wanted: each kernel's are computed
		// from the moment it is dispatched, on a processor the evaluator
		// leaves idle, while the fixes are verified and the text is made
		// (lower.AnalyzeAside)
		l.res = lower.AnalyzeAside(l.f, opts, r.c.Emit == "json", r.c.Perf)
		l.aside = true
	} else {
		l.res = lower.Analyze(l.f, opts)
	}
	l.res.AddHeadlessDiags()
	if r.c.Perf && !l.aside {
		// the figures are computed while the fixes are verified and the
		// text is made: they read the records' calls and code, which
		// those leave as they are
		l.perf = perfAside(l.res)
	}
	lower.FixFirstResult(l.res, opts) // the verified fix first in each fallback-only warning, as the editor says it
	return l
}

// finish prints a lowered input's diagnostics and returns its output;
// selected reports whether --kernel and --case kept a kernel of it.
func (r *runner) finish(l *lowered) (result, bool) {
	c := r.c
	in := l.in
	if in.tooLarge {
		f := source.NewFile(in.name, nil)
		d := lower.TooLarge(MaxInputBytes)
		r.report(f, d)
		return result{in: in, doc: report.Unread(f, r.c.Options.ChooseReference(nil), []diag.Diagnostic{d})}, false
	}
	f, res := l.f, l.res
	filtered := c.Kernel != "" || c.Case > 0
	var ks []*lower.Kernel
	if filtered {
		ks = []*lower.Kernel{} // non-nil: report.Build keeps only these
		for _, k := range res.Select(c.Kernel) {
			if c.Case == 0 || k.CaseIndex == c.Case { // CaseIndex is 1 for a kernel without cases
				ks = append(ks, k)
			}
		}
	}
	out := result{in: in, empty: len(res.Kernels) == 0}
	if filtered && len(ks) == 0 {
		// Nothing of this file is asked for: its diagnostics are printed,
		// its JSON record has no kernels, and it has no text output.
		r.diagnose(l)
		out.doc = report.Build(res, ks)
		return out, false
	}
	if c.Emit == "cuda" || c.Emit == "tirx" {
		// The text does not read the diagnostics: with --perf it is made
		// while the figures are computed, and what it reports follows the
		// diagnostics, as it did.
		if ks == nil {
			ks = res.Kernels
		}
		var later bytes.Buffer
		r.aside = &later
		if c.Emit == "cuda" {
			out.text = r.cuda(f, in, res, ks)
		} else {
			out.text = []byte(lower.TIRx(ks))
		}
		r.aside = nil
		r.diagnose(l)
		r.stderr.Write(later.Bytes())
		return out, true
	}
	r.diagnose(l)
	switch c.Emit {
	case "json":
		res.HelpFigures() // (AnalyzeAside's, if any)
		out.doc = report.Build(res, ks)
		if r.comp != nil {
			r.addMachine(f, res, ks, out.doc)
		}
	case "ptx", "sass":
		if ks == nil {
			ks = res.Kernels
		}
		out.text = r.machineText(f, res, ks)
	case "svg":
		if ks == nil {
			ks = res.Kernels
		}
		out.text = r.svg(f, ks)
	}
	return out, true
}

// diagnose prints l's diagnostics, with its performance warnings (waited
// for) when --perf asked for them.
func (r *runner) diagnose(l *lowered) {
	res := l.res
	if l.perf != nil {
		p := <-l.perf
		l.perf = nil
		if p.panic != nil {
			panic(p.panic)
		}
		res.Diags = append(res.Diags, p.diags...)
		diag.Sort(res.Diags)
	}
	if l.aside && r.c.Perf {
		// (what the goroutine has not computed yet, computed here too)
		l.aside = false
		res.Diags = append(res.Diags, lower.PerfWarnings(res)...)
		diag.Sort(res.Diags)
	}
	for _, d := range res.Diags {
		r.report(l.f, d)
	}
}

// cuda prints the .cu file of ks (with the harness when asked), or
// reports why it cannot and returns nil.
func (r *runner) cuda(f *source.File, in *input, res *lower.Result, ks []*lower.Kernel) []byte {
	c := r.c
	if c.LineDirectives {
		c.Options.LineDirectives = r.lineDirectives(f, in)
	}
	var s string
	var err error
	if c.Harness {
		// A kernel with a call that has no lowering has nothing to check;
		// the others still get their harness.
		var checked []*lower.Kernel
		for _, k := range ks {
			if at, why, ok := unchecked(k); ok {
				r.report(f, diag.Diagnostic{Span: at, Severity: diag.Warning, Code: "harness/skipped",
					Message: fmt.Sprintf("kernel %s is left out of the harness: %s", k.Name, why)})
				continue
			}
			checked = append(checked, k)
		}
		// A kernel the harness cannot launch is left out the same way, so
		// that the others are still checked; one with a construct only the
		// reference does not model is launched unchecked (a profiler sees
		// its launch).
		for len(checked) > 0 {
			var unchecked []*harness.Unsupported
			s, unchecked, err = lower.Harness(f, checked, c.Options)
			for _, u := range unchecked {
				r.report(f, diag.Diagnostic{Span: u.Span, Severity: diag.Warning, Code: "harness/unchecked",
					Message: fmt.Sprintf("kernel %s is launched but not checked: %s", u.Kernel, u.Msg)})
			}
			var u *harness.Unsupported
			if err == nil || !errors.As(err, &u) {
				break
			}
			i := slices.Index(lower.Symbols(checked), u.Kernel) // (u names the kernel as the harness does)
			if i < 0 {
				break
			}
			r.report(f, diag.Diagnostic{Span: u.Span, Severity: diag.Warning, Code: "harness/skipped",
				Message: fmt.Sprintf("kernel %s is left out of the harness: %s", u.Kernel, u.Msg)})
			checked = slices.Delete(checked, i, i+1)
		}
		if len(checked) == 0 {
			fmt.Fprintf(r.errOut(), "tilels: --harness: no kernel of %s can be checked\n", f.Name)
			r.fail()
			return nil
		}
	} else {
		s, err = lower.CUDA(ks, c.Options)
	}
	if err == nil {
		return []byte(s)
	}
	r.fail()
	var u *harness.Unsupported
	var a *lower.ArchError
	switch {
	case errors.As(err, &u):
		r.report(f, diag.Diagnostic{Span: u.Span, Severity: diag.Error, Code: "harness/unsupported",
			Message: fmt.Sprintf("no harness for kernel %s: %s", u.Kernel, u.Msg)})
	case errors.As(err, &a):
		// Analyze reported it at the call (lower/arch); say it once.
		for _, d := range res.Diags {
			if d.Code == lower.CodeArch && d.Span == a.Span {
				return nil
			}
		}
		r.report(f, diag.Errorf(a.Span, lower.CodeArch, "%v", a))
	default:
		fmt.Fprintf(r.errOut(), "tilels: %s: %v\n", f.Name, err)
	}
	return nil
}

// lineDirectives names the .py and the .cu of in's directives.
func (r *runner) lineDirectives(f *source.File, in *input) *lower.LineDirectives {
	py := in.name
	if in.path != "" {
		if abs, err := filepath.Abs(in.path); err == nil {
			py = abs
		}
	}
	self := strings.TrimSuffix(py, ".py") + ".cu"
	out := in.out
	if r.mode.kind == outFile {
		out = r.mode.path
	}
	if out != "" {
		self = out
		if abs, err := filepath.Abs(out); err == nil {
			self = abs
		}
	}
	return &lower.LineDirectives{Source: f, Path: py, Self: self}
}

// unchecked says why the harness leaves k out, and where: an error in
// the kernel (its evaluated body is not the program written), or a tile
// call that no variant lowers.
func unchecked(k *lower.Kernel) (source.Span, string, bool) {
	for _, d := range k.Diags {
		if d.Severity == diag.Error {
			return d.Span, "the kernel has an error", true
		}
	}
	for _, c := range k.Calls {
		if c.Variant == "" {
			return c.Call.Span, "this call has no lowering", true
		}
	}
	// A statement the evaluation left out that may access memory is not
	// in the generated code: the kernel checked would not be the one
	// written (an eval/unresolved warning says why it is left out).
	if at, ok := k.LeftOut(); ok {
		return at, "a statement that may access memory is left out of its code (not modelled by tilels)", true
	}
	return source.NoSpan, "", false
}

// header separates the outputs of several files in one stream.
func (r *runner) header(name string) []byte {
	if r.c.Emit == "tirx" {
		return []byte("# tilels --lower " + name + "\n")
	}
	return []byte("// tilels --lower " + name + "\n")
}

// write writes the outputs the way plan decided.
func (r *runner) write(m outMode, results []result) error {
	c := r.c
	if c.Emit == "json" && m.kind != outDir {
		var files []*report.File
		for _, res := range results {
			files = append(files, res.doc)
		}
		doc := report.New(files...)
		// Streamed: the document is not built whole (report.WriteJSON).
		if m.kind == outStream {
			return report.WriteJSON(r.c.Stdout, doc)
		}
		return writeAtomicFunc(m.path, func(w io.Writer) error { return report.WriteJSON(w, doc) })
	}
	if m.kind == outDir {
		if err := os.MkdirAll(m.path, 0o755); err != nil {
			return err
		}
		for _, res := range results {
			var data []byte
			switch {
			case c.Emit == "json":
				doc := report.New(res.doc)
				if err := writeAtomicFunc(res.in.out, func(w io.Writer) error { return report.WriteJSON(w, doc) }); err != nil {
					return err
				}
				continue
			case res.text != nil && !res.empty:
				data = res.text
			default:
				continue
			}
			if err := writeAtomic(res.in.out, data); err != nil {
				return err
			}
		}
		return nil
	}
	if len(results) == 1 && results[0].text != nil {
		return r.emit(m, results[0].text)
	}
	var texts []result
	for _, res := range results {
		if res.text != nil && !res.empty {
			texts = append(texts, res)
		}
	}
	if len(texts) == 0 && r.failed && m.kind == outFile {
		return nil // keep OUT: nothing was produced
	}
	var b bytes.Buffer
	for i, res := range texts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(r.header(res.in.name))
		b.Write(res.text)
	}
	return r.emit(m, b.Bytes())
}

// emit writes data to standard output or the output file.
func (r *runner) emit(m outMode, data []byte) error {
	if m.kind == outStream {
		_, err := r.c.Stdout.Write(data)
		return err
	}
	return writeAtomic(m.path, data)
}
