package cuda

import (
	"bytes"
	"fmt"
	"github.com/tilels/tilels/internal/names"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// cReserved are identifiers a kernel variable must not take: C++ keywords,
// CUDA built-ins and types, and names this printer declares itself.
var cReserved = []string{
	"alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "class",
	"const", "constexpr", "continue", "default", "delete", "do", "double", "else", "enum",
	"explicit", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
	"long", "mutable", "namespace", "new", "operator", "private", "protected", "public",
	"register", "return", "short", "signed", "sizeof", "static", "struct", "switch",
	"template", "this", "throw", "true", "try", "typedef", "typename", "union", "unsigned",
	"using", "virtual", "void", "volatile", "while", "nullptr", "and", "or", "not", "xor",
	"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "half", "half2", "nv_bfloat16",
	"nv_bfloat162", "float2", "float4", "uint2", "uint4", "min", "max", "int64_t", "uint64_t",
	"warp_id_in_cta", "dyn_smem",
	// The host launcher's names (host.go).
	"stream", "tilels_rc", "tilels_err", "tilels_config", "tilels_attrs", "tilels_spec",
	"tilels_fail", "tilels_cuda_fail", "tilels_encode_tiled", "tilels_encoder", "tilels_encode_tiled_fn",
	"tilels_tensor_map", "tilels_error_message", "tilels_last_error",
}

var cReservedSet = names.Reserved(cReserved...)

// bodyBufs recycles the kernel body buffers: growing a fresh builder per
// kernel was 9% of BenchmarkPrintCUDA3000 allocations and 28% of its bytes
// (20.7k → 18.9k allocs/op, 2.25 → 1.62 MB/op).
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// kernel prints one kernel.
type kernel struct {
	f      *file
	fn     *ir.Func
	launch ir.Launch
	names  *names.Namer
	ptr    map[*ir.Buffer]string // C pointer of each declared buffer
	b      *bytes.Buffer         // the body, from bodyBufs
	indent int
	err    error

	needWarp   bool   // warp_id_in_cta is used: declare it at the top
	arena      string // name of the dynamic shared memory arena ("" until used)
	arenaOff   int64  // next free byte in the arena
	arenaAlign int64  // alignment of the arena (64, more for TMA boxes)

	// params names the kernel's parameter variables, maps its tensor-map
	// parameters; align is the alignment TMA boxes need in shared
	// allocations (tmaAlignments).
	params map[*ir.Var]string
	// tmParams holds the parameters annotated T.TensorMap() (passed by
	// value; the launcher takes a pointer to the host's descriptor)
	tmParams map[*ir.Var]bool
	// hostMaps are the descriptors of fn.HostMaps passed as parameters
	// after fn.TensorMaps (their specs follow in the same order)
	hostMaps []*ir.TensorMap
	maps     map[*ir.TensorMap]string

	// letVars are the variables a Let declared; visible counts the
	// enclosing blocks that declare each, scopes the variables each open
	// block declared. An Assign to a Let variable whose declaration is in
	// a closed sibling block (a Python name assigned in two loops, the
	// first assignment a Let) declares it again (scopedAssign).
	letVars map[*ir.Var]bool
	visible map[*ir.Var]int
	scopes  [][]*ir.Var
	align   map[*ir.Buffer]int64
	aligned bool // align is computed (alignOf)

	// helpers and used are the helpers this kernel needs (by name; in
	// first-use order); errAt is len(used) when err was set.
	helpers map[string]*helper
	used    []*helper
	errAt   int

	// Where the instruction printed now comes from, for ArchError: the
	// tile call whose lowering is printed (nil outside one), the intrinsic
	// call, the statement. arch collects the errors for CheckArch.
	inCall *ir.Lowered
	atCall source.Span
	atStmt source.Span
	arch   []*ArchError

	// only is set by PrintCall: the one tile call to print (the others
	// are left out); callText is its text once printed.
	only     *ir.Lowered
	callText string
	printed  bool

	// With line directives (f.lines, linedir.go): pyLine is the Python
	// line the next printed line belongs to (0: none yet), presumed the
	// line the compiler would give it by counting (0: unknown); shift
	// moves the kernel's spans into the directives' source.
	pyLine, presumed int
	shift            source.Pos

	// calls records where each top-level tile call's lowering is in b
	// (outmap.go).
	calls []callMark
}

// kernel prints one kernel under its C name, and its host launcher under
// launchName. It reads f's target only, so kernels print concurrently;
// file.merge adds the result to f.
func (f *file) kernel(kn Kernel, name, launchName string) kernelOut {
	fn := kn.Func
	if fn == nil {
		return kernelOut{err: fmt.Errorf("codegen/cuda: nil function")}
	}
	k := newKernel(f, kn)
	defer bodyBufs.Put(k.b)
	fail := func(err error) kernelOut {
		return kernelOut{name: fn.Name, used: k.used, err: err, errAt: k.errAt, arch: k.arch}
	}
	params, hostParams, specs, err := k.signature()
	if err != nil {
		return fail(err)
	}

	k.indent = 1
	if fn.Host != nil {
		// Shared and register buffers allocated before T.device_entry()
		// (test_reg.py's deposit) are the kernel's: TVM moves them into
		// the device function. They are declared first.
		// A scalar the host section binds from constants and scalar
		// parameters (flash_attention4.py's cta_count, the grid extent its
		// tile scheduler strides by) is the kernel's argument in TVM's
		// host/device split: it is recomputed in the kernel.
		var onChip []ir.Stmt
		hostScalars := map[*ir.Var]bool{}
		for _, st := range fn.Host.Stmts {
			switch st := st.(type) {
			case *ir.Alloc:
				if st.Buf != nil && st.Buf.Scope != "global" && st.Buf.Scope != "" {
					onChip = append(onChip, st)
				}
			case *ir.Let:
				if st.Var.Type != ir.HandleT && st.Var.Type.IsValid() && k.deviceScalar(st.Value, hostScalars) {
					hostScalars[st.Var] = true
					k.atStmt = st.Span
					value := k.top(st.Value)
					k.line("[[maybe_unused]] %s %s = %s;", letType(st.Var), k.varName(st.Var), value)
					k.declare(st.Var)
				}
			}
		}
		k.stmts(onChip)
	}
	if fn.Body != nil {
		k.stmts(fn.Body.Stmts)
	}
	if k.err != nil {
		return fail(fmt.Errorf("codegen/cuda: kernel %s: %w", fn.Name, k.err))
	}
	host, err := k.launcher(name, launchName, hostParams, specs)
	if err != nil {
		return fail(fmt.Errorf("codegen/cuda: kernel %s: %w", fn.Name, err))
	}

	var out strings.Builder
	out.Grow(k.b.Len() + 256) // the signature and prologue, then the body
	if f.lines != nil {
		out.WriteString(k.prologueDirective())
	}
	out.WriteString(`extern "C" __global__ void `)
	if c := kn.Launch.Cluster; c[0]*c[1]*c[2] > 1 {
		fmt.Fprintf(&out, "__cluster_dims__(%d, %d, %d) ", c[0], c[1], c[2])
	}
	if n := kn.Launch.Threads(); n > 1 {
		fmt.Fprintf(&out, "__launch_bounds__(%d) ", n)
	}
	fmt.Fprintf(&out, "%s(%s) {\n", name, strings.Join(params, ", "))
	if k.arena != "" {
		fmt.Fprintf(&out, "  extern __shared__ __align__(%d) unsigned char %s[];\n", k.arenaAlign, k.arena)
	}
	if k.needWarp {
		lin := k.linearTid()
		if n := k.threads(); n > 0 && n%32 != 0 {
			// A partial last warp cannot take part in a full-mask shuffle.
			fmt.Fprintf(&out, "  int warp_id_in_cta = %s >> 5;\n", lin)
		} else {
			fmt.Fprintf(&out, "  int warp_id_in_cta = __shfl_sync(0xffffffff, %s >> 5, 0, 32);\n", lin)
		}
	}
	base := out.Len()
	out.Write(k.b.Bytes())
	out.WriteString("}\n")
	for i := range k.calls {
		k.calls[i].start += base
		k.calls[i].end += base
	}
	return kernelOut{name: fn.Name, text: out.String(), host: host, tma: len(fn.TensorMaps)+len(k.hostMaps) > 0, used: k.used, errAt: len(k.used), arch: k.arch, calls: k.calls}
}

// newKernel starts printing kn (a non-nil function) into a body buffer
// from bodyBufs, which the caller puts back.
func newKernel(f *file, kn Kernel) *kernel {
	body := bodyBufs.Get().(*bytes.Buffer)
	body.Reset()
	k := &kernel{f: f, fn: kn.Func, launch: kn.Launch, names: names.New(cReservedSet), ptr: map[*ir.Buffer]string{}, b: body,
		helpers: map[string]*helper{}, params: map[*ir.Var]string{}, maps: map[*ir.TensorMap]string{}, arenaAlign: 64}
	if f.lines != nil {
		k.shift = f.lines.Shift[kn.Func]
	}
	return k
}

// alignOf is the alignment b needs for the TMA boxes that read or write
// it (tmaAlignments, computed on first use: a walk of the whole kernel).
// PrintCall does not show a static shared array declared outside the
// call it prints, and nothing else depends on its alignment: it gets
// none, and a hover on one call of a kernel of 4,000 does not walk them
// all (tmaAlignments was 40% of BenchmarkHover4000Calls CPU).
func (k *kernel) alignOf(b *ir.Buffer) int64 {
	if !k.aligned {
		if k.only != nil && b.Scope == "shared" {
			return 0
		}
		k.align, k.aligned = tmaAlignments(k.fn.Body), true
	}
	return k.align[b]
}

// signature names the kernel's parameters and tensor maps, in order, and
// returns the kernel's parameter list, the launcher's, and the checked
// tensor maps.
func (k *kernel) signature() (params, hostParams []string, specs []tmSpec, err error) {
	fn := k.fn
	for _, prm := range fn.Params {
		if prm == nil || prm.Var == nil {
			return nil, nil, nil, fmt.Errorf("codegen/cuda: kernel %s: malformed parameter", fn.Name)
		}
		n := k.names.Name(prm.Var, prm.Var.Name)
		k.params[prm.Var] = n
		var t string
		switch {
		case prm.Buf != nil:
			k.ptr[prm.Buf] = n
			t = k.ctype(prm.Buf.Dtype) + "*"
			params = append(params, t+" __restrict__ "+n)
		case prm.TensorMap:
			// T.TensorMap(): the descriptor by value, as the reference's
			// codegen passes it; the launcher gets the host's storage
			if k.tmParams == nil {
				k.tmParams = map[*ir.Var]bool{}
			}
			k.tmParams[prm.Var] = true
			t = "const CUtensorMap*"
			params = append(params, "const __grid_constant__ CUtensorMap "+n)
		case prm.Var.Type.Code == ir.Handle:
			t = "void*"
			params = append(params, "void* __restrict__ "+n)
		default:
			t = scalarCType(prm.Var.Type)
			params = append(params, t+" "+n)
		}
		hostParams = append(hostParams, t+" "+n)
	}
	// Tensor maps follow the data pointers (spec §5.2), passed by value.
	specs = make([]tmSpec, len(fn.TensorMaps))
	for i, m := range fn.TensorMaps {
		if m == nil {
			return nil, nil, nil, fmt.Errorf("codegen/cuda: kernel %s: nil tensor map", fn.Name)
		}
		if _, dup := k.maps[m]; dup {
			return nil, nil, nil, fmt.Errorf("codegen/cuda: kernel %s: tensor map %s listed twice", fn.Name, m.Name)
		}
		n := k.names.Name(m, m.Name)
		k.maps[m] = n
		params = append(params, "const __grid_constant__ CUtensorMap "+n)
		s, err := newTMSpec(m, n)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("codegen/cuda: kernel %s: %w", fn.Name, err)
		}
		specs[i] = s
	}
	// The descriptors the kernel's own host code encodes (ir.Func.HostMaps:
	// T.call_packed("runtime.cuTensorMapEncodeTiled", m, ...) on a
	// T.tvm_stack_alloca("tensormap", 1) handle m), which the reference's
	// host function passes to the kernel by value as well: the launcher
	// encodes each one from the same static operands, and the device
	// code's T.address_of(m) is the parameter's address.
	hostMaps := make([]*ir.Var, 0, len(fn.HostMaps))
	for v := range fn.HostMaps {
		hostMaps = append(hostMaps, v)
	}
	sort.Slice(hostMaps, func(i, j int) bool {
		a, b := fn.HostMaps[hostMaps[i]], fn.HostMaps[hostMaps[j]]
		if a.Span.Start != b.Span.Start {
			return a.Span.Start < b.Span.Start
		}
		return hostMaps[i].Name < hostMaps[j].Name
	})
	for _, v := range hostMaps {
		m := fn.HostMaps[v]
		if m.Buf == nil || k.maps[m] != "" {
			continue // (no data buffer to encode it over: address_of stays unknown)
		}
		n := k.names.Name(m, m.Name)
		k.maps[m] = n
		if k.tmParams == nil {
			k.tmParams = map[*ir.Var]bool{}
		}
		k.tmParams[v] = true
		if k.params == nil {
			k.params = map[*ir.Var]string{}
		}
		k.params[v] = n
		params = append(params, "const __grid_constant__ CUtensorMap "+n)
		s, err := newTMSpec(m, n)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("codegen/cuda: kernel %s: %w", fn.Name, err)
		}
		specs = append(specs, s)
		k.hostMaps = append(k.hostMaps, m)
	}
	return params, hostParams, specs, nil
}

