// Four-Russians Nussinov for unit weights (Venkatachalam, Gusfield & Frid 2014, the two-vector
// method), on the tiled wavefront of tiled.hpp.
//
// Lemma (VGF 3.1): with every weight 1, N(i, k+1) - N(i, k) is 0 or 1 and so is N(k, j) - N(k+1, j).
// Monotone: a structure of [i, k] is one of [i, k+1]. At most +1: dropping the pair of k+1 (if any)
// from an optimal structure of [i, k+1] leaves a valid structure of [i, k]. Neither argument uses
// which pairs are allowed, only that the rule is a property of the pair alone; min_loop and max_span
// are such rules (a pair's own span), so the lemma holds for every min_loop and max_span and no
// fallback is needed. The tests check equality with the reference over mixed min_loop/max_span.
//
// Group g covers k in [gq, gq+q). For row i and column j:
//   A_t = N(i, gq+t)     = N(i, gq-1) + popcount(r & (2^(t+1) - 1)),  r bit t = N(i, gq+t) - N(i, gq+t-1)
//   B_t = N(gq+t+1, j)   = N(gq+q, j) + popcount(c >> t),            c bit t = N(gq+t+1, j) - N(gq+t+2, j)
// so max_t A_t + B_t = N(i, gq-1) + N(gq+q, j) + T[r][c] with T precomputed (2^q x 2^(q-1) bytes,
// q = 8 by default as in the paper). r has q bits, c has q-1 (the last B_t is the anchor itself).
// Each row's r vectors and each column's c vectors are made once, when their tile is final.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/error.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/tiled.hpp"
#include "stages/nussinov/traceback.hpp"

