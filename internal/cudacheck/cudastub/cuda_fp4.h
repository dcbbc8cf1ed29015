// Stub of cuda_fp4.h for tilels' g++ compile test (see cuda_runtime.h):
// the float4 e2m1 type, one byte as CUDA stores it, explicit conversions.
#pragma once
#include "cuda_fp8.h"
struct __nv_fp4_e2m1 {
  unsigned char x;
  __nv_fp4_e2m1() = default;
  explicit __nv_fp4_e2m1(float f);
  explicit __nv_fp4_e2m1(double f);
  explicit __nv_fp4_e2m1(__half h);
  explicit __nv_fp4_e2m1(__nv_bfloat16 h);
  explicit operator float() const;
  explicit operator __half() const;
};
