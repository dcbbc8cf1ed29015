"""Per-call comparison of tilels and the reference, and the report.

Used by scripts/agreement/run (plain Python 3, no third-party modules).
"""

from __future__ import annotations

import json
import re
import textwrap

import causes
import trace

FIELDS = ["variant", "vec", "outer", "tma", "text", "access", "declines"]
TMA_KEYS = ["direction", "rank", "dtype", "global_dims", "global_strides", "box", "element_strides", "interleave", "swizzle",
            "l2_promotion", "oob_fill", "issues"]


def directives(src):
    d = {}
    for m in re.finditer(r"^# agreement: (\w+)=(\S+)", src, re.M):
        d[m.group(1)] = m.group(2)
    return d


# ---------------------------------------------------------------------------
# Kernel text normalization
# ---------------------------------------------------------------------------

KEEP = {
    "int", "float", "half", "double", "char", "short", "long", "unsigned", "signed", "void", "bool", "uint", "ushort",
    "uchar", "for", "if", "else", "while", "return", "threadIdx", "blockIdx", "blockDim", "x", "y", "z", "w",
    "nv_bfloat16", "__nv_bfloat16", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
    "uint64_t", "uint2", "uint4", "float2", "float4", "half2", "alignas", "__shared__", "true", "false",
}


def kernel_body(src, name):
    """The text between the braces of ``<name>_kernel``'s definition, or None."""
    if not src:
        return None
    pat = re.compile(r'extern "C" __global__ void[^\n]*?\b' + re.escape(name) + r"_kernel\([^;{]*\)\s*\{", re.S)
    m = pat.search(src)
    if not m:
        return None
    i, depth = m.end(), 1
    j = i
    while j < len(src) and depth:
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
        j += 1
    return src[i:j - 1]


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def inline_temps(body):
    """Substitute single-assignment temporaries into their uses.

    Handles the two temporary forms the two emitters use: ``int name = e;``
    (tilels, and TVM scope ids / CSE variables) and ``alignas(64) T name[1];``
    followed by ``name[0] = e;`` (TVM's let-bound pointers and offsets).
    Variables assigned more than once are left alone. Pure expression
    statements (``((int)threadIdx.x);``) are dropped.
    """
    lines = [l.strip() for l in _strip_comments(body).splitlines()]
    assigns = {}
    for l in lines:
        m = re.match(r"^(?:\[\[maybe_unused\]\]\s*)?(?:(?:int|unsigned int|void\*|uint)\s+)?(\w+)(\[0\])?\s*=[^=]", l)
        if m:
            assigns[m.group(1)] = assigns.get(m.group(1), 0) + 1
    arrays = set()
    subst = {}
    out = []

    def sub(s):
        for k, v in subst.items():
            if k.endswith("[0]"):
                s = s.replace(k, v)
            else:
                s = re.sub(r"(?<![\w.])" + re.escape(k) + r"(?![\w(\[])", lambda _m: v, s)
        return s

    for l in lines:
        if not l:
            continue
        m = re.match(r"^alignas\(64\)\s+[\w*\s]+?\s(\w+)\[1\];$", l)
        if m:
            arrays.add(m.group(1))
            # kept (below) when no single `name[0] = e;` replaces it: a
            # one-lane register an instruction writes (0.26+ ld chains)
            out.append((m.group(1), l))
            continue
        m = re.match(r"^(\w+)\[0\]\s*=\s*(.*);$", l)
        if m and m.group(1) in arrays and assigns.get(m.group(1), 0) == 1:
            subst[m.group(1) + "[0]"] = "(" + sub(m.group(2)) + ")"
            continue
        m = re.match(r"^(?:\[\[maybe_unused\]\]\s*)?int\s+(\w+)\s*=\s*(.*);$", l)
        if m and assigns.get(m.group(1), 0) == 1:
            subst[m.group(1)] = "(" + sub(m.group(2)) + ")"
            continue
        if (l.endswith(";") and "=" not in l and not re.search(r"\w\s*\(", l.replace("(int)", ""))
                and not re.match(r"^[A-Za-z_][\w\s*]*\s\w+(\[\d+\])?;$", l)):
            continue
        out.append(sub(l))
    return [x[1] if isinstance(x, tuple) else x for x in out
            if not (isinstance(x, tuple) and x[0] + "[0]" in subst)]


