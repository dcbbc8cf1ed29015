package eval

// The library surface each reference release has (issue 16): the import
// paths, names and call forms only some of apache-tvm 0.25.0.post1, 0.26.0
// and 0.27.0.post1 define. Read from the wheels (each release's python:
// importlib.import_module on the paths, getattr chains over T, Tx,
// tvm.tirx.layout, T.cuda and T.ptx; 0.27's PTX engine checked for a
// complete modifier chain), summarised in docs/releases.md.
//
// A construct of another release is reported once where the file uses it
// (CodeOtherRelease): which releases have it and what the chosen release
// writes instead; the evaluator then models it as its own release does,
// or says it does not.

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// CodeOtherRelease: a construct the chosen reference release does not
// have (an import path, a library name, a call form of another release).
const CodeOtherRelease = "eval/other-release"

// SurfaceKind says how a Construct is written.
type SurfaceKind uint8

const (
	// SurfaceModule: an import path (a dotted prefix: its submodules too).
	SurfaceModule SurfaceKind = iota
	// SurfaceName: a library name as written after the modules' usual
	// aliases: "T.SwizzleLayout", "Tx.log2", "T.ptx.fence.proxy_async",
	// "layout.SwizzleLayout" (a name of tvm.tirx.layout).
	SurfaceName
	// SurfaceForm: a call form ("ComposeLayout(swizzle, tile)").
	SurfaceForm
)

// Construct is one piece of the library surface only some releases have.
type Construct struct {
	Kind SurfaceKind
	Name string
	// In are the releases that have it (never the empty set).
	In release.Set
	// Instead is what the other releases write ("" when they have nothing
	// like it).
	Instead string
}

// Display is the construct as a message names it.
func (c Construct) Display() string { return strings.TrimPrefix(c.Name, "layout.") }

// Whose is the possessive of c's releases: "0.25's", "0.26's and 0.27's".
func (c Construct) Whose() string {
	var out []string
	for _, r := range release.All {
		if c.In.Has(r) {
			out = append(out, r.Short()+"'s")
		}
	}
	return strings.Join(out, " and ")
}

// surfaceModules: import paths. tvm.backend.cuda.operator (0.25) became
// tvm.backend.cuda.tile_primitive (0.26); tvm.tirx.cuda is an alias of
// tvm.backend.cuda in every release.
var surfaceModules = []Construct{
	{SurfaceModule, "tvm.backend.cuda.operator", release.Only(release.R025), "tvm.backend.cuda.tile_primitive"},
	{SurfaceModule, "tvm.tirx.cuda.operator", release.Only(release.R025), "tvm.tirx.cuda.tile_primitive"},
	{SurfaceModule, "tvm.backend.cuda.tile_primitive", release.From(release.R026), "tvm.backend.cuda.operator.tile_primitive"},
	{SurfaceModule, "tvm.tirx.cuda.tile_primitive", release.From(release.R026), "tvm.tirx.cuda.operator.tile_primitive"},
	{SurfaceModule, "tvm.tirx.tile_primitive", release.From(release.R026), "tvm.tirx.operator.tile_primitive"},
	{SurfaceModule, "tvm.backend.cuda.intrinsics", release.Only(release.R026), "T.cuda / T.ptx (tvm.backend.cuda.script)"},
	{SurfaceModule, "tvm.backend.cuda.ptx", release.Only(release.R027), "T.ptx (tvm.backend.cuda.script)"},
	{SurfaceModule, "tvm.backend.cuda.codegen", release.Only(release.R027), ""},
	{SurfaceModule, "tvm.backend.cuda.cpp", release.Only(release.R027), ""},
	{SurfaceModule, "tvm.backend.cuda.lang.clc", release.Only(release.R027), ""},
	{SurfaceModule, "tvm.tirx.type", release.Only(release.R027), "tvm.ir.type"},
	{SurfaceModule, "tvm.backend.cuda.iket", release.From(release.R026), ""},
	{SurfaceModule, "tvm.tirx.cuda.iket", release.From(release.R026), ""},
}

