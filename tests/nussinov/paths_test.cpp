// Every CPU path against the reference: scores and structures identical, every structure re-scores
// to its score; the single entry point (fold.hpp); the deterministic traceback on hand-made ties.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/cuda.hpp"
#include "stages/nussinov/fold.hpp"
#include "stages/nussinov/reference.hpp"
#include "stages/nussinov/traceback.hpp"
#include "tests/nussinov/test_util.hpp"

namespace screen::nussinov::testing {
namespace {

void expect_same(const FoldResult& got, const FoldResult& want, const std::vector<std::uint8_t>& s, const Params& p,
                 const char* path) {
  const int n = static_cast<int>(s.size());
  EXPECT_EQ(got.score, want.score) << path << " n=" << n << " " << describe(p);
  EXPECT_EQ(got.structure, want.structure) << path << " n=" << n << " " << describe(p);
  EXPECT_EQ(score_structure(s.data(), n, p, got.structure), got.score) << path;
}

TEST(NussinovPaths, ThousandRandomSequencesUpTo400) {
  std::mt19937 rng(12345);
  const auto weights = weight_sets();
  const int spans[] = {0, 0, 0, 12, 40, 150, 300};
  int four_russians_runs = 0;
  for (int rep = 0; rep < 1000; ++rep) {
    const int n = 1 + static_cast<int>(rng() % 400);
    Params p;
    p.min_loop = static_cast<int>(rng() % 5);
    p.max_span = spans[rng() % 7];
    p.weights = weights[rng() % weights.size()];
    const auto s = random_codes(rng, n, rep % 5 == 0 ? 20 : 0);
    const int threads = 1 + rep % 2;
    const auto ref = fold_reference(s.data(), n, p, true);
    ASSERT_EQ(score_structure(s.data(), n, p, ref.structure), ref.score) << describe(p);
    expect_same(fold_cpu(s.data(), n, p, true, threads), ref, s, p, "cpu");
    if (four_russians_applicable(p)) {
      expect_same(fold_four_russians(s.data(), n, p, true, threads), ref, s, p, "four-russians");
      ++four_russians_runs;
    } else {
      EXPECT_THROW(fold_four_russians(s.data(), n, p, false), UsageError);
    }
    if (HasFailure()) break;  // one failing case is enough to read
  }
  EXPECT_GT(four_russians_runs, 200);
}

TEST(NussinovPaths, FourRussiansEveryQ) {
  std::mt19937 rng(99);
  for (int q = 1; q <= 8; ++q) {
    for (int rep = 0; rep < 6; ++rep) {
      const int n = 150 + static_cast<int>(rng() % 250);
      Params p;
      p.min_loop = rep % 4;
      p.max_span = rep % 3 == 0 ? 0 : 20 + rep * 17;
      p.weights = rep % 2 ? make_pair_weights(1, 1, 1, "u") : make_pair_weights(1, 1, 0, "no GU");
      const auto s = random_codes(rng, n);
      const auto ref = fold_reference(s.data(), n, p, true);
      expect_same(fold_four_russians(s.data(), n, p, true, 1 + rep % 2, q), ref, s, p, "four-russians");
    }
  }
  EXPECT_THROW(fold_four_russians(nullptr, 0, Params{}, false, 1, 9), UsageError);
}

// A dozen sequences of 2,000 to 5,000 nt: the fast path (2 threads) equals the reference, scores and
// structures; Four-Russians too where the weights are unit.
TEST(NussinovPaths, LongSequences) {
  std::mt19937 rng(4242);
  struct Case {
    int n;
    int min_loop;
    int max_span;
    int weights;  // index into weight_sets()
  };
  const Case cases[] = {
      {2000, 3, 0, 0},    {2100, 0, 0, 1},   {2300, 3, 350, 2}, {2500, 2, 0, 3},
      {2600, 3, 0, 0},    {2700, 1, 800, 0}, {2800, 3, 0, 1},   {3000, 3, 0, 0},
      {3200, 4, 1200, 2}, {3500, 3, 0, 0},   {4000, 2, 0, 3},   {5000, 3, 0, 0},
  };
  const auto weights = weight_sets();
  for (const Case& c : cases) {
    Params p;
    p.min_loop = c.min_loop;
    p.max_span = c.max_span;
    p.weights = weights[static_cast<std::size_t>(c.weights)];
    const auto s = random_codes(rng, c.n, 200);
    const auto ref = fold_reference(s.data(), c.n, p, true);
    const auto fast = fold_cpu(s.data(), c.n, p, true, 2);
    EXPECT_EQ(score_structure(s.data(), c.n, p, fast.structure), fast.score);
    EXPECT_GT(fast.score, 0);
    expect_same(fast, ref, s, p, "cpu vs reference");
    if (four_russians_applicable(p))
      expect_same(fold_four_russians(s.data(), c.n, p, true, 2), ref, s, p, "four-russians vs reference");
  }
}

TEST(NussinovPaths, SixteenBitBoundary) {
  // Weights chosen so the largest possible score sits right at and past 32,767: the path switches from
  // 16- to 32-bit cells between these two lengths; both must equal the reference.
  Params p;
  p.min_loop = 1;
  p.weights = make_pair_weights(1000, 1000, 1000, "big");
  std::mt19937 rng(5);
  for (int n : {65, 66, 67}) {
    const auto s = random_codes(rng, n);
    const auto ref = fold_reference(s.data(), n, p, true);
    expect_same(fold_cpu(s.data(), n, p, true, 1), ref, s, p, "cpu");
  }
  std::vector<std::uint8_t> all_gc;
  for (int k = 0; k < 66; ++k) all_gc.push_back(k < 33 ? 2 : 1);  // GGG...CCC: 32 nested pairs (min_loop 1)
  const auto ref = fold_reference(all_gc.data(), 66, p, true);
  EXPECT_EQ(ref.score, 32 * 1000);
  expect_same(fold_cpu(all_gc.data(), 66, p, true, 1), ref, all_gc, p, "cpu");
}

TEST(NussinovTraceback, HandMadeTiesFollowTheRuleOrder) {
  struct Case {
    const char* seq;
    int min_loop;
    long long score;
    const char* structure;
  };
  // "GAAAACC": G pairs with C5 or C6; rule 2 (j unpaired) is tried before the pair, so C6 stays unpaired.
  // "GGAAAAC": G0 or G1 with C6; rule 1 (i unpaired) comes first, so G0 stays unpaired.
  // "GAAAACGAAAAC": two hairpins joined only by a bifurcation at k = 5 (rule 4).
  // "GCGC", min_loop 0: the pair (0,3) around (1,2) (rule 3) wins over the split ()() (rule 4).
  // "GGCC", min_loop 0: ties everywhere; the rules give "(())".
  // "GCAGC", min_loop 0: ()(.) and ((.)) tie; the pair (rule 3) is tried before the split (rule 4).
  const Case cases[] = {
      {"GAAAACC", 3, 1, "(....)."},
      {"GGAAAAC", 3, 1, ".(....)"},
      {"GAAAACGAAAAC", 3, 2, "(....)(....)"},
      {"GCGC", 0, 2, "(())"},
      {"GGCC", 0, 2, "(())"},
      {"GCAGC", 0, 2, "((.))"},
  };
  for (const Case& c : cases) {
    Params p;
    p.min_loop = c.min_loop;
    const auto s = codes(c.seq);
    const int n = static_cast<int>(s.size());
    for (Method m : {Method::reference, Method::cpu, Method::four_russians, Method::automatic}) {
      const auto r = fold(s.data(), n, p, true, m, 1);
      EXPECT_EQ(r.score, c.score) << c.seq << " " << method_name(m);
      EXPECT_EQ(r.structure, c.structure) << c.seq << " " << method_name(m);
    }
  }
}

TEST(NussinovTraceback, TracebackOfATableIsRepeatable) {
  std::mt19937 rng(3);
  Params p;
  const auto s = random_codes(rng, 300);
  const auto a = fold_cpu(s.data(), 300, p, true, 2);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(fold_cpu(s.data(), 300, p, true, 1 + k % 2).structure, a.structure);
}

TEST(NussinovFold, EmptyAndTinySequences) {
  Params p;
  for (Method m : {Method::reference, Method::cpu, Method::four_russians}) {
    EXPECT_EQ(fold(nullptr, 0, p, true, m).score, 0);
    EXPECT_EQ(fold(nullptr, 0, p, true, m).structure, "");
    const auto one = codes("G");
    EXPECT_EQ(fold(one.data(), 1, p, true, m).structure, ".");
  }
}

TEST(NussinovFold, BatchEqualsOneByOneInInputOrder) {
  std::mt19937 rng(77);
  std::vector<std::vector<std::uint8_t>> store;
  for (int n : {5, 1600, 30, 0, 250, 1, 120, 1700, 64, 65}) store.push_back(random_codes(rng, n));
  std::vector<const std::uint8_t*> seqs;
  std::vector<int> lengths;
  for (const auto& s : store) {
    seqs.push_back(s.data());
    lengths.push_back(static_cast<int>(s.size()));
  }
  Params p;
  p.weights = make_pair_weights(3, 2, 1, "t");
  const auto batch = fold_batch(seqs, lengths, p, true, Method::automatic, 2);
  ASSERT_EQ(batch.size(), store.size());
  for (std::size_t k = 0; k < store.size(); ++k) {
    const auto one = fold_cpu(store[k].data(), lengths[k], p, true, 1);
    EXPECT_EQ(batch[k].score, one.score) << k;
    EXPECT_EQ(batch[k].structure, one.structure) << k;
  }
  EXPECT_EQ(batch[4].score, fold_reference(seqs[4], 250, p, false).score);
  const auto ref_batch = fold_batch({seqs[0], seqs[4]}, {5, 250}, p, false, Method::reference, 2);
  EXPECT_EQ(ref_batch[1].score, batch[4].score);
  EXPECT_EQ(ref_batch[1].structure, "");
  // Four-Russians with weights that are not unit: the error comes out of the parallel region.
  EXPECT_THROW(fold_batch(seqs, lengths, p, false, Method::four_russians, 2), UsageError);
}

TEST(NussinovFold, MethodNamesAndGpuWithoutGpu) {
  EXPECT_EQ(parse_method("four-russians"), Method::four_russians);
  EXPECT_EQ(parse_method("auto"), Method::automatic);
  EXPECT_STREQ(method_name(parse_method("reference")), "reference");
  EXPECT_THROW(parse_method("fast"), UsageError);
  if (!gpu_available()) {
    const auto s = codes("GGGAAAUCC");
    EXPECT_THROW(fold(s.data(), 9, Params{}, true, Method::gpu), ResourceError);
    EXPECT_THROW(fold_batch({s.data()}, {9}, Params{}, true, Method::gpu), ResourceError);
  }
}

}  // namespace
}  // namespace screen::nussinov::testing
