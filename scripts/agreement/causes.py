"""The method text of docs/reference-agreement.md and the cause of every
disagreement between tilels and the reference release.

Every disagreement must match one rule below (scripts/agreement/run exits 1
otherwise). Classes:

  reference: older release   0.25.0.post1 predates the seed-era revision
                             (PRE, apache/tvm abe2526b3e) and PRE fixed it
  reference bug              wrong or failing behaviour of the reference
                             that PRE shares; evidence in the rule's text
  deviation                  a documented, deliberate tilels deviation
  limitation                 a documented tilels limitation
  tilels: not yet modelled   (0.26/0.27) the release's algorithm is not in
                             tilels yet (issue 16, in progress)
"""

import re

OLDER = "reference: older release"
BUG = "reference bug"
DEV = "deviation"
LIM = "limitation"

# (match, class, cause). match keys: file (substring), kernel, op, index,
# ref (reference variant, "None" for no variant), til (tilels variant).
RULES = [
    # --- the release predates PRE -------------------------------------
    (dict(file="r045_reg_tcgen05_epilogue"), OLDER,
     "0.25.0.post1's reg predicate rejects a register layout whose thread axis has stride ≠ 1 "
     "(\"R thread axis 'laneid' stride=4 != 1 (not supported yet)\"); apache/tvm 4224d51090 (#19896, "
     "2026-06-29) lifted it before PRE, whose result (reg, vec 2, 16 iterations: spec §6 row 45) tilels gives. "
     "The reference then picks fallback, which cannot lower a thread-axis buffer (its CUDA lowering fails)."),
    (dict(file="v_reg_lane_stride2"), OLDER,
     "Same 0.25.0.post1 restriction (\"R thread axis 'laneid' stride=2 != 1 (not supported yet)\"), lifted by 4224d51090 before PRE; "
     "the reference's fallback then fails to lower."),
    (dict(file="v_reg_permuted_regs", kernel="two_iters"), OLDER,
     "0.25.0.post1 rejects a register layout that uses one thread axis twice (\"R thread axis 'tx' appears more than "
     "once (not supported yet)\"), lifted before PRE; the reference's fallback then fails to lower."),
    (dict(file="v_reg_permuted_regs", kernel="perm"), OLDER,
     "0.25.0.post1's _split_thread_loop pairs the canonical R layout (whose two register iters fused) with the S "
     "groups of the uncanonicalized one, so one S group is lost: the reference copies 2 of each lane's 8 registers "
     "(the access traces: 32 accesses of 8 bytes instead of 256 of 4). PRE pairs r_perm (the fix the spec's §4.3 step 3 "
     "describes; the reg.py diff between the release and PRE); tilels follows PRE."),
    (dict(op="maximum"), OLDER,
     "0.25.0.post1 registers no elementwise variant for maximum (\"no registered variants for this op/target\"); "
     "PRE does (ops/binary.py, added by apache/tvm 4224d51090)."),
    (dict(file="elementwise/log2_maximum"), OLDER,
     "0.25.0.post1 has no Tx.log2 (\"module 'tvm.tirx.script.tile' has no attribute 'log2'\"): the program "
     "(written for 0.26's log2 and maximum) fails to parse in the release, so no call is compared."),
    (dict(file="copy_async_tcgen05/c035_st_32x32b_f16_rearranged"), OLDER,
     "0.25.0.post1 has no Buffer.rearrange (\"'Buffer' object has no attribute 'rearrange'\"): the program "
     "(flash_attention4.py's P store, written for 0.26+) fails to parse in the release, so no call is compared; "
     "tilels warns (eval/other-release) and models the view as 0.26 does."),
    (dict(file="tma_explicit/gather_swizzle_offset"), OLDER,
     "0.25.0.post1 has no Buffer.tile (\"'Buffer' object has no attribute 'tile'\") nor tma_explicit: the "
     "program (FlashMLA's prefill gathers, written for 0.26+) fails to parse in the release, so no call is "
     "compared; tilels warns (eval/other-release) and models the view as 0.26 does."),
    (dict(file="v_ewise_log2"), OLDER,
     "0.25.0.post1 (and PRE) have no Tx.log2 (\"module 'tvm.tirx.script.tile' has no attribute 'log2'\"), so the "
     "whole program fails to parse and no call is compared; tilels takes log2 from SEED."),
    # --- reference bugs (PRE too) --------------------------------------
    (dict(file="r033_fallback_scalar_regions", index=1), BUG,
     "The reference's fallback raises for a one-element region (T.grid() with no extents: \"Index out of range. "
     "size: 0, got index 0\"), so the copy has no variant. PRE has the same code; SEED fixed it (the `if not "
     "copy_extents` branch and test_copy_fallback_handles_scalar_regions, spec row 33), which tilels follows."),
    (dict(file="v_gs_narrowed", kernel="half_cta"), BUG,
     "`if tid < 64:` with a flat thread id does not narrow the reference's active set: the one-sided range reaches "
     "NarrowFlatProductRange with lo = kNegInf, `lo - lane_hi` overflows and the narrowing reports an empty set, which "
     "is silently not pushed (same code at PRE). So gmem_smem runs a 128-thread partition with 64 active threads and "
     "half the tile is never copied. The two-sided `0 <= tid and tid < 64` (kernel half_cta_2sided) narrows in both "
     "tools; tilels narrows the one-sided form too, as spec §1.6/§3.4 describe (fallback)."),
    (dict(file="v_reg_fragment_ops", kernel="row_stat", index=1), BUG,
     "A register tile with one element per lane (S[(32,1):(1@laneid,1)]) has no memory atoms; the reference's "
     "_split_atoms_for_vec raises \"tail too short for vec_len 1\" (PRE and SEED alike), reg fails with that "
     "exception and the fallback it lands on cannot lower a thread-axis buffer. tilels moves the one element "
     "(reg, 1 iteration) and documents the deviation (dispatch/cuda/copy/reg.go, splitAtoms)."),
    # --- documented deviations ------------------------------------------
    (dict(file="v_ewise_packed_"), DEV,
     "Deviation 2 (packed elementwise needs adjacent lanes): the reference pairs lanes of a transposed tile in a packed "
     "cast_vec2 / f32x2 call although they are 32 elements apart, so it reads and writes the wrong elements (the access "
     "traces differ: e.g. the reference writes B_s element 1 from A_s element 1 instead of element 32); tilels keeps "
     "the scalar loop (vec 4)."),
    (dict(file="v_reg_swizzle_chunk_cap"), DEV,
     "Deviation 3 (register vector cap at the swizzle chunk, as HEAD does): with a 2-element swizzle chunk the "
     "reference moves 4 floats per access, and the second chunk of each 16-byte access lands where the swizzle does "
     "not put it; tilels caps at 2."),
    (dict(file="v_slice_wraparound"), DEV,
     "Deviation 1 (Layout Slice wrap-around uses < where TVM uses <=): [15,17) of S[(3,2,4):(40,100,1)] straddles "
     "the last value of the middle digit; the reference slices it as two steps of stride 97 and reads element 16 at "
     "240 instead of 80; tilels declines the slice and falls back."),
    # --- documented limitations -----------------------------------------
]

