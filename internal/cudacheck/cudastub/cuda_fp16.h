// Stub of cuda_fp16.h for tilels' g++ compile test (see cuda_runtime.h).
#pragma once
struct __half {
  unsigned short x;
  __half() = default;
  __half(float f);
  __half(double f);
  __half(int i);
  __half(unsigned int i);
  __half(short i);
  __half(unsigned short i);
  __half(long long i);
  __half(unsigned long long i);
  operator float() const;
};
typedef __half half;
struct __attribute__((aligned(4))) __half2 { __half x, y; };
typedef __half2 half2;
__half operator+(const __half& a, const __half& b);
__half operator-(const __half& a, const __half& b);
__half operator*(const __half& a, const __half& b);
__half operator/(const __half& a, const __half& b);
__half operator-(const __half& a);
bool operator==(const __half& a, const __half& b);
bool operator!=(const __half& a, const __half& b);
bool operator<(const __half& a, const __half& b);
bool operator<=(const __half& a, const __half& b);
bool operator>(const __half& a, const __half& b);
bool operator>=(const __half& a, const __half& b);
__half hsqrt(__half x);
__half hexp(__half x);
__half hexp2(__half x);
__half hlog2(__half x);
__half hfloor(__half x);
__half __hmax(__half a, __half b);
__half __hmin(__half a, __half b);
__half2 __float22half2_rn(float2 f);
float2 __half22float2(__half2 h);
