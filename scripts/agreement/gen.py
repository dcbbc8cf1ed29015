#!/usr/bin/env python3
"""Generate the differential-test corpus under testdata/agreement/.

One program per row of the spec's section 6 (rows 1-100, file names
``rNNN_*.py``), plus variations (``v_*.py``): dtypes, scopes, region offsets,
swizzles, odd sizes, permuted layouts, register fragments, TMA issue loops,
ldgsts. Programs that exist to test a rejection live in
``testdata/agreement/reject/`` and have ``reject`` in their name.

Every program is written in the surface both tilels and the reference
release accept (PRE layout spelling: ``SwizzleLayout`` + ``ComposeLayout(swizzle,
tile)``, the ``tvm.tirx.cuda.operator.tile_primitive`` module path). A
program may carry directives in comments:

    # agreement: row=N              the section-6 row it implements
    # agreement: arch=sm_100a       target arch for both tools (default sm_90a)

Run: python3 scripts/agreement/gen.py   (rewrites the corpus; deterministic)
"""

from __future__ import annotations

import os
import shutil
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "testdata", "agreement")

HEADER = """from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, SwizzleLayout, laneid, tid_in_wg, tx
from tvm.tirx.cuda.operator.tile_primitive.tma_utils import mma_shared_layout, mma_atom_layout
"""

SHORT = {
    "float32": "f32", "float16": "f16", "bfloat16": "bf16", "int8": "i8", "uint8": "u8",
    "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "int32": "i32", "uint16": "u16", "uint32": "u32",
}
BITS = {"float32": 32, "float16": 16, "bfloat16": 16, "int8": 8, "uint8": 8, "float8_e4m3fn": 8,
        "float8_e5m2": 8, "int32": 32, "uint16": 16, "uint32": 32}

PREFIX = {"thread": "Tx.thread.", "warp": "Tx.warp.", "warpgroup": "Tx.wg.", "cta": "Tx.cta."}