# Causes of text differences (calls that agree on every plan field), by
# variant; the access traces show the memory accesses are the same.
TEXT_CAUSES = {
    "gmem_smem": "address arithmetic spelled differently (TVM's simplifier: `x >> 3`, `x & 7`, let-bound temporaries, "
                 "its swizzle fast-path constants folded differently); same accesses",
    "reg": "register views and offsets spelled differently (TVM's r_local views, `ds`/`dr` temporaries); same accesses",
    "ldgsts": "address arithmetic spelled differently; same cp.async accesses",
    "tma": "issue helper names (PRE ptx_cp_async_bulk_tensor_g2cluster_tile_* vs tilels tvm_builtin_ptx_cp_async_bulk_"
           "tensor_g2c_*) and the unrolled issue loop; same shared addresses and coordinates",
    "ldstmatrix": "ldmatrix/stmatrix helper form (TVM passes one pointer per fragment, tilels one pointer to consecutive "
                  "registers: deviation 7) and, where TVM's first fitting grouping is gapped, a different grouping; same "
                  "per-lane register bytes",
    "fallback": "loop variable names and index spelling; same scalar accesses",
    "smem": "deviation 6: TVM's vectorizer prints uint4/float4 vector registers, tilels register bundles with unrolled "
            "loops (for which nvcc emits one ld.v4/st.v4, checked on the sqrt example); same elements read and written",
    "tcgen05": "gemm_async: tilels encodes the A/B matrix descriptors at the start of the call's block, the reference "
               "right after the shared buffers' declarations (add_post_buffer_def_stmt, outside the call's markers); "
               "block-scaled scale-factor addresses and sf_ids are folded to constants where the reference computes "
               "them in let-bound temporaries; the MMA arguments (descriptor offsets, tmem addresses, instruction "
               "descriptor) are the same",
}
TEXT_DEFAULT = "operand views spelled differently (TVM's r_local views and decimal/hex float literals); same accesses"


