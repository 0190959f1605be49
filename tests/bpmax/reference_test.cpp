// The BPMax reference against an independent 4D transcription of bpmax.md, windowed against brute
// force over all windows, tracebacks, tie-breaking, N, the band layout and the structure checker.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "common/error.hpp"

namespace screen::bpmax {
namespace {

using test::codes;
using test::Naive;

PairWeights weights_321() { return make_pair_weights(3, 2, 1, "t"); }
PairWeights weights_half() { return make_pair_weights(3, 1, 1.5, "t"); }

SiteResult run(const std::string& x, const std::string& y, const Params& p, bool tb = true) {
  const auto xc = codes(x), yc = codes(y);
  return interact_reference(xc.data(), static_cast<int>(xc.size()), yc.data(), static_cast<int>(yc.size()), p, tb);
}

Params make_params(const PairWeights& w, int w1, int w2) {
  Params p;
  p.weights = w;
  p.query_window = w1;
  p.target_window = w2;
  return p;
}

TEST(BpmaxDefs, DefaultWeightsAreThreeTwoOne) {
  const Params p;
  const PairWeights w = make_pair_weights(3, 2, 1, "t");
  EXPECT_EQ(p.weights.cg, w.cg);
  EXPECT_EQ(p.weights.au, w.au);
  EXPECT_EQ(p.weights.gu, w.gu);
  EXPECT_EQ(p.weights.scale, w.scale);
  EXPECT_EQ(p.query_window, 0);
  EXPECT_EQ(p.target_window, 0);
}

TEST(BpmaxDefs, ReversedTargetCoordinates) {
  static_assert(reversed_index(10, 0) == 9 && reversed_index(10, 9) == 0, "z_t = y_{M-1-t}");
  static_assert(target_position_1based(10, 0) == 10, "z_0 is the target's last base");
  static_assert(target_begin_1based(10, 5) == 5 && target_end_1based(10, 2) == 8, "z[2..5] = y[4..7]");
  for (int m = 1; m < 20; ++m)
    for (int t = 0; t < m; ++t) {
      EXPECT_EQ(reversed_index(m, reversed_index(m, t)), t);
      EXPECT_EQ(target_position_1based(m, t), reversed_index(m, t) + 1);
    }
  EXPECT_EQ(effective_window(0, 7), 7);
  EXPECT_EQ(effective_window(9, 7), 7);
  EXPECT_EQ(effective_window(3, 7), 3);
}

TEST(BpmaxDefs, BandIndexIsABijection) {
  for (int n : {1, 2, 5, 9})
    for (int m : {1, 3, 7})
      for (int w1 : {0, 1, 2, 4, 20})
        for (int w2 : {0, 1, 3, 20}) {
          Params p = make_params(weights_321(), w1, w2);
          const Band b = make_band(n, m, p);
          std::vector<int> seen(static_cast<std::size_t>(b.f_cell_count()), 0);
          std::set<long long> qseen;
          for (int i1 = 0; i1 < n; ++i1)
            for (int j1 = i1; j1 < n; ++j1) {
              if (j1 - i1 >= b.l1) continue;
              const long long q = query_interval_index(n, i1, j1 - i1);
              EXPECT_TRUE(q >= 0 && q < query_interval_count(n, b.l1));
              EXPECT_TRUE(qseen.insert(q).second);
              for (int i2 = 0; i2 < m; ++i2)
                for (int j2 = i2; j2 < m && j2 - i2 < b.l2; ++j2) {
                  ASSERT_TRUE(b.in_band(i1, j1, i2, j2));
                  const long long k = b.f_index(i1, j1, i2, j2);
                  ASSERT_TRUE(k >= 0 && k < b.f_cell_count());
                  EXPECT_EQ(seen[static_cast<std::size_t>(k)]++, 0);
                }
            }
          EXPECT_EQ(static_cast<long long>(qseen.size()), query_interval_count(n, b.l1));
          EXPECT_FALSE(b.in_band(0, b.l1, 0, 0));
        }
}

// S1 and S2 in the band are the weighted Nussinov table (min_loop 3, max_span = the window).
TEST(BpmaxReference, SingleStrandTablesAreNussinov) {
  std::mt19937 rng(11);
  for (int rep = 0; rep < 40; ++rep) {
    const int n = 1 + static_cast<int>(rng() % 25);
    const std::string x = test::random_letters(rng, n, rep % 3 == 0);
    const std::string y = test::random_letters(rng, n, rep % 4 == 0);
    for (int w : {0, 5, 9, 30}) {
      const PairWeights pw = rep % 2 ? weights_321() : weights_half();
      const auto xc = codes(x), yc = codes(y);
      // Each strand against a one-base partner keeps F small; S1 and S2 do not depend on it.
      const auto one = codes("A");
      const ReferenceTables tq(xc.data(), n, one.data(), 1, make_params(pw, w, w));
      const ReferenceTables tt(one.data(), 1, yc.data(), n, make_params(pw, w, w));
      nussinov::Params np;
      np.min_loop = 3;
      np.max_span = w;
      np.weights = pw;
      const auto nx = nussinov::reference_table(xc.data(), n, np);
      const auto& z = tt.reversed_target();
      const auto nz = nussinov::reference_table(z.data(), n, np);
      EXPECT_EQ(std::vector<std::uint8_t>(yc.rbegin(), yc.rend()), z);
      const int l = effective_window(w, n);
      for (int i = 0; i < n; ++i)
        for (int j = i; j < n && j - i < l; ++j) {
          EXPECT_EQ(tq.S1(i, j), nx[static_cast<std::size_t>(i * n + j)]) << x << " " << i << " " << j;
          EXPECT_EQ(tt.S2(i, j), nz[static_cast<std::size_t>(i * n + j)]) << y << " " << i << " " << j;
        }
    }
  }
}

// Every cell of the banded table, windowed or not, equals the 4D transcription (a cell only reads
// shorter intervals, so windowing never changes a cell it keeps).
TEST(BpmaxReference, EveryCellMatchesTheDirectTable) {
  std::mt19937 rng(7);
  for (int rep = 0; rep < 150; ++rep) {
    const int n = 1 + static_cast<int>(rng() % 10), m = 1 + static_cast<int>(rng() % 12);
    const std::string x = test::random_letters(rng, n, rep % 5 == 0), y = test::random_letters(rng, m, rep % 7 == 0);
    const PairWeights pw = rep % 2 ? weights_321() : weights_half();
    const Naive naive(x, y, pw);
    const auto xc = codes(x), yc = codes(y);
    for (int w1 : {0, 1, 3, 6})
      for (int w2 : {0, 2, 5, 8}) {
        const ReferenceTables t(xc.data(), n, yc.data(), m, make_params(pw, w1, w2));
        const Band& b = t.band();
        for (int i1 = 0; i1 < n; ++i1)
          for (int j1 = i1; j1 < n && j1 - i1 < b.l1; ++j1)
            for (int i2 = 0; i2 < m; ++i2)
              for (int j2 = i2; j2 < m && j2 - i2 < b.l2; ++j2)
                ASSERT_EQ(t.F(i1, j1, i2, j2), naive.F(i1, j1, i2, j2))
                    << x << " " << y << " W " << w1 << "," << w2 << " cell " << i1 << j1 << i2 << j2;
      }
  }
}

// Windowed site = brute force: the UNwindowed score of every query window x[i1 .. i1+L1-1] against
// every target window, taken from the forward target and scanned in the spec's order (increasing
// i1, then increasing i2 of the reversed target, i.e. target windows from the 3' end backwards);
// the first maximum gives the interval.
TEST(BpmaxReference, WindowedSiteEqualsBruteForceOverWindows) {
  std::mt19937 rng(2024);
  int cases = 0;
  for (int rep = 0; rep < 120; ++rep) {
    const int n = 1 + static_cast<int>(rng() % 9), m = 1 + static_cast<int>(rng() % 12);
    const std::string x = test::random_letters(rng, n, rep % 6 == 0), y = test::random_letters(rng, m, rep % 9 == 0);
    const PairWeights pw = rep % 2 ? weights_321() : weights_half();
    for (int w1 : {0, 1, 2, 4, 7})
      for (int w2 : {0, 1, 3, 6, 9}) {
        const Params p = make_params(pw, w1, w2);
        const int l1 = w1 == 0 || w1 > n ? n : w1, l2 = w2 == 0 || w2 > m ? m : w2;
        long long best = -1;
        int best_q = -1, best_t = -1;  // 0-based forward starts
        for (int i1 = 0; i1 + l1 <= n; ++i1)
          for (int t = m - l2; t >= 0; --t) {  // t = forward start; i2 = m - l2 - t increases
            const long long v = Naive(x.substr(static_cast<std::size_t>(i1), static_cast<std::size_t>(l1)),
                                      y.substr(static_cast<std::size_t>(t), static_cast<std::size_t>(l2)), pw)
                                    .full();
            if (v > best) {
              best = v;
              best_q = i1;
              best_t = t;
            }
          }
        const SiteResult r = run(x, y, p);
        SCOPED_TRACE(x + " " + y + " W " + std::to_string(w1) + "," + std::to_string(w2));
        EXPECT_EQ(r.score, best);
        EXPECT_EQ(r.query_begin, best_q + 1);
        EXPECT_EQ(r.query_end, best_q + l1);
        EXPECT_EQ(r.target_begin, best_t + 1);
        EXPECT_EQ(r.target_end, best_t + l2);
        EXPECT_EQ(r.full.has_value(), l1 == n && l2 == m);
        EXPECT_EQ(r.query_single.has_value(), l1 == n);
        EXPECT_EQ(r.target_single.has_value(), l2 == m);
        test::check_structure(x, y, p, r);
        // The site's traceback is the unwindowed traceback of the two substrings, shifted.
        const SiteResult sub = run(x.substr(static_cast<std::size_t>(best_q), static_cast<std::size_t>(l1)),
                                   y.substr(static_cast<std::size_t>(best_t), static_cast<std::size_t>(l2)),
                                   make_params(pw, 0, 0));
        EXPECT_EQ(sub.score, best);
        Structure shifted = *sub.structure;
        for (auto& [a, c] : shifted.inter) a += best_q, c += best_t;
        for (auto& [a, c] : shifted.query_pairs) a += best_q, c += best_q;
        for (auto& [a, c] : shifted.target_pairs) a += best_t, c += best_t;
        EXPECT_EQ(shifted.inter, r.structure->inter);
        EXPECT_EQ(shifted.query_pairs, r.structure->query_pairs);
        EXPECT_EQ(shifted.target_pairs, r.structure->target_pairs);
        ++cases;
      }
  }
  EXPECT_EQ(cases, 120 * 25);
}

// The reference stays usable at screening shape: 23 x 1,000 with the target windowed at 16.
TEST(BpmaxReference, QueryAgainstLongTargetWindowed) {
  std::mt19937 rng(5);
  const std::string x = test::random_letters(rng, 23), y = test::random_letters(rng, 1000);
  const Params p = make_params(weights_321(), 0, 16);
  const auto xc = codes(x), yc = codes(y);
  const ReferenceTables t(xc.data(), 23, yc.data(), 1000, p);
  EXPECT_EQ(t.band().f_cell_count(), 23LL * 24 / 2 * 1000 * 16);
  const SiteResult r = find_site(t, true);
  EXPECT_EQ(r.target_end - r.target_begin + 1, 16);
  EXPECT_FALSE(r.full.has_value());
  EXPECT_TRUE(r.query_single.has_value());
  EXPECT_FALSE(r.target_single.has_value());
  test::check_structure(x, y, p, r);
  // The site and some other windows against the direct table on the substrings.
  const int site_t = r.target_begin - 1;
  EXPECT_EQ(Naive(x, y.substr(static_cast<std::size_t>(site_t), 16), p.weights).full(), r.score);
  for (int k = 0; k < 12; ++k) {
    const int i2 = static_cast<int>(rng() % (1000 - 16 + 1));
    const int fwd = 1000 - 16 - i2;
    const int v = Naive(x, y.substr(static_cast<std::size_t>(fwd), 16), p.weights).full();
    EXPECT_EQ(t.F(0, 22, i2, i2 + 15), v);
    EXPECT_LE(v, r.score);
    if (i2 < r.site_i2) {
      EXPECT_LT(v, r.score) << "an earlier window with the same score must win";
    }
  }
}

TEST(BpmaxTies, TermTwoBeforeTermThree) {
  // F(GG, C): term 2 at k1 = 0 pairs query 1 with the C; term 3 (query 2) is never tried.
  const SiteResult r = run("GG", "C", Params{});
  EXPECT_EQ(r.score, 3);
  ASSERT_TRUE(r.structure);
  EXPECT_EQ(r.structure->inter, (std::vector<std::pair<int, int>>{{1, 1}}));
  EXPECT_EQ(r.structure->dot_bracket, "[.&]");
}

TEST(BpmaxTies, TermFourPicksTheTargetsThreePrimeBase) {
  // F(G, z = CC): term 4 at k2 = 0 pairs with z_0, the target's LAST base (forward position 2).
  const SiteResult r = run("G", "CC", Params{});
  EXPECT_EQ(r.score, 3);
  ASSERT_TRUE(r.structure);
  EXPECT_EQ(r.structure->inter, (std::vector<std::pair<int, int>>{{1, 2}}));
  EXPECT_EQ(r.structure->dot_bracket, "[&.]");
}

TEST(BpmaxTies, FirstSiteInIncreasingI1ThenI2) {
  // Two equal target windows: i2 = 0 is z_0 = the target's 3' end, so forward [2, 2] wins.
  SiteResult r = run("G", "CC", make_params(weights_321(), 0, 1));
  EXPECT_EQ(r.score, 3);
  EXPECT_EQ(r.target_begin, 2);
  EXPECT_EQ(r.target_end, 2);
  EXPECT_EQ(r.site_i2, 0);
  EXPECT_EQ(r.structure->dot_bracket, "[&.]");
  // Two equal query windows: the first in increasing i1 wins.
  r = run("GG", "C", make_params(weights_321(), 1, 0));
  EXPECT_EQ(r.query_begin, 1);
  EXPECT_EQ(r.query_end, 1);
  EXPECT_EQ(r.structure->dot_bracket, "[.&]");
  // A better window later wins over an earlier one.
  r = run("AGC", "AAAA", make_params(weights_321(), 1, 2));
  EXPECT_EQ(r.score, 0);
  r = run("AGC", "GCAA", make_params(weights_321(), 1, 2));  // G at query 2 pairs C at target 2
  EXPECT_EQ(r.score, 3);
  EXPECT_EQ(r.query_begin, 2);
  EXPECT_EQ(r.target_begin, 2);  // windows [3,4] (i2 = 0) and [2,3] (i2 = 1) score 0 and 3
  EXPECT_EQ(r.target_end, 3);
}

TEST(BpmaxTies, SingleStrandSplitBeforePair) {
  // Query GAAAACC against a target it cannot pair with: pairs (1,6) and (1,7) both score 3; the
  // rules (term 2 at k1 = 5, then term 6 on F(0..5)) give (1,6).
  SiteResult r = run("GAAAACC", "A", Params{});
  EXPECT_EQ(r.score, 3);
  EXPECT_EQ(r.structure->query_pairs, (std::vector<std::pair<int, int>>{{1, 6}}));
  EXPECT_EQ(r.structure->dot_bracket, "(....).&.");
  // Inside an S part: target GAAAACC reversed is CCAAAAG; S2's smallest split d = 0 leaves z_0
  // unpaired, so the pair is z(1, 6) = forward (1, 6).
  r = run("A", "GAAAACC", Params{});
  EXPECT_EQ(r.score, 3);
  EXPECT_EQ(r.structure->target_pairs, (std::vector<std::pair<int, int>>{{1, 6}}));
  EXPECT_EQ(r.structure->dot_bracket, ".&(....).");
  // An S1 part traced on its own: F(UGAAAACC, A) takes term 2 at k1 = 0 (U-A plus S1(1, 7)); in
  // S1(1, 7) the split d = 6 comes before the pair (1, 7), so the hairpin is (2, 7), not (2, 8).
  r = run("UGAAAACC", "A", Params{});
  EXPECT_EQ(r.score, 5);
  EXPECT_EQ(r.structure->dot_bracket, "[(....).&]");
  // The same through S2: z = U GAAAACC, i.e. target CCAAAAGU; z pair (1, 6) is forward (2, 7).
  r = run("A", "CCAAAAGU", Params{});
  EXPECT_EQ(r.score, 5);
  EXPECT_EQ(r.structure->inter, (std::vector<std::pair<int, int>>{{1, 8}}));
  EXPECT_EQ(r.structure->target_pairs, (std::vector<std::pair<int, int>>{{2, 7}}));
  EXPECT_EQ(r.structure->dot_bracket, "[&.(....)]");
}

TEST(BpmaxTies, RepeatedRunsGiveTheSameStructure) {
  std::mt19937 rng(99);
  for (int rep = 0; rep < 10; ++rep) {
    const std::string x = test::random_letters(rng, 9), y = test::random_letters(rng, 14);
    const Params p = make_params(weights_half(), 0, 10);
    const SiteResult a = run(x, y, p), b = run(x, y, p);
    EXPECT_EQ(a.structure->dot_bracket, b.structure->dot_bracket);
    EXPECT_EQ(a.target_begin, b.target_begin);
  }
}

TEST(BpmaxN, PairsWithNothing) {
  EXPECT_EQ(run("N", "N", Params{}).score, 0);
  EXPECT_EQ(run("N", "C", Params{}).score, 0);
  EXPECT_EQ(run("NNNN", "NNNNNNNN", Params{}).score, 0);
  // A query of N adds nothing: F is the target's own fold.
  std::mt19937 rng(3);
  for (int rep = 0; rep < 10; ++rep) {
    const std::string y = test::random_letters(rng, 15);
    const SiteResult r = run("NNNNNNN", y, Params{});
    EXPECT_EQ(r.score, *r.target_single);
    EXPECT_TRUE(r.structure->inter.empty());
    EXPECT_TRUE(r.structure->query_pairs.empty());
  }
  // No recorded pair touches an N.
  for (int rep = 0; rep < 30; ++rep) {
    const std::string x = test::random_letters(rng, 8, true), y = test::random_letters(rng, 12, true);
    const SiteResult r = run(x, y, make_params(weights_321(), 0, 7));
    test::check_structure(x, y, make_params(weights_321(), 0, 7), r);
    for (const auto& [a, c] : r.structure->inter) EXPECT_TRUE(x[a - 1] != 'N' && y[c - 1] != 'N');
    for (const auto& [a, c] : r.structure->query_pairs) EXPECT_TRUE(x[a - 1] != 'N' && x[c - 1] != 'N');
    for (const auto& [a, c] : r.structure->target_pairs) EXPECT_TRUE(y[a - 1] != 'N' && y[c - 1] != 'N');
  }
}

TEST(BpmaxReference, EmptyStrands) {
  const SiteResult r = run("", "ACGU", Params{});
  EXPECT_EQ(r.score, 0);
  EXPECT_EQ(r.query_begin, r.query_end + 1);
  EXPECT_EQ(r.structure->dot_bracket, "&....");
}

TEST(BpmaxStructure, ScoreStructureRejectsMalformedStructures) {
  const auto x = codes("GGGAAAACCC"), y = codes("GGGUUUUCCC");
  const Params p;
  auto score = [&](const Structure& s) { return score_structure(x.data(), 10, y.data(), 10, p, s); };
  Structure ok;
  ok.inter = {{1, 10}, {2, 9}};
  ok.query_pairs = {{3, 8}};
  EXPECT_EQ(score(ok), 9);
  ok.dot_bracket = joint_dot_bracket(10, 10, ok);
  EXPECT_EQ(ok.dot_bracket, "[[(....)..&........]]");
  EXPECT_EQ(score(ok), 9);
  Structure s = ok;
  s.inter = {{1, 9}, {2, 10}};  // crossing intermolecular pairs
  s.dot_bracket.clear();
  EXPECT_THROW(score(s), Error);
  s = ok;
  s.dot_bracket[0] = '.';  // text disagrees with the pairs
  EXPECT_THROW(score(s), Error);
  s = Structure{};
  s.query_pairs = {{3, 6}};  // G-C with only two unpaired bases inside
  EXPECT_THROW(score(s), Error);
  s = Structure{};
  s.query_pairs = {{1, 4}};  // G-A weight 0
  EXPECT_THROW(score(s), Error);
  s = Structure{};
  s.query_pairs = {{1, 8}, {3, 10}};  // crossing intramolecular pairs
  EXPECT_THROW(score(s), Error);
  s = Structure{};
  s.query_pairs = {{1, 8}};
  s.inter = {{1, 10}};  // base used twice
  EXPECT_THROW(score(s), Error);
  s = Structure{};
  s.query_pairs = {{1, 10}};  // spans 9: too long for a query window of 5
  EXPECT_EQ(score(s), 3);
  EXPECT_THROW(score_structure(x.data(), 10, y.data(), 10, make_params(weights_321(), 5, 0), s), Error);
}

}  // namespace
}  // namespace screen::bpmax
