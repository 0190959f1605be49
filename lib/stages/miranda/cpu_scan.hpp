#pragma once
// miRanda fast CPU path, step 1 ("scan cells -> candidates"): a vectorised scan of the three-state
// recurrence that finds exactly the candidate cells collect_candidates finds (best >= threshold,
// best state not B), without predecessors and without keeping the matrix.
//
// Layout: L lanes of 16-bit scores (16 with AVX2, 8 with SSE2, 1 for the portable scalar path) run
// in lockstep over target columns, rows in the inner loop. The target stream (pieces of one or many
// targets) is cut into L lane quotas; a lane that starts in the middle of a target first re-computes
// a warm-up of at least max_positive_span + 2 columns before its first reported column. Positive DP values
// depend only on the max_positive_span columns before them, and the candidate test only on positive
// values, so the lane's reported cells are exact; each cell is reported by exactly one lane.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stages/miranda/miranda_defs.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {

enum class ScanIsa { automatic, scalar, sse2, avx2 };

const char* scan_isa_name(ScanIsa isa);
// Whether this build and this CPU can run `isa` (automatic and scalar: always).
bool scan_isa_available(ScanIsa isa);
// AVX2 where the CPU has it, else SSE2 on x86-64, else scalar.
ScanIsa best_scan_isa();
// automatic -> best_scan_isa(); an unavailable ISA throws Error(internal).
ScanIsa resolve_scan_isa(ScanIsa isa);
// Lanes of one ISA (1, 8 or 16).
int scan_lanes(ScanIsa isa);

// Whether the 16-bit scan is exact for a query of length lq under m: gap costs negative (a span
// bound exists), cell scores within a signed byte and the positive gain plus one cell score and the
// sum of two gap costs within 16 bits. When not, the SIMD ISAs fall back to the scalar kernel
// (32-bit integers).
bool scan_fits_16bit(int lq, const ScoreModel& m);

// The largest score any cell can reach for a query of length lq: the sum over scoring rows of their
// best cell score (valid when gap costs are negative).
int max_cell_gain(int lq, const ScoreModel& m);

// Report columns col_begin..col_end (1-based, inclusive) of target `target`.
struct ScanPiece {
  std::size_t target = 0;
  int col_begin = 1;
  int col_end = 0;
};

struct TargetCandidate {
  std::size_t target = 0;
  Candidate cand;
};

// Part of a scan lane: columns ws..re of one target, computed from a zero boundary at ws - 1;
// columns rb..re are reported. The lane reaches column ws at step step0.
struct ScanSegment {
  std::size_t target = 0;
  int ws = 1, rb = 1, re = 0;
  int step0 = 0;
};

// Reusable buffers of the scan (one per thread). The lane layout of the last call is kept and
// reused when the next call has the same targets pointer, pieces, lanes and span (many queries of
// one length against one block): the targets' codes must not change while a workspace is reused.
struct ScanWorkspace {
  std::vector<std::int16_t> idx;
  std::vector<int> reset_steps;
  std::vector<std::int16_t> reset_masks;
  std::vector<std::uint8_t> work;
  std::vector<std::vector<ScanSegment>> lanes;
  long long steps = 0;
  // What the layout above was built for.
  const SeqView* key_targets = nullptr;
  std::vector<ScanPiece> key_pieces;
  int key_lanes = 0, key_span = 0;  // key_span: the warm-up length
};

// Appends to `out` every candidate cell of `query` against the columns of `pieces` (targets[] indexed
// by ScanPiece::target; pieces may hold parts of one target, in any order; a cell is reported once
// per piece that reports its column). Order of the output: unspecified.
void scan_candidates(const SeqView& query, const SeqView* targets, const ScanPiece* pieces,
                     std::size_t n_pieces, const ScoreModel& m, ScanIsa isa,
                     std::vector<TargetCandidate>& out, ScanWorkspace& ws);

// One target: every candidate cell, in collect_candidates' order (row-major: i, then j).
std::vector<Candidate> scan_candidates(const SeqView& query, const SeqView& target, const ScoreModel& m,
                                       ScanIsa isa = ScanIsa::automatic);

}  // namespace screen::miranda
