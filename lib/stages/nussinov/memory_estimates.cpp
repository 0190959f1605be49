// Memory each Nussinov path needs for one fold: what the plan's estimates and the CPU path's own
// choice of table rest on.
#include <algorithm>
#include <cstdint>

#include "stages/nussinov/compact.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/packed_layout.hpp"

namespace screen::nussinov {

std::size_t mirror_table_bytes(int n, const Params& p) {
  const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  return cells * (packed::fits_plain16(n, p.weights) ? 2 : 4);
}

std::size_t cpu_table_bytes(int n, const Params& p) {
  if (packed::uses_relative(n, p.weights)) return compact_bytes(n);  // fold_cpu's choice
  return mirror_table_bytes(n, p);
}

std::size_t gpu_fold_bytes(int n, const Params& p) {
  if (n <= 0) return 0;
  const auto nn = static_cast<std::size_t>(n);
  // Plain cells: 2 n^2, the packed triangle of 32-bit cells exactly, and for 16-bit cells room for
  // the split-K scratch too.
  if (!packed::uses_relative(n, p.weights)) return 2 * nn * nn;
  // Relative cells: the 16-bit triangle, the tile bases, two split-K scratch buffers of the first
  // panel diagonal's tiles, the codes. A group's fixed extras (scratch for two waves of panel
  // blocks, a few hundred MiB at most) lie inside the gap between the engine's budget
  // (resources.gpu_memory_fraction of the card) and what the GPU path itself allows.
  const int nt = packed::tiles_per_side(n);
  constexpr std::size_t tile_cells = static_cast<std::size_t>(packed::kTile) * packed::kTile;
  return packed::table_cells(n) * sizeof(std::int16_t) + packed::tile_count(nt) * sizeof(std::int32_t) +
         2 * static_cast<std::size_t>(nt) * tile_cells * sizeof(std::int16_t) +
         static_cast<std::size_t>(nt) * packed::kTile + (std::size_t{64} << 20);
}

}  // namespace screen::nussinov