func (k *kernel) fail(format string, args ...any) {
	if k.err == nil {
		k.err = fmt.Errorf(format, args...)
		k.errAt = len(k.used)
	}
}

// use records that the kernel needs h (file.use, against this kernel's
// helpers; file.merge checks them against the other kernels').
func (k *kernel) use(h *helper) {
	if err := k.f.checkArch(h); err != nil {
		k.archProblem(err)
		if !k.f.check {
			return
		}
	}
	if _, ok := k.helpers[h.name]; !ok {
		k.used = append(k.used, h)
	}
	if err := useIn(k.helpers, h); err != nil {
		k.fail("%v", err)
	}
}

// line writes one indented line. format takes only %s (a string), %d (an
// int or int64) and %%: this small formatter lets args stay on the stack,
// where fmt.Fprintf boxed every argument and strings.Repeat built the
// indent (25% of BenchmarkPrintCUDA3000 allocations: 29.6k → 22.2k
// allocs/op). Another verb is a bug in this package and fails the kernel.
func (k *kernel) line(format string, args ...any) {
	if k.f.lines != nil {
		if !structural(format) {
			k.directive()
		}
		defer k.advance(k.b.Len())
	}
	for range k.indent {
		k.b.WriteString("  ")
	}
	ai := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			k.b.WriteByte(c)
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			k.b.WriteByte('%')
			continue
		}
		var arg any
		if ai < len(args) {
			arg = args[ai]
			ai++
		}
		switch v := arg.(type) {
		case string:
			if i < len(format) && format[i] == 's' {
				k.b.WriteString(v)
				continue
			}
		case int:
			if i < len(format) && format[i] == 'd' {
				var num [20]byte
				k.b.Write(strconv.AppendInt(num[:0], int64(v), 10))
				continue
			}
		case int64:
			if i < len(format) && format[i] == 'd' {
				var num [20]byte
				k.b.Write(strconv.AppendInt(num[:0], v, 10))
				continue
			}
		}
		k.fail("codegen/cuda: bad line format %q", format)
		return
	}
	k.b.WriteByte('\n')
}