def _match(m, row):
    for k, v in m.items():
        if k == "file" and v not in row["file"]:
            return False
        if k == "kernel" and row["kernel"] != v:
            return False
        if k == "op" and row["op"] != v:
            return False
        if k == "index" and row["index"] != v:
            return False
        if k == "ref" and str((row.get("ref") or {}).get("variant")) != v:
            return False
        if k == "til" and str(row["tilels"].get("variant")) != v:
            return False
        if k == "field" and row.get("fields", {}).get(v, True):
            return False
        if k == "rerr" and v not in _ref_text(row):
            return False
        if k == "terr" and v not in _til_text(row):
            return False
        if k == "norecord" and (row.get("ref") is None) != v:
            return False
    return True


def _ref_text(row):
    parts = [row.get("ref_error") or "", row.get("ref_missing") or ""]
    parts += [d.get("reason") or "" for d in row.get("ref_declined") or []]
    return "\n".join(parts)


def _til_text(row):
    return "\n".join(d.get("reason") or "" for d in row.get("tilels_declined") or [])


def classify(row, release="0.25.0.post1"):
    if not row["agree"]:
        for m, cls, text in RULES_BY_RELEASE[release]:
            if _match(m, row):
                return {"class": cls, "text": text}
        return {"class": "unclassified", "text": "no rule in scripts/agreement/causes.py"}
    v = row["tilels"].get("variant")
    if row.get("fields", {}).get("access") is False:
        return {"class": "unclassified", "text": "text and accesses differ"}
    if "access" not in row.get("fields", {}):
        why = (row.get("access_error") or "no trace").split(":")[0]
        return {"class": "text", "text": f"{v}: texts differ; accesses not compared (trace.py: {why})"}
    return {"class": "text", "text": TEXT_CAUSES.get(v, TEXT_DEFAULT)}


