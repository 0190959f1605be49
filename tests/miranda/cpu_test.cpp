// The fast CPU path against the reference: the scan's candidate cells against collect_candidates,
// and whole pairs (every hit field, alignment strings included) against align_pair, for each scan
// ISA separately (scalar, SSE2, AVX2), on random pairs with planted sites, the public vectors, and
// human microRNAs against the SARS-CoV-2 genome; and align_batch for every method and thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "miranda_test_util.hpp"
#include "seq/sequence_set.hpp"
#include "stages/energy/cpu.hpp"
#include "stages/energy/params.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/cpu.hpp"
#include "stages/miranda/cpu_scan.hpp"
#include "stages/miranda/cuda.hpp"
#include "stages/miranda/miranda_format.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {
namespace {

using test::expect_same_results;
using test::same_result;

// ---- comparisons -------------------------------------------------------------------------------


// ---- random pairs with planted sites -------------------------------------------------------------

struct RandomCase {
  std::vector<std::uint8_t> query, target;
  std::string query_letters, target_letters;
  Params params;
  PairResult expected;
  SeqView qv() const { return SeqView{query.data(), query.size(), query_letters.data()}; }
  SeqView tv() const { return SeqView{target.data(), target.size(), target_letters.data()}; }
};

std::string letters_for(const std::vector<std::uint8_t>& codes, std::mt19937& rng) {
  const bool dna = rng() % 2 == 0, lower = rng() % 8 == 0;
  static const char* const kMasked = "NRYKMSWBDHVX";
  std::string s;
  for (const std::uint8_t c : codes) {
    char l = c == 0 ? 'A' : c == 1 ? 'C' : c == 2 ? 'G' : c == 3 ? (dna ? 'T' : 'U') : kMasked[rng() % 12];
    if (lower) l = static_cast<char>(l - 'A' + 'a');
    s.push_back(l);
  }
  return s;
}

int random_query_length(std::mt19937& rng) {
  const unsigned r = rng() % 100;
  if (r < 80) return 17 + static_cast<int>(rng() % 14);  // 17..30
  if (r < 92) return 31 + static_cast<int>(rng() % 34);  // 31..64
  if (r < 98) return 4 + static_cast<int>(rng() % 13);   // 4..16
  return 1 + static_cast<int>(rng() % 3);                // 1..3
}

int random_target_length(std::mt19937& rng) {
  const unsigned r = rng() % 100;
  if (r < 15) return 15 + static_cast<int>(rng() % 60);
  if (r < 60) return 75 + static_cast<int>(rng() % 500);
  return 575 + static_cast<int>(rng() % 2500);
}

Params random_params(std::mt19937& rng) {
  Params p;
  const unsigned r = rng() % 100;
  if (r < 50) return p;  // defaults
  if (r < 65) {
    p.strict = true;
    return p;
  }
  static const double kScale[] = {1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 30.0};
  static const double kOpen[] = {-9.0, -5.0, -12.0, -4.5, -2.0};
  static const double kExtend[] = {-4.0, -2.0, -1.5, -6.0, -1.0};
  static const double kThreshold[] = {60.0, 80.0, 100.0, 120.0, 139.5, 140.0, 160.0, 200.0};
  p.scale = kScale[rng() % 7];
  p.gap_open = kOpen[rng() % 5];
  p.gap_extend = kExtend[rng() % 5];
  p.score_threshold = kThreshold[rng() % 8];
  p.strict = rng() % 4 == 0;
  if (rng() % 10 == 0) p.max_hits_per_pair = 1 + static_cast<int>(rng() % 3);
  return p;
}

// The site a microRNA q pairs with, 5'->3' on the target: reverse complement, mutated.
std::vector<std::uint8_t> site_for(const std::vector<std::uint8_t>& q, std::mt19937& rng) {
  std::vector<std::uint8_t> s;
  for (auto it = q.rbegin(); it != q.rend(); ++it) s.push_back(*it > 3 ? std::uint8_t(4) : std::uint8_t(3 - *it));
  const int edits = static_cast<int>(rng() % 5);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 5) {
      case 0: s[at] = static_cast<std::uint8_t>(rng() % 4); break;                       // substitution
      case 1: if (s[at] == 1) s[at] = 3; else if (s[at] == 0) s[at] = 2; break;           // wobble
      case 2: s.insert(s.begin() + static_cast<long>(at), static_cast<std::uint8_t>(rng() % 4)); break;
      case 3: s.erase(s.begin() + static_cast<long>(at)); break;
      default: s[at] = 4; break;                                                           // masked
    }
  }
  return s;
}

