package headless

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/lower"
)

// skipDir reports whether the directory walk leaves out a directory: a
// hidden one (.git, .cache, .venv), a Python cache, node's packages, an
// installed package tree, or a virtual environment (it holds
// pyvenv.cfg).
func skipDir(path, name string) bool {
	switch {
	case strings.HasPrefix(name, ".") && name != "." && name != "..":
		return true
	case name == "__pycache__", name == "node_modules", name == "site-packages", name == "dist-packages":
		return true
	}
	_, err := os.Lstat(filepath.Join(path, "pyvenv.cfg"))
	return err == nil
}

// expand turns the inputs into files: a directory becomes its .py files
// that import the TIRx DSL (lower.ImportsTIRx), in lexical path order,
// found by a walk that skips what skipDir names and does not follow
// symbolic links to directories; a file stays itself, whatever its name.
// An input named twice (directly or through directories) is analysed
// once, at its first place. A missing input is a usage error.
func (r *runner) expand() ([]*input, error) {
	var ins []*input
	seen := map[string]bool{}
	add := func(name, path string) {
		key := "-" // standard input
		if path != "" {
			key = path
			if abs, err := filepath.Abs(path); err == nil {
				key = abs
			}
		}
		if seen[key] {
			return
		}
		seen[key] = true
		ins = append(ins, &input{name: name, path: path})
	}
	for _, p := range r.c.Inputs {
		if p == "-" {
			add(StdinName, "")
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			add(p, p)
			continue
		}
		n := 0
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && skipDir(path, d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(d.Name(), ".py") || strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			if !d.Type().IsRegular() {
				// A symbolic link (or another special file): only one to a
				// regular file is read.
				fi, err := os.Stat(path)
				if err != nil || !fi.Mode().IsRegular() {
					return nil
				}
			}
			ok, err := looksTIRx(path)
			if err != nil {
				return err
			}
			if ok {
				add(path, path)
				n++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			fmt.Fprintf(r.c.Stderr, "tilels: %s: no .py file imports the TIRx DSL\n", p)
			if r.c.FailOn == diag.Warning {
				r.fail()
			}
		}
	}
	return ins, nil
}

// looksTIRx reads (up to MaxInputBytes of) a file found by the directory
// walk and reports whether it imports the TIRx DSL. A larger file is taken:
// its analysis reports it as too large.
func looksTIRx(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxInputBytes+1))
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if len(src) > MaxInputBytes {
		return true, nil
	}
	return lower.ImportsTIRx(path, src), nil
}

// outKind is where the outputs go.
type outKind int

const (
	outStream outKind = iota // standard output
	outFile                  // one file (or device, or pipe)
	outDir                   // one file per input in a directory
)

type outMode struct {
	kind outKind
	path string
}

// extension is the output file extension of an emit mode.
func extension(emit string) string {
	switch emit {
	case "tirx":
		return ".tirx"
	case "json":
		return ".json"
	case "svg":
		return ".svg"
	case "ptx", "sass":
		return "." + emit
	}
	return ".cu"
}

// plan decides where the outputs go and refuses an output that is an
// input.
//
//   - -o absent or "-": standard output.
//   - -o DIR, an existing directory or a name ending in a slash: one file
//     per input in DIR (created if missing), named after the input's stem
//     (kernel.py → kernel.cu; standard input → stdin.cu); a stem taken by
//     an earlier input gets _2, _3, ... (k.py, a/k.py → k.cu, k_2.cu).
//   - several inputs (or a directory input) with --emit cuda or tirx: -o
//     names a directory as above (created if missing), unless it is a
//     device or a pipe, which gets what standard output would.
//   - otherwise -o OUT is one file.
func (r *runner) plan(ins []*input) (outMode, error) {
	c := r.c
	if c.Out == "" || c.Out == "-" {
		return outMode{kind: outStream}, nil
	}
	fi, statErr := os.Stat(c.Out)
	several := len(c.Inputs) > 1
	for _, p := range c.Inputs {
		if p != "-" {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				several = true
			}
		}
	}
	for _, in := range ins {
		if in.path != "" && sameFile(c.Out, in.path) {
			return outMode{}, usagef("-o %s is the input file %s", c.Out, in.name)
		}
	}
	dir := statErr == nil && fi.IsDir() || strings.HasSuffix(c.Out, "/") || strings.HasSuffix(c.Out, string(filepath.Separator))
	if !dir && several && c.Emit != "json" {
		switch {
		case statErr != nil:
			dir = true
		case fi.Mode().IsRegular():
			return outMode{}, usagef("-o %s: several inputs give several %s files; name a directory", c.Out, extension(c.Emit))
		}
	}
	if !dir {
		return outMode{kind: outFile, path: c.Out}, nil
	}
	taken := map[string]bool{}
	ext := extension(c.Emit)
	for _, in := range ins {
		stem := "stdin"
		if in.path != "" {
			stem = strings.TrimSuffix(filepath.Base(in.path), ".py")
		}
		name := stem
		for i := 2; taken[name]; i++ {
			name = stem + "_" + strconv.Itoa(i)
		}
		taken[name] = true
		in.out = filepath.Join(c.Out, name+ext)
		for _, other := range ins {
			if other.path != "" && sameFile(in.out, other.path) {
				return outMode{}, usagef("-o %s: the output %s of %s is the input file %s", c.Out, in.out, in.name, other.name)
			}
		}
	}
	return outMode{kind: outDir, path: c.Out}, nil
}

// sameFile reports whether paths a and b name the same file: the same
// cleaned absolute path, or (both existing) os.SameFile.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// writeAtomic writes data to a temporary file in the target's directory and
// renames it into place, so readers never see a partial file.
func writeAtomic(path string, data []byte) error {
	return writeAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomicFunc is writeAtomic of what write writes.
func writeAtomicFunc(path string, write func(io.Writer) error) error {
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
		werr := write(f)
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
	werr := write(tmp)
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
