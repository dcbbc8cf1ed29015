// Stub of cuda_fp8.h for tilels' g++ compile test (see cuda_runtime.h).
// As in CUDA, fp8 conversions are explicit in both directions.
#pragma once
#include "cuda_bf16.h"
#define TILELS_STUB_FP8(T)                  \
  struct T {                                \
    unsigned char x;                        \
    T() = default;                          \
    explicit T(float f);                    \
    explicit T(double f);                   \
    explicit T(__half h);                   \
    explicit T(__nv_bfloat16 h);            \
    explicit T(int i);                      \
    explicit T(unsigned int i);             \
    explicit T(long long i);                \
    explicit operator float() const;        \
    explicit operator __half() const;       \
    explicit operator __nv_bfloat16() const;\
    explicit operator int() const;          \
  };
TILELS_STUB_FP8(__nv_fp8_e4m3)
TILELS_STUB_FP8(__nv_fp8_e5m2)
TILELS_STUB_FP8(__nv_fp8_e8m0)
#undef TILELS_STUB_FP8
