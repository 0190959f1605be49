#include "engine/device_set.hpp"

#include <omp.h>

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "gpu/device_info.hpp"

namespace screen::engine {

ThreadSplit split_threads(int threads, int gpus) {
  ThreadSplit s;
  if (gpus <= 0) {
    s.cpu_worker = std::max(threads, 1);
    return s;
  }
  s.per_gpu = std::clamp(threads / (gpus + 1), 1, 4);
  const int rest = threads - gpus * s.per_gpu;
  if (rest >= 2)
    s.cpu_worker = rest;
  else if (rest == 1)
    s.first_gpu_extra = 1;
  return s;
}

namespace {

std::vector<int> gpu_ids(const manifest::Resources& r) {
  switch (r.devices) {
    case manifest::DeviceMode::cpu: return {};
    case manifest::DeviceMode::automatic: {
      const int usable = gpu::gpu_count(), present = gpu::cuda_device_count();
      if (!gpu::built_with_cuda() || usable == 0) {
        // A GPU this build has no code for is worth a warning: the run will take the CPU's time.
        spdlog::log(present > 0 ? spdlog::level::warn : spdlog::level::info,
                    "resources.devices is auto and no GPU is usable ({}); running on the CPU", gpu::no_gpu_reason());
        return {};
      }
      if (usable < present)
        spdlog::warn("resources.devices is auto: GPUs {} to {} are left out ({}); CUDA_VISIBLE_DEVICES chooses others",
                     usable, present - 1, gpu::gpu_unusable_reason(usable));
      std::vector<int> ids(static_cast<std::size_t>(usable));
      for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int>(k);
      return ids;
    }
    case manifest::DeviceMode::gpus: {
      if (r.gpu_ids.empty()) throw ResourceError("resources.devices lists no GPU");
      const int count = gpu::gpu_count(), present = gpu::cuda_device_count();
      for (const int id : r.gpu_ids) {
        if (id >= count && id < present) {
          const std::string own = gpu::gpu_unusable_reason(id);
          throw ResourceError(own.empty() ? fmt::format("resources.devices: GPU {} could run this build, but GPU {} before it "
                                                        "cannot ({}); CUDA_VISIBLE_DEVICES={} shows it alone, as GPU 0",
                                                        id, count, gpu::gpu_unusable_reason(count), id)
                                          : fmt::format("resources.devices: GPU {} is not usable: {} (or run on the CPU: "
                                                        "resources.devices: cpu)",
                                                        id, own));
        }
        if (id < 0 || id >= count)
          throw ResourceError(count == 0 ? fmt::format("resources.devices: GPU {} is not usable: {}", id,
                                                       gpu::no_gpu_reason())
                                         : fmt::format("resources.devices: GPU {} does not exist (this machine has {} "
                                                       "GPU{})",
                                                       id, count, count == 1 ? "" : "s"));
      }
      return r.gpu_ids;
    }
  }
  throw Error(ExitCode::internal, "make_workers: no device mode");
}

}  // namespace

std::vector<std::shared_ptr<Device>> make_workers(const manifest::Resources& r, int threads) {
  const int total = threads > 0 ? threads : omp_get_max_threads();
  const std::vector<int> ids = gpu_ids(r);
  const ThreadSplit split = split_threads(total, static_cast<int>(ids.size()));
  std::vector<std::shared_ptr<Device>> out;
  for (std::size_t k = 0; k < ids.size(); ++k)
    out.push_back(make_gpu_device(ids[k], split.per_gpu + (k == 0 ? split.first_gpu_extra : 0), r.gpu_memory_fraction));
  if (split.cpu_worker > 0) out.push_back(make_cpu_device(split.cpu_worker));
  return out;
}

}  // namespace screen::engine
