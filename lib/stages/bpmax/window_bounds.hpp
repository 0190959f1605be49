#pragma once
// Upper bounds on a target window's BPMax scores, for skipping windows that cannot hold the site
// (window_pruning.hpp). One definition for the CPU and GPU paths.
//
// For the target window z[i2 .. i2+L2-1] and every query window, F(i1, i1+L1-1, i2, i2+L2-1) <=
//   S2(i2, i2+L2-1) + floor(Q / 2),
// where Q is the best sum, over monotone matchings of query bases to the window's bases, of 2 w(x_a, z_b)
// per matched pair plus spare(a) = max over query partners c (|a - c| > kMinLoop) of w(x_a, x_c) per
// unmatched query base. Why: F is the weight of one joint structure. Its target pairs are a secondary
// structure of the window (at most S2); its intermolecular pairs never cross (query up, z up), so they are
// such a matching; and a query pair (a, c) weighs at most (spare(a) + spare(c)) / 2. Every weight is >= 0.
// Q runs over the whole query, which bounds every query window's part too.
#include <cstdint>

#include "common/host_device.hpp"
#include "common/pair_weights.hpp"
#include "stages/bpmax/bpmax_defs.hpp"

namespace screen::bpmax {

// Queries longer than this are not pruned (the GPU keeps Q's column of n + 1 values per thread).
constexpr int kMaxBoundQuery = 64;

// spare(a) of the bound above.
SCREEN_HD int query_spare(const std::uint8_t* x, int n, int a, const PairTable& t) {
  int best = 0;
  for (int c = 0; c < n; ++c) {
    const int span = c > a ? c - a : a - c;
    if (span > kMinLoop && t.at(x[a], x[c]) > best) best = t.at(x[a], x[c]);
  }
  return best;
}

// Q of the bound for the window's bases z[0 .. l2-1]. spare[a] as query_spare; col: n + 1 ints of scratch.
// Column b holds, for each query prefix a, the best of the first a query bases against the first b bases.
SCREEN_HD int matching_bound2(const std::uint8_t* x, int n, const int* spare, const std::uint8_t* z, int l2,
                                     const PairTable& t, int* col) {
  col[0] = 0;
  for (int a = 1; a <= n; ++a) col[a] = col[a - 1] + spare[a - 1];  // no window base yet
  for (int b = 0; b < l2; ++b) {
    int diag = col[0];  // the previous column's a - 1
    for (int a = 1; a <= n; ++a) {
      const int up = col[a];  // the previous column's a: z_b unmatched
      int v = col[a - 1] + spare[a - 1];                                    // x_{a-1} unmatched
      v = v > up ? v : up;
      const int pair = diag + 2 * t.at(x[a - 1], z[b]);                   // x_{a-1} with z_b
      v = v > pair ? v : pair;
      diag = up;
      col[a] = v;
    }
  }
  return col[n];
}

// The bound from S2 of the window and Q.
SCREEN_HD constexpr int window_bound(int s2_window, int q2) { return s2_window + q2 / 2; }

}  // namespace screen::bpmax