// surfaceNames: names of T (tvm.script.tirx), Tx (tvm.script.tirx.tile)
// and tvm.tirx.layout ("layout."), and the T.cuda / T.ptx intrinsics of
// 0.25 and 0.26 (a T.ptx name of 0.25/0.26 is 0.27's too only where 0.27's
// PTX table takes it as a complete instruction). 0.27's own T.ptx
// spellings (modifier chains) are recognised by ptxChainOf.
var surfaceNames = append([]Construct{
	{SurfaceName, "T.SwizzleLayout", release.Only(release.R025), "T.ComposeLayout(per_element, swizzle_len, atom_len, T.TileLayout(S[...]))"},
	{SurfaceName, "layout.SwizzleLayout", release.Only(release.R025), "ComposeLayout(per_element, swizzle_len, atom_len, TileLayout(S[...]))"},
	{SurfaceName, "T.SizeVar", release.Only(release.R025), "T.Var"},
	{SurfaceName, "T.TMEMStages", release.Only(release.R025), ""},
	{SurfaceName, "T.ret", release.Only(release.R025), "T.Return"},
	{SurfaceName, "T.Return", release.From(release.R026), "T.ret"},
	{SurfaceName, "Tx.Buffer", release.Only(release.R025), "T.Buffer"},
	{SurfaceName, "Tx.log2", release.From(release.R026), ""},
	// the derived views of tvm/tirx/_buffer_view.py (0.26+): 0.25's
	// Buffer has view, local, permute and with_dtype only
	{SurfaceName, "Buffer.rearrange", release.From(release.R026), "Buffer.view(...) and Buffer.permute(...)"},
	{SurfaceName, "Buffer.tile", release.From(release.R026), "Buffer.view(...) and slices"},
	{SurfaceName, "Buffer.chunk", release.From(release.R026), "slices"},
	{SurfaceName, "SMEMPool.alloc_mma", release.Only(release.R025), "pool.alloc_tcgen05_mma_AB(...)"},
	{SurfaceName, "SMEMPool.alloc_tcgen05_mma_AB", release.From(release.R026), "pool.alloc_mma(...)"},
	{SurfaceName, "TMEMPool.alloc_tcgen05_mma_A", release.From(release.R026), "tmem_pool.alloc(shape, dtype, datapath=...)"},
	{SurfaceName, "TMEMPool.alloc_tcgen05_mma_C", release.From(release.R026), "tmem_pool.alloc(shape, dtype, datapath=...)"},
	{SurfaceName, "TMEMPool.alloc_tcgen05_mma_D", release.From(release.R026), "tmem_pool.alloc(shape, dtype, datapath=...)"},
	{SurfaceName, "Tx.is_buffer_var", release.From(release.R026), ""},
	{SurfaceName, "layout.tmem_mma_operand_layout", release.From(release.R026), ""},
	{SurfaceName, "Tx.compose_op", release.Until(release.R026), ""},
	{SurfaceName, "Tx.BufferRegion", release.Until(release.R026), "Tx.TensorRegion"},
	{SurfaceName, "Tx.TensorRegion", release.Only(release.R027), "Tx.BufferRegion"},
	{SurfaceName, "T.cuda.elect_sync", release.Only(release.R027), "T.ptx.elect_sync()"},
	{SurfaceName, "T.cuda.any_sync", release.Only(release.R027), "T.ptx.any_sync(...)"},
	{SurfaceName, "T.cuda.mbarrier_wait", release.Only(release.R027), "T.ptx.mbarrier.try_wait(bar, phase)"},
	{SurfaceName, "T.cuda.mbarrier_wait_acquire_cluster", release.Only(release.R027), "T.ptx.mbarrier.try_wait_acquire_cluster(bar, phase)"},
	{SurfaceName, "T.cuda.mov_sreg", release.Only(release.R027), ""},
	{SurfaceName, "T.cuda.wait_until", release.Only(release.R027), ""},
	{SurfaceName, "T.cuda.tcgen05.encode_instr_descriptor", release.Only(release.R027), "T.ptx.tcgen05.encode_instr_descriptor(...)"},
	{SurfaceName, "T.cuda.tcgen05.encode_instr_descriptor_block_scaled", release.Only(release.R027), "T.ptx.tcgen05.encode_instr_descriptor_block_scaled(...)"},
	{SurfaceName, "T.cuda.tcgen05.encode_matrix_descriptor", release.Only(release.R027), "T.ptx.tcgen05.encode_matrix_descriptor(...)"},
	{SurfaceName, "T.cuda.wgmma.encode_matrix_descriptor", release.Only(release.R027), "T.ptx.wgmma.encode_matrix_descriptor(...)"},
	{SurfaceName, "T.cuda.wgmma.noop_barrier", release.Only(release.R027), "T.ptx.wgmma.noop_barrier(...)"},
	{SurfaceName, "T.masked_load", release.Only(release.R027), ""},
	{SurfaceName, "T.masked_store", release.Only(release.R027), ""},
	{SurfaceName, "T.call_ffi_kernel", release.Only(release.R027), ""},
	{SurfaceName, "T.tensormap_encode_tiled", release.Only(release.R027), "T.call_packed(\"runtime.cuTensorMapEncodeTiled\", ...)"},
	{SurfaceName, "T.ptx_legacy", release.Only(release.R027), "T.ptx.ldmatrix / T.ptx.mma.legacy"},
	{SurfaceName, "T.s_tir", release.Only(release.R027), "T.ptx.ldg32 / T.ptx.cp_async.legacy"},
	{SurfaceName, "T.StringImm", release.Until(release.R026), ""},
	{SurfaceName, "T.ProducerLoad", release.Until(release.R026), ""},
	{SurfaceName, "T.ptx.SINK", release.Only(release.R027), ""},
	{SurfaceName, "T.ptx.addr", release.Only(release.R027), ""},
	{SurfaceName, "T.ptx.pred", release.Only(release.R027), ""},
}, intrinsicNames...)

