#!/usr/bin/env python3
"""Runs the bundled examples' generated CUDA on a GPU and checks the results.

Usage (on a machine with an NVIDIA GPU, nvcc and CuPy):
    scripts/gpu-smoke.py DIR
where DIR holds <example>.cu files written by `tilels --lower <example>.py -o DIR/<example>.cu`.
Each kernel reads A and writes B; the expected B is computed on the host.
"""
import os
import subprocess
import sys

import cupy as cp
import numpy as np

# example -> (kernel, shape, dtype, block, expected(A)); a list of
# (dtype, expected) pairs instead of one dtype/expected means several outputs.
CASES = {
    "ewise_cast": ("cast_tiles_kernel", (32, 32), [(np.float16, lambda a: a.astype(np.float16))] * 2, 128, None),
    "copy_gmem_smem": ("roundtrip_kernel", (32, 32), np.float32, 32, lambda a: a),
    "copy_fallback": ("small_tile_kernel", (4, 6), np.float32, 32, lambda a: a),
    "copy_reg": ("registers_kernel", (32, 8), np.float32, 32, lambda a: a),
    "ewise_sqrt": ("sqrt_tile_kernel", (32, 32), np.float32, 256, np.sqrt),
}


def main(d):
    failed = 0
    for name, (kernel, shape, dtype, block, expect) in CASES.items():
        cu = os.path.join(d, name + ".cu")
        cubin = os.path.join(d, name + ".cubin")
        subprocess.run(["nvcc", "-arch=sm_90a", "-cubin", "-o", cubin, cu], check=True)
        fn = cp.RawModule(path=cubin).get_function(kernel)
        rng = np.random.default_rng(0)
        outs = dtype if isinstance(dtype, list) else [(dtype, expect)]
        a = rng.random(shape, dtype=np.float32)
        if not isinstance(dtype, list):
            a = a.astype(dtype)
        da = cp.asarray(a)
        dbs = [cp.zeros(shape, dtype=dt) for dt, _ in outs]
        fn((1,), (block,), (da, *dbs))
        cp.cuda.runtime.deviceSynchronize()
        ok = True
        for db, (dt, want) in zip(dbs, outs):
            got, exp = cp.asnumpy(db), want(a)
            ok &= bool(np.allclose(got, exp, rtol=1e-6, atol=0) if dt == np.float32 else np.array_equal(got, exp))
        print(f"{'PASS' if ok else 'FAIL'} {name} {kernel}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
