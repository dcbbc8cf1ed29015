"""Expected descriptor values for descriptors_test.go, from the reference's own encoders.

Run with the reference venv python (see helper notes):
    .cache/agreement/venv-tvm-0.25.0.post1/bin/python dispatch/cuda/gemm_async/testdata/ref_descriptors.py

- dense instruction descriptor: TVM's _encode_instr_descriptor_dense_uint32 (Python);
- SmemDescriptor and the block-scaled instruction descriptor: TVM's C helpers
  (the unions of header_generator and the encoder bodies registered by
  intrinsics/tcgen05.py), compiled for the host with g++ and run.
"""
import inspect, os, re, subprocess, tempfile

from tvm.backend.cuda.operator.tile_primitive.gemm_async import tcgen05 as g
from tvm.backend.cuda.operator.intrinsics import header as h
from tvm.backend.cuda.operator.intrinsics import tcgen05 as it

dense = [
    (128, 64, "float16", "float16", False, False),
    (128, 256, "bfloat16", "bfloat16", False, True),
    (64, 8, "float16", "float16", True, False),
    (256, 128, "bfloat16", "bfloat16", True, True),
    (128, 32, "float8_e4m3fn", "float8_e5m2", False, False),
    (128, 16, "tf32", "tf32", False, False),
]
for m, n, a, b, ta, tb in dense:
    v = g._encode_instr_descriptor_dense_uint32(M=m, N=n, d_dtype="float32", a_dtype=a, b_dtype=b, trans_a=ta, trans_b=tb)
    print(f"dense {m} {n} {a} {b} {int(ta)} {int(tb)} 0x{v:08x}")

src = inspect.getsource(it)
def body(op):
    i = src.index(f'"{op}"')
    j = src.index("body=(", i) + len("body=(")
    k = src.index("),\n    extra_deps", j)
    return eval("(" + src[j:k] + ")")

hdr = h.header_generator({"smem_descriptor", "instr_descriptor_block_scaled"})
hdr = hdr[hdr.index("#ifndef HOST_DEVICE"):] if "#ifndef HOST_DEVICE" in hdr else hdr
prog = r'''
#include <cstdint>
#include <cstdio>
#define __forceinline__
#define __device__
#define __host__
static uint32_t __cvta_generic_to_shared(void* p) { return (uint32_t)(uintptr_t)p; }
''' + hdr + '''
void enc_smem(uint64_t* desc, void* addr, int ldo, int sdo, int swizzle) {
''' + body("ptx_tcgen05_encode_matrix_descriptor") + '''
}
void enc_bs(uint32_t* desc, int M, int N, int a_format, int b_format, int s_format, bool trans_a, bool trans_b, bool neg_a, bool neg_b, bool is_sparse) {
''' + body("_ptx_tcgen05_encode_instr_descriptor_block_scaled_impl") + '''
}
void patch(uint32_t* desc, const uint32_t& sf_id) {
    *desc = (*desc & ~0x60000030) | ((sf_id << 29) | (sf_id << 4));
}
int main() {
  struct { uint32_t addr; int ldo, sdo, sw; } s[] = {{0, 64, 64, 3}, {1024, 1, 64, 3}, {0x4400, 128, 32, 2}, {16, 8, 16, 1}, {0x3fff0, 512, 1024, 0}, {2048, 256, 8, 4}};
  for (auto& c : s) { uint64_t d; enc_smem(&d, (void*)(uintptr_t)c.addr, c.ldo, c.sdo, c.sw); printf("smem %u %d %d %d 0x%016llx\\n", c.addr, c.ldo, c.sdo, c.sw, (unsigned long long)d); }
  struct { int M, N, a, b, s, ta, tb, sf; } b[] = {{128, 64, 0, 0, 1, 0, 0, 0}, {256, 256, 1, 0, 1, 1, 1, 0}, {128, 128, 1, 1, 0, 0, 0, 3}, {128, 8, 1, 1, 1, 0, 0, 2}, {256, 16, 0, 1, 1, 0, 1, 1}};
  for (auto& c : b) { uint32_t d; enc_bs(&d, c.M, c.N, c.a, c.b, c.s, c.ta, c.tb, false, false, false); if (c.sf) patch(&d, c.sf); printf("bs %d %d %d %d %d %d %d %d 0x%08x\\n", c.M, c.N, c.a, c.b, c.s, c.ta, c.tb, c.sf, d); }
}
'''
with tempfile.TemporaryDirectory() as t:
    open(os.path.join(t, "x.cc"), "w").write(prog)
    subprocess.run(["g++", "-std=c++17", "-o", os.path.join(t, "x"), os.path.join(t, "x.cc")], check=True)
    print(subprocess.run([os.path.join(t, "x")], capture_output=True, text=True, check=True).stdout, end="")
