// The reference (and every CPU path) against brute force: every non-crossing structure of a short
// sequence enumerated and scored independently of the recurrence, and the best one taken.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/reference.hpp"
#include "stages/nussinov/traceback.hpp"
#include "tests/nussinov/test_util.hpp"

namespace screen::nussinov::testing {
namespace {

// Depth-first over positions: each base is left unpaired, opens a pair, or closes the innermost open
// one (when the pair is allowed: weight > 0, j - i > min_loop, and j - i < max_span if set).
struct Enumerator {
  const std::vector<std::uint8_t>& s;
  const Params& p;
  PairTable table;
  std::vector<int> open;
  long long best = -1;
  long long count = 0;

  void walk(int pos, long long score) {
    const int n = static_cast<int>(s.size());
    if (static_cast<int>(open.size()) > n - pos) return;  // cannot all close any more
    if (pos == n) {
      ++count;
      best = std::max(best, score);
      return;
    }
    walk(pos + 1, score);  // unpaired
    open.push_back(pos);   // opens a pair
    walk(pos + 1, score);
    open.pop_back();
    if (!open.empty()) {  // closes the innermost open base
      const int i = open.back();
      const int d = pos - i;
      const int w = table.at(s[static_cast<std::size_t>(i)], s[static_cast<std::size_t>(pos)]);
      if (w > 0 && d > p.min_loop && (p.max_span <= 0 || d < p.max_span)) {
        open.pop_back();
        walk(pos + 1, score + w);
        open.push_back(i);
      }
    }
  }
};

long long brute_force(const std::vector<std::uint8_t>& s, const Params& p, long long* structures = nullptr) {
  Enumerator e{s, p, make_pair_table(p.weights), {}, -1, 0};
  e.walk(0, 0);
  if (structures) *structures = e.count;
  return e.best;
}

TEST(NussinovBruteForce, EnumeratorCountsStructures) {
  // Checks the enumerator itself: no allowed pair leaves only the empty structure, and small
  // sequences have the structure counts listed by hand.
  Params p;
  p.min_loop = 0;
  p.weights = make_pair_weights(1, 1, 1, "t");
  for (int n = 0; n < 10; ++n) {
    long long count = 0;
    std::vector<std::uint8_t> g(static_cast<std::size_t>(n), 2);  // all G: no pair allowed
    EXPECT_EQ(brute_force(g, p, &count), 0);
    EXPECT_EQ(count, 1) << n;
  }
  // "GCGC...": G pairs with C, C with G; the counts are known small numbers checked by hand.
  long long count = 0;
  EXPECT_EQ(brute_force(codes("GC"), p, &count), 1);
  EXPECT_EQ(count, 2);  // "..", "()"
  EXPECT_EQ(brute_force(codes("GCG"), p, &count), 1);
  EXPECT_EQ(count, 3);  // "...", "().", ".()"
  EXPECT_EQ(brute_force(codes("GCGC"), p, &count), 2);
  EXPECT_EQ(count, 7);  // "....", "()..", ".().", "..()", "(..)", "()()", "(())"
}

TEST(NussinovBruteForce, ReferenceAndFastPathsEqualEnumeration) {
  std::mt19937 rng(20240611);
  int checked = 0;
  for (int min_loop = 0; min_loop <= 3; ++min_loop) {
    for (const PairWeights& w : weight_sets()) {
      for (int max_span : {0, 4, 6, 9}) {
        Params p;
        p.min_loop = min_loop;
        p.max_span = max_span;
        p.weights = w;
        for (int rep = 0; rep < 12; ++rep) {
          const int n = 1 + static_cast<int>(rng() % 14);
          const auto s = random_codes(rng, n, rep % 4 == 3 ? 6 : 0);
          const long long expect = brute_force(s, p);
          const auto ref = fold_reference(s.data(), n, p, true);
          ASSERT_EQ(ref.score, expect) << describe(p) << " n=" << n;
          EXPECT_EQ(score_structure(s.data(), n, p, ref.structure), ref.score);
          const auto fast = fold_cpu(s.data(), n, p, true, 1);
          EXPECT_EQ(fast.score, expect) << describe(p);
          EXPECT_EQ(fast.structure, ref.structure) << describe(p);
          if (four_russians_applicable(p)) {
            const auto fr = fold_four_russians(s.data(), n, p, true, 1);
            EXPECT_EQ(fr.score, expect) << describe(p);
            EXPECT_EQ(fr.structure, ref.structure) << describe(p);
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 4 * 4 * 4 * 12);
}

TEST(NussinovBruteForce, FourteenBasesEveryMinLoop) {
  // The longest size named by the spec, on sequences rich in pairs (many structures).
  std::mt19937 rng(7);
  for (int min_loop = 0; min_loop <= 3; ++min_loop) {
    for (int rep = 0; rep < 6; ++rep) {
      Params p;
      p.min_loop = min_loop;
      p.max_span = rep % 2 == 0 ? 0 : 8;
      p.weights = weight_sets()[static_cast<std::size_t>(rep) % 3];
      const auto s = random_codes(rng, 14);
      long long count = 0;
      const long long expect = brute_force(s, p, &count);
      EXPECT_GT(count, 1);
      EXPECT_EQ(fold_reference(s.data(), 14, p, false).score, expect) << describe(p);
    }
  }
}

}  // namespace
}  // namespace screen::nussinov::testing
