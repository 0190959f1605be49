#pragma once
// The deterministic traceback of nussinov.md, written once for every code path. `get(i, j)` must
// return N(i, j) for 0 <= i <= j < n (values with j - i <= min_loop are 0). Iterative (explicit
// stack), so a 100,000-nt structure does not overflow the call stack.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::nussinov {

template <class Get>
std::string traceback(const std::uint8_t* s, int n, const Params& p, Get&& get) {
  const PairTable table = make_pair_table(p.weights);
  std::string out(static_cast<std::size_t>(n), '.');
  std::vector<std::pair<int, int>> stack;
  if (n > 0) stack.emplace_back(0, n - 1);
  while (!stack.empty()) {
    auto [i, j] = stack.back();
    stack.pop_back();
    while (j - i > p.min_loop) {
      const auto v = get(i, j);
      if (v == get(i + 1, j)) {  // 1. i unpaired
        ++i;
        continue;
      }
      if (v == get(i, j - 1)) {  // 2. j unpaired
        --j;
        continue;
      }
      const int w = pair_score(p, table, s, i, j);
      if (w > 0 && v == get(i + 1, j - 1) + w) {  // 3. (i, j) paired
        out[static_cast<std::size_t>(i)] = '(';
        out[static_cast<std::size_t>(j)] = ')';
        ++i;
        --j;
        continue;
      }
      int split = -1;  // 4. smallest bifurcation k reproducing the value
      for (int k = i + 1; k < j; ++k) {
        if (get(i, k) + get(k + 1, j) == v) {
          split = k;
          break;
        }
      }
      if (split < 0)
        throw Error(ExitCode::internal, "nussinov traceback: table is inconsistent with the recurrence");
      stack.emplace_back(split + 1, j);
      j = split;
    }
  }
  return out;
}

// Score of a dot-bracket structure under the parameters (sum of the weights of its pairs); throws
// when the structure is malformed or has a pair the rules forbid. Used to check every traceback.
long long score_structure(const std::uint8_t* s, int n, const Params& p, const std::string& structure);

}  // namespace screen::nussinov
