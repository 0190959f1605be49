// planning_budget (lib/gpu/device_info.hpp): the device bytes a stage plans its buffers for. The
// fraction of resources.gpu_memory_fraction, never the reserve that the buffers no plan counts need
// (a fraction of 1 once let a BPMax batch's tables take every free byte), and the caller's cap.
#include <gtest/gtest.h>

#include <cstddef>

#include "gpu/device_info.hpp"

namespace {

using screen::gpu::planning_budget;

constexpr std::size_t kGiB = std::size_t{1} << 30, kMiB = std::size_t{1} << 20;

TEST(PlanningBudget, AFractionBelowTheReserveIsThatFraction) {
  // 80 GiB card, 79 GiB free: 90% of it leaves more than the reserve (2% of 80 GiB = 1.6 GiB).
  EXPECT_EQ(planning_budget(79 * kGiB, 80 * kGiB, 0.9), static_cast<std::size_t>(0.9 * static_cast<double>(79 * kGiB)));
  EXPECT_EQ(planning_budget(10 * kGiB, 80 * kGiB, 0.5), 5 * kGiB);
}

TEST(PlanningBudget, AWholeFractionKeepsTheReserve) {
  EXPECT_EQ(planning_budget(79 * kGiB, 80 * kGiB, 1.0), 79 * kGiB - 80 * kGiB / 50);
  // Small cards: at least 256 MiB.
  EXPECT_EQ(planning_budget(4 * kGiB, 4 * kGiB, 1.0), 4 * kGiB - 256 * kMiB);
  // Fractions past 1 count as 1; nothing free past the reserve leaves nothing.
  EXPECT_EQ(planning_budget(79 * kGiB, 80 * kGiB, 3.0), planning_budget(79 * kGiB, 80 * kGiB, 1.0));
  EXPECT_EQ(planning_budget(200 * kMiB, 80 * kGiB, 1.0), 0u);
  EXPECT_EQ(planning_budget(79 * kGiB, 80 * kGiB, -1.0), 0u);
}

TEST(PlanningBudget, TheCapBoundsIt) {
  EXPECT_EQ(planning_budget(79 * kGiB, 80 * kGiB, 0.9, 3 * kGiB), 3 * kGiB);
  EXPECT_EQ(planning_budget(79 * kGiB, 80 * kGiB, 0.01, 3 * kGiB), static_cast<std::size_t>(0.01 * static_cast<double>(79 * kGiB)));
}

}  // namespace
