#pragma once
// SCREEN_REQUIRE_GPU(): first line of every GPU test; marks the test SKIPPED when no GPU is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "gpu/device_info.hpp"

#define SCREEN_REQUIRE_GPU()                                                          \
  do {                                                                                \
    if (::screen::gpu::gpu_count() == 0) GTEST_SKIP() << ::screen::gpu::no_gpu_reason(); \
  } while (0)

namespace screen::testing {

// Runs fn(k) for k in [0, count) on all cores: the CPU references the GPU is compared with are
// O(n^3) per call, and the GPU machine has 16 cores.
template <class Fn>
void parallel_for(std::size_t count, Fn fn) {
  const unsigned nth = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < nth; ++w)
    pool.emplace_back([&] {
      for (std::size_t k = next++; k < count; k = next++) fn(k);
    });
  for (auto& t : pool) t.join();
}

}  // namespace screen::testing