METHOD = """
## Method

**References.** Three releases of `apache-tvm` from the public package registry, each pinned with hashes
(`--require-hashes`, exact versions, `--no-deps`) in `scripts/agreement/requirements-<version>.txt` and
installed by `scripts/agreement/run` into `.cache/agreement/venv-tvm-<version>` (CPython 3.11):
`0.25.0.post1` (with `apache-tvm-ffi==0.1.12`), `0.26.0` and `0.27.0.post1` (both with
`apache-tvm-ffi==0.1.15.post2`; they require `>=0.1.13.post2` and `>=0.1.14.post0`). `--venv-dir DIR` (or
`AGREEMENT_VENV_DIR`) uses venvs made elsewhere when their installed versions equal the pins. They run on
the CPU: the dispatch pass and CUDA source generation need no GPU (the CUDA compile callback is replaced by
one that keeps the source and builds nothing), so no GPU machine was used. `--release 0.25|0.26|0.27|all`
picks the releases; each gets its own section below and tilels runs with `--reference <version>`.

**Why these releases.** Candidates (wheels downloaded and unpacked; their Python sources compared file by
file with apache/tvm, paths normalised for the later move of `operator/tile_primitive` to `tile_primitive`):

| distribution | what it is | dispatcher files identical to PRE (`abe2526b3e`) / SEED (`981cdce66b`) |
|---|---|---|
| apache-tvm 0.25.0, 0.25.0.post1 | identical dispatcher sources; tag `v0.25.0.post1` = a release branch cut from `v0.26.dev0` (2026-06), before PRE | PRE 45/83 files identical, 1,404 lines differ; SEED 25/83 |
| apache-tvm 0.26.0 | tag `v0.26.0` = PRE + 11 commits, SEED included | PRE 38/87 (5,620 lines; the TMA planner rewritten as `tma_auto`); SEED 82/87 (34 lines) |
| apache-tvm 0.27.0, 0.27.0.post1 | not in the mirrored history of apache/tvm (its newest tag is `v0.27.dev0`); nearest to HEAD `5d4dc87213` (55/127 identical) | PRE 19/83, SEED 26/83 |
| apache-tvm-tirx 0.1.0a3, 0.1.0a4 | the split-out `tvm_tirx` package | no variant dispatcher at all: tile calls name one PTX instruction (`T.cuda.tile.apply(T.ptx[...])`), `run_dispatch` lowers that instruction; no `gmem_smem`/`vec_auto`/`tma` variants, so nothing to compare |

0.25.0.post1 is the closest to the seed-era revision PRE (the same variant registry: `gmem_smem`,
`ldstmatrix`, `reg`, `fallback`; `ldgsts`, `dsmem`, `smem->tmem`, `tma`, `tmem<->local`; elementwise
`reg`/`smem`; PRE's L1/L2/L3 TMA planner). 0.26.0 is SEED (`vec_auto`, the forced `vec_16b`..`vec_256b`,
`tma_auto`/`tma_explicit`, `log2`, `maximum`); 0.27.0.post1 is close to HEAD (the same registry as 0.26,
other algorithms and the table-driven `T.ptx` namespace).

**Programs and translation.** The programs are written for 0.25 (PRE surface: `SwizzleLayout` +
`ComposeLayout(swizzle, tile)`, the `tvm.tirx.cuda.operator.tile_primitive` path, `T.ptx.mbarrier.init`...;
PRE's variant names). `scripts/agreement/translate.py` holds, per release, *surface* rules (spellings that
changed without changing what a call asks for: the module path, `ComposeLayout(p, s, a, tile)`, 0.27's
`T.ptx.mbarrier.init.shared.b64`, `T.ptx.cp.async_.*`...) and *dispatch* rules (copy `gmem_smem`/`reg` →
`vec_auto`, copy_async `tma` → `tma_auto`). Every program runs **as written** under every release (surface
rules only: a 0.25 variant name under 0.26+ must be refused alike by both tools, "no variant named 'tma' is
registered"); for 0.26 and 0.27 every program the dispatch rules change also runs **translated**, so the
release's own algorithms run on it. Both tools get the same translated text (written under
`$AGREEMENT_WORK/<version>/<mode>/src/`); the rules applied are listed per release and mode below. One
run-time shim (0.25 only needs it): the release's TMA emitter defaults `cta_group` to -1 ("omit") on every
arch but sm_100a and its PTX renderer handles -1, but the intrinsic's argument check only admits 1 and 2, so
every TMA load on sm_90a raises "invalid cta_group=-1" (PRE has the same check). The shim lets -1 through;
the kernels that needed it are marked in the reference's JSON (`shims`). Programs default to sm_90a; those
marked `# agreement: arch=sm_100a` run both tools on sm_100a.

**What is recorded.** `ref_lower.py` (one script; the module paths and planner names per release are data
in its `RELEASES` table) wraps the installed dispatcher at run time: `run_dispatch` (one record per tile
call, in the pass's order), every variant's predicates and implementation (the chosen variant, every
rejection and decline reason), and the planner functions whose results are the plan numbers:
`align_layouts_gs` (0.25 `gmem_smem`, 0.26+ `vec_auto_gmem_smem`, and `ldgsts`: vec, and outer = elements /
(threads·vec)), `_split_atoms_for_vec` (0.25 `reg`, 0.26+ `vec_auto_reg`), `_emit_packed`/`_emit_scalar`
(elementwise smem: vec and n_outer), `_emit_induced_*` (elementwise reg), the TMA planner (0.25
`_build_plan_with_shrink` and `_oob_fill_kind`; 0.26+ `_build_auto_plan` for `tma_auto` and
`_build_explicit_plan` for `tma_explicit`, whose `TensorMapSpec` holds the `cuTensorMapEncodeTiled`
arguments in CUDA order; the issue count is the plan's issue extent) and 0.26+ `_emit_forced_vec_copy`
(vec = the elements of the one access, outer 1); fallback's outer is its element count and ldstmatrix's the
number of ld/stmatrix issues, as tilels reports them. A call that fails is recorded and replaced by an empty
body so the rest of the kernel is still dispatched. For kernels without a failing call the reference's CUDA
source is generated with a marker call before and after every tile call. tilels gives `--emit json` and
`--emit cuda`; calls pair by order within a kernel (their ops are checked).

**Fields.** variant (both rejecting counts as agreement), vec and outer (when both chose a variant), the
TMA encode (rank, element type, global dims, byte strides, box, element strides, interleave, swizzle, L2
promotion, OOB fill, direction, issue count). A call agrees when all of these agree. Also compared, and
not part of a call's agreement: the decline reasons of the variants both tools tried; the normalized
kernel text of the call (comments, whitespace, parentheses, braces and `+ 0` dropped, single-assignment
temporaries substituted, identifiers renamed in order of appearance, helper names kept); and, when the
texts differ, the call's memory accesses: `trace.py` runs the call's CUDA statements (the subset both
emitters produce for these calls) for every thread, with loop variables outside the call at 0, 1 and 2,
and records every copy, store (with the elements it was computed from), cp.async, ld/stmatrix (per lane
and register byte, with m8n8 warp semantics) and TMA issue (shared address and coordinates). Where the
trace cannot run a call's CUDA, the text difference says so ("accesses not compared").

**Classes of disagreement** (`scripts/agreement/causes.py`, rules per release; an unclassified one makes the
run exit 1): *reference: older release* (0.25.0.post1 predates PRE, which fixed it), *reference bug*
(wrong or failing behaviour of the reference; the release's own text quoted), *deviation* (documented,
deliberate), *limitation* (documented), and for 0.26/0.27 *tilels: not yet modelled* (the release's
algorithm is not implemented in tilels yet — issue 16's work in progress; the rule names what differs).

### Choosing the release

tilels models one release per file (`lower.Options.Reference`, `lower/reference.go`): the `--reference`
flag or the LSP setting `tilels.reference` (0.25, 0.26, 0.27; `auto` is the default), else a
`# tilels: reference=X` line in the file, else the apache-tvm installed in the Python environment
(`--python`, `$VIRTUAL_ENV`, `./.venv`, `./venv`), else what the file shows (import paths, dispatch names
only one release has), else the newest. `--emit json` reports the choice and why. The agreement run passes
`--reference <version>` for each release.
"""

