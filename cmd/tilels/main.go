// Command tilels is the TIRx language server and headless lowering tool.
//
//	tilels [serve] [--log FILE] [--log-level debug|info|warn|error]
//	tilels --lower FILE [--emit cuda|tirx|json] [--kernel NAME] [--case N] [--arch sm_90a]
//	             [--bind 'FUNC:M=4096, dtype="float16"'] [--max-cases N] [--harness] [-o OUT]
//	tilels --version
//
// With no arguments, or with serve, tilels speaks the Language Server
// Protocol on standard input and output (see docs/lsp.md); its log goes to
// stderr, or to FILE with --log, never to stdout. It exits 0 after the
// client's shutdown and exit, 1 when the client goes away without them.
//
// With --emit cuda --harness the .cu file ends with a main() that checks
// every kernel on a GPU against a host reference (codegen/harness).
//
// Diagnostics go to stderr as file:line:col: severity[code]: message.
// Exit status: 0 ok, 1 when an error diagnostic was reported, 2 on usage or
// I/O errors. -o writes atomically (a temporary file renamed into place), so
// OUT is either the old content or the complete new one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/tilels/tilels/codegen/harness"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/lsp"
	"github.com/tilels/tilels/report"
)

// version is the tilels release; editors check it with --version.
const version = "0.1.0"

