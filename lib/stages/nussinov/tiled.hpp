#pragma once
// Internal: the tiled anti-diagonal wavefront shared by the fast CPU path (cpu.cpp) and the
// Four-Russians path (four_russians.cpp). Not a public header.
//
// Layout (Li et al.'s CPU2 idea, Chang's simplified recurrence): one n x n square M holding N(i, j)
// twice, at M[i][j] (upper triangle, row-major) and at its mirror M[j][i]. For a cell (i, j) the
// split terms N(i, k) + N(k+1, j), i <= k < j, then read M[i][k..] and M[j][k+1..]: both rows,
// both unit-stride, so the max-plus loop is a plain reduction that g++ -O3 vectorises.
//
// Chang's form: N(i, j) = max( N(i+1, j-1) + w(i, j) if (i, j) may pair,
//                              max_{i <= k < j} N(i, k) + N(k+1, j) )
// equals nussinov.md's recurrence (k = i gives N(i+1, j), k = j-1 gives N(i, j-1)); every value is
// >= 0, so 0 is the identity of every max below.
//
// Tiles are B x B blocks of the upper triangle; tile (bi, bj) with bi <= bj lies on tile diagonal
// d = bj - bi. Diagonal d depends only on diagonals < d plus, inside a tile, on cells below and to
// the left. Per diagonal d >= 1:
//   bulk   (parallel over tiles x row groups): for every cell, max over k in [I1-1, J0-1] of
//          N(i, k) + N(k+1, j) -- all those cells lie on earlier diagonals, so every cell is
//          independent; this is the O(n^3) part and the one each path implements its own way.
//   finish (parallel over tiles): rows bottom-up, columns left to right, the remaining k in
//          [i, I1-2] and [J0, j-1] (cells of this tile and the two diagonal tiles) and the pair term;
//          writes the value and its mirror.
// Diagonal 0 (the B x B triangles on the main diagonal) is all finish.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::nussinov::detail {

template <class T>
struct MirrorTable {
  int n = 0;
  std::vector<T> m;  // m[i * n + j] = m[j * n + i] = N(i, j) for i <= j

  explicit MirrorTable(int size) : n(size), m(static_cast<std::size_t>(size) * static_cast<std::size_t>(size), T(0)) {}
  T* row(int i) { return m.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(n); }
  const T* row(int i) const { return m.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(n); }
  // N(i, j) as traceback.hpp wants it: 0 for the empty interval (i > j), never the mirror.
  std::int32_t get(int i, int j) const { return i <= j ? static_cast<std::int32_t>(row(i)[j]) : 0; }
};

// max(init, max_k a[k] + b[k]) over len elements; both unit-stride (vectorised by g++ -O3).
template <class T>
inline std::int32_t maxplus_dot(const T* a, const T* b, int len, std::int32_t init) {
  T m = static_cast<T>(init);
  for (int k = 0; k < len; ++k) m = std::max<T>(m, static_cast<T>(a[k] + b[k]));
  return m;
}

inline int resolve_threads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

// Finishes tile (bi, bj) after its bulk (if bj > bi, M[i][j] holds the bulk max for its cells).
template <class T>
void finish_tile(MirrorTable<T>& t, const std::uint8_t* s, const Params& p, const PairTable& pt, int B, int bi,
                 int bj) {
  const int n = t.n;
  const int I0 = bi * B, I1 = std::min(n, I0 + B);
  const int J0 = bj * B, J1 = std::min(n, J0 + B);
  const bool diagonal = bi == bj;
  for (int i = I1 - 1; i >= I0; --i) {
    T* ri = t.row(i);
    for (int j = diagonal ? i : J0; j < J1; ++j) {
      T* rj = t.row(j);
      if (j == i) {
        ri[i] = 0;
        continue;
      }
      std::int32_t v;
      if (diagonal) {
        v = maxplus_dot(ri + i, rj + i + 1, j - i, 0);  // k in [i, j-1]
      } else {
        v = ri[j];                                                   // bulk: k in [I1-1, J0-1]
        v = maxplus_dot(ri + i, rj + i + 1, I1 - 1 - i, v);           // k in [i, I1-2]
        v = maxplus_dot(ri + J0, rj + J0 + 1, j - J0, v);             // k in [J0, j-1]
      }
      const int w = pair_score(p, pt, s, i, j);
      if (w > 0) v = std::max<std::int32_t>(v, (j - i >= 2 ? t.row(i + 1)[j - 1] : 0) + w);
      ri[j] = static_cast<T>(v);
      rj[i] = static_cast<T>(v);
    }
  }
}

// The wavefront. bulk(bi, bj, r0, r1) fills M[i][j], i in [r0, r1), j in tile bj, with the max over
// k in [I1-1, J0-1]; after_tile(bi, bj) runs once the tile is final (Four-Russians keeps its
// difference vectors there). Row groups of `row_group` rows are the unit of parallel bulk work.
template <class T, class Bulk, class AfterTile>
void run_wavefront(MirrorTable<T>& t, const std::uint8_t* s, const Params& p, int B, int row_group, int threads,
                   Bulk&& bulk, AfterTile&& after_tile) {
  const int n = t.n;
  if (n <= 0) return;
  const PairTable pt = make_pair_table(p.weights);
  const int nt = (n + B - 1) / B;
  const int nthreads = resolve_threads(threads);
  const int groups_per_tile = (B + row_group - 1) / row_group;
  for (int d = 0; d < nt; ++d) {
    const int tiles = nt - d;
    if (d > 0) {
      const int items = tiles * groups_per_tile;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && items > 1)
      for (int it = 0; it < items; ++it) {
        const int bi = it / groups_per_tile;
        const int g = it % groups_per_tile;
        const int r0 = bi * B + g * row_group;
        const int r1 = std::min(std::min(n, bi * B + B), r0 + row_group);
        if (r0 < r1) bulk(bi, bi + d, r0, r1);
      }
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && tiles > 1)
    for (int bi = 0; bi < tiles; ++bi) {
      finish_tile(t, s, p, pt, B, bi, bi + d);
      after_tile(bi, bi + d);
    }
  }
}

}  // namespace screen::nussinov::detail
