#pragma once
// Shared helpers of the store tests: a fresh folder per test and deterministic sample rows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_folder.hpp"
#include "store/stage_rows.hpp"
#include "store/tables.hpp"

namespace screen::store::testing {

namespace fs = std::filesystem;

// A folder removed when the test ends.
class TempDir : public testing_support::TestFolder {
 public:
  TempDir() : TestFolder("screen-store") {}
};

inline std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::string random_text(std::mt19937_64& rng, const std::string& alphabet, std::size_t n) {
  std::string s(n, ' ');
  for (auto& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

// Rows of a screen over nq queries x nt targets, pair (q, t) = work unit q * nt + t (after the
// nq + nt Nussinov units, which come first: unit u < nq folds query u, u < nq + nt target u - nq).
struct Sample {
  std::size_t nq = 0, nt = 0;
  std::vector<NussinovRow> nussinov_queries, nussinov_targets;
  std::vector<std::vector<MirandaHitRow>> hits;   // per pair unit
  std::vector<std::vector<MirandaPairRow>> pairs; // per pair unit (0 or 1)
  std::vector<BpmaxScoreRow> scores;              // per pair unit
  std::vector<std::vector<BpmaxStructureRow>> structures;  // per pair unit (0 or 1)

  std::size_t units() const { return nq + nt + nq * nt; }

  // Rows of units [b, e).
  StageRows rows(std::size_t b, std::size_t e) const {
    StageRows r;
    for (std::size_t u = b; u < e; ++u) {
      if (u < nq) {
        r.nussinov_queries.push_back(nussinov_queries[u]);
      } else if (u < nq + nt) {
        r.nussinov_targets.push_back(nussinov_targets[u - nq]);
      } else {
        const std::size_t p = u - nq - nt;
        r.miranda_hits.insert(r.miranda_hits.end(), hits[p].begin(), hits[p].end());
        r.miranda_pairs.insert(r.miranda_pairs.end(), pairs[p].begin(), pairs[p].end());
        r.bpmax_scores.push_back(scores[p]);
        r.bpmax_structures.insert(r.bpmax_structures.end(), structures[p].begin(), structures[p].end());
      }
    }
    return r;
  }
};

inline Sample make_sample(std::size_t nq, std::size_t nt, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Sample s;
  s.nq = nq;
  s.nt = nt;
  for (std::size_t i = 0; i < nq; ++i)
    s.nussinov_queries.push_back({i, static_cast<std::int64_t>(rng() % 500), random_text(rng, "(.)", 20 + rng() % 40)});
  for (std::size_t i = 0; i < nt; ++i)
    s.nussinov_targets.push_back({i, static_cast<std::int64_t>(rng() % 5000), random_text(rng, "(.)", 100 + rng() % 400)});
  for (std::uint64_t q = 0; q < nq; ++q) {
    for (std::uint64_t t = 0; t < nt; ++t) {
      std::vector<MirandaHitRow> hits;
      const int nh = static_cast<int>(rng() % 4);
      MirandaPairRow pair{q, t, 0, 0, 0, 0};
      for (int k = 0; k < nh; ++k) {
        MirandaHitRow h;
        h.query = q;
        h.target = t;
        h.rank = k;
        h.score = 140 + static_cast<std::int32_t>(rng() % 60);
        h.qstart = 1 + static_cast<std::int32_t>(rng() % 3);
        h.qend = h.qstart + 18;
        h.rstart = 1 + static_cast<std::int32_t>(rng() % 900);
        h.rend = h.rstart + 20;
        h.align_len = 21;
        h.identity = 50.0 + static_cast<double>(rng() % 5000) / 100.0;
        h.similarity = h.identity + 1.25;
        h.query_aln = random_text(rng, "ACGUacgu-", 25);
        h.match_aln = random_text(rng, "|: ", 25);
        h.target_aln = random_text(rng, "ACGUacgu-", 25);
        pair.total_score += h.score;
        pair.max_score = std::max(pair.max_score, h.score);
        ++pair.hit_count;
        hits.push_back(h);
      }
      s.hits.push_back(hits);
      s.pairs.push_back(nh > 0 ? std::vector<MirandaPairRow>{pair} : std::vector<MirandaPairRow>{});
      BpmaxScoreRow sc{q, t, 0, static_cast<std::int64_t>(rng() % 100000), 1, 22, 5, 30};
      s.scores.push_back(sc);
      std::vector<BpmaxStructureRow> st;
      if (rng() % 2 == 0) st.push_back({q, t, 0, sc.score, random_text(rng, "([.])", 22) + "&" + random_text(rng, "(].)", 26),
                                        "1:30,2:29,5:20"});
      s.structures.push_back(st);
    }
  }
  return s;
}

template <class Row>
void expect_rows_equal(const std::vector<Row>& a, const std::vector<Row>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(rows_equal(a[i], b[i])) << what << " row " << i << ":\n  " << describe(a[i]) << "\n  " << describe(b[i]);
}

inline void expect_stage_rows_equal(const StageRows& a, const StageRows& b) {
  expect_rows_equal(a.nussinov_queries, b.nussinov_queries, "nussinov/queries");
  expect_rows_equal(a.nussinov_targets, b.nussinov_targets, "nussinov/targets");
  expect_rows_equal(a.miranda_hits, b.miranda_hits, "miranda/hits");
  expect_rows_equal(a.miranda_pairs, b.miranda_pairs, "miranda/pairs");
  expect_rows_equal(a.bpmax_scores, b.bpmax_scores, "bpmax/scores");
  expect_rows_equal(a.bpmax_structures, b.bpmax_structures, "bpmax/structures");
}

}  // namespace screen::store::testing
