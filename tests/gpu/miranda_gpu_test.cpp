// The miRanda GPU scan (GpuScanner, scan_candidates_gpu) and Method::gpu against the CPU: candidate
// cells equal to collect_candidates (the reference DP) or the CPU scan, and hits equal to the
// reference's, on the public vectors, 10,000 random pairs with planted sites (random parameters,
// random lane and batch lengths so that sites straddle lane and batch borders, queries of 65-128 nt
// on the GPU and longer ones on the CPU), a dense lane- and batch-border sweep, thousands of short
// targets packed into lanes, a memory budget small enough to force many batches and split scans,
// the candidate buffer's overflow retry, the streamed interface, and the 1,921 human microRNAs
// against the SARS-CoV-2 genome.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu/device_info.hpp"
#include "seq/sequence_set.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/cpu.hpp"
#include "stages/miranda/cpu_scan.hpp"
#include "stages/miranda/cuda.hpp"
#include "stages/miranda/reference.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/miranda/miranda_test_util.hpp"

namespace screen::miranda {
namespace {

using test::expect_same_results;
using test::same_result;


::testing::AssertionResult same_candidates(const std::vector<Candidate>& e, const std::vector<Candidate>& g) {
  if (e.size() != g.size())
    return ::testing::AssertionFailure() << "candidate count " << g.size() << ", expected " << e.size();
  for (std::size_t k = 0; k < e.size(); ++k) {
    if (e[k].score != g[k].score || e[k].i != g[k].i || e[k].j != g[k].j || e[k].state != g[k].state)
      return ::testing::AssertionFailure() << "candidate " << k << ": expected (" << e[k].i << ", " << e[k].j << ") "
                                           << e[k].score << "/" << int(e[k].state) << ", got (" << g[k].i << ", "
                                           << g[k].j << ") " << g[k].score << "/" << int(g[k].state);
  }
  return ::testing::AssertionSuccess();
}



std::string repo_data_path(const std::string& name) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  return std::string(root != nullptr ? root : ".") + "/data/" + name;
}

// The human mature miRNAs and the SARS-CoV-2 genome of data/, X-masked; a fatal failure without them.
void read_mirs_and_genome(seq::SequenceSet& qs, seq::SequenceSet& ts) {
  const std::string mature = repo_data_path("hsa_mature_mirbase.fa"), genome = repo_data_path("sarscov2_NC_045512.2.fa");
  ASSERT_TRUE(std::filesystem::exists(mature) && std::filesystem::exists(genome)) << "data/ not present";
  seq::FastaOptions fo;
  fo.mask_x = true;
  qs = seq::read_fasta(mature, fo);
  ts = seq::read_fasta(genome, fo);
}

std::vector<SeqView> views_of(const test::Inputs& in) {
  std::vector<SeqView> v;
  for (std::size_t k = 0; k < in.set.size(); ++k) v.push_back(in.view(k));
  return v;
}

// Every pair's candidates from the GPU scan, as a map keyed by (query, target).
std::map<std::pair<std::size_t, std::size_t>, std::vector<Candidate>> gpu_map(
    const std::vector<SeqView>& q, const std::vector<SeqView>& t, const ScoreModel& m, const GpuScanOptions& o,
    GpuScanStats* stats = nullptr) {
  std::map<std::pair<std::size_t, std::size_t>, std::vector<Candidate>> out;
  std::pair<std::size_t, std::size_t> last{0, 0};
  bool first = true;
  for (PairCandidates& p : scan_candidates_gpu(q.data(), q.size(), t.data(), t.size(), m, o, stats)) {
    const std::pair<std::size_t, std::size_t> key{p.query, p.target};
    EXPECT_TRUE(first || last < key) << "pairs out of order";
    EXPECT_FALSE(p.candidates.empty());
    first = false;
    last = key;
    out[key] = std::move(p.candidates);
  }
  return out;
}

std::vector<Candidate> reference_candidates(const SeqView& q, const SeqView& t, const ScoreModel& m) {
  DpMatrix dp;
  dp.compute(q, t, m);
  return collect_candidates(dp, m.threshold);
}

Params make_params(double threshold, double scale, double open, double extend, bool strict) {
  Params p;
  p.score_threshold = threshold;
  p.scale = scale;
  p.gap_open = open;
  p.gap_extend = extend;
  p.strict = strict;
  return p;
}

// ---- the public vectors ------------------------------------------------------------------------------

TEST(MirandaGpu, PublicVectorsCandidatesAndHitsEqualTheReference) {
  SCREEN_REQUIRE_GPU();
  const std::vector<std::pair<std::string, std::string>> sets{{"bantam_stRNA.fasta", "hid_UTR.fasta"},
                                                              {"public_queries.fa", "public_targets.fa"}};
  const std::vector<Params> params{Params{}, make_params(140, 4, -9, -4, true), make_params(80, 2, -5, -2, false),
                                   make_params(100, 6, -12, -1, false), make_params(60, 1, -4.5, -1.5, true)};
  for (const auto& [qf, tf] : sets) {
    const test::Inputs qi = test::load_inputs(test::data_path(qf)), ti = test::load_inputs(test::data_path(tf));
    const std::vector<SeqView> q = views_of(qi), t = views_of(ti);
    for (std::size_t pk = 0; pk < params.size(); ++pk) {
      const Params& p = params[pk];
      const ScoreModel m = make_score_model(p);
      for (const int chunk : {0, 7, 50}) {
        GpuScanOptions o;
        o.chunk_columns = chunk;
        const auto got = gpu_map(q, t, m, o);
        std::size_t n = 0;
        for (std::size_t a = 0; a < q.size(); ++a) {
          for (std::size_t b = 0; b < t.size(); ++b) {
            const std::vector<Candidate> want = reference_candidates(q[a], t[b], m);
            const auto it = got.find({a, b});
            const std::vector<Candidate> none;
            EXPECT_TRUE(same_candidates(want, it == got.end() ? none : it->second))
                << qf << " x " << tf << " params " << pk << " chunk " << chunk << " pair " << a << "," << b;
            n += want.size();
          }
        }
        if (pk == 0) {
          EXPECT_GT(n, 0u);
        }
      }
      BatchOptions gpu, ref;
      gpu.method = Method::gpu;
      ref.method = Method::reference;
      gpu.query_letters = ref.query_letters = &qi.letters;
      gpu.target_letters = ref.target_letters = &ti.letters;
      expect_same_results(align_batch(qi.set, ti.set, p, ref), align_batch(qi.set, ti.set, p, gpu),
                          qf + " params " + std::to_string(pk));
    }
  }
}

// ---- random pairs with planted sites -----------------------------------------------------------------

struct RandomCase {
  std::vector<std::uint8_t> query, target;
  Params params;
  int chunk = 0;  // lane quota
  int batch = 0;  // batch length
  SeqView qv() const { return SeqView{query.data(), query.size(), nullptr}; }
  SeqView tv() const { return SeqView{target.data(), target.size(), nullptr}; }
};

// The site a microRNA pairs with, 5'->3' on the target: its reverse complement, mutated.
std::vector<std::uint8_t> site_for(const std::vector<std::uint8_t>& q, std::mt19937& rng) {
  std::vector<std::uint8_t> s;
  for (auto it = q.rbegin(); it != q.rend(); ++it) s.push_back(*it > 3 ? std::uint8_t(4) : std::uint8_t(3 - *it));
  const int edits = static_cast<int>(rng() % 5);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 5) {
      case 0: s[at] = static_cast<std::uint8_t>(rng() % 4); break;
      case 1: s[at] = s[at] == 1 ? 3 : s[at] == 0 ? 2 : s[at]; break;  // wobble
      case 2: s.insert(s.begin() + static_cast<long>(at), static_cast<std::uint8_t>(rng() % 4)); break;
      case 3: s.erase(s.begin() + static_cast<long>(at)); break;
      default: s[at] = 4; break;
    }
  }
  return s;
}

