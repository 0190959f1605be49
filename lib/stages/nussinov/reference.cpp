#include "stages/nussinov/reference.hpp"

#include <algorithm>

#include "stages/nussinov/traceback.hpp"

namespace screen::nussinov {

std::vector<std::int32_t> reference_table(const std::uint8_t* s, int n, const Params& p) {
  const PairTable table = make_pair_table(p.weights);
  const std::size_t un = static_cast<std::size_t>(n);
  std::vector<std::int32_t> N(un * un, 0);
  // A column-major copy of the same values, so that the bifurcation reads N(k+1, j) with unit stride
  // (storage only: every value is computed once, below, exactly as the recurrence says).
  std::vector<std::int32_t> by_column(un * un, 0);
  auto at = [&](int i, int j) -> std::int32_t& { return N[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)]; };
  auto col = [&](int i, int j) -> std::int32_t& {
    return by_column[static_cast<std::size_t>(j) * un + static_cast<std::size_t>(i)];
  };
  for (int d = p.min_loop + 1; d < n; ++d) {
    for (int i = 0; i + d < n; ++i) {
      const int j = i + d;
      std::int32_t best = std::max(at(i + 1, j), at(i, j - 1));
      const int w = pair_score(p, table, s, i, j);
      if (w > 0) best = std::max(best, at(i + 1, j - 1) + w);
      for (int k = i + 1; k < j; ++k) best = std::max(best, at(i, k) + col(k + 1, j));
      at(i, j) = best;
      col(i, j) = best;
    }
  }
  return N;
}

FoldResult fold_reference(const std::uint8_t* s, int n, const Params& p, bool with_traceback) {
  FoldResult r;
  if (n <= 0) return r;
  const auto N = reference_table(s, n, p);
  const std::size_t un = static_cast<std::size_t>(n);
  r.score = N[un - 1];
  if (with_traceback)
    r.structure = traceback(s, n, p, [&](int i, int j) -> std::int32_t {
      return i <= j ? N[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)] : 0;
    });
  return r;
}

}  // namespace screen::nussinov
