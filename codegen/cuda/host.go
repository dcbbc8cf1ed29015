package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/ir"
)

// The host side (spec §5.5 "recommended self-contained host code"). Every
// kernel gets a launcher
//
//	extern "C" int <func>_launch(<the kernel's parameters but its tensor maps>, cudaStream_t stream);
//
// that encodes the kernel's tensor maps (tilels_encode_tiled: the §5.5
// rules, then cuTensorMapEncodeTiled, fetched through the runtime's
// driver-entry-point API so that nothing links -lcuda), raises the kernel's
// dynamic shared memory limit when it needs more than 48 KiB, and launches
// it with cudaLaunchKernelEx (grid, block, dynamic shared memory, and the
// cluster dimensions when they are not 1). A launcher returns
//
//	0   the kernel was launched;
//	> 0 the cudaError_t of cudaFuncSetAttribute or of the launch;
//	-1  a tensor-map rule is violated (the message names it);
//	-2  the driver has no cuTensorMapEncodeTiled;
//	-3  cuTensorMapEncodeTiled failed (the message gives its CUresult);
//	-4  the kernel's launch configuration is unknown (a zero ir.Launch).
//
// On failure it writes a message to stderr and keeps it for
// tilels_last_error(). The message buffer and tilels_last_error are weak
// symbols, so several generated files link into one program.

// hostPrelude holds the error functions every launcher uses.
const hostPrelude = `// ---- host side ----
// <kernel>_launch(<parameters>, stream) launches <kernel>_kernel: it encodes
// the kernel's tensor maps, raises its dynamic shared memory limit above
// 48 KiB when needed, and launches it on stream. It returns 0 on success, a
// cudaError_t (> 0) when the CUDA runtime fails, -1 when a tensor map breaks
// a cuTensorMapEncodeTiled rule, -2 when the driver has no
// cuTensorMapEncodeTiled, -3 when the encoding fails, and -4 when the launch
// configuration is unknown. tilels_last_error() returns the message of the
// calling thread's last failure (also printed to stderr).
extern "C" {
__attribute__((weak)) thread_local char tilels_error_message[512];
__attribute__((weak)) const char* tilels_last_error(void) { return tilels_error_message; }
}

namespace {

inline int tilels_fail(int code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(tilels_error_message, sizeof tilels_error_message, format, args);
  va_end(args);
  fprintf(stderr, "tilels: %s\n", tilels_error_message);
  return code;
}

inline int tilels_cuda_fail(cudaError_t err, const char* what) {
  return tilels_fail(static_cast<int>(err), "%s: %s (%s)", what, cudaGetErrorName(err), cudaGetErrorString(err));
}

}  // namespace
`

