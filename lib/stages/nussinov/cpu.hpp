#pragma once
// Fast CPU paths of the Nussinov stage. Both give exactly the reference's scores and, through
// traceback.hpp over their own tables, the reference's structures.
#include <cstdint>

#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::nussinov {

// Cache-efficient tiled wavefront (Li et al.'s CPU2 layout: the table and its mirror, so both
// operands of the max-plus loop are unit-stride), OpenMP across the tiles of a tile diagonal,
// 16-bit cells whenever max_possible_score fits. Beyond that the compact path (compact.hpp: n^2
// bytes) while the pair weights allow its 16-bit offsets, else the mirrored table in 32-bit cells.
// threads <= 0: OpenMP's default.
FoldResult fold_cpu(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads = 0);

// Bytes of memory fold_cpu needs for a sequence of n bases.
std::size_t cpu_table_bytes(int n, const Params& p);
// Bytes of the mirrored table (fold_four_russians, and fold_cpu while 16-bit cells fit).
std::size_t mirror_table_bytes(int n, const Params& p);
// Bytes the GPU tiled engine needs for one fold of n bases (an upper bound, without a GPU at hand:
// the table, the tile bases, two split-K scratch buffers, codes); the plan's GPU estimate.
std::size_t gpu_fold_bytes(int n, const Params& p);

// Four-Russians (Venkatachalam, Gusfield & Frid 2014, two-vector method): unit weights only
// (make_pair_table(p.weights).unit()); throws UsageError otherwise. q = bits of a difference vector
// (1..8; the lookup table is 2^q x 2^(q-1) bytes).
bool four_russians_applicable(const Params& p);
FoldResult fold_four_russians(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads = 0,
                              int q = 8);

}  // namespace screen::nussinov