// surfaceForms: call forms of one name that differ between releases.
var SurfaceForms = []Construct{
	{SurfaceForm, "ComposeLayout(swizzle, tile)", release.Only(release.R025), "ComposeLayout(per_element, swizzle_len, atom_len, tile)"},
	{SurfaceForm, "ComposeLayout(per_element, swizzle_len, atom_len, tile)", release.From(release.R026), "ComposeLayout(SwizzleLayout(per_element, swizzle_len, atom_len), tile)"},
	{SurfaceForm, "T.thread_id(extents, dtype=...)", release.Only(release.R027), "T.thread_id(extents) (every scope id is int32)"},
}

// scopeIDDtype is the 0.27 dtype= parameter of the scope ids (T.cta_id,
// T.thread_id, ...; builder/ir.py): under an earlier release it is reported
// and accepted. 0.27 takes int32 and uint32 only; tilels' ids stay int32
// (the CUDA it prints declares them int).
func (ev *Evaluator) ScopeIDDtype(c *Call, fname string) bool {
	v, ok := c.Kw("dtype")
	if !ok {
		return true
	}
	k := SurfaceForms[2]
	k.Name = strings.Replace(k.Name, "T.thread_id", fname, 1)
	ev.OtherRelease(c.FnSpan, k, "modelled as 0.27 does, the id as int32")
	dt, ok := ev.DtypeOf(v, c.ArgSpan(-1, "dtype"))
	if !ok {
		return false
	}
	if (dt.Code != ir.Int && dt.Code != ir.UInt) || dt.Bits != 32 {
		// 0.27.0.post1's check, verbatim (its text prints the dtype as T.<dtype>)
		ev.Errorf(c.At, CodeDtype, "dtype of a loop/scope-id var must be \"int32\" or \"uint32\", got T.%s", dt)
		return false
	}
	return true
}

// ptxFamilies27 are the instruction families of 0.27's PTX table (dir(T.ptx)
// of 0.27.0.post1): T.ptx.<family>.<modifiers> is 0.27's spelling.
var ptxFamilies27 = strings.Fields(`abs activemask add and applypriority atom bar barrier bfe bfi bfind bmsk brev
clmad clusterlaunchcontrol clz cnot copysign cos cp createpolicy cvt cvt_pack cvta discard div dp2a dp4a
elect_sync ex2 fabric fence fma fns getctarank griddepcontrol isspacep ld ldmatrix ldu lg2 lop3 mad mad24
mapa match max mbarrier min mma mov movmatrix mul mul24 multimem_cp multimem_ld_reduce multimem_red
multimem_red_async multimem_st multimem_st_async neg not or popc prefetch prefetchu prmt rcp red red_async
redux_sync rem rsqrt sad selp set setmaxnreg setp shf shfl_sync shl shr sin slct spcompress spdecompress
sqrt st st_async st_bulk stmatrix sub szext tanh tcgen05 tensormap_cp_fenceproxy tensormap_replace testp
vote_sync wgmma xor`)

// ptxEvery are the T.ptx names of 0.25 and 0.26 that 0.27's table also
// takes as complete instructions (in every release as written).
var ptxEvery = map[string]bool{
	"bar.arrive": true, "bar.sync": true, "barrier.cluster.arrive": true, "barrier.cluster.wait": true,
	"elect_sync": true, "griddepcontrol.launch_dependents": true, "griddepcontrol.wait": true, "st_bulk": true,
}