func (k *kernel) varName(v *ir.Var) string {
	if v == nil {
		k.fail("nil variable")
		return "v"
	}
	return k.names.Name(v, v.Name)
}

// scalarCType is the C type of a scalar variable; handles are void*.
func scalarCType(t ir.DataType) string {
	switch {
	case !t.IsValid():
		return "int"
	case t.Code == ir.Handle:
		return "void*"
	}
	return t.CType()
}

// ---- statements ----

func (k *kernel) stmts(ss []ir.Stmt) {
	for _, s := range ss {
		if k.err != nil || k.printed {
			return
		}
		k.stmt(s)
	}
}

func (k *kernel) block(b *ir.Block) {
	k.indent++
	k.scopes = append(k.scopes, nil)
	if b != nil {
		k.stmts(b.Stmts)
	}
	for _, v := range k.scopes[len(k.scopes)-1] {
		k.visible[v]--
	}
	k.scopes = k.scopes[:len(k.scopes)-1]
	k.indent--
}

// declare records that a Let declared v in the innermost open block.
func (k *kernel) declare(v *ir.Var) {
	if k.letVars == nil {
		k.letVars, k.visible = map[*ir.Var]bool{}, map[*ir.Var]int{}
	}
	k.letVars[v] = true
	k.visible[v]++
	if n := len(k.scopes); n > 0 {
		k.scopes[n-1] = append(k.scopes[n-1], v)
	}
}

