package cuda

import (
	"fmt"

	"github.com/tilels/tilels/ir"
)

// Printing a file in parts, and one tile call alone: what an editor shows
// after an edit that changed one kernel of many, or in a hover on one call
// of a kernel of thousands, without printing the rest again.

// Part is one kernel printed for a .cu file by PrintPart. It depends only
// on the kernel, the C names it is printed under and the target, never on
// the other kernels of the file: a caller may keep it and assemble it
// into later files. It is immutable.
type Part struct {
	arch string
	out  kernelOut
}

// PrintPart prints kn under the C names name and launchName (those
// Symbols gives it among the kernels of the file), for Assemble. A
// printing error is kept in the part and returned by Assemble, as Print
// returns it; the error returned here is for a malformed arch.
func PrintPart(kn Kernel, name, launchName string, opts Options) (*Part, error) {
	f, err := newFile(opts)
	if err != nil {
		return nil, err
	}
	return &Part{arch: f.arch, out: f.kernel(kn, name, launchName)}, nil
}

// Assemble builds the .cu file of parts, in order: the text Print returns
// for their kernels (when each part was printed under the names Symbols
// gives it among them and the same arch), or the first error Print would
// return.
func Assemble(parts []*Part, opts Options) (string, error) {
	f, err := assembleFile(parts, opts)
	if err != nil {
		return "", err
	}
	return f.String(), nil
}

func assembleFile(parts []*Part, opts Options) (*file, error) {
	f, err := newFile(opts)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if p.arch != f.arch {
			return nil, fmt.Errorf("codegen/cuda: a kernel printed for %s assembled into a file for %s", p.arch, f.arch)
		}
		if err := f.merge(&p.out); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func newFile(opts Options) (*file, error) {
	arch := opts.Arch
	if arch == "" {
		arch = DefaultArch
	}
	sm, err := parseArch(arch)
	if err != nil {
		return nil, err
	}
	return &file{arch: arch, sm: sm, helpers: map[string]*helper{}, lines: opts.Lines}, nil
}

// PrintCall prints the lowering of one tile call of kernel kn, call (an
// ir.Lowered of kn.Func, not nested in another), as Print prints it in the
// kernel: its "// Tx.<scope>.<op>(...) -> <variant>" comment and its
// braced block, at indentation zero.
//
// The kernel's other tile calls are not printed: only the statements
// around them (parameters, scope ids, allocations, loops), which name the
// variables and buffers the call refers to. Names are handed out as Print
// hands them out in that kernel without its other calls: the same for
// everything declared outside tile calls, and for the first call of the
// kernel; a later call's own variables may lack the suffix that another
// call's variable of the same name gives them in the file (f where the
// file has f_3). Errors are those printing the call and the statements
// before it raise (an instruction above the target among them); "" with
// no error when call is not found.
//
// The cost is that of the call and of the statements outside calls: a
// hover on one call of a kernel of 4,000 no longer prints the other
// 3,999 (BenchmarkHover4000Calls).
func PrintCall(kn Kernel, call *ir.Lowered, opts Options) (string, error) {
	f, err := newFile(opts)
	if err != nil {
		return "", err
	}
	fn := kn.Func
	if fn == nil || call == nil {
		return "", nil
	}
	k := newKernel(f, kn)
	k.only = call
	defer bodyBufs.Put(k.b)
	if _, _, _, err := k.signature(); err != nil {
		return "", err
	}
	if fn.Body != nil {
		k.stmts(fn.Body.Stmts)
	}
	if k.err != nil {
		return "", fmt.Errorf("codegen/cuda: kernel %s: %w", fn.Name, k.err)
	}
	return k.callText, nil
}
