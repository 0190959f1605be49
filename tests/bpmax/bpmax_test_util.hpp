#pragma once
// Helpers of the BPMax tests: letters to codes, an independent 4D transcription of bpmax.md (no
// band, no reversed-index helpers from bpmax_defs.hpp, S from the Nussinov reference), and a
// parser of the joint dot-bracket.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/pair_weights.hpp"
#include "stages/bpmax/reference.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::bpmax::test {

inline std::vector<std::uint8_t> codes(const std::string& letters) {
  std::vector<std::uint8_t> out;
  for (char c : letters) {
    switch (c) {
      case 'A': out.push_back(seq::A); break;
      case 'C': out.push_back(seq::C); break;
      case 'G': out.push_back(seq::G); break;
      case 'U': case 'T': out.push_back(seq::U); break;
      default: out.push_back(seq::N); break;
    }
  }
  return out;
}

inline std::string random_letters(std::mt19937& rng, int n, bool with_n = false) {
  const char* alphabet = with_n ? "ACGUN" : "ACGU";
  std::uniform_int_distribution<int> pick(0, with_n ? 4 : 3);
  std::string s;
  for (int k = 0; k < n; ++k) s.push_back(alphabet[pick(rng)]);
  return s;
}

// The unwindowed recurrence on a direct 4D table F[i1][j1][i2][j2] over x and the reversed y.
class Naive {
 public:
  Naive(const std::string& x, const std::string& y, const PairWeights& w)
      : n_(static_cast<int>(x.size())), m_(static_cast<int>(y.size())), x_(codes(x)) {
    const std::string yr(y.rbegin(), y.rend());
    z_ = codes(yr);
    const PairTable table = make_pair_table(w);
    nussinov::Params np;
    np.min_loop = 3;
    np.max_span = 0;
    np.weights = w;
    s1_ = nussinov::reference_table(x_.data(), n_, np);
    s2_ = nussinov::reference_table(z_.data(), m_, np);
    f_.assign(static_cast<std::size_t>(n_) * n_ * m_ * m_, -1);
    auto S1 = [&](int i, int j) { return s1_[static_cast<std::size_t>(i) * n_ + j]; };
    auto S2 = [&](int i, int j) { return s2_[static_cast<std::size_t>(i) * m_ + j]; };
    for (int d1 = 0; d1 < n_; ++d1)
      for (int d2 = 0; d2 < m_; ++d2)
        for (int i1 = 0; i1 + d1 < n_; ++i1)
          for (int i2 = 0; i2 + d2 < m_; ++i2) {
            const int j1 = i1 + d1, j2 = i2 + d2;
            int v;
            if (d1 == 0 && d2 == 0) {
              v = table.at(x_[i1], z_[i2]);
            } else {
              v = 0;
              for (int k1 = i1; k1 < j1; ++k1)
                for (int k2 = i2; k2 < j2; ++k2) v = std::max(v, F(i1, k1, i2, k2) + F(k1 + 1, j1, k2 + 1, j2));
              for (int k1 = i1; k1 < j1; ++k1) {
                v = std::max(v, F(i1, k1, i2, j2) + S1(k1 + 1, j1));
                v = std::max(v, S1(i1, k1) + F(k1 + 1, j1, i2, j2));
              }
              for (int k2 = i2; k2 < j2; ++k2) {
                v = std::max(v, F(i1, j1, i2, k2) + S2(k2 + 1, j2));
                v = std::max(v, S2(i2, k2) + F(i1, j1, k2 + 1, j2));
              }
              if (j1 - i1 >= 4) v = std::max(v, table.at(x_[i1], x_[j1]) + F(i1 + 1, j1 - 1, i2, j2));
              if (j2 - i2 >= 4) v = std::max(v, table.at(z_[i2], z_[j2]) + F(i1, j1, i2 + 1, j2 - 1));
            }
            f_[idx(i1, j1, i2, j2)] = v;
          }
  }
  int F(int i1, int j1, int i2, int j2) const {
    const int v = f_[idx(i1, j1, i2, j2)];
    EXPECT_GE(v, 0) << "naive table read before written";
    return v;
  }
  int full() const { return n_ > 0 && m_ > 0 ? F(0, n_ - 1, 0, m_ - 1) : 0; }

 private:
  std::size_t idx(int i1, int j1, int i2, int j2) const {
    return ((static_cast<std::size_t>(i1) * n_ + j1) * m_ + i2) * m_ + j2;
  }
  int n_, m_;
  std::vector<std::uint8_t> x_, z_;
  std::vector<std::int32_t> s1_, s2_;
  std::vector<int> f_;
};