namespace screen::nussinov {

namespace {

constexpr int kRowGroup = 16;

std::vector<std::uint8_t> make_lookup(int q) {
  const int rows = 1 << q, cols = 1 << (q - 1);
  std::vector<std::uint8_t> table(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      int best = 0;
      for (int t = 0; t < q; ++t) {
        const int a = __builtin_popcount(static_cast<unsigned>(r) & ((2u << t) - 1u));
        const int b = __builtin_popcount(static_cast<unsigned>(c) >> t);
        best = std::max(best, a + b);
      }
      table[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)] =
          static_cast<std::uint8_t>(best);
    }
  return table;
}

template <class T>
FoldResult run(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads, int q) {
  const int B = q * std::max(1, 64 / q);  // tile edge, a multiple of q so groups never straddle tiles
  const int G = n / q + 1;                // groups per row / column
  const int cshift = q - 1;
  // Built once per process (thread-safe static initialisation), not per sequence: batches of short
  // sequences would otherwise spend their time here.
  static const std::vector<std::vector<std::uint8_t>> lookups = [] {
    std::vector<std::vector<std::uint8_t>> all(9);
    for (int b = 1; b <= 8; ++b) all[static_cast<std::size_t>(b)] = make_lookup(b);
    return all;
  }();
  const std::vector<std::uint8_t>& lookup = lookups[static_cast<std::size_t>(q)];
  detail::MirrorTable<T> t(n);
  std::vector<std::uint8_t> rbits(static_cast<std::size_t>(n) * static_cast<std::size_t>(G), 0);
  std::vector<std::uint8_t> cbits(static_cast<std::size_t>(n) * static_cast<std::size_t>(G), 0);
  auto rb = [&](int i) { return rbits.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(G); };
  auto cb = [&](int j) { return cbits.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(G); };

  auto bulk = [&](int bi, int bj, int r0, int r1) {
    const int I1 = (bi + 1) * B;  // bi < bj: a full row tile
    const int J0 = bj * B, J1 = std::min(n, J0 + B);
    const int g0 = I1 / q, g1 = J0 / q;  // groups [g0, g1) cover k in [I1, J0); k = I1-1 done directly
    const std::uint8_t* lut = lookup.data();
    for (int i = r0; i < r1; i += 2) {
      const int i1 = std::min(i + 1, r1 - 1);
      T* ra = t.row(i);
      T* rc = t.row(i1);
      const std::uint8_t* va = rb(i);
      const std::uint8_t* vc = rb(i1);
      for (int j = J0; j < J1; j += 2) {
        const int j1 = std::min(j + 1, J1 - 1);
        const T* cj = t.row(j);  // mirror: cj[k] = N(k, j)
        const T* cj1 = t.row(j1);
        const std::uint8_t* wj = cb(j);
        const std::uint8_t* wj1 = cb(j1);
        int m00 = ra[I1 - 1] + cj[I1], m01 = ra[I1 - 1] + cj1[I1];
        int m10 = rc[I1 - 1] + cj[I1], m11 = rc[I1 - 1] + cj1[I1];
        for (int g = g0; g < g1; ++g) {
          const int k0 = g * q;
          const int a0 = ra[k0 - 1], a1 = rc[k0 - 1];
          const int b0 = cj[k0 + q], b1 = cj1[k0 + q];
          const std::uint8_t* l0 = lut + (static_cast<std::size_t>(va[g]) << cshift);
          const std::uint8_t* l1 = lut + (static_cast<std::size_t>(vc[g]) << cshift);
          m00 = std::max(m00, a0 + b0 + l0[wj[g]]);
          m01 = std::max(m01, a0 + b1 + l0[wj1[g]]);
          m10 = std::max(m10, a1 + b0 + l1[wj[g]]);
          m11 = std::max(m11, a1 + b1 + l1[wj1[g]]);
        }
        ra[j] = static_cast<T>(m00);
        ra[j1] = static_cast<T>(m01);
        rc[j] = static_cast<T>(m10);
        rc[j1] = static_cast<T>(m11);
      }
    }
  };

  // Difference vectors of a tile that just became final.
  auto after_tile = [&](int bi, int bj) {
    const int I0 = bi * B, I1 = std::min(n, I0 + B);
    const int J0 = bj * B, J1 = std::min(n, J0 + B);
    for (int i = I0; i < I1; ++i) {  // row vectors of groups lying in this tile's columns
      for (int g = (J0 + q - 1) / q; g * q + q - 1 < J1; ++g) {
        const int k0 = g * q;
        if (k0 - 1 < i) continue;  // never used: bulk groups start right of their rows' tile
        unsigned bits = 0;
        for (int u = 0; u < q; ++u)
          bits |= static_cast<unsigned>(t.get(i, k0 + u) - t.get(i, k0 + u - 1)) << u;
        rb(i)[g] = static_cast<std::uint8_t>(bits);
      }
    }
    for (int j = J0; j < J1; ++j) {  // column vectors of groups lying in this tile's rows
      for (int g = (I0 + q - 1) / q; g * q < I1 && g * q + q <= j; ++g) {
        const int k0 = g * q;
        unsigned bits = 0;
        for (int u = 0; u + 1 < q; ++u)
          bits |= static_cast<unsigned>(t.get(k0 + u + 1, j) - t.get(k0 + u + 2, j)) << u;
        cb(j)[g] = static_cast<std::uint8_t>(bits);
      }
    }
  };

  detail::run_wavefront(t, s, p, B, kRowGroup, threads, bulk, after_tile);
  FoldResult r;
  r.score = t.get(0, n - 1);
  if (with_traceback) r.structure = traceback(s, n, p, [&t](int i, int j) { return t.get(i, j); });
  return r;
}

}  // namespace

bool four_russians_applicable(const Params& p) { return make_pair_table(p.weights).unit(); }

FoldResult fold_four_russians(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads,
                              int q) {
  if (!four_russians_applicable(p))
    throw UsageError("the Four-Russians method needs unit pair weights (every allowed pair weighs 1)");
  if (q < 1 || q > 8) throw UsageError(fmt::format("Four-Russians q must be 1..8, not {}", q));
  if (n <= 0) return {};
  if (max_possible_score(n, p.weights) <= std::numeric_limits<std::int16_t>::max())
    return run<std::int16_t>(s, n, p, with_traceback, threads, q);
  return run<std::int32_t>(s, n, p, with_traceback, threads, q);
}

}  // namespace screen::nussinov