def normalize(lines):
    """One comparable string: identifiers renamed in order of appearance
    (function names kept), whitespace, parentheses, braces and `+ 0` dropped,
    loop pragmas dropped."""
    text = "\n".join(l for l in lines if not l.startswith("#pragma"))
    names = {}

    def ren(m):
        tok = m.group(1)
        follow = m.group(2)
        if follow.startswith("(") or tok in KEEP or tok.startswith(("tvm_builtin_", "__", "make_", "ptx_")):
            return tok + follow
        if tok not in names:
            names[tok] = f"v{len(names)}"
        return names[tok] + follow

    text = re.sub(r"(?<![\w.])([A-Za-z_]\w*)(\s*\(?)", ren, text)
    text = re.sub(r"[\s(){}]", "", text)
    text = re.sub(r"\+0(?![\w.x])", "", text)
    text = re.sub(r"(?<![\w.])0\+", "", text)
    return text


def _context(src, kernel, lines):
    """Pointer aliases declared at kernel level before the first call, the
    kernel's buffers and its thread count (for trace.run)."""
    prelude = []
    for l in lines:
        if l.startswith("agreement_begin_"):
            break
        if re.match(r"^" + trace.TYPE_RE + r"\*\s*\w+ = .*;$", l):
            prelude.append(l)
    return {"prelude": prelude, "bufs": trace.kernel_buffers(src, kernel, lines),
            "threads": trace.thread_count(src, kernel)}


def ref_segments(src, kernel):
    body = kernel_body(src, kernel)
    if body is None:
        return None
    lines = inline_temps(body)
    ctx = _context(src, kernel, lines)
    segs, cur = {}, None
    for l in lines:
        m = re.match(r"^agreement_(begin|end)_(\d+)\(\);$", l)
        if m:
            cur = int(m.group(2)) if m.group(1) == "begin" else None
            if cur is not None:
                segs[cur] = []
            continue
        if cur is not None:
            segs[cur].append(l)
    return [segs[i] for i in sorted(segs)], ctx


def tilels_segments(src, kernel):
    """Blocks after each ``// Tx....`` comment of the kernel, in order."""
    body = kernel_body(src, kernel)
    if body is None:
        return None
    spans = []
    for m in re.finditer(r"^\s*// Tx\.[^\n]*\n\s*\{", body, re.M):
        i, depth, j = m.end(), 1, m.end()
        while j < len(body) and depth:
            depth += {"{": 1, "}": -1}.get(body[j], 0)
            j += 1
        spans.append((i, j - 1))
    # Mark the blocks, then inline over the whole kernel so kernel-level
    # temporaries resolve inside them.
    parts, pos = [], 0
    for k, (i, j) in enumerate(spans):
        parts += [body[pos:i], f"\nagreement_begin_{k}();\n", body[i:j], f"\nagreement_end_{k}();\n"]
        pos = j
    parts.append(body[pos:])
    lines = inline_temps("".join(parts))
    ctx = _context(src, kernel, lines)
    out, cur = {}, None
    for l in lines:
        m = re.match(r"^agreement_(begin|end)_(\d+)\(\);$", l)
        if m:
            cur = int(m.group(2)) if m.group(1) == "begin" else None
            if cur is not None:
                out[cur] = []
            continue
        if cur is not None:
            out[cur].append(l)
    return [out[i] for i in sorted(out)], ctx


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def _tma_view(t):
    if not t:
        return None
    return {k: t.get(k) for k in TMA_KEYS}


def access_trace(seg, ctx):
    try:
        return trace.run(seg, ctx["bufs"], ctx["threads"], ctx["prelude"]), None
    except trace.Unsupported as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001
        return None, f"{type(e).__name__}: {e}"