RandomCase make_case(std::mt19937& rng) {
  RandomCase c;
  const unsigned pr = rng() % 100;
  if (pr < 40) {
    c.params = Params{};
  } else if (pr < 50) {
    c.params.strict = true;
  } else {
    static const double kScale[] = {1.0, 2.0, 3.5, 4.0, 5.0, 6.0};
    static const double kOpen[] = {-9.0, -5.0, -12.0, -4.5, -2.0};
    static const double kExtend[] = {-4.0, -2.0, -1.5, -6.0, -1.0};
    static const double kThreshold[] = {60.0, 80.0, 100.0, 120.0, 139.5, 140.0, 160.0};
    c.params = make_params(kThreshold[rng() % 7], kScale[rng() % 6], kOpen[rng() % 5], kExtend[rng() % 5], rng() % 4 == 0);
  }
  const unsigned lr = rng() % 100;
  const int lq = lr < 72 ? 17 + static_cast<int>(rng() % 14)
                 : lr < 84 ? 31 + static_cast<int>(rng() % 34)
                 : lr < 90 ? 65 + static_cast<int>(rng() % 64)   // the 128-row kernel
                 : lr < 96 ? 4 + static_cast<int>(rng() % 13)
                 : lr < 98 ? 129 + static_cast<int>(rng() % 40)  // longer than the kernel takes
                           : 1 + static_cast<int>(rng() % 3);
  const int tl = rng() % 3 == 0 ? 15 + static_cast<int>(rng() % 200) : 200 + static_cast<int>(rng() % 2000);
  for (int k = 0; k < lq; ++k) c.query.push_back(static_cast<std::uint8_t>(rng() % 4));
  if (rng() % 10 == 0) c.query[rng() % c.query.size()] = 4;
  for (int k = 0; k < tl; ++k) c.target.push_back(static_cast<std::uint8_t>(rng() % 4));
  if (rng() % 5 == 0)
    for (int k = 0; k < 10; ++k) c.target[rng() % c.target.size()] = 4;
  static const int kChunks[] = {0, 0, 1, 3, 16, 40, 97, 250};
  c.chunk = kChunks[rng() % 8];
  static const int kBatches[] = {0, 0, 0, 0, 64, 250, 333, 1000};
  c.batch = tl < 215 && rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 9) : kBatches[rng() % 8];
  const int sites = static_cast<int>(rng() % 6);
  for (int k = 0; k < sites; ++k) {
    const std::vector<std::uint8_t> s = site_for(c.query, rng);
    if (s.empty() || s.size() > c.target.size()) continue;
    const int room = static_cast<int>(c.target.size() - s.size());
    int at = static_cast<int>(rng() % static_cast<unsigned>(room + 1));
    const int cut = rng() % 2 == 0 ? c.chunk : c.batch;
    if (cut > 0 && rng() % 2 == 0) {  // straddle a lane or batch border
      const int border = cut * (1 + static_cast<int>(rng() % std::max(1, tl / cut)));
      at = border - static_cast<int>(rng() % (s.size() + 3));
    }
    at = std::clamp(at, 0, room);
    std::copy(s.begin(), s.end(), c.target.begin() + at);
  }
  return c;
}

