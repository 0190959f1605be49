#pragma once
// The traceback of a pair's site from the tables of the site's own window. The traceback of
// F(i1, i1+L1-1, i2, i2+L2-1) reads only cells of sub-intervals of that cell, and those depend only on the
// bases inside it, so the tables of the site's sub-strands give the structure the whole pair's tables give,
// for a fraction of the work. Used where the whole tables are not kept: the GPU path and the CPU's pruned
// target windows (window_pruning.hpp).
#include "stages/bpmax/interact.hpp"

namespace screen::bpmax {

// site: the pair's site (site_i1, site_i2 set); returns its structure in the pair's coordinates.
Structure trace_site_window(const PairInput& in, const Params& p, const SiteResult& site);

}  // namespace screen::bpmax
