// Package harness writes a self-checking main() for the CUDA that
// codegen/cuda prints (tilels --lower FILE --emit cuda --harness).
//
// Contract: Print takes the kernels of one .cu file, each with its
// evaluated function (the program before dispatch: its semantics), its
// launch configuration and the name of its generated launcher, and returns
// C++ to append to that file. The program it makes
//
//   - fills every global buffer of each kernel with seeded random data
//     (floats uniform in [-4, 4), or [0, 4) for kernels that take square
//     roots or logarithms, rounded to the buffer's dtype; integers over
//     their whole range);
//   - launches the kernel through its launcher and copies every buffer back;
//   - runs the kernel's host reference (ref.go: the evaluated program run
//     on the host, tile calls as whole-tile operations on logical
//     coordinates, nothing of the dispatcher used) on the same inputs;
//   - compares every element of every global buffer, read or written:
//     bit for bit (NaN equals NaN), or for kernels with an approximate op
//     (sqrt, exp, exp2, log2, reciprocal, silu, fdiv, fma, or a bias or
//     scale) within |got − want| ≤ atol + rtol·|want|, with the loosest
//     (rtol, atol) over the kernel's floating dtypes: float32 (1e-4,
//     1e-6), float16 (1e-2, 1e-3), bfloat16 (6e-2, 1e-2), float64 (1e-12,
//     1e-15), float8 e4m3 (0.125, 1e-2), e5m2 (0.25, 1e-2). The float32
//     tolerance is loose enough for chains of approximate ops that amplify
//     rounding (log2(exp2(x)) near 0, then a reciprocal), tight enough
//     that a wrong element, index or op is caught;
//   - leaves out of the comparison the elements the reference computed
//     from memory the program never wrote (uninitialized registers or
//     shared memory: their GPU values are garbage), and says how many
//     ("NOTE <kernel>: B: 3 elements come from memory the program never
//     wrote; not compared");
//   - fails a kernel whose reference saw a data race on shared memory: an
//     element written by one thread or tile call and read or overwritten
//     (with another value) by another with no barrier between — the
//     expected result is then undefined ("FAIL <kernel>: data race: A_s
//     (shared byte 0) is written by a tile call at line 14: Tx.cta.copy and
//     read by a tile call at line 15: Tx.cta.copy with no barrier
//     between"); barriers are T.cuda.cta_sync/warp_sync/warpgroup_sync,
//     mbarrier waits, and the end of an elementwise call on shared memory;
//   - prints "PASS <kernel>" or "FAIL <kernel>: ..." with the first
//     mismatching buffer, logical index, value and expected value, and exits
//     1 when any kernel failed, 2 on a CUDA error or launcher failure.
//     <kernel> is the kernel's CUDA name without _kernel (lower.Symbols).
//
// Options of the program: --kernel NAME (only that kernel), --seed N,
// --bench N (time N launches after the check and print "BENCH <kernel>
// <ms> ms <GB/s> GB/s", counting each global buffer's bytes once), --memcpy
// (also time cudaMemcpy device to device of the largest buffer and print
// "MEMCPY <kernel> <GB/s> GB/s", counting bytes read and written).
//
// Kernels the reference cannot model (scalar parameters, multicast TMA,
// cluster-scope calls, tensor memory, ...) are refused with an
// *Unsupported error naming the construct and its span.
package harness

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Kernel is one kernel of the file.
type Kernel struct {
	// Name is the kernel's name in messages (its C name without _kernel).
	Name string
	// Func is the evaluated function (before dispatch).
	Func   *ir.Func
	Launch ir.Launch
	// Launcher is the C name of its launcher (codegen/cuda Symbols).
	Launcher string
	// Where renders a span for messages ("line 14"); nil: "?".
	Where func(source.Span) string
}

