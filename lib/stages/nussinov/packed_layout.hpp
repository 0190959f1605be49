#pragma once
// The tile-packed table of the Nussinov long paths, shared by the GPU tiled engine
// (kernels/nussinov/) and the CPU compact path (compact.cpp), so both store the same bytes.
//
// Form: the half-open table M(i, j) = N(i, j-1) for 0 <= i < j <= n, M(i, i) = 0, and
//   M(i, j) = max( max_{i<m<j} M(i, m) + M(m, j),  M(i+1, j-1) + w(x_i, x_{j-1}) if (i, j-1) may pair ),
// which is nussinov.md's recurrence with the two unpaired cases folded into the split (m = i+1, j-1).
// Storage: the (n+1) x (n+1) upper triangle cut into kTile x kTile tiles; tile (I, J), I <= J, is
// kTile^2 cells, row-major, at tile_index(I, J, nt) * kTile^2. Columns past n are computed as if the
// sequence were padded with N (which pairs with nothing), so every path fills the same cells.
//
// Relative cells (the "tile-base" format): with pair weights at most w, neighbouring cells of M
// differ by 0..w along rows and columns (i unpaired / j unpaired; the Four-Russians seed paper's
// lemma for w = 1). So the cells of one tile lie within 2 (kTile - 1) w of each other, and a tile
// is stored as one 32-bit base (its minimum) plus 16-bit offsets: n^2 bytes for any length instead
// of 2 n^2, and 16-bit arithmetic in the products, whatever the score. The bounds that make the
// 16-bit arithmetic exact are below; relative_applicable says when they hold.
#include <cstddef>

#include <cstdint>

#include "common/host_device.hpp"
#include "common/pair_weights.hpp"
#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::nussinov::packed {

constexpr int kTile = 64;

SCREEN_HD int tiles_per_side(int n) { return (n + 1 + kTile - 1) / kTile; }
SCREEN_HD std::size_t tile_count(int nt) {
  return static_cast<std::size_t>(nt) * static_cast<std::size_t>(nt + 1) / 2;
}
SCREEN_HD std::size_t tile_index(int I, int J, int nt) {
  const auto i = static_cast<long long>(I);
  return static_cast<std::size_t>(i * nt - i * (i - 1) / 2 + (J - I));
}
// Offset of M(i, j), i <= j (or i and j in one diagonal tile), in a tile-packed table.
SCREEN_HD std::size_t cell_offset(int i, int j, int nt) {
  return tile_index(i / kTile, j / kTile, nt) * kTile * kTile + static_cast<std::size_t>(i % kTile) * kTile +
         static_cast<std::size_t>(j % kTile);
}
// Cells of a table for n bases.
SCREEN_HD std::size_t table_cells(int n) {
  return tile_count(tiles_per_side(n)) * static_cast<std::size_t>(kTile) * kTile;
}

// ---- relative cells ----
// A tile's reference: the products and partial maxima of tile (I, J), d = J - I >= 2, are kept
// relative to R = base(I+1, J-1), a tile final before diagonal d - 1 is (so the panel of diagonal d
// may run beside the finalize of d - 1). Every cell of (I, J) is >= R (M grows as its interval
// does) and at most R + 254 w (128 w to the corner cell (I T + T, J T - 1) of tile (I+1, J-1),
// plus that tile's range 126 w).
// In the product over a middle tile K, each term is offA + offB + c with c = base(I, K) +
// base(K, J) - R <= 254 w (the bases are below a product of cells, which is below a cell of
// (I, J)). A tile with c < kRelativeSkip is left out: its terms are at most R + kRelativeSkip +
// 252 w < R, below every cell they could reach. The rest stay within int16: offA + c <= 380 w and
// offA + c + offB <= 506 w <= 32,767 for w <= 64; and >= kRelativeSkip.
constexpr int kMaxRelativeWeight = 64;
constexpr int kRelativeSkip = -16384;

SCREEN_HD int max_weight(const PairWeights& w) {
  int m = w.cg > w.au ? w.cg : w.au;
  return m > w.gu ? m : w.gu;
}
SCREEN_HD bool relative_applicable(const PairWeights& w) { return max_weight(w) <= kMaxRelativeWeight; }

// The one choice of cells every path and estimate makes for a fold of n bases: plain 16-bit while
// the score bound fits int16; relative 16-bit beyond it while the weights allow; else 32-bit.
SCREEN_HD bool fits_plain16(long long n, const PairWeights& w) { return max_possible_score(n, w) <= 32767; }
SCREEN_HD bool uses_relative(long long n, const PairWeights& w) { return !fits_plain16(n, w) && relative_applicable(w); }

// M(i, j) of a relative table (cells and per-tile bases of one sequence).
SCREEN_HD int relative_value(const std::int16_t* cells, const std::int32_t* base, int i, int j, int nt) {
  return base[tile_index(i / kTile, j / kTile, nt)] + cells[cell_offset(i, j, nt)];
}

}  // namespace screen::nussinov::packed
