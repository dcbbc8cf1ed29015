package lower

import (
	"strings"
	"sync"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/ir"
)

// Prints remembers what an editor's views print of one file's kernels:
// each tile call's own lowering (hovers), each kernel's part of the .cu
// file and its TIRx (the lowered views, tilels.lower), each kernel's
// summary (status line). Entries are keyed by the *Kernel they print,
// which a Session keeps for every kernel an edit did not touch: after a
// keystroke, a view prints again only the kernel typed in, and a
// repeated hover or view refresh prints nothing. The arch is fixed per
// Prints (new options mean new kernels: the session starts over).
//
// What Prints returns equals the functions it stands for: CUDA and TIRx
// equal the package functions for the same kernels and options, Call the
// excerpt cuda.PrintCall and tirx.Print give for the call. A Prints is
// safe for concurrent use; Retain drops the kernels a file no longer has.
type Prints struct {
	opts Options
	mu   sync.Mutex
	ks   map[*Kernel]*kernelPrints
}

// NewPrints returns an empty cache for kernels analysed with opts.
func NewPrints(opts Options) *Prints {
	return &Prints{opts: opts, ks: map[*Kernel]*kernelPrints{}}
}

// kernelPrints is what was printed of one kernel. Each entry is computed
// once, outside Prints.mu.
type kernelPrints struct {
	mu    sync.Mutex
	calls map[*ir.TileCall]*callPrint
	parts map[[3]string]*cuda.Part // by C kernel name, launcher name and arch

	tirx    func() tirxPrint
	summary func() *Summary
	pics    sync.Map // hoverKey -> hoverPic (picture.go)
}

type callPrint struct {
	once sync.Once
	text CallText
}

func (p *Prints) kernel(k *Kernel) *kernelPrints {
	p.mu.Lock()
	defer p.mu.Unlock()
	kp := p.ks[k]
	if kp == nil {
		kp = &kernelPrints{calls: map[*ir.TileCall]*callPrint{}, parts: map[[3]string]*cuda.Part{}}
		kp.tirx = sync.OnceValue(func() tirxPrint {
			text, calls := tirx.PrintMap(caseFunc(k), k.Launch)
			return tirxPrint{text, calls}
		})
		kp.summary = sync.OnceValue(func() *Summary { return Summarize(k) })
		p.ks[k] = kp
	}
	return kp
}

// Retain drops what was printed of kernels other than ks.
func (p *Prints) Retain(ks []*Kernel) {
	keep := make(map[*Kernel]bool, len(ks))
	for _, k := range ks {
		keep[k] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.ks {
		if !keep[k] {
			delete(p.ks, k)
		}
	}
}

// Len is the number of kernels with something printed.
func (p *Prints) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ks)
}

// CUDA is CUDA(ks, opts): the .cu file of ks, each kernel's part printed
// once (concurrently, as CUDA prints them) and assembled.
func (p *Prints) CUDA(ks []*Kernel) (string, error) {
	parts, arch, err := p.cudaParts(CUDAKernels(ks))
	if err != nil {
		return "", err
	}
	return cuda.Assemble(parts, cuda.Options{Arch: arch})
}

// cudaParts prints (or finds printed) the part of each of ks, CUDA kernels.
func (p *Prints) cudaParts(ks []*Kernel) ([]*cuda.Part, string, error) {
	in := make([]cuda.Kernel, len(ks))
	for i, k := range ks {
		in[i] = cuda.Kernel{Func: caseFunc(k), Launch: k.Launch}
	}
	names, launchers := cuda.Symbols(in)
	arch := PrintArch(ks, p.opts)
	parts := make([]*cuda.Part, len(ks))
	var errs []error
	var errMu sync.Mutex
	parallel(len(ks), func(i int) {
		kp := p.kernel(ks[i])
		key := [3]string{names[i], launchers[i], arch}
		kp.mu.Lock()
		part := kp.parts[key]
		kp.mu.Unlock()
		if part == nil {
			var err error
			if part, err = cuda.PrintPart(in[i], names[i], launchers[i], cuda.Options{Arch: arch}); err != nil {
				errMu.Lock()
				errs = append(errs, err)
				errMu.Unlock()
				return
			}
			kp.mu.Lock()
			kp.parts[key] = part
			kp.mu.Unlock()
		}
		parts[i] = part
	})
	if len(errs) > 0 {
		return nil, "", errs[0] // a malformed arch: the same for every kernel
	}
	return parts, arch, nil
}

// TIRx is TIRx(ks), each kernel printed once.
func (p *Prints) TIRx(ks []*Kernel) string {
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.kernel(k).tirx().text)
	}
	return b.String()
}

// Summary is Summarize(k), computed once.
func (p *Prints) Summary(k *Kernel) *Summary { return p.kernel(k).summary() }

// Call is CallLowering(k, call, opts), printed once.
func (p *Prints) Call(k *Kernel, call *ir.TileCall) CallText {
	kp := p.kernel(k)
	kp.mu.Lock()
	cp := kp.calls[call]
	if cp == nil {
		cp = &callPrint{}
		kp.calls[call] = cp
	}
	kp.mu.Unlock()
	cp.once.Do(func() { cp.text = CallLowering(k, call, p.opts) })
	return cp.text
}
