#pragma once
// The CPU compact path: folds in the tile-packed table of relative 16-bit cells
// (packed_layout.hpp), n^2 bytes whatever the score, where the mirrored table of the fast path
// (tiled.hpp) needs 2 n^2 (16-bit) or 4 n^2 (32-bit). It is the CPU path of the folds that outgrow
// 16-bit cells (over 65,535 nt with unit weights), so that every fold the GPU takes can also run on
// the CPU, and it fills exactly the cells and bases the GPU's relative tables hold.
#include <cstdint>
#include <vector>

#include "common/default_init_allocator.hpp"
#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/packed_layout.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::nussinov {

struct CompactTable {
  int n = 0, nt = 0;
  UninitVector<std::int16_t> cells;  // offsets from their tile's base, tile-packed
  std::vector<std::int32_t> base;    // per tile (tile_index order): the tile's minimum
  // M(i, j) of packed_layout.hpp, i <= j <= n (same tile or i in an earlier tile row).
  int m(int i, int j) const { return packed::relative_value(cells.data(), base.data(), i, j, nt); }
  // N(i, j) as traceback.hpp wants it: 0 for the empty interval.
  int get(int i, int j) const { return i > j ? 0 : m(i, j + 1); }
};

// Requires packed::relative_applicable(p.weights) (throws UsageError otherwise).
CompactTable compact_table(const std::uint8_t* s, int n, const Params& p, int threads = 0);
FoldResult fold_compact(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads = 0);
// Bytes fold_compact needs for n bases (the table, its bases and the threads' scratch tiles).
std::size_t compact_bytes(int n);

}  // namespace screen::nussinov
