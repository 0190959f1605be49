// The fast CPU path against the plain reference: scores, sites, optional fields and tracebacks
// identical on many random pairs, windows and both weight settings (16- and 32-bit cells); the
// public vectors through the fast path; interact_batch's order and thread independence.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/interact.hpp"

namespace screen::bpmax {
namespace {

using test::codes;
using test::expect_same_site;

PairWeights weights_321() { return make_pair_weights(3, 2, 1, "t"); }
PairWeights weights_half() { return make_pair_weights(3, 1, 1.5, "t"); }
// Large enough that max_possible_score overflows 16 bits: the 32-bit cells.
PairWeights weights_wide() { return make_pair_weights(1000, 700, 300.5, "t"); }

Params make_params(const PairWeights& w, int w1, int w2) {
  Params p;
  p.weights = w;
  p.query_window = w1;
  p.target_window = w2;
  return p;
}


// Every cell of the band, not only the site: the two paths hold the same tables.
void expect_same_tables(const ReferenceTables& r, const CpuTables& c) {
  const Band& b = r.band();
  ASSERT_EQ(b.l1, c.band().l1);
  ASSERT_EQ(b.l2, c.band().l2);
  long long bad = 0;
  for (int i1 = 0; i1 < b.n; ++i1)
    for (int j1 = i1; j1 < b.n && j1 - i1 < b.l1; ++j1)
      for (int i2 = 0; i2 < b.m; ++i2)
        for (int j2 = i2; j2 < b.m && j2 - i2 < b.l2; ++j2)
          if (r.F(i1, j1, i2, j2) != c.F(i1, j1, i2, j2) && bad++ < 5)
            ADD_FAILURE() << "F(" << i1 << "," << j1 << "," << i2 << "," << j2 << ") ref " << r.F(i1, j1, i2, j2)
                          << " cpu " << c.F(i1, j1, i2, j2);
  EXPECT_EQ(bad, 0);
  for (int i = 0; i < b.n; ++i)
    for (int j = i; j < b.n && j - i < b.l1; ++j) EXPECT_EQ(r.S1(i, j), c.S1(i, j)) << i << " " << j;
  for (int i = 0; i < b.m; ++i)
    for (int j = i; j < b.m && j - i < b.l2; ++j) ASSERT_EQ(r.S2(i, j), c.S2(i, j)) << i << " " << j;
}

struct Case {
  int n, m, w1, w2;
};

void check_case(std::mt19937& rng, const Case& c, const PairWeights& w, bool with_n, int threads, bool tables) {
  const std::string x = test::random_letters(rng, c.n, with_n), y = test::random_letters(rng, c.m, with_n);
  const Params p = make_params(w, c.w1, c.w2);
  const auto xc = codes(x), yc = codes(y);
  const std::string what = x + " " + y + " w1=" + std::to_string(c.w1) + " w2=" + std::to_string(c.w2) +
                           " threads=" + std::to_string(threads);
  SCOPED_TRACE(what);
  const ReferenceTables ref(xc.data(), c.n, yc.data(), c.m, p);
  const CpuTables cpu(xc.data(), c.n, yc.data(), c.m, p, threads);
  EXPECT_EQ(cpu.narrow(), cpu_uses_16bit(c.n, c.m, p));
  if (w.cg > 100) {
    EXPECT_FALSE(cpu.narrow());
  }
  if (tables) expect_same_tables(ref, cpu);
  const SiteResult want = find_site(ref, true);
  const SiteResult got = find_site(static_cast<const TableView&>(cpu), true);
  expect_same_site(want, got, what);
  test::check_structure(x, y, p, got);
  expect_same_site(want, interact_cpu(xc.data(), c.n, yc.data(), c.m, p, true, threads), what + " interact_cpu");
}

// Window settings for a strand of length n: 0 (whole), small, exact, larger.
std::vector<int> windows(std::mt19937& rng, int n) {
  std::uniform_int_distribution<int> small(1, std::max(1, std::min(n, 12)));
  return {0, small(rng), n, n + 5};
}

TEST(BpmaxCpu, EqualsReferenceOnSmallRandomPairsEveryWindowAndCell) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> len(1, 14);
  int cases = 0;
  for (int rep = 0; rep < 24; ++rep) {
    const int n = len(rng), m = len(rng) + (rep % 3) * 8;
    for (int w1 : windows(rng, n))
      for (int w2 : windows(rng, m))
        for (const PairWeights& w : {weights_321(), weights_half()}) {
          check_case(rng, {n, m, w1, w2}, w, rep % 4 == 0, 1 + rep % 2, true);
          ++cases;
        }
  }
  EXPECT_EQ(cases, 24 * 16 * 2);
}

TEST(BpmaxCpu, EqualsReferenceWithThirtyTwoBitCells) {
  std::mt19937 rng(77);
  for (const Case& c : {Case{9, 60, 0, 0}, Case{14, 64, 0, 60}, Case{20, 50, 0, 0}, Case{6, 130, 0, 70}}) {
    check_case(rng, c, weights_wide(), false, 1, true);
    check_case(rng, c, weights_wide(), true, 2, false);
  }
}

// Sizes across tile boundaries (256 columns) and the vector padding, windows small to exact.
TEST(BpmaxCpu, EqualsReferenceOnLargerPairs) {
  std::mt19937 rng(4242);
  const std::vector<Case> cases{{23, 300, 0, 12}, {40, 300, 0, 6},  {30, 270, 10, 20}, {12, 520, 0, 16},
                                {23, 80, 0, 0},   {17, 257, 5, 31}, {40, 140, 40, 9},  {8, 200, 3, 200}};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const PairWeights w = k % 2 ? weights_half() : weights_321();
    check_case(rng, cases[k], w, k % 3 == 0, 1 + static_cast<int>(k % 2), k < 2);
  }
}

