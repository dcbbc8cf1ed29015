// Command tilels is the TIRx language server and headless lowering tool.
//
//	tilels [serve] [--log FILE] [--log-level debug|info|warn|error]
//	tilels --lower INPUT [INPUT...] [--emit cuda|tirx|json|svg|ptx|sass] [--fail-on warning|error]
//	             [--kernel NAME] [--case N] [--arch sm_90a] [--bind 'FUNC:M=4096, dtype="float16"']
//	             [--max-cases N] [--extra-path DIR]... [--harness] [--no-line-directives] [--perf]
//	             [--machine] [--nvcc PATH] [-o OUT]
//	             [--call LINE] [--picture partition|bank|both]
//	tilels --version | version
//	tilels --help | -h | help
//
// With no arguments, or with serve, tilels speaks the Language Server
// Protocol on standard input and output (see docs/lsp.md); its log goes to
// stderr, or to FILE with --log, never to stdout. It exits 0 after the
// client's shutdown and exit, 1 when the client goes away without them.
//
// With --lower it lowers each INPUT (a file, a directory of .py files, or
// - for standard input) headlessly: package headless does the work, this
// command only parses the flags. Exit status: 0 ok, 1 when a diagnostic
// at least as severe as --fail-on (default error) was reported, 2 on usage
// or I/O errors (README.md, "Using tilels --lower").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/tilels/tilels/headless"
	"github.com/tilels/tilels/internal/version"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/lsp"
	"github.com/tilels/tilels/release"
)

