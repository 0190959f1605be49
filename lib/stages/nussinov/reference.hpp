#pragma once
// The plain reference: nussinov.md's recurrence as written, full n x n table, O(n^3).
#include <cstdint>
#include <string>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::nussinov {

// Full table, row-major: table[i * n + j] = N(i, j) for i <= j (0 below the diagonal).
std::vector<std::int32_t> reference_table(const std::uint8_t* s, int n, const Params& p);

struct FoldResult {
  long long score = 0;        // N(0, n-1) in units of 1/weights.scale
  std::string structure;      // dot-bracket, empty when traceback was not asked for
};

FoldResult fold_reference(const std::uint8_t* s, int n, const Params& p, bool with_traceback);

}  // namespace screen::nussinov
