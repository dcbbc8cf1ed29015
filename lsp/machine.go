package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/machine"
)

// Machine code in the editor: each kernel def's registers, spills,
// shared memory and occupancy (the hover of its name and a code lens
// above it), and its PTX and SASS (tilels-lowered views .ptx and .sass,
// tilels.showLowered's third argument), compiled with nvcc
// (perf/machine; the tilels.nvcc setting, $TILELS_NVCC, PATH, then
// $VIRTUAL_ENV's nvidia-cuda-nvcc wheel).
//
// Never on the keystroke path: a document's kernels are compiled by a
// background job that starts machineDelay after the last publication of
// its diagnostics (typing postpones it), one kernel at a time, each
// kernel on its own (an edit recompiles only the kernel it touched), at
// most one nvcc process for the server, cached by content in memory and
// on disk. Hover and lens read what the job stored, keyed by the kernel
// record (which a session keeps for every kernel an edit did not touch);
// until a kernel's figures are in they say "compiling…", and the job
// asks for a code lens and view refresh as each kernel is done.

// machineDelay is how long a document must rest before its kernels are
// compiled (a variable for tests).
var machineDelay = 400 * time.Millisecond

// machines is the server's machine-code state (Server.mach).
type machines struct {
	mu      sync.Mutex
	setting string // the tilels.nvcc value comp was found for
	found   bool   // whether comp/why are known for setting
	comp    *lower.MachineCompiler
	why     string
	docs    map[*document]*docMachine
}

// docMachine is one document's machine-code job and results.
type docMachine struct {
	timer   *time.Timer
	cancel  context.CancelFunc // stops the running job (a newer analysis came)
	pending bool               // a job is scheduled or running
	running bool
	again   bool // schedule once more when the running job ends
	results map[*lower.Kernel]machineResult
}

type machineResult struct {
	view   *lower.MachineKernel // nil when failed
	failed string               // nvcc's complaint, or why nothing was printed
}

// machineHook, when set (tests), is called after each job.
var machineHook atomic.Pointer[func(d *document)]

func (s *Server) docMachine(d *document) *docMachine {
	m := &s.mach
	if m.docs == nil {
		m.docs = map[*document]*docMachine{}
	}
	dm := m.docs[d]
	if dm == nil {
		dm = &docMachine{results: map[*lower.Kernel]machineResult{}}
		m.docs[d] = dm
	}
	return dm
}

// scheduleMachine (re)starts d's timer: its kernels are compiled once
// it has rested machineDelay. The first time (per tilels.nvcc value) it
// finds the compiler first, so hover and lens can say "compiling…"
// meanwhile; it runs after the diagnostics were published, on the
// document's worker.
func (s *Server) scheduleMachine(d *document) {
	if _, ok := s.known(); !ok {
		s.compiler()
	}
	m := &s.mach
	m.mu.Lock()
	defer m.mu.Unlock()
	dm := s.docMachine(d)
	dm.pending = true
	if dm.timer != nil {
		dm.timer.Stop()
	}
	if dm.cancel != nil {
		dm.cancel() // its nvcc is killed: the document changed under it
	}
	dm.timer = time.AfterFunc(machineDelay, func() {
		s.background("machine code", func(ctx context.Context) { s.runMachine(ctx, d) })
	})
}

// machineAll forgets the compiler (the tilels.nvcc setting changed) and
// compiles every open document's kernels again.
func (s *Server) machineAll() {
	m := &s.mach
	m.mu.Lock()
	m.found = false
	for _, dm := range m.docs {
		clear(dm.results)
	}
	m.mu.Unlock()
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	for _, d := range docs {
		s.scheduleMachine(d)
	}
}

// forgetMachine drops a closed document's job and results.
func (s *Server) forgetMachine(d *document) {
	m := &s.mach
	m.mu.Lock()
	defer m.mu.Unlock()
	if dm := m.docs[d]; dm != nil && dm.timer != nil {
		dm.timer.Stop()
	}
	delete(m.docs, d)
}

// sleepMachine drops the results of a document that fell asleep (they
// hold its kernel records; its next analysis makes new ones, which the
// compiler's cache serves without running nvcc).
func (s *Server) sleepMachine(d *document) {
	d.mu.Lock()
	asleep := d.asleep
	d.mu.Unlock()
	if asleep {
		s.forgetMachine(d)
	}
}

