// The public vectors through the fast path; interact_batch / interact_pairs: (query, target)
// order, 1 vs 2 threads identical, the traceback modes, reference and cpu methods agreeing; the
// reader of QUERY&TARGET pair files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/bpmax/pairs_reader.hpp"

namespace screen::bpmax {
namespace {

using test::codes;

// ---- the public vectors ---------------------------------------------------------------------------

struct VectorRow {
  std::string id, query, target;
  double cg = 0, au = 0, gu = 0;
  double s_query = 0, s_target = 0, full = 0;
};

std::vector<VectorRow> vector_rows() {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  const std::string path = std::string(root ? root : ".") + "/tests/data/bpmax_reference_scores.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<VectorRow> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    VectorRow r;
    ss >> r.id >> r.query >> r.target >> r.cg >> r.au >> r.gu >> r.s_query >> r.s_target >> r.full;
    rows.push_back(r);
  }
  return rows;
}

long long units(double v, int scale) {
  const double u = v * scale;
  EXPECT_LT(std::fabs(u - std::round(u)), 1e-6) << v;
  return std::llround(u);
}

TEST(BpmaxCpuVectors, FastPathReproducesEveryRow) {
  const auto rows = vector_rows();
  ASSERT_EQ(rows.size(), 24u);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.id);
    Params p;
    p.weights = make_pair_weights(row.cg, row.au, row.gu, "vectors");
    const auto x = codes(row.query), y = codes(row.target);
    const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
    for (int threads : {1, 2}) {
      const SiteResult r = interact_cpu(x.data(), n, y.data(), m, p, true, threads);
      ASSERT_TRUE(r.full && r.query_single && r.target_single);
      EXPECT_EQ(*r.full, units(row.full, p.weights.scale));
      EXPECT_EQ(r.score, *r.full);
      EXPECT_EQ(*r.query_single, units(row.s_query, p.weights.scale));
      EXPECT_EQ(*r.target_single, units(row.s_target, p.weights.scale));
      EXPECT_EQ(r.target_begin, 1);
      EXPECT_EQ(r.target_end, m);
      test::check_structure(row.query, row.target, p, r);
      const SiteResult want = interact_reference(x.data(), n, y.data(), m, p, true);
      ASSERT_TRUE(want.structure.has_value());
      EXPECT_EQ(r.structure->dot_bracket, want.structure->dot_bracket);
    }
  }
}

// ---- interact_batch -------------------------------------------------------------------------------

seq::SequenceSet make_set(const std::vector<std::string>& letters, const std::string& prefix) {
  seq::SequenceSet s;
  for (std::size_t k = 0; k < letters.size(); ++k) {
    seq::SequenceRecord r;
    r.name = prefix + std::to_string(k);
    const auto c = codes(letters[k]);
    s.add(r, c.data(), c.size());
  }
  return s;
}

void expect_same(const std::vector<PairResult>& a, const std::vector<PairResult>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(a[k].query_index, b[k].query_index);
    EXPECT_EQ(a[k].target_index, b[k].target_index);
    EXPECT_EQ(a[k].site.score, b[k].site.score);
    EXPECT_EQ(a[k].site.target_begin, b[k].site.target_begin);
    EXPECT_EQ(a[k].site.target_end, b[k].site.target_end);
    EXPECT_EQ(a[k].site.query_begin, b[k].site.query_begin);
    ASSERT_EQ(a[k].site.structure.has_value(), b[k].site.structure.has_value());
    if (a[k].site.structure) {
      EXPECT_EQ(a[k].site.structure->dot_bracket, b[k].site.structure->dot_bracket);
    }
  }
}

struct BatchFixture : ::testing::Test {
  void SetUp() override {
    std::mt19937 rng(99);
    // Mostly small pairs (parallel across pairs) and one long target (parallel inside the pair).
    for (int k = 0; k < 5; ++k) qletters.push_back(test::random_letters(rng, 4 + 5 * k));
    for (int k = 0; k < 6; ++k) tletters.push_back(test::random_letters(rng, 10 + 17 * k, k == 2));
    tletters.push_back(test::random_letters(rng, 1500));
    queries = make_set(qletters, "q");
    targets = make_set(tletters, "t");
    p.target_window = 24;
  }
  std::vector<std::string> qletters, tletters;
  seq::SequenceSet queries, targets;
  Params p;
};

