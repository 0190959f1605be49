#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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

}  // namespace
