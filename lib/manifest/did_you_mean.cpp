#include "manifest/did_you_mean.hpp"

#include <algorithm>
#include <cctype>

#include "manifest/ascii_lower.hpp"

namespace screen::manifest {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  const std::string w = ascii_lower(word);
  for (const auto& c : candidates) {
    const std::size_t dist = edit_distance(w, ascii_lower(c));
    const std::size_t allowed = std::max<std::size_t>(1, std::max(w.size(), c.size()) / 3);
    if (dist > allowed) continue;
    if (!best || dist < best_distance) {
      best = c;
      best_distance = dist;
    }
  }
  return best;
}

}  // namespace screen::manifest