func main() {
	lower.TuneRuntime()
	oneShot = true
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// oneShot is set in the tilels process (not in tests, which call run):
// --lower then applies the runtime settings of a short-lived process
// (lower.TuneOneShot).
var oneShot bool

const usage = `usage: tilels [serve] [--log FILE] [--log-level LEVEL] [--reference RELEASE]
       tilels --lower INPUT [INPUT...] [--emit cuda|tirx|json|svg|ptx|sass] [--fail-on warning|error]
                    [--kernel NAME] [--case N] [--arch ARCH] [--bind FUNC:BINDINGS]...
                    [--max-cases N] [--extra-path DIR]... [--harness] [--no-line-directives] [--perf]
                    [--machine] [--nvcc PATH] [-o OUT]
                    [--call LINE] [--picture partition|bank|both]
                    [--reference auto|0.25|0.26|0.27] [--python INTERPRETER]
       tilels --version [--reference RELEASE] [--python INTERPRETER] | version
       tilels --help | help

With no arguments (or serve) tilels is a language server on stdin/stdout.
With --lower it lowers each INPUT — a .py file, a directory (its .py files
that import the TIRx DSL) or - (standard input) — prints diagnostics to
stderr as file:line:col: severity[code]: message, and writes the result to
standard output or OUT. Exit status: 0 ok; 1 when a diagnostic at least as
severe as --fail-on was reported (with --fail-on warning, also a file with
no TIRx kernel); 2 on usage or I/O errors.

Flags:
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			return serve(args[1:], stdin, stdout, stderr)
		case "version":
			if len(args) > 1 {
				fmt.Fprintf(stderr, "tilels version: unexpected argument %q\n", args[1])
				return 2
			}
			fmt.Fprint(stdout, version.Text(version.Read(), referenceInUse("auto", "")))
			return 0
		case "help":
			fs, _ := flags(io.Discard)
			printUsage(stdout, fs)
			return 0
		}
	}
	fs, v := flags(io.Discard) // run prints the parse error itself, in one line
	var inputs []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "tilels: %v (tilels --help lists the flags)\n", err)
			return 2
		}
		// Inputs and flags may mix: go on after each argument ("--" ends
		// the flags).
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			inputs = append(inputs, rest...)
			break
		}
		inputs = append(inputs, rest[0])
		args = rest[1:]
	}
	if v.showVersion {
		fmt.Fprint(stdout, version.Text(version.Read(), referenceInUse(v.reference, v.python)))
		return 0
	}
	if !v.lowered {
		if len(inputs) > 0 {
			fmt.Fprintf(stderr, "tilels: unexpected argument %q (lower files with --lower FILE...)\n", inputs[0])
			return 2
		}
		if _, _, ok := lower.ParseReference(v.reference); !ok {
			fmt.Fprintf(stderr, "tilels: unknown --reference %q (want auto, %s)\n", v.reference, release.Names())
			return 2
		}
		return serveLSP(v.logFile, v.logLevel, v.reference, stdin, stdout, stderr)
	}
	failOn, err := headless.ParseFailOn(v.failOn)
	if err != nil {
		fmt.Fprintf(stderr, "tilels: %v\n", err)
		return 2
	}
	if oneShot {
		lower.TuneOneShot()
	}
	if _, _, ok := lower.ParseReference(v.reference); !ok {
		fmt.Fprintf(stderr, "tilels: unknown --reference %q (want auto, %s)\n", v.reference, release.Names())
		return 2
	}
	opts := referenceOptions(v.reference, v.python)
	opts.Arch, opts.MaxCases = v.arch, v.maxCases
	if len(v.bind) > 0 {
		opts.Bind = v.bind
	}
	opts.ImportRoots = v.extraPaths
	return headless.Run(headless.Config{
		Inputs:  append(v.inputs, inputs...),
		Emit:    v.emit,
		Call:    v.call,
		Picture: v.picture,
		Kernel:  v.kernel,
		Case:    v.caseN,
		Harness: v.harness,
		// #line directives unless --no-line-directives (headless.Config).
		LineDirectives: !v.noLineDirectives,
		Perf:           v.perf,
		Machine:        v.machine,
		NVCC:           v.nvcc,
		Out:            v.out,
		FailOn:         failOn,
		Options:        opts,
		Stdin:          stdin,
		Stdout:         stdout,
		Stderr:         stderr,
	})
}

// referenceOptions are the options of --reference and --python: with
// auto, the apache-tvm installed in --python, $VIRTUAL_ENV, ./.venv or
// ./venv (lower.FindInstalled).
func referenceOptions(reference, python string) lower.Options {
	opts := lower.Options{Reference: reference}
	if _, auto, _ := lower.ParseReference(reference); auto {
		cwd, _ := os.Getwd()
		opts.Installed, _ = lower.FindInstalled(lower.PythonEnvironments(python, os.Getenv("VIRTUAL_ENV"), []string{cwd}))
	}
	return opts
}

// referenceInUse is --version's line: the profile a file without other
// evidence is analysed under here, and why.
func referenceInUse(reference, python string) string {
	if _, _, ok := lower.ParseReference(reference); !ok {
		return fmt.Sprintf("unknown --reference %q (want auto, %s)", reference, release.Names())
	}
	r := referenceOptions(reference, python).ChooseReference(nil)
	return fmt.Sprintf("apache-tvm %s (%s)", r.Release, r.Why)
}

// values are the parsed flags.
type values struct {
	lowered                         bool
	inputs                          []string
	emit, kernel, arch, out, failOn string
	logFile, logLevel               string
	reference, python               string
	showVersion, harness, machine   bool
	caseN, maxCases, call           int
	picture                         string
	noLineDirectives, perf          bool
	nvcc                            string
	bind                            map[string]string
	extraPaths                      []string
}

// flags defines the command line; the flag package's own messages go to
// errOut.
func flags(errOut io.Writer) (*flag.FlagSet, *values) {
	v := &values{bind: map[string]string{}}
	fs := flag.NewFlagSet("tilels", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {} // run prints the usage itself
	fs.Func("lower", "lower `INPUT` (and the INPUTs after it) headlessly and print the result", func(s string) error {
		if v.lowered {
			return fmt.Errorf("given twice; list every input after one --lower (tilels --lower a.py b.py dir/)")
		}
		v.lowered = true
		v.inputs = append(v.inputs, s)
		return nil
	})
	fs.StringVar(&v.emit, "emit", "cuda", "what to print: cuda, tirx, json, svg (the pictures of the call at --call), or ptx or sass (compiled with nvcc)")
	fs.IntVar(&v.call, "call", 0, "with --emit svg: draw the tile call at `LINE` (1-based)")
	fs.StringVar(&v.picture, "picture", "", "with --emit svg: `WHICH` picture: partition, bank, or both stacked (the default)")
	fs.BoolVar(&v.machine, "machine", false, "with --emit json: compile with nvcc and add each kernel's registers, spills, shared memory, occupancy and SASS memory instructions")
	fs.StringVar(&v.nvcc, "nvcc", "", "the nvcc `PATH` for --machine and --emit ptx/sass (default: $TILELS_NVCC, nvcc on PATH, then $VIRTUAL_ENV's nvidia-cuda-nvcc wheel)")
	fs.StringVar(&v.failOn, "fail-on", "error", "exit 1 when a diagnostic of at least this `SEVERITY` (warning or error) is reported")
	fs.StringVar(&v.kernel, "kernel", "", "only this kernel (`NAME` of a @T.prim_func)")
	fs.StringVar(&v.arch, "arch", "", "CUDA target architecture (sm_80, sm_90a, sm_100f, ...); default: per kernel, sm_100a for a kernel that uses tensor memory, gemm_async or tcgen05, else sm_90a")
	fs.StringVar(&v.out, "o", "", "write the output to `OUT` (atomically; a directory for one file per input; - for stdout)")
	fs.BoolVar(&v.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&v.harness, "harness", false, "with --emit cuda: add a main() that checks every kernel against a host reference")
	fs.BoolVar(&v.perf, "perf", false, "also report the performance warnings of the static memory analysis (perf/bank-conflicts, perf/uncoalesced: shared wavefronts at least twice the ideal, global sectors over the ideal), each naming the change that removes the cause")
	fs.BoolVar(&v.noLineDirectives, "no-line-directives", false, "with --emit cuda: print no #line directives (by default the .cu maps each tile call's code to its .py line for nvcc, compute-sanitizer, cuda-gdb and Nsight Compute)")
	fs.IntVar(&v.caseN, "case", 0, "only the `N`th bound case (1-based) of each kernel (docs/binding.md)")
	fs.IntVar(&v.maxCases, "max-cases", 0, "analyse at most `N` bound cases per kernel (default 64)")
	fs.Func("bind", "bind parameters of function `FUNC:M=4096, dtype=\"float16\"` (the `# tilels: bind` syntax; once per function)", func(s string) error {
		name, text, ok := strings.Cut(s, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("want FUNC:NAME=VALUE, ..., got %q", s)
		}
		name = strings.TrimSpace(name)
		if _, dup := v.bind[name]; dup {
			return fmt.Errorf("%s bound twice: a setting is one case per function (write several `# tilels: bind` lines for more)", name)
		}
		v.bind[name] = text
		return nil
	})
	fs.Func("extra-path", "also resolve imports of workspace modules under `DIR` (after the input's package root; repeatable)", func(s string) error {
		v.extraPaths = append(v.extraPaths, s)
		return nil
	})
	fs.StringVar(&v.reference, "reference", "auto", "the reference `RELEASE` of apache-tvm to model: 0.25, 0.26, 0.27, or auto (the apache-tvm installed in --python, $VIRTUAL_ENV, ./.venv or ./venv; else what the file shows; else the newest)")
	fs.StringVar(&v.python, "python", "", "with --reference auto: the Python `INTERPRETER` (or environment directory) whose apache-tvm is read")
	fs.StringVar(&v.logFile, "log", "", "language server: append the log to `FILE` instead of stderr")
	fs.StringVar(&v.logLevel, "log-level", "info", "language server: least severe `LEVEL` logged (debug, info, warn, error)")
	return fs, v
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// serve is "tilels serve [--log FILE] [--log-level LEVEL] [--reference RELEASE]".
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tilels serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	logFile := fs.String("log", "", "append the log to `FILE` instead of stderr")
	logLevel := fs.String("log-level", "info", "least severe `LEVEL` logged (debug, info, warn, error)")
	reference := fs.String("reference", "auto", "the reference `RELEASE` of apache-tvm while the client's tilels.reference setting is auto: 0.25, 0.26, 0.27 or auto")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: tilels serve [--log FILE] [--log-level LEVEL] [--reference RELEASE]\n\nThe language server, on stdin/stdout (docs/lsp.md).\n\nFlags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "tilels serve: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tilels serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if _, _, ok := lower.ParseReference(*reference); !ok {
		fmt.Fprintf(stderr, "tilels serve: unknown --reference %q (want auto, %s)\n", *reference, release.Names())
		return 2
	}
	return serveLSP(*logFile, *logLevel, *reference, stdin, stdout, stderr)
}

// serveLSP runs the language server on stdin and stdout.
// reference is --reference: the release while the client's setting is
// auto ("" or "auto": automatic).
func serveLSP(logFile, logLevel, reference string, stdin io.Reader, stdout, stderr io.Writer) int {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		fmt.Fprintf(stderr, "tilels: bad --log-level %q (want debug, info, warn or error)\n", logLevel)
		return 2
	}
	logw := stderr
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "tilels: %v\n", err)
			return 2
		}
		defer f.Close()
		logw = f
	}
	lsp.TuneRuntime()
	return lsp.ServeStream(context.Background(), stdin, stdout, lsp.Options{Log: logw, LogLevel: level, Version: version.Release, Reference: reference})
}