// encodeHelper is tilels_encode_tiled: the rules of tmSpec.check with the
// same messages, the pointer alignment, then the driver call.
var encodeHelper = func() string {
	fail := func(code int, format string, args ...string) string {
		return fmt.Sprintf(`return tilels_fail(%d, "tensor map %%s: %s", t.name%s);`, code, cFormat(format), prefixAll(", ", args))
	}
	ll := func(e string) string { return "static_cast<long long>(" + e + ")" }
	var b strings.Builder
	w := func(indent int, s string) {
		b.WriteString(strings.Repeat("  ", indent))
		b.WriteString(s)
		b.WriteByte('\n')
	}
	w(0, "namespace {")
	w(0, "")
	w(0, "// tilels_tensor_map is one descriptor, every array in CUDA order")
	w(0, "// (innermost dimension first) as cuTensorMapEncodeTiled takes it.")
	w(0, "struct tilels_tensor_map {")
	w(1, "const char* name;  // the kernel parameter")
	w(1, "const char* dtype;  // the element type")
	w(1, "int data_type;  // CUtensorMapDataType")
	w(1, "long long elem_bytes;")
	w(1, "int is_float;  // a floating-point data type (NaN OOB fill allowed)")
	w(1, "int rank;")
	w(1, "cuuint64_t dims[5];")
	w(1, "cuuint64_t strides[4];  // bytes, dimensions 1..rank-1")
	w(1, "cuuint32_t box[5];")
	w(1, "cuuint32_t elem_strides[5];")
	w(1, "int interleave, swizzle, l2_promotion, oob_fill;")
	w(0, "};")
	w(0, "")
	w(0, "typedef CUresult (*tilels_encode_tiled_fn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,")
	w(0, "                                           const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,")
	w(0, "                                           CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,")
	w(0, "                                           CUtensorMapFloatOOBfill);")
	w(0, "")
	w(0, "// tilels_encoder returns the driver's cuTensorMapEncodeTiled (ABI of CUDA")
	w(0, "// 12.0) through the runtime, so that the program needs no -lcuda; nullptr")
	w(0, "// when the driver has none.")
	w(0, "inline tilels_encode_tiled_fn tilels_encoder() {")
	w(1, "static const tilels_encode_tiled_fn fn = []() -> tilels_encode_tiled_fn {")
	w(2, "void* p = nullptr;")
	w(2, "cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;")
	w(0, "#if CUDART_VERSION >= 12050")
	w(2, `cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &status);`)
	w(0, "#else")
	w(2, `cudaError_t err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &status);`)
	w(0, "#endif")
	w(2, "if (err != cudaSuccess || status != cudaDriverEntryPointSuccess) return nullptr;")
	w(2, "return reinterpret_cast<tilels_encode_tiled_fn>(p);")
	w(1, "}();")
	w(1, "return fn;")
	w(0, "}")
	w(0, "")
	w(0, "// tilels_encode_tiled checks t against the cuTensorMapEncodeTiled rules")
	w(0, "// and encodes it for the global memory at address.")
	w(0, "inline int tilels_encode_tiled(CUtensorMap* map, const tilels_tensor_map& t, void* address) {")
	w(1, "if (t.rank < 1 || t.rank > 5) "+fail(-1, msgRank, ll("t.rank")))
	w(1, "for (int i = 0; i < t.rank; ++i) {")
	w(2, fmt.Sprintf("if (t.dims[i] < 1 || t.dims[i] > (1ull << 31)) %s", fail(-1, msgGlobalDim, ll("i"), ll("t.dims[i]"))))
	w(1, "}")
	w(1, "for (int i = 0; i + 1 < t.rank; ++i) {")
	w(2, "if (t.strides[i] >= (1ull << 40)) "+fail(-1, msgStrideRange, ll("i"), ll("t.strides[i]")))
	w(2, "if (t.strides[i] % 16 != 0) "+fail(-1, msgStride16, ll("i"), ll("t.strides[i]")))
	w(2, "if (t.interleave == 2 && t.strides[i] % 32 != 0) "+fail(-1, msgStride32, ll("i"), ll("t.strides[i]")))
	w(1, "}")
	w(1, "for (int i = 0; i < t.rank; ++i) {")
	w(2, "if (t.box[i] < 1 || t.box[i] > 256) "+fail(-1, msgBox, ll("i"), ll("t.box[i]")))
	w(1, "}")
	w(1, "for (int i = 0; i < t.rank; ++i) {")
	w(2, "if (t.elem_strides[i] < 1 || t.elem_strides[i] > 8) "+fail(-1, msgElemStride, ll("i"), ll("t.elem_strides[i]")))
	w(1, "}")
	w(1, "if (t.elem_strides[0] != 1) "+fail(-1, msgElemStride0, ll("t.elem_strides[0]")))
	w(1, "if (t.interleave < 0 || t.interleave > 2) "+fail(-1, msgInterleave, ll("t.interleave")))
	w(1, "if (t.interleave != 0 && t.rank < 3) "+fail(-1, msgInterRank, ll("t.interleave"), ll("t.rank")))
	w(1, "if (t.swizzle < 0 || t.swizzle > 6) "+fail(-1, msgSwizzle, ll("t.swizzle")))
	w(1, "if (t.interleave == 2 && t.swizzle != 1) "+fail(-1, msgInterSwz, ll("t.swizzle")))
	w(1, "if (t.l2_promotion < 0 || t.l2_promotion > 3) "+fail(-1, msgL2, ll("t.l2_promotion")))
	w(1, "if (t.oob_fill < 0 || t.oob_fill > 1) "+fail(-1, msgOOB, ll("t.oob_fill")))
	w(1, "if (t.oob_fill == 1 && !t.is_float) "+fail(-1, msgOOBFloat, "t.dtype"))
	w(1, "if (t.interleave == 0) {")
	w(2, "long long inner = static_cast<long long>(t.box[0]) * t.elem_bytes;")
	w(2, "if (inner % 16 != 0) "+fail(-1, msgInnerBox, "t.elem_bytes", "inner"))
	w(2, "long long span = t.swizzle == 1 ? 32 : t.swizzle == 2 ? 64 : t.swizzle >= 3 ? 128 : 0;")
	w(2, "if (span != 0 && inner > span) "+fail(-1, msgSwizzleBox, "t.elem_bytes", "inner", "span"))
	w(1, "}")
	w(1, "long long align = t.interleave == 2 ? 32 : 16;")
	w(1, "unsigned long long a = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(address));")
	w(1, "if (a % align != 0) "+fail(-1, msgAddress, "a", "align"))
	w(1, "tilels_encode_tiled_fn encode = tilels_encoder();")
	w(1, `if (encode == nullptr) return tilels_fail(-2, "tensor map %s: the CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12 or later)", t.name);`)
	w(1, "CUresult r = encode(map, static_cast<CUtensorMapDataType>(t.data_type), static_cast<cuuint32_t>(t.rank), address, t.dims,")
	w(1, "                    t.strides, t.box, t.elem_strides, static_cast<CUtensorMapInterleave>(t.interleave),")
	w(1, "                    static_cast<CUtensorMapSwizzle>(t.swizzle), static_cast<CUtensorMapL2promotion>(t.l2_promotion),")
	w(1, "                    static_cast<CUtensorMapFloatOOBfill>(t.oob_fill));")
	w(1, `if (r != CUDA_SUCCESS) return tilels_fail(-3, "tensor map %s: cuTensorMapEncodeTiled failed with CUresult %d", t.name, static_cast<int>(r));`)
	w(1, "return 0;")
	w(0, "}")
	w(0, "")
	w(0, "}  // namespace")
	return b.String()
}()

