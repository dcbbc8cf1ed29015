extern "C" __global__ void __launch_bounds__(1024, 2) spill_kernel(float* out, const float* in, int n) {
  float acc[48];
  for (int i = 0; i < 48; ++i) acc[i] = in[threadIdx.x + i * n];
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + r) % 48] + in[i];
  float s = 0;
  for (int i = 0; i < 48; ++i) s += acc[i];
  out[threadIdx.x] = s;
}