TEST_F(BatchFixture, OrderIsQueryThenTargetAndEveryPairIsTheSingleCall) {
  const auto r = interact_batch(queries, targets, p, TracebackMode::none(), Method::cpu, 2);
  ASSERT_EQ(r.size(), queries.size() * targets.size());
  // Over the 1500-nt target, small and large pairs are mixed; the large ones ran within the pair.
  EXPECT_GE(term1_updates(24, 1500, p), kSmallPairUpdates);
  EXPECT_LT(term1_updates(24, 95, p), kSmallPairUpdates);
  std::size_t k = 0;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < targets.size(); ++t, ++k) {
      EXPECT_EQ(r[k].query_index, q);
      EXPECT_EQ(r[k].target_index, t);
      const SiteResult one = interact_cpu(queries.codes(q), static_cast<int>(queries.length(q)), targets.codes(t),
                                          static_cast<int>(targets.length(t)), p, false, 1);
      EXPECT_EQ(r[k].site.score, one.score);
      EXPECT_EQ(r[k].site.target_begin, one.target_begin);
      EXPECT_EQ(r[k].site.target_end, one.target_end);
      EXPECT_FALSE(r[k].site.structure.has_value());
    }
}

TEST_F(BatchFixture, ThreadCountDoesNotChangeResults) {
  const auto one = interact_batch(queries, targets, p, TracebackMode::all(), Method::cpu, 1);
  const auto two = interact_batch(queries, targets, p, TracebackMode::all(), Method::cpu, 2);
  expect_same(one, two);
  for (const auto& r : one) {
    ASSERT_TRUE(r.site.structure.has_value());
    test::check_structure(qletters[r.query_index], tletters[r.target_index], p, r.site);
  }
}

TEST_F(BatchFixture, ReferenceMethodAgreesOnTheSmallPairs) {
  std::vector<Strand> qs, ts;
  for (std::size_t k = 0; k < queries.size(); ++k) qs.push_back({queries.codes(k), static_cast<int>(queries.length(k))});
  for (std::size_t k = 0; k + 1 < targets.size(); ++k)  // not the 1500-nt one
    ts.push_back({targets.codes(k), static_cast<int>(targets.length(k))});
  Params pw = p;
  pw.weights = make_pair_weights(3, 1, 1.5, "t");
  pw.query_window = 9;
  const auto ref = interact_batch(qs, ts, pw, TracebackMode::all(), Method::reference, 2);
  const auto cpu = interact_batch(qs, ts, pw, TracebackMode::all(), Method::automatic, 2);
  expect_same(ref, cpu);
}

TEST_F(BatchFixture, TopTracesOnlyPairsAtOrAboveTheThreshold) {
  const auto all = interact_batch(queries, targets, p, TracebackMode::all(), Method::cpu, 2);
  std::vector<long long> scores;
  for (const auto& r : all) scores.push_back(r.site.score);
  std::sort(scores.begin(), scores.end());
  const long long threshold = scores[scores.size() / 2];
  const auto top = interact_batch(queries, targets, p, TracebackMode::top(threshold), Method::cpu, 2);
  ASSERT_EQ(top.size(), all.size());
  int traced = 0;
  for (std::size_t k = 0; k < top.size(); ++k) {
    EXPECT_EQ(top[k].site.score, all[k].site.score);
    EXPECT_EQ(top[k].site.structure.has_value(), all[k].site.score >= threshold);
    if (top[k].site.structure) {
      ++traced;
      EXPECT_EQ(top[k].site.structure->dot_bracket, all[k].site.structure->dot_bracket);
    }
  }
  EXPECT_GT(traced, 0);
  EXPECT_LT(traced, static_cast<int>(top.size()));
}