NOTES_025 = """
## Found and fixed in tilels

Disagreements that were tilels' own, fixed in this change with a regression test each (run with
`--before c4bc98f` to see them against the tilels of before the fixes):

| what | programs | before | after | fix |
|---|---|---|---|---|
| ldstmatrix with a loop variable in the shared region start declined ("non-constant region") and fell back to reg | `v_ldstmatrix_loop_region` | reg 2/8 | ldstmatrix 8/2 (as the reference) | `dispatch/cuda/copy/ld_stmatrix.go`: symbolic starts add their offset to the lane address / register pointer; `TestLdstmatrixSymbolicStart` |
| a loop-variable start in a dimension laid out by several iters (a column chunk of a swizzled MMA tile) declined: copies fell back to the scalar copy, TMA had no variant | `v_loop_swizzled_chunks` | fallback 1/2048, 1/4096, TMA: no variant | gmem_smem 8/4, 8/8, reg, TMA 1 issue (as the reference) | `dispatch/cuda/common/common.go` `symGroupOffset` (a start that selects whole steps of the outer iters), `copy_async/tma.go`; `TestSymbolicStarts`, TMA case `symbolic-mma-column-chunk` |
| elementwise ops on loop-variable slices of registers had no variant ("non-constant region ... tilels needs constant region bounds") | `v_loop_register_slices` | error | reg 1/8, packed f32x2 2/4 (as the reference) | `dispatch/cuda/elementwise/reg.go`: symbolic starts address each operand through its layout plus the start's offset; four `TestEwiseTable` cases |
| packed f32x2 with a scalar operand (sm_100a) emitted CUDA nvcc rejects (a float passed as `void*`); found by the corpus's compile gate | `v_ewise_reg_packed_sm100` | nvcc error | compiles | `codegen/cuda/helpers.go`, `expr.go`: the helper takes a scalar operand as a float (name suffix p/s per source); golden `codegen/testdata/packed_f32x2_scalar.txtar` |

## Notes

- Programs: `testdata/agreement/rNNN_*.py` implement §6 row NNN of the spec (every row 1–100). Rows 19–22 test
  `align_layouts_gs` alone there (T = 128, 4, 4, 32); here rows 19 and 22 are the same copies in kernels, and
  rows 20 and 21 keep their layout feature (rows 20 halves apart, a start 3 elements off) in warp copies;
  `v_*.py` are variations. `reject/` holds programs that test a rejection: tilels reports an error for them.
  Row 95 and the transposed bf16 TMA load are there because the plan both tools compute breaks the 16-byte
  inner-box rule, which tilels' code generator enforces; a companion rejected call keeps the CI compile gate
  away from them.
- Calls compared are the tile calls tilels reports with a reference record paired to them. The six calls of
  `v_ewise_log2` have no reference record (the release cannot parse the program) and are listed, not counted.
- The text comparison is strict on purpose; where the variants agree and the texts differ, the access
  traces were equal in every case but the disagreements above (where the traces show the reference's wrong
  accesses).
- Not compared: GPU execution (the reference runs on the CPU here), host code (TMA encode is compared as
  the planner's arguments), and the spellings of failure tables beyond the per-variant reasons.
"""

