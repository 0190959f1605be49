#include "engine/batching.hpp"

#include <algorithm>

namespace screen::engine {

std::size_t batch_end(const std::vector<plan::WorkUnit>& units, std::size_t begin, std::size_t end,
                      const BatchLimits& limits, double max_wall_seconds) {
  const plan::WorkUnit& first = units[begin];
  const double seconds_cap = std::min(limits.seconds, max_wall_seconds * std::max(limits.parallel, 1));
  double seconds = 0;
  std::uint64_t memory = 0;
  std::size_t e = begin;
  while (e < end && e - begin < limits.max_units && units[e].stage == first.stage && units[e].side == first.side) {
    const plan::WorkUnit& u = units[e];
    const bool fits = limits.memory_bytes == 0 || u.gpu_memory_bytes <= limits.memory_bytes;
    if (e > begin) {
      if (seconds >= seconds_cap) break;
      if (limits.memory_bytes != 0 && fits && memory + u.gpu_memory_bytes > limits.memory_bytes) break;
    }
    seconds += plan::unit_seconds(u, limits.kind);
    if (limits.memory_bytes != 0 && fits) memory += u.gpu_memory_bytes;
    ++e;
  }
  return e;
}

std::vector<BatchPart> split_by_gpu_memory(const StageBatch& batch, std::uint64_t budget) {
  std::vector<BatchPart> parts;
  for (std::size_t k = 0; k < batch.count; ++k) {
    const bool on_gpu = batch.units[k].gpu_memory_bytes <= budget;
    if (parts.empty() || parts.back().on_gpu != on_gpu)
      parts.push_back({k, k + 1, on_gpu});
    else
      parts.back().end = k + 1;
  }
  return parts;
}

}  // namespace screen::engine