func prefixAll(sep string, args []string) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(sep)
		b.WriteString(a)
	}
	return b.String()
}

// hostSections is the host side of the file: the prelude, the encoder
// when a kernel has tensor maps, then the launchers in kernel order.
func (f *file) hostSections() []string {
	out := []string{hostPrelude}
	if f.tma {
		out = append(out, encodeHelper)
	}
	return append(out, f.launchers...)
}

// maxStaticDynSmem is the dynamic shared memory a kernel may use without
// opting in through cudaFuncAttributeMaxDynamicSharedMemorySize.
const maxStaticDynSmem = 48 * 1024

// launcher prints the kernel's host launcher. hostParams are the kernel's
// parameters (without __restrict__ and tensor maps), specs its checked
// tensor maps in Func.TensorMaps order. It writes pieces with WriteString
// and strconv.AppendInt, not fmt or concatenation: measured on
// BenchmarkPrintCUDA3000, launchers cost 26.1k → 29.9k allocs/op through
// fmt and 26.1k → 27.4k this way (2.31 → 2.77 vs 2.60 MB/op).
func (k *kernel) launcher(kernelName, launchName string, hostParams []string, specs []tmSpec) (string, error) {
	var b strings.Builder
	b.Grow(1024)
	put := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	var nb [20]byte
	num := func(v int64) { b.Write(strconv.AppendInt(nb[:0], v, 10)) }
	dims := func(d [3]int64) {
		put("dim3(")
		num(d[0])
		put(", ")
		num(d[1])
		put(", ")
		num(d[2])
		put(");\n")
	}
	// A runtime grid extent (T.cta_id([n])) is computed from the
	// launcher's parameters (host_expr.go).
	var gridRuntime [3]string
	l := k.launch
	for i, e := range l.GridExpr {
		if l.Grid[i] == 0 && e != nil {
			if s, ok := k.hostExpr(e); ok {
				gridRuntime[i] = s
			}
		}
	}
	put(`extern "C" int `, launchName, "(")
	for _, p := range hostParams {
		put(p, ", ")
	}
	put("cudaStream_t stream) {\n")
	known := true
	for i := range 3 {
		known = known && (l.Grid[i] > 0 || gridRuntime[i] != "") && l.Block[i] > 0
	}
	if !known {
		put("  (void)stream;\n  return tilels_fail(-4, \"", kernelName, ": launch configuration unknown\");\n}\n")
		return b.String(), nil
	}
	args := make([]string, 0, len(k.fn.Params)+len(specs))
	for _, prm := range k.fn.Params {
		if k.tmParams[prm.Var] {
			args = append(args, "*"+k.params[prm.Var]) // (the descriptor by value)
			continue
		}
		args = append(args, k.params[prm.Var])
	}
	for i, m := range append(append([]*ir.TensorMap(nil), k.fn.TensorMaps...), k.hostMaps...) {
		s := specs[i]
		addr, err := k.mapAddress(m, s.name)
		if err != nil {
			return "", err
		}
		put("  CUtensorMap ", s.name, ";\n  {\n")
		if s.dimExprs == nil {
			put("    static const tilels_tensor_map tilels_spec = ", s.literal(), ";\n")
		} else {
			// A runtime global dimension (a runtime extent of the buffer)
			// is computed from the launcher's parameters; the encoder
			// checks it (TVM leaves the global_dim rule to
			// cuTensorMapEncodeTiled at launch).
			put("    tilels_tensor_map tilels_spec = ", s.literal(), ";\n")
			for i, e := range s.dimExprs {
				if e == nil {
					continue
				}
				v, ok := k.hostExpr(e)
				if !ok {
					put("    (void)tilels_spec;\n    return tilels_fail(-4, \"", kernelName, ": tensor map ", s.name, ": runtime global dimension unknown on the host\");\n  }\n")
					return b.String() + "}\n", nil
				}
				put("    tilels_spec.dims[")
				num(int64(i))
				put("] = (cuuint64_t)(", v, ");\n")
			}
		}
		put("    int tilels_rc = tilels_encode_tiled(&", s.name, ", tilels_spec, ", addr, ");\n")
		put("    if (tilels_rc != 0) return tilels_rc;\n  }\n")
		args = append(args, s.name)
	}
	// The dispatch pass leaves Launch.DynamicSmem 0; the arena the kernel
	// declared (dynAlloc) is what it needs.
	smem := l.DynamicSmem
	if smem == 0 {
		smem = k.arenaOff
	} else if smem < k.arenaOff {
		return "", fmt.Errorf("the launch gives %d bytes of dynamic shared memory, the kernel's shared.dyn buffers need %d", smem, k.arenaOff)
	}
	put("  cudaError_t tilels_err;\n")
	if smem > maxStaticDynSmem {
		put("  tilels_err = cudaFuncSetAttribute(reinterpret_cast<const void*>(", kernelName,
			"), cudaFuncAttributeMaxDynamicSharedMemorySize, ")
		num(smem)
		put(");\n  if (tilels_err != cudaSuccess) return tilels_cuda_fail(tilels_err, \"", kernelName,
			": cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, ")
		num(smem)
		put(")\");\n")
	}
	put("  cudaLaunchConfig_t tilels_config = {};\n  tilels_config.gridDim = ")
	if gridRuntime != [3]string{} {
		put("dim3(")
		for i := range 3 {
			if i > 0 {
				put(", ")
			}
			if gridRuntime[i] != "" {
				put("(unsigned)", gridRuntime[i])
			} else {
				num(l.Grid[i])
			}
		}
		put(");\n")
	} else {
		dims(l.Grid)
	}
	put("  tilels_config.blockDim = ")
	dims(l.Block)
	put("  tilels_config.dynamicSmemBytes = ")
	num(smem)
	put(";\n  tilels_config.stream = stream;\n")
	if c := l.Cluster; c[0]*c[1]*c[2] > 1 {
		put("  cudaLaunchAttribute tilels_attrs[1];\n  tilels_attrs[0].id = cudaLaunchAttributeClusterDimension;\n")
		for i, axis := range []string{"x", "y", "z"} {
			put("  tilels_attrs[0].val.clusterDim.", axis, " = ")
			num(c[i])
			put(";\n")
		}
		put("  tilels_config.attrs = tilels_attrs;\n  tilels_config.numAttrs = 1;\n")
	}
	if len(args) == 0 {
		put("  tilels_err = cudaLaunchKernelExC(&tilels_config, reinterpret_cast<const void*>(", kernelName, "), nullptr);\n")
	} else {
		put("  tilels_err = cudaLaunchKernelEx(&tilels_config, ", kernelName)
		for _, a := range args {
			put(", ", a)
		}
		put(");\n")
	}
	put("  if (tilels_err != cudaSuccess) return tilels_cuda_fail(tilels_err, \"launch of ", kernelName, "\");\n  return 0;\n}\n")
	return b.String(), nil
}