// compiler returns the compiler for the current tilels.nvcc setting,
// finding it (which runs nvcc --version) the first time (fresh); nil
// when there is no nvcc. Only jobs call it: hover and lens use what it
// found.
func (s *Server) compiler() (comp *lower.MachineCompiler, fresh bool) {
	set := s.settings().NVCC
	m := &s.mach
	m.mu.Lock()
	if m.found && m.setting == set {
		c := m.comp
		m.mu.Unlock()
		return c, false
	}
	m.mu.Unlock()
	var envs []string
	if v := s.getenv("VIRTUAL_ENV"); v != "" {
		envs = append(envs, v)
	}
	t, why, ok := machine.Find(machine.Search{Explicit: set, ExplicitFrom: "tilels.nvcc", Envs: envs, Getenv: s.getenv, LookPath: s.lookPath})
	if ok {
		comp = machine.NewCompiler(t, machine.DefaultDir(), 1)
		s.log.Info("machine code", "nvcc", t.NVCC, "from", t.From, "version", t.Version, "disassembler", t.DisasmKind)
	} else {
		s.log.Info("no machine code", "why", why)
	}
	m.mu.Lock()
	m.setting, m.found, m.comp, m.why = set, true, comp, why
	m.mu.Unlock()
	return comp, true
}

