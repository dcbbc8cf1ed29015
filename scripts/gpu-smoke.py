#!/usr/bin/env python3
"""Runs the bundled examples' generated CUDA on a GPU and checks the results.

Usage (on a machine with an NVIDIA GPU, nvcc and CuPy):
    scripts/gpu-smoke.py DIR
where DIR holds <example>.cu files written by
`tilels --lower <example>.py -o DIR/<example>.cu`. Each .cu is built into a
shared library and every kernel is started through the launcher tilels
generates next to it (`extern "C" int <kernel>_launch(<params>, cudaStream_t)`),
so the host side (tensor-map encoding, dynamic shared memory, grid and block)
is exercised too. The first parameter is the input, filled with seeded random
data; the others are outputs, compared with results computed on the host.
"""
import ctypes
import os
import subprocess
import sys

import cupy as cp
import numpy as np

F16, F32 = np.float16, np.float32
same = lambda a: a

# example -> [(kernel, input shape, input dtype, [(output dtype, expected(a))])]
CASES = {
    "copy_gmem_smem": [("roundtrip", (32, 32), F32, [(F32, same)])],
    "copy_fallback": [("small_tile", (4, 6), F32, [(F32, same)])],
    "copy_reg": [("registers", (32, 8), F32, [(F32, same)])],
    "ewise_sqrt": [("sqrt_tile", (32, 32), F32, [(F32, np.sqrt)])],
    "ewise_cast": [("cast_tiles", (32, 32), F32, [(F16, lambda a: a.astype(F16))] * 2)],
    "copy_ldgsts": [("async_load", (64, 64), F16, [(F16, same)])],
    "copy_tma": [
        ("tma_load", (8, 256), F16, [(F16, same)]),
        ("tma_pipeline", (3, 8, 256), F16, [(F16, same)]),
        ("tma_store", (3, 8, 256), F16, [(F16, same)]),
    ],
}


def main(d):
    failed = 0
    for name, kernels in CASES.items():
        cu = os.path.join(d, name + ".cu")
        so = os.path.join(d, name + ".so")
        subprocess.run(["nvcc", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC", "-o", so, cu], check=True)
        lib = ctypes.CDLL(os.path.abspath(so))
        lib.tilels_last_error.restype = ctypes.c_char_p
        for kernel, shape, dtype, outs in kernels:
            rng = np.random.default_rng(0)
            a = rng.standard_normal(shape).astype(dtype)
            if name == "ewise_sqrt":
                a = np.abs(a)
            da = cp.asarray(a)
            dbs = [cp.zeros(shape, dtype=dt) for dt, _ in outs]
            fn = getattr(lib, kernel + "_launch")
            fn.restype = ctypes.c_int
            ptrs = [ctypes.c_void_p(x.data.ptr) for x in (da, *dbs)]
            rc = fn(*ptrs, ctypes.c_void_p(0))
            if rc != 0:
                print(f"FAIL {name} {kernel}: launcher returned {rc}: {lib.tilels_last_error().decode()}")
                failed += 1
                continue
            cp.cuda.runtime.deviceSynchronize()
            ok = True
            for db, (dt, want) in zip(dbs, outs):
                got, exp = cp.asnumpy(db), want(a)
                good = np.allclose(got, exp, rtol=1e-6, atol=0) if dt == F32 else np.array_equal(got, exp)
                if not good:
                    bad = np.argwhere(got != exp)[0]
                    print(f"  first mismatch at {tuple(bad)}: got {got[tuple(bad)]} want {exp[tuple(bad)]}")
                ok &= bool(good)
            print(f"{'PASS' if ok else 'FAIL'} {name} {kernel}")
            failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