// mapAddress is the C expression of a tensor map's global base address: the
// data pointer of the kernel parameter its buffer views, plus the views'
// element offsets in bytes.
func (k *kernel) mapAddress(m *ir.TensorMap, name string) (string, error) {
	b := m.Buf
	if b == nil {
		return "", fmt.Errorf("tensor map %s has no buffer", name)
	}
	if b.Scope != "global" {
		return "", fmt.Errorf("tensor map %s: buffer %s is in scope %q, want global", name, b.Name, b.Scope)
	}
	// ElemOffset counts from the start of the data (TVM's elem_offset,
	// which a view of a view carries through): the first buffer's offset
	// is the whole offset from the parameter's pointer.
	if b.ElemOffsetExpr != nil {
		return "", fmt.Errorf("not modelled: tensor map %s over the view %s at the runtime element offset %s (the host encodes it before the launch)", name, b.Name, k.top(b.ElemOffsetExpr))
	}
	off := b.Dtype.StorageBytes(b.ElemOffset)
	for ; b != nil; b = b.Base {
		if b.Base != nil {
			continue
		}
		p, ok := k.params[b.Data]
		if b.Data == nil || !ok {
			break
		}
		if off == 0 {
			return "static_cast<void*>(" + p + ")", nil
		}
		return "static_cast<void*>(reinterpret_cast<char*>(" + p + ") + " + strconv.FormatInt(off, 10) + ")", nil
	}
	return "", fmt.Errorf("tensor map %s: buffer %s is not a kernel parameter or a view of one", name, m.Buf.Name)
}