// lookPath finds an executable on the PATH of the server's environment
// (Options.Getenv: tests give an empty one).
func (s *Server) lookPath(name string) (string, error) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(s.getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// known returns the compiler found for the current setting (nil: none,
// or not looked for yet: ok false).
func (s *Server) known() (comp *lower.MachineCompiler, ok bool) {
	m := &s.mach
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.comp, m.found && m.setting == s.settings().NVCC
}

// runMachine is a document's job: compile the selected case of every
// kernel def the results lack, one at a time, storing each result as it
// comes; stop when a newer analysis arrives (its publication schedules
// the next job).
func (s *Server) runMachine(ctx context.Context, d *document) {
	m := &s.mach
	m.mu.Lock()
	dm := s.docMachine(d)
	if dm.running {
		dm.again = true
		m.mu.Unlock()
		return
	}
	dm.running = true
	ctx, cancel := context.WithCancel(ctx)
	dm.cancel = cancel
	m.mu.Unlock()
	defer func() {
		cancel()
		m.mu.Lock()
		dm.running, dm.cancel = false, nil
		again := dm.again
		dm.again = false
		m.mu.Unlock()
		if again {
			s.scheduleMachine(d)
		}
		if h := machineHook.Load(); h != nil {
			(*h)(d)
		}
	}()
	if d.isClosed() {
		m.mu.Lock()
		delete(m.docs, d)
		m.mu.Unlock()
		return
	}
	comp, fresh := s.compiler()
	snap := d.snap.Load()
	if comp == nil || snap == nil {
		m.mu.Lock()
		dm.pending = false
		m.mu.Unlock()
		if fresh {
			s.refreshMachine(d) // views waiting for the answer say why
		}
		return
	}
	sel := d.selected()
	keep := map[*lower.Kernel]bool{}
	done := true
	for _, def := range snap.defs() {
		if def.partial {
			continue
		}
		k := sel.chosen(def).Kernel
		keep[k] = true
		m.mu.Lock()
		_, have := dm.results[k]
		m.mu.Unlock()
		if have {
			continue
		}
		if d.snap.Load() != snap || d.isClosed() || ctx.Err() != nil {
			done = false
			break
		}
		var r machineResult
		cu, arch, err := snap.prints.KernelSource(k)
		if err != nil {
			r.failed = err.Error()
		} else {
			a, err := comp.Compile(ctx, cu, arch)
			if err != nil {
				done = false
				break // cancelled: the server is stopping
			}
			if a.Failed != "" {
				r.failed = a.Failed
			} else if r.view = lower.KernelMachine(a, cu, k); r.view == nil {
				r.failed = "the compiled file has no entry for kernel " + k.Name
			}
		}
		m.mu.Lock()
		dm.results[k] = r
		m.mu.Unlock()
		s.refreshMachine(d)
	}
	m.mu.Lock()
	if done {
		for k := range dm.results {
			if !keep[k] {
				delete(dm.results, k)
			}
		}
		dm.pending = false
	}
	m.mu.Unlock()
	if !done && !d.isClosed() {
		s.scheduleMachine(d)
	}
}

// refreshMachine asks the client for new code lenses and machine views.
func (s *Server) refreshMachine(d *document) {
	if s.caps.Load().codeLensRefresh {
		s.background("codeLens/refresh", func(ctx context.Context) {
			s.notify("codeLens/refresh", s.client.CodeLensRefresh(ctx))
		})
	}
	s.refreshViews(d.uri)
}

// machineOf returns what is known of kernel k's machine code: its
// result, or pending (being compiled, or to be), or neither (no nvcc,
// or not looked for yet). A kernel that is neither in the results nor
// pending while an nvcc is known gets a job.
func (s *Server) machineOf(d *document, k *lower.Kernel) (r machineResult, have, pending bool) {
	comp, ok := s.known()
	m := &s.mach
	m.mu.Lock()
	dm := s.docMachine(d)
	r, have = dm.results[k]
	pending = dm.pending
	m.mu.Unlock()
	if !have && !pending && (!ok || comp != nil) {
		s.scheduleMachine(d) // not looked for yet, or a case not compiled
		pending = true
	}
	if !ok || comp == nil {
		pending = false // no nvcc (or not yet known): say nothing
	}
	return r, have, pending
}

// machineHover is the hover of a kernel def's name: its machine code
// figures (lower.MachineLines), "compiling…", or nothing without nvcc.
func (s *Server) machineHover(d *document, v *view, def *kdef, off source.Pos) (string, source.Span) {
	if def.partial {
		return "", source.NoSpan
	}
	kv := d.selected().chosen(def)
	span := kv.ToFile(kv.Kernel.Func.NameSpan)
	if !span.Contains(off) {
		return "", source.NoSpan
	}
	r, have, pending := s.machineOf(d, kv.Kernel)
	var b strings.Builder
	fmt.Fprintf(&b, "**kernel `%s`**", def.name())
	if def.cases() {
		fmt.Fprintf(&b, " (case %d/%d: %s)", kv.Kernel.CaseIndex, kv.Kernel.CaseCount, mdEscape(kv.Kernel.CaseLabel))
	}
	b.WriteString("\n\n")
	switch {
	case have && r.view != nil:
		for _, l := range lower.MachineLines(r.view) {
			fmt.Fprintf(&b, "- %s\n", mdEscape(l))
		}
	case have:
		b.WriteString(mdEscape(lower.MachineFailed(r.failed)) + "\n")
	case pending:
		b.WriteString(lower.MachinePending + "\n")
	default:
		return "", source.NoSpan
	}
	return b.String(), span
}

// machineLens is the code lens of a def: the machine-code summary
// (it opens the SASS view), "compiling…", or none.
func (s *Server) machineLens(d *document, def *kdef, r protocol.Range) (protocol.CodeLens, bool) {
	k := d.selected().chosen(def).Kernel
	res, have, pending := s.machineOf(d, k)
	title := ""
	switch {
	case have && res.view != nil:
		title = lower.MachineLens(res.view)
	case have:
		title = lower.MachineFailed(res.failed)
	case pending:
		title = lower.MachinePending
	default:
		return protocol.CodeLens{}, false
	}
	return protocol.CodeLens{Range: r, Command: protocol.Command{
		Title:     title,
		Command:   cmdShowLowered,
		Arguments: []protocol.LSPAny{mustJSON(string(d.uri)), mustJSON(def.name()), mustJSON("sass")},
	}}, true
}

// machineText is the content of a .ptx or .sass view: the code of the
// kernels named (every def's selected case when none), each under a
// header (lower.MachineText), or why there is none yet.
func (s *Server) machineText(d *document, snap *snapshot, ref loweredRef) string {
	what := "all kernels"
	if ref.kernel != "" {
		what = "kernel " + ref.kernel
	}
	stamp := fmt.Sprintf("// tilels: %s of %s, version %d, %s\n", strings.ToUpper(ref.kind), d.name(), snap.text.version, what)
	ks, _ := snap.kernels(d.selected(), ref.kernel)
	if len(ks) == 0 {
		return stamp + "// no kernel to compile\n"
	}
	var views []*lower.MachineKernel
	var waiting []string
	for _, k := range ks {
		r, have, pending := s.machineOf(d, k)
		switch {
		case have && r.view != nil:
			views = append(views, r.view)
			continue
		case have:
			return stamp + "// " + strings.ReplaceAll(strings.TrimSpace(r.failed), "\n", "\n// ") + "\n"
		case pending:
			waiting = append(waiting, k.Name)
			continue
		}
		m := &s.mach
		m.mu.Lock()
		why := m.why
		m.mu.Unlock()
		if why == "" {
			why = "looking for nvcc"
		}
		return stamp + "// " + why + "\n"
	}
	if len(waiting) > 0 {
		return stamp + "// compiling " + strings.Join(waiting, ", ") + "… (this view refreshes when nvcc is done)\n"
	}
	return stamp + lower.MachineText(ks, views, ref.kind)
}