RandomCase make_case(std::mt19937& rng) {
  RandomCase c;
  c.params = random_params(rng);
  const int lq = random_query_length(rng), lr = random_target_length(rng);
  for (int k = 0; k < lq; ++k) c.query.push_back(static_cast<std::uint8_t>(rng() % 4));
  if (rng() % 10 == 0) c.query[rng() % c.query.size()] = 4;
  for (int k = 0; k < lr; ++k) c.target.push_back(static_cast<std::uint8_t>(rng() % 4));
  if (rng() % 5 == 0) {
    const int ns = 1 + static_cast<int>(rng() % 20);
    for (int k = 0; k < ns; ++k) c.target[rng() % c.target.size()] = 4;
  }
  // Sites: anywhere, at the ends, and around the lane borders the scan may use.
  const ScoreModel m = make_score_model(c.params);
  const int span = std::max(1, max_positive_span(lq, m));
  std::vector<int> borders;
  const int warm = (span + 2 + 31) / 32 * 32;  // as cpu_scan.cpp lays lanes out
  for (int lanes : {8, 16}) {
    const int quota = std::max((lr + lanes - 1) / lanes, 4 * warm);
    for (int b = quota; b < lr; b += quota) borders.push_back(b);
  }
  const int sites = static_cast<int>(rng() % 5);
  for (int k = 0; k < sites; ++k) {
    const std::vector<std::uint8_t> s = site_for(c.query, rng);
    if (s.empty() || s.size() > c.target.size()) continue;
    const int room = static_cast<int>(c.target.size() - s.size());
    int at;
    const unsigned where = rng() % 6;
    if (where == 0) at = static_cast<int>(rng() % 3);
    else if (where == 1) at = room - static_cast<int>(rng() % 3);
    else if (where <= 3 && !borders.empty()) at = borders[rng() % borders.size()] - static_cast<int>(rng() % (s.size() + 4));
    else at = static_cast<int>(rng() % static_cast<unsigned>(room + 1));
    at = std::clamp(at, 0, room);
    std::copy(s.begin(), s.end(), c.target.begin() + at);
  }
  c.query_letters = letters_for(c.query, rng);
  c.target_letters = letters_for(c.target, rng);
  return c;
}

// Generated once and shared by the ISA tests: the reference's results are the slow part.
const std::vector<RandomCase>& random_cases() {
  static const std::vector<RandomCase> cases = [] {
    std::mt19937 rng(20240611);
    std::vector<RandomCase> v;
    constexpr int kCases = 10000;
    for (int k = 0; k < kCases; ++k) {
      RandomCase c = make_case(rng);
      c.expected = align_pair(c.qv(), c.tv(), c.params, static_cast<std::size_t>(k), static_cast<std::size_t>(k) + 1);
      v.push_back(std::move(c));
    }
    // A few pairs where gap costs are not negative (no span bound: the reference decides).
    for (int k = 0; k < 20; ++k) {
      RandomCase c = make_case(rng);
      c.params.gap_open = k % 2 == 0 ? 0.0 : 2.0;
      c.params.score_threshold = 20.0;
      c.target.resize(std::min<std::size_t>(c.target.size(), 300));
      c.target_letters.resize(c.target.size());
      c.expected = align_pair(c.qv(), c.tv(), c.params, v.size(), v.size() + 1);
      v.push_back(std::move(c));
    }
    return v;
  }();
  return cases;
}

