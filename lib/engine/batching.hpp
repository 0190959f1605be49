#pragma once
// How a shard's units are cut into device batches, and how a GPU device splits a batch between the
// GPU and its CPU threads. Pure functions of the plan and the limits, so the rows a shard produces
// do not depend on them (every batch emits its rows in unit order).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/device.hpp"
#include "plan/plan.hpp"

namespace screen::engine {

// The end of the batch that starts at units[begin] (< end): units of one stage (and, for Nussinov,
// one side), at most limits.max_units, while the estimated seconds of the units before the last
// stay under min(limits.seconds, max_wall_seconds x limits.parallel) and, with a memory limit, the sum of the GPU memory
// estimates of the units that fit the budget stays under it. Always at least one unit.
std::size_t batch_end(const std::vector<plan::WorkUnit>& units, std::size_t begin, std::size_t end,
                      const BatchLimits& limits, double max_wall_seconds);

// A run of consecutive units of a batch that go to the same place.
struct BatchPart {
  std::size_t begin = 0, end = 0;  // indices into the batch
  bool on_gpu = true;
};

// The batch cut into maximal runs of units whose gpu_memory_bytes fit `budget` (on_gpu) or do not.
std::vector<BatchPart> split_by_gpu_memory(const StageBatch& batch, std::uint64_t budget);

}  // namespace screen::engine