def compare_call(tc, rc, tseg, rseg, tctx=None, rctx=None):
    """Field-by-field comparison of one tilels call and one reference call."""
    out = {"fields": {}}
    tv, rv = tc.get("variant"), rc.get("variant")
    out["fields"]["variant"] = tv == rv
    if tv is not None and rv is not None:
        out["fields"]["vec"] = tc.get("vec") == rc.get("vec")
        out["fields"]["outer"] = tc.get("outer") == rc.get("outer")
        if tc.get("op") == "gemm" and rc.get("vec") is None and rc.get("outer") is None:
            # gemm (mma.sync) plans no vector width or outer loop: nothing to compare.
            del out["fields"]["vec"], out["fields"]["outer"]
        if tc.get("op") == "gemm_async" and rc.get("vec") is None and rc.get("outer") is None:
            # gemm_async (tcgen05.mma) plans no vector width or outer loop: nothing to compare.
            out["fields"].pop("vec", None), out["fields"].pop("outer", None)
        if tc.get("op") in ("sum", "max", "min") and "vec" not in rc:
            # reductions: the reference's planner is not hooked, it records no vec/outer.
            out["fields"].pop("vec", None), out["fields"].pop("outer", None)
    if tc.get("tma") or rc.get("tma"):
        out["fields"]["tma"] = _tma_view(tc.get("tma")) == _tma_view(rc.get("tma"))
    td = {d["variant"]: d["reason"] for d in tc.get("declined") or [] if d.get("variant")}
    rd = {d["variant"]: d["reason"] for d in rc.get("declined") or [] if d.get("variant")}
    common = sorted(set(td) & set(rd))
    if common:
        out["fields"]["declines"] = all(td[v] == rd[v] for v in common)
        if not out["fields"]["declines"]:
            out["declines_diff"] = [(v, rd[v], td[v]) for v in common if td[v] != rd[v]]
    if tseg is not None and rseg is not None:
        out["t_text"], out["r_text"] = normalize(tseg), normalize(rseg)
        out["fields"]["text"] = out["t_text"] == out["r_text"]
        out["t_raw"], out["r_raw"] = tseg, rseg
        if not out["fields"]["text"] and tv is not None and tv == rv:
            tt, terr = access_trace(tseg, tctx)
            rt, rerr = access_trace(rseg, rctx)
            if tt is not None and rt is not None:
                out["fields"]["access"] = tt == rt
                out["access_sizes"] = (sum(tt.values()), sum(rt.values()))
                if tt != rt:
                    out["access_diff"] = [repr(x) for x in list((tt - rt).keys())[:3]] + ["|"] + [
                        repr(x) for x in list((rt - tt).keys())[:3]]
            else:
                out["access_error"] = terr or rerr
    out["agree"] = all(v for k, v in out["fields"].items() if k not in ("text", "access", "declines"))
    return out