class ScanIsaTest : public ::testing::TestWithParam<ScanIsa> {
 protected:
  void SetUp() override {
    if (!scan_isa_available(GetParam())) GTEST_SKIP() << scan_isa_name(GetParam()) << " not available here";
  }
};

TEST_P(ScanIsaTest, CandidateCellsEqualCollectCandidates) {
  std::mt19937 rng(77);
  int with_candidates = 0;
  for (int k = 0; k < 600; ++k) {
    RandomCase c = make_case(rng);
    const ScoreModel m = make_score_model(c.params);
    DpMatrix dp;
    dp.compute(c.qv(), c.tv(), m);
    const std::vector<Candidate> expected = collect_candidates(dp, m.threshold);
    const std::vector<Candidate> got = scan_candidates(c.qv(), c.tv(), m, GetParam());
    ASSERT_EQ(expected.size(), got.size()) << "case " << k << " lq " << c.query.size() << " lr " << c.target.size();
    for (std::size_t n = 0; n < expected.size(); ++n) {
      ASSERT_EQ(expected[n].i, got[n].i) << "case " << k;
      ASSERT_EQ(expected[n].j, got[n].j) << "case " << k;
      ASSERT_EQ(expected[n].score, got[n].score) << "case " << k;
      ASSERT_EQ(expected[n].state, got[n].state) << "case " << k;
    }
    with_candidates += !expected.empty();
  }
  EXPECT_GT(with_candidates, 100);  // the planted sites do produce candidates
}

TEST_P(ScanIsaTest, RandomPairsGiveTheReferenceHits) {
  const auto& cases = random_cases();
  std::size_t pairs_with_hits = 0, hits = 0, strict_pairs = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const RandomCase& c = cases[k];
    const PairResult got = align_pair_cpu(c.qv(), c.tv(), c.params, k, k + 1, GetParam());
    ASSERT_TRUE(same_result(c.expected, got)) << "case " << k << ": lq " << c.query.size() << " lr "
                                              << c.target.size() << " T " << c.params.score_threshold;
    pairs_with_hits += !c.expected.hits.empty();
    hits += c.expected.hits.size();
    strict_pairs += c.params.strict && !c.expected.hits.empty();
  }
  EXPECT_GE(cases.size(), 10000u);
  EXPECT_GT(pairs_with_hits, 3000u);  // the comparison is not vacuous
  EXPECT_GT(hits, 5000u);
  EXPECT_GT(strict_pairs, 300u);
}

// The GPU path finishes pairs with their energies deferred (finish_pair's defer_energy), folds the
// duplexes elsewhere and applies them (apply_energies): the same hits, energies, filter and cap as
// the collector that folds each hit itself, for thresholds and caps that cut at every place.
TEST(DeferredEnergies, ApplyEnergiesEqualsTheCollectorsOwnFilterAndCap) {
  const auto& cases = random_cases();
  std::mt19937 rng(11);
  std::size_t compared = 0, dropped = 0, truncated = 0;
  for (std::size_t k = 0; k < cases.size() && k < 4000; ++k) {
    const RandomCase& c = cases[k];
    Params p = c.params;
    p.energy = true;
    static const double kThreshold[] = {1.0, 1.0, -5.0, -10.0, -15.0, -20.0, -30.0};
    static const int kCap[] = {1000, -1, 0, 1, 2, 3};
    p.energy_threshold = kThreshold[rng() % 7];
    p.max_hits_per_pair = kCap[rng() % 6];
    const ScoreModel model = make_score_model(p);
    if (c.query.empty() || c.target.empty() || max_positive_span(static_cast<int>(c.query.size()), model) < 0) continue;
    const auto cands = scan_candidates(c.qv(), c.tv(), model, ScanIsa::scalar);
    const PairResult direct = finish_pair(c.qv(), c.tv(), p, model, cands, k, k + 1);
    PairResult deferred = finish_pair(c.qv(), c.tv(), p, model, cands, k, k + 1, /*defer_energy=*/true);
    std::vector<int> energies;
    for (const Hit& h : deferred.hits) {
      EXPECT_FALSE(h.has_energy);
      energies.push_back(energy::thread_duplex_folder().energy(duplex_string(h), energy::model_at(p.temperature)));
    }
    const std::size_t before = deferred.hits.size();
    apply_energies(deferred, p, energies.data());
    ASSERT_TRUE(same_result(direct, deferred)) << "case " << k << ": threshold " << p.energy_threshold << " cap "
                                               << p.max_hits_per_pair;
    ++compared;
    dropped += before - deferred.hits.size();
    truncated += deferred.truncated;
  }
  EXPECT_GT(compared, 3000u);
  EXPECT_GT(dropped, 500u);   // the filter and the cap did cut
  EXPECT_GT(truncated, 50u);
}

