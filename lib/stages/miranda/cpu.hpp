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

// First column of a DP window on which trace_back from a candidate (end_column, score) gives the
// same alignment as on the whole target; `gain` is max_cell_gain(query_length, m). Tighter than
// traceback_window_begin (about Lq + (gain - score) / g columns instead of 2 x max_positive_span),
// by this argument: the traced path is the chain of remembered predecessors from the end cell; every
// cell on it has a positive value (the walk stops at the first cell whose best is <= 0), and each
// prefix of the path is that cell's optimal path. Its A and C steps use distinct rows (at most Lq),
// and its gap costs total (sum of its cell scores) - score <= gain - score, so it has at most
// (gain - score) / g query gaps, g the cheapest gap cost: it spans at most
// Lq + (gain - score) / g columns. A window holding the path (and a boundary column before it)
// reproduces every value on the path (the window's DP can only be lower than the whole target's,
// apart from negative B values descending from the boundary, and holds the path itself), and no
// value beside the path that a predecessor choice compares with can rise above its true value, so
// every choice, and the stop, are the same.
int alignment_window_begin(int query_length, int end_column, int score, int gain, const ScoreModel& m);

// Candidates (every candidate cell of the pair, any order) -> hits in report order. Throws
// Error(internal) if a traceback window does not reproduce a candidate's score. defer_energy: as
// HitCollector's (the caller finishes the pair with apply_energies).
PairResult finish_pair(const SeqView& query, const SeqView& target, const Params& params,
                       const ScoreModel& model, std::vector<Candidate> candidates,
                       std::size_t query_index = 0, std::size_t target_index = 0, bool defer_energy = false);

// The whole pair through the scan: the same result as align_pair. Parameters under which the scan
// has no bound (a gap that costs nothing) go to align_pair itself.
PairResult align_pair_cpu(const SeqView& query, const SeqView& target, const Params& params,
                          std::size_t query_index = 0, std::size_t target_index = 0,
                          ScanIsa isa = ScanIsa::automatic);

}  // namespace screen::miranda