def compare_all(progs, ref, til, release="0.25.0.post1"):
    refp = {p["file"]: p for p in ref["programs"]}
    rows, programs = [], []
    for rel, d in progs:
        rp = refp.get(rel, {"kernels": [], "error": "not run"})
        tp = til[rel]
        tdoc = tp["json"]
        tkerns = tdoc.get("kernels", [])
        tdiag = [x for x in tdoc.get("diagnostics", []) if x.get("severity") == "error"]
        prog = {"file": rel, "row": d.get("row"), "arch": tp["arch"], "ref_error": rp.get("error"),
                "tilels_errors": [f"{x['line']}:{x['column']}: {x['message']}" for x in tdiag],
                "translations": rp.get("translations", []), "kernels": []}
        rk_by = {k["name"]: k for k in rp.get("kernels", [])}
        for tk in tkerns:
            rk = rk_by.get(tk["name"])
            tsegs, tctx = (tilels_segments(tp["cuda"], tk["name"]) or (None, None)) if tp["cuda_rc"] == 0 else (None, None)
            rsegs, rctx = (ref_segments(rk.get("cuda"), tk["name"]) or (None, None)) if rk and rk.get("cuda") else (None, None)
            kern = {"name": tk["name"], "ref_pass_error": rk and rk.get("pass_error"),
                    "ref_cuda_error": rk and rk.get("cuda_error"), "shims": (rk or {}).get("shims", []),
                    "calls": len(tk["calls"]), "ref_calls": len(rk["calls"]) if rk else 0}
            prog["kernels"].append(kern)
            rcalls = rk["calls"] if rk else []
            for i, tc in enumerate(tk["calls"]):
                rc = rcalls[i] if i < len(rcalls) else None
                row = {"file": rel, "kernel": tk["name"], "index": i, "line": tc["line"], "op": tc["op"],
                       "scope": tc["scope"], "tilels": {k: tc.get(k) for k in ("variant", "vec", "outer", "tma")},
                       "tilels_declined": tc.get("declined", [])}
                if rc is None:
                    row.update(ref=None, fields={}, agree=False, ref_missing=rp.get("error") or (rk and rk.get("pass_error")) or "no reference record")
                else:
                    if rc["op"] != tc["op"]:
                        row["pairing_error"] = f"reference call {i} is {rc['op']}"
                    tseg = tsegs[i] if tsegs and i < len(tsegs) else None
                    rseg = rsegs[i] if rsegs and i < len(rsegs) else None
                    cmp = compare_call(tc, rc, tseg, rseg, tctx, rctx)
                    row.update(cmp)
                    row["ref"] = {k: rc.get(k) for k in ("variant", "vec", "outer", "tma")}
                    row["ref_error"] = rc.get("error")
                    if rc.get("harness_error"):
                        row["harness_error"] = rc["harness_error"]
                    row["ref_declined"] = rc.get("declined", [])
                    if "pairing_error" in row:
                        row["agree"] = False
                rows.append(row)
        programs.append(prog)
    for row in rows:
        if not row["agree"] or row.get("fields", {}).get("text") is False:
            row["cause"] = causes.classify(row, release)
    totals = {"programs": len(programs), "calls": len(rows), "agree": sum(r["agree"] for r in rows)}
    totals["compared"] = sum(1 for r in rows if r.get("ref") is not None)
    for f in FIELDS:
        cmpd = [r for r in rows if f in r.get("fields", {})]
        totals[f] = (sum(r["fields"][f] for r in cmpd), len(cmpd))
    totals["agree"] = sum(1 for r in rows if r["agree"] and r.get("ref") is not None)
    totals["unclassified"] = sum(1 for r in rows if not r["agree"] and r["cause"]["class"] == "unclassified")
    totals["harness_errors"] = sum(1 for r in rows if r.get("harness_error"))
    totals["text_unclassified"] = sum(1 for r in rows if r["agree"] and r.get("fields", {}).get("text") is False
                                      and r["cause"]["class"] == "unclassified")
    return {"totals": totals, "programs": programs, "rows": rows}


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _fmt_tma(t):
    if not t:
        return ""
    return (f"r{t['rank']} {t['dtype']} dims {t['global_dims']} strides {t['global_strides']} box {t['box']} "
            f"swz {t['swizzle']} oob {t.get('oob_fill')} issues {t['issues']}")


def _cell(side):
    if side is None:
        return "—"
    v = side.get("variant") or "(none)"
    if side.get("tma"):
        return f"{v} · {_fmt_tma(side['tma'])}"
    if side.get("variant") is None or side.get("vec") is None:
        return v
    return f"{v} {side.get('vec')}/{side.get('outer')}"


MODE_TITLE = {"as written": "As written", "translated": "Translated (dispatch names mapped to the release's)"}


def _totals_lines(result):
    t = result["totals"]
    out = []
    w = out.append
    nrej = sum(1 for p in result['programs'] if '/reject/' in p['file'])
    w(f"- programs: {t['programs']} ({nrej} of them rejection tests, under `reject/`), {t['calls']} tile calls")
    w(f"- **calls compared: {t['compared']}**, **calls agreeing: {t['agree']}** (variant, vec, outer and TMA encode all "
      f"equal), disagreeing: {t['compared'] - t['agree']}; not compared: {t['calls'] - t['compared']} (no reference "
      "record, see the end of the disagreement table)")
    for f in FIELDS:
        a, n = t[f]
        label = {"variant": "variant (both reject counts as agreement)", "vec": "vec (calls where both chose a variant)",
                 "outer": "outer (calls where both chose a variant)", "tma": "TMA encode arguments and issue count",
                 "text": "normalized kernel text (calls both lowered to CUDA)",
                 "access": "memory accesses of the call's CUDA, every thread (calls whose text differs)",
                 "declines": "decline reasons of the variants both tools tried"}[f]
        w(f"- {label}: {a} / {n}")
    w("- disagreements by class: " + (", ".join(
        f"{k}: {v}" for k, v in sorted(_count_classes(result).items())) or "none"))
    if t.get("harness_errors"):
        w(f"- **calls whose plan numbers the harness could not read: {t['harness_errors']}** "
          "(`ref_lower.py` recording failed; see `harness_error` in the per-call JSON)")
    if t["unclassified"]:
        w(f"- **unclassified disagreements: {t['unclassified']}** (no rule in `scripts/agreement/causes.py`)")
    return out


