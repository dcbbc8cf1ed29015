// Package report renders lower.Results as the `--emit json` document that
// tools and CI rely on: one Document per run, with one File record per
// input file. The schema is documented in docs/json.md and
// docs/json.schema.json; it is stable: fields are only ever added, and a
// change that is not an addition raises Schema.
//
// Lines and columns are 1-based; columns count bytes. Optional values are
// JSON null, never omitted: "case" is null unless parameters were bound
// (then one record per kernel and case), "case_id" unless a pytest id or
// CONFIGS label names the case, "needs" unless the kernel or call is
// unresolved (it needs parameters no binding source gave), "tma" unless the
// chosen variant is a TMA one, "variant" when no variant applies.
package report

import (
	"slices"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/version"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/perf/memory"
)

// Schema is the version of the document's shape ("schema" in the JSON).
const Schema = 1

// Document is the top-level JSON object: the schema version, the tilels
// release that wrote it, the apache-tvm release whose dispatcher it
// models, and one record per input file, in input order.
type Document struct {
	Schema    int     `json:"schema"`
	Tilels    string  `json:"tilels"`
	Reference string  `json:"reference"`
	Files     []*File `json:"files"`
}

// New returns the document of the given file records.
func New(files ...*File) *Document {
	if files == nil {
		files = []*File{}
	}
	var refs []string
	for _, f := range files {
		if f != nil && !slices.Contains(refs, f.Reference.Release) {
			refs = append(refs, f.Reference.Release)
		}
	}
	return &Document{Schema: Schema, Tilels: version.Release, Reference: strings.Join(refs, ", "), Files: files}
}

// File is one input file's record: the reference release it was analysed
// under, its kernels and its diagnostics.
type File struct {
	File        string       `json:"file"`
	Reference   Reference    `json:"reference"`
	Kernels     []Kernel     `json:"kernels"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Reference is lower.Reference: the release's version, how it was chosen
// (setting, environment, file or default) and one line saying why.
type Reference struct {
	Release string `json:"release"`
	Source  string `json:"source"`
	Why     string `json:"why"`
}

func referenceOf(r lower.Reference) Reference {
	return Reference{Release: r.Release.String(), Source: string(r.Source), Why: r.Why}
}

// Kernel is one kernel record.
type Kernel struct {
	Name string `json:"name"`
	// Symbol is the kernel's CUDA function name without "_kernel"
	// (lower.Symbols; the harness reports it under this name); null for an
	// unresolved kernel.
	Symbol *string `json:"symbol"`
	Line   int     `json:"line"`
	// Case maps each bound parameter to its value as a Python literal.
	Case   map[string]string `json:"case"`
	CaseID *string           `json:"case_id"`
	// Needs lists, for a kernel that could not be evaluated, the
	// parameters to bind; its calls are unresolved.
	Needs       []string     `json:"needs"`
	Calls       []Call       `json:"calls"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Memory is the kernel's predicted memory traffic for one launch, its
	// calls and the code outside them (perf/memory); null for an
	// unresolved kernel.
	Memory *Memory `json:"memory"`
	// Machine is the kernel's machine code (report/machine.go); null
	// unless nvcc compiled it (--machine, --emit ptx/sass).
	Machine *Machine `json:"machine"`
}

// Memory is the predicted memory traffic of one launch (perf/memory;
// docs/json.md says which Nsight Compute counter each figure predicts).
type Memory struct {
	Source string `json:"source"`
	// CTAs is the launch's CTA count; Scaled says that CTA 0's counts
	// were multiplied by it (a grid of more than perf/memory.MaxCTAs
	// CTAs whose CTAs no proof counts exactly: an estimate).
	CTAs   int64 `json:"ctas"`
	Scaled bool  `json:"scaled"`
	// ScaledWhy says what kept the CTAs from being counted exactly (null
	// unless Scaled).
	ScaledWhy   *string      `json:"scaled_why"`
	SharedLoad  SharedCounts `json:"shared_load"`
	SharedStore SharedCounts `json:"shared_store"`
	Ldmatrix    SharedCounts `json:"ldmatrix"`
	Stmatrix    SharedCounts `json:"stmatrix"`
	GlobalLoad  GlobalCounts `json:"global_load"`
	GlobalStore GlobalCounts `json:"global_store"`
	CpAsync     AsyncCounts  `json:"cp_async"`
	TMA         AsyncCounts  `json:"tma"`
	// Unknown says why the figures are not computable (they are zero
	// then); null when they are.
	Unknown *string `json:"unknown"`
}

// SharedCounts are the figures of one kind of shared-memory instruction.
type SharedCounts struct {
	Instructions    int64 `json:"instructions"`
	Wavefronts      int64 `json:"wavefronts"`
	IdealWavefronts int64 `json:"ideal_wavefronts"`
	BankConflicts   int64 `json:"bank_conflicts"`
}

// GlobalCounts are the figures of one kind of global-memory instruction.
type GlobalCounts struct {
	Requests     int64 `json:"requests"`
	Sectors      int64 `json:"sectors"`
	IdealSectors int64 `json:"ideal_sectors"`
}

