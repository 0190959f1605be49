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

// The traceback's cases at an interval (i, j) with j - i > min_loop and v = N(i, j), tried in this order
// (nussinov.md): 1. i unpaired (v = N(i+1, j)); 2. j unpaired (v = N(i, j-1)); 3. (i, j) paired (v =
// N(i+1, j-1) + w, w > 0); 4. a bifurcation at the smallest k in (i, j) with N(i, k) + N(k+1, j) = v
// (is_split_at), after which (k+1, j) waits on a stack and (i, k) goes on. Shared by the host traceback
// below and the GPU's (kernels/nussinov/), which searches k a block of threads at a time and keeps the
// smallest hit, so both give the same structure.
enum class TraceCase { i_unpaired, j_unpaired, paired, split };

template <class V, class Get>
SCREEN_HD TraceCase trace_case(const std::uint8_t* s, const Params& p, const PairTable& t, int i, int j, V v, Get&& get) {
  if (v == get(i + 1, j)) return TraceCase::i_unpaired;
  if (v == get(i, j - 1)) return TraceCase::j_unpaired;
  const int w = pair_score(p, t, s, i, j);
  if (w > 0 && v == get(i + 1, j - 1) + w) return TraceCase::paired;
  return TraceCase::split;
}

template <class V, class Get>
SCREEN_HD bool is_split_at(int i, int j, int k, V v, Get&& get) {
  return get(i, k) + get(k + 1, j) == v;
}

// A bifurcation's right part (k + 1, j) has at least two bases (k = j - 1 would be case 2), and the parts
// waiting on the stack are disjoint: a fold of n bases never holds more than this many.
SCREEN_HD constexpr int trace_stack_capacity(int n) { return n / 2 + 1; }

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
      switch (trace_case(s, p, table, i, j, v, get)) {
        case TraceCase::i_unpaired:
          ++i;
          continue;
        case TraceCase::j_unpaired:
          --j;
          continue;
        case TraceCase::paired:
          out[static_cast<std::size_t>(i)] = '(';
          out[static_cast<std::size_t>(j)] = ')';
          ++i;
          --j;
          continue;
        case TraceCase::split:
          break;
      }
      int split = -1;
      for (int k = i + 1; k < j; ++k) {
        if (is_split_at(i, j, k, v, get)) {
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
