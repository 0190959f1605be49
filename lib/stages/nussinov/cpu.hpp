#pragma once
// Fast CPU paths of the Nussinov stage. Both give exactly the reference's scores and, through
// traceback.hpp over their own tables, the reference's structures.
#include <cstdint>

#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::nussinov {

// Cache-efficient tiled wavefront (Li et al.'s CPU2 layout: the table and its mirror, so both
// operands of the max-plus loop are unit-stride), OpenMP across the tiles of a tile diagonal,
// 16-bit cells whenever max_possible_score fits, else 32-bit. threads <= 0: OpenMP's default.
FoldResult fold_cpu(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads = 0);

// Bytes of memory fold_cpu / fold_four_russians need for a sequence of n bases.
std::size_t cpu_table_bytes(int n, const Params& p);

// Four-Russians (Venkatachalam, Gusfield & Frid 2014, two-vector method): unit weights only
// (make_pair_table(p.weights).unit()); throws UsageError otherwise. q = bits of a difference vector
// (1..8; the lookup table is 2^q x 2^(q-1) bytes).
bool four_russians_applicable(const Params& p);
FoldResult fold_four_russians(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads = 0,
                              int q = 8);

}  // namespace screen::nussinov