// letType is the C type a Let of v declares.
func letType(v *ir.Var) string {
	if v != nil && v.Type.IsValid() && v.Type.Code != ir.Handle {
		return v.Type.CType()
	}
	return "auto"
}

func (k *kernel) stmt(s ir.Stmt) {
	if k.only != nil {
		// PrintCall, before its call: a statement that names nothing
		// (every variable it reads was named where it was bound) is not
		// printed. A kernel of 4,000 calls and 2,000 barriers spent 0.6
		// ms printing the barriers before a call near its end.
		switch s.(type) {
		case *ir.Store, *ir.Evaluate, *ir.Assign, *ir.Comment, *ir.Break, *ir.Continue:
			return
		}
	}
	if k.f.lines != nil {
		k.atStmtLine(s)
	}
	switch s := s.(type) {
	case *ir.Block:
		k.line("{")
		k.block(s)
		k.line("}")
	case *ir.For:
		k.atStmt = s.Span
		if k.vectorBundle(s) {
			return
		}
		v := k.varName(s.Var)
		t := "int"
		if s.Var != nil && s.Var.Type.IsValid() {
			t = scalarCType(s.Var.Type)
		}
		switch {
		case s.Unroll > 0:
			k.line("#pragma unroll %d", s.Unroll) // (disable_unroll: 1)
		case s.Unroll == ir.UnrollFull || s.Kind == ir.Unrolled || s.Kind == ir.Vectorized:
			k.line("#pragma unroll")
		}
		if s.Min == nil {
			k.line("for (%s %s = 0; %s < %s; ++%s) {", t, v, v, k.top(s.Extent), v)
		} else {
			k.line("for (%s %s = %s; %s < %s; ++%s) {", t, v, k.top(s.Min), v, k.top(ir.AddE(s.Min, s.Extent)), v)
		}
		k.block(s.Body)
		k.line("}")
	case *ir.While:
		k.atStmt = s.Span
		k.line("while (%s) {", k.top(s.Cond))
		k.block(s.Body)
		k.line("}")
	case *ir.If:
		k.atStmt = s.Span
		k.line("if (%s) {", k.top(s.Cond))
		k.block(s.Then)
		if s.Else != nil {
			k.line("} else {")
			k.block(s.Else)
		}
		k.line("}")
	case *ir.Store:
		k.atStmt = s.Span
		k.line("%s = %s;", k.access(s.Buf, s.Indices), k.top(s.Value))
	case *ir.Evaluate:
		k.atStmt = s.Span
		k.line("%s;", k.top(s.X))
	case *ir.Let:
		k.atStmt = s.Span
		value := k.top(s.Value) // print the value before naming the variable it binds
		k.line("%s %s = %s;", letType(s.Var), k.varName(s.Var), value)
		k.declare(s.Var)
	case *ir.Assign:
		k.atStmt = s.Span
		if k.letVars[s.Var] && k.visible[s.Var] == 0 {
			// Its Let is in a block closed before this one: declare it here.
			value := k.top(s.Value)
			k.line("%s %s = %s;", letType(s.Var), k.varName(s.Var), value)
			k.declare(s.Var)
			return
		}
		k.line("%s = %s;", k.varName(s.Var), k.top(s.Value))
	case *ir.Alloc:
		k.alloc(s.Buf)
	case *ir.Decl:
		k.decl(s.Buf)
	case *ir.ScopeID:
		if s != nil {
			k.atStmt = s.Span
		}
		k.scopeID(s)
	case *ir.TileCall:
		k.fail("unlowered tile call %s (dispatch must replace every TileCall)", callComment(s))
	case *ir.Lowered:
		if k.only != nil && k.inCall == nil {
			k.onlyCall(s)
			return
		}
		call := "<nil call>"
		if s.Call != nil {
			call = callComment(s.Call)
		}
		start := k.b.Len()
		variant := s.Variant
		if variant == "" && s.Call != nil {
			variant = "not lowered (see its error)"
		}
		k.comment(call + " -> " + variant)
		k.line("{")
		outer := k.inCall
		if outer == nil && s.Call != nil {
			k.inCall = s
		}
		if s.Variant == "" && s.Call != nil && len(s.Body.Stmts) == 0 {
			// The reference builds no kernel around a call it cannot
			// lower; this file still shows the rest of the kernel, and a
			// launch stops here instead of skipping the call's work.
			k.indent++
			k.line("__trap();  // tilels: this tile call did not lower; the kernel stops here")
			k.indent--
		}
		k.block(s.Body)
		k.inCall = outer
		k.line("}")
		if outer == nil && s.Call != nil {
			k.calls = append(k.calls, callMark{span: s.Call.Span, start: start, end: k.b.Len()})
		}
	case *ir.Comment:
		if s.LeftOut {
			// a statement the evaluation left out (its warning says why):
			// the code does not do it, and says so where it would be
			k.comment("tilels: left out (see its warning): " + strings.ReplaceAll(s.Text, "\n", " "))
			return
		}
		k.comment(s.Text)
	case *ir.Break:
		k.line("break;")
	case *ir.Continue:
		k.line("continue;")
	case nil:
		k.fail("nil statement")
	default:
		k.fail("unsupported statement %T", s)
	}
}

