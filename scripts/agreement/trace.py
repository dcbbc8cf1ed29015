"""Memory-access traces of a call's CUDA text, for comparing two spellings.

The two tools spell the same copy differently (TVM's `x >> 1` where tilels
writes `x / 2`, let-bound temporaries, helper names), so equal normalized text
is too strict a test. This module runs one call's statements, taken from the
generated CUDA, for every thread of the CTA and records what they touch:

* ``tvm_builtin_copy_<N>b(dst, src)``      -> ("copy", N/8, dst, src)
* cp.async helpers                        -> ("cp.async", bytes, dst, src)
* ``X[i] = Y[j]`` on kernel buffers        -> ("store", dst, src)
* ldmatrix / stmatrix                     -> per lane and register byte, the
  shared-memory byte it reads or writes (the warp-collective semantics of
  m8n8 .b16, .trans included)
* TMA issues                              -> ("tma", rank, shared address, coords)

Addresses are (buffer, byte offset). Kernel parameters and static shared
arrays keep their names, the dynamic shared arena is "dyn", and register
arrays are "local<k>" in order of declaration. Supported C is the subset the
two emitters produce for copies; anything else raises Unsupported.
"""

from __future__ import annotations

import re
from collections import Counter

SIZES = {"half": 2, "float": 4, "double": 8, "nv_bfloat16": 2, "__nv_bfloat16": 2, "signed char": 1,
         "unsigned char": 1, "char": 1, "uchar": 1, "int8_t": 1, "uint8_t": 1, "short": 2, "ushort": 2,
         "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "int": 4, "uint": 4, "unsigned int": 4, "int32_t": 4,
         "uint32_t": 4, "long long": 8, "int64_t": 8, "uint64_t": 8, "unsigned long long": 8,
         "__nv_fp8_e4m3": 1, "__nv_fp8_e5m2": 1, "void": 1}
TYPE_RE = r"(?:unsigned |signed )?(?:long long|char|short|int|half|float|double|nv_bfloat16|__nv_bfloat16|u?int\d+_t|uchar|ushort|uint|void|__nv_fp8_e4m3|__nv_fp8_e5m2)"

IGNORE_CALLS = ("sync", "fence", "mbarrier", "commit", "wait", "prefetch")


class Unsupported(Exception):
    pass


class Ptr:
    __slots__ = ("buf", "off", "elem")

    def __init__(self, buf, off, elem):
        self.buf, self.off, self.elem = buf, off, elem

    def __getitem__(self, i):
        return Ref(self.buf, self.off + int(i) * self.elem, self.elem)

    def __setitem__(self, i, v):
        _store(Ref(self.buf, self.off + int(i) * self.elem, self.elem), v)

    def __add__(self, k):
        return Ptr(self.buf, self.off + int(k) * self.elem, self.elem)

    def key(self):
        return (self.buf, self.off)


class Val:
    """A computed value: the memory it was computed from."""

    __slots__ = ("reads",)

    def __init__(self, reads):
        self.reads = frozenset(reads)

    @staticmethod
    def of(*xs):
        r = set()
        for x in xs:
            if isinstance(x, Ref):
                r.add(x.key())
            elif isinstance(x, Val):
                r |= x.reads
            elif isinstance(x, (tuple, list)):
                r |= Val.of(*x).reads
        return Val(r)

    def _bin(self, o):
        return Val.of(self, o)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _bin
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _bin

    def __neg__(self):
        return self


class Ref(Val):
    __slots__ = ("buf", "off", "elem")

    def __init__(self, buf, off, elem):
        self.buf, self.off, self.elem = buf, off, elem
        self.reads = frozenset([(buf, off)])

    def key(self):
        return (self.buf, self.off)


def _store(dst, v):
    if isinstance(v, Val):
        _EMIT(("store", dst.key(), tuple(sorted(v.reads, key=repr))))
    else:
        _EMIT(("store", dst.key(), ("value", v)))


def _fn(*args):
    """Any arithmetic helper (expf, hsqrt, __float2half_rn, max, ...): the
    value depends on its arguments' memory."""
    if len(args) == 1 and not isinstance(args[0], Val):
        return args[0]
    return Val.of(*args)


def _pair(*args):
    return tuple(args)


def _lanes(*args):
    out = []
    for a in args:
        out.extend(a if isinstance(a, tuple) else [a])
    return list(out)


