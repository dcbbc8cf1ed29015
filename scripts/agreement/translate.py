"""Per-release translation of the agreement programs (plain Python 3).

The programs under testdata/agreement are written for 0.25.0.post1 (PRE's
surface and variant names). scripts/agreement/run gives both tools, for each
release, the same text:

- "as written": the program with the release's *surface* rules applied (the
  spellings that changed without changing what a call asks for: module paths,
  the SwizzleLayout class folded into ComposeLayout). Dispatch names are left
  alone, so a 0.25 name under 0.26+ must be refused by both tools alike.
- "translated" (0.26 and 0.27 only): surface rules plus the *dispatch* rules
  that map 0.25's forced variant names onto the release's (copy
  gmem_smem/reg -> vec_auto, copy_async tma -> tma_auto), so the release's
  new algorithms run on every program.

Each rule is (pattern, replacement, why); what was applied is recorded per
program in the report.
"""

from __future__ import annotations

import re

# Surface rules, per release.
_PRE_PATH = (r"tvm\.tirx\.cuda\.tile_primitive\.", "tvm.tirx.cuda.operator.tile_primitive.",
             "module path tvm.tirx.cuda.tile_primitive -> tvm.tirx.cuda.operator.tile_primitive (0.25's)")
_SEED_PATH = (r"tvm\.tirx\.cuda\.operator\.tile_primitive\.", "tvm.tirx.cuda.tile_primitive.",
              "module path tvm.tirx.cuda.operator.tile_primitive -> tvm.tirx.cuda.tile_primitive")
_SEED_COMPOSE = (r"ComposeLayout\(\s*SwizzleLayout\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*,\s*",
                 r"ComposeLayout(\1, \2, \3, ",
                 "ComposeLayout(SwizzleLayout(p, s, a), tile) -> ComposeLayout(p, s, a, tile) (SwizzleLayout folded "
                 "into ComposeLayout)")
_SEED_IMPORT = (r"(from tvm\.tirx\.layout import [^\n]*?), SwizzleLayout\b", r"\1",
                "SwizzleLayout dropped from the tvm.tirx.layout import (no such class)")

# 0.27 replaced the hand-written T.ptx wrappers by the table-driven PTX
# namespace (tvm/backend/cuda/ptx/table.py): the instruction's modifiers are
# attribute names. Only statements outside tile calls use them here.
_PTX_027 = [
    (r"T\.ptx\.mbarrier\.init\(", "T.ptx.mbarrier.init.shared.b64(",
     "T.ptx.mbarrier.init -> T.ptx.mbarrier.init.shared.b64"),
    (r'T\.ptx\.fence\.proxy_async\("shared::cta"\)', "T.ptx.fence.proxy.async_.shared__cta()",
     'T.ptx.fence.proxy_async("shared::cta") -> T.ptx.fence.proxy.async_.shared__cta()'),
    (r"T\.ptx\.mbarrier\.arrive\.expect_tx\(", "T.ptx.mbarrier.arrive.expect_tx.shared.b64(",
     "T.ptx.mbarrier.arrive.expect_tx -> T.ptx.mbarrier.arrive.expect_tx.shared.b64"),
    (r"T\.ptx\.mbarrier\.try_wait\(", "T.cuda.mbarrier_wait(",
     "T.ptx.mbarrier.try_wait -> T.cuda.mbarrier_wait (the retry loop)"),
    (r"T\.ptx\.cp_async\.bulk\.wait_group\(\)", "T.ptx.cp.async_.bulk.wait_group(0)",
     "T.ptx.cp_async.bulk.wait_group() -> T.ptx.cp.async_.bulk.wait_group(0)"),
    (r"T\.ptx\.cp_async\.", "T.ptx.cp.async_.", "T.ptx.cp_async.* -> T.ptx.cp.async_.*"),
]

SURFACE = {
    "0.25.0.post1": [_PRE_PATH],
    "0.26.0": [_SEED_PATH, _SEED_COMPOSE, _SEED_IMPORT],
    "0.27.0.post1": [_SEED_PATH, _SEED_COMPOSE, _SEED_IMPORT] + _PTX_027,
}

# Dispatch rules (translated mode), per release. A rule applies to the lines
# that call the op named in its first element.
_COPY = r"\bTx\.(?:\w+\.)*copy\("
_COPY_ASYNC = r"\bTx\.(?:\w+\.)*copy_async\("
_SEED_DISPATCH = [
    (_COPY, r'dispatch="gmem_smem"', 'dispatch="vec_auto"', 'copy dispatch="gmem_smem" -> "vec_auto"'),
    (_COPY, r'dispatch="reg"', 'dispatch="vec_auto"', 'copy dispatch="reg" -> "vec_auto"'),
    (_COPY_ASYNC, r'dispatch="tma"', 'dispatch="tma_auto"', 'copy_async dispatch="tma" -> "tma_auto"'),
]
DISPATCH = {
    "0.25.0.post1": [],
    "0.26.0": _SEED_DISPATCH,
    "0.27.0.post1": _SEED_DISPATCH,
}


def surface(src: str, release: str):
    applied = []
    for pat, rep, why in SURFACE[release]:
        src, n = re.subn(pat, rep, src)
        if n:
            applied.append(f"{why} ({n}×)")
    return src, applied


def dispatch(src: str, release: str):
    applied = []
    lines = src.split("\n")
    for call, pat, rep, why in DISPATCH[release]:
        n = 0
        for i, line in enumerate(lines):
            if re.search(call, line):
                new, k = re.subn(pat, rep, line)
                lines[i], n = new, n + k
        if n:
            applied.append(f"{why} ({n}×)")
    return "\n".join(lines), applied


def translate(src: str, release: str, mode: str):
    """(text, surface rules applied, dispatch rules applied)."""
    src, s = surface(src, release)
    d = []
    if mode == "translated":
        src, d = dispatch(src, release)
    return src, s, d
