// Window pruning (window_pruning.hpp): the bounds hold for every window of the reference's tables, and the
// pruned sites equal the whole pairs' sites, ties included, with the CPU path scoring the segments.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/bpmax/reference.hpp"
#include "stages/bpmax/window_bounds.hpp"
#include "stages/bpmax/window_pruning.hpp"

namespace screen::bpmax {
namespace {

using test::codes;
using test::random_letters;

// Random letters, a repeated motif (many windows tie) or one letter.
std::string target_of(std::mt19937& rng, int m, int kind) {
  if (kind == 0) return random_letters(rng, m);
  if (kind == 1) {
    const std::string motif = random_letters(rng, 1 + static_cast<int>(rng() % 7));
    std::string t;
    while (static_cast<int>(t.size()) < m) t += motif;
    return t.substr(0, static_cast<std::size_t>(m));
  }
  return std::string(static_cast<std::size_t>(m), "ACGU"[rng() % 4]);
}

PairWeights random_weights(std::mt19937& rng) {
  return PairWeights{static_cast<int>(rng() % 6), static_cast<int>(rng() % 6), static_cast<int>(rng() % 6), 1};
}

TEST(WindowBounds, EveryWindowsScoreIsAtMostItsBound) {
  std::mt19937 rng(1128);
  long long windows = 0, tight = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10), m = 1 + static_cast<int>(rng() % 40);
    Params p;
    p.weights = trial % 3 == 0 ? random_weights(rng) : PairWeights{3, 2, 1, 1};
    p.query_window = static_cast<int>(rng() % (n + 1));
    p.target_window = 1 + static_cast<int>(rng() % 16);
    const std::string qs = random_letters(rng, n, trial % 5 == 0), ts = target_of(rng, m, trial % 3);
    const auto x = codes(qs), y = codes(ts);
    const ReferenceTables ref(x.data(), n, y.data(), m, p);
    const Band& b = ref.band();
    const std::vector<std::int32_t> ub = window_upper_bounds(x.data(), n, y.data(), m, p);
    ASSERT_EQ(ub.size(), static_cast<std::size_t>(m - b.l2 + 1));
    for (int i2 = 0; i2 + b.l2 <= m; ++i2)
      for (int i1 = 0; i1 + b.l1 <= n; ++i1) {
        const int f = ref.F(i1, i1 + b.l1 - 1, i2, i2 + b.l2 - 1);
        ASSERT_LE(f, ub[static_cast<std::size_t>(i2)]) << qs << " " << ts << " W1 " << p.query_window << " W2 "
                                                        << p.target_window << " window " << i1 << ", " << i2;
        ++windows;
        tight += f == ub[static_cast<std::size_t>(i2)];
      }
  }
  EXPECT_GT(tight, 0) << "no bound is ever reached: the test would not see one that is too small";
  EXPECT_GT(windows, 5000);
}

// The matching part alone against brute force over every monotone matching of tiny strands.
TEST(WindowBounds, TheMatchingPartIsTheBestMatching) {
  std::mt19937 rng(29);
  const PairTable t = make_pair_table(PairWeights{3, 2, 1, 1});
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 6), l = 1 + static_cast<int>(rng() % 6);
    const auto x = codes(random_letters(rng, n)), z = codes(random_letters(rng, l));
    std::vector<int> spare(static_cast<std::size_t>(n)), col(static_cast<std::size_t>(n) + 1);
    for (int a = 0; a < n; ++a) spare[static_cast<std::size_t>(a)] = query_spare(x.data(), n, a, t);
    // Brute force: recursion over the query, each base unmatched or matched to a later window base.
    std::function<int(int, int)> best = [&](int a, int b) -> int {
      if (a == n) return 0;
      int v = spare[static_cast<std::size_t>(a)] + best(a + 1, b);
      for (int c = b; c < l; ++c) v = std::max(v, 2 * t.at(x[static_cast<std::size_t>(a)], z[static_cast<std::size_t>(c)]) + best(a + 1, c + 1));
      return v;
    };
    EXPECT_EQ(matching_bound2(x.data(), n, spare.data(), z.data(), l, t, col.data()), best(0, 0));
  }
}

