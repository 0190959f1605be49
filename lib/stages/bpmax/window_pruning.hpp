#pragma once
// Exact pruning of target windows: a pair's site is the first maximum of F over its windows, so a window
// whose upper bound (window_bounds.hpp) is below the score of some window already computed cannot be the site,
// and the tables of the bases that only such windows cover need not be computed. Per pair:
//   1. the bound of every target window;
//   2. the seeds: the windows of the largest bounds, merged into target segments covering at most
//      kSeedPercent of the target (at least one window), each scored as a pair of its own (a window's F
//      depends only on the bases inside it, so a segment's windows have the pair's values); the best seed
//      score is a lower bound on the site's;
//   3. the windows outside the seeds whose bound reaches it, merged into segments and scored the same way;
//      the best of all segments' sites, first in (i1, i2) order, is the pair's site.
// The result is the site the whole pair gives: a skipped window's score is at most its bound, below the
// seed's score, so it is neither the maximum nor tied with it.
#include <cstdint>
#include <functional>
#include <vector>

#include "stages/bpmax/interact.hpp"

namespace screen::bpmax {

// A pair is pruned when its target is at least kPruneMinWindows windows long (below that the seeds and
// segments cover about all of it), the query is at most kMaxBoundQuery long and no weight is negative.
constexpr int kPruneMinWindows = 8;
constexpr int kSeedPercent = 8;
bool prunable(const Band& b, const PairTable& t);

// The bound of each target window i2 = 0 .. m - L2 (z indices), on the CPU from the reference's S2.
std::vector<std::int32_t> window_upper_bounds(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p);

struct PruneStats {
  long long pairs = 0;             // pairs pruned
  long long windows = 0, windows_kept = 0;
  long long positions = 0;         // target bases of those pairs
  long long positions_scored = 0;  // target bases of the seeds and segments scored
};

// bounds: for each pair, window_upper_bounds's values (any path). score: the sites of a list of pairs,
// scores only (no structures). Every pair must be prunable. Returns each pair's site, as find_site's
// (structure, full and target_single unset: a pruned pair's window is shorter than its target).
using WindowBoundsFn = std::function<std::vector<std::vector<std::int32_t>>(const std::vector<PairInput>&)>;
using SitesFn = std::function<std::vector<SiteResult>(const std::vector<PairInput>&)>;
std::vector<SiteResult> score_pruned(const std::vector<PairInput>& pairs, const Params& p, const WindowBoundsFn& bounds,
                                     const SitesFn& score, PruneStats* stats = nullptr);

}  // namespace screen::bpmax
