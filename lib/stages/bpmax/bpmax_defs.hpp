#pragma once
// BPMax: the definitions shared by every code path (reference, CPU fast path, CUDA kernels).
// The recurrence itself is docs/algorithms.md (BPMax); everything here is 0-based.
//
// Strands. The query is x_0..x_{N-1}. The target y_0..y_{M-1} is indexed REVERSED by the
// recurrences: z_t = y_{M-1-t} (reversed_index). A z interval [i2, j2] is the forward target
// interval y[M-1-j2 .. M-1-i2], reported 1-based as [M - j2, M - i2] (target_begin_1based,
// target_end_1based). Users only ever see forward 1-based target positions.
//
// Windows. query_window W1 and target_window W2 (0 = the strand's whole length) bound every
// interval of the tables: F(i1, j1, i2, j2) exists for j1 - i1 < L1 and j2 - i2 < L2 with
// L = min(W, length) (effective_window); S1 and S2 likewise. So no intramolecular pair spans a
// window, and with L1 = N, L2 = M the tables are the unwindowed ones.
//
// Banded layout (the reference's; a kernel may choose its own but must give the same values).
//   Query intervals (i1, j1 = i1 + d1), d1 < L1, are numbered by increasing d1, then i1:
//     query_interval_index(N, i1, d1) = d1*N - d1*(d1-1)/2 + i1,
//     query_interval_count(N, L1) = L1*N - L1*(L1-1)/2  (= N(N+1)/2 when L1 = N).
//   F cell (i1, j1, i2, j2), d2 = j2 - i2 < L2:
//     f_index = (query_interval_index(N, i1, d1) * M + i2) * L2 + d2,
//     f_cell_count = query_interval_count(N, L1) * M * L2
//   (cells with i2 + d2 >= M are unused: the price of a rectangular M x L2 slab per query interval).
//   S table of a strand of length n with window L: s_index(L, i, j) = i*L + (j - i), n*L cells.
#include <cstdint>

#include "common/host_device.hpp"
#include "common/pair_weights.hpp"

namespace screen::bpmax {

// An intramolecular pair (i, j) needs j - i > kMinLoop (at least three unpaired bases inside).
constexpr int kMinLoop = 3;

struct Params {
  // Default CG = 3, AU = 2, GU = 1: the value make_pair_weights(3, 2, 1, ...) returns (scale 1),
  // written out so that the struct stays usable in device code.
  PairWeights weights{3, 2, 1, 1};
  int query_window = 0;   // W1; 0 = the whole query
  int target_window = 0;  // W2; 0 = the whole target
};

// L = min(W, n), with W <= 0 meaning n.
SCREEN_HD constexpr int effective_window(int window, int n) { return (window <= 0 || window > n) ? n : window; }

// The reversed-target convention: z_t = y_{M-1-t}; the map is its own inverse.
SCREEN_HD constexpr int reversed_index(int m, int t) { return m - 1 - t; }
// Forward 1-based target position of z_t.
SCREEN_HD constexpr int target_position_1based(int m, int t) { return m - t; }
// The z interval [i2, j2] is the forward 1-based target interval [m - j2, m - i2].
SCREEN_HD constexpr int target_begin_1based(int m, int j2) { return m - j2; }
SCREEN_HD constexpr int target_end_1based(int m, int i2) { return m - i2; }

SCREEN_HD constexpr long long query_interval_count(int n, int l1) {
  return static_cast<long long>(l1) * n - static_cast<long long>(l1) * (l1 - 1) / 2;
}
SCREEN_HD constexpr long long query_interval_index(int n, int i1, int d1) {
  return static_cast<long long>(d1) * n - static_cast<long long>(d1) * (d1 - 1) / 2 + i1;
}

// Shape of the banded F table of one (query, target) pair.
struct Band {
  int n = 0;   // query length N
  int m = 0;   // target length M
  int l1 = 0;  // effective query window
  int l2 = 0;  // effective target window

  SCREEN_HD constexpr long long f_cell_count() const {
    return query_interval_count(n, l1) * m * l2;
  }
  // Requires 0 <= i1 <= j1 < n, j1 - i1 < l1, 0 <= i2 <= j2 < m, j2 - i2 < l2.
  SCREEN_HD constexpr long long f_index(int i1, int j1, int i2, int j2) const {
    return (query_interval_index(n, i1, j1 - i1) * m + i2) * l2 + (j2 - i2);
  }
  SCREEN_HD constexpr bool in_band(int i1, int j1, int i2, int j2) const {
    return 0 <= i1 && i1 <= j1 && j1 < n && j1 - i1 < l1 && 0 <= i2 && i2 <= j2 && j2 < m && j2 - i2 < l2;
  }
};

SCREEN_HD constexpr Band make_band(int n, int m, const Params& p) {
  return Band{n, m, effective_window(p.query_window, n), effective_window(p.target_window, m)};
}

// S cell (i, j) of a strand with effective window l, j - i < l.
SCREEN_HD constexpr long long s_index(int l, int i, int j) { return static_cast<long long>(i) * l + (j - i); }

// Largest score F can reach on a site of l1 x l2 bases: every base in at most one pair, each pair
// at most the largest weight. Bound for choosing 16- or 32-bit cells.
SCREEN_HD constexpr long long max_possible_score(long long l1, long long l2, const PairWeights& w) {
  int wmax = w.cg > w.au ? w.cg : w.au;
  wmax = wmax > w.gu ? wmax : w.gu;
  return ((l1 + l2) / 2) * wmax;
}

}  // namespace screen::bpmax