TEST(MirandaGpu, RandomPairsWithPlantedSitesEqualTheCpuScanAndTheReference) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(20261123);
  constexpr std::size_t kCases = 10000;
  std::vector<RandomCase> cases;
  for (std::size_t k = 0; k < kCases; ++k) cases.push_back(make_case(rng));
  // GPU candidates, one scan per case (each has its own parameters and chunk length).
  std::vector<std::vector<Candidate>> got(kCases);
  std::size_t cpu_queries = 0, gpu_queries = 0;
  for (std::size_t k = 0; k < kCases; ++k) {
    const RandomCase& c = cases[k];
    const SeqView q = c.qv(), t = c.tv();
    GpuScanOptions o;
    o.chunk_columns = c.chunk;
    o.batch_columns = static_cast<std::size_t>(c.batch);
    GpuScanStats st;
    auto r = scan_candidates_gpu(&q, 1, &t, 1, make_score_model(c.params), o, &st);
    if (c.query.size() > 128) {
      EXPECT_EQ(st.gpu_queries, 0u);
    }
    ASSERT_LE(r.size(), 1u);
    if (!r.empty()) got[k] = std::move(r[0].candidates);
    cpu_queries += st.cpu_queries;
    gpu_queries += st.gpu_queries;
  }
  std::size_t long_on_gpu = 0;
  for (const RandomCase& c : cases) long_on_gpu += c.query.size() > 64 && c.query.size() <= 128;
  EXPECT_GT(long_on_gpu, 400u);
  EXPECT_GT(cpu_queries, 50u);  // the queries over 128 nt took the CPU scan
  EXPECT_GT(gpu_queries, 8000u);  // (queries no cell of which can reach the threshold are skipped)
  std::atomic<std::size_t> bad_cands{0}, bad_hits{0}, with_cands{0}, with_hits{0};
  std::vector<std::string> why(kCases);
  screen::testing::parallel_for(kCases, [&](std::size_t k) {
    const RandomCase& c = cases[k];
    const ScoreModel m = make_score_model(c.params);
    const std::vector<Candidate> want = scan_candidates(c.qv(), c.tv(), m);
    const auto sc = same_candidates(want, got[k]);
    if (!sc) {
      ++bad_cands;
      why[k] = sc.message();
    }
    // The reference DP's own cells on a sample (the CPU scan is tested equal to them elsewhere).
    if (k % 10 == 0 && !same_candidates(reference_candidates(c.qv(), c.tv(), m), got[k])) ++bad_cands;
    with_cands += !got[k].empty();
    const PairResult ref = align_pair(c.qv(), c.tv(), c.params, k, k);
    const PairResult gpu = finish_pair(c.qv(), c.tv(), c.params, m, got[k], k, k);
    if (!same_result(ref, gpu)) ++bad_hits;
    with_hits += !ref.hits.empty();
  });
  for (std::size_t k = 0, shown = 0; k < kCases && shown < 5; ++k)
    if (!why[k].empty()) {
      ADD_FAILURE() << "case " << k << " (lq " << cases[k].query.size() << ", lr " << cases[k].target.size()
                    << ", chunk " << cases[k].chunk << ", batch " << cases[k].batch << "): " << why[k];
      ++shown;
    }
  EXPECT_EQ(bad_cands.load(), 0u);
  EXPECT_EQ(bad_hits.load(), 0u);
  EXPECT_GT(with_cands.load(), 2000u);
  EXPECT_GT(with_hits.load(), 2000u);
}