// onlyCall prints, for PrintCall, the tile call s when it is the one
// asked for (alone, at indentation zero), and nothing for another.
func (k *kernel) onlyCall(s *ir.Lowered) {
	if s != k.only {
		return
	}
	k.only = nil
	k.b.Reset()
	indent := k.indent
	k.indent = 0
	k.stmt(s)
	k.indent = indent
	k.callText, k.printed = k.b.String(), true
}

// comment prints text as // lines. A trailing backslash would splice the
// next line into the comment, so it is dropped.
func (k *kernel) comment(text string) {
	for _, l := range strings.Split(text, "\n") {
		k.line("// %s", strings.TrimRight(l, "\\"))
	}
}

func (k *kernel) bufName(b *ir.Buffer) string {
	return k.names.Name(b, b.Name+"_ptr")
}

func (k *kernel) alloc(b *ir.Buffer) {
	if b == nil {
		k.fail("nil buffer in alloc")
		return
	}
	t := k.ctype(b.Dtype)
	count, err := storageCount(b)
	if err != nil {
		k.fail("buffer %s: %v", b.Name, err)
		return
	}
	switch b.Scope {
	case "shared":
		n := k.bufName(b)
		k.ptr[b] = n
		k.line("__shared__ alignas(%d) %s %s[%d];", max(64, k.alignOf(b)), t, n, count)
	case "local":
		n := k.bufName(b)
		k.ptr[b] = n
		k.line("alignas(64) %s %s[%d];", t, n, count)
	case "shared.dyn":
		k.dynAlloc(b, t, count)
	case "tmem":
		// Tensor memory comes from tcgen05.alloc: a buffer that names its
		// allocated_addr is read through it and allocates nothing here.
		if b.AllocatedAddr == nil {
			k.fail("buffer %s: cannot allocate scope %q in device code (give it an allocated_addr)", b.Name, b.Scope)
		}
	default:
		k.fail("buffer %s: cannot allocate scope %q in device code", b.Name, b.Scope)
	}
}

