#include <cuda_runtime.h>

#include "common/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/smoke/smoke_launch.hpp"

namespace screen::kernels {
namespace {

__global__ void add_max_kernel(const int* a, const int* b, const int* c, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __viaddmax_s32(a[i], b[i], c[i]);  // max(a + b, c), one DPX instruction on sm_90
}

}  // namespace

std::vector<std::int32_t> smoke_add_max(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                                        const std::vector<std::int32_t>& c, int device) {
  if (a.size() != b.size() || a.size() != c.size()) throw UsageError("smoke_add_max: input sizes differ");
  const int n = static_cast<int>(a.size());
  CUDA_CHECK(cudaSetDevice(device));
  gpu::DeviceBuffer<int> da(a.size()), db(b.size()), dc(c.size()), dout(a.size());
  da.upload(a);
  db.upload(b);
  dc.upload(c);
  const int block = 256;
  add_max_kernel<<<(n + block - 1) / block, block>>>(da.get(), db.get(), dc.get(), dout.get(), n);
  CUDA_CHECK_LAUNCH();
  return dout.to_host();
}

}  // namespace screen::kernels