class _VTemp(dict):
    """An uninitialized vector register (uint4 __1;) filled lane by lane."""

    def __missing__(self, k):
        return 0


def _vload(ptr, nbytes):
    return [ptr[i] for i in range(nbytes // ptr.elem)]


def _vstore(ptr, nbytes, lanes):
    for i in range(nbytes // ptr.elem):
        _store(Ref(ptr.buf, ptr.off + i * ptr.elem, ptr.elem), lanes[i])


_TRACE = []


def _EMIT(x):
    _TRACE.append(x)


def _addr(r):
    if isinstance(r, Ref):
        return Ptr(r.buf, r.off, r.elem)
    if isinstance(r, Ptr):
        return r
    raise Unsupported(f"address of {r!r}")


def _cast(ptr, elem):
    if isinstance(ptr, Ptr):
        return Ptr(ptr.buf, ptr.off, elem)
    return ptr  # integer casts


def _ptr_off(p, k):
    return p + k


# ---------------------------------------------------------------------------
# C expression -> Python expression
# ---------------------------------------------------------------------------

TOK = re.compile(r"0x[0-9a-fA-F]*\.?[0-9a-fA-F]*p[+-]?\d+f?|\d+\.\d*(?:e[+-]?\d+)?f?|0x[0-9a-fA-F]+|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|->|::|[-+*/%&|^~!<>=?:;,.()\[\]{}]")


def c_expr(s, names):
    """Translate one C expression to Python. ``names`` maps identifiers."""
    s = re.sub(r"reinterpret_cast<\s*(" + TYPE_RE + r")\s*\*\s*>", lambda m: f" __cast{SIZES[m.group(1)]}__ ", s)
    s = re.sub(r"\(\s*(" + TYPE_RE + r")\s*\*\s*\)", lambda m: f" __cast{SIZES[m.group(1)]}__ ", s)
    s = re.sub(r"\(\s*(?:int|uint|unsigned int|uint64_t|unsigned long long|int64_t|uint32_t|int32_t|long long)\s*\)", " ", s)
    s = re.sub(r"\(\s*(?:half|float|double|nv_bfloat16|__nv_bfloat16|signed char|unsigned char|char|short|unsigned short)\s*\)", " ", s)
    s = s.replace("threadIdx.x", "tx").replace("blockIdx.x", "0").replace("blockIdx.y", "0").replace("blockIdx.z", "0")
    toks = TOK.findall(s)
    out = []
    i = 0
    prev = None
    while i < len(toks):
        t = toks[i]
        if t.startswith("__cast") and t.endswith("__"):
            # cast applies to the following primary expression: wrap it
            n = int(t[6:-2])
            j, prim = _primary(toks, i + 1)
            out.append(f"_cast({c_expr(' '.join(prim), names)}, {n})")
            i = j
            prev = ")"
            continue
        if t == "&" and prev in (None, "(", ",", "=", "return"):
            out.append("_addr")
        elif t == "/":
            out.append("//")
        elif t == "&&":
            out.append(" and ")
        elif t == "||":
            out.append(" or ")
        elif t == "!":
            out.append(" not ")
        elif t in ("?", "->", "::", "++", "{", "}", ";"):
            raise Unsupported(f"token {t!r}")
        elif re.match(r"0x[0-9a-fA-F]*\.?[0-9a-fA-F]*p", t):
            out.append(repr(float.fromhex(t.rstrip("f"))))
        elif re.match(r"\d+\.\d*(?:e[+-]?\d+)?f$", t):
            out.append(t[:-1])
        elif re.match(r"\d+[uUlL]+$", t):
            out.append(re.sub(r"[uUlL]+$", "", t))
        elif re.match(r"[A-Za-z_]\w*$", t):
            out.append(names.get(t, t))
        else:
            out.append(t)
        prev = t
        i += 1
    return " ".join(out)


def _primary(toks, i):
    """Tokens of the primary expression starting at i (a name with postfix
    [..]/(..) or a parenthesized group); returns (next index, tokens)."""
    start = i
    if toks[i] == "(":
        depth = 0
        while True:
            depth += {"(": 1, ")": -1}.get(toks[i], 0)
            i += 1
            if depth == 0:
                break
    else:
        i += 1
    while i < len(toks) and toks[i] in ("[", "("):
        close = {"[": "]", "(": ")"}[toks[i]]
        depth = 0
        while True:
            if toks[i] in ("[", "("):
                depth += 1
            elif toks[i] in ("]", ")"):
                depth -= 1
            i += 1
            if depth == 0:
                break
        del close
    return i, toks[start:i]


VEC = {"uint4": 16, "float4": 16, "int4": 16, "uint2": 8, "float2": 8, "int2": 8, "half4": 8, "nv_bfloat164": 8,
       "longlong4": 32}
VEC_RE = "|".join(sorted(VEC, key=len, reverse=True))
LANE = {"x": 0, "y": 1, "z": 2, "w": 3}


# 0.26+ synchronous copies: ld/st of a {vec.}type chain through registers,
# TVM's tvm_builtin_ptx_{ld,st}_vec_<space>[_<hints>]_<tail> and tilels'
# tvm_builtin_ptx_{ld,st}_<space>[_<hints>]_<tail>.
PTX_LDST = re.compile(r"^tvm_builtin_ptx_(ld|st)_(?:vec_)?(?:global|shared|local)\w*?_(?:v(\d)_)?[ubs](\d+)\((.*)\);$")


def _ptx_ldst(l):
    m = PTX_LDST.match(l)
    if not m:
        return None
    kind, lanes, bits, args = m.group(1), int(m.group(2) or 1), int(m.group(3)), split_args(m.group(4))
    if kind == "ld":
        regs, addr = args[:lanes], args[lanes]
        return f"@py {', '.join(c_expr(r, {}) for r in regs)}, = _ptxld({c_expr(addr, {})}, {lanes}, {bits // 8})"
    addr, regs = args[0], args[1:1 + lanes]
    return f"@py _ptxst({c_expr(addr, {})}, {bits // 8}, [{', '.join(c_expr(r, {}) for r in regs)}])"


def split_args(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([" 
        depth -= ch in ")]"
        cur += ch
    return out + [cur.strip()]


def _ptxld(addr, lanes, nbytes):
    p = _addr(addr)
    return [Val([(p.buf, p.off + i * nbytes)]) for i in range(lanes)]


def _ptxst(addr, nbytes, regs):
    p = _addr(addr)
    for i, v in enumerate(regs):
        _store(Ref(p.buf, p.off + i * nbytes, nbytes), v)


def _vector_forms(l):
    """Rewrite TVM's vectorized-access spellings into the subset to_python
    knows: lanes of vector registers become list elements."""
    f = _ptx_ldst(l)
    if f is not None:
        return f
    # ((half2*)(&(v.x)))->y : half lane 2*word + half
    l = re.sub(r"\(\((?:half2|nv_bfloat162|__nv_bfloat162|int2)\*\)\(&\((\w+)\.([xyzw])\)\)\)->([xy])",
               lambda m: f"{m.group(1)}[{2 * LANE[m.group(2)] + LANE[m.group(3)]}]", l)
    m = re.match(r"^(" + VEC_RE + r") (\w+);$", l)
    if m:
        return f"@py {m.group(2)} = _VTemp()"
    m = re.match(r"^(" + VEC_RE + r") (\w+) = \*\((?:" + VEC_RE + r")\*\)\((.*)\);$", l)
    if m:
        return f"@py {m.group(2)} = _vload({c_expr(m.group(3), {})}, {VEC[m.group(1)]})"
    m = re.match(r"^(" + VEC_RE + r") (\w+) = (make_\w+\(.*\));$", l)
    if m:
        return f"@py {m.group(2)} = {c_expr(_float_lanes(m.group(3)), {})}"
    m = re.match(r"^\*\((" + VEC_RE + r")\*\)\((.*)\) = (.*);$", l)
    if m:
        return f"@py _vstore({c_expr(m.group(2), {})}, {VEC[m.group(1)]}, {c_expr(_float_lanes(m.group(3)), {})})"
    return _float_lanes(l)


def _float_lanes(l):
    # float4 lanes: v.x -> v[0] (after the half2 forms were rewritten)
    return re.sub(r"\b(v_\w*|__\d+)\.([xyzw])\b", lambda m: f"{m.group(1)}[{LANE[m.group(2)]}]", l)


# ---------------------------------------------------------------------------
# Statements -> Python program
# ---------------------------------------------------------------------------


def to_python(lines, names):
    out, ind = [], 0
    pad = lambda: "    " * ind  # noqa: E731
    for l in lines:
        l = l.strip()
        if not l or l.startswith("#pragma"):
            continue
        l = _vector_forms(l)
        if l.startswith("@py "):
            out.append(pad() + l[4:])
            continue
        m = re.match(r"^for \(int (\w+) = (.+?); \1 < (.+?); \+\+\1\) \{$", l)
        if m:
            out.append(pad() + f"for {names.get(m.group(1), m.group(1))} in range({c_expr(m.group(2), names)}, {c_expr(m.group(3), names)}):")
            ind += 1
            continue
        m = re.match(r"^if \((.*)\) \{$", l)
        if m:
            out.append(pad() + f"if {c_expr(m.group(1), names)}:")
            ind += 1
            continue
        if l == "} else {":
            out.append("    " * (ind - 1) + "else:")
            continue
        if l == "{":
            out.append(pad() + "if True:")
            ind += 1
            continue
        if l == "}":
            out.append(pad() + "pass")
            ind -= 1
            continue
        m = re.match(r"^alignas\(64\) (" + TYPE_RE + r") (\w+)\[(\d+)\];$", l)
        if m:
            if m.group(1) in ("int", "uint", "unsigned int", "int32_t", "uint32_t", "ushort", "unsigned short",
                              "uint16_t", "uchar", "unsigned char", "uint8_t"):
                out.append(pad() + f"{m.group(2)} = [0] * {m.group(3)}")
                continue
            if m.group(2) == "regs_ptr":
                # permute_layout's staging registers (both tools name them regs):
                # each slot holds the element it was loaded from.
                out.append(pad() + f"{m.group(2)} = [0] * {m.group(3)}")
                continue
            raise Unsupported("register array declared inside a call")
        m = re.match(r"^(" + TYPE_RE + r") (\w+)\[(\d+)\];$", l)
        if m:
            out.append(pad() + f"{m.group(2)} = [0] * {m.group(3)}")
            continue
        m = re.match(r"^(" + TYPE_RE + r")\*\s*(\w+) = (.*);$", l)
        if m:
            out.append(pad() + f"{m.group(2)} = _cast({c_expr(m.group(3), names)}, {SIZES[m.group(1)]})")
            continue
        m = re.match(r"^(\w+)\((.*)\);$", l)
        if m:
            fn = m.group(1)
            # "async" (cp.async) and ".sync.aligned" (ldmatrix) are not barriers
            # nor is 0.26's cp.async ..._prefetch_N (an L2 prefetch qualifier)
            bare = re.sub(r"_prefetch_\d+", "", fn.replace("async", "").replace("sync_aligned", ""))
            if any(x in bare for x in IGNORE_CALLS) or fn.startswith("__sync"):
                continue
            out.append(pad() + f"_call({fn!r}, {c_expr(m.group(2), names)})")
            continue
        m = re.match(r"^(.+?) = (.+);$", l)
        if m:
            out.append(pad() + f"{c_expr(m.group(1), names)} = {c_expr(m.group(2), names)}")
            continue
        raise Unsupported(f"statement {l!r}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------

_SEQ = [0]


def _call(fn, *args):
    _SEQ[0] += 1
    m = re.match(r"^tvm_builtin_copy_(\d+)b$", fn)
    if m:
        _EMIT(("copy", int(m.group(1)) // 8, _addr(args[0]).key(), _addr(args[1]).key()))
        return
    # 0.25: cp_async_c{a,g}_N; 0.26+ chains: ..._cp_async_c{a,g}_..._N[_pred] (the
    # predicate or src-size operand is not traced).
    # 0.26: cp_async_c{a,g}_N_prefetch_P[_with_src_size], cp_async_N_predicate.
    m = (re.search(r"cp_async_c[ag]_(\d+)$", fn)
         or re.search(r"cp_async_(?:c[ag]_)?(\d+)_(?:prefetch_\d+|with_src_size|predicate)", fn)
         or re.search(r"cp_async_c[ag]_\w*?_(\d+)(?:_pred)?$", fn))
    if m:
        _EMIT(("cp.async", int(m.group(1)), _addr(args[0]).key(), _addr(args[1]).key()))
        return
    if "f32x2" in fn:
        dst = _addr(args[0])
        for lane in range(2):
            srcs = [a[lane] if isinstance(a, tuple) else _addr(a)[lane] for a in args[1:]
                    if isinstance(a, (tuple, Ptr, Ref))]
            _store(dst[lane] if False else Ref(dst.buf, dst.off + lane * dst.elem, dst.elem), Val.of(*srcs))
        return
    if re.search(r"cast_\w+x2_\w+x2$", fn):
        dst, src = _addr(args[0]), _addr(args[1])
        for lane in range(2):
            _store(Ref(dst.buf, dst.off + lane * dst.elem, dst.elem), src[lane])
        return
    m = re.search(r"(ldmatrix|stmatrix)", fn)
    if m:
        kind = m.group(1)
        # tilels: tvm_builtin_ptx_{ld,st}matrix_x{num}[_trans](smem, regs)
        mt = re.search(r"_x(\d)(_trans)?$", fn)
        if mt:
            num, trans = int(mt.group(1)), bool(mt.group(2))
            regs = _addr(args[1])
            handles = [(regs.buf, regs.off + 4 * k) for k in range(num)]
        elif re.search(r"m8n8_x\d(?:_trans)?_shared_b16$", fn):
            # 0.26+ chains (both tools): ldmatrix(r0, ..., smem) / stmatrix(smem, r0, ...),
            # the registers words of the fragment's uint32 view
            mc = re.search(r"m8n8_x(\d)(_trans)?_shared_b16$", fn)
            num, trans = int(mc.group(1)), bool(mc.group(2))
            regs = args[:num] if kind == "ldmatrix" else args[1:1 + num]
            smem = args[num] if kind == "ldmatrix" else args[0]
            _EMIT(("mat", kind, _SEQ[0], num, trans, _addr(smem).key(), tuple(_addr(h).key() for h in regs)))
            return
        else:  # reference: ptx_{ld,st}matrix_{num}_b16_{trans}(smem, h0, ...)
            mr = re.search(r"_(\d)_b16_(\d)$", fn) or re.search(r"m8n8_(\d)_(\d)_shared_b16$", fn)
            if not mr:
                raise Unsupported(fn)
            num, trans = int(mr.group(1)), mr.group(2) == "1"
            handles = [_addr(h).key() for h in args[1:1 + num]]
        _EMIT(("mat", kind, _SEQ[0], num, trans, _addr(args[0]).key(), tuple(handles)))
        return
    m = re.search(r"bulk_tensor.*?(\d)d$", fn)
    if m:
        rank = int(m.group(1))
        smem = next(a for a in args if isinstance(a, Ptr) and a.buf != "tensormap")
        coords = tuple(int(a) for a in args[-rank:])
        direction = "s2g" if ("s2g" in fn or "shared_to_global" in fn) else "g2s"
        _EMIT(("tma", direction, rank, smem.key(), coords))
        return
    m = re.match(r"^ptx_mma_(m\d+n\d+k\d+)_row_col_", fn)
    if m:
        # warp-level mma.sync (gemm): the registers this thread hands to one mma, D, A, B, C in order.
        _EMIT(("mma", m.group(1), tuple(_addr(a).key() for a in args)))
        return
    raise Unsupported(f"call {fn}")


def _shfl(mask, v, lane, width):
    return v


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def kernel_buffers(src, name, lines):
    """Names of the kernel's memory: parameters, shared and register arrays
    (``lines``: the kernel body, temporaries inlined, call markers kept;
    declarations inside calls are not the kernel's)."""
    bufs = {}
    m = re.search(r'__global__ void[^\n]*?\b' + re.escape(name) + r"_kernel\(([^)]*)\)\s*\{", src)
    if m:
        for p in m.group(1).split(","):
            p = p.strip()
            mm = re.match(r"(?:const )?(" + TYPE_RE + r")\*\s*(?:__restrict__\s*)?(\w+)$", p)
            if mm:
                bufs[mm.group(2)] = (mm.group(2), SIZES[mm.group(1)])
            mm = re.match(r"const __grid_constant__ CUtensorMap (\w+)$", p)
            if mm:
                bufs[mm.group(1)] = ("tensormap", 1)
    local = 0
    inside = False
    for l in lines:
        l = l.strip()
        if re.match(r"^agreement_begin_\d+\(\);$", l):
            inside = True
        elif re.match(r"^agreement_end_\d+\(\);$", l):
            inside = False
        if inside:
            continue
        mm = re.match(r"^__shared__ alignas\(\d+\) (" + TYPE_RE + r") (\w+)\[\d+\];$", l)
        if mm:
            bufs[mm.group(2)] = (mm.group(2), SIZES[mm.group(1)])
            continue
        mm = re.match(r"^extern __shared__ __align__\(\d+\) (" + TYPE_RE + r") (\w+)\[\];$", l)
        if mm:
            bufs[mm.group(2)] = ("dyn", SIZES[mm.group(1)])
            continue
        mm = re.match(r"^alignas\(64\) (" + TYPE_RE + r") (\w+)\[(\d+)\];$", l)
        if mm and mm.group(3) != "1":
            bufs[mm.group(2)] = (f"local{local}", SIZES[mm.group(1)])
            local += 1
    return bufs


def thread_count(src, name):
    m = re.search(r"__launch_bounds__\((\d+)\)\s*" + re.escape(name) + r"_kernel\(", src)
    return int(m.group(1)) if m else 1


def run(lines, bufs, threads, prelude=(), max_ops=400000):
    """Trace of ``lines`` (one call's statements, temporaries inlined) for
    every thread: Counter of (thread, entry)."""
    names = {}
    env = {"_call": _call, "_addr": _addr, "_cast": _cast, "tvm_builtin_pointer_offset": _ptr_off,
           "__shfl_sync": _shfl}
    for cname, (b, elem) in bufs.items():
        env[cname] = Ptr(b, 0, elem)
    code = to_python(list(prelude) + list(lines), names)
    env.update({"_vload": _vload, "_vstore": _vstore, "_VTemp": _VTemp, "_lanes": _lanes, "_store": _store,
                "_ptxld": _ptxld, "_ptxst": _ptxst})
    for fname in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code)):
        if fname in env or fname in ("range", "int", "float", "_call", "_addr", "_cast"):
            continue
        if fname.startswith("__pack_") or fname in ("tvm_builtin_make_float2", "make_half2"):
            env[fname] = _pair
        elif fname.startswith("make_"):
            env[fname] = _lanes
        else:
            env[fname] = _fn
    prog = compile(code, "<call>", "exec")
    # Variables of enclosing loops outside the call (free names) take the
    # sample values 0, 1 and 2.
    free = []
    while True:
        try:
            del _TRACE[:]
            e0 = dict(env, tx=0, **{f: 0 for f in free})
            exec(prog, e0)
            break
        except NameError as e:
            m = re.search(r"name '(\w+)' is not defined", str(e))
            if not m or m.group(1) in free or len(free) >= 3:
                raise Unsupported(f"NameError: {e}")
            free.append(m.group(1))
        except Unsupported:
            raise
        except Exception as e:  # noqa: BLE001
            raise Unsupported(f"{type(e).__name__}: {e}")
    import itertools
    out = Counter()
    mats = []
    for values in itertools.product(range(3), repeat=len(free)):
        fixed = dict(zip(free, values))
        for tx in range(threads):
            del _TRACE[:]
            _SEQ[0] = 0
            try:
                exec(prog, dict(env, tx=tx, **fixed))
            except Unsupported:
                raise
            except Exception as e:  # noqa: BLE001
                raise Unsupported(f"{type(e).__name__}: {e}")
            for e in _TRACE:
                if e[0] == "mat":
                    mats.append((tx, e + (values,)))
                else:
                    out[(values, tx) + e] += 1
            if sum(out.values()) > max_ops:
                raise Unsupported("trace too long")
    out.update(_matrix_elements(mats))
    return out


def _matrix_elements(mats):
    """Per-lane register bytes <-> shared bytes of warp-collective m8n8.b16
    ld/stmatrix issues (lane i of matrix k: row i/4, columns 2(i%4)..+1; with
    .trans the transpose)."""
    groups = {}
    for tx, (_, kind, seq, num, trans, addr, handles, values) in mats:
        groups.setdefault((values, tx // 32, seq, kind, num, trans), {})[tx % 32] = (addr, handles)
    out = Counter()
    for (values, warp, seq, kind, num, trans), lanes in groups.items():
        if len(lanes) != 32:
            raise Unsupported("partial warp in ld/stmatrix")
        for i in range(32):
            _, handles = lanes[i]
            for k in range(num):
                for j in range(2):
                    if not trans:
                        row_addr = lanes[8 * k + i // 4][0]
                        smem = (row_addr[0], row_addr[1] + 2 * (2 * (i % 4) + j))
                    else:
                        row_addr = lanes[8 * k + 2 * (i % 4) + j][0]
                        smem = (row_addr[0], row_addr[1] + 2 * (i // 4))
                    reg = (handles[k][0], handles[k][1] + 2 * j)
                    out[(values, warp * 32 + i, kind, reg, smem)] += 1
    return out