// AsyncCounts are the warp instructions and bytes of an asynchronous copy kind.
type AsyncCounts struct {
	Instructions int64 `json:"instructions"`
	Bytes        int64 `json:"bytes"`
}

// Call is one tile call's dispatch result.
type Call struct {
	Line     int        `json:"line"`
	Column   int        `json:"column"`
	Op       string     `json:"op"`
	Scope    string     `json:"scope"`
	Threads  int64      `json:"threads"`
	Variant  *string    `json:"variant"`
	Vec      *int64     `json:"vec"`
	VecBits  *int64     `json:"vec_bits"`
	Outer    *int64     `json:"outer"`
	Declined []Declined `json:"declined"`
	TMA      *TMA       `json:"tma"`
	// Plan is the chosen variant's plan (dispatch.Result.Plan); null when
	// the variant has none.
	Plan []PlanItem `json:"plan"`
	// Needs is set on an unresolved call: the parameters to bind before it
	// can be dispatched (variant is null, declined empty, threads 0).
	Needs []string `json:"needs"`
	// NotModelled is set on a call tilels does not dispatch although
	// nothing needs binding, and says why ("not a CUDA kernel: target trn
	// is not modelled"); variant is null, declined empty.
	NotModelled *string `json:"not_modelled"`
	// Memory is the call's predicted memory traffic for one launch; null
	// for a call that was not dispatched.
	Memory *Memory `json:"memory"`
}

// PlanItem is one named fact of a variant's plan, with its decoded fields.
type PlanItem struct {
	Key    string     `json:"key"`
	Value  string     `json:"value"`
	Fields []PlanItem `json:"fields"`
}

func planRecord(p []dispatch.PlanItem) []PlanItem {
	if len(p) == 0 {
		return nil
	}
	out := make([]PlanItem, len(p))
	for i, it := range p {
		out[i] = PlanItem{Key: it.Key, Value: it.Value, Fields: planRecord(it.Fields)}
	}
	return out
}

// TMA is the descriptor of a TMA copy, in CUDA order (innermost dimension
// first) exactly as cuTensorMapEncodeTiled takes it: global_strides are in
// bytes and have rank-1 entries. "dtype" is the descriptor element type
// (after promotion), "direction" g2s or s2g, "issues" the number of
// bulk-tensor instructions the call issues.
type TMA struct {
	Rank           int     `json:"rank"`
	DType          string  `json:"dtype"`
	Direction      string  `json:"direction"`
	GlobalDims     []int64 `json:"global_dims"`
	GlobalStrides  []int64 `json:"global_strides"`
	Box            []int64 `json:"box"`
	ElementStrides []int64 `json:"element_strides"`
	Interleave     int     `json:"interleave"`
	Swizzle        int     `json:"swizzle"`
	L2Promotion    int     `json:"l2_promotion"`
	OOBFill        int     `json:"oob_fill"`
	Issues         int64   `json:"issues"`
	// RuntimeGlobalDims (only when a global dimension is a runtime value,
	// ir.TensorMap.GlobalDimExprs) has rank entries: the expression the
	// host launcher computes ("seq_len * 64") where GlobalDims holds 0,
	// "" elsewhere.
	RuntimeGlobalDims []string `json:"runtime_global_dims,omitempty"`
}

func tmaRecord(t *dispatch.TMA) *TMA {
	m := t.Map
	nz := func(v []int64) []int64 {
		if v == nil {
			return []int64{}
		}
		return v
	}
	var rt []string
	for i, e := range m.GlobalDimExprs {
		if e != nil {
			if rt == nil {
				rt = make([]string, len(m.GlobalDimExprs))
			}
			rt[i] = dispatch.ExprText(e)
			if _, bin := e.(*ir.Binary); bin {
				rt[i] = strings.TrimSuffix(strings.TrimPrefix(rt[i], "("), ")") // unparenthesized, as TVM's tuples
			}
		}
	}
	return &TMA{Rank: m.Rank, DType: m.DType.String(), Direction: t.Direction,
		GlobalDims: nz(m.GlobalDims), GlobalStrides: nz(m.GlobalStrides), Box: nz(m.Box),
		ElementStrides: nz(m.ElemStrides), Interleave: m.Interleave, Swizzle: m.Swizzle,
		L2Promotion: m.L2Promotion, OOBFill: m.OOBFill, Issues: t.Issues, RuntimeGlobalDims: rt}
}

// Declined is a variant that was tried before the chosen one (or instead of
// any) and why it did not apply.
type Declined struct {
	Variant string `json:"variant"`
	Reason  string `json:"reason"`
}

