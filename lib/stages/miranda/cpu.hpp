#pragma once
// miRanda fast CPU path for one (query, target) pair: the candidate cells from the SIMD scan
// (cpu_scan.hpp), then the reference's own post-processing (sort, diagonal suppression, overlap
// filter, strict mode, hit construction), with each traceback done by the reference DP on the
// bounded window before its end column (traceback_window_begin). The hits equal align_pair's.
#include <cstddef>
#include <vector>

#include "stages/miranda/cpu_scan.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {

// Candidates (every candidate cell of the pair, any order) -> hits in report order. Throws
// Error(internal) if a traceback window does not reproduce a candidate's score.
PairResult finish_pair(const SeqView& query, const SeqView& target, const Params& params,
                       const ScoreModel& model, std::vector<Candidate> candidates,
                       std::size_t query_index = 0, std::size_t target_index = 0);

// The whole pair through the scan: the same result as align_pair. Parameters under which the scan
// has no bound (a gap that costs nothing) go to align_pair itself.
PairResult align_pair_cpu(const SeqView& query, const SeqView& target, const Params& params,
                          std::size_t query_index = 0, std::size_t target_index = 0,
                          ScanIsa isa = ScanIsa::automatic);

}  // namespace screen::miranda