// ---- chunk borders -----------------------------------------------------------------------------------

TEST(MirandaGpu, EveryChunkLengthGivesTheSameCandidates) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(7);
  // Four queries (row variants 24, 32, 64 and 128) against targets dense with sites.
  std::vector<std::vector<std::uint8_t>> qs, ts;
  for (const int lq : {22, 29, 60, 101}) {
    std::vector<std::uint8_t> q;
    for (int k = 0; k < lq; ++k) q.push_back(static_cast<std::uint8_t>(rng() % 4));
    qs.push_back(q);
  }
  for (int t = 0; t < 4; ++t) {
    std::vector<std::uint8_t> s;
    for (int k = 0; k < 700; ++k) s.push_back(static_cast<std::uint8_t>(rng() % 4));
    for (int k = 0; k < 12; ++k) {
      const std::vector<std::uint8_t> site = site_for(qs[rng() % 4], rng);
      const std::size_t at = rng() % (s.size() - site.size());
      std::copy(site.begin(), site.end(), s.begin() + static_cast<long>(at));
    }
    ts.push_back(s);
  }
  std::vector<SeqView> q, t;
  for (const auto& x : qs) q.push_back(SeqView{x.data(), x.size(), nullptr});
  for (const auto& x : ts) t.push_back(SeqView{x.data(), x.size(), nullptr});
  for (const Params& p : {make_params(100, 4, -9, -4, false), make_params(60, 2, -5, -2, false)}) {
    const ScoreModel m = make_score_model(p);
    std::size_t total = 0;
    std::vector<std::vector<std::vector<Candidate>>> want(q.size());
    for (std::size_t a = 0; a < q.size(); ++a)
      for (std::size_t b = 0; b < t.size(); ++b) {
        want[a].push_back(reference_candidates(q[a], t[b], m));
        total += want[a].back().size();
      }
    EXPECT_GT(total, 30u);
    for (int chunk = 1; chunk <= 72; ++chunk) {
      GpuScanOptions o;
      o.chunk_columns = chunk;
      o.batch_columns = chunk % 2 == 0 ? 0 : static_cast<std::size_t>(chunk * 5 + 3);  // batch borders too
      const auto got = gpu_map(q, t, m, o);
      for (std::size_t a = 0; a < q.size(); ++a)
        for (std::size_t b = 0; b < t.size(); ++b) {
          const auto it = got.find({a, b});
          const std::vector<Candidate> none;
          EXPECT_TRUE(same_candidates(want[a][b], it == got.end() ? none : it->second))
              << "chunk " << chunk << " pair " << a << "," << b;
        }
    }
  }
}