TEST(BpmaxBatch, ExplicitPairsKeepTheirOrderAndIndices) {
  const auto a = codes("GGGAAACCCAUGCAUGC"), b = codes("GCAUGCAUGGGUUUCCC"), c = codes("ACGUACGU");
  std::vector<PairInput> pairs{{{c.data(), 8}, {a.data(), 17}, 7, 3}, {{a.data(), 17}, {b.data(), 17}, 0, 0},
                               {{c.data(), 8}, {b.data(), 17}, 7, 9}};
  const Params p;
  const auto r = interact_pairs(pairs, p, TracebackMode::none(), Method::cpu, 2);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].query_index, 7u);
  EXPECT_EQ(r[0].target_index, 3u);
  EXPECT_EQ(r[2].target_index, 9u);
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_EQ(r[k].site.score, interact_reference(pairs[k].query.codes, pairs[k].query.length, pairs[k].target.codes,
                                                  pairs[k].target.length, p, false)
                                   .score);
  EXPECT_EQ(parse_method("auto"), Method::automatic);
  EXPECT_EQ(parse_method("reference"), Method::reference);
  EXPECT_EQ(parse_method("cpu"), Method::cpu);
  EXPECT_THROW(parse_method("gpu"), UsageError);
}

// ---- the pairs reader ------------------------------------------------------------------------------

std::string error_of(const std::string& text) {
  try {
    parse_pairs(text, "in.fa");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(BpmaxPairsReader, ReadsPairsOverSeveralLines) {
  const PairSets s = parse_pairs(">p1 first pair\nACGT&gg\ncu\n\n>p2\r\nAC\r\nG&\r\nNRu\r\n>p3\nA\n&\nA\nC\n", "in.fa");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.queries.record(0).name, "p1");
  EXPECT_EQ(s.targets.record(0).name, "p1");
  EXPECT_EQ(s.queries.record(0).description, "first pair");
  EXPECT_EQ(s.queries.letters(0), "ACGU");
  EXPECT_EQ(s.targets.letters(0), "GGCU");
  EXPECT_EQ(s.queries.letters(1), "ACG");
  EXPECT_EQ(s.targets.letters(1), "NNU");
  EXPECT_EQ(s.queries.record(1).header_line, 5u);
  EXPECT_EQ(s.queries.letters(2), "A");
  EXPECT_EQ(s.targets.letters(2), "AC");
}

TEST(BpmaxPairsReader, ErrorsNameFileLineAndColumn) {
  EXPECT_NE(error_of(">a\nACG&UU\n>b\nAC&G&U\n").find("in.fa:4:5:"), std::string::npos) << error_of(">a\nACG&UU\n>b\nAC&G&U\n");
  EXPECT_NE(error_of(">a\nACG&UU\n>b\nAC&G&U\n").find("second '&'"), std::string::npos);
  EXPECT_NE(error_of(">a\nACG&UU\n>b\nACGU\nAA\n").find("in.fa:3: record 'b' has no '&'"), std::string::npos)
      << error_of(">a\nACG&UU\n>b\nACGU\nAA\n");
  EXPECT_NE(error_of(">a\nACGX&UU\n").find("in.fa:2:4: invalid character 'X'"), std::string::npos)
      << error_of(">a\nACGX&UU\n");
  EXPECT_NE(error_of(">a\nAC GU&UU\n").find("in.fa:2:3:"), std::string::npos);
  EXPECT_NE(error_of(">a\n&UU\n").find("in.fa:2:1: record 'a' has an empty query"), std::string::npos)
      << error_of(">a\n&UU\n");
  EXPECT_NE(error_of(">a\nAA&\n").find("empty target"), std::string::npos);
  EXPECT_NE(error_of("ACGU&AA\n").find("in.fa:1:1: text before the first"), std::string::npos);
  EXPECT_NE(error_of(">a\nA&U\n>a\nA&U\n").find("in.fa:3:2: duplicate record name 'a'"), std::string::npos);
  EXPECT_NE(error_of("").find("no records"), std::string::npos);
  EXPECT_NE(error_of(">\nA&U\n").find("in.fa:1:2:"), std::string::npos);
}

}  // namespace
}  // namespace screen::bpmax
