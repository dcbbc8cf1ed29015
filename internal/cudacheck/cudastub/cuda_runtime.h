// Minimal stand-in for the CUDA headers, written for tilels' compile test:
// the host g++ checks generated .cu files for syntax and types when no nvcc
// is available (g++ -fsyntax-only -include cuda_runtime.h -I <this dir>).
// It declares only what the code generator uses, with CUDA's conversion
// rules (implicit float <-> half/bfloat16, explicit fp8), so an ambiguous or
// missing conversion fails here as it would under nvcc. Nothing is defined:
// the check never links.
#pragma once
#include <cstddef>
#include <cstdint>
#include <math.h>
#include <string.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __constant__
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))

struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1) : x(x), y(y), z(z) {}
};
extern const uint3 threadIdx;
extern const uint3 blockIdx;
extern const dim3 blockDim;
extern const dim3 gridDim;
extern const int warpSize;

struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
float2 make_float2(float x, float y);

void __syncthreads();
void __syncwarp(unsigned int mask = 0xffffffffu);
int __shfl_sync(unsigned int mask, int var, int src_lane, int width = 32);
template <typename T> T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32);
template <typename T> T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <typename T> T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
unsigned int __activemask();
unsigned int __ballot_sync(unsigned int mask, int predicate);
size_t __cvta_generic_to_shared(const void* ptr);
float __int_as_float(int x);
double __longlong_as_double(long long x);
void __trap();

// ---- device builtins the kernels' own intrinsics call (codegen/cuda/ops_user_*.go) ----
template <typename T> T __ldg(const T* ptr);
float __uint_as_float(unsigned int x);
unsigned int __float_as_uint(float x);
float rsqrtf(float x);
float __fdividef(float x, float y);
template <typename T> T atomicAdd(T* address, T val);
template <typename T> T atomicCAS(T* address, T compare, T val);
int __any_sync(unsigned int mask, int predicate);
unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
int __popc(unsigned int x);
int __popcll(unsigned long long x);
int __ffs(int x);
void __nanosleep(unsigned int ns);
void __threadfence();

int min(int a, int b);
unsigned int min(unsigned int a, unsigned int b);
long long min(long long a, long long b);
float min(float a, float b);
double min(double a, double b);
int max(int a, int b);
unsigned int max(unsigned int a, unsigned int b);
long long max(long long a, long long b);
float max(float a, float b);
double max(double a, double b);

// ---- runtime API used by the host launchers ----
#define CUDART_VERSION 13050
enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
typedef struct CUstream_st* cudaStream_t;
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

// ---- runtime API used by the self-checking harness (codegen/harness) ----
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize(void);
typedef struct CUevent_st* cudaEvent_t;
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value);
enum cudaLaunchAttributeID { cudaLaunchAttributeClusterDimension = 4 };
union cudaLaunchAttributeValue {
  struct { unsigned int x, y, z; } clusterDim;
  char pad[64];
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args);
// As in cuda_runtime.h: the arguments are converted to the kernel's
// parameter types, so a mismatch fails here too.
template <typename... ExpTypes, typename... ActTypes>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(ExpTypes...), ActTypes&&... args) {
  return [&](ExpTypes... coerced) {
    void* p[] = {&coerced...};
    return cudaLaunchKernelExC(config, reinterpret_cast<const void*>(kernel), p);
  }(static_cast<ActTypes&&>(args)...);
}
enum cudaDriverEntryPointQueryResult {
  cudaDriverEntryPointSuccess = 0, cudaDriverEntryPointSymbolNotFound = 1, cudaDriverEntryPointVersionNotSufficent = 2
};
#define cudaEnableDefault 0x0
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags, cudaDriverEntryPointQueryResult* driverStatus);