TEST(MirandaGpu, CandidateBufferOverflowRetries) {
  SCREEN_REQUIRE_GPU();
  const test::Inputs qi = test::load_inputs(test::data_path("public_queries.fa"));
  const test::Inputs ti = test::load_inputs(test::data_path("public_targets.fa"));
  const std::vector<SeqView> q = views_of(qi), t = views_of(ti);
  const ScoreModel m = make_score_model(make_params(60, 4, -9, -4, false));
  GpuScanStats big_stats, small_stats;
  const auto big = gpu_map(q, t, m, GpuScanOptions{}, &big_stats);
  GpuScanOptions o;
  o.initial_capacity = 3;
  const auto small = gpu_map(q, t, m, o, &small_stats);
  EXPECT_EQ(big_stats.retries, 0);
  EXPECT_EQ(small_stats.retries, 1);
  EXPECT_GT(big_stats.candidates, 100u);
  ASSERT_EQ(big.size(), small.size());
  for (const auto& [key, cands] : big) {
    ASSERT_TRUE(small.count(key));
    EXPECT_TRUE(same_candidates(cands, small.at(key)));
  }
}

// ---- many short targets packed into lanes, long queries, batch borders ------------------------------

struct PackedSet {
  std::vector<std::vector<std::uint8_t>> qs, ts;
  std::vector<SeqView> q, t;
};

// Nine queries (8 to 140 nt: every row variant and one too long for the kernel) against 3,000
// targets, most of them 0-120 nt (empty ones too) and a few of several thousand, with sites planted
// anywhere, at target starts and at target ends.
PackedSet make_packed_set(std::mt19937& rng) {
  PackedSet p;
  for (const int lq : {8, 22, 29, 45, 64, 65, 100, 128, 140}) {
    std::vector<std::uint8_t> q;
    for (int k = 0; k < lq; ++k) q.push_back(static_cast<std::uint8_t>(rng() % 4));
    p.qs.push_back(q);
  }
  for (int k = 0; k < 3000; ++k) {
    const int len = k % 500 == 7 ? 3000 + static_cast<int>(rng() % 3000) : static_cast<int>(rng() % 121);
    std::vector<std::uint8_t> t;
    for (int c = 0; c < len; ++c) t.push_back(static_cast<std::uint8_t>(rng() % 4));
    for (int s = static_cast<int>(rng() % 3); s > 0 && !t.empty(); --s) {
      const std::vector<std::uint8_t> site = site_for(p.qs[rng() % p.qs.size()], rng);
      if (site.size() > t.size()) continue;
      const std::size_t room = t.size() - site.size();
      const std::size_t at = rng() % 3 == 0 ? 0 : rng() % 3 == 0 ? room : rng() % (room + 1);
      std::copy(site.begin(), site.end(), t.begin() + static_cast<long>(at));
    }
    p.ts.push_back(t);
  }
  for (const auto& x : p.qs) p.q.push_back(SeqView{x.data(), x.size(), nullptr});
  for (const auto& x : p.ts) p.t.push_back(SeqView{x.data(), x.size(), nullptr});
  return p;
}