// dynAlloc places a shared.dyn buffer in the kernel's one extern
// unsigned-char arena. The first uint8 buffer at offset 0 is the arena
// itself; any other buffer is a typed view at the next 64-byte aligned
// offset (buffers are packed in declaration order). A buffer that a TMA
// copy reads or writes is aligned as its box needs (up to 1024 bytes), and
// so is the arena.
func (k *kernel) dynAlloc(b *ir.Buffer, t string, count int64) {
	align := max(64, k.alignOf(b))
	off := (k.arenaOff + align - 1) / align * align
	size := b.Dtype.StorageBytes(count)
	k.arenaOff = off + size
	k.arenaAlign = max(k.arenaAlign, align)
	if k.arena == "" {
		if off == 0 && b.Dtype == (ir.DataType{Code: ir.UInt, Bits: 8}) {
			k.arena = k.bufName(b)
			k.ptr[b] = k.arena
			k.comment(fmt.Sprintf("%s: dynamic shared memory, %d bytes at offset %d", k.arena, size, off))
			return
		}
		k.arena = k.names.Fresh("dyn_smem")
	}
	n := k.bufName(b)
	k.ptr[b] = n
	k.line("%s* %s = reinterpret_cast<%s*>(%s + %d);", t, n, t, k.arena, off)
}

// decl declares a view: a typed pointer ElemOffset elements (of the view's
// dtype) past its base's data.
func (k *kernel) decl(b *ir.Buffer) {
	if b == nil {
		k.fail("nil buffer in decl")
		return
	}
	base, ok := k.viewBase(b)
	if !ok {
		return
	}
	t := k.ctype(b.Dtype)
	n := k.bufName(b)
	k.line("%s* %s = %s;", t, n, k.viewPtr(b, t, base))
	k.ptr[b] = n
}

// viewPtr is the pointer expression of view b (C type t) over its base's
// pointer base. A view of another element type over a base at a runtime
// element offset moves by bytes: flashkda's out_view_words, the uint32
// words of out_packed from its start (decl_buffer(data=out_view.data)
// keeps the data, not out_view's offset).
func (k *kernel) viewPtr(b *ir.Buffer, t, base string) string {
	if p := b.Base; p != nil && p.Kind == ir.DeclBuffer && p.ElemOffsetExpr != nil && p.Dtype != b.Dtype &&
		b.Dtype.Bits >= 8 && p.Dtype.Bits >= 8 && b.Dtype.Bits%8 == 0 && p.Dtype.Bits%8 == 0 {
		bytes := func(e ir.Expr, elemOff int64, d ir.DataType) ir.Expr {
			return ir.MulE(ir.AddE(orZero(e), ir.Const(elemOff)), ir.Const(int64(d.Bits/8)))
		}
		rel := ir.SimplifyIndex(ir.SubE(bytes(b.ElemOffsetExpr, b.ElemOffset, b.Dtype), bytes(p.ElemOffsetExpr, p.ElemOffset, p.Dtype)))
		if v, ok := ir.ConstInt(rel); ok && v == 0 {
			return fmt.Sprintf("reinterpret_cast<%s*>(%s)", t, base)
		}
		return fmt.Sprintf("reinterpret_cast<%s*>(reinterpret_cast<char*>(%s) + (%s))", t, base, k.top(rel))
	}
	expr := fmt.Sprintf("reinterpret_cast<%s*>(%s)", t, base)
	if off := k.viewOffset(b); off != "" {
		expr += " + " + off
	}
	return expr
}

// viewOffset is b's element offset (of b's dtype) past its base's
// pointer. ElemOffset is TVM's: counted from the start of the data, so a
// view of a view (buf.view(...).sub[...], a decl_buffer over view.data)
// subtracts the offset its base's pointer already includes.
// A runtime part (ElemOffsetExpr) is added the same way; a base's
// runtime part the view carries through cancels. It returns "" for none.
func (k *kernel) viewOffset(b *ir.Buffer) string {
	static := k.staticViewOffset(b)
	dyn := b.ElemOffsetExpr
	if p := b.Base; p != nil && p.Kind == ir.DeclBuffer && p.ElemOffsetExpr != nil {
		switch {
		case dyn != nil && ir.Equal(dyn, p.ElemOffsetExpr) && p.Dtype == b.Dtype:
			dyn = nil
		case p.Dtype == b.Dtype:
			dyn = ir.SubE(orZero(dyn), p.ElemOffsetExpr)
		default:
			k.fail("view %s of %s: a runtime element offset across element types", b.Name, p.Name)
			return ""
		}
	}
	if dyn == nil {
		if static == 0 {
			return ""
		}
		return strconv.FormatInt(static, 10)
	}
	return "(" + k.top(ir.SimplifyIndex(ir.AddE(dyn, ir.Const(static)))) + ")"
}

func orZero(e ir.Expr) ir.Expr {
	if e == nil {
		return ir.Const(0)
	}
	return e
}