def render_mode(result, h, before=None, old_before=None, per_call=False):
    """One release and mode; h = the heading prefix of its subsections."""
    out = []
    w = out.append
    w(f"{h} Totals\n")
    out += _totals_lines(result)
    w("")
    w(f"{h} By op family\n")
    w("| family | programs | calls compared | agreeing | decline reasons equal | kernel text equal | accesses equal (text differs) |")
    w("|---|---|---|---|---|---|---|")
    for fam, rows_, progs_ in _families(result):
        cmpd = [r for r in rows_ if r.get("ref") is not None]

        def frac(field):
            xs = [r["fields"][field] for r in rows_ if field in r.get("fields", {})]
            return f"{sum(xs)} / {len(xs)}"
        w(f"| {fam} | {progs_} | {len(cmpd)} | {sum(1 for r in cmpd if r['agree'])} | {frac('declines')} | "
          f"{frac('text')} | {frac('access')} |")
    w("")
    key = f"before-{result['release']}-{_slug(result['mode'])}"
    if before is not None:
        bt = before["totals"]
        w(f"<!-- agreement: begin {key} -->")
        w(f"{h} Before the fixes\n")
        w(f"tilels at `{before['rev']}` (before this change's fixes), same programs and reference: "
          f"{bt['agree']} of {bt['compared']} compared calls agree (variant {bt['variant'][0]}/{bt['variant'][1]}, "
          f"vec {bt['vec'][0]}/{bt['vec'][1]}, outer {bt['outer'][0]}/{bt['outer'][1]}, TMA {bt['tma'][0]}/{bt['tma'][1]}). "
          "Calls whose agreement changed:\n")
        w("| program | kernel | call | reference | tilels before | tilels now |")
        w("|---|---|---|---|---|---|")
        old = {(r["file"], r["kernel"], r["index"]): r for r in before["rows"]}
        for r in result["rows"]:
            o = old.get((r["file"], r["kernel"], r["index"]))
            if o is not None and o["agree"] != r["agree"]:
                w(f"| {_prog(r['file'])} | {r['kernel']} | {r['index']} `{r['op']}` | {_cell(r.get('ref'))} | "
                  f"{_cell(o['tilels'])} | {_cell(r['tilels'])} |")
        w("")
        w(f"<!-- agreement: end {key} -->")
        w("")
    elif old_before:
        out.append(old_before.rstrip("\n"))
        w("")
    tr = [p for p in result["programs"] if p.get("translations")]
    if tr:
        w(f"{h} Translations applied\n")
        w("The text both tools were given differs from the file under `testdata/agreement` by these rules "
          "(`scripts/agreement/translate.py`); per rule, the programs it changed:\n")
        by = {}
        for p in tr:
            for why in p["translations"]:
                by.setdefault(re.sub(r" \(\d+×\)$", "", why), []).append(p["file"])
        w("| rule | programs | e.g. |")
        w("|---|---|---|")
        for why, files in sorted(by.items(), key=lambda kv: -len(kv[1])):
            w(f"| {why} | {len(files)} | {_prog(files[0])} |")
        w("")
    w(f"{h} Disagreements by cause\n")
    groups = {}
    for r in result["rows"]:
        if not r["agree"]:
            groups.setdefault((r["cause"]["class"], r["cause"]["text"]), []).append(r)
    if not groups:
        w("None.\n")
    else:
        w("| class | cause | calls | programs | example |")
        w("|---|---|---|---|---|")
        for (cls, text), rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ex = rs[0]
            w(f"| {cls} | {text} | {len(rs)} | {len({r['file'] for r in rs})} | {_prog(ex['file'])} {ex['kernel']} "
              f"call {ex['index']} `{ex['op']}`: reference {_cell(ex.get('ref'))}{_ref_err(ex)}, tilels "
              f"{_cell(ex['tilels'])}{_til_err(ex)} |")
        w("")
    w(f"{h} Disagreements\n")
    w("Every call whose variant, vec, outer or TMA encode differs, with its cause.\n")
    w("| program | kernel | call | reference | tilels | class | cause |")
    w("|---|---|---|---|---|---|---|")
    rows = sorted((r for r in result["rows"] if not r["agree"]), key=lambda r: r.get("ref") is None)
    for r in rows:
        c = r["cause"]
        w(f"| {_prog(r['file'])} | {r['kernel']} | {r['index']} `{r['op']}` l.{r['line']} | {_cell(r.get('ref'))}"
          f"{_ref_err(r)} | {_cell(r['tilels'])}{_til_err(r)} | {c['class']} | {_short(c['text'])} |")
    w("")
    w(f"{h} Kernel text differences\n")
    w("Calls that agree on every plan field but whose normalized CUDA differs, grouped by cause.\n")
    tgroups = {}
    for r in result["rows"]:
        if r["agree"] and r.get("fields", {}).get("text") is False:
            tgroups.setdefault(r["cause"]["text"], []).append(r)
    w("| cause | calls | example |")
    w("|---|---|---|")
    for cause, rs in sorted(tgroups.items(), key=lambda kv: -len(kv[1])):
        ex = rs[0]
        w(f"| {cause} | {len(rs)} | {_prog(ex['file'])} {ex['kernel']} call {ex['index']} |")
    w("")
    if per_call:
        w(f"{h} Per call\n")
        w("`vec/outer` as each tool reports them; ✓ = agrees, ✗ = differs, · = not compared "
          "(no variant on one side, no TMA, or no CUDA text).\n")
        w("| program | kernel | call | reference | tilels | variant | vec | outer | TMA | text |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for r in result["rows"]:
            f = r.get("fields", {})
            marks = ["✓" if f.get(k) else ("✗" if k in f else "·") for k in FIELDS]
            w(f"| {_prog(r['file'])} | {r['kernel']} | {r['index']} `{r['op']}` {r['scope']} | {_cell(r.get('ref'))} | "
              f"{_cell(r['tilels'])} | " + " | ".join(marks) + " |")
        w("")
    w(f"{h} Programs the reference could not run whole\n")
    w("| program | kernel | reference error |")
    w("|---|---|---|")
    for p in result["programs"]:
        if p["ref_error"]:
            w(f"| {_prog(p['file'])} | (all) | {_one_line(p['ref_error'])} |")
        for k in p["kernels"]:
            if k["ref_pass_error"]:
                w(f"| {_prog(p['file'])} | {k['name']} | pass: {_one_line(k['ref_pass_error'])} |")
            elif k["ref_cuda_error"]:
                w(f"| {_prog(p['file'])} | {k['name']} | CUDA lowering: {_one_line(k['ref_cuda_error'])} |")
    w("")
    return out


def _slug(mode):
    return mode.replace(" ", "-")


def _block(text, key):
    """The text between the begin/end markers of key in a document, or None."""
    m = re.search(r"<!-- agreement: begin " + re.escape(key) + r" -->\n.*?<!-- agreement: end " + re.escape(key)
                  + r" -->\n", text, re.S)
    return m.group(0) if m else None


def _legacy_before(text):
    """The "Before the fixes" block of a document written before the
    per-release sections (its heading up to the next heading of its level or
    above), wrapped in markers, with its heading one level deeper."""
    m = re.search(r"^(#+) Before the fixes\n.*?(?=^#{1,%d} )" % 3, text, re.S | re.M)
    if not m:
        return None
    body = m.group(0).rstrip("\n")
    body = re.sub(r"^### Before the fixes", "#### Before the fixes", body)
    key = "before-0.25.0.post1-as-written"
    return f"<!-- agreement: begin {key} -->\n{body}\n\n<!-- agreement: end {key} -->\n"


def render_release(version, modes, results, old):
    """One release's section: its modes in order."""
    out = []
    w = out.append
    w(f"<!-- agreement: begin {version} -->")
    w(f"## apache-tvm {version}\n")
    summary = {}
    for mode in modes:
        result, before, _ref = results[(version, mode)]
        t = result["totals"]
        summary[mode] = {"programs": t["programs"], "calls": t["calls"], "compared": t["compared"], "agree": t["agree"],
                         "unclassified": t["unclassified"], "seconds": result["seconds"]["total"],
                         "classes": _count_classes(result)}
    w("<!-- agreement: totals " + json.dumps(summary, sort_keys=True) + " -->")
    w(f"Reference: `apache-tvm=={version}` from `scripts/agreement/requirements-{version}.txt` "
      f"(hash-checked). Run time: " + "; ".join(f"{m}: {s['seconds']} s" for m, s in summary.items()) + ".\n")
    for mode in modes:
        result, before, _ref = results[(version, mode)]
        w(f"### {MODE_TITLE[mode]}\n")
        key = f"before-{version}-{_slug(mode)}"
        old_before = _block(old, key) or (_legacy_before(old) if key == "before-0.25.0.post1-as-written" else None)
        out += render_mode(result, "####", before, old_before, per_call=(version == "0.25.0.post1"))
    if version == "0.25.0.post1":
        w(re.sub(r"^## ", "### ", textwrap.dedent(causes.NOTES_025).strip(), flags=re.M) + "\n")
    w(f"<!-- agreement: end {version} -->")
    w("")
    return "\n".join(out)


def render_doc(results, old, order):
    """The whole report: the sections of the releases run now, the others
    kept from the old document."""
    versions = ["0.25.0.post1", "0.26.0", "0.27.0.post1"]
    sections = {}
    for v in versions:
        modes = [m for vv, m in order if vv == v]
        if modes:
            sections[v] = render_release(v, modes, results, old)
        else:
            sections[v] = _block(old, v)
    out = []
    w = out.append
    w("# Agreement with the reference TVM releases\n")
    w("Generated by `scripts/agreement/run`; do not edit. Programs: `testdata/agreement/` "
      "(written by `scripts/agreement/gen.py`; the op-family folders `gemm/`, `gemm_async/`, `reduction/`, "
      "`permute_layout/`, `copy_async_tcgen05/`, `vec_forced/`, `tma_explicit/`, `elementwise/` by hand).\n")
    w(textwrap.dedent(causes.METHOD).strip() + "\n")
    w("## Summary\n")
    w("| release | programs | calls | compared | agreeing | disagreeing by class | unclassified | run time |")
    w("|---|---|---|---|---|---|---|---|")
    for v in versions:
        sec = sections.get(v)
        if not sec:
            continue
        m = re.search(r"<!-- agreement: totals (.*?) -->", sec)
        if not m:
            continue
        for mode, s in json.loads(m.group(1)).items():
            cls = ", ".join(f"{k}: {n}" for k, n in sorted(s["classes"].items())) or "—"
            w(f"| {v} {mode} | {s['programs']} | {s['calls']} | {s['compared']} | **{s['agree']}** | {cls} | "
              f"{s['unclassified']} | {s['seconds']} s |")
    w("")
    for v in versions:
        if sections.get(v):
            out.append(sections[v])
    return "\n".join(out)


def _til_err(r):
    if r["tilels"].get("variant") is not None:
        return ""
    for d in r.get("tilels_declined") or []:
        if d.get("variant") is None and d.get("reason"):
            return f" ({_one_line(d['reason'])[:90]})"
    return ""


def _short(text):
    return text if len(text) <= 400 else text[:400] + "…"


FAMILY_OPS = [("copy", {"copy"}), ("copy_async", {"copy_async"}), ("gemm", {"gemm"}), ("gemm_async", {"gemm_async"}),
              ("reduction", {"sum", "max", "min"}), ("permute_layout", {"permute_layout"})]


def _families(result):
    """(family, rows, number of programs with a call of it) per op family;
    every other op is elementwise."""
    out = []
    for fam, ops in FAMILY_OPS + [("elementwise", None)]:
        known = set().union(*(o for _, o in FAMILY_OPS))
        rows = [r for r in result["rows"] if (r["op"] in ops if ops else r["op"] not in known)]
        out.append((fam, rows, len({r["file"] for r in rows})))
    return out


def _count_classes(result):
    c = {}
    for r in result["rows"]:
        if not r["agree"] and r.get("ref") is not None:
            c[r["cause"]["class"]] = c.get(r["cause"]["class"], 0) + 1
    return c


def _prog(path):
    return "`" + path.replace("testdata/agreement/", "").replace(".py", "") + "`"


def _ref_err(r):
    e = r.get("ref_error")
    if not e:
        return ""
    for line in e.splitlines():
        m = re.match(r"\|\s*(\S+ \(prio=\d+\))\s*\|\s*(.*?)\s*\|$", line)
        if m and not m.group(2).startswith("opcall"):
            return f" ({_one_line(m.group(2))[:90]})"
        if line.startswith("no "):
            return f" ({line[:90]})"
    return ""


def _one_line(s):
    s = " ".join(str(s).split())
    s = s.replace("|", "\\|")
    return s[:160] + ("…" if len(s) > 160 else "")