TEST(MirandaGpu, ShortTargetsPackedIntoLanesAndLongQueriesEqualTheCpuScan) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(99);
  const PackedSet p = make_packed_set(rng);
  for (const Params& params : {make_params(100, 4, -9, -4, false), make_params(70, 2, -5, -2, false)}) {
    const ScoreModel m = make_score_model(params);
    std::vector<std::vector<Candidate>> want(p.q.size() * p.t.size());
    screen::testing::parallel_for(want.size(), [&](std::size_t k) {
      if (p.t[k % p.t.size()].length > 0) want[k] = scan_candidates(p.q[k / p.t.size()], p.t[k % p.t.size()], m);
    });
    std::size_t total = 0;
    for (const auto& w : want) total += w.size();
    EXPECT_GT(total, 1000u);
    // (lane quota, batch length): automatic, lanes crossing many targets, batch borders everywhere.
    for (const auto& [chunk, batch] : std::vector<std::pair<int, std::size_t>>{{0, 0}, {500, 0}, {37, 4099}, {1, 997}}) {
      GpuScanOptions o;
      o.chunk_columns = chunk;
      o.batch_columns = batch;
      GpuScanStats st;
      const auto got = gpu_map(p.q, p.t, m, o, &st);
      std::size_t scoring = 0;  // queries some cell of which can reach the threshold (the others are skipped)
      for (std::size_t a = 0; a + 1 < p.q.size(); ++a)
        scoring += max_cell_gain(static_cast<int>(p.q[a].length), m) >= m.threshold;
      EXPECT_GE(scoring, 7u);
      EXPECT_EQ(st.gpu_queries, scoring);  // every query of 8-128 nt that can score
      EXPECT_EQ(st.cpu_queries, 1u);      // the 140-nt one
      if (batch > 0) {
        EXPECT_GT(st.batches, 10u);
      }
      std::size_t bad = 0;
      for (std::size_t k = 0; k < want.size(); ++k) {
        const auto it = got.find({k / p.t.size(), k % p.t.size()});
        const std::vector<Candidate> none;
        const auto r = same_candidates(want[k], it == got.end() ? none : it->second);
        if (!r && ++bad <= 3) ADD_FAILURE() << "chunk " << chunk << " batch " << batch << " pair " << k << ": " << r.message();
      }
      EXPECT_EQ(bad, 0u);
    }
  }
}

TEST(MirandaGpu, StreamedBatchesEqualTheCpuPath) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(5);
  const PackedSet p = make_packed_set(rng);
  const auto set_of = [](const std::vector<std::vector<std::uint8_t>>& seqs, const char* prefix) {
    seq::SequenceSet set;
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      seq::SequenceRecord r;
      r.name = prefix + std::to_string(k);
      set.add(r, seqs[k].data(), seqs[k].size());
    }
    return set;
  };
  const seq::SequenceSet qs = set_of(p.qs, "q"), ts = set_of(p.ts, "t");
  // Without energies, then with them (folded on the GPU one batch behind the scan; a threshold and a
  // cap that cut).
  for (const int variant : {0, 1}) {
    Params params = make_params(90, 4, -9, -4, false);
    if (variant == 1) {
      params.energy = true;
      params.energy_threshold = -8.0;
      params.max_hits_per_pair = 2;
    }
    SCOPED_TRACE(variant == 0 ? "no energies" : "energies");
    BatchOptions cpu;
    cpu.method = Method::cpu;
    const std::vector<PairResult> want = align_batch(qs, ts, params, cpu);
    std::size_t hits = 0;
    for (const auto& r : want) hits += r.hits.size();
    EXPECT_GT(hits, variant == 0 ? 500u : 100u);
    BatchOptions gpu;
    gpu.method = Method::gpu;
    gpu.gpu_batch_columns = 5000;  // dozens of batches, targets across their borders
    expect_same_results(want, align_batch(qs, ts, params, gpu), "align_batch gpu");
    std::vector<PairResult> parts;
    std::size_t calls = 0, last_done = 0;
    gpu.progress = [&](std::size_t d) {
      EXPECT_GE(d, last_done);
      last_done = d;
    };
    align_batch_streamed(qs, ts, params, gpu, [&](std::vector<PairResult>& part) {
      ++calls;
      for (std::size_t k = 1; k < part.size(); ++k)
        EXPECT_TRUE(std::make_pair(part[k - 1].query_index, part[k - 1].target_index) <
                    std::make_pair(part[k].query_index, part[k].target_index));
      for (auto& r : part) parts.push_back(std::move(r));
    });
    EXPECT_GT(calls, 10u);
    EXPECT_EQ(last_done, qs.size() * ts.size());
    std::sort(parts.begin(), parts.end(), [](const PairResult& a, const PairResult& b) {
      return std::make_pair(a.query_index, a.target_index) < std::make_pair(b.query_index, b.target_index);
    });
    expect_same_results(want, parts, "align_batch_streamed");
  }
}

// ---- a memory budget far below the work: many batches, grown and split candidate buffers -----------