// surfaceByAlias is surfaceNames by alias ("T.", "Tx.", "layout.") and the
// rest of the name: looked up on every attribute of a library module
// without building the full name.
var surfaceByAlias = func() map[string]map[string]Construct {
	m := map[string]map[string]Construct{}
	for _, c := range surfaceNames {
		i := strings.IndexByte(c.Name, '.')
		alias, rest := c.Name[:i+1], c.Name[i+1:]
		if m[alias] == nil {
			m[alias] = map[string]Construct{}
		}
		m[alias][rest] = c
	}
	return m
}()

var (
	surfaceByName = func() map[string]Construct {
		m := map[string]Construct{}
		for _, c := range surfaceNames {
			m[c.Name] = c
		}
		return m
	}()
	ptxFamily27 = func() map[string]bool {
		m := map[string]bool{}
		for _, f := range ptxFamilies27 {
			m[f] = true
		}
		return m
	}()
)

// Surface lists every construct only some releases have, modules first,
// then names (sorted), then call forms: the data docs/releases.md
// summarises and lower's reference inference reads.
func Surface() []Construct {
	names := append([]Construct(nil), surfaceNames...)
	sort.Slice(names, func(i, j int) bool { return names[i].Name < names[j].Name })
	out := append(append([]Construct(nil), surfaceModules...), names...)
	return append(out, SurfaceForms...)
}

// SurfaceModuleOf returns the import-path construct path lies under.
func SurfaceModuleOf(path string) (Construct, bool) {
	for _, c := range surfaceModules {
		if path == c.Name || strings.HasPrefix(path, c.Name+".") {
			return c, true
		}
	}
	return Construct{}, false
}

// SurfaceNameOf returns the construct of a library name ("T.cuda.elect_sync",
// "Tx.log2", "layout.SwizzleLayout"). A T.ptx name that no table lists but
// whose first part is an instruction family of 0.27's PTX table with
// modifiers after it ("T.ptx.mbarrier.init.shared.b64") is 0.27's.
func SurfaceNameOf(name string) (Construct, bool) {
	if c, ok := surfaceByName[name]; ok {
		return c, true
	}
	if rest, ok := strings.CutPrefix(name, "T.ptx."); ok {
		// ptxChainOf searches every legacy name (normPTX allocates): a
		// 0.27 chain under 0.25 in a kernel's loop was 42 % of a
		// production file's analysis. The answer depends on the name
		// only, so it is remembered.
		if c, ok := ptxChainMemo.Load(name); ok {
			r := c.(ptxChainResult)
			return r.c, r.ok
		}
		c, ok := ptxChainOf(name, rest)
		if ptxChainMemoN.Add(1) <= ptxChainMemoMax {
			ptxChainMemo.Store(name, ptxChainResult{c, ok})
		}
		return c, ok
	}
	return Construct{}, false
}

type ptxChainResult struct {
	c  Construct
	ok bool
}

// ptxChainMemo maps a T.ptx chain to ptxChainOf's answer, for the first
// ptxChainMemoMax chains met (a long-lived server must not grow without
// bound on whatever names are typed).
var (
	ptxChainMemo  sync.Map
	ptxChainMemoN atomic.Int64
)

const ptxChainMemoMax = 4096

// SurfaceSetOf is the releases that have a library name SurfaceNameOf
// lists (ok false when it lists none), without working out what the other
// releases write.
func SurfaceSetOf(name string) (release.Set, bool) {
	if c, ok := surfaceByName[name]; ok {
		return c.In, true
	}
	if rest, ok := strings.CutPrefix(name, "T.ptx."); ok {
		fam, _, _ := strings.Cut(rest, ".")
		if ptxFamily27[fam] && !ptxEvery[rest] {
			return release.Only(release.R027), true
		}
	}
	return 0, false
}

