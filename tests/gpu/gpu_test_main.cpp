// screen_gpu_tests: prints which GPU it runs on (or why none), then runs the GPU tests.
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu/device_info.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const auto devices = screen::gpu::list_devices();
  if (devices.empty()) {
    std::printf("screen_gpu_tests: no GPU (%s): GPU tests will be SKIPPED\n", screen::gpu::no_gpu_reason().c_str());
  }
  for (const auto& d : devices) {
    std::printf("screen_gpu_tests: GPU %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", d.index, d.name.c_str(), d.sm_major,
                d.sm_minor, d.multiprocessors, static_cast<double>(d.total_memory) / (1 << 30));
  }
  return RUN_ALL_TESTS();
}
