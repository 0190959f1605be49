// The DP against an independent naive recursion on tiny inputs: best(i, j) as the best score of any
// alignment path ending at (i, j) (textbook affine gaps, -infinity outside, no clamping, no tie
// order), enumerated without memoisation. And tracebacks re-scored from their operations.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include "miranda_test_util.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {
namespace {

constexpr int kNegInf = INT_MIN / 4;

struct Naive {
  const std::vector<std::uint8_t>& q;
  const std::vector<std::uint8_t>& t;
  const ScoreModel& m;
  int lq() const { return static_cast<int>(q.size()); }
  int s(int i, int j) const { return cell_score(m, i, lq(), q[q.size() - static_cast<std::size_t>(i)], t[static_cast<std::size_t>(j - 1)]); }

  // Best path ending with query base i against target base j; a path may start here (from 0).
  int match(int i, int j) const {
    if (i < 1 || j < 1) return kNegInf;
    const int before = std::max({0, match(i - 1, j - 1), qgap(i - 1, j - 1), tgap(i - 1, j - 1)});
    return before + s(i, j);
  }
  // Best path ending with target base j against a gap after query base i.
  int qgap(int i, int j) const {
    if (i < 1 || j < 2) return kNegInf;
    const int o = match(i, j - 1), e = qgap(i, j - 1);
    return std::max(o == kNegInf ? kNegInf : o + gap_open_cost(m, i, lq()),
                    e == kNegInf ? kNegInf : e + gap_extend_cost(m, i, lq()));
  }
  // Best path ending with query base i against a gap after target base j.
  int tgap(int i, int j) const {
    if (i < 2 || j < 1 || !target_gap_allowed(i, lq())) return kNegInf;
    const int o = match(i - 1, j), e = tgap(i - 1, j);
    return std::max(o == kNegInf ? kNegInf : o + gap_open_cost(m, i, lq()),
                    e == kNegInf ? kNegInf : e + gap_extend_cost(m, i, lq()));
  }
};

std::string random_letters(std::mt19937& rng, int n, bool with_n) {
  std::string s;
  for (int k = 0; k < n; ++k) s.push_back((with_n && rng() % 12 == 0) ? 'N' : "ACGU"[rng() % 4]);
  return s;
}

TEST(MirandaBruteForce, BestPerCellEqualsNaiveRecursion) {
  std::mt19937 rng(2024);
  const double scales[] = {4.0, 2.5, 1.0};
  const double opens[] = {-9.0, -2.0, -6.5};
  const double exts[] = {-4.0, -1.0, -0.5};
  int cells = 0, positive = 0;
  for (int rep = 0; rep < 300; ++rep) {
    Params p;
    p.scale = scales[rng() % 3];
    p.gap_open = opens[rng() % 3];
    p.gap_extend = exts[rng() % 3];
    const ScoreModel m = make_score_model(p);
    const int lq = 1 + static_cast<int>(rng() % 10);
    const int lr = 1 + static_cast<int>(rng() % 7);
    // Biased toward complementary letters so that scores are often positive.
    const std::string qs = random_letters(rng, lq, rep % 3 == 0);
    std::string ts;
    for (int k = 0; k < lr; ++k) {
      ts.push_back(rng() % 2 == 0 && k < lq ? "UGCAN"[std::string("ACGUN").find(qs[qs.size() - 1 - static_cast<std::size_t>(k)])]
                                            : "ACGU"[rng() % 4]);
    }
    const std::vector<std::uint8_t> q = test::codes_of(qs), t = test::codes_of(ts);
    DpMatrix dp;
    dp.compute(SeqView{q.data(), q.size(), nullptr}, SeqView{t.data(), t.size(), nullptr}, m);
    const Naive naive{q, t, m};
    for (int i = 1; i <= lq; ++i) {
      for (int j = 1; j <= lr; ++j) {
        const int a = naive.match(i, j), b = naive.qgap(i, j), c = naive.tgap(i, j);
        const int best = std::max({0, a, b, c});
        const Best got = dp.best(i, j);
        ASSERT_EQ(got.score, best) << qs << " " << ts << " cell " << i << "," << j;
        const std::uint8_t state = best == 0 ? kNone : a == best ? kA : b == best ? kB : kC;
        ASSERT_EQ(got.state, state) << qs << " " << ts << " cell " << i << "," << j;
        ++cells;
        positive += best > 0;
      }
    }
  }
  EXPECT_GT(positive, cells / 4);  // the test exercised positive cells, not just zeros
}

// Random pairs with a low threshold: every hit's alignment is a valid path whose score is the hit's
// score, hits do not overlap by more than 6, and the flanks and display lines are consistent.
TEST(MirandaBruteForce, HitsAreConsistentWithTheirAlignments) {
  std::mt19937 rng(99);
  Params p;
  p.score_threshold = 40;
  const ScoreModel m = make_score_model(p);
  int hits = 0;
  for (int rep = 0; rep < 200; ++rep) {
    const int lq = 4 + static_cast<int>(rng() % 20);
    const std::string qs = random_letters(rng, lq, true);
    std::string ts = random_letters(rng, 20 + static_cast<int>(rng() % 80), true);
    // Plant a mutated complementary site.
    std::string site;
    for (auto it = qs.rbegin(); it != qs.rend(); ++it) {
      site.push_back(rng() % 8 == 0 ? "ACGU"[rng() % 4] : "UGCAN"[std::string("ACGUN").find(*it)]);
    }
    if (rng() % 2 == 0) site.insert(rng() % site.size(), 1, "ACGU"[rng() % 4]);
    ts.insert(rng() % ts.size(), site);
    const std::vector<std::uint8_t> q = test::codes_of(qs), t = test::codes_of(ts);
    const SeqView qv{q.data(), q.size(), qs.data()}, tv{t.data(), t.size(), ts.data()};
    const PairResult r = align_pair(qv, tv, p);
    for (std::size_t k = 0; k < r.hits.size(); ++k) {
      const Hit& h = r.hits[k];
      const Alignment& a = h.alignment;
      ++hits;
      ASSERT_FALSE(a.ops.empty());
      EXPECT_EQ(a.ops.front(), 'M');
      EXPECT_NE(a.ops.back(), 'I');
      int i = a.qs, j = a.rs, score = 0;
      char prev = 'M';
      for (const char op : a.ops) {
        if (op == 'M') {
          ++i;
          ++j;
          score += cell_score(m, i, lq, q[static_cast<std::size_t>(lq - i)], t[static_cast<std::size_t>(j - 1)]);
        } else if (op == 'I') {
          ++j;
          score += prev == 'I' ? gap_extend_cost(m, i, lq) : gap_open_cost(m, i, lq);
        } else {
          ++i;
          EXPECT_TRUE(target_gap_allowed(i, lq));
          score += prev == 'D' ? gap_extend_cost(m, i, lq) : gap_open_cost(m, i, lq);
        }
        EXPECT_FALSE(prev == 'I' && op == 'D');
        EXPECT_FALSE(prev == 'D' && op == 'I');
        prev = op;
      }
      EXPECT_EQ(i, a.qe);
      EXPECT_EQ(j, a.re);
      EXPECT_EQ(score, h.score);
      EXPECT_GE(h.score, 40);
      EXPECT_EQ(h.query_line.size(), h.target_line.size());
      EXPECT_EQ(h.query_line.size(), h.match_line.size());
      EXPECT_EQ(h.query_line.size(), a.ops.size() + static_cast<std::size_t>(a.qs + lq - a.qe));
      EXPECT_GE(h.rstart, 1);
      EXPECT_LE(h.rend, static_cast<int>(ts.size()));
      EXPECT_EQ(h.align_len, static_cast<int>(a.ops.size()));
      for (std::size_t l = 0; l < k; ++l) {
        const Alignment& b = r.hits[l].alignment;
        EXPECT_LE(std::min(a.re, b.re) - std::max(a.rs, b.rs) + 1, kMaxTargetOverlap);
      }
      if (k > 0) {
        EXPECT_LE(h.score, r.hits[k - 1].score);
      }
    }
  }
  EXPECT_GT(hits, 100);
}

}  // namespace
}  // namespace screen::miranda