// ptxChainOf: a T.ptx path 0.25 and 0.26 do not define whose family 0.27's
// table has is 0.27's spelling. What 0.25 and 0.26 write instead is the
// T.ptx function the chain starts with (T.ptx.mbarrier.init for
// T.ptx.mbarrier.init.shared__cta.b64), or whose 0.27 spelling starts it.
func ptxChainOf(name, rest string) (Construct, bool) {
	fam, _, _ := strings.Cut(rest, ".")
	if !ptxFamily27[fam] || ptxEvery[rest] {
		return Construct{}, false
	}
	n := normPTX(name)
	instead, best := "", 0
	try := func(key, legacy string) {
		key = normPTX(key)
		if (n == key || strings.HasPrefix(n, key+".")) && len(key) > best {
			instead, best = legacy+"(...)", len(key)
		}
	}
	for _, c := range intrinsicNames {
		if c.In.Has(release.R027) || !strings.HasPrefix(c.Name, "T.ptx.") {
			continue
		}
		try(c.Name, c.Name)
		if strings.HasPrefix(c.Instead, "T.ptx.") {
			chain, _, _ := strings.Cut(c.Instead, "(")
			try(strings.TrimSpace(chain), c.Name)
		}
	}
	for e := range ptxEvery {
		try("T.ptx."+e, "T.ptx."+e)
	}
	if instead == "" {
		instead = "the T.ptx function of that instruction, if it has one (as T.ptx.mbarrier.init(bar, count) for T.ptx.mbarrier.init.shared.b64)"
	}
	return Construct{SurfaceName, name, release.Only(release.R027), instead}, true
}

// OtherRelease reports c at span when the chosen release does not have it
// (once per span: the diagnostics of a file are deduplicated), and says
// whether it is. how says what the evaluator does then: "modelled as 0.25
// does", "not modelled".
func (ev *Evaluator) OtherRelease(span source.Span, c Construct, how string) bool {
	r := ev.Opts.Release
	if c.In.Has(r) {
		return false
	}
	msg := fmt.Sprintf("`%s` is %s; under %s ", c.Display(), c.Whose(), r.Short())
	if c.Instead != "" {
		msg += "write " + c.Instead
	} else {
		msg += "there is nothing like it"
	}
	if how != "" {
		msg += "; " + how
	}
	ev.Warnf(span, CodeOtherRelease, "%s", msg)
	return true
}

// ModelledAs is the otherRelease tail for a construct the evaluator models
// as its own releases do.
func ModelledAs(c Construct) string {
	for i := len(release.All) - 1; i >= 0; i-- {
		if r := release.All[i]; c.In.Has(r) {
			return "modelled as " + r.Short() + " does"
		}
	}
	return ""
}

// checkSurfaceModule reports an import of a module path the chosen release
// does not have.
func (ev *Evaluator) checkSurfaceModule(path string, span source.Span) {
	if c, ok := SurfaceModuleOf(path); ok {
		how := "not modelled"
		if ev.canonicalModule(path) != "" || ev.Module(path, span) != nil {
			how = ModelledAs(c)
		}
		ev.OtherRelease(span, c, how)
	}
}

// surfaceModuleAlias is the prefix a name of a modelled module is written
// with in the tables.
func surfaceModuleAlias(path string) string {
	switch path {
	case TPath:
		return "T."
	case TxPath:
		return "Tx."
	case LayoutPath:
		return "layout."
	}
	return ""
}

// checkSurfaceName reports a name of a modelled module (or a T.cuda/T.ptx
// intrinsic path, alias "T.") the chosen release does not have.
func (ev *Evaluator) CheckSurfaceName(alias, name string, span source.Span, how string) {
	if alias == "" {
		return
	}
	c, listed := surfaceByAlias[alias][name]
	if listed && c.In.Has(ev.Opts.Release) {
		return
	}
	if !listed && (alias != "T." || !strings.HasPrefix(name, "ptx.") || ev.Opts.Release == release.R027) {
		return // not listed, or a 0.27 chain under 0.27: nothing to say (and no search for its 0.25 name)
	}
	if c, ok := SurfaceNameOf(alias + name); ok {
		if how == "" {
			how = ModelledAs(c)
		}
		ev.OtherRelease(span, c, how)
	}
}

