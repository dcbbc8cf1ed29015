#!/usr/bin/env python3
"""Compare the instruction text of the PTX a kernel writes itself.

    scripts/agreement/user_forms.py [--release 0.27] [--venv-dir DIR] [TXTAR...]

For each golden program (default: lower/testdata/user_blackwell_*.txtar),
lowers its kernel.py with the reference release's CUDA codegen (inside the
pinned virtual environment scripts/agreement/run creates under
.cache/agreement, or the one under --venv-dir) and with tilels (bin/tilels,
built first), extracts the text of every `asm(...)` / `asm volatile(...)` statement of
both .cu files and reports, per instruction, whether the texts are equal.
Exit status 0 when every instruction tilels prints appears in the
reference's text verbatim, 1 otherwise.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RELEASES = {"0.25": "0.25.0.post1", "0.26": "0.26.0", "0.27": "0.27.0.post1"}

REF_DRIVER = r'''
import sys
import tvm, tvm_ffi
from tvm.script import tirx as T  # noqa: F401

@tvm_ffi.register_global_func("tvm_callback_cuda_compile", override=True)
def _keep(code, target):
    return bytearray(b"//")

g = {"__name__": "user_forms"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), g)
funcs = [v for v in g.values() if isinstance(v, tvm.tirx.PrimFunc)]
for f in funcs:
    ex = tvm.compile(tvm.IRModule({"main": f}), target=tvm.target.Target({"kind": "cuda", "arch": "sm_100a"}),
                     tir_pipeline="tirx")
    mods = list(ex.mod.imports)
    while mods:
        m = mods.pop(0)
        if getattr(m, "kind", "") == "cuda" or "cuda" in str(getattr(m, "type_key", "")):
            print(m.inspect_source())
            break
        mods.extend(m.imports)
'''


def asm_texts(src: str) -> list[str]:
    out = []
    for m in re.finditer(r'\basm\s*(?:volatile\s*)?\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', src):
        text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        out.append(" ".join(text.replace("\\n", " ").replace("\\t", " ").split()))
    return out


def kernel_py(txtar: str) -> str:
    text = open(txtar).read()
    m = re.search(r"^-- kernel\.py --\n(.*?)(?=^-- |\Z)", text, re.S | re.M)
    if not m:
        sys.exit(f"{txtar}: no kernel.py section")
    return m.group(1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", default="0.27", choices=sorted(RELEASES))
    ap.add_argument("--venv-dir", default=os.environ.get("AGREEMENT_VENV_DIR", os.path.join(ROOT, ".cache", "agreement")))
    ap.add_argument("txtar", nargs="*")
    a = ap.parse_args()
    py = os.path.join(a.venv_dir, f"venv-tvm-{RELEASES[a.release]}", "bin", "python")
    if not os.path.exists(py):
        sys.exit(f"{py}: missing (scripts/agreement/run --release {a.release} creates it)")
    files = a.txtar or sorted(glob.glob(os.path.join(ROOT, "lower", "testdata", "user_blackwell_*.txtar")))
    tilels = os.path.join(ROOT, "bin", "tilels")
    subprocess.run(["go", "build", "-o", tilels, "./cmd/tilels"], cwd=ROOT, check=True)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        drv = os.path.join(tmp, "driver.py")
        open(drv, "w").write(REF_DRIVER)
        for t in files:
            prog = os.path.join(tmp, os.path.basename(t).replace(".txtar", ".py"))
            open(prog, "w").write(kernel_py(t))
            ref = subprocess.run([py, drv, prog], capture_output=True, text=True)
            if ref.returncode != 0:
                print(f"{os.path.basename(t)}: the reference failed:\n{ref.stderr[-2000:]}")
                bad += 1
                continue
            cu = os.path.join(tmp, "tilels.cu")
            subprocess.run([tilels, "--lower", prog, "--reference", a.release, "-o", cu], check=True,
                           capture_output=True)
            ref_asm = set(asm_texts(ref.stdout))
            for text in asm_texts(open(cu).read()):
                ok = text in ref_asm
                bad += not ok
                print(f"{'same' if ok else 'DIFF'}  {os.path.basename(t)}: {text}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
