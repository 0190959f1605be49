// BPMax traceback (bpmax.md, "Traceback"), the joint dot-bracket and the structure checker.
#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "stages/bpmax/reference.hpp"
#include "stages/nussinov/traceback.hpp"

namespace screen::bpmax {

namespace {

enum class Part { F, S1, S2 };

struct Task {
  Part part;
  int i1, j1, i2, j2;  // S parts use (i1, j1) only
};

[[noreturn]] void inconsistent(const char* what, int a, int b, int c, int d) {
  throw Error(ExitCode::internal,
              fmt::format("bpmax traceback: {} cell ({}, {}, {}, {}) is inconsistent with the recurrence", what, a, b, c, d));
}

}  // namespace

namespace {

// T: ReferenceTables or TableView (the same accessors).
template <class T>
Structure traceback_impl(const T& t, int i1, int j1, int i2, int j2) {
  const Band& b = t.band();
  if (!b.in_band(i1, j1, i2, j2))
    throw Error(ExitCode::internal, fmt::format("bpmax traceback: cell ({}, {}, {}, {}) is outside the table", i1, j1, i2, j2));
  const PairTable& table = t.pair_table();
  const auto& x = t.query();
  const auto& z = t.reversed_target();
  auto wx = [&](int a, int c) -> std::int32_t { return table.at(x[static_cast<std::size_t>(a)], x[static_cast<std::size_t>(c)]); };
  auto wz = [&](int a, int c) -> std::int32_t { return table.at(z[static_cast<std::size_t>(a)], z[static_cast<std::size_t>(c)]); };
  auto wxz = [&](int a, int c) -> std::int32_t { return table.at(x[static_cast<std::size_t>(a)], z[static_cast<std::size_t>(c)]); };

  Structure out;
  // Positions are recorded 1-based forward: query a -> a + 1, z position c -> M - c.
  auto record_inter = [&](int a, int c) { out.inter.emplace_back(a + 1, target_position_1based(b.m, c)); };
  auto record_query = [&](int a, int c) { out.query_pairs.emplace_back(a + 1, c + 1); };
  auto record_target = [&](int a, int c) {  // z pair a < c is the forward pair (M - c, M - a)
    out.target_pairs.emplace_back(target_position_1based(b.m, c), target_position_1based(b.m, a));
  };

  std::vector<Task> stack{{Part::F, i1, j1, i2, j2}};
  while (!stack.empty()) {
    const Task task = stack.back();
    stack.pop_back();

    if (task.part != Part::F) {  // a single-strand part: smallest split d first, then the pair
      const bool query = task.part == Part::S1;
      auto S = [&](int a, int c) { return query ? t.S1(a, c) : t.S2(a, c); };
      const int i = task.i1, j = task.j1;
      const std::int32_t v = S(i, j);
      if (j - i <= kMinLoop) {
        if (v != 0) inconsistent(query ? "S1" : "S2", i, j, 0, 0);
        continue;
      }
      bool done = false;
      for (int d = i; d < j && !done; ++d) {
        if (S(i, d) + S(d + 1, j) == v) {
          stack.push_back({task.part, d + 1, j, 0, 0});
          stack.push_back({task.part, i, d, 0, 0});
          done = true;
        }
      }
      if (done) continue;
      const std::int32_t w = query ? wx(i, j) : wz(i, j);
      if (w + S(i + 1, j - 1) != v) inconsistent(query ? "S1" : "S2", i, j, 0, 0);
      if (w > 0) {
        if (query)
          record_query(i, j);
        else
          record_target(i, j);
      }
      stack.push_back({task.part, i + 1, j - 1, 0, 0});
      continue;
    }

    const int a1 = task.i1, b1 = task.j1, a2 = task.i2, b2 = task.j2;
    const std::int32_t v = t.F(a1, b1, a2, b2);
    // Base case.
    if (a1 == b1 && a2 == b2) {
      if (v != wxz(a1, a2)) inconsistent("F", a1, b1, a2, b2);
      if (v > 0) record_inter(a1, a2);
      continue;
    }
    // Term 1, increasing k1 then k2.
    bool done = false;
    for (int k1 = a1; k1 < b1 && !done; ++k1) {
      for (int k2 = a2; k2 < b2 && !done; ++k2) {
        if (t.F(a1, k1, a2, k2) + t.F(k1 + 1, b1, k2 + 1, b2) == v) {
          stack.push_back({Part::F, k1 + 1, b1, k2 + 1, b2});
          stack.push_back({Part::F, a1, k1, a2, k2});
          done = true;
        }
      }
    }
    if (done) continue;
    // For each k1: term 2, then term 3.
    for (int k1 = a1; k1 < b1 && !done; ++k1) {
      if (t.F(a1, k1, a2, b2) + t.S1(k1 + 1, b1) == v) {
        stack.push_back({Part::S1, k1 + 1, b1, 0, 0});
        stack.push_back({Part::F, a1, k1, a2, b2});
        done = true;
      } else if (t.S1(a1, k1) + t.F(k1 + 1, b1, a2, b2) == v) {
        stack.push_back({Part::F, k1 + 1, b1, a2, b2});
        stack.push_back({Part::S1, a1, k1, 0, 0});
        done = true;
      }
    }
    if (done) continue;
    // For each k2: term 4, then term 5.
    for (int k2 = a2; k2 < b2 && !done; ++k2) {
      if (t.F(a1, b1, a2, k2) + t.S2(k2 + 1, b2) == v) {
        stack.push_back({Part::S2, k2 + 1, b2, 0, 0});
        stack.push_back({Part::F, a1, b1, a2, k2});
        done = true;
      } else if (t.S2(a2, k2) + t.F(a1, b1, k2 + 1, b2) == v) {
        stack.push_back({Part::F, a1, b1, k2 + 1, b2});
        stack.push_back({Part::S2, a2, k2, 0, 0});
        done = true;
      }
    }
    if (done) continue;
    // Term 6: query pair (a1, b1).
    if (b1 - a1 > kMinLoop && wx(a1, b1) + t.F(a1 + 1, b1 - 1, a2, b2) == v) {
      if (wx(a1, b1) > 0) record_query(a1, b1);
      stack.push_back({Part::F, a1 + 1, b1 - 1, a2, b2});
      continue;
    }
    // Term 7: target pair (a2, b2) of z.
    if (b2 - a2 > kMinLoop && wz(a2, b2) + t.F(a1, b1, a2 + 1, b2 - 1) == v) {
      if (wz(a2, b2) > 0) record_target(a2, b2);
      stack.push_back({Part::F, a1, b1, a2 + 1, b2 - 1});
      continue;
    }
    // A cell other than the base has term 2/3 or 4/5 (each >= 0), so "max with 0" alone never
    // decides it; reaching here means the table is wrong.
    inconsistent("F", a1, b1, a2, b2);
  }

  std::sort(out.inter.begin(), out.inter.end());
  std::sort(out.query_pairs.begin(), out.query_pairs.end());
  std::sort(out.target_pairs.begin(), out.target_pairs.end());
  out.dot_bracket = joint_dot_bracket(b.n, b.m, out);
  return out;
}

}  // namespace

Structure traceback(const ReferenceTables& t, int i1, int j1, int i2, int j2) {
  return traceback_impl(t, i1, j1, i2, j2);
}

Structure traceback(const TableView& t, int i1, int j1, int i2, int j2) { return traceback_impl(t, i1, j1, i2, j2); }

std::string joint_dot_bracket(int n, int m, const Structure& s) {
  std::string q(static_cast<std::size_t>(n), '.');
  std::string tg(static_cast<std::size_t>(m), '.');
  auto put = [](std::string& str, int pos1, char c) {
    if (pos1 < 1 || pos1 > static_cast<int>(str.size()))
      throw Error(ExitCode::internal, fmt::format("bpmax structure: position {} outside 1..{}", pos1, str.size()));
    str[static_cast<std::size_t>(pos1 - 1)] = c;
  };
  for (const auto& [i, j] : s.query_pairs) {
    put(q, i, '(');
    put(q, j, ')');
  }
  for (const auto& [i, j] : s.target_pairs) {
    put(tg, i, '(');
    put(tg, j, ')');
  }
  for (const auto& [a, c] : s.inter) {
    put(q, a, '[');
    put(tg, c, ']');
  }
  return q + "&" + tg;
}

namespace {

// Checks one strand's intramolecular pairs (1-based) and returns the sum of their weights.
long long score_strand(const std::uint8_t* s, int n, int window, const PairWeights& weights,
                       const std::vector<std::pair<int, int>>& pairs, std::vector<char>& used, const char* name) {
  std::vector<int> partner(static_cast<std::size_t>(n) + 1, 0);
  std::string db(static_cast<std::size_t>(n), '.');
  for (const auto& [i, j] : pairs) {
    if (i < 1 || j > n || i >= j)
      throw Error(ExitCode::internal, fmt::format("bpmax structure: bad {} pair ({}, {})", name, i, j));
    for (int pos : {i, j}) {
      if (used[static_cast<std::size_t>(pos)])
        throw Error(ExitCode::internal, fmt::format("bpmax structure: {} position {} is in two pairs", name, pos));
      used[static_cast<std::size_t>(pos)] = 1;
    }
    partner[static_cast<std::size_t>(i)] = j;
    partner[static_cast<std::size_t>(j)] = i;
    db[static_cast<std::size_t>(i - 1)] = '(';
    db[static_cast<std::size_t>(j - 1)] = ')';
  }
  std::vector<int> open;  // non-crossing: each ')' closes the latest open '('
  for (int pos = 1; pos <= n; ++pos) {
    const int other = partner[static_cast<std::size_t>(pos)];
    if (other > pos) open.push_back(pos);
    if (other != 0 && other < pos) {
      if (open.empty() || open.back() != other)
        throw Error(ExitCode::internal, fmt::format("bpmax structure: {} pair ({}, {}) crosses another", name, other, pos));
      open.pop_back();
    }
  }
  // Weights, min loop and window through the Nussinov rules (min_loop 3, max_span = the window).
  nussinov::Params np;
  np.min_loop = kMinLoop;
  np.max_span = window;
  np.weights = weights;
  return nussinov::score_structure(s, n, np, db);
}

}  // namespace

long long score_structure(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p,
                          const Structure& s) {
  const Band b = make_band(n, m, p);
  std::vector<char> used_q(static_cast<std::size_t>(n) + 1, 0), used_t(static_cast<std::size_t>(m) + 1, 0);
  long long total = score_strand(x, n, b.l1, p.weights, s.query_pairs, used_q, "query");
  total += score_strand(y, m, b.l2, p.weights, s.target_pairs, used_t, "target");

  const PairTable table = make_pair_table(p.weights);
  std::vector<std::pair<int, int>> inter = s.inter;
  std::sort(inter.begin(), inter.end());
  for (std::size_t k = 0; k < inter.size(); ++k) {
    const auto [a, c] = inter[k];
    if (a < 1 || a > n || c < 1 || c > m)
      throw Error(ExitCode::internal, fmt::format("bpmax structure: intermolecular pair ({}, {}) out of range", a, c));
    if (used_q[static_cast<std::size_t>(a)] || used_t[static_cast<std::size_t>(c)])
      throw Error(ExitCode::internal, fmt::format("bpmax structure: intermolecular pair ({}, {}) reuses a base", a, c));
    used_q[static_cast<std::size_t>(a)] = 1;
    used_t[static_cast<std::size_t>(c)] = 1;
    if (k > 0 && !(inter[k - 1].second > c))
      throw Error(ExitCode::internal,
                  fmt::format("bpmax structure: intermolecular pairs ({}, {}) and ({}, {}) cross", inter[k - 1].first,
                              inter[k - 1].second, a, c));
    const int w = table.at(x[a - 1], y[c - 1]);
    if (w <= 0) throw Error(ExitCode::internal, fmt::format("bpmax structure: intermolecular pair ({}, {}) has weight 0", a, c));
    total += w;
  }
  if (!s.dot_bracket.empty() && s.dot_bracket != joint_dot_bracket(n, m, s))
    throw Error(ExitCode::internal, "bpmax structure: dot-bracket does not match the pair lists");
  return total;
}

}  // namespace screen::bpmax