TEST(WindowPruning, SitesEqualTheWholePairs) {
  std::mt19937 rng(2611);
  long long pruned_pairs = 0;
  PruneStats stats;
  for (int round = 0; round < 12; ++round) {
    Params p;
    p.weights = round % 4 == 3 ? random_weights(rng) : PairWeights{3, 2, 1, 1};
    if (p.weights.cg + p.weights.au + p.weights.gu == 0) p.weights.cg = 1;
    p.target_window = 8 + static_cast<int>(rng() % 40);
    const int n = 2 + static_cast<int>(rng() % 14);
    p.query_window = round % 3 == 2 ? 1 + static_cast<int>(rng() % n) : 0;
    std::vector<std::vector<std::uint8_t>> xs, ys;
    for (int k = 0; k < 6; ++k) {
      xs.push_back(codes(random_letters(rng, n)));
      const int m = p.target_window * kPruneMinWindows + static_cast<int>(rng() % 300);
      ys.push_back(codes(target_of(rng, m, k % 3)));
    }
    std::vector<PairInput> pairs;
    for (std::size_t k = 0; k < xs.size(); ++k)
      pairs.push_back({{xs[k].data(), n}, {ys[k].data(), static_cast<int>(ys[k].size())}, k, k});
    const WindowBoundsFn bounds = [&](const std::vector<PairInput>& ps) {
      std::vector<std::vector<std::int32_t>> out;
      for (const auto& in : ps) out.push_back(window_upper_bounds(in.query.codes, in.query.length, in.target.codes, in.target.length, p));
      return out;
    };
    const SitesFn sites = [&](const std::vector<PairInput>& ps) {
      std::vector<SiteResult> out;
      for (const auto& in : ps) out.push_back(interact_cpu(in.query.codes, in.query.length, in.target.codes, in.target.length, p, false, 1));
      return out;
    };
    for (const auto& in : pairs) ASSERT_TRUE(prunable(make_band(in.query.length, in.target.length, p), make_pair_table(p.weights)));
    const std::vector<SiteResult> got = score_pruned(pairs, p, bounds, sites, &stats);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      SiteResult want = interact_cpu(xs[k].data(), n, ys[k].data(), static_cast<int>(ys[k].size()), p, false, 1);
      test::expect_same_site(want, got[k], "round " + std::to_string(round) + " pair " + std::to_string(k) + " W2 " +
                                               std::to_string(p.target_window) + " m " + std::to_string(ys[k].size()));
      ++pruned_pairs;
    }
  }
  EXPECT_EQ(stats.pairs, pruned_pairs);
  EXPECT_LE(stats.windows_kept, stats.windows);
  EXPECT_LT(stats.positions_scored, 2 * stats.positions);
  EXPECT_LT(stats.windows_kept, stats.windows) << "no window was ever skipped: the test would not see a wrong skip";
}

// Method::automatic prunes the prunable pairs of a batch (and traces their sites from the sites' windows):
// every site and structure equal Method::cpu's, which computes every window, for 1 and 3 threads and each
// traceback mode, with pairs too short to prune in the same batch.
TEST(WindowPruning, TheAutomaticCpuPathEqualsEveryWindow) {
  std::mt19937 rng(2811);
  Params p;
  p.target_window = 24;
  std::vector<std::vector<std::uint8_t>> xs, ys;
  for (int k = 0; k < 14; ++k) {
    xs.push_back(codes(random_letters(rng, 3 + static_cast<int>(rng() % 12))));
    const int m = k % 4 == 0 ? 30 + static_cast<int>(rng() % 100) : kPruneMinWindows * 24 + static_cast<int>(rng() % 500);
    ys.push_back(codes(target_of(rng, m, k % 3)));
  }
  std::vector<PairInput> pairs;
  for (std::size_t k = 0; k < xs.size(); ++k)
    pairs.push_back({{xs[k].data(), static_cast<int>(xs[k].size())}, {ys[k].data(), static_cast<int>(ys[k].size())}, k, 100 + k});
  for (const TracebackMode tb : {TracebackMode::none(), TracebackMode::top(40), TracebackMode::all()})
    for (int threads : {1, 3}) {
      const auto want = interact_pairs(pairs, p, tb, Method::cpu, threads);
      const auto got = interact_pairs(pairs, p, tb, Method::automatic, threads);
      ASSERT_EQ(got.size(), want.size());
      int traced = 0;
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        EXPECT_EQ(got[k].query_index, want[k].query_index);
        EXPECT_EQ(got[k].target_index, want[k].target_index);
        test::expect_same_site(want[k].site, got[k].site, "pair " + std::to_string(k) + " threads " + std::to_string(threads));
        traced += want[k].site.structure.has_value();
      }
      if (tb.kind != TracebackMode::Kind::none) {
        EXPECT_GT(traced, 0);
      }
    }
}

TEST(WindowPruning, ShortTargetsLongQueriesAndNegativeWeightsAreNotPruned) {
  const PairTable t = make_pair_table(PairWeights{3, 2, 1, 1});
  EXPECT_TRUE(prunable(Band{23, kPruneMinWindows * 128, 23, 128}, t));
  EXPECT_FALSE(prunable(Band{23, kPruneMinWindows * 128 - 1, 23, 128}, t));
  EXPECT_FALSE(prunable(Band{23, 128, 23, 128}, t));
  EXPECT_FALSE(prunable(Band{kMaxBoundQuery + 1, 5000, 20, 128}, t));
  PairTable negative = t;
  negative.w[0] = -1;
  EXPECT_FALSE(prunable(Band{23, 5000, 23, 128}, negative));
}

}  // namespace
}  // namespace screen::bpmax