TEST(MirandaGpu, TinyMemoryBudgetStaysWithinItAndEqualsTheCpu) {
  SCREEN_REQUIRE_GPU();
  seq::SequenceSet qs, ts;
  ASSERT_NO_FATAL_FAILURE(read_mirs_and_genome(qs, ts));
  std::vector<SeqView> q, t;
  for (std::size_t k = 0; k < 64; ++k) q.push_back(SeqView{qs.codes(k), qs.length(k), nullptr});
  t.push_back(SeqView{ts.codes(0), ts.length(0), nullptr});
  const ScoreModel m = make_score_model(make_params(70, 4, -9, -4, false));
  GpuScanOptions o;
  // About 240 KB whatever the GPU's memory (3e-6 of an 80 GB H100; a fixed fraction of a 141 GB H200 held
  // so much that the scan needed fewer batches and no retry).
  const std::size_t total_memory = gpu::list_devices().at(0).total_memory;
  o.memory_fraction = 240e3 / static_cast<double>(total_memory);
  o.initial_capacity = 64;
  GpuScanStats st;
  const auto got = gpu_map(q, t, m, o, &st);
  EXPECT_LE(static_cast<double>(st.device_bytes), o.memory_fraction * static_cast<double>(total_memory));
  EXPECT_GE(st.batches, 4u);
  EXPECT_GT(st.retries, 0);
  std::size_t total = 0, bad = 0;
  for (std::size_t k = 0; k < q.size(); ++k) {
    const std::vector<Candidate> want = scan_candidates(q[k], t[0], m);
    total += want.size();
    const auto it = got.find({k, 0});
    const std::vector<Candidate> none;
    if (!same_candidates(want, it == got.end() ? none : it->second)) ++bad;
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(total, 1000u);
}

// ---- human microRNAs against the SARS-CoV-2 genome ---------------------------------------------------

TEST(MirandaGpu, HumanMicroRnasAgainstTheGenomeEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  seq::SequenceSet qs, ts;
  ASSERT_NO_FATAL_FAILURE(read_mirs_and_genome(qs, ts));
  ASSERT_EQ(qs.size(), 1921u);
  std::vector<SeqView> q, t;
  for (std::size_t k = 0; k < qs.size(); ++k) q.push_back(SeqView{qs.codes(k), qs.length(k), nullptr});
  for (std::size_t k = 0; k < ts.size(); ++k) t.push_back(SeqView{ts.codes(k), ts.length(k), nullptr});
  for (const Params& p : {Params{}, make_params(100, 4, -9, -4, false)}) {
    const ScoreModel m = make_score_model(p);
    GpuScanStats st;
    const auto got = gpu_map(q, t, m, GpuScanOptions{}, &st);
    EXPECT_EQ(st.gpu_queries, qs.size());
    EXPECT_EQ(st.cpu_queries, 0u);
    std::vector<std::vector<Candidate>> want(q.size());
    screen::testing::parallel_for(q.size(), [&](std::size_t k) { want[k] = scan_candidates(q[k], t[0], m); });
    std::size_t total = 0, bad = 0;
    for (std::size_t k = 0; k < q.size(); ++k) {
      total += want[k].size();
      const auto it = got.find({k, 0});
      const std::vector<Candidate> none;
      if (!same_candidates(want[k], it == got.end() ? none : it->second)) ++bad;
    }
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(total, st.candidates);
    EXPECT_GT(total, 10u);
    // Reference DP cells on a sample of queries.
    for (std::size_t k = 0; k < q.size(); k += 97) {
      const auto it = got.find({k, 0});
      const std::vector<Candidate> none;
      EXPECT_TRUE(same_candidates(reference_candidates(q[k], t[0], m), it == got.end() ? none : it->second)) << k;
    }
  }
  for (const int variant : {0, 1, 2}) {
    const bool strict = variant == 1;
    Params p;
    p.strict = strict;
    p.energy = variant == 2;  // miRanda's default run: energies on the GPU
    BatchOptions gpu, cpu;
    gpu.method = Method::gpu;
    cpu.method = Method::cpu;
    const std::vector<PairResult> g = align_batch(qs, ts, p, gpu);
    std::size_t hits = 0;
    for (const auto& r : g) hits += r.hits.size();
    EXPECT_GT(hits, strict ? 0u : 10u);
    expect_same_results(align_batch(qs, ts, p, cpu), g, variant == 1 ? "strict vs cpu" : variant == 2 ? "energies vs cpu" : "default vs cpu");
    if (!strict) {
      BatchOptions ref;
      ref.method = Method::reference;
      expect_same_results(align_batch(qs, ts, p, ref), g, "default vs reference");
    }
  }
}

}  // namespace
}  // namespace screen::miranda
