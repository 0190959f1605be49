// The ceiling bench's kernels (kernels/ceiling): every instruction form of the max-plus step gives the
// tiles the CPU computes, in the first and the last block, for loops shorter than, as long as and
// longer than the operand slots' cycle, so that a timing is a timing of the right computation.
#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"
#include "kernels/ceiling/ceiling_launch.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace kc = screen::kernels::ceiling;

TEST(GpuCeiling, EveryFormGivesTheTilesOfTheCpu) {
  SCREEN_REQUIRE_GPU();
  const kc::Inputs in = kc::make_inputs(27112026);
  for (const int steps : {4, kc::kSlots, 3 * kc::kSlots + 4, 400})
    for (const kc::Form f : kc::all_forms())
      EXPECT_EQ(kc::tile_mismatch(kc::final_tiles(f, in, 0, steps, 5), kc::expected_tile(in, steps), 5), "")
          << kc::form_name(f) << ", " << steps << " steps";
}

// Every occupancy shape of the bench's second table holds the blocks it asks for, and its tiles (larger
// blocks repeat the operands of threads t % 128) are the CPU's.
TEST(GpuCeiling, EveryShapeRunsAsAskedAndGivesTheTilesOfTheCpu) {
  SCREEN_REQUIRE_GPU();
  const kc::Inputs in = kc::make_inputs(2611);
  for (const kc::Shape shape : kc::occupancy_shapes()) {
    EXPECT_EQ(kc::resident_blocks(kc::Form::fused16, shape, 0), shape.blocks_per_sm) << shape.blocks_per_sm << " x " << shape.threads;
    for (const int steps : {4, 3 * kc::kSlots + 4})
      EXPECT_EQ(kc::tile_mismatch(kc::final_tiles(kc::Form::fused16, in, 0, steps, 7, shape),
                                  kc::expected_block(in, steps, shape.threads), 7),
                "")
          << shape.blocks_per_sm << " x " << shape.threads << ", " << steps << " steps";
  }
  EXPECT_THROW(kc::resident_blocks(kc::Form::fused32, kc::Shape{1, 256}, 0), screen::UsageError);
  EXPECT_THROW(kc::resident_blocks(kc::Form::wide16, kc::Shape{2, 64}, 0), screen::UsageError);  // constant offsets: 128 threads
  EXPECT_THROW(kc::resident_blocks(kc::Form::fused16, kc::Shape{5, 128}, 0), screen::UsageError);
}

// The model itself: fewer steps than slots see only the first slots (a cell can only grow with more).
TEST(GpuCeiling, TheCpuModelGrowsWithTheSlotsVisited) {
  const kc::Inputs in = kc::make_inputs(5);
  const std::vector<int> four = kc::expected_tile(in, 4), all = kc::expected_tile(in, kc::kSlots);
  int grew = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    EXPECT_GE(all[k], four[k]);
    grew += all[k] > four[k];
  }
  EXPECT_GT(grew, 0);
  EXPECT_EQ(kc::expected_tile(in, 40 * kc::kSlots), all);
}

// The comparison names the first wrong cell by block, thread and cell, and a short result as such.
TEST(GpuCeiling, AMismatchNamesItsBlockThreadAndCell) {
  const std::vector<int> want = kc::expected_tile(kc::make_inputs(9), 8);
  std::vector<int> got(want);
  got.insert(got.end(), want.begin(), want.end());
  EXPECT_EQ(kc::tile_mismatch(got, want, 5), "");
  got[want.size() + 5 * kc::kTileCells + 12] += 1;
  EXPECT_EQ(kc::tile_mismatch(got, want, 5), "block 4, thread 5, cell 12: " + std::to_string(want[5 * kc::kTileCells + 12] + 1) +
                                                 ", the CPU gives " + std::to_string(want[5 * kc::kTileCells + 12]));
  got.pop_back();
  EXPECT_NE(kc::tile_mismatch(got, want, 5).find("cells for two blocks"), std::string::npos);
}

}  // namespace
