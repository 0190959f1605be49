#include "stages/bpmax/repeated_slabs.hpp"

#include <unordered_map>

#include "stages/bpmax/bpmax_defs.hpp"

namespace screen::bpmax {

long long RepeatedSlabs::computed() const {
  long long c = 0;
  for (const auto& f : firsts) c += static_cast<long long>(f.size());
  return c;
}

RepeatedSlabs repeated_slabs(const std::uint8_t* codes, int n, int l1) {
  RepeatedSlabs r;
  r.slab.resize(static_cast<std::size_t>(query_interval_count(n, l1)));
  r.firsts.resize(static_cast<std::size_t>(l1));
  // first[i]: the first start of the substring of length d1 + 1 at i. Two substrings of length d1 + 1 are
  // equal exactly when their first d1 bases are (same first start one level down) and their last bases
  // are, so each level needs one lookup per start, not a comparison of d1 + 1 bases.
  std::vector<int> first(static_cast<std::size_t>(n)), shorter(static_cast<std::size_t>(n));
  std::unordered_map<std::uint64_t, int> seen;
  for (int d1 = 0; d1 < l1; ++d1) {
    shorter.swap(first);
    seen.clear();
    for (int i1 = 0; i1 + d1 < n; ++i1) {
      const std::uint64_t prefix = d1 == 0 ? 0u : static_cast<std::uint64_t>(shorter[static_cast<std::size_t>(i1)]);
      const std::uint64_t key = (prefix << 8) | codes[i1 + d1];
      const int f = seen.emplace(key, i1).first->second;
      first[static_cast<std::size_t>(i1)] = f;
      if (f == i1) r.firsts[static_cast<std::size_t>(d1)].push_back(i1);
      r.slab[static_cast<std::size_t>(query_interval_index(n, i1, d1))] = static_cast<std::int32_t>(query_interval_index(n, f, d1));
    }
  }
  return r;
}

}  // namespace screen::bpmax
