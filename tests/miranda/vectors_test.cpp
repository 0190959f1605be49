// The reference against miRanda 3.3a's own outputs (tests/data/miranda, copied from
// copied into tests/data/miranda): every '>' hit line and '>>' pair line byte for byte, and the whole
// report body (alignment blocks included) after miRanda's banner.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "miranda_test_util.hpp"
#include "stages/miranda/miranda_format.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {
namespace {

struct ScanRun {
  std::string body;                  // what ReportWriter wrote with blocks
  std::vector<std::string> lines;    // '>' and '>>' lines only (blocks off)
  std::vector<Hit> hits;
};

// Every query against every target, query by query, as miRanda examines them.
ScanRun run_all(const std::string& queries, const std::string& targets, const Params& params) {
  const test::Inputs q = test::load_inputs(test::data_path(queries));
  const test::Inputs t = test::load_inputs(test::data_path(targets));
  std::ostringstream body, lines;
  ReportWriter with_blocks(body, true), plain(lines, false);
  ScanRun run;
  for (std::size_t a = 0; a < q.set.size(); ++a) {
    for (std::size_t b = 0; b < t.set.size(); ++b) {
      PairResult r = align_pair(q.view(a), t.view(b), params, a, b);
      EXPECT_FALSE(r.truncated);
      with_blocks.pair(r.hits, q.set.record(a).name, t.set.record(b).name, q.set.length(a), t.set.length(b));
      plain.pair(r.hits, q.set.record(a).name, t.set.record(b).name, q.set.length(a), t.set.length(b));
      run.hits.insert(run.hits.end(), r.hits.begin(), r.hits.end());
    }
  }
  with_blocks.finish();
  plain.finish();
  run.body = body.str();
  std::istringstream in(lines.str());
  for (std::string line; std::getline(in, line);) run.lines.push_back(line);
  return run;
}

// Compares line sequences, reporting the first difference.
void expect_same_lines(const std::vector<std::string>& expected, const std::vector<std::string>& got) {
  const std::size_t n = std::min(expected.size(), got.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (expected[k] != got[k]) {
      ADD_FAILURE() << "first difference at result line " << k + 1 << "\n expected: " << expected[k]
                    << "\n      got: " << got[k];
      return;
    }
  }
  EXPECT_EQ(expected.size(), got.size()) << "line counts differ; first extra line: "
                                         << (expected.size() > n ? expected[n] : got[n]);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct Case {
  const char* queries;
  const char* targets;
  const char* expected;
  bool strict;
  std::size_t hit_lines;   // '>' lines in the expected file
  std::size_t pair_lines;  // '>>' lines
  bool energy = false;     // a default miRanda run (energies), not -noenergy
  double energy_threshold = 1.0;
};

Params params_of(const Case& c) {
  Params p;
  p.strict = c.strict;
  p.energy = c.energy;
  p.energy_threshold = c.energy_threshold;
  return p;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.expected; }

class Vectors : public ::testing::TestWithParam<Case> {};

TEST_P(Vectors, HitAndPairLinesMatchByteForByte) {
  const Case c = GetParam();
  const Params p = params_of(c);
  const ScanRun run = run_all(c.queries, c.targets, p);
  const std::vector<std::string> expected =
      test::result_lines(test::read_text(test::data_path(c.expected)));
  std::size_t hits = 0, pairs = 0;
  for (const std::string& l : expected) (l.rfind(">>", 0) == 0 ? pairs : hits) += 1;
  ASSERT_EQ(hits, c.hit_lines);  // the vector file is the one we think it is
  ASSERT_EQ(pairs, c.pair_lines);
  expect_same_lines(expected, run.lines);
}

TEST_P(Vectors, ReportBodyMatchesByteForByte) {
  const Case c = GetParam();
  const Params p = params_of(c);
  const ScanRun run = run_all(c.queries, c.targets, p);
  const std::string expected = test::report_body(test::read_text(test::data_path(c.expected)));
  ASSERT_FALSE(expected.empty());
  expect_same_lines(split_lines(expected), split_lines(run.body));
  EXPECT_EQ(expected, run.body);
}

// Every reported hit's score is the sum of its alignment's cell scores and gap costs.
TEST_P(Vectors, HitScoresEqualTheirAlignments) {
  const Case c = GetParam();
  const Params p = params_of(c);
  const ScanRun run = run_all(c.queries, c.targets, p);
  const test::Inputs q = test::load_inputs(test::data_path(c.queries));
  const test::Inputs t = test::load_inputs(test::data_path(c.targets));
  const ScoreModel m = make_score_model(p);
  ASSERT_FALSE(run.hits.empty());
  for (const Hit& h : run.hits) {
    const SeqView qv = q.view(h.query_index), tv = t.view(h.target_index);
    const int lq = static_cast<int>(qv.length);
    const Alignment& a = h.alignment;
    int i = a.qs, j = a.rs, score = 0;
    char prev = 'M';
    for (const char op : a.ops) {
      if (op == 'M') {
        ++i;
        ++j;
        score += cell_score(m, i, lq, qv.codes[lq - i], tv.codes[j - 1]);
      } else if (op == 'I') {
        ++j;
        score += prev == 'I' ? gap_extend_cost(m, i, lq) : gap_open_cost(m, i, lq);
      } else {
        ++i;
        ASSERT_TRUE(target_gap_allowed(i, lq));
        score += prev == 'D' ? gap_extend_cost(m, i, lq) : gap_open_cost(m, i, lq);
      }
      prev = op;
    }
    EXPECT_EQ(i, a.qe);
    EXPECT_EQ(j, a.re);
    EXPECT_EQ(score, h.score) << "hit at " << h.rstart;
    EXPECT_EQ(a.ops.front(), 'M');
  }
}

INSTANTIATE_TEST_SUITE_P(
    Miranda33a, Vectors,
    ::testing::Values(Case{"bantam_stRNA.fasta", "hid_UTR.fasta", "examples_noenergy.out", false, 4, 1},
                      Case{"public_queries.fa", "public_targets.fa", "public_noenergy.out", false, 16, 13},
                      Case{"public_queries.fa", "public_targets.fa", "public_strict.out", true, 13, 10},
                      // With energies (miRanda's default run): the '>' and '>>' energy fields, the
                      // "Energy:" lines, and the hits the threshold drops. The SARS-CoV-2 genome is the
                      // repo's data/ copy. -en -20 is --energy-threshold -20.
                      Case{"bantam_stRNA.fasta", "hid_UTR.fasta", "examples_energy.out", false, 4, 1, true},
                      Case{"public_queries.fa", "public_targets.fa", "public_energy.out", false, 16, 13, true},
                      Case{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_energy.out", false, 1043, 190, true},
                      Case{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_en20.out", false, 136, 80, true, -20.0},
                      Case{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_strict_energy.out", true, 549, 155, true}),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      return std::string(param_info.param.expected).substr(0, std::string(param_info.param.expected).find('.'));
    });

}  // namespace
}  // namespace screen::miranda
