#include "stages/bpmax/reference.hpp"

#include <algorithm>

namespace screen::bpmax {

ReferenceTables::ReferenceTables(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p)
    : params_(p), table_(make_pair_table(p.weights)), band_(make_band(n < 0 ? 0 : n, m < 0 ? 0 : m, p)) {
  x_.assign(x, x + band_.n);
  z_.resize(static_cast<std::size_t>(band_.m));
  for (int t = 0; t < band_.m; ++t) z_[static_cast<std::size_t>(t)] = y[reversed_index(band_.m, t)];
  s1_ = single_strand_table(x_, band_.l1, table_);
  s2_ = single_strand_table(z_, band_.l2, table_);

  f_.assign(static_cast<std::size_t>(band_.f_cell_count()), 0);
  // By increasing (j1 - i1, j2 - i2): every term reads cells shorter in one strand and no longer
  // in the other, all inside the band.
  for (int d1 = 0; d1 < band_.l1; ++d1)
    for (int d2 = 0; d2 < band_.l2; ++d2)
      for (int i1 = 0; i1 + d1 < band_.n; ++i1)
        for (int i2 = 0; i2 + d2 < band_.m; ++i2) f(i1, i1 + d1, i2, i2 + d2) = f_cell(i1, i1 + d1, i2, i2 + d2);
}

std::vector<std::int32_t> single_strand_table(const std::vector<std::uint8_t>& s, int l, const PairTable& table) {
  const int n = static_cast<int>(s.size());
  std::vector<std::int32_t> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(l), 0);
  auto S = [&](int i, int j) -> std::int32_t& { return out[static_cast<std::size_t>(s_index(l, i, j))]; };
  for (int d = kMinLoop + 1; d < l; ++d) {
    for (int i = 0; i + d < n; ++i) {
      const int j = i + d;
      std::int32_t best = table.at(s[static_cast<std::size_t>(i)], s[static_cast<std::size_t>(j)]) + S(i + 1, j - 1);
      for (int k = i; k < j; ++k) best = std::max(best, S(i, k) + S(k + 1, j));
      S(i, j) = best;
    }
  }
  return out;
}

std::int32_t ReferenceTables::f_cell(int i1, int j1, int i2, int j2) const {
  const auto& x = x_;
  const auto& z = z_;
  auto w = [this](std::uint8_t a, std::uint8_t b) { return static_cast<std::int32_t>(table_.at(a, b)); };
  const std::size_t ui1 = static_cast<std::size_t>(i1), uj1 = static_cast<std::size_t>(j1);
  const std::size_t ui2 = static_cast<std::size_t>(i2), uj2 = static_cast<std::size_t>(j2);

  // Base: one intermolecular pair (or 0).
  if (i1 == j1 && i2 == j2) return w(x[ui1], z[ui2]);

  std::int32_t best = 0;
  // 1. double reduction
  for (int k1 = i1; k1 < j1; ++k1)
    for (int k2 = i2; k2 < j2; ++k2) best = std::max(best, F(i1, k1, i2, k2) + F(k1 + 1, j1, k2 + 1, j2));
  // 2. and 3. a single-strand part of the query on the right or on the left
  for (int k1 = i1; k1 < j1; ++k1) {
    best = std::max(best, F(i1, k1, i2, j2) + S1(k1 + 1, j1));
    best = std::max(best, S1(i1, k1) + F(k1 + 1, j1, i2, j2));
  }
  // 4. and 5. a single-strand part of the target on the right or on the left
  for (int k2 = i2; k2 < j2; ++k2) {
    best = std::max(best, F(i1, j1, i2, k2) + S2(k2 + 1, j2));
    best = std::max(best, S2(i2, k2) + F(i1, j1, k2 + 1, j2));
  }
  // 6. an intramolecular query pair (i1, j1)
  if (j1 - i1 >= kMinLoop + 1) best = std::max(best, w(x[ui1], x[uj1]) + F(i1 + 1, j1 - 1, i2, j2));
  // 7. an intramolecular target pair (i2, j2) of z
  if (j2 - i2 >= kMinLoop + 1) best = std::max(best, w(z[ui2], z[uj2]) + F(i1, j1, i2 + 1, j2 - 1));
  return best;
}

namespace {

// T: ReferenceTables or TableView (the same accessors).
template <class T>
SiteResult find_site_impl(const T& t, bool with_traceback) {
  const Band& b = t.band();
  SiteResult r;
  if (b.n == 0 || b.m == 0) {
    r.full = 0;
    r.query_single = 0;
    r.target_single = 0;
    if (with_traceback) r.structure = Structure{{}, {}, {}, joint_dot_bracket(b.n, b.m, Structure{})};
    return r;
  }
  long long best = -1;
  for (int i1 = 0; i1 + b.l1 <= b.n; ++i1) {
    for (int i2 = 0; i2 + b.l2 <= b.m; ++i2) {
      const long long v = t.F(i1, i1 + b.l1 - 1, i2, i2 + b.l2 - 1);
      if (v > best) {  // strictly greater: the first maximum is kept
        best = v;
        r.site_i1 = i1;
        r.site_i2 = i2;
      }
    }
  }
  r.score = best;
  r.query_begin = r.site_i1 + 1;
  r.query_end = r.site_i1 + b.l1;
  r.target_begin = target_begin_1based(b.m, r.site_i2 + b.l2 - 1);
  r.target_end = target_end_1based(b.m, r.site_i2);
  if (b.l1 == b.n && b.l2 == b.m) r.full = r.score;
  if (b.l1 == b.n) r.query_single = t.S1(0, b.n - 1);
  if (b.l2 == b.m) r.target_single = t.S2(0, b.m - 1);
  if (with_traceback)
    r.structure = traceback(t, r.site_i1, r.site_i1 + b.l1 - 1, r.site_i2, r.site_i2 + b.l2 - 1);
  return r;
}

}  // namespace

SiteResult find_site(const ReferenceTables& t, bool with_traceback) { return find_site_impl(t, with_traceback); }
SiteResult find_site(const TableView& t, bool with_traceback) { return find_site_impl(t, with_traceback); }

SiteResult interact_reference(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p,
                              bool with_traceback) {
  const ReferenceTables t(x, n, y, m, p);
  return find_site(t, with_traceback);
}

}  // namespace screen::bpmax