// A long target cut into many lanes, with sites at every lane border of both widths.
TEST_P(ScanIsaTest, SitesAcrossLaneBordersOfALongTarget) {
  std::mt19937 rng(5);
  std::vector<std::uint8_t> q;
  for (int k = 0; k < 22; ++k) q.push_back(static_cast<std::uint8_t>(rng() % 4));
  std::vector<std::uint8_t> t(40000);
  for (auto& b : t) b = static_cast<std::uint8_t>(rng() % 4);
  std::vector<std::uint8_t> site;
  for (auto it = q.rbegin(); it != q.rend(); ++it) site.push_back(static_cast<std::uint8_t>(3 - *it));
  for (int lanes : {8, 16}) {
    const int quota = (static_cast<int>(t.size()) + lanes - 1) / lanes;
    for (int b = quota; b < static_cast<int>(t.size()); b += quota) {
      for (int off : {-30, -11, -1, 0, 5}) {
        const int at = b + off + (lanes == 8 ? 0 : 200);
        if (at >= 0 && at + 22 <= static_cast<int>(t.size())) std::copy(site.begin(), site.end(), t.begin() + at);
      }
    }
  }
  const SeqView qv{q.data(), q.size(), nullptr}, tv{t.data(), t.size(), nullptr};
  for (const bool strict : {false, true}) {
    Params p;
    p.strict = strict;
    p.max_hits_per_pair = -1;
    const PairResult e = align_pair(qv, tv, p);
    EXPECT_GT(e.hits.size(), 10u);
    EXPECT_TRUE(same_result(e, align_pair_cpu(qv, tv, p, 0, 0, GetParam())));
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, ScanIsaTest, ::testing::Values(ScanIsa::scalar, ScanIsa::sse2, ScanIsa::avx2),
                         [](const ::testing::TestParamInfo<ScanIsa>& param_info) {
                           return std::string(scan_isa_name(param_info.param));
                         });

TEST(ScanDispatch, BestIsaIsAvailableAndNamed) {
  const ScanIsa best = best_scan_isa();
  EXPECT_TRUE(scan_isa_available(best));
  EXPECT_EQ(resolve_scan_isa(ScanIsa::automatic), best);
  EXPECT_NE(best, ScanIsa::automatic);
#if defined(__x86_64__)
  EXPECT_NE(best, ScanIsa::scalar);
  EXPECT_EQ(scan_lanes(ScanIsa::sse2), 8);
#endif
  EXPECT_EQ(scan_lanes(ScanIsa::scalar), 1);
}

TEST(ScanBounds, SixteenBitsFitTheDefaultsButNotAHugeScale) {
  Params p;
  EXPECT_TRUE(scan_fits_16bit(22, make_score_model(p)));
  EXPECT_TRUE(scan_fits_16bit(64, make_score_model(p)));
  p.scale = 30.0;  // seed scores of 150: beyond a signed byte, the scalar kernel runs
  EXPECT_FALSE(scan_fits_16bit(22, make_score_model(p)));
  p = Params{};
  p.gap_open = 0.0;  // no span bound
  EXPECT_FALSE(scan_fits_16bit(22, make_score_model(p)));
  EXPECT_EQ(max_cell_gain(22, make_score_model(Params{})), 7 * 20 + 12 * 5);
  EXPECT_EQ(max_cell_gain(3, make_score_model(Params{})), 0);
}

// ---- public vectors through align_batch ----------------------------------------------------------

struct VectorCase {
  const char* queries;
  const char* targets;
  const char* expected;
  bool strict;
  bool energy = false;  // miRanda's default run (energies), not -noenergy
  double energy_threshold = 1.0;
};

class BatchVectors : public ::testing::TestWithParam<VectorCase> {};

TEST_P(BatchVectors, FastPathReportEqualsMiranda) {
  const VectorCase c = GetParam();
  const test::Inputs q = test::load_inputs(test::data_path(c.queries));
  const test::Inputs t = test::load_inputs(test::data_path(c.targets));
  Params p;
  p.strict = c.strict;
  p.energy = c.energy;
  p.energy_threshold = c.energy_threshold;
  // Each ISA of the CPU scan, then the GPU path (scan and energies on the GPU) where a GPU is usable
  // (the GPU machine runs this test too).
  for (const int path : {0, 1, 2, 3}) {
    const ScanIsa isa = path == 1 ? ScanIsa::sse2 : path == 2 ? ScanIsa::avx2 : ScanIsa::scalar;
    if (path < 3 ? !scan_isa_available(isa) : !gpu_available()) continue;
    const char* path_name = path < 3 ? scan_isa_name(isa) : "gpu";
    BatchOptions o;
    o.method = path < 3 ? Method::cpu : Method::gpu;
    o.isa = isa;
    o.threads = 2;
    o.query_letters = &q.letters;
    o.target_letters = &t.letters;
    const std::vector<PairResult> results = align_batch(q.set, t.set, p, o);
    std::ostringstream body, lines;
    ReportWriter with_blocks(body, true), plain(lines, false);
    std::size_t r = 0;
    for (std::size_t a = 0; a < q.set.size(); ++a) {
      for (std::size_t b = 0; b < t.set.size(); ++b) {
        static const std::vector<Hit> kNone;
        const bool here = r < results.size() && results[r].query_index == a && results[r].target_index == b;
        const std::vector<Hit>& hits = here ? results[r++].hits : kNone;
        with_blocks.pair(hits, q.set.record(a).name, t.set.record(b).name, q.set.length(a), t.set.length(b));
        plain.pair(hits, q.set.record(a).name, t.set.record(b).name, q.set.length(a), t.set.length(b));
      }
    }
    with_blocks.finish();
    EXPECT_EQ(r, results.size());
    const std::string expected = test::read_text(test::data_path(c.expected));
    const std::vector<std::string> want = test::result_lines(expected);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(want, test::result_lines(lines.str())) << path_name;
    EXPECT_EQ(test::report_body(expected), body.str()) << path_name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Miranda33a, BatchVectors,
    ::testing::Values(VectorCase{"bantam_stRNA.fasta", "hid_UTR.fasta", "examples_noenergy.out", false},
                      VectorCase{"public_queries.fa", "public_targets.fa", "public_noenergy.out", false},
                      VectorCase{"public_queries.fa", "public_targets.fa", "public_strict.out", true},
                      VectorCase{"bantam_stRNA.fasta", "hid_UTR.fasta", "examples_energy.out", false, true},
                      VectorCase{"public_queries.fa", "public_targets.fa", "public_energy.out", false, true},
                      VectorCase{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_en20.out", false, true, -20.0},
                      VectorCase{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_energy.out", false, true},
                      VectorCase{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_strict_energy.out", true, true}),
    [](const ::testing::TestParamInfo<VectorCase>& param_info) {
      const std::string e = param_info.param.expected;
      return e.substr(0, e.find('.'));
    });

// ---- align_batch: methods, threads, blocks --------------------------------------------------------

seq::SequenceSet random_set(std::mt19937& rng, std::size_t n, int min_len, int max_len, const char* prefix,
                            const seq::SequenceSet* plant_from = nullptr) {
  seq::SequenceSet set;
  for (std::size_t k = 0; k < n; ++k) {
    const int len = min_len + static_cast<int>(rng() % static_cast<unsigned>(max_len - min_len + 1));
    std::vector<std::uint8_t> s(static_cast<std::size_t>(len));
    for (auto& b : s) b = static_cast<std::uint8_t>(rng() % 4);
    if (plant_from != nullptr && !plant_from->empty()) {
      for (int sites = static_cast<int>(rng() % 4); sites > 0; --sites) {
        const std::size_t qi = rng() % plant_from->size();
        std::vector<std::uint8_t> q(plant_from->codes(qi), plant_from->codes(qi) + plant_from->length(qi));
        const std::vector<std::uint8_t> site = site_for(q, rng);
        if (site.size() >= s.size()) continue;
        const std::size_t at = rng() % (s.size() - site.size() + 1);
        std::copy(site.begin(), site.end(), s.begin() + static_cast<long>(at));
      }
    }
    seq::SequenceRecord r;
    r.name = prefix + std::to_string(k);
    r.index_in_file = k;
    set.add(r, s.data(), s.size());
  }
  return set;
}


TEST(AlignBatch, EveryMethodThreadCountAndIsaGivesTheSameResults) {
  std::mt19937 rng(31);
  const seq::SequenceSet queries = random_set(rng, 12, 18, 26, "q");
  // Many short targets (several per block), some long ones (cut across blocks).
  seq::SequenceSet targets = random_set(rng, 60, 20, 900, "t", &queries);
  const seq::SequenceSet longs = random_set(rng, 3, 9000, 14000, "L", &queries);
  for (std::size_t k = 0; k < longs.size(); ++k) {
    seq::SequenceRecord r = longs.record(k);
    r.index_in_file = targets.size();
    targets.add(r, longs.codes(k), longs.length(k));
  }
  Params p;
  p.score_threshold = 120.0;
  const std::vector<PairResult> ref = align_batch(queries, targets, p, Method::reference, 2);
  ASSERT_GT(ref.size(), 20u);
  for (std::size_t k = 1; k < ref.size(); ++k) {
    const bool ordered = ref[k - 1].query_index < ref[k].query_index ||
                         (ref[k - 1].query_index == ref[k].query_index && ref[k - 1].target_index < ref[k].target_index);
    ASSERT_TRUE(ordered);
  }
  for (const int threads : {1, 2, 7, 16}) {
    expect_same_results(ref, align_batch(queries, targets, p, Method::cpu, threads), "cpu threads " + std::to_string(threads));
  }
  for (const ScanIsa isa : {ScanIsa::scalar, ScanIsa::sse2}) {
    BatchOptions o;
    o.isa = isa;
    o.threads = 3;
    expect_same_results(ref, align_batch(queries, targets, p, o), scan_isa_name(isa));
  }
  // A query range, with progress reports.
  BatchOptions o;
  o.query_begin = 4;
  o.query_end = 9;
  std::size_t last = 0;
  o.threads = 1;
  o.progress = [&last](std::size_t done) { last = done; };
  std::vector<PairResult> part = align_batch(queries, targets, p, o);
  std::vector<PairResult> want;
  for (const PairResult& r : ref)
    if (r.query_index >= 4 && r.query_index < 9) want.push_back(r);
  expect_same_results(want, part, "query range");
  EXPECT_EQ(last, 5 * targets.size());
}

TEST(AlignBatch, EmptyRangesAndParseMethod) {
  std::mt19937 rng(3);
  const seq::SequenceSet q = random_set(rng, 2, 20, 22, "q"), t = random_set(rng, 2, 50, 60, "t");
  BatchOptions o;
  o.query_begin = 2;
  EXPECT_TRUE(align_batch(q, t, Params{}, o).empty());
  EXPECT_EQ(parse_method("reference"), Method::reference);
  EXPECT_EQ(parse_method("cpu"), Method::cpu);
  EXPECT_THROW(parse_method("gpu"), Error);
  o = BatchOptions{};
  o.threads = -1;
  EXPECT_THROW(align_batch(q, t, Params{}, o), Error);
}

// ---- human microRNAs against the SARS-CoV-2 genome -------------------------------------------------

std::string repo_data(const std::string& name) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  return std::string(root != nullptr ? root : ".") + "/data/" + name;
}

TEST(HumanMicroRnas, SampleAgainstTheGenomeEqualsTheReference) {
  const std::string mature = repo_data("hsa_mature_mirbase.fa"), genome = repo_data("sarscov2_NC_045512.2.fa");
  if (!std::filesystem::exists(mature) || !std::filesystem::exists(genome)) GTEST_SKIP() << "data/ not present";
  seq::FastaOptions fo;
  fo.mask_x = true;
  const seq::SequenceSet all = seq::read_fasta(mature, fo);
  const seq::SequenceSet g = seq::read_fasta(genome, fo);
  ASSERT_GT(all.size(), 1000u);
  // 40 microRNAs spread over the file.
  seq::SequenceSet sample;
  for (std::size_t k = 0; k < 40; ++k) {
    const std::size_t i = k * all.size() / 40;
    seq::SequenceRecord r = all.record(i);
    r.index_in_file = k;
    sample.add(r, all.codes(i), all.length(i));
  }
  for (const bool strict : {false, true}) {
    Params p;
    p.strict = strict;
    const std::vector<PairResult> ref = align_batch(sample, g, p, Method::reference, 2);
    if (!strict) {
      EXPECT_GT(ref.size(), 5u);
    }
    std::size_t hits = 0;
    for (const auto& r : ref) hits += r.hits.size();
    if (!strict) {
      EXPECT_GT(hits, 10u);
    }
    expect_same_results(ref, align_batch(sample, g, p, Method::cpu, 2), strict ? "strict" : "default");
    // One query, the genome cut into many blocks (many threads wanted).
    BatchOptions o;
    o.threads = 16;
    o.query_begin = 0;
    o.query_end = 10;
    std::vector<PairResult> want;
    for (const auto& r : ref)
      if (r.query_index < 10) want.push_back(r);
    expect_same_results(want, align_batch(sample, g, p, o), "blocks");
  }
}

// ---- input: characters miRanda rejects ----------------------------------------------------------------

TEST(MirandaInput, RejectedCharactersNameFileLineAndColumn) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "screen-miranda-input-test";
  std::filesystem::create_directories(dir);
  seq::FastaOptions fo;
  fo.mask_x = true;
  struct Bad {
    const char* text;
    const char* where;  // line:column
  };
  for (const Bad& b : {Bad{">q1\nACGU\nAC-GU\n", ":3:3"}, Bad{">q1\nACGUJ\n", ":2:5"}, Bad{">q1\nAC\n>q2\nA1CG\n", ":4:2"},
                       Bad{">q1\nACG*\n", ":2:4"}}) {
    const std::string path = (dir / "bad.fa").string();
    {
      std::ofstream out(path);
      out << b.text;
    }
    try {
      (void)seq::read_fasta(path, fo);
      ADD_FAILURE() << "accepted: " << b.text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::input);
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path + b.where + ":"), std::string::npos) << msg;
    }
  }
  // X, IUPAC letters, T and lower case are accepted; X and IUPAC are masked.
  {
    std::ofstream out((dir / "ok.fa").string());
    out << ">q1\nacgtXRYKMSWBDHVN\n";
  }
  const seq::SequenceSet ok = seq::read_fasta((dir / "ok.fa").string(), fo);
  ASSERT_EQ(ok.length(0), 16u);
  EXPECT_EQ(ok.codes(0)[3], 3);
  for (std::size_t k = 4; k < 16; ++k) EXPECT_EQ(ok.codes(0)[k], 4);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace screen::miranda