// Term 1 runs groups of rows in registers (8 rows of 16-bit cells, 4 of 32-bit), the rows a column
// block has left over (m - cb mod 8, or mod 4) one by one first: targets of 120 to 127 nt (and 64 to 67
// with 32-bit cells) leave every remainder over, every cell compared; and a traceback's window, 23 x 128.
TEST(BpmaxCpu, EqualsReferenceAcrossTheRowGroups) {
  std::mt19937 rng(31337);
  for (int m = 120; m < 128; ++m) check_case(rng, {4, m, 0, 0}, weights_321(), false, 1, true);
  check_case(rng, {23, 128, 0, 0}, weights_321(), false, 1, true);
  for (int m = 64; m < 68; ++m) check_case(rng, {4, m, 0, 0}, weights_wide(), false, 1, true);
}

TEST(BpmaxCpu, EmptyStrands) {
  const auto x = codes("ACGU");
  const Params p;
  for (auto [n, m] : {std::pair{0, 4}, std::pair{4, 0}, std::pair{0, 0}}) {
    const SiteResult want = interact_reference(x.data(), n, x.data(), m, p, true);
    const SiteResult got = interact_cpu(x.data(), n, x.data(), m, p, true, 2);
    expect_same_site(want, got, "empty");
  }
}

TEST(BpmaxCpu, SixteenBitChoiceFollowsTheBound) {
  Params p;
  EXPECT_TRUE(cpu_uses_16bit(23, 20000, make_params(weights_321(), 0, 128)));
  EXPECT_TRUE(cpu_uses_16bit(2000, 20000, make_params(weights_half(), 0, 128)));
  EXPECT_FALSE(cpu_uses_16bit(2000, 20000, make_params(weights_half(), 0, 0)));
  EXPECT_FALSE(cpu_uses_16bit(30, 30, make_params(weights_wide(), 0, 0)));
  // 23 x 20,000 with window 128: about N(N+1)/2 x M x W2 16-bit cells, never N^2 M^2.
  const double bytes = static_cast<double>(cpu_table_bytes(23, 20000, make_params(weights_321(), 0, 128)));
  EXPECT_GT(bytes, 276.0 * 20000 * 128 * 2);
  EXPECT_LT(bytes, 276.0 * 20000 * 128 * 2 * 1.02);
  EXPECT_DOUBLE_EQ(term1_updates(23, 20000, make_params(weights_321(), 0, 128)), 2024.0 * (20000.0 * 8128 - 690880));
  (void)p;
}

}  // namespace
}  // namespace screen::bpmax