# Rules for the releases after 0.25 (matched in order; keys as RULES, plus
# field (a plan field that differs), rerr / terr (a substring of the
# reference's / tilels' failure and decline text), norecord (True: the
# reference has no record of the call)).
TODO = "tilels: not yet modelled"

# Where 0.26 and 0.27 behave as 0.25 did: the same documented deviations
# and reference bugs.
_SAME_AS_025 = [
    (dict(file="v_gs_narrowed", kernel="half_cta"), BUG,
     "As in 0.25.0.post1: `if tid < 64:` with a flat thread id does not narrow the reference's active set (the "
     "one-sided range overflows in NarrowFlatProductRange and the narrowing is silently dropped), so vec_auto's "
     "gmem_smem path plans 128 threads with 64 active and half the tile is never copied; tilels narrows (fallback)."),
    (dict(file="v_reg_fragment_ops", kernel="row_stat", index=1), DEV,
     "As in 0.25.0.post1: one element per lane (S[(32,1):(1@laneid,1)]) has no memory atoms; the release's "
     "vec_auto_reg raises \"tail too short for vec_len 1\" and the reference falls back to the scalar copy "
     "(32 iterations); tilels moves the one element (vec_auto, 1 iteration: dispatch/cuda/copy/reg.go, splitAtoms)."),
    (dict(file="v_slice_wraparound"), DEV,
     "Deviation 1, as in 0.25.0.post1 (Layout Slice wrap-around: TVM uses <= where < is right): the reference slices "
     "[15,17) of S[(3,2,4):(40,100,1)] as two steps of stride 97; tilels declines the slice and falls back."),
    (dict(file="v_ewise_packed_"), DEV,
     "Deviation 2, as in 0.25.0.post1 (packed elementwise needs adjacent lanes): the reference pairs lanes of a "
     "transposed tile 32 elements apart in one packed call (vec 2), the access traces show the wrong elements; "
     "tilels keeps the scalar loop (vec 4)."),
]

_TMA_TODO = "tilels' tma_auto delegates to 0.25's PRE planner (dispatch/cuda/copy_async/tma_auto.go → EmitTMA)"