// Diagnostic is one diagnostic.
type Diagnostic struct {
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	EndLine  int    `json:"end_line"`
	EndCol   int    `json:"end_column"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// Build converts r, restricted to the kernels ks (all when nil: every
// kernel and case record, and the unresolved kernels, in source order).
func Build(r *lower.Result, ks []*lower.Kernel) *File {
	if ks == nil {
		ks = r.Records()
	}
	doc := &File{File: r.File.Name, Reference: referenceOf(r.Reference), Kernels: []Kernel{}, Diagnostics: diags(r.File, r.Diags)}
	var printed []*lower.Kernel
	for _, k := range ks {
		if k.Lowered != nil {
			printed = append(printed, k)
		}
	}
	symbols := map[*lower.Kernel]string{}
	for i, s := range lower.Symbols(printed) {
		symbols[printed[i]] = s
	}
	for _, k := range ks {
		line, _ := r.File.Position(k.Span.Start)
		kj := Kernel{Name: k.Name, Line: line, Case: k.Case, Needs: k.Needs, Calls: []Call{}, Diagnostics: diags(r.File, k.Diags)}
		if s, ok := symbols[k]; ok {
			kj.Symbol = &s
		}
		if k.CaseID != "" {
			id := k.CaseID
			kj.CaseID = &id
		}
		var mem *memory.Kernel
		if k.Lowered != nil {
			if mem = k.Memory(); mem != nil {
				kj.Memory = memoryRecord(mem.Total)
			}
		}
		for _, d := range k.Calls {
			cj := call(r.File, d)
			if mem != nil && d.Variant != "" {
				cj.Memory = memoryRecord(mem.Calls[d.Call])
			}
			kj.Calls = append(kj.Calls, cj)
		}
		for _, u := range k.Unresolved {
			l, c := r.File.Position(u.Span.Start)
			cj := Call{Line: l, Column: c, Op: u.Op, Scope: u.Scope, Declined: []Declined{}, Needs: u.Needs}
			if u.NotModelled != "" {
				nm := u.NotModelled
				cj.NotModelled = &nm
			}
			kj.Calls = append(kj.Calls, cj)
		}
		doc.Kernels = append(doc.Kernels, kj)
	}
	return doc
}

func call(f *source.File, d *dispatch.Decision) Call {
	line, col := f.Position(d.Call.Span.Start)
	c := Call{Line: line, Column: col, Op: d.Call.Op, Scope: d.Call.Scope, Threads: d.Threads, Declined: []Declined{}}
	if d.Variant != "" {
		v := d.Variant
		c.Variant = &v
	}
	if d.Result != nil {
		vec, bits, outer := d.Result.Vec, d.Result.VecBits, d.Result.Outer
		c.Vec, c.VecBits, c.Outer = &vec, &bits, &outer
		c.Plan = planRecord(d.Result.Plan)
		if d.Result.TMA != nil && d.Result.TMA.Map != nil {
			c.TMA = tmaRecord(d.Result.TMA)
		}
	}
	for _, dv := range d.Declined {
		c.Declined = append(c.Declined, Declined{Variant: dv.Variant, Reason: dv.Reason})
	}
	return c
}

// memoryRecord converts f (nil gives nil).
func memoryRecord(f *memory.Figures) *Memory {
	if f == nil {
		return nil
	}
	sh := func(s memory.Shared) SharedCounts {
		return SharedCounts{Instructions: s.Instructions, Wavefronts: s.Wavefronts, IdealWavefronts: s.Ideal, BankConflicts: s.Conflicts}
	}
	gl := func(g memory.Global) GlobalCounts {
		return GlobalCounts{Requests: g.Requests, Sectors: g.Sectors, IdealSectors: g.IdealSectors}
	}
	var why *string
	if f.Scaled {
		w := f.ScaledWhy
		why = &w
	}
	m := &Memory{Source: f.Source, CTAs: f.CTAs, Scaled: f.Scaled, ScaledWhy: why, SharedLoad: sh(f.SharedLoad), SharedStore: sh(f.SharedStore), Ldmatrix: sh(f.Ldmatrix),
		Stmatrix: sh(f.Stmatrix), GlobalLoad: gl(f.GlobalLoad), GlobalStore: gl(f.GlobalStore),
		CpAsync: AsyncCounts{f.CpAsync.Instructions, f.CpAsync.Bytes}, TMA: AsyncCounts{f.TMA.Instructions, f.TMA.Bytes}}
	if f.Unknown != "" {
		why := f.Unknown
		*m = Memory{Source: f.Source, CTAs: f.CTAs, Unknown: &why}
	}
	return m
}

// Unread is the record of a file that was not analysed (it could not be
// read whole): no kernels, and the diagnostics ds, positioned in f (the
// part that was read, or an empty file); ref is the release the options
// choose without a file (lower.Options.ChooseReference(nil)).
func Unread(f *source.File, ref lower.Reference, ds []diag.Diagnostic) *File {
	return &File{File: f.Name, Reference: referenceOf(ref), Kernels: []Kernel{}, Diagnostics: diags(f, ds)}
}

func diags(f *source.File, ds []diag.Diagnostic) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range ds {
		l, c := f.Position(d.Span.Start)
		el, ec := f.Position(d.Span.End)
		out = append(out, Diagnostic{Line: l, Column: c, EndLine: el, EndCol: ec, Severity: severity(d.Severity), Code: d.Code, Message: d.Message})
	}
	return out
}

// severity maps to the three values the schema allows (a hint is
// information).
func severity(s diag.Severity) string {
	switch s {
	case diag.Error, diag.Warning:
		return s.String()
	}
	return diag.Information.String()
}
