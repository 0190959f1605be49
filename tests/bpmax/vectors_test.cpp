// The public vectors of the original BPMax program (tests/data/bpmax_reference_scores.tsv, a copy
// of copied into tests/data/bpmax_reference_scores.tsv): full score and both single-strand scores,
// both weight settings, reproduced exactly by the reference, windowed or not, with tracebacks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "vector_rows.hpp"

namespace screen::bpmax {
namespace {

using test::read_rows;
using test::units;

TEST(BpmaxVectors, FileHasBothWeightSettings) {
  const auto rows = read_rows();
  EXPECT_EQ(rows.size(), 24u);
  int whole = 0, half = 0;
  for (const auto& r : rows) (make_pair_weights(r.cg, r.au, r.gu, "t").scale == 1 ? whole : half)++;
  EXPECT_EQ(whole, 12);
  EXPECT_EQ(half, 12);
}

TEST(BpmaxVectors, ReferenceReproducesEveryRow) {
  for (const auto& row : read_rows()) {
    SCOPED_TRACE(row.id);
    Params p;
    p.weights = make_pair_weights(row.cg, row.au, row.gu, "vectors");
    const auto x = test::codes(row.query), y = test::codes(row.target);
    const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
    const SiteResult r = interact_reference(x.data(), n, y.data(), m, p, true);
    ASSERT_TRUE(r.full.has_value());
    ASSERT_TRUE(r.query_single.has_value());
    ASSERT_TRUE(r.target_single.has_value());
    EXPECT_EQ(*r.full, units(row.full, p.weights.scale));
    EXPECT_EQ(r.score, *r.full);
    EXPECT_EQ(*r.query_single, units(row.s_query, p.weights.scale));
    EXPECT_EQ(*r.target_single, units(row.s_target, p.weights.scale));
    EXPECT_EQ(std::stod(format_score(*r.full, p.weights.scale)), std::stod(row.full));
    EXPECT_EQ(r.query_begin, 1);
    EXPECT_EQ(r.query_end, n);
    EXPECT_EQ(r.target_begin, 1);
    EXPECT_EQ(r.target_end, m);
    test::check_structure(row.query, row.target, p, r);
  }
}

// Windows equal to or longer than the strands are the unwindowed computation.
TEST(BpmaxVectors, CoveringWindowsGiveTheFullScore) {
  for (const auto& row : read_rows()) {
    SCOPED_TRACE(row.id);
    const auto x = test::codes(row.query), y = test::codes(row.target);
    const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
    for (int extra : {0, 3}) {
      Params p;
      p.weights = make_pair_weights(row.cg, row.au, row.gu, "vectors");
      p.query_window = n + extra;
      p.target_window = m + extra;
      const SiteResult r = interact_reference(x.data(), n, y.data(), m, p, false);
      ASSERT_TRUE(r.full.has_value());
      EXPECT_EQ(r.score, units(row.full, p.weights.scale));
      EXPECT_EQ(*r.target_single, units(row.s_target, p.weights.scale));
    }
  }
}

// The single-strand columns are weighted Nussinov vectors: the Nussinov reference agrees.
TEST(BpmaxVectors, SingleStrandColumnsMatchNussinov) {
  for (const auto& row : read_rows()) {
    SCOPED_TRACE(row.id);
    nussinov::Params np;
    np.min_loop = 3;
    np.weights = make_pair_weights(row.cg, row.au, row.gu, "vectors");
    const auto x = test::codes(row.query), y = test::codes(row.target);
    EXPECT_EQ(nussinov::fold_reference(x.data(), static_cast<int>(x.size()), np, false).score,
              units(row.s_query, np.weights.scale));
    EXPECT_EQ(nussinov::fold_reference(y.data(), static_cast<int>(y.size()), np, false).score,
              units(row.s_target, np.weights.scale));
  }
}

}  // namespace
}  // namespace screen::bpmax
