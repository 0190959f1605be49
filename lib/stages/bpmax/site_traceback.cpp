#include "stages/bpmax/site_traceback.hpp"

#include "stages/bpmax/cpu.hpp"

namespace screen::bpmax {

Structure trace_site_window(const PairInput& in, const Params& p, const SiteResult& site) {
  const Band b = make_band(in.query.length, in.target.length, p);
  const int i1 = site.site_i1, i2 = site.site_i2;
  const std::uint8_t* xs = in.query.codes + i1;
  const int y0 = b.m - i2 - b.l2;  // forward start of the window's target bases
  const std::uint8_t* ys = in.target.codes + y0;
  Params sp = p;
  sp.query_window = b.l1;
  sp.target_window = b.l2;
  const CpuTables t(xs, b.l1, ys, b.l2, sp, 1);
  Structure s = traceback(static_cast<const TableView&>(t), 0, b.l1 - 1, 0, b.l2 - 1);
  for (auto& [q, r] : s.inter) {
    q += i1;
    r += y0;
  }
  for (auto& [i, j] : s.query_pairs) {
    i += i1;
    j += i1;
  }
  for (auto& [i, j] : s.target_pairs) {
    i += y0;
    j += y0;
  }
  s.dot_bracket = joint_dot_bracket(b.n, b.m, s);
  return s;
}

}  // namespace screen::bpmax
