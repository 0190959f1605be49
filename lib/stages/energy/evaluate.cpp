// The energy of a given structure: the sum of its loops (docs/energy.md, Loops), with the dangles
// of the exterior loop and of each multiloop chosen as the recurrences may choose them. A dangle is
// never positive and concerns only the unpaired stretch on its side of a helix, so the choice is
// made stretch by stretch: a stretch of one letter between two helices gives one dangle (the
// better), a longer one both, none when the helices touch.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "stages/energy/reference.hpp"

namespace screen::energy {

namespace {

struct Branch {
  int i, j;  // a helix end in the loop: pair (i, j), 1-based
};

// Dangle terms of one unpaired stretch of `gap` letters between a helix end's 3' dangle d3 and the
// next one's 5' dangle d5 (either may be absent: 0).
int stretch_dangles(int gap, int d3, int d5) {
  if (gap <= 0) return 0;
  if (gap == 1) return std::min({0, d3, d5});
  return d3 + d5;
}

}  // namespace

int evaluate_structure(const std::string& letters, const std::string& structure, const Model& m) {
  const int n = static_cast<int>(letters.size());
  if (static_cast<int>(structure.size()) != n)
    throw InputError(fmt::format("structure of {} characters for {} letters", structure.size(), n));
  std::vector<int> pt(static_cast<std::size_t>(n) + 2, 0), code(static_cast<std::size_t>(n) + 2, 0),
      alias(static_cast<std::size_t>(n) + 2, 0);
  {
    std::vector<int> open;
    for (int k = 1; k <= n; ++k) {
      const char ch = structure[static_cast<std::size_t>(k - 1)];
      if (ch == '(') {
        open.push_back(k);
      } else if (ch == ')') {
        if (open.empty()) throw InputError(fmt::format("structure: ')' at {} closes nothing", k));
        pt[static_cast<std::size_t>(k)] = open.back();
        pt[static_cast<std::size_t>(open.back())] = k;
        open.pop_back();
      } else if (ch != '.') {
        throw InputError(fmt::format("structure: '{}' at {} is not '(', ')' or '.'", ch, k));
      }
      code[static_cast<std::size_t>(k)] = letter_code(letters[static_cast<std::size_t>(k - 1)]);
      alias[static_cast<std::size_t>(k)] = letter_alias(code[static_cast<std::size_t>(k)]);
    }
    if (!open.empty()) throw InputError(fmt::format("structure: '(' at {} is not closed", open.back()));
  }
  auto P = [&](int k) { return pt[static_cast<std::size_t>(k)]; };
  auto a = [&](int k) { return alias[static_cast<std::size_t>(k)]; };
  auto type = [&](int i, int j) {
    const int t = pair_type(code[static_cast<std::size_t>(i)], code[static_cast<std::size_t>(j)]);
    if (!t) throw InputError(fmt::format("structure: letters {} and {} ({}{}) cannot pair", i, j, letters[static_cast<std::size_t>(i - 1)], letters[static_cast<std::size_t>(j - 1)]));
    if (j - i < 4) throw InputError(fmt::format("structure: the hairpin closed by {} and {} has fewer than 3 letters", i, j));
    return t;
  };
  // The helices directly inside (from, to): their outer pairs, 5' to 3'.
  auto children = [&](int from, int to) {
    std::vector<Branch> out;
    for (int k = from + 1; k < to;) {
      if (P(k) > k) {
        out.push_back({k, P(k)});
        k = P(k) + 1;
      } else {
        ++k;
      }
    }
    return out;
  };

  int total = 0;
  // Exterior loop.
  {
    const std::vector<Branch> top = children(0, n + 1);
    int prev_end = 0, prev_d3 = 0;
    for (const Branch& b : top) {
      const int t = type(b.i, b.j);
      total += terminal_penalty(m, t);
      const int d5 = b.i > 1 ? m.dangle5[t][a(b.i - 1)] : 0;
      total += stretch_dangles(b.i - prev_end - 1, prev_d3, d5);
      prev_end = b.j;
      prev_d3 = b.j < n ? m.dangle3[t][a(b.j + 1)] : 0;
    }
    total += stretch_dangles(n - prev_end, prev_d3, 0);
  }
  // Every pair's loop.
  for (int i = 1; i <= n; ++i) {
    const int j = P(i);
    if (j <= i) continue;
    const int t = type(i, j);
    const std::vector<Branch> in = children(i, j);
    if (in.empty()) {
      const int u = j - i - 1;
      total += hairpin_energy(m, t, u, u == 4 ? tetraloop_bonus(m, letters.c_str() + i - 1) : 0, a(i + 1), a(j - 1));
    } else if (in.size() == 1) {
      const int p = in[0].i, q = in[0].j;
      const int n1 = p - i - 1, n2 = j - q - 1;
      if (n1 + n2 > kMaxLoop)
        throw InputError(fmt::format("structure: the loop between ({}, {}) and ({}, {}) has more than {} unpaired letters",
                                     i, j, p, q, kMaxLoop));
      total += interior_energy(m, t, reverse_type(type(p, q)), n1, n2, a(i + 1), a(j - 1), a(p - 1), a(q + 1));
    } else {
      // Multiloop: the closing pair, read from inside, dangles 3' on i+1 and 5' on j-1.
      const int tt = reverse_type(t);
      int e = m.ml_closing + m.ml_intern[t];
      int unpaired = j - i - 1;
      int prev_end = i, prev_d3 = m.dangle3[tt][a(i + 1)];
      for (const Branch& b : in) {
        const int tb = type(b.i, b.j);
        e += m.ml_intern[tb];
        unpaired -= b.j - b.i + 1;
        e += stretch_dangles(b.i - prev_end - 1, prev_d3, m.dangle5[tb][a(b.i - 1)]);
        prev_end = b.j;
        prev_d3 = m.dangle3[tb][a(b.j + 1)];
      }
      e += stretch_dangles(j - prev_end - 1, prev_d3, m.dangle5[tt][a(j - 1)]);
      total += e + unpaired * m.ml_base;
    }
  }
  return total;
}

}  // namespace screen::energy
