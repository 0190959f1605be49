#include "gpu/device_info.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpu/architectures.hpp"

#if SCREEN_HAVE_CUDA
#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"
#endif

namespace screen::gpu {

bool built_with_cuda() {
#if SCREEN_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

#if SCREEN_HAVE_CUDA
namespace {
// cudaGetDeviceCount fails (rather than returning 0) without a driver; both mean "no GPU".
cudaError_t query_count(int* count) {
  *count = 0;
  cudaError_t err = cudaGetDeviceCount(count);
  if (err != cudaSuccess) {
    *count = 0;
    (void)cudaGetLastError();  // clear the sticky-free error so later calls start clean
  }
  return err;
}
}  // namespace

int cuda_device_count() {
  int count = 0;
  query_count(&count);
  return count;
}

std::string gpu_unusable_reason(int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return fmt::format("GPU {} cannot be queried", device);
  }
  const std::string why = architecture_mismatch(major, minor, built_architectures());
  if (why.empty()) return "";
  cudaDeviceProp prop{};
  const bool named = cudaGetDeviceProperties(&prop, device) == cudaSuccess;
  if (!named) (void)cudaGetLastError();
  return fmt::format("GPU {}{} has {}", device, named ? fmt::format(" ({})", prop.name) : std::string(), why);
}

int gpu_count() {
  const int count = cuda_device_count();
  for (int d = 0; d < count; ++d)
    if (!gpu_unusable_reason(d).empty()) return d;
  return count;
}

std::string no_gpu_reason() {
  int count = 0;
  cudaError_t err = query_count(&count);
  if (err != cudaSuccess) return std::string("no usable GPU: ") + cudaGetErrorString(err);
  if (count == 0) return "no GPU found";
  if (gpu_count() == 0) return gpu_unusable_reason(0);
  return "";
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  int count = gpu_count();
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    DeviceInfo info;
    info.index = d;
    info.name = prop.name;
    info.sm_major = prop.major;
    info.sm_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.total_memory = prop.totalGlobalMem;
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemGetInfo(&info.free_memory, &info.total_memory));
    out.push_back(info);
  }
  return out;
}

BackgroundInit::BackgroundInit(std::vector<int> gpus)
    : thread_([gpus = std::move(gpus)] {
        const int count = gpu_count();
        for (int d = 0; d < count; ++d) {
          if (!gpus.empty() && std::find(gpus.begin(), gpus.end(), d) == gpus.end()) continue;
          if (cudaSetDevice(d) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) (void)cudaGetLastError();
        }
      }) {}
#else
BackgroundInit::BackgroundInit(std::vector<int>) {}
int cuda_device_count() { return 0; }
int gpu_count() { return 0; }
std::string gpu_unusable_reason(int) { return "this screen was built without CUDA (-DSCREEN_CUDA=OFF or no nvcc)"; }
std::string no_gpu_reason() { return "this screen was built without CUDA (-DSCREEN_CUDA=OFF or no nvcc)"; }
std::vector<DeviceInfo> list_devices() { return {}; }
#endif

std::size_t planning_budget(std::size_t usable, std::size_t total, double fraction, std::size_t cap) {
  const std::size_t reserve = std::max<std::size_t>(std::size_t{256} << 20, total / 50);
  const double share = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(usable);
  std::size_t budget = std::min(static_cast<std::size_t>(share), usable > reserve ? usable - reserve : 0);
  if (cap > 0) budget = std::min(budget, cap);
  return budget;
}

BackgroundInit::~BackgroundInit() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace screen::gpu
