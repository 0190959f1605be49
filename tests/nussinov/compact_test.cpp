// The compact path (tile-packed relative 16-bit cells) against the reference, the bounds its format
// rests on, and which table each length gets (the plan's memory estimates follow that choice).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "stages/nussinov/compact.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/packed_layout.hpp"
#include "stages/nussinov/reference.hpp"
#include "stages/nussinov/traceback.hpp"
#include "tests/nussinov/test_util.hpp"

namespace screen::nussinov::testing {
namespace {

namespace pk = packed;

Params with_weights(double cg, double au, double gu, int min_loop = 3, int max_span = 0) {
  Params p;
  p.min_loop = min_loop;
  p.max_span = max_span;
  p.weights = make_pair_weights(cg, au, gu, "test");
  return p;
}

// Every weight set the compact path takes, including the largest (64 score units: 32 in half units).
std::vector<PairWeights> compact_weight_sets() {
  return {make_pair_weights(1, 1, 1, "w"), make_pair_weights(3, 2, 1, "w"), make_pair_weights(3, 1, 1.5, "w"),
          make_pair_weights(64, 63, 1, "w"), make_pair_weights(32, 0.5, 31.5, "w")};
}

TEST(NussinovCompact, RandomSequencesMatchReferenceWithTracebacks) {
  std::mt19937 rng(2026);
  const auto weights = compact_weight_sets();
  const int spans[] = {0, 0, 0, 12, 40, 150, 300};
  // Lengths over 1..450 with the tile edges (63..66, 127..130, 191, 192) hit often.
  const int edges[] = {1, 2, 3, 5, 62, 63, 64, 65, 66, 126, 127, 128, 129, 130, 191, 192};
  for (int rep = 0; rep < 300; ++rep) {
    const int n = rep % 3 == 0 ? edges[static_cast<std::size_t>(rep / 3) % 16] : 1 + static_cast<int>(rng() % 450);
    Params p;
    p.min_loop = static_cast<int>(rng() % 5);
    p.max_span = spans[rng() % 7];
    p.weights = weights[rng() % weights.size()];
    const auto s = random_codes(rng, n, rep % 4 == 0 ? 16 : 0);
    const auto ref = fold_reference(s.data(), n, p, true);
    const auto got = fold_compact(s.data(), n, p, true, 1 + rep % 2);
    ASSERT_EQ(got.score, ref.score) << "n=" << n << " " << describe(p);
    ASSERT_EQ(got.structure, ref.structure) << "n=" << n << " " << describe(p);
    ASSERT_EQ(score_structure(s.data(), n, p, got.structure), got.score);
  }
}

// The format's premise: a tile's cells lie within 2 (kTile - 1) w of each other, so the offsets from
// its minimum fit; and every cell of tile (I, J) is at least base(I+1, J-1) and at most
// 254 w above it (the reference the GPU's products are kept relative to).
TEST(NussinovCompact, TileRangesAndReferencesStayInsideTheProvenBounds) {
  std::mt19937 rng(7);
  for (const auto& w : compact_weight_sets()) {
    Params p;
    p.min_loop = 0;  // the most pairs: the steepest tables
    p.weights = w;
    const int wmax = pk::max_weight(w);
    const int n = 700;
    std::vector<std::uint8_t> s = random_codes(rng, n);
    // A stretch that pairs with its mirror at every position: as steep as a table gets.
    for (int k = 0; k < 200; ++k) {
      s[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k % 2 == 0 ? 1 : 2);  // C / G
      s[static_cast<std::size_t>(399 - k)] = static_cast<std::uint8_t>(k % 2 == 0 ? 2 : 1);
    }
    const CompactTable t = compact_table(s.data(), n, p, 2);
    int widest = 0;
    for (int I = 0; I < t.nt; ++I)
      for (int J = I; J < t.nt; ++J) {
        const std::size_t tile = pk::tile_index(I, J, t.nt);
        const auto* c = t.cells.data() + tile * pk::kTile * pk::kTile;
        const int lo = *std::min_element(c, c + pk::kTile * pk::kTile);
        const int hi = *std::max_element(c, c + pk::kTile * pk::kTile);
        ASSERT_EQ(lo, 0) << "the base is the tile's minimum";
        ASSERT_LE(hi, 2 * (pk::kTile - 1) * wmax) << "tile (" << I << ", " << J << ")";
        widest = std::max(widest, hi);
        if (J - I >= 2) {
          const int R = t.base[pk::tile_index(I + 1, J - 1, t.nt)];
          ASSERT_GE(t.base[tile], R);
          ASSERT_LE(t.base[tile] + hi - R, 254 * wmax);
        }
      }
    EXPECT_GT(widest, 20 * wmax) << "the test table should be steep";
  }
}

// The one cell choice every path and estimate uses: max_possible_score(n) = (n / 2) * w is 32,767 at
// 65,535 nt with unit weights and 32,768 from 65,536; relative cells need weights of at most 64.
TEST(NussinovCompact, CellChoiceAtTheBoundaries) {
  const PairWeights unit;
  EXPECT_TRUE(pk::fits_plain16(65535, unit));
  EXPECT_FALSE(pk::uses_relative(65535, unit));
  EXPECT_FALSE(pk::fits_plain16(65536, unit));
  EXPECT_TRUE(pk::uses_relative(65536, unit));
  EXPECT_TRUE(pk::uses_relative(205012, unit));
  const PairWeights w64 = make_pair_weights(64, 1, 1, "w"), w65 = make_pair_weights(65, 1, 1, "w");
  EXPECT_TRUE(pk::uses_relative(1024, w64));
  EXPECT_FALSE(pk::uses_relative(1100, w65));  // 32-bit cells instead
  EXPECT_FALSE(pk::fits_plain16(1100, w65));
}

TEST(NussinovCompact, RefusesWeightsItsOffsetsCannotHold) {
  const auto s = codes("GGGGAAAACCCC");
  EXPECT_THROW(compact_table(s.data(), 12, with_weights(65, 1, 1), 1), UsageError);
  EXPECT_NO_THROW(compact_table(s.data(), 12, with_weights(64, 1, 1), 1));
}

// fold_cpu takes the compact path once the score bound leaves 16 bits (here at 1,024 nt with
// weights of 64), and agrees with the reference there.
TEST(NussinovCompact, FoldCpuUsesItBeyondTheSixteenBitBound) {
  const Params p = with_weights(64, 64, 64, 0, 0);
  EXPECT_LE(max_possible_score(1023, p.weights), 32767);
  EXPECT_GT(max_possible_score(1024, p.weights), 32767);
  EXPECT_EQ(cpu_table_bytes(1023, p), mirror_table_bytes(1023, p));
  EXPECT_EQ(cpu_table_bytes(1024, p), compact_bytes(1024));
  std::mt19937 rng(5);
  const auto s = random_codes(rng, 1400);
  const auto ref = fold_reference(s.data(), 1400, p, true);
  const auto got = fold_cpu(s.data(), 1400, p, true, 2);
  EXPECT_EQ(got.score, ref.score);
  EXPECT_GT(got.score, 32767) << "the score itself is past int16";
  EXPECT_EQ(got.structure, ref.structure);
}

// Memory the plan is told: unit weights keep the mirrored 16-bit table to 65,535 nt and the n^2
// compact table beyond (205,012 nt: 42 GB, under the default 64 GiB unit limit; the 32-bit mirror
// needed 168 GB); weights past 64 units keep the 32-bit mirror.
TEST(NussinovCompact, MemoryEstimatesFollowThePathTaken) {
  const Params unit;
  EXPECT_EQ(cpu_table_bytes(65535, unit), 2ull * 65535 * 65535);
  EXPECT_EQ(cpu_table_bytes(65536, unit), compact_bytes(65536));
  const std::size_t big = cpu_table_bytes(205012, unit);
  EXPECT_EQ(big, compact_bytes(205012));
  EXPECT_GT(big, 205012ull * 205012ull);
  EXPECT_LT(big, 205012ull * 205012ull + (205012ull * 205012ull) / 20);
  EXPECT_LT(big, 64ull << 30);
  const Params heavy = with_weights(100, 1, 1);
  EXPECT_EQ(cpu_table_bytes(5000, heavy), 4ull * 5000 * 5000);
  // GPU: 2 n^2 with plain cells; about n^2 with relative ones.
  EXPECT_EQ(gpu_fold_bytes(65535, unit), 2ull * 65535 * 65535);
  const std::size_t g = gpu_fold_bytes(205012, unit);
  EXPECT_GT(g, 205012ull * 205012ull);
  EXPECT_LT(g, 205012ull * 205012ull + (205012ull * 205012ull) / 20);
  EXPECT_EQ(gpu_fold_bytes(5000, heavy), 2ull * 5000 * 5000);
}

}  // namespace
}  // namespace screen::nussinov::testing
