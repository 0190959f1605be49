#pragma once
// Slabs of repeated query substrings. The slab F(i1, j1, ., .) of a pair depends only on the query's
// bases x_i1 .. x_j1 (and the target): every term of the recurrence reads S1 and F of sub-intervals of
// [i1, j1], pair weights of its bases, and the target's tables. So two query intervals with the same
// bases have the same slab, cell for cell, and the GPU path computes it once: for its first occurrence
// (the smallest i1), and reads it there for the others. The svRNA queries of the flagship job repeat 13%
// of their substrings (all four single bases among them), and each repeat saves a slab's patch-up.
#include <cstdint>
#include <vector>

namespace screen::bpmax {

struct RepeatedSlabs {
  // For each query interval (i1, d1), d1 < l1, at query_interval_index(n, i1, d1): the query interval
  // index of the first interval of length d1 + 1 with the same bases (itself when it is the first).
  std::vector<std::int32_t> slab;
  // For each d1 < l1, the query starts i1 of first occurrences (the slabs to compute), ascending.
  std::vector<std::vector<int>> firsts;
  // Query intervals in all, and how many are computed.
  long long intervals() const { return static_cast<long long>(slab.size()); }
  long long computed() const;
};

// The map of query `codes` (n bases, n >= 1) with effective query window l1 (1 <= l1 <= n).
RepeatedSlabs repeated_slabs(const std::uint8_t* codes, int n, int l1);

}  // namespace screen::bpmax