// Print returns the harness for ks: the host reference, one check per
// kernel and main(). A kernel whose construct the reference does not
// model, but which the harness can launch, is launched unchecked: its
// run prints "RAN <kernel> (not checked: <why>)" (so that a profiler
// sees its launch) and each such kernel's *Unsupported is returned in
// unchecked. The error is an *Unsupported (Launch set) for the first
// kernel the harness cannot launch.
func Print(ks []Kernel) (code string, unchecked []*Unsupported, err error) {
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(refPrelude)
	var refs, runs []string
	for i, k := range ks {
		if k.Func == nil || k.Func.Body == nil {
			return "", nil, fmt.Errorf("harness: kernel %s has no function", k.Name)
		}
		ref, u := refFunc(k, fmt.Sprintf("tilels_ref_%d", i))
		switch {
		case u != nil && u.Launch:
			return "", nil, u
		case u != nil:
			unchecked = append(unchecked, u)
		default:
			refs = append(refs, ref)
		}
		run, err := runFunc(k, i, u)
		if err != nil {
			return "", nil, err
		}
		runs = append(runs, run)
	}
	b.WriteString("\nnamespace tilels_ref {\n\n")
	b.WriteString(strings.Join(refs, "\n"))
	b.WriteString("\n}  // namespace tilels_ref\n\n")
	b.WriteString(harnessPrelude)
	b.WriteString("\n")
	b.WriteString(strings.Join(runs, "\n"))
	b.WriteString(mainFunc(len(ks)))
	return b.String(), unchecked, nil
}

// tolerances are (rtol, atol) per floating dtype.
var tolerances = map[ir.DataType][2]float64{
	ir.Float32:                     {1e-4, 1e-6},
	ir.Float16:                     {1e-2, 1e-3},
	ir.BF16:                        {6e-2, 1e-2},
	float64T:                       {1e-12, 1e-15},
	{Code: ir.Float8E4M3, Bits: 8}: {0.125, 1e-2},
	{Code: ir.Float8E5M2, Bits: 8}: {0.25, 1e-2},
}

// traits are what the harness needs to know of a kernel's body: whether
// it has an approximate op, whether it takes square roots or logarithms,
// and its floating dtypes.
type traits struct {
	inexact, positive bool
	floats            map[ir.DataType]bool
}

func kernelTraits(fn *ir.Func) traits {
	tr := traits{floats: map[ir.DataType]bool{}}
	for _, p := range fn.Params {
		if p.Buf != nil && p.Buf.Dtype.IsFloat() {
			tr.floats[p.Buf.Dtype] = true
		}
	}
	var exprs func(e ir.Expr)
	exprs = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Call:
			if _, ok := mathFn[e.Op]; ok {
				tr.inexact = true
				if e.Op == ir.OpSqrt || e.Op == ir.OpLog2 {
					tr.positive = true
				}
			}
			for _, a := range e.Args {
				exprs(a)
			}
		case *ir.Binary:
			if e.Op == ir.Div {
				tr.inexact = true
			}
			exprs(e.A)
			exprs(e.B)
		case *ir.Cast:
			exprs(e.X)
		case *ir.Neg:
			exprs(e.X)
		}
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Alloc:
			if s.Buf.Dtype.IsFloat() {
				tr.floats[s.Buf.Dtype] = true
			}
		case *ir.Decl:
			if s.Buf.Dtype.IsFloat() {
				tr.floats[s.Buf.Dtype] = true
			}
		case *ir.Store:
			exprs(s.Value)
		case *ir.Let:
			exprs(s.Value)
		case *ir.Assign:
			exprs(s.Value)
		case *ir.Evaluate:
			if c, ok := s.X.(*ir.Call); ok && strings.HasPrefix(c.Op, "ptx.mma.") {
				// an mma's sums add in the tensor cores' order (of
				// positive values: no cancellation below the tolerance)
				tr.inexact, tr.positive = true, true
			}
		case *ir.TileCall:
			if inexactOps[s.Op] || s.Op == "sum" { // a reduction's sum adds in the GPU's order
				tr.inexact = true
			}
			switch s.Op {
			case "sqrt", "log2", "sum": // sums of positive values: no cancellation below the tolerance
				tr.positive = true
			}
			switch s.Op {
			case "sqrt", "exp", "exp2", "log2":
				if len(s.Args) > 2 && s.Args[2] != nil || len(s.Args) > 3 && s.Args[3] != nil {
					tr.inexact = true
				}
			}
		}
	})
	return tr
}

