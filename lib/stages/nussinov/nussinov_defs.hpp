#pragma once
// Nussinov folding: the definitions shared by every code path (reference, fast CPU, Four-Russians,
// CUDA). The recurrence itself is docs/algorithms.md (Nussinov); indices here are 0-based:
//   N(i, j) = 0 when j - i <= min_loop, else the max of N(i+1, j), N(i, j-1),
//   N(i+1, j-1) + w(x_i, x_j) when (i, j) may pair, and N(i, k) + N(k+1, j) for i < k < j.
#include <cstdint>

#include "common/host_device.hpp"
#include "common/pair_weights.hpp"

namespace screen::nussinov {

struct Params {
  int min_loop = 3;          // a pair (i, j) needs j - i > min_loop
  int max_span = 0;          // 0 = unlimited; else a pair (i, j) needs j - i < max_span
  PairWeights weights{};     // default: AU = CG = GU = 1
};

// The pair rule with the weight table built from Params::weights (make_pair_table).
SCREEN_HD bool span_allows_pair(const Params& p, int i, int j) {
  const int d = j - i;
  return d > p.min_loop && (p.max_span <= 0 || d < p.max_span);
}

// Weight of pairing i with j, 0 when they may not pair (span rules or a zero weight).
SCREEN_HD int pair_score(const Params& p, const PairTable& t, const std::uint8_t* s, int i, int j) {
  return span_allows_pair(p, i, j) ? t.at(s[i], s[j]) : 0;
}

// Largest score any structure of n bases can reach (bound for choosing 16- or 32-bit cells):
// at most n/2 pairs, each at most the largest weight.
SCREEN_HD constexpr long long max_possible_score(long long n, const PairWeights& w) {
  int wmax = w.cg > w.au ? w.cg : w.au;
  wmax = wmax > w.gu ? wmax : w.gu;
  return (n / 2) * wmax;
}

}  // namespace screen::nussinov