// Parses "query&target" back into pair lists (fails the test on malformed text): ( ) nest within
// each strand; the k-th '[' of the query (5'->3') pairs with the k-th ']' of the target counted
// from its 3' end, the only non-crossing matching.
inline Structure parse_joint(const std::string& db, int n, int m) {
  Structure s;
  const auto amp = db.find('&');
  EXPECT_NE(amp, std::string::npos) << db;
  if (amp == std::string::npos) return s;
  const std::string q = db.substr(0, amp), t = db.substr(amp + 1);
  EXPECT_EQ(static_cast<int>(q.size()), n) << db;
  EXPECT_EQ(static_cast<int>(t.size()), m) << db;
  std::vector<int> open_q, open_t, inter_q, inter_t;
  for (int k = 0; k < static_cast<int>(q.size()); ++k) {
    const char c = q[static_cast<std::size_t>(k)];
    if (c == '(') open_q.push_back(k + 1);
    else if (c == ')') {
      EXPECT_FALSE(open_q.empty()) << db;
      if (open_q.empty()) return s;
      s.query_pairs.emplace_back(open_q.back(), k + 1);
      open_q.pop_back();
    } else if (c == '[') inter_q.push_back(k + 1);
    else EXPECT_EQ(c, '.') << db;
  }
  for (int k = 0; k < static_cast<int>(t.size()); ++k) {
    const char c = t[static_cast<std::size_t>(k)];
    if (c == '(') open_t.push_back(k + 1);
    else if (c == ')') {
      EXPECT_FALSE(open_t.empty()) << db;
      if (open_t.empty()) return s;
      s.target_pairs.emplace_back(open_t.back(), k + 1);
      open_t.pop_back();
    } else if (c == ']') inter_t.push_back(k + 1);
    else EXPECT_EQ(c, '.') << db;
  }
  EXPECT_TRUE(open_q.empty()) << db;
  EXPECT_TRUE(open_t.empty()) << db;
  EXPECT_EQ(inter_q.size(), inter_t.size()) << db;
  for (std::size_t k = 0; k < std::min(inter_q.size(), inter_t.size()); ++k)
    s.inter.emplace_back(inter_q[k], inter_t[inter_t.size() - 1 - k]);
  std::sort(s.query_pairs.begin(), s.query_pairs.end());
  std::sort(s.target_pairs.begin(), s.target_pairs.end());
  s.dot_bracket = db;
  return s;
}

// Every check a traceback must pass: re-scores to `score`, well formed, dot-bracket round trip,
// all pairs inside the site's intervals.
inline void check_structure(const std::string& x, const std::string& y, const Params& p, const SiteResult& r) {
  ASSERT_TRUE(r.structure.has_value());
  const Structure& s = *r.structure;
  const auto xc = codes(x), yc = codes(y);
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  long long rescored = -1;
  EXPECT_NO_THROW(rescored = score_structure(xc.data(), n, yc.data(), m, p, s)) << s.dot_bracket;
  EXPECT_EQ(rescored, r.score) << x << " " << y << " " << s.dot_bracket;
  const Structure parsed = parse_joint(s.dot_bracket, n, m);
  EXPECT_EQ(parsed.inter, s.inter) << s.dot_bracket;
  EXPECT_EQ(parsed.query_pairs, s.query_pairs) << s.dot_bracket;
  EXPECT_EQ(parsed.target_pairs, s.target_pairs) << s.dot_bracket;
  auto in_q = [&](int pos) { return r.query_begin <= pos && pos <= r.query_end; };
  auto in_t = [&](int pos) { return r.target_begin <= pos && pos <= r.target_end; };
  for (const auto& [a, c] : s.inter) EXPECT_TRUE(in_q(a) && in_t(c)) << s.dot_bracket;
  for (const auto& [a, c] : s.query_pairs) EXPECT_TRUE(in_q(a) && in_q(c)) << s.dot_bracket;
  for (const auto& [a, c] : s.target_pairs) EXPECT_TRUE(in_t(a) && in_t(c)) << s.dot_bracket;
  for (const auto& [a, c] : s.inter) EXPECT_GT(make_pair_table(p.weights).at(xc[a - 1], yc[c - 1]), 0);
}

// Every field of two site results equal, the structures too.
inline void expect_same_site(const SiteResult& want, const SiteResult& got, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(want.score, got.score);
  EXPECT_EQ(want.query_begin, got.query_begin);
  EXPECT_EQ(want.query_end, got.query_end);
  EXPECT_EQ(want.target_begin, got.target_begin);
  EXPECT_EQ(want.target_end, got.target_end);
  EXPECT_EQ(want.site_i1, got.site_i1);
  EXPECT_EQ(want.site_i2, got.site_i2);
  EXPECT_EQ(want.full, got.full);
  EXPECT_EQ(want.query_single, got.query_single);
  EXPECT_EQ(want.target_single, got.target_single);
  ASSERT_EQ(want.structure.has_value(), got.structure.has_value());
  if (want.structure) {
    EXPECT_EQ(want.structure->dot_bracket, got.structure->dot_bracket);
    EXPECT_EQ(want.structure->inter, got.structure->inter);
    EXPECT_EQ(want.structure->query_pairs, got.structure->query_pairs);
    EXPECT_EQ(want.structure->target_pairs, got.structure->target_pairs);
  }
}

}  // namespace screen::bpmax::test
