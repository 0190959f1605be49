#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "gpu/architectures.hpp"
#include "gpu/device_info.hpp"
#include "kernels/smoke/smoke_launch.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

TEST(GpuSmoke, FusedAddMaxMatchesHost) {
  SCREEN_REQUIRE_GPU();
  const int n = 1 << 20;
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> dist(-1000000, 1000000);
  std::vector<std::int32_t> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = dist(rng);
    b[i] = dist(rng);
    c[i] = dist(rng);
  }
  const auto out = screen::kernels::smoke_add_max(a, b, c);
  ASSERT_EQ(out.size(), a.size());
  int mismatches = 0;
  for (int i = 0; i < n; ++i) mismatches += out[i] != std::max(a[i] + b[i], c[i]);
  EXPECT_EQ(mismatches, 0);
}

// The GPU discovery's check of the build's architectures against a real GPU: this GPU runs the kernels
// (the test above launched one), so the check must count it usable; and the build's list is known, so a
// GPU of another major version with no PTX to compile from would be left out with the rebuild named.
TEST(GpuSmoke, TheArchitectureCheckCountsThisGpu) {
  SCREEN_REQUIRE_GPU();
  namespace gpu = screen::gpu;
  EXPECT_EQ(gpu::gpu_count(), gpu::cuda_device_count());
  EXPECT_EQ(gpu::gpu_unusable_reason(0), "");
  EXPECT_EQ(gpu::no_gpu_reason(), "");
  const std::string built = gpu::built_architectures();
  EXPECT_FALSE(built.empty());
  const auto devices = gpu::list_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(gpu::architecture_mismatch(devices[0].sm_major, devices[0].sm_minor, built), "") << built;
  if (built == "90") {
    EXPECT_NE(gpu::architecture_mismatch(8, 0, built), "");
  }
}

}  // namespace
