// The CPU compact path (compact.hpp): diagonal by diagonal of tiles, each tile in 32-bit values on
// the stack (decoded from its neighbours' bases and offsets), then stored back as its minimum and
// 16-bit offsets. Per tile (I, J):
//   products  max over the middle tiles K (I < K < J) of tile (I, K) x tile (K, J), max-plus;
//   finish    rows bottom-up, columns left to right: the splits m inside tile I's rows and tile J's
//             columns (all of tile (I, I) for a diagonal tile) and the pair term, as the GPU's
//             finalize does with the same inputs.
#include "stages/nussinov/compact.hpp"

#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/error.hpp"
#include "stages/nussinov/traceback.hpp"

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SCREEN_COMPACT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SCREEN_COMPACT_CLONES
#endif

namespace screen::nussinov {
namespace {

constexpr int T = packed::kTile;
using Tile = std::int32_t[T][T];

// acc[r][c] = max(acc[r][c], max_k a[r][k] + b[k][c]); the inner loop over c vectorises.
SCREEN_COMPACT_CLONES void maxplus_tile(const std::int32_t (*a)[T], const std::int32_t (*b)[T], std::int32_t (*acc)[T]) {
  for (int r = 0; r < T; ++r) {
    std::int32_t row[T];
    std::memcpy(row, acc[r], sizeof(row));
    for (int k = 0; k < T; ++k) {
      const std::int32_t x = a[r][k];
      for (int c = 0; c < T; ++c) row[c] = std::max(row[c], x + b[k][c]);
    }
    std::memcpy(acc[r], row, sizeof(row));
  }
}

struct Table {
  CompactTable& t;
  void decode(int I, int J, std::int32_t (*out)[T]) const {
    const std::size_t tile = packed::tile_index(I, J, t.nt);
    const std::int32_t b = t.base[tile];
    const std::int16_t* c = t.cells.data() + tile * T * T;
    for (int e = 0; e < T * T; ++e) out[e / T][e % T] = b + c[e];
  }
  int at(int i, int j) const { return t.m(i, j); }
};

void compute_tile(CompactTable& t, const std::uint8_t* codes, const Params& p, const PairTable& pt, int I, int J) {
  const Table tab{t};
  alignas(64) Tile C, A, B;
  std::memset(C, 0, sizeof(C));
  for (int K = I + 1; K < J; ++K) {
    tab.decode(I, K, A);
    tab.decode(K, J, B);
    maxplus_tile(A, B, C);
  }
  const int d = J - I;
  if (d >= 1) {
    tab.decode(I, I, A);  // DI
    tab.decode(J, J, B);  // DJ
  }
  const int i0 = I * T, j0 = J * T;
  // Inner cells of the pair term on the tile's edges: row 0 of (I+1, J), column T-1 of (I, J-1),
  // and the corner of (I+1, J-1).
  int rowN[T] = {}, colW[T] = {}, corner = 0;
  if (d >= 1) {
    for (int b = 0; b < T; ++b) rowN[b] = tab.at(i0 + T, j0 + b);
    for (int a = 0; a < T; ++a) colW[a] = tab.at(i0 + a, j0 - 1);
    if (d >= 2) corner = tab.at(i0 + T, j0 - 1);
  }
  for (int a = T - 1; a >= 0; --a) {
    for (int b = d == 0 ? a + 1 : 0; b < T; ++b) {
      int v = C[a][b];
      if (d == 0) {
        for (int m = a + 1; m < b; ++m) v = std::max(v, C[a][m] + C[m][b]);
      } else {
        for (int m = a + 1; m < T; ++m) v = std::max(v, A[a][m] + C[m][b]);
        for (int m = 0; m < b; ++m) v = std::max(v, C[a][m] + B[m][b]);
      }
      const int i = i0 + a, j = j0 + b;
      const int w = j - i >= 2 ? pair_score(p, pt, codes, i, j - 1) : 0;
      if (w > 0) {
        const int inner = (a + 1 < T && b >= 1) ? C[a + 1][b - 1] : b >= 1 ? rowN[b - 1] : a + 1 < T ? colW[a + 1] : corner;
        v = std::max(v, inner + w);
      }
      C[a][b] = v;
    }
  }
  int lo = INT_MAX;
  for (int e = 0; e < T * T; ++e) lo = std::min(lo, C[e / T][e % T]);
  const std::size_t tile = packed::tile_index(I, J, t.nt);
  t.base[tile] = lo;
  std::int16_t* out = t.cells.data() + tile * T * T;
  for (int e = 0; e < T * T; ++e) out[e] = static_cast<std::int16_t>(C[e / T][e % T] - lo);
}

}  // namespace

CompactTable compact_table(const std::uint8_t* s, int n, const Params& p, int threads) {
  if (!packed::relative_applicable(p.weights))
    throw UsageError("nussinov compact path: pair weights above " + std::to_string(packed::kMaxRelativeWeight) +
                     " (in score units) do not fit its 16-bit offsets");
  CompactTable t;
  t.n = n;
  t.nt = packed::tiles_per_side(n);
  t.cells.resize(packed::table_cells(n));
  t.base.assign(packed::tile_count(t.nt), 0);
  // The sequence padded with N to nt * T codes, as on the GPU (the cells past n are filled too).
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(t.nt) * T, static_cast<std::uint8_t>(seq::N));
  std::copy(s, s + n, codes.begin());
  const PairTable pt = make_pair_table(p.weights);
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  for (int d = 0; d < t.nt; ++d) {
    const int tiles = t.nt - d;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && tiles > 1)
    for (int I = 0; I < tiles; ++I) compute_tile(t, codes.data(), p, pt, I, I + d);
  }
  return t;
}

FoldResult fold_compact(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads) {
  FoldResult r;
  if (n <= 0) return r;
  const CompactTable t = compact_table(s, n, p, threads);
  r.score = t.m(0, n);
  if (with_traceback) r.structure = traceback(s, n, p, [&t](int i, int j) { return t.get(i, j); });
  return r;
}

std::size_t compact_bytes(int n) {
  if (n <= 0) return 0;
  return packed::table_cells(n) * sizeof(std::int16_t) +
         packed::tile_count(packed::tiles_per_side(n)) * sizeof(std::int32_t) +
         static_cast<std::size_t>(packed::tiles_per_side(n)) * T;
}

}  // namespace screen::nussinov