// staticViewOffset is viewOffset's static part.
func (k *kernel) staticViewOffset(b *ir.Buffer) int64 {
	p := b.Base
	if p == nil || p.Kind != ir.DeclBuffer || p.ElemOffset == 0 {
		return b.ElemOffset
	}
	if p.Dtype == b.Dtype {
		return b.ElemOffset - p.ElemOffset
	}
	bits := func(d ir.DataType) int64 {
		if d.Bits < 8 && d.Code != ir.Float4E2M1 {
			return 8 // bool and the other sub-byte kinds take a byte
		}
		return int64(d.Bits)
	}
	rel := b.ElemOffset*bits(b.Dtype) - p.ElemOffset*bits(p.Dtype)
	if rel%bits(b.Dtype) != 0 {
		k.fail("view %s starts inside an element of %s (its base %s is at element offset %d)", b.Name, b.Dtype, p.Name, p.ElemOffset)
		return b.ElemOffset
	}
	return rel / bits(b.Dtype)
}

func (k *kernel) viewBase(b *ir.Buffer) (string, bool) {
	switch {
	case b.Base != nil:
		return k.bufPtr(b.Base), k.err == nil
	case b.Data != nil:
		return k.varName(b.Data), true
	}
	k.fail("view %s has neither a base buffer nor a data pointer", b.Name)
	return "", false
}

// bufPtr is the C expression of b's typed data pointer.
func (k *kernel) bufPtr(b *ir.Buffer) string {
	if b == nil {
		k.fail("nil buffer")
		return "nullptr"
	}
	if p, ok := k.ptr[b]; ok {
		return p
	}
	if b.Base != nil || (b.Kind == ir.DeclBuffer && b.Data != nil) {
		// A view used without a Decl statement: spell it inline.
		base, ok := k.viewBase(b)
		if !ok {
			return "nullptr"
		}
		t := k.ctype(b.Dtype)
		if e := k.viewPtr(b, t, base); e != fmt.Sprintf("reinterpret_cast<%s*>(%s)", t, base) {
			return "(" + e + ")"
		}
		return fmt.Sprintf("reinterpret_cast<%s*>(%s)", t, base)
	}
	k.fail("buffer %s used before its declaration", b.Name)
	return "nullptr"
}

func (k *kernel) scopeID(s *ir.ScopeID) {
	axes := []string{"x", "y", "z"}
	for i, v := range s.Vars {
		if i >= 3 {
			k.fail("%s with %d dimensions", s.Kind, len(s.Vars))
			return
		}
		var e string
		switch s.Kind {
		case ir.CTAID:
			e = "((int)blockIdx." + axes[i] + ")"
		case ir.ThreadID:
			if len(s.Vars) == 1 {
				e = k.linearTid()
			} else {
				e = "((int)threadIdx." + axes[i] + ")"
			}
		case ir.ClusterID:
			e = k.specialReg("clusterid." + axes[i])
		case ir.CTAIDInCluster:
			e = k.specialReg("cluster_ctaid." + axes[i])
		default:
			if len(s.Vars) > 1 {
				k.fail("%s with %d dimensions", s.Kind, len(s.Vars))
				return
			}
			switch s.Kind {
			case ir.WarpID:
				e = k.warp()
			case ir.WarpgroupID:
				e = k.threadIndex("wgid")
			case ir.WarpIDInWG:
				e = k.threadIndex("wid_in_wg")
			case ir.LaneID:
				e = k.threadIndex("laneid")
			case ir.ThreadIDInWG:
				e = k.threadIndex("tid_in_wg")
			default:
				k.fail("unknown scope id kind %q", s.Kind)
				return
			}
		}
		// [[maybe_unused]]: a kernel often declares ids it never reads
		// (T.cta_id([1])), and nvcc warns about each (#177-D).
		k.line("[[maybe_unused]] int %s = %s;", k.varName(v), e)
	}
}

func (k *kernel) specialReg(reg string) string {
	h := specialRegHelper(reg)
	k.use(h)
	return h.name + "()"
}

// ---- thread indices ----

// threads is the CTA size, or 0 when the launch is unknown.
func (k *kernel) threads() int64 {
	b := k.launch.Block
	if b[0] <= 0 || b[1] <= 0 || b[2] <= 0 {
		return 0
	}
	return b[0] * b[1] * b[2]
}

// linearTid is the linear thread index in the CTA.
func (k *kernel) linearTid() string {
	b := k.launch.Block
	if k.threads() == 0 || (b[1] == 1 && b[2] == 1) {
		return "((int)threadIdx.x)"
	}
	s := fmt.Sprintf("(((int)threadIdx.x) + (((int)threadIdx.y) * %d)", b[0])
	if b[2] > 1 {
		s += fmt.Sprintf(" + (((int)threadIdx.z) * %d)", b[0]*b[1])
	}
	return s + ")"
}

