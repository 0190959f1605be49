#include <fmt/format.h>

#include <vector>

#include "common/error.hpp"
#include "stages/nussinov/traceback.hpp"

namespace screen::nussinov {

long long score_structure(const std::uint8_t* s, int n, const Params& p, const std::string& structure) {
  if (structure.size() != static_cast<std::size_t>(n))
    throw Error(ExitCode::internal, fmt::format("structure length {} != sequence length {}", structure.size(), n));
  const PairTable table = make_pair_table(p.weights);
  std::vector<int> open;
  long long total = 0;
  for (int j = 0; j < n; ++j) {
    const char c = structure[static_cast<std::size_t>(j)];
    if (c == '(') {
      open.push_back(j);
    } else if (c == ')') {
      if (open.empty()) throw Error(ExitCode::internal, fmt::format("unbalanced ')' at {}", j + 1));
      const int i = open.back();
      open.pop_back();
      const int w = pair_score(p, table, s, i, j);
      if (w <= 0) throw Error(ExitCode::internal, fmt::format("forbidden pair ({}, {})", i + 1, j + 1));
      total += w;
    } else if (c != '.') {
      throw Error(ExitCode::internal, fmt::format("bad structure character '{}' at {}", c, j + 1));
    }
  }
  if (!open.empty()) throw Error(ExitCode::internal, "unbalanced '(' in structure");
  return total;
}

}  // namespace screen::nussinov