// runFunc prints run_<i>: fill, launch, reference, compare, time; only
// fill and launch when unchecked says why the reference cannot check k.
func runFunc(k Kernel, i int, unchecked *Unsupported) (string, error) {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	tr := kernelTraits(k.Func)
	rtol, atol := 0.0, 0.0
	if tr.inexact {
		for dt := range tr.floats {
			t, ok := tolerances[dt]
			if !ok {
				continue
			}
			rtol, atol = max(rtol, t[0]), max(atol, t[1])
		}
	}
	lo, hi := -4.0, 4.0
	if tr.positive {
		lo = 0
	}
	w("static int tilels_run_%d(const tilels_h::Options& o) {", i)
	w("  using namespace tilels_h;")
	w("  const char* kname = %q;", k.Name)
	w("  if (o.only && strcmp(o.only, kname) != 0) return 0;")
	var args, casts, puts []string
	n := 0
	for _, p := range k.Func.Params {
		if p.Buf == nil {
			if v, ok := launchValue(k.Func, p.Var); ok && p.Var != nil {
				// a scalar parameter: the value of the launch its bind
				// line gives (refFunc refuses one without)
				casts = append(casts, fmt.Sprintf("(%s)%dLL", p.Var.Type.CType(), v))
			}
			continue
		}
		buf := p.Buf
		lay := "nullptr"
		if buf.Layout != nil {
			init, bad := layoutInit(buf.Layout)
			if bad != "" {
				return "", &Unsupported{Kernel: k.Name, Span: buf.Span, Msg: "buffer " + buf.Name + ": " + bad, Launch: true}
			}
			w("  static const Layout L%d = %s;", n, init)
			lay = fmt.Sprintf("&L%d", n)
		}
		bshape := shapeOf(k.Func, buf) // (a runtime extent: its launch's)
		shape := make([]string, len(bshape))
		for j, s := range bshape {
			shape[j] = fmt.Sprint(s)
		}
		elems := buf.ElemOffset + storageOf(k.Func, buf)
		args = append(args, fmt.Sprintf("{%q, %s, %d, %dLL, %d, {%s}, %dLL, %s, nullptr, nullptr}", buf.Name, dtypeEnum(buf.Dtype),
			buf.Dtype.Bytes(), elems, len(buf.Shape), strings.Join(shape, ", "), buf.ElemOffset, lay))
		casts = append(casts, fmt.Sprintf("reinterpret_cast<%s*>(a[%d].dev)", buf.Dtype.CType(), n))
		if vals := launchData(k.Func, buf); vals != nil {
			// contents a bind line gives (a varlen kernel's offsets): in
			// place of the random data, little-endian integers
			strs := make([]string, len(vals))
			for i, v := range vals {
				strs[i] = fmt.Sprintf("%dLL", v)
			}
			w("  static const long long D%d[] = {%s};", n, strings.Join(strs, ", "))
			puts = append(puts, fmt.Sprintf("    if (j == %d) for (long long e = 0; e < %d; e++) memcpy(a[j].host + e * a[j].esize, &D%d[e], a[j].esize);", n, len(vals), n))
		}
		n++
	}
	if n == 0 {
		return "", &Unsupported{Kernel: k.Name, Span: k.Func.Span, Msg: "the kernel has no buffer parameters to check", Launch: true}
	}
	w("  Arg a[] = {%s};", strings.Join(args, ", "))
	w("  const int na = %d;", n)
	w("  const bool tol = %v;", tr.inexact)
	w("  const double rtol = %g, atol = %g;", rtol, atol)
	w("  int rc = 0;")
	w("  for (int j = 0; j < na; j++) {")
	w("    size_t bytes = (size_t)a[j].elems * a[j].esize;")
	w("    a[j].host = (unsigned char*)malloc(bytes);")
	w("    if (!a[j].host) { printf(\"FAIL %%s: out of host memory\\n\", kname); return 2; }")
	w("    fill(a[j].host, a[j].dt, a[j].esize, a[j].elems, o.seed * 1000003ull + %d * 101ull + j, %g, %g);", i, lo, hi)
	for _, p := range puts {
		w("%s", p)
	}
	w("    if (!cuda_ok(cudaMalloc((void**)&a[j].dev, bytes), \"cudaMalloc\", kname)) return 2;")
	w("    if (!cuda_ok(cudaMemcpy(a[j].dev, a[j].host, bytes, cudaMemcpyHostToDevice), \"cudaMemcpy\", kname)) return 2;")
	w("  }")
	w("  rc = %s(%s, 0);", k.Launcher, strings.Join(casts, ", "))
	w("  if (rc != 0) { printf(\"FAIL %%s: launcher returned %%d: %%s\\n\", kname, rc, tilels_last_error()); return 2; }")
	w("  if (!cuda_ok(cudaDeviceSynchronize(), \"kernel\", kname)) return 2;")
	if unchecked != nil {
		w("  printf(\"RAN %%s (not checked: %%s)\\n\", kname, %s);", cString(unchecked.Msg))
		w("  for (int j = 0; j < na; j++) { cudaFree(a[j].dev); free(a[j].host); }")
		w("  return 0;")
		w("}")
		return b.String(), nil
	}
	w("  unsigned char* hosts[%d];", n)
	w("  unsigned char* defs[%d];", n)
	w("  for (int j = 0; j < na; j++) {")
	w("    hosts[j] = a[j].host;")
	w("    defs[j] = (unsigned char*)malloc((size_t)a[j].elems * a[j].esize);")
	w("    if (!defs[j]) { printf(\"FAIL %%s: out of host memory\\n\", kname); return 2; }")
	w("    memset(defs[j], 1, (size_t)a[j].elems * a[j].esize);")
	w("  }")
	w("  tilels_ref::tl_alts.clear();")
	w("  tilels_ref::tilels_ref_%d(hosts, defs);", i)
	w("  int failed = 0;")
	w("  if (tl_race[0]) {")
	w("    printf(\"FAIL %%s: data race: %%s\\n\", kname, tl_race);")
	w("    failed = 1;")
	w("  }")
	w("  for (int j = 0; j < na && !failed; j++) {")
	w("    size_t bytes = (size_t)a[j].elems * a[j].esize;")
	w("    unsigned char* got = (unsigned char*)malloc(bytes);")
	w("    if (!got) { printf(\"FAIL %%s: out of host memory\\n\", kname); return 2; }")
	w("    if (!cuda_ok(cudaMemcpy(got, a[j].dev, bytes, cudaMemcpyDeviceToHost), \"cudaMemcpy\", kname)) return 2;")
	w("    long long bad = 0, first = -1, undef = 0, either = 0;")
	w("    for (long long e = 0; e < a[j].elems; e++) {")
	w("      if (memchr(defs[j] + e * a[j].esize, 0, a[j].esize)) { undef++; continue; }")
	w("      if (same(a[j].dt, a[j].esize, got + e * a[j].esize, a[j].host + e * a[j].esize, tol, rtol, atol)) continue;")
	// an element of two possible values (a per-thread predicate): either
	w("      if (memchr(defs[j] + e * a[j].esize, 2, a[j].esize)) {")
	w("        auto alt = tilels_ref::tl_alts.find(a[j].host + e * a[j].esize);")
	w("        if (alt != tilels_ref::tl_alts.end() && same(a[j].dt, a[j].esize, got + e * a[j].esize, alt->second.data(), tol, rtol, atol)) { either++; continue; }")
	w("      }")
	w("      if (first < 0) first = e;")
	w("      bad++;")
	w("    }")
	w("    if (undef) printf(\"NOTE %%s: %%s: %%lld elements come from memory the program never wrote; not compared\\n\", kname, a[j].name, undef);")
	w("    if (either) printf(\"NOTE %%s: %%s: %%lld elements hold the value a per-thread predicate leaves (zero or the old value), one of the two the reference allows\\n\", kname, a[j].name, either);")
	w("    if (bad) {")
	w("      char at[256], gv[64], wv[64];")
	w("      index_of(a[j], first, at, sizeof at);")
	w("      show(a[j].dt, a[j].esize, got + first * a[j].esize, gv, sizeof gv);")
	w("      show(a[j].dt, a[j].esize, a[j].host + first * a[j].esize, wv, sizeof wv);")
	w("      printf(\"FAIL %%s: %%s%%s: got %%s, want %%s (%%lld of %%lld elements differ)\\n\", kname, a[j].name, at, gv, wv, bad, a[j].elems);")
	w("      failed = 1;")
	w("    }")
	w("    free(got);")
	w("  }")
	w("  if (!failed) printf(\"PASS %%s\\n\", kname);")
	w("  if (!failed && o.bench > 0) {")
	w("    double total = 0;")
	w("    for (int j = 0; j < na; j++) total += (double)a[j].elems * a[j].esize;")
	w("    cudaEvent_t e0, e1;")
	w("    cudaEventCreate(&e0); cudaEventCreate(&e1);")
	w("    rc = %s(%s, 0);", k.Launcher, strings.Join(casts, ", "))
	w("    cudaEventRecord(e0);")
	w("    for (int r = 0; r < o.bench && rc == 0; r++) rc = %s(%s, 0);", k.Launcher, strings.Join(casts, ", "))
	w("    cudaEventRecord(e1);")
	w("    if (!cuda_ok(cudaEventSynchronize(e1), \"benchmark\", kname) || rc != 0) return 2;")
	w("    float ms = 0;")
	w("    cudaEventElapsedTime(&ms, e0, e1);")
	w("    ms /= o.bench;")
	w("    printf(\"BENCH %%s %%.4f ms %%.1f GB/s (%%.0f bytes)\\n\", kname, ms, total / (ms * 1e6), total);")
	w("    if (o.memcpy_ref) {")
	w("      int big = 0;")
	w("      for (int j = 1; j < na; j++) if (a[j].elems * a[j].esize > a[big].elems * a[big].esize) big = j;")
	w("      size_t bytes = (size_t)a[big].elems * a[big].esize;")
	w("      void* scratch = nullptr;")
	w("      if (!cuda_ok(cudaMalloc(&scratch, bytes), \"cudaMalloc\", kname)) return 2;")
	w("      cudaMemcpy(scratch, a[big].dev, bytes, cudaMemcpyDeviceToDevice);")
	w("      cudaEventRecord(e0);")
	w("      for (int r = 0; r < o.bench; r++) cudaMemcpy(scratch, a[big].dev, bytes, cudaMemcpyDeviceToDevice);")
	w("      cudaEventRecord(e1);")
	w("      if (!cuda_ok(cudaEventSynchronize(e1), \"memcpy benchmark\", kname)) return 2;")
	w("      cudaEventElapsedTime(&ms, e0, e1);")
	w("      ms /= o.bench;")
	w("      printf(\"MEMCPY %%s %%.4f ms %%.1f GB/s (%%.0f bytes)\\n\", kname, ms, 2.0 * bytes / (ms * 1e6), 2.0 * bytes);")
	w("      cudaFree(scratch);")
	w("    }")
	w("    cudaEventDestroy(e0); cudaEventDestroy(e1);")
	w("  }")
	w("  for (int j = 0; j < na; j++) { cudaFree(a[j].dev); free(a[j].host); free(defs[j]); }")
	w("  return failed;")
	w("}")
	return b.String(), nil
}