// atMost reports whether the CTA is known to have at most n threads.
func (k *kernel) atMost(n int64) bool {
	t := k.threads()
	return t > 0 && t <= n
}

func (k *kernel) warp() string {
	if k.atMost(32) {
		return "0"
	}
	k.needWarp = true
	return "warp_id_in_cta"
}

// threadIndex prints the runtime index of the calling thread on a layout
// axis (ir.ThreadIndex, spec §3.4 _axis_decl).
func (k *kernel) threadIndex(axis string) string {
	switch axis {
	case "tx":
		return k.linearTid()
	case "laneid":
		if k.atMost(32) {
			return k.linearTid()
		}
		return "(" + k.linearTid() + " % 32)"
	case "warpid":
		return k.warp()
	case "wgid":
		if k.atMost(128) {
			return "0"
		}
		return "(" + k.warp() + " >> 2)"
	case "tid_in_wg":
		if k.atMost(128) {
			return k.linearTid()
		}
		return "(" + k.linearTid() + " % 128)"
	case "wid_in_wg":
		if k.atMost(128) {
			return k.warp()
		}
		return "(" + k.warp() + " & 3)"
	case "bx", "by", "bz":
		return "((int)blockIdx." + axis[1:] + ")"
	case "cbx", "cby", "cbz":
		return k.specialReg("cluster_ctaid." + axis[2:])
	}
	k.fail("unknown thread axis %q", axis)
	return "0"
}

// vectorBundle prints a vectorized loop whose body is one store as two
// unrolled loops through a register bundle: every lane is computed first,
// then every lane is stored. That is the vector semantics of T.vectorized
// (all loads before any store) and it lets the compiler merge the lanes'
// contiguous accesses into one wide load and one wide store. Measured on
// the ewise_sqrt example (sm_90a PTX): the plain loop interleaves
// ld.shared.f32/st.shared.f32 per lane (the in-place store blocks merging);
// the bundle gives one ld.shared.v4 and one st.shared.v4.
func (k *kernel) vectorBundle(s *ir.For) bool {
	n, ok := ir.ConstInt(s.Extent)
	if lo, isConst := ir.ConstInt(s.Min); s.Min != nil && (!isConst || lo != 0) {
		return false
	}
	if s.Kind != ir.Vectorized || !ok || n < 2 || n > 16 || s.Body == nil || len(s.Body.Stmts) != 1 {
		return false
	}
	st, ok := s.Body.Stmts[0].(*ir.Store)
	if !ok || st.Buf == nil {
		return false
	}
	t := "int"
	if s.Var != nil && s.Var.Type.IsValid() {
		t = scalarCType(s.Var.Type)
	}
	tmp := k.varName(&ir.Var{Name: "vec_bundle", Type: st.Buf.Dtype})
	v := k.varName(s.Var)
	k.line("{")
	k.indent++
	k.line("%s %s[%d];", k.ctype(st.Buf.Dtype), tmp, n)
	k.line("#pragma unroll")
	k.line("for (%s %s = 0; %s < %d; ++%s) {", t, v, v, n, v)
	k.indent++
	k.line("%s[%s] = %s;", tmp, v, k.top(st.Value))
	k.indent--
	k.line("}")
	k.line("#pragma unroll")
	k.line("for (%s %s = 0; %s < %d; ++%s) {", t, v, v, n, v)
	k.indent++
	k.line("%s = %s[%s];", k.access(st.Buf, st.Indices), tmp, v)
	k.indent--
	k.line("}")
	k.indent--
	k.line("}")
	return true
}

// ctype is the C type of a buffer element of t; a float4 type also makes
// the file include cuda_fp4.h.
func (k *kernel) ctype(t ir.DataType) string {
	if t.Code == ir.Float4E2M1 {
		k.use(fp4Header)
	}
	return t.CType()
}

// fp4Header includes the float4 types, only in files that use them.
var fp4Header = &helper{name: "cuda_fp4.h", rank: rankHeader, code: "#include <cuda_fp4.h>\n"}

// deviceScalar reports whether e, a host-section value, is computed from
// constants, scalar parameters and the host scalars before it (known) by
// arithmetic only, so that the kernel can compute it too.
func (k *kernel) deviceScalar(e ir.Expr, known map[*ir.Var]bool) bool {
	switch e := e.(type) {
	case *ir.IntImm, *ir.FloatImm:
		return true
	case *ir.Var:
		if known[e] {
			return true
		}
		for _, p := range k.fn.Params {
			if p.Var == e && p.Buf == nil && !p.TensorMap && e.Type.Code != ir.Handle {
				return true
			}
		}
		return false
	case *ir.Binary:
		return k.deviceScalar(e.A, known) && k.deviceScalar(e.B, known)
	case *ir.Cast:
		return k.deviceScalar(e.X, known)
	case *ir.Not:
		return k.deviceScalar(e.X, known)
	case *ir.Neg:
		return k.deviceScalar(e.X, known)
	}
	return false
}
