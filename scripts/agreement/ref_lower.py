"""Run the reference (the installed TVM release) over agreement programs.

Runs inside the pinned virtual environment that ``scripts/agreement/run``
creates; never imported by the project. For every program it

1. reads the source (``scripts/agreement/run`` has already applied the
   release's translation, ``translate.py``, and gives both tools that text),
2. executes it and collects every ``@T.prim_func`` in definition order,
3. runs the reference's ``TilePrimitiveDispatch`` pass on each kernel with
   recording wrappers around the installed dispatcher: per tile call the op,
   scope, chosen variant, every declined variant with its reason, and the plan
   numbers (vec, outer, TMA encode arguments) read from the reference's own
   planner functions as they return,
4. lowers each kernel to CUDA source (``tvm.compile`` with a CUDA compile
   callback that keeps the source and builds nothing), with a marker call
   before and after every tile call so the comparison can cut the kernel text
   per call.

Output: one JSON document (``--out``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import traceback
import warnings

import tvm  # noqa: F401  (the reference)
import tvm_ffi
from tvm import tirx
from tvm.script import tirx as T  # noqa: F401

import importlib

from tvm.backend.cuda import op as cuda_op
from tvm.tirx.operator.tile_primitive import dispatcher as m_dispatcher

# ---------------------------------------------------------------------------
# Per-release data: where the CUDA variants live and which planner functions
# the recording wrappers hook (module relative to the package, function).
# One table per release; the wrappers below are shared.
# ---------------------------------------------------------------------------

RELEASE = ".".join(tvm.__version__.split(".")[:2])  # "0.25", "0.26", "0.27"

RELEASES = {
    "0.25": {
        "package": "tvm.backend.cuda.operator.tile_primitive",
        # align_layouts_gs: gmem_smem and ldgsts (vec, outer)
        "align_gs": ["copy.gmem_smem", "copy_async.ldgsts"],
        # _split_atoms_for_vec: the register copy (vec, outer)
        "split_atoms": ["copy.reg"],
        "ewise_smem": "elementwise.smem",
        "ewise_reg": "elementwise.reg",
        # the TMA planner: PRE's L1/L2/L3 plan (_build_plan_with_shrink)
        "tma": ("copy_async.tma", "pre"),
        "forced_vec": None,
    },
    "0.26": {
        "package": "tvm.backend.cuda.tile_primitive",
        "align_gs": ["copy.vec_auto_gmem_smem", "copy_async.ldgsts"],
        "split_atoms": ["copy.vec_auto_reg"],
        "ewise_smem": "elementwise.smem",
        "ewise_reg": "elementwise.reg",
        # tma_auto (_build_auto_plan) and tma_explicit (_build_explicit_plan):
        # both return a TMAPlan whose TensorMapSpec is in CUDA API order
        "tma": ("copy_async.tma", "spec"),
        "forced_vec": "copy.vec_forced",
    },
}
RELEASES["0.27"] = dict(RELEASES["0.26"])
if RELEASE not in RELEASES:
    raise SystemExit(f"ref_lower.py: no data for apache-tvm {tvm.__version__}")
DATA = RELEASES[RELEASE]


def _mod(rel):
    return importlib.import_module(DATA["package"] + "." + rel)


importlib.import_module(DATA["package"])  # registers every CUDA variant


def _buf(region):
    """The buffer of a region (0.25/0.26 BufferRegion.buffer, 0.27 TensorRegion.source)."""
    b = getattr(region, "buffer", None)
    return b if b is not None else region.source


def _downcast(op_call):
    cls = getattr(tirx.stmt, "TilePrimitiveCall", None)
    if cls is None:
        from tvm.tirx.tile_primitive import TilePrimitiveCall as cls  # noqa: N813
    return cls.downcast(op_call)


# ---------------------------------------------------------------------------
# Run-time shims (reference defects worked around, each reported).
# ---------------------------------------------------------------------------

SHIMS_USED: set[str] = set()

_orig_choice = cuda_op._choice


def _choice_shim(name, value, options):
    # tma.py defaults cta_group to -1 ("omit .cta_group") on every target but
    # sm_100a and the PTX emitter (_resolve_cta_group_str) handles -1, but the
    # intrinsic's argument check only admits (1, 2): every TMA load on sm_90a
    # raises "invalid cta_group=-1". Let -1 through to the emitter.
    if name == "cta_group":
        try:
            if int(value) == -1:
                SHIMS_USED.add("cta_group=-1")
                return None
        except (TypeError, ValueError):
            pass
    return _orig_choice(name, value, options)


cuda_op._choice = _choice_shim

# ---------------------------------------------------------------------------
# Recording.
# ---------------------------------------------------------------------------

STATE = {"kernel": None, "calls": None, "attempt": None, "markers": False, "n": 0}


def _int(x):
    try:
        return int(x)
    except Exception:  # symbolic
        return str(x)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _rec_plan(**kw):
    if STATE["attempt"] is not None:
        STATE["attempt"].update(kw)


def _wrap_align_gs(orig):
    def wrapped(*args, **kwargs):
        g_p, s_p, vec = orig(*args, **kwargs)
        thread_cnt = int(args[7]) if len(args) > 7 else int(kwargs["thread_cnt"])
        n = _prod(int(it.extent) for it in s_p.shard)
        outer = n // (thread_cnt * int(vec)) if thread_cnt * int(vec) else None
        _rec_plan(vec=int(vec), outer=outer, threads=thread_cnt)
        return g_p, s_p, vec

    return wrapped


for _m in DATA["align_gs"]:
    _mm = _mod(_m)
    _mm.align_layouts_gs = _wrap_align_gs(_mm.align_layouts_gs)


def _wrap_split_atoms(orig):
    def wrapped(atoms, vec_len):
        outer = orig(atoms, vec_len)
        total = 1
        for a in outer:
            total *= int(a[0])
        _rec_plan(vec=int(vec_len), outer=total)
        return outer

    return wrapped


for _m in DATA["split_atoms"]:
    _mm = _mod(_m)
    _mm._split_atoms_for_vec = _wrap_split_atoms(_mm._split_atoms_for_vec)

m_esmem = _mod(DATA["ewise_smem"])
m_ereg = _mod(DATA["ewise_reg"])
_orig_emit_packed = m_esmem._emit_packed
_orig_emit_scalar = m_esmem._emit_scalar


def _esmem_packed(plan, vec_impl, vec_chunk, total, thread_cnt, sctx):
    _rec_plan(vec=int(vec_chunk), outer=_int((total + vec_chunk * thread_cnt - 1) // (vec_chunk * thread_cnt)),
              threads=int(thread_cnt), packed=type(vec_impl).__name__ if vec_impl is not None else None)
    return _orig_emit_packed(plan, vec_impl, vec_chunk, total, thread_cnt, sctx)


def _esmem_scalar(plan, spec, vec_chunk, total, thread_cnt, sctx):
    _rec_plan(vec=int(vec_chunk), outer=_int((total + vec_chunk * thread_cnt - 1) // (vec_chunk * thread_cnt)),
              threads=int(thread_cnt))
    return _orig_emit_scalar(plan, spec, vec_chunk, total, thread_cnt, sctx)


m_esmem._emit_packed = _esmem_packed
m_esmem._emit_scalar = _esmem_scalar

_orig_ereg_packed = m_ereg._emit_induced_packed
_orig_ereg_scalar = m_ereg._emit_induced_scalar


def _ereg_packed(plan, vec_impl, vec_len, outer_total, *rest):
    _rec_plan(vec=int(vec_len), outer=int(outer_total))
    return _orig_ereg_packed(plan, vec_impl, vec_len, outer_total, *rest)


def _ereg_scalar(plan, spec, outer_total, *rest):
    _rec_plan(vec=1, outer=int(outer_total))
    return _orig_ereg_scalar(plan, spec, outer_total, *rest)


m_ereg._emit_induced_packed = _ereg_packed
m_ereg._emit_induced_scalar = _ereg_scalar

m_tma = _mod(DATA["tma"][0])

if DATA["tma"][1] == "pre":
    # 0.25: PRE's planner; the plan's dims are outer-first, reversed here to
    # CUDA order; the OOB fill comes from _oob_fill_kind.
    _orig_build_plan = m_tma._build_plan_with_shrink
    _orig_oob_kind = m_tma._oob_fill_kind

    def _tma_plan_rec(l1, g_buf, s_buf):
        plan = _orig_build_plan(l1, g_buf, s_buf)
        eb = int(plan.elem_bytes)
        pre = STATE["attempt"] or {}
        strides = [_int(d.stride) for d in plan.dims]
        byte_strides = [s * eb if isinstance(s, int) else f"{s}*{eb}" for s in strides][:-1]
        rank = len(plan.dims)
        _rec_plan(
            vec=0,
            tma=dict(
                rank=rank,
                dtype=str(plan.elem_dtype),
                global_dims=[_int(d.shape) for d in reversed(plan.dims)],
                global_strides=list(reversed(byte_strides)),
                box=[_int(d.box) for d in reversed(plan.dims)],
                element_strides=[1] * rank,
                interleave=0,
                swizzle=int(plan.swizzle_mode.value),
                l2_promotion=2,
                issues=_int(plan.flatten_total_extent()),
                coords=[_int(d.coord_base) for d in reversed(plan.dims)],
                oob_fill=pre.pop("oob_fill", None),
            ),
        )
        STATE["attempt"]["outer"] = _int(plan.flatten_total_extent())
        return plan

    def _oob_kind_rec(mode):
        k = _orig_oob_kind(mode)
        if STATE["attempt"] is not None and "tma" in STATE["attempt"]:
            STATE["attempt"]["tma"]["oob_fill"] = int(k)
        else:
            _rec_plan(oob_fill=int(k))
        return k

    m_tma._build_plan_with_shrink = _tma_plan_rec
    m_tma._oob_fill_kind = _oob_kind_rec
else:
    # 0.26/0.27: tma_auto's _build_auto_plan and tma_explicit's
    # _build_explicit_plan return a TMAPlan whose TensorMapSpec holds the
    # cuTensorMapEncodeTiled arguments in CUDA API order.
    def _spec_rec(plan):
        spec = plan.spec
        issues = _int(plan.issue_extent())
        _rec_plan(
            vec=0,
            outer=issues,
            tma=dict(
                rank=int(spec.rank),
                dtype=str(spec.descriptor_dtype),
                global_dims=[_int(x) for x in spec.global_dims],
                global_strides=[_int(x) for x in spec.global_strides],
                box=[_int(x) for x in spec.box_dims],
                element_strides=[_int(x) for x in spec.element_strides],
                interleave=_int(spec.interleave),
                swizzle=_int(spec.swizzle),
                l2_promotion=_int(spec.l2_promotion),
                oob_fill=_int(spec.oob_fill),
                issues=issues,
                coords=[_int(x) for x in spec.coordinates],
                load_mode=str(spec.load_mode),
            ),
        )

    _orig_auto_plan = m_tma._build_auto_plan
    _orig_explicit_plan = m_tma._build_explicit_plan

    def _auto_plan_rec(op_call, sctx):
        plan = _orig_auto_plan(op_call, sctx)
        _spec_rec(plan)
        return plan

    def _explicit_plan_rec(op_call, sctx):
        plan, candidates = _orig_explicit_plan(op_call, sctx)
        _spec_rec(plan)
        return plan, candidates

    m_tma._build_auto_plan = _auto_plan_rec
    m_tma._build_explicit_plan = _explicit_plan_rec

if DATA["forced_vec"]:
    # vec_16b..vec_256b: one access of num_bytes; vec = elements moved.
    m_forced = _mod(DATA["forced_vec"])
    _orig_forced = m_forced._emit_forced_vec_copy

    def _forced_rec(op_call, sctx, num_bytes):
        oc = _downcast(op_call)
        bits = tvm.runtime.DataType(_buf(oc.src).dtype).bits
        _rec_plan(vec=int(num_bytes) * 8 // bits, outer=1)
        return _orig_forced(op_call, sctx, num_bytes)

    m_forced._emit_forced_vec_copy = _forced_rec


def _count_ops(func, names):
    """Dynamic count of calls to ops whose name contains one of ``names``:
    each call counts the product of the extents of the loops around it."""
    total = [0]

    def op_names(e, depth=0):
        op = getattr(e, "op", None)
        out = [str(getattr(op, "name", ""))]
        if depth < 2:
            for a in getattr(e, "args", None) or []:
                out += op_names(a, depth + 1)
        return out

    def has_call(stmt):
        # By op name (the printed form hides it in 0.27's table-driven
        # T.ptx); "." and "_" count as one; 0.27 has no Python stmt_functor,
        # so nested calls are looked at two levels deep.
        found = [n.replace(".", "_") for n in op_names(stmt.value)]
        return any(n in f for f in found for n in names)

    def walk(s, mult):
        if isinstance(s, tirx.For):
            walk(s.body, mult * int(s.extent))
        elif isinstance(s, tirx.SeqStmt):
            for x in s.seq:
                walk(x, mult)
        elif isinstance(s, tirx.Evaluate):
            if has_call(s):
                total[0] += mult
        else:
            for attr in ("body", "then_case", "else_case"):
                sub = getattr(s, attr, None)
                if isinstance(sub, tirx.Stmt):
                    walk(sub, mult)

    walk(func.body, 1)
    return total[0]


def _wrap_case(case):
    impl = case.impl
    variant = case.variant

    def wrapped(op_call, sctx):
        STATE["attempt"] = {}
        try:
            res = impl(op_call, sctx)
        except m_dispatcher.DispatchFail as e:
            STATE["current"].setdefault("_rej", {}).setdefault(variant, []).append(str(e))
            raise
        except Exception as e:
            # tilels' JSON gives the reason without TVM's row prefix
            # ("exception — "), as it does for "declined — ".
            STATE["current"].setdefault("_rej", {}).setdefault(variant, []).append(f"{type(e).__name__}: {e}")
            raise
        att = STATE["attempt"] or {}
        STATE["attempt"] = None
        rec = STATE["current"]
        rec["variant"] = variant
        for k, v in att.items():
            rec[k] = v
        try:
            _post_record(rec, variant, op_call, res)
        except Exception as e:  # noqa: BLE001  (never let recording change the dispatch)
            rec["harness_error"] = f"{type(e).__name__}: {e}"
        return res

    case.impl = wrapped
    _wrap_preds(case)


def _post_record(rec, variant, op_call, res):
    if variant == "fallback":
        oc = _downcast(op_call)
        ext = [int(r.extent) for r in oc.dst.region]
        rec["vec"] = 1
        rec["outer"] = _prod(e for e in ext if e != 1)
    if rec.get("tma") is not None:
        oc = _downcast(op_call)
        rec["tma"]["direction"] = "g2s" if _buf(oc.src).scope() == "global" else "s2g"
    if variant == "fallback":
        pass
    elif variant == "ldstmatrix":
        rec["vec"] = 8
        rec["outer"] = _count_ops(res, ("ldmatrix", "stmatrix"))
    elif variant in ("smem->tmem", "tmem<->local", "dsmem"):
        # copy_async tcgen05.cp / tcgen05.ld,st / dsmem bulk copies:
        # vec 0, outer = the instructions issued.
        rec["vec"] = 0
        rec["outer"] = _count_ops(res, ("tcgen05_cp", "tcgen05_ld", "tcgen05_st",
                                        "cp_async_bulk_shared_to_cluster", "cp_async_bulk_s2c"))
    elif variant == "warp_xor_swizzle":
        # permute_layout: one element per access, P = V / 32 per lane.
        oc = _downcast(op_call)
        rec["vec"] = 1
        rec["outer"] = _prod(int(r.extent) for r in oc.args[1].region) // 32


def _wrap_preds(case):
    variant = case.variant
    preds = []
    # Cases may share Predicate objects (sm100_packed registers one list for
    # sum, max and min): wrap a copy per case, so each records only its own
    # variant, once.
    case.preds = [dataclasses.replace(p) for p in case.preds]
    for p in case.preds:
        orig = p.evaluate

        def ev(op_call, sctx, _orig=orig, _name=p.name):
            ok, reason = _orig(op_call, sctx)
            if not ok:
                STATE["current"].setdefault("_rej", {}).setdefault(variant, []).append(reason or _name)
            return ok, reason

        p.evaluate = ev
        preds.append(p)


for _cases in m_dispatcher._DISPATCH_TABLE.values():
    for _c in _cases:
        _wrap_case(_c)

_orig_run_dispatch = m_dispatcher.run_dispatch


def _marker(name):
    return tirx.Evaluate(tirx.call_extern("int32", name))


def _run_dispatch_rec(op_call, sctx):
    oc = _downcast(op_call)
    rec = {
        "op": op_call.op.name.split(".")[-1],
        "scope": str(sctx.scope_kind),
        "dispatch": getattr(oc, "dispatch", None),
        "variant": None,
        "intra": {str(k): [_int(x) for x in v] for k, v in sctx.intra.items()},
    }
    STATE["current"] = rec
    idx = STATE["n"]
    STATE["n"] += 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = _orig_run_dispatch(op_call, sctx)
    except Exception as e:  # record, then keep lowering the rest of the kernel
        msg = str(e)
        rec["error"] = msg
        rej = rec.pop("_rej", {})
        rec["declined"] = [{"variant": v, "reason": "; ".join(r)} for v, r in rej.items()] or _declines_from_table(msg)
        if msg.splitlines() and msg.splitlines()[-1].startswith("no "):
            rec["declined"] = _declines_from_table(msg)
        if STATE["calls"] is not None:
            STATE["calls"].append(rec)
        if STATE["markers"]:
            raise
        return tirx.PrimFunc([], tirx.Evaluate(0))
    rej = rec.pop("_rej", {})
    rec["declined"] = [{"variant": v, "reason": "; ".join(r)} for v, r in rej.items()]
    if STATE["calls"] is not None:
        STATE["calls"].append(rec)
    if STATE["markers"]:
        body = tirx.SeqStmt([_marker(f"agreement_begin_{idx}"), res.body, _marker(f"agreement_end_{idx}")])
        res = res.with_body(body)
    return res


def _declines_from_table(msg):
    out = []
    for line in msg.splitlines():
        m = re.match(r"\| (\S+) \(prio=-?\d+\) \| (.*?)\s*\|$", line)
        if m:
            reason = m.group(2)
            reason = re.sub(r"^(rejected|declined): ?", "", reason)
            out.append({"variant": m.group(1), "reason": reason})
        elif line.startswith("no variant named") or line.startswith("no registered variants"):
            out.append({"variant": None, "reason": line})
    return out


m_dispatcher.run_dispatch = _run_dispatch_rec

# ---------------------------------------------------------------------------
# Driver.
# ---------------------------------------------------------------------------

_SOURCES = []


@tvm_ffi.register_global_func("tvm_callback_cuda_compile", override=True)
def _cuda_compile(code, target):  # keep the source, build nothing
    _SOURCES.append(code)
    return bytearray(b"// agreement: not compiled")


def _cuda_source(ex):
    mods = list(ex.mod.imports)
    while mods:
        m = mods.pop(0)
        if getattr(m, "kind", "") == "cuda" or "cuda" in str(getattr(m, "type_key", "")):
            return m.inspect_source()
        mods.extend(m.imports)
    return None


def _target(arch):
    return tvm.target.Target({"kind": "cuda", "arch": arch})


def lower_program(path, arch):
    src = open(path).read()
    out = {"file": path, "arch": arch, "kernels": [], "error": None}
    ns = {"__name__": "agreement_program", "__file__": path}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(src, path, "exec"), ns)
    except Exception as e:
        out["error"] = f"parse: {type(e).__name__}: {e}"
        return out
    funcs = [(k, v) for k, v in ns.items() if isinstance(v, tirx.PrimFunc)]
    target = _target(arch)
    for name, f in funcs:
        kern = {"name": name, "calls": [], "cuda": None, "cuda_error": None, "pass_error": None}
        STATE["calls"] = kern["calls"]
        STATE["markers"] = False
        STATE["n"] = 0
        SHIMS_USED.clear()
        try:
            with target:
                tirx.transform.TilePrimitiveDispatch()(tvm.IRModule({"main": f}))
        except Exception as e:
            kern["pass_error"] = f"{type(e).__name__}: {str(e)[:2000]}"
        kern["shims"] = sorted(SHIMS_USED)
        STATE["calls"] = None
        if not kern["pass_error"] and not any("error" in c for c in kern["calls"]):
            STATE["markers"] = True
            STATE["n"] = 0
            _SOURCES.clear()
            try:
                with target, warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ex = tvm.compile(tvm.IRModule({"main": f}), target=target, tir_pipeline="tirx")
                kern["cuda"] = _cuda_source(ex) or (_SOURCES[-1] if _SOURCES else None)
            except Exception as e:
                kern["cuda_error"] = f"{type(e).__name__}: {str(e)[-2000:]}"
            STATE["markers"] = False
        out["kernels"].append(kern)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("programs", nargs="+", help="program paths; an optional '@arch' suffix picks the target arch")
    args = ap.parse_args()
    results = []
    for spec in args.programs:
        path, _, arch = spec.partition("@")
        try:
            results.append(lower_program(path, arch or "sm_90a"))
        except Exception:
            results.append({"file": path, "error": "driver: " + traceback.format_exc()[-2000:], "kernels": []})
    info = {
        "tvm_version": tvm.__version__,
        "tvm_file": os.path.dirname(tvm.__file__),
        "python": sys.version.split()[0],
        "release": RELEASE,
        "programs": results,
    }
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1, default=_int)


if __name__ == "__main__":
    main()