// intrinsicNames: the T.cuda and T.ptx names of 0.25 and 0.26 that not all
// three releases take as written (generated from the wheels: each release's
// leaves of T.cuda/T.ptx; 0.27 has a name when getattr resolves it and, for
// its PTX table, a candidate instruction has every required modifier).
var intrinsicNames = []Construct{
	{SurfaceName, "T.cuda.copy_128b", release.Only(release.R025), "T.ptx.ld/st chains or Tx.copy"},
	{SurfaceName, "T.cuda.copy_16b", release.Only(release.R025), "T.ptx.ld/st chains or Tx.copy"},
	{SurfaceName, "T.cuda.copy_32b", release.Only(release.R025), "T.ptx.ld/st chains or Tx.copy"},
	{SurfaceName, "T.cuda.copy_64b", release.Only(release.R025), "T.ptx.ld/st chains or Tx.copy"},
	{SurfaceName, "T.cuda.copy_8b", release.Only(release.R025), "T.ptx.ld/st chains or Tx.copy"},
	{SurfaceName, "T.cuda.copy_bytes", release.Only(release.R025), "T.ptx.ld/st chains or Tx.copy"},
	{SurfaceName, "T.cuda.fdividef", release.Only(release.R026, release.R027), "a / b"},
	{SurfaceName, "T.cuda.iket.mark", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.iket.official_event", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.iket.range_end", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.iket.range_pop", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.iket.range_push", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.iket.range_start", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.iket.sentinel_token", release.Only(release.R026, release.R027), "no equivalent"},
	{SurfaceName, "T.cuda.sm100_2sm_leader_smem_addr", release.Only(release.R026, release.R027), "T.cuda.sm100_tma_2sm_mbarrier_addr(...)"},
	{SurfaceName, "T.cuda.sm100_tma_2sm_mbarrier_addr", release.Only(release.R025), "T.cuda.sm100_2sm_leader_smem_addr(...)"},
	{SurfaceName, "T.ptx.add_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.add_f32x2", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.add_f64", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.add_rn_f32_bf16", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.any_sync", release.Only(release.R025, release.R026), "T.cuda.any_sync(...)"},
	{SurfaceName, "T.ptx.atom_scalar", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.barrier.sync", release.Only(release.R026, release.R027), "T.ptx.bar.sync(id, count)"},
	{SurfaceName, "T.ptx.clc_query_cancel", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.clc_try_cancel", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async", release.Only(release.R025, release.R026), "T.ptx.cp.async_.ca.shared.global_(dst, src, bytes) (or Tx.copy_async)"},
	{SurfaceName, "T.ptx.cp_async.bulk", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.commit_group", release.Only(release.R025, release.R026), "T.ptx.cp.async_.bulk.commit_group()"},
	{SurfaceName, "T.ptx.cp_async.bulk.s2c", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2c", release.Only(release.R025), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2c_bar_addr", release.Only(release.R025), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2c_prefetch", release.Only(release.R025), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2c_tile_gather4", release.Only(release.R025), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2c_tile_gather4_bar_addr", release.Only(release.R025), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2s_cluster", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.g2s_cta", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.prefetch", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.s2g", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.tensor.s2g_reduce", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.bulk.wait_group", release.Only(release.R025, release.R026), "T.ptx.cp.async_.bulk.wait_group(n) (T.ptx.cp.async_.bulk.wait_group.read(n) for reads)"},
	{SurfaceName, "T.ptx.cp_async.commit_group", release.Only(release.R025, release.R026), "T.ptx.cp.async_.commit_group()"},
	{SurfaceName, "T.ptx.cp_async.legacy", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async.mbarrier.arrive", release.Only(release.R025, release.R026), "T.ptx.cp.async_.mbarrier.arrive.shared__cta.b64(bar)"},
	{SurfaceName, "T.ptx.cp_async.mbarrier.arrive.noinc", release.Only(release.R026), "T.ptx.cp.async_.mbarrier.arrive.noinc.shared__cta.b64(bar)"},
	{SurfaceName, "T.ptx.cp_async.wait_group", release.Only(release.R025, release.R026), "T.ptx.cp.async_.wait_group(n)"},
	{SurfaceName, "T.ptx.cp_async_bulk_g2s_cluster", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async_bulk_g2s_cta", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async_bulk_s2g", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cp_async_bulk_s2s_cluster", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.cvt", release.Only(release.R026), "T.ptx.cvt.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.exp2", release.Only(release.R025, release.R026), "T.ptx.ex2.approx.ftz.f32(x)"},
	{SurfaceName, "T.ptx.fence", release.Only(release.R025, release.R026), "T.ptx.fence.<sem>.<scope>() (e.g. T.ptx.fence.acq_rel.cta())"},
	{SurfaceName, "T.ptx.fence.mbarrier_init", release.Only(release.R025, release.R026), "T.ptx.fence.mbarrier_init.release.cluster()"},
	{SurfaceName, "T.ptx.fence.proxy_async", release.Only(release.R025, release.R026), "T.ptx.fence.proxy.async_.shared__cta() (the space as modifiers)"},
	{SurfaceName, "T.ptx.fetch_register", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.fma_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.fma_f32x2", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.fma_f64", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.fns_b32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ld", release.Only(release.R025, release.R026), "T.ptx.ld.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.ld_acquire", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ld_global_acquire", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ld_global_nc", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ld_mmio", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ld_relaxed", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ld_volatile", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ldg32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.ldmatrix", release.Only(release.R025, release.R026), "T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(...) (shape and type as modifiers)"},
	{SurfaceName, "T.ptx.ldmatrix_legacy", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.map_shared_rank", release.Only(release.R025, release.R026), "T.ptx.mapa.shared__cluster.u32(addr, rank)"},
	{SurfaceName, "T.ptx.mapa", release.Only(release.R025, release.R026), "T.ptx.mapa.shared__cluster.u32(addr, rank)"},
	{SurfaceName, "T.ptx.max_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mbarrier.arrive", release.Only(release.R025, release.R026), "T.ptx.mbarrier.arrive.shared.b64(bar)"},
	{SurfaceName, "T.ptx.mbarrier.arrive.cluster_count", release.Only(release.R025), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mbarrier.arrive.expect_tx", release.Only(release.R025, release.R026), "T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar, bytes)"},
	{SurfaceName, "T.ptx.mbarrier.arrive.no_complete", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mbarrier.complete_tx", release.Only(release.R026), "T.ptx.mbarrier.complete_tx.relaxed.cta.shared__cta.b64(bar, bytes)"},
	{SurfaceName, "T.ptx.mbarrier.init", release.Only(release.R025, release.R026), "T.ptx.mbarrier.init.shared.b64(bar, count)"},
	{SurfaceName, "T.ptx.mbarrier.try_wait", release.Only(release.R025, release.R026), "T.cuda.mbarrier_wait(bar, phase)"},
	{SurfaceName, "T.ptx.mbarrier.try_wait_acquire_cluster", release.Only(release.R025, release.R026), "T.cuda.mbarrier_wait_acquire_cluster(bar, phase)"},
	{SurfaceName, "T.ptx.mbarrier.try_wait_once", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mbarrier_test_wait_parity", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mma", release.Only(release.R025, release.R026), "T.ptx.mma.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.mma.legacy", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mma.sp", release.Only(release.R025, release.R026), "T.ptx.mma.sp.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.mul_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mul_f32x2", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.mul_f64", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.prefetch_tensormap", release.Only(release.R025, release.R026), "T.ptx.prefetch.tensormap(map)"},
	{SurfaceName, "T.ptx.rcp", release.Only(release.R025, release.R026), "T.ptx.rcp.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.red_scalar", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.reduce3_max_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.reduce3_min_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.setmaxnreg", release.Only(release.R025, release.R026), "T.ptx.setmaxnreg.inc.sync.aligned.u32(n) / T.ptx.setmaxnreg.dec.sync.aligned.u32(n)"},
	{SurfaceName, "T.ptx.st", release.Only(release.R025, release.R026), "T.ptx.st.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.st_mmio", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.st_relaxed", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.st_release", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.st_volatile", release.Only(release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.stmatrix", release.Only(release.R025, release.R026), "T.ptx.stmatrix.sync.aligned.m8n8.x4.shared.b16(...) (shape and type as modifiers)"},
	{SurfaceName, "T.ptx.sub_f32", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.sub_f32x2", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.sub_f64", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.tcgen05.alloc", release.Only(release.R025, release.R026), "T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(dst, ncols)"},
	{SurfaceName, "T.ptx.tcgen05.commit", release.Only(release.R025, release.R026), "T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(bar)"},
	{SurfaceName, "T.ptx.tcgen05.cp", release.Only(release.R025, release.R026), "T.ptx.tcgen05.cp.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.dealloc", release.Only(release.R025, release.R026), "T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(addr, ncols)"},
	{SurfaceName, "T.ptx.tcgen05.encode_instr_descriptor", release.Only(release.R025, release.R026), "T.cuda.tcgen05.encode_instr_descriptor(...)"},
	{SurfaceName, "T.ptx.tcgen05.encode_instr_descriptor_block_scaled", release.Only(release.R025, release.R026), "T.cuda.tcgen05.encode_instr_descriptor_block_scaled(...)"},
	{SurfaceName, "T.ptx.tcgen05.encode_matrix_descriptor", release.Only(release.R025, release.R026), "T.cuda.tcgen05.encode_matrix_descriptor(...)"},
	{SurfaceName, "T.ptx.tcgen05.fence.after_thread_sync", release.Only(release.R025, release.R026), "T.ptx.tcgen05.fence__after_thread_sync()"},
	{SurfaceName, "T.ptx.tcgen05.fence.before_thread_sync", release.Only(release.R025, release.R026), "T.ptx.tcgen05.fence__before_thread_sync()"},
	{SurfaceName, "T.ptx.tcgen05.ld", release.Only(release.R025, release.R026), "T.ptx.tcgen05.ld.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.mma", release.Only(release.R025, release.R026), "T.ptx.tcgen05.mma.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.mma.block_scale", release.Only(release.R025, release.R026), "T.ptx.tcgen05.mma.block_scale.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.mma.sp", release.Only(release.R025, release.R026), "T.ptx.tcgen05.mma.sp.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.mma.sp.block_scale", release.Only(release.R025, release.R026), "T.ptx.tcgen05.mma.sp.block_scale.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.relinquish_alloc_permit", release.Only(release.R025, release.R026), "T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()"},
	{SurfaceName, "T.ptx.tcgen05.shift", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.tcgen05.st", release.Only(release.R025, release.R026), "T.ptx.tcgen05.st.<modifiers> (with the instruction modifiers the PTX table requires)"},
	{SurfaceName, "T.ptx.tcgen05.wait.ld", release.Only(release.R025, release.R026), "T.ptx.tcgen05.wait__ld.sync.aligned()"},
	{SurfaceName, "T.ptx.tcgen05.wait.st", release.Only(release.R025, release.R026), "T.ptx.tcgen05.wait__st.sync.aligned()"},
	{SurfaceName, "T.ptx.wgmma.commit_group", release.Only(release.R025, release.R026), "T.ptx.wgmma.commit_group.sync.aligned()"},
	{SurfaceName, "T.ptx.wgmma.encode_matrix_descriptor", release.Only(release.R025, release.R026), "T.cuda.wgmma.encode_matrix_descriptor(...)"},
	{SurfaceName, "T.ptx.wgmma.fence", release.Only(release.R025, release.R026), "T.ptx.wgmma.fence.sync.aligned()"},
	{SurfaceName, "T.ptx.wgmma.mma_async.rs", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.wgmma.mma_async.ss", release.Only(release.R025, release.R026), "the T.ptx.<instruction>.<modifiers> chain of the PTX table"},
	{SurfaceName, "T.ptx.wgmma.noop_barrier", release.Only(release.R025, release.R026), "T.cuda.wgmma.noop_barrier(...)"},
	{SurfaceName, "T.ptx.wgmma.wait_group", release.Only(release.R025, release.R026), "T.ptx.wgmma.wait_group.sync.aligned(n)"},
}

// checkSurfaceImportFrom reports "from M import a, b" where M (or M.a, a
// submodule) is a path, or a or b a name of a modelled module, the chosen
// release does not have.
func (ev *Evaluator) checkSurfaceImportFrom(s *syntax.ImportFrom) {
	if _, ok := SurfaceModuleOf(s.Module); ok {
		span := s.Loc
		if i := strings.Index(ev.Text(s.Loc), s.Module); i >= 0 {
			span = source.Span{Start: s.Loc.Start + source.Pos(i), End: s.Loc.Start + source.Pos(i+len(s.Module))}
		}
		ev.checkSurfaceModule(s.Module, span)
		return
	}
	m := ev.Module(s.Module, s.Loc)
	for _, a := range s.Names {
		if _, ok := SurfaceModuleOf(s.Module + "." + a.Name); ok {
			ev.checkSurfaceModule(s.Module+"."+a.Name, a.Loc)
		} else if a.Name != "*" && m != nil {
			ev.checkSurfaceAttr(m, a.Name, a.Loc)
		}
	}
}

// checkSurfaceAttr reports M.name of a modelled module M (T.SwizzleLayout,
// Tx.compose_op; also "from M import name") the chosen release does not
// have, "not modelled" when M's model has no such name. Tile primitives are
// checked where they are called (Tx.cta.log2 as Tx.log2).
func (ev *Evaluator) checkSurfaceAttr(m *ModuleV, name string, span source.Span) {
	alias := surfaceModuleAlias(m.Path)
	if alias == "" || (m.Path == TxPath && ev.libIsTileOp(name)) {
		return
	}
	if _, listed := surfaceByAlias[alias][name]; !listed {
		return // (a chain of T.ptx is checked where it is called)
	}
	how := "not modelled"
	if m.Attr != nil {
		if _, ok := m.Attr(ev, name, span); ok {
			how = ""
		}
	}
	ev.CheckSurfaceName(alias, name, span, how)
}

// normPTX spells a T.ptx chain one way: "::" and "__" as "." and without the
// trailing "_" of a token that is a Python keyword or builtin ("async_",
// "global_"), as 0.27's engine reads both.
func normPTX(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "::", "."), "__", ".")
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "_")
	}
	return strings.Join(parts, ".")
}