_NEW_IN_026 = [
    # --- TMA: the release's planners -------------------------------------
    (dict(op="copy_async", ref="None", til="tma_auto", rerr="tma_auto does not support non-default oob"), TODO,
     _TMA_TODO + '; the release\'s tma_auto refuses oob="nan" ("tma_auto does not support non-default oob; use '
     'dispatch="tma_explicit""), tilels encodes it.'),
    (dict(op="copy_async", ref="None", til="tma_auto", rerr="descriptor rank must be in [1, 5]"), TODO,
     _TMA_TODO + "; the release's prefix search (_build_auto_plan) needs a rank-6 TensorMap and refuses "
     "(\"tma_auto stage=prefix-search: rank: descriptor rank must be in [1, 5], got 6\"); PRE's planner merged "
     "dimensions and issued a loop."),
    (dict(op="copy_async", ref="None", til="tma_auto", rerr="stage=shared-chain"), TODO,
     _TMA_TODO + "; the release's tma_auto refuses a shared layout whose iters do not chain "
     "(\"tma_auto stage=shared-chain: shared iter 0 at sorted position 2 has stride=..., expected ...\"), where "
     "PRE's planner issued one box per gap."),
    (dict(op="copy_async", ref="None", til="tma_auto", rerr="global_stride_alignment"), TODO,
     _TMA_TODO + "; the release's validation refuses a transposed (non-unit inner stride) global operand "
     "(\"global_stride_alignment: globalStrides[0]=2 must be a multiple of 16B ... inner_stride: innermost global "
     "element stride must be 1\"), where PRE's planner fell to a 1x1 box per element (which tilels' code generator "
     "then rejects)."),
    (dict(op="copy_async", ref="tma_auto", til="tma_auto", field="tma"), TODO,
     _TMA_TODO + "; the release builds its TensorMap from the canonical shared layout's iters (prefix search, "
     "validate, repair: SEED §4.5.7), so rank, dims, strides or box differ from PRE's L1/L2/L3 plan."),
    # --- copy -------------------------------------------------------------
    (dict(file="c030_cp_bare_swizzle_reject"), TODO,
     "0.26+ lowers this smem->tmem copy (a bare swizzle is a ComposeLayout over an identity tile and slices; 8 "
     "tcgen05.cp); tilels keeps 0.25's refusal (\"s slice produced bare SwizzleLayout\")."),
    (dict(file="gemm_async/reject/x001_dense_fp8_rejected"), TODO,
     "0.26+ tcgen05 accepts a dense float8_e4m3fn MMA; tilels keeps 0.25's assertion (\"tcgen05 schedule expected "
     "A_type=float16 or bfloat16, got float8_e4m3fn\")."),
]

_REF_BUGS_027 = [
    (dict(op="permute_layout", ref="None", rerr="Program is not well-formed"), BUG,
     "0.27.0.post1's warp_xor_swizzle builds an implementation that fails its own well-formedness check: "
     "\"DiagnosticError: error: Program is not well-formed. ... ValueError: Invalid use of undefined variable ...\" "
     "(the variant raises, so the call has no variant); 0.25 and 0.26 lower these programs, tilels does as they do."),
    (dict(ref="None", til="shared", rerr="Program is not well-formed"), BUG,
     "0.27.0.post1's shared reduction builds an implementation that fails its own well-formedness check: "
     "\"Program is not well-formed ... ValueError: Invalid use of undefined variable tid_in_scope\" "
     "(reduction/shared.py's impl); 0.25 and 0.26 lower these calls, tilels does as they do."),
]

RULES_026 = _SAME_AS_025 + [
    (dict(file="v_reg_swizzle_chunk_cap"), DEV,
     "Deviation 3 (register vector cap at the swizzle chunk, as 0.27/HEAD does): 0.26's vec_auto_reg moves 4 "
     "floats per access across a 2-element swizzle chunk, so the second half lands where the swizzle does not put "
     "it; tilels caps at 2 (0.27 agrees with tilels)."),
] + _NEW_IN_026
_NEW_IN_027 = [
    (dict(op="copy", ref="None", rerr="L2 eviction priorities are vector-only"), TODO,
     "0.27's forced-width load (copy_ptx_ld_chain) refuses an L2 eviction hint on a scalar access (\"ValueError: L2 "
     "eviction priorities are vector-only\"), so the call has no variant; tilels emits the load with the hint."),
    (dict(op="copy", ref="None", rerr="the 256-bit lines are .v8 with a 32-bit type"), TODO,
     "0.27's table-driven T.ptx.ld spells the L2 eviction priority only on 256-bit lines, so vec_128b with "
     "l2_evict fails to build (\"ld_vec256: the 256-bit lines are .v8 with a 32-bit type or .v4 with a 64-bit "
     "type\"); tilels emits the 128-bit load with the hint (0.26 accepts it too)."),
]

RULES_027 = _SAME_AS_025 + _REF_BUGS_027 + _NEW_IN_026 + _NEW_IN_027
RULES_BY_RELEASE = {"0.25.0.post1": RULES, "0.26.0": RULES_026, "0.27.0.post1": RULES_027}