func main() {
	lower.TuneRuntime()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "serve" {
		return serve(args[1:], stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("tilels", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lowerFile := fs.String("lower", "", "lower `FILE` headlessly and print the result")
	emit := fs.String("emit", "cuda", "what to print: cuda, tirx or json")
	kernel := fs.String("kernel", "", "only this kernel (`NAME` of a @T.prim_func)")
	arch := fs.String("arch", "sm_90a", "CUDA target architecture")
	out := fs.String("o", "", "write the output to `OUT` (atomically) instead of stdout")
	showVersion := fs.Bool("version", false, "print the version and exit")
	withHarness := fs.Bool("harness", false, "with --emit cuda: add a main() that checks every kernel against a host reference")
	caseN := fs.Int("case", 0, "only the `N`th bound case (1-based) of each kernel (docs/binding.md)")
	maxCases := fs.Int("max-cases", 0, "analyse at most `N` bound cases per kernel (default 64)")
	bind := map[string]string{}
	fs.Func("bind", "bind parameters of function `FUNC:M=4096, dtype=\"float16\"` (the `# tilels: bind` syntax; once per function)", func(v string) error {
		name, text, ok := strings.Cut(v, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("want FUNC:NAME=VALUE, ..., got %q", v)
		}
		name = strings.TrimSpace(name)
		if _, dup := bind[name]; dup {
			return fmt.Errorf("%s bound twice: a setting is one case per function (write several `# tilels: bind` lines for more)", name)
		}
		bind[name] = text
		return nil
	})
	logFile := fs.String("log", "", "language server: append the log to `FILE` instead of stderr")
	logLevel := fs.String("log-level", "info", "language server: least severe `LEVEL` logged (debug, info, warn, error)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: tilels [serve] [--log FILE] [--log-level LEVEL]\n")
		fmt.Fprintf(stderr, "       tilels --lower FILE [--emit cuda|tirx|json] [--kernel NAME] [--case N] [--arch ARCH]\n")
		fmt.Fprintf(stderr, "                    [--bind FUNC:BINDINGS]... [--max-cases N] [--harness] [-o OUT]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "tilels %s\n", version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tilels: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *lowerFile == "" {
		return serveLSP(*logFile, *logLevel, stdin, stdout, stderr)
	}
	switch *emit {
	case "cuda", "tirx", "json":
	default:
		fmt.Fprintf(stderr, "tilels: unknown --emit %q (want cuda, tirx or json)\n", *emit)
		return 2
	}
	if *withHarness && *emit != "cuda" {
		fmt.Fprintf(stderr, "tilels: --harness needs --emit cuda\n")
		return 2
	}
	src, err := os.ReadFile(*lowerFile)
	if err != nil {
		fmt.Fprintf(stderr, "tilels: %v\n", err)
		return 2
	}
	f := source.NewFile(*lowerFile, src)
	if *caseN < 0 || *maxCases < 0 {
		fmt.Fprintf(stderr, "tilels: --case and --max-cases must not be negative\n")
		return 2
	}
	opts := lower.Options{Arch: *arch, MaxCases: *maxCases}
	if len(bind) > 0 {
		opts.Bind = bind
	}
	res := lower.Analyze(f, opts)
	ks := res.Select(*kernel)
	if *kernel != "" && len(ks) == 0 {
		fmt.Fprintf(stderr, "tilels: no kernel named %q in %s\n", *kernel, *lowerFile)
		return 2
	}
	if *caseN > 0 {
		var sel []*lower.Kernel
		for _, k := range ks {
			if k.CaseIndex == *caseN { // 1 for a kernel without cases
				sel = append(sel, k)
			}
		}
		if len(sel) == 0 {
			fmt.Fprintf(stderr, "tilels: no kernel of %s has a case %d\n", *lowerFile, *caseN)
			return 2
		}
		ks = sel
	}
	for _, d := range res.Diags {
		fmt.Fprintln(stderr, diag.Format(f, d))
	}
	var text []byte
	switch *emit {
	case "json":
		text = report.JSON(report.Build(res, ks))
	case "tirx":
		text = []byte(lower.TIRx(ks))
	case "cuda":
		var s string
		if *withHarness {
			// A kernel with a call that has no lowering has nothing to
			// check; the others still get their harness.
			var checked []*lower.Kernel
			for _, k := range ks {
				if at, why, ok := unchecked(k); ok {
					fmt.Fprintln(stderr, diag.Format(f, diag.Diagnostic{Span: at, Severity: diag.Warning, Code: "harness/skipped",
						Message: fmt.Sprintf("kernel %s is left out of the harness: %s", k.Name, why)}))
					continue
				}
				checked = append(checked, k)
			}
			if len(checked) == 0 {
				fmt.Fprintf(stderr, "tilels: --harness: no kernel of %s can be checked\n", *lowerFile)
				return 1
			}
			s, err = lower.Harness(f, checked, opts)
		} else {
			s, err = lower.CUDA(ks, opts)
		}
		var u *harness.Unsupported
		if errors.As(err, &u) {
			fmt.Fprintln(stderr, diag.Format(f, diag.Diagnostic{Span: u.Span, Severity: diag.Error, Code: "harness/unsupported",
				Message: fmt.Sprintf("no harness for kernel %s: %s", u.Kernel, u.Msg)}))
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "tilels: %v\n", err)
			return 1
		}
		text = []byte(s)
	}
	if *out == "" {
		if _, err := stdout.Write(text); err != nil {
			fmt.Fprintf(stderr, "tilels: %v\n", err)
			return 2
		}
	} else if err := writeAtomic(*out, text); err != nil {
		fmt.Fprintf(stderr, "tilels: %v\n", err)
		return 2
	}
	if res.HasErrors() {
		return 1
	}
	return 0
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
	return source.NoSpan, "", false
}

// writeAtomic writes data to a temporary file in the target's directory and
// renames it into place, so readers never see a partial file.
func writeAtomic(path string, data []byte) error {
	// A device, pipe or socket (-o /dev/null, -o /dev/stdout) is written in
	// place: renaming a file over it would replace the device node.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("write %s: is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("write %s: %w", path, werr)
		}
		return nil
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	for _, e := range []error{werr, serr, cerr} {
		if e != nil {
			os.Remove(name)
			return fmt.Errorf("write %s: %w", path, e)
		}
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// serve is "tilels serve [--log FILE] [--log-level LEVEL]".
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tilels serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logFile := fs.String("log", "", "append the log to `FILE` instead of stderr")
	logLevel := fs.String("log-level", "info", "least severe `LEVEL` logged (debug, info, warn, error)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tilels serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	return serveLSP(*logFile, *logLevel, stdin, stdout, stderr)
}

// serveLSP runs the language server on stdin and stdout.
func serveLSP(logFile, logLevel string, stdin io.Reader, stdout, stderr io.Writer) int {
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
	return lsp.ServeStream(context.Background(), stdin, stdout, lsp.Options{Log: logw, LogLevel: level, Version: version})
}