def shp(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def full(shape):
    return ", ".join(":" for _ in shape)


def ids(scope, n):
    """Scope-id declarations for a CTA of n threads running ``scope`` calls."""
    out = ["T.cta_id([1])"]
    if scope == "warpgroup":
        out += [f"T.warpgroup_id([{n // 128}])", "T.warp_id_in_wg([4])", "T.lane_id([32])",
                "T.thread_id_in_wg([128])", f"T.thread_id([{n}])"]
    elif n >= 32 and scope in ("warp", "cta"):
        if n > 32 or scope == "cta":
            out.append(f"T.warp_id([{n // 32}])")
        out += ["T.lane_id([32])", f"T.thread_id([{n}])"]
    else:
        out.append(f"T.thread_id([{n}])")
    return out


def sync(scope):
    return {"warp": "T.cuda.warp_sync()", "warpgroup": "T.cuda.warpgroup_sync(8)"}.get(scope, "T.cuda.cta_sync()")


class Kernel:
    def __init__(self, name, params, pre, body, consts=None):
        self.name, self.params, self.pre, self.body = name, params, pre, body

    def text(self):
        args = ", ".join(f"{p[0]}_ptr: T.handle" for p in self.params)
        lines = [f"@T.prim_func", f"def {self.name}({args}):"]
        for p in self.params:
            name, shape, dtype = p[0], p[1], p[2]
            lay = f", layout={p[3]}" if len(p) > 3 and p[3] else ""
            lines.append(f'    {name} = T.match_buffer({name}_ptr, {shp(shape)}, "{dtype}"{lay})')
        lines.append("    T.device_entry()")
        for l in self.pre:
            lines.append("    " + l)
        for l in self.body:
            lines.append("    " + l)
        return "\n".join(lines) + "\n"


class Program:
    def __init__(self, name, doc, kernels, row=None, arch=None, consts="", reject=False):
        self.name, self.doc, self.kernels, self.row, self.arch = name, doc, kernels, row, arch
        self.consts, self.reject = consts, reject

    def text(self):
        out = []
        for l in self.doc.strip().splitlines():
            out.append("# " + l if l.strip() else "#")
        if self.row is not None:
            out.append(f"# agreement: row={self.row}")
        if self.arch:
            out.append(f"# agreement: arch={self.arch}")
            out.append(f"# tilels-test: arch={self.arch}")
        out.append(HEADER)
        if self.consts:
            out.append(self.consts.strip() + "\n")
        for k in self.kernels:
            out.append("")
            out.append(k.text())
        return "\n".join(out)


PROGRAMS: list[Program] = []


def add(p):
    PROGRAMS.append(p)
    return p


# ---------------------------------------------------------------------------
# Kernel builders
# ---------------------------------------------------------------------------


def gs_roundtrip(name, scope, n, gshape, dtype, sshape=None, greg=None, sreg=None, slayout=None,
                 glayout=None, back_greg=None, narrow=None):
    """global -> shared -> global through two ``scope`` copies."""
    sshape = sshape or gshape
    greg = greg or full(gshape)
    sreg = sreg or full(sshape)
    back_greg = back_greg or greg
    slay = slayout or f"TileLayout(S[{shp(sshape)[1:-1].rstrip(',')}])"
    body = [f'A_s = T.alloc_buffer({shp(sshape)}, "{dtype}", scope="shared", layout={slay})']
    call1 = f"{PREFIX[scope]}copy(A_s[{sreg}], A[{greg}])"
    call2 = f"{PREFIX[scope]}copy(B[{back_greg}], A_s[{sreg}])"
    if narrow:
        body += [f"if {narrow}:", "    " + call1, "    " + sync(scope), "    " + call2]
    else:
        body += [call1, "T.cuda.cta_sync()", call2]
    pre = ids(scope, n)
    if narrow and "tid" in narrow:
        pre[-1] = "tid = " + pre[-1]
    if narrow and "wid" in narrow:
        pre = [("wid = " + l if l.startswith("T.warp_id(") else l) for l in pre]
    return Kernel(name, [("A", gshape, dtype, glayout), ("B", gshape, dtype, glayout)], pre, body)


def reg_kernel(name, scope, n, k, dtype, rlayout, other="shared", rshape=None):
    """register <-> shared and register <-> global copies at ``scope``."""
    rshape = rshape or (n if scope != "warpgroup" else 128, k)
    if scope == "warp":
        rshape = (32, k)
    body = [
        f'A_s = T.alloc_buffer({shp(rshape)}, "{dtype}", scope="shared", layout=TileLayout(S[{rshape[0]}, {rshape[1]}]))',
        f'R = T.alloc_buffer({shp(rshape)}, "{dtype}", scope="local", layout=TileLayout({rlayout}))',
        f"{PREFIX[scope]}copy(A_s[:, :], A[:, :])",
        "T.cuda.cta_sync()",
        f"{PREFIX[scope]}copy(R[:, :], A_s[:, :])",
        f"{PREFIX[scope]}copy(A_s[:, :], R[:, :])",
        f"{PREFIX[scope]}copy(R[:, :], A[:, :])",
        f"{PREFIX[scope]}copy(B[:, :], R[:, :])",
    ]
    return Kernel(name, [("A", rshape, dtype), ("B", rshape, dtype)], ids(scope, n), body)


def region_elems(region, shape):
    """The number of elements of region (a subscript such as "1:2, :, :" or
    "0, 0, :, :") of a buffer of the given shape."""
    n = 1
    for part, dim in zip([p.strip() for p in region.split(",")], shape):
        if ":" not in part:
            continue
        lo, hi = part.split(":")
        n *= (int(hi) if hi else dim) - (int(lo) if lo else 0)
    return n


def tma_kernel(name, gshape, dtype, sshape, slayout, greg=None, sreg=None, glayout=None, direction="g2s",
               extra_cfg="", smem_elems=None, stages=None, companion_reject=False):
    """One thread issues a TMA copy between A and a dynamic-shared tile."""
    greg = greg or full(gshape)
    sreg = sreg or full(sshape)
    bits = BITS[dtype]
    elems = smem_elems
    if elems is None:
        elems = 1
        for d in sshape:
            elems *= d
    nbytes = elems * bits // 8
    arena = (nbytes + 1023) // 1024 * 1024
    body = [
        f'dyn = T.alloc_buffer([{arena + 64}], "uint8", scope="shared.dyn")',
        f'A_s = T.decl_buffer({shp(sshape)}, "{dtype}", dyn.data, elem_offset=0, layout={slayout})',
        f'bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset={arena // 8})',
        "if tid == 0:",
        "    T.ptx.mbarrier.init(bar.ptr_to([0]), 1)",
        'T.ptx.fence.proxy_async("shared::cta")',
        "T.cuda.cta_sync()",
    ]
    cfg = (", " + extra_cfg) if extra_cfg else ""
    if direction == "g2s":
        # The mbarrier expects the bytes the copy moves: the shared region's
        # (TMA counts a box's out-of-bounds fill as moved), not the arena's.
        body += [
            "if tid == 0:",
            f'    Tx.copy_async(A_s[{sreg}], A[{greg}], dispatch="tma", mbar=bar.ptr_to([0]){cfg})',
            f"    T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), {region_elems(sreg, sshape) * bits // 8})",
            "T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)",
        ]
    else:
        body += [
            "if tid == 0:",
            f'    Tx.copy_async(A[{greg}], A_s[{sreg}], dispatch="tma"{cfg})',
            "    T.ptx.cp_async.bulk.commit_group()",
            "    T.ptx.cp_async.bulk.wait_group()",
        ]
    if companion_reject:
        body.append(f'Tx.warp.copy_async(A_s[{sreg}], A[{greg}], dispatch="tma", mbar=bar.ptr_to([0]))')
        pre = ["T.cta_id([1])", "T.warp_id([4])", "T.lane_id([32])", "tid = T.thread_id([128])"]
    else:
        pre = ["T.cta_id([1])", "tid = T.thread_id([128])"]
    return Kernel(name, [("A", gshape, dtype, glayout)], pre, body)


# ---------------------------------------------------------------------------
# 6.1 copy: global <-> shared
# ---------------------------------------------------------------------------

ROW_DT3 = ["float16", "float32", "uint8"]

add(Program("r001_gmem_smem_warp_32x32_f32", "Row 1: a warp copies 32x32 float32 global -> shared -> global (the seed demo).",
            [gs_roundtrip("copy_f32", "warp", 32, (32, 32), "float32")], row=1))
add(Program("r002_gmem_smem_warp_32x32_f16", "Row 2: the seed demo in float16.",
            [gs_roundtrip("copy_f16", "warp", 32, (32, 32), "float16")], row=2))
add(Program("r003_gmem_smem_warp_32x32_u8", "Row 3: the seed demo in uint8.",
            [gs_roundtrip("copy_u8", "warp", 32, (32, 32), "uint8")], row=3))
for row, scope, n, shape in [(4, "warp", 32, (32, 64)), (5, "warpgroup", 128, (128, 32)),
                             (6, "warpgroup", 128, (128, 64)), (7, "warpgroup", 128, (256, 16)),
                             (8, "cta", 256, (256, 32)), (9, "cta", 256, (512, 16))]:
    add(Program(f"r{row:03d}_gmem_smem_{scope}_{shape[0]}x{shape[1]}",
                f"Row {row}: {scope} scope, {n} threads, {shape[0]}x{shape[1]} global <-> shared in three dtypes.",
                [gs_roundtrip(f"copy_{SHORT[dt]}", scope, n, shape, dt) for dt in ROW_DT3], row=row))

DT_ALL = ["int8", "float8_e4m3fn", "float16", "bfloat16", "float32"]
add(Program("r010_g2s_s2g_task0_cta", "Row 10: cta scope, 32 threads, A[0:128, 0:32] <-> shared 128x32.",
            [gs_roundtrip(f"task0_{SHORT[dt]}", "cta", 32, (128, 32), dt) for dt in DT_ALL], row=10))
add(Program("r011_g2s_s2g_task0_thread", "Row 11: the task-0 copy at thread scope (one thread moves the tile).",
            [gs_roundtrip(f"task0_{SHORT[dt]}", "thread", 1, (128, 32), dt) for dt in DT_ALL], row=11))
add(Program("r012_g2s_s2g_task1_cta", "Row 12: A[32:64, 32:64] of a 64x64 global <-> shared 32x32 (offset 2080).",
            [gs_roundtrip(f"task1_{SHORT[dt]}", "cta", 32, (64, 64), dt, sshape=(32, 32), greg="32:64, 32:64")
             for dt in ["int8", "float16", "float32"]], row=12))
add(Program("r013_g2s_s2g_task1_thread", "Row 13: the task-1 copy at thread scope.",
            [gs_roundtrip(f"task1_{SHORT[dt]}", "thread", 1, (64, 64), dt, sshape=(32, 32), greg="32:64, 32:64")
             for dt in ["int8", "float16", "float32"]], row=13))
add(Program("r014_g2s_s2g_task2_cta", "Row 14: A[0:1, 0:32, 0:32] of 4x32x32 <-> shared 32x32 (unit dim dropped).",
            [gs_roundtrip(f"task2_{SHORT[dt]}", "cta", 32, (4, 32, 32), dt, sshape=(32, 32), greg="0:1, 0:32, 0:32")
             for dt in ["uint8", "bfloat16", "float32"]], row=14))
add(Program("r015_g2s_s2g_task3_cta", "Row 15: A[0:8, 0:8] of 16x16 <-> shared 8x8: 64 elements over 32 threads.",
            [gs_roundtrip(f"task3_{SHORT[dt]}", "cta", 32, (16, 16), dt, sshape=(8, 8), greg="0:8, 0:8")
             for dt in ["int8", "float16", "float32"]], row=15))
add(Program("r016_g2s_s2g_task3_thread", "Row 16: the task-3 copy at thread scope: 8-element rows cap 8-bit vectors at 8.",
            [gs_roundtrip(f"task3_{SHORT[dt]}", "thread", 1, (16, 16), dt, sshape=(8, 8), greg="0:8, 0:8")
             for dt in ["int8", "float16", "float32"]], row=16))
SWZ_TILED = "ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[8, 64])).tile_to((16, 128), (8, 64)).tile_to((32, 256), (16, 128))"
add(Program("r017_g2s_s2g_task4_cta", "Row 17: A[16:48, 256:512] of 96x512 <-> a swizzled 32x256 tile; the 8-element\nswizzle chunk caps 8-bit vectors at 8.",
            [gs_roundtrip(f"task4_{SHORT[dt]}", "cta", 32, (96, 512), dt, sshape=(32, 256), greg="16:48, 256:512",
                          slayout="SWZ") for dt in ["int8", "float16", "float32"]], row=17,
            consts=f"SWZ = {SWZ_TILED}"))
add(Program("r018_g2s_s2g_task4_thread", "Row 18: the task-4 swizzled copy at thread scope.",
            [gs_roundtrip(f"task4_{SHORT[dt]}", "thread", 1, (96, 512), dt, sshape=(32, 256), greg="16:48, 256:512",
                          slayout="SWZ") for dt in ["int8", "float16", "float32"]], row=18,
            consts=f"SWZ = {SWZ_TILED}"))
add(Program("r019_layout_permute_ktiled", "Row 19: 128x64 fp16 into K-tiled shared S[(128,8,8):(8,1024,1)] at 128 threads.",
            [gs_roundtrip("ktiled", "cta", 128, (128, 64), "float16", slayout="TileLayout(S[(128, 8, 8):(8, 1024, 1)])")],
            row=19))
add(Program("r020_unaligned_row_stride", "Row 20 (as a program): shared rows 20 halves apart forbid 8-wide vectors; a warp\ncopies 16x16 fp16 with 4-wide ones.",
            [gs_roundtrip("stride20", "warp", 32, (16, 16), "float16", slayout="TileLayout(S[(16, 16):(20, 1)])")],
            row=20))
add(Program("r021_unaligned_region_offset", "Row 21 (as a program): global columns [3, 19) start 3 elements off alignment:\nscalar transfers.",
            [gs_roundtrip("offset3", "warp", 32, (32, 32), "float16", sshape=(32, 16), greg="0:32, 3:19")], row=21))
add(Program("r022_swizzle_chunk_caps_vec", "Row 22: a swizzle with a 2^p-element chunk caps the vector at 2^p (p = 2, 1, 0).",
            [gs_roundtrip(f"chunk_p{p}", "warp", 32, (32, 32), "float16",
                          slayout=f"ComposeLayout(SwizzleLayout({p}, 3, 3), TileLayout(S[32, 32]))") for p in (2, 1, 0)],
            row=22))
add(Program("r023_swizzle_wg_128x32", "Row 23: warpgroup copy of 128x32 fp16 into a 128B-swizzled tile.",
            [gs_roundtrip("swz_wg", "warpgroup", 128, (128, 32), "float16",
                          slayout="ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[128, 32]))")], row=23))
add(Program("r024_swizzle_warp_32x64", "Row 24: warp copy of 32x64 fp16 into a 128B-swizzled tile (swizzle fast path).",
            [gs_roundtrip("swz_warp", "warp", 32, (32, 64), "float16",
                          slayout="ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[32, 64]))")], row=24))

# ---------------------------------------------------------------------------
# 6.2 copy: fallback
# ---------------------------------------------------------------------------

for row, scope, n, shape in [(25, "warp", 32, (4, 6)), (26, "warp", 32, (1, 8)), (27, "warpgroup", 128, (4, 6)),
                             (28, "warpgroup", 128, (4, 8)), (29, "cta", 256, (4, 8)), (30, "cta", 1024, (8, 8))]:
    add(Program(f"r{row:03d}_fallback_{scope}_{n}_{shape[0]}x{shape[1]}",
                f"Row {row}: {shape[0]}x{shape[1]} elements do not divide over {n} threads: scalar fallback.",
                [gs_roundtrip("small", scope, n, shape, "float32")], row=row))
add(Program("r031_fallback_thread_scope", "Row 31: at thread scope the 4x6 copy vectorizes (gmem_smem, not fallback).",
            [gs_roundtrip("one_thread", "thread", 1, (4, 6), "float32")], row=31))
add(Program("r032_fallback_emits_gate", "Row 32: a 256-thread CTA copies 4x6: fallback gated on one thread.",
            [gs_roundtrip("gate", "cta", 256, (4, 6), "float32")], row=32))
add(Program("r033_fallback_scalar_regions", "Row 33: local -> local is in no fast pair: fallback copies one element.",
            [Kernel("scalar_regions", [("A", (4,), "float32")], ["T.cta_id([1])", "T.thread_id([1])"], [
                'src = T.alloc_buffer((1,), "float32", scope="local")',
                'dst = T.alloc_buffer((4,), "float32", scope="local")',
                "Tx.copy(src[:], A[0:1])",
                "Tx.copy(dst[2:3], src[:])",
                "Tx.copy(A[0:4], dst[:])",
            ])], row=33))
add(Program("r034_fallback_tiny_cta", "Row 34: an 8-thread CTA has no whole warp: thread_cnt 0 at cta scope, fallback.",
            [gs_roundtrip("tiny", "cta", 8, (8, 256), "float16")], row=34))

# ---------------------------------------------------------------------------
# 6.3 copy: registers <-> memory
# ---------------------------------------------------------------------------

RLAY = {"warp": "S[(32, {k}):(1 @ laneid, 1)]", "warpgroup": "S[(128, {k}):(1 @ tid_in_wg, 1)]",
        "cta": "S[(256, {k}):(1 @ tx, 1)]"}
for row, scope, n, k in [(35, "warpgroup", 128, 16), (36, "warpgroup", 128, 32), (37, "warpgroup", 128, 8),
                         (38, "warp", 32, 8), (39, "warp", 32, 16), (40, "cta", 256, 8), (41, "cta", 256, 16)]:
    add(Program(f"r{row:03d}_reg_roundtrip_{scope}_{k}",
                f"Row {row}: {scope} registers {RLAY[scope].format(k=k)} <-> shared and global.",
                [reg_kernel(f"reg_{SHORT[dt]}", scope, n, k, dt, RLAY[scope].format(k=k)) for dt in ROW_DT3], row=row))

add(Program("r042_g2l_l2g_vec_load", "Row 42: a thread loads an 8x8 local tile from A[3:4, 8:16, 8:16] of 4x16x16 and\nstores it back (global offset 904).",
            [Kernel(f"g2l_{SHORT[dt]}", [("A", (4, 16, 16), dt)], ["T.cta_id([1])", "T.thread_id([1])"], [
                f'L = T.alloc_buffer((8, 8), "{dt}", scope="local", layout=TileLayout(S[8, 8]))',
                "Tx.copy(L[:, :], A[3:4, 8:16, 8:16])",
                "Tx.copy(A[3:4, 8:16, 8:16], L[:, :])",
            ]) for dt in ["int8", "float16", "float32"]], row=42))
add(Program("r043_reg_cache_nc", "Row 43: int32 local 4x4 <- A[0:4, 4:8] of 16x16 inside `if tid == 0`, plain and\nwith cache=\"nc\".",
            [Kernel("nc", [("A", (16, 16), "int32")], ["T.cta_id([1])", "tid = T.thread_id([32])"], [
                'L = T.alloc_buffer((4, 4), "int32", scope="local", layout=TileLayout(S[4, 4]))',
                "if tid == 0:",
                "    Tx.copy(L[:, :], A[0:4, 4:8])",
                '    Tx.copy(L[:, :], A[0:4, 4:8], cache="nc")',
                "    Tx.copy(A[4:8, 4:8], L[:, :])",
            ])], row=43))
add(Program("r044_reg_wg_to_swizzled_shared", "Row 44: warpgroup registers S[(128,64):(1@tid_in_wg,1)] -> a 128B-swizzled 128x64\nfp16 tile and back.",
            [Kernel("wg_swz", [("A", (128, 64), "float16")], ids("warpgroup", 128), [
                'A_s = T.alloc_buffer((128, 64), "float16", scope="shared", layout=ComposeLayout(SwizzleLayout(3, 3, 3), TileLayout(S[128, 64])))',
                'R = T.alloc_buffer((128, 64), "float16", scope="local", layout=TileLayout(S[(128, 64):(1 @ tid_in_wg, 1)]))',
                "Tx.wg.copy(R[:, :], A[:, :])",
                "Tx.wg.copy(A_s[:, :], R[:, :])",
                "T.cuda.warpgroup_sync(8)",
                "Tx.wg.copy(R[:, :], A_s[:, :])",
                "Tx.wg.copy(A[:, :], R[:, :])",
            ])], row=44))
add(Program("r045_reg_tcgen05_epilogue", "Row 45: a tcgen05 16x256b accumulator fragment (64x64 fp32) deposited into the\n128B-swizzled MMA shared layout.",
            [Kernel("epilogue", [("A", (64, 64), "float32")], ids("warpgroup", 128), [
                'A_s = T.alloc_buffer((64, 64), "float32", scope="shared", layout=mma_shared_layout("float32", 3, (64, 64)))',
                'R = T.alloc_buffer((64, 64), "float32", scope="local", layout=tcgen05_atom_layout("16x256b", (64, 64), "float32"))',
                "Tx.wg.copy(A_s[:, :], R[:, :])",
                "T.cuda.warpgroup_sync(8)",
                "Tx.wg.copy(R[:, :], A_s[:, :])",
            ])], row=45, consts="from tvm.tirx.layout import tcgen05_atom_layout"))
for row, variant, dt, n in [(46, "vec_16b", "uint16", 1), (47, "vec_32b", "uint32", 1), (48, "vec_64b", "uint32", 2),
                            (49, "vec_128b", "uint32", 4)]:
    add(Program(f"r{row:03d}_forced_{variant}", f"Row {row}: dispatch=\"{variant}\" on a {n}-element {dt} local <-> shared copy.",
                [Kernel("forced", [("A", (8,), dt)], ["T.cta_id([1])", "T.thread_id([1])"], [
                    f'A_s = T.alloc_buffer((8,), "{dt}", scope="shared")',
                    f'L = T.alloc_buffer(({n},), "{dt}", scope="local")',
                    "Tx.copy(A_s[:], A[:])",
                    f'Tx.copy(A_s[0:{n}], L[:], dispatch="{variant}")',
                    f'Tx.copy(L[:], A_s[0:{n}], dispatch="{variant}")',
                    "Tx.copy(A[:], A_s[:])",
                ])], row=row))
add(Program("r050_forced_vec_size_mismatch_reject", "Row 50: dispatch=\"vec_64b\" on four floats: rejected.",
            [Kernel("mismatch", [("A", (4,), "float32")], ["T.cta_id([1])", "T.thread_id([1])"], [
                'L = T.alloc_buffer((4,), "float32", scope="local")',
                'Tx.copy(L[:], A[:], dispatch="vec_64b")',
            ])], row=50, reject=True))
add(Program("r051_forced_vec_warp_reject", "Row 51: a forced vector width at warp scope: rejected.",
            [Kernel("warp_forced", [("A", (32, 4), "float32")], ids("warp", 32), [
                'L = T.alloc_buffer((32, 4), "float32", scope="local", layout=TileLayout(S[(32, 4):(1 @ laneid, 1)]))',
                'Tx.warp.copy(L[:, :], A[:, :], dispatch="vec_128b")',
            ])], row=51, reject=True))
add(Program("r052_pre_dispatch_names", "Row 52: the PRE variant names may be forced: dispatch=\"reg\" and \"gmem_smem\".",
            [Kernel("named", [("A", (32, 8), "float32")], ids("warp", 32), [
                'A_s = T.alloc_buffer((32, 8), "float32", scope="shared")',
                'R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))',
                'Tx.warp.copy(A_s[:, :], A[:, :], dispatch="gmem_smem")',
                "T.cuda.warp_sync()",
                'Tx.warp.copy(R[:, :], A_s[:, :], dispatch="reg")',
                'Tx.warp.copy(A[:, :], R[:, :], dispatch="reg")',
            ])], row=52))
add(Program("r053_forced_vec_swizzled_dynamic", "Row 53: dispatch=\"vec_128b\" on smem[row, col:col+4] of a swizzled fp32 tile\nat a runtime row and column.",
            [Kernel("dyn_swz", [("A", (64, 256), "float32")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'A_s = T.alloc_buffer((64, 256), "float32", scope="shared", layout=ComposeLayout(SwizzleLayout(2, 3, 3), TileLayout(S[(64, 8, 32):(32, 2048, 1)])))',
                'L = T.alloc_buffer((4,), "float32", scope="local")',
                "Tx.copy(L[:], A[tid, 0:4])",
                'Tx.copy(A_s[tid, tid * 4:tid * 4 + 4], L[:], dispatch="vec_128b")',
                'Tx.copy(L[:], A_s[tid, tid * 4:tid * 4 + 4], dispatch="vec_128b")',
                "Tx.copy(A[tid, 0:4], L[:])",
            ])], row=53))

# ---------------------------------------------------------------------------
# 6.4 elementwise
# ---------------------------------------------------------------------------


def ewise_smem_kernel(name, n, shape, dtype, calls, extra_bufs=(), scope="cta", pre=None):
    body = [f'X_s = T.alloc_buffer({shp(shape)}, "{dtype}", scope="shared")']
    for b in extra_bufs:
        body.append(b)
    body += calls
    body.append(f"{PREFIX[scope]}copy(A[{full(shape)}], X_s[{full(shape)}])")
    return Kernel(name, [("A", shape, dtype)], pre or ids(scope, n), body)


add(Program("r054_unary_shared_basic", "Row 54: zero and sqrt of a 32x32 fp16 shared tile at 64 threads.",
            [ewise_smem_kernel("unary_f16", 64, (32, 32), "float16",
                               ["Tx.cta.copy(X_s[:, :], A[:, :])", "T.cuda.cta_sync()", "Tx.cta.zero(X_s[:, :])",
                                "Tx.cta.sqrt(X_s[:, :], X_s[:, :])"])],
            row=54))
add(Program("r055_unary_shared_f32_to_half", "Row 55: sqrt from an fp32 tile into fp16 and bf16 tiles (max bits 32).",
            [Kernel(f"to_{SHORT[dt]}", [("A", (32, 32), "float32"), ("B", (32, 32), dt)], ids("cta", 64), [
                'A_s = T.alloc_buffer((32, 32), "float32", scope="shared")',
                f'B_s = T.alloc_buffer((32, 32), "{dt}", scope="shared")',
                "Tx.cta.copy(A_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.sqrt(B_s[:, :], A_s[:, :])",
                "Tx.cta.copy(B[:, :], B_s[:, :])",
            ]) for dt in ["float16", "bfloat16"]], row=55))
add(Program("r056_unary_shared_offset", "Row 56: sqrt of A[10:15, 0:6, 3:10] into B[20:25, 0:6, 2:9] (210 elements, guarded).",
            [Kernel("offset", [("A", (32, 8, 12), "float16")], ids("cta", 64), [
                'A_s = T.alloc_buffer((32, 8, 12), "float16", scope="shared")',
                'B_s = T.alloc_buffer((32, 8, 12), "float16", scope="shared")',
                "Tx.cta.copy(A_s[:, :, :], A[:, :, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.sqrt(B_s[20:25, 0:6, 2:9], A_s[10:15, 0:6, 3:10])",
                "Tx.cta.copy(A[:, :, :], B_s[:, :, :])",
            ])], row=56))
add(Program("r057_unary_subcta_warp", "Row 57: warp 5 of a 256-thread CTA zeroes a 32x8 fp16 tile.",
            [Kernel("warp5", [("A", (32, 8), "float16")],
                    ["T.cta_id([1])", "warp_id = T.warp_id([8])", "T.lane_id([32])", "T.thread_id([256])"], [
                'W_s = T.alloc_buffer((32, 8), "float16", scope="shared")',
                "if warp_id == 5:",
                "    Tx.warp.zero(W_s[:, :])",
                "    Tx.warp.copy(A[:, :], W_s[:, :])",
            ])], row=57))
add(Program("r058_unary_subcta_warpgroup", "Row 58: warpgroup 1 of a 256-thread CTA zeroes a 128x8 fp16 tile.",
            [Kernel("wg1", [("A", (128, 8), "float16")],
                    ["T.cta_id([1])", "wg_id = T.warpgroup_id([2])", "T.warp_id_in_wg([4])", "T.lane_id([32])",
                     "T.thread_id_in_wg([128])", "T.thread_id([256])"], [
                'G_s = T.alloc_buffer((128, 8), "float16", scope="shared")',
                "if wg_id == 1:",
                "    Tx.wg.zero(G_s[:, :])",
                "    Tx.wg.copy(A[:, :], G_s[:, :])",
            ])], row=58))
add(Program("r059_unary_bias_scale", "Row 59: sqrt/exp with a scale and a constant or region bias (scale dtype = compute dtype).",
            [Kernel("bias_scale", [("A", (32, 32), "float32"), ("H", (32, 32), "float16")], ids("cta", 64), [
                'A_s = T.alloc_buffer((32, 32), "float32", scope="shared")',
                'H_s = T.alloc_buffer((32, 32), "float16", scope="shared")',
                'Bias_s = T.alloc_buffer((32, 32), "float16", scope="shared")',
                "Tx.cta.copy(A_s[:, :], A[:, :])",
                "Tx.cta.copy(H_s[:, :], H[:, :])",
                "Tx.cta.copy(Bias_s[:, :], H[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.sqrt(A_s[:, :], A_s[:, :], bias=T.float32(1.0), scale=T.float32(0.5))",
                "Tx.cta.exp(H_s[:, :], H_s[:, :], bias=Bias_s[:, :], scale=T.float16(2.0))",
                "Tx.cta.copy(A[:, :], A_s[:, :])",
                "Tx.cta.copy(H[:, :], H_s[:, :])",
            ])], row=59))
add(Program("r060_unary_local_warp_fragment", "Row 60: reciprocal/exp/exp2 on a warp register fragment (no packed impl: scalar);\nlog2 is in v_ewise_log2 (the reference release has no Tx.log2).",
            [Kernel(f"frag_{SHORT[dt]}", [("A", (32, 8), dt)], ids("warp", 32), [
                f'R = T.alloc_buffer((32, 8), "{dt}", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))',
                "Tx.warp.copy(R[:, :], A[:, :])",
                "Tx.warp.reciprocal(R[:, :], R[:, :])",
                "Tx.warp.exp(R[:, :], R[:, :])",
                "Tx.warp.exp2(R[:, :], R[:, :])",
                "Tx.warp.copy(A[:, :], R[:, :])",
            ]) for dt in ["float32", "float16"]], row=60))
for row, shape, in [(61, (128, 8)), (62, (128, 4, 16)), (63, (128, 5, 5))]:
    add(Program(f"r{row:03d}_fill_shared_{'x'.join(map(str, shape))}", f"Row {row}: fill a {'x'.join(map(str, shape))} fp16 shared tile with 7.89 at 128 threads.",
                [Kernel("fill", [("A", shape, "float16")], ids("cta", 128), [
                    f'X_s = T.alloc_buffer({shp(shape)}, "float16", scope="shared")',
                    f"Tx.cta.fill(X_s[{full(shape)}], T.float16(7.89))",
                    f"Tx.cta.copy(A[{full(shape)}], X_s[{full(shape)}])",
                ])], row=row))
add(Program("r064_fill_local_thread", "Row 64: fill thread-local tiles of shape[1:] (8), (4, 16), (5, 5).",
            [Kernel("fill_local", [("A", (128, 64), "float16")], ["T.cta_id([1])", "tid = T.thread_id([128])"], [
                'a = T.alloc_local((8,), "float16")',
                'b = T.alloc_local((4, 16), "float16")',
                'c = T.alloc_local((5, 5), "float16")',
                "Tx.fill(a[:], T.float16(7.89))",
                "Tx.fill(b[:, :], T.float16(7.89))",
                "Tx.fill(c[:, :], T.float16(7.89))",
                "Tx.copy(A[tid, 0:8], a[:])",
            ])], row=64))
add(Program("r065_unary_local_thread", "Row 65: zero/sqrt/reciprocal/exp/silu on a thread-local (32,) fp16 vector.",
            [Kernel("thread_unary", [("A", (64, 32), "float16")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float16")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.zero(x[:])",
                "Tx.sqrt(x[:], x[:])",
                "Tx.reciprocal(x[:], x[:])",
                "Tx.exp(x[:], x[:])",
                "Tx.silu(x[:], x[:])",
                "Tx.copy(A[tid, :], x[:])",
            ])], row=65))
add(Program("r066_cast_vec2_f32_to_f16", "Row 66: packed pair cast float32 -> float16 in registers.",
            [Kernel("cast_down", [("A", (64, 32), "float32"), ("B", (64, 32), "float16")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float32")',
                'y = T.alloc_local((32,), "float16")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.cast(y[:], x[:])",
                "Tx.copy(B[tid, :], y[:])",
            ])], row=66))
add(Program("r067_cast_vec2_f16_to_f32", "Row 67: packed pair cast float16 -> float32 in registers.",
            [Kernel("cast_up", [("A", (64, 32), "float16"), ("B", (64, 32), "float32")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float16")',
                'y = T.alloc_local((32,), "float32")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.cast(y[:], x[:])",
                "Tx.copy(B[tid, :], y[:])",
            ])], row=67))
add(Program("r068_exp_f16_shared", "Row 68: exp of a 64x32 fp16 shared tile at 64 threads (scalar hexp, vec 8).",
            [ewise_smem_kernel("exp_f16", 64, (64, 32), "float16",
                               ["Tx.cta.copy(X_s[:, :], A[:, :])", "T.cuda.cta_sync()", "Tx.cta.exp(X_s[:, :], X_s[:, :])"])],
            row=68))
add(Program("r069_cast_wg_local_view_reject", "Row 69: a warpgroup cast over per-thread registers (not a warpgroup-level\noperand): rejected.",
            [Kernel("wg_local", [("A", (128, 8), "float32")], ids("warpgroup", 128), [
                'x = T.alloc_local((8,), "float32")',
                'y = T.alloc_local((8,), "float16")',
                "Tx.wg.cast(y[:], x[:])",
            ])], row=69, reject=True))
add(Program("r070_binary_shared_basic", "Row 70: add/sub/mul/fdiv on 32x32 fp16 shared tiles with region and constant operands.",
            [Kernel("binary", [("A", (32, 32), "float16")], ids("cta", 64), [
                'X_s = T.alloc_buffer((32, 32), "float16", scope="shared")',
                'Y_s = T.alloc_buffer((32, 32), "float16", scope="shared")',
                "Tx.cta.copy(X_s[:, :], A[:, :])",
                "Tx.cta.copy(Y_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])",
                "Tx.cta.sub(X_s[:, :], X_s[:, :], T.float16(1.0))",
                "Tx.cta.mul(X_s[:, :], T.float16(2.0), X_s[:, :])",
                "Tx.cta.fdiv(X_s[:, :], X_s[:, :], Y_s[:, :])",
                "Tx.cta.copy(A[:, :], X_s[:, :])",
            ])], row=70))
add(Program("r071_binary_shared_offset", "Row 71: binary ops over offset 5x6x7 regions (guarded, vec 1).",
            [Kernel("offset", [("A", (16, 8, 12), "float16")], ids("cta", 64), [
                'X_s = T.alloc_buffer((16, 8, 12), "float16", scope="shared")',
                'Y_s = T.alloc_buffer((16, 8, 12), "float16", scope="shared")',
                "Tx.cta.copy(X_s[:, :, :], A[:, :, :])",
                "Tx.cta.copy(Y_s[:, :, :], A[:, :, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.add(X_s[1:6, 2:8, 3:10], X_s[1:6, 2:8, 3:10], Y_s[10:15, 0:6, 5:12])",
                "Tx.cta.mul(X_s[1:6, 2:8, 3:10], Y_s[10:15, 0:6, 5:12], T.float16(3.0))",
                "Tx.cta.copy(A[:, :, :], X_s[:, :, :])",
            ])], row=71))
add(Program("r072_binary_shared_broadcast", "Row 72: broadcast a 1x6x1 region over 5x6x7.",
            [Kernel("bcast", [("A", (16, 8, 12), "float16")], ids("cta", 64), [
                'X_s = T.alloc_buffer((16, 8, 12), "float16", scope="shared")',
                'Y_s = T.alloc_buffer((16, 8, 12), "float16", scope="shared")',
                "Tx.cta.copy(X_s[:, :, :], A[:, :, :])",
                "Tx.cta.copy(Y_s[:, :, :], A[:, :, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.add(X_s[1:6, 2:8, 3:10], X_s[1:6, 2:8, 3:10], Y_s[0:1, 0:6, 0:1])",
                "Tx.cta.mul(X_s[1:6, 2:8, 3:10], Y_s[0:1, 0:6, 0:1], X_s[1:6, 2:8, 3:10])",
                "Tx.cta.copy(A[:, :, :], X_s[:, :, :])",
            ])], row=72))
add(Program("r073_binary_const_lhs_reject", "Row 73: sub with a constant left operand: rejected.",
            [Kernel("const_lhs", [("A", (32, 32), "float16")], ids("cta", 64), [
                'X_s = T.alloc_buffer((32, 32), "float16", scope="shared")',
                "Tx.cta.sub(X_s[:, :], T.float16(1.0), X_s[:, :])",
            ])], row=73, reject=True))
add(Program("r074_binary_vectorized", "Row 74: add on 64x32 fp16 shared tiles at 64 threads (vec 8, 4 rounds).",
            [Kernel("vadd", [("A", (64, 32), "float16")], ids("cta", 64), [
                'X_s = T.alloc_buffer((64, 32), "float16", scope="shared")',
                'Y_s = T.alloc_buffer((64, 32), "float16", scope="shared")',
                "Tx.cta.copy(X_s[:, :], A[:, :])",
                "Tx.cta.copy(Y_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])",
                "Tx.cta.copy(A[:, :], X_s[:, :])",
            ])], row=74))
add(Program("r075_binary_broadcast_vectorized", "Row 75: 32x5x4 fp16 times a 32x1x4 broadcast at 32 threads (vec 4).",
            [Kernel("vbcast", [("A", (32, 5, 4), "float16"), ("Bv", (32, 1, 4), "float16")], ids("cta", 32), [
                'X_s = T.alloc_buffer((32, 5, 4), "float16", scope="shared")',
                'Y_s = T.alloc_buffer((32, 1, 4), "float16", scope="shared")',
                "Tx.cta.copy(X_s[:, :, :], A[:, :, :])",
                "Tx.cta.copy(Y_s[:, :, :], Bv[:, :, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.mul(X_s[:, :, :], X_s[:, :, :], Y_s[:, :, :])",
                "Tx.cta.copy(A[:, :, :], X_s[:, :, :])",
            ])], row=75))
add(Program("r076_binary_local_subcta", "Row 76: thread-scope adds on 4x8 fp16 registers inside narrowing ifs (region,\nbroadcast, constant right operands).",
            [Kernel("local_add", [("A", (128, 4, 8), "float16")],
                    ["T.cta_id([1])", "wid = T.warp_id([4])", "lane = T.lane_id([32])", "tid = T.thread_id([128])"], [
                'a = T.alloc_local((4, 8), "float16")',
                'b = T.alloc_local((4, 8), "float16")',
                'col = T.alloc_local((4, 1), "float16")',
                "Tx.copy(a[:, :], A[tid, :, :])",
                "Tx.copy(b[:, :], A[tid, :, :])",
                "Tx.fill(col[:, :], T.float16(-1.0))",
                "if wid == 1:",
                "    if lane < 16:",
                "        Tx.add(a[:, :], a[:, :], b[:, :])",
                "        Tx.add(a[:, :], a[:, :], col[:, :])",
                "        Tx.add(a[:, :], a[:, :], T.float16(1.0))",
                "Tx.copy(A[tid, :, :], a[:, :])",
            ])], row=76))
add(Program("r077_add_f32x2_sm100", "Row 77: f32 register add on sm_100a: packed add.rz.ftz.f32x2 (vec 2).",
            [Kernel("add_packed", [("A", (64, 32), "float32")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float32")',
                'y = T.alloc_local((32,), "float32")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.copy(y[:], A[tid, :])",
                "Tx.add(x[:], x[:], y[:])",
                "Tx.copy(A[tid, :], x[:])",
            ])], row=77, arch="sm_100a"))
add(Program("r078_add_f16_scalar", "Row 78: f16 register add has no packed impl: scalar.",
            [Kernel("add_f16", [("A", (64, 32), "float16")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float16")',
                'y = T.alloc_local((32,), "float16")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.copy(y[:], A[tid, :])",
                "Tx.add(x[:], x[:], y[:])",
                "Tx.copy(A[tid, :], x[:])",
            ])], row=78))
add(Program("r079_maximum_reg", "Row 79: maximum on a one-element f32 register tile at 128 threads.",
            [Kernel("maxreg", [("A", (128,), "float32")], ["T.cta_id([1])", "tid = T.thread_id([128])"], [
                'm = T.alloc_local((1,), "float32")',
                "Tx.copy(m[:], A[tid:tid + 1])",
                "Tx.maximum(m[:], m[:], T.float32(0.0))",
                "Tx.copy(A[tid:tid + 1], m[:])",
            ])], row=79))
add(Program("r080_fma_f32x2_sm100", "Row 80: f32 register fma on sm_100a: packed fma.rz.ftz.f32x2 (vec 2).",
            [Kernel("fma_packed", [("A", (64, 32), "float32")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float32")',
                'y = T.alloc_local((32,), "float32")',
                'z = T.alloc_local((32,), "float32")',
                'w = T.alloc_local((32,), "float32")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.copy(y[:], A[tid, :])",
                "Tx.copy(z[:], A[tid, :])",
                "Tx.fma(w[:], x[:], y[:], z[:])",
                "Tx.copy(A[tid, :], w[:])",
            ])], row=80, arch="sm_100a"))

# ---------------------------------------------------------------------------
# 6.5 copy_async -> tma
# ---------------------------------------------------------------------------


def mma(dt, mode, shape):
    return f'mma_shared_layout("{dt}", {mode}, {shp(shape)})'


add(Program("r081_tma_g2s_8x256", "Row 81: TMA load of 8x256 fp16 into the 128B-swizzled MMA layout.",
            [tma_kernel("g2s", (8, 256), "float16", (8, 256), mma("float16", 3, (8, 256)))], row=81))
add(Program("r082_tma_g2s_8x256_swizzle64", "Row 82: the 8x256 TMA load into the 64B-swizzled layout.",
            [tma_kernel("g2s", (8, 256), "float16", (8, 256), mma("float16", 2, (8, 256)))], row=82))
add(Program("r083_tma_g2s_8x256_swizzle32", "Row 83: the 8x256 TMA load into the 32B-swizzled layout.",
            [tma_kernel("g2s", (8, 256), "float16", (8, 256), mma("float16", 1, (8, 256)))], row=83))
add(Program("r084_tma_g2s_8x256_swizzle0", "Row 84: the 8x256 TMA load into the unswizzled MMA layout (PRE: row-major).",
            [tma_kernel("g2s", (8, 256), "float16", (8, 256), mma("float16", 0, (8, 256)))], row=84))
add(Program("r085_tma_g2s_8x256_8bit", "Row 85: the 8x256 TMA load of 8-bit types (128B swizzle).",
            [tma_kernel(f"g2s_{SHORT[dt]}", (8, 256), dt, (8, 256), mma(dt, 3, (8, 256)))
             for dt in ["int8", "uint8", "float8_e4m3fn", "float8_e5m2"]], row=85))
add(Program("r086_tma_g2s_8x256_fp32", "Row 86: the 8x256 TMA load of fp32 (128B swizzle).",
            [tma_kernel("g2s", (8, 256), "float32", (8, 256), mma("float32", 3, (8, 256)))], row=86))
add(Program("r087_tma_g2s_3d_shared", "Row 87: 64x256 global into slice [1:2] of a 3x64x256 swizzled shared buffer.",
            [tma_kernel("g2s", (64, 256), "float16", (3, 64, 256), mma("float16", 3, (3, 64, 256)), sreg="1:2, :, :")],
            row=87))
add(Program("r088_tma_g2s_atom_tiled", "Row 88: 32x512 into an atom layout tiled to (16,256) then (32,512): rank 5, 2 issues.",
            [tma_kernel("g2s", (32, 512), "float16", (32, 512), "ATOM")], row=88,
            consts='ATOM = mma_atom_layout("float16", 3).tile_to((16, 256), (8, 64)).tile_to((32, 512), (16, 256))'))
add(Program("r089_tma_g2s_partial_8192", "Row 89: a 128x64 corner of an 8192x8192 fp16 tensor.",
            [tma_kernel("g2s", (8192, 8192), "float16", (128, 64), mma("float16", 3, (128, 64)), greg="0:128, 0:64")],
            row=89))
add(Program("r090_tma_g2s_edge_partial_offset", "Row 90: rows [64, 88) of 128x64 into slice [0, 0] of a 2x2x24x64 swizzled tile.",
            [tma_kernel("g2s", (128, 64), "float16", (2, 2, 24, 64), mma("float16", 3, (2, 2, 24, 64)),
                        greg="64:88, :", sreg="0, 0, :, :")], row=90))
add(Program("r091_tma_g2s_3d_full_contiguous", "Row 91: a whole 4x32x64 tensor into a row-major tile.",
            [tma_kernel("g2s", (4, 32, 64), "float16", (4, 32, 64), "TileLayout(S[4, 32, 64])")], row=91))
add(Program("r092_tma_g2s_stride_gap_outer", "Row 92: 8x32x64 into S[(8,32,64):(4096,64,1)] (a gap between planes): 8 issues.",
            [tma_kernel("g2s", (8, 32, 64), "float16", (8, 32, 64), "TileLayout(S[(8, 32, 64):(4096, 64, 1)])",
                        smem_elems=8 * 4096)], row=92))
add(Program("r093_tma_g2s_4d_reorder", "Row 93: A[0:1, :, 0:1, :] of 2x128x8x64 into a 1x1x128x64 swizzled tile.",
            [tma_kernel("g2s", (2, 128, 8, 64), "float16", (1, 1, 128, 64), mma("float16", 3, (1, 1, 128, 64)),
                        greg="0:1, :, 0:1, :")], row=93))
add(Program("r094_tma_multiphase_3x8x256", "Row 94: stage 0 of a 3x8x256 tensor into an 8x256 swizzled tile, load and store.",
            [tma_kernel("g2s", (3, 8, 256), "float16", (8, 256), mma("float16", 3, (8, 256)), greg="0:1, :, :"),
             tma_kernel("s2g", (3, 8, 256), "float16", (8, 256), mma("float16", 3, (8, 256)), greg="0:1, :, :",
                        direction="s2g")], row=94))
add(Program("r095_tma_g2s_transpose_reject", "Row 95: 32x64 into a transposed tile S[(32,64):(1,32)]: PRE's planner issues one\nelement per instruction (box 1x1, 2048 issues). The descriptor breaks the\n16-byte inner-box rule, so tilels's code generator rejects the kernel; the\nwarp-scope copy_async (rejected: single thread only) keeps the CI compile gate,\nwhich compiles kernels whose calls all lower, away from it.",
            [tma_kernel("g2s", (32, 64), "float16", (32, 64), "TileLayout(S[(32, 64):(1, 32)])", companion_reject=True)],
            row=95, reject=True))
add(Program("r096_tma_g2s_non_prefix", "Row 96: A[3, 4, :, :] of a 16x16x128x128 tensor whose middle dims are permuted.",
            [tma_kernel("g2s", (16, 16, 128, 128), "float16", (128, 128), "TileLayout(S[128, 128])", greg="3, 4, :, :",
                        glayout="TileLayout(S[(16, 16, 128, 128):(131072, 128, 1024, 1)])")], row=96))
add(Program("r097_tma_g2s_oob_nan", "Row 97: rows [120, 136) of a 128-row tensor with oob=\"nan\".",
            [tma_kernel("g2s", (128, 64), "float16", (16, 64), mma("float16", 3, (16, 64)), greg="120:136, :",
                        extra_cfg='oob="nan"')], row=97))
add(Program("r098_tma_fa4_q_reject", "Row 98: a 32x4x128 region of a 1x2048x32x128 tensor into a 128x128 tile: the\nregion shapes differ, so validate_copy_op rejects it (the PRE golden calls the\nplanner directly).",
            [tma_kernel("g2s", (1, 2048, 32, 128), "float16", (2, 128, 128), mma("float16", 3, (2, 128, 128)),
                        greg="0:1, 0:32, 0:4, :", sreg="0:1, :, :")], row=98, reject=True))
add(Program("r099_tma_s2g_multiphase_fp32", "Row 99: TMA store of an 8x256 fp32 swizzled tile into stage 0 of 3x8x256.",
            [tma_kernel("s2g", (3, 8, 256), "float32", (8, 256), mma("float32", 3, (8, 256)), greg="0:1, :, :",
                        direction="s2g")], row=99))
add(Program("r100_tma_oob_reject", "Row 100: an unknown oob mode and oob=\"nan\" on int8 are rejected.",
            [tma_kernel("bogus", (128, 64), "float16", (16, 64), mma("float16", 3, (16, 64)), greg="0:16, :",
                        extra_cfg='oob="bogus"'),
             tma_kernel("nan_int8", (128, 128), "int8", (16, 128), mma("int8", 3, (16, 128)), greg="0:16, :",
                        extra_cfg='oob="nan"')], row=100, reject=True))

# ---------------------------------------------------------------------------
# Variations
# ---------------------------------------------------------------------------

add(Program("v_gs_bf16_warp_64x64", "Variation: bf16 warp copy 64x64.",
            [gs_roundtrip("bf16", "warp", 32, (64, 64), "bfloat16")]))
add(Program("v_gs_fp8_cta_64x128", "Variation: fp8 (e5m2 and e4m3) at cta scope, 128 threads, 64x128.",
            [gs_roundtrip(f"fp8_{SHORT[dt]}", "cta", 128, (64, 128), dt) for dt in ["float8_e5m2", "float8_e4m3fn"]]))
add(Program("v_gs_int8_wg_offset", "Variation: int8 warpgroup copy of rows [64, 128) of a 256x128 tensor.",
            [gs_roundtrip("i8", "warpgroup", 128, (256, 128), "int8", sshape=(64, 128), greg="64:128, :")]))
add(Program("v_gs_region_offsets", "Variation: region offsets that keep 8, 4 and 2-wide fp16 vectors.",
            [gs_roundtrip("off72", "warp", 32, (64, 64), "float16", sshape=(32, 32), greg="1:33, 8:40"),
             gs_roundtrip("off4", "warp", 32, (64, 64), "float16", sshape=(32, 32), greg="0:32, 4:36"),
             gs_roundtrip("off2", "warp", 32, (64, 64), "float16", sshape=(32, 32), greg="0:32, 2:34")]))
add(Program("v_gs_shared_offset", "Variation: the shared side is a region of a bigger tile.",
            [gs_roundtrip("soff", "cta", 128, (32, 32), "float32", sshape=(64, 64), sreg="16:48, 32:64"),
             gs_roundtrip("soff_odd", "cta", 128, (32, 32), "float16", sshape=(64, 64), sreg="16:48, 1:33")]))
add(Program("v_gs_odd_sizes", "Variation: odd sizes: 7x9 at a warp and 3x100 at 128 threads fall back; one thread\ncopies 5x7 int8 with scalar accesses.",
            [gs_roundtrip("w7x9", "warp", 32, (7, 9), "float32"),
             gs_roundtrip("c3x100", "cta", 128, (3, 100), "float16"),
             gs_roundtrip("t5x7", "thread", 1, (5, 7), "int8")]))
add(Program("v_gs_swizzle_modes", "Variation: 32B, 64B and 128B-swizzled MMA layouts at 128 threads.",
            [gs_roundtrip(f"swz{m}", "cta", 128, (64, 64), "float16", slayout=mma("float16", m, (64, 64))) for m in (1, 2, 3)]))
add(Program("v_gs_swizzle_f32_i8", "Variation: 64B-swizzled fp32 at a warp and 128B-swizzled int8 at a warpgroup.",
            [gs_roundtrip("f32_64b", "warp", 32, (32, 32), "float32", slayout=mma("float32", 2, (32, 32))),
             gs_roundtrip("i8_128b", "warpgroup", 128, (64, 128), "int8", slayout=mma("int8", 3, (64, 128)))]))
add(Program("v_gs_transposed", "Variation: transposed shared tiles: scalar accesses, fp32 and fp16.",
            [gs_roundtrip("t_f32", "cta", 128, (32, 32), "float32", slayout="TileLayout(S[(32, 32):(1, 32)])"),
             gs_roundtrip("t_f16", "warp", 32, (16, 64), "float16", slayout="TileLayout(S[(16, 64):(1, 16)])")]))
add(Program("v_gs_permuted_3d", "Variation: a 3-D shared tile whose two outer dims are swapped.",
            [gs_roundtrip("perm3", "cta", 64, (4, 8, 16), "float16", slayout="TileLayout(S[(4, 8, 16):(16, 64, 1)])")]))
add(Program("v_gs_narrowed", "Variation: a warp copy inside `if wid == 1` keeps the fast path; cta copies inside\n`if tid < 64`, `if 0 <= tid and tid < 64` and `if wid < 2` are narrowed and fall back.",
            [gs_roundtrip("warp1", "warp", 128, (32, 32), "float32", narrow="wid == 1"),
             gs_roundtrip("half_cta", "cta", 128, (32, 32), "float32", narrow="tid < 64"),
             gs_roundtrip("half_cta_2sided", "cta", 128, (32, 32), "float32", narrow="0 <= tid and tid < 64"),
             gs_roundtrip("two_warps", "cta", 128, (32, 32), "float32", narrow="wid < 2")]))
add(Program("v_reg_bf16_warp16", "Variation: bf16 warp registers S[(32,16):(1@laneid,1)].",
            [reg_kernel("bf16", "warp", 32, 16, "bfloat16", "S[(32, 16):(1 @ laneid, 1)]")]))
add(Program("v_reg_cta_k4", "Variation: 256 threads each hold 4 fp32 registers.",
            [reg_kernel("k4", "cta", 256, 4, "float32", "S[(256, 4):(1 @ tx, 1)]")]))
add(Program("v_reg_lane_stride2", "Variation: lanes own alternate row pairs (thread stride 2 on laneid).",
            [Kernel("lane2", [("A", (32, 8), "float16")], ids("warp", 32), [
                'A_s = T.alloc_buffer((32, 8), "float16", scope="shared")',
                'R = T.alloc_buffer((32, 8), "float16", scope="local", layout=TileLayout(S[(16, 2, 8):(2 @ laneid, 1 @ laneid, 1)]))',
                "Tx.warp.copy(A_s[:, :], A[:, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.copy(R[:, :], A_s[:, :])",
                "Tx.warp.copy(A_s[:, :], R[:, :])",
            ])]))
add(Program("v_reg_global_offset", "Variation: warp registers <-> a region of global memory at a row offset.",
            [Kernel("goff", [("A", (96, 16), "float16")], ids("warp", 32), [
                'R = T.alloc_buffer((32, 16), "float16", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))',
                "Tx.warp.copy(R[:, :], A[32:64, :])",
                "Tx.warp.copy(A[64:96, :], R[:, :])",
            ])]))
add(Program("v_reg_wg_swizzle64", "Variation: warpgroup registers <-> a 64B-swizzled fp16 tile.",
            [Kernel("wg64", [("A", (128, 32), "float16")], ids("warpgroup", 128), [
                'A_s = T.alloc_buffer((128, 32), "float16", scope="shared", layout=mma_shared_layout("float16", 2, (128, 32)))',
                'R = T.alloc_buffer((128, 32), "float16", scope="local", layout=TileLayout(S[(128, 32):(1 @ tid_in_wg, 1)]))',
                "Tx.wg.copy(R[:, :], A[:, :])",
                "Tx.wg.copy(A_s[:, :], R[:, :])",
                "T.cuda.warpgroup_sync(8)",
                "Tx.wg.copy(R[:, :], A_s[:, :])",
                "Tx.wg.copy(A[:, :], R[:, :])",
            ])]))
add(Program("v_reg_thread_row", "Variation: a thread copies one shared row to and from 8 registers.",
            [Kernel("row", [("A", (8, 8), "float32")], ["T.cta_id([1])", "T.thread_id([1])"], [
                'A_s = T.alloc_buffer((8, 8), "float32", scope="shared")',
                'L = T.alloc_local((8,), "float32")',
                "Tx.copy(A_s[:, :], A[:, :])",
                "Tx.copy(L[:], A_s[3, 0:8])",
                "Tx.copy(A_s[5, 0:8], L[:])",
                "Tx.copy(A[:, :], A_s[:, :])",
            ])]))
add(Program("v_ldstmatrix_fragments", "Variation: m16n8k16-style fp16 register fragments through ldmatrix/stmatrix.",
            [Kernel("frag", [("A", (16, 32), "float16")], ids("warp", 32), [
                'A_s = T.alloc_buffer((16, 32), "float16", scope="shared")',
                'a = T.alloc_buffer((16, 32), "float16", scope="local", layout=TileLayout(S[(2, 8, 4, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))',
                "Tx.warp.copy(A_s[:, :], A[:, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.copy(a[:, :], A_s[:, :])",
                "Tx.warp.copy(A_s[:, :], a[:, :])",
            ])]))
add(Program("v_ldstmatrix_swizzled", "Variation: bf16 fragments from a 128B-swizzled 16x64 tile.",
            [Kernel("frag_swz", [("B", (16, 64), "bfloat16")], ids("warp", 32), [
                'B_s = T.alloc_buffer((16, 64), "bfloat16", scope="shared", layout=mma_shared_layout("bfloat16", 3, (16, 64)))',
                'b = T.alloc_buffer((16, 64), "bfloat16", scope="local", layout=TileLayout(S[(2, 8, 8, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))',
                "Tx.warp.copy(B_s[:, :], B[:, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.copy(b[:, :], B_s[:, :])",
                "Tx.warp.copy(B_s[:, :], b[:, :])",
            ])]))
add(Program("v_tma_multi_issue", "Variation: TMA loads with issue loops: planes with a gap (fp32) and a transposed\nbf16 tile.",
            [tma_kernel("gap_f32", (4, 16, 32), "float32", (4, 16, 32), "TileLayout(S[(4, 16, 32):(1024, 32, 1)])",
                        smem_elems=4 * 1024),
             ]))
add(Program("v_tma_transposed_bf16_reject", "Variation: a transposed bf16 TMA load (2-byte boxes, 256 issues): the plan both\ntools compute breaks the 16-byte inner-box rule; see r095 for the companion\nrejected call.",
            [tma_kernel("t_bf16", (16, 16), "bfloat16", (16, 16), "TileLayout(S[(16, 16):(1, 16)])", companion_reject=True)],
            reject=True))
add(Program("v_tma_promote_u8", "Variation: a 4x200 uint8 tensor: its 200-byte row stride is not 16-byte aligned,\nthe merged box (800) exceeds 256 uint8 elements, so the planner promotes the\nelement type to merge the rows into one dimension.",
            [tma_kernel("u8_rows", (4, 200), "uint8", (4, 200), "TileLayout(S[4, 200])")]))
add(Program("v_tma_s2g_bf16", "Variation: TMA stores of bf16 tiles (128B and 64B swizzle).",
            [tma_kernel("s2g128", (64, 64), "bfloat16", (64, 64), mma("bfloat16", 3, (64, 64)), direction="s2g"),
             tma_kernel("s2g64", (64, 64), "bfloat16", (64, 64), mma("bfloat16", 2, (64, 64)), direction="s2g")]))
add(Program("v_tma_offset_region", "Variation: a 64x64 tile at rows [32, 96) and columns [64, 128) of 256x256.",
            [tma_kernel("g2s", (256, 256), "float16", (64, 64), mma("float16", 3, (64, 64)), greg="32:96, 64:128")]))
add(Program("v_tma_same_descriptor", "Variation: two loads through the same descriptor (one host encode).",
            [Kernel("twice", [("A", (64, 64), "float16")], ["T.cta_id([1])", "tid = T.thread_id([128])"], [
                'dyn = T.alloc_buffer([16384 + 64], "uint8", scope="shared.dyn")',
                'A_s = T.decl_buffer((2, 32, 64), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (2, 32, 64)))',
                'bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=16384 // 8)',
                "if tid == 0:",
                "    T.ptx.mbarrier.init(bar.ptr_to([0]), 1)",
                'T.ptx.fence.proxy_async("shared::cta")',
                "T.cuda.cta_sync()",
                "if tid == 0:",
                '    Tx.copy_async(A_s[0:1, :, :], A[0:32, :], dispatch="tma", mbar=bar.ptr_to([0]))',
                '    Tx.copy_async(A_s[1:2, :, :], A[32:64, :], dispatch="tma", mbar=bar.ptr_to([0]))',
                "    T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 8192)",
                "T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)",
            ])]))


def ldgsts_kernel(name, scope, n, gshape, dtype, sshape=None, greg=None, sreg=None, slayout=None):
    sshape = sshape or gshape
    greg = greg or full(gshape)
    sreg = sreg or full(sshape)
    slay = slayout or f"TileLayout(S[{shp(sshape)[1:-1].rstrip(',')}])"
    return Kernel(name, [("A", gshape, dtype)], ids(scope, n), [
        f'A_s = T.alloc_buffer({shp(sshape)}, "{dtype}", scope="shared", layout={slay})',
        f"{PREFIX[scope]}copy_async(A_s[{sreg}], A[{greg}])",
        "T.ptx.cp_async.commit_group()",
        "T.ptx.cp_async.wait_group(0)",
        "T.cuda.cta_sync()",
        f"{PREFIX[scope]}copy(A[{greg}], A_s[{sreg}])",
    ])


add(Program("v_ldgsts_scopes", "Variation: cp.async (ldgsts) at warp, warpgroup, cta and thread scope.",
            [ldgsts_kernel("warp_f32", "warp", 32, (32, 32), "float32"),
             ldgsts_kernel("wg_bf16", "warpgroup", 128, (128, 64), "bfloat16"),
             ldgsts_kernel("cta_i8", "cta", 256, (64, 64), "int8"),
             ldgsts_kernel("thread_f16", "thread", 1, (8, 8), "float16")]))
add(Program("v_ldgsts_offsets", "Variation: cp.async with region offsets: 16-byte, 8-byte and 4-byte chunks.",
            [ldgsts_kernel("off16", "cta", 128, (64, 64), "float16", sshape=(32, 32), greg="8:40, 16:48"),
             ldgsts_kernel("off4", "cta", 128, (64, 64), "float16", sshape=(32, 32), greg="8:40, 4:36"),
             ldgsts_kernel("off_f32", "cta", 128, (64, 64), "float32", sshape=(32, 32), greg="8:40, 1:33")]))
add(Program("v_ldgsts_swizzled", "Variation: cp.async into a 128B-swizzled fp16 tile.",
            [ldgsts_kernel("swz", "cta", 128, (64, 64), "float16", slayout=mma("float16", 3, (64, 64)))]))
add(Program("v_ldgsts_odd_reject", "Variation: an fp16 region starting one element off has no 4-byte chunk: ldgsts\ndeclines and no other copy_async variant applies at cta scope.",
            [ldgsts_kernel("odd", "cta", 128, (64, 64), "float16", sshape=(32, 32), greg="8:40, 1:33")], reject=True))


def ewise_kernel(name, n, shape, dtypes, lines, scope="cta", params=None):
    body = []
    for i, dt in enumerate(dtypes):
        body.append(f'{"XYZW"[i]}_s = T.alloc_buffer({shp(shape)}, "{dt}", scope="shared")')
    for i, dt in enumerate(dtypes):
        body.append(f"{PREFIX[scope]}copy({'XYZW'[i]}_s[{full(shape)}], {'ABCD'[i]}[{full(shape)}])")
    body.append("T.cuda.cta_sync()" if scope == "cta" else sync(scope))
    body += lines
    body.append(f"{PREFIX[scope]}copy(A[{full(shape)}], X_s[{full(shape)}])")
    return Kernel(name, [("ABCD"[i], shape, dt) for i, dt in enumerate(dtypes)], ids(scope, n), body)


add(Program("v_ewise_bf16_shared", "Variation: bf16 add/mul in shared memory at 128 threads.",
            [ewise_kernel("bf16", 128, (64, 64), ["bfloat16", "bfloat16"],
                          ["Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])", "Tx.cta.mul(X_s[:, :], X_s[:, :], T.bfloat16(0.5))"])]))
add(Program("v_ewise_f32_shared_math", "Variation: exp2/log2/reciprocal/silu on fp32 shared tiles.",
            [ewise_kernel("f32math", 256, (32, 64), ["float32"],
                          ["Tx.cta.exp2(X_s[:, :], X_s[:, :])",
                           "Tx.cta.reciprocal(X_s[:, :], X_s[:, :])", "Tx.cta.silu(X_s[:, :], X_s[:, :])"])]))
add(Program("v_ewise_log2", "Variation: log2 on a warp register fragment and on an fp32 shared tile.",
            [Kernel("frag", [("A", (32, 8), "float32")], ids("warp", 32), [
                'R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))',
                "Tx.warp.copy(R[:, :], A[:, :])",
                "Tx.warp.log2(R[:, :], R[:, :])",
                "Tx.warp.copy(A[:, :], R[:, :])",
            ]),
             ewise_kernel("shared", 256, (32, 64), ["float32"], ["Tx.cta.log2(X_s[:, :], X_s[:, :])"])]))
add(Program("v_ewise_fma_shared", "Variation: fma with region and scalar operands in shared memory.",
            [ewise_kernel("fma", 128, (32, 32), ["float32", "float32"],
                          ["Tx.cta.fma(X_s[:, :], X_s[:, :], Y_s[:, :], T.float32(1.0))",
                           "Tx.cta.fma(X_s[:, :], X_s[:, :], T.float32(2.0), Y_s[:, :])"])]))
add(Program("v_ewise_casts_shared", "Variation: casts between fp32, fp16 and bf16 in shared memory.",
            [ewise_kernel("casts", 128, (32, 32), ["float32", "float16", "bfloat16"],
                          ["Tx.cta.cast(Y_s[:, :], X_s[:, :])", "Tx.cta.cast(Z_s[:, :], X_s[:, :])",
                           "Tx.cta.cast(X_s[:, :], Y_s[:, :])", "Tx.cta.cast(X_s[:, :], Z_s[:, :])"])]))
add(Program("v_ewise_warp_wg_shared", "Variation: warp and warpgroup elementwise on shared tiles.",
            [ewise_kernel("warp", 32, (32, 16), ["float16"], ["Tx.warp.reciprocal(X_s[:, :], X_s[:, :])",
                                                               "Tx.warp.fill(X_s[:, :], T.float16(1.5))"], scope="warp"),
             ewise_kernel("wg", 128, (128, 16), ["float32", "float32"], ["Tx.wg.sub(X_s[:, :], X_s[:, :], Y_s[:, :])",
                                                                          "Tx.wg.maximum(X_s[:, :], X_s[:, :], Y_s[:, :])"], scope="warpgroup")]))
add(Program("v_ewise_thread_shared", "Variation: one thread scales a shared row slice.",
            [Kernel("row", [("A", (8, 32), "float16")], ["T.cta_id([1])", "T.thread_id([1])"], [
                'X_s = T.alloc_buffer((8, 32), "float16", scope="shared")',
                "Tx.copy(X_s[:, :], A[:, :])",
                "Tx.mul(X_s[2, :], X_s[2, :], T.float16(3.0))",
                "Tx.copy(A[:, :], X_s[:, :])",
            ])]))
add(Program("v_ewise_reg_fragments", "Variation: elementwise on register fragments at warp, warpgroup and cta scope.",
            [Kernel("frags", [("A", (32, 8), "float32"), ("B", (128, 8), "float16"), ("C", (256, 4), "float32")],
                    ["T.cta_id([1])", "T.warpgroup_id([2])", "T.warp_id_in_wg([4])", "T.warp_id([8])", "T.lane_id([32])",
                     "T.thread_id_in_wg([128])", "T.thread_id([256])"], [
                'Rw = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))',
                'Rg = T.alloc_buffer((128, 8), "float16", scope="local", layout=TileLayout(S[(128, 8):(1 @ tid_in_wg, 1)]))',
                'Rc = T.alloc_buffer((256, 4), "float32", scope="local", layout=TileLayout(S[(256, 4):(1 @ tx, 1)]))',
                "Tx.warp.copy(Rw[:, :], A[:, :])",
                "Tx.warp.add(Rw[:, :], Rw[:, :], Rw[:, :])",
                "Tx.wg.copy(Rg[:, :], B[:, :])",
                "Tx.wg.mul(Rg[:, :], Rg[:, :], T.float16(2.0))",
                "Tx.cta.copy(Rc[:, :], C[:, :])",
                "Tx.cta.sqrt(Rc[:, :], Rc[:, :])",
                "Tx.cta.copy(C[:, :], Rc[:, :])",
            ])]))
add(Program("v_ewise_reg_packed_sm100", "Variation: packed f32x2 on sm_100a for sub/mul and a warp fragment add.",
            [Kernel("packed", [("A", (32, 8), "float32")], ids("warp", 32), [
                'Rw = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))',
                'x = T.alloc_local((16,), "float32")',
                "Tx.warp.copy(Rw[:, :], A[:, :])",
                "Tx.warp.add(Rw[:, :], Rw[:, :], Rw[:, :])",
                "Tx.copy(x[0:8], A[0, :])",
                "Tx.copy(x[8:16], A[1, :])",
                "Tx.sub(x[:], x[:], x[:])",
                "Tx.mul(x[:], x[:], T.float32(2.0))",
                "Tx.copy(A[0, :], x[0:8])",
                "Tx.warp.copy(A[:, :], Rw[:, :])",
            ])], arch="sm_100a"))
add(Program("v_ewise_odd_sizes", "Variation: odd elementwise sizes at 96 threads: 7x13 fp16 and 3x5x7 fp32.",
            [ewise_kernel("odd16", 96, (7, 13), ["float16"], ["Tx.cta.sqrt(X_s[:, :], X_s[:, :])"]),
             ewise_kernel("odd32", 96, (3, 5, 7), ["float32"], ["Tx.cta.exp(X_s[:, :, :], X_s[:, :, :])"])]))
add(Program("v_ewise_transposed_operand", "Variation: add of a row-major and a transposed fp16 tile.",
            [Kernel("tpose", [("A", (32, 32), "float16")], ids("cta", 128), [
                'X_s = T.alloc_buffer((32, 32), "float16", scope="shared")',
                'Y_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[(32, 32):(1, 32)]))',
                "Tx.cta.copy(X_s[:, :], A[:, :])",
                "Tx.cta.copy(Y_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])",
                "Tx.cta.copy(A[:, :], X_s[:, :])",
            ])]))


# More layouts and narrowing, aimed at the corners of the algorithms.
add(Program("v_gs_global_colmajor", "Variation: a column-major global tensor drives the partition order.",
            [gs_roundtrip("colmajor", "cta", 128, (64, 64), "float16", glayout="TileLayout(S[(64, 64):(1, 64)])")]))
add(Program("v_gs_3d_offsets", "Variation: a 3-D region with offsets in every dimension.",
            [gs_roundtrip("off3d", "warp", 32, (4, 16, 64), "float16", sshape=(2, 8, 32), greg="1:3, 4:12, 8:40")]))
add(Program("v_gs_swizzle_region", "Variation: regions of swizzled tiles: a row band and a column band.",
            [gs_roundtrip("rows", "warp", 32, (16, 64), "float16", sshape=(32, 64), sreg="8:24, :",
                          slayout=mma("float16", 3, (32, 64))),
             gs_roundtrip("cols", "cta", 64, (32, 64), "float16", sshape=(32, 256), sreg=":, 64:128",
                          slayout=mma("float16", 3, (32, 256))),
             gs_roundtrip("thread_cols", "thread", 1, (8, 64), "float32", sshape=(8, 128), sreg=":, 32:96",
                          slayout=mma("float32", 3, (8, 128)))]))
add(Program("v_reg_permuted_regs", "Variation: register fragments whose register order is permuted or split over\ntwo thread iters.",
            [Kernel("perm", [("A", (32, 8), "float32")], ids("warp", 32), [
                'A_s = T.alloc_buffer((32, 8), "float32", scope="shared")',
                'R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 4, 2):(1 @ laneid, 1, 4)]))',
                "Tx.warp.copy(A_s[:, :], A[:, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.copy(R[:, :], A_s[:, :])",
                "Tx.warp.copy(A[:, :], R[:, :])",
            ]),
             Kernel("two_iters", [("A", (256, 4), "float16")], ids("cta", 256), [
                 'A_s = T.alloc_buffer((256, 4), "float16", scope="shared")',
                 'R = T.alloc_buffer((256, 4), "float16", scope="local", layout=TileLayout(S[(8, 32, 4):(32 @ tx, 1 @ tx, 1)]))',
                 "Tx.cta.copy(A_s[:, :], A[:, :])",
                 "T.cuda.cta_sync()",
                 "Tx.cta.copy(R[:, :], A_s[:, :])",
                 "Tx.cta.copy(A[:, :], R[:, :])",
             ]),
             Kernel("odd_k", [("A", (32, 3), "float32")], ids("warp", 32), [
                 'R = T.alloc_buffer((32, 3), "float32", scope="local", layout=TileLayout(S[(32, 3):(1 @ laneid, 1)]))',
                 "Tx.warp.copy(R[:, :], A[:, :])",
                 "Tx.warp.copy(A[:, :], R[:, :])",
             ])]))
add(Program("v_reg_swizzle_chunk_cap", "Variation: fp32 registers into a swizzle with a 2-element chunk (the register\npath's vector cap at the swizzle chunk).",
            [Kernel("cap", [("A", (32, 16), "float32")], ids("warp", 32), [
                'A_s = T.alloc_buffer((32, 16), "float32", scope="shared", layout=ComposeLayout(SwizzleLayout(1, 3, 3), TileLayout(S[32, 16])))',
                'R = T.alloc_buffer((32, 16), "float32", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))',
                "Tx.warp.copy(R[:, :], A[:, :])",
                "Tx.warp.copy(A_s[:, :], R[:, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.copy(R[:, :], A_s[:, :])",
                "Tx.warp.copy(A[:, :], R[:, :])",
            ])]))
add(Program("v_slice_wraparound", "Variation: a region that straddles the last digit of a three-iter layout group\n(the Slice wrap-around case).",
            [Kernel("wrap", [("A", (24,), "float32", "TileLayout(S[(3, 2, 4):(40, 100, 1)])")],
                    ["T.cta_id([1])", "T.thread_id([1])"], [
                'L = T.alloc_local((2,), "float32")',
                "Tx.copy(L[:], A[15:17])",
                "Tx.copy(A[4:6], L[:])",
            ])]))
add(Program("v_ewise_packed_layouts", "Variation: packed casts and f32x2 adds into row-major and transposed shared\ntiles (the packed contiguity check).",
            [Kernel("cast_t", [("A", (32, 32), "float32"), ("B", (32, 32), "float16")], ids("cta", 128), [
                'A_s = T.alloc_buffer((32, 32), "float32", scope="shared")',
                'B_s = T.alloc_buffer((32, 32), "float16", scope="shared", layout=TileLayout(S[(32, 32):(1, 32)]))',
                'C_s = T.alloc_buffer((32, 32), "bfloat16", scope="shared")',
                "Tx.cta.copy(A_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.cast(B_s[:, :], A_s[:, :])",
                "Tx.cta.cast(C_s[:, :], A_s[:, :])",
                "Tx.cta.cast(A_s[:, :], C_s[:, :])",
                "Tx.cta.copy(B[:, :], B_s[:, :])",
            ])]))
add(Program("v_ewise_packed_sm100_shared", "Variation: f32x2 add in shared memory on sm_100a, row-major and transposed.",
            [Kernel("add2", [("A", (32, 32), "float32")], ids("cta", 128), [
                'X_s = T.alloc_buffer((32, 32), "float32", scope="shared")',
                'Y_s = T.alloc_buffer((32, 32), "float32", scope="shared", layout=TileLayout(S[(32, 32):(1, 32)]))',
                "Tx.cta.copy(X_s[:, :], A[:, :])",
                "Tx.cta.copy(Y_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.add(X_s[:, :], X_s[:, :], X_s[:, :])",
                "Tx.cta.add(Y_s[:, :], Y_s[:, :], Y_s[:, :])",
                "Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])",
                "Tx.cta.copy(A[:, :], X_s[:, :])",
            ])], arch="sm_100a"))
add(Program("v_fallback_narrowed", "Variation: fallback elections in narrowed scopes: warpgroup 1, lanes [16, 32),\nwarp 3.",
            [Kernel("elect", [("A", (4, 6), "float32")],
                    ["T.cta_id([1])", "wg = T.warpgroup_id([2])", "T.warp_id_in_wg([4])", "wid = T.warp_id([8])",
                     "lane = T.lane_id([32])", "T.thread_id_in_wg([128])", "T.thread_id([256])"], [
                'A_s = T.alloc_buffer((4, 6), "float32", scope="shared")',
                "if wg == 1:",
                "    Tx.wg.copy(A_s[:, :], A[:, :])",
                "if 16 <= lane:",
                "    Tx.warp.copy(A_s[:, :], A[:, :])",
                "T.cuda.cta_sync()",
                "if wid == 3:",
                "    Tx.cta.copy(A[:, :], A_s[:, :])",
            ])]))
add(Program("v_ldgsts_swizzle_chunk", "Variation: cp.async of int8 into swizzles with 4- and 16-byte chunks.",
            [ldgsts_kernel("chunk4", "cta", 128, (64, 64), "int8",
                           slayout="ComposeLayout(SwizzleLayout(2, 3, 3), TileLayout(S[64, 64]))"),
             ldgsts_kernel("chunk16", "cta", 128, (64, 128), "int8", slayout=mma("int8", 3, (64, 128)))]))


# Probes: loop-variable regions, views, odd thread counts, forced variants.
add(Program("v_loop_regions", "Variation: region starts that depend on a loop variable (copy, registers,\nelementwise, cp.async).",
            [Kernel("tiles", [("A", (128, 64), "float16")], ids("warp", 32), [
                'A_s = T.alloc_buffer((32, 64), "float16", scope="shared")',
                'R = T.alloc_buffer((32, 16), "float16", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))',
                "for i in range(4):",
                "    Tx.warp.copy(A_s[:, :], A[i * 32:i * 32 + 32, :])",
                "    T.cuda.warp_sync()",
                "    for j in range(4):",
                "        Tx.warp.copy(R[:, :], A_s[:, j * 16:j * 16 + 16])",
                "        Tx.warp.copy(A[i * 32:i * 32 + 32, j * 16:j * 16 + 16], R[:, :])",
            ]),
             Kernel("ewise_rows", [("A", (64, 64), "float32")], ids("cta", 128), [
                 'A_s = T.alloc_buffer((64, 64), "float32", scope="shared")',
                 "Tx.cta.copy(A_s[:, :], A[:, :])",
                 "T.cuda.cta_sync()",
                 "for k in range(4):",
                 "    Tx.cta.mul(A_s[k * 16:k * 16 + 16, :], A_s[k * 16:k * 16 + 16, :], T.float32(2.0))",
                 "Tx.cta.copy(A[:, :], A_s[:, :])",
             ]),
             Kernel("async_rows", [("A", (256, 64), "float16")], ids("cta", 128), [
                 'A_s = T.alloc_buffer((64, 64), "float16", scope="shared")',
                 "for k in range(4):",
                 "    Tx.cta.copy_async(A_s[:, :], A[k * 64:k * 64 + 64, :])",
                 "    T.ptx.cp_async.commit_group()",
                 "    T.ptx.cp_async.wait_group(0)",
                 "    T.cuda.cta_sync()",
                 "    Tx.cta.copy(A[k * 64:k * 64 + 64, :], A_s[:, :])",
             ])]))
add(Program("v_decl_views", "Variation: shared tiles declared as views of a dynamic arena at element offsets.",
            [Kernel("views", [("A", (64, 64), "float16"), ("B", (32, 32), "float32")], ids("cta", 128), [
                'dyn = T.alloc_buffer([16384], "uint8", scope="shared.dyn")',
                'A_s = T.decl_buffer((64, 64), "float16", dyn.data, elem_offset=0)',
                'B_s = T.decl_buffer((32, 32), "float32", dyn.data, elem_offset=2048)',
                "Tx.cta.copy(A_s[:, :], A[:, :])",
                "Tx.cta.copy(B_s[:, :], B[:, :])",
                "T.cuda.cta_sync()",
                "Tx.cta.exp(B_s[:, :], B_s[:, :])",
                "Tx.cta.copy(A[:, :], A_s[:, :])",
                "Tx.cta.copy(B[:, :], B_s[:, :])",
            ])]))
add(Program("v_odd_thread_counts", "Variation: 96- and 160-thread CTAs (whole warps, not powers of two).",
            [gs_roundtrip("t96", "cta", 96, (96, 32), "float16"),
             gs_roundtrip("t160", "cta", 160, (160, 8), "float32"),
             ewise_kernel("e96", 96, (96, 16), ["float16"], ["Tx.cta.sqrt(X_s[:, :], X_s[:, :])"])]))
add(Program("v_two_warpgroups", "Variation: warpgroup-scope copies and registers in a 256-thread CTA.",
            [gs_roundtrip("wg2", "warpgroup", 256, (128, 64), "float16"),
             reg_kernel("wg2_reg", "warpgroup", 256, 16, "float32", "S[(128, 16):(1 @ tid_in_wg, 1)]")]))
add(Program("v_more_dtypes", "Variation: int32, uint16 and float64 copies and an int32 add.",
            [gs_roundtrip("i32", "warp", 32, (32, 16), "int32"),
             gs_roundtrip("u16", "cta", 64, (64, 32), "uint16"),
             gs_roundtrip("f64", "warp", 32, (16, 16), "float64"),
             ewise_kernel("i32_add", 64, (32, 32), ["int32", "int32"], ["Tx.cta.add(X_s[:, :], X_s[:, :], Y_s[:, :])"])]))
add(Program("v_forced_variants", "Variation: forced fallback, reg, smem and vec_auto variants.",
            [Kernel("forced", [("A", (32, 32), "float32")], ids("warp", 32), [
                'A_s = T.alloc_buffer((32, 32), "float32", scope="shared")',
                'R = T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32):(1 @ laneid, 1)]))',
                'Tx.warp.copy(A_s[:, :], A[:, :], dispatch="fallback")',
                "T.cuda.warp_sync()",
                'Tx.warp.copy(R[:, :], A_s[:, :], dispatch="reg")',
                'Tx.warp.exp(A_s[:, :], A_s[:, :], dispatch="smem")',
                'Tx.warp.copy(A[:, :], A_s[:, :], dispatch="vec_auto")',
            ])]))
add(Program("v_warp_scope_multiwarp", "Variation: warp-scope elementwise and copies in a 4-warp CTA, each warp on\nits own slice.",
            [Kernel("per_warp", [("A", (128, 32), "float16")],
                    ["T.cta_id([1])", "wid = T.warp_id([4])", "T.lane_id([32])", "T.thread_id([128])"], [
                'A_s = T.alloc_buffer((128, 32), "float16", scope="shared")',
                "Tx.warp.copy(A_s[wid * 32:wid * 32 + 32, :], A[wid * 32:wid * 32 + 32, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.sqrt(A_s[wid * 32:wid * 32 + 32, :], A_s[wid * 32:wid * 32 + 32, :])",
                "Tx.warp.copy(A[wid * 32:wid * 32 + 32, :], A_s[wid * 32:wid * 32 + 32, :])",
            ])]))

add(Program("v_ldstmatrix_loop_region", "Variation: ldmatrix/stmatrix between a register fragment and shared column\nblocks chosen by a loop variable (row-major and 128B-swizzled tiles).",
            [Kernel("cols", [("A", (16, 64), "float16")], ids("warp", 32), [
                'A_s = T.alloc_buffer((16, 64), "float16", scope="shared")',
                'a = T.alloc_buffer((16, 32), "float16", scope="local", layout=TileLayout(S[(2, 8, 4, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))',
                "Tx.warp.copy(A_s[:, :], A[:, :])",
                "T.cuda.warp_sync()",
                "for j in range(2):",
                "    Tx.warp.copy(a[:, :], A_s[:, j * 32:j * 32 + 32])",
                "    Tx.warp.copy(A_s[:, j * 32:j * 32 + 32], a[:, :])",
                "T.cuda.warp_sync()",
                "Tx.warp.copy(A[:, :], A_s[:, :])",
            ]),
             Kernel("cols_swz", [("A", (16, 64), "float16")], ids("warp", 32), [
                 'A_s = T.alloc_buffer((16, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (16, 64)))',
                 'a = T.alloc_buffer((16, 16), "float16", scope="local", layout=TileLayout(S[(2, 8, 2, 4, 2):(2, 4 @ laneid, 4, 1 @ laneid, 1)]))',
                 "Tx.warp.copy(A_s[:, :], A[:, :])",
                 "T.cuda.warp_sync()",
                 "for j in range(4):",
                 "    Tx.warp.copy(a[:, :], A_s[:, j * 16:j * 16 + 16])",
                 "    Tx.warp.copy(A_s[:, j * 16:j * 16 + 16], a[:, :])",
                 "T.cuda.warp_sync()",
                 "Tx.warp.copy(A[:, :], A_s[:, :])",
             ])]))

add(Program("v_loop_swizzled_chunks", "Variation: loop-variable column chunks of 128B-swizzled MMA tiles (the column\ndimension is two layout iters): cta copies, warp registers and a TMA load.",
            [Kernel("copies", [("A", (32, 256), "float16")], ids("cta", 64), [
                'A_s = T.alloc_buffer((32, 256), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (32, 256)))',
                "for j in range(4):",
                "    Tx.cta.copy(A_s[:, j * 64:j * 64 + 64], A[:, j * 64:j * 64 + 64])",
                "T.cuda.cta_sync()",
                "for j in range(2):",
                "    Tx.cta.copy(A[:, j * 128:j * 128 + 128], A_s[:, j * 128:j * 128 + 128])",
            ]),
             Kernel("regs", [("A", (32, 256), "float16")], ids("warp", 32), [
                 'A_s = T.alloc_buffer((32, 256), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (32, 256)))',
                 'R = T.alloc_buffer((32, 64), "float16", scope="local", layout=TileLayout(S[(32, 64):(1 @ laneid, 1)]))',
                 "for j in range(4):",
                 "    Tx.warp.copy(R[:, :], A[:, j * 64:j * 64 + 64])",
                 "    Tx.warp.copy(A_s[:, j * 64:j * 64 + 64], R[:, :])",
                 "T.cuda.warp_sync()",
                 "Tx.warp.copy(A[:, :], A_s[:, :])",
             ]),
             Kernel("tma_chunks", [("A", (64, 256), "float16")], ["T.cta_id([1])", "tid = T.thread_id([128])"], [
                 'dyn = T.alloc_buffer([32768 + 64], "uint8", scope="shared.dyn")',
                 'A_s = T.decl_buffer((64, 256), "float16", dyn.data, elem_offset=0, layout=mma_shared_layout("float16", 3, (64, 256)))',
                 'bar = T.decl_buffer([1], "uint64", dyn.data, elem_offset=32768 // 8)',
                 "if tid == 0:",
                 "    T.ptx.mbarrier.init(bar.ptr_to([0]), 1)",
                 'T.ptx.fence.proxy_async("shared::cta")',
                 "T.cuda.cta_sync()",
                 "if tid == 0:",
                 "    for j in range(4):",
                 '        Tx.copy_async(A_s[:, j * 64:j * 64 + 64], A[:, j * 64:j * 64 + 64], dispatch="tma", mbar=bar.ptr_to([0]))',
                 "    T.ptx.mbarrier.arrive.expect_tx(bar.ptr_to([0]), 32768)",
                 "T.ptx.mbarrier.try_wait(bar.ptr_to([0]), 0)",
             ])]))
add(Program("v_loop_register_slices", "Variation: elementwise ops on loop-variable slices of thread-local vectors and\nof a warp register fragment (sm_100a: the f32 add is packed).",
            [Kernel("vec_slices", [("A", (64, 32), "float32")], ["T.cta_id([1])", "tid = T.thread_id([64])"], [
                'x = T.alloc_local((32,), "float32")',
                'y = T.alloc_local((32,), "float32")',
                "Tx.copy(x[:], A[tid, :])",
                "Tx.copy(y[:], A[tid, :])",
                "for i in range(4):",
                "    Tx.mul(x[i * 8:i * 8 + 8], x[i * 8:i * 8 + 8], T.float32(2.0))",
                "    Tx.add(x[i * 8:i * 8 + 8], x[i * 8:i * 8 + 8], y[i * 8:i * 8 + 8])",
                "    Tx.copy(A[tid, i * 8:i * 8 + 8], x[i * 8:i * 8 + 8])",
            ]),
             Kernel("frag_slices", [("A", (32, 32), "float32")], ids("warp", 32), [
                 'R = T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32):(1 @ laneid, 1)]))',
                 "Tx.warp.copy(R[:, :], A[:, :])",
                 "for i in range(4):",
                 "    Tx.warp.exp(R[:, i * 8:i * 8 + 8], R[:, i * 8:i * 8 + 8])",
                 "    Tx.warp.copy(A[:, i * 8:i * 8 + 8], R[:, i * 8:i * 8 + 8])",
             ])], arch="sm_100a"))

add(Program("v_reg_fragment_ops", "Variation: register fragments: a one-register-per-lane row statistic broadcast\nover a 32x16 fragment, a region bias, a cast into a permuted fp16 fragment;\nelementwise on loop-variable row bands of a swizzled tile; a fallback copy at\nloop-variable offsets.",
            [Kernel("row_stat", [("A", (32, 16), "float32"), ("B", (32, 1), "float32")], ids("warp", 32), [
                'R = T.alloc_buffer((32, 16), "float32", scope="local", layout=TileLayout(S[(32, 16):(1 @ laneid, 1)]))',
                'C = T.alloc_buffer((32, 1), "float32", scope="local", layout=TileLayout(S[(32, 1):(1 @ laneid, 1)]))',
                "Tx.warp.copy(R[:, :], A[:, :])",
                "Tx.warp.copy(C[:, :], B[:, :])",
                "Tx.warp.add(R[:, :], R[:, :], C[:, :])",
                "Tx.warp.exp(R[:, :], R[:, :], bias=R[:, :], scale=T.float32(0.5))",
                "Tx.warp.copy(A[:, :], R[:, :])",
            ]),
             Kernel("cast_perm", [("A", (32, 8), "float32")], ids("warp", 32), [
                 'R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8):(1 @ laneid, 1)]))',
                 'H = T.alloc_buffer((32, 8), "float16", scope="local", layout=TileLayout(S[(32, 4, 2):(1 @ laneid, 1, 4)]))',
                 "Tx.warp.copy(R[:, :], A[:, :])",
                 "Tx.warp.cast(H[:, :], R[:, :])",
                 "Tx.warp.cast(R[:, :], H[:, :])",
                 "Tx.warp.copy(A[:, :], R[:, :])",
             ]),
             Kernel("band_exp", [("A", (64, 64), "float16")], ids("cta", 128), [
                 'A_s = T.alloc_buffer((64, 64), "float16", scope="shared", layout=mma_shared_layout("float16", 3, (64, 64)))',
                 "Tx.cta.copy(A_s[:, :], A[:, :])",
                 "T.cuda.cta_sync()",
                 "for i in range(4):",
                 "    Tx.cta.exp(A_s[i * 16:i * 16 + 16, :], A_s[i * 16:i * 16 + 16, :])",
                 "Tx.cta.copy(A[:, :], A_s[:, :])",
             ]),
             Kernel("fallback_loop", [("A", (12, 6), "float32")], ids("warp", 32), [
                 'A_s = T.alloc_buffer((4, 6), "float32", scope="shared")',
                 "for i in range(3):",
                 "    Tx.warp.copy(A_s[:, :], A[i * 4:i * 4 + 4, :])",
                 "    T.cuda.warp_sync()",
                 "    Tx.warp.copy(A[i * 4:i * 4 + 4, :], A_s[:, :])",
                 "    T.cuda.warp_sync()",
             ])]))


README = """# Reference-agreement corpus

Generated by `scripts/agreement/gen.py`; do not edit (rerun the generator).
`scripts/agreement/run` lowers every program here with tilels and with the
reference TVM releases (0.25.0.post1, 0.26.0, 0.27.0.post1; the programs are
written for 0.25 and translated per release by `scripts/agreement/translate.py`)
and writes `docs/reference-agreement.md`.

- `rNNN_*.py`: section 6 row NNN of the dispatch spec, as a program.
- `v_*.py`: variations (dtypes, scopes, offsets, swizzles, odd sizes,
  permuted layouts, register fragments, TMA issue loops, cp.async, loop
  variables in regions).
- `reject/`: programs that test a rejection (tilels reports an error).
- `<family>/` (`gemm/`, `gemm_async/`, `reduction/`, `permute_layout/`,
  `copy_async_tcgen05/`, `vec_forced/`, `tma_explicit/`, `elementwise/`):
  hand-written programs for the op families added after the seeds and for
  the 0.26+ variants (forced vector widths with cache hints, tma_explicit,
  log2/maximum), one behaviour each (named in the file's docstring); edit
  them by hand. This generator leaves them alone.

Directives: `# agreement: row=N`, `# agreement: arch=sm_100a` (both tools
use that arch; `# tilels-test: arch=...` makes the CI compile gate build it
for that arch too).
"""

add(Program("v_tma_config", "Variation: TMA config keys: an L2 cache hint and a descriptor prefetch on a load,\na reduce-add store, and a store with a cache hint.",
            [tma_kernel("hint_prefetch", (64, 64), "float16", (64, 64), mma("float16", 3, (64, 64)),
                        extra_cfg='cache_hint="evict_last", prefetch_tensormap=True'),
             tma_kernel("reduce_add", (64, 64), "float32", (64, 64), mma("float32", 3, (64, 64)), direction="s2g",
                        extra_cfg='use_tma_reduce="add"'),
             tma_kernel("store_hint", (64, 64), "bfloat16", (64, 64), mma("bfloat16", 2, (64, 64)), direction="s2g",
                        extra_cfg='cache_hint="evict_first"')]))


def main():
    # Remove only what this generator writes (the top-level programs and
    # reject/): the op-family folders hold hand-written programs.
    for d in (OUT, os.path.join(OUT, "reject")):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".py"):
                    os.remove(os.path.join(d, f))
    os.makedirs(os.path.join(OUT, "reject"), exist_ok=True)
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(README)
    names = set()
    for p in PROGRAMS:
        assert p.name not in names, p.name
        names.add(p.name)
        if p.reject:
            assert "reject" in p.name, p.name
        sub = "reject" if p.reject else ""
        with open(os.path.join(OUT, sub, p.name + ".py"), "w") as f:
            f.write(p.text())
    print(f"wrote {len(PROGRAMS)} programs to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