func mainFunc(n int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("")
	w("int main(int argc, char** argv) {")
	w("  tilels_h::Options o = {0, false, nullptr, 1};")
	w("  for (int i = 1; i < argc; i++) {")
	w("    if (!strcmp(argv[i], \"--bench\") && i + 1 < argc) o.bench = atoi(argv[++i]);")
	w("    else if (!strcmp(argv[i], \"--memcpy\")) o.memcpy_ref = true;")
	w("    else if (!strcmp(argv[i], \"--kernel\") && i + 1 < argc) o.only = argv[++i];")
	w("    else if (!strcmp(argv[i], \"--seed\") && i + 1 < argc) o.seed = strtoull(argv[++i], nullptr, 10);")
	w("    else { fprintf(stderr, \"usage: %%s [--kernel NAME] [--seed N] [--bench N] [--memcpy]\\n\", argv[0]); return 2; }")
	w("  }")
	w("  int worst = 0;")
	for i := 0; i < n; i++ {
		w("  worst = std::max(worst, tilels_run_%d(o));", i)
	}
	w("  return worst;")
	w("}")
	return b.String()
}

// HostProgram returns a C++17 program that needs no CUDA: it fills each
// kernel's buffers as the harness does (seed 1), runs the kernel's host
// reference, and prints one line per parameter buffer before and after,
//
//	IN <kernel> <buffer> <storage bytes in hex>
//	OUT <kernel> <buffer> <storage bytes in hex>
//	DEF <kernel> <buffer> <per storage byte: 01 defined, 00 not, 02 one of two values>
//	ALT <kernel> <buffer> <OUT with each element of two values replaced by its other>
//
// and "RACE <kernel> <what>" when the reference saw a data race.
// Tests compile it with the host compiler to check the reference itself
// against what each program means.
func HostProgram(ks []Kernel) (string, error) {
	var b strings.Builder
	b.WriteString(refPrelude)
	b.WriteString("\nnamespace tilels_ref {\n\n")
	for i, k := range ks {
		ref, u := refFunc(k, fmt.Sprintf("tilels_ref_%d", i))
		if u != nil {
			return "", u
		}
		b.WriteString(ref)
		b.WriteString("\n")
	}
	b.WriteString("static void tilels_dump(const char* tag, const char* k, const char* name, const unsigned char* p, long long n) {\n")
	b.WriteString("  printf(\"%s %s %s \", tag, k, name);\n")
	b.WriteString("  for (long long i = 0; i < n; i++) printf(\"%02x\", p[i]);\n")
	b.WriteString("  printf(\"\\n\");\n}\n\n")
	// ALT: the storage with every element of two possible values
	// (def bytes 2) replaced by its other value
	b.WriteString("static void tilels_dump_alt(const char* k, const char* name, const unsigned char* p, const unsigned char* d, long long n, int esize) {\n")
	b.WriteString("  std::vector<unsigned char> v(p, p + n);\n")
	b.WriteString("  for (long long e = 0; e + esize <= n; e += esize) {\n")
	b.WriteString("    if (!memchr(d + e, 2, esize)) continue;\n")
	b.WriteString("    auto a = tl_alts.find(p + e);\n")
	b.WriteString("    if (a != tl_alts.end()) memcpy(v.data() + e, a->second.data(), esize);\n")
	b.WriteString("  }\n")
	b.WriteString("  tilels_dump(\"ALT\", k, name, v.data(), n);\n}\n\n}  // namespace tilels_ref\n\nint main() {\n  using namespace tilels_ref;\n")
	for i, k := range ks {
		tr := kernelTraits(k.Func)
		lo := -4.0
		if tr.positive {
			lo = 0
		}
		fmt.Fprintf(&b, "  {\n")
		var bufs []*ir.Buffer
		for _, p := range k.Func.Params {
			if p.Buf != nil {
				bufs = append(bufs, p.Buf)
			}
		}
		fmt.Fprintf(&b, "    std::vector<unsigned char> st[%d], dv[%d];\n    unsigned char* hosts[%d];\n    unsigned char* defs[%d];\n",
			max(len(bufs), 1), max(len(bufs), 1), max(len(bufs), 1), max(len(bufs), 1))
		for j, buf := range bufs {
			n := (buf.ElemOffset + storageOf(k.Func, buf)) * int64(buf.Dtype.Bytes())
			fmt.Fprintf(&b, "    st[%d].resize(%d); hosts[%d] = st[%d].data();\n", j, n, j, j)
			fmt.Fprintf(&b, "    dv[%d].assign(%d, 1); defs[%d] = dv[%d].data();\n", j, n, j, j)
			fmt.Fprintf(&b, "    fill(hosts[%d], %s, %d, %d, 1000003ull + %d * 101ull + %d, %g, 4.0);\n", j, dtypeEnum(buf.Dtype),
				buf.Dtype.Bytes(), n/int64(buf.Dtype.Bytes()), i, j, lo)
			fmt.Fprintf(&b, "    tilels_dump(\"IN\", %q, %q, hosts[%d], %d);\n", k.Name, buf.Name, j, n)
		}
		fmt.Fprintf(&b, "    tl_alts.clear();\n")
		fmt.Fprintf(&b, "    tilels_ref_%d(hosts, defs);\n", i)
		fmt.Fprintf(&b, "    if (tl_race[0]) printf(\"RACE %s %%s\\n\", tl_race);\n", k.Name)
		for j, buf := range bufs {
			n := (buf.ElemOffset + storageOf(k.Func, buf)) * int64(buf.Dtype.Bytes())
			fmt.Fprintf(&b, "    tilels_dump(\"OUT\", %q, %q, hosts[%d], %d);\n", k.Name, buf.Name, j, n)
			fmt.Fprintf(&b, "    tilels_dump(\"DEF\", %q, %q, defs[%d], %d);\n", k.Name, buf.Name, j, n)
			fmt.Fprintf(&b, "    tilels_dump_alt(%q, %q, hosts[%d], defs[%d], %d, %d);\n", k.Name, buf.Name, j, j, n, buf.Dtype.Bytes())
		}
		fmt.Fprintf(&b, "  }\n")
	}
	b.WriteString("  return 0;\n}\n")
	return b.String(), nil
}

// cString is s as a C string literal: printable ASCII as is but for the
// quote and the backslash, every other byte in octal (a hex escape would
// take the digits after it).
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f && c != '?':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
