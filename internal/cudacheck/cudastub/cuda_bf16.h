// Stub of cuda_bf16.h for tilels' g++ compile test (see cuda_runtime.h).
#pragma once
#include "cuda_fp16.h"
struct __nv_bfloat16 {
  unsigned short x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f);
  __nv_bfloat16(double f);
  __nv_bfloat16(int i);
  __nv_bfloat16(unsigned int i);
  __nv_bfloat16(short i);
  __nv_bfloat16(unsigned short i);
  __nv_bfloat16(long long i);
  __nv_bfloat16(unsigned long long i);
  operator float() const;
};
typedef __nv_bfloat16 nv_bfloat16;
struct __attribute__((aligned(4))) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat162 nv_bfloat162;
__nv_bfloat16 operator+(const __nv_bfloat16& a, const __nv_bfloat16& b);
__nv_bfloat16 operator-(const __nv_bfloat16& a, const __nv_bfloat16& b);
__nv_bfloat16 operator*(const __nv_bfloat16& a, const __nv_bfloat16& b);
__nv_bfloat16 operator/(const __nv_bfloat16& a, const __nv_bfloat16& b);
__nv_bfloat16 operator-(const __nv_bfloat16& a);
bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b);
bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b);
bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b);
bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b);
bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b);
bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b);
__nv_bfloat16 hsqrt(__nv_bfloat16 x);
__nv_bfloat16 hexp(__nv_bfloat16 x);
__nv_bfloat16 hexp2(__nv_bfloat16 x);
__nv_bfloat16 hlog2(__nv_bfloat16 x);
__nv_bfloat16 hfloor(__nv_bfloat16 x);
__nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b);
__nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b);
__nv_bfloat162 __float22bfloat162_rn(float2 f);
float2 __bfloat1622float2(__nv_bfloat162 h);
float __bfloat162float(__nv_bfloat16 x);
