#include "stages/bpmax/window_pruning.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "stages/bpmax/window_bounds.hpp"

namespace screen::bpmax {

bool prunable(const Band& b, const PairTable& t) {
  for (const auto w : t.w)
    if (w < 0) return false;
  return b.n >= 1 && b.n <= kMaxBoundQuery && b.l2 >= 1 &&
         static_cast<long long>(b.m) >= static_cast<long long>(kPruneMinWindows) * b.l2;
}

std::vector<std::int32_t> window_upper_bounds(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p) {
  const Band b = make_band(n, m, p);
  const PairTable t = make_pair_table(p.weights);
  std::vector<std::uint8_t> z(static_cast<std::size_t>(m));
  for (int k = 0; k < m; ++k) z[static_cast<std::size_t>(k)] = y[reversed_index(m, k)];
  const std::vector<std::int32_t> s2 = single_strand_table(z, b.l2, t);
  std::vector<int> spare(static_cast<std::size_t>(n)), col(static_cast<std::size_t>(n) + 1);
  for (int a = 0; a < n; ++a) spare[static_cast<std::size_t>(a)] = query_spare(x, n, a, t);
  std::vector<std::int32_t> out(static_cast<std::size_t>(m - b.l2 + 1));
  for (int i2 = 0; i2 + b.l2 <= m; ++i2) {
    const int q2 = matching_bound2(x, n, spare.data(), z.data() + i2, b.l2, t, col.data());
    out[static_cast<std::size_t>(i2)] = window_bound(s2[static_cast<std::size_t>(s_index(b.l2, i2, i2 + b.l2 - 1))], q2);
  }
  return out;
}

namespace {

// The pair restricted to the z interval [s, e]: z_s .. z_e are the forward bases y_{m-1-e} .. y_{m-1-s}.
PairInput segment(const PairInput& in, int s, int e) {
  PairInput sub = in;
  sub.target.codes = in.target.codes + (in.target.length - 1 - e);
  sub.target.length = e - s + 1;
  return sub;
}

}  // namespace

std::vector<SiteResult> score_pruned(const std::vector<PairInput>& pairs, const Params& p, const WindowBoundsFn& bounds,
                                     const SitesFn& score, PruneStats* stats) {
  const std::size_t np = pairs.size();
  std::vector<SiteResult> out(np);
  if (np == 0) return out;
  const PairTable table = make_pair_table(p.weights);
  std::vector<Band> bands(np);
  for (std::size_t k = 0; k < np; ++k) {
    bands[k] = make_band(pairs[k].query.length, pairs[k].target.length, p);
    if (!prunable(bands[k], table)) throw Error(ExitCode::internal, "score_pruned: a pair that is not prunable");
  }
  const std::vector<std::vector<std::int32_t>> ub = bounds(pairs);
  if (ub.size() != np) throw Error(ExitCode::internal, "score_pruned: bounds for the wrong number of pairs");

  // 2. The seeds: the windows of the largest bounds (ties: the first), merged, while they cover at most
  // kSeedPercent of the target (at least one window). The best of their scores is the lower bound.
  std::vector<PairInput> segs;
  std::vector<std::size_t> owner;
  std::vector<int> first_z;
  std::vector<std::vector<char>> seeded(np);  // per pair and window: inside a seed segment (its F is seen)
  PruneStats local;
  for (std::size_t k = 0; k < np; ++k) {
    const Band& b = bands[k];
    const auto& u = ub[k];
    const int nw = b.m - b.l2 + 1;
    if (u.size() != static_cast<std::size_t>(nw)) throw Error(ExitCode::internal, "score_pruned: bounds of the wrong length");
    const long long budget = std::max<long long>(b.l2, static_cast<long long>(b.m) * kSeedPercent / 100);
    // Each window looked at costs L2 steps: at most 4 x budget / L2 + 1 of them, so only those are sorted.
    const long long looks = std::min<long long>(nw, 4 * budget / b.l2 + 1);
    std::vector<int> order(static_cast<std::size_t>(nw));
    for (int w = 0; w < nw; ++w) order[static_cast<std::size_t>(w)] = w;
    std::partial_sort(order.begin(), order.begin() + looks, order.end(), [&](int a, int c) {
      const auto ua = u[static_cast<std::size_t>(a)], uc = u[static_cast<std::size_t>(c)];
      return ua > uc || (ua == uc && a < c);
    });
    std::vector<char> on(static_cast<std::size_t>(b.m), 0);
    long long used = 0;
    for (long long r = 0; r < looks && used < budget; ++r) {
      const int c = order[static_cast<std::size_t>(r)];
      long long add = 0;
      for (int q = c; q < c + b.l2; ++q) add += !on[static_cast<std::size_t>(q)];
      if (used + add > budget) continue;
      for (int q = c; q < c + b.l2; ++q) on[static_cast<std::size_t>(q)] = 1;
      used += add;
    }
    seeded[k].assign(static_cast<std::size_t>(nw), 0);
    int run = 0;  // seeded bases ending at the current one
    for (int q = 0; q < b.m; ++q) {
      run = on[static_cast<std::size_t>(q)] ? run + 1 : 0;
      if (run >= b.l2) seeded[k][static_cast<std::size_t>(q - b.l2 + 1)] = 1;
      const bool ends = run > 0 && (q + 1 == b.m || !on[static_cast<std::size_t>(q) + 1]);
      if (ends) {
        segs.push_back(segment(pairs[k], q - run + 1, q));
        owner.push_back(k);
        first_z.push_back(q - run + 1);
        local.positions_scored += run;
      }
    }
  }
  const std::size_t seed_count = segs.size();
  std::vector<SiteResult> sites = score(segs);
  std::vector<long long> lower(np, -1);
  for (std::size_t g = 0; g < seed_count; ++g) lower[owner[g]] = std::max(lower[owner[g]], sites[g].score);

  // 3. The segments: unions of the windows not seen yet whose bound reaches the lower bound.
  for (std::size_t k = 0; k < np; ++k) {
    const Band& b = bands[k];
    const long long lb = lower[k];
    if (lb < 0) throw Error(ExitCode::internal, "score_pruned: a pair without a seed");
    std::vector<std::pair<int, int>> spans;  // z intervals, merged
    long long covered = 0;
    for (int i2 = 0; i2 + b.l2 <= b.m; ++i2) {
      if (ub[k][static_cast<std::size_t>(i2)] < lb) continue;
      ++local.windows_kept;
      if (seeded[k][static_cast<std::size_t>(i2)]) continue;
      if (!spans.empty() && i2 <= spans.back().second + 1) {
        covered += i2 + b.l2 - 1 - spans.back().second;
        spans.back().second = i2 + b.l2 - 1;
      } else {
        spans.emplace_back(i2, i2 + b.l2 - 1);
        covered += b.l2;
      }
    }
    // Nearly the whole target: one segment, without the edges' extra tiles.
    if (covered * 20 >= static_cast<long long>(b.m) * 19) spans.assign(1, {0, b.m - 1});
    for (const auto& [s, e] : spans) {
      segs.push_back(segment(pairs[k], s, e));
      owner.push_back(k);
      first_z.push_back(s);
      local.positions_scored += e - s + 1;
    }
    local.windows += b.m - b.l2 + 1;
    local.positions += b.m;
  }
  local.pairs += static_cast<long long>(np);
  {
    const std::vector<PairInput> rest(segs.begin() + static_cast<std::ptrdiff_t>(seed_count), segs.end());
    std::vector<SiteResult> more = score(rest);
    for (auto& r : more) sites.push_back(std::move(r));
  }

  // The pair's site: the largest score, then the smallest i1, then the smallest i2 (find_site's order).
  std::vector<char> have(np, 0);
  for (std::size_t g = 0; g < segs.size(); ++g) {
    const std::size_t k = owner[g];
    const SiteResult& r = sites[g];
    const int i1 = r.site_i1, i2 = first_z[g] + r.site_i2;
    SiteResult& o = out[k];
    if (have[k] && (r.score < o.score || (r.score == o.score && (i1 > o.site_i1 || (i1 == o.site_i1 && i2 >= o.site_i2)))))
      continue;
    have[k] = 1;
    const Band& b = bands[k];
    o = SiteResult{};
    o.score = r.score;
    o.site_i1 = i1;
    o.site_i2 = i2;
    o.query_begin = i1 + 1;
    o.query_end = i1 + b.l1;
    o.target_begin = target_begin_1based(b.m, i2 + b.l2 - 1);
    o.target_end = target_end_1based(b.m, i2);
    o.query_single = r.query_single;  // S1 depends on the query alone
  }
  for (std::size_t k = 0; k < np; ++k)
    if (!have[k] || out[k].score < lower[k])
      throw Error(ExitCode::internal, "score_pruned: a pair's segments lost its seed window");
  if (stats) {
    stats->pairs += local.pairs;
    stats->windows += local.windows;
    stats->windows_kept += local.windows_kept;
    stats->positions += local.positions;
    stats->positions_scored += local.positions_scored;
  }
  return out;
}

}  // namespace screen::bpmax
