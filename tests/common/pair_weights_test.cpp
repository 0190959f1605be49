#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/pair_weights.hpp"

namespace screen {
namespace {

TEST(PairWeights, WholeWeightsUseScaleOne) {
  auto w = make_pair_weights(3, 2, 1, "test");
  EXPECT_EQ(w.scale, 1);
  EXPECT_EQ(w.cg, 3);
  EXPECT_EQ(w.au, 2);
  EXPECT_EQ(w.gu, 1);
}

TEST(PairWeights, HalfWeightsUseHalfUnits) {
  auto w = make_pair_weights(3, 1, 1.5, "test");
  EXPECT_EQ(w.scale, 2);
  EXPECT_EQ(w.cg, 6);
  EXPECT_EQ(w.au, 2);
  EXPECT_EQ(w.gu, 3);
  EXPECT_EQ(format_score(91, 2), "45.5");
  EXPECT_EQ(format_score(90, 2), "45");
  EXPECT_EQ(format_score(-3, 2), "-1.5");
}

TEST(PairWeights, RejectsNegativeAndThirds) {
  EXPECT_THROW(make_pair_weights(-1, 1, 1, "t"), UsageError);
  EXPECT_THROW(make_pair_weights(1, 0.3, 1, "t"), UsageError);
}

TEST(PairWeights, ParsesCommandLineForm) {
  auto w = parse_pair_weights("CG=3,AU=2,GU=1", 1, 1, 1);
  EXPECT_EQ(w.cg, 3);
  EXPECT_EQ(w.au, 2);
  w = parse_pair_weights("gu=1.5", 3, 1, 1);
  EXPECT_EQ(w.scale, 2);
  EXPECT_EQ(w.gu, 3);
  EXPECT_EQ(w.cg, 6);
  EXPECT_THROW(parse_pair_weights("CA=1", 1, 1, 1), UsageError);
  EXPECT_THROW(parse_pair_weights("CG=x", 1, 1, 1), UsageError);
  EXPECT_THROW(parse_pair_weights("CG", 1, 1, 1), UsageError);
}

TEST(PairTable, SymmetricAndNPairsWithNothing) {
  auto t = make_pair_table(make_pair_weights(3, 2, 1, "t"));
  EXPECT_EQ(t.at(seq::C, seq::G), 3);
  EXPECT_EQ(t.at(seq::G, seq::C), 3);
  EXPECT_EQ(t.at(seq::A, seq::U), 2);
  EXPECT_EQ(t.at(seq::U, seq::G), 1);
  EXPECT_EQ(t.at(seq::A, seq::A), 0);
  for (int b = 0; b < 5; ++b) EXPECT_EQ(t.at(seq::N, static_cast<std::uint8_t>(b)), 0);
  EXPECT_FALSE(t.unit());
  EXPECT_TRUE(make_pair_table(PairWeights{}).unit());
}

}  // namespace
}  // namespace screen
